// Randomized equivalence: finite-field tests, then the float64 check.
#include "ugs/eval/verify.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>
#include <type_traits>
#include <vector>

#include "ugs/eval/draws.h"
#include "ugs/eval/backend.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/real_arith.h"
#include "ugs/field/exp_table.h"
#include "ugs/util/first_exception.h"
#include "ugs/util/hash.h"

namespace ugs {
namespace {

// One test's inputs and ω (a field test) and the program's outputs on them.
// (A field case's arithmetic points into its own table: a case moves, never copies.)
template <class A>
struct Case {
  A ar;
  std::vector<Tensor<typename A::Value>> inputs, want;
  std::vector<uint32_t> exp;  // ω's powers (exp_table.h)
  Case() = default;
  Case(Case&&) noexcept = default;
  Case& operator=(Case&&) noexcept = default;
};

template <class A>
Case<A> make_case(const KernelGraph& program, uint64_t seed, uint64_t* zeros) {
  Case<A> test_case;
  if constexpr (!std::is_same_v<A, RealArith>) {
    test_case.ar.omega = omega_of_seed<A>(seed);
    test_case.exp = exp_table<A>(test_case.ar.omega);
    test_case.ar.exp_table = test_case.exp.data();
  }
  test_case.inputs = make_inputs<A>(program, seed);
  EvalStats st;
  test_case.want = evaluate(test_case.ar, program, std::span<const Tensor<typename A::Value>>(test_case.inputs), &st);
  if (zeros) *zeros += st.zero_divisors;
  return test_case;
}

template <class A>
bool field_test_on(const Case<A>& test_case, const KernelGraph& candidate, uint64_t* zeros) {
  EvalStats st;
  const auto got =
      evaluate(test_case.ar, candidate, std::span<const Tensor<typename A::Value>>(test_case.inputs), &st);
  if (zeros) *zeros += st.zero_divisors;
  for (size_t i = 0; i < test_case.want.size(); ++i)
    if (test_case.want[i].data != got[i].data) return false;
  return true;
}

// got(i): the candidate's output i, as a span of doubles.
template <class Got>
double rel_error(const std::vector<Tensor<double>>& want, Got got) {
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const std::span<const double> output = got(i);
    double diff = 0, scale = 0;
    for (size_t e = 0; e < want[i].data.size(); ++e) {
      // A NaN or an infinity in either result is an error, not a value std::max would skip.
      if (!std::isfinite(want[i].data[e]) || !std::isfinite(output[e])) return std::numeric_limits<double>::infinity();
      diff = std::max(diff, std::abs(want[i].data[e] - output[e]));
      scale = std::max(scale, std::abs(want[i].data[e]));
    }
    const double rel = scale > 0 ? diff / scale : diff;
    worst = std::max(worst, rel);
  }
  return worst;
}

double rel_error_on(const Case<RealArith>& test_case, const KernelGraph& candidate) {
  const auto got = evaluate(test_case.ar, candidate, std::span<const Tensor<double>>(test_case.inputs));
  return rel_error(test_case.want, [&](size_t i) { return std::span<const double>(got[i].data); });
}

std::string shape_list(const KernelGraph& graph, int first, int count, const int32_t* idx) {
  std::string text;
  for (int i = 0; i < count; ++i) {
    if (i) text += ' ';
    text += to_string(graph.shape(idx ? idx[i] : first + i));
  }
  return text;
}

}  // namespace

uint64_t field_test_seed(const VerifyOptions& opt, int t) { return splitmix64(opt.seed + t); }
uint64_t float_check_seed(const VerifyOptions& opt) { return splitmix64(opt.seed ^ 0x666c6f6174ull); }

std::string interface_mismatch(const KernelGraph& program, const KernelGraph& candidate) {
  bool same = program.num_inputs == candidate.num_inputs;
  for (int i = 0; same && i < program.num_inputs; ++i) same = program.shape(i) == candidate.shape(i);
  if (!same)
    return "inputs differ: program " + shape_list(program, 0, program.num_inputs, nullptr) + ", μGraph " +
           shape_list(candidate, 0, candidate.num_inputs, nullptr);
  same = program.outputs.size() == candidate.outputs.size();
  for (int i = 0; same && i < program.outputs.size(); ++i)
    same = program.shape(program.outputs[i]) == candidate.shape(candidate.outputs[i]);
  if (!same)
    return "outputs differ: program " + shape_list(program, 0, program.outputs.size(), program.outputs.begin()) +
           ", μGraph " + shape_list(candidate, 0, candidate.outputs.size(), candidate.outputs.begin());
  return {};
}

