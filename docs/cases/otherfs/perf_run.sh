#!/bin/bash
# usage: perf_run.sh <fs> <threads>
set -e; cd /work/truth/otherfs; . ./lib.sh; trap cleanup_all EXIT
fs=$1; t=$2
setup_fs $fs
perf record -q -a -g -F 4999 -o data/perf.$fs.t$t.data -- \
  fs_mark -d $MNT/d -n 20000 -s 0 -t $t -S 0 -k > data/fsmark.perf.$fs.t$t.txt 2>&1
echo "files: $(ls -f $MNT/d | wc -l)" >> data/fsmark.perf.$fs.t$t.txt
