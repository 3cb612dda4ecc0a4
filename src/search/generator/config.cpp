// Search config: defaults, JSON round trip with validation, derived candidate lists.
#include "ugs/search/generator/config.h"

#include <algorithm>
#include <set>

#include "ugs/util/error.h"
#include "ugs/util/names.h"

namespace ugs {
namespace {

using nlohmann::json;

constexpr std::pair<Space, std::string_view> kSpaces[] = {
    {Space::Preset, "preset"}, {Space::Open, "open"}, {Space::Mirage, "mirage"}};
constexpr std::pair<InputRule, std::string_view> kInputRules[] = {
    {InputRule::Subsets, "subsets"}, {InputRule::Mirage, "mirage"}, {InputRule::MirageLora, "mirage_lora"}};
constexpr std::pair<GridRule, std::string_view> kGridRules[] = {
    {GridRule::Mirage, "mirage"}, {GridRule::MirageAttention, "mirage_attention"}};

std::vector<OpKind> kinds_where(bool block) {
  std::vector<OpKind> kinds;
  for (int i = 0; i < kNumOpKinds; ++i) {
    const OpWhere where = kOpInfo[i].where;
    if (where == OpWhere::Both || (block && (where == OpWhere::Block || where == OpWhere::Accum)))
      kinds.push_back(static_cast<OpKind>(i));
  }
  return kinds;
}

[[noreturn]] void bad(const std::string& origin, const std::string& key, const std::string& why) {
  throw InputError(origin + ": config key '" + key + "' " + why);
}

std::vector<int32_t> int_list(const json& value, const std::string& origin, const std::string& key, int32_t lo) {
  if (!value.is_array()) bad(origin, key, "must be an array of integers");
  std::vector<int32_t> ints;
  for (const json& x : value) {
    if (!x.is_number_integer() || x.get<int64_t>() < lo || x.get<int64_t>() > kMaxDim)
      bad(origin, key, "must hold integers from " + std::to_string(lo) + " to " + std::to_string(kMaxDim));
    ints.push_back(static_cast<int32_t>(x.get<int64_t>()));
  }
  return ints;
}

std::vector<OpKind> op_list(const json& value, const std::string& origin, const std::string& key, bool block) {
  if (!value.is_array()) bad(origin, key, "must be an array of op names");
  const std::vector<OpKind> allowed = kinds_where(block);
  std::vector<OpKind> kinds;
  for (const json& x : value) {
    const auto k = x.is_string() ? op_kind_from_name(x.get<std::string>()) : std::nullopt;
    if (!k || std::find(allowed.begin(), allowed.end(), *k) == allowed.end())
      bad(origin, key, "holds '" + x.dump() + "', not a " + (block ? "block" : "kernel") + " op");
    kinds.push_back(*k);
  }
  return kinds;
}

std::vector<Dim3> grid_list(const json& value, const std::string& origin) {
  if (value.is_string() && value.get<std::string>() == "auto") return {};
  if (!value.is_array())
    bad(origin, "grids", "must be \"auto\", \"mirage\", \"mirage_attention\" or an array of [x, y, z]");
  std::vector<Dim3> grids;
  for (const json& entry : value) {
    const std::vector<int32_t> d = int_list(entry, origin, "grids", 1);
    if (d.size() != 3 || BlockGraph::check_launch({d[0], d[1], d[2]}, 1) != Verdict::Ok)
      bad(origin, "grids", "entries must be [x, y, z] with each between 1 and 65535");
    grids.push_back({d[0], d[1], d[2]});
  }
  return grids;
}

// Entries are dims (0 to 3) or -1 (φ); `width` 3 for per-axis maps, 1 for fmaps.
std::vector<std::array<int8_t, 3>> map_list(const json& value, const std::string& origin, const std::string& key,
                                            int width) {
  const std::string form = width == 3 ? "[x, y, z]" : "integers";
  if (value.is_string() && value.get<std::string>() == "all") return {};
  if (!value.is_array()) bad(origin, key, "must be \"all\" or an array of " + form + " with dims 0 to 3 or -1 (none)");
  std::vector<std::array<int8_t, 3>> maps;
  for (const json& entry : value) {
    const json items = width == 3 ? entry : json::array({entry});
    bool ok = items.is_array() && static_cast<int>(items.size()) == width;
    std::array<int8_t, 3> axes{kNoDim, kNoDim, kNoDim};
    for (int i = 0; ok && i < width; ++i) {
      ok = items[i].is_number_integer() && items[i].get<int64_t>() >= -1 && items[i].get<int64_t>() < kMaxRank;
      if (ok) axes[i] = static_cast<int8_t>(items[i].get<int64_t>());
    }
    if (!ok) bad(origin, key, "entries must be " + form + " with dims 0 to 3 or -1 (none)");
    maps.push_back(axes);
  }
  return maps;
}

json axes_list(const std::vector<Axes>& ms) {
  if (ms.empty()) return "all";
  json r = json::array();
  for (const Axes& m : ms) r.push_back({m[0], m[1], m[2]});
  return r;
}

json op_names(const std::vector<OpKind>& ks) {
  json r = json::array();
  for (OpKind k : ks) r.push_back(name_of(k));
  return r;
}

// A string key's value among `names`.
template <class E, size_t N>
E named(const std::pair<E, std::string_view> (&names)[N], const json& value, const std::string& origin,
        const std::string& key) {
  const auto found = value.is_string() ? value_named(names, value.get<std::string>()) : std::nullopt;
  if (!found) bad(origin, key, "must be one of " + quoted_names(names));
  return *found;
}

}  // namespace

SearchConfig::SearchConfig() : kernel_ops(kinds_where(false)), block_ops(kinds_where(true)) {}

std::optional<Space> space_from_name(std::string_view name) { return value_named(kSpaces, name); }
std::string_view name_of(Space space) { return name_in(kSpaces, space); }

void apply_config_json(SearchConfig& cfg, const json& doc, const std::string& origin) {
  if (!doc.is_object()) throw InputError(origin + ": a search config must be a JSON object");
  for (const auto& [key, value] : doc.items()) {
#define UGS_X(name, def, lo, hi, help)                                                                 \
  if (key == #name) {                                                                                  \
    if (!value.is_number_integer() || value.get<int64_t>() < (lo) || value.get<int64_t>() > (hi))      \
      bad(origin, key, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi)); \
    cfg.name = value.get<int64_t>();                                                                   \
    continue;                                                                                          \
  }
    UGS_SEARCH_OPTIONS(UGS_X)
#undef UGS_X
    if (key == "kernel_ops") {
      cfg.kernel_ops = op_list(value, origin, key, false);
    } else if (key == "block_ops") {
      cfg.block_ops = op_list(value, origin, key, true);
    } else if (key == "grids") {
      const auto rule = value.is_string() ? value_named(kGridRules, value.get<std::string>()) : std::nullopt;
      cfg.grid_rule = rule.value_or(GridRule::Listed);
      cfg.grids = rule ? std::vector<Dim3>{} : grid_list(value, origin);
    } else if (key == "grid_blocks") {
      const std::vector<int32_t> window = int_list(value, origin, key, 1);
      if (window.size() != 2 || window[0] > window[1]) bad(origin, key, "must be [fewest, most] blocks");
      cfg.grid_blocks = {window[0], window[1]};
    } else if (key == "block_inputs") {
      cfg.block_inputs = named(kInputRules, value, origin, key);
    } else if (key == "space") {
      cfg.space = named(kSpaces, value, origin, key);
    } else if (key == "loop_ranges") {
      cfg.loop_ranges = int_list(value, origin, key, 1);
    } else if (key == "tile_sizes") {
      cfg.tile_sizes = int_list(value, origin, key, 1);
    } else if (key == "fold_sizes") {
      cfg.fold_sizes = value.is_string() && value.get<std::string>() == "auto" ? std::vector<int32_t>{}
                                                                               : int_list(value, origin, key, 1);
    } else if (key == "imaps" || key == "omaps") {
      (key == "imaps" ? cfg.imaps : cfg.omaps) = map_list(value, origin, key, 3);
    } else if (key == "fmaps") {
      cfg.fmaps.clear();
      for (const auto& a : map_list(value, origin, key, 1)) cfg.fmaps.push_back(a[0]);
    } else if (key == "float_tolerance") {
      if (!value.is_number() || !(value.get<double>() > 0)) bad(origin, key, "must be a positive number");
      cfg.float_tolerance = value.get<double>();
    } else {
      bad(origin, key, "is unknown (see `ugsearch search --help`)");
    }
  }
}

