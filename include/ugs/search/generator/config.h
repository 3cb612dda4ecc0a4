#pragma once
// The search config (docs/design.md §5): limits and candidate lists, plain data that round-trips through
// JSON and is saved with every result. Each scalar option is declared once, in UGS_SEARCH_OPTIONS.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ugs/ir/graph.h"

namespace ugs {

// UGS_OPT(name, default, min, max, help)
#define UGS_SEARCH_OPTIONS(X)                                                                                  \
  X(max_kernel_ops, 5, 1, kMaxKernelOps, "kernel-level ops, counting the inputs (Mirage: 5)")                 \
  X(max_block_ops, 11, 2, kMaxTiles, "block-level ops of one block graph, counting its loaders (Mirage: 11)") \
  X(max_block_graphs, 2, 0, kMaxBlockGraphs, "graph-defined kernels per μGraph")                              \
  X(max_block_inputs, 3, 1, kMaxBlockInputs, "inputs of one block graph")                                     \
  X(max_block_outputs, 2, 1, kMaxBlockOutputs, "outputs of one block graph")                                  \
  X(smem_budget_bytes, 96 * 1024, 1024, 1 << 30, "shared memory per block, tiles at 2 bytes per element")     \
  X(confirm_tests, 3, 0, 100, "extra finite-field tests confirming a fingerprint match")                      \
  X(omp_task_depth, 4, 0, 64, "dfs-omp: states shallower than this become OpenMP tasks")                     \
  X(bfs_batch, 131072, 1, 1 << 20, "bfs: states expanded together (bulk fingerprint calls, one oracle batch)") \
  X(bfs_probe, 1, 0, 1,                                                                                       \
    "bfs: 1 first follows a few of the most promising states of each depth down to the last and searches "  \
    "all they reach, then, until a μGraph is found, keeps the frontier to 4 MiB, depth-first over chunks, "  \
    "so that a first μGraph comes early; then the levels in turn (with --objective best it dives to the "    \
    "end). 0: level by level from the start")                                                                \
  X(bfs_batch_verify, -1, -1, 1,                                                                              \
    "bfs: 1 fingerprints a batch's completions in bulk calls while it expands, 0 each state's at once, -1 "  \
    "as the backend prefers (bulk for cuda, and for cpu on programs of 1e7 field ops or more)")               \
  X(oracle_structural, 1, 0, 1, "1: structure decides what it can before z3; 0: every uncached query goes to z3") \
  X(expr_cache, 1, 0, 1,                                                                                      \
    "1: the oracle remembers every answer for all threads; 0: it decides every query anew (to measure what "  \
    "the cache saves)")                                                                                       \
  X(expr_check, 1, 0, 1,                                                                                      \
    "1: a step whose expression is not a subexpression of the program's is pruned; 0: none is (to measure "  \
    "what the check cuts)")                                                                                   \
  X(output_reach, 1, 0, 1,                                                                                    \
    "1: an opening of a block graph that must make the outputs is pruned when no tile within reach of its "   \
    "loaders can be saved with an output's shape; 0: none is (to measure what the check cuts)")              \
  X(expr_reach, 1, 0, 1,                                                                                      \
    "1: inside a block graph that must make the outputs, a state is pruned when the expression features "    \
    "its tiles lack of the outputs' take more ops than it has left or it cannot make an output's silu or "  \
    "rms atom (with expr_check 1); 0: never")                                                                 \
  X(closing_lookahead, 1, 0, 1,                                                                               \
    "1 (with expr_reach 1): an opening of a block graph that must make the outputs is pruned (a symbolic "   \
    "one, launch by launch) when its block ops, searched ahead once per signature, reach no closing that "   \
    "saves them; 0: never")                                                                                   \
  X(closing_replay, 1, 0, 1,                                                                                  \
    "1 (with closing_lookahead 1): a concrete opening the lookahead keeps is not searched again: the "      \
    "closings its signature's search reached are replayed on it (the same μGraphs, fewer states); 0: "      \
    "each such opening is searched")                                                                          \
  X(opening_memos, 1, 0, 1,                                                                                   \
    "1: the openings that pass the checks before the lookahead are enumerated once per inputs' shapes, and "  \
    "those of a last block graph the lookahead keeps once per inputs (the same candidates, less work); 0: "  \
    "at every state (to measure what the memos save)")                                                      \
  X(symbolic, 0, 0, 1,                                                                                        \
    "1: a block graph opens with its inputs and maps, its grid and loop range left open until it closes "   \
    "(fewer states, the same μGraphs)")

// The search space a config was built from (docs/search.md, "Spaces"): `preset`, the program's
// preset; `open`, the defaults; `mirage`, Mirage's generator (mirage_space.h). Recorded in the config
// and the results; the caller builds the config from it before other keys apply.
enum class Space : uint8_t { Preset, Open, Mirage };
std::optional<Space> space_from_name(std::string_view name);
std::string_view name_of(Space space);

// The inputs an opening takes: every combination of kernel tensors (up to max_block_inputs), or
// Mirage's rule: all the kernel graph's tensors when it holds exactly 3, else its last 2;
// `mirage_lora` also takes all of them when it holds exactly 4 (Mirage's LoRA config).
enum class InputRule : uint8_t { Subsets, Mirage, MirageLora };
// The grids an opening tries: the `grids` list (given, or derived from the program by tile_sizes),
// or Mirage's rule over the opening's inputs (`mirage_attention` adds its 2-D grids).
enum class GridRule : uint8_t { Listed, Mirage, MirageAttention };

struct SearchConfig {
#define UGS_X(name, def, lo, hi, help) int64_t name = def;
  UGS_SEARCH_OPTIONS(UGS_X)
#undef UGS_X
  std::vector<OpKind> kernel_ops;  // predefined kernel ops tried, in this order
  std::vector<OpKind> block_ops;   // block ops tried, in this order
  std::vector<Dim3> grids;         // empty: derived from the program (see resolve)
  std::vector<int32_t> loop_ranges{1, 4, 16, 64};
  std::vector<int32_t> tile_sizes{16, 32, 64, 128};  // for derived grids: a dim of size s gives s / t blocks
  std::vector<int32_t> fold_sizes;  // `to` of reduce_sum_to / accum_sum_lastdim_to; empty: derived
  // As Mirage's imap/fmap/omap_to_explore: the maps tried. Empty: every valid one.
  std::vector<Axes> imaps, omaps;
  std::vector<int8_t> fmaps;
  double float_tolerance = 1e-9;
  Space space = Space::Open;
  InputRule block_inputs = InputRule::Subsets;
  GridRule grid_rule = GridRule::Listed;
  std::array<int32_t, 2> grid_blocks{32, 4096};  // Mirage's grid rules: the fewest and most blocks a grid has

  SearchConfig();  // Mirage-like defaults: every op kind
  GraphRules rules() const { return {smem_budget_bytes, 2}; }
  bool tries_imap(const Axes& m) const { return imaps.empty() || std::find(imaps.begin(), imaps.end(), m) != imaps.end(); }
  bool tries_omap(const Axes& m) const { return omaps.empty() || std::find(omaps.begin(), omaps.end(), m) != omaps.end(); }
  bool tries_fmap(int8_t f) const { return fmaps.empty() || std::find(fmaps.begin(), fmaps.end(), f) != fmaps.end(); }
};

// Overrides fields of `cfg` with the keys of `j`; unknown keys, wrong types and out-of-range values
// throw InputError naming `origin` and the key.
void apply_config_json(SearchConfig& cfg, const nlohmann::json& j, const std::string& origin);
nlohmann::json config_to_json(const SearchConfig& cfg);
// Fills the derived lists (grids, fold sizes) from the program, so the config in force is explicit.
// Throws InputError when the config admits no search at all (an empty list that every block graph
// needs, or no op of any kind).
void resolve(SearchConfig& cfg, const KernelGraph& program);
// The help text of every option, for --help and the README.
std::string config_reference();

}  // namespace ugs
