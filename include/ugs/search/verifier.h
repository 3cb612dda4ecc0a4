#pragma once
// Verification of complete candidates during a search (DESIGN §3): a fingerprint (one finite-field
// test with the run's fixed inputs and ω, through the run's backend), then, for those that match,
// confirmation by fresh independent tests and the float64 check (the program evaluated on their inputs
// once per run, not once per candidate).
#include <cstdint>

#include "ugs/eval/backend.h"
#include "ugs/eval/verify.h"
#include "ugs/ir/graph.h"

namespace ugs {

class Verifier {
 public:
  Verifier(const KernelGraph& program, Backend& backend, FieldKind field, uint64_t seed, int confirm_tests,
           double float_tolerance);

  // Thread-safe. One candidate through the backend, as Mirage fingerprints; with a context (one per
  // thread), the backend may reuse what the thread's previous candidate computed.
  bool fingerprint_matches(const KernelGraph& candidate, FingerprintContext* ctx = nullptr) const;
  // Thread-safe; always on the CPU.
  VerifyResult confirm(const KernelGraph& candidate) const;
  Backend& backend() const { return backend_; }

 private:
  Backend& backend_;
  VerifyReference confirm_;  // the program's outputs on the confirmation tests' inputs, made once
};

}  // namespace ugs
