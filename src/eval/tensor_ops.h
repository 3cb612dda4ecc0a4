#pragma once
// The scalar loops of every op, templated over the arithmetic (field pairs or float64) and written
// over a range of output rows (a row = the last dim), so the kernel level runs them in parallel over
// rows and the block level runs them whole on tiles. One loop per op family; nothing is copied for a
// variant: accumulators are folds added into their tile. Operands are read through views (tensor.h),
// so a block's loaded tile is read in place in its input.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#include "field_matmul_avx512.h"
#include "prefetch.h"
#include "ugs/eval/tensor.h"
#include "ugs/ir/op.h"

namespace ugs::eval {

inline int64_t rows_of(const Shape& s) { return s.numel() / s.dim4(3); }

// Strides of `in` read at the coordinates of `out`, zero along broadcast dims.
template <class V>
Index4 broadcast_strides(const TensorView<V>& in, const Shape& out) {
  Index4 st = in.strides;
  for (int i = 0; i < 4; ++i)
    if (in.shape.dim4(i) == 1 && out.dim4(i) != 1) st[i] = 0;
  return st;
}

// Offset of the first element of output row r, read through strides st of a tensor whose shape
// agrees with `out` in dims 1 and 2 (or broadcasts there).
inline int64_t row_base(int64_t r, const Shape& out, const Index4& st) {
  const int64_t d1 = out.dim4(1), d2 = out.dim4(2);
  return (r / (d1 * d2)) * st[0] + ((r / d2) % d1) * st[1] + (r % d2) * st[2];
}

template <class V, class F>
void map_rows(const TensorView<V>& x, Tensor<V>& out, int64_t r0, int64_t r1, F f) {
  const int64_t n = out.shape.dim4(3);
  if (x.dense()) {
    for (int64_t i = r0 * n; i < r1 * n; ++i) out.data[i] = f(x.data[i]);
    return;
  }
  const Index4 sx = x.strides;
  for (int64_t r = r0; r < r1; ++r) {
    const V* px = x.data + row_base(r, out.shape, sx);
    V* po = out.data.data() + r * n;
    for (int64_t j = 0; j < n; ++j) po[j] = f(px[j]);
  }
}

template <class V, class F>
void zip_rows(const TensorView<V>& a, const TensorView<V>& b, Tensor<V>& out, int64_t r0, int64_t r1, F f) {
  const Index4 sa = broadcast_strides(a, out.shape), sb = broadcast_strides(b, out.shape);
  const int64_t n = out.shape.dim4(3);
  for (int64_t r = r0; r < r1; ++r) {
    const V* pa = a.data + row_base(r, out.shape, sa);
    const V* pb = b.data + row_base(r, out.shape, sb);
    V* po = out.data.data() + r * n;
    for (int64_t j = 0; j < n; ++j) po[j] = f(pa[j * sa[3]], pb[j * sb[3]]);
  }
}

// a / b; a divisor broadcast along the row (a row's sum or rms) is prepared once per row (the zero
// divisors counted as if per element).
template <class A>
void div_rows(const A& ar, const TensorView<typename A::Value>& a, const TensorView<typename A::Value>& b,
              Tensor<typename A::Value>& out, int64_t r0, int64_t r1, uint64_t& zeros) {
  using V = typename A::Value;
  const Index4 sb = broadcast_strides(b, out.shape);
  if (sb[3] != 0) return zip_rows(a, b, out, r0, r1, [&](V x, V y) { return ar.div(x, y, zeros); });
  const Index4 sa = broadcast_strides(a, out.shape);
  const int64_t n = out.shape.dim4(3);
  for (int64_t r = r0; r < r1; ++r) {
    uint64_t z = 0;
    const auto d = ar.divisor(b.data[row_base(r, out.shape, sb)], z);
    zeros += z * n;
    const V* pa = a.data + row_base(r, out.shape, sa);
    V* po = out.data.data() + r * n;
    for (int64_t j = 0; j < n; ++j) po[j] = ar.div_by(pa[j * sa[3]], d);
  }
}

// A matmul is computed in tiles of up to kMatmulRowBlock rows of one batch matrix by
// kMatmulColumnChunk columns: the tile's accumulators stay in L1, and each element of b it loads
// feeds kMatmulRowBlock of them, so b is read once per row block instead of once per row.
inline constexpr int64_t kMatmulRowBlock = 4, kMatmulColumnChunk = 64;

// The matmul is most of a full-size evaluation: GCC compiles it for AVX2 and AVX-512 too, and the
// loader picks the one the CPU has (the field's column loop vectorizes over (p, q) pairs, so wider
// vectors do more of it per instruction). The bits are the same in every version: the field is exact,
// and the build turns off float contraction (no FMA). The helpers are inlined into each version, so
// that they too are compiled for its instructions.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__)
#define UGS_VECTOR_CLONES [[gnu::target_clones("default", "arch=x86-64-v3", "arch=x86-64-v4")]]
#define UGS_VECTOR_INLINE [[gnu::always_inline]] inline
#else
#define UGS_VECTOR_CLONES
#define UGS_VECTOR_INLINE inline
#endif

// A matmul's inner dim and the row stride of b [k, n]: n for a dense b, the input's for a loaded tile
// read in place. Passed by value, and a dense b's loop is compiled apart with n as its stride: the
// field's loop has no register to spare for one more value.
struct MatmulRows {
  int64_t k, ldb;
};

// Terms kk .. kk+T-1 (T is 1 or 2) of a tile's R × jn accumulators, from rows [0, R) of a (dense: row
// stride k) and columns [c, c+jn) of b. Two terms at a time, the field folds once per pair.
template <int T, int R, class A>
UGS_VECTOR_INLINE void matmul_terms(const A& ar, typename A::Acc (&acc)[R][kMatmulColumnChunk],
                                    const typename A::Value* a, const typename A::Value* b, int64_t k, int64_t ldb,
                                    int64_t kk, int64_t c, int64_t jn) {
  typename A::Value av[T][R];
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < R; ++i) av[t][i] = a[i * k + kk + t];
  const typename A::Value* brow = b + kk * ldb + c;
  for (int t = 0; t < T; ++t)
    prefetch_span(brow, static_cast<int64_t>(sizeof(*b)) * (kPrefetchRows + t) * ldb, jn, sizeof(*b));
  for (int64_t j = 0; j < jn; ++j)
    for (int i = 0; i < R; ++i) {
      if constexpr (T == 2) {
        ar.acc_fma2(acc[i][j], av[0][i], brow[j], av[1][i], brow[ldb + j]);
      } else {
        ar.acc_fma(acc[i][j], av[0][i], brow[j]);
      }
    }
}

