#!/usr/bin/env python3
"""Run tg's Llama-style decoder (examples/llama_decoder.cpp) in PyTorch, eager and torch.compile.

Weights, prompt, tg's greedy tokens and prefill logits come from ``llama_decoder --save DIR``;
the model is llama_decoder.cpp's ``forward`` op for op (the same bf16 casts, f32 RMSNorm and
rotary embedding, grouped-query attention over a static KV cache, causal mask from ``pos``).

Usage::

    python3 benchmarks/decoder_torch.py --dir DIR --out decoder_torch.json [--quick]

Methodology (mirrors benchmarks/compare_torch.py):

* State is in device buffers: per-layer caches ``kc``/``vc`` [kv, max_seq, hd] (tg's [layers,
  ...] cache split by layer), ``pos`` (0-d int64), the last token and the generated tokens.
  Each call ``index_copy_``s its keys/values at ``pos + t``, stores the next token and advances
  ``pos`` in place: no host sync between steps, no Python-int position for torch.compile.
* ``eager`` runs the module; ``compile`` runs ``torch.compile(mode="reduce-overhead",
  fullgraph=True, dynamic=False)`` (Inductor + CUDA graphs), one function for the prefill and
  one for the decode step.  ``compile_s`` = wall time of the first prefill call + the first
  decode call (compilation included; Inductor's on-disk caches may make it a warm compile).
* A generation = reset, prefill at pos 0, ``generate - 1`` decode steps.  The first gives the
  checks and first-call times, a second warms up (records the CUDA graphs), then
  ``TIMED_GENERATIONS`` (fewer with ``--quick``) are timed, each call between its own pair of
  CUDA events, read after one sync: median (and min) prefill in ms, decode step in us.
* Checks: prefill logits vs tg's by ``torch.testing.assert_close`` with rtol = 2e-2 and
  atol = 2e-2 * max|tg logit| (bf16; accumulation order differs), with max |diff|, fraction
  within tolerance and argmax agreement; torch.compile vs eager the same way.  Greedy tokens
  may diverge after a near-tie: they are counted, never failed.
* ``copy``: ``dst.copy_(src)`` of 1 GiB bf16 (2 GiB moved), median of 20 (10 quick), the
  practical bandwidth; ``floor_us`` = weight_bytes / it, the time to read the weights once;
  each decode time is also given as ``floor_ratio``.

A failing variant gets an ``error`` field; the JSON is rewritten after every phase.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import json
import math
import os
import statistics
import sys
import time
import traceback

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn
from torch._dynamo.utils import counters  # counters["inductor"]["cudagraph_skips"]

BF16 = torch.bfloat16
DEVICE = "cuda"  # the model code takes it from here (a CPU test can change it)
TOL = 2e-2
COPY_BYTES = 1 << 30
TIMED_GENERATIONS, TIMED_GENERATIONS_QUICK = 10, 3
COPY_ITERS, COPY_ITERS_QUICK = 20, 10
LAYER_WEIGHTS = ("attn_norm", "wqkv", "wo", "mlp_norm", "w_gate_up", "w_down")


def rms_norm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    xf = x.float()
    return (xf * torch.rsqrt((xf * xf).mean(-1, keepdim=True) + eps) * w.float()).to(BF16)


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """Rotate-half rotary embedding of x [heads, T, hd]; cos/sin [T, hd] (halves repeated)."""
    xf = x.float()
    x1, x2 = xf.chunk(2, -1)
    return (xf * cos + torch.cat([-x2, x1], -1) * sin).to(BF16)


class Layer(nn.Module):
    def __init__(self, w: dict[str, torch.Tensor], kv: int, max_seq: int, hd: int):
        super().__init__()
        for name, t in w.items():
            self.register_buffer(name, t, persistent=False)
        for name in ("kc", "vc"):
            self.register_buffer(name, torch.zeros(kv, max_seq, hd, dtype=BF16, device=DEVICE),
                                 persistent=False)


class Decoder(nn.Module):
    def __init__(self, m: dict, w: dict[str, torch.Tensor]):
        super().__init__()
        self.dim, self.heads, self.kv, self.ffn = m["dim"], m["heads"], m["kv_heads"], m["ffn"]
        self.hd, self.eps, self.prompt_len = self.dim // self.heads, float(m["eps"]), m["prompt_len"]
        self.max_seq = m["prompt_len"] + m["generate"]
        for name in ("embed", "final_norm", "lm_head"):
            self.register_buffer(name, w[name], persistent=False)
        self.layers = nn.ModuleList(
            Layer({n: w[f"layer{l}.{n}"] for n in LAYER_WEIGHTS}, self.kv, self.max_seq, self.hd)
            for l in range(m["layers"]))
        # theta^(-2i/hd) = 2^(i * (-2 log2(theta) / hd)) in f32, as tg computes it.
        inv = torch.exp2(torch.arange(self.hd // 2, dtype=torch.float32, device=DEVICE)
                         * (-2.0 * math.log2(float(m["rope_theta"])) / self.hd))
        self.register_buffer("inv_freq", inv, persistent=False)
        self.register_buffer("pos", torch.zeros((), dtype=torch.int64, device=DEVICE), persistent=False)
        self.register_buffer("token", torch.zeros(1, dtype=torch.int64, device=DEVICE), persistent=False)
        self.register_buffer("out_tokens", torch.zeros(m["generate"], dtype=torch.int64, device=DEVICE),
                             persistent=False)
        mark = getattr(torch._dynamo, "mark_static_address", None)
        for t in self.state() if mark else ():  # CUDA graphs may mutate only static inputs
            mark(t)

    def state(self) -> list[torch.Tensor]:
        """The buffers that the forward pass mutates."""
        return [self.pos, self.token, self.out_tokens] + [b for l in self.layers for b in (l.kc, l.vc)]

    def reset(self) -> None:
        for t in self.state():
            t.zero_()

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        """tg's forward over tokens [T] at self.pos; returns the last position's logits [1, vocab]."""
        T, H, KV, hd, S = tokens.shape[0], self.heads, self.kv, self.hd, self.max_seq
        G = H // KV  # query heads per key/value head
        x = F.embedding(tokens, self.embed)                                  # [T, dim] bf16
        positions = self.pos + torch.arange(T, dtype=torch.int64, device=tokens.device)
        angles = positions.float()[:, None] * self.inv_freq[None, :]         # [T, hd/2] f32
        cos, sin = angles.cos().repeat(1, 2), angles.sin().repeat(1, 2)      # cat(c, c): [T, hd]
        # Row g*T + t of a kv head's query block is query head kv*G + g at position pos + t;
        # key position s is visible to it when s <= pos + t.
        query_pos = positions.repeat(G).view(1, G * T, 1)
        hidden = torch.arange(S, dtype=torch.int64, device=tokens.device).view(1, 1, S) > query_pos
        scale = 1.0 / math.sqrt(hd)
        for layer in self.layers:
            h = rms_norm(x, layer.attn_norm, self.eps)
            q, k, v = (h @ layer.wqkv.t()).split([H * hd, KV * hd, KV * hd], -1)
            q = rope(q.reshape(T, H, hd).transpose(0, 1), cos, sin)         # [H, T, hd]
            k = rope(k.reshape(T, KV, hd).transpose(0, 1), cos, sin)        # [KV, T, hd]
            v = v.reshape(T, KV, hd).transpose(0, 1)
            layer.kc.index_copy_(1, positions, k)                           # in place at pos + t
            layer.vc.index_copy_(1, positions, v)
            scores = q.reshape(KV, G * T, hd) @ layer.kc.transpose(1, 2)    # [KV, G*T, S] bf16
            scores = (scores.float() * scale).masked_fill(hidden, float("-inf"))
            p = torch.softmax(scores, dim=-1).to(BF16)
            o = (p @ layer.vc).reshape(H, T, hd).transpose(0, 1).reshape(T, H * hd)
            x = x + o @ layer.wo.t()
            gate, up = (rms_norm(x, layer.mlp_norm, self.eps) @ layer.w_gate_up.t()).split(
                [self.ffn, self.ffn], -1)
            act = (F.silu(gate.float()) * up.float()).to(BF16)
            x = x + act @ layer.w_down.t()
        # The norm is per row, so normalising only the last row equals tg's norm-then-slice.
        logits = rms_norm(x[-1:], self.final_norm, self.eps) @ self.lm_head.t()  # [1, vocab]
        nxt = logits.argmax(-1)                                              # [1], first on ties
        self.token.copy_(nxt)
        self.out_tokens.index_copy_(0, positions[-1:] + 1 - self.prompt_len, nxt)
        self.pos.add_(T)
        return logits


# Distinct top-level functions, so the two compiled variants have separate Dynamo caches.
def prefill_step(model: Decoder, prompt: torch.Tensor) -> torch.Tensor:
    return model(prompt)


def decode_step(model: Decoder) -> torch.Tensor:
    return model(model.token)


# ----------------------------------------------------------------------------
# Loading, checks, timing
# ----------------------------------------------------------------------------

def load(dir_: str) -> tuple[dict, dict[str, torch.Tensor], list[str]]:
    """The manifest, the bf16 weights on the GPU, and a list of problems found on the way."""
    with open(os.path.join(dir_, "manifest.json"), encoding="utf-8") as f:
        m = json.load(f)
    for k in ("layers", "dim", "heads", "kv_heads", "ffn", "vocab", "prompt_len", "generate"):
        m[k] = int(m[k])
    m["prompt"], m["tg_tokens"] = [int(t) for t in m["prompt"]], [int(t) for t in m["tg_tokens"]]
    d, hd, kv, ffn, vocab = m["dim"], m["dim"] // m["heads"], m["kv_heads"], m["ffn"], m["vocab"]
    shapes = {"embed": (vocab, d), "final_norm": (d,), "lm_head": (vocab, d)}
    for l in range(m["layers"]):
        shapes.update({f"layer{l}.attn_norm": (d,), f"layer{l}.wqkv": ((m["heads"] + 2 * kv) * hd, d),
                       f"layer{l}.wo": (d, m["heads"] * hd), f"layer{l}.mlp_norm": (d,),
                       f"layer{l}.w_gate_up": (2 * ffn, d), f"layer{l}.w_down": (d, ffn)})
    problems, w = [], {}
    for name, shape in shapes.items():
        a = np.fromfile(os.path.join(dir_, name + ".f32"), dtype="<f4")
        if a.size != math.prod(shape):
            raise ValueError(f"{name}.f32 has {a.size} values, expected {shape}")
        f32 = torch.from_numpy(a.reshape(shape)).to(DEVICE)
        w[name] = f32.to(BF16)
        if not torch.equal(w[name].float(), f32):
            problems.append(f"{name} is not exactly bf16")
    counted = sum(t.numel() * 2 for n, t in w.items() if n != "embed")  # as tg counts
    if counted != int(m["weight_bytes"]):
        problems.append(f"weight_bytes {m['weight_bytes']} != {counted} counted here")
    for key, n in (("prompt", m["prompt_len"]), ("tg_tokens", m["generate"]),
                   ("tg_prefill_logits", vocab)):
        if len(m[key]) != n:
            problems.append(f"{key} has {len(m[key])} entries, expected {n}")
    return m, w, problems


def compare_logits(actual: torch.Tensor, expected: torch.Tensor) -> dict:
    """assert_close with rtol = TOL, atol = TOL * max|expected|, plus diagnostics."""
    actual, expected = actual.float().flatten(), expected.float().flatten()
    atol = TOL * expected.abs().max().item()
    diff = (actual - expected).abs()
    out = {"atol": atol, "max_abs_diff": diff.max().item(),
           "within_tol": (diff <= atol + TOL * expected.abs()).float().mean().item(),
           "argmax_agrees": actual.argmax().item() == expected.argmax().item()}
    try:
        torch.testing.assert_close(actual, expected, rtol=TOL, atol=atol)
        out["check"] = "ok"
    except AssertionError as e:
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        out["check"] = "mismatch: " + " | ".join(lines[:4])
    return out


def token_agreement(ours: list[int], ref: list[int]) -> tuple[int, int]:
    """(positions equal, length of the equal prefix)."""
    prefix = 0
    while prefix < min(len(ours), len(ref)) and ours[prefix] == ref[prefix]:
        prefix += 1
    return sum(a == b for a, b in zip(ours, ref)), prefix


def event_pairs(n: int) -> list[tuple[torch.cuda.Event, torch.cuda.Event]]:
    return [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
            for _ in range(n)]


def generation(model: Decoder, prefill, decode, prompt: torch.Tensor, steps: int,
               first: bool = False) -> dict:
    """Reset, prefill, `steps` decode steps, each call between its own pair of CUDA events;
    with `first`, also the synced wall times of the first prefill and decode calls."""
    model.reset()
    torch.cuda.synchronize()
    ev = event_pairs(steps + 1)
    out: dict = {}
    for i, (start, end) in enumerate(ev):
        t0 = time.perf_counter()
        start.record()
        logits = prefill(prompt) if i == 0 else decode()
        end.record()
        if i == 0:  # our own copy: a CUDA graph's outputs are overwritten by later replays
            out["logits"] = logits[0].float()
        if first and i < 2:
            torch.cuda.synchronize()
            out["first_prefill_s" if i == 0 else "first_decode_s"] = time.perf_counter() - t0
    torch.cuda.synchronize()
    us = [s.elapsed_time(e) * 1e3 for s, e in ev]
    out.update(prefill_ms=us[0] / 1e3, decode_us=us[1:], tokens=model.out_tokens.tolist())
    return out


def run_variant(model: Decoder, prefill, decode, m: dict, prompt: torch.Tensor, reps: int,
                tg_logits: torch.Tensor, ref: dict | None, entry: dict) -> dict:
    """Fills `entry` as it goes (a failure part way keeps what was measured); returns the
    first generation (its logits and tokens are the reference for the next variant)."""
    steps = m["generate"] - 1
    g = generation(model, prefill, decode, prompt, steps, first=True)
    entry["first_prefill_s"], entry["first_decode_s"] = g["first_prefill_s"], g["first_decode_s"]
    entry["logits"] = compare_logits(g["logits"], tg_logits)
    entry["logits_check"] = entry["logits"]["check"]
    entry["tokens"] = g["tokens"]
    entry["tokens_agree"], entry["tokens_prefix_agree"] = token_agreement(g["tokens"], m["tg_tokens"])
    if ref is not None:
        entry["logits_vs_eager"] = compare_logits(g["logits"], ref["logits"])
        entry["tokens_agree_eager"], entry["tokens_prefix_agree_eager"] = token_agreement(
            g["tokens"], ref["tokens"])
    generation(model, prefill, decode, prompt, steps)  # warm-up (records the CUDA graphs)
    timed = [generation(model, prefill, decode, prompt, steps) for _ in range(reps)]
    prefill_ms = [t["prefill_ms"] for t in timed]
    decode_us = [us for t in timed for us in t["decode_us"]]
    entry.update({"prefill_ms": statistics.median(prefill_ms), "prefill_ms_min": min(prefill_ms),
                  "decode_us_per_token": statistics.median(decode_us), "decode_us_min": min(decode_us),
                  "generations": reps, "decode_steps_timed": len(decode_us),
                  "deterministic": all(t["tokens"] == g["tokens"] for t in timed)})
    return g


def time_copy(iters: int) -> dict:
    """dst.copy_(src) of 1 GiB bf16 (2 GiB moved): median and min of `iters` event-timed calls."""
    torch.manual_seed(0)
    src = torch.randn(COPY_BYTES // 2, device=DEVICE, dtype=BF16)
    dst = torch.empty_like(src)
    for _ in range(3):  # warm-up
        dst.copy_(src)
    torch.cuda.synchronize()
    ev = event_pairs(iters)
    for s, e in ev:
        s.record()
        dst.copy_(src)
        e.record()
    torch.cuda.synchronize()
    us = [s.elapsed_time(e) * 1e3 for s, e in ev]
    med = statistics.median(us)
    return {"bytes": 2 * COPY_BYTES, "median_us": med, "min_us": min(us), "iters": iters,
            "gbps": 2 * COPY_BYTES / (med * 1e-6) / 1e9,
            "check": "ok" if torch.equal(dst, src) else "mismatch: copy differs"}


def error_text(e: BaseException) -> str:
    text = f"{type(e).__name__}: {e}".strip()
    return text if len(text) <= 2000 else text[:2000] + " ..."


def write_json(path: str, doc: dict) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def cleanup() -> None:
    gc.collect()
    torch.cuda.synchronize()
    torch.cuda.empty_cache()


def compiled_steps(model: Decoder):
    """torch.compile's prefill and decode step: Inductor with CUDA graphs (cudagraph trees)."""
    opts = dict(mode="reduce-overhead", fullgraph=True, dynamic=False)
    pre_c, dec_c = torch.compile(prefill_step, **opts), torch.compile(decode_step, **opts)
    mark_step = getattr(torch.compiler, "cudagraph_mark_step_begin", lambda: None)

    def prefill(t: torch.Tensor) -> torch.Tensor:
        mark_step()  # a new CUDA-graph generation: the previous call's outputs may be reused
        return pre_c(model, t)

    def decode() -> torch.Tensor:
        mark_step()
        return dec_c(model)
    return prefill, decode


