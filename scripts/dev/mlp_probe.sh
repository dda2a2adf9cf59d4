# Times the fused MLP layer (bias + gelu epilogue), its parts (bias + relu, gelu alone) and the
# bare GEMM at 8192x4096x4096 bf16 through `tgc run --bench` on the GPU machine: the
# measurement behind the MLP row of benchmarks/RESULTS.md, and the same epilogues at K = 64. Run from the repo root there:
#   bash scripts/dev/mlp_probe.sh   (after scripts/gpu-run.sh prepare here, carrying .gpu)
set -e
cd "$(dirname "$0")/../../.gpu"
python3 - <<'PY'
import numpy as np
rng = np.random.default_rng(0)
def save_bf16(name, shape):  # randn rounded to bf16 (nearest even), stored as .npy |V2
    u = rng.standard_normal(shape, dtype=np.float32).view(np.uint32)
    bits = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    np.save(f"/tmp/{name}.npy", bits.view(np.dtype("V2")))
save_bf16("x", (8192, 4096)); save_bf16("w", (4096, 4096)); save_bf16("b", (4096,))
save_bf16("x64", (8192, 64)); save_bf16("w64", (4096, 64))
PY
# probe GRAPH X W: kernel time of scripts/dev/GRAPH.mlir on inputs X and W (and the bias b
# when the graph takes one).
probe() {
  ./tgc run "../scripts/dev/$1.mlir" --input "/tmp/$2.npy" --input "/tmp/$3.npy" \
    $(grep -q "%b:" "../scripts/dev/$1.mlir" && echo --input /tmp/b.npy) --output /tmp/o.npy \
    --device cuda --bench=20 2>&1 | grep -E "median|rror" | sed "s/^/$1: /"
}
for f in mlpbig mm8k mlp_relu mlp_gelu_nobias; do probe "$f" x w; done
# K = 64: one k-block, so the time is the epilogue's (and the result's 64 MiB write).
for f in k64_mm k64_mlp; do probe "$f" x64 w64; done
