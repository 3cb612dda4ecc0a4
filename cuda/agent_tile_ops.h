#pragma once
// The ops of the interpreter on tiles (cuda/agent_interpret.h), one function per TileOpKind. Every
// thread of a block calls each function; threads stride over the elements (or, for sums, over the
// outputs and the terms). A function ends without a barrier; the interpreter puts one after each op.
// The scalar maths is FieldArith's (ugs/field/field.h), the same code the CPU evaluator runs.
//
// Cx, the block context: tid(), threads(), sync(), add_sum(slot, value) (every thread calls it),
// warp_size() and shfl_down(value, delta) (warp 0's threads, all of them, call it), and
// copy(dst, src) / copy_pair(dst, src) / commit_loads() / wait_loads(keep_newest_group) for
// asynchronous tile loads (a pair: two elements, 16-byte aligned at both ends).
// Device: cuda/block_ctx.cuh; host emulation: cuda/emulator.cpp.
#include <cstdint>

#include "tuning.h"
#include "ugs/cuda/program.h"
#include "ugs/ir/op.h"

#if defined(__CUDA_ARCH__)
#define UGS_UNROLL _Pragma("unroll")
#else
#define UGS_UNROLL
#endif

namespace ugs::cuda {

// Element access: 8-byte words on the device (one LDS/STS.64, conflict-free across a warp), read-only
// cached loads for device tensors (a launch never writes a tensor it reads), 16-byte pair stores.
UGS_HD inline FieldPair ld(const FieldPair* p) {
#if defined(__CUDA_ARCH__)
  const uint2 v = *reinterpret_cast<const uint2*>(p);
  return {v.x, v.y};
#else
  return *p;
#endif
}
UGS_HD inline void st(FieldPair* p, FieldPair v) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint2*>(p) = make_uint2(v.p, v.q);
#else
  *p = v;
#endif
}
UGS_HD inline void st_pair(FieldPair* p, FieldPair a, FieldPair b) {
#if defined(__CUDA_ARCH__)
  *reinterpret_cast<uint4*>(p) = make_uint4(a.p, a.q, b.p, b.q);
#else
  p[0] = a;
  p[1] = b;
#endif
}
UGS_HD inline FieldPair ld_global(const FieldPair* p) {
#if defined(__CUDA_ARCH__)
  const uint2 v = __ldg(reinterpret_cast<const uint2*>(p));
  return {v.x, v.y};
#else
  return *p;
#endif
}

// 4-D coordinates of flat element i of a tile.
UGS_HD inline void coords_of(const TileDesc& t, uint32_t i, uint32_t c[4]) {
  const uint32_t q3 = t.d3.div(i), q2 = t.d2.div(q3), q1 = t.d1.div(q2);
  c[3] = i - q3 * uint32_t(t.ext[3]);
  c[2] = q3 - q2 * uint32_t(t.ext[2]);
  c[1] = q2 - q1 * uint32_t(t.ext[1]);
  c[0] = q1;
}

// v[r] = Σ_t x[r·xr + t·xs] y[t·ys] over len terms for R rows of x: each y[t·ys] is loaded once for
// all R rows (a matmul's column of b against R rows of a). Each row folds once per run of A::kDotRun
// products (FieldArith::Dot).
template <class A, uint32_t R>
UGS_HD void dots(const FieldPair* x, uint32_t xs, uint32_t xr, const FieldPair* y, uint32_t ys, uint32_t len,
                 FieldPair v[R]) {
  constexpr uint32_t run = A::kDotRun;
  typename A::Dot s[R]{};
  const auto term = [&](uint32_t t) {
    const FieldPair b = ld(y + t * ys);
    UGS_UNROLL
    for (uint32_t r = 0; r < R; ++r) A::dot_add(s[r], ld(x + r * xr + t * xs), b);
  };
  for (; len >= run; len -= run, x += run * xs, y += run * ys) {
    UGS_UNROLL
    for (uint32_t t = 0; t < run; ++t) term(t);
    UGS_UNROLL
    for (uint32_t r = 0; r < R; ++r) A::dot_fold(s[r]);
  }
  UGS_UNROLL
  for (uint32_t t = 0; t + 1 < run; ++t)  // fewer than a run are left: a known bound, no unrolled loop
    if (t < len) term(t);
  UGS_UNROLL
  for (uint32_t r = 0; r < R; ++r) v[r] = A::dot_value(s[r]);
}

