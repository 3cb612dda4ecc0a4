#pragma once
// Bulk fingerprints (docs/design.md §3): a backend evaluates many kernel graphs at once on the run's fixed
// inputs and ω and reports, for each, a 64-bit hash of every kernel tensor and whether its outputs
// equal the program's element by element. The breadth-first search hands it a whole level; the
// depth-first ones one candidate at a time, as Mirage does. `cpu` (OpenMP over graphs) always
// exists; `cuda` when the binary has CUDA code and a device is present. Both give the same bits.
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ugs/eval/field_kind.h"
#include "ugs/eval/function_classes.h"
#include "ugs/eval/tensor.h"
#include "ugs/ir/graph.h"

namespace ugs {

enum class BackendKind { Auto, Cpu, Cuda };
std::optional<BackendKind> backend_from_name(std::string_view s);
std::string_view name_of(BackendKind k);

// What every backend starts from, made once per run from the program and the seed.
struct FingerprintSetup {
  FieldKind field = FieldKind::Wide;
  uint32_t omega = 1;
  std::vector<Tensor<FieldPair>> inputs;  // the run's fixed inputs
  std::vector<Tensor<FieldPair>> want;    // the program's outputs on them
  std::vector<uint64_t> want_hashes;      // and their hashes
  int64_t program_ops = 0;                // the program's field ops (op_count.h): what a candidate costs

  static FingerprintSetup make(const KernelGraph& program, FieldKind field, uint64_t seed);
};

struct Fingerprints {
  std::vector<uint64_t> hashes;  // graph i's tensor t at hashes[first[i] + t]
  std::vector<uint32_t> first;
  std::vector<uint8_t> match;  // 1: the graph's outputs are the program's, in count, shape and value
  // Set by a caller that reads only `match`: a backend may then stop evaluating a graph once it knows
  // the graph does not match, and leave some of that graph's hashes 0 (the CPU's does).
  bool match_only = false;

  // Sizes the arrays for `graphs` (first[] as prefix sums of their tensor counts). Inline: the CUDA
  // library uses it and depends on headers only.
  void reset(std::span<const KernelGraph* const> graphs) {
    first.resize(graphs.size());
    uint32_t n = 0;
    for (size_t i = 0; i < graphs.size(); ++i) {
      first[i] = n;
      n += static_cast<uint32_t>(graphs[i]->num_tensors());
    }
    hashes.assign(n, 0);
    match.assign(graphs.size(), 0);
  }
  std::span<const uint64_t> of(size_t i) const {
    const size_t end = i + 1 < first.size() ? first[i + 1] : hashes.size();
    return std::span(hashes).subspan(first[i], end - first[i]);
  }
};

// What a caller lets a backend keep between its calls: the CPU backend keeps the last graph's
// tensors, so a graph that begins with the same kernel ops starts where that one stopped. One per
// thread; opaque to the caller.
class FingerprintContext {
 public:
  virtual ~FingerprintContext() = default;
};

inline bool raised(const std::atomic<bool>* stop) { return stop && stop->load(std::memory_order_relaxed); }

class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  // The device it runs on, in words ("NVIDIA H100 80GB HBM3 (sm_90)"); empty for the CPU.
  virtual std::string device() const { return {}; }
  // Thread-safe (a backend with one device serializes its callers). Graphs need not be complete: a
  // graph without outputs gets its hashes and match 0. Once `stop` (a search's time limit; may be
  // null) is raised, a call may return before it evaluated every graph, leaving `out` incomplete:
  // a caller that passes a flag discards what it got once the flag is up.
  virtual void fingerprint(std::span<const KernelGraph* const> graphs, Fingerprints& out,
                           const std::atomic<bool>* stop = nullptr) = 0;
  // A context for fingerprint_with, or null where the backend keeps nothing between calls.
  virtual std::unique_ptr<FingerprintContext> make_context() const { return nullptr; }
  // As fingerprint, reusing what ctx holds (null: nothing) and leaving in it what the next call may use.
  virtual void fingerprint_with(std::span<const KernelGraph* const> graphs, Fingerprints& out, FingerprintContext*) {
    fingerprint(graphs, out);
  }
  // The function classes of a batch of kernel-level graphs (function_classes.h): the graphs are
  // fingerprinted, keyed and ranked by cost[i], tie[i] and i where the backend keeps their hashes.
  // `stop` as for fingerprint.
  virtual void classify_functions(std::span<const KernelGraph* const> graphs, std::span<const double> cost,
                                  std::span<const uint64_t> tie, FunctionClasses& out,
                                  const std::atomic<bool>* stop = nullptr) = 0;
  // Whether a driver should gather whole batches: a call costs mostly a fixed amount (a device's
  // launches and transfers), or each graph so much that the backend's own threads should share them
  // (the CPU backend on a full-size program); false: a driver may call from inside its own threads.
  virtual bool wants_batches() const { return kind() == BackendKind::Cuda; }
};

// The float64 check's evaluations done where a device backend runs (verify.h's VerifyReference takes
// them): a graph's outputs on the check's inputs, drawn from its seed as make_inputs<RealArith> draws
// them. Summed in another order than the CPU evaluator's, so equal to it to rounding. Thread-safe.
class FloatEvaluator {
 public:
  virtual ~FloatEvaluator() = default;
  virtual std::vector<std::vector<double>> outputs(const KernelGraph& graph) = 0;
};

// The one factory of backends (src/eval/backend.cpp): the rest of the project reaches a device only
// through these calls and the Backend interface.
// Auto: cuda when a device is present, else cpu. Cuda when none can be had throws InputError saying why.
std::unique_ptr<Backend> make_backend(BackendKind kind, const KernelGraph& program, FieldKind field, uint64_t seed);
// Whether a device backend can be had here: the binary has CUDA code and a device is present.
bool device_present();
// The float64 check's evaluator on the device, its inputs drawn there from `seed`; null with *why_not
// set when there is no device or it cannot be set up (the check then evaluates on the CPU).
std::unique_ptr<FloatEvaluator> make_float_evaluator(const KernelGraph& program, uint64_t seed, std::string* why_not);

// The CPU backend alone (tests compare the others with it).
std::unique_ptr<Backend> make_cpu_backend(FingerprintSetup setup);

}  // namespace ugs
