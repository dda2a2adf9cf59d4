#!/usr/bin/env python3
"""Merge tg's Google Benchmark JSON with compare_torch.py's JSON into a report.

Usage::

    python3 benchmarks/report.py --tg tg.json --torch torch.json \\
        [--tg-gemm tg_bench_gemm.json] [--results benchmarks/RESULTS.md] [--png benchmarks/results.png] \\
        [--commit abc1234] [--command "tg_bench --benchmark_format=json ..."]

Inputs:

* ``--tg``: the output of tg's benchmark binary run with
  ``--benchmark_format=json``.  Benchmark names are ``<case>/<dtype>/<variant>``
  (variant ``fused`` or ``unfused``; ``copy/roofline`` is the bandwidth
  roofline).  Each entry carries the user counters ``median_us`` and optionally
  ``gbps``, ``roofline_pct`` and ``tflops``.  ``median_us`` is used, not
  ``real_time`` (``real_time`` is only a fallback, flagged in the report).
  Google Benchmark name suffixes such as ``/real_time`` or ``/iterations:30``
  are ignored; with ``--benchmark_repetitions`` the ``median`` aggregate (or the
  median over repetitions) is used.
* ``--torch``: the output of ``benchmarks/compare_torch.py`` (names
  ``<case>/<dtype>[/<shape>]/{eager,compile,eager_graph}``).
* ``--tg-gemm``: the output of ``tg_bench_gemm`` (``benchmarks/bench_matmul.cpp``),
  Google Benchmark JSON like ``--tg`` with variants ``tg``, ``cublas`` and, for
  ``mlp``, ``cublas+tg_epilogue``.  It fills tg's columns of the matmul table and
  adds cuBLAS measured in the same binary (and the tg/cuBLAS ratio).

Output: one markdown section appended to ``--results`` (created with a short
header when missing) and printed to stdout, plus a PNG bar chart (``--png``,
matplotlib Agg backend; skipped with a warning if matplotlib is unavailable).
Either input may be missing or incomplete; absent values print as "—".
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import re
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

HERE = Path(__file__).resolve().parent
DASH = "—"

TORCH_VARIANTS = ("eager", "compile", "eager_graph")
GEMM_CASES = ("gemm", "gemm_nt", "mlp", "matmul")
COPY_CASE = "copy"
TO_US = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}
# Google Benchmark appends these to names; they are not part of tg's naming.
GB_SUFFIX = re.compile(r"^(real_time|manual_time|process_time|"
                       r"(iterations|repeats|threads|min_time|min_warmup_time):.*)$")
SQUARE = re.compile(r"^(\d+)x\1x\1$")

RESULTS_HEADER = """# tg benchmark results

Each section below was appended by `benchmarks/report.py`: tg's Google Benchmark
numbers (median of timed runs, `median_us` counter) next to PyTorch eager and
torch.compile measured by `benchmarks/compare_torch.py` on the same GPU.
"""


# ----------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------

@dataclass
class Data:
    """Entries of one source, indexed as ``entries[key][variant] -> dict``."""

    meta: dict = field(default_factory=dict)
    entries: dict[str, dict[str, dict]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    def add(self, key: str, variant: str, entry: dict) -> None:
        if key not in self.entries:
            self.entries[key] = {}
            self.order.append(key)
        self.entries[key][variant] = entry

    def get(self, key: str, variant: str, counter: str) -> float | None:
        return num(self.entries.get(key, {}).get(variant, {}).get(counter))


def num(v: object) -> float | None:
    """A finite float, or None."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    return float(v) if math.isfinite(v) else None


def canonical_key(parts: list[str]) -> str:
    """Join name components; ``2048x2048x2048`` is spelled ``2048``."""
    return "/".join(SQUARE.sub(r"\1", p) for p in parts)


def split_name(name: str, variants: Iterable[str] | None = None) -> tuple[str, str]:
    """``chain8/f32/fused`` -> (``chain8/f32``, ``fused``).

    With ``variants``, a last component outside that set is kept in the key
    and the variant is returned as "" (used for whole-case torch errors).
    """
    parts = [p for p in name.split("/") if p and not GB_SUFFIX.match(p)]
    if len(parts) < 2 or (variants is not None and parts[-1] not in variants):
        return canonical_key(parts), ""
    return canonical_key(parts[:-1]), parts[-1]


