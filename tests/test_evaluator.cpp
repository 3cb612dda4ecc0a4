// The evaluator against naive per-element references, and the block-graph semantics of docs/design.md §2 on
// small hand-checked examples.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <random>

#include "eval/block_emulator.h"
#include "eval/field_matmul_avx512.h"
#include "test_util.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/real_arith.h"
#include "ugs/eval/verify.h"
#include "ugs/field/field.h"

namespace ugs {
namespace {

using nlohmann::json;

// ---- naive references: one output element at a time, indices spelled out ----

Index4 coords(int64_t e, const Shape& s) {
  Index4 c{};
  for (int i = 3; i >= 0; --i) {
    c[i] = e % s.dim4(i);
    e /= s.dim4(i);
  }
  return c;
}

int64_t offset(const Index4& c, const Shape& s) {
  int64_t o = 0;
  for (int i = 0; i < 4; ++i) o = o * s.dim4(i) + (s.dim4(i) == 1 ? 0 : c[i]);
  return o;
}

template <class A>
Tensor<typename A::Value> naive(const A& ar, const Op& op, const Tensor<typename A::Value>& a,
                                const Tensor<typename A::Value>* b, const Shape& out_shape) {
  using V = typename A::Value;
  Tensor<V> out(out_shape);
  uint64_t zeros = 0;
  for (int64_t e = 0; e < out.numel(); ++e) {
    const Index4 c = coords(e, out_shape);
    V v = ar.zero();
    switch (op.kind) {
      case OpKind::Matmul:
        for (int64_t k = 0; k < a.shape.dim4(3); ++k) {
          Index4 ca = c, cb = c;
          ca[3] = k;
          cb[2] = k;
          v = ar.add(v, ar.mul(a.data[offset(ca, a.shape)], b->data[offset(cb, b->shape)]));
        }
        break;
      case OpKind::Add: v = ar.add(a.data[offset(c, a.shape)], b->data[offset(c, b->shape)]); break;
      case OpKind::Mul: v = ar.mul(a.data[offset(c, a.shape)], b->data[offset(c, b->shape)]); break;
      case OpKind::Div: v = ar.div(a.data[offset(c, a.shape)], b->data[offset(c, b->shape)], zeros); break;
      case OpKind::Exp: v = ar.exp(a.data[e]); break;
      case OpKind::Sqrt: v = ar.sqrt(a.data[e]); break;
      case OpKind::Square: v = ar.mul(a.data[e], a.data[e]); break;
      case OpKind::Silu: v = ar.silu(a.data[e]); break;
      case OpKind::ReduceSum: {
        const int d = a.shape.to4(op.dim);
        for (int64_t t = 0; t < a.shape.dim4(d); ++t) {
          Index4 ca = c;
          ca[d] = t;
          v = ar.add(v, a.data[offset(ca, a.shape)]);
        }
        break;
      }
      case OpKind::RmsNorm: {
        V ss = ar.zero();
        const int64_t n = a.shape.dim4(3);
        for (int64_t t = 0; t < n; ++t) {
          Index4 ca = c;
          ca[3] = t;
          ss = ar.add(ss, ar.mul(a.data[offset(ca, a.shape)], a.data[offset(ca, a.shape)]));
        }
        v = ar.div(a.data[e], ar.sqrt(ar.div(ss, ar.from_count(n), zeros)), zeros);
        break;
      }
      default: ADD_FAILURE() << "no naive reference for " << name_of(op.kind);
    }
    out.data[e] = v;
  }
  return out;
}

struct OpCase {
  Op op;
  std::vector<Shape> in;
};

Op mk(OpKind k, int dim = 0) {
  Op o;
  o.kind = k;
  o.in = {0, arity(k) == 2 ? 1 : -1};
  o.dim = static_cast<int8_t>(dim);
  return o;
}

std::vector<OpCase> op_cases() {
  auto S = [](std::initializer_list<int32_t> d) { return Shape::of(d); };
  return {
      {mk(OpKind::Matmul), {S({3, 5}), S({5, 70})}},  // more columns than one accumulator chunk
      {mk(OpKind::Matmul), {S({2, 3, 4, 5}), S({2, 3, 5, 2})}},
      {mk(OpKind::Matmul), {S({1, 1}), S({1, 1})}},
      // Row blocks of 4 that a batch boundary cuts (batches of 5 and of 7 rows), partial column
      // chunks, both serial and large enough to run on a team of threads.
      {mk(OpKind::Matmul), {S({3, 5, 33}), S({3, 33, 70})}},
      {mk(OpKind::Matmul), {S({2, 7, 9}), S({2, 9, 65})}},
      {mk(OpKind::Matmul), {S({6, 64}), S({64, 130})}},
      {mk(OpKind::Add), {S({4, 1, 3}), S({1, 5, 3})}},
      {mk(OpKind::Mul), {S({2, 7}), S({2, 1})}},
      {mk(OpKind::Div), {S({2, 3, 7}), S({2, 3, 1})}},
      {mk(OpKind::Div), {S({1, 6}), S({4, 6})}},
      {mk(OpKind::Exp), {S({3, 4})}},
      {mk(OpKind::Sqrt), {S({5})}},
      {mk(OpKind::Square), {S({2, 2, 2, 2})}},
      {mk(OpKind::Silu), {S({1})}},
      {mk(OpKind::ReduceSum, 0), {S({3, 4, 5})}},
      {mk(OpKind::ReduceSum, 1), {S({3, 4, 5})}},
      {mk(OpKind::ReduceSum, 2), {S({3, 4, 5})}},
      {mk(OpKind::RmsNorm), {S({3, 9})}},
      {mk(OpKind::RmsNorm), {S({2, 2, 1})}},
  };
}

// A kernel graph of one op on fresh inputs.
KernelGraph one_op_graph(const OpCase& c) {
  KernelGraph g;
  for (const Shape& s : c.in) EXPECT_EQ(g.add_input(s), Verdict::Ok);
  EXPECT_EQ(g.add_op(c.op), Verdict::Ok);
  const int32_t out = g.num_tensors() - 1;
  g.set_outputs(std::span(&out, 1));
  return g;
}

template <class A>
void check_against_naive(const A& ar) {
  for (const OpCase& c : op_cases()) {
    SCOPED_TRACE(std::string(name_of(c.op.kind)) + " on " + to_string(c.in[0]));
    const KernelGraph g = one_op_graph(c);
    const auto in = make_inputs<A>(g, 42);
    const auto got = evaluate(ar, g, std::span(in));
    const auto want = naive(ar, c.op, in[0], in.size() > 1 ? &in[1] : nullptr, g.shape(g.outputs[0]));
    ASSERT_EQ(got[0].shape, want.shape);
    for (int64_t e = 0; e < want.numel(); ++e) {
      if constexpr (std::is_same_v<typename A::Value, double>) {
        if (std::isnan(want.data[e])) {
          ASSERT_TRUE(std::isnan(got[0].data[e])) << "element " << e;  // sqrt of a negative input
        } else {
          ASSERT_NEAR(got[0].data[e], want.data[e], 1e-12 * (1 + std::abs(want.data[e]))) << "element " << e;
        }
      } else {
        ASSERT_EQ(got[0].data[e], want.data[e]) << "element " << e;
      }
    }
  }
}

TEST(Evaluator, KernelOpsMatchNaiveInBothFields) {
  WideArith w;
  w.omega = WideArith::draw_omega(3);
  check_against_naive(w);
  MirageArith m;
  m.omega = MirageArith::draw_omega(3);
  check_against_naive(m);
}

TEST(Evaluator, KernelOpsMatchNaiveInFloat64) { check_against_naive(RealArith{}); }

// ---- block graphs ----

KernelGraph graph(const json& j) { return mugraph_from_json(j, "test", GraphRules{}); }

// A program with one matmul, and block graphs computing it with every tiling below.
TEST(BlockEmulation, MatmulUnderManyTilingsEqualsTheKernel) {
  KernelGraph p;
  p.add_input(Shape::of({1, 8, 12}));
  p.add_input(Shape::of({1, 12, 16}));
  p.add_op(mk(OpKind::Matmul));
  const int32_t out = 2;
  p.set_outputs(std::span(&out, 1));
  struct Tiling {
    std::array<int, 3> grid;
    int loop;
    json imap_a, imap_b, omap;
  };
  const std::vector<Tiling> tilings = {
      {{1, 1, 1}, 1, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}},
      {{1, 1, 1}, 3, {-1, -1, -1}, {-1, -1, -1}, {-1, -1, -1}},
      {{4, 1, 1}, 1, {-1, -1, -1}, {2, -1, -1}, {2, -1, -1}},  // columns across x
      {{2, 1, 1}, 4, {1, -1, -1}, {-1, -1, -1}, {1, -1, -1}},  // rows across x, k in the loop
      {{2, 4, 1}, 2, {1, -1, -1}, {-1, 2, -1}, {1, 2, -1}},    // 2-D grid
      {{1, 2, 8}, 6, {-1, -1, 1}, {-1, 2, -1}, {-1, 2, 1}},    // y and z
  };
  for (const Tiling& t : tilings) {
    SCOPED_TRACE(json(t.grid).dump() + " loop " + std::to_string(t.loop));
    const int fa = t.loop > 1 ? 2 : -1, fb = t.loop > 1 ? 1 : -1;
    const json j = {{"inputs", {{1, 8, 12}, {1, 12, 16}}},
                    {"kernels",
                     {{{"op", "block"}, {"grid", t.grid}, {"loop", t.loop},
                       {"in", {{{"t", 0}, {"imap", t.imap_a}, {"fmap", fa}}, {{"t", 1}, {"imap", t.imap_b}, {"fmap", fb}}}},
                       {"ops", {{{"op", "matmul"}, {"in", {0, 1}}}, {{"op", "accum_sum"}, {"in", {2}}}}},
                       {"out", {{{"t", 3}, {"omap", t.omap}}}}}}},
                    {"outputs", {2}}};
    const KernelGraph g = graph(j);
    for (FieldKind f : {FieldKind::Wide, FieldKind::Mirage})
      for (uint64_t seed : {1, 2}) EXPECT_TRUE(field_test(f, p, g, seed));
    EXPECT_LT(float_rel_error(p, g, 5), 1e-12);
  }
}

std::vector<double> run_real(const KernelGraph& g, const std::vector<Tensor<double>>& in) {
  return evaluate(RealArith{}, g, std::span(in))[0].data;
}

Tensor<double> iota_tensor(const Shape& s) {
  Tensor<double> t(s);
  for (int64_t e = 0; e < t.numel(); ++e) t.data[e] = static_cast<double>(e);
  return t;
}

json single_block(json inputs, json grid, int loop, json in, json ops, json out) {
  return {{"inputs", inputs},
          {"kernels", {{{"op", "block"}, {"grid", grid}, {"loop", loop}, {"in", in}, {"ops", ops}, {"out", out}}}},
          {"outputs", {static_cast<int>(inputs.size())}}};
}

// Blocks in lockstep (block_group_size): rmsnorm_linear's μGraph where W's rows are 8 KiB apart and
// each block loads 8 of its columns, so groups of 8 blocks run together over the loop. Exact in the
// field, on one thread and on two: each block reads its own tiles and keeps its own accumulators.
TEST(BlockEmulation, BlocksInLockstepComputeWhatBlocksAloneDo) {
  KernelGraph p;
  p.add_input(Shape::of({2, 64}));
  p.add_input(Shape::of({64, 1024}));
  Op norm = mk(OpKind::RmsNorm), matmul = mk(OpKind::Matmul);
  matmul.in = {2, 1};
  p.add_op(norm);
  p.add_op(matmul);
  const int32_t out = 3;
  p.set_outputs(std::span(&out, 1));
  for (int loop : {4, 16}) {
    SCOPED_TRACE("loop " + std::to_string(loop));
    const KernelGraph g = graph(single_block(
        {{2, 64}, {64, 1024}}, {128, 1, 1}, loop,
        {{{"t", 0}, {"imap", {-1, -1, -1}}, {"fmap", 1}}, {{"t", 1}, {"imap", {1, -1, -1}}, {"fmap", 0}}},
        {{{"op", "accum_rms_lastdim"}, {"in", {0}}}, {{"op", "matmul"}, {"in", {0, 1}}},
         {{"op", "accum_sum"}, {"in", {3}}}, {{"op", "div"}, {"in", {4, 2}}}},
        {{{"t", 5}, {"omap", {1, -1, -1}}}}));
    const auto in = make_inputs<WideArith>(g, 3);
    std::vector<const Tensor<FieldPair>*> ins = {&in[0], &in[1]};
    EXPECT_EQ(eval::block_group_size(g.blocks[0], std::span<const Tensor<FieldPair>* const>(ins), 0, 2), 8);
    const auto want = evaluate(WideArith{}, p, std::span(in));
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      EXPECT_EQ(evaluate(WideArith{}, g, std::span(in))[0].data, want[0].data) << threads << " threads";
    }
    EXPECT_LT(float_rel_error(p, g, 5), 1e-12);
  }
}

