// The end of a distributed run: every rank sends rank 0 its μGraphs and statistics (plain structs as
// their bytes: every rank runs the same binary); rank 0 sums them, lists the μGraphs once each, and
// keeps one row per rank for stats.ranks.
#include "search/distributed/rank_merge.h"

#include "search/distributed/wire.h"
#include "search/found.h"
#include "ugs/ir/canonical.h"

namespace ugs::search_detail {
namespace {

std::string pack(const SearchResult& result, const RankStats& me) {
  WireWriter out;
  out.put(me);
  out.put(result.totals);
  out.put_all(result.workers);
  out.put(result.expr);
  out.put_all(result.levels);
  out.put(result.duplicates);
  out.put(result.middle_states);
  out.put<uint8_t>(result.partial);
  out.put(result.peak_frontier_mib);
  out.put(result.chunks);
  out.put(result.lookahead);
  out.put(static_cast<uint64_t>(result.mugraphs.size()));
  for (const FoundGraph& found : result.mugraphs) {
    out.put(found.graph);
    out.put(found.found_s);  // in the rank's own run, which began with every other's
  }
  return out.take();
}

// Adds one rank's message to the merged result; its μGraphs go to `found`.
void unpack(const std::string& msg, SearchResult& result, std::vector<FoundGraph>& found) {
  WireReader in(msg);
  result.rank_stats.push_back(in.get<RankStats>());
  result.totals += in.get<Counters>();
  for (const Counters& c : in.get_all<Counters>()) result.workers.push_back(c);
  result.expr += in.get<expr::OracleStats>();
  for (const LevelStats& row : in.get_all<LevelStats>()) {
    if (result.levels.size() <= static_cast<size_t>(row.level)) result.levels.resize(row.level + 1);
    LevelStats& total = result.levels[row.level];
    total.level = row.level;
    total.frontier += row.frontier;
    total.candidates += row.candidates;
    total.survivors += row.survivors;
    total.bytes += row.bytes;
    total.verified += row.verified;
    total.fingerprints += row.fingerprints;
    total.fingerprint_calls += row.fingerprint_calls;
    total.wall_s = std::max(total.wall_s, row.wall_s);
  }
  result.duplicates += in.get<uint64_t>();
  result.middle_states += in.get<uint64_t>();
  result.partial |= in.get<uint8_t>() != 0;
  result.peak_frontier_mib += in.get<double>();
  result.chunks = std::max(result.chunks, in.get<uint64_t>());  // equal on every rank: levels advance together
  // Each rank searches ahead with a memo of its own: the sums count a signature once per rank.
  result.lookahead += in.get<Generator::LookaheadStats>();
  const auto n = in.get<uint64_t>();
  for (uint64_t i = 0; i < n; ++i) {
    const auto graph = in.get<KernelGraph>();
    const auto found_s = in.get<double>();
    found.push_back({graph, structural_hash(graph), {}, found_s});
  }
}

}  // namespace

void merge_ranks(Comm& comm, const GpuSpec& gpu, double within, const RankStats& me, SearchResult& result) {
  const std::vector<std::string> all = comm.gather(pack(result, me));
  if (comm.rank() != 0) return;
  SearchResult merged;
  merged.backend = result.backend;
  merged.device = result.device;
  merged.wall_s = result.wall_s;
  merged.ranks = comm.size();
  std::vector<FoundGraph> found;
  for (const std::string& msg : all) unpack(msg, merged, found);
  for (RankStats& s : merged.rank_stats) merged.peak_rss_mib = std::max(merged.peak_rss_mib, s.peak_rss_mib);
  list_found(std::move(found), gpu, within, merged);
  result = std::move(merged);
}

}  // namespace ugs::search_detail
