// --row-pass (experimental, off by default): an elementwise linalg.generic right after a kernel
// that reads the kernel's stored result at its element and a row reduction at its row (RMSNorm's
// output) runs beside the kernel as its row pass (coda::rt::RowPass): the generic's loads and
// math become step functions, the kernel's DAG is wrapped in RowPass (which counts each tile and
// combines the rows), and the launcher behind the public one takes the pass and launches
// rowPassBeside right behind the kernel; the function launcher runs no kernel for the generic.
// Elsewhere, and by default, the generic is a kernel after the GEMM.

// RUN: coda-translate --coda-to-cuda --row-pass --split-input-file %s | FileCheck %s
// RUN: coda-translate --coda-to-cuda %coda_src/examples/cuda/rmsnorm_output.mlir | FileCheck %s --check-prefix=OFF

#rows = affine_map<(i, j) -> (i, 0)>
#cols = affine_map<(i, j) -> (j)>
#id = affine_map<(i, j) -> (i, j)>

// CHECK-LABEL: // main_k0_pass: a linalg.generic over [256, 1024] run beside the kernel before it, a row block at a time once its rows are complete (the kernel's row pass), 8 elements of the last dimension per step.
// CHECK:       struct main_k0_pass_loaded {
// CHECK-NEXT:    coda::rt::Vec8 [[H:v[0-9]+v]];
// CHECK-NEXT:    coda::rt::Vec8 [[G:v[0-9]+v]];
// CHECK-NEXT:    float [[S:v[0-9]+]];
// CHECK-NEXT:  };
// CHECK:       __device__ __forceinline__ main_k0_pass_loaded main_k0_pass_load(long long point,
// CHECK-NOT:   if (point >=
// CHECK:         in.[[H]] = coda::rt::load8(p0, d0 * 1024LL + d1v);
// CHECK-NEXT:    in.[[G]] = coda::rt::load8(p2, d1v);
// CHECK-NEXT:    in.[[S]] = coda::rt::load(p1, d0 + 0LL);
// CHECK:       __device__ __forceinline__ void main_k0_pass_finish(long long point, const main_k0_pass_loaded &in,
// CHECK:         coda::rt::Vec8 [[H]] = in.[[H]];
// CHECK:         float [[S]] = in.[[S]];
// CHECK:         coda::rt::store8(p3, d0 * 1024LL + d1v,
// CHECK:       struct main_k0_pass {
// CHECK-NEXT:    static constexpr long long kSteps = 128; // 8-element steps per row
// CHECK-NEXT:    float *rows1 = nullptr; // result #1
// CHECK-NEXT:    const float *part1 = nullptr;
// CHECK-NEXT:    long long pitch1 = 0;
// CHECK-NEXT:    const __nv_bfloat16 *p0 = nullptr;
// CHECK-NEXT:    const float *p1 = nullptr;
// CHECK-NEXT:    const __nv_bfloat16 *p2 = nullptr;
// CHECK-NEXT:    __nv_bfloat16 *p3 = nullptr;
// CHECK:         rows1[row] = coda::rt::foldPartials<coda::rt::Combiner::Sum, float>(part1, tiles, pitch1, row);
// CHECK:       struct main_k0_kernel {
// CHECK:         using Dag = cutlass::epilogue::fusion::Sm90TopologicalVisitor<float
// CHECK:         using EVT = coda::rt::RowPass<Dag, main_k0_pass>;
// CHECK:       static int main_k0_launch({{.*}}, cudaStream_t stream, const main_k0_pass *pass) {
// CHECK:         size_t partialBytes = main_k0_partials(m, n, offsets);
// CHECK:         if (pass) {
// CHECK-NEXT:      rowPass = *pass;
// CHECK-NEXT:      rowPass.rows1 = static_cast<float *>(result1);
// CHECK-NEXT:      rowPass.part1 = reinterpret_cast<const float *>(partials + offsets[0]);
// CHECK:           if (coda::rt::rowPassState(partials + partialBytes, m, K::kTileM, stream, rowPassState) != cudaSuccess)
// CHECK-NEXT:        return CODA_LAUNCH_FAILED;
// CHECK:         args.epilogue.thread = {{[{][{].*[}]}}, {rowPass, rowPassState}};
// CHECK:         if (pass && coda::rt::launchRowPassBeside(rowPass, rowPassState, m, n, K::kTileM, K::kTileN, stream) != cudaSuccess)
// CHECK:         if (!pass && coda::rt::launchCombine<coda::rt::Combiner::Sum, float>
// CHECK:       extern "C" int main_k0(
// CHECK-NEXT:    return main_k0_launch({{.*}}, workspace, stream, nullptr);
// CHECK:       extern "C" size_t main_k0_workspace_size(int m, int n, int k) {
// CHECK:         + coda::rt::rowPassBytes(m, main_k0_kernel::kTileM);
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         main_k0_pass main_k0_row_pass{};
// CHECK-NEXT:    main_k0_row_pass.p0 = static_cast<__nv_bfloat16 *>(result0);
// CHECK-NEXT:    main_k0_row_pass.p1 = reinterpret_cast<float *>(ws + 0);
// CHECK-NEXT:    main_k0_row_pass.p2 = static_cast<const __nv_bfloat16 *>(arg3);
// CHECK-NEXT:    main_k0_row_pass.p3 = static_cast<__nv_bfloat16 *>(result1);
// CHECK-NEXT:    if (int s = main_k0_launch({{.*}}, scratch, stream, &main_k0_row_pass)) return s;
// CHECK-NOT:     main_g0<<<
// CHECK:         return CODA_OK;
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %res: tensor<256x1024xbf16>,
    %gamma: tensor<1024xbf16>) -> (tensor<256x1024xbf16>, tensor<256x1024xbf16>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%res as matrix : tensor<256x1024xbf16>)
      -> (store tensor<256x1024xbf16>, reduce<row, sumsq> tensor<256xf32>)
      epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
    %rf = arith.extf %r : bf16 to f32
    %s = arith.addf %acc, %rf : f32
    coda.yield %s, %s : f32, f32
  }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [256, 1] : tensor<256xf32> into tensor<256x1xf32>
  %e = tensor.empty() : tensor<256x1024xbf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #cols, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss2, %gamma : tensor<256x1024xbf16>, tensor<256x1xf32>, tensor<1024xbf16>)
      outs(%e : tensor<256x1024xbf16>) {
  ^bb0(%hv: bf16, %sv: f32, %g: bf16, %o: bf16):
    %eps = arith.constant 1.0e-5 : f32
    %var = arith.addf %sv, %eps : f32
    %rs = math.rsqrt %var : f32
    %hf = arith.extf %hv : bf16 to f32
    %gf = arith.extf %g : bf16 to f32
    %n = arith.mulf %hf, %rs : f32
    %yv = arith.mulf %n, %gf : f32
    %yb = arith.truncf %yv : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<256x1024xbf16>
  return %h, %y : tensor<256x1024xbf16>, tensor<256x1024xbf16>
}

