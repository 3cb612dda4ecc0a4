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

// A signature as the memo keeps it: 128 bits of two independent hashes of its words. The memo holds
// every signature a run searches ahead (tens of millions in an `open` space), and the words
// themselves took 216 bytes each, plus a hash map's node: gigabytes. The memo's tables compare 126
// of the bits (two hold the answer and the slot's mark), so two signatures are taken for one with a
// probability of about 2^-126 a pair, far below any run's count of pairs.
struct SignatureDigest {
  uint64_t low = 0, high = 0;
  friend bool operator==(const SignatureDigest&, const SignatureDigest&) = default;
};
SignatureDigest digest_of(const OpeningSignature& key);

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

// The answers of one shard: open addressing over 16-byte entries, the answer in the digest's lowest
// bit (the table's load stays between 1/4 and 1/2, so an answer costs 32 to 64 bytes), in at most
// `max_slots` slots (a power of two).
class AnswerTable {
 public:
  explicit AnswerTable(size_t max_slots = size_t{1} << 40) : max_slots_(max_slots) {}
  std::optional<bool> find(const SignatureDigest& key) const;
  // Whether the answer is held now: a key already there keeps its first answer; a new one finds no
  // room once the table is at its most slots and half full.
  bool add(const SignatureDigest& key, bool closes);
  size_t size() const { return size_; }
  size_t bytes() const { return slots_.size() * sizeof(SignatureDigest); }

 private:
  // The stored form: the answer in bit 0 of `low`, bit 0 of `high` set (an empty slot is all zero).
  static SignatureDigest stored(const SignatureDigest& key, bool closes) {
    return {(key.low & ~uint64_t{1}) | uint64_t{closes}, key.high | 1};
  }
  size_t slot_of(const SignatureDigest& key) const;
  void grow();
  std::vector<SignatureDigest> slots_;
  size_t size_ = 0;
  size_t max_slots_;
};

// Answers past the memo's budget are not kept (`unremembered`): a signature met again is searched
// again, so a run that outgrows the budget slows down instead of running out of memory.
class ClosingMemo {
 public:
  static constexpr size_t kBudgetBytes = size_t{4} << 30;
  explicit ClosingMemo(size_t budget_bytes = kBudgetBytes);
  std::optional<bool> find(const SignatureDigest& key) const;
  void add(const SignatureDigest& key, bool closes);
  // A signature's trace, when one was made (closing_replay 1).
  std::shared_ptr<const ReplayTrace> trace(const SignatureDigest& key) const;
  void add_trace(const SignatureDigest& key, std::shared_ptr<const ReplayTrace> trace);
  // The answers held, and the bytes of their tables.
  size_t size() const;
  size_t bytes() const;

  // Counted by the searches ahead: signatures searched, and the states they visited; of those, the
  // signatures that can close and their states (a search that closes stops at its first closing, but
  // under the closing replay, which searches each signature whole);
  // and the openings answered from the memo, without a search.
  std::atomic<uint64_t> signatures{0}, states{0}, closing{0}, closing_states{0}, answered{0};
  // Counted by the replays: openings replayed, the closings replayed on them, and the traces made
  // outside the lookahead (a resumed run's openings; the states of their searches count in `states`).
  std::atomic<uint64_t> replayed{0}, replayed_closings{0}, late_traces{0};
  // Answers not kept for want of room.
  std::atomic<uint64_t> unremembered{0};

  struct Hash {
    size_t operator()(const SignatureDigest& key) const { return static_cast<size_t>(key.high); }
  };

 private:
  static constexpr int kShards = 64;
  struct Shard {
    mutable std::mutex mutex;
    AnswerTable answers;
    std::unordered_map<SignatureDigest, std::shared_ptr<const ReplayTrace>, Hash> traces;
  };
  // The shard by the high word's top 6 bits; the table's slot by the low word.
  static_assert(kShards == 64);
  Shard& shard_of(const SignatureDigest& key) const { return shards_[key.high >> 58]; }
  template <class Read>
  size_t sum_of(Read read) const {
    size_t sum = 0;
    for (const Shard& shard : shards_) {
      const std::lock_guard lock(shard.mutex);
      sum += read(shard.answers);
    }
    return sum;
  }
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace ugs::search_detail
