//===- RandomProgramJit.cpp - Random programs as tg::jit functions --------===//
//
// tg::jit wants a lambda of fixed arity; a RandomProgram has its input and output counts at run
// time. These wrappers instantiate the arities the generators produce (1-8 inputs, 1-3
// outputs) and dispatch on the counts: traceIr, JitProgram and runJit (RandomGraph.h).
//
//===----------------------------------------------------------------------===//
#include "RandomGraph.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace tgtest {

namespace {

//===----------------------------------------------------------------------===//
// Fixed-arity wrappers for tg::jit
//===----------------------------------------------------------------------===//

template <size_t>
using TensorRef = const tg::Tensor&;
template <size_t>
using TensorVal = tg::Tensor;

template <size_t... I, size_t... O>
auto fixedArity(ProgramFn fn, std::index_sequence<I...>, std::index_sequence<O...>) {
  return [fn](TensorRef<I>... xs) {
    std::vector<tg::Tensor> out = fn(std::vector<tg::Tensor>{xs...});
    if (out.size() != sizeof...(O))
      throw std::logic_error("program returned " + std::to_string(out.size()) +
                             " results, expected " + std::to_string(sizeof...(O)));
    return std::tuple<TensorVal<O>...>{out[O]...};
  };
}

/// Calls `visit.template operator()<NI, NO>()` for runtime counts 1..8 and 1..3.
template <size_t NI, typename Visit>
decltype(auto) withOutputs(size_t numOutputs, Visit& visit) {
  switch (numOutputs) {
    case 1: return visit.template operator()<NI, 1>();
    case 2: return visit.template operator()<NI, 2>();
    case 3: return visit.template operator()<NI, 3>();
  }
  throw std::invalid_argument("1..3 outputs supported, got " + std::to_string(numOutputs));
}

template <typename Visit>
decltype(auto) withCounts(size_t numInputs, size_t numOutputs, Visit&& visit) {
  switch (numInputs) {
    case 1: return withOutputs<1>(numOutputs, visit);
    case 2: return withOutputs<2>(numOutputs, visit);
    case 3: return withOutputs<3>(numOutputs, visit);
    case 4: return withOutputs<4>(numOutputs, visit);
    case 5: return withOutputs<5>(numOutputs, visit);
    case 6: return withOutputs<6>(numOutputs, visit);
    case 7: return withOutputs<7>(numOutputs, visit);
    case 8: return withOutputs<8>(numOutputs, visit);
  }
  throw std::invalid_argument("1..8 inputs supported, got " + std::to_string(numInputs));
}

}  // namespace

std::string traceIr(const std::vector<tg::TensorSpec>& specs, const ProgramFn& fn,
                    size_t numOutputs, const tg::JitOptions& options) {
  return withCounts(specs.size(), numOutputs, [&]<size_t NI, size_t NO>() -> std::string {
    auto f = tg::jit(fixedArity(fn, std::make_index_sequence<NI>{}, std::make_index_sequence<NO>{}),
                     options);
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return f.trace_ir(specs[I]...);
    }(std::make_index_sequence<NI>{});
  });
}

JitProgram::JitProgram(ProgramFn fn, size_t numInputs, size_t numOutputs,
                       tg::JitOptions options) {
  withCounts(numInputs, numOutputs, [&]<size_t NI, size_t NO>() {
    using F = decltype(fixedArity(fn, std::make_index_sequence<NI>{}, std::make_index_sequence<NO>{}));
    auto f = std::make_shared<tg::JitFunction<F>>(tg::jit(
        fixedArity(fn, std::make_index_sequence<NI>{}, std::make_index_sequence<NO>{}), options));
    call_ = [f](const std::vector<tg::Tensor>& in) {
      if (in.size() != NI)
        throw std::invalid_argument("jit program: expected " + std::to_string(NI) +
                                    " inputs, got " + std::to_string(in.size()));
      auto results = [&]<size_t... I>(std::index_sequence<I...>) {
        return (*f)(in[I]...);
      }(std::make_index_sequence<NI>{});
      return std::apply([](auto&... r) { return std::vector<tg::Tensor>{r...}; }, results);
    };
    ir_ = [f] { return f->ir(); };
    report_ = [f] { return f->report(); };
  });
}

size_t JitProgram::kernels() const {
  size_t n = 0;
  for (const tg::JitReport::Graph& g : report_().graphs) n += g.kernels;
  return n;
}

std::vector<tg::Tensor> JitProgram::operator()(const std::vector<tg::Tensor>& inputs) const {
  return call_(inputs);
}

std::vector<tg::Tensor> runJit(const RandomProgram& program, const tg::JitOptions& options,
                               const std::vector<tg::Tensor>& inputs) {
  return JitProgram(program.fn, program.inputs.size(), program.numOutputs, options)(inputs);
}

}  // namespace tgtest
