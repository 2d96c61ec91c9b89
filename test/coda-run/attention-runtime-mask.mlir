// A runtime mask (blocks and bits, built in the program from index arithmetic, as a mask
// preparation would) against the same mask written as a score region: tiles of class 0, 1 and
// 2, bits read only in class-2 tiles, Sq and Sk past a tile and a word boundary, the mask
// broadcast over heads and combined with a structured window.
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/region.mlir --entry main --seed 5 | FileCheck %s
// CHECK: result #0: {{.*}}: ok

//--- coda.mlir
#lane_map = affine_map<(b, h, i, w, t) -> (t)>
#bits_map = affine_map<(b, h, i, w, t) -> (b, h, i, w)>
func.func @main(%q: tensor<1x2x200x8xf32>, %k: tensor<1x2x200x8xf32>, %v: tensor<1x2x200x8xf32>) -> tensor<1x2x200x8xf32> {
  // Tiles: (0, 0) bits, (0, 1) nothing, (1, 0) everything, (1, 1) bits.
  %blocks = arith.constant dense<[[[[2, 0], [1, 2]]]]> : tensor<1x1x2x2xi8>
  // Bit t of word w of row i: key j = 32 w + t visible when j <= i and j mod 3 != 1.
  %zero = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<1x1x200x7xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x1x200x7xi32>) -> tensor<1x1x200x7xi32>
  %lanes = tensor.empty() : tensor<32xi32>
  %bits = linalg.generic {indexing_maps = [#lane_map, #bits_map],
      iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%lanes : tensor<32xi32>) outs(%init : tensor<1x1x200x7xi32>) {
  ^bb0(%lane: i32, %acc: i32):
    %i = linalg.index 2 : index
    %w = linalg.index 3 : index
    %t = linalg.index 4 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c200 = arith.constant 200 : index
    %base = arith.muli %w, %c32 : index
    %j = arith.addi %base, %t : index
    %inside = arith.cmpi slt, %j, %c200 : index
    %causal = arith.cmpi sle, %j, %i : index
    %rem = arith.remui %j, %c3 : index
    %kept = arith.cmpi ne, %rem, %c1 : index
    %a = arith.andi %inside, %causal : i1
    %vis = arith.andi %a, %kept : i1
    %t32 = arith.index_cast %t : index to i32
    %one = arith.constant 1 : i32
    %bit = arith.shli %one, %t32 : i32
    %zero32 = arith.constant 0 : i32
    %term = arith.select %vis, %bit, %zero32 : i32
    %r = arith.ori %acc, %term : i32
    linalg.yield %r : i32
  } -> tensor<1x1x200x7xi32>
  %o = coda.attention %q, %k, %v blocks(%blocks, %bits : tensor<1x1x2x2xi8>, tensor<1x1x200x7xi32>) scale 0.35 mask <left = 150> : tensor<1x2x200x8xf32>, tensor<1x2x200x8xf32>, tensor<1x2x200x8xf32> -> tensor<1x2x200x8xf32>
  return %o : tensor<1x2x200x8xf32>
}

//--- region.mlir
func.func @main(%q: tensor<1x2x200x8xf32>, %k: tensor<1x2x200x8xf32>, %v: tensor<1x2x200x8xf32>) -> tensor<1x2x200x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 : tensor<1x2x200x8xf32>, tensor<1x2x200x8xf32>, tensor<1x2x200x8xf32> -> tensor<1x2x200x8xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c128 = arith.constant 128 : index
    %c150 = arith.constant 150 : index
    %ninf = arith.constant 0xFF800000 : f32
    %true = arith.constant true
    %top = arith.cmpi ult, %i, %c128 : index
    %left = arith.cmpi ult, %j, %c128 : index
    %causal = arith.cmpi sle, %j, %i : index
    %rem = arith.remui %j, %c3 : index
    %kept = arith.cmpi ne, %rem, %c1 : index
    %bits = arith.andi %causal, %kept : i1
    // (1, 0) shows everything, (0, 0) and (1, 1) read the bits, (0, 1) hides everything.
    %bottom = arith.xori %top, %true : i1
    %all = arith.andi %bottom, %left : i1
    %diagonal = arith.cmpi eq, %top, %left : i1
    %read = arith.andi %diagonal, %bits : i1
    %runtime = arith.ori %all, %read : i1
    %lo = arith.subi %i, %c150 : index
    %window = arith.cmpi sge, %j, %lo : index
    %vis = arith.andi %runtime, %window : i1
    %r = arith.select %vis, %s, %ninf : f32
    coda.yield %r : f32
  }
  return %o : tensor<1x2x200x8xf32>
}
