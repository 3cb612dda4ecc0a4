#pragma once
// A chunk of a batch as device work (host side): tensors laid out in one arena, every kernel op of
// every graph lowered to a job, the jobs grouped into launches (wave s holds op s of every graph, so
// one launch serves many candidates; within a wave, one launch per arena-size class), and the outputs
// to compare with the program's. Shared by the CUDA backend and its host emulation.
#include <array>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "ugs/cuda/program.h"
#include "ugs/eval/backend.h"
#include "ugs/ir/graph.h"

namespace ugs::cuda {

// Where the run's fixed tensors are: device addresses (or host ones, for the emulation).
struct Resident {
  std::vector<Shape> input_shapes;
  std::vector<const FieldPair*> inputs;
  std::vector<uint64_t> input_hashes;
  std::vector<Shape> want_shapes;
  std::vector<const FieldPair*> want;
  std::vector<uint64_t> want_sums;  // element sums (hashes before the shape is mixed in)
};

// The setup's tensors where they are on the host, with their hashes and element sums; the CUDA
// backend then points `inputs` and `want` at its device copies.
Resident resident_on_host(const FingerprintSetup& setup);

struct LaunchPlan {
  uint32_t first_job = 0, n_jobs = 0;
  uint64_t items = 0;      // grid blocks of its jobs
  uint32_t arena = 0;      // elements per block: the largest of its jobs'
  bool on_chip = true;     // arena in dynamic shared memory, else in device memory
};

// A kernel op build_plan has lowered (its memo: the candidates of a batch share most of their ops).
struct LoweredOp {
  const KernelGraph* graph = nullptr;  // the key: the op first lowered so (same_lowering, lower.h); a
                                       // graph of the batch, so only valid while build_plan runs
  int op = 0;
  uint32_t program = 0;
  int arena_class = 0;
  int32_t src[kMaxProgIo] = {};  // kernel tensor of each loader
  int32_t dst[kMaxProgIo] = {};  // kernel tensor of each saver
};

struct ChunkPlan {
  size_t begin = 0, end = 0;  // graphs [begin, end) of the batch
  std::vector<BlockProgram> programs;
  std::vector<Job> jobs;
  std::vector<LaunchPlan> launches;  // in stream order
  std::vector<CompareItem> compares;
  uint64_t compare_chunks = 0;
  std::vector<uint8_t> match;        // per graph of the chunk: 1 while its outputs may match
  std::vector<uint32_t> slot_first;  // per graph: element-sum slot of its first computed tensor
  uint32_t n_slots = 0;
  std::unordered_map<uint64_t, uint32_t> program_of_hash;  // programs shared by identical jobs

  // build_plan's scratch, kept so that its memory is reused: each graph's tensor addresses, the memo
  // of lowered ops (by lowering_hash), and one wave's jobs per launch class.
  std::vector<std::array<const FieldPair*, kMaxTensors>> where;
  std::vector<LoweredOp> lowered;
  std::unordered_map<uint64_t, uint32_t> lowered_of_hash;
  std::vector<std::vector<Job>> wave;

  void clear();
};

// Elements of the tensors g computes, each rounded up to even (16-byte aligned tensors).
uint64_t padded_elems(const Shape& s);
uint64_t computed_elems(const KernelGraph& graph);

// The end of the chunk starting at `begin`: graphs while their tensors fit `budget_elems` (at least one).
size_t chunk_end(std::span<const KernelGraph* const> graphs, size_t begin, uint64_t budget_elems);

struct PlanLimits {
  int threads = 256;           // threads per block (the programs are made for that many)
  uint32_t smem_bytes = 0;     // the most dynamic shared memory a block may have
  int compare_chunk = 4096;    // elements per compare block
};

// Fills `plan` for graphs [begin, end); their tensors go to `tensors` (computed_elems of each, in
// order). Reuses plan's memory. Throws InputError for a graph whose inputs are not the program's.
void build_plan(std::span<const KernelGraph* const> graphs, size_t begin, size_t end, const Resident& resident,
                FieldPair* tensors, const PlanLimits& limits, ChunkPlan& plan);

// Hashes and match flags of the chunk's graphs into `out` (already reset for the whole batch), from the
// element sums (plan.n_slots) and match flags (one per graph of the chunk) the work produced.
void finish_fingerprints(std::span<const KernelGraph* const> graphs, const ChunkPlan& plan, const Resident& resident,
                         const uint64_t* sums, const uint8_t* match, Fingerprints& out);

// The setup made where the work runs instead (the CUDA backend: on the device, no host copy), in two
// steps. First the inputs, drawn there (draws.h) into `where` with their element sums `sums`.
void adopt_inputs(const KernelGraph& program, std::span<const FieldPair* const> where,
                  std::span<const uint64_t> sums, Resident& resident);
// Then the program itself, run as the only graph of `plan` (`resident` without `want`: nothing to
// compare) with its work's element sums `sums`: its outputs' shapes and sums into `resident`. Returns
// where each output now is, for the backend to copy to memory of its own and point resident.want at.
std::vector<const FieldPair*> adopt_outputs(const KernelGraph& program, const ChunkPlan& plan, const uint64_t* sums,
                                            std::span<const uint64_t> input_sums, Resident& resident);

}  // namespace ugs::cuda
