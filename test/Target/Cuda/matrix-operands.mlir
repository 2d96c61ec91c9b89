// RUN: coda-translate --coda-to-cuda %s | FileCheck %s

// Matrix operands: the first one typed like D (bf16) is read through the collective's C, a TMA
// load with its own stride (packed, or a re-pitched copy's); another (here f32) is read per element by coda::rt::GlobalLoad.
// CHECK-LABEL: struct main_k0_kernel {
// CHECK:         using ElementC = cutlass::bfloat16_t; // operand #1, read through the collective's C
// CHECK:         coda::rt::GlobalLoad<float>,  // 0
// CHECK-NEXT:    {{.*}}Sm90SrcFetch<{{.*}}>,  // 1
// CHECK-NEXT:    coda::rt::GlobalLoad<cutlass::bfloat16_t>,  // 2
// CHECK-NEXT:    coda::rt::IndexedCompute<main_k0_v0>,  // 3
// CHECK:         restaged.input(operand1, ldc, m, n, sizeof(K::ElementC)))
// CHECK-NEXT:      return CODA_LAUNCH_FAILED;
// CHECK:         auto sC = cutlass::make_cute_packed_stride(typename G::GemmKernel::StrideC{}, {m, n, 1});
// CHECK-NEXT:    cute::get<0>(sC) = ldc;
// CHECK:         {{[{][{][}]}}, static_cast<const K::ElementC *>(operand1), sC, static_cast<K::ElementD *>(result0), sD{{[}][}]}};
// CHECK:         args.epilogue.thread = {{[{]}}{static_cast<const float *>(operand0), n}, {}, {static_cast<const cutlass::bfloat16_t *>(operand2), n}, {}, {}};
func.func @main(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %a: tensor<256x1024xf32>,
                %b: tensor<256x1024xbf16>, %c: tensor<256x1024xbf16>) -> tensor<256x1024xbf16> {
  %y = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%a as matrix : tensor<256x1024xf32>, %b as matrix : tensor<256x1024xbf16>,
           %c as matrix : tensor<256x1024xbf16>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%acc: f32, %av: f32, %bv: bf16, %cv: bf16, %i: index, %j: index) {
    %bf = arith.extf %bv : bf16 to f32
    %cf = arith.extf %cv : bf16 to f32
    %s = arith.addf %acc, %av : f32
    %t = arith.addf %s, %bf : f32
    %u = arith.mulf %t, %cf : f32
    coda.yield %u : f32
  }
  return %y : tensor<256x1024xbf16>
}