bool field_test(FieldKind field, const KernelGraph& program, const KernelGraph& candidate, uint64_t seed,
                uint64_t* zeros) {
  return with_field(field, [&](auto ar) {
    using A = decltype(ar);
    return field_test_on(make_case<A>(program, seed, zeros), candidate, zeros);
  });
}

double float_rel_error(const KernelGraph& program, const KernelGraph& candidate, uint64_t seed) {
  return rel_error_on(make_case<RealArith>(program, seed, nullptr), candidate);
}

VerifyResult verify(const KernelGraph& program, const KernelGraph& candidate, const VerifyOptions& opt) {
  return VerifyReference(program, opt).verify(candidate);
}

// Made when first needed, each once: a field test's case by the first verify() that runs the test,
// the float case by either (a search that confirms nothing never evaluates the program; one whose
// field tests run on a device never does here; one stopped mid-confirmation leaves the rest unmade).
struct VerifyReference::Cases {
  explicit Cases(int tests) : field_made(new std::once_flag[tests]), wide(tests), mirage(tests), zeros(tests, 0) {}
  std::unique_ptr<std::once_flag[]> field_made;
  std::once_flag real_made;
  std::vector<Case<WideArith>> wide;  // the run's field's cases; the other stays empty
  std::vector<Case<MirageArith>> mirage;
  std::vector<uint64_t> zeros;  // per field test: the program's zero divisors
  Case<RealArith> real;
  std::atomic<int> unclaimed{0};  // the cases, field tests' then the float one, claimed by make_unclaimed
};

VerifyReference::VerifyReference(const KernelGraph& program, const VerifyOptions& opt)
    : program_(program), opt_(opt), cases_(std::make_unique<Cases>(opt.tests)) {}
VerifyReference::VerifyReference(VerifyReference&&) noexcept = default;
VerifyReference::~VerifyReference() = default;

void VerifyReference::prepare_float_check() const {
  Cases& cases = *cases_;
  std::call_once(cases.real_made,
                 [&] { cases.real = make_case<RealArith>(program_, float_check_seed(opt_), nullptr); });
}

double VerifyReference::float_error(const KernelGraph& candidate, FloatEvaluator* elsewhere) const {
  prepare_float_check();
  if (!elsewhere) return rel_error_on(cases_->real, candidate);
  const std::vector<std::vector<double>> got = elsewhere->outputs(candidate);
  return rel_error(cases_->real.want, [&](size_t i) { return std::span<const double>(got[i]); });
}

// Field test k's case, made once.
void VerifyReference::make_field_case(int k) const {
  Cases& cases = *cases_;
  std::call_once(cases.field_made[k], [&] {
    if (opt_.field == FieldKind::Mirage)
      cases.mirage[k] = make_case<MirageArith>(program_, field_test_seed(opt_, k), &cases.zeros[k]);
    else
      cases.wide[k] = make_case<WideArith>(program_, field_test_seed(opt_, k), &cases.zeros[k]);
  });
}

// A verify() that runs its tests one after the other (inside a parallel region: a batch's
// confirmations side by side) first makes the cases no other has claimed, so that the confirmations
// that start together make the cases together, not each case in turn while the others wait for it.
void VerifyReference::make_unclaimed(const std::atomic<bool>* stop) const {
  const int n = opt_.tests + (opt_.float_check ? 1 : 0);
  for (int k; (k = cases_->unclaimed.fetch_add(1, std::memory_order_relaxed)) < n;) {
    if (stop && stop->load(std::memory_order_relaxed)) return;
    if (k < opt_.tests)
      make_field_case(k);
    else
      prepare_float_check();
  }
}

