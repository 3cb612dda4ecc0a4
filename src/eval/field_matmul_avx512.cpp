#include "field_matmul_avx512.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "prefetch.h"

#if defined(__x86_64__) && defined(__GNUC__)
// GCC 12's AVX-512 intrinsics start from a self-initialized "undefined" vector, which its
// maybe-uninitialized warning reports at every use (GCC bug 105593).
#if !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <immintrin.h>
#define UGS_HAVE_AVX512_KERNEL 1
#endif

namespace ugs::eval {
namespace {

#ifdef UGS_HAVE_AVX512_KERNEL
#define UGS_AVX512 [[gnu::target("avx512f")]]

// A lane holds one FieldPair as 64 bits, p low and q high: vpmuludq multiplies the low halves, so p
// is read as it is and q after a shift.
struct Lanes {
  __m512i p, q;
};

// The lazy sum's step (modular.h, LazySum::add_product) on eight lanes: add, then subtract the fold
// where the top bit is set.
UGS_AVX512 inline __m512i add_folded(__m512i sum, __m512i terms, __m512i fold) {
  const __m512i v = _mm512_add_epi64(sum, terms);
  return _mm512_sub_epi64(v, _mm512_and_si512(fold, _mm512_srai_epi64(v, 63)));
}

// Eight field pairs from b + at, the lanes outside the mask zero (and not read).
UGS_AVX512 inline __m512i load(const FieldPair* b, __mmask8 mask, int64_t at) {
  return _mm512_maskz_loadu_epi64(mask, b + at);
}

// Rows [0, R) × columns [c, c + 8V) (lanes past `columns` masked off) of the product, into out. R·V·2
// accumulators stay in registers over the whole of k; each vector of b feeds R rows.
template <class F, int R, int V>
UGS_AVX512 void row_block(const FieldPair* a, const FieldPair* b, FieldPair* out, int64_t k, int64_t ldb, int64_t n,
                          int64_t c, int64_t columns) {
  const __m512i fold_p = _mm512_set1_epi64(static_cast<int64_t>(fold_of(F::p)));
  const __m512i fold_q = _mm512_set1_epi64(static_cast<int64_t>(fold_of(F::q)));
  __mmask8 mask[V];
  for (int v = 0; v < V; ++v) {
    const int64_t valid = std::clamp<int64_t>(columns - 8 * v, 0, 8);
    mask[v] = static_cast<__mmask8>((1u << valid) - 1);
  }
  Lanes acc[R][V];
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < V; ++v) acc[i][v] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
  int64_t t = 0;
  for (; t + 1 < k; t += 2) {  // two terms, one fold: as LazySum::add_products
    Lanes a0[R], a1[R];
    for (int i = 0; i < R; ++i) {
      a0[i] = {_mm512_set1_epi64(a[i * k + t].p), _mm512_set1_epi64(a[i * k + t].q)};
      a1[i] = {_mm512_set1_epi64(a[i * k + t + 1].p), _mm512_set1_epi64(a[i * k + t + 1].q)};
    }
    for (int v = 0; v < V; ++v) {
      for (int64_t row = t + kPrefetchRows; row < t + kPrefetchRows + 2; ++row)
        prefetch_ahead(b, static_cast<int64_t>(sizeof(FieldPair)) * (row * ldb + c + 8 * v));
      const __m512i b0 = load(b, mask[v], t * ldb + c + 8 * v), b1 = load(b, mask[v], (t + 1) * ldb + c + 8 * v);
      const __m512i b0q = _mm512_srli_epi64(b0, 32), b1q = _mm512_srli_epi64(b1, 32);
      for (int i = 0; i < R; ++i) {
        const __m512i sp = _mm512_add_epi64(_mm512_mul_epu32(b0, a0[i].p), _mm512_mul_epu32(b1, a1[i].p));
        const __m512i sq = _mm512_add_epi64(_mm512_mul_epu32(b0q, a0[i].q), _mm512_mul_epu32(b1q, a1[i].q));
        acc[i][v].p = add_folded(acc[i][v].p, sp, fold_p);
        acc[i][v].q = add_folded(acc[i][v].q, sq, fold_q);
      }
    }
  }
  if (t < k) {
    for (int v = 0; v < V; ++v) {
      const __m512i b0 = load(b, mask[v], t * ldb + c + 8 * v), b0q = _mm512_srli_epi64(b0, 32);
      for (int i = 0; i < R; ++i) {
        const FieldPair x = a[i * k + t];
        acc[i][v].p = add_folded(acc[i][v].p, _mm512_mul_epu32(b0, _mm512_set1_epi64(x.p)), fold_p);
        acc[i][v].q = add_folded(acc[i][v].q, _mm512_mul_epu32(b0q, _mm512_set1_epi64(x.q)), fold_q);
      }
    }
  }
  for (int i = 0; i < R; ++i)
    for (int v = 0; v < V; ++v) {
      alignas(64) uint64_t sum_p[8], sum_q[8];
      _mm512_store_si512(sum_p, acc[i][v].p);
      _mm512_store_si512(sum_q, acc[i][v].q);
      FieldPair* row = out + i * n + c + 8 * v;
      for (int64_t l = 0; l < std::min<int64_t>(8, columns - 8 * v); ++l)
        row[l] = {static_cast<uint32_t>(sum_p[l] % F::p), static_cast<uint32_t>(sum_q[l] % F::q)};
    }
}

// Columns in steps of up to 8·kMaxV, where R·kMaxV·2 accumulators take 16 of the 32 registers; a
// narrower step (a block's tile may be 8 columns wide) takes as few vectors as it needs, since a
// masked-off vector still costs its multiplies.
template <class F, int R>
UGS_AVX512 void rows_of_block(const FieldPair* a, const FieldPair* b, FieldPair* out, int64_t k, int64_t ldb,
                              int64_t n, int64_t j0, int64_t j1) {
  constexpr int kMaxV = R == 1 ? 8 : R == 2 ? 4 : 2;
  for (int64_t c = j0; c < j1; c += 8 * kMaxV) {
    const int64_t columns = std::min<int64_t>(8 * kMaxV, j1 - c);
    [&]<int... V>(std::integer_sequence<int, V...>) {
      ((columns <= 8 * (V + 1) && columns > 8 * V ? row_block<F, R, V + 1>(a, b, out, k, ldb, n, c, columns) : void()),
       ...);
    }(std::make_integer_sequence<int, kMaxV>{});
  }
}
#endif

}  // namespace