// Rows [0, R) of a times b into out (row stride n), columns [j0, j1). R is a constant, so the R values
// of a at each k stay in registers.
template <int R, bool kDenseB, class A>
UGS_VECTOR_INLINE void matmul_row_block(const A& ar, const typename A::Value* a, const typename A::Value* b,
                                        typename A::Value* out, MatmulRows mr, int64_t n, int64_t j0,
                                        int64_t j1) {
  constexpr int64_t kChunk = kMatmulColumnChunk;
  const int64_t k = mr.k, ldb = kDenseB ? n : mr.ldb;
  for (int64_t c = j0; c < j1; c += kChunk) {
    const int64_t jn = std::min(kChunk, j1 - c);
    typename A::Acc acc[R][kChunk]{};
    int64_t kk = 0;
    for (; kk + 1 < k; kk += 2) matmul_terms<2>(ar, acc, a, b, k, ldb, kk, c, jn);
    if (kk < k) matmul_terms<1>(ar, acc, a, b, k, ldb, kk, c, jn);
    for (int i = 0; i < R; ++i)
      for (int64_t j = 0; j < jn; ++j) out[i * n + c + j] = ar.acc_value(acc[i][j]);
  }
}

// out[.., i, j] = Σ_k a[.., i, k] b[.., k, j] for rows [r0, r1) (all dims before the last,
// flattened) and columns [j0, j1), batch dims equal; a is dense. Every element is summed over k in
// order, so float64 gives the same bits whatever the tiling.
// `avx512`: a field matmul's row blocks take field_row_block_avx512 (matmul_tile picks it per
// tile, pick_field_matmul).
template <class A>
UGS_VECTOR_CLONES void matmul_tile_with(const A& ar, const TensorView<typename A::Value>& a,
                                        const TensorView<typename A::Value>& b, Tensor<typename A::Value>& out,
                                        int64_t r0, int64_t r1, int64_t j0, int64_t j1, bool avx512) {
  const int64_t m = out.shape.dim4(2), n = out.shape.dim4(3), batch1 = out.shape.dim4(1);
  const MatmulRows mr{a.shape.dim4(3), b.strides[2]};
  const bool dense_b = mr.ldb == n;
  if (!a.dense()) throw std::logic_error("matmul_tile: the left operand must be dense");
  for (int64_t r = r0; r < r1;) {
    const int64_t rows = std::min({r1 - r, kMatmulRowBlock, m - r % m});  // within one batch matrix
    const int64_t matrix = r / m;
    const auto* pa = a.data + r * mr.k;
    const auto* pb = b.data + (matrix / batch1) * b.strides[0] + (matrix % batch1) * b.strides[1];
    auto* po = out.data.data() + r * n;
    if constexpr (std::is_same_v<typename A::Value, FieldPair>) {
      if (avx512) {
        field_row_block_avx512<typename A::Field>(pa, pb, po, static_cast<int>(rows), mr.k, mr.ldb, n, j0, j1);
        r += rows;
        continue;
      }
    }
    if (rows == kMatmulRowBlock && dense_b) {
      matmul_row_block<kMatmulRowBlock, true>(ar, pa, pb, po, mr, n, j0, j1);
    } else if (rows == kMatmulRowBlock) {
      matmul_row_block<kMatmulRowBlock, false>(ar, pa, pb, po, mr, n, j0, j1);
    } else {
      for (int64_t i = 0; i < rows; ++i) {
        if (dense_b) {
          matmul_row_block<1, true>(ar, pa + i * mr.k, pb, po + i * n, mr, n, j0, j1);
        } else {
          matmul_row_block<1, false>(ar, pa + i * mr.k, pb, po + i * n, mr, n, j0, j1);
        }
      }
    }
    r += rows;
  }
}

