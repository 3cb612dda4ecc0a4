#include "ugs/search/cost_bound.h"

#include "ugs/cost/block_counts.h"
#include "ugs/cost/cost.h"
#include "ugs/util/names.h"

namespace ugs {

namespace {
constexpr std::pair<Objective, std::string_view> kObjectives[] = {{Objective::All, "all"}, {Objective::Best, "best"}};
}  // namespace

std::optional<Objective> objective_from_name(std::string_view name) { return value_named(kObjectives, name); }
std::string_view name_of(Objective objective) { return name_in(kObjectives, objective); }

// Op i stands for the same kernel as the one remembered, given that the ops before it do (so the
// tensors it reads have the same shapes). A block graph's tiles follow from the rest.
bool KernelPrices::same(const Known& known, const KernelGraph& kernel, int i) {
  const KernelOp& op = kernel.ops[i];
  if (!(op.op == known.op.op) || op.block != known.op.block || op.first_out != known.op.first_out ||
      op.num_out != known.op.num_out)
    return false;
  if (op.op.kind != OpKind::Block) return true;
  const BlockGraph& block = kernel.blocks[op.block];
  return block.grid == known.block.grid && block.loop == known.block.loop && block.inputs == known.block.inputs &&
         block.ops == known.block.ops && block.outputs == known.block.outputs;
}

double KernelPrices::sum_us(const KernelGraph& kernel, const GpuSpec& gpu) {
  const int n = kernel.ops.size();
  int same_ops = 0;
  while (same_ops < n && same_ops < known_.size() && same(known_[same_ops], kernel, same_ops)) ++same_ops;
  if (same_ops != known_.size() || same_ops != n) ++kernel_version_;
  known_.resize(same_ops);
  for (int i = same_ops; i < n; ++i) {
    Known& known = known_.spare();
    known.op = kernel.ops[i];
    if (known.op.op.kind == OpKind::Block) known.block = kernel.blocks[known.op.block];
    known.prefix_us = (i > 0 ? known_[i - 1].prefix_us : 0.0) + price_kernel_op(kernel, i, gpu).total_us;
    known_.push_spare();
  }
  return n > 0 ? known_[n - 1].prefix_us : 0.0;
}

double KernelPrices::opening_us(const State& state, const GpuSpec& gpu) {
  const BlockGraph& block = state.block;
  if (opening_.kernel_version == kernel_version_ && opening_.grid == block.grid && opening_.loop == block.loop &&
      opening_.inputs == block.inputs)
    return opening_.us;
  BlockGraph loads;  // the opening alone: its loaders and their tiles
  loads.grid = block.grid;
  loads.loop = block.loop;
  loads.inputs = block.inputs;
  for (int t = 0; t < block.inputs.size(); ++t) loads.tiles.push_back(block.tiles[t]);
  opening_ = {kernel_version_, block.grid, block.loop, block.inputs,
              price_kernel(block_counts(state.kernel, loads, gpu.elem_bytes), gpu).total_us};
  return opening_.us;
}

CostBound::CostBound(Objective objective, double within, const GpuSpec& gpu)
    : active_(objective == Objective::Best), within_(within), gpu_(gpu) {}

CostBound::Reach CostBound::reach(const State& state, KernelPrices& prices) const {
  if (!active_) return Reach::All;
  const double limit = limit_us();
  if (limit == std::numeric_limits<double>::infinity()) return Reach::All;
  const double floor = prices.sum_us(state.kernel, gpu_);
  if (beyond(floor, limit)) return Reach::None;
  const double next_kernel_us =
      state.open && !state.family.symbolic() ? prices.opening_us(state, gpu_) : gpu_.launch_us;
  return beyond(floor + next_kernel_us, limit) ? Reach::Completions : Reach::All;
}

double CostBound::price_us(const KernelGraph& mugraph) const { return estimate(mugraph, gpu_).estimated_us; }

void CostBound::offer(const KernelGraph& mugraph) {
  if (active_) lower_to(price_us(mugraph) * within_);
}

void CostBound::lower_to(double limit) {
  if (!active_) return;
  double now = limit_us_.load(std::memory_order_relaxed);
  while (limit < now && !limit_us_.compare_exchange_weak(now, limit, std::memory_order_relaxed)) {
  }
}

}  // namespace ugs
