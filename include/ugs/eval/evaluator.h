#pragma once
// The one evaluator (docs/design.md §3): runs a kernel graph (a program is one too) on concrete inputs, with
// the scalar arithmetic as a template parameter: WideArith, MirageArith (finite-field pairs) or
// RealArith (float64). Block graphs are emulated block by block and iteration by iteration, tiles
// placed by imap/fmap/omap exactly as docs/design.md §2 states; OpenMP runs blocks (or output rows) in
// parallel.
#include <cstdint>
#include <span>
#include <vector>

#include "ugs/eval/tensor.h"
#include "ugs/ir/graph.h"

namespace ugs {

struct EvalStats {
  uint64_t zero_divisors = 0;  // divisor components that were 0 (mapped to 0)
};

template <class A>
std::vector<Tensor<typename A::Value>> evaluate(const A& arith, const KernelGraph& graph,
                                                std::span<const Tensor<typename A::Value>> inputs,
                                                EvalStats* stats = nullptr);

// Every tensor the graph computes, tensor t at index t - graph.num_inputs (what a fingerprint hashes).
template <class A>
std::vector<Tensor<typename A::Value>> evaluate_ops(const A& arith, const KernelGraph& graph,
                                                    std::span<const Tensor<typename A::Value>> inputs,
                                                    EvalStats* stats = nullptr);

// The same into `computed` (resized to `graph`'s computed tensors), from op `from` on: the tensors of the
// ops before it must already be there (another graph with the same first ops left them).
template <class A>
void evaluate_ops_from(const A& arith, const KernelGraph& graph, std::span<const Tensor<typename A::Value>> inputs,
                       std::vector<Tensor<typename A::Value>>& computed, int from, EvalStats* stats = nullptr);

// Ops [from, to) only, as evaluate_ops_from.
template <class A>
void evaluate_ops_range(const A& arith, const KernelGraph& graph, std::span<const Tensor<typename A::Value>> inputs,
                        std::vector<Tensor<typename A::Value>>& computed, int from, int to,
                        EvalStats* stats = nullptr);

// A quick look at a graph whose last kernel op is a block graph, once the ops before it are in
// `computed` (evaluate_ops_range): its outputs that other ops give, whole, and the last op's in the
// boxes that two of its blocks save (its first and its last), against `want`. False proves that the
// graph's outputs are not `want`; true proves nothing. The last op's tensors are left partial.
template <class A>
bool sampled_outputs_agree(const A& arith, const KernelGraph& graph, std::span<const Tensor<typename A::Value>> inputs,
                           std::vector<Tensor<typename A::Value>>& computed,
                           std::span<const Tensor<typename A::Value>> want);

// The blocks of bg that the quick look runs: its first and its last.
std::vector<Dim3> sampled_blocks(const BlockGraph& bg);

// For a look at a graph whose kernel op `producer`, a block graph, gives the last op (a block graph)
// its inputs: the producer's outputs only where the look's blocks read them, from the blocks of the
// producer that save there, the rest left zero. At full size a first block graph is most of a
// candidate's evaluation, and the look reads a few of its blocks' tiles. The ops before the producer
// must be in `computed`. False, with nothing done, where that is no saving (a quarter of the
// producer's blocks or more) or the look would read the producer's tensors whole (a graph output).
template <class A>
bool evaluate_sampled_cone(const A& arith, const KernelGraph& graph, std::span<const Tensor<typename A::Value>> inputs,
                           std::vector<Tensor<typename A::Value>>& computed, int producer);

// Seeded inputs for `graph`: element e of input i is drawn from a counter-based stream, so any subset can
// be generated independently (and identically on a device).
template <class A>
std::vector<Tensor<typename A::Value>> make_inputs(const KernelGraph& graph, uint64_t seed);

}  // namespace ugs
