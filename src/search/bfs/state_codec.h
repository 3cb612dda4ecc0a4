#pragma once
// The compact encoding of a whole search state, for the bfs tree's base states, checkpoints and
// messages between ranks (the tree itself holds a state as its parent and a step, state_tree.h):
// every fixed-capacity vector of a State is written as its count and its used items only, so a
// state takes about a hundred bytes instead of sizeof(State) (several KiB). Encoding and decoding
// copy bytes; nothing is recomputed.
#include <cstdint>
#include <utility>
#include <vector>

#include "ugs/search/generator/state.h"
#include "ugs/util/huge_pages.h"

namespace ugs::search_detail {

using Bytes = HugeBytes;

// Appends s to out.
void encode(const State& s, Bytes& out);
// Reads one state starting at p into s; returns the end of its bytes.
const uint8_t* decode(const uint8_t* p, State& s);
// The same for bytes from a file, which may be damaged: reads nothing at or past `end` and returns
// null where the bytes are not one encoded state's. (Its graphs may still be ones no generator makes:
// state_check.h says whether they are.)
const uint8_t* decode_bounded(const uint8_t* p, const uint8_t* end, State& s);
// A hash of an encoded state's graphs, not of its expression ids, so every pool gives a state the
// same one: the key of the bfs tree's root (state_tree.h derives every other key from it).
uint64_t structural_key(const uint8_t* encoded);

// One step as a slab of the bfs tree keeps it (slab_codec.h): every field by value and none of the
// struct's padding or unused slots, so equal steps give equal bytes whatever their memory held. The
// query is left out: it is an id in the pool of the run that wrote it. Writes at most kMaxEncodedStep
// bytes at out and returns their end.
inline constexpr size_t kMaxEncodedStep = 128;
inline constexpr size_t kMinEncodedStep = 17;  // every count zero, every number one byte
uint8_t* encode(const Step& st, uint8_t* out);
// Reads one step from p, nothing at or past `end`; null where the bytes are not one encoded step. The
// step's query is kNoQuery. (Whether a search makes such a step is the resume's to check.)
const uint8_t* decode_bounded(const uint8_t* p, const uint8_t* end, Step& st);

// States stored back to back in their encoding: the bfs tree's base states, a checkpoint's levels.
class Frontier {
 public:
  size_t size() const { return starts_.size(); }
  bool empty() const { return starts_.empty(); }
  size_t bytes() const { return data_.size() + starts_.size() * sizeof(uint64_t); }

  void push(const State& s) {
    starts_.push_back(data_.size());
    encode(s, data_);
  }
  void decode_at(size_t i, State& s) const { decode(data_.data() + starts_[i], s); }
  // Appends an encoded state of n bytes, copying them.
  void push_bytes(const uint8_t* p, size_t n) {
    starts_.push_back(data_.size());
    data_.insert(data_.end(), p, p + n);
  }
  // Appends other's states (in order) and empties it.
  void take(Frontier& other);
  const uint8_t* state_bytes(size_t i) const { return data_.data() + starts_[i]; }
  size_t bytes_of(size_t i) const {
    return (i + 1 < starts_.size() ? starts_[i + 1] : data_.size()) - starts_[i];
  }
  void clear() {
    data_.clear();
    starts_.clear();
  }

  // Raw access for checkpoints.
  const Bytes& data() const { return data_; }
  // Gives up the encoded states (for a checkpoint), leaving the frontier empty.
  Bytes release() {
    starts_.clear();
    return std::exchange(data_, Bytes{});
  }
  // Rebuilds from the raw bytes of `count` states read from a file (the starts are found by
  // decoding); false, leaving it empty, where they are not exactly `count` encoded states.
  [[nodiscard]] bool assign(Bytes data, size_t count);

 private:
  Bytes data_;
  std::vector<uint64_t, HugePageAllocator<uint64_t>> starts_;
};

}  // namespace ugs::search_detail
