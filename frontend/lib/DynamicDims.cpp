//===- DynamicDims.cpp - A jit function's symbolic dimensions -------------===//
#include "tg/Frontend/DynamicDims.h"

#include <cctype>

namespace tg::detail {

namespace {

bool isIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string range(const DynamicDims::Symbol& s) {
  std::string out = "[";  // appended: GCC 12 warns, wrongly, of overlap in "[" + std::to_string(...)
  out += std::to_string(s.min);
  out += ", ";
  out += std::to_string(s.max);
  out += "]";
  return out;
}

std::string siteText(const DynamicDims::Site& site) {
  return "argument " + std::to_string(site.arg) + " dim " + std::to_string(site.dim);
}

}  // namespace

DynamicDims::DynamicDims(const std::vector<DynamicDim>& dynamic, const SourceLoc& definedAt) {
  for (const DynamicDim& d : dynamic) {
    const std::string what = "JitOptions::dynamic: " + siteText({d.arg, d.dim, 0}) + " (Dim '" + d.size.name + "')";
    if (!isIdentifier(d.size.name))
      throw Error(what + ": a Dim's name must be letters, digits and '_', not starting with a digit", definedAt);
    if (d.size.min < 1 || d.size.max < d.size.min || d.size.max > kMaxTensorBytes)
      throw Error(what + ": its range [" + std::to_string(d.size.min) + ", " + std::to_string(d.size.max) +
                      "] must satisfy 1 <= min <= max <= 2^48",
                  definedAt);
    if (d.arg < 0) throw Error(what + ": the argument position is negative", definedAt);
    int symbol = -1;
    for (size_t i = 0; i < symbols_.size(); ++i)
      if (symbols_[i].name == d.size.name) symbol = static_cast<int>(i);
    if (symbol < 0) {
      symbol = static_cast<int>(symbols_.size());
      symbols_.push_back({d.size.name, d.size.min, d.size.max});
    } else if (symbols_[symbol].min != d.size.min || symbols_[symbol].max != d.size.max) {
      throw Error(what + ": Dim '" + d.size.name + "' is also given the range " + range(symbols_[symbol]) +
                      "; one name is one symbol with one range",
                  definedAt);
    }
    for (const Site& s : sites_)
      if (s.arg == d.arg && s.dim == d.dim)
        throw Error(what + ": that dim is already Dim '" + symbols_[s.symbol].name + "'", definedAt);
    sites_.push_back({d.arg, d.dim, symbol});
  }
}

std::vector<std::string> DynamicDims::names() const {
  std::vector<std::string> out;
  for (const Symbol& s : symbols_) out.push_back(s.name);
  return out;
}

int DynamicDims::normalizedDim(const Site& site, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  const int64_t d = site.dim < 0 ? site.dim + r : site.dim;
  return d >= 0 && d < r ? static_cast<int>(d) : -1;
}

std::vector<int64_t> DynamicDims::valuesOf(std::span<const graph::TensorType> types, const SourceLoc& where) const {
  std::vector<int64_t> values(symbols_.size(), -1);
  std::vector<const Site*> first(symbols_.size(), nullptr);
  for (const Site& site : sites_) {
    const Symbol& sym = symbols_[site.symbol];
    if (static_cast<size_t>(site.arg) >= types.size())
      throw Error("jit: JitOptions::dynamic names " + siteText(site) + " (Dim '" + sym.name + "'), but the call passes " +
                      std::to_string(types.size()) + " arguments",
                  where);
    const graph::TensorType& t = types[site.arg];
    const int dim = normalizedDim(site, t.shape.size());
    if (dim < 0)
      throw Error("jit: JitOptions::dynamic names " + siteText(site) + " (Dim '" + sym.name + "'), but argument " +
                      std::to_string(site.arg) + " is " + t.str(),
                  where);
    const int64_t size = t.shape[dim];
    if (size < sym.min || size > sym.max)
      throw Error("jit: " + siteText(site) + " has size " + std::to_string(size) + ", outside Dim '" + sym.name +
                      "' " + range(sym) + " (argument " + std::to_string(site.arg) + " is " + t.str() + ")",
                  where);
    if (!first[site.symbol]) {
      first[site.symbol] = &site;
      values[site.symbol] = size;
    } else if (values[site.symbol] != size) {
      throw Error("jit: Dim '" + sym.name + "' is " + std::to_string(values[site.symbol]) + " at " +
                      siteText(*first[site.symbol]) + " but " + std::to_string(size) + " at " + siteText(site) +
                      " (dims of one Dim must be equal)",
                  where);
    }
  }
  return values;
}

std::vector<graph::TensorType> DynamicDims::withSizes(std::vector<graph::TensorType> types,
                                                      std::span<const int64_t> values) const {
  for (const Site& site : sites_) {
    if (static_cast<size_t>(site.arg) >= types.size()) continue;
    graph::TensorType& t = types[site.arg];
    const int dim = normalizedDim(site, t.shape.size());
    if (dim >= 0) t.shape[dim] = values[site.symbol];
  }
  return types;
}

std::string DynamicDims::describe() const {
  std::string out;
  for (size_t i = 0; i < symbols_.size(); ++i) {
    if (i) out += ", ";
    out += symbols_[i].name + " in " + range(symbols_[i]) + " (";
    bool firstSite = true;
    for (const Site& s : sites_)
      if (s.symbol == static_cast<int>(i)) {
        out += (firstSite ? "" : ", ") + siteText(s);
        firstSite = false;
      }
    out += ")";
  }
  return out;
}

}  // namespace tg::detail
