#pragma once
// Verification of complete candidates during a search (docs/design.md §3): a fingerprint (one finite-field
// test with the run's fixed inputs and ω, through the run's backend), then, for those that match,
// confirmation by fresh independent tests and the float64 check (the program evaluated on their inputs
// once per run, not once per candidate). When the run's backend is a device, the confirmation runs
// there too: each field test through a backend of its own seed, and the float64 check's candidate
// evaluations through a float evaluator (its reference stays the CPU's).
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "ugs/eval/backend.h"
#include "ugs/eval/verify.h"
#include "ugs/ir/graph.h"

namespace ugs {

class Verifier {
 public:
  // Makes the run's backend of `kind`. On a device, the confirmation's backends and the float64
  // reference are made side by side with it (their program evaluations while the CUDA context is
  // created), so that no search waits for them at its first match.
  Verifier(const KernelGraph& program, BackendKind kind, FieldKind field, uint64_t seed, int confirm_tests,
           double float_tolerance);
  // Over a backend the caller made: the confirmation's device backends wait for the first match.
  Verifier(const KernelGraph& program, Backend& backend, FieldKind field, uint64_t seed, int confirm_tests,
           double float_tolerance);
  ~Verifier();

  // Thread-safe. One candidate through the backend, as Mirage fingerprints; with a context (one per
  // thread), the backend may reuse what the thread's previous candidate computed.
  bool fingerprint_matches(const KernelGraph& candidate, FingerprintContext* ctx = nullptr) const;
  // Thread-safe. The same answer on every backend. With a stop flag, the CPU's confirmation starts no
  // test once it is raised and answers `stopped` (a device's takes milliseconds and runs to its end).
  VerifyResult confirm(const KernelGraph& candidate, const std::atomic<bool>* stop = nullptr) const;
  Backend& backend() const { return backend_; }

  // Whether the confirmation's field tests run on the device: then a caller with many candidates
  // does them in bulk, one backend call per test, and finishes each with confirm_with.
  bool confirms_on_device() const { return backend_.kind() == BackendKind::Cuda; }
  int confirm_tests() const { return confirm_.options().tests; }
  // Only when confirms_on_device(): passes[i * confirm_tests() + t] is 1 when graphs[i] passes test t.
  void confirm_field_tests(std::span<const KernelGraph* const> graphs, std::vector<uint8_t>& passes) const;
  // What confirm answers, given the candidate's field test outcomes from confirm_field_tests.
  VerifyResult confirm_with(const KernelGraph& candidate, std::span<const uint8_t> passes) const;

 private:
  const std::vector<std::unique_ptr<Backend>>& test_backends() const;
  void make_test_backends() const;
  std::unique_ptr<Backend> make_all(BackendKind kind, FieldKind field, uint64_t seed);

  const KernelGraph& program_;
  VerifyReference confirm_;  // the program's outputs on the confirmation tests' inputs, made once
  mutable std::once_flag tests_made_;
  mutable std::vector<std::unique_ptr<Backend>> tests_;  // on the device: one backend per field test
                                                         // (made with the float64 reference)
  mutable std::unique_ptr<FloatEvaluator> float_;        // on the device (null: the CPU evaluates)
  std::unique_ptr<Backend> own_;  // the run's backend, when made here
  Backend& backend_;
};

}  // namespace ugs
