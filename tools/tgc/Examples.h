//===- Examples.h - Built-in graphs `tgc dump` accepts by name ------------===//
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tg::tools {

std::vector<std::string> exampleNames();
/// The traced tg IR of example `name`, or empty if there is no such example.
std::optional<std::string> exampleIr(const std::string& name);

}  // namespace tg::tools
