// Choosing a fingerprint backend, and what every backend starts from. The one place outside cuda/
// that names the CUDA backend.
#include "ugs/eval/backend.h"

#include "ugs/cuda/backend.h"
#include "ugs/cuda/device.h"
#include "ugs/eval/draws.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/fingerprint.h"
#include "ugs/eval/op_count.h"
#include "ugs/util/error.h"
#include "ugs/util/names.h"

namespace ugs {

namespace {
constexpr std::pair<BackendKind, std::string_view> kNames[] = {
    {BackendKind::Auto, "auto"}, {BackendKind::Cpu, "cpu"}, {BackendKind::Cuda, "cuda"}};
}  // namespace

std::optional<BackendKind> backend_from_name(std::string_view name) { return value_named(kNames, name); }
std::string_view name_of(BackendKind kind) { return name_in(kNames, kind); }

FingerprintSetup FingerprintSetup::make(const KernelGraph& program, FieldKind field, uint64_t seed) {
  FingerprintSetup s;
  s.field = field;
  with_field(field, [&](auto ar) {
    using A = decltype(ar);
    s.omega = ar.omega = omega_of_seed<A>(seed);
    s.inputs = make_inputs<A>(program, seed);
    s.want = evaluate(ar, program, std::span<const Tensor<FieldPair>>(s.inputs));
  });
  for (const auto& t : s.want) s.want_hashes.push_back(tensor_hash(t.data.data(), t.numel(), t.shape));
  s.program_ops = scalar_ops(program);
  return s;
}

// A device backend makes its setup on the device; the host makes one only for the CPU backend.
std::unique_ptr<Backend> make_backend(BackendKind kind, const KernelGraph& program, FieldKind field, uint64_t seed) {
  if (kind != BackendKind::Cpu) {
    std::string why_not;
    if (std::unique_ptr<Backend> b = cuda::make_backend(program, field, seed, &why_not)) return b;
    if (kind == BackendKind::Cuda)
      throw InputError("--backend cuda: no CUDA backend here (" + why_not + "); use --backend cpu or auto");
  }
  return make_cpu_backend(FingerprintSetup::make(program, field, seed));
}

bool device_present() { return cuda::device_count() > 0; }

std::unique_ptr<FloatEvaluator> make_float_evaluator(const KernelGraph& program, uint64_t seed, std::string* why_not) {
  return cuda::make_float_evaluator(program, seed, why_not);
}

}  // namespace ugs
