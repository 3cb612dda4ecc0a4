// The CPU fingerprint backend: the one evaluator, OpenMP over the groups of a batch's graphs that
// begin with the same kernel op (prefix_plan.h; a big group is cut so that every thread has work);
// within a group, each graph starts from the tensors the one before it left, so shared leading ops
// are evaluated once. A caller's context carries the last graph and its tensors from one call to the
// next (a search thread's candidates follow one another). A single graph keeps the evaluator's own
// parallelism over blocks and rows. A caller that reads only the matches lets a graph whose last op
// is a block graph be looked at in two of its blocks first: most candidates differ from the program
// there, and are then not evaluated further (at full size, a candidate's whole grid takes up to a
// second; two blocks, next to nothing). A block graph before it that it reads is evaluated, for the
// look, only in the blocks those two read (evaluate_sampled_cone).
#include <omp.h>

#include <algorithm>

#include "ugs/eval/backend.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/fingerprint.h"
#include "ugs/eval/prefix_plan.h"
#include "ugs/field/exp_table.h"

namespace ugs {
namespace {

// The last graph evaluated and what it computed.
struct CpuContext final : FingerprintContext {
  KernelGraph last;
  bool has_last = false;
  int whole = 0;  // the leading ops of `last` whose tensors are whole (all of them, unless it was cut)
  std::vector<Tensor<FieldPair>> computed;
  std::vector<uint64_t> hashes;
};

// A program of this many field ops or more is slow enough to evaluate that its candidates are best
// batched (wants_batches): every full-size program of docs/design.md §7 but ntrans, and none of the
// _small ones (at most 2.1e6).
constexpr int64_t kBatchesFromOps = 10'000'000;

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(FingerprintSetup setup) : setup_(std::move(setup)) {
    for (const auto& t : setup_.inputs) input_hashes_.push_back(tensor_hash(t.data.data(), t.numel(), t.shape));
    with_field(setup_.field, [&](auto ar) { exp_ = exp_table<decltype(ar)>(setup_.omega); });
  }
  BackendKind kind() const override { return BackendKind::Cpu; }
  // Slow candidates are best evaluated side by side by the backend's threads, a batch at a time:
  // evaluated by the search threads where they arise, a chunk's one state with many held its thread
  // while the others waited. Small ones are better where they arise, each from its thread's last,
  // which shares its first ops.
  bool wants_batches() const override { return setup_.program_ops >= kBatchesFromOps; }
  std::unique_ptr<FingerprintContext> make_context() const override { return std::make_unique<CpuContext>(); }

  // In order, each graph from where the one before it (the context's last, first) stopped.
  void fingerprint_with(std::span<const KernelGraph* const> graphs, Fingerprints& out, FingerprintContext* ctx) override {
    auto* context = dynamic_cast<CpuContext*>(ctx);
    if (!context) return fingerprint(graphs, out, nullptr);
    out.reset(graphs);
    for (size_t i = 0; i < graphs.size(); ++i) {
      const KernelGraph& graph = *graphs[i];
      const int from = context->has_last ? std::min(shared_prefix(context->last, graph), context->whole) : 0;
      uint64_t* hashes = &out.hashes[out.first[i]];
      context->whole =
          one(graph, from, context->computed, context->hashes.data(), hashes, out.match[i], out.match_only);
      context->last = graph;
      context->has_last = true;
      context->hashes.assign(hashes, hashes + graph.num_tensors());
    }
  }

  // Stopped between graphs, so a search passes its time limit by at most one evaluation per thread.
  void fingerprint(std::span<const KernelGraph* const> graphs, Fingerprints& out,
                   const std::atomic<bool>* stop) override {
    out.reset(graphs);
    const PrefixPlan plan = plan_prefixes(graphs, omp_get_max_threads());
    const int64_t groups = static_cast<int64_t>(plan.groups.size()) - 1;
#pragma omp parallel for schedule(dynamic, 1) if (groups > 1)
    for (int64_t g = 0; g < groups; ++g) {
      std::vector<Tensor<FieldPair>> computed;
      const uint64_t* before = nullptr;  // the hashes of the graph before in the group
      int whole = 0;                     // and its leading ops whose tensors are whole
      for (size_t k = plan.groups[g]; k < plan.groups[g + 1] && !raised(stop); ++k) {
        const uint32_t i = plan.order[k];
        uint64_t* hashes = &out.hashes[out.first[i]];
        const int from = std::min(static_cast<int>(plan.shared[k]), whole);
        whole = one(*graphs[i], from, computed, before, hashes, out.match[i], out.match_only);
        before = hashes;
      }
    }
  }

