// Kernel ops as block programs (lower.h). Everything is 4-D: a shape of rank r is read with leading
// ones, as the CPU evaluator reads it.
#include "lower.h"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "tuning.h"
#include "ugs/util/hash.h"

namespace ugs::cuda {
namespace {

using Ext = std::array<int32_t, 4>;
using Strides = std::array<int64_t, 4>;

Ext ext_of(const Shape& s) { return {s.dim4(0), s.dim4(1), s.dim4(2), s.dim4(3)}; }

Strides strides_of(const Ext& e) {
  Strides st{0, 0, 0, 1};
  for (int i = 2; i >= 0; --i) st[i] = st[i + 1] * e[i + 1];
  return st;
}

// Whether offsets into a tensor of extent e fit 32-bit arithmetic.
bool narrow(const Ext& e) { return strides_of(e)[0] * e[0] < (int64_t{1} << 31); }

int32_t largest_divisor_at_most(int32_t n, int64_t cap) {
  if (cap >= n) return n;
  for (int64_t d = std::max<int64_t>(cap, 1); d > 1; --d)
    if (n % d == 0) return static_cast<int32_t>(d);
  return 1;
}

// A tile of `out` of at most `budget` elements (at least one), filled from dim `from` down to dim 0;
// dims above `from` keep the extent already in t.
Ext tile_within(const Ext& out, int64_t budget, Ext t = {1, 1, 1, 1}, int from = 3) {
  for (int d = from; d >= 0; --d) {
    t[d] = largest_divisor_at_most(out[d], std::max<int64_t>(budget, 1));
    budget /= t[d];
  }
  return t;
}

// Assembles a BlockProgram: tiles, loaders, ops and savers in order, then the arena layout.
class Builder {
 public:
  explicit Builder(int threads) : threads_(threads) {}

  void launch(const Ext& grid, int32_t loop) {
    for (int a = 0; a < kAxes; ++a) program_.grid[a] = grid[a];
    program_.loop = loop;
  }
  int tile(const Ext& e, bool accumulator = false, int32_t rms_count = 0) {
    if (program_.n_tiles == kMaxProgTiles) throw std::runtime_error("cuda: too many tiles in a block program");
    TileDesc& t = program_.tiles[program_.n_tiles];
    int64_t n = 1;
    for (int i = 0; i < 4; ++i) {
      t.ext[i] = e[i];
      n *= e[i];
    }
    if (n >= (int64_t{1} << 31)) throw std::runtime_error("cuda: a tile of 2^31 elements or more");
    t.numel = static_cast<uint32_t>(n);
    t.d3 = FastDiv::of(e[3]);
    t.d2 = FastDiv::of(e[2]);
    t.d1 = FastDiv::of(e[1]);
    t.zero_init = accumulator;
    t.rms_count = rms_count;
    return program_.n_tiles++;
  }
  Ext ext(int t) const {
    return {program_.tiles[t].ext[0], program_.tiles[t].ext[1], program_.tiles[t].ext[2], program_.tiles[t].ext[3]};
  }

  // A tensor of extent `tensor` read into `tile`, or written from it.
  void loader(int tile, const Ext& tensor, const Strides& axis_step, int64_t iter_step) {
    program_.loaders[program_.n_loaders++] = io(tile, tensor, axis_step, program_.loop > 1 ? iter_step : 0);
  }
  void saver(int tile, const Ext& tensor, const Strides& axis_step) {
    program_.savers[program_.n_savers++] = io(tile, tensor, axis_step, 0);
  }

  void op(const TileOp& o) {
    if (program_.n_ops == kMaxProgOps) throw std::runtime_error("cuda: too many ops in a block program");
    program_.ops[program_.n_ops++] = o;
  }
  void end_loop() { program_.n_loop_ops = program_.n_ops; }

