#pragma once
// Dead-end checks: can a state still be completed within the ops the config leaves? A state that
// cannot is never expanded, so these cuts change no result, only the work. Each op lowers the count
// of unconsumed tensors by at most (its operands - 1), and a closing needs every tile before the loop
// consumed, so the counts bound what is still reachable.
#include <algorithm>
#include <array>
#include <cstdint>
#include <span>

#include "ugs/ir/graph.h"
#include "ugs/search/generator/config.h"

namespace ugs::search_detail {

// Kernel level: `open` unconsumed tensors must come down to `outputs` with `ops_left` kernel ops, at
// most `blocks_left` of them block graphs (which may consume up to max_block_inputs each).
inline bool kernel_can_finish(int open, int outputs, int64_t ops_left, int64_t blocks_left, const SearchConfig& cfg) {
  const int64_t blocks = std::min(ops_left, blocks_left);
  const int64_t per_block = std::max<int64_t>(1, cfg.max_block_inputs - 1);
  const int64_t predefined = cfg.kernel_ops.empty() ? 0 : ops_left - blocks;
  return open - outputs <= blocks * per_block + predefined;
}

inline bool kernel_can_finish(const KernelGraph& kernel, int outputs, const SearchConfig& cfg) {
  return kernel_can_finish(kernel.open_tensors().size(), outputs,
                           cfg.max_kernel_ops - kernel.num_inputs - kernel.ops.size(),
                           cfg.max_block_graphs - kernel.blocks.size(), cfg);
}

// Kernel ops that may still follow a block graph opened on `kernel`: 0 when its savers must make
// the program's outputs.
inline int64_t kernel_ops_after_block(const KernelGraph& kernel, const SearchConfig& cfg) {
  int64_t ops_after = cfg.max_kernel_ops - kernel.num_inputs - kernel.ops.size() - 1;
  if (cfg.kernel_ops.empty())
    ops_after = std::min<int64_t>(ops_after, cfg.max_block_graphs - kernel.blocks.size() - 1);
  return ops_after;
}

// Savers the open block graph of s may have: max_block_outputs, or, when no kernel op can follow it,
// no more than the program's outputs that the kernel tensors it leaves unconsumed do not already fill.
// The block graph's inputs are the kernel tensors `ins`.
inline int64_t savers_allowed(const KernelGraph& kernel, std::span<const int32_t> ins, int outputs,
                              const SearchConfig& cfg) {
  if (kernel_ops_after_block(kernel, cfg) > 0) return cfg.max_block_outputs;
  int64_t left_open = 0;
  for (int32_t t : kernel.open_tensors()) left_open += std::find(ins.begin(), ins.end(), t) == ins.end();
  return std::min<int64_t>(cfg.max_block_outputs, outputs - left_open);
}

inline int64_t savers_allowed(const KernelGraph& kernel, const BlockGraph& block, int outputs,
                              const SearchConfig& cfg) {
  FixedVec<int32_t, kMaxBlockInputs> ins;
  for (const BlockInput& in : block.inputs) ins.push_back(in.tensor);
  return savers_allowed(kernel, ins.span(), outputs, cfg);
}

// Block level: every unconsumed tile before the loop needs an op of its own (block ops take tiles from
// one side of the loop, and a binary op turns two into one), and at most `savers` tiles may be left
// for the savers. Counted once per state, so each candidate op is checked in O(1).
class BlockReach {
 public:
  BlockReach(const BlockGraph& block, int64_t savers, const SearchConfig& cfg)
      : block_(block), savers_(savers), left_(cfg.max_block_ops - block.inputs.size() - block.ops.size()) {
    for (const Op& op : block.ops)
      for (int i = 0; i < arity(op.kind); ++i) used_[op.in[i]] = true;
    for (int t = 0; t < block.tiles.size(); ++t)
      if (!used_[t]) {
        ++all_;
        pre_ += !block.tiles[t].post;
        unused_ |= 1u << t;
        unused_pre_ |= uint32_t{!block.tiles[t].post} << t;
      }
  }

  // Can the graph still be finished once `op`, whose result tile is after the loop if `post`, is appended?
  bool after(const Op& op, bool post) const {
    int pre = pre_ + !post, all = all_ + 1;
    for (int i = 0; i < arity(op.kind); ++i) {
      const int t = op.in[i];
      if (used_[t] || (i == 1 && t == op.in[0])) continue;
      --all;
      pre -= !block_.tiles[t].post;
    }
    const int64_t left = left_ - 1;
    return pre <= left && all - savers_ <= left;
  }

  // Whether any op whose last (higher) operand is tile k may pass after(): such an op consumes at
  // most tile k and one unused tile before it, and near the op limit every op must consume one or two.
  // A part that may not is skipped whole, its ops counted as after() would count them.
  bool part_may_pass(int k) const {
    const int64_t left = left_ - 1;
    const int64_t need_all = all_ + 1 - savers_ - left, need_pre = pre_ - left;  // pre: a result after the loop
    if (need_all <= 0 && need_pre <= 0) return true;
    const uint32_t below = (1u << k) - 1;
    const int all = (unused_ >> k & 1) + ((unused_ & below) != 0);
    const int pre = (unused_pre_ >> k & 1) + ((unused_pre_ & below) != 0);
    return all >= need_all && pre >= need_pre;
  }

 private:
  const BlockGraph& block_;
  std::array<bool, kMaxTiles> used_{};
  int pre_ = 0, all_ = 0;
  uint32_t unused_ = 0, unused_pre_ = 0;  // the tiles no op reads, and those of them before the loop
  static_assert(kMaxTiles <= 32);
  int64_t savers_, left_;
};

}  // namespace ugs::search_detail
