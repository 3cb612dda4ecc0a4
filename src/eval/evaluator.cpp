// Kernel-level evaluation: predefined ops run in parallel over output rows, block graphs go to the
// block emulator. Instantiated for the three arithmetics.
#include "ugs/eval/evaluator.h"

#include <omp.h>

#include <algorithm>

#include "block_emulator.h"
#include "tensor_ops.h"
#include "ugs/eval/draws.h"
#include "ugs/eval/real_arith.h"
#include "ugs/field/field.h"
#include "ugs/util/hash.h"

namespace ugs {
namespace {

// A matmul runs as tiles of rows × columns (tensor_ops.h), so that a matmul with fewer rows than
// threads (a decode step: 2 × 4096 · 4096 × 6144) still keeps every thread busy.
template <class A>
void matmul_by_tiles(const A& ar, const TensorView<typename A::Value>& a, const TensorView<typename A::Value>& b,
                     Tensor<typename A::Value>& out, bool parallel) {
  const int64_t rows = eval::rows_of(out.shape), n = out.shape.dim4(3);
  const int64_t row_blocks = (rows + eval::kMatmulRowBlock - 1) / eval::kMatmulRowBlock;
  const int64_t per_block = (n + eval::kMatmulColumnChunk - 1) / eval::kMatmulColumnChunk;
#pragma omp parallel for schedule(static) if (parallel)
  for (int64_t t = 0; t < row_blocks * per_block; ++t) {
    const int64_t r0 = (t / per_block) * eval::kMatmulRowBlock, j0 = (t % per_block) * eval::kMatmulColumnChunk;
    eval::matmul_tile(ar, a, b, out, r0, std::min(rows, r0 + eval::kMatmulRowBlock), j0,
                      std::min(n, j0 + eval::kMatmulColumnChunk));
  }
}

// Rows of an op's output in parallel when there is enough work to pay for a team of threads.
template <class A>
void apply_kernel_op(const A& ar, const Op& op, const Tensor<typename A::Value>& a,
                     const Tensor<typename A::Value>* b, Tensor<typename A::Value>& out, uint64_t& zeros) {
  const int64_t rows = eval::rows_of(out.shape);
  const int64_t work = out.numel() * (op.kind == OpKind::Matmul ? a.shape.dim4(3) : 1);
  const bool parallel = work > (1 << 15) && !omp_in_parallel() && omp_get_max_threads() > 1;
  if (op.kind == OpKind::Matmul) return matmul_by_tiles(ar, a, *b, out, parallel);
  const TensorView<typename A::Value> read_a = a, read_b = b ? TensorView<typename A::Value>(*b) : read_a;
  const TensorView<typename A::Value>* second = b ? &read_b : nullptr;
  uint64_t z = 0;
#pragma omp parallel for schedule(static) reduction(+ : z) if (parallel && rows > 1)
  for (int64_t r = 0; r < rows; ++r) eval::apply_rows(ar, op, read_a, second, out, r, r + 1, z);
  zeros += z;
}

}  // namespace

// Every tensor of the graph by index, inputs and computed (`computed` sized for the graph first).
template <class T>
std::vector<const T*> tensors_of(const KernelGraph& graph, std::span<const T> inputs, std::vector<T>& computed) {
  computed.resize(graph.num_tensors() - graph.num_inputs);
  std::vector<const T*> tensor(graph.num_tensors());
  for (int t = 0; t < graph.num_tensors(); ++t)
    tensor[t] = t < graph.num_inputs ? &inputs[t] : &computed[t - graph.num_inputs];
  return tensor;
}

template <class A>
void evaluate_ops_range(const A& ar, const KernelGraph& graph, std::span<const Tensor<typename A::Value>> inputs,
                        std::vector<Tensor<typename A::Value>>& computed, int from, int to, EvalStats* stats) {
  using T = Tensor<typename A::Value>;
  const std::vector<const T*> tensor = tensors_of(graph, inputs, computed);
  uint64_t zeros = 0;
  for (int i = from; i < to; ++i) {
    const KernelOp& kernel_op = graph.ops[i];
    std::vector<T*> outs(kernel_op.num_out);
    for (int o = 0; o < kernel_op.num_out; ++o) {
      const int t = kernel_op.first_out + o;
      computed[t - graph.num_inputs] = T(graph.shape(t));
      outs[o] = &computed[t - graph.num_inputs];
    }
    if (kernel_op.op.kind == OpKind::Block) {
      const BlockGraph& bg = graph.blocks[kernel_op.block];
      std::vector<const T*> ins;
      for (const BlockInput& in : bg.inputs) ins.push_back(tensor[in.tensor]);
      eval::run_block(ar, bg, std::span<const T* const>(ins), std::span<T* const>(outs), zeros);
    } else {
      const T* b = arity(kernel_op.op.kind) == 2 ? tensor[kernel_op.op.in[1]] : nullptr;
      apply_kernel_op(ar, kernel_op.op, *tensor[kernel_op.op.in[0]], b, *outs[0], zeros);
    }
  }
  if (stats) stats->zero_divisors += zeros;
}

template <class A>
void evaluate_ops_from(const A& ar, const KernelGraph& graph, std::span<const Tensor<typename A::Value>> inputs,
                       std::vector<Tensor<typename A::Value>>& computed, int from, EvalStats* stats) {
  evaluate_ops_range(ar, graph, inputs, computed, from, graph.ops.size(), stats);
}

std::vector<Dim3> sampled_blocks(const BlockGraph& bg) {
  const Dim3 first{0, 0, 0}, end{bg.grid[0] - 1, bg.grid[1] - 1, bg.grid[2] - 1};
  return first == end ? std::vector<Dim3>{first} : std::vector<Dim3>{first, end};
}

namespace {

// A box [lo, hi) of a tensor, in 4-D coordinates.
struct Box4 {
  Index4 lo{}, hi{};
  bool meets(const Box4& o) const {
    for (int d = 0; d < 4; ++d)
      if (hi[d] <= o.lo[d] || o.hi[d] <= lo[d]) return false;
    return true;
  }
};

Box4 box_at(const Index4& origin, const Shape& extent) {
  Box4 box{origin, origin};
  for (int d = 0; d < 4; ++d) box.hi[d] += extent.dim4(d);
  return box;
}

// What block `block` of bg reads of its input i over all its loop iterations: the first iteration's
// tile to the last's (a tile moves along its fmap only).
Box4 read_box(const BlockGraph& bg, int i, const Shape& src, const Dim3& block) {
  const Shape& tile = bg.tiles[i].shape;
  Box4 box = box_at(eval::load_origin(bg, i, src, block, 0), tile);
  const Box4 last = box_at(eval::load_origin(bg, i, src, block, bg.loop - 1), tile);
  for (int d = 0; d < 4; ++d) box.hi[d] = std::max(box.hi[d], last.hi[d]);
  return box;
}

}  // namespace

// The blocks of the producer whose saves meet a box that the look's blocks of the last op read.
template <class A>
bool evaluate_sampled_cone(const A& ar, const KernelGraph& graph, std::span<const Tensor<typename A::Value>> inputs,
                           std::vector<Tensor<typename A::Value>>& computed, int producer) {
  using T = Tensor<typename A::Value>;
  const KernelOp &made = graph.ops[producer], &last = graph.ops[graph.ops.size() - 1];
  if (made.op.kind != OpKind::Block || last.op.kind != OpKind::Block) return false;
  const auto from_producer = [&](int32_t t) { return t >= made.first_out && t < made.first_out + made.num_out; };
  for (int32_t t : graph.outputs)
    if (from_producer(t)) return false;  // compared whole by the look
  const BlockGraph &source = graph.blocks[made.block], &reader = graph.blocks[last.block];
  std::vector<std::pair<int, Box4>> wanted;  // (the producer's output, a box the look reads of it)
  for (const Dim3& b : sampled_blocks(reader))
    for (int i = 0; i < reader.inputs.size(); ++i) {
      const int32_t t = reader.inputs[i].tensor;
      if (from_producer(t)) wanted.emplace_back(t - made.first_out, read_box(reader, i, graph.shape(t), b));
    }
  std::vector<Dim3> needed;
  for (int32_t z = 0; z < source.grid[2]; ++z)
    for (int32_t y = 0; y < source.grid[1]; ++y)
      for (int32_t x = 0; x < source.grid[0]; ++x) {
        const Dim3 b{x, y, z};
        bool meets = false;
        for (size_t w = 0; w < wanted.size() && !meets; ++w) {
          const int j = wanted[w].first;
          meets = box_at(eval::save_origin(source, j, b), source.tiles[source.outputs[j].tile].shape)
                      .meets(wanted[w].second);
        }
        if (meets) needed.push_back(b);
      }
  // Past a quarter of the grid the look saves little over the whole op, which later graphs may share.
  if (4 * static_cast<int64_t>(needed.size()) > source.num_blocks()) return false;
  const std::vector<const T*> tensor = tensors_of(graph, inputs, computed);
  std::vector<T*> outs(made.num_out);
  for (int o = 0; o < made.num_out; ++o) {
    T& out = computed[made.first_out + o - graph.num_inputs];
    out = T(graph.shape(made.first_out + o));
    outs[o] = &out;
  }
  std::vector<const T*> ins;
  for (const BlockInput& in : source.inputs) ins.push_back(tensor[in.tensor]);
  uint64_t zeros = 0;
  eval::run_some_blocks(ar, source, std::span<const T* const>(ins), std::span<T* const>(outs), std::span(needed), zeros);
  return true;
}

// The graph's outputs the ops before the last give are compared whole; the last op's, in the boxes
// its first and last blocks save.
template <class A>
bool sampled_outputs_agree(const A& ar, const KernelGraph& graph, std::span<const Tensor<typename A::Value>> inputs,
                           std::vector<Tensor<typename A::Value>>& computed,
                           std::span<const Tensor<typename A::Value>> want) {
  using T = Tensor<typename A::Value>;
  const KernelOp& last = graph.ops[graph.ops.size() - 1];
  if (last.op.kind != OpKind::Block || graph.outputs.size() != static_cast<int>(want.size())) return true;
  const std::vector<const T*> tensor = tensors_of(graph, inputs, computed);
  const BlockGraph& bg = graph.blocks[last.block];
  std::vector<int> saved_as(last.num_out, -1);  // per output of the last op: the graph output it is
  for (int o = 0; o < graph.outputs.size(); ++o) {
    const int32_t t = graph.outputs[o];
    if (graph.shape(t) != want[o].shape) return false;
    if (t < last.first_out) {
      if (tensor[t]->data != want[o].data) return false;
    } else {
      saved_as[t - last.first_out] = o;
    }
  }
  std::vector<T*> outs(last.num_out);
  for (int j = 0; j < last.num_out; ++j) {
    if (saved_as[j] < 0) return true;  // read by no op and no output: not a complete graph
    T& saved = computed[last.first_out + j - graph.num_inputs];
    saved = T(graph.shape(last.first_out + j));
    outs[j] = &saved;
  }
  const std::vector<Dim3> blocks = sampled_blocks(bg);
  std::vector<const T*> ins;
  for (const BlockInput& in : bg.inputs) ins.push_back(tensor[in.tensor]);
  uint64_t zeros = 0;
  eval::run_some_blocks(ar, bg, std::span<const T* const>(ins), std::span<T* const>(outs), std::span(blocks), zeros);
  for (const Dim3& b : blocks)
    for (int j = 0; j < last.num_out; ++j) {
      const Shape& tile = bg.tiles[bg.outputs[j].tile].shape;
      const Index4 origin = eval::save_origin(bg, j, b);
      if (!eval::boxes_equal(eval::box_of(*outs[j], origin, tile), eval::box_of(want[saved_as[j]], origin, tile)))
        return false;
    }
  return true;
}

template <class A>
std::vector<Tensor<typename A::Value>> evaluate_ops(const A& ar, const KernelGraph& graph,
                                                    std::span<const Tensor<typename A::Value>> inputs,
                                                    EvalStats* stats) {
  std::vector<Tensor<typename A::Value>> computed;
  evaluate_ops_from(ar, graph, inputs, computed, 0, stats);
  return computed;
}

template <class A>
std::vector<Tensor<typename A::Value>> evaluate(const A& ar, const KernelGraph& graph,
                                                std::span<const Tensor<typename A::Value>> inputs,
                                                EvalStats* stats) {
  auto computed = evaluate_ops(ar, graph, inputs, stats);
  std::vector<Tensor<typename A::Value>> result;
  for (int32_t t : graph.outputs)
    result.push_back(t < graph.num_inputs ? inputs[t] : std::move(computed[t - graph.num_inputs]));
  return result;
}

template <class A>
std::vector<Tensor<typename A::Value>> make_inputs(const KernelGraph& graph, uint64_t seed) {
  std::vector<Tensor<typename A::Value>> inputs;
  for (int i = 0; i < graph.num_inputs; ++i) {
    Tensor<typename A::Value> t(graph.shape(i));
    const uint64_t stream = input_stream(seed, i);
#pragma omp parallel for schedule(static) if (t.numel() >= (int64_t{1} << 16))
    for (int64_t e = 0; e < t.numel(); ++e) t.data[e] = A::sample(input_bits(stream, static_cast<uint64_t>(e)));
    inputs.push_back(std::move(t));
  }
  return inputs;
}

#define UGS_INSTANTIATE(A)                                                                                   \
  template std::vector<Tensor<A::Value>> evaluate<A>(const A&, const KernelGraph&,                          \
                                                     std::span<const Tensor<A::Value>>, EvalStats*);        \
  template std::vector<Tensor<A::Value>> evaluate_ops<A>(const A&, const KernelGraph&,                      \
                                                         std::span<const Tensor<A::Value>>, EvalStats*);    \
  template void evaluate_ops_from<A>(const A&, const KernelGraph&, std::span<const Tensor<A::Value>>,        \
                                     std::vector<Tensor<A::Value>>&, int, EvalStats*);                       \
  template void evaluate_ops_range<A>(const A&, const KernelGraph&, std::span<const Tensor<A::Value>>,       \
                                      std::vector<Tensor<A::Value>>&, int, int, EvalStats*);                 \
  template bool sampled_outputs_agree<A>(const A&, const KernelGraph&, std::span<const Tensor<A::Value>>,    \
                                         std::vector<Tensor<A::Value>>&, std::span<const Tensor<A::Value>>); \
  template bool evaluate_sampled_cone<A>(const A&, const KernelGraph&, std::span<const Tensor<A::Value>>,    \
                                         std::vector<Tensor<A::Value>>&, int);                               \
  template std::vector<Tensor<A::Value>> make_inputs<A>(const KernelGraph&, uint64_t);
UGS_INSTANTIATE(WideArith)
UGS_INSTANTIATE(MirageArith)
UGS_INSTANTIATE(RealArith)
#undef UGS_INSTANTIATE

}  // namespace ugs
