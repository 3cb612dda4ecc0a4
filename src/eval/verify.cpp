// Randomized equivalence: finite-field tests, then the float64 check.
#include "ugs/eval/verify.h"

#include <cmath>
#include <limits>

#include "ugs/eval/evaluator.h"
#include "ugs/eval/real_arith.h"
#include "ugs/util/hash.h"

namespace ugs {
namespace {

template <class A>
bool field_test_with(const KernelGraph& program, const KernelGraph& candidate, uint64_t seed, uint64_t* zeros) {
  A ar;
  ar.omega = A::draw_omega(splitmix64(seed ^ 0x6f6d656761ull));
  const auto inputs = make_inputs<A>(program, seed);
  EvalStats st;
  const auto want = evaluate(ar, program, std::span(inputs), &st);
  const auto got = evaluate(ar, candidate, std::span(inputs), &st);
  if (zeros) *zeros += st.zero_divisors;
  for (size_t i = 0; i < want.size(); ++i)
    if (want[i].data != got[i].data) return false;
  return true;
}

std::string shape_list(const KernelGraph& g, int first, int count, const int32_t* idx) {
  std::string r;
  for (int i = 0; i < count; ++i) {
    if (i) r += ' ';
    r += to_string(g.shape(idx ? idx[i] : first + i));
  }
  return r;
}

}  // namespace

std::string interface_mismatch(const KernelGraph& p, const KernelGraph& c) {
  bool same = p.num_inputs == c.num_inputs;
  for (int i = 0; same && i < p.num_inputs; ++i) same = p.shape(i) == c.shape(i);
  if (!same)
    return "inputs differ: program " + shape_list(p, 0, p.num_inputs, nullptr) + ", μGraph " +
           shape_list(c, 0, c.num_inputs, nullptr);
  same = p.outputs.size() == c.outputs.size();
  for (int i = 0; same && i < p.outputs.size(); ++i) same = p.shape(p.outputs[i]) == c.shape(c.outputs[i]);
  if (!same)
    return "outputs differ: program " + shape_list(p, 0, p.outputs.size(), p.outputs.begin()) + ", μGraph " +
           shape_list(c, 0, c.outputs.size(), c.outputs.begin());
  return {};
}

bool field_test(FieldKind field, const KernelGraph& program, const KernelGraph& candidate, uint64_t seed,
                uint64_t* zeros) {
  return with_field(field, [&](auto ar) {
    return field_test_with<decltype(ar)>(program, candidate, seed, zeros);
  });
}

double float_rel_error(const KernelGraph& program, const KernelGraph& candidate, uint64_t seed) {
  const RealArith ar;
  const auto inputs = make_inputs<RealArith>(program, seed);
  const auto want = evaluate(ar, program, std::span(inputs));
  const auto got = evaluate(ar, candidate, std::span(inputs));
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double diff = 0, scale = 0;
    for (size_t e = 0; e < want[i].data.size(); ++e) {
      // A NaN or an infinity in either result is an error, not a value std::max would skip.
      if (!std::isfinite(want[i].data[e]) || !std::isfinite(got[i].data[e]))
        return std::numeric_limits<double>::infinity();
      diff = std::max(diff, std::abs(want[i].data[e] - got[i].data[e]));
      scale = std::max(scale, std::abs(want[i].data[e]));
    }
    const double rel = scale > 0 ? diff / scale : diff;
    worst = std::max(worst, rel);
  }
  return worst;
}

VerifyResult verify(const KernelGraph& program, const KernelGraph& candidate, const VerifyOptions& opt) {
  VerifyResult r;
  r.reason = interface_mismatch(program, candidate);
  if (!r.reason.empty()) return r;
  for (int t = 0; t < opt.tests; ++t) {
    ++r.tests_run;
    if (!field_test(opt.field, program, candidate, splitmix64(opt.seed + t), &r.zero_divisors)) {
      r.reason = "finite-field test " + std::to_string(t + 1) + " of " + std::to_string(opt.tests) + " (" +
                 std::string(name_of(opt.field)) + " field) gives different outputs";
      return r;
    }
    ++r.tests_passed;
  }
  if (opt.float_check) {
    r.float_rel_error = float_rel_error(program, candidate, splitmix64(opt.seed ^ 0x666c6f6174ull));
    if (!(r.float_rel_error < opt.tolerance)) {
      r.reason = "float64 check: relative error " + std::to_string(r.float_rel_error) + " is not below " +
                 std::to_string(opt.tolerance);
      return r;
    }
  }
  r.equivalent = true;
  return r;
}

}  // namespace ugs
