//===- OpCases.cpp - The (op, dtype) table --------------------------------===//
#include "OpCases.h"

#include <bit>
#include <climits>
#include <cmath>

namespace tgtest {

namespace {

using tg::DType;
using tg::Shape;
using tg::Tensor;
using Args = std::vector<Tensor>;
using Fn = std::function<Tensor(const Args&)>;

const std::vector<DType> kFloats = {DType::F32, DType::F16, DType::BF16};
const std::vector<DType> kNumeric = {DType::F32, DType::F16, DType::BF16, DType::I32};
const std::vector<DType> kAll = {DType::F32, DType::F16, DType::BF16, DType::I32, DType::Bool};

std::string dt(DType d) { return tg::dtype_name(d); }

std::string join(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ',';
    s += std::to_string(v[i]);
  }
  return s + "]";
}

/// The default domain of a data operand of dtype `d`.
Domain plain(DType d) {
  if (d == DType::I32) return Domain::Int;
  if (d == DType::Bool) return Domain::Bool;
  return Domain::Normal;
}

class Builder {
 public:
  std::vector<OpCase> cases;

  void add(std::string name, std::string op, DType dtype, std::vector<tg::TensorSpec> inputs,
           std::vector<Domain> domains, Fn fn, Accuracy accuracy = Accuracy::Exact,
           int64_t reduced = 0) {
    cases.push_back({std::move(name), std::move(op), dtype, std::move(inputs), std::move(domains),
                     std::move(fn), accuracy, reduced});
  }

