// The checkpoint files (checkpoint_files.h).
#include "ugs/io/checkpoint_files.h"

#include <cstring>
#include <filesystem>

#include "ugs/io/mugraph_json.h"
#include "ugs/util/error.h"
#include "ugs/util/files.h"

namespace ugs {
namespace {

using nlohmann::json;

constexpr char kMagic[] = "UGSCKPT3";  // 3: each state's key follows its layer
constexpr size_t kMagicLen = sizeof(kMagic) - 1;

// Every counter by name, so adding one to Counters is one line here too.
template <class C, class F>
void each_counter(C& c, F f) {
  f("states", c.states);
  f("candidates", c.candidates);
  f("fingerprint_evals", c.fingerprint_evals);
  f("fingerprint_passes", c.fingerprint_passes);
  f("verified", c.verified);
  f("confirm_failures", c.confirm_failures);
  f("pruned_shape", c.pruned.shape);
  f("pruned_order", c.pruned.order);
  f("pruned_memory", c.pruned.memory);
  f("pruned_expr", c.pruned.expr);
  f("pruned_dedup", c.pruned.dedup);
  f("pruned_reach", c.pruned.reach);
  f("expand_s", c.phase_s.expand);
  f("expr_s", c.phase_s.expr);
  f("fingerprint_s", c.phase_s.fingerprint);
  f("dedup_s", c.phase_s.dedup);
  f("verify_s", c.phase_s.verify);
  f("exchange_s", c.phase_s.exchange);
  f("busy_s", c.busy_s);
}

json counters_json(const Counters& c) {
  json j;
  each_counter(c, [&](const char* k, const auto& v) { j[k] = v; });
  return j;
}

Counters counters_from(const json& j) {
  Counters c;
  each_counter(c, [&](const char* k, auto& v) { v = j.at(k).get<std::remove_reference_t<decltype(v)>>(); });
  return c;
}

json expr_json(const expr::OracleStats& s) {
  return {{"queries", s.queries}, {"cache_hits", s.cache_hits}, {"structural", s.structural},
          {"z3_calls", s.z3_calls}, {"z3_unknown", s.z3_unknown}, {"z3_s", s.z3_s}, {"undecided", s.undecided}};
}

expr::OracleStats expr_from(const json& j) {
  expr::OracleStats s;
  s.queries = j.at("queries");
  s.cache_hits = j.at("cache_hits");
  s.structural = j.at("structural");
  s.z3_calls = j.at("z3_calls");
  s.z3_unknown = j.at("z3_unknown");
  s.z3_s = j.at("z3_s");
  s.undecided = j.at("undecided");
  return s;
}

json header_json(const Checkpoint& c) {
  json levels = json::array(), found = json::array(), workers = json::array(), layers = json::array();
  for (const LevelStats& l : c.levels) levels.push_back({l.level, l.frontier, l.candidates, l.survivors, l.bytes, l.verified, l.wall_s});
  for (const KernelGraph& g : c.found) found.push_back(to_json(g));
  for (const Counters& w : c.workers) workers.push_back(counters_json(w));
  for (const CheckpointLayer& l : c.layers) layers.push_back({l.count, l.states.size()});
  return {{"run_key", c.run_key}, {"current", c.current},      {"counters", counters_json(c.counters)},
          {"workers", workers},   {"levels", levels},          {"found", found},
          {"expr", expr_json(c.expr)}, {"wall_s", c.wall_s},   {"peak_frontier_mib", c.peak_frontier_mib},
          {"chunks", c.chunks},   {"complete", c.complete},    {"layers", layers},
          {"seen", c.seen.size()}};
}

void append_raw(std::string& out, const void* p, size_t n) { out.append(static_cast<const char*>(p), n); }

std::string single_path(const std::string& dir) { return dir + "/checkpoint.ugs"; }
std::string manifest_path(const std::string& dir) { return dir + "/manifest.json"; }
std::string rank_path(const std::string& dir, int rank, uint64_t generation) {
  return dir + "/checkpoint.rank" + std::to_string(rank) + "." + std::to_string(generation % 2) + ".ugs";
}

}  // namespace

void DirectoryCheckpoints::write(const Checkpoint& c, int rank, int ranks, uint64_t generation) {
  write_checkpoint_file(ranks == 1 ? single_path(dir_) : rank_path(dir_, rank, generation), c);
}

void DirectoryCheckpoints::commit(int ranks, uint64_t generation) {
  if (ranks == 1) return;  // the one file is the checkpoint
  write_file_atomic(manifest_path(dir_), json{{"ranks", ranks}, {"generation", generation}}.dump() + "\n");
}

// The manifest says how many ranks wrote the last generation; a single process's checkpoint has none.
Checkpoint DirectoryCheckpoints::read(int rank, int ranks, const std::string& run_key, const GraphRules& rules,
                                      uint64_t* generation) const {
  int wrote = 1;
  *generation = 0;
  if (std::filesystem::exists(manifest_path(dir_))) {
    const auto m = json::parse(read_file(manifest_path(dir_)), nullptr, false);
    if (m.is_discarded() || !m.contains("ranks") || !m.contains("generation"))
      throw InputError(manifest_path(dir_) + ": not a checkpoint manifest; start the search again without --resume");
    wrote = m["ranks"].get<int>();
    *generation = m["generation"].get<uint64_t>();
  } else if (ranks > 1 && !std::filesystem::exists(single_path(dir_))) {
    throw InputError(manifest_path(dir_) + ": missing; no run over ranks checkpointed here");
  }
  if (wrote != ranks)
    throw InputError(dir_ + ": the checkpoint was written by a run over " + std::to_string(wrote) +
                     " rank(s), this one has " + std::to_string(ranks) + "; resume it with " +
                     (wrote == 1 ? std::string("one process") : "mpirun -np " + std::to_string(wrote)));
  const std::string path = ranks == 1 ? single_path(dir_) : rank_path(dir_, rank, *generation);
  Checkpoint c = read_checkpoint_file(path, rules);
  if (c.run_key != run_key)
    throw InputError(path + ": written by another search (program, config, field, seed or dedup differ); resume "
                     "with the arguments of the run that wrote it");
  return c;
}

void write_checkpoint_file(const std::string& path, const Checkpoint& c) {
  const std::string header = header_json(c).dump();
  std::string out(kMagic, kMagicLen);
  const uint64_t len = header.size();
  append_raw(out, &len, sizeof len);
  out += header;
  for (size_t d = 0; d < c.layers.size(); ++d) {
    append_raw(out, c.layers[d].states.data(), c.layers[d].states.size());
    append_raw(out, c.layers[d].keys.data(), c.layers[d].keys.size() * sizeof(uint64_t));
  }
  append_raw(out, c.seen.data(), c.seen.size() * sizeof(c.seen[0]));
  write_file_atomic(path, out);
}

Checkpoint read_checkpoint_file(const std::string& path, const GraphRules& rules) {
  const std::string bytes = read_file(path);
  const auto damaged = [&](const std::string& why) {
    return InputError(path + ": not a usable checkpoint (" + why + "); start the search again without --resume");
  };
  uint64_t len = 0;
  if (bytes.size() < kMagicLen + sizeof len || bytes.compare(0, kMagicLen, kMagic) != 0)
    throw damaged("wrong magic or version");
  std::memcpy(&len, bytes.data() + kMagicLen, sizeof len);
  size_t pos = kMagicLen + sizeof len;
  if (len > bytes.size() - pos) throw damaged("truncated header");
  const json h = json::parse(bytes.substr(pos, len), nullptr, false);
  if (h.is_discarded()) throw damaged("header is not JSON");
  pos += len;
  Checkpoint c;
  try {
    c.run_key = h.at("run_key");
    c.current = h.at("current");
    c.counters = counters_from(h.at("counters"));
    for (const json& w : h.at("workers")) c.workers.push_back(counters_from(w));
    for (const json& l : h.at("levels"))  // verified and wall_s came later: a checkpoint without them reads 0
      c.levels.push_back({l.at(0), l.at(1), l.at(2), l.at(3), l.at(4),
                        l.size() > 5 ? l.at(5).get<uint64_t>() : 0, l.size() > 6 ? l.at(6).get<double>() : 0.0});
    for (const json& g : h.at("found")) c.found.push_back(mugraph_from_json(g, path, rules));
    c.expr = expr_from(h.at("expr"));
    c.wall_s = h.at("wall_s");
    c.peak_frontier_mib = h.at("peak_frontier_mib");
    c.chunks = h.at("chunks");
    c.complete = h.at("complete");
    for (const json& l : h.at("layers")) {
      const size_t count = l.at(0), n = l.at(1);
      if (n > bytes.size() - pos || count * sizeof(uint64_t) > bytes.size() - pos - n) throw damaged("truncated layers");
      CheckpointLayer& layer = c.layers.emplace_back();
      layer.states.assign(bytes.begin() + static_cast<std::ptrdiff_t>(pos), bytes.begin() + static_cast<std::ptrdiff_t>(pos + n));
      layer.count = count;
      pos += n;
      std::vector<uint64_t>& keys = layer.keys;
      keys.resize(count);
      if (count) std::memcpy(keys.data(), bytes.data() + pos, count * sizeof(uint64_t));
      pos += count * sizeof(uint64_t);
    }
    const size_t seen = h.at("seen");
    if (seen * sizeof(c.seen[0]) != bytes.size() - pos) throw damaged("truncated dedup keys");
    c.seen.resize(seen);
    if (seen) std::memcpy(static_cast<void*>(c.seen.data()), bytes.data() + pos, seen * sizeof(c.seen[0]));  // data() may be null
  } catch (const json::exception& e) {
    throw damaged(std::string("header: ") + e.what());
  }
  return c;
}

}  // namespace ugs
