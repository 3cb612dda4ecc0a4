#include "search/bfs/state_tree.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace ugs::search_detail {
namespace {

using step_tag::kBlockOp;
using step_tag::kClose;
using step_tag::kKernelOp;
using step_tag::kWhole;
using step_tag::signed_byte;

uint64_t byte_of(int v) { return static_cast<uint8_t>(static_cast<int8_t>(v)); }

// An op step's eight bytes: its kind tagged kernel or block, then attributes and operands.
uint64_t pack_op(const Step& st) {
  const uint64_t tag = static_cast<uint64_t>(st.op.kind) + (st.kind == Step::Kind::BlockOp ? kBlockOp : kKernelOp);
  return tag | byte_of(st.op.dim) << 8 | byte_of(st.op.in[0]) << 16 | byte_of(st.op.in[1]) << 24 |
         uint64_t{static_cast<uint32_t>(st.op.to)} << 32;
}

}  // namespace

bool stored_whole(const Step& st) {
  return st.kind == Step::Kind::OpenBlock || (st.kind == Step::Kind::BlockOp && st.launches != 0);
}

uint64_t pack_step(const Step& st, uint32_t whole) {
  if (stored_whole(st)) return kWhole | uint64_t{whole} << 32;
  if (st.kind == Step::Kind::CloseBlock)
    return kClose | byte_of(st.omap[0]) << 8 | byte_of(st.omap[1]) << 16 | byte_of(st.omap[2]) << 24 |
           byte_of(st.launch) << 32;
  return pack_op(st);
}

Step unpack_step(const Node& n, std::span<const Step> whole_steps) {
  const uint64_t tag = n.step & 0xFF;
  if (tag == kWhole) {
    Step st = whole_steps[n.step >> 32];
    st.query = n.query;  // a stored step serves every node with its content, whatever their queries
    return st;
  }
  Step st;
  if (tag == kClose) {
    st.kind = Step::Kind::CloseBlock;
    for (int a = 0; a < 3; ++a) st.omap[a] = signed_byte(n.step, a + 1);
    st.launch = signed_byte(n.step, 4);
    return st;
  }
  st.kind = tag >= kBlockOp ? Step::Kind::BlockOp : Step::Kind::KernelOp;
  st.op = op_of(n);
  st.query = n.query;
  return st;
}

bool whole_step_within(const Node& n, size_t whole_steps) {
  return (n.step & 0xFF) != kWhole || (n.step >> 32) < whole_steps;
}

uint64_t step_hash(const Step& st) {
  // In a symbolic opening one op can make two children (its expression differs between launches):
  // their launches tell them apart.
  if (st.kind == Step::Kind::BlockOp && st.launches != 0) return Hasher(kWhole).add(pack_op(st)).add(st.launches).value();
  if (st.kind != Step::Kind::OpenBlock) return splitmix64(pack_step(st, 0));
  Hasher h(kWhole);
  for (int32_t g : st.grid) h.add(static_cast<uint32_t>(g));
  h.add(static_cast<uint32_t>(st.loop));
  h.add(st.launches);
  h.add(st.launch_base);
  for (const BlockInput& in : st.inputs) {
    uint64_t v = static_cast<uint32_t>(in.tensor);
    for (int a = 0; a < 3; ++a) v = v << 8 | byte_of(in.imap[a]);
    h.add(v << 8 | byte_of(in.fmap));
  }
  return h.value();
}

uint64_t step_hash(const Node& n, std::span<const uint64_t> whole_hashes) {
  return (n.step & 0xFF) == kWhole ? whole_hashes[n.step >> 32] : splitmix64(n.step);
}

namespace {

bool same_whole(const Step& a, const Step& b) {
  return a.kind == b.kind && a.op == b.op && a.grid == b.grid && a.loop == b.loop && a.launches == b.launches &&
         a.launch_base == b.launch_base && a.inputs.size() == b.inputs.size() &&
         std::equal(a.inputs.begin(), a.inputs.end(), b.inputs.begin());
}

}  // namespace

uint32_t store_whole(std::vector<Step>& whole_steps, std::vector<uint64_t>& hashes, std::vector<uint32_t>& slots,
                     const Step& st, uint64_t hash) {
  if (2 * (whole_steps.size() + 1) > slots.size()) {  // half full at most: rebuilt at least twice the size
    size_t size = std::max<size_t>(64, 2 * slots.size());
    while (size < 2 * (whole_steps.size() + 1)) size *= 2;
    slots.assign(size, 0);
    const size_t mask = slots.size() - 1;
    for (uint32_t i = 0; i < whole_steps.size(); ++i) {
      size_t at = hashes[i] & mask;
      while (slots[at]) at = (at + 1) & mask;
      slots[at] = i + 1;
    }
  }
  const size_t mask = slots.size() - 1;
  size_t at = hash & mask;
  for (; slots[at]; at = (at + 1) & mask)
    if (hashes[slots[at] - 1] == hash && same_whole(whole_steps[slots[at] - 1], st)) return slots[at] - 1;
  whole_steps.push_back(st);
  hashes.push_back(hash);
  slots[at] = static_cast<uint32_t>(whole_steps.size());
  return static_cast<uint32_t>(whole_steps.size() - 1);
}

