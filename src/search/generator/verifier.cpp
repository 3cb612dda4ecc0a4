#include "ugs/search/generator/verifier.h"

#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include "ugs/util/hash.h"

namespace ugs {

namespace {

// Confirmation draws from a stream the fingerprint never used.
VerifyOptions confirm_options(FieldKind field, uint64_t seed, int tests, double tolerance) {
  return {field, tests, splitmix64(seed + 0x636f6e6669726dull), true, tolerance};
}

}  // namespace

Verifier::Verifier(const KernelGraph& program, BackendKind kind, FieldKind field, uint64_t seed, int confirm_tests,
                   double float_tolerance)
    : program_(program),
      confirm_(program, confirm_options(field, seed, confirm_tests, float_tolerance)),
      own_(make_all(kind, field, seed)),
      backend_(*own_) {}

Verifier::Verifier(const KernelGraph& program, Backend& backend, FieldKind field, uint64_t seed, int confirm_tests,
                   double float_tolerance)
    : program_(program), confirm_(program, confirm_options(field, seed, confirm_tests, float_tolerance)), backend_(backend) {}

Verifier::~Verifier() = default;

bool Verifier::fingerprint_matches(const KernelGraph& candidate, FingerprintContext* ctx) const {
  const KernelGraph* one = &candidate;
  Fingerprints f;
  f.match_only = true;
  backend_.fingerprint_with(std::span(&one, 1), f, ctx);
  return f.match[0];
}

// The run's backend on a thread of its own while this one makes the confirmation's. With auto, a
// device whose backend cannot be set up leaves the run on the CPU, where confirmation needs none.
std::unique_ptr<Backend> Verifier::make_all(BackendKind kind, FieldKind field, uint64_t seed) {
  const bool device = kind == BackendKind::Cuda || (kind == BackendKind::Auto && device_present());
  if (!device) return make_backend(kind, program_, field, seed);
  std::unique_ptr<Backend> run;
  std::exception_ptr run_failed, tests_failed;
  std::thread main([&] {
    try {
      run = make_backend(kind, program_, field, seed);
    } catch (...) {
      run_failed = std::current_exception();
    }
  });
  try {
    std::call_once(tests_made_, [&] { make_test_backends(); });
  } catch (...) {
    tests_failed = std::current_exception();
  }
  main.join();
  if (run_failed) std::rethrow_exception(run_failed);
  if (tests_failed && run->kind() == BackendKind::Cuda) std::rethrow_exception(tests_failed);
  return run;
}

const std::vector<std::unique_ptr<Backend>>& Verifier::test_backends() const {
  std::call_once(tests_made_, [&] { make_test_backends(); });
  return tests_;
}

// Side by side with the float64 reference (long at full size on the host): each test's backend
// draws its inputs and evaluates the program on the device, and the float evaluator draws the float64
// check's. Threads of their own, not an OpenMP team: a depth-first driver may call from inside its
// team, and the reference's parallel loops should still get threads. A float evaluator that cannot be
// made leaves the float64 check on the CPU.
void Verifier::make_test_backends() const {
  const VerifyOptions& opt = confirm_.options();
  tests_.clear();
  tests_.resize(opt.tests);
  std::vector<std::exception_ptr> failed(opt.tests + 1);
  auto guarded = [&failed](int slot, auto make) {
    try {
      make();
    } catch (...) {
      failed[slot] = std::current_exception();
    }
  };
  std::vector<std::thread> setups;
  for (int t = 0; t < opt.tests; ++t)
    setups.emplace_back(guarded, t, [&, t] {
      tests_[t] = make_backend(BackendKind::Cuda, program_, opt.field, field_test_seed(opt, t));
    });
  setups.emplace_back(guarded, opt.tests, [&] { confirm_.prepare_float_check(); });
  if (opt.float_check)
    setups.emplace_back([&] {
      try {
        std::string why_not;
        float_ = make_float_evaluator(program_, float_check_seed(opt), &why_not);
      } catch (...) {
        float_.reset();
      }
    });
  for (std::thread& s : setups) s.join();
  for (const std::exception_ptr& e : failed)
    if (e) std::rethrow_exception(e);
}

VerifyResult Verifier::confirm(const KernelGraph& candidate, const std::atomic<bool>* stop) const {
  if (!confirms_on_device()) return confirm_.verify(candidate, stop);
  const KernelGraph* one = &candidate;
  std::vector<uint8_t> passes;
  confirm_field_tests(std::span(&one, 1), passes);
  return confirm_with(candidate, passes);
}

void Verifier::confirm_field_tests(std::span<const KernelGraph* const> graphs, std::vector<uint8_t>& passes) const {
  if (!confirms_on_device()) throw std::logic_error("confirm_field_tests: the field tests run on the CPU here");
  const auto& tests = test_backends();
  const size_t n = tests.size();
  passes.assign(graphs.size() * n, 0);
  Fingerprints fp;
  fp.match_only = true;
  for (size_t t = 0; t < n; ++t) {
    tests[t]->fingerprint(graphs, fp);
    for (size_t i = 0; i < graphs.size(); ++i) passes[i * n + t] = fp.match[i];
  }
}

VerifyResult Verifier::confirm_with(const KernelGraph& candidate, std::span<const uint8_t> passes) const {
  return confirm_.verify_with(candidate, passes, float_.get());
}

}  // namespace ugs