// Σ_t x[t·xs] y[t·ys] over len terms.
template <class A>
UGS_HD FieldPair dot(const FieldPair* x, uint32_t xs, const FieldPair* y, uint32_t ys, uint32_t len) {
  FieldPair v[1];
  dots<A, 1>(x, xs, 0, y, ys, len, v);
  return v[0];
}

// The terms first, first + step, ... below len: how many.
UGS_HD inline uint32_t strided_count(uint32_t len, uint32_t first, uint32_t step) {
  return first < len ? (len - first + step - 1) / step : 0;
}

// The CPU evaluator's rms_of_sum (src/eval/tensor_ops.h): sqrt(mean of squares) from their sum.
template <class A>
UGS_HD FieldPair rms_of_sum(const A& ar, FieldPair sum_sq, int64_t n) {
  uint64_t zeros = 0;
  return ar.sqrt(ar.div(sum_sq, ar.from_count(n), zeros));
}

// outputs sums of len terms each. partial(o, first, step) sums the terms first, first + step, ...;
// finish(o, value) stores the total. With fewer outputs than threads, the terms of an output are
// split over ks threads, whose partial values meet by a tree of field additions (the field is exact:
// any split gives the CPU's value): within warp 0 by shuffles when outputs·ks fits a warp (no
// barrier: the other warps go on), else in `scratch` with barriers (ks at most 2·sqrt(len) then).
template <class A, class Cx, class Partial, class Finish>
UGS_HD void split_sums(const Cx& cx, FieldPair* scratch, uint32_t outputs, uint32_t len, Partial partial,
                       Finish finish) {
  const uint32_t threads = cx.threads(), t = cx.tid(), warp = cx.warp_size();
  uint32_t ks = 1;
  if (outputs * 2 <= warp) {
    while (ks * 2 <= len && outputs * ks * 2 <= warp) ks *= 2;
    if (t >= warp) return;
    FieldPair v = t < outputs * ks ? partial(t % outputs, t / outputs, ks) : A::zero();
    for (uint32_t h = ks / 2; h >= 1; h /= 2) {
      const FieldPair u = cx.shfl_down(v, h * outputs);
      if (t < h * outputs) v = A::add(v, u);
    }
    if (t < outputs) finish(t, v);
    return;
  }
  while (ks * 2 <= len && uint64_t{outputs} * ks * 2 <= threads && ks * ks <= len) ks *= 2;
  if (ks == 1) {
    for (uint32_t o = t; o < outputs; o += threads) finish(o, partial(o, 0, 1));
    return;
  }
  if (t < outputs * ks) st(scratch + t, partial(t % outputs, t / outputs, ks));
  cx.sync();
  for (uint32_t h = ks / 2; h > 1; h /= 2) {
    if (t < outputs * h) st(scratch + t, A::add(ld(scratch + t), ld(scratch + t + h * outputs)));
    cx.sync();
  }
  if (t < outputs) finish(t, A::add(ld(scratch + t), ld(scratch + t + outputs)));
}

template <class A, class Cx>
struct TileOps {
  const Cx& cx;
  const A& ar;
  const BlockProgram& p;
  FieldPair* arena;
  bool odd;  // an odd loop iteration: loader tiles refilled every iteration are in their second copy

  UGS_HD FieldPair* tile(int t) const { return arena + (odd ? p.tiles[t].off_alt : p.tiles[t].off); }

  UGS_HD void apply(const TileOp& op) const {
    switch (op.kind) {
      case TileOpKind::Map: return map(op);
      case TileOpKind::Zip: return zip(op);
      case TileOpKind::Matmul: return matmul(op);
      case TileOpKind::Fold: return fold(op);
      case TileOpKind::RmsNorm: return rms_norm(op);
    }
  }

