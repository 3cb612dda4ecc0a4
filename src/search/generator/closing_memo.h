#pragma once
// Whether the block graphs opened from one signature can reach a closing that saves the outputs'
// expressions, shared by the threads of a search (closing_lookahead.cpp). A block graph that no
// kernel op can follow is a subtree whose block ops see only its tiles (shapes, stages, expressions),
// its grid and loop range, and how many savers it may have; the kernel graph below it matters only
// to its closings' kernel-level checks. In Mirage's attention spaces that block graph holds nearly
// every state, and its openings repeat the same signature from many kernel graphs (a first block
// graph built in other ways, other loaders' maps giving the same tiles), so each signature's subtree
// is searched once and an opening whose signature cannot close is cut. Internal to src/search.
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <unordered_map>

#include <vector>

#include "ugs/expr/expr.h"
#include "ugs/ir/graph.h"
#include "ugs/search/generator/state.h"

namespace ugs::search_detail {

// What the block ops and the block-level closing checks of an opened block graph depend on.
struct OpeningSignature {
  static constexpr int kWords = 6 + kMaxBlockInputs * (3 + kMaxRank);
  std::array<int64_t, kWords> words{};
  friend bool operator==(const OpeningSignature&, const OpeningSignature&) = default;
};

// The signature of the concrete opening `opened`, whose block graph may have `savers` savers.
OpeningSignature signature_of(const State& opened, int64_t savers);

// The closings a signature's block ops reach (closing_replay.cpp), as the walk of its search that
// leads to them: its ops in depth-first order, each with the ops its block graph holds once it is
// applied (the walk takes back ops until it holds one less), marked where the block-level checks of
// a closing pass. Ops leading to no such mark are left out.
struct ReplayStep {
  Op op;
  expr::ExprId query = 0;
  uint8_t ops = 0;
  bool closes = false;
};
using ReplayTrace = std::vector<ReplayStep>;

class ClosingMemo {
 public:
  std::optional<bool> find(const OpeningSignature& key) const;
  void add(const OpeningSignature& key, bool closes);
  // A signature's trace, when one was made (closing_replay 1).
  std::shared_ptr<const ReplayTrace> trace(const OpeningSignature& key) const;
  void add_trace(const OpeningSignature& key, std::shared_ptr<const ReplayTrace> trace);

  // Counted by the searches ahead: signatures searched, and the states they visited; of those, the
  // signatures that can close and their states (a search that closes stops at its first closing, but
  // under the closing replay, which searches each signature whole);
  // and the openings answered from the memo, without a search.
  std::atomic<uint64_t> signatures{0}, states{0}, closing{0}, closing_states{0}, answered{0};
  // Counted by the replays: openings replayed, the closings replayed on them, and the traces made
  // outside the lookahead (a resumed run's openings; the states of their searches count in `states`).
  std::atomic<uint64_t> replayed{0}, replayed_closings{0}, late_traces{0};

  struct Hash {
    size_t operator()(const OpeningSignature& key) const;
  };

 private:
  static constexpr int kShards = 64;
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<OpeningSignature, bool, Hash> answers;
    std::unordered_map<OpeningSignature, std::shared_ptr<const ReplayTrace>, Hash> traces;
  };
  Shard& shard_of(const OpeningSignature& key) const { return shards_[Hash{}(key) % kShards]; }
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace ugs::search_detail
