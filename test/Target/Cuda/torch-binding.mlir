// --emit-torch-binding: one PyTorch function per kernel that checks its tensors with clear
// Python errors, allocates the results and workspace, and launches on the current stream.
// RUN: coda-translate --coda-to-cuda --emit-torch-binding %coda_src/examples/cuda/residual_rmsnorm.mlir | FileCheck %s
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/residual_rmsnorm.mlir | FileCheck %s --check-prefix=PLAIN

// PLAIN-NOT: torch

// CHECK:       #include <torch/extension.h>
// CHECK:       static void coda_check_device(
// CHECK:         TORCH_CHECK(t.is_cuda(), fn, ": ", what, " must be a CUDA tensor, got one on ", t.device());
// CHECK-LABEL: static std::vector<torch::Tensor> coda_torch_main_k0(torch::Tensor a, torch::Tensor b, torch::Tensor operand0) {
// CHECK:         coda_check_matrix(fn, "a", a, at::kBFloat16, a.device());
// CHECK:         const int64_t m = a.size(0), k = a.size(1), n = b.size(0);
// CHECK:         coda_check(fn, "operand0 (matrix)", operand0, at::kBFloat16, {m, n}, a.device());
// CHECK:         auto result0 = torch::empty({m, n}, a.options().dtype(at::kBFloat16));
// CHECK-NEXT:    auto result1 = torch::empty({m}, a.options().dtype(at::kFloat));
// CHECK:         int status = main_k0(a.data_ptr(), b.data_ptr(), operand0.data_ptr(), result0.data_ptr(), result1.data_ptr(), m, n, k, a.stride(0), b.stride(0), n, workspace.data_ptr(), at::cuda::getCurrentCUDAStream());
// CHECK-NEXT:    TORCH_CHECK(status == CODA_OK, fn, ": ", coda_status_string(status));
// CHECK-NEXT:    return {result0, result1};
// CHECK:       PYBIND11_MODULE(TORCH_EXTENSION_NAME, module) {
// CHECK-NEXT:    module.def("main_k0", &coda_torch_main_k0, "main_k0(a, b, operand0) -> [results]: coda.gemm #0 of @main");

// Functions: exact static shapes; the split weight preparation as two more functions.
// RUN: coda-translate --coda-to-cuda --emit-torch-binding %coda_src/examples/cuda/rmsnorm_block.mlir | FileCheck %s --check-prefix=FN
// FN-LABEL: static std::vector<torch::Tensor> coda_torch_fn_main(torch::Tensor in0,
// FN:         coda_check(fn, "argument 4", in4, at::kBFloat16, {768, 512}, in0.device());
// FN:         int status = main_run(
// FN:       module.def("main", &coda_torch_fn_main, "@main on the device");
// FN-NEXT:  module.def("main_prepare", &coda_torch_fn_main_prepare, "the weight preparation of @main: run once");
// FN-NEXT:  module.def("main_prepared", &coda_torch_fn_main_prepared, "@main with the weights main_prepare made");
