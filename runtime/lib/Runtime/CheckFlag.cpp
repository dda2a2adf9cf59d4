//===- CheckFlag.cpp - The device flag failed GPU checks write ------------===//
#include "tg/Runtime/CheckFlag.h"

namespace tg::rt {

CheckFlag& CheckFlag::instance() {
  static CheckFlag* flag = new CheckFlag();  // never destroyed: release() frees its memory
  return *flag;
}

DevicePtr CheckFlag::deviceFlag(Gpu& gpu) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!flag_) {
    flag_ = gpu.allocate(sizeof(int32_t));
    gpu.fill(flag_->ptr(), 0, sizeof(int32_t), 1);
  }
  return flag_->ptr();
}

void CheckFlag::release() {
  std::shared_ptr<DeviceBuffer> flag;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    flag.swap(flag_);
    deviceMayHaveFailed_ = false;
  }
}

int64_t CheckFlag::takeDeviceFailure() {
  if (!deviceMayHaveFailed_ || !flag_) return 0;
  Gpu* gpu = Gpu::get();
  if (!gpu) return 0;
  int32_t id = 0;
  gpu->copyToHost(&id, flag_->ptr(), sizeof(id));  // waits for the stream
  deviceMayHaveFailed_ = false;
  if (id != 0) gpu->fill(flag_->ptr(), 0, sizeof(int32_t), 1);
  return id;
}

std::optional<CheckFailure> takeCheckFailure() {
  int64_t id = CheckSites::instance().takeHostFailure();
  const int64_t device = CheckFlag::instance().takeDeviceFailure();  // read (and cleared) anyway
  if (id == 0) id = device;
  if (id <= 0) return std::nullopt;
  return CheckSites::instance().describe(id);
}

}  // namespace tg::rt
