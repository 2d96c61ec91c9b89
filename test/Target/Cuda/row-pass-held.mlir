// --row-pass-held (experimental, off by default; implies --row-pass): the row pass run by the
// kernel itself on the values its tiles hold (coda::rt::RowPass with Held). The generic's step
// takes the kernel's result from the tile (`_held`, which loads only the other operands; no
// `_load`, since nothing reads the result back). The kernel runs along N without swizzle on
// whole row blocks of clusters, as many as the GPU holds at once at most
// (coda::rt::rowBlockWaves with coda::rt::maxActiveClusters; none fit: CODA_UNSUPPORTED), and
// exactly that many; nothing is launched beside it or after it for the generic. A generic that
// reads a result other than D's bf16 at its element stays a kernel after the GEMM.

// RUN: coda-translate --coda-to-cuda --row-pass-held --split-input-file %s | FileCheck %s

#rows = affine_map<(i, j) -> (i, 0)>
#cols = affine_map<(i, j) -> (j)>
#id = affine_map<(i, j) -> (i, j)>

// CHECK-LABEL: // main_k0_pass: a linalg.generic over [256, 1024] run by the kernel before it on the values each tile holds, once the tile's row block is complete (the kernel's held row pass), 8 elements of the last dimension per step.
// CHECK:       struct main_k0_pass_loaded {
// CHECK-NEXT:    coda::rt::Vec8 [[H:v[0-9]+v]];
// CHECK-NEXT:    coda::rt::Vec8 [[G:v[0-9]+v]];
// CHECK-NEXT:    float [[S:v[0-9]+]];
// CHECK-NEXT:  };
// CHECK-NOT:   main_k0_pass_load(
// CHECK:       __device__ __forceinline__ main_k0_pass_loaded main_k0_pass_held(long long point, const coda::rt::Vec8 &h,
// CHECK:         in.[[H]] = h;
// CHECK-NEXT:    in.[[G]] = coda::rt::load8(p2, d1v);
// CHECK-NEXT:    in.[[S]] = coda::rt::load(p1, d0 + 0LL);
// CHECK:       __device__ __forceinline__ void main_k0_pass_finish(long long point, const main_k0_pass_loaded &in,
// CHECK:         coda::rt::store8(p3, d0 * 1024LL + d1v,
// CHECK:       // main_k0's row pass (coda::rt::RowPass): {{.*}}; each tile runs the steps of the values it holds.
// CHECK:       struct main_k0_pass {
// CHECK:         rows1[row] = coda::rt::foldPartials<coda::rt::Combiner::Sum, float>(part1, tiles, pitch1, row);
// CHECK-NOT:     Loaded load(
// CHECK:         __device__ __forceinline__ Loaded held(long long point, const coda::rt::Vec8 &h) const {
// CHECK-NEXT:      return main_k0_pass_held(point, h, p0, p1, p2, p3);
// CHECK:       // configuration for the held row pass: raster along_n, swizzle 1, whole row blocks of CTAs
// CHECK-NEXT:  struct main_k0_kernel {
// CHECK:         using EVT = coda::rt::RowPass<Dag, main_k0_pass, /*Held=*/true>;
// CHECK:       static int main_k0_launch({{.*}}, cudaStream_t stream, const main_k0_pass *pass) {
// CHECK-NOT:     max_swizzle_size =
// CHECK:         args.scheduler.raster_order = cutlass::gemm::kernel::detail::RasterOrderOptions::AlongN;
// CHECK:         if (coda::rt::rowPassState(partials + partialBytes, m, K::kTileM, stream, rowPassState) != cudaSuccess)
// CHECK:         args.epilogue.thread = {{[{][{].*[}]}}, {rowPass, rowPassState}};
// CHECK-NEXT:    // Whole row blocks of clusters, all resident, so that each row block's tiles share a wave;
// CHECK-NEXT:    // exactly that many (CUTLASS takes max_active_clusters as given).
// CHECK-NEXT:    args.hw_info.sm_count = coda::rt::rowBlockWaves(coda::rt::maxActiveClusters<G::GemmKernel>(), m, n, K::kTileM, K::kTileN, {{[0-9]}}, {{[0-9]}}, args.scheduler.max_swizzle_size, args.scheduler.raster_order);
// CHECK-NEXT:    if (args.hw_info.sm_count == 0) return CODA_UNSUPPORTED;
// CHECK-NEXT:    args.hw_info.max_active_clusters = args.hw_info.sm_count / {{[0-9]}};
// CHECK-NOT:     launchRowPassBeside
// CHECK:         if (!pass && coda::rt::launchCombine<coda::rt::Combiner::Sum, float>
// CHECK:       extern "C" int main_k0(
// CHECK-NEXT:    return main_k0_launch({{.*}}, workspace, stream, nullptr);
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         // The linalg.generic after it runs in it, on the values its tiles hold.
// CHECK-NEXT:    main_k0_pass main_k0_row_pass{};
// CHECK:         if (int s = main_k0_launch({{.*}}, scratch, stream, &main_k0_row_pass)) return s;
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