  void elementwise() {
    const Shape s = {37, 129};  // 4773 elements: not a multiple of any vector width
    // Unary, numeric.
    struct U {
      const char* name;
      Tensor (*fn)(const Tensor&);
    };
    for (DType d : kNumeric)
      for (U u : {U{"neg", [](const Tensor& x) { return tg::neg(x); }},
                  U{"abs", [](const Tensor& x) { return tg::abs(x); }},
                  U{"relu", [](const Tensor& x) { return tg::relu(x); }}})
        add(std::string(u.name) + "/" + dt(d), u.name, d, {{s, d}}, {plain(d)},
            [f = u.fn](const Args& a) { return f(a[0]); });
    for (DType d : kNumeric)
      add("sign/" + dt(d), "sign", d, {{s, d}}, {d == DType::I32 ? Domain::Int : Domain::Halves},
          [](const Args& a) { return tg::sign(a[0]); });
    // clamp: tensor bounds (lo > hi in some elements: the result is hi there), and scalars.
    for (DType d : kNumeric) {
      add("clamp/" + dt(d), "clamp", d, {{s, d}, {s, d}, {{129}, d}}, {plain(d), plain(d), plain(d)},
          [](const Args& a) { return tg::clamp(a[0], a[1], a[2]); });
      const bool isInt = d == DType::I32;
      add("clamp_scalar/" + dt(d), "clamp", d, {{s, d}}, {plain(d)},
          [isInt](const Args& a) { return isInt ? tg::clamp(a[0], -500, 70000) : tg::clamp(a[0], -0.5, 1.25); });
    }
    // Unary, floats.
    struct FU {
      const char* name;
      Domain domain;
      Tensor (*fn)(const Tensor&);
    };
    for (DType d : kFloats)
      for (FU u : {FU{"exp", Domain::Normal, [](const Tensor& x) { return tg::exp(x); }},
                   FU{"log", Domain::Positive, [](const Tensor& x) { return tg::log(x); }},
                   FU{"tanh", Domain::Normal, [](const Tensor& x) { return tg::tanh(x); }},
                   FU{"sigmoid", Domain::Normal, [](const Tensor& x) { return tg::sigmoid(x); }},
                   FU{"gelu_erf", Domain::Normal,
                      [](const Tensor& x) { return tg::gelu(x, tg::Gelu::Erf); }},
                   FU{"gelu_tanh", Domain::Normal,
                      [](const Tensor& x) { return tg::gelu(x, tg::Gelu::Tanh); }},
                   FU{"sqrt", Domain::Positive, [](const Tensor& x) { return tg::sqrt(x); }},
                   FU{"rsqrt", Domain::Positive, [](const Tensor& x) { return tg::rsqrt(x); }},
                   FU{"sin", Domain::Angles, [](const Tensor& x) { return tg::sin(x); }},
                   FU{"cos", Domain::Angles, [](const Tensor& x) { return tg::cos(x); }},
                   FU{"erf", Domain::Normal, [](const Tensor& x) { return tg::erf(x); }},
                   FU{"exp2", Domain::Normal, [](const Tensor& x) { return tg::exp2(x); }},
                   FU{"log2", Domain::Positive, [](const Tensor& x) { return tg::log2(x); }},
                   FU{"silu", Domain::Normal, [](const Tensor& x) { return tg::silu(x); }}})
        add(std::string(u.name) + "/" + dt(d), u.name, d, {{s, d}}, {u.domain},
            [f = u.fn](const Args& a) { return f(a[0]); }, Accuracy::Elementwise);
    // Rounding: exact on both sides (halves included).
    for (DType d : kFloats)
      for (FU u : {FU{"floor", Domain::Halves, [](const Tensor& x) { return tg::floor(x); }},
                   FU{"ceil", Domain::Halves, [](const Tensor& x) { return tg::ceil(x); }},
                   FU{"round", Domain::Halves, [](const Tensor& x) { return tg::round(x); }},
                   FU{"round_wide", Domain::Wide, [](const Tensor& x) { return tg::round(x); }}})
        add(std::string(u.name) + "/" + dt(d), std::string(u.name).substr(0, std::string(u.name).find('_')), d,
            {{s, d}}, {u.domain}, [f = u.fn](const Args& a) { return f(a[0]); });

    // Binary, numeric (div: the divisor away from zero; i32 divisors are never zero).
    struct B {
      const char* name;
      Tensor (*fn)(const Tensor&, const Tensor&);
    };
    for (DType d : kNumeric) {
      const bool isFloat = d != DType::I32;
      for (B b : {B{"add", [](const Tensor& x, const Tensor& y) { return tg::add(x, y); }},
                  B{"sub", [](const Tensor& x, const Tensor& y) { return tg::sub(x, y); }},
                  B{"mul", [](const Tensor& x, const Tensor& y) { return tg::mul(x, y); }},
                  B{"div", [](const Tensor& x, const Tensor& y) { return tg::div(x, y); }},
                  B{"maximum", [](const Tensor& x, const Tensor& y) { return tg::maximum(x, y); }},
                  B{"minimum", [](const Tensor& x, const Tensor& y) { return tg::minimum(x, y); }}}) {
        std::string op = b.name;
        Domain second = op == "div" && isFloat ? Domain::AwayFromZero : plain(d);
        // add/sub/mul are IEEE on both sides; division uses div.full (2 ulp) under Auto.
        Accuracy acc = op == "div" && isFloat ? Accuracy::Elementwise : Accuracy::Exact;
        add(op + "/" + dt(d), op, d, {{s, d}, {s, d}}, {plain(d), second},
            [f = b.fn](const Args& a) { return f(a[0], a[1]); }, acc);
      }
      // Broadcasting (numpy rules: the frontend inserts tg.broadcast).
      add("add_broadcast/" + dt(d), "add", d, {{s, d}, {{129}, d}}, {plain(d), plain(d)},
          [](const Args& a) { return a[0] + a[1]; });
      add("mul_broadcast3d/" + dt(d), "mul", d, {{{5, 1, 7}, d}, {{3, 7}, d}}, {plain(d), plain(d)},
          [](const Args& a) { return a[0] * a[1]; });
      // Tensor-scalar.
      if (isFloat)
        add("mul_scalar/" + dt(d), "mul", d, {{s, d}}, {plain(d)},
            [](const Args& a) { return a[0] * 1.5; });
      else
        add("add_scalar/" + dt(d), "add", d, {{s, d}}, {plain(d)},
            [](const Args& a) { return 3.0 - a[0]; });
    }
    for (DType d : kFloats)
      add("pow/" + dt(d), "pow", d, {{s, d}, {s, d}}, {Domain::Positive, Domain::Half},
          [](const Args& a) { return tg::pow(a[0], a[1]); }, Accuracy::Elementwise);

    // Compare: every predicate, every dtype.
    struct C {
      const char* name;
      Tensor (*fn)(const Tensor&, const Tensor&);
    };
    for (DType d : kAll)
      for (C c : {C{"eq", [](const Tensor& x, const Tensor& y) { return tg::eq(x, y); }},
                  C{"ne", [](const Tensor& x, const Tensor& y) { return tg::ne(x, y); }},
                  C{"lt", [](const Tensor& x, const Tensor& y) { return tg::lt(x, y); }},
                  C{"le", [](const Tensor& x, const Tensor& y) { return tg::le(x, y); }},
                  C{"gt", [](const Tensor& x, const Tensor& y) { return tg::gt(x, y); }},
                  C{"ge", [](const Tensor& x, const Tensor& y) { return tg::ge(x, y); }}})
        // y = where(mask, x, y0): about a third of the elements compare equal.
        add(std::string("cmp_") + c.name + "/" + dt(d), "cmp", d, {{s, d}, {s, d}, {s, DType::Bool}},
            {plain(d), plain(d), Domain::Bool},
            [f = c.fn](const Args& a) { return f(a[0], tg::where(a[2], a[0], a[1])); });

    // Select, every dtype; and with broadcast condition and values.
    for (DType d : kAll)
      add("select/" + dt(d), "select", d, {{s, DType::Bool}, {s, d}, {s, d}},
          {Domain::Bool, plain(d), plain(d)},
          [](const Args& a) { return tg::where(a[0], a[1], a[2]); });
    add("select_broadcast/f32", "select", DType::F32,
        {{{129}, DType::Bool}, {s, DType::F32}, {{37, 1}, DType::F32}},
        {Domain::Bool, Domain::Normal, Domain::Normal},
        [](const Args& a) { return tg::where(a[0], a[1], a[2]); });

    // Cast between every pair.
    for (DType from : kAll)
      for (DType to : kAll) {
        Domain domain = from == DType::I32    ? Domain::Int
                        : from == DType::Bool ? Domain::Bool
                        : to == DType::I32    ? Domain::Wide
                                              : Domain::Normal;
        add("cast/" + dt(from) + "->" + dt(to), "cast", from, {{s, from}}, {domain},
            [to](const Args& a) { return tg::cast(a[0], to); });
      }
  }