TEST(BlockEmulation, ReduceSumToAddsConsecutiveChunks) {
  const KernelGraph g = graph(single_block({{1, 6}}, {1, 1, 1}, 1, {{{"t", 0}, {"imap", {-1, -1, -1}}}},
                                           {{{"op", "reduce_sum_to"}, {"in", {0}}, {"dim", 1}, {"to", 2}},
                                            {{"op", "accum_sum"}, {"in", {1}}}},
                                           {{{"t", 2}, {"omap", {-1, -1, -1}}}}));
  EXPECT_EQ(run_real(g, {iota_tensor(Shape::of({1, 6}))}), (std::vector<double>{0 + 2 + 4, 1 + 3 + 5}));
}

TEST(BlockEmulation, AccumulatorFoldsAcrossIterationsAndTheLastDim) {
  // x = 0..7 in two iterations of [1, 4]; each folded to 2, then summed over the iterations.
  const KernelGraph g = graph(single_block({{1, 8}}, {1, 1, 1}, 2, {{{"t", 0}, {"imap", {-1, -1, -1}}, {"fmap", 1}}},
                                           {{{"op", "accum_sum_lastdim_to"}, {"in", {0}}, {"to", 2}}},
                                           {{{"t", 1}, {"omap", {-1, -1, -1}}}}));
  EXPECT_EQ(run_real(g, {iota_tensor(Shape::of({1, 8}))}), (std::vector<double>{0 + 2 + 4 + 6, 1 + 3 + 5 + 7}));
  const KernelGraph r = graph(single_block({{1, 8}}, {1, 1, 1}, 2, {{{"t", 0}, {"imap", {-1, -1, -1}}, {"fmap", 1}}},
                                           {{{"op", "accum_rms_lastdim"}, {"in", {0}}}},
                                           {{{"t", 1}, {"omap", {-1, -1, -1}}}}));
  EXPECT_DOUBLE_EQ(run_real(r, {iota_tensor(Shape::of({1, 8}))})[0], std::sqrt(140.0 / 8));
}

