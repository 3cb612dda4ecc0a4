#include "ugs/search/verifier.h"

#include <exception>
#include <stdexcept>
#include <thread>

#include "ugs/util/hash.h"

namespace ugs {

Verifier::Verifier(const KernelGraph& program, Backend& backend, FieldKind field, uint64_t seed, int confirm_tests,
                   double float_tolerance)
    // Confirmation draws from a stream the fingerprint never used.
    : program_(program),
      backend_(backend),
      confirm_(program, {field, confirm_tests, splitmix64(seed + 0x636f6e6669726dull), true, float_tolerance}) {}

Verifier::~Verifier() = default;

bool Verifier::fingerprint_matches(const KernelGraph& candidate, FingerprintContext* ctx) const {
  const KernelGraph* one = &candidate;
  Fingerprints f;
  backend_.fingerprint_with(std::span(&one, 1), f, ctx);
  return f.match[0];
}

// Made on the first confirmation (a run that confirms nothing uploads nothing more), side by side
// with the float64 reference: each draws inputs, evaluates the program and uploads (a full-size
// setup is 0.3 s, half of it the upload). Threads of their own, not an OpenMP team: a depth-first
// driver calls from inside its team, and each setup's own parallel loops should still get threads.
const std::vector<std::unique_ptr<Backend>>& Verifier::test_backends() const {
  std::call_once(tests_made_, [&] {
    const VerifyOptions& opt = confirm_.options();
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
        tests_[t] = make_backend(backend_.kind(), program_, opt.field, field_test_seed(opt, t));
      });
    setups.emplace_back(guarded, opt.tests, [&] { confirm_.prepare_float_check(); });
    for (std::thread& s : setups) s.join();
    for (const std::exception_ptr& e : failed)
      if (e) std::rethrow_exception(e);
  });
  return tests_;
}

VerifyResult Verifier::confirm(const KernelGraph& candidate) const {
  if (!confirms_on_device()) return confirm_.verify(candidate);
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
  for (size_t t = 0; t < n; ++t) {
    tests[t]->fingerprint(graphs, fp);
    for (size_t i = 0; i < graphs.size(); ++i) passes[i * n + t] = fp.match[i];
  }
}

VerifyResult Verifier::confirm_with(const KernelGraph& candidate, std::span<const uint8_t> passes) const {
  return confirm_.verify_with(candidate, passes);
}

}  // namespace ugs
