// The end of a distributed run: every rank sends rank 0 its μGraphs and statistics (plain structs as
// their bytes: every rank runs the same binary); rank 0 sums them, lists the μGraphs once each, and
// keeps one row per rank for stats.ranks.
#include "search/distributed/rank_merge.h"

#include "search/distributed/wire.h"
#include "search/found.h"
#include "ugs/ir/canonical.h"

namespace ugs::search_detail {
namespace {

std::string pack(const SearchResult& r, const RankStats& me) {
  WireWriter w;
  w.put(me);
  w.put(r.totals);
  w.put_all(r.workers);
  w.put(r.expr);
  w.put_all(r.levels);
  w.put(r.duplicates);
  w.put(r.middle_states);
  w.put<uint8_t>(r.partial);
  w.put(r.peak_frontier_mib);
  w.put(r.chunks);
  w.put(static_cast<uint64_t>(r.mugraphs.size()));
  for (const FoundGraph& f : r.mugraphs) w.put(f.graph);
  return w.take();
}

// Adds one rank's message to the merged result; its μGraphs go to `found`.
void unpack(const std::string& msg, SearchResult& r, std::vector<FoundGraph>& found) {
  WireReader rd(msg);
  r.rank_stats.push_back(rd.get<RankStats>());
  r.totals += rd.get<Counters>();
  for (const Counters& c : rd.get_all<Counters>()) r.workers.push_back(c);
  r.expr += rd.get<expr::OracleStats>();
  for (const LevelStats& l : rd.get_all<LevelStats>()) {
    if (r.levels.size() <= static_cast<size_t>(l.level)) r.levels.resize(l.level + 1);
    LevelStats& m = r.levels[l.level];
    m.level = l.level;
    m.frontier += l.frontier;
    m.candidates += l.candidates;
    m.survivors += l.survivors;
    m.bytes += l.bytes;
    m.verified += l.verified;
    m.wall_s = std::max(m.wall_s, l.wall_s);
  }
  r.duplicates += rd.get<uint64_t>();
  r.middle_states += rd.get<uint64_t>();
  r.partial |= rd.get<uint8_t>() != 0;
  r.peak_frontier_mib += rd.get<double>();
  r.chunks = std::max(r.chunks, rd.get<uint64_t>());  // equal on every rank: levels advance together
  const auto n = rd.get<uint64_t>();
  for (uint64_t i = 0; i < n; ++i) {
    const auto g = rd.get<KernelGraph>();
    found.push_back({g, structural_hash(g), {}});
  }
}

}  // namespace

void merge_ranks(Comm& comm, const GpuSpec& gpu, const RankStats& me, SearchResult& r) {
  const std::vector<std::string> all = comm.gather(pack(r, me));
  if (comm.rank() != 0) return;
  SearchResult m;
  m.backend = r.backend;
  m.device = r.device;
  m.wall_s = r.wall_s;
  m.ranks = comm.size();
  std::vector<FoundGraph> found;
  for (const std::string& msg : all) unpack(msg, m, found);
  for (RankStats& s : m.rank_stats) m.peak_rss_mib = std::max(m.peak_rss_mib, s.peak_rss_mib);
  list_found(std::move(found), gpu, m);
  r = std::move(m);
}

}  // namespace ugs::search_detail