TEST(BlockEmulation, SaversPlaceTilesByOmap) {
  const Shape xs = Shape::of({4, 6});
  const json in = {{{"t", 0}, {"imap", {0, 1, -1}}}};
  const json ops = {{{"op", "accum_sum"}, {"in", {0}}}};
  const KernelGraph same = graph(single_block({{4, 6}}, {2, 3, 1}, 1, in, ops, {{{"t", 1}, {"omap", {0, 1, -1}}}}));
  EXPECT_EQ(run_real(same, {iota_tensor(xs)}), iota_tensor(xs).data);
  // Block (bx, by) loads rows 2bx.., cols 2by..; with omap swapped it saves at rows 2by.., cols 2bx...
  const KernelGraph swapped = graph(single_block({{4, 6}}, {2, 3, 1}, 1, in, ops, {{{"t", 1}, {"omap", {1, 0, -1}}}}));
  ASSERT_EQ(swapped.shape(1), Shape::of({6, 4}));
  const auto got = run_real(swapped, {iota_tensor(xs)});
  for (int bx = 0; bx < 2; ++bx)
    for (int by = 0; by < 3; ++by)
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
          EXPECT_EQ(got[(2 * by + i) * 4 + 2 * bx + j], (2 * bx + i) * 6 + 2 * by + j);
}

