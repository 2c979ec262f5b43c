// Whose code a kernel frame is: the functions of fs/xfs, of fs/ext4 with
// fs/jbd2 (its journal), and of fs/btrfs, by the prefixes their sources use
// and the unprefixed static functions perf showed in their create stacks
// (docs/OTHER-FILESYSTEMS.md has the evidence). Names that two of
// them share ("init_once", each inode cache's constructor) are left out:
// unowned is "more work", never the wrong filesystem. Two configurations
// on different filesystems run different code below the VFS: a diff calls
// such frames the other filesystem's own code path, never "new code".
#pragma once

#include <array>
#include <span>
#include <string_view>

#include "model/frame_match.h"

namespace fscost {

struct FsCode {
  std::string_view fs;     // the mount type, as a configuration's "fs:" names it
  std::string_view label;  // for the reader: "ext4/jbd2"
  std::span<const std::string_view> patterns;  // frame_matches patterns
};

namespace fs_code_detail {
// The lists keep the sources' grouping, not one name a line.
// clang-format off
inline constexpr std::string_view kXfs[] = {"xfs*", "__xfs*", "_xfs*", "xlog*", "__xlog*"};
// fs/ext4 and fs/jbd2. The unprefixed names are the static functions perf
// showed in create stacks, owned by address (the kernel's text of
// fs/ext4/ and fs/jbd2/ is one range each): namei.c's htree, hash.c,
// ialloc.c, mballoc.c, and jbd2's transaction.c, revoke.c, journal.c.
inline constexpr std::string_view kExt4[] = {
    "ext4*", "__ext4*", "jbd2*", "__jbd2*",
    "start_this_handle", "stop_this_handle", "add_transaction_credits",
    "wait_transaction_locked", "wait_transaction_switching", "do_get_write_access",
    "find_revoke_record", "kjournald2",
    "dx_probe", "dx_insert_block", "do_split", "make_indexed_dir", "add_dirent_to_buf",
    "htree_dirblock_to_tree", "dx_make_map", "dx_sort_map", "dx_move_dirents",
    "str2hashbuf_signed", "str2hashbuf_unsigned", "find_group_orlov", "find_group_other",
    "find_inode_bit", "get_orlov_stats", "recently_deleted", "__check_block_validity",
    "mb_find_extent", "mb_find_order_for_block", "mb_set_bits", "mb_mark_used"};
// fs/btrfs, the same way: ctree.c's b-tree, extent_io.c's extent buffers
// (every "*_extent_buffer" is theirs), transaction.c, space-info.c,
// delayed-inode.c, delayed-ref.c, extent-tree.c, block-group.c,
// extent-io-tree.c, dir-item.c, inode.c, disk-io.c.
inline constexpr std::string_view kBtrfs[] = {
    "btrfs*", "__btrfs*", "*_extent_buffer",
    "insert_with_overflow", "setup_items_for_insert", "split_leaf", "split_node",
    "push_leaf_left", "push_leaf_right", "__push_leaf_left", "__push_leaf_right",
    "push_nodes_for_insert", "push_node_left", "balance_node_right", "balance_level",
    "insert_new_root", "insert_ptr", "copy_for_split", "read_block_for_search", "search_leaf",
    "leaf_space_used", "leaf_data_end", "unlock_up", "check_sibling_keys",
    "alloc_eb_folio_array", "assert_eb_folio_uptodate", "check_buffer_tree_ref",
    "set_extent_buffer_dirty", "start_transaction", "join_transaction", "wait_current_trans",
    "__reserve_bytes", "calc_available_free_space", "need_preemptive_reclaim",
    "fill_inode_item", "fill_stack_inode_item", "update_time_after_link_or_unlink",
    "read_tree_block", "add_delayed_ref", "add_delayed_ref_head", "find_free_extent",
    "block_group_cache_tree_search", "set_extent_bit", "alloc_extent_state"};
// clang-format on
}  // namespace fs_code_detail

inline constexpr std::array<FsCode, 3> kFsCode = {{
    {"xfs", "xfs", fs_code_detail::kXfs},
    {"ext4", "ext4/jbd2", fs_code_detail::kExt4},
    {"btrfs", "btrfs", fs_code_detail::kBtrfs},
}};

// The filesystem whose code `frame` is, or nullptr (VFS, mm, block, locks).
constexpr const FsCode* fs_code_of(std::string_view frame) {
  for (const auto& c : kFsCode)
    if (frame_matches_any(frame, c.patterns)) return &c;
  return nullptr;
}

// The row of filesystem `fs` ("ext4"), or nullptr.
constexpr const FsCode* fs_code(std::string_view fs) {
  for (const auto& c : kFsCode)
    if (c.fs == fs) return &c;
  return nullptr;
}

// True if `frame` is `fs`'s own code (fs may be nullptr: never).
constexpr bool is_fs_code(std::string_view frame, const FsCode* fs) {
  return fs && frame_matches_any(frame, fs->patterns);
}

}  // namespace fscost
