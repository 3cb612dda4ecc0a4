#pragma once
// The CUDA fingerprint backend as the host sees it (cuda/ when nvcc exists, else a stub that says so).
// It depends on headers only, so ugs_core can link it without a cycle.
#include <memory>
#include <string>

#include "ugs/eval/backend.h"

namespace ugs::cuda {

// Null with *why_not set when there is no device or the binary has no CUDA code.
std::unique_ptr<Backend> make_backend(const FingerprintSetup& setup, std::string* why_not);

}  // namespace ugs::cuda
