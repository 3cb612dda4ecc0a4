#pragma once
// The CUDA fingerprint backend as the host sees it (cuda/ when nvcc exists, else a stub that says so).
// It depends on headers only, so ugs_core can link it without a cycle.
#include <memory>
#include <string>

#include "ugs/eval/backend.h"

namespace ugs::cuda {

// For the run of `program` in `field` from `seed`, its setup made on the device (the inputs drawn there,
// the program evaluated there; bit-identical to FingerprintSetup::make). Null with *why_not set when
// there is no device, the binary has no CUDA code, or the setup fails.
std::unique_ptr<Backend> make_backend(const KernelGraph& program, FieldKind field, uint64_t seed, std::string* why_not);

// The float64 check's evaluator on the device, its inputs drawn there from `seed`; null as above.
std::unique_ptr<FloatEvaluator> make_float_evaluator(const KernelGraph& program, uint64_t seed, std::string* why_not);

}  // namespace ugs::cuda
