//===- CheckSites.cpp - Where each tg::check is, and the host's failures --===//
#include "tg/Support/CheckSites.h"

namespace tg {

CheckSites& CheckSites::instance() {
  static CheckSites* sites = new CheckSites();  // never destroyed: used until exit
  return *sites;
}

int64_t CheckSites::add(const std::string& message, const SourceLoc& loc) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (size_t i = 0; i < sites_.size(); ++i)
    if (sites_[i].message == message && sites_[i].loc.file == loc.file &&
        sites_[i].loc.line == loc.line)
      return static_cast<int64_t>(i) + 1;
  sites_.push_back({message, loc});
  return static_cast<int64_t>(sites_.size());
}

void CheckSites::fail(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (hostFailure_ == 0) hostFailure_ = id;
}

int64_t CheckSites::takeHostFailure() {
  std::lock_guard<std::mutex> lock(mutex_);
  const int64_t id = hostFailure_;
  hostFailure_ = 0;
  return id;
}

CheckFailure CheckSites::describe(int64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (id <= 0 || static_cast<size_t>(id) > sites_.size())
    return {"check " + std::to_string(id) + " failed", {}};
  return sites_[static_cast<size_t>(id) - 1];
}

}  // namespace tg
