//===- llama_decoder.cpp - A Llama-style decoder that generates on the device ===//
//
// Written only with tg's public API (the model: llama_model.h): token embedding (gather),
// RMSNorm, rotary position embedding (sin/cos of positions from iota), grouped-query attention
// (more query heads than key/value heads) over a static-size KV cache with a causal mask
// computed from the device-side position, a SwiGLU MLP, a final norm, the output projection
// and greedy argmax on the device.
//
// One function does both prefill (T prompt tokens) and decode (T = 1): it takes the tokens,
// the position (an i32 scalar on the device), and the two caches, which it donates
// (JitOptions::donate), so each layer writes its keys and values in place at the position.
// It returns the next token (still on the device, fed to the next step), the next position
// and the caches. Decode steps are replays of one compiled function (a CUDA graph) with no
// host synchronisation; the tokens are read back at the end.
//
//   llama_decoder                 the big configuration on CUDA (the small one without a GPU)
//   llama_decoder --big           the big configuration also on the CPU (slow: for TG_DUMP)
//   llama_decoder --eager         also runs the model eagerly (op by op) on the device and
//                                 says how many of its tokens the jit chose too
//   llama_decoder --small         the small configuration; on the CPU it also runs every step
//                                 eagerly (the reference kernels, op by op) and checks that
//                                 the jit chose the same tokens
//   llama_decoder --prompt N --generate M   other lengths
//   llama_decoder --save DIR      also writes the weights (.f32 files) and manifest.json (the
//                                 configuration, prompt, tokens and prefill logits) for
//                                 benchmarks/decoder_torch.py
//
// Weights are random from fixed seeds (counter-based: the same values on every device).
//
//===----------------------------------------------------------------------===//
#include "llama_model.h"

#include <tg/tg.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

namespace {

using tg::DType;
using tg::Tensor;
using tg_llama::Config;
using tg_llama::forward;
using tg_llama::kBig;
using tg_llama::kSmall;
using tg_llama::Layer;
using tg_llama::makeModel;
using tg_llama::Model;

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

/// The prompt: fixed pseudo-random token ids.
std::vector<int32_t> promptTokens(const Config& c) {
  std::vector<int32_t> ids(static_cast<size_t>(c.prompt));
  uint64_t s = 12345;
  for (int32_t& id : ids) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    id = static_cast<int32_t>((s >> 33) % static_cast<uint64_t>(c.vocab));
  }
  return ids;
}

struct Generated {
  std::vector<int32_t> tokens;
  std::vector<float> prefillLogits;
};

