// The CPU fingerprint backend: the one evaluator, OpenMP over the graphs of a batch (a single graph
// keeps the evaluator's own parallelism over blocks and rows).
#include <omp.h>

#include "ugs/eval/backend.h"
#include "ugs/eval/evaluator.h"
#include "ugs/eval/fingerprint.h"

namespace ugs {
namespace {

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(FingerprintSetup setup) : s_(std::move(setup)) {
    for (const auto& t : s_.inputs) input_hashes_.push_back(tensor_hash(t.data.data(), t.numel(), t.shape));
  }
  BackendKind kind() const override { return BackendKind::Cpu; }

  void fingerprint(std::span<const KernelGraph* const> graphs, Fingerprints& out) override {
    out.reset(graphs);
    const int64_t n = static_cast<int64_t>(graphs.size());
#pragma omp parallel for schedule(dynamic, 1) if (n > 1)
    for (int64_t i = 0; i < n; ++i) one(*graphs[i], &out.hashes[out.first[i]], out.match[i]);
  }

 private:
  void one(const KernelGraph& g, uint64_t* hashes, uint8_t& match) const {
    with_field(s_.field, [&](auto ar) {
      ar.omega = s_.omega;
      const auto computed = evaluate_ops(ar, g, std::span<const Tensor<FieldPair>>(s_.inputs));
      for (int t = 0; t < g.num_inputs; ++t) hashes[t] = input_hashes_[t];
      for (size_t k = 0; k < computed.size(); ++k)
        hashes[g.num_inputs + k] = tensor_hash(computed[k].data.data(), computed[k].numel(), computed[k].shape);
      bool same = g.outputs.size() == static_cast<int>(s_.want.size());
      for (int o = 0; same && o < g.outputs.size(); ++o) {
        const int32_t t = g.outputs[o];
        same = t >= g.num_inputs && computed[t - g.num_inputs].shape == s_.want[o].shape &&
               computed[t - g.num_inputs].data == s_.want[o].data;
      }
      match = same;
    });
  }

  FingerprintSetup s_;
  std::vector<uint64_t> input_hashes_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(FingerprintSetup setup) { return std::make_unique<CpuBackend>(std::move(setup)); }

}  // namespace ugs
