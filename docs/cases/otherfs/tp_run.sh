#!/bin/bash
# usage: tp_run.sh <fs> <threads>   -- phase 0 = fs_mark, phase 1 = trailing `sync`
set -e; cd /work/truth/otherfs; . ./lib.sh; trap cleanup_all EXIT
fs=$1; t=$2
setup_fs $fs
maj=$((0x$(stat -c %t $DEV))); min=$((0x$(stat -c %T $DEV))); kdev=$(( (maj<<20) | min ))
python3 tp_gen.py $fs $kdev > data/tp_$fs.bt
[ $fs = btrfs ] && btrfs filesystem show $MNT | head -1 > data/tp.$fs.fsid.txt
printf '#!/bin/sh\n/usr/bin/fs_mark -d %s/d -n 20000 -s 0 -t %s -S 0 -k\nsync\n' $MNT $t > data/wl.sh; chmod +x data/wl.sh
bpftrace data/tp_$fs.bt -c "/bin/sh /work/truth/otherfs/data/wl.sh" > data/tp.$fs.t$t.txt 2> data/tp.$fs.t$t.err
echo "kdev=$kdev files=$(ls -f $MNT/d | wc -l)" >> data/tp.$fs.t$t.txt
