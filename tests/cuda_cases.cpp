#include "cuda_cases.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <random>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include "reference_mutants.h"
#include "test_util.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/real_arith.h"
#include "ugs/eval/verify.h"

namespace ugs::test {

std::vector<std::string> small_programs() {
  std::vector<std::string> r;
  for (const BuiltinProgram& b : builtin_programs()) {
    const std::string name(b.name);
    if (name.size() > 6 && name.ends_with("_small")) r.push_back(name);
  }
  return r;
}

std::vector<KernelGraph> reference_batch(const std::string& name, bool with_mutants) {
  std::vector<KernelGraph> r;
  KernelGraph g = reference(name);
  r.push_back(g);
  g.outputs.clear();
  for (; !g.ops.empty(); g.pop_op()) r.push_back(g);
  if (with_mutants)
    for (const MutantCase& m : all_mutant_cases())
      if (m.name.rfind(name + ": ", 0) == 0) r.push_back(m.graph);
  return r;
}

std::vector<std::pair<std::string, std::string>> every_reference(bool small) {
  std::vector<std::pair<std::string, std::string>> r;
  for (const auto& [program, name] : kEveryReference)
    if (std::string_view(program).ends_with("_small") == small) r.emplace_back(program, name);
  return r;
}

std::vector<KernelGraph> random_graphs(const KernelGraph& program, int n, uint64_t seed) {
  static constexpr OpKind kKinds[] = {OpKind::Matmul, OpKind::Add,    OpKind::Mul,    OpKind::Div,
                                      OpKind::Exp,    OpKind::Sqrt,   OpKind::Square, OpKind::Silu,
                                      OpKind::ReduceSum, OpKind::RmsNorm};
  std::mt19937_64 rng(seed);
  std::vector<KernelGraph> r;
  while (static_cast<int>(r.size()) < n) {
    KernelGraph g;
    for (int i = 0; i < program.num_inputs; ++i) g.add_input(program.shape(i));
    const int ops = 1 + static_cast<int>(rng() % 4);
    for (int tries = 0; g.ops.size() < ops && tries < 200; ++tries) {
      Op op;
      op.kind = kKinds[rng() % std::size(kKinds)];
      op.in = {static_cast<int32_t>(rng() % g.num_tensors()), static_cast<int32_t>(rng() % g.num_tensors())};
      op.dim = static_cast<int8_t>(rng() % g.shape(op.in[0]).rank);
      if (op.kind != OpKind::ReduceSum) op.dim = 0;
      if (arity(op.kind) == 1) op.in[1] = -1;
      if (g.add_op(op) != Verdict::Ok) continue;
    }
    if (g.ops.empty()) continue;
    if (rng() % 2) {
      const int32_t last = g.num_tensors() - 1;
      g.set_outputs(std::span(&last, 1));
    }
    r.push_back(g);
  }
  return r;
}

std::vector<const KernelGraph*> pointers(const std::vector<KernelGraph>& graphs) {
  std::vector<const KernelGraph*> r;
  for (const KernelGraph& g : graphs) r.push_back(&g);
  return r;
}

std::string compare_backends(Backend& a, Backend& b, std::span<const KernelGraph* const> graphs) {
  Fingerprints fa, fb;
  a.fingerprint(graphs, fa);
  b.fingerprint(graphs, fb);
  if (fa.hashes.size() != fb.hashes.size() || fa.first != fb.first) return "different hash layouts";
  for (size_t i = 0; i < graphs.size(); ++i) {
    const auto ha = fa.of(i), hb = fb.of(i);
    for (size_t t = 0; t < ha.size(); ++t)
      if (ha[t] != hb[t]) return "graph " + std::to_string(i) + ": tensor " + std::to_string(t) + " hashes differ";
    if (fa.match[i] != fb.match[i])
      return "graph " + std::to_string(i) + ": match " + std::to_string(fa.match[i]) + " vs " + std::to_string(fb.match[i]);
  }
  return "";
}

std::string compare_classes(Backend& a, Backend& b, std::span<const KernelGraph* const> graphs) {
  std::vector<double> cost(graphs.size());
  std::vector<uint64_t> tie(graphs.size());
  for (size_t i = 0; i < graphs.size(); ++i) {
    cost[i] = static_cast<double>(i % 3);
    tie[i] = (i * 7) % 5;
  }
  FunctionClasses ca, cb;
  a.classify_functions(graphs, cost, tie, ca);
  b.classify_functions(graphs, cost, tie, cb);
  if (ca.keys.size() != cb.keys.size())
    return std::to_string(ca.keys.size()) + " vs " + std::to_string(cb.keys.size()) + " classes";
  for (size_t j = 0; j < ca.keys.size(); ++j)
    if (ca.keys[j] != cb.keys[j] || ca.best[j] != cb.best[j])
      return "class " + std::to_string(j) + ": graph " + std::to_string(ca.best[j]) + " vs " + std::to_string(cb.best[j]);
  return "";
}

namespace {

constexpr FieldKind kFields[] = {FieldKind::Wide, FieldKind::Mirage};

// In each field: the backend made for `program` against the CPU's on `graphs`, then `check` on the
// tested backend's own fingerprints.
void expect_matches_cpu(const std::string& what, const KernelGraph& program, const std::vector<KernelGraph>& graphs,
                        uint64_t seed, const BackendMaker& make,
                        const std::function<void(FieldKind, const Fingerprints&)>& check = {}) {
  const auto ptrs = pointers(graphs);
  for (FieldKind f : kFields) {
    SCOPED_TRACE(what + " " + std::string(name_of(f)));
    const auto cpu = make_cpu_backend(FingerprintSetup::make(program, f, seed));
    const auto tested = make(program, f, seed);
    ASSERT_TRUE(tested);
    EXPECT_EQ(compare_backends(*cpu, *tested, ptrs), "");
    if (!check) continue;
    Fingerprints fp;
    tested->fingerprint(ptrs, fp);
    check(f, fp);
  }
}

}  // namespace

void expect_programs_match_themselves(const BackendMaker& make) {
  for (const std::string& name : small_programs()) {
    const KernelGraph p = load_program(name).graph;
    expect_matches_cpu(name, p, {p}, 11, make, [](FieldKind, const Fingerprints& fp) { EXPECT_EQ(fp.match[0], 1); });
  }
}

void expect_reference_batch_matches_cpu(const std::string& program, const std::string& reference, bool with_mutants,
                                        const BackendMaker& make) {
  expect_matches_cpu(reference, load_program(program).graph, reference_batch(reference, with_mutants), 5, make,
                     [](FieldKind f, const Fingerprints& fp) {
                       EXPECT_EQ(fp.match[0], 1) << "the reference";
                       for (size_t i = 1; i < fp.match.size() && f == FieldKind::Wide; ++i) EXPECT_EQ(fp.match[i], 0) << i;
                     });
}

void expect_random_graphs_match_cpu(int per_program, const BackendMaker& make) {
  for (const std::string& name : small_programs()) {
    const KernelGraph p = load_program(name).graph;
    expect_matches_cpu(name, p, random_graphs(p, per_program, 99), 21, make);
  }
}

void expect_nothing_evaluated_once_the_stop_is_raised(const BackendMaker& make) {
  const KernelGraph program = load_program("gqa_small").graph;
  const std::vector<KernelGraph> graphs = reference_batch("gqa_small", true);
  const std::vector<const KernelGraph*> ptrs = pointers(graphs);
  const auto backend = make(program, FieldKind::Wide, 8);
  ASSERT_TRUE(backend);
  const std::vector<double> cost(graphs.size(), 1.0);
  const std::vector<uint64_t> tie(graphs.size(), 0);
  for (const bool up : {false, true}) {
    SCOPED_TRACE(up ? "stop raised" : "stop down");
    const std::atomic<bool> stop{up};
    Fingerprints fp;
    backend->fingerprint(ptrs, fp, &stop);
    ASSERT_EQ(fp.match.size(), graphs.size());
    const size_t zero = std::count(fp.hashes.begin(), fp.hashes.end(), uint64_t{0});
    const size_t matches = std::count(fp.match.begin(), fp.match.end(), uint8_t{1});
    EXPECT_EQ(zero == fp.hashes.size(), up);
    EXPECT_EQ(matches, up ? 0u : 1u);  // the reference
    FunctionClasses classes;
    backend->classify_functions(ptrs, cost, tie, classes, &stop);
    EXPECT_EQ(classes.keys.empty(), up);
    EXPECT_EQ(classes.best.size(), classes.keys.size());
  }
}

namespace {

// Equal to rounding: the device sums in another order. NaNs and infinities must agree exactly.
bool close(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::abs(a - b) <= 1e-10 * std::max({1.0, std::abs(a), std::abs(b)});
}

// "" when tested's outputs of g are the CPU's to rounding, else where they differ.
std::string compare_float_outputs(FloatEvaluator& tested, const KernelGraph& g, std::span<const Tensor<double>> inputs) {
  const std::vector<Tensor<double>> want = evaluate(RealArith{}, g, inputs);
  const std::vector<std::vector<double>> got = tested.outputs(g);
  if (got.size() != want.size()) return "output count";
  for (size_t o = 0; o < want.size(); ++o) {
    if (got[o].size() != want[o].data.size()) return "output " + std::to_string(o) + " size";
    for (size_t e = 0; e < got[o].size(); ++e)
      if (!close(want[o].data[e], got[o][e]))
        return "output " + std::to_string(o) + " element " + std::to_string(e) + ": " + std::to_string(got[o][e]) +
               " for " + std::to_string(want[o].data[e]);
  }
  return "";
}

}  // namespace

void expect_float_outputs_match_cpu(const FloatMaker& make) {
  for (const std::string& name : small_programs()) {
    SCOPED_TRACE(name);
    const KernelGraph p = load_program(name).graph;
    std::vector<KernelGraph> graphs = random_graphs(p, 24, 31);
    graphs.push_back(p);
    for (const auto& [program, reference] : every_reference(true))
      if (program == name)
        for (KernelGraph& g : reference_batch(reference, true)) graphs.push_back(std::move(g));
    const VerifyOptions opt;
    const auto tested = make(p, float_check_seed(opt));
    ASSERT_TRUE(tested);
    const auto inputs = make_inputs<RealArith>(p, float_check_seed(opt));
    for (size_t i = 0; i < graphs.size(); ++i) EXPECT_EQ(compare_float_outputs(*tested, graphs[i], inputs), "") << i;
    const VerifyReference ref(p, opt);
    const std::vector<uint8_t> passed(opt.tests, 1);  // the float64 check decides
    int equivalent = 0;
    for (size_t i = 0; i < graphs.size(); ++i) {
      const VerifyResult cpu = ref.verify_with(graphs[i], passed), here = ref.verify_with(graphs[i], passed, tested.get());
      EXPECT_EQ(here.equivalent, cpu.equivalent) << i;
      EXPECT_TRUE(close(here.float_rel_error, cpu.float_rel_error)) << i << ": " << here.float_rel_error;
      equivalent += cpu.equivalent;
    }
    EXPECT_GE(equivalent, 1) << "the program itself";
    EXPECT_LT(equivalent, static_cast<int>(graphs.size())) << "graphs that compute something else";
  }
}

void expect_function_classes_match_cpu(const BackendMaker& make) {
  for (const std::string& name : small_programs()) {
    const KernelGraph p = load_program(name).graph;
    std::vector<KernelGraph> batch = random_graphs(p, 30, 17);
    batch.push_back(p);
    for (size_t i = 0; i < 31; i += 2) batch.push_back(batch[i]);
    for (size_t i = 0; i < 31; i += 5) batch.push_back(batch[i]);
    const auto ptrs = pointers(batch);
    for (FieldKind f : kFields) {
      SCOPED_TRACE(name + " " + std::string(name_of(f)));
      const auto cpu = make_cpu_backend(FingerprintSetup::make(p, f, 23));
      const auto tested = make(p, f, 23);
      ASSERT_TRUE(tested);
      EXPECT_EQ(compare_classes(*cpu, *tested, ptrs), "");
      FunctionClasses c;
      tested->classify_functions(ptrs, std::vector<double>(batch.size(), 1.0), std::vector<uint64_t>(batch.size(), 0), c);
      EXPECT_LE(c.keys.size(), 31u) << "the copies share their originals' classes";
      EXPECT_TRUE(std::is_sorted(c.keys.begin(), c.keys.end()));
    }
  }
}

}  // namespace ugs::test