json config_to_json(const SearchConfig& cfg) {
  json doc;
#define UGS_X(name, def, lo, hi, help) doc[#name] = cfg.name;
  UGS_SEARCH_OPTIONS(UGS_X)
#undef UGS_X
  doc["kernel_ops"] = op_names(cfg.kernel_ops);
  doc["block_ops"] = op_names(cfg.block_ops);
  doc["space"] = name_of(cfg.space);
  doc["block_inputs"] = name_in(kInputRules, cfg.block_inputs);
  doc["grids"] = cfg.grid_rule != GridRule::Listed ? json(name_in(kGridRules, cfg.grid_rule))
                 : cfg.grids.empty()                ? json("auto")
                                                    : json(cfg.grids);
  doc["grid_blocks"] = cfg.grid_blocks;
  doc["loop_ranges"] = cfg.loop_ranges;
  doc["tile_sizes"] = cfg.tile_sizes;
  doc["fold_sizes"] = cfg.fold_sizes.empty() ? json("auto") : json(cfg.fold_sizes);
  doc["imaps"] = axes_list(cfg.imaps);
  doc["fmaps"] = cfg.fmaps.empty() ? json("all") : json(cfg.fmaps);
  doc["omaps"] = axes_list(cfg.omaps);
  doc["float_tolerance"] = cfg.float_tolerance;
  return doc;
}