template <class A>
void matmul_tile(const A& ar, const TensorView<typename A::Value>& a, const TensorView<typename A::Value>& b,
                 Tensor<typename A::Value>& out, int64_t r0, int64_t r1, int64_t j0, int64_t j1) {
  if constexpr (std::is_same_v<typename A::Value, FieldPair>) {
    const FieldMatmulPick pick =
        pick_field_matmul(j1 - j0, b.strides[2] * static_cast<int64_t>(sizeof(FieldPair)));
    if (pick.timed_class < 0) return matmul_tile_with(ar, a, b, out, r0, r1, j0, j1, pick.avx512);
    const auto start = std::chrono::steady_clock::now();
    matmul_tile_with(ar, a, b, out, r0, r1, j0, j1, pick.avx512);
    field_matmul_timed(pick, std::chrono::duration_cast<std::chrono::nanoseconds>(
                                 std::chrono::steady_clock::now() - start).count());
  } else {
    matmul_tile_with(ar, a, b, out, r0, r1, j0, j1, false);
  }
}

template <class A>
void matmul_rows(const A& ar, const TensorView<typename A::Value>& a, const TensorView<typename A::Value>& b,
                 Tensor<typename A::Value>& out, int64_t r0, int64_t r1) {
  matmul_tile(ar, a, b, out, r0, r1, 0, out.shape.dim4(3));
}

// Below this many terms a fold adds them one by one: a lazy sum's value costs two 64-bit remainders
// in a field, and an accumulator over a loop (accum_sum) adds one term per element per iteration.
inline constexpr int64_t kLazyFoldFrom = 8;

// Σ_t pre(p[t·step]) for t < reps, the same bits either way (the float sum in the same order from 0).
template <class A, class Pre>
typename A::Value fold_one(const A& ar, const typename A::Value* p, int64_t reps, int64_t step, Pre pre) {
  if (reps < kLazyFoldFrom) {
    typename A::Value s = ar.zero();
    for (int64_t t = 0; t < reps; ++t) s = ar.add(s, pre(p[t * step]));
    return s;
  }
  typename A::Acc s{};
  for (int64_t t = 0; t < reps; ++t) ar.acc_add(s, pre(p[t * step]));
  return ar.acc_value(s);
}