def load_json(path: str | None, what: str) -> dict | None:
    if not path:
        return None
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        print(f"warning: {what} file {path} not found; continuing without it",
              file=sys.stderr)
    except (OSError, json.JSONDecodeError) as e:
        print(f"warning: cannot read {what} file {path}: {e}", file=sys.stderr)
    return None


def load_tg(path: str | None, what: str = "tg") -> Data:
    data = Data()
    doc = load_json(path, what)
    if not isinstance(doc, dict):
        return data
    data.meta = doc.get("context") or {}

    # Group runs by their run name (repetitions / aggregates share one).
    groups: dict[str, list[dict]] = {}
    for b in doc.get("benchmarks") or []:
        if not isinstance(b, dict) or "name" not in b:
            continue
        run = b.get("run_name") or b["name"]
        if b.get("run_type") == "aggregate" and not b.get("run_name"):
            run = re.sub(r"_(mean|median|stddev|cv)$", "", run)
        groups.setdefault(run, []).append(b)

    for run, runs in groups.items():
        key, variant = split_name(run)
        failed = [b for b in runs if b.get("error_occurred")]
        if failed:
            msg = failed[0].get("error_message", "error")
            data.errors.append(f"error in {what} `{run}`: {msg}")
            runs = [b for b in runs if not b.get("error_occurred")]
        medians = [b for b in runs if b.get("run_type") == "aggregate"
                   and b.get("aggregate_name") == "median"]
        iterations = [b for b in runs if b.get("run_type", "iteration") == "iteration"]
        if medians:
            entry = dict(medians[0])
        elif iterations:
            entry = merge_repetitions(iterations)
        else:
            continue
        if num(entry.get("median_us")) is None:
            rt = num(entry.get("real_time"))
            if rt is not None:
                entry["median_us"] = rt * TO_US.get(entry.get("time_unit", "ns"), 1e-3)
                entry["fallback_real_time"] = True
        data.add(key, variant, entry)
    return data


def merge_repetitions(runs: list[dict]) -> dict:
    """Median of every numeric field over repeated runs of one benchmark."""
    if len(runs) == 1:
        return dict(runs[0])
    merged = dict(runs[0])
    for k, v in runs[0].items():
        if num(v) is not None:
            vals = [num(r.get(k)) for r in runs]
            merged[k] = statistics.median([x for x in vals if x is not None])
    return merged


def load_torch(path: str | None) -> Data:
    data = Data()
    doc = load_json(path, "torch")
    if not isinstance(doc, dict):
        return data
    data.meta = {k: v for k, v in doc.items() if k != "results"}
    for r in doc.get("results") or []:
        if not isinstance(r, dict) or "name" not in r:
            continue
        key, variant = split_name(r["name"], TORCH_VARIANTS)
        if r.get("error"):
            first = str(r["error"]).splitlines()[0] if r["error"] else "error"
            data.errors.append(f"error in torch `{r['name']}`: {first}")
        if not variant:
            continue
        check = r.get("check")
        if isinstance(check, str) and check != "ok":
            data.errors.append(f"torch.compile/eager check failed for `{r['name']}`: {check}")
        data.add(key, variant, r)
    return data


# ----------------------------------------------------------------------------
# Derived values
# ----------------------------------------------------------------------------

def ratio(a: float | None, b: float | None) -> float | None:
    return a / b if a is not None and b else None


def is_gemm(key: str, tg: Data, torch: Data) -> bool:
    if key.split("/")[0] in GEMM_CASES:
        return True
    return any(num(e.get("tflops")) is not None
               for d in (tg, torch) for e in d.entries.get(key, {}).values())


def ordered_keys(tg: Data, torch: Data, gemm: Data | None = None) -> list[str]:
    """tg's order, then tg_bench_gemm's, with torch-only keys slotted in after
    their torch predecessor."""
    keys = list(tg.order)
    keys += [k for k in (gemm.order if gemm else []) if k not in keys]
    prev: str | None = None
    for k in torch.order:
        if k not in keys:
            keys.insert(keys.index(prev) + 1 if prev is not None else len(keys), k)
        prev = k
    return keys


