// The depth-first drivers: each is the shared `visit` step plus a policy for where children go.
#include <omp.h>

#include <thread>

#include "strategies.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {

void run_dfs(const Engine& e, const State& root, std::deque<Worker>& workers) {
  workers[0].start_work();
  dfs(e, root, workers[0], 0);
  workers[0].stop_work();
}

void collect_middle_states(const Engine& e, const State& s, Worker& w, int depth,
                           const std::function<void(State&&)>& middle) {
  if (e.stop.load(std::memory_order_relaxed)) return;
  std::vector<Step>& children = w.steps_at(depth);
  visit(e, s, w, children);
  for (size_t i = 0; i < children.size(); ++i) {
    State child = e.gen.apply(s, children[i]);
    if (children[i].kind == Step::Kind::OpenBlock)
      middle(std::move(child));
    else
      collect_middle_states(e, child, w, depth + 1, middle);
  }
}

uint64_t run_dfs_static(const Engine& e, const State& root, Worker& collector, std::deque<Worker>& workers) {
  std::vector<State> middle;
  collector.start_work();
  collect_middle_states(e, root, collector, 0, [&](State&& s) { middle.push_back(std::move(s)); });
  collector.stop_work();
  const int n = static_cast<int>(workers.size());
  std::vector<std::thread> threads;
  FirstException failure;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      omp_set_num_threads(1);  // a new thread starts from the default ICVs; the evaluator stays serial
      Worker& w = workers[t];
      w.start_work();
      for (size_t i = t; i < middle.size(); i += n)  // round-robin, no stealing
        failure.capture([&] { dfs(e, middle[i], w, 1); });
      w.stop_work();
    });
  for (std::thread& th : threads) th.join();
  failure.rethrow();
  return middle.size();
}

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
