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

#include "ugs/ir/graph.h"

namespace ugs::search_detail {

// What the block ops and the block-level closing checks of an opened block graph depend on.
struct OpeningSignature {
  static constexpr int kWords = 6 + kMaxBlockInputs * (3 + kMaxRank);
  std::array<int64_t, kWords> words{};
  friend bool operator==(const OpeningSignature&, const OpeningSignature&) = default;
};

class ClosingMemo {
 public:
  std::optional<bool> find(const OpeningSignature& key) const;
  void add(const OpeningSignature& key, bool closes);

  // Counted by the searches ahead: signatures searched, and the states they visited; of those, the
  // signatures that can close and their states (a search that closes stops at its first closing);
  // and the openings answered from the memo, without a search.
  std::atomic<uint64_t> signatures{0}, states{0}, closing{0}, closing_states{0}, answered{0};

 private:
  struct Hash {
    size_t operator()(const OpeningSignature& key) const;
  };
  static constexpr int kShards = 64;
  struct Shard {
    mutable std::mutex mutex;
    std::unordered_map<OpeningSignature, bool, Hash> answers;
  };
  Shard& shard_of(const OpeningSignature& key) const { return shards_[Hash{}(key) % kShards]; }
  mutable std::array<Shard, kShards> shards_;
};

}  // namespace ugs::search_detail