  void layout() {
    for (DType d : kAll) {
      add("broadcast/" + dt(d), "broadcast", d, {{{5, 1}, d}}, {plain(d)},
          [](const Args& a) { return tg::broadcast_to(a[0], {3, 5, 7}); });
      add("transpose3d/" + dt(d), "transpose", d, {{{3, 5, 7}, d}}, {plain(d)},
          [](const Args& a) { return tg::transpose(a[0], std::vector<int64_t>{2, 0, 1}); });
      add("transpose2d/" + dt(d), "transpose", d, {{{37, 129}, d}}, {plain(d)},
          [](const Args& a) { return tg::transpose(a[0], 0, 1); });
      add("reshape/" + dt(d), "reshape", d, {{{6, 35}, d}}, {plain(d)},
          [](const Args& a) { return tg::reshape(a[0], {5, 42}); });
      // Slices: a strided window returned (a copy kernel), and slices read by an op (index maps).
      add("slice/" + dt(d), "slice", d, {{{6, 35}, d}}, {plain(d)},
          [](const Args& a) { return tg::slice(tg::slice(a[0], 0, 1, 5), 1, -30, 34, 3); });
      // concat: three operands (one a transpose, read through its map), the consumer fused;
      // rotate-half as rotary embeddings write it.
      add("concat/" + dt(d), "concat", d, {{{6, 5}, d}, {{6, 7}, d}, {{2, 6}, d}}, {plain(d), plain(d), plain(d)},
          [](const Args& a) { return tg::concat({a[0], a[1], tg::transpose(a[2], 0, 1)}, 1); });
      if (d != DType::Bool) {
        add("concat_rows_fused/" + dt(d), "concat", d, {{{3, 8}, d}, {{5, 8}, d}}, {plain(d), plain(d)},
            [](const Args& a) { return tg::maximum(tg::concat({a[0], tg::neg(a[1])}, 0), tg::slice(tg::concat({a[1], a[0]}), 0, 0)); });
        add("rotate_half/" + dt(d), "concat", d, {{{4, 3, 16}, d}}, {plain(d)}, [](const Args& a) {
          return tg::concat({-tg::slice(a[0], -1, 8), tg::slice(a[0], -1, 0, 8)}, -1) * a[0];
        });
      }
      if (d != DType::Bool)
        add("split_then_max/" + dt(d), "slice", d, {{{6, 36}, d}}, {plain(d)}, [](const Args& a) {
          std::vector<Tensor> p = tg::split(a[0], {12, 24}, 1);
          std::vector<Tensor> q = tg::chunk(p[1], 2, 1);
          return tg::maximum(tg::maximum(p[0], q[0]), tg::slice(q[1], 0, 0, 6, 1));
        });
      // A reshape feeding a kernel (an alias, then a read of the same bytes).
      if (d != DType::Bool)
        add("reshape_then_max/" + dt(d), "reshape", d, {{{6, 35}, d}}, {plain(d)},
            [](const Args& a) {
              return tg::maximum(tg::reshape(a[0], {5, 42}), tg::reshape(tg::neg(a[0]), {5, 42}));
            });
    }
  }

