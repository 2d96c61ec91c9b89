// Shared by the GPU checks: compares a bf16 result on the device with an fp32 reference.
#pragma once
#include <cmath>
#include <cstdio>
#include <vector>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

// Prints "<label>: max abs err, max |ref|, relative: ok|FAIL" and returns 1 on failure. The
// bound 1e-2 relative to the largest reference value covers bf16 output rounding (2^-8) plus
// fp32 summation order.
inline int compareWithReference(const __nv_bfloat16 *result, const float *reference, size_t count,
                                const char *label) {
  std::vector<__nv_bfloat16> hd(count);
  std::vector<float> hr(count);
  cudaMemcpy(hd.data(), result, count * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(hr.data(), reference, count * 4, cudaMemcpyDeviceToHost);
  double maxAbs = 0, maxRef = 0;
  for (size_t i = 0; i < count; ++i) {
    maxAbs = std::fmax(maxAbs, std::fabs(double(__bfloat162float(hd[i])) - hr[i]));
    maxRef = std::fmax(maxRef, std::fabs(double(hr[i])));
  }
  double rel = maxAbs / (maxRef > 0 ? maxRef : 1);
  int failed = rel > 1e-2;
  printf("%s: max abs err %.3e, max |ref| %.3e, relative %.3e: %s\n", label, maxAbs, maxRef, rel,
         failed ? "FAIL" : "ok");
  return failed;
}
