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
    h.add(o.plain).add(o.sync_before).add(o.scratch).add(o.divisors);
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

void adopt_inputs(const KernelGraph& program, std::span<const FieldPair* const> where,
                  std::span<const uint64_t> sums, Resident& r) {
  r = Resident{};
  for (int i = 0; i < program.num_inputs; ++i) {
    r.input_shapes.push_back(program.shape(i));
    r.inputs.push_back(where[i]);
    r.input_hashes.push_back(finish_tensor_hash(sums[i], program.shape(i)));
  }
}

std::vector<const FieldPair*> adopt_outputs(const KernelGraph& program, const ChunkPlan& plan, const uint64_t* sums,
                                            std::span<const uint64_t> input_sums, Resident& r) {
  std::vector<const FieldPair*> where;
  for (int32_t t : program.outputs) {
    const bool input = t < program.num_inputs;
    r.want_shapes.push_back(program.shape(t));
    r.want_sums.push_back(input ? input_sums[t] : sums[plan.slot_first[0] + t - program.num_inputs]);
    where.push_back(plan.where[0][t]);  // an input's is r.inputs[t]
  }
  return where;
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
  lowered.clear();
  lowered_of_hash.clear();
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

namespace {

// Each graph's tensor addresses (inputs resident, the rest laid out in `tensors` graph after graph)
// and element-sum slots; returns the most ops of any graph (the number of waves).
int place_tensors(std::span<const KernelGraph* const> graphs, const Resident& r, FieldPair* tensors, ChunkPlan& plan) {
  plan.where.resize(graphs.size());
  int waves = 0;
  uint64_t off = 0;
  for (size_t i = 0; i < graphs.size(); ++i) {
    const KernelGraph& g = *graphs[i];
    check_inputs(g, r);
    auto& where = plan.where[i];
    for (int t = 0; t < g.num_inputs; ++t) where[t] = r.inputs[t];
    for (int t = g.num_inputs; t < g.num_tensors(); ++t) {
      where[t] = tensors + off;
      off += padded_elems(g.shape(t));
    }
    plan.slot_first.push_back(plan.n_slots);
    plan.n_slots += static_cast<uint32_t>(g.num_tensors() - g.num_inputs);
    waves = std::max(waves, g.ops.size());
  }
  return waves;
}

// Op k of g lowered, its program interned: from the memo when an op the same for lowering was
// lowered before in this plan (most are), else lowered now and remembered.
LoweredOp lowered_op(ChunkPlan& plan, const KernelGraph& g, int k, const PlanLimits& limits) {
  const uint64_t h = lowering_hash(g, k);
  const auto it = plan.lowered_of_hash.find(h);
  if (it != plan.lowered_of_hash.end()) {
    const LoweredOp& seen = plan.lowered[it->second];
    if (same_lowering(*seen.graph, seen.op, g, k)) return seen;
  }
  const Lowered low = lower_kernel_op(g, k, limits.threads);
  LoweredOp e;
  e.graph = &g;
  e.op = k;
  e.program = intern(plan, low.prog);
  e.arena_class = arena_class(low.prog.arena, limits.smem_bytes);
  std::copy(low.src, low.src + kMaxProgIo, e.src);
  std::copy(low.dst, low.dst + kMaxProgIo, e.dst);
  if (it == plan.lowered_of_hash.end()) {  // (a hash shared with a different op: not remembered)
    plan.lowered_of_hash.emplace(h, static_cast<uint32_t>(plan.lowered.size()));
    plan.lowered.push_back(e);
  }
  return e;
}

// Wave s: op s of every graph, one launch per arena class (classes in order, graphs in order within one).
void add_wave(std::span<const KernelGraph* const> graphs, int s, const PlanLimits& limits, ChunkPlan& plan) {
  plan.wave.resize(tuning::kNumSmemClasses + 1);
  for (auto& jobs : plan.wave) jobs.clear();
  LoweredOp low;
  for (size_t i = 0; i < graphs.size(); ++i) {
    const KernelGraph& g = *graphs[i];
    if (s >= g.ops.size()) continue;
    // Neighbours in a batch are mostly siblings, which share all but their last op: comparing with
    // the last op is cheaper than hashing.
    if (!low.graph || !same_lowering(*low.graph, low.op, g, s)) low = lowered_op(plan, g, s, limits);
    const BlockProgram& p = plan.programs[low.program];
    Job job;
    job.program = low.program;
    for (int l = 0; l < p.n_loaders; ++l) job.src[l] = plan.where[i][low.src[l]];
    for (int o = 0; o < p.n_savers; ++o) {
      job.dst[o] = const_cast<FieldPair*>(plan.where[i][low.dst[o]]);
      job.slot[o] = plan.slot_first[i] + static_cast<uint32_t>(low.dst[o] - g.num_inputs);
    }
    plan.wave[low.arena_class].push_back(job);
  }
  for (int c = 0; c <= tuning::kNumSmemClasses; ++c) {
    if (plan.wave[c].empty()) continue;
    LaunchPlan l;
    l.first_job = static_cast<uint32_t>(plan.jobs.size());
    l.on_chip = c < tuning::kNumSmemClasses;
    for (Job job : plan.wave[c]) {
      const BlockProgram& p = plan.programs[job.program];
      job.first_item = l.items;
      l.items += p.blocks();
      l.arena = std::max(l.arena, p.arena);
      ++l.n_jobs;
      plan.jobs.push_back(job);
    }
    plan.launches.push_back(l);
  }
}

// Outputs to compare: those whose count, indices and shapes already agree with the program's.
void add_compares(std::span<const KernelGraph* const> graphs, const Resident& r, const PlanLimits& limits,
                  ChunkPlan& plan) {
  for (size_t i = 0; i < graphs.size(); ++i) {
    const KernelGraph& g = *graphs[i];
    bool ok = g.outputs.size() == static_cast<int>(r.want.size());
    for (int o = 0; ok && o < g.outputs.size(); ++o)
      ok = g.outputs[o] >= g.num_inputs && g.shape(g.outputs[o]) == r.want_shapes[o];
    plan.match.push_back(ok);
    for (int o = 0; ok && o < g.outputs.size(); ++o) {
      const int32_t t = g.outputs[o];
      CompareItem c;
      c.first_chunk = plan.compare_chunks;
      c.numel = static_cast<uint64_t>(g.shape(t).numel());
      c.got = plan.where[i][t];
      c.want = r.want[o];
      c.want_sum = r.want_sums[o];
      c.slot = plan.slot_first[i] + static_cast<uint32_t>(t - g.num_inputs);
      c.graph = static_cast<uint32_t>(i);
      plan.compare_chunks += (c.numel + limits.compare_chunk - 1) / limits.compare_chunk;
      plan.compares.push_back(c);
    }
  }
}

}  // namespace

void build_plan(std::span<const KernelGraph* const> graphs, size_t begin, size_t end, const Resident& r,
                FieldPair* tensors, const PlanLimits& limits, ChunkPlan& plan) {
  plan.clear();
  plan.begin = begin;
  plan.end = end;
  const auto chunk = graphs.subspan(begin, end - begin);
  const int waves = place_tensors(chunk, r, tensors, plan);
  for (int s = 0; s < waves; ++s) add_wave(chunk, s, limits, plan);
  add_compares(chunk, r, limits, plan);
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
