#pragma once
// The run's inputs drawn where the backend's work runs (draws.h): the device's draw kernel and its
// host emulation both call draw_input_element.
#include <cstdint>

#include "ugs/eval/draws.h"
#include "ugs/eval/fingerprint.h"

namespace ugs::cuda {

// Element e of the input whose stream is `stream`, into out[e]; returns its term of the input's element
// sum (fingerprint.h's element_mix).
template <class A>
UGS_HD inline uint64_t draw_input_element(uint64_t stream, uint64_t e, FieldPair* out) {
  const FieldPair v = A::sample(input_bits(stream, e));
  out[e] = v;
  return element_mix(e, v);
}

}  // namespace ugs::cuda
