#pragma once
// `--objective best` (docs/search.md "Objective"): keep only the best μGraph and those within a factor
// of it, and cut every state below which nothing could be kept.
//
// The bound is the cost model's own sum (cost.h): a μGraph's estimated time is the sum of its kernels',
// each priced from the op and the shapes it reads alone. A state's kernel ops are all in any μGraph
// completed from it (a completion leaves no tensor unconsumed, so no op is ever dropped), and every
// step below it adds at least one kernel (an opened block graph becomes one when it closes), which
// costs at least a launch. So
//     a state's completions cost exactly   floor = the sum of its kernel ops' prices,
//     anything below it costs at least     floor + launch,
// an admissible bound. Inside a block graph, its opening fixes its grid, loop and loads: the kernel
// it becomes costs at least those loads priced alone (what a block graph moves only grows as ops and
// savers join it), which replaces the launch (a symbolic opening's launches differ: a launch there).
// A state is cut when it exceeds the limit: the best μGraph confirmed so far (by any thread of this
// process, or another rank) times the factor. The limit only falls, so a cut never loses a μGraph the
// finished run keeps.
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>

#include "ugs/cost/gpu.h"
#include "ugs/ir/graph.h"
#include "ugs/search/generator/opening_cut.h"
#include "ugs/search/generator/state.h"

namespace ugs {

enum class Objective : uint8_t { All, Best };
std::optional<Objective> objective_from_name(std::string_view name);
std::string_view name_of(Objective objective);

// A state's kernel ops priced, remembered op by op: the states one thread meets one after another
// share most of their kernel graph, so each reprices only the ops from the first that differs.
class KernelPrices {
 public:
  double sum_us(const KernelGraph& kernel, const GpuSpec& gpu);
  // The open block graph of `state` (concrete, open) priced with its loads alone; call after
  // sum_us(state.kernel): the opening is remembered while the kernel graph stays the same.
  double opening_us(const State& state, const GpuSpec& gpu);

 private:
  struct Known {
    KernelOp op;
    BlockGraph block;  // when op is a block graph: the one it stands for
    double prefix_us = 0;  // the sum of the prices of ops 0..this one
  };
  static bool same(const Known& known, const KernelGraph& kernel, int i);
  FixedVec<Known, kMaxKernelOps> known_;
  uint64_t kernel_version_ = 0;  // bumped whenever known_ changes
  struct Opening {
    uint64_t kernel_version = ~uint64_t{0};
    Dim3 grid{};
    int32_t loop = 0;
    FixedVec<BlockInput, kMaxBlockInputs> inputs;
    double us = 0;
  } opening_;
};

class CostBound {
 public:
  CostBound() = default;  // objective all: nothing is cut
  CostBound(Objective objective, double within, const GpuSpec& gpu);

  bool active() const { return active_; }
  // Whether it may cut anything now: active, with a μGraph confirmed.
  bool binding() const { return active_ && limit_us() != std::numeric_limits<double>::infinity(); }
  // What of `state` may still be kept: nothing, its own completions only, or also what lies below it.
  enum class Reach : uint8_t { None, Completions, All };
  Reach reach(const State& state, KernelPrices& prices) const;
  // A confirmed μGraph: the limit falls to its cost times the factor if that is lower.
  void offer(const KernelGraph& mugraph);
  // What the bound orders and cuts a μGraph by: its estimated time (estimate()).
  double price_us(const KernelGraph& mugraph) const;
  // Whether a μGraph that cost `us` can no longer be kept.
  bool cuts(double us) const { return active_ && beyond(us, limit_us()); }
  // Another rank's limit: this one falls to it if that is lower.
  void lower_to(double limit_us);
  // The limit now, in µs: infinite before the first μGraph.
  double limit_us() const { return limit_us_.load(std::memory_order_relaxed); }
  // Whether a cost of `us` is past `limit_us`. A relative slack of 1e-9 keeps a μGraph that costs
  // exactly the limit whichever order its kernels' prices were summed in.
  static bool beyond(double us, double limit_us) { return us > limit_us * (1 + 1e-9); }

 private:
  bool active_ = false;
  double within_ = 1;
  GpuSpec gpu_{};
  std::atomic<double> limit_us_{std::numeric_limits<double>::infinity()};
};

// The bound as the generator asks it about an opening (OpeningCut), with a thread's prices. An opened
// block graph has no completions of its own: whatever it may not reach whole is cut.
class BoundedOpenings final : public OpeningCut {
 public:
  BoundedOpenings(const CostBound& bound, KernelPrices& prices) : bound_(bound), prices_(prices) {}
  bool binding() const override { return bound_.binding(); }
  bool cuts(const State& opened) const override { return bound_.reach(opened, prices_) != CostBound::Reach::All; }

 private:
  const CostBound& bound_;
  KernelPrices& prices_;
};

}  // namespace ugs
