#!/usr/bin/env bash
# Builds scripts/dev/stream_hints_probe.cu here (nvcc, sm_90a) with tg's own chain8 kernel
# compiled in, into .gpu/stream_hints_probe, for a GPU run: `.gpu/stream_hints_probe [rounds]`.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="${TG_BUILD_DIR:-$root/build}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$build/tools/tgc" dump chain8 --stage=plan --arch=sm_90a --out-dir="$work" > /dev/null
src="$(ls "$work"/*.cu | head -1)"
sed -i 's/kNumel = 1048576u;/kNumel = 67108864u;/' "$src"
grep -q 'kNumel = 67108864u;' "$src" || { echo "chain8 source: kNumel not found"; exit 1; }
mkdir -p "$root/.gpu"
nvcc -arch=sm_90a -O3 -std=c++17 -DTG_CHAIN_CU="\"$src\"" -o "$root/.gpu/stream_hints_probe" \
  "$root/scripts/dev/stream_hints_probe.cu"
echo "built $root/.gpu/stream_hints_probe"
