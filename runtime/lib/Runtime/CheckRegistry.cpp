//===- CheckRegistry.cpp - Check sites and the device failure flag --------===//
#include "tg/Runtime/CheckRegistry.h"

namespace tg::rt {

CheckRegistry& CheckRegistry::instance() {
  static CheckRegistry* registry = new CheckRegistry();
  return *registry;
}

int64_t CheckRegistry::add(const std::string& message, const SourceLoc& loc) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < sites_.size(); ++i)
    if (sites_[i].message == message && sites_[i].loc.file == loc.file &&
        sites_[i].loc.line == loc.line)
      return static_cast<int64_t>(i) + 1;
  sites_.push_back({message, loc});
  return static_cast<int64_t>(sites_.size());
}

void CheckRegistry::fail(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (hostFailure_ == 0) hostFailure_ = id;
}

DevicePtr CheckRegistry::deviceFlag(Gpu& gpu) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!flag_) {
    flag_ = gpu.allocate(sizeof(int32_t));
    gpu.fill(flag_->ptr(), 0, sizeof(int32_t), 1);
  }
  return flag_->ptr();
}

void CheckRegistry::releaseDeviceFlag() {
  std::shared_ptr<DeviceBuffer> flag;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    flag.swap(flag_);
    deviceMayHaveFailed_ = false;
  }
}

std::optional<CheckFailure> CheckRegistry::takeFailure() {
  int64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    id = hostFailure_;
    hostFailure_ = 0;
  }
  if (deviceMayHaveFailed_ && flag_) {
    if (Gpu* gpu = Gpu::get()) {
      int32_t deviceId = 0;
      gpu->copyToHost(&deviceId, flag_->ptr(), sizeof(deviceId));  // waits for the stream
      deviceMayHaveFailed_ = false;
      if (deviceId != 0) {
        gpu->fill(flag_->ptr(), 0, sizeof(int32_t), 1);
        if (id == 0) id = deviceId;
      }
    }
  }
  if (id <= 0) return std::nullopt;
  std::lock_guard<std::mutex> lock(mutex_);
  if (static_cast<size_t>(id) > sites_.size())
    return CheckFailure{"check " + std::to_string(id) + " failed", {}};
  return CheckFailure{sites_[id - 1].message, sites_[id - 1].loc};
}

}  // namespace tg::rt
