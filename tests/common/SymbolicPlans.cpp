//===- SymbolicPlans.cpp - A hand-made plan compiled for a range of sizes ---===//
#include "SymbolicPlans.h"

namespace tgtest {

namespace {

const char* kScale = R"(
struct Args { const float* x; float* t; long long n; };
extern "C" __global__ void scale(const Args a) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += (long long)gridDim.x * blockDim.x)
    a.t[i] = 2.0f * a.x[i];
}
)";
const char* kAddRow = R"(
struct Args { const float* t; float* y; long long n; long long seq; };
extern "C" __global__ void add_row(const Args a) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < a.n) a.y[i] = a.t[i] + (float)(i / a.seq);
}
)";

}  // namespace

tg::rt::Plan symbolicChainPlan(int launches) {
  using tg::SizeExpr;
  using namespace tg::rt;
  const SizeExpr batch = SizeExpr::symbol(0), seq = SizeExpr::symbol(1), n = batch * seq;
  Plan p;
  p.name = "symbolic_chain";
  p.arch = "sm_90a";
  p.symbols = {{"batch", 1, 64}, {"seq", 1, 5000}};
  p.kernels = {{"scale", kScale, "t = 2x"}, {"add_row", kAddRow, "y = t + i / seq"}};
  PlanBuffer x;
  x.kind = PlanBuffer::Kind::Input;
  x.index = 0;
  x.symbolicBytes = n * 4;
  p.buffers.push_back(x);
  for (int l = 0; l < launches; ++l) {
    PlanBuffer b;
    b.kind = l + 1 == launches ? PlanBuffer::Kind::Output : PlanBuffer::Kind::Arena;
    b.symbolicBytes = n * 4;
    b.madeAt = l;
    b.lastReadAt = l + 1 == launches ? l : l + 1;
    p.buffers.push_back(b);
    PlanLaunch launch;
    launch.kernel = l == 0 ? 0 : 1;
    launch.buffers = {l, l + 1};
    launch.dims.block[0] = l == 0 ? 128 : 256;
    launch.symbolicGrid = {l == 0 ? PlanExtent{n, 128, 64} : PlanExtent{n, 256}};
    launch.sizes = l == 0 ? std::vector<SizeExpr>{n} : std::vector<SizeExpr>{n, seq};
    p.launches.push_back(launch);
  }
  p.outputs = {launches};
  p.outputDTypes = {tg::DType::F32};
  p.symbolicOutputShapes = {{batch, seq}};
  return p;
}

std::vector<float> symbolicChainReference(const std::vector<float>& x, int launches, int64_t seq) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float v = 2.0f * x[i];
    for (int l = 1; l < launches; ++l) v = v + static_cast<float>(static_cast<int64_t>(i) / seq);
    y[i] = v;
  }
  return y;
}

}  // namespace tgtest
