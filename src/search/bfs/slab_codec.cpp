#include "search/bfs/slab_codec.h"

#include <cstring>
#include <type_traits>

namespace ugs::search_detail {
namespace {

static_assert(std::is_trivially_copyable_v<Node> && std::is_trivially_copyable_v<Step>);

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
  out.reserve(sizeof counts + counts.nodes * sizeof(Node) + counts.whole * sizeof(Step) + counts.base_bytes +
              counts.bases * sizeof(uint64_t));
  append(out, &counts, 1);
  // The queries are ids in this run's pool, meaningless to another.
  for (Node n : slab.nodes) {
    n.query = kNoQuery;
    append(out, &n, 1);
  }
  for (Step st : slab.whole_steps) {
    st.query = kNoQuery;
    append(out, &st, 1);
  }
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
  if (counts.nodes > NodeSlab::kNodes || !take(counts.nodes, sizeof(Node)) || !take(counts.whole, sizeof(Step)) ||
      !take(counts.base_bytes, 1) || !take(counts.bases, sizeof(uint64_t)) || left != 0)
    return false;
  const uint8_t* at = bytes.data() + sizeof counts;
  slab.nodes.resize(counts.nodes);
  std::memcpy(slab.nodes.data(), at, counts.nodes * sizeof(Node));
  at += counts.nodes * sizeof(Node);
  slab.whole_steps.resize(counts.whole);
  if (counts.whole) std::memcpy(static_cast<void*>(slab.whole_steps.data()), at, counts.whole * sizeof(Step));
  at += counts.whole * sizeof(Step);
  if (!slab.bases.assign(Bytes(at, at + counts.base_bytes), counts.bases)) return false;
  at += counts.base_bytes;
  slab.base_keys.resize(counts.bases);
  if (counts.bases) std::memcpy(slab.base_keys.data(), at, counts.bases * sizeof(uint64_t));
  slab.seal();
  return true;
}

}  // namespace ugs::search_detail
