// dfs-static, Mirage's 2024 scheme: a serial depth-first pass collects the middle states (each block
// graph just opened), dealt round-robin to the threads, each searching its own depth-first.
#include <omp.h>

#include <thread>

#include "search/dfs/drivers.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {

void collect_middle_states(const Engine& engine, const State& state, Worker& worker, int depth,
                           const std::function<void(State&&)>& middle) {
  if (engine.stop.load(std::memory_order_relaxed)) return;
  std::vector<Step>& children = worker.steps_at(depth);
  visit(engine, state, worker, children);
  for (size_t i = 0; i < children.size(); ++i) {
    State child = engine.gen.apply(state, children[i]);
    if (children[i].kind == Step::Kind::OpenBlock)
      middle(std::move(child));
    else
      collect_middle_states(engine, child, worker, depth + 1, middle);
  }
}

uint64_t run_dfs_static(const Engine& engine, const State& root, Worker& collector, std::deque<Worker>& workers) {
  std::vector<State> middle;
  collector.start_work();
  collect_middle_states(engine, root, collector, 0, [&](State&& s) { middle.push_back(std::move(s)); });
  collector.stop_work();
  const int n = static_cast<int>(workers.size());
  std::vector<std::thread> threads;
  FirstException failure;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      omp_set_num_threads(1);  // a new thread starts from the default ICVs; the evaluator stays serial
      Worker& worker = workers[t];
      worker.start_work();
      for (size_t i = t; i < middle.size(); i += n)  // round-robin, no stealing
        failure.capture([&] { dfs(engine, middle[i], worker, 1); });
      worker.stop_work();
    });
  for (std::thread& th : threads) th.join();
  failure.rethrow();
  return middle.size();
}

}  // namespace ugs::search_detail
