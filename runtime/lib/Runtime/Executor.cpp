//===- Executor.cpp - Plan execution --------------------------------------===//
#include "tg/Runtime/Executor.h"

#include "tg/Runtime/CheckFlag.h"
#include "tg/Runtime/CudaGraph.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Support/Error.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace tg::rt {

namespace {

/// The byte size of each kernel parameter of each launch (the kernel ABI; packLaunch writes
/// them): the struct of buffer pointers followed by the 64-bit size arguments, then the tensor
/// maps, if any.
std::vector<std::vector<size_t>> parameterSizes(const Plan& plan) {
  static_assert(sizeof(DevicePtr) == sizeof(int64_t), "sizes follow the pointers without padding");
  std::vector<std::vector<size_t>> sizes;
  for (const PlanLaunch& l : plan.launches) {
    std::vector<size_t>& s = sizes.emplace_back();
    s.push_back(l.buffers.size() * sizeof(DevicePtr) + l.sizes.size() * sizeof(int64_t));
    if (!l.tensorMaps.empty()) s.push_back(l.tensorMaps.size() * sizeof(TensorMapBytes));
  }
  return sizes;
}

/// A map base no buffer has: the map is encoded at the next pack.
constexpr DevicePtr kNotEncoded = ~DevicePtr(0);

}  // namespace

Executor::Executor(Plan plan, Gpu& gpu) : plan_(std::move(plan)), gpu_(gpu) {
  // A guarded variant fills its launch's parameter block: the same buffers, as many sizes, and
  // tensor maps over the same arguments.
  for (size_t i = 0; i < plan_.launches.size(); ++i) {
    const PlanLaunch& l = plan_.launches[i];
    for (const PlanLaunch& v : l.variants) {
      bool same = v.buffers == l.buffers && v.sizes.size() == l.sizes.size() && v.tensorMaps.size() == l.tensorMaps.size() &&
                  v.kernel >= 0 && static_cast<size_t>(v.kernel) < plan_.kernels.size();
      for (size_t m = 0; same && m < v.tensorMaps.size(); ++m) same = v.tensorMaps[m].arg == l.tensorMaps[m].arg;
      if (!same)
        throw Error("executor: plan '" + plan_.name + "': a variant of launch " + std::to_string(i) +
                    " does not take that launch's parameters (buffers, sizes, tensor maps)");
    }
  }
  functions_ = KernelCache::instance().functions(gpu_, plan_.kernels, &kernelStats_);  // misses compiled in parallel
  for (const PlanLaunch& l : plan_.launches) {
    if (l.dims.sharedBytes > 48 * 1024) gpu_.setMaxDynamicShared(functions_[l.kernel], l.dims.sharedBytes);
    for (const PlanLaunch& v : l.variants)
      if (v.dims.sharedBytes > 48 * 1024) gpu_.setMaxDynamicShared(functions_[v.kernel], v.dims.sharedBytes);
  }
  launchFunctions_.resize(plan_.launches.size());
  for (size_t l = 0; l < plan_.launches.size(); ++l) launchFunctions_[l] = functions_[plan_.launches[l].kernel];
  params_ = LaunchParams(parameterSizes(plan_));
  mapBases_.resize(plan_.launches.size());
  for (size_t i = 0; i < plan_.launches.size(); ++i)
    mapBases_[i].assign(plan_.launches[i].tensorMaps.size(), kNotEncoded);
  constants_.resize(plan_.buffers.size());
  if (plan_.symbols.empty()) evaluatePlanSizes(plan_, {}, sizes_);  // fixed for every run
  for (size_t i = 0; i < plan_.buffers.size(); ++i) {
    const PlanBuffer& b = plan_.buffers[i];
    if (b.kind != PlanBuffer::Kind::Constant) continue;
    constants_[i] = gpu_.allocate(b.data.size());
    gpu_.copyToDevice(constants_[i]->ptr(), b.data.data(), b.data.size());
  }
}

Executor::~Executor() {
  for (void* e : events_) gpu_.destroyEvent(e);
}

void Executor::enableProfiling() {
  if (profiling()) return;
  events_.resize(plan_.launches.size() + 1);
  for (void*& e : events_) e = gpu_.createEvent();
  profile_.ms.assign(plan_.launches.size(), 0.0);
}