def copy_roofline(tg: Data, torch: Data) -> tuple[float | None, str]:
    """Copy bandwidth in GB/s, preferring tg's own ``copy/roofline``."""
    for variant, e in tg.entries.get(COPY_CASE, {}).items():
        if num(e.get("gbps")) is not None:
            return num(e["gbps"]), f"tg copy/{variant}"
    for variant, e in torch.entries.get(COPY_CASE, {}).items():
        if num(e.get("gbps")) is not None:
            return num(e["gbps"]), f"torch copy/{variant}"
    return None, ""


def torch_quantity(torch: Data, key: str, field_name: str) -> float | None:
    """A per-case quantity (``bytes``/``flops``) from any torch variant."""
    for e in torch.entries.get(key, {}).values():
        if num(e.get(field_name)) is not None:
            return num(e[field_name])
    return None


def tg_main_variant(tg: Data, key: str) -> str | None:
    variants = tg.entries.get(key, {})
    if "fused" in variants:
        return "fused"
    return next((v for v in variants if v != "unfused"), None)


# ----------------------------------------------------------------------------
# Formatting
# ----------------------------------------------------------------------------

def f_us(v: float | None) -> str:
    if v is None:
        return DASH
    if v < 100:
        return f"{v:.2f}"
    if v < 10000:
        return f"{v:.1f}"
    return f"{v:,.0f}"


def f_num(v: float | None, digits: int = 0, suffix: str = "") -> str:
    return DASH if v is None else f"{v:,.{digits}f}{suffix}"


def f_x(v: float | None) -> str:
    return DASH if v is None else f"{v:.2f}x"


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    align = ["---"] + ["---:"] * (len(header) - 1)
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


# ----------------------------------------------------------------------------
# Report
# ----------------------------------------------------------------------------

@dataclass
class Row:
    """One case/dtype, with every number the tables and the chart use."""

    key: str
    tg_fused_us: float | None = None
    tg_unfused_us: float | None = None
    tg_gbps: float | None = None
    tg_gbps_derived: bool = False
    roof_pct: float | None = None
    tg_tflops: float | None = None
    eager_us: float | None = None
    compile_us: float | None = None
    eager_tflops: float | None = None
    compile_tflops: float | None = None
    cublas_us: float | None = None           # tg_bench_gemm's cuBLAS, same binary
    cublas_tflops: float | None = None
    cublas_epilogue_us: float | None = None  # mlp: cuBLAS GEMM + tg's epilogue kernel
    fallback: bool = False


def build_rows(tg: Data, torch: Data, roof: float | None,
               gemm: Data | None = None) -> tuple[list[Row], list[Row]]:
    gemm = gemm or Data()
    elementwise: list[Row] = []
    gemms: list[Row] = []
    for key in ordered_keys(tg, torch, gemm):
        if key == COPY_CASE:
            continue
        row = Row(key)
        main = tg_main_variant(tg, key)
        if main is not None:
            e = tg.entries[key][main]
            row.tg_fused_us = num(e.get("median_us"))
            row.tg_gbps = num(e.get("gbps"))
            row.roof_pct = num(e.get("roofline_pct"))
            row.tg_tflops = num(e.get("tflops"))
            row.fallback = bool(e.get("fallback_real_time"))
        row.tg_unfused_us = tg.get(key, "unfused", "median_us")
        row.fallback |= bool(tg.entries.get(key, {}).get("unfused", {})
                             .get("fallback_real_time"))
        row.eager_us = torch.get(key, "eager", "median_us")
        row.compile_us = torch.get(key, "compile", "median_us")
        row.eager_tflops = torch.get(key, "eager", "tflops")
        row.compile_tflops = torch.get(key, "compile", "tflops")
        fill_from_gemm(row, gemm)

        # Fill gaps from the byte / flop counts compare_torch.py records.
        nbytes = torch_quantity(torch, key, "bytes")
        if row.tg_gbps is None and nbytes and row.tg_fused_us:
            row.tg_gbps = nbytes / (row.tg_fused_us * 1e-6) / 1e9
            row.tg_gbps_derived = True
        flops = torch_quantity(torch, key, "flops")
        if row.tg_tflops is None and flops and row.tg_fused_us:
            row.tg_tflops = flops / (row.tg_fused_us * 1e-6) / 1e12
        if row.roof_pct is None and row.tg_gbps is not None and roof:
            row.roof_pct = 100.0 * row.tg_gbps / roof

        (gemms if key in gemm.entries or is_gemm(key, tg, torch) else elementwise).append(row)
    return elementwise, gemms