/// Prefill, then `generate - 1` decode steps.
Generated generate(const Model& m, tg::Device device, bool useJit, bool print) {
  const Config& c = m.c;
  auto fn = [&m](const Tensor& tokens, const Tensor& pos, const Tensor& kc, const Tensor& vc) {
    return forward(m, tokens, pos, kc, vc);
  };
  auto prefill = tg::jit(fn, {.name = "prefill", .donate = {2, 3}});
  auto decode = tg::jit(fn, {.name = "decode", .donate = {2, 3}});
  auto run = [&](auto& jitted, const Tensor& t, const Tensor& p, const Tensor& k, const Tensor& v) {
    return useJit ? jitted(t, p, k, v) : fn(t, p, k, v);
  };
  const tg::Shape cacheShape{c.layers, c.kvHeads, c.maxSeq(), c.headDim()};
  Tensor kc = tg::zeros(cacheShape, DType::BF16, device), vc = tg::zeros(cacheShape, DType::BF16, device);
  Tensor prompt = tg::from_vector(promptTokens(c), {c.prompt}).to(device);
  Tensor pos = tg::from_vector(std::vector<int32_t>{0}, {}).to(device);
  tg::synchronize();

  auto t0 = std::chrono::steady_clock::now();
  auto [token, next, k1, v1, firstLogits] = run(prefill, prompt, pos, kc, vc);
  tg::synchronize();
  const double prefillFirst = msSince(t0);
  // The prefill again, replayed (on caches of its own), for its time without compilation.
  double prefillAgain = 0;
  {
    Tensor k2 = tg::zeros(cacheShape, DType::BF16, device), v2 = tg::zeros(cacheShape, DType::BF16, device);
    tg::synchronize();
    const auto t1 = std::chrono::steady_clock::now();
    auto again = run(prefill, prompt, pos, k2, v2);
    tg::synchronize();
    prefillAgain = msSince(t1);
    if (std::get<0>(again).to_vector<int32_t>() != token.to_vector<int32_t>())
      throw tg::Error("the prefill replayed chose another token than its first call");
  }
  std::vector<Tensor> tokens{token};
  Tensor p = next, k = k1, v = v1, logits;
  t0 = std::chrono::steady_clock::now();
  std::tie(token, p, k, v, logits) = run(decode, token, p, k, v);  // the first step compiles
  tokens.push_back(token);
  tg::synchronize();
  const double decodeFirst = msSince(t0);
  t0 = std::chrono::steady_clock::now();
  for (int64_t i = 2; i < c.generate; ++i) {
    std::tie(token, p, k, v, logits) = run(decode, token, p, k, v);
    tokens.push_back(token);
  }
  tg::synchronize();
  const double decodeRest = msSince(t0);
  Generated out;
  for (const Tensor& t : tokens) out.tokens.push_back(t.to_vector<int32_t>()[0]);  // after the loop
  out.prefillLogits = tg::cast(firstLogits, DType::F32).to_vector();
  if (print) {
    const int64_t steps = std::max<int64_t>(1, c.generate - 2);
    std::printf("%s on %s: prefill of %lld tokens %.1f ms (first call, compile included), %.2f ms replayed; "
                "decode: first step %.1f ms (compile included), then %.3f ms per token over %lld steps\n",
                useJit ? "jit" : "eager", tg::device_name(device), static_cast<long long>(c.prompt), prefillFirst,
                prefillAgain, decodeFirst, decodeRest / static_cast<double>(steps), static_cast<long long>(steps));
    if (useJit) {
      tg::JitReport r = decode.report();
      std::printf("decode: %llu call(s), %llu replay(s), %zu graph break(s), %zu sync point(s), %zu recompile(s)\n",
                  static_cast<unsigned long long>(r.calls), static_cast<unsigned long long>(r.replays),
                  r.breaks.size(), r.syncs.size(), r.recompiles.size());
      if (!r.graphs.empty())
        std::printf("compile time (trace import, passes, kernels): prefill %.1f ms, decode %.1f ms\n",
                    prefill.report().graphs.empty() ? 0.0 : prefill.report().graphs[0].compileMs,
                    r.graphs[0].compileMs);
      if (!r.graphs.empty()) {
        std::printf("decode compile by step:");
        for (const auto& [what, ms] : r.graphs[0].compileStagesMs) std::printf(" %s %.1f", what.c_str(), ms);
        std::printf(" ms\n");
      }
      if (!r.graphs.empty()) {
        const tg::JitReport::Graph& g = r.graphs[0];
        if (g.kernels == 0)
          std::printf("decode graph: run by the CPU reference interpreter\n");
        else
          std::printf("decode graph: %zu kernels (%zu distinct: %zu compiled by NVRTC in %.1f ms summed over "
                      "the threads, %zu from the disk cache, %zu already loaded), %s (%llu launches)\n",
                      g.kernels, g.distinctKernels, g.kernelsCompiled, g.nvrtcMs, g.kernelsFromDisk,
                      g.kernelsInMemory,
                      g.cudaGraph ? "one CUDA graph" : ("kernel by kernel: " + g.noCudaGraphReason).c_str(),
                      static_cast<unsigned long long>(g.cudaGraphLaunches));
        size_t inPlace = 0;
        for (const std::string& u : g.updates) inPlace += u.find(": in place") != std::string::npos;
        if (g.kernels > 0)
          std::printf("decode graph: %zu cache update(s), %zu in place%s\n", g.updates.size(), inPlace,
                      inPlace == g.updates.size() ? "" : " (the others copy: see report().str())");
        if (!g.profile.empty()) {  // TG_PROFILE=1: every kernel's device time per step
          double total = 0;
          for (const tg::JitReport::Graph::KernelTime& t : g.profile) total += t.usPerRun;
          std::printf("decode profile: %.1f us per step over %llu step(s), kernel by kernel\n", total,
                      static_cast<unsigned long long>(g.profiledRuns));
          for (const tg::JitReport::Graph::KernelTime& t : g.profile)
            std::printf("  %8.1f us %3zu x %s: %s\n", t.usPerRun, t.launches, t.kernel.c_str(), t.what.c_str());
        }
      }
    }
  }
  return out;
}

/// Writes `t` as raw little-endian f32 to dir/name.f32 (bf16 widens exactly).
void saveTensor(const std::string& dir, const std::string& name, const Tensor& t) {
  std::vector<float> v = tg::cast(t, DType::F32).to_vector();
  const std::string path = dir + "/" + name + ".f32";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(v.data(), sizeof(float), v.size(), f) != v.size() || std::fclose(f) != 0)
    throw tg::Error("cannot write " + path);
}

