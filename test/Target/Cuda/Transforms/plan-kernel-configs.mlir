// RUN: coda-opt --coda-plan-kernel-configs %s | FileCheck %s
// RUN: coda-opt --coda-plan-kernel-configs="without=tma-contract,whole-waves" %s | FileCheck %s --check-prefix=WITHOUT
// RUN: coda-opt --coda-plan-kernel-configs="target=h100-sxm" %s | FileCheck %s --check-prefix=H100
// RUN: not coda-opt --coda-plan-kernel-configs="target=a100" %s 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not coda-opt --coda-plan-kernel-configs="without=tiles" %s 2>&1 | FileCheck %s --check-prefix=PATH
// The plan that coda-translate prints: a planned module translates to the same file.
// RUN: coda-opt --coda-plan-cuda %s -o %t.planned.mlir
// RUN: coda-translate --coda-to-cuda %t.planned.mlir -o %t.planned.cu
// RUN: coda-translate --coda-to-cuda %s -o %t.cu
// RUN: diff %t.cu %t.planned.cu

// SwiGLU: the contracted result leaves through a ContractStore (TMA), the row max as tile
// partials; a ping-pong kernel on whole waves. The reasons sit beside the decision.
// CHECK-LABEL: func.func @swiglu
// CHECK:         coda.gemm
// CHECK-NEXT:      attributes {coda.kernel = #coda.kernel<tileM = {{[0-9]+}}, tileN = {{[0-9]+}}, tileK = 64, {{[^>]*}}schedule = pingpong, {{[^>]*}}stores = [contract, partials]>
// CHECK-SAME:      coda.tuning = {candidates = [{config = #coda.kernel<{{.*}}>, model_ns = {{[0-9]+}} : i64}{{.*}}], chosen_by = "model", key = "8192x28672x4096:bf16:nt:contract:-:store-bf16,reduce_row_max-f32:ops21", model_inputs = "epilogue 1.0 bytes and 21 fp32 ops per element"}
// WITHOUT-LABEL: func.func @swiglu
// WITHOUT:         stores = [direct, partials]
// WITHOUT-SAME:    grid = all_sms
// H100-LABEL:    func.func @swiglu
// H100:            chosen_by = "model"
// TARGET: error: unknown target GPU 'a100'; known: h200 (NVIDIA H200{{.*}}) h100-sxm (NVIDIA H100 SXM{{.*}})
// PATH: error: without: unknown path 'tiles'; expected tma-halves, tma-contract, tma-tables or whole-waves
func.func @swiglu(%x: tensor<8192x4096xbf16>, %w: tensor<28672x4096xbf16>)
    -> (tensor<8192x14336xbf16>, tensor<8192xf32>) {
  %y, %mx = coda.gemm %x, %w transpose_b pairwise(contract)
      : tensor<8192x4096xbf16>, tensor<28672x4096xbf16>
      -> (store tensor<8192x14336xbf16>, reduce<row, max> tensor<8192xf32>)
      epilogue(%g: f32, %u: f32, %i: index, %p: index) {
    %one = arith.constant 1.0 : f32
    %ng = arith.negf %g : f32
    %e = math.exp %ng : f32
    %d = arith.addf %e, %one : f32
    %silu = arith.divf %g, %d : f32
    %y = arith.mulf %silu, %u : f32
    coda.yield %y, %y : f32, f32
  }
  return %y, %mx : tensor<8192x14336xbf16>, tensor<8192xf32>
}

// A residual rides the collective's C; the norm's sum of squares leaves as partials.
// CHECK-LABEL: func.func @residual
// CHECK:         stores = [tma, partials]
// CHECK-SAME:    chosen_by = "model"
func.func @residual(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %res: tensor<256x1024xbf16>)
    -> (tensor<256x1024xbf16>, tensor<256xf32>) {
  %y, %ss = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%res as matrix : tensor<256x1024xbf16>)
      -> (store tensor<256x1024xbf16>, reduce<row, sumsq> tensor<256xf32>)
      epilogue(%acc: f32, %r: bf16, %i: index, %j: index) {
    %rf = arith.extf %r : bf16 to f32
    %s = arith.addf %acc, %rf : f32
    coda.yield %s, %s : f32, f32
  }
  return %y, %ss : tensor<256x1024xbf16>, tensor<256xf32>
}

// Two query rows of a GQA pair against 100 keys: the row-wise kernel (one CTA reads the KV
// head once for both query heads) beats a 128-row tile of the block-wise kernel. 1000 query
// rows fill the tiles: block-wise.
// CHECK-LABEL: func.func @few_rows
// CHECK:         coda.attention {{.*}} attributes {coda.row_wise}
// CHECK-LABEL: func.func @many_rows
// CHECK-NOT:     coda.row_wise
// CHECK:         return
func.func @few_rows(%q: tensor<1x2x4x64xbf16>, %k: tensor<1x100x2x64xbf16>) -> tensor<1x2x4x64xbf16> {
  %o = coda.attention %q, %k, %k scale 0.125 mask <causal = true> layout <bshd>
      : tensor<1x2x4x64xbf16>, tensor<1x100x2x64xbf16>, tensor<1x100x2x64xbf16>
      -> tensor<1x2x4x64xbf16>
  return %o : tensor<1x2x4x64xbf16>
}
func.func @many_rows(%q: tensor<1x1000x4x64xbf16>, %k: tensor<1x1000x2x64xbf16>) -> tensor<1x1000x4x64xbf16> {
  %o = coda.attention %q, %k, %k scale 0.125 mask <causal = true> layout <bshd>
      : tensor<1x1000x4x64xbf16>, tensor<1x1000x2x64xbf16>, tensor<1x1000x2x64xbf16>
      -> tensor<1x1000x4x64xbf16>
  return %o : tensor<1x1000x4x64xbf16>
}

// A kernel the back end cannot run is an error here, at the op.
// RUN: not coda-opt --coda-plan-kernel-configs --split-input-file %S/Inputs/unplannable.mlir 2>&1 | FileCheck %s --check-prefix=ERROR
// ERROR: error: 'coda.gemm' op batched products with reduction results are not supported by the CUDA backend yet
