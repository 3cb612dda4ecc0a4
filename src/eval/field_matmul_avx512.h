#pragma once
// A field matmul's row block with AVX-512's 32 × 32 → 64-bit multiply (vpmuludq). GCC vectorizes the
// portable loop (tensor_ops.h) with full 64-bit multiplies (vpmullq), which Intel cores split into
// several micro-ops; this one keeps a row block's accumulators in registers and reads each element of
// b once for all its rows. The results are the portable loop's bits: the field is exact.
#include <cstdint>
#include <string>

#include "ugs/field/field.h"

namespace ugs::eval {

// Whether this build and CPU have the kernel (AVX-512F).
bool field_matmul_avx512_available();

// Which of the two a matmul tile takes. Which is faster depends on the CPU and on the tile (on Intel
// cores the portable loop's 64-bit multiplies split into several micro-ops; on AMD's Zen 4 they do
// not, and the portable loop streams narrow tiles of a large input faster), so each class of tiles
// (field_matmul_choice.cpp) times its first calls with both, alternately, and keeps the faster.
// A call with timed_class >= 0 is one of those: the caller reports its time.
struct FieldMatmulPick {
  bool avx512 = false;
  int timed_class = -1;
};
FieldMatmulPick pick_field_matmul(int64_t columns, int64_t row_stride_bytes);
void field_matmul_timed(const FieldMatmulPick& pick, int64_t nanos);
// Every tile takes the kernel (where available) or the portable loop, until choose_field_matmul_by_timing:
// tests and the throughput benchmark compare the two. Not for use while evaluations run.
void set_field_matmul_avx512(bool on);
void choose_field_matmul_by_timing();
// Per class, what the timing chose and the times it compared, in words.
std::string field_matmul_choices();

// out[i, j] = Σ_t a[i, t] b[t, j] for rows i < rows (1 to 4) and columns [j0, j1): a dense (row stride
// k), b with row stride ldb, out with row stride n.
template <class F>
void field_row_block_avx512(const FieldPair* a, const FieldPair* b, FieldPair* out, int rows, int64_t k,
                            int64_t ldb, int64_t n, int64_t j0, int64_t j1);

}  // namespace ugs::eval