  void creation() {
    for (DType d : kNumeric) {
      // (The input only says on which device the positions are made.)
      add("iota/" + dt(d), "iota", d, {{{2}, d}}, {plain(d)},
          [d](const Args& a) { return tg::iota({37, 129}, 1, d, a[0].device()); });
      // Positions read through a broadcast and compared, as a causal mask is made.
      add("iota_mask/" + dt(d), "iota", d, {{{37, 129}, d}}, {plain(d)}, [d](const Args& a) {
        const tg::Device on = a[0].device();
        Tensor rows = tg::iota({37, 1}, 0, d, on), cols = tg::arange(129, d, on);
        return tg::where(cols <= rows, a[0], tg::iota({37, 129}, 0, d, on));
      });
    }
  }

  /// Indices read on the device (Domain::Index: within range; tests/unit/IndexingOpsTest.cpp
  /// and the GPU suite check indices out of range).
  void indexing() {
    const DType i32 = DType::I32;
    for (DType d : kAll) {
      add("gather/" + dt(d), "gather", d, {{{50, 6}, d}, {{7}, i32}}, {plain(d), Domain::Index},
          [](const Args& a) { return tg::embedding(a[0], a[1]); });
      add("gather_inner/" + dt(d), "gather", d, {{{4, 33, 3}, d}, {{2, 5}, i32}}, {plain(d), Domain::Index},
          [](const Args& a) { return tg::gather(a[0], 1, a[1]); });
      add("dynamic_slice/" + dt(d), "dynamic_slice", d, {{{5, 40}, d}, {{}, i32}}, {plain(d), Domain::Index},
          [](const Args& a) { return tg::dynamic_slice(a[0], 1, a[1], 9); });
      add("dynamic_update_slice/" + dt(d), "dynamic_update_slice", d,
          {{{8, 40, 3}, d}, {{3, 10, 3}, d}, {{1}, i32}}, {plain(d), plain(d), Domain::Index},
          [](const Args& a) { return tg::dynamic_update_slice(a[0], a[1], 1, a[2], {2, 0, 0}); });
      if (d == DType::Bool) continue;
      // Consumers fused with the indexed read; the read through a transposed table.
      add("gather_fused/" + dt(d), "gather", d, {{{6, 31}, d}, {{3, 4}, i32}}, {plain(d), Domain::Index},
          [](const Args& a) { return tg::neg(tg::gather(tg::transpose(a[0], 0, 1), 0, a[1])) * 2.0f; });
      add("dynamic_update_slice_fused/" + dt(d), "dynamic_update_slice", d,
          {{{4, 64}, d}, {{4, 2}, d}, {{}, i32}}, {plain(d), plain(d), Domain::Index}, [](const Args& a) {
            Tensor cache = tg::dynamic_update_slice(tg::neg(a[0]), a[1] * 3.0f, 1, a[2]);
            Tensor window = tg::dynamic_slice(cache, 1, a[2], 32);  // start <= 30 <= 64 - 32
            return tg::maximum(cache, tg::concat({window, -window}, 1));
          });
    }
  }