def fill_from_gemm(row: Row, gemm: Data) -> None:
    """tg_bench_gemm's numbers for this case: its ``tg`` variant replaces tg's
    columns, and cuBLAS from the same run fills the cuBLAS columns."""
    variants = gemm.entries.get(row.key, {})
    if "tg" in variants:
        e = variants["tg"]
        row.tg_fused_us = num(e.get("median_us"))
        row.tg_tflops = num(e.get("tflops"))
        row.fallback = bool(e.get("fallback_real_time"))
    if "cublas" in variants:
        row.cublas_us = num(variants["cublas"].get("median_us"))
        row.cublas_tflops = num(variants["cublas"].get("tflops"))
    row.cublas_epilogue_us = gemm.get(row.key, "cublas+tg_epilogue", "median_us")


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def gpu_name(tg: Data, torch: Data) -> str:
    for k in ("device", "gpu", "gpu_name", "device_name"):
        if tg.meta.get(k):
            return str(tg.meta[k])
    return str(torch.meta.get("device") or "unknown GPU")


def render(tg: Data, torch: Data, args: argparse.Namespace, gemm: Data | None = None) -> str:
    gemm = gemm or Data()
    roof, roof_src = copy_roofline(tg, torch)
    elementwise, gemms = build_rows(tg, torch, roof, gemm)
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z").strip()

    lines = [f"## {now} — {gpu_name(tg, torch)} — `{args.commit}`", ""]
    lines.append(f"- Command: `{args.command}`" if args.command
                 else "- Command: (not recorded)")
    versions = []
    if torch.meta.get("torch"):
        versions.append(f"torch {torch.meta['torch']}")
    if torch.meta.get("triton"):
        versions.append(f"triton {torch.meta['triton']}")
    if torch.meta.get("cuda"):
        versions.append(f"CUDA {torch.meta['cuda']}")
    if versions:
        lines.append("- PyTorch: " + ", ".join(versions)
                     + (f" (measured {torch.meta['date']})" if torch.meta.get("date") else ""))
    if tg.meta.get("date"):
        lines.append(f"- tg measured: {tg.meta['date']}")
    if gemm.meta.get("date"):
        lines.append(f"- tg_bench_gemm measured: {gemm.meta['date']}")
    torch_roof, _ = copy_roofline(Data(), torch)
    roof_parts = []
    if roof is not None and roof_src.startswith("tg"):
        roof_parts.append(f"tg {roof:,.0f} GB/s")
    if torch_roof is not None:
        roof_parts.append(f"torch {torch_roof:,.0f} GB/s")
    lines.append("- Copy roofline (1 GiB device copy, read+write): "
                 + ("; ".join(roof_parts) if roof_parts else DASH)
                 + (f" — % column uses {roof_src}" if roof_src else ""))
    lines.append("")

    if elementwise:
        header = ["case", "tg fused us", "tg unfused us", "fused speedup", "tg GB/s",
                  "% of copy roofline", "torch eager us", "torch.compile us",
                  "tg vs torch.compile (x, >1 means tg faster)"]
        rows = []
        for r in elementwise:
            gbps = f_num(r.tg_gbps) + ("†" if r.tg_gbps_derived and r.tg_gbps else "")
            rows.append([
                f"`{r.key}`" + ("\\*" if r.fallback else ""),
                f_us(r.tg_fused_us), f_us(r.tg_unfused_us),
                f_x(ratio(r.tg_unfused_us, r.tg_fused_us)),
                gbps, f_num(r.roof_pct, 1, "%"),
                f_us(r.eager_us), f_us(r.compile_us),
                f_x(ratio(r.compile_us, r.tg_fused_us)),
            ])
        lines += md_table(header, rows) + [""]

    if gemms:
        # Ratios are of TFLOP/s (= inverse time ratio): > 1 means tg is faster.
        header = ["case", "tg us", "tg TFLOP/s", "cuBLAS (same binary) TFLOP/s",
                  "tg / cuBLAS (x)", "torch eager (cuBLAS) us",
                  "torch eager TFLOP/s", "torch.compile TFLOP/s",
                  "tg / torch eager (x)", "tg / torch.compile (x)"]
        rows = [[f"`{r.key}`" + ("\\*" if r.fallback else ""),
                 f_us(r.tg_fused_us), f_num(r.tg_tflops, 1),
                 f_num(r.cublas_tflops, 1), f_x(ratio(r.tg_tflops, r.cublas_tflops)),
                 f_us(r.eager_us), f_num(r.eager_tflops, 1),
                 f_num(r.compile_tflops, 1),
                 f_x(ratio(r.tg_tflops, r.eager_tflops)),
                 f_x(ratio(r.tg_tflops, r.compile_tflops))] for r in gemms]
        lines += md_table(header, rows) + [""]

    if not elementwise and not gemms:
        lines += ["(no benchmark entries found)", ""]

    notes = gemm_notes(gemms) + extra_notes(tg, torch, elementwise + gemms, gemm)
    if notes:
        lines += notes + [""]
    return "\n".join(lines)


