#!/bin/bash
# usage: time_run.sh <fs> <threads> <rep>
set -e; cd /work/truth/otherfs; . ./lib.sh; trap cleanup_all EXIT
fs=$1; t=$2; r=$3
setup_fs $fs
perf stat -e task-clock -o data/stat.$fs.t$t.r$r.txt -- /usr/bin/time -f "TIME elapsed=%e user=%U sys=%S" \
  fs_mark -d $MNT/d -n 20000 -s 0 -t $t -S 0 -k > data/time.$fs.t$t.r$r.txt 2>&1
