// A chunk of a batch as device work (plan.h).
#include "plan.h"

#include <algorithm>
#include <string>

#include "lower.h"
#include "tuning.h"
#include "ugs/eval/fingerprint.h"
#include "ugs/util/error.h"
#include "ugs/util/hash.h"

namespace ugs::cuda {
namespace {

uint64_t program_hash(const BlockProgram& p) {
  Hasher h;
  for (int a = 0; a < kAxes; ++a) h.add(uint64_t(p.grid[a]));
  h.add(uint64_t(p.loop)).add(p.n_tiles).add(p.n_loaders).add(p.n_savers).add(p.n_ops).add(p.n_loop_ops);
  for (int t = 0; t < p.n_tiles; ++t) {
    const TileDesc& d = p.tiles[t];
    for (int i = 0; i < 4; ++i) h.add(uint64_t(d.ext[i]));
    h.add(d.off).add(d.off_alt).add(uint64_t(d.rms_count)).add(d.zero_init);
  }
  auto io = [&](const Io& x) {
    for (int a = 0; a < kAxes; ++a) h.add(uint64_t(x.axis_step[a]));
    h.add(uint64_t(x.iter_step)).add(uint64_t(x.stride[0])).add(uint64_t(x.stride[1])).add(uint64_t(x.stride[2]));
    h.add(x.tile).add(x.narrow).add(x.pairs);
  };
  for (int l = 0; l < p.n_loaders; ++l) io(p.loaders[l]);
  for (int s = 0; s < p.n_savers; ++s) io(p.savers[s]);
  for (int k = 0; k < p.n_ops; ++k) {
    const TileOp& o = p.ops[k];
    h.add(uint64_t(o.kind)).add(o.fn).add(o.in0).add(o.in1).add(o.out).add(o.into).add(uint64_t(o.n));
    h.add(o.plain).add(o.sync_before).add(o.scratch).add(o.rows);
    for (int i = 0; i < 4; ++i) h.add(uint64_t(uint32_t(o.sa[i]))).add(uint64_t(uint32_t(o.sb[i])));
  }
  return h.value();
}

uint32_t intern(ChunkPlan& plan, const BlockProgram& p) {
  const uint64_t h = program_hash(p);
  const auto it = plan.program_of_hash.find(h);
  if (it != plan.program_of_hash.end() && plan.programs[it->second] == p) return it->second;
  const auto index = static_cast<uint32_t>(plan.programs.size());
  plan.programs.push_back(p);
  if (it == plan.program_of_hash.end()) plan.program_of_hash.emplace(h, index);
  return index;
}

// Arena-size class of a job: 0.. for shared memory (kSmemClassBytes within the device's limit), or
// kNumSmemClasses for device memory.
int arena_class(uint32_t arena, uint32_t smem_limit) {
  const uint64_t bytes = uint64_t{arena} * sizeof(FieldPair);
  for (int c = 0; c < tuning::kNumSmemClasses; ++c)
    if (bytes <= tuning::kSmemClassBytes[c] && bytes <= smem_limit) return c;
  return tuning::kNumSmemClasses;
}

void check_inputs(const KernelGraph& g, const Resident& r) {
  bool ok = g.num_inputs == static_cast<int>(r.inputs.size());
  for (int i = 0; ok && i < g.num_inputs; ++i) ok = g.shape(i) == r.input_shapes[i];
  if (!ok) throw InputError("fingerprint: a candidate's inputs are not the program's");
}

uint64_t element_sum(const Tensor<FieldPair>& t) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) sum += element_mix(static_cast<uint64_t>(i), t.data[i]);
  return sum;
}

}  // namespace

Resident resident_on_host(const FingerprintSetup& s) {
  Resident r;
  for (const auto& t : s.inputs) {
    r.input_shapes.push_back(t.shape);
    r.inputs.push_back(t.data.data());
    r.input_hashes.push_back(tensor_hash(t.data.data(), t.numel(), t.shape));
  }
  for (const auto& t : s.want) {
    r.want_shapes.push_back(t.shape);
    r.want.push_back(t.data.data());
    r.want_sums.push_back(element_sum(t));
  }
  return r;
}

void ChunkPlan::clear() {
  programs.clear();
  jobs.clear();
  launches.clear();
  compares.clear();
  compare_chunks = 0;
  match.clear();
  slot_first.clear();
  n_slots = 0;
  program_of_hash.clear();
}

uint64_t padded_elems(const Shape& s) { return (static_cast<uint64_t>(s.numel()) + 1) & ~uint64_t{1}; }

uint64_t computed_elems(const KernelGraph& g) {
  uint64_t n = 0;
  for (int t = g.num_inputs; t < g.num_tensors(); ++t) n += padded_elems(g.shape(t));
  return n;
}

