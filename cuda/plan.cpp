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

uint64_t program_hash(const BlockProgram& program) {
  Hasher hasher;
  for (int a = 0; a < kAxes; ++a) hasher.add(uint64_t(program.grid[a]));
  hasher.add(uint64_t(program.loop))
      .add(program.n_tiles)
      .add(program.n_loaders)
      .add(program.n_savers)
      .add(program.n_ops)
      .add(program.n_loop_ops);
  for (int t = 0; t < program.n_tiles; ++t) {
    const TileDesc& d = program.tiles[t];
    for (int i = 0; i < 4; ++i) hasher.add(uint64_t(d.ext[i]));
    hasher.add(d.off).add(d.off_alt).add(uint64_t(d.rms_count)).add(d.zero_init);
  }
  auto io = [&](const Io& x) {
    for (int a = 0; a < kAxes; ++a) hasher.add(uint64_t(x.axis_step[a]));
    hasher.add(uint64_t(x.iter_step)).add(uint64_t(x.stride[0])).add(uint64_t(x.stride[1])).add(uint64_t(x.stride[2]));
    hasher.add(x.tile).add(x.narrow).add(x.pairs);
  };
  for (int l = 0; l < program.n_loaders; ++l) io(program.loaders[l]);
  for (int s = 0; s < program.n_savers; ++s) io(program.savers[s]);
  for (int k = 0; k < program.n_ops; ++k) {
    const TileOp& op = program.ops[k];
    hasher.add(uint64_t(op.kind)).add(op.fn).add(op.in0).add(op.in1).add(op.out).add(op.into).add(uint64_t(op.n));
    hasher.add(op.plain).add(op.sync_before).add(op.scratch).add(op.divisors);
    for (int i = 0; i < 4; ++i) hasher.add(uint64_t(uint32_t(op.sa[i]))).add(uint64_t(uint32_t(op.sb[i])));
  }
  return hasher.value();
}

uint32_t intern(ChunkPlan& plan, const BlockProgram& program) {
  const uint64_t hash = program_hash(program);
  const auto it = plan.program_of_hash.find(hash);
  if (it != plan.program_of_hash.end() && plan.programs[it->second] == program) return it->second;
  const auto index = static_cast<uint32_t>(plan.programs.size());
  plan.programs.push_back(program);
  if (it == plan.program_of_hash.end()) plan.program_of_hash.emplace(hash, index);
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

void check_inputs(const KernelGraph& graph, const Resident& resident) {
  bool ok = graph.num_inputs == static_cast<int>(resident.inputs.size());
  for (int i = 0; ok && i < graph.num_inputs; ++i) ok = graph.shape(i) == resident.input_shapes[i];
  if (!ok) throw InputError("fingerprint: a candidate's inputs are not the program's");
}

uint64_t element_sum(const Tensor<FieldPair>& t) {
  uint64_t sum = 0;
  for (int64_t i = 0; i < t.numel(); ++i) sum += element_mix(static_cast<uint64_t>(i), t.data[i]);
  return sum;
}

}  // namespace

Resident resident_on_host(const FingerprintSetup& setup) {
  Resident resident;
  for (const auto& t : setup.inputs) {
    resident.input_shapes.push_back(t.shape);
    resident.inputs.push_back(t.data.data());
    resident.input_hashes.push_back(tensor_hash(t.data.data(), t.numel(), t.shape));
  }
  for (const auto& t : setup.want) {
    resident.want_shapes.push_back(t.shape);
    resident.want.push_back(t.data.data());
    resident.want_sums.push_back(element_sum(t));
  }
  return resident;
}

void adopt_inputs(const KernelGraph& program, std::span<const FieldPair* const> where,
                  std::span<const uint64_t> sums, Resident& resident) {
  resident = Resident{};
  for (int i = 0; i < program.num_inputs; ++i) {
    resident.input_shapes.push_back(program.shape(i));
    resident.inputs.push_back(where[i]);
    resident.input_hashes.push_back(finish_tensor_hash(sums[i], program.shape(i)));
  }
}

