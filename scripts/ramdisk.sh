# Sourced by bench/ and scripts/: a scratch XFS on a loop device over an
# image in /dev/shm, released on exit, error, SIGINT and SIGTERM.
#   ramdisk_init SIZE   sets RD_IMG, RD_LOOP, RD_MNT (not yet formatted)
#   ramdisk_fresh [MKFS OPTS...]   mkfs + mount at RD_MNT
#   ramdisk_umount
RD_IMG="" RD_LOOP="" RD_MNT=""

ramdisk_cleanup() {
  [ -n "$RD_MNT" ] && mountpoint -q "$RD_MNT" && umount "$RD_MNT"
  [ -n "$RD_LOOP" ] && losetup -d "$RD_LOOP" 2>/dev/null
  [ -n "$RD_IMG" ] && rm -f "$RD_IMG"
  [ -n "$RD_MNT" ] && rmdir "$RD_MNT" 2>/dev/null
  RD_IMG="" RD_LOOP="" RD_MNT=""
}

ramdisk_init() {
  trap ramdisk_cleanup EXIT
  trap 'exit 130' INT TERM
  RD_IMG=$(mktemp "/dev/shm/fscost-$$-XXXXXX.img")
  RD_MNT=$(mktemp -d "/tmp/fscost-mnt-$$-XXXXXX")
  truncate -s "$1" "$RD_IMG"
  RD_LOOP=$(losetup --find --show "$RD_IMG")
}

ramdisk_fresh() {
  # -f: the device is our own loop device over a file we just created.
  mkfs.xfs -f -q "$@" "$RD_LOOP"
  mount "$RD_LOOP" "$RD_MNT"
}

ramdisk_umount() { umount "$RD_MNT"; }
