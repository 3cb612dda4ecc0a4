#pragma once
// The cost model (docs/design.md §8, after AStitch): a μGraph's estimated time on a GpuSpec, from what each
// kernel moves through device memory and shared memory, the flops it performs, its grid, and one
// launch per kernel. Kernels run one after another, so a graph's time is the sum of its kernels'.
//
// One kernel with B blocks on a GPU with S SMs (u = min(1, B / S) of the SMs busy; a library kernel
// is taken to fill the GPU):
//   dram_us    = dram_bytes / min(dram_bandwidth, min(B, S) * sm_dram_bandwidth)
//   smem_us    = smem_bytes / (smem_bandwidth * u)
//   compute_us = (mma_flops / tensor_peak + vector_flops / vector_peak) / u
//   time       = launch_us + max(dram_us, smem_us, compute_us)          (a roofline per kernel)
// Device memory is shared by the whole GPU and saturates before every SM draws from it; compute and
// shared memory belong to each SM, so idle SMs (too few blocks, AStitch's thread-mapping point) cost
// in proportion.
//
// What a kernel moves is counted edge by edge, each edge classed as AStitch classes its stitching:
// local (one-to-one, in registers), regional (one-to-many or a shared tile, through shared memory),
// global (across kernels, through device memory). block_counts.h and flow.h say exactly what each
// kernel moves; edges.h which edge is which.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ugs/cost/gpu.h"
#include "ugs/ir/graph.h"

namespace ugs {

enum class EdgeClass : uint8_t { Local, Regional, Global };
std::string_view name_of(EdgeClass c);

// Edges counted per class.
struct EdgeTally {
  std::array<int, 3> count{};
  int& operator[](EdgeClass c) { return count[static_cast<int>(c)]; }
  int operator[](EdgeClass c) const { return count[static_cast<int>(c)]; }
  EdgeTally& operator+=(const EdgeTally& o);
};

// A kernel whose thread mapping the library chooses (a predefined op, a plan's fused kernel without
// a reduction): assumed to fill every SM.
inline constexpr int64_t kFullGrid = 0;

// What one kernel moves and computes; the time follows from these and a GpuSpec.
struct KernelCounts {
  std::string what;             // "matmul", "exp+reduce_sum+div", "block 96x1x1 loop 64"
  int64_t blocks = kFullGrid;   // grid size, or kFullGrid
  int64_t dram_read = 0;        // device-memory bytes read (replicated tile loads counted per block)
  int64_t dram_write = 0;       // device-memory bytes written
  int64_t dram_unique = 0;      // read + written if each tensor were read once (replicas from L2)
  int64_t smem = 0;             // shared-memory bytes, written plus read
  int64_t registers = 0;        // bytes passed in registers (local edges): reported, not timed
  int64_t mma_flops = 0;        // matmul flops (tensor cores)
  int64_t vector_flops = 0;     // every other op's scalar operations
  EdgeTally edges;
};

enum class Bound : uint8_t { Dram, Smem, Compute };
std::string_view name_of(Bound b);

struct KernelCost {
  KernelCounts counts;
  double dram_us = 0, smem_us = 0, compute_us = 0, launch_us = 0;
  double total_us = 0;  // launch_us + the largest of the three
  Bound bound = Bound::Dram;
};

struct Cost {
  // The fields every search result carries (docs/design.md §9).
  double estimated_us = 0;
  int64_t dram_bytes = 0;  // read + written
  int kernels = 0;
  // The breakdown.
  int64_t dram_unique_bytes = 0, smem_bytes = 0, register_bytes = 0;
  int64_t mma_flops = 0, vector_flops = 0;
  EdgeTally edges;
  std::vector<KernelCost> per_kernel;
};

// The per-kernel formula above.
KernelCost price_kernel(const KernelCounts& counts, const GpuSpec& gpu);
// Kernels run in sequence: the sums.
Cost sum_kernels(std::vector<KernelCost> kernels);

// Any complete μGraph; a program is a kernel graph of predefined ops and is priced one kernel per op.
Cost estimate(const KernelGraph& graph, const GpuSpec& gpu);
// Kernel op i of `graph` alone: what estimate() adds for it. It depends on the op and the shapes of
// the tensors it reads, never on the ops after it, so a partial graph's kernels keep their prices.
KernelCost price_kernel_op(const KernelGraph& graph, int i, const GpuSpec& gpu);

// The order of search results (docs/design.md §9): estimated time, then the structural hash.
bool ranks_before(const Cost& a, uint64_t hash_a, const Cost& b, uint64_t hash_b);

}  // namespace ugs
