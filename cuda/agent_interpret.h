#pragma once
// The interpreter agent: one work item (one grid block of one job) in one CUDA block, exactly as the
// CPU's block emulator runs it (src/eval/block_emulator.h): accumulators zeroed, then every loop
// iteration loads the tiles imap/fmap place and runs the loop's ops, then the accumulators' final step
// (accum_rms_lastdim), the ops after the loop, and the savers at the origins omap places. Loads are
// asynchronous copies, double-buffered: iteration i+1's tiles arrive while iteration i computes.
// Barriers stand only where the program's tile hazards need them (TileOp::sync_before). The savers
// also hash what they write: element_mix of (index in the tensor, value), summed into the tensor's slot
// (ugs/eval/fingerprint.h), so no pass re-reads an output to hash it.
#include <cstdint>

#include "agent_tile_ops.h"
#include "ugs/eval/fingerprint.h"

namespace ugs::cuda {

template <class A, class Cx>
struct InterpretAgent {
  const Cx& cx;
  const A& ar;
  const BlockProgram& p;
  const Job& job;
  FieldPair* arena;
  uint64_t* sums;

  // Element i of tile t read through tensor strides: the offset from the tile's origin. Tiles without
  // leading dims (most) take one division; tensors below 2^31 elements, 32-bit arithmetic.
  UGS_HD static int64_t tensor_offset(const TileDesc& t, uint32_t i, const Io& io) {
    if (t.ext[0] == 1 && t.ext[1] == 1) {
      const uint32_t row = t.d3.div(i), col = i - row * uint32_t(t.ext[3]);
      if (io.narrow) return int64_t(row * uint32_t(io.stride[2]) + col);
      return row * io.stride[2] + col;
    }
    uint32_t c[4];
    coords_of(t, i, c);
    if (io.narrow)
      return int64_t(c[0] * uint32_t(io.stride[0]) + c[1] * uint32_t(io.stride[1]) + c[2] * uint32_t(io.stride[2]) + c[3]);
    return c[0] * io.stride[0] + c[1] * io.stride[1] + c[2] * io.stride[2] + c[3];
  }

  UGS_HD static int64_t origin(const Io& io, const int64_t coord[kAxes]) {
    int64_t o = 0;
    for (int a = 0; a < kAxes; ++a) o += coord[a] * io.axis_step[a];
    return o;
  }

  // Starts filling the tiles of iteration `it` (all loaders at 0, then those refilled every
  // iteration) as one group of asynchronous copies; Cx::wait_loads ends it.
  UGS_HD void issue_loads(int32_t it, const int64_t coord[kAxes]) const {
    const uint32_t threads = cx.threads();
    for (int l = 0; l < p.n_loaders; ++l) {
      const Io& io = p.loaders[l];
      if (it > 0 && io.iter_step == 0) continue;
      const TileDesc& t = p.tiles[io.tile];
      const FieldPair* src = job.src[l] + origin(io, coord) + it * io.iter_step;
      FieldPair* d = arena + ((it & 1) ? t.off_alt : t.off);
      if (io.pairs) {
        for (uint32_t i = 2 * cx.tid(); i < t.numel; i += 2 * threads) cx.copy_pair(d + i, src + tensor_offset(t, i, io));
      } else {
        for (uint32_t i = cx.tid(); i < t.numel; i += threads) cx.copy(d + i, src + tensor_offset(t, i, io));
      }
    }
    cx.commit_loads();
  }

  // Writes the tile at `base` of the tensor and adds its elements' mixes to the tensor's slot.
  UGS_HD void save(const Io& io, FieldPair* dst, int64_t base, uint64_t* slot) const {
    const TileDesc& t = p.tiles[io.tile];
    const FieldPair* s = arena + t.off;
    uint64_t h = 0;
    if (io.pairs) {
      for (uint32_t i = 2 * cx.tid(); i < t.numel; i += 2 * cx.threads()) {
        const int64_t off = base + tensor_offset(t, i, io);
        const FieldPair a = ld(s + i), b = ld(s + i + 1);
        st_pair(dst + off, a, b);
        h += element_mix(static_cast<uint64_t>(off), a) + element_mix(static_cast<uint64_t>(off + 1), b);
      }
    } else {
      for (uint32_t i = cx.tid(); i < t.numel; i += cx.threads()) {
        const int64_t off = base + tensor_offset(t, i, io);
        const FieldPair v = ld(s + i);
        st(dst + off, v);
        h += element_mix(static_cast<uint64_t>(off), v);
      }
    }
    cx.add_sum(slot, h);
  }

  UGS_HD void fill_zero(int tile) const {
    const TileDesc& t = p.tiles[tile];
    for (uint32_t i = cx.tid(); i < t.numel; i += cx.threads()) st(arena + t.off + i, A::zero());
  }

  UGS_HD void finish_rms(int tile) const {
    const TileDesc& t = p.tiles[tile];
    for (uint32_t i = cx.tid(); i < t.numel; i += cx.threads())
      st(arena + t.off + i, rms_of_sum(ar, ld(arena + t.off + i), t.rms_count));
  }

  // Grid block `block` of the job (axis 0 varies fastest). Ends with a barrier, so the caller may
  // reuse the arena and the program.
  UGS_HD void run(uint64_t block) const {
    int64_t coord[kAxes];
    for (int a = 0; a < kAxes; ++a) {
      coord[a] = static_cast<int64_t>(block % uint64_t(p.grid[a]));
      block /= uint64_t(p.grid[a]);
    }
    for (int t = 0; t < p.n_tiles; ++t)
      if (p.tiles[t].zero_init) fill_zero(t);
    issue_loads(0, coord);
    for (int32_t it = 0; it < p.loop; ++it) {
      // The next iteration's tiles fill while this one's ops run (their copy was last read by the
      // previous iteration, which ended with a barrier).
      const bool next = it + 1 < p.loop;
      if (next) issue_loads(it + 1, coord);
      cx.wait_loads(next);
      cx.sync();
      const TileOps<A, Cx> ops{cx, ar, p, arena, (it & 1) != 0};
      for (int k = 0; k < p.n_loop_ops; ++k) {
        if (p.ops[k].sync_before) cx.sync();
        ops.apply(p.ops[k]);
      }
      cx.sync();
    }
    const TileOps<A, Cx> ops{cx, ar, p, arena, false};
    bool rms = false;
    for (int t = 0; t < p.n_tiles; ++t) {
      if (p.tiles[t].rms_count == 0) continue;
      finish_rms(t);
      rms = true;
    }
    if (rms) cx.sync();
    for (int k = p.n_loop_ops; k < p.n_ops; ++k) {
      if (p.ops[k].sync_before) cx.sync();
      ops.apply(p.ops[k]);
    }
    if (p.n_ops > p.n_loop_ops) cx.sync();
    for (int s = 0; s < p.n_savers; ++s) {
      const Io& io = p.savers[s];
      save(io, job.dst[s], origin(io, coord), sums + job.slot[s]);
    }
    cx.sync();
  }
};

}  // namespace ugs::cuda