uint32_t NodeSlab::store_whole(const Step& st, uint64_t hash) {
  return search_detail::store_whole(whole_steps, whole_hashes, whole_slots, st, hash);
}

void NodeSlab::push_child(NodeId parent, const Step& st) {
  const uint32_t whole = stored_whole(st) ? store_whole(st, step_hash(st)) : 0;
  nodes.push_back({parent, st.query, pack_step(st, whole)});
}

void NodeSlab::push_copy(Node n, std::span<const Step> theirs, std::span<const uint64_t> their_hashes) {
  if ((n.step & 0xFF) == kWhole) {
    const uint32_t at = n.step >> 32;
    n.step = kWhole | uint64_t{store_whole(theirs[at], their_hashes[at])} << 32;
  }
  nodes.push_back(n);
}

void NodeSlab::push_base(const uint8_t* encoded, size_t bytes, uint64_t key) {
  nodes.push_back({kBase, kNoQuery, bases.size()});
  bases.push_bytes(encoded, bytes);
  base_keys.push_back(key);
}

void Level::add(NodeSlab&& s) {
  if (s.empty()) return;
  if (s.nodes.size() > NodeSlab::kNodes || slabs_.size() >= (size_t{1} << (32 - NodeSlab::kBits)) - 1)
    throw std::logic_error("Level::add: a slab or the level is too big for a NodeId");
  first_.push_back(nodes_);
  nodes_ += s.nodes.size();
  bytes_ += s.bytes();
  slabs_.push_back(std::move(s));
}

void Level::restore(std::vector<NodeSlab>&& slabs, size_t pending) {
  *this = Level{};
  for (NodeSlab& s : slabs) add(std::move(s));  // a checkpoint's slabs are never empty: their ids stay
  if (pending > nodes_) throw std::logic_error("Level::restore: more pending nodes than nodes");
  expanded_ = nodes_ - pending;
}

size_t Level::slab_at(size_t position) const {
  return static_cast<size_t>(std::upper_bound(first_.begin(), first_.end(), position) - first_.begin()) - 1;
}

// The positions [expanded_, expanded_ + n) are runs of consecutive ids, one per slab (a batch's ids
// are read serially, between its parallel phases).
void Level::peek_front(size_t n, std::vector<NodeId>& out) const {
  n = std::min(n, pending());
  out.reserve(out.size() + n);
  for (size_t at = expanded_, end = expanded_ + n; at < end;) {
    const size_t slab = slab_at(at);
    const size_t to = std::min(end, first_[slab] + slabs_[slab].nodes.size());
    const NodeId first_id = static_cast<NodeId>(slab << NodeSlab::kBits | (at - first_[slab]));
    for (size_t j = 0; j < to - at; ++j) out.push_back(first_id + static_cast<NodeId>(j));
    at = to;
  }
}

void Level::pending_ids(std::vector<NodeId>& out) const {
  out.clear();
  peek_front(pending(), out);
}

void Level::drop_expanded(std::vector<NodeSlab>& spare) {
  if (expanded_ == 0) return;
  size_t gone = 0;  // whole slabs expanded
  while (gone < slabs_.size() && first_[gone] + slabs_[gone].nodes.size() <= expanded_) ++gone;
  for (size_t i = 0; i < gone; ++i) {
    bytes_ -= slabs_[i].bytes();
    spare.push_back(std::move(slabs_[i]));
  }
  slabs_.erase(slabs_.begin(), slabs_.begin() + static_cast<std::ptrdiff_t>(gone));
  if (!slabs_.empty() && first_[gone] < expanded_) {  // the slab holding the first pending node
    NodeSlab& s = slabs_.front();
    s.nodes.erase(s.nodes.begin(), s.nodes.begin() + static_cast<std::ptrdiff_t>(expanded_ - first_[gone]));
    s.saved = s.saved_bytes = s.saved_hash = 0;
  }
  first_.clear();
  nodes_ = 0;
  for (const NodeSlab& s : slabs_) {
    first_.push_back(nodes_);
    nodes_ += s.nodes.size();
  }
  expanded_ = 0;
}

}  // namespace ugs::search_detail