TEST(BlockEmulation, ReplicatedInputsAndSameTileEveryIteration) {
  // φ along x: both blocks load all of X; fmap over 2 iterations sums the halves; saved stacked.
  const KernelGraph g = graph(single_block({{2, 4}}, {2, 1, 1}, 2, {{{"t", 0}, {"imap", {-1, -1, -1}}, {"fmap", 1}}},
                                           {{{"op", "accum_sum"}, {"in", {0}}}}, {{{"t", 1}, {"omap", {0, -1, -1}}}}));
  const std::vector<double> half = {0 + 2, 1 + 3, 4 + 6, 5 + 7};
  std::vector<double> want = half;
  want.insert(want.end(), half.begin(), half.end());
  EXPECT_EQ(run_real(g, {iota_tensor(Shape::of({2, 4}))}), want);
  // fmap φ with a loop: the same tile every iteration, so the sum is F times it.
  const KernelGraph f = graph(single_block({{2, 4}}, {1, 1, 1}, 3, {{{"t", 0}, {"imap", {-1, -1, -1}}}},
                                           {{{"op", "accum_sum"}, {"in", {0}}}}, {{{"t", 1}, {"omap", {-1, -1, -1}}}}));
  const auto tripled = run_real(f, {iota_tensor(Shape::of({2, 4}))});
  for (int e = 0; e < 8; ++e) EXPECT_EQ(tripled[e], 3.0 * e);
}

