// The checkpoint files (checkpoint_files.h).
#include "ugs/io/checkpoint_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <stdexcept>
#include <type_traits>

#include "ugs/io/mugraph_json.h"
#include "ugs/util/error.h"
#include "ugs/util/files.h"
#include "ugs/util/hash.h"

namespace ugs {
namespace {

using nlohmann::json;

constexpr char kMagic[] = "UGSCKPT7";  // 7: a slab's whole steps field by field
constexpr size_t kMagicLen = sizeof(kMagic) - 1;

// A header field of the wrong kind: nlohmann's get() converts any number to any arithmetic type, so
// a float out of an integer's range would be undefined behaviour and a negative size would wrap
// around. Each field is read from the kind of JSON value the writer gives it.
struct BadField : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What was found instead, in a message: a number as written, anything else by its type.
std::string shown(const json& value) {
  return value.is_number() || value.is_boolean() || value.is_null() ? value.dump() : value.type_name();
}

template <class T>
T field(const json& value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) throw BadField("expected true or false, found " + shown(value));
    return value.get<bool>();
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) throw BadField("expected a number, found " + shown(value));
    return value.get<T>();
  } else {
    static_assert(std::is_integral_v<T>);
    const bool natural = value.is_number_unsigned() || (value.is_number_integer() && value.get<int64_t>() >= 0);
    if (!natural || value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max()))
      throw BadField("expected an integer from 0 to " + std::to_string(std::numeric_limits<T>::max()) + ", found " +
                     shown(value));
    return static_cast<T>(value.get<uint64_t>());
  }
}

// Every counter by name, so adding one to Counters is one line here too.
template <class C, class F>
void each_counter(C& counters, F field) {
  field("states", counters.states);
  field("candidates", counters.candidates);
  field("fingerprint_evals", counters.fingerprint_evals);
  field("fingerprint_passes", counters.fingerprint_passes);
  field("verified", counters.verified);
  field("confirm_failures", counters.confirm_failures);
  field("symbolic_states", counters.symbolic_states);
  field("instantiations", counters.instantiations);
  field("pruned_shape", counters.pruned.shape);
  field("pruned_order", counters.pruned.order);
  field("pruned_memory", counters.pruned.memory);
  field("pruned_expr", counters.pruned.expr);
  field("pruned_dedup", counters.pruned.dedup);
  field("pruned_reach", counters.pruned.reach);
  field("pruned_cost", counters.pruned.cost);
  field("expand_s", counters.phase_s.expand);
  field("expr_s", counters.phase_s.expr);
  field("fingerprint_s", counters.phase_s.fingerprint);
  field("dedup_s", counters.phase_s.dedup);
  field("verify_s", counters.phase_s.verify);
  field("exchange_s", counters.phase_s.exchange);
  field("busy_s", counters.busy_s);
}

json counters_json(const Counters& c) {
  json j;
  each_counter(c, [&](const char* k, const auto& v) { j[k] = v; });
  return j;
}

Counters counters_from(const json& j) {
  Counters c;
  each_counter(c, [&](const char* k, auto& v) { v = field<std::remove_reference_t<decltype(v)>>(j.at(k)); });
  return c;
}

json expr_json(const expr::OracleStats& s) {
  return {{"queries", s.queries}, {"cache_hits", s.cache_hits}, {"structural", s.structural},
          {"z3_calls", s.z3_calls}, {"z3_unknown", s.z3_unknown}, {"z3_s", s.z3_s}, {"undecided", s.undecided}};
}

expr::OracleStats expr_from(const json& doc) {
  expr::OracleStats stats;
  stats.queries = field<uint64_t>(doc.at("queries"));
  stats.cache_hits = field<uint64_t>(doc.at("cache_hits"));
  stats.structural = field<uint64_t>(doc.at("structural"));
  stats.z3_calls = field<uint64_t>(doc.at("z3_calls"));
  stats.z3_unknown = field<uint64_t>(doc.at("z3_unknown"));
  stats.z3_s = field<double>(doc.at("z3_s"));
  stats.undecided = field<uint64_t>(doc.at("undecided"));
  return stats;
}