  void reductions() {
    const Shape s = {6, 35, 9};
    struct R {
      const char* name;
      Tensor (*fn)(const Tensor&, std::vector<int64_t>, bool);
      bool floatsOnly;
    };
    const std::vector<R> reducers = {
        {"reduce_sum", [](const Tensor& x, std::vector<int64_t> ax, bool k) { return tg::sum(x, ax, k); }, false},
        {"reduce_max", [](const Tensor& x, std::vector<int64_t> ax, bool k) { return tg::max(x, ax, k); }, false},
        {"reduce_mean", [](const Tensor& x, std::vector<int64_t> ax, bool k) { return tg::mean(x, ax, k); }, true},
        {"reduce_min", [](const Tensor& x, std::vector<int64_t> ax, bool k) { return tg::min(x, ax, k); }, false},
        {"reduce_prod", [](const Tensor& x, std::vector<int64_t> ax, bool k) { return tg::prod(x, ax, k); }, false},
    };
    struct Axes {
      std::vector<int64_t> axes;
      bool keep;
      int64_t count;  // elements per output
    };
    const std::vector<Axes> axesSets = {{{}, false, 6 * 35 * 9}, {{0}, false, 6},
                                        {{2}, false, 9},         {{0, 2}, false, 54},
                                        {{1}, true, 35},         {{-1, -2}, true, 315}};
    for (const R& r : reducers)
      for (DType d : kNumeric) {
        if (r.floatsOnly && d == DType::I32) continue;
        const std::string op = r.name;
        const bool extreme = op == "reduce_max" || op == "reduce_min";
        const bool product = op == "reduce_prod";
        const Accuracy acc = extreme || d == DType::I32 ? Accuracy::Exact : Accuracy::Reduction;
        const Domain domain = d == DType::I32 ? Domain::SmallInt : product ? Domain::NearOne : Domain::Normal;
        for (const Axes& ax : axesSets)
          add(op + join(ax.axes) + (ax.keep ? "k" : "") + "/" + dt(d), op, d, {{s, d}}, {domain},
              [f = r.fn, ax](const Args& a) { return f(a[0], ax.axes, ax.keep); }, acc, ax.count);
        // Few, long reductions: a row kernel of 5000; a split reduction kernel of 40000.
        add(op + "_long/" + dt(d), op, d, {{{3, 5000}, d}}, {domain},
            [f = r.fn](const Args& a) { return f(a[0], {1}, false); }, acc, 5000);
        if (!product)
          add(op + "_split/" + dt(d), op, d, {{{2, 40000}, d}}, {domain},
              [f = r.fn](const Args& a) { return f(a[0], {1}, false); }, acc, 40000);
      }
    // argmax / argmin: one axis each (a column kernel, a row kernel, a warp per output), kept
    // or not, the flattened form, a long row and a split one. bf16 and i32 inputs tie often:
    // the lowest index wins.
    struct A {
      const char* name;
      Tensor (*fn)(const Tensor&, int64_t, bool);
      Tensor (*flat)(const Tensor&);
    };
    for (A r : {A{"argmax", [](const Tensor& x, int64_t ax, bool k) { return tg::argmax(x, ax, k); },
                  [](const Tensor& x) { return tg::argmax(x); }},
                A{"argmin", [](const Tensor& x, int64_t ax, bool k) { return tg::argmin(x, ax, k); },
                  [](const Tensor& x) { return tg::argmin(x); }}})
      for (DType d : kNumeric) {
        const Domain domain = d == DType::I32 ? Domain::SmallInt : Domain::Normal;
        for (auto [axis, keep] : {std::pair<int64_t, bool>{0, false}, {2, false}, {1, true}, {-1, true}})
          add(std::string(r.name) + "[" + std::to_string(axis) + "]" + (keep ? "k" : "") + "/" + dt(d), r.name,
              d, {{s, d}}, {domain}, [f = r.fn, axis, keep](const Args& a) { return f(a[0], axis, keep); });
        add(std::string(r.name) + "_flat/" + dt(d), r.name, d, {{s, d}}, {domain},
            [f = r.flat](const Args& a) { return f(a[0]); });
        add(std::string(r.name) + "_long/" + dt(d), r.name, d, {{{3, 5000}, d}}, {domain},
            [f = r.fn](const Args& a) { return f(a[0], 1, false); });
        add(std::string(r.name) + "_split/" + dt(d), r.name, d, {{{2, 40000}, d}}, {domain},
            [f = r.fn](const Args& a) { return f(a[0], 1, false); });
      }
  }

