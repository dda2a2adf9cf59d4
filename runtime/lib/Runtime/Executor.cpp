//===- Executor.cpp - Plan execution --------------------------------------===//
#include "tg/Runtime/Executor.h"

#include "tg/Runtime/CheckRegistry.h"
#include "tg/Runtime/KernelCache.h"
#include "tg/Support/Error.h"

namespace tg::rt {

Executor::Executor(Plan plan, Gpu& gpu) : plan_(std::move(plan)), gpu_(gpu) {
  KernelCache& cache = KernelCache::instance();
  for (const KernelSource& k : plan_.kernels) functions_.push_back(cache.function(gpu_, k));
  for (const PlanLaunch& l : plan_.launches)
    if (l.dims.sharedBytes > 48 * 1024)
      gpu_.setMaxDynamicShared(functions_[l.kernel], l.dims.sharedBytes);
  constants_.resize(plan_.buffers.size());
  for (size_t i = 0; i < plan_.buffers.size(); ++i) {
    const PlanBuffer& b = plan_.buffers[i];
    if (b.kind != PlanBuffer::Kind::Constant) continue;
    constants_[i] = gpu_.allocate(b.data.size());
    gpu_.copyToDevice(constants_[i]->ptr(), b.data.data(), b.data.size());
  }
}

std::vector<std::shared_ptr<DeviceBuffer>> Executor::run(
    const std::vector<std::shared_ptr<DeviceBuffer>>& inputs) {
  const size_t n = plan_.buffers.size();
  // The buffer object that owns each plan buffer's memory (null for arena temporaries).
  std::vector<std::shared_ptr<DeviceBuffer>>& owners = owners_;
  std::vector<DevicePtr>& ptrs = ptrs_;
  owners.assign(n, nullptr);
  ptrs.assign(n, 0);
  if (!arena_) arena_ = gpu_.allocate(plan_.arenaBytes);
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
        owners[i] = gpu_.allocate(b.bytes);
        break;
      case PlanBuffer::Kind::Arena:
        ptrs[i] = arena->ptr() + b.offset;
        break;
      case PlanBuffer::Kind::Alias:  // aliases always refer to an earlier buffer
        owners[i] = owners[b.index];
        ptrs[i] = ptrs[b.index];
        break;
      case PlanBuffer::Kind::CheckFlag:
        ptrs[i] = CheckRegistry::instance().deviceFlag(gpu_);
        CheckRegistry::instance().launched();
        break;
    }
    if (owners[i] && b.kind != PlanBuffer::Kind::Alias) ptrs[i] = owners[i]->ptr();
  }
  std::vector<DevicePtr>& args = args_;
  for (const PlanLaunch& l : plan_.launches) {
    args.clear();
    for (int b : l.buffers) args.push_back(ptrs[b]);
    void* params[] = {args.data()};
    gpu_.launch(functions_[l.kernel], l.dims, params);
  }
  std::vector<std::shared_ptr<DeviceBuffer>> results;
  results.reserve(plan_.outputs.size());
  for (int b : plan_.outputs) results.push_back(owners[b]);
  owners.assign(n, nullptr);  // hold no buffer longer than the results do
  return results;
}

}  // namespace tg::rt
