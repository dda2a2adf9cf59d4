#!/usr/bin/env bash
# Dumps the generated CUDA C++, PTX and plan of every built-in example (`tgc examples`, and
# the .mlir probes in scripts/dev) for
# the targets tg generates different kernels for, fused and unfused, into DIR:
#   scripts/dev/dump-examples.sh DIR [TGC]
# A refactoring that must not change code generation diffs two such directories:
#   diff -r before/ after/
# (cubins are left out: they are NVRTC's output of the same PTX).
set -euo pipefail
out="${1:?usage: dump-examples.sh DIR [TGC]}"
tgc="${2:-$(cd "$(dirname "$0")/../.." && pwd)/build/tools/tgc}"
rm -rf "$out" && mkdir -p "$out"
here="$(cd "$(dirname "$0")" && pwd)"
for ex in $("$tgc" examples | awk '{print $1}') "$here"/*.mlir; do
  for arch in sm_90a sm_80; do
    for fuse in fused unfused; do
      dir="$out/$(basename "$ex" .mlir)/$arch-$fuse"
      mkdir -p "$(dirname "$dir")"
      flags=(); [[ $fuse == unfused ]] && flags=(--no-fuse)
      "$tgc" dump "$ex" --arch="$arch" --sm-count=132 "${flags[@]}" --out-dir="$dir" > "$dir.txt" 2>&1
      rm -f "$dir"/*.cubin
    done
  done
done
echo "$(find "$out" -name '*.cu' | wc -l) kernels' CUDA C++ and PTX in $out"
