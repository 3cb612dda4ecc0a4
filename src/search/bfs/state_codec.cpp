#include "search/bfs/state_codec.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

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

// Bytes that are not an encoded state: a read past a bounded Reader's end, a count no vector holds, a
// rank or an op kind out of range. decode_bounded answers it with null; from decode (bytes this
// process or its ranks wrote) it is a bug, and surfaces as one.
struct Damaged : std::logic_error {
  Damaged() : std::logic_error("state_codec: bytes that are not an encoded state") {}
};

// Reads what Writer wrote. Bounded (with an end, for bytes read from a file), no read passes the end.
// Counts, ranks and op kinds are checked either way: they index fixed arrays.
class Reader {
 public:
  explicit Reader(const uint8_t* p, const uint8_t* limit = nullptr) : p_(p), limit_(limit) {}
  int u8() {
    need(1);
    return *p_++;
  }
  int index() { return u8() - 1; }
  uint64_t var() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      if (shift > 63) throw Damaged{};
      const uint8_t b = static_cast<uint8_t>(u8());
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  uint32_t u32() {
    need(4);
    uint32_t v;
    std::memcpy(&v, p_, 4);
    p_ += 4;
    return v;
  }
  // A vector's count, at most `capacity`.
  int count(int capacity) {
    const int n = u8();
    if (n > capacity) throw Damaged{};
    return n;
  }
  // A value the graphs' code indexes tables with (an op's kind), below `bound`.
  int below(int bound) {
    const int v = u8();
    if (v >= bound) throw Damaged{};
    return v;
  }
  const uint8_t* end() const { return p_; }

 private:
  void need(size_t n) const {
    if (limit_ && static_cast<size_t>(limit_ - p_) < n) throw Damaged{};
  }
  const uint8_t* p_;
  const uint8_t* limit_;
};

void pack(Writer& w, const Shape& s, bool post = false) {
  w.u8(s.rank | (post ? 0x80 : 0));
  for (int i = 0; i < s.rank; ++i) w.var(static_cast<uint64_t>(s.d[i]));
}
void unpack(Reader& r, Shape& s, bool* post = nullptr) {
  const int b = r.u8();
  s = Shape{};
  if ((b & 0x7f) > kMaxRank) throw Damaged{};
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
  op.kind = static_cast<OpKind>(r.below(kNumOpKinds));
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
  v.resize(r.count(N));
  for (T& x : v) unpack(r, x);
}

void pack(Writer& w, const BlockGraph& b) {
  pack(w, Launch{b.grid, b.loop});
  pack(w, b.inputs);
  pack(w, b.ops);
  pack(w, b.outputs);
  pack(w, b.tiles);
}
// A launch read into what keeps its numbers as `grid` and `loop` (a block graph, a step).
template <class T>
void unpack_launch(Reader& r, T& into) {
  Launch launch;
  unpack(r, launch);
  into.grid = launch.grid;
  into.loop = launch.loop;
}

void unpack(Reader& r, BlockGraph& b) {
  unpack_launch(r, b);
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

namespace {

// Reads a state after its length; `structure_end` gets where its structure ends.
const uint8_t* decode_from(Reader& r, State& s, const uint8_t** structure_end) {
  unpack(r, s.kernel.tensors);
  s.kernel.num_inputs = r.u8();
  unpack(r, s.kernel.ops);
  s.kernel.blocks.resize(r.count(kMaxBlockGraphs));
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
  *structure_end = r.end();
  unpack(r, s.kexpr);
  if (s.open) unpack(r, s.bexpr);
  return r.end();
}

}  // namespace

const uint8_t* decode(const uint8_t* p, State& s) {
  Reader r(p + kLengthBytes);
  const uint8_t* structure_end;
  return decode_from(r, s, &structure_end);
}

const uint8_t* decode_bounded(const uint8_t* p, const uint8_t* end, State& s) {
  if (end - p < static_cast<std::ptrdiff_t>(kLengthBytes)) return nullptr;
  uint16_t structure;
  std::memcpy(&structure, p, kLengthBytes);
  try {
    Reader r(p + kLengthBytes, end);
    const uint8_t* structure_end;
    const uint8_t* past = decode_from(r, s, &structure_end);
    // structural_key hashes as many bytes as the length says: they must be the structure's.
    return structure_end - (p + kLengthBytes) == structure ? past : nullptr;
  } catch (const Damaged&) {
    return nullptr;
  }
}

uint8_t* encode(const Step& st, uint8_t* out) {
  Writer w(out);
  w.u8(static_cast<int>(st.kind));
  w.index(st.launch);
  w.var(st.launch_base);
  pack(w, st.op);
  pack(w, Launch{st.grid, st.loop});
  pack(w, st.inputs);
  pack(w, st.omap);
  w.var(st.launches);
  return w.end();
}

const uint8_t* decode_bounded(const uint8_t* p, const uint8_t* end, Step& st) {
  try {
    Reader r(p, end);
    st = Step();
    st.kind = static_cast<Step::Kind>(r.below(static_cast<int>(Step::Kind::CloseBlock) + 1));
    st.launch = static_cast<int8_t>(r.index());
    st.launch_base = static_cast<uint16_t>(r.var());
    unpack(r, st.op);
    unpack_launch(r, st);
    unpack(r, st.inputs);
    unpack(r, st.omap);
    st.launches = r.var();
    return r.end();
  } catch (const Damaged&) {
    return nullptr;
  }
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

bool Frontier::assign(Bytes data, size_t count) {
  data_ = std::move(data);
  starts_.clear();
  State s;
  const uint8_t* p = data_.data();
  const uint8_t* end = p + data_.size();
  for (size_t i = 0; i < count && p; ++i) {
    starts_.push_back(static_cast<uint64_t>(p - data_.data()));
    p = decode_bounded(p, end, s);
  }
  if (p == end) return true;
  clear();
  return false;
}

}  // namespace ugs::search_detail