namespace {

// A config under which no search can happen is refused rather than searched to an empty result.
void check_not_empty(const SearchConfig& cfg) {
  const bool blocks = cfg.max_block_graphs > 0 && !cfg.block_ops.empty();
  if (blocks && cfg.loop_ranges.empty())
    throw InputError("search config: 'loop_ranges' is empty, so no block graph can open; give at least one "
                     "loop range (1 means no loop)");
  if (blocks && cfg.grid_rule == GridRule::Listed && cfg.grids.empty())
    throw InputError("search config: no grid to try ('grids' is empty and 'tile_sizes' split no dim of the "
                     "program); give 'grids' or 'tile_sizes'");
  if (cfg.kernel_ops.empty() && !blocks)
    throw InputError("search config: no step is possible ('kernel_ops' is empty and no block graph can be "
                     "built: 'block_ops' is empty or 'max_block_graphs' is 0)");
}

}  // namespace

// Derived grids: a non-batch dim of size s of a program tensor split into s / t blocks for each tile
// size t (at least 2 blocks); a batch dim (the first of a rank-3+ tensor) gives (b, 1, 1) and, with
// each split n, (b, n, 1). Derived fold sizes: the dims (> 1) of the program's outputs.
void resolve(SearchConfig& cfg, const KernelGraph& program) {
  std::set<int32_t> splits, batches;
  std::set<int32_t> folds;
  for (int t = 0; t < program.num_tensors(); ++t) {
    const Shape& shape = program.shape(t);
    for (int d = 0; d < shape.rank; ++d) {
      if (d == 0 && shape.rank >= 3) {
        if (shape.d[0] > 1) batches.insert(shape.d[0]);
        continue;
      }
      for (int32_t tile : cfg.tile_sizes)
        if (shape.d[d] % tile == 0 && shape.d[d] / tile >= 2) splits.insert(shape.d[d] / tile);
    }
  }
  for (int32_t o : program.outputs)
    for (int d = 0; d < program.shape(o).rank; ++d)
      if (program.shape(o).d[d] > 1) folds.insert(program.shape(o).d[d]);
  if (cfg.grids.empty() && cfg.grid_rule == GridRule::Listed) {
    std::set<Dim3> grids;
    for (int32_t n : splits) grids.insert({n, 1, 1});
    for (int32_t b : batches) {
      grids.insert({b, 1, 1});
      for (int32_t n : splits) grids.insert({b, n, 1});
    }
    cfg.grids.assign(grids.begin(), grids.end());
  }
  if (cfg.fold_sizes.empty()) cfg.fold_sizes.assign(folds.begin(), folds.end());
  check_not_empty(cfg);
}

std::string config_reference() {
  std::string text;
#define UGS_X(name, def, lo, hi, help) \
  text += std::string("  ") + #name + " (default " + std::to_string(def) + "): " + help + "\n";
  UGS_SEARCH_OPTIONS(UGS_X)
#undef UGS_X
  text += "  kernel_ops, block_ops: op names tried (default: all)\n";
  text += "  space: \"preset\", \"open\" or \"mirage\" (chosen by --space, recorded here)\n";
  text += "  grids: [[x, y, z], ...], \"auto\" (splits of the program's dims by tile_sizes, and batch dims), or\n"
          "    \"mirage\" / \"mirage_attention\" (Mirage's rule over each opening's inputs, within grid_blocks)\n";
  text += "  grid_blocks (default [32, 4096]): the fewest and most blocks of a grid under Mirage's rules\n";
  text += "  block_inputs: \"subsets\" (default: every combination of kernel tensors), \"mirage\" (all 3 when\n"
          "    the kernel graph holds 3, else its last 2) or \"mirage_lora\" (also all 4 when it holds 4)\n";
  text += "  loop_ranges (default [1, 4, 16, 64]), tile_sizes (default [16, 32, 64, 128])\n";
  text += "  fold_sizes: `to` of reduce_sum_to and accum_sum_lastdim_to, or \"auto\" (the output's dims)\n";
  text += "  imaps, omaps: [[x, y, z], ...] (a dim per grid axis, -1 for none) or \"all\" (default)\n";
  text += "  fmaps: [d, ...] (-1 for none) or \"all\" (default): the for-loop maps tried\n";
  text += "  float_tolerance (default 1e-9): relative error allowed by the float64 confirmation\n";
  return text;
}

}  // namespace ugs
