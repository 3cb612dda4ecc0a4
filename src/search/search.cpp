// run_search: the engine, the chosen driver, and the merge of the workers' results.
#include "ugs/search/search.h"

#include <omp.h>
#include <sys/resource.h>

#include <algorithm>

#include <fmt/format.h>

#include "search/bfs/bfs.h"
#include "search/dfs/drivers.h"
#include "search/distributed/rank_merge.h"
#include "search/found.h"
#include "search/monitor.h"
#include "ugs/expr/op_expr.h"
#include "ugs/ir/canonical.h"
#include "ugs/util/names.h"

namespace ugs {

namespace {

constexpr std::pair<Strategy, std::string_view> kStrategies[] = {
    {Strategy::Dfs, "dfs"}, {Strategy::DfsStatic, "dfs-static"}, {Strategy::DfsOmp, "dfs-omp"},
    {Strategy::DfsMpi, "dfs-mpi"}, {Strategy::Bfs, "bfs"}};
constexpr std::pair<Dedup, std::string_view> kDedups[] = {{Dedup::Structural, "structural"}, {Dedup::Function, "function"}};

// What a checkpoint must have been written by for a resume to continue it.
std::string run_key(const KernelGraph& program, const SearchConfig& cfg, const RunOptions& opt) {
  return fmt::format("{:016x} {} {} {} {} {} {} {}", structural_hash(program), config_to_json(cfg).dump(),
                     name_of(opt.field), opt.seed, name_of(opt.strategy), name_of(opt.dedup), name_of(opt.objective),
                     opt.within);
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // Linux reports KiB
}

RankStats rank_stats(const Comm& comm, const SearchResult& result) {
  RankStats stats;
  stats.rank = comm.rank();
  stats.states = result.totals.states;
  stats.items = result.items;
  stats.busy_s = result.totals.busy_s;
  stats.wall_s = result.wall_s;
  stats.bytes_sent = comm.bytes_sent();
  stats.bytes_received = comm.bytes_received();
  stats.z3_calls = result.expr.z3_calls;
  stats.peak_rss_mib = result.peak_rss_mib;
  return stats;
}

// A worker's μGraphs, dated in seconds into the run: `before` (what a resumed run's checkpoint had
// already run) plus the time since `start`; those without a date (a checkpoint's), at `before`.
void add_found(const Worker& worker, Clock::time_point start, double before, std::vector<FoundGraph>& all) {
  for (size_t i = 0; i < worker.found.size(); ++i) {
    const double since =
        i < worker.found_at.size() ? std::chrono::duration<double>(worker.found_at[i] - start).count() : 0.0;
    all.push_back({worker.found[i], structural_hash(worker.found[i]), {}, before + since});
  }
}

// All workers' μGraphs and counters.
void gather(const std::deque<Worker>& workers, const Worker& collector, const GpuSpec& gpu, double within,
            Clock::time_point start, SearchResult& result) {
  for (const Worker* worker : {&collector}) result.totals += worker->counters;
  for (const Worker& worker : workers) {
    result.totals += worker.counters;
    result.workers.push_back(worker.counters);
  }
  std::vector<FoundGraph> all;
  add_found(collector, start, result.wall_s, all);
  for (const Worker& worker : workers) add_found(worker, start, result.wall_s, all);
  search_detail::list_found(std::move(all), gpu, within, result);
}

}  // namespace

std::optional<Strategy> strategy_from_name(std::string_view name) { return value_named(kStrategies, name); }
std::string_view name_of(Strategy strategy) { return name_in(kStrategies, strategy); }
std::optional<Dedup> dedup_from_name(std::string_view name) { return value_named(kDedups, name); }
std::string_view name_of(Dedup dedup) { return name_in(kDedups, dedup); }

SearchResult run_search(const KernelGraph& program, const SearchConfig& cfg, const RunOptions& opt) {
  const auto start = Clock::now();
  expr::ExprPool pool;
  const std::vector<expr::ExprId> targets = expr::output_exprs(pool, program);
  const bool ranks = opt.comm && opt.comm->size() > 1;
  expr::OracleConfig ocfg;
  ocfg.threads = opt.threads;
  ocfg.structural = cfg.oracle_structural != 0;
  ocfg.prune = cfg.expr_check != 0;
  ocfg.cache = cfg.expr_cache != 0;
  ocfg.log_z3 = ranks && opt.strategy == Strategy::DfsMpi;  // shared with the other ranks as z3 decides
  expr::Oracle oracle(pool, targets, ocfg);
  const Verifier verifier(program, opt.backend, opt.field, opt.seed, static_cast<int>(cfg.confirm_tests),
                          cfg.float_tolerance);
  std::atomic<bool> own_stop{false};
  std::atomic<bool>& stop = opt.stop ? *opt.stop : own_stop;
  const Generator gen(program, cfg, pool, &oracle, &stop);
  const GpuSpec cost_gpu = *gpu_preset(opt.cost_gpu);
  CostBound bound(opt.objective, opt.within, cost_gpu);
  const Engine engine{gen, oracle, verifier, stop, bound};
  const double within = opt.objective == Objective::Best ? opt.within : 0;  // list_found's cut

  // The evaluator's own OpenMP regions (and the CPU backend's, over a batch) use the run's threads
  // only when the driver does not run threads of its own around them.
  const bool serial_driver = opt.strategy == Strategy::Dfs || opt.strategy == Strategy::Bfs;
  omp_set_num_threads(serial_driver ? opt.threads : 1);
  std::deque<Worker> workers;
  for (int t = 0; t < (opt.strategy == Strategy::Dfs ? 1 : opt.threads); ++t) {
    Worker& worker = workers.emplace_back();
    worker.id = t;
    worker.fingerprints = verifier.backend().make_context();
  }
  Worker collector;
  SearchResult result;
  search_detail::LevelProgress levels;
  {
    search_detail::Monitor monitor(stop, workers, opt.time_limit_s, opt.progress, std::string(name_of(opt.strategy)),
                                   &levels);
    const State root = gen.root();
    switch (opt.strategy) {
      case Strategy::Dfs: search_detail::run_dfs(engine, root, workers); break;
      case Strategy::DfsStatic:
        result.middle_states = search_detail::run_dfs_static(engine, root, collector, workers);
        break;
      case Strategy::DfsOmp: search_detail::run_dfs_omp(engine, root, static_cast<int>(cfg.omp_task_depth), workers); break;
      case Strategy::DfsMpi:
        result.middle_states = search_detail::run_dfs_mpi(engine, root, collector, workers, *opt.comm, result.items);
        break;
      case Strategy::Bfs:
        search_detail::run_bfs(engine, cfg, opt, run_key(program, cfg, opt), root, workers, collector, result, levels);
        break;
    }
  }
  gather(workers, collector, cost_gpu, within, start, result);
  result.lookahead = gen.lookahead_stats();
  uint64_t hits = collector.expr_cache_hits;
  for (const Worker& worker : workers) hits += worker.expr_cache_hits;
  oracle.add_cache_hits(hits);
  result.expr += oracle.stats();  // a resumed bfs carries its checkpoint's
  result.partial = stop.load();
  result.backend = verifier.backend().kind();
  result.device = verifier.backend().device();
  result.wall_s += seconds_since(start);
  result.peak_rss_mib = peak_rss_mib();
  if (ranks) search_detail::merge_ranks(*opt.comm, cost_gpu, within, rank_stats(*opt.comm, result), result);
  return result;
}

}  // namespace ugs
