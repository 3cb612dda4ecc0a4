#pragma once
// What every driver shares: the generator, the oracle, the verifier and the stop flag (the engine),
// and what each thread owns (a worker: its counters, its results, its scratch). `visit` is the one
// step every depth-first driver takes on a state; the drivers differ only in where children go.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <vector>

#include "ugs/expr/oracle.h"
#include "ugs/search/cost_bound.h"
#include "ugs/search/generator/generator.h"
#include "ugs/search/generator/verifier.h"

namespace ugs {

struct PhaseTimes {
  double expand = 0, expr = 0, fingerprint = 0, dedup = 0, verify = 0;
  double exchange = 0;  // with ranks: messages between them, waiting included
  PhaseTimes& operator+=(const PhaseTimes& o) {
    exchange += o.exchange;
    expand += o.expand;
    expr += o.expr;
    fingerprint += o.fingerprint;
    dedup += o.dedup;
    verify += o.verify;
    return *this;
  }
};

struct Counters {
  uint64_t states = 0, candidates = 0, fingerprint_evals = 0, fingerprint_passes = 0, verified = 0,
           confirm_failures = 0;
  // Symbolic openings (config `symbolic`): states inside one, and the closings they offered (each
  // instantiates one launch: a concrete block graph).
  uint64_t symbolic_states = 0, instantiations = 0;
  PruneCounts pruned;
  PhaseTimes phase_s;
  double busy_s = 0;
  Counters& operator+=(const Counters& o);
};

// Counts a symbolic opening's state and its closings among `children` (the generator's steps from it).
void count_symbolic(const State& state, std::span<const Step> children, Counters& counters);

using Clock = std::chrono::steady_clock;
inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Charges a worker's time to its phases with one clock read per switch: a depth-first step switches
// twice (into the expression check and back), where timing each phase apart read the clock six
// times a state, and a state is cheap enough that reading the clock showed in a search's time.
class PhaseClock {
 public:
  using Phase = double PhaseTimes::*;  // null: not running
  // Charges the time since the last switch to the running phase, then runs p; returns the time read.
  Clock::time_point to(PhaseTimes& t, Phase p) {
    const Clock::time_point now = Clock::now();
    if (running_) t.*running_ += std::chrono::duration<double>(now - since_).count();
    running_ = p;
    since_ = now;
    return now;
  }
  Phase running() const { return running_; }

 private:
  Phase running_ = nullptr;
  Clock::time_point since_;
};

struct Engine {
  const Generator& gen;
  expr::Oracle& oracle;
  const Verifier& verifier;
  std::atomic<bool>& stop;
  CostBound& bound;  // --objective best; inactive for all
};

struct alignas(64) Worker {
  int id = 0;
  Counters counters;
  std::vector<KernelGraph> found;            // confirmed μGraphs
  std::vector<Clock::time_point> found_at;   // when each was confirmed (record()); the μGraphs a
                                             // resumed bfs's checkpoint brought have none
  std::atomic<uint64_t> progress{0};         // states, for the progress line (count_state())
  std::deque<std::vector<Step>> by_depth;    // scratch step lists, one per depth (stable references)
  std::vector<KernelGraph> completions;      // scratch
  std::vector<uint32_t> completion_groups;   // scratch: their groups' ends (Generator::replay)
  KernelPrices prices;                       // the cost bound's memo of the states it met
  // What the backend keeps of this thread's last candidate (null: nothing): a thread's candidates
  // follow one another (down one subtree, or from one chunk of a level) and mostly begin with the
  // same kernel ops, evaluated once (Mirage's verifier evaluates each candidate from its inputs).
  std::unique_ptr<FingerprintContext> fingerprints;
  PhaseClock clock;
  Clock::time_point busy_since;
  // Queries `visit` answered from the oracle's cache, told to the oracle once, after the run: a shared
  // counter bumped per query made the threads contend on its cache line, more the more threads ran.
  uint64_t expr_cache_hits = 0;

  std::vector<Step>& steps_at(int depth);
  // One more state for the progress line. Only this worker's thread writes the count, so a load and a
  // store do: a locked add per state waited for the thread's pending stores to drain each time.
  void count_state() { progress.store(progress.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  // A confirmed μGraph, dated now; it may lower the cost bound.
  void record(const KernelGraph& graph, CostBound& bound) {
    found.push_back(graph);
    found_at.push_back(Clock::now());
    bound.offer(graph);
  }
  void phase(PhaseClock::Phase p) { clock.to(counters.phase_s, p); }
  // Where a driver gives the thread work and takes it away: busy time, and the clock running in expand.
  void start_work() { busy_since = clock.to(counters.phase_s, &PhaseTimes::expand); }
  void stop_work() {
    counters.busy_s += std::chrono::duration<double>(clock.to(counters.phase_s, nullptr) - busy_since).count();
  }
};

// Fingerprints the μGraphs one state completes, one at a time; the first that matches and passes
// confirmation is recorded in `worker`. True if one did (then the state is not extended, as in Mirage).
// A confirmation the stop cuts short (`stop`: null where the caller must finish, as bfs under ranks)
// records nothing and ends the loop. With a context, the backend may reuse the work of the thread's
// previous candidates. Under the cost bound, completions whose cost the limit has passed are not
// fingerprinted (false).
bool verify_completions(const Engine& engine, std::span<const KernelGraph> completions, Worker& worker,
                        const std::atomic<bool>* stop, FingerprintContext* ctx = nullptr);
// The same for each group of a replayed opening's completions (Generator::replay; `group_ends`: each
// group's end), as under each closed state. True if one group's did.
bool verify_completion_groups(const Engine& engine, std::span<const KernelGraph> completions,
                              std::span<const uint32_t> group_ends, Worker& worker, const std::atomic<bool>* stop,
                              FingerprintContext* ctx = nullptr);
// Counts `state`, verifies the μGraphs it completes, and leaves in `children` the steps from it that
// pass every check, the abstract-expression one included. Under the cost bound a state past it is
// counted and cut (stats.pruned.cost): its completions untried, or no children.
void visit(const Engine& engine, const State& state, Worker& worker, std::vector<Step>& children);
// `state` and everything below it, depth-first, in generator order.
void dfs(const Engine& engine, const State& state, Worker& worker, int depth);

}  // namespace ugs