  TileOp map(OpKind fn, int a, int out) const {
    TileOp o;
    o.kind = TileOpKind::Map;
    o.fn = static_cast<uint8_t>(fn);
    o.in0 = static_cast<uint8_t>(a);
    o.out = static_cast<uint8_t>(out);
    return o;
  }
  // The CPU's broadcast_strides: an operand dim of 1 against a larger out dim is read at 0.
  TileOp zip(OpKind fn, int a, int b, int out) const {
    TileOp o = map(fn, a, out);
    o.kind = TileOpKind::Zip;
    o.in1 = static_cast<uint8_t>(b);
    const Ext eo = ext(out), ea = ext(a), eb = ext(b);
    const Strides sa = strides_of(ea), sb = strides_of(eb);
    for (int i = 0; i < 4; ++i) {
      o.sa[i] = ea[i] == 1 && eo[i] != 1 ? 0 : static_cast<int32_t>(sa[i]);
      o.sb[i] = eb[i] == 1 && eo[i] != 1 ? 0 : static_cast<int32_t>(sb[i]);
    }
    o.plain = ea == eo && eb == eo;
    return o;
  }
  TileOp matmul(int a, int b, int out, bool into) const {
    TileOp o = map(OpKind::Matmul, a, out);
    o.kind = TileOpKind::Matmul;
    o.in1 = static_cast<uint8_t>(b);
    o.n = ext(a)[3];
    o.into = into;
    return o;
  }
  // The CPU's fold_rows: dim d4 of x folded to its extent in out by adding consecutive chunks.
  TileOp fold(int x, int out, int d4, bool square, bool into) const {
    TileOp o = map(square ? OpKind::Square : OpKind::Add, x, out);
    o.kind = TileOpKind::Fold;
    o.into = into;
    const Ext ex = ext(x), eo = ext(out);
    const Strides sx = strides_of(ex);
    for (int i = 0; i < 4; ++i) o.sa[i] = static_cast<int32_t>(sx[i]);
    o.n = ex[d4] / eo[d4];
    o.sb[0] = static_cast<int32_t>(sx[d4] * eo[d4]);
    return o;
  }
  TileOp rms_norm(int x, int out) {
    TileOp o = map(OpKind::RmsNorm, x, out);
    o.kind = TileOpKind::RmsNorm;
    o.n = ext(out)[3];
    return o;
  }

  // Arena: the tiles (each at an even offset), a second copy of each loader tile refilled every
  // iteration (the next iteration's copy fills while this one's ops run), then each reducing op's
  // scratch. Then the barriers: one before an op only where it reads a tile written, or writes a tile
  // touched, since the last barrier (the loop's body starts and ends with one, as do the ops after it).
  BlockProgram finish() {
    uint64_t off = 0;
    auto take = [&](uint64_t n) {
      const uint64_t at = off;
      off += (n + 1) & ~uint64_t{1};
      return static_cast<uint32_t>(at);
    };
    const uint32_t used = used_tiles();
    for (int t = 0; t < program_.n_tiles; ++t) {
      TileDesc& d = program_.tiles[t];
      if (used >> t & 1) {
        d.off = d.off_alt = take(d.numel);
      } else {  // a matmul's own tile once it adds into its accumulator: nothing touches it
        d.off = d.off_alt = 0;
        d.zero_init = 0;
        d.rms_count = 0;
      }
    }
    for (int l = 0; l < program_.n_loaders; ++l)
      if (program_.loaders[l].iter_step != 0)
        program_.tiles[program_.loaders[l].tile].off_alt = take(program_.tiles[program_.loaders[l].tile].numel);
    // Scratch only for sums that meet through shared memory (split_sums: more than half a warp of
    // outputs; a warp is min(32, threads) threads).
    const uint32_t warp = std::min(threads_, 32);
    for (int k = 0; k < program_.n_ops; ++k) {
      TileOp& o = program_.ops[k];
      if (prepares_divisors(program_, o)) o.divisors = take(program_.tiles[o.in1].numel);
      if (o.kind == TileOpKind::Map || o.kind == TileOpKind::Zip) continue;
      const uint32_t outputs = program_.tiles[o.out].numel / (o.kind == TileOpKind::RmsNorm ? uint32_t(o.n) : 1u);
      if (outputs * 2 > warp) o.scratch = take(static_cast<uint64_t>(threads_));
      if (o.kind == TileOpKind::RmsNorm) o.divisors = take(outputs);
    }
    if (off >= (uint64_t{1} << 31)) throw std::runtime_error("cuda: a block program's arena exceeds 2^31 elements");
    program_.arena = static_cast<uint32_t>(off);
    place_barriers(0, program_.n_loop_ops);
    place_barriers(program_.n_loop_ops, program_.n_ops);
    for (int l = 0; l < program_.n_loaders; ++l) program_.loaders[l].pairs = pairs(program_.loaders[l]);
    for (int s = 0; s < program_.n_savers; ++s) program_.savers[s].pairs = pairs(program_.savers[s]);
    return program_;
  }

