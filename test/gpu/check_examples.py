#!/usr/bin/env python3
"""T3: every example of examples/cuda (and the torch-mlir programs of FUSED, fused by coda-opt) on
the GPU against a PyTorch reference.

Each example is emitted with `coda-translate --coda-to-cuda --emit-torch-binding` (or taken
from --emitted DIR, for a GPU machine without LLVM), loaded with
torch.utils.cpp_extension.load, and run on random bf16 data over ragged shapes. The reference
computes the same program in fp32 from the same bf16 inputs with PyTorch ops. An output passes
when max|out - ref| / max|ref| <= 1e-2 (bf16 rounding of the output is 2^-9 relative; the rest
is accumulation order); a layer of coda.models passes within twice the error of PyTorch's own
bf16 layer where that is larger. Shapes and views whose rows break TMA's 16-byte alignment must
run through the launcher's aligned copies and pass the same bound; the few refusals left must come
with a clear error. Exit status 0 when every check passes.

Usage: check_examples.py [--emitted DIR] [--builds DIR] [--build DIR] [--only NAME] [--small]
"""
import argparse
import concurrent.futures
import math
import os
import subprocess
import sys

import torch
import torch.nn.functional as F

from coda import models, tools
from coda.extension import as_list, build, fp32_reference, rel_err
from coda.paths import ROOT, build_dir

BOUND = 1e-2
# fp32 products to fp32's accuracy (accumulation order over K up to 8184 included).
EXACT_BOUND = 2e-5
BOUNDS = {"bias_gelu_f32_exact": EXACT_BOUND}

# (M, N, K): ragged sizes from {1, 7, 129, 1000, 8191} where TMA allows them (K and N multiples
# of 8 for bf16), next to the aligned neighbours of the ones it does not.
SHAPES = [(1, 8, 8), (7, 1000, 1024), (129, 136, 8184), (1000, 8192, 512), (8191, 1000, 136),
          (129, 1000, 1000), (8191, 8192, 1024)]
SMALL = [(7, 264, 136)]
# Shapes whose rows TMA cannot address in place (K = 129, K = 1; N = 7 and 1001 where N is a row
# length): the launcher copies them to aligned rows, and they must compute right (an odd N may
# only be refused by a pairwise kernel, with its reason).
UNALIGNED = [(8, 7, 64), (8, 64, 129), (8, 64, 1), (129, 1001, 1001)]
# Shapes one example must refuse besides: the N/2 columns a pairwise contract stores by TMA
# (tma-contract) are 16-byte rows only for N a multiple of 16.
REFUSED = {"swiglu": [(8, 24, 64)], "swiglu_split": [(8, 24, 64)]}


def bf16(*shape):
    return torch.randn(*shape, device="cuda").to(torch.bfloat16)


def acc_of(x, w):
    """The fp32 accumulator A·Bᵀ from the bf16 inputs."""
    return x.float() @ w.float().t()


def gelu_tanh(z):
    return 0.5 * z * (1 + torch.tanh(0.7978845608 * (z + 0.044715 * z ** 3)))


# Each example: its inputs for (m, n, k) and the PyTorch reference of its results.
def bias_gelu(m, n, k):
    x, w, b, s = bf16(m, k), bf16(n, k), bf16(n), torch.rand(m, device="cuda")
    return (x, w, b, s), [gelu_tanh(acc_of(x, w) + b.float()) * s[:, None]]


def bias_gelu_f32(m, n, k):
    """fp32 inputs, bias and result: the product on TF32 wgmma, against fp32 PyTorch."""
    x, w, b = (torch.randn(*shape, device="cuda") for shape in [(m, k), (n, k), (n,)])
    return (x, w, b), [gelu_tanh(x @ w.t() + b)]


def bias_gelu_f32_exact(m, n, k):
    """bias_gelu_f32 with --fp32-products=3xtf32 (three TF32 products): against an fp64
    reference, within EXACT_BOUND (one TF32 product misses it by two orders of magnitude)."""
    x, w, b = (torch.randn(*shape, device="cuda") for shape in [(m, k), (n, k), (n,)])
    return (x, w, b), [gelu_tanh(x.double() @ w.double().t() + b.double()).float()]