def gemm_notes(gemms: list[Row]) -> list[str]:
    """The fused-epilogue target: tg's whole MLP against cuBLAS's bare GEMM."""
    notes = []
    for r in gemms:
        if r.cublas_us is None or r.cublas_epilogue_us is None:
            continue
        line = (f"- `{r.key}` time / bare cuBLAS GEMM time (target <= 1.08x): "
                f"tg fused {f_x(ratio(r.tg_fused_us, r.cublas_us))}, "
                f"cuBLAS GEMM + tg epilogue kernel {f_x(ratio(r.cublas_epilogue_us, r.cublas_us))} "
                f"({f_us(r.cublas_epilogue_us)} us; bare GEMM {f_us(r.cublas_us)} us)")
        notes.append(line)
    return notes


def extra_notes(tg: Data, torch: Data, rows: list[Row], gemm: Data | None = None) -> list[str]:
    notes: list[str] = []
    if any(r.tg_gbps_derived and r.tg_gbps for r in rows):
        notes.append("- † tg GB/s derived from compare_torch.py's byte count "
                     "(tg entry had no `gbps` counter).")
    if any(r.fallback for r in rows):
        notes.append("- \\* tg entry had no `median_us` counter; Google "
                     "Benchmark's `real_time` was used instead.")
    for key in torch.order:
        variants = torch.entries[key]
        if "eager_graph" in variants:
            us = num(variants["eager_graph"].get("median_us"))
            notes.append(f"- torch `{key}` eager as a CUDA graph: {f_us(us)} us")
        host = [f"{v} {f_num(num(e.get('host_us_per_call')), 2)} us"
                for v, e in variants.items() if num(e.get("host_us_per_call")) is not None]
        if host:
            notes.append(f"- torch `{key}` host time per call: " + ", ".join(host))
    compile_s = [f"`{k}` {num(v['compile'].get('compile_s')):.1f}"
                 for k, v in ((k, torch.entries[k]) for k in torch.order)
                 if "compile" in v and num(v["compile"].get("compile_s")) is not None]
    if compile_s:
        notes.append("- torch.compile first-call time (s): " + ", ".join(compile_s))
    notes += [f"- {e}" for e in tg.errors + (gemm.errors if gemm else []) + torch.errors]
    return notes


# ----------------------------------------------------------------------------
# Chart
# ----------------------------------------------------------------------------

