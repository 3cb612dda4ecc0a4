// Which field matmul matmul_tile runs, the AVX-512 kernel or the portable loop: whichever this CPU
// runs faster on the process's own matmuls, measured on its first ones.
#include <algorithm>
#include <array>
#include <atomic>
#include <string>

#include "field_matmul_avx512.h"

namespace ugs::eval {
namespace {

// A class's first kSamples calls alternate between the two and are timed; the faster in sum takes
// every later call of the class. Calls alternate one by one, so that both meet the same mix of
// tiles and the same state of the machine.
constexpr int64_t kSamples = 4096;

struct Choice {
  std::atomic<int64_t> calls{0};
  std::array<std::atomic<int64_t>, 2> nanos{};  // per kernel: [0] portable, [1] AVX-512
  std::atomic<int> chosen{-1};                  // the kernel, once chosen
};

struct Choices {
  std::array<Choice, 4> by_class;
  std::atomic<int> forced{-1};  // set_field_matmul_avx512's, over every class
};

Choices& choices() {
  static Choices all;
  return all;
}

// Tiles up to 32 columns wide, and tiles of a b whose rows lie a page or more apart (a tile of a
// large input read in place: its rows stream from memory), are told apart: on AMD's Zen 4 the
// portable loop streams narrow tiles about 1.7 times faster, while the kernel wins on tiles in cache.
int class_of(int64_t columns, int64_t row_stride_bytes) {
  return (row_stride_bytes >= 4096 ? 2 : 0) + (columns <= 32 ? 1 : 0);
}

}  // namespace

FieldMatmulPick pick_field_matmul(int64_t columns, int64_t row_stride_bytes) {
  if (!field_matmul_avx512_available()) return {false, -1};
  Choices& all = choices();
  if (const int forced = all.forced.load(std::memory_order_relaxed); forced >= 0) return {forced == 1, -1};
  const int cls = class_of(columns, row_stride_bytes);
  Choice& choice = all.by_class[cls];
  if (const int chosen = choice.chosen.load(std::memory_order_relaxed); chosen >= 0) return {chosen == 1, -1};
  const int64_t call = choice.calls.fetch_add(1, std::memory_order_relaxed);
  if (call >= kSamples) {  // the samples are in (a few may still be running): the faster in sum so far
    int expected = -1;
    const int faster =
        choice.nanos[1].load(std::memory_order_relaxed) < choice.nanos[0].load(std::memory_order_relaxed);
    choice.chosen.compare_exchange_strong(expected, faster, std::memory_order_relaxed);
    return {choice.chosen.load(std::memory_order_relaxed) == 1, -1};
  }
  return {(call & 1) == 1, cls};
}

void field_matmul_timed(const FieldMatmulPick& pick, int64_t nanos) {
  choices().by_class[pick.timed_class].nanos[pick.avx512 ? 1 : 0].fetch_add(nanos, std::memory_order_relaxed);
}

void set_field_matmul_avx512(bool on) {
  choices().forced.store(on && field_matmul_avx512_available() ? 1 : 0, std::memory_order_relaxed);
}

void choose_field_matmul_by_timing() { choices().forced.store(-1, std::memory_order_relaxed); }

std::string field_matmul_choices() {
  if (!field_matmul_avx512_available()) return "no AVX-512F here: the portable loop only";
  static constexpr const char* kNames[] = {"wide tiles in cache", "narrow tiles in cache", "wide strided tiles",
                                           "narrow strided tiles"};
  std::string text;
  for (int cls = 0; cls < 4; ++cls) {
    const Choice& choice = choices().by_class[cls];
    const int chosen = choice.chosen.load(std::memory_order_relaxed);
    auto ms = [&](int kernel) {
      return std::to_string(choice.nanos[kernel].load(std::memory_order_relaxed) / 1000000);
    };
    text += std::string(cls ? "; " : "") + kNames[cls] + ": " +
            (chosen < 0 ? "not yet chosen" : chosen ? "avx512" : "portable") + " (" + ms(1) + " ms against " +
            ms(0) + " ms, " + std::to_string(std::min(choice.calls.load(std::memory_order_relaxed), kSamples)) +
            " calls)";
  }
  return text;
}

}  // namespace ugs::eval