/// The weights (one .f32 file each) and manifest.json (configuration, prompt, tg's tokens and
/// prefill logits) for benchmarks/decoder_torch.py.
void save(const std::string& dir, const Model& m, const Generated& g) {
  const Config& c = m.c;
  saveTensor(dir, "embed", m.embed);
  saveTensor(dir, "final_norm", m.finalNorm);
  saveTensor(dir, "lm_head", m.lmHead);
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const Layer& w = m.layers[l];
    const std::string p = "layer" + std::to_string(l) + ".";
    saveTensor(dir, p + "attn_norm", w.attnNorm);
    saveTensor(dir, p + "wqkv", w.wqkv);
    saveTensor(dir, p + "wo", w.wo);
    saveTensor(dir, p + "mlp_norm", w.mlpNorm);
    saveTensor(dir, p + "w_gate_up", w.wGateUp);
    saveTensor(dir, p + "w_down", w.wDown);
  }
  std::string j = "{\n";
  auto num = [&](const char* k, double v, bool last = false) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.17g", v);
    j += std::string("  \"") + k + "\": " + buf + (last ? "\n" : ",\n");
  };
  num("layers", double(c.layers));
  num("dim", double(c.dim));
  num("heads", double(c.heads));
  num("kv_heads", double(c.kvHeads));
  num("ffn", double(c.ffn));
  num("vocab", double(c.vocab));
  num("prompt_len", double(c.prompt));
  num("generate", double(c.generate));
  num("rope_theta", c.ropeTheta);
  num("eps", c.eps);
  num("weight_bytes", double(m.weightBytes));
  auto list = [&](const char* k, const auto& v, bool last = false) {
    j += std::string("  \"") + k + "\": [";
    for (size_t i = 0; i < v.size(); ++i) {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.9g", double(v[i]));
      j += (i ? ", " : "") + std::string(buf);
    }
    j += last ? "]\n" : "],\n";
  };
  list("prompt", promptTokens(c));
  list("tg_tokens", g.tokens);
  list("tg_prefill_logits", g.prefillLogits, true);
  j += "}\n";
  const std::string path = dir + "/manifest.json";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f || std::fwrite(j.data(), 1, j.size(), f) != j.size() || std::fclose(f) != 0)
    throw tg::Error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  bool small = !tg::cuda_available();
  bool eagerToo = false;
  std::string saveDir;
  Config c = small ? kSmall : kBig;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--small")) {
      small = true;
      c = kSmall;
    } else if (!std::strcmp(argv[i], "--eager")) {
      eagerToo = true;
    } else if (!std::strcmp(argv[i], "--big")) {
      small = false;
      c = kBig;
    } else if (!std::strcmp(argv[i], "--prompt") && i + 1 < argc) {
      c.prompt = std::atoll(argv[++i]);
    } else if (!std::strcmp(argv[i], "--generate") && i + 1 < argc) {
      c.generate = std::atoll(argv[++i]);
    } else if (!std::strcmp(argv[i], "--save") && i + 1 < argc) {
      saveDir = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--small | --big] [--eager] [--prompt N] [--generate M] [--save DIR]\n", argv[0]);
      return 2;
    }
  }
  if (c.prompt < 1 || c.generate < 2) {
    std::fprintf(stderr, "the prompt needs at least 1 token and the generation at least 2\n");
    return 2;
  }
  try {
    const tg::Device device = tg::default_device();
    Model m = makeModel(c, device);
    std::printf("decoder: %lld layers, dim %lld, %lld query / %lld key-value heads, ffn %lld, vocab %lld, "
                "bf16; %.1f MB of weights read per token; cache of %lld positions\n",
                static_cast<long long>(c.layers), static_cast<long long>(c.dim), static_cast<long long>(c.heads),
                static_cast<long long>(c.kvHeads), static_cast<long long>(c.ffn), static_cast<long long>(c.vocab),
                static_cast<double>(m.weightBytes) / 1e6, static_cast<long long>(c.maxSeq()));
    Generated g = generate(m, device, /*useJit=*/true, /*print=*/true);
    std::printf("tokens:");
    for (int32_t id : g.tokens) std::printf(" %d", id);
    std::printf("\n");
    if (!saveDir.empty()) save(saveDir, m, g);
    const bool eagerMustMatch = small && device == tg::Device::CPU;
    if (eagerMustMatch || eagerToo) {
      std::vector<int32_t> eager = generate(m, device, /*useJit=*/false, /*print=*/true).tokens;
      if (eagerMustMatch) {
        if (eager != g.tokens) {
          std::printf("MISMATCH: eager execution chose other tokens\n");
          return 1;
        }
        std::printf("eager execution chose the same %zu tokens\n", g.tokens.size());
      } else {
        // On the GPU eager kernels round between ops where the fused ones do not, so a close
        // argmax may go the other way: the agreement is reported, not required.
        size_t same = 0;
        while (same < eager.size() && same < g.tokens.size() && eager[same] == g.tokens[same]) ++same;
        std::printf("eager execution: the first %zu of %zu tokens are the jit's\n", same, g.tokens.size());
      }
    }
  } catch (const tg::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
