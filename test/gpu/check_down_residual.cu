// GPU check (T3) of examples/cuda/down_residual.mlir as emitted by coda-translate --coda-to-cuda:
// out = res + h · Wᵀ in accumulate mode, out of place and in place (out aliasing res), on ragged
// shapes against an independent fp32 reference. Exit code 0: all pass.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include "compare.h"

extern "C" int main_k0(const void *a, const void *b, const void *init, void *d, int m, int n,
                       int k, void *workspace, cudaStream_t stream);
extern "C" size_t main_k0_workspace_size(int m, int n, int k);

__global__ void reference(const __nv_bfloat16 *a, const __nv_bfloat16 *w, const __nv_bfloat16 *res,
                          float *out, int m, int n, int k) {
  int i = blockIdx.y * blockDim.y + threadIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= m || j >= n) return;
  float acc = 0;
  for (int p = 0; p < k; ++p) acc += __bfloat162float(a[(size_t)i * k + p]) * __bfloat162float(w[(size_t)j * k + p]);
  out[(size_t)i * n + j] = __bfloat162float(res[(size_t)i * n + j]) + acc;
}

static float uniform() { return float(rand()) / RAND_MAX * 2.0f - 1.0f; }

static int check(int m, int n, int k, bool inPlace) {
  std::vector<__nv_bfloat16> ha((size_t)m * k), hw((size_t)n * k), hr((size_t)m * n);
  for (auto &v : ha) v = __float2bfloat16(uniform());
  for (auto &v : hw) v = __float2bfloat16(uniform());
  for (auto &v : hr) v = __float2bfloat16(4 * uniform());
  __nv_bfloat16 *a, *w, *res, *d;
  float *ref;
  cudaMalloc(&a, ha.size() * 2); cudaMalloc(&w, hw.size() * 2); cudaMalloc(&res, hr.size() * 2);
  cudaMalloc(&d, hr.size() * 2); cudaMalloc(&ref, hr.size() * 4);
  cudaMemcpy(a, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(w, hw.data(), hw.size() * 2, cudaMemcpyHostToDevice);
  cudaMemcpy(res, hr.data(), hr.size() * 2, cudaMemcpyHostToDevice);
  dim3 block(16, 16), grid((n + 15) / 16, (m + 15) / 16);
  reference<<<grid, block>>>(a, w, res, ref, m, n, k);
  void *workspace = nullptr;
  cudaMalloc(&workspace, main_k0_workspace_size(m, n, k) + 1);
  __nv_bfloat16 *out = inPlace ? res : d;
  int status = main_k0(a, w, res, out, m, n, k, workspace, nullptr);
  cudaError_t err = cudaDeviceSynchronize();
  int failed = 0;
  if (status != 0 || err != cudaSuccess) {
    printf("M=%d N=%d K=%d: status %d, %s\n", m, n, k, status, cudaGetErrorString(err));
    failed = 1;
  } else {
    char label[64];
    snprintf(label, sizeof label, "M=%d N=%d K=%d%s", m, n, k, inPlace ? " in place" : "");
    failed = compareWithReference(out, ref, hr.size(), label);
  }
  cudaFree(a); cudaFree(w); cudaFree(res); cudaFree(d); cudaFree(ref); cudaFree(workspace);
  return failed;
}

int main() {
  srand(11);
  const int shapes[][3] = {{1, 8, 8}, {7, 1000, 1024}, {129, 4096, 1000}, {8191, 136, 4096}};
  int failures = 0, total = 0;
  for (auto &s : shapes)
    for (bool inPlace : {false, true}) {
      failures += check(s[0], s[1], s[2], inPlace);
      ++total;
    }
  printf("%d passed, %d failed\n", total - failures, failures);
  return failures != 0;
}
