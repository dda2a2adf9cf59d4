#!/usr/bin/env bash
# Installs what tg needs to build on Debian 12 (bookworm): LLVM/MLIR 22 (bookworm-security),
# CMake, Ninja, ccache, GoogleTest, Google Benchmark (with --sanitizers also clang-22 and its
# sanitizer runtimes). The CUDA 13 toolkit (headers + NVRTC) must
# already be at /usr/local/cuda; the GPU driver is not needed to build.
# Idempotent: does nothing when everything is present.
set -euo pipefail

packages=(cmake ninja-build ccache g++ python3 libgtest-dev libbenchmark-dev
          llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libzstd-dev)
# --sanitizers: also Debian's clang for the same LLVM and its sanitizer and libFuzzer runtimes
# (scripts/test-sanitizers.sh).
[ "${1:-}" = "--sanitizers" ] && packages+=(clang-22 libclang-rt-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "tg: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

cuda="${CUDA_HOME:-/usr/local/cuda}"
if [ ! -f "$cuda/include/nvrtc.h" ] || [ ! -f "$cuda/include/cuda.h" ]; then
  echo "tg: the CUDA 13 toolkit was not found at $cuda (need include/cuda.h, include/nvrtc.h and" >&2
  echo "    lib64/libnvrtc.so). Install it from NVIDIA's repository or set CUDA_HOME." >&2
  exit 1
fi
