//===- Plan.cpp - Printing of plans ---------------------------------------===//
#include "tg/Runtime/Plan.h"

#include <sstream>

namespace tg::rt {

std::string Plan::str() const {
  std::ostringstream os;
  os << "plan @" << name << " for " << arch << ": " << kernels.size() << " kernel(s), "
     << launches.size() << " launch(es), arena " << arenaBytes << " bytes"
     << (programmaticLaunches ? ", programmatic launches (TG_PDL)" : "") << "\n";
  std::vector<std::string> names;
  if (!symbols.empty()) {
    os << "  symbols:";
    for (const PlanSymbol& s : symbols) {
      os << " " << s.name << " in [" << s.min << ", " << s.max << "]";
      names.push_back(s.name);
    }
    os << " (arena packed at each new size; its bytes above are at the sizes compiled for)\n";
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    const PlanBuffer& b = buffers[i];
    os << "  buffer " << i << ": " << bufferKindName(b.kind);
    if (b.kind == PlanBuffer::Kind::Input || b.kind == PlanBuffer::Kind::Alias ||
        b.kind == PlanBuffer::Kind::Output)
      os << " " << b.index;
    if (b.kind == PlanBuffer::Kind::Arena || (b.kind == PlanBuffer::Kind::Alias && b.offset))
      os << " +" << b.offset;
    if (b.symbolicBytes)
      os << ", " << b.symbolicBytes->str(names) << " bytes";
    else
      os << ", " << b.bytes << " bytes";
    if (!b.label.empty()) os << "  (" << b.label << ")";
    os << "\n";
  }
  auto launchText = [&](const PlanLaunch& l) {
    os << "launch " << kernels[l.kernel].name;
    if (!l.fusion.empty() && l.fusion != kernels[l.kernel].name) os << " (for " << l.fusion << ")";
    os << " grid(" << l.dims.grid[0] << ","
       << l.dims.grid[1] << "," << l.dims.grid[2] << ") block(" << l.dims.block[0] << ","
       << l.dims.block[1] << "," << l.dims.block[2] << ") smem " << l.dims.sharedBytes
       << " buffers [";
    for (size_t i = 0; i < l.buffers.size(); ++i) os << (i ? ", " : "") << l.buffers[i];
    os << "]";
    if (!l.symbolicGrid.empty()) {
      os << " grid from sizes (";
      for (size_t d = 0; d < l.symbolicGrid.size(); ++d) {
        const PlanExtent& x = l.symbolicGrid[d];
        os << (d ? ", " : "") << "ceil((" << x.work.str(names) << ") / " << x.per << ")";
        if (x.times != SizeExpr(1)) os << " * (" << x.times.str(names) << ")";
        if (x.cap < (int64_t(1) << 31) - 1) os << " <= " << x.cap << (x.balanced ? " balanced" : "");
      }
      os << ")";
    }
    if (!l.sizes.empty()) {
      os << " sizes [";
      for (size_t k = 0; k < l.sizes.size(); ++k) os << (k ? ", " : "") << l.sizes[k].str(names);
      os << "]";
    }
    for (const PlanTensorMap& m : l.tensorMaps) {
      os << " tma(arg " << m.arg << ": dims";
      for (uint32_t d = 0; d < m.spec.rank; ++d) {
        os << (d ? "x" : " ");
        if (d < m.symbolicDims.size() && !m.symbolicDims[d].isConstant())
          os << "(" << m.symbolicDims[d].str(names) << ")";
        else
          os << m.spec.dims[d];
      }
      os << ", box";
      for (uint32_t d = 0; d < m.spec.rank; ++d) os << (d ? "x" : " ") << m.spec.box[d];
      if (m.spec.byteOffset) os << ", at byte " << m.spec.byteOffset;
      os << (m.spec.swizzle128 ? ", swizzle 128B)" : ")");
    }
    os << "  " << kernels[l.kernel].summary << "\n";
  };
  for (const PlanLaunch& l : launches) {
    os << "  ";
    launchText(l);
    for (const PlanLaunch& v : l.variants) {
      os << "    variant where " << v.guard.str(names) << " <= " << v.upTo << (v.why.empty() ? "" : " (" + v.why + ")")
         << ": ";
      launchText(v);
    }
  }
  os << "  results: [";
  for (size_t i = 0; i < outputs.size(); ++i) os << (i ? ", " : "") << "buffer " << outputs[i];
  os << "]\n";
  return os.str();
}

}  // namespace tg::rt
