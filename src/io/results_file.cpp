#include "ugs/io/results_file.h"

#include <fmt/format.h>

#include "ugs/cost/cost_json.h"
#include "ugs/cost/plans.h"
#include "ugs/io/mugraph_json.h"

namespace ugs {
namespace {

using nlohmann::json;

json counters_json(const Counters& c) {
  return {{"states", c.states}, {"busy_s", c.busy_s}};
}

// One row per rank of a distributed run (empty in one process).
json ranks_json(const std::vector<RankStats>& ranks) {
  json a = json::array();
  for (const RankStats& s : ranks)
    a.push_back({{"rank", s.rank}, {"states", s.states}, {"items", s.items}, {"busy_s", s.busy_s}, {"wall_s", s.wall_s},
                 {"bytes_sent", s.bytes_sent}, {"bytes_received", s.bytes_received}, {"z3_calls", s.z3_calls},
                 {"peak_rss_mib", s.peak_rss_mib}});
  return a;
}

json idle_json(const IdleTimes& i) {
  return {{"expand", i.expand}, {"deferred", i.deferred}, {"misses", i.misses}, {"confirm", i.confirm},
          {"dedup", i.dedup}, {"keep", i.keep}, {"route", i.route}, {"fingerprint", i.fingerprint},
          {"serial", i.serial}};
}

json stats_json(const SearchResult& r) {
  const Counters& c = r.totals;
  json levels = json::array();
  for (const LevelStats& l : r.levels)
    levels.push_back({{"level", l.level},
                      {"frontier", l.frontier},
                      {"candidates", l.candidates},
                      {"survivors", l.survivors},
                      {"bytes", l.bytes},
                      {"verified", l.verified},
                      {"wall_s", l.wall_s}});
  json workers = json::array();
  for (size_t i = 0; i < r.workers.size(); ++i) {
    json w = counters_json(r.workers[i]);
    w["id"] = i;
    workers.push_back(w);
  }
  return {{"states_expanded", c.states},
          {"candidates", c.candidates},
          {"pruned",
           {{"shape", c.pruned.shape}, {"order", c.pruned.order}, {"memory", c.pruned.memory}, {"expr", c.pruned.expr},
            {"dedup", c.pruned.dedup}, {"reach", c.pruned.reach}}},
          {"expr",
           {{"queries", r.expr.queries}, {"cache_hits", r.expr.cache_hits}, {"structural", r.expr.structural},
            {"z3_calls", r.expr.z3_calls}, {"z3_unknown", r.expr.z3_unknown}, {"z3_s", r.expr.z3_s}}},
          {"fingerprint_evals", c.fingerprint_evals},
          {"fingerprint_passes", c.fingerprint_passes},
          {"verified", c.verified},
          {"confirm_failures", c.confirm_failures},
          {"duplicates", r.duplicates},
          {"middle_states", r.middle_states},
          {"wall_s", r.wall_s},
          {"phase_s",
           {{"expand", c.phase_s.expand}, {"expr", c.phase_s.expr}, {"fingerprint", c.phase_s.fingerprint},
            {"dedup", c.phase_s.dedup}, {"verify", c.phase_s.verify}, {"exchange", c.phase_s.exchange}}},
          {"levels", levels},
          {"idle_s", idle_json(r.idle)},
          {"peak_frontier_mib", r.peak_frontier_mib},
          {"chunks", r.chunks},
          {"carried", r.carried},
          {"workers", workers},
          {"ranks", ranks_json(r.rank_stats)},
          {"peak_rss_mib", r.peak_rss_mib}};
}

// The input program's three reference plans (docs/design.md §8), priced on the run's GPU, so a results file
// alone can compare the μGraphs found with what fusion compilers would do.
json plans_json(const KernelGraph& program, const GpuSpec& gpu) {
  json r;
  for (Plan p : kPlans) r[std::string(name_of(p))] = cost_summary_json(estimate_plan(program, p, gpu));
  return r;
}

}  // namespace

json results_json(const Program& program, const SearchConfig& cfg, const RunOptions& opt, const SearchResult& r) {
  json mugraphs = json::array();
  for (const FoundGraph& f : r.mugraphs) mugraphs.push_back(
        {{"hash", fmt::format("{:016x}", f.hash)}, {"cost", cost_summary_json(f.cost)}, {"graph", to_json(f.graph)}});
  return {{"run",
           {{"strategy", name_of(opt.strategy)}, {"threads", opt.threads}, {"ranks", r.ranks}, {"backend", name_of(r.backend)},
            {"field", name_of(opt.field)}, {"seed", opt.seed}, {"cost_gpu", opt.cost_gpu}, {"partial", r.partial}, {"time_limit_s", opt.time_limit_s},
            {"dedup", name_of(opt.dedup)}, {"memory_limit_mib", opt.memory_limit_mib},
            {"device", r.device}, {"version", kVersion}}},
          {"program", program.source},
          {"config", config_to_json(cfg)},
          {"plans", plans_json(program.graph, *gpu_preset(opt.cost_gpu))},
          {"mugraphs", mugraphs},
          {"stats", stats_json(r)}};
}

}  // namespace ugs
