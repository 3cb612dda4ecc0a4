#pragma once
// The CUDA side as the host sees it. Built from cuda/ when nvcc exists, else from a stub whose
// answers say so; callers choose at run time by asking `device_count()`.
#include <cstdint>
#include <string>

#include "ugs/eval/field_kind.h"

namespace ugs::cuda {

// Whether this binary was built with the CUDA kernels.
bool compiled();
// Usable devices; 0 when the binary has no CUDA code, there is no driver, or any CUDA error occurs.
int device_count();
// "NVIDIA H100 80GB HBM3 (sm_90)", or why there is none.
std::string device_description();

// The device's memory bandwidth as a large device-to-device copy achieves it (bytes read plus bytes
// written per second, the median of several copies): a ceiling the device really reaches, not the
// datasheet's. 0 without a device or on any error.
double measured_copy_bandwidth();

// Batched matmul in the finite field on device 0: out[b] = a[b] (m×k) · b[b] (k×n), row-major,
// bit-identical to the CPU evaluator. Returns an empty string, or the error.
std::string field_matmul(FieldKind field, const FieldPair* a, const FieldPair* b, FieldPair* out, int64_t batch,
                         int64_t m, int64_t k, int64_t n);

}  // namespace ugs::cuda
