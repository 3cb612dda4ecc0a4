// The CUDA backend's chunk plans (cuda/plan.h) against a plain reference: build_plan lowers each
// distinct kernel op once (a memo keyed by lower.h's same_lowering); its plans must equal those of
// lowering every op of every graph, field for field, on batches whose candidates share ops, share
// tensor indices with different shapes, and differ in one op.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>

#include "cuda_cases.h"
#include "lower.h"
#include "plan.h"
#include "test_util.h"
#include "tuning.h"

namespace ugs {
namespace {

int arena_class(uint32_t arena, uint32_t smem_limit) {
  const uint64_t bytes = uint64_t{arena} * sizeof(FieldPair);
  for (int c = 0; c < cuda::tuning::kNumSmemClasses; ++c)
    if (bytes <= cuda::tuning::kSmemClassBytes[c] && bytes <= smem_limit) return c;
  return cuda::tuning::kNumSmemClasses;
}

using Where = std::vector<std::array<const FieldPair*, kMaxTensors>>;

// Each graph's tensor addresses: inputs resident, the rest in `tensors` graph after graph; and slots.
Where reference_tensors(std::span<const KernelGraph* const> graphs, const cuda::Resident& r, FieldPair* tensors,
                        cuda::ChunkPlan& want) {
  Where where(graphs.size());
  for (size_t i = 0; i < graphs.size(); ++i) {
    const KernelGraph& g = *graphs[i];
    for (int t = 0; t < g.num_tensors(); ++t) {
      where[i][t] = t < g.num_inputs ? r.inputs[t] : tensors;
      if (t >= g.num_inputs) tensors += cuda::padded_elems(g.shape(t));
    }
    want.slot_first.push_back(want.n_slots);
    want.n_slots += static_cast<uint32_t>(g.num_tensors() - g.num_inputs);
  }
  return where;
}

// The jobs and launches build_plan must make, every op lowered on its own: wave s holds op s of every
// graph, its jobs ordered by arena class then graph, programs numbered in order of first use.
void reference_jobs(std::span<const KernelGraph* const> graphs, const Where& where, const cuda::PlanLimits& limits,
                    cuda::ChunkPlan& want) {
  int waves = 0;
  for (const KernelGraph* g : graphs) waves = std::max(waves, g->ops.size());
  for (int s = 0; s < waves; ++s) {
    std::vector<std::pair<int, cuda::Job>> wave;
    for (size_t i = 0; i < graphs.size(); ++i) {
      const KernelGraph& g = *graphs[i];
      if (s >= g.ops.size()) continue;
      const cuda::Lowered low = cuda::lower_kernel_op(g, s, limits.threads);
      const auto p = std::find(want.programs.begin(), want.programs.end(), low.prog);
      cuda::Job job;
      job.program = static_cast<uint32_t>(p - want.programs.begin());
      if (p == want.programs.end()) want.programs.push_back(low.prog);
      for (int l = 0; l < low.prog.n_loaders; ++l) job.src[l] = where[i][low.src[l]];
      for (int o = 0; o < low.prog.n_savers; ++o) {
        job.dst[o] = const_cast<FieldPair*>(where[i][low.dst[o]]);
        job.slot[o] = want.slot_first[i] + static_cast<uint32_t>(low.dst[o] - g.num_inputs);
      }
      wave.emplace_back(arena_class(low.prog.arena, limits.smem_bytes), job);
    }
    std::stable_sort(wave.begin(), wave.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t j = 0; j < wave.size(); ++j) {
      if (j == 0 || wave[j].first != wave[j - 1].first) {
        cuda::LaunchPlan l;
        l.first_job = static_cast<uint32_t>(want.jobs.size());
        l.on_chip = wave[j].first < cuda::tuning::kNumSmemClasses;
        want.launches.push_back(l);
      }
      cuda::LaunchPlan& l = want.launches.back();
      cuda::Job job = wave[j].second;
      job.first_item = l.items;
      l.items += want.programs[job.program].blocks();
      l.arena = std::max(l.arena, want.programs[job.program].arena);
      ++l.n_jobs;
      want.jobs.push_back(job);
    }
  }
}

void expect_same_jobs(const cuda::ChunkPlan& got, const cuda::ChunkPlan& want) {
  EXPECT_EQ(got.slot_first, want.slot_first);
  EXPECT_EQ(got.n_slots, want.n_slots);
  ASSERT_EQ(got.programs.size(), want.programs.size());
  for (size_t p = 0; p < want.programs.size(); ++p) EXPECT_TRUE(got.programs[p] == want.programs[p]) << "program " << p;
  ASSERT_EQ(got.jobs.size(), want.jobs.size());
  for (size_t j = 0; j < want.jobs.size(); ++j) {
    const cuda::Job &a = got.jobs[j], &b = want.jobs[j];
    EXPECT_EQ(a.program, b.program) << "job " << j;
    EXPECT_EQ(a.first_item, b.first_item) << "job " << j;
    EXPECT_TRUE(std::equal(a.src, a.src + cuda::kMaxProgIo, b.src)) << "job " << j;
    EXPECT_TRUE(std::equal(a.dst, a.dst + cuda::kMaxProgIo, b.dst)) << "job " << j;
    EXPECT_TRUE(std::equal(a.slot, a.slot + cuda::kMaxProgIo, b.slot)) << "job " << j;
  }
  ASSERT_EQ(got.launches.size(), want.launches.size());
  for (size_t i = 0; i < want.launches.size(); ++i) {
    const cuda::LaunchPlan &a = got.launches[i], &b = want.launches[i];
    EXPECT_TRUE(a.first_job == b.first_job && a.n_jobs == b.n_jobs && a.items == b.items && a.arena == b.arena &&
                a.on_chip == b.on_chip)
        << "launch " << i;
  }
}

// Every prefix of the program and of its reference μGraphs (without outputs), each extended by every
// predefined op add_op accepts: candidates as a search's batch holds them.
std::vector<KernelGraph> children_of_prefixes(const std::string& name) {
  std::vector<KernelGraph> states;
  std::vector<KernelGraph> roots{load_program(name).graph};
  for (const auto& [program, graph] : test::kEveryReference)
    if (name == program) roots.push_back(test::reference(graph));
  for (KernelGraph g : roots) {
    g.outputs.clear();
    for (; !g.ops.empty(); g.pop_op()) states.push_back(g);
    states.push_back(g);
  }
  std::vector<KernelGraph> r;
  for (const KernelGraph& s : states) {
    r.push_back(s);
    for (int kind = 0; kind <= static_cast<int>(OpKind::RmsNorm); ++kind)
      for (int32_t a = 0; a < s.num_tensors(); ++a)
        for (int32_t b = 0; b < s.num_tensors(); ++b) {
          Op op;
          op.kind = static_cast<OpKind>(kind);
          op.in = {a, arity(op.kind) == 2 ? b : -1};
          if (arity(op.kind) != 2 && b > 0) continue;
          for (op.dim = 0; op.dim < (has_dim(op.kind) ? s.shape(a).rank : 1); ++op.dim) {
            KernelGraph c = s;
            if (!s.ops.full() && c.add_op(op) == Verdict::Ok) r.push_back(c);
          }
        }
  }
  return r;
}

void expect_plans_match_reference(const std::string& name, const std::vector<KernelGraph>& batch) {
  const FingerprintSetup setup = FingerprintSetup::make(load_program(name).graph, FieldKind::Wide, 1);
  const cuda::Resident r = cuda::resident_on_host(setup);
  const auto ptrs = test::pointers(batch);
  uint64_t elems = 0;
  for (const KernelGraph& g : batch) elems += cuda::computed_elems(g);
  std::vector<FieldPair> tensors(elems);
  cuda::ChunkPlan plan;  // reused, as the backends reuse theirs
  for (const auto& [threads, smem] : {std::pair{256, 227u << 10}, std::pair{32, 20u << 10}}) {
    cuda::PlanLimits limits;
    limits.threads = threads;
    limits.smem_bytes = smem;
    for (const auto& [begin, end] : {std::pair<size_t, size_t>{0, batch.size()}, {batch.size() / 3, batch.size() - 1}}) {
      SCOPED_TRACE(name + ": " + std::to_string(batch.size()) + " graphs, " + std::to_string(threads) +
                   " threads, [" + std::to_string(begin) + ", " + std::to_string(end) + ")");
      cuda::build_plan(ptrs, begin, end, r, tensors.data(), limits, plan);
      const auto chunk = std::span(ptrs).subspan(begin, end - begin);
      cuda::ChunkPlan want;
      const Where where = reference_tensors(chunk, r, tensors.data(), want);
      reference_jobs(chunk, where, limits, want);
      expect_same_jobs(plan, want);
      for (const cuda::CompareItem& c : plan.compares)  // an output's address by its slot
        EXPECT_EQ(c.got, where[c.graph][c.slot - want.slot_first[c.graph] + chunk[c.graph]->num_inputs]);
    }
  }
}

TEST(CudaPlan, MemoizedLoweringGivesThePlanOfLoweringEveryOp) {
  for (const std::string& name : test::small_programs()) {
    const std::vector<KernelGraph> kids = children_of_prefixes(name);
    ASSERT_GT(kids.size(), 50u) << name;
    expect_plans_match_reference(name, kids);
    expect_plans_match_reference(name, test::random_graphs(load_program(name).graph, 200, 7));
  }
  for (const char* name : test::kReferences) expect_plans_match_reference(name, test::reference_batch(name, true));
}

// The memo's key: ops same_lowering calls the same hash the same and lower to the same Lowered.
TEST(CudaPlan, OpsTheSameForLoweringLowerTheSame) {
  for (const std::string& name : test::small_programs()) {
    const std::vector<KernelGraph> kids = children_of_prefixes(name);
    std::vector<std::pair<const KernelGraph*, int>> ops;
    for (const KernelGraph& g : kids)
      for (int k = 0; k < g.ops.size(); ++k) ops.emplace_back(&g, k);
    for (size_t i = 0; i < ops.size(); i += 7)  // a sample of the pairs: all of them take minutes
      for (size_t j = i % 5; j < ops.size(); j += 5) {
        const auto [a, ka] = ops[i];
        const auto [b, kb] = ops[j];
        if (!cuda::same_lowering(*a, ka, *b, kb)) continue;
        ASSERT_EQ(cuda::lowering_hash(*a, ka), cuda::lowering_hash(*b, kb)) << name;
        const cuda::Lowered x = cuda::lower_kernel_op(*a, ka, 64), y = cuda::lower_kernel_op(*b, kb, 64);
        ASSERT_TRUE(x.prog == y.prog) << name;
        ASSERT_TRUE(std::equal(x.src, x.src + cuda::kMaxProgIo, y.src) && std::equal(x.dst, x.dst + cuda::kMaxProgIo, y.dst))
            << name;
      }
  }
}


// [begin, end) of the arena, for the divisors' region against the tiles'.
struct Region {
  uint64_t begin = 0, end = 0;
  bool meets(const Region& o) const { return begin < o.end && o.begin < end; }
};

// The regions of a program's tiles in use (both copies of a refilled loader tile); a tile nothing
// reads or writes has none.
std::vector<Region> tile_regions(const cuda::BlockProgram& p) {
  std::vector<bool> used(p.n_tiles);
  for (int l = 0; l < p.n_loaders; ++l) used[p.loaders[l].tile] = true;
  for (int s = 0; s < p.n_savers; ++s) used[p.savers[s].tile] = true;
  for (int k = 0; k < p.n_ops; ++k) {
    const cuda::TileOp& o = p.ops[k];
    used[o.in0] = used[o.out] = true;
    if (o.kind == cuda::TileOpKind::Zip || o.kind == cuda::TileOpKind::Matmul) used[o.in1] = true;
  }
  std::vector<Region> r;
  for (int t = 0; t < p.n_tiles; ++t) {
    const cuda::TileDesc& d = p.tiles[t];
    if (!used[t]) continue;
    r.push_back({d.off, d.off + d.numel});
    if (d.off_alt != d.off) r.push_back({d.off_alt, d.off_alt + d.numel});
  }
  return r;
}

// A division by a broadcast divisor (a softmax's row sums) prepares each divisor once, into a region
// of the arena of its own: inside the arena, clear of every tile, as rms_norm's row divisors are.
// Divisions without a broadcast divisor prepare none.
TEST(CudaPlan, BroadcastDivisorsArePreparedInARegionOfTheirOwn) {
  int broadcast = 0, plain = 0, rms = 0;
  for (const std::string& name : test::small_programs())
    for (const KernelGraph& g : children_of_prefixes(name))
      for (int k = 0; k < g.ops.size(); ++k) {
        const cuda::BlockProgram p = cuda::lower_kernel_op(g, k, 256).prog;
        const std::vector<Region> tiles = tile_regions(p);
        for (int i = 0; i < p.n_ops; ++i) {
          const cuda::TileOp& o = p.ops[i];
          const bool div = o.kind == cuda::TileOpKind::Zip && o.fn == static_cast<uint8_t>(OpKind::Div);
          if (!div && o.kind != cuda::TileOpKind::RmsNorm) continue;
          const bool prepared = cuda::prepares_divisors(p, o);
          if (div) {
            const bool bcast = p.tiles[o.in1].numel < p.tiles[o.out].numel;
            ASSERT_EQ(prepared, bcast) << name;
            ++(bcast ? broadcast : plain);
            if (!bcast) continue;
          } else {
            ASSERT_FALSE(prepared) << name;
            ++rms;
          }
          const uint32_t n = div ? p.tiles[o.in1].numel : p.tiles[o.out].numel / uint32_t(o.n);
          const Region d{o.divisors, uint64_t{o.divisors} + n};
          ASSERT_LE(d.end, p.arena) << name;
          for (const Region& t : tiles) ASSERT_FALSE(d.meets(t)) << name << " op " << k;
        }
      }
  EXPECT_GT(broadcast, 0);
  EXPECT_GT(plain, 0);
  EXPECT_GT(rms, 0);
}

}  // namespace
}  // namespace ugs