// Per depth: [pending, [[id, nodes, bytes, hash], ...]].
json tree_json(const std::vector<CheckpointLevel>& tree) {
  json levels = json::array();
  for (const CheckpointLevel& level : tree) {
    json slabs = json::array();
    for (const CheckpointSlab& s : level.slabs) slabs.push_back({s.id, s.nodes, s.bytes, s.hash});
    levels.push_back({level.pending, std::move(slabs)});
  }
  return levels;
}

std::vector<CheckpointLevel> tree_from(const json& doc) {
  std::vector<CheckpointLevel> tree;
  for (const json& l : doc) {
    CheckpointLevel& level = tree.emplace_back();
    level.pending = field<uint64_t>(l.at(0));
    for (const json& s : l.at(1))
      level.slabs.push_back(
          {field<uint64_t>(s.at(0)), field<uint64_t>(s.at(1)), field<uint64_t>(s.at(2)), field<uint64_t>(s.at(3))});
  }
  return tree;
}

// `layers`: per layer, its chunks as [states, bytes], as they were written.
json header_json(const Checkpoint& checkpoint, json tree, json layers) {
  json levels = json::array(), found = json::array(), workers = json::array();
  for (const LevelStats& l : checkpoint.levels)
    levels.push_back(
        {l.level, l.frontier, l.candidates, l.survivors, l.bytes, l.verified, l.wall_s, l.fingerprints, l.fingerprint_calls});
  for (const KernelGraph& g : checkpoint.found) found.push_back(to_json(g));
  for (const Counters& w : checkpoint.workers) workers.push_back(counters_json(w));
  return {{"run_key", checkpoint.run_key},
          {"current", checkpoint.current},
          {"counters", counters_json(checkpoint.counters)},
          {"workers", workers},
          {"levels", levels},
          {"found", found},
          {"expr", expr_json(checkpoint.expr)},
          {"wall_s", checkpoint.wall_s},
          {"peak_frontier_mib", checkpoint.peak_frontier_mib},
          {"chunks", checkpoint.chunks},
          {"complete", checkpoint.complete},
          {"tree", std::move(tree)},
          {"layers", std::move(layers)},
          {"seen", checkpoint.seen.size()}};
}

std::string single_path(const std::string& dir) { return dir + "/checkpoint.ugs"; }
std::string manifest_path(const std::string& dir) { return dir + "/manifest.json"; }
std::string rank_path(const std::string& dir, int rank, uint64_t generation) {
  return dir + "/checkpoint.rank" + std::to_string(rank) + "." + std::to_string(generation % 2) + ".ugs";
}
std::string slab_prefix(int rank) { return "slab." + std::to_string(rank) + "."; }
std::string slab_path(const std::string& dir, int rank, uint64_t id) {
  return dir + "/" + slab_prefix(rank) + std::to_string(id) + ".ugs";
}

std::set<uint64_t> slab_ids(const std::vector<CheckpointLevel>& tree) {
  std::set<uint64_t> ids;
  for (const CheckpointLevel& level : tree)
    for (const CheckpointSlab& s : level.slabs) ids.insert(s.id);
  return ids;
}

}  // namespace

void DirectoryCheckpoints::write(const Checkpoint& checkpoint, CheckpointSource& states, int rank, int ranks,
                                 uint64_t generation) {
  const std::string path = ranks == 1 ? single_path(dir_) : rank_path(dir_, rank, generation);
  remove_stale_temp_files(path);  // a killed run's, which a resume would otherwise leave for good
  states.new_slabs([&](uint64_t id, std::span<const uint8_t> bytes) {
    const std::string slab = slab_path(dir_, rank, id);
    remove_stale_temp_files(slab);
    AtomicFileWriter file(slab);
    file.write(bytes.data(), bytes.size());
    file.commit();
  });
  write_checkpoint_file(path, checkpoint, states);
  // The slabs neither this checkpoint nor the one before holds go: the one before stays whole until
  // this one is committed (with ranks, by rank 0, after every rank has written it).
  std::set<uint64_t> now = slab_ids(states.tree());
  const std::string prefix = slab_prefix(rank);
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, error)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || !name.ends_with(".ugs")) continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 4);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 19) continue;
    const uint64_t id = std::stoull(digits);
    if (!now.contains(id) && !last_slabs_.contains(id)) std::filesystem::remove(entry.path(), error);
  }
  last_slabs_ = std::move(now);
}