  void classify_functions(std::span<const KernelGraph* const> graphs, std::span<const double> cost,
                          std::span<const uint64_t> tie, FunctionClasses& out,
                          const std::atomic<bool>* stop) override {
    Fingerprints fp;
    fingerprint(graphs, fp, stop);
    if (raised(stop)) {
      out = {};
      return;
    }
    std::vector<ClassItem> items(graphs.size());
    const auto n = static_cast<int64_t>(graphs.size());
#pragma omp parallel for schedule(static, 256) if (n > 4096)
    for (int64_t i = 0; i < n; ++i)
      items[i] = {function_key(*graphs[i], fp.of(i)), cost[i], tie[i], static_cast<uint32_t>(i)};
    out.assign(items);
  }

 private:
  // `graph` from op `from` on; the tensors and hashes of the ops before it are the previous graph's.
  // With `quick`, a graph that differs from the program where two blocks of its last op save is cut
  // there: no match, the hashes of its ops from the first one left partial 0 (the last op's, and the
  // op before it where that was evaluated only where the look reads it). Returns the leading ops
  // whose tensors are now whole.
  int one(const KernelGraph& graph, int from, std::vector<Tensor<FieldPair>>& computed, const uint64_t* before,
          uint64_t* hashes, uint8_t& match, bool quick) const {
    const int ops = graph.ops.size(), last = ops - 1;
    int whole = ops;
    with_field(setup_.field, [&](auto ar) {
      ar.omega = setup_.omega;
      ar.exp_table = exp_.data();
      const auto inputs = std::span<const Tensor<FieldPair>>(setup_.inputs);
      int start = from;
      if (quick && from <= last && worth_a_look(graph)) {
        // The op before the last, when it is the block graph the last reads, only where the look reads it.
        const int producer = last - 1;
        bool cone = false;
        if (producer >= from) {
          evaluate_ops_range(ar, graph, inputs, computed, from, producer);
          cone = evaluate_sampled_cone(ar, graph, inputs, computed, producer);
        }
        if (!cone) evaluate_ops_range(ar, graph, inputs, computed, std::max(from, producer), last);
        const int partial = cone ? producer : last;  // the first op the look leaves partial
        if (!sampled_outputs_agree(ar, graph, inputs, computed, std::span<const Tensor<FieldPair>>(setup_.want)))
          whole = partial;
        start = partial;
      }
      if (whole == ops) evaluate_ops_range(ar, graph, inputs, computed, start, ops);
      for (int t = 0; t < graph.num_inputs; ++t) hashes[t] = input_hashes_[t];
      const int kept = from == 0 ? 0 : graph.ops[from - 1].first_out + graph.ops[from - 1].num_out - graph.num_inputs;
      const int made = whole < ops ? graph.ops[whole].first_out - graph.num_inputs : static_cast<int>(computed.size());
      for (int k = 0; k < static_cast<int>(computed.size()); ++k)
        hashes[graph.num_inputs + k] = k < kept   ? before[graph.num_inputs + k]
                                       : k < made ? tensor_hash(computed[k].data.data(), computed[k].numel(),
                                                                computed[k].shape)
                                                  : 0;
      bool same = whole == ops && graph.outputs.size() == static_cast<int>(setup_.want.size());
      for (int o = 0; same && o < graph.outputs.size(); ++o) {
        const int32_t t = graph.outputs[o];
        same = t >= graph.num_inputs && computed[t - graph.num_inputs].shape == setup_.want[o].shape &&
               computed[t - graph.num_inputs].data == setup_.want[o].data;
      }
      match = same;
    });
    return whole;
  }

  // A last op of a few blocks is as quick to evaluate whole as to look at.
  static bool worth_a_look(const KernelGraph& graph) {
    const KernelOp& last = graph.ops[graph.ops.size() - 1];
    return last.op.kind == OpKind::Block && graph.blocks[last.block].num_blocks() > 4;
  }

  FingerprintSetup setup_;
  std::vector<uint64_t> input_hashes_;
  std::vector<uint32_t> exp_;  // ω's powers for exp (exp_table.h)
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(FingerprintSetup setup) { return std::make_unique<CpuBackend>(std::move(setup)); }

}  // namespace ugs
