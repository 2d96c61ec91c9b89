"""coda's command-line tools from Python, without PyTorch (the emitting half of the GPU scripts
runs where LLVM is, which need not have torch)."""
import os
import subprocess


def fuse_and_emit(program, cu, build, fuse="--coda-fuse", translate_flags=()):
    """`coda-opt <fuse>` of the program file, then `coda-translate --coda-to-cuda
    --emit-torch-binding <translate_flags>` into `cu`, with the fused program kept beside it
    (`<cu>.fused.mlir` for `<cu>.cu`); coda's tools from the build folder `build`."""
    opt, translate = (os.path.join(build, "bin", t) for t in ("coda-opt", "coda-translate"))
    fused = os.path.splitext(cu)[0] + ".fused.mlir"
    subprocess.run([opt, fuse, program, "-o", fused], check=True)
    subprocess.run([translate, "--coda-to-cuda", "--emit-torch-binding", *translate_flags, fused,
                    "-o", cu], check=True)
    return cu
