#!/usr/bin/env python3
"""Time tg's benchmark graphs in PyTorch (eager and torch.compile) on a CUDA GPU.

The cases mirror the graphs timed by tg's Google Benchmark binary so the numbers
can be put side by side by ``benchmarks/report.py``.

Usage::

    python3 benchmarks/compare_torch.py --out torch.json [--cases chain8,gelu,...] [--quick]

Methodology (kept identical for every case):

* Inputs are fresh ``torch.randn`` tensors drawn with a fixed seed (never zeros).
  When one input set is smaller than 60 MiB, three independent input sets are
  built and the calls rotate between them so a warm L2 does not flatter the
  numbers.
* Warm-up: at least ``WARMUP_CALLS`` calls (and at least one per input set).
  For torch.compile the very first call triggers compilation; its wall time
  (including a device sync) is reported as ``compile_s``.  Note that Inductor
  and Triton keep on-disk caches, so a second run of this script reports
  warm-cache compile times unless ``--cold-compile`` is given.
* Before timing, torch.compile's output (and the CUDA graph's, for
  ``eager_graph``) is compared with eager using ``torch.testing.assert_close``
  (rtol = atol = 1e-3 for f32, 2e-2 for bf16).  A mismatch does not discard the
  timing; it is recorded in the entry's ``check`` field instead of ``"ok"``.
* Timing: 30 calls (10 with ``--quick``), each bracketed by its own pair of
  ``torch.cuda.Event(enable_timing=True)``; the MEDIAN is reported in
  microseconds (``median_us``) together with the minimum (``min_us``).
* ``gbps`` = bytes moved / median time (only for memory-bound cases where the
  byte count is defined), ``tflops`` = 2*M*N*K / median time (GEMM-like cases).
* For ``chain32`` the host cost per call is also measured: 1000 back-to-back
  calls without synchronisation, timed with ``time.perf_counter`` up to and
  including a final ``torch.cuda.synchronize()`` (``host_us_per_call``).
* ``copy`` times ``dst.copy_(src)`` of 1 GiB (2 GiB moved) as the practical
  bandwidth roofline.

Result names are ``<case>/<dtype>[/<shape>]/<variant>`` with variant ``eager``,
``compile`` or ``eager_graph``.  A failing variant or case is recorded with an
``error`` field; the remaining cases still run.  The JSON file is rewritten
after every case so partial results survive a crash.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import gc
import json
import statistics
import sys
import time
import traceback
import warnings
from dataclasses import dataclass
from typing import Callable, Iterator, Sequence

import torch
import torch.nn.functional as F

N_ELEM = 1 << 26                      # 64M elements for the 1-D elementwise cases
ROTATE_LIMIT_BYTES = 60 * 1024 * 1024  # rotate input sets below this size
NUM_ROTATE_SETS = 3
WARMUP_CALLS = 3
TIMED_CALLS = 30
TIMED_CALLS_QUICK = 10
HOST_CALLS = 1000
COPY_BYTES = 1 << 30                  # 1 GiB source buffer for the copy roofline

TOLERANCE = {torch.float32: 1e-3, torch.bfloat16: 2e-2}
DTYPE_NAME = {torch.float32: "f32", torch.bfloat16: "bf16"}


# ----------------------------------------------------------------------------
# The graphs.  Module-level functions so torch.compile sees plain Python code.
# ----------------------------------------------------------------------------

def chain8(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """tg's ``chain8`` graph: a short chain of fused-friendly elementwise ops."""
    t = torch.tanh(x * 1.5 + y) * torch.sigmoid(y)
    return torch.exp(-(t * t)) * y + 1.0


def gelu(x: torch.Tensor) -> torch.Tensor:
    return F.gelu(x, approximate="tanh")