  void composites() {
    for (DType d : kFloats) {
      add("softmax_last/" + dt(d), "softmax", d, {{{7, 33}, d}}, {Domain::Normal},
          [](const Args& a) { return tg::softmax(a[0], -1); }, Accuracy::Composite, 33);
      add("softmax_first/" + dt(d), "softmax", d, {{{7, 33}, d}}, {Domain::Normal},
          [](const Args& a) { return tg::softmax(a[0], 0); }, Accuracy::Composite, 7);
      add("softmax_long/" + dt(d), "softmax", d, {{{4, 3000}, d}}, {Domain::Normal},
          [](const Args& a) { return tg::softmax(a[0]); }, Accuracy::Composite, 3000);
      add("layer_norm_affine/" + dt(d), "layer_norm", d, {{{9, 65}, d}, {{65}, d}, {{65}, d}},
          {Domain::Normal, Domain::Normal, Domain::Normal},
          [](const Args& a) { return tg::layer_norm(a[0], a[1], a[2]); }, Accuracy::Composite, 65);
      add("layer_norm_plain/" + dt(d), "layer_norm", d, {{{3, 4, 129}, d}}, {Domain::Normal},
          [](const Args& a) { return tg::layer_norm(a[0], 1e-3); }, Accuracy::Composite, 129);
    }
  }