// Folds dim d4 (4-D index) of x to the size it has in `out` by adding its consecutive chunks
// (reduce_sum is a fold to 1), reading each element through `pre` (identity or square). With
// `into`, the fold is added to what `out` holds (loop accumulators).
template <class A, class Pre>
void fold_rows(const A& ar, const TensorView<typename A::Value>& x, Tensor<typename A::Value>& out, int d4,
               bool into, int64_t r0, int64_t r1, Pre pre) {
  using V = typename A::Value;
  const Index4 sx = x.strides;  // a copy: a store to out (uint64_t) may alias a view's strides
  const int64_t reps = x.shape.dim4(d4) / out.shape.dim4(d4);
  const int64_t step = sx[d4] * out.shape.dim4(d4);
  const int64_t n = out.shape.dim4(3);
  for (int64_t r = r0; r < r1; ++r) {
    const V* px = x.data + row_base(r, out.shape, sx);  // x's last stride is 1
    V* po = out.data.data() + r * n;
    if (reps == 1 && into) {  // accum_sum: an element-wise add, which vectorizes
      for (int64_t j = 0; j < n; ++j) po[j] = ar.add(po[j], pre(px[j]));
      continue;
    }
    for (int64_t j = 0; j < n; ++j) {
      const V s = fold_one(ar, px + j, reps, step, pre);
      po[j] = into ? ar.add(po[j], s) : s;
    }
  }
}

// sqrt(mean of squares) from a sum of squares over n elements (rms_norm, accum_rms_lastdim).
template <class A>
typename A::Value rms_of_sum(const A& ar, typename A::Value sum_sq, int64_t n, uint64_t& zeros) {
  return ar.sqrt(ar.div(sum_sq, ar.from_count(n), zeros));
}

template <class A>
void rms_norm_rows(const A& ar, const TensorView<typename A::Value>& x, Tensor<typename A::Value>& out,
                   int64_t r0, int64_t r1, uint64_t& zeros) {
  const int64_t n = out.shape.dim4(3);
  const Index4 sx = x.strides;
  for (int64_t r = r0; r < r1; ++r) {
    const typename A::Value* px = x.data + row_base(r, out.shape, sx);
    typename A::Acc s{};
    for (int64_t j = 0; j < n; ++j) ar.acc_fma(s, px[j], px[j]);
    const auto rms = rms_of_sum(ar, ar.acc_value(s), n, zeros);
    uint64_t z = 0;
    const auto d = ar.divisor(rms, z);
    zeros += z * n;
    for (int64_t j = 0; j < n; ++j) out.data[r * n + j] = ar.div_by(px[j], d);
  }
}

// One op (not a block graph) over output rows [r0, r1). `b` is null for unary ops. Accumulators fold
// their iteration's value into `out`.
template <class A>
void apply_rows(const A& ar, const Op& op, const TensorView<typename A::Value>& a,
                const TensorView<typename A::Value>* b, Tensor<typename A::Value>& out, int64_t r0, int64_t r1,
                uint64_t& zeros) {
  using V = typename A::Value;
  auto same = [](V v) { return v; };
  auto sq = [&](V v) { return ar.mul(v, v); };
  switch (op.kind) {
    case OpKind::Matmul: return matmul_rows(ar, a, *b, out, r0, r1);
    case OpKind::Add: return zip_rows(a, *b, out, r0, r1, [&](V x, V y) { return ar.add(x, y); });
    case OpKind::Mul: return zip_rows(a, *b, out, r0, r1, [&](V x, V y) { return ar.mul(x, y); });
    case OpKind::Div: return div_rows(ar, a, *b, out, r0, r1, zeros);
    case OpKind::Exp: return map_rows(a, out, r0, r1, [&](V x) { return ar.exp(x); });
    case OpKind::Sqrt: return map_rows(a, out, r0, r1, [&](V x) { return ar.sqrt(x); });
    case OpKind::Square: return map_rows(a, out, r0, r1, sq);
    case OpKind::Silu: return map_rows(a, out, r0, r1, [&](V x) { return ar.silu(x); });
    case OpKind::RmsNorm: return rms_norm_rows(ar, a, out, r0, r1, zeros);
    case OpKind::ReduceSum:
    case OpKind::ReduceSumTo: return fold_rows(ar, a, out, a.shape.to4(op.dim), false, r0, r1, same);
    case OpKind::AccumSum:
    case OpKind::AccumSumLastdim:
    case OpKind::AccumSumLastdimTo: return fold_rows(ar, a, out, 3, true, r0, r1, same);
    case OpKind::AccumRmsLastdim: return fold_rows(ar, a, out, 3, true, r0, r1, sq);
    case OpKind::Block: return;
  }
}

}  // namespace ugs::eval
