#pragma once
// The run's draws from its seed (docs/design.md §3): ω, and the fixed inputs as counter-based draws. Element e
// of input i depends on (seed, i, e) alone, so any split of the work, on the host or on a device, draws
// the same tensors. Host-and-device code, so that the CUDA backend draws its inputs where they stay.
#include <cstdint>

#include "ugs/eval/field_kind.h"
#include "ugs/util/hash.h"

namespace ugs {

UGS_HD constexpr uint64_t input_stream(uint64_t seed, int input) {
  return splitmix64(splitmix64(seed) ^ (0xD1B54A32D192ED03ull * static_cast<uint64_t>(input + 1)));
}

// The 64 random bits of element e of the input whose stream is `stream` (an arithmetic's sample()
// turns them into a value).
UGS_HD constexpr uint64_t input_bits(uint64_t stream, uint64_t e) { return splitmix64(stream + e); }

// ω of a seed, in the field of arithmetic A or of kind `field`.
template <class A>
constexpr uint32_t omega_of_seed(uint64_t seed) {
  return A::draw_omega(splitmix64(seed ^ 0x6f6d656761ull));
}
inline uint32_t omega_of_seed(FieldKind field, uint64_t seed) {
  return with_field(field, [&](auto ar) { return omega_of_seed<decltype(ar)>(seed); });
}

}  // namespace ugs