void Executor::collectProfile() const {
  if (!eventsPending_) return;
  eventsPending_ = false;
  if (firstProfiledRun_) {  // its time includes loading the modules and first touches
    firstProfiledRun_ = false;
    gpu_.elapsedMs(events_.front(), events_.back());  // waits for it
    return;
  }
  for (size_t l = 0; l + 1 < events_.size(); ++l) profile_.ms[l] += gpu_.elapsedMs(events_[l], events_[l + 1]);
  ++profile_.runs;
}

const Executor::Profile& Executor::profile() const {
  collectProfile();
  return profile_;
}

uint64_t Executor::cudaGraphParameterUpdates() const {
  return graph_ ? graph_->parameterUpdates() : 0;
}

std::vector<std::shared_ptr<DeviceBuffer>> Executor::run(
    const std::vector<std::shared_ptr<DeviceBuffer>>& inputs, std::span<const int64_t> symbolValues) {
  std::vector<std::shared_ptr<DeviceBuffer>> results;
  run(inputs, results, false, symbolValues);
  return results;
}

void Executor::resize(std::span<const int64_t> values) {
  if (plan_.symbols.empty()) {
    if (!values.empty())
      throw Error("executor: plan '" + plan_.name + "' has static shapes but the run passed " +
                  std::to_string(values.size()) + " symbol value(s)");
    return;
  }
  if (sizeChanges_ > 0 && std::equal(values.begin(), values.end(), sizes_.values.begin(), sizes_.values.end()))
    return;
  // Into the spare, then swapped: a refused run changes nothing, and the storage of both is
  // reused (no allocation for the vectors once each has been filled).
  evaluatePlanSizes(plan_, values, spareSizes_);
  roundGridsUp(plan_, spareSizes_);  // fewer grid changes for a CUDA graph's nodes (PlanSizes.h)
  if (sizeChanges_ > 0) keepCoveringGrids(plan_, sizes_, spareSizes_);
  std::swap(sizes_, spareSizes_);
  const bool first = sizeChanges_ == 0;
  ++sizeChanges_;
  for (size_t l = 0; l < plan_.launches.size(); ++l) {
    // Another variant: its kernel, and its tensor maps (other boxes) encoded at the next pack.
    const bool otherVariant = first || sizes_.variants[l] != spareSizes_.variants[l];
    const PlanLaunch& launch = chosenLaunch(plan_, sizes_, l);
    if (otherVariant) launchFunctions_[l] = functions_[launch.kernel];
    // Tensor maps over dynamic dims describe other extents now: encoded again too.
    for (size_t m = 0; m < launch.tensorMaps.size(); ++m)
      if (otherVariant || !launch.tensorMaps[m].symbolicDims.empty() || !launch.tensorMaps[m].symbolicStrides.empty())
        mapBases_[l][m] = kNotEncoded;
  }
}

void Executor::run(const std::vector<std::shared_ptr<DeviceBuffer>>& inputs,
                   std::vector<std::shared_ptr<DeviceBuffer>>& results, bool mayUseCudaGraph,
                   std::span<const int64_t> symbolValues) {
  resize(symbolValues);
  try {
    bindBuffers(inputs);
    ++runs_;
    for (size_t l = 0; l < plan_.launches.size(); ++l) packLaunch(l);
    if (profiling()) collectProfile();  // the previous run's events are reused
    if (profiling() || !launchAsCudaGraph(mayUseCudaGraph))
      for (size_t l = 0; l < plan_.launches.size(); ++l) {
        if (profiling()) gpu_.recordEvent(events_[l]);
        void* f = launchFunctions_[l];
        if (plan_.programmaticLaunches)
          gpu_.launchProgrammatic(f, sizes_.dims[l], params_.pointers(l));
        else
          gpu_.launch(f, sizes_.dims[l], params_.pointers(l));
        if (profiling() && l + 1 == plan_.launches.size()) {
          gpu_.recordEvent(events_.back());
          eventsPending_ = true;
        }
      }
  } catch (...) {
    owners_.assign(owners_.size(), nullptr);  // e.g. out of memory: keep no buffer of this run
    throw;
  }
  results.resize(plan_.outputs.size());
  for (size_t i = 0; i < plan_.outputs.size(); ++i) results[i] = owners_[plan_.outputs[i]];
  owners_.assign(owners_.size(), nullptr);  // hold no buffer longer than the results do
}

