#pragma once
// A field matmul's row block with AVX-512's 32 × 32 → 64-bit multiply (vpmuludq). GCC vectorizes the
// portable loop (tensor_ops.h) with full 64-bit multiplies (vpmullq), which Intel cores split into
// several micro-ops; this one keeps a row block's accumulators in registers and reads each element of
// b once for all its rows. The results are the portable loop's bits: the field is exact.
#include <cstdint>

#include "ugs/field/field.h"

namespace ugs::eval {

// Whether matmul_tile takes this path: the CPU has AVX-512F and nothing turned it off.
bool field_matmul_avx512_on();
// Turns the path off or (where the CPU has it) on again: tests and the throughput benchmark compare it
// with the portable loop. Not for use while evaluations run.
void set_field_matmul_avx512(bool on);

// out[i, j] = Σ_t a[i, t] b[t, j] for rows i < rows (1 to 4) and columns [j0, j1): a dense (row stride
// k), b with row stride ldb, out with row stride n.
template <class F>
void field_row_block_avx512(const FieldPair* a, const FieldPair* b, FieldPair* out, int rows, int64_t k,
                            int64_t ldb, int64_t n, int64_t j0, int64_t j1);

}  // namespace ugs::eval
