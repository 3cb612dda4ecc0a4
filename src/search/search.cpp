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

namespace ugs {

namespace {

constexpr std::pair<Strategy, std::string_view> kStrategies[] = {
    {Strategy::Dfs, "dfs"}, {Strategy::DfsStatic, "dfs-static"}, {Strategy::DfsOmp, "dfs-omp"},
    {Strategy::DfsMpi, "dfs-mpi"}, {Strategy::Bfs, "bfs"}};
constexpr std::pair<Dedup, std::string_view> kDedups[] = {{Dedup::Structural, "structural"}, {Dedup::Function, "function"}};

// What a checkpoint must have been written by for a resume to continue it.
std::string run_key(const KernelGraph& program, const SearchConfig& cfg, const RunOptions& opt) {
  return fmt::format("{:016x} {} {} {} {} {}", structural_hash(program), config_to_json(cfg).dump(), name_of(opt.field),
                     opt.seed, name_of(opt.strategy), name_of(opt.dedup));
}

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;  // Linux reports KiB
}

RankStats rank_stats(const Comm& comm, const SearchResult& r) {
  RankStats s;
  s.rank = comm.rank();
  s.states = r.totals.states;
  s.items = r.items;
  s.busy_s = r.totals.busy_s;
  s.wall_s = r.wall_s;
  s.bytes_sent = comm.bytes_sent();
  s.bytes_received = comm.bytes_received();
  s.z3_calls = r.expr.z3_calls;
  s.peak_rss_mib = r.peak_rss_mib;
  return s;
}

// All workers' μGraphs and counters.
void gather(const std::deque<Worker>& workers, const Worker& collector, const GpuSpec& gpu, SearchResult& r) {
  for (const Worker* w : {&collector}) r.totals += w->c;
  for (const Worker& w : workers) {
    r.totals += w.c;
    r.workers.push_back(w.c);
  }
  std::vector<FoundGraph> all;
  for (const Worker* w : {&collector})
    for (const KernelGraph& g : w->found) all.push_back({g, structural_hash(g), {}});
  for (const Worker& w : workers)
    for (const KernelGraph& g : w.found) all.push_back({g, structural_hash(g), {}});
  search_detail::list_found(std::move(all), gpu, r);
}

}  // namespace

std::optional<Strategy> strategy_from_name(std::string_view s) {
  for (const auto& [k, n] : kStrategies)
    if (n == s) return k;
  return std::nullopt;
}

std::string_view name_of(Strategy s) {
  for (const auto& [k, n] : kStrategies)
    if (k == s) return n;
  return "?";
}

std::optional<Dedup> dedup_from_name(std::string_view s) {
  for (const auto& [k, n] : kDedups)
    if (n == s) return k;
  return std::nullopt;
}

std::string_view name_of(Dedup d) {
  for (const auto& [k, n] : kDedups)
    if (k == d) return n;
  return "?";
}

SearchResult run_search(const KernelGraph& program, const SearchConfig& cfg, const RunOptions& opt) {
  const auto t0 = Clock::now();
  expr::ExprPool pool;
  const std::vector<expr::ExprId> targets = expr::output_exprs(pool, program);
  const bool ranks = opt.comm && opt.comm->size() > 1;
  expr::OracleConfig ocfg;
  ocfg.threads = opt.threads;
  ocfg.structural = cfg.oracle_structural != 0;
  ocfg.log_z3 = ranks && opt.strategy == Strategy::DfsMpi;  // shared with the other ranks as z3 decides
  expr::Oracle oracle(pool, targets, ocfg);
  const Verifier verifier(program, opt.backend, opt.field, opt.seed, static_cast<int>(cfg.confirm_tests),
                          cfg.float_tolerance);
  const Generator gen(program, cfg, pool);
  std::atomic<bool> own_stop{false};
  std::atomic<bool>& stop = opt.stop ? *opt.stop : own_stop;
  const Engine engine{gen, oracle, verifier, stop};

  // The evaluator's own OpenMP regions (and the CPU backend's, over a batch) use the run's threads
  // only when the driver does not run threads of its own around them.
  const bool serial_driver = opt.strategy == Strategy::Dfs || opt.strategy == Strategy::Bfs;
  omp_set_num_threads(serial_driver ? opt.threads : 1);
  std::deque<Worker> workers;
  for (int t = 0; t < (opt.strategy == Strategy::Dfs ? 1 : opt.threads); ++t) workers.emplace_back().id = t;
  Worker collector;
  SearchResult r;
  search_detail::LevelProgress levels;
  {
    search_detail::Monitor monitor(stop, workers, opt.time_limit_s, opt.progress, std::string(name_of(opt.strategy)),
                                   &levels);
    const State root = gen.root();
    switch (opt.strategy) {
      case Strategy::Dfs: search_detail::run_dfs(engine, root, workers); break;
      case Strategy::DfsStatic: r.middle_states = search_detail::run_dfs_static(engine, root, collector, workers); break;
      case Strategy::DfsOmp: search_detail::run_dfs_omp(engine, root, static_cast<int>(cfg.omp_task_depth), workers); break;
      case Strategy::DfsMpi:
        r.middle_states = search_detail::run_dfs_mpi(engine, root, collector, workers, *opt.comm, r.items);
        break;
      case Strategy::Bfs:
        search_detail::run_bfs(engine, cfg, opt, run_key(program, cfg, opt), root, workers, collector, r, levels);
        break;
    }
  }
  gather(workers, collector, *gpu_preset(opt.cost_gpu), r);
  uint64_t hits = collector.expr_cache_hits;
  for (const Worker& w : workers) hits += w.expr_cache_hits;
  oracle.add_cache_hits(hits);
  r.expr += oracle.stats();  // a resumed bfs carries its checkpoint's
  r.partial = stop.load();
  r.backend = verifier.backend().kind();
  r.device = verifier.backend().device();
  r.wall_s += seconds_since(t0);
  r.peak_rss_mib = peak_rss_mib();
  if (ranks) search_detail::merge_ranks(*opt.comm, *gpu_preset(opt.cost_gpu), rank_stats(*opt.comm, r), r);
  return r;
}

}  // namespace ugs
