// GPU tests (label gpu) of the kernels that only a device runs, through their dispatch calls, at the
// edges of their grids: the input draws (grid-stride loop, warp-reduced sums) against the host's loop,
// and the CUB classification against FunctionClasses::assign. test_cuda checks them again inside
// whole backends, at the sizes a search gives them. Without a device they skip and say why.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "dispatch.cuh"
#include "draw_inputs.h"
#include "ugs/cuda/device.h"
#include "ugs/eval/function_classes.h"

namespace ugs::cuda {
namespace {

#define UGS_REQUIRE_DEVICE()                                                             \
  if (device_count() == 0) GTEST_SKIP() << "no CUDA device: " << device_description()

// Device memory for one test, freed on every way out.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t n) { error_ = cudaMalloc(&p_, std::max<size_t>(n, 1) * sizeof(T)); }
  ~DeviceArray() { cudaFree(p_); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  T* get() const { return p_; }
  cudaError_t error() const { return error_; }

 private:
  T* p_ = nullptr;
  cudaError_t error_;
};

#define ASSERT_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call << ": " << cudaGetErrorString(cudaGetLastError())

int multiprocessors() {
  int sms = 0;
  return cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0) == cudaSuccess ? sms : 1;
}

void expect_draw_matches_host(Arith arith, uint64_t n, int ctas) {
  SCOPED_TRACE(testing::Message() << "arith " << int(arith) << ", " << n << " elements, " << ctas << " blocks");
  DeviceArray<FieldPair> out(n);
  DeviceArray<uint64_t> sum(1);
  ASSERT_CUDA(out.error());
  ASSERT_CUDA(sum.error());
  ASSERT_CUDA(cudaMemset(sum.get(), 0, sizeof(uint64_t)));
  DrawArgs a;
  a.out = out.get();
  a.n = n;
  a.stream = input_stream(12345, 2);
  a.sum = sum.get();
  ASSERT_CUDA(dispatch_draw_input(arith, a, ctas, nullptr));
  std::vector<FieldPair> got(n), want(n);
  uint64_t got_sum = 0, want_sum = 0;
  ASSERT_CUDA(cudaMemcpy(got.data(), out.get(), n * sizeof(FieldPair), cudaMemcpyDeviceToHost));
  ASSERT_CUDA(cudaMemcpy(&got_sum, sum.get(), sizeof got_sum, cudaMemcpyDeviceToHost));
  with_arith(arith, [&](auto A) {
    for (uint64_t e = 0; e < n; ++e) want_sum += draw_input_element<decltype(A)>(a.stream, e, want.data());
  });
  EXPECT_EQ(got_sum, want_sum);
  EXPECT_TRUE(got == want);
}

TEST(CudaKernels, DrawsEqualTheHostsAtTheEdgesOfTheGrid) {
  UGS_REQUIRE_DEVICE();
  const int ctas = multiprocessors() * 8;
  for (Arith arith : {Arith::Wide, Arith::Mirage, Arith::Real})
    for (uint64_t n : {uint64_t{1}, uint64_t{31}, uint64_t{257}, uint64_t{1000003}, uint64_t{25000001}})
      expect_draw_matches_host(arith, n, ctas);
  expect_draw_matches_host(Arith::Wide, 1000003, 1);  // one block strides over everything
}

// n items whose keys take `distinct` values, with costs and ties that collide often.
std::vector<ClassItem> random_items(uint32_t n, uint64_t distinct) {
  std::mt19937_64 rng(n ^ distinct);
  std::vector<ClassItem> items(n);
  for (uint32_t i = 0; i < n; ++i)
    items[i] = {rng() % distinct * 0x9E3779B97F4A7C15ull, double(rng() % 7), rng() % 3, i};
  return items;
}

void expect_classes_match_host(uint32_t n, uint64_t distinct) {
  SCOPED_TRACE(testing::Message() << n << " items, " << distinct << " keys at most");
  std::vector<ClassItem> items = random_items(n, distinct);
  size_t temp_bytes = 0;
  ASSERT_CUDA(classify_temp_bytes(n, &temp_bytes));
  DeviceArray<ClassItem> in(n), sorted(n), best(n);
  DeviceArray<uint8_t> flags(n), temp(temp_bytes);
  DeviceArray<int64_t> count(1);
  for (cudaError_t e : {in.error(), sorted.error(), best.error(), flags.error(), temp.error(), count.error()})
    ASSERT_CUDA(e);
  ASSERT_CUDA(cudaMemcpy(in.get(), items.data(), n * sizeof(ClassItem), cudaMemcpyHostToDevice));
  cudaStream_t stream;
  ASSERT_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));  // as the backend's
  ClassifyArgs c;
  c.items = in.get();
  c.sorted = sorted.get();
  c.flags = flags.get();
  c.best = best.get();
  c.count = count.get();
  c.n = n;
  c.temp = temp.get();
  int64_t classes = -1;
  const cudaError_t launched = dispatch_classify(c, temp_bytes, stream);
  if (launched == cudaSuccess) cudaMemcpyAsync(&classes, count.get(), sizeof classes, cudaMemcpyDeviceToHost, stream);
  const cudaError_t done = cudaStreamSynchronize(stream);
  cudaStreamDestroy(stream);
  ASSERT_CUDA(launched);
  ASSERT_CUDA(done);
  FunctionClasses want;
  want.assign(items);
  ASSERT_EQ(classes, static_cast<int64_t>(want.keys.size()));
  std::vector<ClassItem> got(classes);
  ASSERT_CUDA(cudaMemcpy(got.data(), best.get(), got.size() * sizeof(ClassItem), cudaMemcpyDeviceToHost));
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].key, want.keys[i]) << "class " << i;
    EXPECT_EQ(got[i].index, want.best[i]) << "class " << i;
  }
}

TEST(CudaKernels, ClassesEqualTheHostsForAnyBatchSize) {
  UGS_REQUIRE_DEVICE();
  for (uint32_t n : {1u, 2u, 31u, 1000u, 100003u, 3000000u})
    for (uint64_t distinct : {uint64_t{1}, uint64_t{7}, uint64_t{1} << 30}) expect_classes_match_host(n, distinct);
}

}  // namespace
}  // namespace ugs::cuda
