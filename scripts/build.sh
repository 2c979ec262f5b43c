#!/usr/bin/env bash
# Configures and builds fscost, its tests and test programs into ./build.
# Extra arguments go to the CMake configure step (e.g. -DFSCOST_VMLINUX_BTF=...).
set -euo pipefail
cd "$(dirname "$0")/.."

cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
cmake --build build -j"$(nproc)"