def write_png(path: str, tg: Data, torch: Data, gemm: Data | None = None) -> bool:
    """Grouped bars: median time per elementwise case (log scale), TFLOP/s per GEMM."""
    try:
        import matplotlib  # noqa: PLC0415
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        print("warning: matplotlib not available; no PNG written", file=sys.stderr)
        return False

    roof, _ = copy_roofline(tg, torch)
    elementwise, gemms = build_rows(tg, torch, roof, gemm)
    panels = []
    if elementwise:
        panels.append(("Median time per call (us, log scale, lower is better)",
                       elementwise,
                       [("tg fused", "tg_fused_us", "#1f77b4"),
                        ("tg unfused", "tg_unfused_us", "#aec7e8"),
                        ("torch eager", "eager_us", "#ff7f0e"),
                        ("torch.compile", "compile_us", "#2ca02c")],
                       True))
    if gemms:
        panels.append(("TFLOP/s (higher is better)", gemms,
                       [("tg", "tg_tflops", "#1f77b4"),
                        ("cuBLAS (tg_bench_gemm)", "cublas_tflops", "#9467bd"),
                        ("torch eager (cuBLAS)", "eager_tflops", "#ff7f0e"),
                        ("torch.compile", "compile_tflops", "#2ca02c")], False))
    if not panels:
        print("warning: nothing to plot; no PNG written", file=sys.stderr)
        return False

    widths = [max(6.0, 1.1 * len(p[1]) + 2) for p in panels]
    fig, axes = plt.subplots(len(panels), 1, figsize=(max(widths), 4.2 * len(panels)),
                             squeeze=False)
    for ax, (title, rows, series, log) in zip(axes[:, 0], panels):
        n = len(series)
        width = 0.8 / n
        for i, (label, attr, color) in enumerate(series):
            xs, ys = [], []
            for j, r in enumerate(rows):
                v = getattr(r, attr)
                if v is not None and v > 0:
                    xs.append(j - 0.4 + width * (i + 0.5))
                    ys.append(v)
            ax.bar(xs, ys, width=width, label=label, color=color)
        ax.set_xticks(range(len(rows)))
        ax.set_xticklabels([r.key for r in rows], rotation=30, ha="right", fontsize=8)
        if log:
            ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"tg vs PyTorch — {gpu_name(tg, torch)}", fontsize=11)
    fig.tight_layout()
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


# ----------------------------------------------------------------------------
# Main
# ----------------------------------------------------------------------------

def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tg", help="tg Google Benchmark JSON (--benchmark_format=json)")
    p.add_argument("--torch", help="compare_torch.py JSON")
    p.add_argument("--tg-gemm", dest="tg_gemm",
                   help="tg_bench_gemm Google Benchmark JSON (tg vs cuBLAS matmuls)")
    p.add_argument("--results", default=str(HERE / "RESULTS.md"),
                   help="markdown file to append to (default: %(default)s)")
    p.add_argument("--png", default=str(HERE / "results.png"),
                   help="bar chart output; '' to skip (default: %(default)s)")
    p.add_argument("--commit", default=None,
                   help="git commit shown in the heading (default: git rev-parse --short HEAD)")
    p.add_argument("--command", default="",
                   help="command line that produced the numbers, shown verbatim")
    args = p.parse_args(argv)
    if args.commit is None:
        args.commit = git_commit()
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if not args.tg and not args.torch and not args.tg_gemm:
        print("error: give --tg, --tg-gemm and/or --torch", file=sys.stderr)
        return 2
    tg = load_tg(args.tg)
    gemm = load_tg(args.tg_gemm, "tg_bench_gemm")
    torch = load_torch(args.torch)
    if not tg.entries and not torch.entries and not gemm.entries:
        print("error: no benchmark entries in the given files", file=sys.stderr)
        return 1

    section = render(tg, torch, args, gemm)

    if args.results:
        results = Path(args.results)
        results.parent.mkdir(parents=True, exist_ok=True)
        existing = results.read_text(encoding="utf-8") if results.exists() else ""
        with results.open("a", encoding="utf-8") as f:
            if not existing.strip():
                f.write(RESULTS_HEADER)
            elif not existing.endswith("\n"):
                f.write("\n")
            f.write("\n" + section + "\n")
        print(f"appended to {results}", file=sys.stderr)
    if args.png and write_png(args.png, tg, torch, gemm):
        print(f"wrote {args.png}", file=sys.stderr)
    print(section)
    return 0


if __name__ == "__main__":
    sys.exit(main())
