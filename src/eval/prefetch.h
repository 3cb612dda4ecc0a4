#pragma once
// Software prefetch for the strided reads of a block's tiles. A loaded tile is a box of its input, so
// its rows lie a whole input row apart (32–48 KiB in a full-size weight): each row of a narrow tile is
// a new cache line on a new page, which the hardware prefetchers do not foresee, and a full-size
// evaluation would wait on memory row by row. The matmul loops and the tile copy ask for the row this
// far ahead of the one they read.
#include <cstdint>

namespace ugs::eval {

inline constexpr int64_t kPrefetchRows = 16;

// A prefetch of the line `bytes` past p, which may lie past the end of p's tensor (a prefetch never
// faults): the address is formed as an integer, not as a pointer out of bounds.
inline void prefetch_ahead(const void* p, int64_t bytes) {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(p) + static_cast<uintptr_t>(bytes)));
}

// The cache lines of `count` elements of size `size` from `bytes` past p.
inline void prefetch_span(const void* p, int64_t bytes, int64_t count, int64_t size) {
  for (int64_t at = 0; at < count * size; at += 64) prefetch_ahead(p, bytes + at);
}

}  // namespace ugs::eval
