// The first device kernel: batched matmul in the finite field, one thread per output element, using
// the same field header as the CPU evaluator (so the results are bit-identical).
#include <cuda_runtime.h>

#include <string>

#include "ugs/cuda/device.h"
#include "ugs/field/field.h"

namespace ugs::cuda {
namespace {

template <class A>
__global__ void field_matmul_kernel(const FieldPair* a, const FieldPair* b, FieldPair* out, int64_t batch, int64_t m,
                                    int64_t k, int64_t n) {
  const int64_t total = batch * m * n;
  for (int64_t e = blockIdx.x * int64_t{blockDim.x} + threadIdx.x; e < total; e += int64_t{gridDim.x} * blockDim.x) {
    const int64_t j = e % n, i = (e / n) % m, bi = e / (m * n);
    const FieldPair* arow = a + (bi * m + i) * k;
    const FieldPair* bcol = b + bi * k * n + j;
    typename A::Acc acc{};
    for (int64_t kk = 0; kk < k; ++kk) A::acc_fma(acc, arow[kk], bcol[kk * n]);
    out[e] = A::acc_value(acc);
  }
}

// Owns device buffers for the duration of one call.
struct DeviceBuffer {
  void* data = nullptr;
  ~DeviceBuffer() {
    if (data) cudaFree(data);
  }
};

std::string error_of(cudaError_t e, const char* what) {
  return e == cudaSuccess ? std::string() : std::string(what) + ": " + cudaGetErrorString(e);
}

template <class A>
std::string run(const FieldPair* a, const FieldPair* b, FieldPair* out, int64_t batch, int64_t m, int64_t k,
                int64_t n) {
  const size_t sa = sizeof(FieldPair) * batch * m * k, sb = sizeof(FieldPair) * batch * k * n,
               so = sizeof(FieldPair) * batch * m * n;
  DeviceBuffer da, db, dout;
  std::string err;
  if (!(err = error_of(cudaMalloc(&da.data, sa), "cudaMalloc")).empty()) return err;
  if (!(err = error_of(cudaMalloc(&db.data, sb), "cudaMalloc")).empty()) return err;
  if (!(err = error_of(cudaMalloc(&dout.data, so), "cudaMalloc")).empty()) return err;
  if (!(err = error_of(cudaMemcpy(da.data, a, sa, cudaMemcpyHostToDevice), "copy in")).empty()) return err;
  if (!(err = error_of(cudaMemcpy(db.data, b, sb, cudaMemcpyHostToDevice), "copy in")).empty()) return err;
  const int threads = 256;
  const int64_t blocks = std::min<int64_t>((batch * m * n + threads - 1) / threads, 65535);
  field_matmul_kernel<A><<<static_cast<unsigned>(blocks), threads>>>(
      static_cast<const FieldPair*>(da.data), static_cast<const FieldPair*>(db.data),
      static_cast<FieldPair*>(dout.data), batch, m, k, n);
  if (!(err = error_of(cudaGetLastError(), "launch")).empty()) return err;
  return error_of(cudaMemcpy(out, dout.data, so, cudaMemcpyDeviceToHost), "copy out");
}

}  // namespace

std::string field_matmul(FieldKind field, const FieldPair* a, const FieldPair* b, FieldPair* out, int64_t batch,
                         int64_t m, int64_t k, int64_t n) {
  if (device_count() == 0) return "no CUDA device";
  if (batch * m * n == 0) return {};
  return field == FieldKind::Mirage ? run<MirageArith>(a, b, out, batch, m, k, n)
                                    : run<WideArith>(a, b, out, batch, m, k, n);
}

}  // namespace ugs::cuda
