#pragma once
// Messages between the ranks of a distributed search: values appended to a byte string and read back
// in the same order. Every rank runs the same binary, so a trivially copyable value travels as its
// bytes; what differs between processes (expression ids) never does (see expr_wire.h, state_wire.h).
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace ugs::search_detail {

class WireWriter {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    buf_.append(reinterpret_cast<const char*>(&v), sizeof(T));
  }
  template <class T>
  void put_all(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put(static_cast<uint64_t>(v.size()));
    buf_.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
  }
  void put_bytes(std::string_view s) {
    put(static_cast<uint64_t>(s.size()));
    buf_.append(s);
  }
  std::string& buf() { return buf_; }
  std::string take() { return std::move(buf_); }

 private:
  std::string buf_;
};

// Reads what a WireWriter wrote; a short or damaged message throws (a bug, never user input).
class WireReader {
 public:
  explicit WireReader(std::string_view s) : pos_(s.data()), end_(s.data() + s.size()) {}
  template <class T>
  T get() {
    static_assert(std::is_trivially_copyable_v<T>);
    T v;
    std::memcpy(&v, take(sizeof(T)), sizeof(T));
    return v;
  }
  template <class T>
  std::vector<T> get_all() {
    const auto n = get<uint64_t>();
    std::vector<T> v(n);
    if (n) std::memcpy(static_cast<void*>(v.data()), take(n * sizeof(T)), n * sizeof(T));
    return v;
  }
  std::string_view get_bytes() {
    const auto n = get<uint64_t>();
    return {take(n), n};
  }
  // The next n raw bytes (advances past them).
  const char* take(size_t n) {
    if (static_cast<size_t>(end_ - pos_) < n)
      throw std::runtime_error("ugsearch: a message between ranks is truncated");
    const char* at = pos_;
    pos_ += n;
    return at;
  }
  bool done() const { return pos_ == end_; }

 private:
  const char* pos_;
  const char* end_;
};

}  // namespace ugs::search_detail