void Executor::bindBuffers(const std::vector<std::shared_ptr<DeviceBuffer>>& inputs) {
  const size_t n = plan_.buffers.size();
  // The buffer object that owns each plan buffer's memory (null for arena temporaries).
  std::vector<std::shared_ptr<DeviceBuffer>>& owners = owners_;
  std::vector<DevicePtr>& ptrs = ptrs_;
  owners.assign(n, nullptr);
  ptrs.assign(n, 0);
  // The arena grows to the largest sizes seen (the old one is freed stream-ordered, after the
  // runs queued on it) and is kept for smaller ones.
  if (!arena_ || arena_->bytes() < sizes_.arenaBytes) arena_ = gpu_.allocate(sizes_.arenaBytes);
  const std::shared_ptr<DeviceBuffer>& arena = arena_;
  for (size_t i = 0; i < n; ++i) {
    const PlanBuffer& b = plan_.buffers[i];
    switch (b.kind) {
      case PlanBuffer::Kind::Input:
        if (b.index < 0 || static_cast<size_t>(b.index) >= inputs.size())
          throw Error("executor: plan '" + plan_.name + "' reads input " +
                      std::to_string(b.index) + " but got " + std::to_string(inputs.size()));
        owners[i] = inputs[b.index];
        break;
      case PlanBuffer::Kind::Constant:
        owners[i] = constants_[i];
        break;
      case PlanBuffer::Kind::Output:
        owners[i] = gpu_.allocate(sizes_.bufferBytes[i]);
        break;
      case PlanBuffer::Kind::Arena:
        ptrs[i] = arena->ptr() + sizes_.bufferOffsets[i];
        break;
      case PlanBuffer::Kind::Alias:  // aliases always refer to an earlier buffer
        owners[i] = owners[b.index];
        ptrs[i] = ptrs[b.index] + sizes_.bufferOffsets[i];
        break;
      case PlanBuffer::Kind::CheckFlag:
        // The flag's address never changes, so a CUDA graph keeps it; the host must still learn
        // on every run that check kernels were queued.
        ptrs[i] = CheckFlag::instance().deviceFlag(gpu_);
        CheckFlag::instance().launched();
        break;
    }
    if (owners[i] && b.kind != PlanBuffer::Kind::Alias) ptrs[i] = owners[i]->ptr();
  }
}

void Executor::packLaunch(size_t li) {
  const PlanLaunch& l = chosenLaunch(plan_, sizes_, li);
  auto* args = reinterpret_cast<DevicePtr*>(params_.block(li, 0));
  for (size_t a = 0; a < l.buffers.size(); ++a) args[a] = ptrs_[l.buffers[a]];
  const std::vector<int64_t>& sizes = sizes_.launchSizes[li];
  if (!sizes.empty())
    std::memcpy(params_.block(li, 0) + l.buffers.size() * sizeof(DevicePtr), sizes.data(), sizes.size() * sizeof(int64_t));
  if (l.tensorMaps.empty()) return;
  auto* maps = reinterpret_cast<TensorMapBytes*>(params_.block(li, 1));
  for (size_t m = 0; m < l.tensorMaps.size(); ++m) {
    const DevicePtr base = ptrs_[l.buffers[l.tensorMaps[m].arg]];
    if (mapBases_[li][m] != base) {
      gpu_.encodeTensorMap(maps[m], sizes_.tensorMaps[li][m], base);
      mapBases_[li][m] = base;
    }
  }
}

bool Executor::launchAsCudaGraph(bool mayUseCudaGraph) {
  // The first run stays direct: a function called once should not pay for building a graph.
  if (!mayUseCudaGraph || !cudaGraphFailure_.empty() || plan_.launches.empty() || runs_ < 2)
    return false;
  const char* step = "launch";
  try {
    if (!graph_) {
      step = "build";
      graph_ = std::make_unique<CudaGraph>(gpu_, plan_, launchFunctions_, params_, sizes_.dims);
      step = "launch";
    }
    graph_->launch(params_, sizes_.dims, launchFunctions_);
  } catch (const Error& e) {
    // Never fatal: this run and every later one launch kernel by kernel (a broken context then
    // fails there, with the kernel's error).
    graph_.reset();
    cudaGraphFailure_ = std::string("could not ") + step + " the CUDA graph: " + e.message();
    std::fprintf(stderr, "tg: warning: '%s' %s; launching its kernels one by one from now on.\n",
                 plan_.name.c_str(), cudaGraphFailure_.c_str());
    return false;
  }
  ++cudaGraphLaunches_;
  return true;
}

}  // namespace tg::rt
