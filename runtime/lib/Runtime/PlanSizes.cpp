//===- PlanSizes.cpp - Evaluating a symbolic plan's sizes ------------------===//
#include "tg/Runtime/PlanSizes.h"

#include "tg/Runtime/ArenaPacking.h"
#include "tg/Support/Error.h"

#include <algorithm>
#include <bit>
#include <numeric>

namespace tg::rt {

namespace {

std::string symbolNames(const Plan& plan) {
  std::string s;
  for (size_t i = 0; i < plan.symbols.size(); ++i) s += (i ? ", " : "") + plan.symbols[i].name;
  return s;
}

std::vector<std::string> namesOf(const Plan& plan) {
  std::vector<std::string> names;
  for (const PlanSymbol& s : plan.symbols) names.push_back(s.name);
  return names;
}

}  // namespace

void evaluatePlanSizes(const Plan& plan, std::span<const int64_t> values, PlanSizes& out) {
  auto where = [&] { return "plan '" + plan.name + "'"; };
  if (values.size() != plan.symbols.size())
    throw Error(where() + " has " + std::to_string(plan.symbols.size()) + " symbol(s)" +
                (plan.symbols.empty() ? "" : " (" + symbolNames(plan) + ")") + " but the run passed " +
                std::to_string(values.size()) + " value(s)");
  for (size_t i = 0; i < values.size(); ++i) {
    const PlanSymbol& s = plan.symbols[i];
    if (values[i] < s.min || values[i] > s.max)
      throw Error(where() + ": " + s.name + " = " + std::to_string(values[i]) + " is outside its range [" +
                  std::to_string(s.min) + ", " + std::to_string(s.max) + "]");
  }
  // `describe` names the size for the error only: no string is built on the way (this runs at
  // every run whose sizes changed, inside the per-call budget).
  auto eval = [&](const SizeExpr& e, auto describe) -> int64_t {
    std::optional<int64_t> v = e.evaluate(values);
    if (v && *v >= 0) return *v;
    std::string at;
    for (size_t i = 0; i < values.size(); ++i)
      at += (i ? ", " : "") + plan.symbols[i].name + " = " + std::to_string(values[i]);
    throw Error(where() + ": " + describe() + " = " + e.str(namesOf(plan)) + " is " +
                (v ? std::to_string(*v) : std::string("beyond 64-bit integers")) + " at " +
                (at.empty() ? std::string("no symbols") : at));
  };

  out.values.assign(values.begin(), values.end());
  const size_t n = plan.buffers.size();
  out.bufferBytes.resize(n);
  out.bufferOffsets.resize(n);
  std::vector<ArenaRequest> requests;
  std::vector<size_t> arenaBuffers;
  for (size_t i = 0; i < n; ++i) {
    const PlanBuffer& b = plan.buffers[i];
    size_t bytes = b.bytes;
    if (b.symbolicBytes) {
      bytes = static_cast<size_t>(eval(*b.symbolicBytes, [&] { return "the bytes of buffer " + std::to_string(i); }));
    } else if (b.kind == PlanBuffer::Kind::Alias && b.index >= 0 && static_cast<size_t>(b.index) < i &&
               plan.buffers[b.index].symbolicBytes) {
      const size_t base = out.bufferBytes[b.index];
      bytes = base > b.offset ? base - b.offset : 0;
    }
    out.bufferBytes[i] = bytes;
    out.bufferOffsets[i] = b.offset;
    if (b.kind == PlanBuffer::Kind::Arena && !plan.symbols.empty()) {
      arenaBuffers.push_back(i);
      requests.push_back({static_cast<int64_t>(bytes), b.madeAt, std::max(b.madeAt, b.lastReadAt)});
    }
  }
  out.arenaBytes = plan.arenaBytes;
  if (!plan.symbols.empty()) {
    // packArena takes the requests in program order (the buffers usually are already).
    auto byFirst = [](const ArenaRequest& a, const ArenaRequest& b) { return a.first < b.first; };
    if (!std::is_sorted(requests.begin(), requests.end(), byFirst)) {
      std::vector<size_t> order(requests.size());
      std::iota(order.begin(), order.end(), size_t(0));
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return requests[a].first < requests[b].first; });
      std::vector<ArenaRequest> sortedRequests;
      std::vector<size_t> sortedBuffers;
      for (size_t k : order) {
        sortedRequests.push_back(requests[k]);
        sortedBuffers.push_back(arenaBuffers[k]);
      }
      requests = std::move(sortedRequests);
      arenaBuffers = std::move(sortedBuffers);
    }
    const ArenaLayout layout = packArena(requests);
    for (size_t k = 0; k < arenaBuffers.size(); ++k) out.bufferOffsets[arenaBuffers[k]] = static_cast<size_t>(layout.offsets[k]);
    out.arenaBytes = static_cast<size_t>(layout.bytes);
  }

  out.dims.resize(plan.launches.size());
  out.launchSizes.resize(plan.launches.size());
  out.tensorMaps.resize(plan.launches.size());
  out.variants.assign(plan.launches.size(), -1);
  for (size_t l = 0; l < plan.launches.size(); ++l) {
    const std::vector<PlanLaunch>& variants = plan.launches[l].variants;
    for (size_t v = 0; v < variants.size(); ++v)
      if (eval(variants[v].guard, [&] { return "the guard of variant " + std::to_string(v) + " of launch " + std::to_string(l); }) <=
          variants[v].upTo) {
        out.variants[l] = static_cast<int>(v);
        break;
      }
    const PlanLaunch& launch = chosenLaunch(plan, out, l);
    LaunchDims& dims = out.dims[l];
    dims = launch.dims;
    for (size_t d = 0; d < launch.symbolicGrid.size() && d < 3; ++d) {
      const PlanExtent& x = launch.symbolicGrid[d];
      auto what = [&] { return "grid axis " + std::string(1, "xyz"[d]) + " of launch " + std::to_string(l); };
      const int64_t work = eval(x.work, what);
      const int64_t per = std::max<int64_t>(x.per, 1), cap = std::max<int64_t>(x.cap, 1);
      const int64_t units = (work / per + (work % per != 0)) * (x.times == SizeExpr(1) ? 1 : eval(x.times, what));
      int64_t blocks = std::clamp<int64_t>(units, 1, cap);
      if (x.balanced && units > cap) {
        const int64_t rounds = (units + cap - 1) / cap;
        blocks = (units + rounds - 1) / rounds;
      }
      const int64_t limit = d == 0 ? (int64_t(1) << 31) - 1 : 65535;
      if (blocks > limit)
        throw Error(where() + ": " + what() + " needs " + std::to_string(blocks) + " blocks, beyond CUDA's limit of " +
                    std::to_string(limit));
      dims.grid[d] = static_cast<uint32_t>(blocks);
    }
    std::vector<TensorMapSpec>& maps = out.tensorMaps[l];
    maps.resize(launch.tensorMaps.size());
    for (size_t m = 0; m < launch.tensorMaps.size(); ++m) {
      const PlanTensorMap& map = launch.tensorMaps[m];
      TensorMapSpec& spec = maps[m];
      spec = map.spec;
      auto what = [&] { return "tensor map " + std::to_string(m) + " of launch " + std::to_string(l); };
      for (size_t d = 0; d < map.symbolicDims.size() && d < 3; ++d)
        spec.dims[d] = static_cast<uint64_t>(eval(map.symbolicDims[d], what));
      for (size_t d = 0; d < map.symbolicStrides.size() && d < 2; ++d)
        spec.strides[d] = static_cast<uint64_t>(eval(map.symbolicStrides[d], what));
    }
    std::vector<int64_t>& sizes = out.launchSizes[l];
    sizes.resize(launch.sizes.size());
    for (size_t k = 0; k < launch.sizes.size(); ++k)
      sizes[k] = eval(launch.sizes[k], [&] { return "size argument " + std::to_string(k) + " of launch " + std::to_string(l); });
  }

  out.outputShapes.resize(plan.outputs.size());
  for (size_t r = 0; r < plan.outputs.size(); ++r) {
    if (r < plan.symbolicOutputShapes.size() && !plan.symbolicOutputShapes[r].empty()) {
      Shape& shape = out.outputShapes[r];
      shape.resize(plan.symbolicOutputShapes[r].size());
      for (size_t d = 0; d < shape.size(); ++d)
        shape[d] = eval(plan.symbolicOutputShapes[r][d], [&] { return "dim " + std::to_string(d) + " of result " + std::to_string(r); });
    } else if (r < plan.outputShapes.size()) {
      out.outputShapes[r] = plan.outputShapes[r];
    }
  }

  out.deviceBytes = out.arenaBytes;
  for (size_t i = 0; i < n; ++i) {
    const PlanBuffer& b = plan.buffers[i];
    if (b.kind == PlanBuffer::Kind::Output) out.deviceBytes += out.bufferBytes[i];
    if (b.kind == PlanBuffer::Kind::Constant) out.deviceBytes += b.data.size();
  }
}