// A loaded tile is read in place in its input: a box whose strides are the input's (rows and columns
// split across blocks or iterations, a broadcast divisor, a 3-D box). Each op family reading one gives
// what the kernel op gives.
TEST(BlockEmulation, OpsReadTilesInPlaceAsTheKernelOpDoes) {
  // Arrays built as std::vector: a one-element braced list is an array to one compiler and its
  // element to another.
  using Dims = std::vector<int>;
  const Dims rows_cols = {0, 1, -1}, rows = {0, -1, -1};
  auto load = [](int t, const Dims& imap, int fmap) { return json{{"t", t}, {"imap", imap}, {"fmap", fmap}}; };
  auto op = [](const char* name, const Dims& in) { return json{{"op", name}, {"in", in}}; };
  struct Case {
    std::string what;
    std::vector<Dims> inputs;
    json kernel_op;
    Dims grid;
    int loop;
    std::vector<json> loads, ops;
    Dims omap;
  };
  std::vector<Case> cases;
  for (const char* unary : {"exp", "square", "silu"})
    cases.push_back({unary, {{4, 8}}, op(unary, {0}), {2, 2, 1}, 1, {load(0, rows_cols, -1)},
                     {op(unary, {0}), op("accum_sum", {1})}, rows_cols});
  cases.push_back({"mul", {{4, 8}, {4, 8}}, op("mul", {0, 1}), {2, 2, 1}, 1,
                   {load(0, rows_cols, -1), load(1, rows_cols, -1)}, {op("mul", {0, 1}), op("accum_sum", {2})},
                   rows_cols});
  cases.push_back({"div by a broadcast row", {{4, 8}, {4, 1}}, op("div", {0, 1}), {2, 2, 1}, 1,
                   {load(0, rows_cols, -1), load(1, rows, -1)}, {op("div", {0, 1}), op("accum_sum", {2})},
                   rows_cols});
  json reduce = op("reduce_sum", {0});
  reduce["dim"] = 1;
  cases.push_back({"reduce_sum over iterations", {{4, 8}}, reduce, {2, 1, 1}, 2, {load(0, rows, 1)},
                   {reduce, op("accum_sum", {1})}, rows});
  cases.push_back({"rms_norm of a 3-D box", {{2, 4, 8}}, op("rms_norm", {0}), {2, 1, 1}, 1,
                   {load(0, {1, -1, -1}, -1)}, {op("rms_norm", {0}), op("accum_sum", {1})}, {1, -1, -1}});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    const int first_out = static_cast<int>(c.inputs.size());
    const std::vector<int> outputs = {first_out};
    json program = {{"inputs", c.inputs}, {"outputs", outputs}};
    program["kernels"] = std::vector<json>{c.kernel_op};
    json block = {{"op", "block"}, {"grid", c.grid}, {"loop", c.loop}, {"in", c.loads}, {"ops", c.ops}};
    const int saved = first_out + static_cast<int>(c.ops.size()) - 1;
    block["out"] = std::vector<json>{json{{"t", saved}, {"omap", c.omap}}};
    json tiled = {{"inputs", c.inputs}, {"outputs", outputs}};
    tiled["kernels"] = std::vector<json>{block};
    const KernelGraph want = graph(program), got = graph(tiled);
    for (FieldKind f : {FieldKind::Wide, FieldKind::Mirage}) EXPECT_TRUE(field_test(f, want, got, 3));
    EXPECT_LT(float_rel_error(want, got, 5), 1e-12);
  }
}

