// What each CUDA call of a kernel launch costs on the host: the median of many calls, in µs.
//
// A call timed from an idle GPU (bench/anchors.py's first timing) waits for this host work.
// GemmUniversalAdapter's initialize + run make two cudaFuncSetAttribute and one driver entry
// point lookup per TMA descriptor on every call; coda-translate's direct-launch path makes them once
// (include/coda/Runtime/Launch.cuh). The launches are timed behind a long GPU sleep, so that
// none of them waits for the GPU.
//
// Build and run on the GPU machine:
//   nvcc -std=c++17 -O2 -arch=sm_90a bench/host_calls.cu -o /tmp/host_calls && /tmp/host_calls

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

__global__ void empty() {}
__global__ void __launch_bounds__(384) withSharedMemory() {
  extern __shared__ char shared[];
  if (threadIdx.x == 1024) // never: keeps the shared memory in the kernel
    shared[0] = 1;
}
__global__ void sleepFor(long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

template <class F> double medianMicroseconds(F call, int reps) {
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    auto start = std::chrono::steady_clock::now();
    call();
    times.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[reps / 2];
}

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t e = (call);                                                                        \
    if (e != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e));                              \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

int main() {
  constexpr int kCalls = 2000, kLaunches = 200; // 4 × 200 launches queue without blocking
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream));
  void *buffer;
  CHECK(cudaMalloc(&buffer, 8192LL * 4096 * 2));
  const void *kernel = reinterpret_cast<const void *>(withSharedMemory);
  constexpr int kShared = 200 * 1024;

  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  std::printf("cudaGetDriverEntryPointByVersion(cuTensorMapEncodeTiled) %.2f us\n",
              medianMicroseconds([&] {
                cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000,
                                                 cudaEnableDefault, &found);
              }, kCalls));
  auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  CUtensorMap map;
  cuuint64_t dims[2] = {4096, 8192}, strides[1] = {4096 * 2};
  cuuint32_t box[2] = {64, 128}, elementStrides[2] = {1, 1};
  std::printf("cuTensorMapEncodeTiled (bf16 8192x4096, box 128x64) %.2f us\n",
              medianMicroseconds([&] {
                encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, buffer, dims, strides, box,
                       elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
              }, kCalls));
  std::printf("cudaFuncSetAttribute(MaxDynamicSharedMemorySize) %.2f us\n",
              medianMicroseconds([&] {
                cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kShared);
              }, kCalls));
  std::printf("cudaFuncSetAttribute(NonPortableClusterSizeAllowed) %.2f us\n",
              medianMicroseconds([&] {
                cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
              }, kCalls));
  int device = 0, sms = 0;
  std::printf("cudaGetDevice %.2f us\n", medianMicroseconds([&] { cudaGetDevice(&device); }, kCalls));
  std::printf("cudaDeviceGetAttribute(MultiProcessorCount) %.2f us\n",
              medianMicroseconds([&] {
                cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
              }, kCalls));
  std::printf("cudaGetLastError %.2f us\n", medianMicroseconds([&] { cudaGetLastError(); }, kCalls));

  sleepFor<<<1, 1, 0, stream>>>(4'000'000'000LL); // about 2 s: the launches below only queue
  CHECK(cudaGetLastError());
  std::printf("<<<>>> launch %.2f us\n",
              medianMicroseconds([&] { empty<<<128, 256, 0, stream>>>(); }, kLaunches));
  std::printf("cudaMemsetAsync (256 bytes) %.2f us\n",
              medianMicroseconds([&] { cudaMemsetAsync(buffer, 0, 256, stream); }, kLaunches));
  cudaLaunchAttribute attributes[2];
  attributes[0].id = cudaLaunchAttributeClusterDimension;
  attributes[0].val.clusterDim.x = 2;
  attributes[0].val.clusterDim.y = 1;
  attributes[0].val.clusterDim.z = 1;
  attributes[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attributes[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(128);
  config.blockDim = dim3(384);
  config.dynamicSmemBytes = kShared;
  config.stream = stream;
  config.attrs = attributes;
  config.numAttrs = 1;
  void *arguments[] = {nullptr};
  std::printf("cudaLaunchKernelExC (cluster 2x1, 200 KiB shared) %.2f us\n",
              medianMicroseconds([&] { cudaLaunchKernelExC(&config, kernel, arguments); }, kLaunches));
  config.numAttrs = 2;
  std::printf("cudaLaunchKernelExC (cluster 2x1, programmatic launch) %.2f us\n",
              medianMicroseconds([&] { cudaLaunchKernelExC(&config, kernel, arguments); }, kLaunches));
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(stream));
  return 0;
}