bool field_matmul_avx512_available() {
#ifdef UGS_HAVE_AVX512_KERNEL
  return __builtin_cpu_supports("avx512f");
#else
  return false;
#endif
}

template <class F>
void field_row_block_avx512(const FieldPair* a, const FieldPair* b, FieldPair* out, int rows, int64_t k,
                            int64_t ldb, int64_t n, int64_t j0, int64_t j1) {
#ifdef UGS_HAVE_AVX512_KERNEL
  switch (rows) {
    case 1: return rows_of_block<F, 1>(a, b, out, k, ldb, n, j0, j1);
    case 2: return rows_of_block<F, 2>(a, b, out, k, ldb, n, j0, j1);
    case 3: return rows_of_block<F, 3>(a, b, out, k, ldb, n, j0, j1);
    case 4: return rows_of_block<F, 4>(a, b, out, k, ldb, n, j0, j1);
  }
#endif
  (void)a, (void)b, (void)out, (void)k, (void)ldb, (void)n, (void)j0, (void)j1;
  throw std::logic_error("field_row_block_avx512: " + std::to_string(rows) + " rows, or no AVX-512 kernel here");
}

template void field_row_block_avx512<WideField>(const FieldPair*, const FieldPair*, FieldPair*, int, int64_t, int64_t,
                                                int64_t, int64_t, int64_t);
template void field_row_block_avx512<MirageField>(const FieldPair*, const FieldPair*, FieldPair*, int, int64_t,
                                                  int64_t, int64_t, int64_t, int64_t);

}  // namespace ugs::eval
