// --combine-in-pass (the default): an elementwise linalg.generic right after a kernel that reads
// the kernel's stored result at its element and a row reduction at its row (RMSNorm's output)
// runs after the kernel as its row pass, one kernel (coda::rt::rowPassAfter) whose CTAs each
// combine their rows' partials, then run the generic over those rows: no combine kernel for
// the row reduction, no kernel of the generic's own, the kernel's DAG as it is. The generic's
// step functions take no __restrict__ pointers: they read the rows their CTA just combined.
// With --combine-in-pass=false, a kernel combines every row's partials and the generic runs
// on its own.

// RUN: coda-translate --coda-to-cuda --split-input-file %s | FileCheck %s
// RUN: coda-translate --coda-to-cuda --combine-in-pass=false %coda_src/examples/cuda/rmsnorm_output.mlir | FileCheck %s --check-prefix=OFF

#rows = affine_map<(i, j) -> (i, 0)>
#cols = affine_map<(i, j) -> (j)>
#id = affine_map<(i, j) -> (i, j)>

// CHECK-LABEL: // main_k0_pass: a linalg.generic over [256, 1024] run after the kernel before it, a few rows at a time once their reductions are combined (the kernel's row pass), 8 elements of the last dimension per step.
// CHECK:       __device__ __forceinline__ main_k0_pass_loaded main_k0_pass_load(long long point, const __nv_bfloat16 *p0, const float *p1, const __nv_bfloat16 *p2, __nv_bfloat16 *p3) {
// CHECK:       __device__ __forceinline__ void main_k0_pass_finish(long long point, const main_k0_pass_loaded &in, const __nv_bfloat16 *p0,
// CHECK:       // main_k0's row pass: the generic's operands, and the row reductions it combines before its rows (their pointers set by the launcher).
// CHECK-NEXT:  struct main_k0_pass {
// CHECK-NEXT:    static constexpr long long kSteps = 128; // 8-element steps per row
// CHECK-NEXT:    float *rows1 = nullptr; // result #1
// CHECK-NEXT:    const float *part1 = nullptr;
// CHECK-NEXT:    long long pitch1 = 0;
// CHECK:         rows1[row] = coda::rt::foldPartials<coda::rt::Combiner::Sum, float>(part1, tiles, pitch1, row);
// CHECK:       struct main_k0_kernel {
// CHECK-NOT:     RowPass<
// CHECK:         using EVT = cutlass::epilogue::fusion::Sm90TopologicalVisitor<float
// CHECK:       static int main_k0_launch({{.*}}, cudaStream_t stream, const main_k0_pass *pass) {
// CHECK-NOT:     rowPassState
// CHECK:         if (pass) {
// CHECK-NEXT:      rowPass = *pass;
// CHECK-NEXT:      rowPass.rows1 = static_cast<float *>(result1);
// CHECK-NEXT:      rowPass.part1 = reinterpret_cast<const float *>(partials + offsets[0]);
// CHECK-NEXT:      rowPass.pitch1 = (m + K::kTileM - 1) / K::kTileM * K::kTileM;
// CHECK-NEXT:    }
// CHECK-NEXT:    args.epilogue.thread = {{[{][{][}].*[}]}};
// CHECK:         if (gemm.run(stream) != cutlass::Status::kSuccess) return CODA_LAUNCH_FAILED;
// CHECK:         if (!pass && coda::rt::launchCombine<coda::rt::Combiner::Sum, float>
// CHECK:         if (pass && coda::rt::launchRowPassAfter(rowPass, m, int(tilesN), stream) != cudaSuccess)
// CHECK-NEXT:      return CODA_LAUNCH_FAILED;
// CHECK-NEXT:    return CODA_OK;
// CHECK:       extern "C" int main_k0(
// CHECK-NEXT:    return main_k0_launch({{.*}}, workspace, stream, nullptr);
// CHECK:       extern "C" size_t main_k0_workspace_size(int m, int n, int k) {
// CHECK-NOT:     rowPassBytes
// CHECK:         return coda_round_up(G::get_workspace_size(args)) + main_k0_partials(m, n, offsets);
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

// A generic whose rows are not 8-element steps (N = 1020): the combine kernel, then a kernel of
// its own.
#rows = affine_map<(i, j) -> (i, 0)>
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: // main_k0: A · Bᵀ
// CHECK-NOT:   launchRowPassAfter
// CHECK:       coda::rt::launchCombine<coda::rt::Combiner::Sum, float>
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         if (int s = main_k0(
// CHECK-NEXT:    main_g0<<<
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1020x512xbf16>) -> tensor<256x1020xbf16> {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1020x512xbf16>
      -> (store tensor<256x1020xbf16>, reduce<row, sumsq> tensor<256xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc, %acc : f32, f32
  }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [256, 1] : tensor<256xf32> into tensor<256x1xf32>
  %e = tensor.empty() : tensor<256x1020xbf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss2 : tensor<256x1020xbf16>, tensor<256x1xf32>) outs(%e : tensor<256x1020xbf16>) {
  ^bb0(%hv: bf16, %sv: f32, %o: bf16):
    %hf = arith.extf %hv : bf16 to f32
    %n = arith.mulf %hf, %sv : f32
    %yb = arith.truncf %n : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<256x1020xbf16>
  return %y : tensor<256x1020xbf16>
}

// OFF-NOT:     launchRowPassAfter
// OFF:         coda::rt::launchCombine<coda::rt::Combiner::Sum, float>
// OFF-LABEL:   extern "C" int main_run(
// OFF:           if (int s = main_k0(
// OFF-NEXT:      main_g0<<<