def summary(doc: dict) -> None:
    print(f"\n{doc['device']}  torch {doc['torch']}  config {doc.get('config')}")
    for p in doc.get("problems", []) + [doc[k] for k in ("copy_error", "load_error") if k in doc]:
        print(f"PROBLEM: {p.splitlines()[0][:160]}")
    if "floor_us" in doc:
        print(f"copy: {doc['copy_gbps']:.0f} GB/s; weights {doc['weight_bytes'] / 1e6:.1f} MB "
              f"-> floor {doc['floor_us']:.1f} us/token")
    for name in ("eager", "compile"):
        r = doc.get(name, {})
        if "compile_s" in r:
            print(f"{name}: compile {r['compile_s']:.1f} s (first prefill {r['first_prefill_s']:.1f} s"
                  f" + first decode {r['first_decode_s']:.1f} s); cudagraph skips "
                  f"{r.get('cudagraph_skips')}")
        if "prefill_ms" in r:
            ratio = f" = {r['floor_ratio']:.2f} x floor" if "floor_ratio" in r else ""
            print(f"{name}: prefill {r['prefill_ms']:.2f} ms; decode {r['decode_us_per_token']:.1f} "
                  f"us/token{ratio}")
        for key, what in (("logits", "tg"), ("logits_vs_eager", "eager")):
            if key in r:
                lg, sfx = r[key], "" if what == "tg" else "_eager"
                print(f"{name}: logits vs {what} {lg['check'][:80]} (max |diff| "
                      f"{lg['max_abs_diff']:.4f}, {100 * lg['within_tol']:.2f}% within tol, "
                      f"argmax agrees {lg['argmax_agrees']}); "
                      f"tokens {r['tokens_agree' + sfx]}/{len(r['tokens'])} equal, "
                      f"prefix {r['tokens_prefix_agree' + sfx]}")
        if "error" in r:
            print(f"{name}: ERROR {r['error'].splitlines()[0][:160]}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dir", required=True, help="directory written by llama_decoder --save")
    p.add_argument("--out", required=True, help="output JSON path")
    p.add_argument("--quick", action="store_true", help="fewer timed generations and copies")
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        print("decoder_torch.py needs a CUDA GPU", file=sys.stderr)
        return 2
    reps = TIMED_GENERATIONS_QUICK if args.quick else TIMED_GENERATIONS
    doc = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
           "cuda": torch.version.cuda,
           "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
           "command": " ".join(sys.argv), "quick": args.quick,
           "bf16_reduced_precision_reduction":
               torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction}
    print("copy ...", file=sys.stderr, flush=True)
    try:
        doc["copy"] = time_copy(COPY_ITERS_QUICK if args.quick else COPY_ITERS)
        doc["copy_gbps"] = doc["copy"]["gbps"]
    except Exception as e:
        traceback.print_exc()
        doc["copy_error"] = error_text(e)
    cleanup()
    try:
        m, w, doc["problems"] = load(args.dir)
    except Exception as e:  # nothing to run without the inputs
        traceback.print_exc()
        doc["load_error"] = error_text(e)
        write_json(args.out, doc)
        summary(doc)
        return 1
    doc["config"] = {k: v for k, v in m.items() if not isinstance(v, list)}
    doc["weight_bytes"] = int(m["weight_bytes"])
    if "copy_gbps" in doc:
        doc["floor_us"] = doc["weight_bytes"] / (doc["copy_gbps"] * 1e9) * 1e6
    write_json(args.out, doc)
    model = Decoder(m, w)
    del w
    prompt = torch.tensor(m["prompt"], dtype=torch.int64, device=DEVICE)
    tg_logits = torch.tensor(m["tg_prefill_logits"], dtype=torch.float32, device=DEVICE)

    variants = {"eager": lambda: (model, lambda: model(model.token)),
                "compile": lambda: compiled_steps(model)}
    ref = None  # eager's first generation, the reference for torch.compile
    for name, steps in variants.items():
        print(f"{name} ...", file=sys.stderr, flush=True)
        entry: dict = {}
        doc[name] = entry
        skips0 = counters["inductor"]["cudagraph_skips"]  # graphs Inductor left without a CUDA graph
        try:
            with torch.no_grad():
                g = run_variant(model, *steps(), m, prompt, reps, tg_logits, ref, entry)
            ref = ref or g
        except Exception as e:  # keep going with the other variant
            traceback.print_exc()
            entry["error"] = error_text(e)
        if name == "compile":
            entry["cudagraph_skips"] = counters["inductor"]["cudagraph_skips"] - skips0
            if "first_decode_s" in entry:
                entry["compile_s"] = entry["first_prefill_s"] + entry["first_decode_s"]
        if "floor_us" in doc and "decode_us_per_token" in entry:
            entry["floor_ratio"] = entry["decode_us_per_token"] / doc["floor_us"]
        write_json(args.out, doc)
        cleanup()
    summary(doc)
    print(f"\nwrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