// The tile holds D's values as bf16 pairs: an f16 result is no row pass held, but a kernel after
// the GEMM.
#rows = affine_map<(i, j) -> (i, 0)>
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: // main_k0: A · Bᵀ
// CHECK-NOT:   RowPass<
// CHECK-NOT:   rowBlockWaves
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         main_g0<<<
func.func @main(%x: tensor<256x512xf16>, %w: tensor<1024x512xf16>)
    -> tensor<256x1024xf16> {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<256x512xf16>, tensor<1024x512xf16>
      -> (store tensor<256x1024xf16>, reduce<row, sumsq> tensor<256xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc, %acc : f32, f32
  }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [256, 1] : tensor<256xf32> into tensor<256x1xf32>
  %e = tensor.empty() : tensor<256x1024xf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %ss2 : tensor<256x1024xf16>, tensor<256x1xf32>) outs(%e : tensor<256x1024xf16>) {
  ^bb0(%hv: f16, %sv: f32, %o: f16):
    %hf = arith.extf %hv : f16 to f32
    %n = arith.mulf %hf, %sv : f32
    %yb = arith.truncf %n : f32 to f16
    linalg.yield %yb : f16
  } -> tensor<256x1024xf16>
  return %y : tensor<256x1024xf16>
}

// -----

// A generic that reads the row reduction but not the tile's values (nothing for a tile to hold
// them for): a kernel after the GEMM.
#rows = affine_map<(i, j) -> (i, 0)>
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: // main_k0: A · Bᵀ
// CHECK-NOT:   RowPass<
// CHECK-LABEL: extern "C" int main_run(
// CHECK:         main_g0<<<
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %z: tensor<256x1024xbf16>)
    -> (tensor<256x1024xbf16>, tensor<256x1024xbf16>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      -> (store tensor<256x1024xbf16>, reduce<row, sumsq> tensor<256xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc, %acc : f32, f32
  }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [256, 1] : tensor<256xf32> into tensor<256x1xf32>
  %e = tensor.empty() : tensor<256x1024xbf16>
  %y = linalg.generic {indexing_maps = [#id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z, %ss2 : tensor<256x1024xbf16>, tensor<256x1xf32>) outs(%e : tensor<256x1024xbf16>) {
  ^bb0(%zv: bf16, %sv: f32, %o: bf16):
    %zf = arith.extf %zv : bf16 to f32
    %n = arith.mulf %zf, %sv : f32
    %yb = arith.truncf %n : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<256x1024xbf16>
  return %h, %y : tensor<256x1024xbf16>, tensor<256x1024xbf16>
}

// -----

// A generic that reads the tile's values twice takes both from the tile: its stores of them need
// not have landed.
#rows = affine_map<(i, j) -> (i, 0)>
#id = affine_map<(i, j) -> (i, j)>
// CHECK-LABEL: main_k0_pass_held(long long point, const coda::rt::Vec8 &h,
// CHECK:         in.{{v[0-9]+v}} = h;
// CHECK-NEXT:    in.{{v[0-9]+v}} = h;
// CHECK-NEXT:    in.{{v[0-9]+}} = coda::rt::load(p2, d0 + 0LL);
// CHECK:       using EVT = coda::rt::RowPass<Dag, main_k0_pass, /*Held=*/true>;
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>)
    -> (tensor<256x1024xbf16>, tensor<256x1024xbf16>) {
  %h, %ss = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      -> (store tensor<256x1024xbf16>, reduce<row, sumsq> tensor<256xf32>)
      epilogue(%acc: f32, %i: index, %j: index) {
    coda.yield %acc, %acc : f32, f32
  }
  %ss2 = tensor.expand_shape %ss [[0, 1]] output_shape [256, 1] : tensor<256xf32> into tensor<256x1xf32>
  %e = tensor.empty() : tensor<256x1024xbf16>
  %y = linalg.generic {indexing_maps = [#id, #id, #rows, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %h, %ss2 : tensor<256x1024xbf16>, tensor<256x1024xbf16>, tensor<256x1xf32>)
      outs(%e : tensor<256x1024xbf16>) {
  ^bb0(%a: bf16, %b: bf16, %sv: f32, %o: bf16):
    %af = arith.extf %a : bf16 to f32
    %bf = arith.extf %b : bf16 to f32
    %p = arith.mulf %af, %bf : f32
    %n = arith.mulf %p, %sv : f32
    %yb = arith.truncf %n : f32 to bf16
    linalg.yield %yb : bf16
  } -> tensor<256x1024xbf16>
  return %h, %y : tensor<256x1024xbf16>, tensor<256x1024xbf16>
}