// Test k of verify(): field test k (its case made first if no verify() has made it), or the float64
// check after them. False, with nothing run, when the stop is raised before the candidate's part.
bool VerifyReference::run_test(int k, const KernelGraph& candidate, const std::atomic<bool>* stop, uint8_t& pass,
                               uint64_t& zeros, double& rel) const {
  auto stopping = [stop] { return stop && stop->load(std::memory_order_relaxed); };
  if (stopping()) return false;
  Cases& cases = *cases_;
  if (k == opt_.tests) {
    prepare_float_check();
    if (stopping()) return false;
    rel = float_error(candidate, nullptr);
    return true;
  }
  const bool mirage = opt_.field == FieldKind::Mirage;
  make_field_case(k);
  if (stopping()) return false;
  zeros += cases.zeros[k];
  pass = mirage ? field_test_on(cases.mirage[k], candidate, &zeros) : field_test_on(cases.wide[k], candidate, &zeros);
  return true;
}

VerifyResult VerifyReference::verify(const KernelGraph& candidate, const std::atomic<bool>* stop) const {
  if (!interface_mismatch(program_, candidate).empty()) return finish(candidate, {}, {}, 0);
  // The tests are independent: outside a parallel region they run side by side (a search's serial
  // phase confirms this way); the answer is the one running them in order gives.
  const int n = opt_.tests + (opt_.float_check ? 1 : 0);
  std::vector<uint8_t> pass(opt_.tests + 1, 0), ran(n, 0);  // a slot per test, the float check's too
  std::vector<uint64_t> zeros(opt_.tests + 1, 0);
  double rel = 0;
  FirstException failed;  // memory running out, say: it must not leave the parallel region
  if (omp_in_parallel()) failed.capture([&] { make_unclaimed(stop); });
#pragma omp parallel for schedule(dynamic, 1) if (n > 1 && !omp_in_parallel())
  for (int k = 0; k < n; ++k) failed.capture([&] { ran[k] = run_test(k, candidate, stop, pass[k], zeros[k], rel); });
  failed.rethrow();
  if (std::find(ran.begin(), ran.end(), 0) != ran.end()) {
    VerifyResult result;
    result.stopped = true;
    result.reason = "stopped before every test ran";
    return result;
  }
  pass.pop_back();
  zeros.pop_back();
  return finish(candidate, pass, zeros, rel);
}

VerifyResult VerifyReference::verify_with(const KernelGraph& candidate, std::span<const uint8_t> field_passes,
                                          FloatEvaluator* float_elsewhere) const {
  const bool all = std::all_of(field_passes.begin(), field_passes.end(), [](uint8_t p) { return p != 0; });
  const bool float_needed = all && opt_.float_check && interface_mismatch(program_, candidate).empty();
  return finish(candidate, field_passes, {}, float_needed ? float_error(candidate, float_elsewhere) : 0);
}

// The answer from the parts: the first failing field test, else the float64 check. Zero divisors
// (per test, where counted) are those of the tests up to the first failing one.
VerifyResult VerifyReference::finish(const KernelGraph& candidate, std::span<const uint8_t> field_passes,
                                     std::span<const uint64_t> zeros, double rel) const {
  VerifyResult result;
  result.reason = interface_mismatch(program_, candidate);
  if (!result.reason.empty()) return result;
  for (int t = 0; t < opt_.tests; ++t) {
    ++result.tests_run;
    if (t < static_cast<int>(zeros.size())) result.zero_divisors += zeros[t];
    if (t >= static_cast<int>(field_passes.size()) || !field_passes[t]) {
      result.reason = "finite-field test " + std::to_string(t + 1) + " of " + std::to_string(opt_.tests) + " (" +
                 std::string(name_of(opt_.field)) + " field) gives different outputs";
      return result;
    }
    ++result.tests_passed;
  }
  if (opt_.float_check) {
    result.float_rel_error = rel;
    if (!(result.float_rel_error < opt_.tolerance)) {
      result.reason = "float64 check: relative error " + std::to_string(result.float_rel_error) + " is not below " +
                 std::to_string(opt_.tolerance);
      return result;
    }
  }
  result.equivalent = true;
  return result;
}

}  // namespace ugs