size_t chunk_end(std::span<const KernelGraph* const> graphs, size_t begin, uint64_t budget_elems) {
  uint64_t used = 0;
  size_t e = begin;
  for (; e < graphs.size(); ++e) {
    const uint64_t n = computed_elems(*graphs[e]);
    if (e > begin && used + n > budget_elems) break;
    used += n;
  }
  return e;
}

void build_plan(std::span<const KernelGraph* const> graphs, size_t begin, size_t end, const Resident& r,
                FieldPair* tensors, const PlanLimits& limits, ChunkPlan& plan) {
  plan.clear();
  plan.begin = begin;
  plan.end = end;
  const size_t n = end - begin;
  // Tensors and slots, graph after graph.
  std::vector<std::array<const FieldPair*, kMaxTensors>> where(n);
  int waves = 0;
  uint64_t off = 0;
  for (size_t i = 0; i < n; ++i) {
    const KernelGraph& g = *graphs[begin + i];
    check_inputs(g, r);
    for (int t = 0; t < g.num_inputs; ++t) where[i][t] = r.inputs[t];
    for (int t = g.num_inputs; t < g.num_tensors(); ++t) {
      where[i][t] = tensors + off;
      off += padded_elems(g.shape(t));
    }
    plan.slot_first.push_back(plan.n_slots);
    plan.n_slots += static_cast<uint32_t>(g.num_tensors() - g.num_inputs);
    waves = std::max(waves, g.ops.size());
  }
  // Wave s: op s of every graph, one launch per arena class.
  std::vector<std::pair<int, Job>> wave;
  for (int s = 0; s < waves; ++s) {
    wave.clear();
    for (size_t i = 0; i < n; ++i) {
      const KernelGraph& g = *graphs[begin + i];
      if (s >= g.ops.size()) continue;
      const Lowered low = lower_kernel_op(g, s, limits.threads);
      Job job;
      job.program = intern(plan, low.prog);
      for (int l = 0; l < low.prog.n_loaders; ++l) job.src[l] = where[i][low.src[l]];
      for (int o = 0; o < low.prog.n_savers; ++o) {
        job.dst[o] = const_cast<FieldPair*>(where[i][low.dst[o]]);
        job.slot[o] = plan.slot_first[i] + static_cast<uint32_t>(low.dst[o] - g.num_inputs);
      }
      wave.emplace_back(arena_class(low.prog.arena, limits.smem_bytes), job);
    }
    std::stable_sort(wave.begin(), wave.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (size_t j = 0; j < wave.size(); ++j) {
      if (j == 0 || wave[j].first != wave[j - 1].first) {
        LaunchPlan l;
        l.first_job = static_cast<uint32_t>(plan.jobs.size());
        l.on_chip = wave[j].first < tuning::kNumSmemClasses;
        plan.launches.push_back(l);
      }
      LaunchPlan& l = plan.launches.back();
      Job job = wave[j].second;
      const BlockProgram& p = plan.programs[job.program];
      job.first_item = l.items;
      l.items += p.blocks();
      l.arena = std::max(l.arena, p.arena);
      ++l.n_jobs;
      plan.jobs.push_back(job);
    }
  }
  // Outputs to compare: those whose count, indices and shapes already agree with the program's.
  for (size_t i = 0; i < n; ++i) {
    const KernelGraph& g = *graphs[begin + i];
    bool ok = g.outputs.size() == static_cast<int>(r.want.size());
    for (int o = 0; ok && o < g.outputs.size(); ++o)
      ok = g.outputs[o] >= g.num_inputs && g.shape(g.outputs[o]) == r.want_shapes[o];
    plan.match.push_back(ok);
    for (int o = 0; ok && o < g.outputs.size(); ++o) {
      const int32_t t = g.outputs[o];
      CompareItem c;
      c.first_chunk = plan.compare_chunks;
      c.numel = static_cast<uint64_t>(g.shape(t).numel());
      c.got = where[i][t];
      c.want = r.want[o];
      c.want_sum = r.want_sums[o];
      c.slot = plan.slot_first[i] + static_cast<uint32_t>(t - g.num_inputs);
      c.graph = static_cast<uint32_t>(i);
      plan.compare_chunks += (c.numel + limits.compare_chunk - 1) / limits.compare_chunk;
      plan.compares.push_back(c);
    }
  }
}

void finish_fingerprints(std::span<const KernelGraph* const> graphs, const ChunkPlan& plan, const Resident& r,
                         const uint64_t* sums, const uint8_t* match, Fingerprints& out) {
  for (size_t i = 0; i < plan.end - plan.begin; ++i) {
    const KernelGraph& g = *graphs[plan.begin + i];
    uint64_t* h = &out.hashes[out.first[plan.begin + i]];
    for (int t = 0; t < g.num_inputs; ++t) h[t] = r.input_hashes[t];
    for (int t = g.num_inputs; t < g.num_tensors(); ++t)
      h[t] = finish_tensor_hash(sums[plan.slot_first[i] + t - g.num_inputs], g.shape(t));
    out.match[plan.begin + i] = match[i];
  }
}

}  // namespace ugs::cuda
