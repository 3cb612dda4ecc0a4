// Choosing a fingerprint backend, and what every backend starts from.
#include "ugs/eval/backend.h"

#include "ugs/cuda/backend.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/fingerprint.h"
#include "ugs/util/error.h"

namespace ugs {

namespace {
constexpr std::pair<BackendKind, std::string_view> kNames[] = {
    {BackendKind::Auto, "auto"}, {BackendKind::Cpu, "cpu"}, {BackendKind::Cuda, "cuda"}};
}  // namespace

std::optional<BackendKind> backend_from_name(std::string_view s) {
  for (const auto& [k, n] : kNames)
    if (n == s) return k;
  return std::nullopt;
}

std::string_view name_of(BackendKind k) {
  for (const auto& [kk, n] : kNames)
    if (kk == k) return n;
  return "?";
}

FingerprintSetup FingerprintSetup::make(const KernelGraph& program, FieldKind field, uint64_t seed) {
  FingerprintSetup s;
  s.field = field;
  with_field(field, [&](auto ar) {
    using A = decltype(ar);
    s.omega = ar.omega = A::draw_omega(splitmix64(seed ^ 0x6f6d656761ull));
    s.inputs = make_inputs<A>(program, seed);
    s.want = evaluate(ar, program, std::span<const Tensor<FieldPair>>(s.inputs));
  });
  for (const auto& t : s.want) s.want_hashes.push_back(tensor_hash(t.data.data(), t.numel(), t.shape));
  return s;
}

std::unique_ptr<Backend> make_backend(BackendKind kind, const KernelGraph& program, FieldKind field, uint64_t seed) {
  FingerprintSetup setup = FingerprintSetup::make(program, field, seed);
  if (kind == BackendKind::Cpu) return make_cpu_backend(std::move(setup));
  std::string why_not;
  std::unique_ptr<Backend> b = cuda::make_backend(setup, &why_not);
  if (b) return b;
  if (kind == BackendKind::Cuda)
    throw InputError("--backend cuda: no CUDA backend here (" + why_not + "); use --backend cpu or auto");
  return make_cpu_backend(std::move(setup));
}

}  // namespace ugs
