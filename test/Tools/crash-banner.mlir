// A crash inside a tool (here MLIR 22's own parser, which dereferences a null element type on
// `array<index: ...>`) prints coda's banner and a stack dump that names the input file.
// RUN: not --crash coda-opt %s 2>&1 | FileCheck %s --check-prefix=OPT
// RUN: not --crash coda-translate --coda-to-cuda %s 2>&1 | FileCheck %s --check-prefix=TRANSLATE
// RUN: not --crash coda-run %s 2>&1 | FileCheck %s --check-prefix=CPU

// OPT: PLEASE report this crash of a coda tool with the input file and the stack dump below
// OPT: coda-opt: processing '{{.*}}crash-banner.mlir'
// TRANSLATE: PLEASE report this crash of a coda tool
// TRANSLATE: Program arguments: {{.*}}coda-translate --coda-to-cuda {{.*}}crash-banner.mlir
// CPU: PLEASE report this crash of a coda tool
// CPU: coda-run: running '{{.*}}crash-banner.mlir'

func.func @main() attributes {a = array<index: 1, 2>} {
  return
}
