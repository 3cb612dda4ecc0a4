#pragma once
// Mirage's generator as a search config, for comparisons with its published search times that are like
// for like (docs/search.md, "Spaces"). Mirage's benchmark scripts each call one of its named configs;
// each built-in program names the one its script uses (its "mirage" key).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ugs/ir/graph.h"
#include "ugs/search/generator/config.h"

namespace ugs {

// "attention" (two block graphs, the accumulator that folds the last dim to a size, a narrower imap
// list, 2-D grids), "lora" (its opening takes all 4 inputs, for a concat-matmul this model lacks),
// "mlp" (as the default), "default".
enum class MirageConfig : uint8_t { Default, Mlp, Lora, Attention };
std::optional<MirageConfig> mirage_config_from_name(std::string_view name);
std::string_view name_of(MirageConfig config);

// Mirage's limits, op lists, opening inputs, grid rule, imaps, fmaps, loop ranges and omaps. `scale`:
// how many times smaller than Mirage's benchmark shapes the program's large dims are (the `_small`
// built-ins: 16); the grid rule's window of blocks shrinks as much, so the grids split the same dims
// into tiles of the same sizes as at full size.
SearchConfig mirage_space(MirageConfig config, int32_t scale);

// What Mirage's space holds that the μGraph model cannot express, and so is not searched: reported in
// the results and the docs, never approximated.
std::vector<std::string> mirage_not_covered(MirageConfig config);

// Mirage's grids for an opening over inputs of these shapes: every dim d of the inputs split into
// d / x blocks for x in 8, 16, ..., 256 (and, for attention, (b, d / y, 1) for y in 8, 64, 128, 256
// with b the batch, the first dim when every input has rank 2 or every one rank 3, and (b, 16, 4)
// over more than 2 inputs), those of grid_blocks[0] to grid_blocks[1] blocks kept; then (b, 1, 1)
// when b is at most grid_blocks[1]. Sorted, each once.
void mirage_grids(std::span<const Shape> inputs, bool attention, const std::array<int32_t, 2>& window,
                  std::vector<Dim3>& out);

}  // namespace ugs
