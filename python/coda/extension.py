"""Emitted files built as PyTorch extensions, and their calls checked against PyTorch.

What test/gpu/check_examples.py and the benchmarks of bench/ share: build() loads an emitted
.cu (written with `coda-translate --emit-torch-binding`) as a module, prepared_call() and
checked_call() call a module's function with its weights prepared once, and rel_err(),
fp32_reference() and as_list() measure a result against PyTorch's in fp32. torch is imported by
build() alone; the other helpers only call the tensors' methods.
"""
import os
import time

from coda import kernels


def build(name, cu, args):
    """Loads an emitted file as a module (torch.utils.cpp_extension, in the folder `name` of
    `args.builds`, else of `args.out`): (module, seconds). With CODA_KERNEL_OBJECTS=DIR
    (test/gpu/kernel_objects.py) and the object of the file's kernel half in it, only the
    binding is compiled here."""
    from torch.utils.cpp_extension import load

    start = time.time()
    directory = os.path.join(args.builds or args.out, name)
    os.makedirs(directory, exist_ok=True)
    objects = os.environ.get("CODA_KERNEL_OBJECTS")
    obj, binding = kernels.object_for(cu, objects) if objects else (None, None)
    if obj:
        source = os.path.join(directory, f"{name}_binding.cpp")
        # Rewritten only when it changed: a new mtime alone makes ninja compile it again (20 s
        # of g++ on the torch headers, in every process that loads it).
        written = None
        if os.path.exists(source):
            with open(source) as f:
                written = f.read()
        if written != binding:
            with open(source, "w") as f:
                f.write(binding)
        module = load(name=f"coda_{name}", sources=[source], extra_ldflags=[obj], with_cuda=True,
                      build_directory=directory, verbose=False)
    else:
        module = load(name=f"coda_{name}", sources=[cu],
                      extra_include_paths=kernels.include_paths(),
                      extra_cuda_cflags=kernels.EXTENSION_CUDA_FLAGS,
                      build_directory=directory, verbose=False)
    return module, time.time() - start


def rel_err(out, ref):
    """max|out - ref| / max|ref|, in fp32."""
    return ((out.float() - ref.float()).abs().max() / ref.float().abs().max().clamp_min(1e-30)).item()


def as_list(x):
    """A binding's result(s) as a list."""
    return list(x) if isinstance(x, (list, tuple)) else [x]


def fp32_reference(fn, xs):
    """The PyTorch function `fn` on `xs` with its floating-point arguments in fp32: the
    reference a kernel's bf16 result is measured against, as a list."""
    return as_list(fn(*[x.float() if x.is_floating_point() else x for x in xs]))


def prepared_call(module, xs, function="main"):
    """`function` of a module, with its weights prepared once from `xs` by `<function>_prepare`
    when it has one (the call then takes the same arguments as `function`)."""
    if hasattr(module, f"{function}_prepare"):
        prepared = as_list(getattr(module, f"{function}_prepare")(*xs))
        return lambda *ys: getattr(module, f"{function}_prepared")(*ys, *prepared)
    return getattr(module, function)


def checked_call(module, xs, refs):
    """`main` of a module on `xs` (weights prepared once) as a call without arguments, run once:
    the call, and its largest relative error against `refs` (fp32_reference)."""
    prepared = prepared_call(module, xs)
    call = lambda: prepared(*xs)  # noqa: E731
    return call, max(rel_err(o, r) for o, r in zip(as_list(call()), refs))
