#pragma once
// The compact encoding of search states that the breadth-first frontier and its checkpoints hold:
// every fixed-capacity vector of a State is written as its count and its used items only, so a
// state takes a few hundred bytes instead of sizeof(State) (several KiB). Encoding and decoding
// copy bytes; nothing is recomputed.
#include <cstdint>
#include <vector>

#include "ugs/search/state.h"
#include "ugs/util/huge_pages.h"

namespace ugs::search_detail {

using Bytes = std::vector<uint8_t, HugePageAllocator<uint8_t>>;

// Appends s to out.
void encode(const State& s, Bytes& out);
// Reads one state starting at p into s; returns the end of its bytes.
const uint8_t* decode(const uint8_t* p, State& s);
// The identity of an encoded state under structural dedup, and (with ranks) what decides its owner: a
// hash of its graphs, not of its expression ids, so every pool gives a state the same key.
uint64_t structural_key(const uint8_t* encoded);

// States stored back to back in their encoding; the layers of the search and their chunks.
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
  // Moves the last n states into out (replacing its content), in order.
  void pop_back(size_t n, Frontier& out);
  // Forgets the last n states, keeping the buffers' capacity.
  void drop_back(size_t n) {
    data_.resize(starts_[starts_.size() - n]);
    starts_.resize(starts_.size() - n);
  }
  const uint8_t* state_bytes(size_t i) const { return data_.data() + starts_[i]; }
  size_t capacity_bytes() const { return data_.capacity() + starts_.capacity() * sizeof(uint64_t); }
  // A slab: the buffers sized once for kSlabBytes of states, so that reusing it never reallocates.
  void make_slab() {
    data_.reserve(kSlabBytes);
    starts_.reserve(kSlabBytes / 128);
  }
  // Whether a slab has room for one more state of `bytes` (without growing its buffers).
  bool fits(size_t bytes) const {
    return data_.size() + bytes <= data_.capacity() && starts_.size() < starts_.capacity();
  }
  size_t bytes_of(size_t i) const {
    return (i + 1 < starts_.size() ? starts_[i + 1] : data_.size()) - starts_[i];
  }
  static constexpr size_t kSlabBytes = size_t{256} << 10;
  void clear() {
    data_.clear();
    starts_.clear();
  }
  void shrink() {
    data_.shrink_to_fit();
    starts_.shrink_to_fit();
  }

  // Raw access for checkpoints.
  const Bytes& data() const { return data_; }
  // Rebuilds from raw bytes of `count` states (the starts are found by decoding).
  void assign(Bytes data, size_t count);

 private:
  Bytes data_;
  std::vector<uint64_t, HugePageAllocator<uint64_t>> starts_;
};

// The states of one depth, as segments (each one thread's children from one batch): children join
// their layer by moving a buffer, never by copying their bytes.
class Layer {
 public:
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t bytes() const { return bytes_; }
  const std::vector<Frontier>& segments() const { return segments_; }

  void add(Frontier&& segment);
  // The encodings of up to n states from the back, in place: valid until drop_back or add.
  void peek_back(size_t n, std::vector<const uint8_t*>& out) const;
  // Forgets the last n states; segments left empty go to `emptied` for their buffers to be reused.
  void drop_back(size_t n, std::vector<Frontier>& emptied);

 private:
  std::vector<Frontier> segments_;
  size_t size_ = 0, bytes_ = 0;
};

}  // namespace ugs::search_detail
