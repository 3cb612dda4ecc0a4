#pragma once
// Equivalence of a candidate μGraph with a program (docs/design.md §3): independent random finite-field
// tests (fresh inputs and ω each), then a float64 evaluation on random real inputs.
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "ugs/eval/field_kind.h"
#include "ugs/ir/graph.h"

namespace ugs {

class FloatEvaluator;  // backend.h

struct VerifyOptions {
  FieldKind field = FieldKind::Wide;
  int tests = 3;
  uint64_t seed = 1;
  bool float_check = true;
  double tolerance = 1e-9;
};

struct VerifyResult {
  bool equivalent = false;
  int tests_run = 0;
  int tests_passed = 0;
  double float_rel_error = 0;  // max over outputs of max|a - b| / max|b|
  uint64_t zero_divisors = 0;
  std::string reason;  // why not, when not
  bool stopped = false;  // the stop was raised before every test ran: no answer (not equivalent, not refuted)
};

// Inputs and outputs must agree in count and shape (else not equivalent, with the reason).
VerifyResult verify(const KernelGraph& program, const KernelGraph& candidate, const VerifyOptions& opt);

// The program's side of verify(), computed once for many candidates (a search confirms each match):
// per finite-field test its inputs, ω and outputs, and the float64 inputs and outputs.
class VerifyReference {
 public:
  VerifyReference(const KernelGraph& program, const VerifyOptions& opt);
  VerifyReference(VerifyReference&&) noexcept;
  ~VerifyReference();
  // What verify(program, candidate, opt) answers; thread-safe. A search passes its stop flag: a test
  // (one evaluation at full size takes seconds) starts only while it is down, else the answer is
  // `stopped`. The program's side of a test is made the first time a candidate needs it.
  VerifyResult verify(const KernelGraph& candidate, const std::atomic<bool>* stop = nullptr) const;
  // The same, given the finite-field tests' outcomes computed elsewhere (a backend set up with
  // field_test_seed(opt, t) for test t gives the same bits): the float64 check alone runs here, its
  // candidate evaluated by float_elsewhere when given (one made with float_check_seed(opt)).
  VerifyResult verify_with(const KernelGraph& candidate, std::span<const uint8_t> field_passes,
                           FloatEvaluator* float_elsewhere = nullptr) const;
  const VerifyOptions& options() const { return opt_; }
  // Evaluates the program for the float64 check now, with the caller's threads (else the first
  // verify does, inside whatever parallel region it runs in).
  void prepare_float_check() const;

 private:
  struct Cases;
  void make_field_case(int k) const;
  void make_unclaimed(const std::atomic<bool>* stop) const;
  bool run_test(int k, const KernelGraph& candidate, const std::atomic<bool>* stop, uint8_t& pass, uint64_t& zeros,
                double& rel) const;
  VerifyResult finish(const KernelGraph& candidate, std::span<const uint8_t> field_passes,
                      std::span<const uint64_t> zeros, double rel) const;
  double float_error(const KernelGraph& candidate, FloatEvaluator* elsewhere) const;
  const KernelGraph& program_;
  VerifyOptions opt_;
  std::unique_ptr<Cases> cases_;
};

// The seed of finite-field test t (inputs and ω), as FingerprintSetup::make takes it.
uint64_t field_test_seed(const VerifyOptions& opt, int t);
// The seed of the float64 check's inputs, as make_float_evaluator takes it.
uint64_t float_check_seed(const VerifyOptions& opt);

// One finite-field test with the given seed (inputs and ω); true when all outputs agree exactly.
bool field_test(FieldKind field, const KernelGraph& program, const KernelGraph& candidate, uint64_t seed,
                uint64_t* zero_divisors = nullptr);

// max over outputs of max|a - b| / max|b| in float64 on seeded inputs in [-1, 1).
double float_rel_error(const KernelGraph& program, const KernelGraph& candidate, uint64_t seed);

// Empty when the interfaces agree, else the mismatch in words.
std::string interface_mismatch(const KernelGraph& program, const KernelGraph& candidate);

}  // namespace ugs