// -----

// A generic that reads the kernel's row reduction but not right after it (a copy of A comes
// between): a kernel of its own.
#rows = affine_map<(i, j) -> (i, 0)>
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: // main_k0: A · Bᵀ
// CHECK-NOT:   RowPass<
// CHECK:       extern "C" int main_k0(
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         main_g1<<<
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>)
    -> (tensor<256x1024xbf16>, tensor<256x512xbf16>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      -> (store tensor<256x1024xbf16>, reduce<row, sumsq> tensor<256xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc, %acc : f32, f32
  }
  %e0 = tensor.empty() : tensor<256x512xbf16>
  %copy = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<256x512xbf16>) outs(%e0 : tensor<256x512xbf16>) {
  ^bb0(%xv: bf16, %o: bf16):
    linalg.yield %xv : bf16
  } -> tensor<256x512xbf16>
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [256, 1] : tensor<256xf32> into tensor<256x1xf32>
  %e = tensor.empty() : tensor<256x1024xbf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss2 : tensor<256x1024xbf16>, tensor<256x1xf32>) outs(%e : tensor<256x1024xbf16>) {
  ^bb0(%hv: bf16, %sv: f32, %o: bf16):
    %hf = arith.extf %hv : bf16 to f32
    %n = arith.mulf %hf, %sv : f32
    %yb = arith.truncf %n : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<256x1024xbf16>
  return %y, %copy : tensor<256x1024xbf16>, tensor<256x512xbf16>
}

// -----

// A generic right after the kernel that reads no row reduction (nothing to wait for: coda-fuse
// would have fused it), and one that reads a column reduction: kernels of their own.
#rows = affine_map<(i, j) -> (j)>
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: // main_k0: A · Bᵀ
// CHECK-NOT:   RowPass<
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         main_g0<<<
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>)
    -> tensor<256x1024xbf16> {
  %h, %cs = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      -> (store tensor<256x1024xbf16>, reduce<col, sum> tensor<1024xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc, %acc : f32, f32
  }
  %e = tensor.empty() : tensor<256x1024xbf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %cs : tensor<256x1024xbf16>, tensor<1024xf32>) outs(%e : tensor<256x1024xbf16>) {
  ^bb0(%hv: bf16, %cv: f32, %o: bf16):
    %hf = arith.extf %hv : bf16 to f32
    %n = arith.mulf %hf, %cv : f32
    %yb = arith.truncf %n : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<256x1024xbf16>
  return %y : tensor<256x1024xbf16>
}

// OFF-NOT:     coda::rt::RowPass<
// OFF:         coda::rt::launchCombine<coda::rt::Combiner::Sum, float>
// OFF-LABEL:   extern "C" int main_run(
// OFF:           if (int s = main_k0(
// OFF-NEXT:      main_g0<<<
