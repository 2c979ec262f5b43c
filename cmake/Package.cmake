# CPack: `cpack -G DEB` in the build directory writes fscost_<version>_<arch>.deb.
# Depends comes from dpkg-shlibdeps over the installed binaries (libbpf1,
# libelf1, libfmt9, libprotobuf32, …), so it names exactly the libraries the
# build linked; Recommends are the programs `fscost compare` runs.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fscost)
set(CPACK_PACKAGE_VENDOR "fscost")
set(CPACK_PACKAGE_CONTACT "fscost developers <fscost@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "per-operation kernel cost of filesystem workloads, measured with eBPF")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "fscost records where a filesystem operation's kernel CPU, off-CPU time and lock waits\n go, per operation (create, unlink, rename, fsync, ...), with eBPF on the running\n kernel, and compares two filesystem configurations over interleaved runs, explaining\n the difference with statistics and differential flame graphs.")
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "xfsprogs, util-linux")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "linux-perf, bpftrace, golang-go")
set(CPACK_STRIP_FILES ON)
include(CPack)
