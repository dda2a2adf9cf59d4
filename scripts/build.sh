#!/usr/bin/env bash
# Configures and builds tg in build/ (Release, Ninja, ccache when present, static LLVM so the
# binaries also run on the GPU machine). Extra arguments go to cmake's configure step.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="${TG_BUILD_DIR:-$root/build}"
cuda="${CUDA_HOME:-/usr/local/cuda}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH=/usr/lib/llvm-22 -DCUDAToolkit_ROOT="$cuda" "$@" >/dev/null
ninja -C "$build"
