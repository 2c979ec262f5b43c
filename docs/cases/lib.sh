# common RAM-disk helpers; source me.  mkfs command in $MKFS (full command w/o device)
EV_IMG=/dev/shm/ev.img; EV_MNT=/mnt/ev; EV_LOOP=
ev_cleanup() {
  mountpoint -q $EV_MNT && umount $EV_MNT
  [ -n "$EV_LOOP" ] && losetup -d $EV_LOOP 2>/dev/null
  EV_LOOP=; rm -f $EV_IMG
}
trap ev_cleanup EXIT INT TERM
ev_setup() {   # $1 = mkfs command line (binary + opts)
  ev_cleanup
  truncate -s ${EV_SIZE:-1G} $EV_IMG
  EV_LOOP=$(losetup -f --show $EV_IMG)
  $1 $EV_LOOP >/dev/null || { echo "mkfs failed: $1" >&2; return 1; }
  mkdir -p $EV_MNT; mount $EV_LOOP $EV_MNT
  sync; echo 3 > /proc/sys/vm/drop_caches
}
MKFS_NEW=/work/peers/xfsprogs/mkfs/mkfs.xfs
MKFS_OLD=/sbin/mkfs.xfs
C1A="$MKFS_NEW -f -i exchange=1 -n parent=0"
C1B="$MKFS_NEW -f -i exchange=1 -n parent=1"
C2A="$MKFS_OLD -f -m rmapbt=0"
C2B="$MKFS_OLD -f -m rmapbt=1"
FSS=/work/peers/fsstress