  template <class F>
  UGS_HD void map_with(const TileOp& op, F f) const {
    const FieldPair* x = tile(op.in0);
    FieldPair* out = tile(op.out);
    const uint32_t n = p.tiles[op.out].numel;
    for (uint32_t i = cx.tid(); i < n; i += cx.threads()) st(out + i, f(ld(x + i)));
  }
  UGS_HD void map(const TileOp& op) const {
    switch (static_cast<OpKind>(op.fn)) {
      case OpKind::Exp: return map_with(op, [&](FieldPair v) { return ar.exp(v); });
      case OpKind::Sqrt: return map_with(op, [&](FieldPair v) { return A::sqrt(v); });
      case OpKind::Square: return map_with(op, [&](FieldPair v) { return A::mul(v, v); });
      case OpKind::Silu: return map_with(op, [&](FieldPair v) { return ar.silu(v); });
      default: return;
    }
  }

  // out = f(a, b) element-wise, b read at `b` (in1's tile, or its prepared divisors: the same layout).
  template <class F>
  UGS_HD void zip_with(const TileOp& op, const FieldPair* b, F f) const {
    const FieldPair* a = tile(op.in0);
    FieldPair* out = tile(op.out);
    const TileDesc& to = p.tiles[op.out];
    for (uint32_t i = cx.tid(); i < to.numel; i += cx.threads()) {
      if (op.plain) {
        st(out + i, f(ld(a + i), ld(b + i)));
        continue;
      }
      uint32_t c[4];
      coords_of(to, i, c);
      uint32_t ia = 0, ib = 0;
      for (int d = 0; d < 4; ++d) {
        ia += c[d] * uint32_t(op.sa[d]);
        ib += c[d] * uint32_t(op.sb[d]);
      }
      st(out + i, f(ld(a + ia), ld(b + ib)));
    }
  }
  UGS_HD void zip(const TileOp& op) const {
    const FieldPair* b = tile(op.in1);
    switch (static_cast<OpKind>(op.fn)) {
      case OpKind::Add: return zip_with(op, b, [](FieldPair x, FieldPair y) { return A::add(x, y); });
      case OpKind::Mul: return zip_with(op, b, [](FieldPair x, FieldPair y) { return A::mul(x, y); });
      case OpKind::Div:
        if (prepares_divisors(p, op)) {
          FieldPair* d = arena + op.divisors;
          prepare_divisors(b, d, p.tiles[op.in1].numel);
          cx.sync();
          return zip_with(op, d, [](FieldPair x, FieldPair y) { return A::div_by(x, y); });
        }
        return zip_with(op, b, [](FieldPair x, FieldPair y) {
          uint64_t zeros = 0;
          return A::div(x, y, zeros);
        });
      default: return;
    }
  }

  // d[i] = the divisor prepared from b[i] (A::Divisor is a slot's Value in every arithmetic here).
  UGS_HD void prepare_divisors(const FieldPair* b, FieldPair* d, uint32_t n) const {
    static_assert(sizeof(typename A::Divisor) == sizeof(FieldPair));
    for (uint32_t i = cx.tid(); i < n; i += cx.threads()) {
      uint64_t zeros = 0;
      st(d + i, A::divisor(ld(b + i), zeros));
    }
  }

  // Stores v at out[o], or adds it there for an accumulator.
  UGS_HD void put(FieldPair* out, uint32_t o, FieldPair v, bool into) const {
    st(out + o, into ? A::add(ld(out + o), v) : v);
  }

  // out[i, j] (+)= Σ_k a[i, k] b[k, j]; tiles without batch dims.
  UGS_HD void matmul(const TileOp& op) const {
    const FieldPair *a = tile(op.in0), *b = tile(op.in1);
    FieldPair* out = tile(op.out);
    const TileDesc& to = p.tiles[op.out];
    const uint32_t n = uint32_t(to.ext[3]), k = uint32_t(op.n), m = to.numel / n;
    if (m % kRows == 0 && (m / kRows) * n >= cx.threads()) return matmul_rows(op, a, b, out, m, n, k);
    split_sums<A>(
        cx, arena + op.scratch, to.numel, k,
        [&](uint32_t o, uint32_t k0, uint32_t ks) {
          const uint32_t i = to.d3.div(o), j = o - i * n;
          return dot<A>(a + i * k + k0, ks, b + j + k0 * n, ks * n, strided_count(k, k0, ks));
        },
        [&](uint32_t o, FieldPair v) { put(out, o, v, op.into); });
  }

