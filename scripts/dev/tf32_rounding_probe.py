#!/usr/bin/env python3
"""How tg's two TF32 paths drop the low 13 mantissa bits of f32 inputs: round to nearest
(mma_sync, cvt.rna.tf32.f32) or truncate (wgmma straight from TMA-loaded f32).

Runs x [M, K] @ w [N, K]^T through `tgc run --device cuda` twice, on the default path (wgmma on
an H200) and with TG_MATMUL_PATH=mma_sync, on the same random inputs, and reports against a
float64 numpy reference: the mean signed error relative to |C| (truncation shrinks every
product towards zero: a bias of about -2^-10 = -1e-3 of C; rounding to nearest: ~0) and the
rms error relative to rms |C|. Also the same statistics for inputs pre-rounded or pre-truncated
in numpy and multiplied in float64, which show what each rule alone gives.
Usage (on the GPU machine, from .gpu/): TGC=./tgc python3 tf32_rounding_probe.py
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

TGC = os.environ.get("TGC", "./tgc")
M, K, N = 1024, 1024, 1024


def tf32(x, rule):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    if rule == "round":  # to nearest, ties away from zero (cvt.rna)
        u = u + 0x1000
    return ((u & 0xFFFFE000) & 0xFFFFFFFF).astype(np.uint32).view(np.float32)


def stats(c, ref):
    bias = float(np.mean((c - ref) * np.sign(ref)) / np.mean(np.abs(ref)))
    rms = float(np.sqrt(np.mean((c - ref) ** 2)) / np.sqrt(np.mean(ref ** 2)))
    return f"bias {bias:+.2e} of |C|, rms error {rms:.2e} of rms C"


def main():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((M, K), dtype=np.float32)
    w = rng.standard_normal((N, K), dtype=np.float32)
    ref = x.astype(np.float64) @ w.astype(np.float64).T
    for rule in ("round", "truncate"):
        c = tf32(x, rule).astype(np.float64) @ tf32(w, rule).astype(np.float64).T
        print(f"numpy, inputs {'rounded' if rule == 'round' else 'truncated'} to tf32: {stats(c, ref)}")
    with tempfile.TemporaryDirectory() as d:
        np.save(f"{d}/x.npy", x)
        np.save(f"{d}/w.npy", w)
        with open(f"{d}/g.mlir", "w") as f:
            f.write(f"func.func @linear(%x: tensor<{M}x{K}xf32>, %w: tensor<{N}x{K}xf32>) -> tensor<{M}x{N}xf32> {{\n"
                    f"  %0 = tg.matmul %x, %w transpose_b : tensor<{M}x{K}xf32>, tensor<{N}x{K}xf32> -> tensor<{M}x{N}xf32>\n"
                    f"  return %0 : tensor<{M}x{N}xf32>\n}}\n")
        for path in ("", "mma_sync"):
            env = dict(os.environ)
            env.pop("TG_MATMUL_PATH", None)
            if path:
                env["TG_MATMUL_PATH"] = path
            r = subprocess.run([TGC, "run", f"{d}/g.mlir", "--input", f"{d}/x.npy", "--input", f"{d}/w.npy",
                                "--output", f"{d}/c.npy", "--device", "cuda"], env=env, capture_output=True, text=True)
            if r.returncode != 0:
                print(f"tgc run ({path or 'default'}) failed: {r.stderr.strip()[:400]}")
                return 1
            c = np.load(f"{d}/c.npy").astype(np.float64)
            print(f"tg, {path or 'default path'}: {stats(c, ref)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