TEST(Evaluator, CountsZeroDivisors) {
  KernelGraph g;
  g.add_input(Shape::of({2, 3}));
  g.add_input(Shape::of({2, 3}));
  g.add_op(mk(OpKind::Div));
  const int32_t out = 2;
  g.set_outputs(std::span(&out, 1));
  std::vector<Tensor<FieldPair>> in = make_inputs<WideArith>(g, 1);
  in[1].data[0] = {0, 5};
  in[1].data[4] = {0, 0};
  EvalStats st;
  const auto r = evaluate(WideArith{}, g, std::span(in), &st);
  EXPECT_EQ(st.zero_divisors, 3u);
  EXPECT_EQ(r[0].data[4], (FieldPair{0, 0}));
}

TEST(Evaluator, ResultsDoNotDependOnTheThreadCount) {
  for (const char* name : test::kReferences) {
    SCOPED_TRACE(name);
    const KernelGraph g = test::reference(name);
    WideArith ar;
    ar.omega = WideArith::draw_omega(1);
    const auto in = make_inputs<WideArith>(g, 9);
    omp_set_num_threads(1);
    const auto one = evaluate(ar, g, std::span(in));
    omp_set_num_threads(2);
    const auto two = evaluate(ar, g, std::span(in));
    EXPECT_EQ(one[0].data, two[0].data);
  }
}

