#!/usr/bin/env bash
# The .deb, built and used as a user would: cpack builds it from this build
# tree, its Depends must name the library packages the binaries link, it is
# unpacked into an empty root and that root's fscost runs `features`, a man
# page and the completion; as root it records a short workload with the
# installed binaries. With CI=true it is also installed on the machine with
# dpkg -i (which refuses unmet Depends), run from /usr/bin, and removed.
#
# ctest package.deb: package_test.sh BUILD_DIR. Exits 77 (skipped) without
# cpack/dpkg, unless CI=true.
set -euo pipefail
build=$1
work=$(mktemp -d /tmp/fscost-package.XXXXXX)
installed=0
cleanup() {
  if ((installed)); then dpkg -r fscost >/dev/null || echo "package.deb: dpkg -r fscost failed" >&2; fi
  rm -rf "$work"
}
trap cleanup EXIT

skip() {
  if [[ ${CI:-} == true ]]; then echo "package.deb: FAILED: $1 (CI=true)"; exit 1; fi
  echo "package.deb: SKIPPED: $1"; exit 77
}
fail() { echo "package.deb: FAILED: $1"; exit 1; }
command -v cpack >/dev/null || skip "no cpack"
command -v dpkg-deb >/dev/null || skip "no dpkg-deb"
command -v dpkg-shlibdeps >/dev/null || skip "no dpkg-shlibdeps (apt-get install dpkg-dev)"

(cd "$build" && cpack -G DEB -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB"; }
deb=$(ls "$work"/out/fscost_*.deb)
echo "built $(basename "$deb"): $(du -k "$deb" | cut -f1) KiB"

depends=$(dpkg-deb -f "$deb" Depends)
echo "Depends: $depends"
# Every library the binary links must come from a package in Depends.
for lib in $(ldd "$build/userspace/fscost" | awk '$3 ~ /^\// {print $3}'); do
  pkg=$(dpkg -S "$(readlink -f "$lib")" 2>/dev/null | head -1 | cut -d: -f1) ||
    pkg=$(dpkg -S "$lib" 2>/dev/null | head -1 | cut -d: -f1) || true
  [[ -z $pkg || $pkg == libc6 ]] && continue
  [[ ",$depends" == *", $pkg "* || ",$depends" == *",$pkg "* || "$depends" == "$pkg "* ]] ||
    fail "$lib (package $pkg) is not in Depends"
done

root=$work/root
dpkg-deb -x "$deb" "$root"
for f in usr/bin/fscost usr/bin/fscost-workload usr/share/man/man1/fscost.1 \
         usr/share/man/man1/fscost-record.1 usr/share/man/man1/fscost-import-pprof.1 \
         usr/share/bash-completion/completions/fscost usr/share/doc/fscost/README.md \
         usr/share/doc/fscost/FORMATS.md; do
  [[ -e $root/$f ]] || fail "$f is not in the package"
done
"$root/usr/bin/fscost" --version
"$root/usr/bin/fscost" record --help | grep -q '^Usage: fscost record' || fail "usage line of the installed fscost"
man -l "$root/usr/share/man/man1/fscost-record.1" 2>/dev/null | grep -q -- '--freq' ||
  fail "man fscost-record does not render --freq"
bash -n "$root/usr/share/bash-completion/completions/fscost" || fail "bash completion has a syntax error"
completions=$(bash -c 'source "$1"; COMP_WORDS=(fscost import p); COMP_CWORD=2; _fscost; echo "${COMPREPLY[*]}"' _ \
  "$root/usr/share/bash-completion/completions/fscost")
[[ $completions == *pprof* ]] || fail "completion of 'fscost import p' gave '$completions'"

run_installed() {  # BIN_DIR: features and, as root, one short record
  local bin=$1
  "$bin/fscost" features >"$work/features.txt" 2>&1 || { cat "$work/features.txt"; fail "$bin/fscost features"; }
  head -3 "$work/features.txt"
  if ((EUID == 0)); then
    mkdir -p "$work/files"
    "$bin/fscost" record -o "$work/p.profile" -- "$bin/fscost-workload" "$work/files" \
      --workload create --files 500 >"$work/record.log" 2>&1 || { cat "$work/record.log"; fail "$bin/fscost record"; }
    "$bin/fscost" report "$work/p.profile" | grep -E '^ *create ' || fail "no create row in the installed record's report"
    rm -rf "$work/files" "$work/p.profile"
  elif [[ ${CI:-} == true ]]; then
    fail "not root: the installed record was not run"
  fi
}
run_installed "$root/usr/bin"

if [[ ${CI:-} == true ]]; then
  if dpkg -s fscost >/dev/null 2>&1; then fail "fscost is already installed on this machine"; fi
  dpkg -i "$deb" || fail "dpkg -i (unmet Depends?)"
  installed=1
  run_installed /usr/bin
  man -w fscost-diff >/dev/null || fail "man fscost-diff is not found after install"
fi
echo "package.deb: passed"
