#include "search/bfs/state_codec.h"

#include <algorithm>
#include <cstring>

#include "ugs/util/hash.h"

namespace ugs::search_detail {
namespace {

// Byte-level packing: indices and small attributes one byte each (shifted so -1 is 0), sizes and
// extents as LEB128 varints, expression ids as four raw bytes. A state of a few hundred bytes in
// memory becomes about a hundred here.
class Writer {
 public:
  explicit Writer(uint8_t* p) : p_(p) {}
  void u8(int v) { *p_++ = static_cast<uint8_t>(v); }
  void index(int v) { u8(v + 1); }  // -1 (none, φ) to 254
  void var(uint64_t v) {
    while (v >= 0x80) {
      *p_++ = static_cast<uint8_t>(v | 0x80);
      v >>= 7;
    }
    *p_++ = static_cast<uint8_t>(v);
  }
  void u32(uint32_t v) {
    std::memcpy(p_, &v, 4);
    p_ += 4;
  }
  uint8_t* end() const { return p_; }

 private:
  uint8_t* p_;
};

class Reader {
 public:
  explicit Reader(const uint8_t* p) : p_(p) {}
  int u8() { return *p_++; }
  int index() { return u8() - 1; }
  uint64_t var() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = *p_++;
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  uint32_t u32() {
    uint32_t v;
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  const uint8_t* end() const { return p_; }

 private:
  const uint8_t* p_;
};

void pack(Writer& w, const Shape& s, bool post = false) {
  w.u8(s.rank | (post ? 0x80 : 0));
  for (int i = 0; i < s.rank; ++i) w.var(static_cast<uint64_t>(s.d[i]));
}
void unpack(Reader& r, Shape& s, bool* post = nullptr) {
  const int b = r.u8();
  s = Shape{};
  s.rank = static_cast<int8_t>(b & 0x7f);
  if (post) *post = b & 0x80;
  for (int i = 0; i < s.rank; ++i) s.d[i] = static_cast<int32_t>(r.var());
}

void pack(Writer& w, const Tile& t) { pack(w, t.shape, t.post); }
void unpack(Reader& r, Tile& t) { unpack(r, t.shape, &t.post); }

void pack(Writer& w, const Op& op) {
  w.u8(static_cast<int>(op.kind));
  w.index(op.dim);
  w.var(static_cast<uint64_t>(op.to));
  w.index(op.in[0]);
  w.index(op.in[1]);
}
void unpack(Reader& r, Op& op) {
  op.kind = static_cast<OpKind>(r.u8());
  op.dim = static_cast<int8_t>(r.index());
  op.to = static_cast<int32_t>(r.var());
  op.in[0] = r.index();
  op.in[1] = r.index();
}

void pack(Writer& w, const KernelOp& k) {
  pack(w, k.op);
  w.index(k.block);
  w.u8(k.first_out);
  w.u8(k.num_out);
}
void unpack(Reader& r, KernelOp& k) {
  unpack(r, k.op);
  k.block = static_cast<int8_t>(r.index());
  k.first_out = static_cast<int16_t>(r.u8());
  k.num_out = static_cast<int8_t>(r.u8());
}

void pack(Writer& w, const Axes& a) {
  for (int8_t x : a) w.index(x);
}
void unpack(Reader& r, Axes& a) {
  for (int8_t& x : a) x = static_cast<int8_t>(r.index());
}

void pack(Writer& w, const Launch& l) {
  for (int32_t x : l.grid) w.var(static_cast<uint64_t>(x));
  w.var(static_cast<uint64_t>(l.loop));
}
void unpack(Reader& r, Launch& l) {
  for (int32_t& x : l.grid) x = static_cast<int32_t>(r.var());
  l.loop = static_cast<int32_t>(r.var());
}
void pack(Writer& w, uint64_t v) { w.var(v); }  // launch masks
void unpack(Reader& r, uint64_t& v) { v = r.var(); }

void pack(Writer& w, const BlockInput& in) {
  w.u8(in.tensor);
  pack(w, in.imap);
  w.index(in.fmap);
}
void unpack(Reader& r, BlockInput& in) {
  in.tensor = r.u8();
  unpack(r, in.imap);
  in.fmap = static_cast<int8_t>(r.index());
}

void pack(Writer& w, const BlockOutput& o) {
  w.u8(o.tile);
  pack(w, o.omap);
}
void unpack(Reader& r, BlockOutput& o) {
  o.tile = r.u8();
  unpack(r, o.omap);
}

void pack(Writer& w, int32_t v) { w.u8(v); }  // tensor indices (outputs)
void unpack(Reader& r, int32_t& v) { v = r.u8(); }
void pack(Writer& w, uint32_t v) { w.u32(v); }  // expression ids
void unpack(Reader& r, uint32_t& v) { v = r.u32(); }

template <class T, int N>
void pack(Writer& w, const FixedVec<T, N>& v) {
  static_assert(N < 256);
  w.u8(v.size());
  for (const T& x : v) pack(w, x);
}
template <class T, int N>
void unpack(Reader& r, FixedVec<T, N>& v) {
  v.resize(r.u8());
  for (T& x : v) unpack(r, x);
}

void pack(Writer& w, const BlockGraph& b) {
  pack(w, Launch{b.grid, b.loop});
  pack(w, b.inputs);
  pack(w, b.ops);
  pack(w, b.outputs);
  pack(w, b.tiles);
}
void unpack(Reader& r, BlockGraph& b) {
  Launch launch;
  unpack(r, launch);
  b.grid = launch.grid;
  b.loop = launch.loop;
  unpack(r, b.inputs);
  unpack(r, b.ops);
  unpack(r, b.outputs);
  unpack(r, b.tiles);
}

// No state encodes to more than this: every vector full, every varint at its longest.
constexpr size_t kMaxEncoded = 3 * sizeof(State);
constexpr size_t kLengthBytes = 2;  // the structure's length
static_assert(kMaxEncoded < 65536, "a structure's length must fit in two bytes");

}  // namespace

// Layout: the structure's length (two bytes), the structure (graphs and the open block graph), then
// the expression ids. The structure alone identifies a state: expressions follow from it, and their
// ids differ between pools (between ranks, between a run and its resume).
void encode(const State& s, Bytes& out) {
  uint8_t buf[kMaxEncoded];
  Writer w(buf + kLengthBytes);
  pack(w, s.kernel.tensors);
  w.u8(s.kernel.num_inputs);
  pack(w, s.kernel.ops);
  w.u8(s.kernel.blocks.size());
  for (const BlockGraph& b : s.kernel.blocks) pack(w, b);
  pack(w, s.kernel.outputs);
  w.u8(s.open);
  if (s.open) {
    pack(w, s.block);
    pack(w, s.family.launches);
    pack(w, s.family.alive);
  }
  const auto structure = static_cast<uint16_t>(w.end() - buf - kLengthBytes);
  std::memcpy(buf, &structure, kLengthBytes);
  pack(w, s.kexpr);
  if (s.open) pack(w, s.bexpr);
  out.insert(out.end(), buf, w.end());
}

const uint8_t* decode(const uint8_t* p, State& s) {
  Reader r(p + kLengthBytes);
  unpack(r, s.kernel.tensors);
  s.kernel.num_inputs = r.u8();
  unpack(r, s.kernel.ops);
  s.kernel.blocks.resize(r.u8());
  for (BlockGraph& b : s.kernel.blocks) unpack(r, b);
  unpack(r, s.kernel.outputs);
  s.open = r.u8();
  s.block.clear();
  s.bexpr.clear();
  s.family.clear();
  if (s.open) {
    unpack(r, s.block);
    unpack(r, s.family.launches);
    unpack(r, s.family.alive);
  }
  unpack(r, s.kexpr);
  if (s.open) unpack(r, s.bexpr);
  return r.end();
}

uint64_t structural_key(const uint8_t* p) {
  uint16_t n;
  std::memcpy(&n, p, kLengthBytes);
  return hash_bytes(p + kLengthBytes, n);
}

void Frontier::take(Frontier& other) {
  const uint64_t base = data_.size();
  data_.insert(data_.end(), other.data_.begin(), other.data_.end());
  for (uint64_t st : other.starts_) starts_.push_back(base + st);
  other.clear();
}

void Frontier::assign(Bytes data, size_t count) {
  data_ = std::move(data);
  starts_.clear();
  State s;
  const uint8_t* p = data_.data();
  for (size_t i = 0; i < count; ++i) {
    starts_.push_back(static_cast<uint64_t>(p - data_.data()));
    p = decode(p, s);
  }
}

}  // namespace ugs::search_detail