  // With outputs enough for every thread to take kRows rows of one column: a term loads b[k, j] once
  // for kRows products, and the output's index and store come once per kRows sums. The matmuls are
  // bound by issued instructions, not by memory, so fewer loads and index computations per product
  // make them faster (docs/gpu.md).
  static constexpr uint32_t kRows = tuning::kMatmulRows;
  UGS_HD void matmul_rows(const TileOp& op, const FieldPair* a, const FieldPair* b, FieldPair* out, uint32_t m,
                          uint32_t n, uint32_t k) const {
    const TileDesc& to = p.tiles[op.out];
    for (uint32_t g = cx.tid(); g < (m / kRows) * n; g += cx.threads()) {
      const uint32_t r = to.d3.div(g), j = g - r * n, i = r * kRows;
      FieldPair v[kRows];
      dots<A, kRows>(a + i * k, 1, k, b + j, n, k, v);
      UGS_UNROLL
      for (uint32_t q = 0; q < kRows; ++q) put(out, (i + q) * n + j, v[q], op.into);
    }
  }

  // out[c] (+)= Σ_t pre(x[c + t·chunk along dim d]): reductions and accumulators (CPU: fold_rows);
  // a sum of squares is a dot product of the terms with themselves (one fold per run of products).
  UGS_HD void fold(const TileOp& op) const {
    const FieldPair* x = tile(op.in0);
    FieldPair* out = tile(op.out);
    const TileDesc& to = p.tiles[op.out];
    const bool square = static_cast<OpKind>(op.fn) == OpKind::Square;
    const uint32_t step = uint32_t(op.sb[0]);
    split_sums<A>(
        cx, arena + op.scratch, to.numel, uint32_t(op.n),
        [&](uint32_t o, uint32_t t0, uint32_t ts) {
          uint32_t c[4];
          coords_of(to, o, c);
          const FieldPair* px = x + c[0] * uint32_t(op.sa[0]) + c[1] * uint32_t(op.sa[1]) +
                                c[2] * uint32_t(op.sa[2]) + c[3] * uint32_t(op.sa[3]) + t0 * step;
          if (square) return dot<A>(px, ts * step, px, ts * step, strided_count(uint32_t(op.n), t0, ts));
          typename A::Acc s{};
          for (uint32_t t = t0; t < uint32_t(op.n); t += ts, px += ts * step) A::acc_add(s, ld(px));
          return A::acc_value(s);
        },
        [&](uint32_t o, FieldPair v) { put(out, o, v, op.into); });
  }

  // Each row of the last dim divided by its rms (CPU: rms_norm_rows): the rows' rms, then their
  // divisors, in the op's `divisors`. (Preparing each divisor right where its rms is computed, in
  // split_sums' finish, made nvcc's cicc take impractically long on interpret.cu.)
  UGS_HD void rms_norm(const TileOp& op) const {
    const FieldPair* x = tile(op.in0);
    FieldPair* out = tile(op.out);
    FieldPair* d = arena + op.divisors;
    const TileDesc& to = p.tiles[op.out];
    const uint32_t n = uint32_t(op.n), rows = to.numel / n;
    split_sums<A>(
        cx, arena + op.scratch, rows, n,
        [&](uint32_t r, uint32_t j0, uint32_t js) {
          const FieldPair* row = x + r * n + j0;
          return dot<A>(row, js, row, js, strided_count(n, j0, js));
        },
        [&](uint32_t r, FieldPair v) { st(d + r, rms_of_sum(ar, v, n)); });
    cx.sync();
    prepare_divisors(d, d, rows);  // each thread rewrites only the rows it reads
    cx.sync();
    for (uint32_t i = cx.tid(); i < to.numel; i += cx.threads()) st(out + i, A::div_by(ld(x + i), ld(d + to.d3.div(i))));
  }
};

}  // namespace ugs::cuda
