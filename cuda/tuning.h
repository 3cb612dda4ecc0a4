#pragma once
// Every tuning number of the CUDA fingerprint backend (STYLE §10: tuning lives in its own place).
// Sizes of tiles are in elements; an element is a FieldPair of 8 bytes.
#include <cstddef>
#include <cstdint>

namespace ugs::cuda::tuning {

// Interpreter blocks: threads per block, and the blocks per SM the registers must allow (64 registers
// a thread; without the bound the compiler spills).
inline constexpr int kThreads = 256;
inline constexpr int kMinBlocksPerSm = 4;

// Tiles of a predefined op turned into a block program (cuda/lower.cpp).
inline constexpr int32_t kElemTile = 2048;     // element-wise ops and rms_norm rows
inline constexpr int32_t kReduceChunk = 1024;  // reduce_sum: reduced elements per loop iteration
inline constexpr int32_t kMatmulM = 32, kMatmulN = 64, kMatmulK = 64;
// Rows of a matmul's output one thread computes together (their column of b loaded once).
inline constexpr uint32_t kMatmulRows = 4;

// Launch classes by arena size: a wave's jobs are launched once per class, with the class's largest
// arena as dynamic shared memory; arenas above the last class live in device memory.
inline constexpr uint32_t kSmemClassBytes[] = {16u << 10, 48u << 10, 100u << 10, 200u << 10};
inline constexpr int kNumSmemClasses = sizeof(kSmemClassBytes) / sizeof(kSmemClassBytes[0]);

// Device memory per chunk of a batch: candidates' tensors, and arenas that do not fit on chip.
inline constexpr size_t kTensorBudgetBytes = size_t{2} << 30;
inline constexpr size_t kGlobalArenaBudgetBytes = size_t{1} << 30;

// Output comparison: elements per block of the compare kernel.
inline constexpr int kCompareThreads = 256;
inline constexpr int kCompareChunk = 4096;

}  // namespace ugs::cuda::tuning