 private:
  uint32_t used_tiles() const {
    uint32_t u = 0;
    for (int l = 0; l < program_.n_loaders; ++l) u |= 1u << program_.loaders[l].tile;
    for (int s = 0; s < program_.n_savers; ++s) u |= 1u << program_.savers[s].tile;
    for (int k = 0; k < program_.n_ops; ++k) {
      const TileOp& o = program_.ops[k];
      u |= 1u << o.in0 | 1u << o.out;
      if (o.kind == TileOpKind::Zip || o.kind == TileOpKind::Matmul) u |= 1u << o.in1;
    }
    return u;
  }

  void place_barriers(int k0, int k1) {
    uint32_t read = 0, written = 0;  // tiles since the last barrier, as bit sets
    for (int k = k0; k < k1; ++k) {
      TileOp& o = program_.ops[k];
      uint32_t r = 1u << o.in0;
      if (o.kind == TileOpKind::Zip || o.kind == TileOpKind::Matmul) r |= 1u << o.in1;
      if (o.into) r |= 1u << o.out;
      const uint32_t w = 1u << o.out;
      o.sync_before = k > k0 && ((r & written) || (w & (read | written)));
      if (o.sync_before) read = written = 0;
      read |= r;
      written |= w;
    }
  }
  // 16-byte moves need an even row length, even tensor strides, even origins and an even arena offset.
  bool pairs(const Io& io) const {
    const TileDesc& t = program_.tiles[io.tile];
    bool even = t.ext[3] % 2 == 0 && t.off % 2 == 0 && t.off_alt % 2 == 0 && io.iter_step % 2 == 0;
    for (int d = 0; d < 3; ++d) even = even && io.stride[d] % 2 == 0;
    for (int a = 0; a < kAxes; ++a) even = even && io.axis_step[a] % 2 == 0;
    return even;
  }

  static Io io(int tile, const Ext& tensor, const Strides& axis_step, int64_t iter_step) {
    Io r;
    const Strides st = strides_of(tensor);
    for (int a = 0; a < kAxes; ++a) r.axis_step[a] = axis_step[a];
    r.iter_step = iter_step;
    for (int d = 0; d < 3; ++d) r.stride[d] = st[d];
    r.tile = static_cast<uint8_t>(tile);
    r.narrow = narrow(tensor);
    return r;
  }

