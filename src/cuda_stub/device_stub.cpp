// Built when nvcc is absent: the binary runs, and says it has no CUDA backend.
#include "ugs/cuda/device.h"

namespace ugs::cuda {

bool compiled() { return false; }
int device_count() { return 0; }
std::string device_description() { return "none (built without CUDA)"; }
double measured_copy_bandwidth() { return 0; }
std::string field_matmul(FieldKind, const FieldPair*, const FieldPair*, FieldPair*, int64_t, int64_t, int64_t,
                         int64_t) {
  return "this ugsearch was built without CUDA";
}

}  // namespace ugs::cuda

#include "ugs/cuda/backend.h"

namespace ugs::cuda {

std::unique_ptr<Backend> make_backend(const KernelGraph&, FieldKind, uint64_t, std::string* why_not) {
  *why_not = "this ugsearch was built without CUDA";
  return nullptr;
}

std::unique_ptr<FloatEvaluator> make_float_evaluator(const KernelGraph&, uint64_t, std::string* why_not) {
  *why_not = "this ugsearch was built without CUDA";
  return nullptr;
}

}  // namespace ugs::cuda