// The field matmul with AVX-512 against the portable loop, bit for bit: kernel matmuls of every row
// count a row block takes and columns that end mid-vector, and block graphs whose tiles of b are read
// in place (row stride wider than the tile), 8 to 96 columns wide, under 2 to 13 rows of a.
TEST(Evaluator, Avx512MatmulGivesThePortableLoopsBits) {
  if (!eval::field_matmul_avx512_available())
    GTEST_SKIP() << "this CPU has no AVX-512F: the portable loop is the only one";
  struct Restore {
    ~Restore() { eval::choose_field_matmul_by_timing(); }
  } restore;
  std::vector<KernelGraph> graphs;
  for (int32_t rows : {1, 2, 3, 4, 5, 7})
    for (int32_t k : {1, 2, 3, 33})
      for (int32_t n : {1, 7, 9, 31, 64, 100}) {
        graphs.push_back({});
        KernelGraph& g = graphs.back();
        g.add_input(Shape::of({rows, k}));
        g.add_input(Shape::of({k, n}));
        g.add_op(mk(OpKind::Matmul));
        const int32_t out = 2;
        g.set_outputs(std::span(&out, 1));
      }
  for (int32_t rows : {2, 3, 6, 13})  // past 4 rows, b's tile is copied and a's rows split in blocks
    for (int grid : {12, 4, 1})
      for (int loop : {1, 4, 5}) {
        const int across = grid > 1 ? 1 : -1;  // b's columns over the grid
        graphs.push_back(graph(single_block({{rows, 60}, {60, 96}}, {grid, 1, 1}, loop,
                                            {{{"t", 0}, {"imap", {-1, -1, -1}}, {"fmap", loop > 1 ? 1 : -1}},
                                             {{"t", 1}, {"imap", {across, -1, -1}}, {"fmap", loop > 1 ? 0 : -1}}},
                                            {{{"op", "matmul"}, {"in", {0, 1}}}, {{"op", "accum_sum"}, {"in", {2}}}},
                                            {{{"t", 3}, {"omap", {across, -1, -1}}}})));
      }
  auto check = [&](auto ar) {
    for (const KernelGraph& g : graphs) {
      SCOPED_TRACE(to_string(g.shape(0)) + " x " + to_string(g.shape(1)) + (g.blocks.empty() ? "" : " in blocks"));
      const auto in = make_inputs<decltype(ar)>(g, 11);
      eval::set_field_matmul_avx512(true);
      const auto avx512 = evaluate(ar, g, std::span(in));
      eval::set_field_matmul_avx512(false);
      const auto portable = evaluate(ar, g, std::span(in));
      ASSERT_EQ(avx512[0].data, portable[0].data);
    }
  };
  check(WideArith{});
  check(MirageArith{});
}

// The timed choice of the field matmul (field_matmul_choice.cpp): a class's first calls alternate
// between the two and are reported; once they are in, every call takes the one reported faster.
// Its own process (ctest runs each case apart), so no evaluation here has chosen before.
TEST(Evaluator, FieldMatmulTakesTheFasterOfItsClassOnceTimed) {
  if (!eval::field_matmul_avx512_available()) GTEST_SKIP() << "this CPU has no AVX-512F: nothing to choose";
  int timed = 0, avx512 = 0;
  for (eval::FieldMatmulPick pick; (pick = eval::pick_field_matmul(16, 1 << 16)).timed_class >= 0; ++timed) {
    avx512 += pick.avx512;
    eval::field_matmul_timed(pick, pick.avx512 ? 90 : 100);  // the kernel faster
  }
  EXPECT_EQ(timed, 4096);
  EXPECT_EQ(avx512, 2048);
  for (int call = 0; call < 8; ++call) {
    const eval::FieldMatmulPick pick = eval::pick_field_matmul(9, 1 << 20);  // the same class
    EXPECT_TRUE(pick.avx512);
    EXPECT_LT(pick.timed_class, 0);
  }
  EXPECT_GE(eval::pick_field_matmul(64, 1 << 16).timed_class, 0);  // wide tiles: another class, not yet timed
  eval::set_field_matmul_avx512(false);
  EXPECT_FALSE(eval::pick_field_matmul(16, 1 << 16).avx512);
  eval::choose_field_matmul_by_timing();
  EXPECT_TRUE(eval::pick_field_matmul(16, 1 << 16).avx512);
  EXPECT_NE(eval::field_matmul_choices().find("narrow strided tiles: avx512"), std::string::npos)
      << eval::field_matmul_choices();
}

TEST(Evaluator, InputsAreSeededAndIndependentPerSeed) {
  const KernelGraph g = test::reference("lora_small");
  const auto a = make_inputs<WideArith>(g, 5), b = make_inputs<WideArith>(g, 5), c = make_inputs<WideArith>(g, 6);
  for (int i = 0; i < g.num_inputs; ++i) {
    EXPECT_EQ(a[i].data, b[i].data);
    EXPECT_NE(a[i].data, c[i].data);
  }
  EXPECT_NE(a[0].data[0], a[1].data[0]);  // inputs draw from different streams
}

}  // namespace
}  // namespace ugs
