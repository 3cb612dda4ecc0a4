// Search config: defaults, JSON round trip with validation, derived candidate lists.
#include "ugs/search/generator/config.h"

#include <algorithm>
#include <set>

#include "ugs/util/error.h"

namespace ugs {
namespace {

using nlohmann::json;

std::vector<OpKind> kinds_where(bool block) {
  std::vector<OpKind> r;
  for (int i = 0; i < kNumOpKinds; ++i) {
    const OpWhere w = kOpInfo[i].where;
    if (w == OpWhere::Both || (block && (w == OpWhere::Block || w == OpWhere::Accum)))
      r.push_back(static_cast<OpKind>(i));
  }
  return r;
}

[[noreturn]] void bad(const std::string& origin, const std::string& key, const std::string& why) {
  throw InputError(origin + ": config key '" + key + "' " + why);
}

std::vector<int32_t> int_list(const json& v, const std::string& origin, const std::string& key, int32_t lo) {
  if (!v.is_array()) bad(origin, key, "must be an array of integers");
  std::vector<int32_t> r;
  for (const json& x : v) {
    if (!x.is_number_integer() || x.get<int64_t>() < lo || x.get<int64_t>() > kMaxDim)
      bad(origin, key, "must hold integers from " + std::to_string(lo) + " to " + std::to_string(kMaxDim));
    r.push_back(static_cast<int32_t>(x.get<int64_t>()));
  }
  return r;
}

std::vector<OpKind> op_list(const json& v, const std::string& origin, const std::string& key, bool block) {
  if (!v.is_array()) bad(origin, key, "must be an array of op names");
  const std::vector<OpKind> allowed = kinds_where(block);
  std::vector<OpKind> r;
  for (const json& x : v) {
    const auto k = x.is_string() ? op_kind_from_name(x.get<std::string>()) : std::nullopt;
    if (!k || std::find(allowed.begin(), allowed.end(), *k) == allowed.end())
      bad(origin, key, "holds '" + x.dump() + "', not a " + (block ? "block" : "kernel") + " op");
    r.push_back(*k);
  }
  return r;
}

std::vector<Dim3> grid_list(const json& v, const std::string& origin) {
  if (v.is_string() && v.get<std::string>() == "auto") return {};
  if (!v.is_array()) bad(origin, "grids", "must be \"auto\" or an array of [x, y, z]");
  std::vector<Dim3> r;
  for (const json& g : v) {
    const std::vector<int32_t> d = int_list(g, origin, "grids", 1);
    if (d.size() != 3 || BlockGraph::check_launch({d[0], d[1], d[2]}, 1) != Verdict::Ok)
      bad(origin, "grids", "entries must be [x, y, z] with each between 1 and 65535");
    r.push_back({d[0], d[1], d[2]});
  }
  return r;
}

// Entries are dims (0 to 3) or -1 (φ); `width` 3 for per-axis maps, 1 for fmaps.
std::vector<std::array<int8_t, 3>> map_list(const json& v, const std::string& origin, const std::string& key, int width) {
  const std::string form = width == 3 ? "[x, y, z]" : "integers";
  if (v.is_string() && v.get<std::string>() == "all") return {};
  if (!v.is_array()) bad(origin, key, "must be \"all\" or an array of " + form + " with dims 0 to 3 or -1 (none)");
  std::vector<std::array<int8_t, 3>> r;
  for (const json& m : v) {
    const json e = width == 3 ? m : json::array({m});
    bool ok = e.is_array() && static_cast<int>(e.size()) == width;
    std::array<int8_t, 3> a{kNoDim, kNoDim, kNoDim};
    for (int i = 0; ok && i < width; ++i) {
      ok = e[i].is_number_integer() && e[i].get<int64_t>() >= -1 && e[i].get<int64_t>() < kMaxRank;
      if (ok) a[i] = static_cast<int8_t>(e[i].get<int64_t>());
    }
    if (!ok) bad(origin, key, "entries must be " + form + " with dims 0 to 3 or -1 (none)");
    r.push_back(a);
  }
  return r;
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

}  // namespace

SearchConfig::SearchConfig() : kernel_ops(kinds_where(false)), block_ops(kinds_where(true)) {}

void apply_config_json(SearchConfig& cfg, const json& j, const std::string& origin) {
  if (!j.is_object()) throw InputError(origin + ": a search config must be a JSON object");
  for (const auto& [key, v] : j.items()) {
#define UGS_X(name, def, lo, hi, help)                                                              \
  if (key == #name) {                                                                               \
    if (!v.is_number_integer() || v.get<int64_t>() < (lo) || v.get<int64_t>() > (hi))              \
      bad(origin, key, "must be an integer from " + std::to_string(lo) + " to " + std::to_string(hi)); \
    cfg.name = v.get<int64_t>();                                                                    \
    continue;                                                                                       \
  }
    UGS_SEARCH_OPTIONS(UGS_X)
#undef UGS_X
    if (key == "kernel_ops") {
      cfg.kernel_ops = op_list(v, origin, key, false);
    } else if (key == "block_ops") {
      cfg.block_ops = op_list(v, origin, key, true);
    } else if (key == "grids") {
      cfg.grids = grid_list(v, origin);
    } else if (key == "loop_ranges") {
      cfg.loop_ranges = int_list(v, origin, key, 1);
    } else if (key == "tile_sizes") {
      cfg.tile_sizes = int_list(v, origin, key, 1);
    } else if (key == "fold_sizes") {
      cfg.fold_sizes = v.is_string() && v.get<std::string>() == "auto" ? std::vector<int32_t>{} : int_list(v, origin, key, 1);
    } else if (key == "imaps" || key == "omaps") {
      (key == "imaps" ? cfg.imaps : cfg.omaps) = map_list(v, origin, key, 3);
    } else if (key == "fmaps") {
      cfg.fmaps.clear();
      for (const auto& a : map_list(v, origin, key, 1)) cfg.fmaps.push_back(a[0]);
    } else if (key == "float_tolerance") {
      if (!v.is_number() || !(v.get<double>() > 0)) bad(origin, key, "must be a positive number");
      cfg.float_tolerance = v.get<double>();
    } else {
      bad(origin, key, "is unknown (see `ugsearch search --help`)");
    }
  }
}

json config_to_json(const SearchConfig& cfg) {
  json j;
#define UGS_X(name, def, lo, hi, help) j[#name] = cfg.name;
  UGS_SEARCH_OPTIONS(UGS_X)
#undef UGS_X
  j["kernel_ops"] = op_names(cfg.kernel_ops);
  j["block_ops"] = op_names(cfg.block_ops);
  j["grids"] = cfg.grids.empty() ? json("auto") : json(cfg.grids);
  j["loop_ranges"] = cfg.loop_ranges;
  j["tile_sizes"] = cfg.tile_sizes;
  j["fold_sizes"] = cfg.fold_sizes.empty() ? json("auto") : json(cfg.fold_sizes);
  j["imaps"] = axes_list(cfg.imaps);
  j["fmaps"] = cfg.fmaps.empty() ? json("all") : json(cfg.fmaps);
  j["omaps"] = axes_list(cfg.omaps);
  j["float_tolerance"] = cfg.float_tolerance;
  return j;
}

// Derived grids: a non-batch dim of size s of a program tensor split into s / t blocks for each tile
// size t (at least 2 blocks); a batch dim (the first of a rank-3+ tensor) gives (b, 1, 1) and, with
// each split n, (b, n, 1). Derived fold sizes: the dims (> 1) of the program's outputs.
void resolve(SearchConfig& cfg, const KernelGraph& program) {
  std::set<int32_t> splits, batches;
  std::set<int32_t> folds;
  for (int t = 0; t < program.num_tensors(); ++t) {
    const Shape& s = program.shape(t);
    for (int d = 0; d < s.rank; ++d) {
      if (d == 0 && s.rank >= 3) {
        if (s.d[0] > 1) batches.insert(s.d[0]);
        continue;
      }
      for (int32_t tile : cfg.tile_sizes)
        if (s.d[d] % tile == 0 && s.d[d] / tile >= 2) splits.insert(s.d[d] / tile);
    }
  }
  for (int32_t o : program.outputs)
    for (int d = 0; d < program.shape(o).rank; ++d)
      if (program.shape(o).d[d] > 1) folds.insert(program.shape(o).d[d]);
  if (cfg.grids.empty()) {
    std::set<Dim3> grids;
    for (int32_t n : splits) grids.insert({n, 1, 1});
    for (int32_t b : batches) {
      grids.insert({b, 1, 1});
      for (int32_t n : splits) grids.insert({b, n, 1});
    }
    cfg.grids.assign(grids.begin(), grids.end());
  }
  if (cfg.fold_sizes.empty()) cfg.fold_sizes.assign(folds.begin(), folds.end());
}

std::string config_reference() {
  std::string r;
#define UGS_X(name, def, lo, hi, help) \
  r += std::string("  ") + #name + " (default " + std::to_string(def) + "): " + help + "\n";
  UGS_SEARCH_OPTIONS(UGS_X)
#undef UGS_X
  r += "  kernel_ops, block_ops: op names tried (default: all)\n";
  r += "  grids: [[x, y, z], ...] or \"auto\" (splits of the program's dims by tile_sizes, and batch dims)\n";
  r += "  loop_ranges (default [1, 4, 16, 64]), tile_sizes (default [16, 32, 64, 128])\n";
  r += "  fold_sizes: `to` of reduce_sum_to and accum_sum_lastdim_to, or \"auto\" (the output's dims)\n";
  r += "  imaps, omaps: [[x, y, z], ...] (a dim per grid axis, -1 for none) or \"all\" (default)\n";
  r += "  fmaps: [d, ...] (-1 for none) or \"all\" (default): the for-loop maps tried\n";
  r += "  float_tolerance (default 1e-9): relative error allowed by the float64 confirmation\n";
  return r;
}

}  // namespace ugs
