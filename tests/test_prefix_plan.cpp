// A batch's fingerprints with shared leading ops (ugs/eval/prefix_plan.h): the plan covers every graph
// once with prefixes that really are equal, and the CPU backend gives a batch exactly the hashes and
// matches it gives each graph alone, in both fields, and stops a batch when the search's flag is up.
#include <gtest/gtest.h>
#include <omp.h>

#include <set>

#include "cuda_cases.h"
#include "test_util.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/prefix_plan.h"
#include "ugs/field/exp_table.h"

namespace ugs {
namespace {

// Every reference's batch (the reference, its partial states, its mutants), repeated, in one batch.
std::vector<KernelGraph> mixed_batch() {
  std::vector<KernelGraph> all;
  for (const char* name : test::kReferences)
    for (int copy = 0; copy < 2; ++copy)
      for (KernelGraph& g : test::reference_batch(name, true)) all.push_back(std::move(g));
  return all;
}

TEST(PrefixPlan, EveryGraphOnceAndSharedPrefixesAreEqual) {
  const std::vector<KernelGraph> graphs = mixed_batch();
  const std::vector<const KernelGraph*> ptrs = test::pointers(graphs);
  for (int pieces : {1, 2, 7}) {
    const PrefixPlan p = plan_prefixes(ptrs, pieces);
    ASSERT_EQ(p.order.size(), graphs.size());
    EXPECT_EQ(std::set<uint32_t>(p.order.begin(), p.order.end()).size(), graphs.size());
    ASSERT_EQ(p.groups.front(), 0u);
    ASSERT_EQ(p.groups.back(), graphs.size());
    for (size_t g = 0; g + 1 < p.groups.size(); ++g) {
      EXPECT_EQ(p.shared[p.groups[g]], 0u);
      EXPECT_LE(p.groups[g + 1] - p.groups[g], (graphs.size() + pieces - 1) / pieces);
      for (size_t k = p.groups[g] + 1; k < p.groups[g + 1]; ++k) {
        const KernelGraph &a = graphs[p.order[k - 1]], &b = graphs[p.order[k]];
        for (uint32_t i = 0; i < p.shared[k]; ++i) ASSERT_EQ(op_identity(a, i), op_identity(b, i));
        ASSERT_LE(p.shared[k], std::min(a.ops.size(), b.ops.size()));
      }
    }
    EXPECT_LT(p.evaluated, p.ops / 2) << pieces << " pieces";  // the copies and the mutants' prefixes
  }
}

TEST(PrefixPlan, TheCpuBackendGivesABatchWhatEachGraphGetsAlone) {
  const std::vector<KernelGraph> graphs = mixed_batch();
  for (const char* name : test::kReferences) {
    const KernelGraph program = load_program(name).graph;
    std::vector<KernelGraph> mine;
    for (const KernelGraph& g : graphs)
      if (g.num_inputs == program.num_inputs && g.shape(0) == program.shape(0)) mine.push_back(g);
    for (const KernelGraph& g : test::random_graphs(program, 20, 11)) mine.push_back(g);
    ASSERT_GT(mine.size(), 30u);
    for (FieldKind field : {FieldKind::Wide, FieldKind::Mirage}) {
      SCOPED_TRACE(std::string(name) + " " + std::string(name_of(field)));
      const auto backend = make_cpu_backend(FingerprintSetup::make(program, field, 5));
      const std::vector<const KernelGraph*> ptrs = test::pointers(mine);
      Fingerprints batch;
      backend->fingerprint(ptrs, batch);
      size_t matches = 0;
      for (size_t i = 0; i < mine.size(); ++i) {
        Fingerprints alone;
        backend->fingerprint(std::span(&ptrs[i], 1), alone);
        ASSERT_EQ(batch.match[i], alone.match[0]) << "graph " << i;
        const auto h = batch.of(i);
        ASSERT_TRUE(std::equal(h.begin(), h.end(), alone.hashes.begin(), alone.hashes.end())) << "graph " << i;
        matches += batch.match[i];
      }
      EXPECT_GE(matches, 2u);  // the reference, twice
    }
  }
}

// A thread's context carries the last graph's tensors from call to call: in any order, each graph
// gets what it gets alone.
TEST(PrefixPlan, AContextCarriesTheLastGraphFromCallToCall) {
  const KernelGraph program = load_program("gqa_small").graph;
  std::vector<KernelGraph> graphs = test::reference_batch("gqa_small", true);
  for (KernelGraph& g : test::random_graphs(program, 10, 3)) graphs.push_back(std::move(g));
  std::vector<KernelGraph> twice = graphs;  // the batch, then its reverse: prefixes shared both ways
  twice.insert(twice.end(), graphs.rbegin(), graphs.rend());
  const auto backend = make_cpu_backend(FingerprintSetup::make(program, FieldKind::Wide, 8));
  const auto ctx = backend->make_context();
  ASSERT_NE(ctx, nullptr);
  size_t matches = 0;
  for (const KernelGraph& g : twice) {
    const KernelGraph* p = &g;
    Fingerprints with, alone;
    backend->fingerprint_with(std::span(&p, 1), with, ctx.get());
    backend->fingerprint(std::span(&p, 1), alone);
    ASSERT_EQ(with.match, alone.match);
    ASSERT_EQ(with.hashes, alone.hashes);
    matches += with.match[0];
  }
  EXPECT_EQ(matches, 2u);  // the reference, both times
}

// A caller that reads only the matches (a search) lets the backend cut a graph whose last block graph
// differs from the program in two of its blocks: the matches are those of a whole evaluation, batch
// by batch and through a context, and a matching graph's hashes are whole too. Some mutants are cut.
TEST(PrefixPlan, AMatchOnlyCallCutsMutantsAndGivesTheSameMatches) {
  size_t cut = 0;
  for (const char* name : test::kReferences) {
    SCOPED_TRACE(name);
    const KernelGraph program = load_program(name).graph;
    std::vector<KernelGraph> graphs = test::reference_batch(name, true);
    for (KernelGraph& g : test::random_graphs(program, 10, 5)) graphs.push_back(std::move(g));
    std::vector<KernelGraph> twice = graphs;  // the batch, then its reverse: prefixes shared both ways
    twice.insert(twice.end(), graphs.rbegin(), graphs.rend());
    const std::vector<const KernelGraph*> ptrs = test::pointers(twice);
    for (FieldKind field : {FieldKind::Wide, FieldKind::Mirage}) {
      const auto backend = make_cpu_backend(FingerprintSetup::make(program, field, 4));
      Fingerprints whole, quick;
      quick.match_only = true;
      backend->fingerprint(ptrs, whole);
      backend->fingerprint(ptrs, quick);
      const auto ctx = backend->make_context();
      size_t matches = 0;
      for (size_t i = 0; i < twice.size(); ++i) {
        ASSERT_EQ(quick.match[i], whole.match[i]) << "graph " << i;
        Fingerprints one;
        one.match_only = true;
        backend->fingerprint_with(std::span(&ptrs[i], 1), one, ctx.get());
        ASSERT_EQ(one.match[0], whole.match[i]) << "graph " << i << " through the context";
        const auto a = quick.of(i), b = whole.of(i);
        if (whole.match[i]) {
          ASSERT_TRUE(std::equal(a.begin(), a.end(), b.begin(), b.end())) << "graph " << i;
          ++matches;
        }
        cut += !std::equal(a.begin(), a.end(), b.begin(), b.end());
      }
      EXPECT_EQ(matches, 2u);  // the reference, both ways
    }
  }
  EXPECT_GT(cut, 0u);
}

// The look at a graph whose last block graph reads a block graph before it evaluates that one only
// where the look reads it (evaluate_sampled_cone): the look's verdict is the one it gives with that
// op evaluated whole, against the program's outputs and against outputs changed where the look's
// first block saves. It applies to gqa_small's `mirage` μGraph (its first block graph's 128 blocks, of
// which the second one's first and last blocks read 32); the backend's look then keeps its match.
TEST(PrefixPlan, TheLookEvaluatesTheBlockGraphBeforeTheLastOnlyWhereItReads) {
  const Program p = load_program("gqa_small");
  std::vector<KernelGraph> graphs = test::reference_batch("gqa_small", true);
  graphs.push_back(test::reference("gqa_small_mirage"));
  const FingerprintSetup setup = FingerprintSetup::make(p.graph, FieldKind::Wide, 3);
  WideArith ar;
  ar.omega = setup.omega;
  const std::vector<uint32_t> exp = exp_table<WideArith>(setup.omega);
  ar.exp_table = exp.data();
  const auto inputs = std::span<const Tensor<FieldPair>>(setup.inputs);
  std::vector<Tensor<FieldPair>> changed = setup.want;
  changed[0].data[0].p ^= 1;
  size_t applied = 0, cut = 0;
  for (size_t i = 0; i < graphs.size(); ++i) {
    const KernelGraph& g = graphs[i];
    const int producer = static_cast<int>(g.ops.size()) - 2;
    if (producer < 0 || static_cast<size_t>(g.outputs.size()) != setup.want.size()) continue;
    std::vector<Tensor<FieldPair>> whole, partial;
    evaluate_ops_range(ar, g, inputs, whole, 0, producer + 1);
    evaluate_ops_range(ar, g, inputs, partial, 0, producer);
    if (!evaluate_sampled_cone(ar, g, inputs, partial, producer)) continue;
    ++applied;
    for (const auto& want : {std::span<const Tensor<FieldPair>>(setup.want), std::span<const Tensor<FieldPair>>(changed)}) {
      const bool agree = sampled_outputs_agree(ar, g, inputs, whole, want);
      ASSERT_EQ(sampled_outputs_agree(ar, g, inputs, partial, want), agree) << "graph " << i;
      cut += !agree;
    }
  }
  EXPECT_GE(applied, 1u);
  EXPECT_GE(cut, 1u);
  const auto backend = make_cpu_backend(FingerprintSetup::make(p.graph, FieldKind::Wide, 3));
  const KernelGraph* reference = &graphs.back();
  Fingerprints quick;
  quick.match_only = true;
  backend->fingerprint(std::span(&reference, 1), quick);
  EXPECT_EQ(quick.match[0], 1);
}

// A graph cut in its last op leaves that op's tensors unmade or partial: the next graph that begins
// with the same ops makes that op again, through a context and in a batch alike. Here gqa_small's
// reference after its first block graph alone, with the wrong output (cut), then the reference.
TEST(PrefixPlan, AGraphAfterACutOneMakesTheCutOpAgain) {
  const KernelGraph program = load_program("gqa_small").graph, reference = test::reference("gqa_small");
  KernelGraph head = reference;
  head.outputs.clear();
  while (head.ops.size() > 1) head.pop_op();
  ASSERT_EQ(head.ops[0].op.kind, OpKind::Block);
  ASSERT_GT(head.blocks[0].num_blocks(), 4);
  const int32_t second = head.ops[0].first_out + 1;
  ASSERT_EQ(head.set_outputs(std::span(&second, 1)), Verdict::Ok);
  const std::vector<KernelGraph> graphs = {head, reference, head, head, reference};
  const std::vector<const KernelGraph*> ptrs = test::pointers(graphs);
  const auto backend = make_cpu_backend(FingerprintSetup::make(program, FieldKind::Wide, 6));
  const std::vector<uint8_t> want = {0, 1, 0, 0, 1};
  Fingerprints batch;
  batch.match_only = true;
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);  // one group, not cut in pieces: the reference follows a cut head in it
  backend->fingerprint(ptrs, batch);
  omp_set_num_threads(threads);
  EXPECT_EQ(batch.match, want);
  const auto ctx = backend->make_context();
  for (size_t i = 0; i < graphs.size(); ++i) {
    Fingerprints one;
    one.match_only = true;
    backend->fingerprint_with(std::span(&ptrs[i], 1), one, ctx.get());
    EXPECT_EQ(one.match[0], want[i]) << "graph " << i;
  }
}

// A raised stop flag (the time limit) ends a batch call before its next graph: nothing is evaluated,
// and a classification gives no classes (a caller could otherwise take half-made ones as known).
TEST(PrefixPlan, TheCpuBackendEvaluatesNothingOnceTheStopIsRaised) {
  test::expect_nothing_evaluated_once_the_stop_is_raised([](const KernelGraph& program, FieldKind f, uint64_t seed) {
    return make_cpu_backend(FingerprintSetup::make(program, f, seed));
  });
}

// Batches (a bfs driver's feed) for programs whose candidates cost milliseconds, each where it arises
// for the others: every full-size program but ntrans, no _small one.
TEST(PrefixPlan, TheCpuBackendWantsBatchesOfFullSizeCandidatesOnly) {
  for (const char* name : {"lora", "gqa_small", "mqa_small", "ntrans"}) {
    const KernelGraph program = load_program(name).graph;
    const auto backend = make_cpu_backend(FingerprintSetup::make(program, FieldKind::Wide, 1));
    EXPECT_EQ(backend->wants_batches(), std::string_view(name) == "lora") << name;
  }
}

}  // namespace
}  // namespace ugs
