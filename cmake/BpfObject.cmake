# fscost_bpf_object(NAME SOURCE): compile bpf/SOURCE with clang -target bpf,
# generate NAME.skel.h with bpftool, and define the INTERFACE target NAME_skel
# that carries the include path of the skeleton and links libbpf.
#
# vmlinux.h is dumped from the running kernel's BTF at configure time (see
# docs/BUILD.md for why it is not checked in).
find_program(BPF_CLANG NAMES clang REQUIRED)
find_program(BPFTOOL NAMES bpftool PATHS /usr/sbin /usr/local/sbin REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBBPF REQUIRED IMPORTED_TARGET libbpf>=1.0)
pkg_check_modules(LIBELF REQUIRED IMPORTED_TARGET libelf)

set(FSCOST_VMLINUX_BTF "/sys/kernel/btf/vmlinux" CACHE FILEPATH
    "BTF blob that vmlinux.h is generated from")
set(FSCOST_BPF_GEN ${CMAKE_BINARY_DIR}/bpfgen)
file(MAKE_DIRECTORY ${FSCOST_BPF_GEN})
if(NOT EXISTS ${FSCOST_VMLINUX_BTF})
  message(FATAL_ERROR "no kernel BTF at ${FSCOST_VMLINUX_BTF}\n"
          "hint: fscost needs CONFIG_DEBUG_INFO_BTF=y, or pass "
          "-DFSCOST_VMLINUX_BTF=<file> with a vmlinux or BTF blob of the target kernel")
endif()
add_custom_command(
  OUTPUT ${FSCOST_BPF_GEN}/vmlinux.h
  COMMAND ${BPFTOOL} btf dump file ${FSCOST_VMLINUX_BTF} format c > ${FSCOST_BPF_GEN}/vmlinux.h.tmp
  COMMAND ${CMAKE_COMMAND} -E rename ${FSCOST_BPF_GEN}/vmlinux.h.tmp ${FSCOST_BPF_GEN}/vmlinux.h
  COMMENT "Generating vmlinux.h from ${FSCOST_VMLINUX_BTF}")
# Custom-command outputs are per directory; BPF objects in other directories
# order after this target instead of naming the file.
add_custom_target(fscost_vmlinux_h DEPENDS ${FSCOST_BPF_GEN}/vmlinux.h)

if(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64")
  set(FSCOST_BPF_ARCH x86)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "aarch64")
  set(FSCOST_BPF_ARCH arm64)
else()
  set(FSCOST_BPF_ARCH ${CMAKE_SYSTEM_PROCESSOR})
endif()

function(fscost_bpf_object name source)
  set(obj ${FSCOST_BPF_GEN}/${name}.bpf.o)
  set(skel ${FSCOST_BPF_GEN}/${name}.skel.h)
  add_custom_command(
    OUTPUT ${obj}
    COMMAND ${BPF_CLANG} -g -O2 -target bpf -D__TARGET_ARCH_${FSCOST_BPF_ARCH}
            -Wall -Werror -I${FSCOST_BPF_GEN} -I${CMAKE_CURRENT_SOURCE_DIR}
            -c ${CMAKE_CURRENT_SOURCE_DIR}/${source} -o ${obj}
    DEPENDS ${source} ${ARGN}
    IMPLICIT_DEPENDS C ${CMAKE_CURRENT_SOURCE_DIR}/${source}
    COMMENT "BPF ${source}")
  add_custom_command(
    OUTPUT ${skel}
    COMMAND ${BPFTOOL} gen skeleton ${obj} name ${name} > ${skel}.tmp
    COMMAND ${CMAKE_COMMAND} -E rename ${skel}.tmp ${skel}
    DEPENDS ${obj}
    COMMENT "skeleton ${name}.skel.h")
  add_custom_target(${name}_skelgen DEPENDS ${skel})
  add_dependencies(${name}_skelgen fscost_vmlinux_h)
  add_library(${name}_skel INTERFACE)
  add_dependencies(${name}_skel ${name}_skelgen)
  target_include_directories(${name}_skel INTERFACE ${FSCOST_BPF_GEN} ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name}_skel INTERFACE PkgConfig::LIBBPF PkgConfig::LIBELF)
endfunction()
