#include "search/bfs/slab_codec.h"

#include <cstring>
#include <type_traits>

namespace ugs::search_detail {
namespace {

// Nodes are written as they are in memory: three numbers and no padding.
static_assert(std::is_trivially_copyable_v<Node> && sizeof(Node) == 2 * sizeof(uint32_t) + sizeof(uint64_t));

struct Counts {
  uint64_t nodes = 0, whole = 0, bases = 0, base_bytes = 0;
};

template <class T>
void append(std::vector<uint8_t>& out, const T* items, size_t n) {
  const size_t at = out.size();
  out.resize(at + n * sizeof(T));
  if (n) std::memcpy(out.data() + at, static_cast<const void*>(items), n * sizeof(T));
}

}  // namespace

void encode_slab(const NodeSlab& slab, std::vector<uint8_t>& out) {
  const Counts counts{slab.nodes.size(), slab.whole_steps.size(), slab.bases.size(), slab.bases.data().size()};
  out.clear();
  out.reserve(sizeof counts + counts.nodes * sizeof(Node) + counts.whole * kMaxEncodedStep + counts.base_bytes +
              counts.bases * sizeof(uint64_t));
  append(out, &counts, 1);
  // The queries are ids in this run's pool, meaningless to another.
  for (Node n : slab.nodes) {
    n.query = kNoQuery;
    append(out, &n, 1);
  }
  uint8_t step[kMaxEncodedStep];
  for (const Step& st : slab.whole_steps) append(out, step, static_cast<size_t>(encode(st, step) - step));
  append(out, slab.bases.data().data(), slab.bases.data().size());
  append(out, slab.base_keys.data(), slab.base_keys.size());
}

bool decode_slab(std::span<const uint8_t> bytes, NodeSlab& slab) {
  slab.clear();
  Counts counts;
  if (bytes.size() < sizeof counts) return false;
  std::memcpy(&counts, bytes.data(), sizeof counts);
  size_t left = bytes.size() - sizeof counts;
  // Each count is checked against the bytes left before it is multiplied, so no product wraps around.
  const auto take = [&](uint64_t count, size_t item) {
    if (count > left / item) return false;
    left -= count * item;
    return true;
  };
  // The steps' bytes are what the other parts leave, each step at least kMinEncodedStep of them.
  if (counts.nodes > NodeSlab::kNodes || !take(counts.nodes, sizeof(Node)) || !take(counts.base_bytes, 1) ||
      !take(counts.bases, sizeof(uint64_t)) || counts.whole > left / kMinEncodedStep)
    return false;
  const uint8_t* at = bytes.data() + sizeof counts;
  slab.nodes.resize(counts.nodes);
  if (counts.nodes) std::memcpy(slab.nodes.data(), at, counts.nodes * sizeof(Node));
  at += counts.nodes * sizeof(Node);
  const uint8_t* steps_end = at + left;
  slab.whole_steps.resize(counts.whole);
  for (Step& st : slab.whole_steps) {
    if (!(at = decode_bounded(at, steps_end, st))) return false;
    slab.whole_hashes.push_back(step_hash(st));
  }
  if (at != steps_end) return false;
  if (!slab.bases.assign(Bytes(at, at + counts.base_bytes), counts.bases)) return false;
  at += counts.base_bytes;
  slab.base_keys.resize(counts.bases);
  if (counts.bases) std::memcpy(slab.base_keys.data(), at, counts.bases * sizeof(uint64_t));
  slab.seal();
  return true;
}

}  // namespace ugs::search_detail
