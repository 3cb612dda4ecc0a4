#include "ugs/io/results_file.h"

#include <fmt/format.h>

#include "ugs/cost/cost_json.h"
#include "ugs/cost/plans.h"
#include "ugs/io/mugraph_json.h"
#include "ugs/search/generator/mirage_space.h"

namespace ugs {
namespace {

using nlohmann::json;

json counters_json(const Counters& c) {
  return {{"states", c.states}, {"busy_s", c.busy_s}};
}

// One row per rank of a distributed run (empty in one process).
json ranks_json(const std::vector<RankStats>& ranks) {
  json rows = json::array();
  for (const RankStats& stats : ranks)
    rows.push_back({{"rank", stats.rank}, {"states", stats.states}, {"items", stats.items}, {"busy_s", stats.busy_s},
                    {"wall_s", stats.wall_s}, {"bytes_sent", stats.bytes_sent},
                    {"bytes_received", stats.bytes_received}, {"z3_calls", stats.z3_calls},
                    {"peak_rss_mib", stats.peak_rss_mib}});
  return rows;
}

json idle_json(const IdleTimes& i) {
  return {{"expand", i.expand}, {"deferred", i.deferred}, {"confirm", i.confirm},
          {"dedup", i.dedup}, {"keep", i.keep}, {"route", i.route}, {"fingerprint", i.fingerprint},
          {"serial", i.serial}};
}

json stats_json(const SearchResult& result) {
  const Counters& totals = result.totals;
  json levels = json::array();
  for (const LevelStats& l : result.levels)
    levels.push_back({{"level", l.level},
                      {"frontier", l.frontier},
                      {"candidates", l.candidates},
                      {"survivors", l.survivors},
                      {"bytes", l.bytes},
                      {"verified", l.verified},
                      {"fingerprints", l.fingerprints},
                      {"fingerprint_calls", l.fingerprint_calls},
                      {"wall_s", l.wall_s}});
  json workers = json::array();
  for (size_t i = 0; i < result.workers.size(); ++i) {
    json row = counters_json(result.workers[i]);
    row["id"] = i;
    workers.push_back(row);
  }
  return {{"states_expanded", totals.states},
          {"candidates", totals.candidates},
          {"symbolic", {{"states", totals.symbolic_states}, {"instantiations", totals.instantiations}}},
          {"lookahead",
           {{"signatures", result.lookahead.signatures},
            {"states", result.lookahead.states},
            {"closing", result.lookahead.closing},
            {"closing_states", result.lookahead.closing_states},
            {"answered", result.lookahead.answered},
            {"replayed", result.lookahead.replayed},
            {"replayed_closings", result.lookahead.replayed_closings},
            {"late_traces", result.lookahead.late_traces},
            {"unremembered", result.lookahead.unremembered}}},
          {"pruned",
           {{"shape", totals.pruned.shape}, {"order", totals.pruned.order}, {"memory", totals.pruned.memory},
            {"expr", totals.pruned.expr}, {"dedup", totals.pruned.dedup}, {"reach", totals.pruned.reach},
            {"cost", totals.pruned.cost}}},
          {"expr",
           {{"queries", result.expr.queries}, {"cache_hits", result.expr.cache_hits},
            {"structural", result.expr.structural}, {"z3_calls", result.expr.z3_calls},
            {"z3_unknown", result.expr.z3_unknown}, {"z3_s", result.expr.z3_s},
            {"undecided", result.expr.undecided}}},
          {"fingerprint_evals", totals.fingerprint_evals},
          {"fingerprint_passes", totals.fingerprint_passes},
          {"verified", totals.verified},
          {"confirm_failures", totals.confirm_failures},
          {"duplicates", result.duplicates},
          {"middle_states", result.middle_states},
          {"wall_s", result.wall_s},
          {"time_to_first_s", result.time_to_first_s < 0 ? json() : json(result.time_to_first_s)},
          {"time_to_best_s", result.time_to_best_s < 0 ? json() : json(result.time_to_best_s)},
          {"phase_s",
           {{"expand", totals.phase_s.expand}, {"expr", totals.phase_s.expr},
            {"fingerprint", totals.phase_s.fingerprint}, {"dedup", totals.phase_s.dedup},
            {"verify", totals.phase_s.verify}, {"exchange", totals.phase_s.exchange}}},
          {"levels", levels},
          {"idle_s", idle_json(result.idle)},
          {"peak_frontier_mib", result.peak_frontier_mib},
          {"chunks", result.chunks},
          {"carried", result.carried},
          {"checkpoints",
           {{"written", result.checkpoints_written}, {"skipped", result.checkpoints_skipped}, {"s", result.checkpoint_s}}},
          {"workers", workers},
          {"ranks", ranks_json(result.rank_stats)},
          {"peak_rss_mib", result.peak_rss_mib}};
}

// The input program's three reference plans (docs/design.md §8), priced on the run's GPU, so a results file
// alone can compare the μGraphs found with what fusion compilers would do.
json plans_json(const KernelGraph& program, const GpuSpec& gpu) {
  json r;
  for (Plan p : kPlans) r[std::string(name_of(p))] = cost_summary_json(estimate_plan(program, p, gpu));
  return r;
}

}  // namespace

json results_json(const Program& program, const SearchConfig& cfg, const RunOptions& opt, const SearchResult& result) {
  json mugraphs = json::array();
  for (const FoundGraph& found : result.mugraphs)
    mugraphs.push_back({{"hash", fmt::format("{:016x}", found.hash)},
                        {"cost", cost_summary_json(found.cost)},
                        {"found_s", found.found_s},
                        {"graph", to_json(found.graph)}});
  return {{"run",
           {{"strategy", name_of(opt.strategy)}, {"threads", opt.threads}, {"ranks", result.ranks},
            {"backend", name_of(result.backend)}, {"field", name_of(opt.field)}, {"seed", opt.seed},
            {"cost_gpu", opt.cost_gpu}, {"partial", result.partial}, {"time_limit_s", opt.time_limit_s},
            {"dedup", name_of(opt.dedup)}, {"memory_limit_mib", opt.memory_limit_mib},
            {"objective", name_of(opt.objective)},
            {"within", opt.objective == Objective::Best ? json(opt.within) : json()},
            {"device", result.device}, {"space", name_of(cfg.space)},
            {"space_not_covered",
             cfg.space == Space::Mirage ? json(mirage_not_covered(program.mirage_config)) : json::array()},
            {"version", kVersion}}},
          {"program", program.source},
          {"config", config_to_json(cfg)},
          {"plans", plans_json(program.graph, *gpu_preset(opt.cost_gpu))},
          {"mugraphs", mugraphs},
          {"stats", stats_json(result)}};
}

}  // namespace ugs
