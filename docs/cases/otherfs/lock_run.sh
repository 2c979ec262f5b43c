#!/bin/bash
# usage: lock_run.sh <fs> <threads>
set -e; cd /work/truth/otherfs; . ./lib.sh; trap cleanup_all EXIT
fs=$1; t=$2
setup_fs $fs
bpftrace lock_$fs.bt -c "/usr/bin/fs_mark -d $MNT/d -n 20000 -s 0 -t $t -S 0 -k" > data/lock.$fs.t$t.txt 2> data/lock.$fs.t$t.err
