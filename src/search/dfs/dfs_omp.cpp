// dfs-omp, Mirage's current scheme: OpenMP tasks for the states shallower than a threshold, each
// task's subtree searched depth-first by the thread that runs it.
#include <omp.h>

#include "search/dfs/drivers.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {

namespace {

// Mirage's current scheme: a state shallower than the threshold hands each child to the OpenMP task
// pool; deeper states are searched depth-first by whichever thread holds them.
void task_dfs(const Engine& engine, const State& state, int depth, int task_depth, std::deque<Worker>& workers,
              FirstException& failure) {
  if (engine.stop.load(std::memory_order_relaxed)) return;
  // Work is timed between task scheduling points only: a thread may run another task inside
  // `#pragma omp task`, and that task times its own (tasks are tied: the thread stays the same).
  Worker& worker = workers[omp_get_thread_num()];
  worker.start_work();
  std::vector<Step> children;
  visit(engine, state, worker, children);
  for (const Step& st : children) {
    State child = engine.gen.apply(state, st);
    if (depth + 1 < task_depth) {
      worker.stop_work();
#pragma omp task firstprivate(child) shared(engine, workers, failure)
      failure.capture([&] { task_dfs(engine, child, depth + 1, task_depth, workers, failure); });
      worker.start_work();
    } else {
      dfs(engine, child, worker, depth + 1);
    }
  }
  worker.stop_work();
}

}  // namespace

void run_dfs_omp(const Engine& engine, const State& root, int task_depth, std::deque<Worker>& workers) {
  FirstException failure;
#pragma omp parallel num_threads(static_cast<int>(workers.size()))
#pragma omp single
  failure.capture([&] { task_dfs(engine, root, 0, task_depth, workers, failure); });
  failure.rethrow();
}

}  // namespace ugs::search_detail
