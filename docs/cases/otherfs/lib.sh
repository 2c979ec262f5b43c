# source me. setup_fs <fs>; teardown_fs <fs>. Sets DEV, MNT, IMG.
setup_fs() {
  local fs=$1
  IMG=/dev/shm/truth-$fs.img; MNT=/mnt/truth-$fs
  rm -f $IMG; truncate -s 1G $IMG
  DEV=$(losetup -f --show $IMG)
  case $fs in
    ext4) mkfs.ext4 -q -F -E nodiscard $DEV ;;
    btrfs) mkfs.btrfs -q -f -K $DEV >/dev/null ;;
    xfs) mkfs.xfs -q -f -K $DEV ;;
  esac
  mkdir -p $MNT; mount $DEV $MNT; mkdir -p $MNT/d
  echo "setup $fs dev=$DEV ($(stat -c '%t:%T' $DEV)) mnt=$MNT" >&2
}
teardown_fs() {
  set +e; local fs=$1
  local img=/dev/shm/truth-$fs.img mnt=/mnt/truth-$fs
  while mountpoint -q $mnt; do umount $mnt || break; done
  for d in $(losetup -j $img -O NAME -n 2>/dev/null); do losetup -d $d; done
  rm -f $img; [ -d $mnt ] && rmdir $mnt 2>/dev/null
  return 0
}
cleanup_all() { for f in ext4 btrfs xfs; do teardown_fs $f; done; }