HugeBytes DirectoryCheckpoints::read_slab(int rank, const CheckpointSlab& slab) const {
  const std::string path = slab_path(dir_, rank, slab.id);
  const auto damaged = [&](const std::string& why) {
    return InputError(path + ": not a usable checkpoint slab (" + why + "); start the search again without --resume");
  };
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw damaged(std::string("cannot read it: ") + std::strerror(errno));
  if (static_cast<uint64_t>(file.tellg()) != slab.bytes) throw damaged("not the size the checkpoint names");
  HugeBytes bytes(slab.bytes);
  file.seekg(0);
  if (slab.bytes > 0 && !file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(slab.bytes)))
    throw damaged("unreadable");
  if (hash_bytes(bytes.data(), bytes.size()) != slab.hash) throw damaged("not the bytes the checkpoint names");
  return bytes;
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
    const auto manifest = json::parse(read_file(manifest_path(dir_)), nullptr, false);
    const auto not_a_manifest = [&] {
      return InputError(manifest_path(dir_) + ": not a checkpoint manifest; start the search again without --resume");
    };
    if (manifest.is_discarded() || !manifest.contains("ranks") || !manifest.contains("generation"))
      throw not_a_manifest();
    try {
      wrote = field<int>(manifest["ranks"]);
      *generation = field<uint64_t>(manifest["generation"]);
    } catch (const BadField&) {
      throw not_a_manifest();
    }
  } else if (ranks > 1 && !std::filesystem::exists(single_path(dir_))) {
    throw InputError(manifest_path(dir_) + ": missing; no run over ranks checkpointed here");
  }
  if (wrote != ranks)
    throw InputError(dir_ + ": the checkpoint was written by a run over " + std::to_string(wrote) +
                     " rank(s), this one has " + std::to_string(ranks) + "; resume it with " +
                     (wrote == 1 ? std::string("one process") : "mpirun -np " + std::to_string(wrote)));
  const std::string path = ranks == 1 ? single_path(dir_) : rank_path(dir_, rank, *generation);
  Checkpoint checkpoint = read_checkpoint_file(path, rules);
  if (checkpoint.run_key != run_key)
    throw InputError(path + ": written by another search (program, config, field, seed, dedup or objective differ); resume "
                     "with the arguments of the run that wrote it");
  last_slabs_ = slab_ids(checkpoint.tree);  // the committed checkpoint's, kept until the next is written
  return checkpoint;
}

void write_checkpoint_file(const std::string& path, const Checkpoint& checkpoint, CheckpointSource& states) {
  AtomicFileWriter file(path);
  file.write(kMagic, kMagicLen);
  json layers = json::array();
  for (size_t d = 0; d < states.depths(); ++d) {
    json chunks = json::array();
    states.layer(d, [&](uint64_t count, std::span<const uint8_t> encoded, std::span<const uint64_t> keys) {
      if (count == 0) return;
      file.write(encoded.data(), encoded.size());
      file.write(keys.data(), keys.size_bytes());
      chunks.push_back({count, encoded.size()});
    });
    layers.push_back(std::move(chunks));
  }
  file.write(checkpoint.seen.data(), checkpoint.seen.size() * sizeof(checkpoint.seen[0]));
  const std::string header = header_json(checkpoint, tree_json(states.tree()), std::move(layers)).dump();
  const uint64_t len = header.size();
  file.write(header.data(), header.size());
  file.write(&len, sizeof len);
  file.commit();
}

