// dfs-mpi: Mirage's middle states (as dfs-static collects them) handed out over ranks on demand.
// Rank 0 collects them and serves while it does (every millisecond), so that the others start at
// once: every rank's main thread keeps its threads' queue filled, rank 0's from the list directly and
// the others' by asking rank 0 for a chunk (guided: a share of what is left, so the chunks shrink
// toward the end and a slow subtree never leaves another rank idle). Rank 0's threads thus work too,
// its main thread serving between short sleeps. Each message carries the z3 decisions its sender
// learned since its last one: rank 0 keeps a board of everyone's and answers each rank with those it
// has not seen; an idle rank still syncs every kSyncPeriod. Each message also carries its sender's
// cost limit (--objective best), so a μGraph one rank finds cuts every rank's search within a sync.
// run_search gathers the results.
#include <omp.h>

#include <exception>
#include <thread>

#include "search/dfs/drivers.h"
#include "search/dfs/work_queue.h"
#include "search/distributed/state_wire.h"
#include "search/distributed/z3_share.h"
#include "ugs/util/first_exception.h"

namespace ugs::search_detail {
namespace {

using namespace std::chrono_literals;

constexpr int kTagRequest = 101, kTagReply = 102;
constexpr auto kSyncPeriod = 20ms;  // z3 decisions age at most this long on a rank before others learn them
enum class Ask : uint8_t { Sync, Work, Done };

// The rank's threads: each searches middle states depth-first from the queue until it closes. A
// failure raises the stop, so the rank's main thread closes the queue and every thread drains it.
std::vector<std::thread> start_threads(const Engine& engine, WorkQueue& queue, std::deque<Worker>& workers,
                                       std::atomic<uint64_t>& searched, FirstException& failure) {
  std::vector<std::thread> threads;
  for (Worker& worker : workers)
    threads.emplace_back([&engine, &queue, &worker, &searched, &failure] {
      omp_set_num_threads(1);  // a new thread starts from the default ICVs; the evaluator stays serial
      State state;
      while (queue.pop(state)) {
        failure.capture([&] {
          worker.start_work();
          dfs(engine, state, worker, 1);
          worker.stop_work();
          searched.fetch_add(1, std::memory_order_relaxed);
        });
        if (failure.failed()) engine.stop.store(true);
      }
    });
  return threads;
}

// Joins the threads on every way out: a std::thread destroyed unjoined ends the process, so a failure
// on the main thread (collecting, a message) stops them first and then propagates.
class JoinedOnExit {
 public:
  JoinedOnExit(const Engine& engine, WorkQueue& queue, std::vector<std::thread>& threads)
      : engine_(engine), queue_(queue), threads_(threads) {}
  ~JoinedOnExit() {
    if (std::uncaught_exceptions() > unwinding_) {
      engine_.stop.store(true);
      queue_.close();
    }
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }
  JoinedOnExit(const JoinedOnExit&) = delete;
  JoinedOnExit& operator=(const JoinedOnExit&) = delete;

 private:
  const Engine& engine_;
  WorkQueue& queue_;
  std::vector<std::thread>& threads_;
  const int unwinding_ = std::uncaught_exceptions();  // those already in flight when it was made
};

class Master {
 public:
  Master(const Engine& engine, Comm& comm, WorkQueue& queue, int threads)
      : engine_(engine), comm_(comm), queue_(queue), threads_(threads), cursor_(comm.size(), 0) {}

  // While collecting, each middle state joins the list, and every millisecond rank 0 serves.
  void add(State&& s) {
    middle_.push_back(std::move(s));
    if (Clock::now() - last_step_ > 1ms) step();
  }
  uint64_t collected() {
    collecting_ = false;
    return middle_.size();
  }
  void run() {
    while (!queue_.finished() || done_ < comm_.size() - 1) {
      step();
      queue_.wait(1ms);
    }
  }

