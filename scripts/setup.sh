#!/usr/bin/env bash
# Installs every Debian package that building, testing and the demo need.
# Idempotent: installs only what is missing, and runs apt-get update only then.
#
#   scripts/setup.sh [--vm]
#
# --vm adds what tests/vm/run boots: QEMU, Debian's stock kernel (its image
# and modules under /boot and /lib/modules; the running kernel is not
# touched) and a static busybox for the guest's initramfs.
set -euo pipefail

vm=0
for a in "$@"; do
  case $a in
    --vm) vm=1 ;;
    *) echo "usage: scripts/setup.sh [--vm]" >&2; exit 2 ;;
  esac
done

packages=(
  # toolchain
  cmake g++ make pkg-config
  # BPF side: clang -target bpf, bpftool for vmlinux.h and skeletons
  clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev
  # C++ libraries
  libfmt-dev libboost-graph-dev libcli11-dev nlohmann-json3-dev libsimdjson-dev libblkid-dev
  # pprof export/import: libprotobuf and protoc, pprof's own profile.proto
  libprotobuf-dev protobuf-compiler golang-github-google-pprof-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # the hardening stage (scripts/hardening.sh): clang's libFuzzer and sanitizer runtimes
  libclang-rt-14-dev
  # RAM-disk filesystems (XFS, ext4, btrfs), workloads and comparisons
  xfsprogs e2fsprogs btrfs-progs fsmark linux-perf bpftrace util-linux
  # the peer that checks no descriptor is closed twice (runtime.RecordTest.NoDescriptorIsClosedTwice)
  strace
  # the real pprof client that reads fscost's exports in the tests (go tool pprof)
  golang-go
  # bench/ helpers (stdlib only)
  python3
  # browser test of the HTML report (tests/browser; never a downloaded browser)
  chromium
)
((vm)) && packages+=(qemu-system-x86 linux-image-amd64 busybox-static)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
  [[ $status == ii* ]] || missing+=("$p")
done

install_packages() {
  local sudo=()
  if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo=(sudo)
  fi
  echo "setup: installing ${missing[*]}"
  # env, not export: sudo drops the environment.
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -q --no-install-recommends "${missing[@]}"
}

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages are installed"
else
  install_packages
fi

# playwright-core and speedscope for tests/browser, exactly as its lock file
# says; again only when missing or older than the lock file. playwright
# drives Debian's chromium; speedscope is the app that opens our export.
browser="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tests/browser"
if [[ -d $browser/node_modules/playwright-core && -d $browser/node_modules/speedscope &&
      ! $browser/package-lock.json -nt $browser/node_modules/.package-lock.json ]]; then
  echo "setup: tests/browser node_modules are up to date"
else
  command -v npm >/dev/null || { echo "setup: npm not found; tests/browser needs Node.js 20 or later" >&2; exit 1; }
  echo "setup: npm ci in tests/browser"
  (cd "$browser" && npm ci --no-audit --no-fund)
fi