def batched_bias_gelu(m, n, k):
    """Three products, each with its own weight, and a bias shared by the batch."""
    x, w, b = bf16(3, m, k), bf16(3, n, k), bf16(n)
    return (x, w, b), [gelu_tanh(x.float() @ w.float().transpose(1, 2) + b.float())]


def down_residual(m, n, k):
    h, w, res = bf16(m, k), bf16(n, k), bf16(m, n)
    return (h, w, res), [res.float() + acc_of(h, w)]


def residual_rmsnorm(m, n, k):
    x, w, res = bf16(m, k), bf16(n, k), bf16(m, n)
    h = res.float() + acc_of(x, w)
    return (x, w, res), [h, (h * h).sum(1)]


def relu(m, n, k):
    x, w = bf16(m, k), bf16(n, k)
    return (x, w), [torch.relu(acc_of(x, w))]


def swiglu(m, n, k):
    x, w = bf16(m, k), bf16(n, k)
    acc = acc_of(x, w)[:, : n // 2 * 2]  # (an odd N is refused by the kernel)
    y = F.silu(acc[:, 0::2]) * acc[:, 1::2]
    return (x, w), [y, y.max(1).values]


def rope(m, n, k, tables=torch.float32):
    x, w = bf16(m, k), bf16(k, n).t().contiguous()
    pos = torch.arange(m, device="cuda", dtype=torch.float32)[:, None]
    freq = 10000.0 ** (-torch.arange(128, device="cuda", dtype=torch.float32) // 2 * 2 / 128)
    cos_in, sin_in = torch.cos(pos * freq).to(tables), torch.sin(pos * freq).to(tables)
    cos, sin = cos_in.float(), sin_in.float()
    acc = acc_of(x, w)
    a, b = acc[:, 0::2], acc[:, 1::2]
    reps = -(-n // 128)  # column j reads the tables at j mod 128, at any N
    c0, c1 = (cos[:, p::2].repeat(1, reps)[:, : n // 2] for p in (0, 1))
    s0, s1 = (sin[:, p::2].repeat(1, reps)[:, : n // 2] for p in (0, 1))
    out = torch.empty_like(acc)
    out[:, 0::2] = a * c0 - b * s0
    out[:, 1::2] = b * c1 + a * s1
    return (x, w, cos_in, sin_in), [out]


def rope_halves(m, n, k):
    """rope's pairs, each written back into its head's halves (columns d and d + 64), from bf16
    tables (read through TMA in ping-pong tiles)."""
    inputs, [pairs] = rope(m, n, k, tables=torch.bfloat16)
    return inputs, [pairs.view(m, n // 128, 64, 2).transpose(2, 3).reshape(m, n)]


def lm_head_ce(m, n, k):
    x, w = bf16(m, k), bf16(n, k)
    labels = torch.randint(0, n, (m,), device="cuda")
    acc = acc_of(x, w)
    return (x, w, labels), [torch.logsumexp(acc, 1), acc.gather(1, labels[:, None])[:, 0]]


def pre_post_activation(m, n, k):
    x, w, b = bf16(m, k), bf16(n, k), torch.randn(n, device="cuda")
    z = acc_of(x, w) + b
    y = torch.relu(z)
    return (x, w, b), [y, z, y.sum(0), y.max(0).values]


def expand(m, n, k):
    x, w, s = bf16(m, k), bf16(k, n), torch.rand((), device="cuda")
    z = (x.float() @ w.float()) * s
    out = torch.empty(m, 2 * n, device="cuda")
    out[:, 0::2] = z
    out[:, 1::2] = F.gelu(z)
    return (x, w, s), [out]


def layernorm_qkv(m=256, n=768, k=512):
    """LayerNorm (D = 512) folded into the product; Σx and Σx² from a reduction before it."""
    x, w = bf16(m, k), bf16(n, k)
    wsum = w.float().sum(1)
    mean = x.float().sum(1) / 512
    r = torch.rsqrt((x.float() ** 2).sum(1) / 512 - mean ** 2 + 1e-5)
    return (x, w, wsum), [r[:, None] * (acc_of(x, w) - mean[:, None] * wsum[None, :])]


EXAMPLES = {f.__name__: f for f in [bias_gelu, bias_gelu_f32, bias_gelu_f32_exact, batched_bias_gelu,
                                    down_residual, residual_rmsnorm, swiglu, rope, rope_halves,
                                    lm_head_ce, pre_post_activation, expand, relu]}
EXAMPLES["swiglu_threads"] = swiglu  # its contracted result stored by each thread, any even N
EXAMPLES["bias_gelu_adapter_launch"] = bias_gelu  # launched by CUTLASS's adapter, not coda's host path
# Split-K kernels (test/gpu/split-k.json): a residual with row sums of squares split 4 ways, a
# contracted result stored by TMA split 2 ways, log-sum-exp partials split 8 ways; at K 8 the
# splits outnumber the k-tiles.
SPLIT = ["residual_rmsnorm", "swiglu", "lm_head_ce"]
for _name in SPLIT:
    EXAMPLES[f"{_name}_split"] = EXAMPLES[_name]
# A launcher that dispatches on M (--m-dispatch=64): at M <= 64 a split-K configuration
# (test/gpu/dispatch.json's entry for M 64), the example's own configuration above.
EXAMPLES["residual_rmsnorm_dispatch"] = residual_rmsnorm


def rmsnorm_block():
    """@main of rmsnorm_block.mlir at its static sizes: weight preparation and two kernels."""
    x, w_o, res = bf16(256, 512), bf16(512, 512), bf16(256, 512)
    gamma, w_qkv = (1 + 0.1 * torch.randn(512, device="cuda")).to(torch.bfloat16), bf16(768, 512)
    h = res.float() + acc_of(x, w_o)
    r = torch.rsqrt((h * h).sum(1) / 512 + 1e-5)
    w_prepared = (gamma.float()[None, :] * w_qkv.float()).to(torch.bfloat16)
    y = r[:, None] * acc_of(h.to(torch.bfloat16), w_prepared)
    return (x, w_o, res, gamma, w_qkv), [h, y]


def rmsnorm_output(m, n, k):
    """A function of rmsnorm_output.mlir: h = res + x·Wᵀ, then y = h · rsqrt(Σh²/N + ε) · γ from
    the stored (bf16) h, which the kernel runs as its row pass."""
    x, w, res = bf16(m, k), bf16(n, k), bf16(m, n)
    gamma = (1 + 0.1 * torch.randn(n, device="cuda")).to(torch.bfloat16)
    h = res.float() + acc_of(x, w)
    r = torch.rsqrt((h * h).sum(1, keepdim=True) / n + 1e-5)
    return (x, w, res, gamma), [h, h.to(torch.bfloat16).float() * r * gamma.float()]


def interleave_rows():
    gate, up = bf16(96, 64), bf16(96, 64)
    return (gate, up), [torch.stack([gate, up], 1).reshape(192, 64).float()]


def rope_permute():
    w = bf16(64, 64)
    r = torch.arange(64, device="cuda")
    src = r // 16 * 16 + r % 16 // 2 + r % 2 * 8
    return (w,), [w[src].float()]


def layernorm_weights():
    w, gamma, beta = bf16(192, 64), torch.randn(64, device="cuda"), torch.randn(64, device="cuda")
    scaled = (w.float() * gamma).to(torch.bfloat16)
    return (w, gamma, beta), [scaled.float(), scaled.float().sum(1), w.float() @ beta]


def gpt_oss_mlp():
    """@main of examples/torch/gpt_oss_mlp_bf16.mlir fused by coda-opt: [2, 8, 64] tokens, gate and
    up interleaved in 192 columns, down to 64; against the fp32 reference."""
    xs = (bf16(2, 8, 64), 0.2 * bf16(192, 64), bf16(192), 0.2 * bf16(64, 96), bf16(64))
    return xs, fp32_reference(models.gpt_oss_mlp, xs)


def layer(name, dtype=torch.bfloat16):
    """@main of examples/torch/<name>_bf16.mlir fused by coda-opt, on the arguments
    coda.models exports it with, in bf16: against the same layer in fp32, within twice the error
    of PyTorch's own bf16 layer (its attention and norms round too) or BOUND, the larger. With
    dtype fp32, <name>.mlir on fp32 arguments (products on TF32).
    Weight matrices are scaled by 1/sqrt(fan-in), as initialized models are: with unit weights
    the scores saturate the softmax, and which key wins a near-tie is bf16 rounding's choice."""
    fn, make_args = models.LAYERS[name]

    def make():
        xs = tuple((x / x.shape[1] ** 0.5 if x.dim() == 2 else x).to("cuda", dtype)
                   for x in make_args())
        refs = fp32_reference(fn, xs)
        torch_err = max(rel_err(o, r) for o, r in zip(as_list(fn(*xs)), refs))
        return xs, refs, max(BOUND, 2 * torch_err)
    return make


# Examples whose functions run through their launchers (`<func>_run`, bound as `<func>`).
ROW_OUTPUTS = [("main", lambda: rmsnorm_output(512, 1024, 512)),
               ("ragged", lambda: rmsnorm_output(1000, 1000, 136)),
               ("tall", lambda: rmsnorm_output(8191, 4096, 256))]
FUNCTIONS = {"rmsnorm_block": [("main", rmsnorm_block), ("main_prepared", rmsnorm_block)],
             "rmsnorm_output": ROW_OUTPUTS,
             "weight_prep": [("interleave_rows", interleave_rows), ("rope_permute", rope_permute),
                             ("layernorm_weights", layernorm_weights)]}
FUNCTIONS["gpt_oss_mlp"] = [("main", gpt_oss_mlp)]
# K 129, N 1001 and 7: every product re-pitches rows that TMA cannot address.
FUNCTIONS["odd_mlp"] = [("main", layer("odd_mlp"))]
FUNCTIONS["odd_mlp_f32"] = [("main", layer("odd_mlp", torch.float32))]
# Batched products (torch.bmm, matmul against a transposed batch): one batched launch each.
FUNCTIONS["batched_mlp"] = [("main", layer("batched_mlp"))]
FUNCTIONS["batched_mlp_f32"] = [("main", layer("batched_mlp", torch.float32))]
# transformers-style layers ([B, S, D]): attention runs in the launcher's generic kernels.
HF_LAYERS = [name for name in models.LAYERS if name.startswith("hf_")]
for _name in HF_LAYERS:
    FUNCTIONS[_name] = [("main", layer(_name))]
FUNCTIONS["layernorm_qkv"] = [("main", layernorm_qkv)]
FUNCTIONS["rmsnorm_block_adapter_launch"] = FUNCTIONS["rmsnorm_block"]  # through CUTLASS's adapter


def adapt(name, shape):
    """RoPE written into heads' halves: N rounded down to a multiple of the 128-column heads.
    SwiGLU's N/2 columns stored by TMA: N rounded up to a multiple of 16 (still ragged to its
    tiles)."""
    m, n, k = shape
    if name == "rope_halves":
        n = max(128, n // 128 * 128)
    if name in ("swiglu", "swiglu_split"):
        n = (n + 15) // 16 * 16
    return m, n, k


# Examples emitted once more with other coda-translate options: name -> (example, options).
VARIANTS = {"swiglu_threads": ("swiglu", ["--cuda-without=tma-contract"]),
            "bias_gelu_f32_exact": ("bias_gelu_f32", ["--fp32-products=3xtf32"]),
            "bias_gelu_adapter_launch": ("bias_gelu", ["--cuda-without=direct-launch"]),
            "rmsnorm_block_adapter_launch": ("rmsnorm_block", ["--cuda-without=direct-launch"])}
VARIANTS["residual_rmsnorm_dispatch"] = (
    "residual_rmsnorm", ["--m-dispatch=64", "--tuning-db=" + os.path.join(ROOT, "test", "gpu", "dispatch.json")])
VARIANTS.update({f"{name}_split": (name, ["--tuning-db=" + os.path.join(ROOT, "test", "gpu", "split-k.json")])
                 for name in SPLIT})


# Programs as torch-mlir writes them, fused by coda-opt before they are emitted: name -> file.
FUSED = {name: os.path.join("examples", "torch", f"{name}_bf16.mlir")
         for name in ["gpt_oss_mlp", "odd_mlp", "batched_mlp"] + HF_LAYERS}
FUSED.update({f"{name}_f32": os.path.join("examples", "torch", f"{name}.mlir")
              for name in ["odd_mlp", "batched_mlp"]})


def emit(name, args):
    cu = os.path.join(args.out, f"{name}.cu")
    translate = os.path.join(args.build, "bin", "coda-translate")
    example, options = VARIANTS.get(name, (name, []))
    if os.path.exists(translate) and name in FUSED:
        tools.fuse_and_emit(os.path.join(ROOT, FUSED[name]), cu, args.build)
    elif os.path.exists(translate):
        subprocess.run([translate, "--coda-to-cuda", "--emit-torch-binding", *options,
                        os.path.join(ROOT, "examples", "cuda", f"{example}.mlir"), "-o", cu],
                       check=True)
    elif not os.path.exists(cu):
        sys.exit(f"check_examples: no {translate} and no {cu}")
    return cu


def check_function(name, module):
    return all([check_one_function(name, module, function, make)
                for function, make in FUNCTIONS[name]])


def check_one_function(name, module, function, make):
    torch.manual_seed(1)
    inputs, refs, *bound = make()
    bound = bound[0] if bound else BOUND
    if function.endswith("_prepared"):  # weights prepared once by <f>_prepare, then passed in
        inputs = inputs + tuple(as_list(getattr(module, function[: -len("d")])(*inputs)))
    outs = as_list(getattr(module, function)(*inputs))
    torch.cuda.synchronize()
    errs = [rel_err(o, r) for o, r in zip(outs, refs)]
    ok = all(e <= bound for e in errs) and len(outs) == len(refs)
    print(f"  {name:20s} @{function} rel " + " ".join(f"{e:.1e}" for e in errs) +
          (f" (bound {bound:.1e})" if bound != BOUND else "") + ("" if ok else "  FAIL"))
    # The function's argument shapes are fixed: another shape is a Python error.
    try:
        getattr(module, function)(inputs[0][:-1], *inputs[1:])
        print(f"  {name:20s} wrong shape accepted  FAIL")
        ok = False
    except RuntimeError as e:
        print(f"  {name:20s} wrong shape: {str(e).splitlines()[0][:90]}")
    return ok


def within_bound(name, outs, refs):
    """(relative errors, whether every output has its reference's shape and is within the
    example's bound)."""
    errs = [rel_err(o, r) for o, r in zip(outs, refs)]
    return errs, all(e <= BOUNDS.get(name, BOUND) for e in errs) and all(
        tuple(o.shape) == tuple(r.shape) for o, r in zip(outs, refs))


def check(name, module, shapes):
    if name in FUNCTIONS:
        return check_function(name, module)
    fn = getattr(module, "main_k0")
    ok = True
    for shape in shapes:
        m, n, k = adapt(name, shape)
        torch.manual_seed(m * 31 + n * 7 + k)
        inputs, refs = EXAMPLES[name](m, n, k)
        outs = fn(*inputs)
        outs = as_list(outs)
        torch.cuda.synchronize()
        errs, passed = within_bound(name, outs, refs)
        ok &= passed
        print(f"  {name:20s} M={m:<5d} N={n:<5d} K={k:<5d} rel " +
              " ".join(f"{e:.1e}" for e in errs) + ("" if passed else "  FAIL"))
    return ok


def run_or_refuse(name, fn, what, inputs, refs, reasons, must_run):
    """Runs fn on inputs: right against refs, or refused with one of `reasons`."""
    try:
        outs = fn(*inputs)
        torch.cuda.synchronize()
    except RuntimeError as e:
        msg = str(e).splitlines()[0]
        good = not must_run and any(reason in msg for reason in reasons)
        print(f"  {name:20s} {what}: refused: {msg[:100]}" + ("" if good else "  FAIL"))
        return good
    errs, passed = within_bound(name, as_list(outs), refs)
    good = must_run and passed
    print(f"  {name:20s} {what}: ran, rel " + " ".join(f"{e:.1e}" for e in errs) +
          ("" if good else "  FAIL"))
    return good


def check_refusals(name, module):
    if name in FUNCTIONS:
        return True  # its shapes are static, checked by check_function
    fn = getattr(module, "main_k0")
    ok = True
    # Each shape with the messages a refusal may give (none: it must run).
    shapes = [] if name.startswith("rope") else [  # its N is a multiple of the tables' 128 columns
        (shape, ("even N",) if shape[1] % 2 else ()) for shape in UNALIGNED]
    shapes += [(shape, ("misaligned",)) for shape in REFUSED.get(name, [])]
    for (m, n, k), reasons in shapes:
        inputs, refs = EXAMPLES[name](m, n, k)
        ok &= run_or_refuse(name, fn, f"M={m} N={n} K={k}", inputs, refs, reasons, not reasons)
    # A view one element into its storage: A's rows are not 16-byte aligned, then copied.
    m, n, k = adapt(name, (129, 256, 136))
    inputs, refs = EXAMPLES[name](m, n, k)
    a = inputs[0]
    shifted = torch.empty(a.numel() + 1, dtype=a.dtype, device=a.device)[1:].view(a.shape)
    shifted.copy_(a)
    ok &= run_or_refuse(name, fn, f"M={m} N={n} K={k} A+1", (shifted,) + tuple(inputs[1:]), refs,
                        (), True)
    # A wrong dtype and a CPU tensor get Python errors, not a crash.
    inputs, _ = EXAMPLES[name](*adapt(name, (8, 256, 64)))
    other = torch.float16 if inputs[0].dtype == torch.float32 else torch.float32
    for bad, what in [((inputs[0].to(other),) + inputs[1:], "dtype"),
                      ((inputs[0].cpu(),) + inputs[1:], "device")]:
        try:
            fn(*bad)
            print(f"  {name:20s} bad {what} accepted  FAIL")
            ok = False
        except RuntimeError as e:
            print(f"  {name:20s} bad {what}: {str(e).splitlines()[0][:90]}")
    return ok


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=build_dir())
    parser.add_argument("--emitted", dest="out", default=None,
                        help="folder for (or with) the emitted .cu files and their builds")
    parser.add_argument("--builds", default=None,
                        help="folder for the extension builds (default: the --emitted folder)")
    parser.add_argument("--only", default=None,
                        help="one example, or several, comma-separated, in one process")
    parser.add_argument("--small", action="store_true", help="one small shape (for compute-sanitizer)")
    parser.add_argument("--refusals-only", action="store_true",
                        help="only the unaligned shapes and bad tensors")
    parser.add_argument("--list", action="store_true", help="print the examples' names")
    args = parser.parse_args()
    if args.list:
        print(" ".join(list(EXAMPLES) + list(FUNCTIONS)))
        return 0
    args.out = args.out or os.path.join(args.build, "gpu")
    os.makedirs(args.out, exist_ok=True)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    names = args.only.split(",") if args.only else list(EXAMPLES) + list(FUNCTIONS)
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(names)) as pool:
        built = dict(zip(names, pool.map(lambda n: build(n, emit(n, args), args), names)))
    ok = True
    for name in names:
        module, seconds = built[name]
        print(f"== {name} (built in {seconds:.0f} s)")
        if not args.refusals_only:
            ok &= check(name, module, SMALL if args.small else SHAPES)
        if not args.small:
            ok &= check_refusals(name, module)
    print("all passed" if ok else "FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