 private:
  bool no_more() const { return engine_.stop.load() || (!collecting_ && next_ == middle_.size()); }
  // Requests answered, this rank's z3 decisions onto the board, its threads' queue refilled.
  void step() {
    last_step_ = Clock::now();
    while (auto m = comm_.try_receive(kTagRequest)) serve(m->first, m->second);
    std::vector<Decision> mine;
    engine_.oracle.take_z3_log(mine);
    for (const Decision& d : mine) board_.push_back({0, d});
    if (queue_.size() < static_cast<size_t>(threads_)) queue_.push(take());
    if (no_more()) queue_.close();
  }
  // A guided chunk: half of what is left spread over every thread of every rank, at least one.
  std::vector<State> take() {
    const size_t left = engine_.stop.load() ? 0 : middle_.size() - next_;
    const size_t n = std::min(left, std::max<size_t>(1, left / (2 * threads_ * comm_.size())));
    std::vector<State> chunk(std::make_move_iterator(middle_.begin() + next_),
                             std::make_move_iterator(middle_.begin() + next_ + n));
    next_ += n;
    return chunk;
  }
  void serve(int from, const std::string& msg) {
    WireReader in(msg);
    const auto ask = in.get<Ask>();
    engine_.bound.lower_to(in.get<double>());
    for (const Decision& d : learn_decisions(engine_.oracle, engine_.gen.pool(), in)) board_.push_back({from, d});
    if (ask == Ask::Done) {
      ++done_;
      return;
    }
    WireWriter out;
    const std::vector<State> chunk = ask == Ask::Work ? take() : std::vector<State>{};
    out.put<uint8_t>(no_more());
    out.put(engine_.bound.limit_us());
    out.put(static_cast<uint64_t>(chunk.size()));
    Bytes enc;
    for (const State& st : chunk) {
      enc.clear();
      encode(st, enc);
      put_state(enc.data(), enc.size(), out);
    }
    std::vector<Decision> news;
    for (; cursor_[from] < board_.size(); ++cursor_[from])
      if (board_[cursor_[from]].first != from) news.push_back(board_[cursor_[from]].second);
    put_decisions(engine_.gen.pool(), news, out);
    comm_.send(from, kTagReply, out.take());
  }

  const Engine& engine_;
  Comm& comm_;
  WorkQueue& queue_;
  const int threads_;
  std::vector<State> middle_;
  size_t next_ = 0;
  bool collecting_ = true;
  int done_ = 0;  // ranks that have finished
  Clock::time_point last_step_ = Clock::now();
  std::vector<std::pair<int, Decision>> board_;  // every z3 decision so far: its rank, in rank 0's ids
  std::vector<size_t> cursor_;                  // per rank: the board entries it has been sent
};

class Follower {
 public:
  Follower(const Engine& engine, Comm& comm, WorkQueue& queue, int threads)
      : engine_(engine), comm_(comm), queue_(queue), threads_(threads) {}

  // Asks again at once while chunks come; after an empty one (rank 0 is still collecting) soon.
  void run() {
    bool no_more = false;
    auto synced = Clock::now();
    while (!queue_.finished()) {
      const bool want = !no_more && queue_.size() < static_cast<size_t>(threads_);
      size_t got = 0;
      if (want || Clock::now() - synced > kSyncPeriod) {
        got = ask(want ? Ask::Work : Ask::Sync, no_more);
        synced = Clock::now();
      }
      if (no_more || engine_.stop.load()) queue_.close();
      queue_.wait(want ? (got ? 0us : 1000us) : std::chrono::duration_cast<std::chrono::microseconds>(kSyncPeriod));
    }
    ask(Ask::Done, no_more);
  }

 private:
  // Sends this rank's new z3 decisions with the request; returns the states received, and sets
  // no_more when rank 0 has none left.
  size_t ask(Ask what, bool& no_more) {
    WireWriter out;
    out.put(what);
    out.put(engine_.bound.limit_us());
    std::vector<Decision> mine;
    engine_.oracle.take_z3_log(mine);
    put_decisions(engine_.gen.pool(), mine, out);
    comm_.send(0, kTagRequest, out.take());
    if (what == Ask::Done) return 0;
    const std::string reply = comm_.receive(0, kTagReply);
    WireReader in(reply);
    no_more |= in.get<uint8_t>() != 0;
    engine_.bound.lower_to(in.get<double>());
    std::vector<State> chunk(in.get<uint64_t>());
    for (State& s : chunk) get_state(in, engine_.gen.pool(), s);
    const size_t got = chunk.size();
    queue_.push(std::move(chunk));
    learn_decisions(engine_.oracle, engine_.gen.pool(), in);
    return got;
  }

  const Engine& engine_;
  Comm& comm_;
  WorkQueue& queue_;
  const int threads_;
};

}  // namespace

uint64_t run_dfs_mpi(const Engine& engine, const State& root, Worker& collector, std::deque<Worker>& workers,
                     Comm& comm, uint64_t& searched) {
  const int threads = static_cast<int>(workers.size());
  WorkQueue queue(threads);
  std::atomic<uint64_t> count{0};
  FirstException failure;
  std::vector<std::thread> pool = start_threads(engine, queue, workers, count, failure);
  uint64_t dealt = 0;
  {
    JoinedOnExit joined(engine, queue, pool);
    if (comm.rank() == 0) {
      Master master(engine, comm, queue, threads);
      collector.start_work();
      collect_middle_states(engine, root, collector, 0, [&](State&& s) { master.add(std::move(s)); });
      collector.stop_work();
      dealt = master.collected();
      master.run();
    } else {
      Follower(engine, comm, queue, threads).run();
    }
  }
  failure.rethrow();
  searched = count.load();
  return dealt;
}

}  // namespace ugs::search_detail
