// dfs-omp, Mirage's current scheme: OpenMP tasks for the states shallower than a threshold, each
// task's subtree searched depth-first by the thread that runs it.
#include <omp.h>

#include "search/dfs/drivers.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {

namespace {

// Mirage's current scheme: a state shallower than the threshold hands each child to the OpenMP task
// pool; deeper states are searched depth-first by whichever thread holds them.
void task_dfs(const Engine& e, const State& s, int depth, int task_depth, std::deque<Worker>& workers,
              FirstException& failure) {
  if (e.stop.load(std::memory_order_relaxed)) return;
  // Work is timed between task scheduling points only: a thread may run another task inside
  // `#pragma omp task`, and that task times its own (tasks are tied: the thread stays the same).
  Worker& w = workers[omp_get_thread_num()];
  w.start_work();
  std::vector<Step> children;
  visit(e, s, w, children);
  for (const Step& st : children) {
    State child = e.gen.apply(s, st);
    if (depth + 1 < task_depth) {
      w.stop_work();
#pragma omp task firstprivate(child) shared(e, workers, failure)
      failure.capture([&] { task_dfs(e, child, depth + 1, task_depth, workers, failure); });
      w.start_work();
    } else {
      dfs(e, child, w, depth + 1);
    }
  }
  w.stop_work();
}

}  // namespace

void run_dfs_omp(const Engine& e, const State& root, int task_depth, std::deque<Worker>& workers) {
  FirstException failure;
#pragma omp parallel num_threads(static_cast<int>(workers.size()))
#pragma omp single
  failure.capture([&] { task_dfs(e, root, 0, task_depth, workers, failure); });
  failure.rethrow();
}

}  // namespace ugs::search_detail
