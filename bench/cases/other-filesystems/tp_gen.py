#!/usr/bin/env python3
import sys
fs, dev = sys.argv[1], int(sys.argv[2])
TP={'ext4':['jbd2:jbd2_handle_start','jbd2:jbd2_start_commit','jbd2:jbd2_end_commit','jbd2:jbd2_checkpoint','jbd2:jbd2_run_stats',
            'ext4:ext4_journal_start_sb','ext4:ext4_journal_start_inode','ext4:ext4_allocate_inode','ext4:ext4_mark_inode_dirty'],
    'btrfs':['btrfs:btrfs_transaction_commit','btrfs:btrfs_tree_lock','btrfs:btrfs_tree_read_lock','btrfs:btrfs_try_tree_read_lock',
             'btrfs:btrfs_tree_unlock','btrfs:btrfs_tree_read_unlock','btrfs:btrfs_cow_block','btrfs:btrfs_inode_new',
             'btrfs:add_delayed_ref_head','btrfs:run_delayed_ref_head'],
    'xfs':['xfs:xfs_create','xfs:xfs_log_reserve','xfs:xfs_trans_commit_items','xfs:xfs_ilock','xfs:xfs_buf_lock',
           'xfs:xfs_iget_miss','xfs:xfs_dir2_node_addname','xfs:xfs_ialloc_read_agi','xfs:xfs_log_force','xfs:xfs_log_cil_wait']}
out=["BEGIN { @phase = 0; }",
     'tracepoint:sched:sched_process_exec /comm == "sync"/ { @phase = 1; }']
for tp in TP[fs]:
    if fs=='btrfs':
        extra=''
        if tp.endswith(('btrfs_tree_lock','btrfs_tree_read_lock')):
            extra=f' @dur["{tp}", @phase] = hist(args->diff_ns); @dursum["{tp}", @phase] = sum(args->diff_ns);'
        out.append(f'tracepoint:{tp} {{ @c["{tp}", comm, @phase] = count();{extra} }}')
    else:
        out.append(f'tracepoint:{tp} /args->dev == {dev}/ {{ @c["{tp}", comm, @phase] = count(); }}')
        out.append(f'tracepoint:{tp} /args->dev != {dev}/ {{ @other_dev["{tp}", args->dev] = count(); }}')
print('\n'.join(out))