  BlockProgram program_;
  int threads_;
};

// The accum_sum that is the only reader of loop op k's tile, when k is a matmul: the matmul then adds
// into the accumulator itself (the same sum, one pass and one barrier less per iteration).
int fused_accum(const BlockGraph& bg, int k) {
  if (bg.ops[k].kind != OpKind::Matmul) return -1;
  const int t = bg.inputs.size() + k;
  int reader = -1;
  for (int j = 0; j < bg.ops.size(); ++j)
    for (int i = 0; i < arity(bg.ops[j].kind); ++i)
      if (bg.ops[j].in[i] == t) {
        if (reader != -1 && reader != j) return -1;
        reader = j;
      }
  for (const BlockOutput& o : bg.outputs)
    if (o.tile == t) return -1;
  return reader >= 0 && bg.ops[reader].kind == OpKind::AccumSum ? reader : -1;
}

bool after_loop(const BlockGraph& bg, int k) {
  return !is_accumulator(bg.ops[k].kind) && bg.tiles[bg.inputs.size() + k].post;
}

TileOp block_op(Builder& builder, const BlockGraph& bg, int k) {
  const Op& op = bg.ops[k];
  const int out = bg.inputs.size() + k, a = op.in[0];
  switch (op.kind) {
    case OpKind::Matmul: return builder.matmul(a, op.in[1], out, false);
    case OpKind::Add:
    case OpKind::Mul:
    case OpKind::Div: return builder.zip(op.kind, a, op.in[1], out);
    case OpKind::ReduceSum:
    case OpKind::ReduceSumTo: return builder.fold(a, out, bg.tiles[a].shape.to4(op.dim), false, false);
    case OpKind::RmsNorm: return builder.rms_norm(a, out);
    case OpKind::AccumSum:
    case OpKind::AccumSumLastdim:
    case OpKind::AccumSumLastdimTo: return builder.fold(a, out, 3, false, true);
    case OpKind::AccumRmsLastdim: return builder.fold(a, out, 3, true, true);
    default: return builder.map(op.kind, a, out);  // exp, sqrt, square, silu
  }
}

void lower_block(const KernelGraph& graph, const KernelOp& kop, Builder& builder, Lowered& lowered) {
  const BlockGraph& bg = graph.blocks[kop.block];
  const int ni = bg.inputs.size();
  builder.launch({bg.grid[0], bg.grid[1], bg.grid[2], 1}, bg.loop);
  for (int t = 0; t < bg.tiles.size(); ++t) {
    const Op* op = t >= ni ? &bg.ops[t - ni] : nullptr;
    const bool acc = op && is_accumulator(op->kind);
    const int32_t rms = op && op->kind == OpKind::AccumRmsLastdim ? bg.loop * bg.tiles[op->in[0]].shape.dim4(3) : 0;
    builder.tile(ext_of(bg.tiles[t].shape), acc, rms);
  }
  for (int i = 0; i < ni; ++i) {
    const BlockInput& in = bg.inputs[i];
    const Shape& src = graph.shape(in.tensor);
    const Strides st = strides_of(ext_of(src));
    Strides step{0, 0, 0, 0};
    for (int a = 0; a < 3; ++a)
      if (in.imap[a] != kNoDim) step[a] = int64_t{src.d[in.imap[a]] / bg.grid[a]} * st[src.to4(in.imap[a])];
    const int64_t iter = in.fmap == kNoDim ? 0 : int64_t{bg.tiles[i].shape.d[in.fmap]} * st[src.to4(in.fmap)];
    builder.loader(i, ext_of(src), step, iter);
    lowered.src[i] = in.tensor;
  }
  std::array<bool, kMaxBlockOps> fused{};
  for (int k = 0; k < bg.ops.size(); ++k) {
    if (after_loop(bg, k) || fused[k]) continue;
    if (const int acc = fused_accum(bg, k); acc >= 0) {
      fused[acc] = true;
      builder.op(builder.matmul(bg.ops[k].in[0], bg.ops[k].in[1], ni + acc, true));
      continue;
    }
    builder.op(block_op(builder, bg, k));
  }
  builder.end_loop();
  for (int k = 0; k < bg.ops.size(); ++k)
    if (after_loop(bg, k)) builder.op(block_op(builder, bg, k));
  for (int o = 0; o < bg.outputs.size(); ++o) {
    const BlockOutput& out = bg.outputs[o];
    const Shape& u = bg.tiles[out.tile].shape;
    const Shape& dst = graph.shape(kop.first_out + o);
    const Strides st = strides_of(ext_of(dst));
    Strides step{0, 0, 0, 0};
    for (int a = 0; a < 3; ++a)
      if (out.omap[a] != kNoDim) step[a] = int64_t{u.d[out.omap[a]]} * st[dst.to4(out.omap[a])];
    builder.saver(out.tile, ext_of(dst), step);
    lowered.dst[o] = kop.first_out + o;
  }
}

Strides tile_steps(const Ext& tile, const Strides& tensor) {
  return {tile[0] * tensor[0], tile[1] * tensor[1], tile[2] * tensor[2], tile[3] * tensor[3]};
}

Ext grid_of(const Ext& out, const Ext& tile) {
  return {out[0] / tile[0], out[1] / tile[1], out[2] / tile[2], out[3] / tile[3]};
}

// A predefined op: out[b, 0] = op(operands), the operands read in tiles matching the output's.
void lower_predefined(const KernelGraph& graph, const KernelOp& kop, Builder& builder, Lowered& lowered) {
  const Op& op = kop.op;
  const Ext O = ext_of(graph.shape(kop.first_out)), X = ext_of(graph.shape(op.in[0]));
  const Strides sO = strides_of(O), sX = strides_of(X);
  lowered.dst[0] = kop.first_out;
  lowered.src[0] = op.in[0];
  Ext T;
  int out = 0;
  switch (op.kind) {
    case OpKind::Matmul: {
      const Ext Y = ext_of(graph.shape(op.in[1]));
      const Strides sY = strides_of(Y);
      const int32_t tm = largest_divisor_at_most(O[2], tuning::kMatmulM);
      const int32_t tn = largest_divisor_at_most(O[3], tuning::kMatmulN);
      const int32_t tk = largest_divisor_at_most(X[3], tuning::kMatmulK);
      T = {1, 1, tm, tn};
      builder.launch(grid_of(O, T), X[3] / tk);
      const int ta = builder.tile({1, 1, tm, tk}), tb = builder.tile({1, 1, tk, tn});
      out = builder.tile(T, true);
      builder.loader(ta, X, {sX[0], sX[1], tm * sX[2], 0}, tk);
      builder.loader(tb, Y, {sY[0], sY[1], 0, tn}, tk * sY[2]);
      lowered.src[1] = op.in[1];
      builder.op(builder.matmul(ta, tb, out, true));
      break;
    }
    case OpKind::ReduceSum: {
      const int d4 = graph.shape(op.in[0]).to4(op.dim);
      const int32_t tr = largest_divisor_at_most(X[d4], tuning::kReduceChunk);
      T = tile_within(O, tuning::kElemTile / tr);
      Ext TX = T;
      TX[d4] = tr;
      builder.launch(grid_of(O, T), X[d4] / tr);
      const int tx = builder.tile(TX);
      out = builder.tile(T, true);
      Strides step = tile_steps(T, sX);
      step[d4] = 0;
      builder.loader(tx, X, step, tr * sX[d4]);
      builder.op(builder.fold(tx, out, d4, false, true));
      break;
    }
    case OpKind::RmsNorm: {
      T = tile_within(O, tuning::kElemTile / O[3], {1, 1, 1, O[3]}, 2);
      builder.launch(grid_of(O, T), 1);
      const int tx = builder.tile(T);
      out = builder.tile(T);
      builder.loader(tx, X, tile_steps(T, sX), 0);
      builder.op(builder.rms_norm(tx, out));
      break;
    }
    default: {  // element-wise, with broadcasting for binary ops
      T = tile_within(O, tuning::kElemTile);
      builder.launch(grid_of(O, T), 1);
      const int n = arity(op.kind);
      int tiles[2] = {0, 0};
      for (int i = 0; i < n; ++i) {
        const Ext E = ext_of(graph.shape(op.in[i]));
        const Strides sE = strides_of(E);
        Ext TE = T;
        Strides step = tile_steps(T, sE);
        for (int d = 0; d < 4; ++d) {
          if (E[d] == 1 && O[d] != 1) {  // broadcast: the operand's one element along d
            TE[d] = 1;
            step[d] = 0;
          }
        }
        tiles[i] = builder.tile(TE);
        builder.loader(tiles[i], E, step, 0);
        lowered.src[i] = op.in[i];
      }
      out = builder.tile(T);
      builder.op(n == 2 ? builder.zip(op.kind, tiles[0], tiles[1], out) : builder.map(op.kind, tiles[0], out));
      break;
    }
  }
  builder.end_loop();
  builder.saver(out, O, tile_steps(T, sO));
}

// Every kernel tensor lower_kernel_op reads the index and shape of: operands, then results.
FixedVec<int32_t, kMaxBlockInputs + kMaxBlockOutputs> touched_tensors(const KernelGraph& graph, int k) {
  FixedVec<int32_t, kMaxBlockInputs + kMaxBlockOutputs> tensors;
  for (int32_t t : graph.operands(k)) tensors.push_back(t);
  const KernelOp& kop = graph.ops[k];
  const int outs = kop.op.kind == OpKind::Block ? graph.blocks[kop.block].outputs.size() : 1;
  for (int o = 0; o < outs; ++o) tensors.push_back(kop.first_out + o);
  return tensors;
}

bool same_tiles(const BlockGraph& a, const BlockGraph& b) {
  if (a.tiles.size() != b.tiles.size()) return false;
  for (int t = 0; t < a.tiles.size(); ++t)
    if (!(a.tiles[t].shape == b.tiles[t].shape) || a.tiles[t].post != b.tiles[t].post) return false;
  return true;
}

// Everything lower_block reads of a block graph.
bool same_block(const BlockGraph& a, const BlockGraph& b) {
  return a.grid == b.grid && a.loop == b.loop && a.inputs == b.inputs && a.ops == b.ops && a.outputs == b.outputs &&
         same_tiles(a, b);
}

void add_shape(Hasher& h, const Shape& s) {
  h.add(uint64_t(s.rank));
  for (int i = 0; i < s.rank; ++i) h.add(uint64_t(uint32_t(s.d[i])));
}

void add_op(Hasher& h, const Op& op) {
  h.add(uint64_t(op.kind)).add(uint64_t(uint8_t(op.dim))).add(uint64_t(uint32_t(op.to)));
  h.add(uint64_t(uint32_t(op.in[0]))).add(uint64_t(uint32_t(op.in[1])));
}

// Launch, loaders and ops of a block graph; its savers and tiles follow from them.
void add_block(Hasher& h, const BlockGraph& bg) {
  h.add(uint64_t(uint32_t(bg.grid[0]))).add(uint64_t(uint32_t(bg.grid[1]))).add(uint64_t(uint32_t(bg.grid[2])));
  h.add(uint64_t(uint32_t(bg.loop)));
  for (const BlockInput& in : bg.inputs)
    h.add(uint64_t(uint8_t(in.imap[0])) | uint64_t(uint8_t(in.imap[1])) << 8 | uint64_t(uint8_t(in.imap[2])) << 16 |
          uint64_t(uint8_t(in.fmap)) << 24);
  for (const Op& op : bg.ops) add_op(h, op);
}

}  // namespace

bool same_lowering(const KernelGraph& a, int ka, const KernelGraph& b, int kb) {
  const KernelOp &x = a.ops[ka], &y = b.ops[kb];
  if (!(x.op == y.op) || x.first_out != y.first_out || x.num_out != y.num_out) return false;
  if (x.op.kind == OpKind::Block && !same_block(a.blocks[x.block], b.blocks[y.block])) return false;
  const auto tx = touched_tensors(a, ka), ty = touched_tensors(b, kb);
  if (!(tx == ty)) return false;
  for (int32_t t : tx)
    if (!(a.shape(t) == b.shape(t))) return false;
  return true;
}

uint64_t lowering_hash(const KernelGraph& graph, int k) {
  const KernelOp& kop = graph.ops[k];
  Hasher hasher;
  add_op(hasher, kop.op);
  hasher.add(uint64_t(uint16_t(kop.first_out)));
  if (kop.op.kind == OpKind::Block) add_block(hasher, graph.blocks[kop.block]);
  for (int32_t t : touched_tensors(graph, k)) {
    hasher.add(uint64_t(uint32_t(t)));
    add_shape(hasher, graph.shape(t));
  }
  return hasher.value();
}

Lowered lower_kernel_op(const KernelGraph& graph, int k, int threads) {
  Lowered lowered;
  Builder builder(threads);
  const KernelOp& kop = graph.ops[k];
  if (kop.op.kind == OpKind::Block) {
    lower_block(graph, kop, builder, lowered);
  } else {
    lower_predefined(graph, kop, builder, lowered);
  }
  lowered.prog = builder.finish();
  return lowered;
}

}  // namespace ugs::cuda