def bias_gelu(x: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.gelu(x + b, approximate="tanh")


def chain32(x: torch.Tensor) -> torch.Tensor:
    """32 elementwise ops: 8 x (mul, add, tanh, sub)."""
    for _ in range(8):
        x = torch.tanh(x * 0.9 + 0.1) - 0.05
    return x


def mlp(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.gelu(x @ w.T + b, approximate="tanh")


def gemm_nt(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x @ w.T


def gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a @ b


# Attention (bench_attention.cpp): q, k, v [1, H, S, D], 32 x 4096 query rows a call.
ATTN_SOFTCAP = 20.0


def attention_math(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                   mod: str) -> torch.Tensor:
    """The reference: scores in f32, as tg's graph computes them."""
    s = (q @ k.transpose(-1, -2)).float() * q.shape[-1] ** -0.5
    S = s.shape[-1]
    row = torch.arange(S, device=q.device).view(S, 1)
    key = torch.arange(S, device=q.device).view(1, S)
    if mod == "softcap":
        s = torch.tanh(s / ATTN_SOFTCAP) * ATTN_SOFTCAP
    if mod == "alibi":
        s = s - alibi_slopes(q.shape[1], q.device).view(-1, 1, 1) * (row - key)
    if mod in ("causal", "alibi"):
        s = s.masked_fill(key > row, float("-inf"))
    return (torch.softmax(s, -1).to(v.dtype) @ v)


def alibi_slopes(heads: int, device: torch.device) -> torch.Tensor:
    return torch.tensor([2.0 ** (-(h % 8) - 1) for h in range(heads)], device=device)


def attention_callable(variant: str, mod: str, heads: int, S: int):
    """(q, k, v) -> o for an SDPA backend or FlexAttention, or None if it cannot."""
    from torch.nn.attention import SDPBackend, sdpa_kernel  # noqa: PLC0415
    if variant in ("sdpa_flash", "sdpa_cudnn"):
        if mod not in ("full", "causal"):
            return None
        backend = SDPBackend.FLASH_ATTENTION if variant == "sdpa_flash" else SDPBackend.CUDNN_ATTENTION

        def call(q, k, v):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=mod == "causal")
        return call
    if variant == "flex":
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention  # noqa: PLC0415
        flex = torch.compile(flex_attention)
        slopes = alibi_slopes(heads, torch.device("cuda"))

        def causal(b, h, q_idx, kv_idx):
            return q_idx >= kv_idx
        block_mask = create_block_mask(causal, None, None, S, S) if mod in ("causal", "alibi") else None

        def score_mod(score, b, h, q_idx, kv_idx):
            if mod == "softcap":
                return torch.tanh(score / ATTN_SOFTCAP) * ATTN_SOFTCAP
            if mod == "alibi":
                return score - slopes[h] * (q_idx - kv_idx)
            return score
        return lambda q, k, v: flex(q, k, v, score_mod=score_mod, block_mask=block_mask)
    raise ValueError(f"unknown attention variant {variant!r}")


def softmax_rows(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def layer_norm_rows(x: torch.Tensor, w: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return F.layer_norm(x, (x.shape[-1],), w, b, eps=1e-5)


def rmsnorm_rows(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """tg's RMSNorm from primitives (examples/graphs.h), written the same way."""
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


# ----------------------------------------------------------------------------
# Case table
# ----------------------------------------------------------------------------

@dataclass
class Case:
    """One benchmark graph.

    ``shapes`` lists the input shapes; every input is ``torch.randn(shape,
    dtype=dtype)`` on the GPU.  ``variants`` selects what is timed.  ``tags``
    are extra ``--cases`` tokens that select the case (besides name prefixes).
    """

    name: str
    fn: Callable[..., torch.Tensor]
    shapes: Sequence[tuple[int, ...]]
    dtype: torch.dtype
    bytes_moved: int | None = None
    flops: int | None = None
    variants: tuple[str, ...] = ("eager", "compile")
    host_timing: bool = False
    attention: str | None = None       # the modifier of an attention case
    tf32: bool | None = None          # None: leave the matmul precision alone
    tags: tuple[str, ...] = ()

    def selected_by(self, token: str) -> bool:
        return (self.name == token or self.name.startswith(token + "/")
                or token in self.tags)


def _esize(dtype: torch.dtype) -> int:
    return torch.empty((), dtype=dtype).element_size()


def build_cases(quick: bool) -> list[Case]:
    cases: list[Case] = []
    for dt in (torch.float32, torch.bfloat16):
        es, d = _esize(dt), DTYPE_NAME[dt]
        cases.append(Case(f"chain8/{d}", chain8, [(N_ELEM,), (N_ELEM,)], dt,
                          bytes_moved=3 * N_ELEM * es))
    for dt in (torch.float32, torch.bfloat16):
        es, d = _esize(dt), DTYPE_NAME[dt]
        cases.append(Case(f"gelu/{d}", gelu, [(N_ELEM,)], dt,
                          bytes_moved=2 * N_ELEM * es))
    for dt in (torch.float32, torch.bfloat16):
        es, d = _esize(dt), DTYPE_NAME[dt]
        rows = cols = 8192
        cases.append(Case(f"bias_gelu/{d}", bias_gelu, [(rows, cols), (cols,)], dt,
                          bytes_moved=2 * rows * cols * es + cols * es))
    # Launch/latency bound: no byte count, GB/s would be meaningless.
    cases.append(Case("chain32/f32", chain32, [(1024,)], torch.float32,
                      variants=("eager", "compile", "eager_graph"),
                      host_timing=True))

    m, n, k = 8192, 4096, 4096
    cases.append(Case("mlp/bf16", mlp, [(m, k), (n, k), (n,)], torch.bfloat16,
                      flops=2 * m * n * k))
    cases.append(Case(f"gemm/bf16/{m}x{n}x{k}", gemm_nt, [(m, k), (n, k)],
                      torch.bfloat16, flops=2 * m * n * k, tags=("mlp",)))
    for size in (2048, 4096, 8192):
        if quick and size == 8192:
            continue
        cases.append(Case(f"gemm/bf16/{size}", gemm, [(size, size)] * 2,
                          torch.bfloat16, flops=2 * size ** 3))
    cases.append(Case("gemm/tf32/2048", gemm, [(2048, 2048)] * 2, torch.float32,
                      flops=2 * 2048 ** 3, tf32=True))
    cases.append(Case("gemm/f32/2048", gemm, [(2048, 2048)] * 2, torch.float32,
                      flops=2 * 2048 ** 3, tf32=False))

    # Row normalisations (bench_rows.cpp): about 256 MiB of input per case. Tag `rows` selects
    # them all, `rows-key` the widths 1024, 4096 and 65536 and the two extra shapes.
    norms = (("softmax", softmax_rows, 0), ("layer_norm", layer_norm_rows, 2),
             ("rmsnorm", rmsnorm_rows, 1))
    for name, fn, weights in norms:
        for dt in (torch.float32, torch.bfloat16):
            es, d = _esize(dt), DTYPE_NAME[dt]
            shapes = [((256 << 20) // es // n, n) for n in (256, 1024, 4096, 16384, 65536, 262144)]
            shapes.append((5000, 777))
            if name == "softmax" and dt == torch.bfloat16:
                shapes.append((32768, 4096))
            for rows, n in shapes:
                key = n in (1024, 4096, 65536) or (rows, n) in ((5000, 777), (32768, 4096))
                cases.append(Case(f"{name}/{d}/{rows}x{n}", fn, [(rows, n)] + [(n,)] * weights, dt,
                                  bytes_moved=(2 * rows * n + weights * n) * es,
                                  tags=("rows", "rows-key") if key else ("rows",)))
    # Attention (bench_attention.cpp): H = 32 * 4096 / S heads, bf16; FLOPs as FlashAttention
    # counts them (causal: half). Tag `attention`.
    for d in (128, 64):
        for S in (4096, 8192, 16384):
            for mod in ("full", "causal", "softcap", "alibi"):
                if mod in ("softcap", "alibi") and (d != 128 or S != 8192):
                    continue
                H = 32 * 4096 // S
                flops = 4 * H * S * S * d // (2 if mod in ("causal", "alibi") else 1)
                variants = ("sdpa_flash", "sdpa_cudnn", "flex") if mod in ("full", "causal") else ("flex",)
                cases.append(Case(f"attention/bf16/d{d}/s{S}/{mod}",
                                  lambda q, k, v, mod=mod: attention_math(q, k, v, mod),
                                  [(1, H, S, d)] * 3, torch.bfloat16, flops=flops,
                                  variants=variants, attention=mod, tags=("attention",)))
    return cases


def select_cases(cases: list[Case], spec: str | None) -> tuple[list[Case], bool]:
    """Filter by a comma-separated ``--cases`` list. Returns (cases, run_copy)."""
    if not spec:
        return cases, True
    tokens = [t.strip() for t in spec.split(",") if t.strip()]
    unknown = [t for t in tokens
               if t != "copy" and not any(c.selected_by(t) for c in cases)]
    if unknown:
        names = ", ".join(["copy"] + [c.name for c in cases])
        sys.exit(f"unknown case(s): {', '.join(unknown)}\navailable: {names}")
    chosen = [c for c in cases if any(c.selected_by(t) for t in tokens)]
    return chosen, "copy" in tokens


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

@contextlib.contextmanager
def matmul_tf32(enabled: bool | None) -> Iterator[None]:
    """Temporarily allow (or forbid) TF32 for float32 cuBLAS matmuls.

    Equivalent to ``torch.backends.cuda.matmul.allow_tf32 = enabled``.  PyTorch
    >= 2.9 deprecates that flag in favour of ``fp32_precision`` and raises when
    the two APIs are mixed, so the new API is used whenever it exists.
    """
    if enabled is None:
        yield
        return
    mm = torch.backends.cuda.matmul
    if hasattr(mm, "fp32_precision"):
        old = mm.fp32_precision
        mm.fp32_precision = "tf32" if enabled else "ieee"
        try:
            yield
        finally:
            with contextlib.suppress(Exception):
                mm.fp32_precision = old
    else:
        old = mm.allow_tf32
        mm.allow_tf32 = enabled
        try:
            yield
        finally:
            mm.allow_tf32 = old


def make_input_sets(case: Case, seed: int) -> list[tuple[torch.Tensor, ...]]:
    """Build 1 input set, or NUM_ROTATE_SETS when one set is below 60 MiB."""
    def one(i: int) -> tuple[torch.Tensor, ...]:
        torch.manual_seed(seed + i)
        return tuple(torch.randn(s, device="cuda", dtype=case.dtype)
                     for s in case.shapes)

    first = one(0)
    nbytes = sum(t.numel() * t.element_size() for t in first)
    if nbytes >= ROTATE_LIMIT_BYTES:
        return [first]
    return [first] + [one(i) for i in range(1, NUM_ROTATE_SETS)]


def time_gpu(calls: Sequence[Callable[[], object]], iters: int) -> dict:
    """Median/min device time (us) of ``iters`` calls, rotating through ``calls``.

    Each call gets its own CUDA event pair; all events are read after a single
    synchronisation at the end so the host never stalls between calls.
    """
    for i in range(max(WARMUP_CALLS, len(calls))):
        calls[i % len(calls)]()
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    for i in range(iters):
        call = calls[i % len(calls)]
        starts[i].record()
        call()
        ends[i].record()
    torch.cuda.synchronize()
    times_us = [s.elapsed_time(e) * 1e3 for s, e in zip(starts, ends)]
    return {"median_us": statistics.median(times_us), "min_us": min(times_us),
            "iters": iters, "input_sets": len(calls)}


def host_us_per_call(call: Callable[[], object], n: int = HOST_CALLS) -> float:
    """Host wall time per call: ``n`` calls without sync, then one sync."""
    call()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(n):
        call()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6


def check_close(actual: torch.Tensor, expected: torch.Tensor,
                dtype: torch.dtype) -> str:
    """``"ok"`` or a one-line description of the mismatch."""
    tol = TOLERANCE.get(dtype, 1e-3)
    try:
        torch.testing.assert_close(actual, expected, rtol=tol, atol=tol)
    except AssertionError as e:
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        return "mismatch: " + " | ".join(lines[:4])
    return "ok"


def add_rates(entry: dict, case: Case) -> None:
    """Derive GB/s and TFLOP/s from the median time."""
    us = entry.get("median_us")
    if not us:
        return
    if case.bytes_moved is not None:
        entry["bytes"] = case.bytes_moved
        entry["gbps"] = case.bytes_moved / (us * 1e-6) / 1e9
    if case.flops is not None:
        entry["flops"] = case.flops
        entry["tflops"] = case.flops / (us * 1e-6) / 1e12


def error_text(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text if len(text) <= 2000 else text[:2000] + " ..."


def cleanup() -> None:
    gc.collect()
    if torch.cuda.is_available():
        torch.cuda.synchronize()
        torch.cuda.empty_cache()


# ----------------------------------------------------------------------------
# Runners
# ----------------------------------------------------------------------------

def bench_variant(case: Case, variant: str, sets: list[tuple[torch.Tensor, ...]],
                  ref: torch.Tensor, iters: int) -> dict:
    """Time one variant of a case; returns the fields of its result entry."""
    entry: dict = {}
    if case.attention is not None:
        shape = case.shapes[0]
        fn = attention_callable(variant, case.attention, shape[1], shape[2])
        if fn is None:
            return {"error": f"{variant} cannot express {case.attention}"}
        out = fn(*sets[0])
        torch.cuda.synchronize()
        entry["check"] = check_close(out, ref, case.dtype)
        del out
        calls = [lambda a=a: fn(*a) for a in sets]
    elif variant == "eager":
        calls = [lambda a=a: case.fn(*a) for a in sets]
    elif variant == "compile":
        compiled = torch.compile(case.fn, fullgraph=True)  # default mode
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        out = compiled(*sets[0])
        torch.cuda.synchronize()
        entry["compile_s"] = time.perf_counter() - t0
        entry["check"] = check_close(out, ref, case.dtype)
        del out
        calls = [lambda a=a: compiled(*a) for a in sets]
    elif variant == "eager_graph":
        # One CUDA graph per input set, each reading its set's tensors in place.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for a in sets:
                for _ in range(WARMUP_CALLS):
                    case.fn(*a)
        torch.cuda.current_stream().wait_stream(side)
        graphs, outs = [], []
        for a in sets:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                outs.append(case.fn(*a))
            graphs.append(g)
        graphs[0].replay()
        torch.cuda.synchronize()
        entry["check"] = check_close(outs[0], ref, case.dtype)
        calls = [g.replay for g in graphs]
    else:
        raise ValueError(f"unknown variant {variant!r}")

    entry.update(time_gpu(calls, iters))
    add_rates(entry, case)
    if case.host_timing:
        entry["host_us_per_call"] = host_us_per_call(calls[0])
    return entry


def run_case(case: Case, args: argparse.Namespace) -> list[dict]:
    results: list[dict] = []
    torch._dynamo.reset()
    with matmul_tf32(case.tf32):
        sets = make_input_sets(case, args.seed)
        ref = case.fn(*sets[0])
        torch.cuda.synchronize()
        for variant in case.variants:
            entry: dict = {"name": f"{case.name}/{variant}"}
            if case.tf32 is not None:
                entry["tf32"] = case.tf32
            print(f"  {entry['name']} ...", file=sys.stderr, flush=True)
            try:
                entry.update(bench_variant(case, variant, sets, ref, args.iters))
            except Exception as e:  # keep going with the other variants
                traceback.print_exc()
                entry["error"] = error_text(e)
            results.append(entry)
            cleanup()
    return results


def run_copy(args: argparse.Namespace) -> list[dict]:
    """Device-to-device copy of 1 GiB: the practical bandwidth roofline."""
    torch.manual_seed(args.seed)
    src = torch.randn(COPY_BYTES // 4, device="cuda", dtype=torch.float32)
    dst = torch.empty_like(src)
    entry: dict = {"name": "copy/eager"}
    entry.update(time_gpu([lambda: dst.copy_(src)], args.iters))
    entry["bytes"] = 2 * COPY_BYTES
    entry["gbps"] = entry["bytes"] / (entry["median_us"] * 1e-6) / 1e9
    entry["check"] = "ok" if torch.equal(dst, src) else "mismatch: copy differs"
    return [entry]


# ----------------------------------------------------------------------------
# Output
# ----------------------------------------------------------------------------

def header() -> dict:
    try:
        import triton  # noqa: PLC0415
        triton_version = triton.__version__
    except Exception:
        triton_version = None
    return {
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "triton": triton_version,
        "cuda": torch.version.cuda,
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
    }


def write_json(path: str, doc: dict) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def _fmt(v: object, spec: str) -> str:
    """Format a number, or right-align "-" to the same width."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return format(v, spec)
    width = "".join(ch for ch in spec.split(".")[0] if ch.isdigit())
    return "-".rjust(int(width or 1))


def print_table(doc: dict) -> None:
    print(f"\n{doc['device']}  torch {doc['torch']}  triton {doc['triton']}")
    cols = f"{'name':<36} {'median us':>11} {'GB/s':>8} {'TFLOP/s':>8} " \
           f"{'compile s':>9} {'host us':>8}  note"
    print(cols)
    print("-" * len(cols))
    for r in doc["results"]:
        note = r.get("error") or ("" if r.get("check", "ok") == "ok" else r["check"])
        note = note.splitlines()[0][:60] if note else ""
        print(f"{r['name']:<36} {_fmt(r.get('median_us'), '11.2f')} "
              f"{_fmt(r.get('gbps'), '8.0f')} {_fmt(r.get('tflops'), '8.1f')} "
              f"{_fmt(r.get('compile_s'), '9.2f')} "
              f"{_fmt(r.get('host_us_per_call'), '8.2f')}  {note}")


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="output JSON path")
    p.add_argument("--cases", default=None,
                   help="comma-separated case names or prefixes, e.g. "
                        "'chain8,gelu/bf16,gemm,copy' (default: all)")
    p.add_argument("--quick", action="store_true",
                   help=f"{TIMED_CALLS_QUICK} timed calls; skip gemm/bf16/8192")
    p.add_argument("--iters", type=int, default=None,
                   help="override the number of timed calls")
    p.add_argument("--seed", type=int, default=0, help="torch.manual_seed base")
    p.add_argument("--cold-compile", action="store_true",
                   help="disable Inductor's on-disk caches so compile_s is a "
                        "cold compile (Triton's kernel cache may still hit)")
    args = p.parse_args(argv)
    if args.iters is None:
        args.iters = TIMED_CALLS_QUICK if args.quick else TIMED_CALLS
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if not torch.cuda.is_available():
        print("compare_torch.py needs a CUDA GPU", file=sys.stderr)
        return 2
    cases, run_copy_case = select_cases(build_cases(args.quick), args.cases)
    if args.cold_compile:
        import torch._inductor.config as inductor_config  # noqa: PLC0415
        inductor_config.force_disable_caches = True
        warnings.filterwarnings("ignore", message=".*force_disable_caches.*")

    doc = header()
    doc["quick"] = args.quick
    doc["iters"] = args.iters
    doc["cold_compile"] = args.cold_compile
    doc["results"] = []

    jobs: list[tuple[str, Callable[[], list[dict]]]] = []
    if run_copy_case:
        jobs.append(("copy", lambda: run_copy(args)))
    jobs += [(c.name, lambda c=c: run_case(c, args)) for c in cases]

    for i, (name, job) in enumerate(jobs, 1):
        print(f"[{i}/{len(jobs)}] {name}", file=sys.stderr, flush=True)
        try:
            doc["results"].extend(job())
        except Exception as e:  # one failing case must not lose the rest
            traceback.print_exc()
            doc["results"].append({"name": name, "error": error_text(e)})
        finally:
            cleanup()
        write_json(args.out, doc)

    print_table(doc)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