void roundGridsUp(const Plan& plan, PlanSizes& sizes) {
  if (sizes.dims.size() != plan.launches.size()) return;
  for (size_t l = 0; l < plan.launches.size(); ++l) {
    const PlanLaunch& launch = chosenLaunch(plan, sizes, l);
    if (launch.symbolicGrid.empty()) continue;
    const uint64_t needs = sizes.dims[l].grid[0];
    const uint64_t cap = static_cast<uint64_t>(std::clamp<int64_t>(launch.symbolicGrid[0].cap, 1, (int64_t(1) << 31) - 1));
    const uint64_t rounded = std::max(needs, std::min(std::bit_ceil(needs), cap));
    sizes.dims[l].grid[0] = static_cast<uint32_t>(rounded);
  }
}

void keepCoveringGrids(const Plan& plan, const PlanSizes& previous, PlanSizes& next, uint32_t slack) {
  if (previous.dims.size() != next.dims.size() || next.dims.size() != plan.launches.size() ||
      previous.variants.size() != next.variants.size())
    return;
  for (size_t l = 0; l < plan.launches.size(); ++l) {
    if (previous.variants[l] != next.variants[l] || chosenLaunch(plan, next, l).symbolicGrid.empty()) continue;
    const uint64_t was = previous.dims[l].grid[0], needs = next.dims[l].grid[0];
    if (was > needs && was <= uint64_t(slack) * needs) next.dims[l].grid[0] = static_cast<uint32_t>(was);
  }
}

}  // namespace tg::rt
