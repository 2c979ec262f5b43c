#!/bin/bash
# Case 2 workload: 2 fs_mark threads, 4 KiB files, ONE shared dir (fs_mark -t 2 with a single -d puts all files in d/),
# no fsync; then sync so delalloc->real allocation (and its rmap updates) happens inside the measured window.
cd ${EVIDENCE:-/work/peers/evidence}/data && fs_mark -d /mnt/ev/d -n ${NF:-40000} -s 4096 -t 2 -S 0 -k > ${EVIDENCE:-/work/peers/evidence}/data/fsmark.last 2>&1
sync