  void matmuls() {
    for (DType d : kFloats) {
      auto mm = [&](std::string name, std::vector<tg::TensorSpec> in, Fn fn, int64_t k) {
        add("matmul_" + name + "/" + dt(d), "matmul", d, std::move(in),
            {Domain::Normal, Domain::Normal}, std::move(fn), Accuracy::Matmul, k);
      };
      mm("plain", {{{17, 33}, d}, {{33, 19}, d}}, [](const Args& a) { return tg::matmul(a[0], a[1]); }, 33);
      mm("ta", {{{33, 17}, d}, {{33, 19}, d}},
         [](const Args& a) { return tg::matmul(tg::transpose(a[0], 0, 1), a[1]); }, 33);
      mm("tb", {{{17, 33}, d}, {{19, 33}, d}},
         [](const Args& a) { return tg::matmul(a[0], tg::transpose(a[1], -1, -2)); }, 33);
      mm("tab", {{{33, 17}, d}, {{19, 33}, d}},
         [](const Args& a) { return tg::matmul(tg::transpose(a[0], 0, 1), tg::transpose(a[1], 0, 1)); }, 33);
      mm("batched", {{{3, 17, 33}, d}, {{3, 33, 19}, d}},
         [](const Args& a) { return tg::matmul(a[0], a[1]); }, 33);
      mm("shared_b", {{{3, 17, 33}, d}, {{33, 19}, d}},
         [](const Args& a) { return tg::matmul(a[0], a[1]); }, 33);
      mm("shared_a", {{{17, 33}, d}, {{2, 33, 19}, d}},
         [](const Args& a) { return tg::matmul(a[0], a[1]); }, 33);
      mm("broadcast_batch", {{{2, 1, 8, 16}, d}, {{1, 3, 16, 8}, d}},
         [](const Args& a) { return tg::matmul(a[0], a[1]); }, 16);
      mm("batched_tb", {{{2, 9, 40}, d}, {{2, 11, 40}, d}},
         [](const Args& a) { return tg::matmul(a[0], tg::transpose(a[1], -1, -2)); }, 40);
      mm("tiles64", {{{700, 64}, d}, {{64, 1000}, d}},
         [](const Args& a) { return tg::matmul(a[0], a[1]); }, 64);
    }
  }
};

/// SplitMix64 (the same values with every standard library).
struct Rng {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

Tensor onCpu(const tg::TensorSpec& spec, Domain domain, uint64_t seed) {
  const Shape& shape = spec.shape;
  const int64_t n = tg::shape_numel(shape);
  Rng rng{seed * 0x2545f4914f6cdd1dull + 17};
  switch (domain) {
    case Domain::Int:
    case Domain::SmallInt: {
      const int64_t range = domain == Domain::Int ? 100000 : 1000;
      std::vector<int32_t> v(n);
      for (int64_t i = 0; i < n; ++i) {
        int64_t x = static_cast<int64_t>(rng.next() % static_cast<uint64_t>(2 * range)) - range;
        v[i] = static_cast<int32_t>(x >= 0 ? x + 1 : x);  // never zero
      }
      if (domain == Domain::Int) {
        // Extremes (wrapping arithmetic, saturation, rounding of i32 -> bf16/f16).
        const int32_t extremes[] = {INT_MIN, INT_MAX, 16777217, -16777217, 65519, -1, 1, 2147483584};
        for (size_t k = 0; k < std::size(extremes) && static_cast<int64_t>(3 * k) < n; ++k)
          v[(3 * k * 7919) % n] = extremes[k];
      }
      return tg::from_vector(v, shape, spec.dtype, tg::Device::CPU);
    }
    case Domain::Index: {
      std::vector<int32_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(rng.next() % 31);
      return tg::from_vector(v, shape, DType::I32, tg::Device::CPU);
    }
    case Domain::Bool: {
      std::vector<int32_t> v(n);
      for (int64_t i = 0; i < n; ++i) v[i] = static_cast<int32_t>(rng.next() % 3 == 0);
      return tg::from_vector(v, shape, DType::Bool, tg::Device::CPU);
    }
    default:
      break;
  }
  // Floats: randn in f32, shaped on the CPU, then converted once to the dtype.
  std::vector<float> v = tg::randn(shape, DType::F32, seed, tg::Device::CPU).to_vector();
  for (float& x : v) {
    switch (domain) {
      case Domain::Half: x *= 0.5f; break;
      case Domain::Positive: x = std::fabs(x) + 0.5f; break;
      case Domain::AwayFromZero: x = x < 0 ? x - 0.5f : x + 0.5f; break;
      case Domain::Wide: x = x * 1000.0f + 0.375f; break;
      case Domain::Angles: x *= 100.0f; break;
      case Domain::Halves: x = std::nearbyint(x * 8.0f) * 0.5f; break;  // -0 where x * 8 is in (-0.5, 0)
      case Domain::NearOne: x = (1.0f + x * 0.1f) * ((std::bit_cast<uint32_t>(x) >> 3) % 2 ? -1.0f : 1.0f); break;
      default: break;
    }
  }
  if (domain == Domain::Wide && n >= 8) {
    // Saturation of float -> i32 and values beyond bf16/f16 integers.
    const float extremes[] = {3.0e9f, -3.0e9f, 2147483520.0f, -2147483648.0f, 0.999f, -0.999f};
    for (size_t k = 0; k < std::size(extremes); ++k) v[(k * 7919 + 1) % n] = extremes[k];
  }
  if (spec.dtype == DType::I32 || spec.dtype == DType::Bool) {
    std::vector<int32_t> ints(v.size());
    for (size_t i = 0; i < v.size(); ++i) ints[i] = static_cast<int32_t>(std::lround(v[i] * 100));
    return tg::from_vector(ints, shape, spec.dtype, tg::Device::CPU);
  }
  return tg::from_vector(v, shape, spec.dtype, tg::Device::CPU);
}

}  // namespace

const std::vector<OpCase>& opCases() {
  static const std::vector<OpCase> cases = [] {
    Builder b;
    b.elementwise();
    b.layout();
    b.creation();
    b.indexing();
    b.reductions();
    b.composites();
    b.matmuls();
    return std::move(b.cases);
  }();
  return cases;
}

std::vector<Tensor> domainInputs(const std::vector<tg::TensorSpec>& specs,
                                 const std::vector<Domain>& domains, uint64_t seed,
                                 tg::Device device) {
  std::vector<Tensor> out;
  for (size_t i = 0; i < specs.size(); ++i) {
    Tensor t = onCpu(specs[i], domains.at(i), seed * 131 + i);
    out.push_back(device == tg::Device::CPU ? t : t.to(device));
  }
  return out;
}

std::vector<Tensor> caseInputs(const OpCase& c, uint64_t seed, tg::Device device) {
  return domainInputs(c.inputs, c.domains, seed, device);
}

}  // namespace tgtest
