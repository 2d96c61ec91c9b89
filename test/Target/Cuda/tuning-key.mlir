// A kernel's tuning key says what decides its speed, not how the program spells it: the same
// kernel written with other value names, another traffic attribute and its epilogue's operands
// in another order keeps its key (a database entry survives front-end changes); another element
// type, role or result mode gets another key.
// RUN: coda-translate --coda-to-cuda %s | FileCheck %s

// CHECK: // coda-tuning-key: [[KEY:256x1024x512:bf16:nt:plain:col-bf16,row-f32:store-bf16:ops[0-9]+]]
// CHECK: // coda-tuning-key: [[KEY]]
// CHECK-NEXT: // configuration
// CHECK: // coda-tuning-key: 256x1024x512:bf16:nt:plain:col-f32,row-f32:store-bf16:ops{{[0-9]+}}
// CHECK: // coda-tuning-key: 256x1024x512:bf16:nt:plain:col-bf16,row-f32:store-bf16,reduce_row_max-f32:ops{{[0-9]+}}

func.func @a(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %s: tensor<256xf32>) -> tensor<256x1024xbf16> {
  %0 = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%b as col : tensor<1024xbf16>, %s as row : tensor<256xf32>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%acc: f32, %bias: bf16, %scale: f32, %i: index, %j: index) {
    %bf = arith.extf %bias : bf16 to f32
    %y = arith.addf %acc, %bf : f32
    %z = arith.mulf %y, %scale : f32
    coda.yield %z : f32
  }
  return %0 : tensor<256x1024xbf16>
}

func.func @b(%x2: tensor<256x512xbf16>, %w2: tensor<1024x512xbf16>, %c: tensor<1024xbf16>, %r: tensor<256xf32>) -> tensor<256x1024xbf16> {
  %0 = coda.gemm %x2, %w2 transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%c as col : tensor<1024xbf16>, %r as row : tensor<256xf32>)
      -> (store tensor<256x1024xbf16>) attributes {coda.unfused_bytes = array<i64: 1, 2>}
      epilogue(%a: f32, %v: bf16, %t: f32, %p: index, %q: index) {
    %vf = arith.extf %v : bf16 to f32
    %m = arith.addf %vf, %a : f32
    %o = arith.mulf %t, %m : f32
    coda.yield %o : f32
  }
  return %0 : tensor<256x1024xbf16>
}

func.func @f32_bias(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xf32>, %s: tensor<256xf32>) -> tensor<256x1024xbf16> {
  %0 = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%b as col : tensor<1024xf32>, %s as row : tensor<256xf32>)
      -> (store tensor<256x1024xbf16>)
      epilogue(%acc: f32, %bias: f32, %scale: f32, %i: index, %j: index) {
    %y = arith.addf %acc, %bias : f32
    %z = arith.mulf %y, %scale : f32
    coda.yield %z : f32
  }
  return %0 : tensor<256x1024xbf16>
}

func.func @with_max(%x: tensor<256x512xbf16>, %w: tensor<1024x512xbf16>, %b: tensor<1024xbf16>, %s: tensor<256xf32>) -> (tensor<256x1024xbf16>, tensor<256xf32>) {
  %0:2 = coda.gemm %x, %w transpose_b : tensor<256x512xbf16>, tensor<1024x512xbf16>
      with(%b as col : tensor<1024xbf16>, %s as row : tensor<256xf32>)
      -> (store tensor<256x1024xbf16>, reduce<row, max> tensor<256xf32>)
      epilogue(%acc: f32, %bias: bf16, %scale: f32, %i: index, %j: index) {
    %bf = arith.extf %bias : bf16 to f32
    %y = arith.addf %acc, %bf : f32
    %z = arith.mulf %y, %scale : f32
    coda.yield %z, %z : f32, f32
  }
  return %0#0, %0#1 : tensor<256x1024xbf16>, tensor<256xf32>
}
