// Every structured mask of coda.attention against the same attention written with a score
// region that sends the hidden scores to -inf: #coda.mask's index arithmetic, checked by an
// independent formulation of each mask.
// RUN: split-file %s %t
// RUN: coda-run %t/coda.mlir --against %t/region.mlir --entry causal --seed 3 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/region.mlir --entry window --seed 3 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/region.mlir --entry bidirectional_window --seed 3 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/region.mlir --entry dilated --seed 3 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/region.mlir --entry chunked --seed 3 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/region.mlir --entry sinks --seed 3 | FileCheck %s
// RUN: coda-run %t/coda.mlir --against %t/region.mlir --entry longformer --seed 3 | FileCheck %s
// CHECK: result #0: {{.*}}: ok

//--- coda.mlir
func.func @causal(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 mask <causal = true> : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32>
  return %o : tensor<1x2x24x8xf32>
}

func.func @window(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 mask <causal = true, left = 5> : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32>
  return %o : tensor<1x2x24x8xf32>
}

func.func @bidirectional_window(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 mask <left = 3, right = 2> : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32>
  return %o : tensor<1x2x24x8xf32>
}

func.func @dilated(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 mask <causal = true, dilation = 3> : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32>
  return %o : tensor<1x2x24x8xf32>
}

func.func @chunked(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 mask <causal = true, chunk = 8> : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32>
  return %o : tensor<1x2x24x8xf32>
}

func.func @sinks(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 mask <causal = true, left = 3, sinks = 2> : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32>
  return %o : tensor<1x2x24x8xf32>
}

func.func @longformer(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 mask <left = 2, right = 2, global = 3> : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32>
  return %o : tensor<1x2x24x8xf32>
}

//--- region.mlir
func.func @causal(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %vis = arith.cmpi sle, %j, %i : index
    %r = arith.select %vis, %s, %ninf : f32
    coda.yield %r : f32
  }
  return %o : tensor<1x2x24x8xf32>
}

func.func @window(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %c = arith.cmpi sle, %j, %i : index
    %lo = arith.subi %i, %c5 : index
    %w = arith.cmpi sge, %j, %lo : index
    %vis = arith.andi %c, %w : i1
    %r = arith.select %vis, %s, %ninf : f32
    coda.yield %r : f32
  }
  return %o : tensor<1x2x24x8xf32>
}

func.func @bidirectional_window(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %lo = arith.subi %i, %c3 : index
    %hi = arith.addi %i, %c2 : index
    %a = arith.cmpi sge, %j, %lo : index
    %b2 = arith.cmpi sle, %j, %hi : index
    %vis = arith.andi %a, %b2 : i1
    %r = arith.select %vis, %s, %ninf : f32
    coda.yield %r : f32
  }
  return %o : tensor<1x2x24x8xf32>
}

func.func @dilated(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %c = arith.cmpi sle, %j, %i : index
    %d = arith.subi %i, %j : index
    %m = arith.remui %d, %c3 : index
    %z = arith.cmpi eq, %m, %c0 : index
    %vis = arith.andi %c, %z : i1
    %r = arith.select %vis, %s, %ninf : f32
    coda.yield %r : f32
  }
  return %o : tensor<1x2x24x8xf32>
}

func.func @chunked(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %c = arith.cmpi sle, %j, %i : index
    %qi = arith.divui %i, %c8 : index
    %qj = arith.divui %j, %c8 : index
    %z = arith.cmpi eq, %qi, %qj : index
    %vis = arith.andi %c, %z : i1
    %r = arith.select %vis, %s, %ninf : f32
    coda.yield %r : f32
  }
  return %o : tensor<1x2x24x8xf32>
}

func.func @sinks(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %c = arith.cmpi sle, %j, %i : index
    %lo = arith.subi %i, %c3 : index
    %w = arith.cmpi sge, %j, %lo : index
    %band = arith.andi %c, %w : i1
    %sk = arith.cmpi ult, %j, %c2 : index
    %sc = arith.andi %sk, %c : i1
    %vis = arith.ori %band, %sc : i1
    %r = arith.select %vis, %s, %ninf : f32
    coda.yield %r : f32
  }
  return %o : tensor<1x2x24x8xf32>
}

func.func @longformer(%q: tensor<1x2x24x8xf32>, %k: tensor<1x2x24x8xf32>, %v: tensor<1x2x24x8xf32>) -> tensor<1x2x24x8xf32> {
  %o = coda.attention %q, %k, %v scale 0.35 : tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32>, tensor<1x2x24x8xf32> -> tensor<1x2x24x8xf32> score {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %c0 = arith.constant 0 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c8 = arith.constant 8 : index
    %ninf = arith.constant 0xFF800000 : f32
    %lo = arith.subi %i, %c2 : index
    %hi = arith.addi %i, %c2 : index
    %a = arith.cmpi sge, %j, %lo : index
    %b2 = arith.cmpi sle, %j, %hi : index
    %band = arith.andi %a, %b2 : i1
    %gj = arith.cmpi ult, %j, %c3 : index
    %gi = arith.cmpi ult, %i, %c3 : index
    %g = arith.ori %gj, %gi : i1
    %vis = arith.ori %band, %g : i1
    %r = arith.select %vis, %s, %ninf : f32
    coda.yield %r : f32
  }
  return %o : tensor<1x2x24x8xf32>
}
