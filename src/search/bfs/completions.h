#pragma once
// The μGraphs a batch's states complete, fingerprinted and confirmed; a state one of whose completions
// passes is verified and not expanded (as in the depth-first drivers). Two ways:
//   at once   each thread fingerprints a state's completions when it meets them, through its own
//             context (the CPU backend on a _small program): the expander calls verify_completions;
//   batched   the states with completions wait, and their completions go to a feed thread chunk by
//             chunk as the batch expands (fingerprint_feed.h), so that a device works while the host
//             expands the rest; the batch then confirms the matches and expands the states that none
//             of theirs verified (a GPU, or the CPU backend on a full-size program).
// Pipelining (batched, one process, no memory limit): a batch that does not end its level leaves its
// states with completions to the next batch of the level, which confirms them and expands those not
// verified, so that their fingerprints overlap its expansion too. The level's last batch drains: it
// finishes its own as well. A carried state counts as a state when it is finished, and a checkpoint
// holds it as pending.
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "search/bfs/batch.h"
#include "search/bfs/fingerprint_feed.h"
#include "search/bfs/team.h"
#include "ugs/search/engine.h"

namespace ugs::search_detail {

// A chunk's completions. The feed writes their flags while the next batch expands, so these are kept
// apart from the chunks, in two sets that batches take in turn.
struct Fed {
  std::vector<KernelGraph> completions;
  std::vector<uint32_t> owners;  // the batch state each came from; once carried, the carried state's
  std::vector<uint32_t> groups;  // its group among its owner's (a replayed opening's closed states)
  std::vector<uint8_t> matched;  // per completion: its fingerprint matched (from the feed)
  void clear();
};

class Completions {
 public:
  // `batched`: completions go to the backend in one call per batch; `pipelined`: states with
  // completions are carried to the next batch of their level. `stop`: null where a batch must run to
  // its end (ranks).
  Completions(const Engine& engine, std::deque<Worker>& workers, Worker& collector, bool batched, bool pipelined,
              const std::atomic<bool>* stop);
  ~Completions();
  bool batched() const { return batched_; }
  bool pipelined() const { return pipelined_; }

  // A new batch, laid out: its chunks' completions go to the other set of the two.
  void begin(const Batch& batch);
  // Chunk c's completions of the running batch.
  Fed& fed(size_t c) { return fed_[now_][c]; }
  // Hands chunk c's completions to the feed (from the chunk's thread, once it is expanded).
  void hand_in(size_t c);
  // The completions to verify, once the feed has fingerprinted them: the carried states' and, when the
  // batch drains, its own; matches confirmed (side by side on the team when there are several).
  void verify(const Batch& batch, Team& team);
  // Whether batch state i was verified by verify().
  bool verified(size_t i) const { return verified_[i] != 0; }
  // A batch that does not drain leaves its states with completions to the next: they go to `carried`,
  // and their completions' owners become their index there.
  void carry(const Batch& batch, std::vector<NodeId>& carried);
  // The time the engine waited for the feed's calls.
  double wait_s() const { return wait_s_; }
  // The backend calls that fingerprinted completions so far: the feed's (batched), or one per
  // completion fingerprinted (otherwise: the expander's, one candidate a call).
  uint64_t backend_calls(uint64_t fingerprints) const { return batched_ ? feed_calls_ : fingerprints; }

 private:
  void fingerprint(const Batch& batch);
  void gather(std::vector<Fed>& fed, size_t chunks, uint32_t first_owner);
  void confirm_field_tests_in_bulk();
  void confirm_run(size_t j);
  void order_runs_by_cost();

  const Engine& engine_;
  std::deque<Worker>& workers_;
  Worker& collector_;
  const bool batched_, pipelined_;
  const std::atomic<bool>* stop_;
  std::vector<Fed> fed_[2];  // the completions of the running batch, and of the one before
  int now_ = 0;
  size_t before_chunks_ = 0;  // the chunks of fed_[1 - now_] (the batch before's own)
  uint64_t before_mark_ = 0;  // the feed's add() calls before the running batch's
  double wait_s_ = 0;
  uint64_t feed_calls_ = 0;
  std::vector<uint8_t> verified_;  // per batch state: one of its completions passed confirmation
  std::vector<const KernelGraph*> graphs_;  // the batch's completions, fingerprinted together
  std::vector<uint32_t> owner_;             // the batch state each came from
  std::vector<uint32_t> group_;             // and its group there (Fed::groups)
  Fingerprints fp_;
  struct Run {
    size_t begin, end;  // one matched state's completions [begin, end)
    double us = 0;      // their estimated time (order_runs_by_cost)
  };
  std::vector<Run> runs_;
  std::vector<const KernelGraph*> matched_;      // the runs' matching completions, when confirmed in bulk
  std::vector<uint32_t> matched_at_;             // per completion: its index in matched_
  std::vector<uint8_t> confirm_passes_;          // their field tests' outcomes (Verifier::confirm_field_tests)
  // Last: it stops (and stops reading and writing fed_) first.
  std::unique_ptr<FingerprintFeed> feed_;
};

}  // namespace ugs::search_detail