std::vector<const FieldPair*> adopt_outputs(const KernelGraph& program, const ChunkPlan& plan, const uint64_t* sums,
                                            std::span<const uint64_t> input_sums, Resident& resident) {
  std::vector<const FieldPair*> where;
  for (int32_t t : program.outputs) {
    const bool input = t < program.num_inputs;
    resident.want_shapes.push_back(program.shape(t));
    resident.want_sums.push_back(input ? input_sums[t] : sums[plan.slot_first[0] + t - program.num_inputs]);
    where.push_back(plan.where[0][t]);  // an input's is resident.inputs[t]
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

uint64_t computed_elems(const KernelGraph& graph) {
  uint64_t n = 0;
  for (int t = graph.num_inputs; t < graph.num_tensors(); ++t) n += padded_elems(graph.shape(t));
  return n;
}

size_t chunk_end(std::span<const KernelGraph* const> graphs, size_t begin, uint64_t budget_elems) {
  uint64_t used = 0;
  size_t end = begin;
  for (; end < graphs.size(); ++end) {
    const uint64_t n = computed_elems(*graphs[end]);
    if (end > begin && used + n > budget_elems) break;
    used += n;
  }
  return end;
}

namespace {

// Each graph's tensor addresses (inputs resident, the rest laid out in `tensors` graph after graph)
// and element-sum slots; returns the most ops of any graph (the number of waves).
int place_tensors(std::span<const KernelGraph* const> graphs, const Resident& resident, FieldPair* tensors,
                  ChunkPlan& plan) {
  plan.where.resize(graphs.size());
  int waves = 0;
  uint64_t off = 0;
  for (size_t i = 0; i < graphs.size(); ++i) {
    const KernelGraph& graph = *graphs[i];
    check_inputs(graph, resident);
    auto& where = plan.where[i];
    for (int t = 0; t < graph.num_inputs; ++t) where[t] = resident.inputs[t];
    for (int t = graph.num_inputs; t < graph.num_tensors(); ++t) {
      where[t] = tensors + off;
      off += padded_elems(graph.shape(t));
    }
    plan.slot_first.push_back(plan.n_slots);
    plan.n_slots += static_cast<uint32_t>(graph.num_tensors() - graph.num_inputs);
    waves = std::max(waves, graph.ops.size());
  }
  return waves;
}

// Op k of `graph` lowered, its program interned: from the memo when an op the same for lowering was
// lowered before in this plan (most are), else lowered now and remembered.
LoweredOp lowered_op(ChunkPlan& plan, const KernelGraph& graph, int k, const PlanLimits& limits) {
  const uint64_t hash = lowering_hash(graph, k);
  const auto it = plan.lowered_of_hash.find(hash);
  if (it != plan.lowered_of_hash.end()) {
    const LoweredOp& seen = plan.lowered[it->second];
    if (same_lowering(*seen.graph, seen.op, graph, k)) return seen;
  }
  const Lowered low = lower_kernel_op(graph, k, limits.threads);
  LoweredOp lowered;
  lowered.graph = &graph;
  lowered.op = k;
  lowered.program = intern(plan, low.prog);
  lowered.arena_class = arena_class(low.prog.arena, limits.smem_bytes);
  std::copy(low.src, low.src + kMaxProgIo, lowered.src);
  std::copy(low.dst, low.dst + kMaxProgIo, lowered.dst);
  if (it == plan.lowered_of_hash.end()) {  // (a hash shared with a different op: not remembered)
    plan.lowered_of_hash.emplace(hash, static_cast<uint32_t>(plan.lowered.size()));
    plan.lowered.push_back(lowered);
  }
  return lowered;
}

// Wave s: op s of every graph, one launch per arena class (classes in order, graphs in order within one).
void add_wave(std::span<const KernelGraph* const> graphs, int s, const PlanLimits& limits, ChunkPlan& plan) {
  plan.wave.resize(tuning::kNumSmemClasses + 1);
  for (auto& jobs : plan.wave) jobs.clear();
  LoweredOp low;
  for (size_t i = 0; i < graphs.size(); ++i) {
    const KernelGraph& graph = *graphs[i];
    if (s >= graph.ops.size()) continue;
    // Neighbours in a batch are mostly siblings, which share all but their last op: comparing with
    // the last op is cheaper than hashing.
    if (!low.graph || !same_lowering(*low.graph, low.op, graph, s)) low = lowered_op(plan, graph, s, limits);
    const BlockProgram& program = plan.programs[low.program];
    Job job;
    job.program = low.program;
    for (int l = 0; l < program.n_loaders; ++l) job.src[l] = plan.where[i][low.src[l]];
    for (int o = 0; o < program.n_savers; ++o) {
      job.dst[o] = const_cast<FieldPair*>(plan.where[i][low.dst[o]]);
      job.slot[o] = plan.slot_first[i] + static_cast<uint32_t>(low.dst[o] - graph.num_inputs);
    }
    plan.wave[low.arena_class].push_back(job);
  }
  for (int c = 0; c <= tuning::kNumSmemClasses; ++c) {
    if (plan.wave[c].empty()) continue;
    LaunchPlan launch;
    launch.first_job = static_cast<uint32_t>(plan.jobs.size());
    launch.on_chip = c < tuning::kNumSmemClasses;
    for (Job job : plan.wave[c]) {
      const BlockProgram& program = plan.programs[job.program];
      job.first_item = launch.items;
      launch.items += program.blocks();
      launch.arena = std::max(launch.arena, program.arena);
      ++launch.n_jobs;
      plan.jobs.push_back(job);
    }
    plan.launches.push_back(launch);
  }
}

// Outputs to compare: those whose count, indices and shapes already agree with the program's.
void add_compares(std::span<const KernelGraph* const> graphs, const Resident& resident, const PlanLimits& limits,
                  ChunkPlan& plan) {
  for (size_t i = 0; i < graphs.size(); ++i) {
    const KernelGraph& graph = *graphs[i];
    bool ok = graph.outputs.size() == static_cast<int>(resident.want.size());
    for (int o = 0; ok && o < graph.outputs.size(); ++o)
      ok = graph.outputs[o] >= graph.num_inputs && graph.shape(graph.outputs[o]) == resident.want_shapes[o];
    plan.match.push_back(ok);
    for (int o = 0; ok && o < graph.outputs.size(); ++o) {
      const int32_t t = graph.outputs[o];
      CompareItem item;
      item.first_chunk = plan.compare_chunks;
      item.numel = static_cast<uint64_t>(graph.shape(t).numel());
      item.got = plan.where[i][t];
      item.want = resident.want[o];
      item.want_sum = resident.want_sums[o];
      item.slot = plan.slot_first[i] + static_cast<uint32_t>(t - graph.num_inputs);
      item.graph = static_cast<uint32_t>(i);
      plan.compare_chunks += (item.numel + limits.compare_chunk - 1) / limits.compare_chunk;
      plan.compares.push_back(item);
    }
  }
}

}  // namespace

void build_plan(std::span<const KernelGraph* const> graphs, size_t begin, size_t end, const Resident& resident,
                FieldPair* tensors, const PlanLimits& limits, ChunkPlan& plan) {
  plan.clear();
  plan.begin = begin;
  plan.end = end;
  const auto chunk = graphs.subspan(begin, end - begin);
  const int waves = place_tensors(chunk, resident, tensors, plan);
  for (int s = 0; s < waves; ++s) add_wave(chunk, s, limits, plan);
  add_compares(chunk, resident, limits, plan);
}

void finish_fingerprints(std::span<const KernelGraph* const> graphs, const ChunkPlan& plan, const Resident& resident,
                         const uint64_t* sums, const uint8_t* match, Fingerprints& out) {
  for (size_t i = 0; i < plan.end - plan.begin; ++i) {
    const KernelGraph& graph = *graphs[plan.begin + i];
    uint64_t* hashes = &out.hashes[out.first[plan.begin + i]];
    for (int t = 0; t < graph.num_inputs; ++t) hashes[t] = resident.input_hashes[t];
    for (int t = graph.num_inputs; t < graph.num_tensors(); ++t)
      hashes[t] = finish_tensor_hash(sums[plan.slot_first[i] + t - graph.num_inputs], graph.shape(t));
    out.match[plan.begin + i] = match[i];
  }
}

}  // namespace ugs::cuda
