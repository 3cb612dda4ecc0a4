#pragma once
// Host dispatch of the backend's kernels (CUB's layering: agent, thin kernel, dispatch). Each call
// takes the stream, enqueues, and returns the error; nothing here synchronizes.
#include <cuda_runtime.h>

#include <cstdint>

#include "arith.h"
#include "function_keys.h"
#include "ugs/cuda/program.h"
#include "ugs/eval/field_kind.h"

namespace ugs::cuda {

// One interpreter launch: jobs[0, n_jobs) whose work items number `items`.
struct InterpretArgs {
  const BlockProgram* programs = nullptr;
  const Job* jobs = nullptr;
  uint32_t n_jobs = 0;
  uint64_t items = 0;
  uint64_t* sums = nullptr;           // element-sum slots the savers add to
  FieldPair* global_arena = nullptr;  // null: each block's arena is its dynamic shared memory
  uint32_t arena = 0;                 // elements per block
};

// Raises the interpreter's dynamic shared memory limit to what the device allows; reports that limit.
cudaError_t interpret_prepare(int device, uint32_t* max_dynamic_smem);
// dynamic_smem 0: the arena in device memory (InterpretArgs::global_arena).
cudaError_t interpret_blocks_per_sm(Arith arith, size_t dynamic_smem, int* blocks);
// ctas blocks of tuning::kThreads threads, each walking a contiguous share of the items.
// exp: ω and its powers in device memory (the table null for the float64 check).
cudaError_t dispatch_interpret(Arith arith, ExpPowers exp, const InterpretArgs& args, int ctas,
                               size_t dynamic_smem, cudaStream_t stream);

// Clears match[graph] of every item whose elements differ from the program's (hash first).
struct CompareArgs {
  const CompareItem* items = nullptr;
  uint32_t n_items = 0;
  uint64_t chunks = 0;
  const uint64_t* sums = nullptr;
  uint8_t* match = nullptr;
};
cudaError_t dispatch_compare(const CompareArgs& args, int ctas, cudaStream_t stream);

// out[0, n) = the input of stream `stream` (draw_inputs.h); *sum += its element sum (*sum zeroed first).
struct DrawArgs {
  FieldPair* out = nullptr;
  uint64_t n = 0;
  uint64_t stream = 0;
  uint64_t* sum = nullptr;
};
cudaError_t dispatch_draw_input(Arith arith, const DrawArgs& a, int ctas, cudaStream_t stream);

// items[a.first + i] = key_item(a, i) for the chunk's a.n graphs.
cudaError_t dispatch_function_keys(const KeyArgs& a, cudaStream_t stream);

// A batch's function classes from its items: CUB's merge sort by ClassItemLess into `sorted`, each
// class's first flagged, and CUB's select of the flagged into `best`, their number into *count.
struct ClassifyArgs {
  const ClassItem* items = nullptr;
  ClassItem* sorted = nullptr;
  uint8_t* flags = nullptr;
  ClassItem* best = nullptr;
  int64_t* count = nullptr;
  uint32_t n = 0;
  void* temp = nullptr;  // classify_temp_bytes(n) of CUB's scratch memory
};
cudaError_t classify_temp_bytes(uint32_t n, size_t* bytes);
cudaError_t dispatch_classify(const ClassifyArgs& a, size_t temp_bytes, cudaStream_t stream);

}  // namespace ugs::cuda
