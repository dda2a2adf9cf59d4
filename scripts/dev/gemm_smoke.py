#!/usr/bin/env python3
"""Quick matmul check through `tgc run` (no C++ test build needed): for each case, writes the
tg IR of one matmul, random inputs as .npy, runs it on the device, and compares with a float64
numpy reference. Used by scripts/gpu-run.sh (`gemm-smoke`) while developing matmul kernels; the
full tests are tests/gpu/GpuMatmulTest.cpp.

Tolerance per element: 1 ulp of the output dtype at |ref| + K * 2^-23 * sum_k |a_ik b_kj|.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

TGC = os.environ.get("TGC", "./tgc")

# (batch or 0, M, K, N, transpose_a, transpose_b, dtype)
CASES = [
    (0, 256, 128, 256, False, True, "bf16"),
    (0, 4096, 4096, 4096, False, True, "bf16"),
    (0, 1000, 512, 744, False, True, "bf16"),
    (0, 300, 200, 264, False, False, "bf16"),
    (0, 200, 64, 136, True, False, "f16"),
    (0, 136, 72, 520, True, True, "f16"),
    (3, 200, 64, 136, False, False, "f16"),
    (0, 1, 4096, 4096, False, True, "bf16"),
    (0, 4096, 4096, 8, False, True, "bf16"),
]
# With --bench: (M, K, N, transpose_b) timed with `tgc run --bench` (bf16), TFLOP/s printed.
BENCH = [(2048, 2048, 2048, True), (4096, 4096, 4096, True), (4096, 4096, 4096, False),
         (8192, 8192, 8192, True), (8192, 4096, 4096, True)]


def to_bf16_bits(x):
    """float32 -> bf16 bit patterns (round to nearest even) and their exact float values."""
    u = x.astype(np.float32).view(np.uint32)
    r = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
    return r, (r.astype(np.uint32) << 16).view(np.float32)


def write_input(path, x, dtype):
    if dtype == "bf16":
        bits, exact = to_bf16_bits(x)
        np.save(path, bits.view(np.dtype("V2")))
        return exact.astype(np.float64)
    h = x.astype(np.float16)
    np.save(path, h)
    return h.astype(np.float64)


def ir_type(shape, dtype):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + dtype + ">"


def main():
    rng = np.random.default_rng(1)
    failures = 0
    bench = "--bench" in sys.argv or "--bench-only" in sys.argv
    cases = ([] if "--bench-only" in sys.argv else CASES) + \
        ([(0, m, k, n, False, tb, "bf16") for m, k, n, tb in BENCH] if bench else [])
    for batch, m, k, n, ta, tb, dt in cases:
        lead = [batch] if batch else []
        sa = lead + ([k, m] if ta else [m, k])
        sb = ([n, k] if tb else [k, n])
        sc = lead + [m, n]
        attrs = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
        ir = (f"func.func @main(%a: {ir_type(sa, dt)}, %b: {ir_type(sb, dt)}) -> {ir_type(sc, dt)} {{\n"
              f"  %0 = tg.matmul %a, %b{attrs} : {ir_type(sa, dt)}, {ir_type(sb, dt)} -> {ir_type(sc, dt)}\n"
              f"  return %0 : {ir_type(sc, dt)}\n}}\n")
        with tempfile.TemporaryDirectory() as d:
            open(f"{d}/mm.mlir", "w").write(ir)
            a = write_input(f"{d}/a.npy", rng.standard_normal(sa, dtype=np.float32), dt)
            b = write_input(f"{d}/b.npy", rng.standard_normal(sb, dtype=np.float32), dt)
            r = subprocess.run([TGC, "run", f"{d}/mm.mlir", "--input", f"{d}/a.npy", "--input",
                                f"{d}/b.npy", "--output", f"{d}/c.npy", "--device", "cuda"]
                               + (["--bench=20"] if bench and m * n * k >= 2048 ** 3 else []),
                               capture_output=True, text=True)
            name = f"{'%dx' % batch if batch else ''}{m}x{k}x{n}{' A^T' if ta else ''}{' B^T' if tb else ''} {dt}"
            if r.returncode != 0:
                print(f"FAIL {name}: tgc run exit {r.returncode}: {r.stderr.strip()[:400]}")
                failures += 1
                continue
            c = np.load(f"{d}/c.npy")
            got = ((c.view(np.uint16).astype(np.uint32) << 16).view(np.float32) if dt == "bf16"
                   else c.astype(np.float32)).astype(np.float64)
        A = np.swapaxes(a, -1, -2) if ta else a
        B = b.T if tb else b
        if m > 1024:  # a sample of 128 rows keeps the float64 reference cheap
            rows = np.sort(rng.choice(m, 128, replace=False))
            A, got = A[..., rows, :], got[..., rows, :]
        ref = A @ B
        scale = np.abs(A) @ np.abs(B)
        ulp = 2.0 ** (np.floor(np.log2(np.maximum(np.abs(ref), 1e-30))) - (7 if dt == "bf16" else 10))
        bound = ulp + k * 2.0 ** -23 * scale
        err = np.abs(got - ref)
        ratio = float(np.max(err / bound))
        ok = ratio <= 1.0 and np.all(np.isfinite(got))
        failures += not ok
        timing = ""
        for line in r.stderr.splitlines():
            if "median" in line:
                us = float(line.split("median ")[1].split(" us")[0])
                timing = f", {us:.1f} us = {2.0 * m * n * k * max(batch, 1) / us / 1e6:.0f} TFLOP/s"
        print(f"{'ok  ' if ok else 'FAIL'} {name}{timing}: max err/bound {ratio:.3f}, "
              f"max |err| {float(err.max()):.3g}, ||err||/||ref|| {float(np.linalg.norm(err) / np.linalg.norm(ref)):.3g}")
    print(f"gemm smoke: {len(cases) - failures}/{len(cases)} passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