// The file is read straight into the checkpoint's buffers, never whole into memory first: a
// checkpoint of a big frontier is gigabytes.
Checkpoint read_checkpoint_file(const std::string& path, const GraphRules& rules) {
  const auto damaged = [&](const std::string& why) {
    return InputError(path + ": not a usable checkpoint (" + why + "); start the search again without --resume");
  };
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) throw InputError(path + ": cannot read file (" + std::strerror(errno) + ")");
  const size_t size = static_cast<size_t>(file.tellg());
  const auto read_at = [&](size_t at, void* into, size_t n) {  // within the file, checked by the caller
    file.seekg(static_cast<std::streamoff>(at));
    if (n > 0 && !file.read(static_cast<char*>(into), static_cast<std::streamsize>(n))) throw damaged("unreadable");
  };
  uint64_t len = 0;
  char magic[kMagicLen];
  if (size < kMagicLen + sizeof len) throw damaged("wrong magic or version");
  read_at(0, magic, kMagicLen);
  if (std::memcmp(magic, kMagic, kMagicLen) != 0) throw damaged("wrong magic or version");
  read_at(size - sizeof len, &len, sizeof len);
  if (len > size - kMagicLen - sizeof len) throw damaged("truncated header");
  const size_t end = size - sizeof len - len;  // where the raw bytes end and the header begins
  std::string header_text(len, '\0');
  read_at(end, header_text.data(), len);
  const json header = json::parse(header_text, nullptr, false);
  if (header.is_discarded()) throw damaged("header is not JSON");
  size_t pos = kMagicLen;
  Checkpoint checkpoint;
  try {
    checkpoint.run_key = header.at("run_key");
    checkpoint.current = field<int>(header.at("current"));
    checkpoint.counters = counters_from(header.at("counters"));
    for (const json& w : header.at("workers")) checkpoint.workers.push_back(counters_from(w));
    // verified, wall_s and the fingerprint counts came later: a checkpoint without them reads 0
    for (const json& l : header.at("levels"))
      checkpoint.levels.push_back({field<int>(l.at(0)), field<uint64_t>(l.at(1)), field<uint64_t>(l.at(2)),
                                   field<uint64_t>(l.at(3)), field<uint64_t>(l.at(4)),
                                   l.size() > 5 ? field<uint64_t>(l.at(5)) : 0,
                                   l.size() > 6 ? field<double>(l.at(6)) : 0.0,
                                   l.size() > 7 ? field<uint64_t>(l.at(7)) : 0,
                                   l.size() > 8 ? field<uint64_t>(l.at(8)) : 0});
    for (const json& g : header.at("found")) checkpoint.found.push_back(mugraph_from_json(g, path, rules));
    checkpoint.expr = expr_from(header.at("expr"));
    checkpoint.wall_s = field<double>(header.at("wall_s"));
    checkpoint.peak_frontier_mib = field<double>(header.at("peak_frontier_mib"));
    checkpoint.chunks = field<uint64_t>(header.at("chunks"));
    checkpoint.complete = field<bool>(header.at("complete"));
    checkpoint.tree = tree_from(header.at("tree"));
    for (const json& chunks : header.at("layers")) {
      CheckpointLayer& layer = checkpoint.layers.emplace_back();
      for (const json& chunk : chunks) {
        const size_t count = field<size_t>(chunk.at(0)), n = field<size_t>(chunk.at(1));
        // Divided, not multiplied: count * 8 wraps around for a count of 2^61 and more.
        if (n > end - pos || count > (end - pos - n) / sizeof(uint64_t)) throw damaged("truncated layers");
        const size_t had = layer.states.size();
        layer.states.resize(had + n);
        read_at(pos, layer.states.data() + had, n);
        pos += n;
        layer.keys.resize(layer.count + count);
        read_at(pos, layer.keys.data() + layer.count, count * sizeof(uint64_t));
        layer.count += count;
        pos += count * sizeof(uint64_t);
      }
    }
    const size_t seen = field<size_t>(header.at("seen"));
    const size_t rest = end - pos;  // as above, divided: seen * 16 wraps around
    if (rest % sizeof(checkpoint.seen[0]) != 0 || seen != rest / sizeof(checkpoint.seen[0]))
      throw damaged("truncated dedup keys");
    checkpoint.seen.resize(seen);
    if (seen)  // data() may be null
      read_at(pos, static_cast<void*>(checkpoint.seen.data()), seen * sizeof(checkpoint.seen[0]));
  } catch (const json::exception& e) {
    throw damaged(std::string("header: ") + e.what());
  } catch (const BadField& e) {
    throw damaged(std::string("header: ") + e.what());
  }
  return checkpoint;
}

}  // namespace ugs
