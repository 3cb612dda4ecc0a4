#pragma once
// The op tiles of a block graph that every block computes alike: those that derive only from loaded
// tiles whose imap maps no grid axis of more than one block. A candidate that broadcasts a tensor to
// thousands of blocks and applies an element-wise op to it would redo that op in every block; the
// emulator (block_emulator.h) computes such tiles once, before the blocks run, and every block reads
// them. The same ops on the same values: the same bits, and the same zero divisors (counted once per
// block, as if each block had met them). Internal to src/eval.
#include <cstdint>
#include <vector>

#include "ugs/ir/graph.h"

namespace ugs::eval {

struct SharedTiles {
  std::vector<uint8_t> shared;    // per tile: an op's tile computed once for all blocks
  std::vector<uint8_t> iterates;  // per tile: its values change from one loop iteration to the next
  std::vector<uint8_t> per_block; // per loaded tile: some block still reads it (an op not shared reads it)
  bool any = false;

  // In a loop-stage shared tile's table, the slot of iteration it.
  int64_t slot(int tile, int64_t it) const { return iterates[tile] ? it : 0; }
};

// Which tiles of bg are shared. None where the grid has one block, or where their tables (a loop
// stage tile's values at every iteration it changes at) would pass kMaxSharedElements in all.
SharedTiles shared_tiles(const BlockGraph& bg);
inline constexpr int64_t kMaxSharedElements = int64_t{1} << 22;

// Whether the emulator shares tiles: on unless turned off. Tests compare the two ways bit for bit.
// Not for use while evaluations run.
bool shared_tiles_on();
void set_shared_tiles(bool on);

}  // namespace ugs::eval
