// Which op tiles of a block graph every block computes alike (shared_tiles.h).
#include "shared_tiles.h"

#include <atomic>

namespace ugs::eval {
namespace {

std::atomic<bool> sharing{true};

}  // namespace

bool shared_tiles_on() { return sharing.load(std::memory_order_relaxed); }
void set_shared_tiles(bool on) { sharing.store(on, std::memory_order_relaxed); }

SharedTiles shared_tiles(const BlockGraph& bg) {
  const int ni = bg.inputs.size(), nk = bg.ops.size(), nt = bg.tiles.size();
  SharedTiles out;
  out.shared.assign(nt, 0);
  out.iterates.assign(nt, 0);
  out.per_block.assign(ni, 1);
  if (bg.num_blocks() <= 1 || !shared_tiles_on()) return out;
  std::vector<uint8_t> varies(nt, 0);  // some block index reaches its values
  for (int i = 0; i < ni; ++i) {
    for (int a = 0; a < 3; ++a) varies[i] |= bg.inputs[i].imap[a] != kNoDim;  // only axes of 2 blocks or more map
    out.iterates[i] = bg.loop > 1 && bg.inputs[i].fmap != kNoDim;
  }
  int64_t elements = 0;
  for (int k = 0; k < nk; ++k) {
    const Op& op = bg.ops[k];
    const int t = ni + k;
    for (int j = 0; j < arity(op.kind); ++j) {
      varies[t] |= varies[op.in[j]];
      out.iterates[t] |= out.iterates[op.in[j]];
    }
    // An accumulator's tile, and what is computed from it after the loop, hold one value per block.
    if (is_accumulator(op.kind) || bg.tiles[t].post) out.iterates[t] = 0;
    out.shared[t] = !varies[t];
    if (out.shared[t]) {
      out.any = true;
      elements += bg.tiles[t].shape.numel() * (out.iterates[t] ? bg.loop : 1);
    }
  }
  if (!out.any) return out;
  if (elements > kMaxSharedElements) {
    out.shared.assign(nt, 0);
    out.any = false;
    return out;
  }
  for (int i = 0; i < ni; ++i) {
    bool read = false;
    for (int k = 0; k < nk && !read; ++k)
      for (int j = 0; j < arity(bg.ops[k].kind); ++j) read |= !out.shared[ni + k] && bg.ops[k].in[j] == i;
    for (const BlockOutput& o : bg.outputs) read |= o.tile == i;
    out.per_block[i] = read;
  }
  return out;
}

}  // namespace ugs::eval
