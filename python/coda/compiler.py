"""One call from PyTorch: `coda.compile(fn, *example_inputs)` exports, fuses, emits, builds once
(cached on disk) and returns a callable with `fn`'s signature and outputs.

The stages, each kept in the cache entry so that `coda.explain(compiled)` can show them:

1. export: torch-mlir's `fx.export_and_import` to linalg on tensors (coda.exporting), into
   `program.mlir`; an `nn.Module` is exported as a function of its parameters and buffers
   followed by its inputs, so that weights stay arguments (and weight preparation can run once);
2. fuse: `coda-opt --coda-fuse` into `fused.mlir`, and `--coda-fuse-report` into `report.txt`;
3. emit: `coda-translate --coda-to-cuda --emit-torch-binding` into `<name>.cu`;
4. build: the kernel half with nvcc into an object and the binding with
   torch.utils.cpp_extension, in `build/`.

Entries live under $CODA_CACHE_DIR (default ~/.cache/coda). Two keys find them: the program's
key hashes the exported text, the options, coda's tools and runtime headers and the GPU's
architecture, and names the entry; the call's key hashes what is known before exporting (the
function's code, its inputs' shapes and dtypes, the options, coda's version) and points at the
entry, so that a second process compiling the same model neither exports nor builds again.

A failing stage raises CompileError carrying the tool's diagnostic (with its source location).
"""
import contextlib
import glob
import hashlib
import inspect
import json
import os
import subprocess
import sys
import threading
import time

from coda import kernels, paths

# The version of the exporter the set-up script pins (scripts/setup.sh).
TORCH_MLIR = "torch-mlir==20261001"


class CompileError(RuntimeError):
    """A stage of coda.compile failed. `stage` names it (export, fuse, emit, build), and
    `diagnostic` holds the tool's own message, with the locations it names."""

    def __init__(self, stage, message, diagnostic=""):
        self.stage, self.diagnostic = stage, diagnostic
        super().__init__(f"coda.compile: {stage}: {message}" + (f"\n{diagnostic}" if diagnostic else ""))


def cache_root():
    return os.environ.get("CODA_CACHE_DIR", os.path.join(os.path.expanduser("~"), ".cache", "coda"))


def _digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()[:24]


def _tools(build):
    tools = {t: os.path.join(build, "bin", t) for t in ("coda-opt", "coda-translate")}
    for name, path in tools.items():
        if not os.path.exists(path):
            raise CompileError("fuse", f"{name} not found at {path}: build coda (./scripts/build.sh) "
                                       f"or set CODA_BUILD_DIR to its build folder")
    return tools


def tools_version(build):
    """coda's tools, by content: $CODA_TOOLS_VERSION where they are not (a GPU machine without
    LLVM that compiles from entries prepared where they are: `python3 -m coda.compiler
    tools-version` prints it there)."""
    if "CODA_TOOLS_VERSION" in os.environ:
        return os.environ["CODA_TOOLS_VERSION"]
    h = hashlib.sha256()
    for path in _tools(build).values():
        with open(path, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:24]


def compiler_version(build):
    """What the emitted code depends on besides the program: coda's tools and the runtime
    headers the kernels include."""
    stamps = [tools_version(build)]
    for header in sorted(glob.glob(os.path.join(paths.ROOT, "include", "coda", "Runtime", "*.cuh"))):
        with open(header, "rb") as f:
            stamps.append(hashlib.sha256(f.read()).hexdigest())
    return _digest(*stamps)


def _run(stage, argv, cwd=None):
    result = subprocess.run(argv, capture_output=True, text=True, cwd=cwd)
    if result.returncode != 0:
        raise CompileError(stage, f"{os.path.basename(argv[0])} exited with {result.returncode}",
                           result.stderr.strip())
    return result.stdout


def emit_program(program_text, name="program", options=None, build=None, arch="sm_90a"):
    """Stages 2 and 3 on an exported program (the text of a linalg-on-tensors module): the cache
    entry's folder, with program.mlir, fused.mlir, report.txt, <name>.cu and entry.json. No
    torch needed. An entry that exists is returned as it is."""
    options = dict(options or {})
    build = build or paths.build_dir()
    tools = _tools(build)
    fuse_flag = "--coda-fuse" + (f"={options['fuse']}" if options.get("fuse") else "")
    translate = list(options.get("translate", []))
    key = _digest(program_text, fuse_flag, translate, compiler_version(build), arch)
    entry = os.path.join(cache_root(), key)
    meta = os.path.join(entry, "entry.json")
    if os.path.exists(meta):
        return entry
    # Written in a folder of its own, renamed to the entry once complete; a failed attempt is
    # kept as failed-<key> so that the diagnostic's locations point at a file that exists.
    staging = os.path.join(cache_root(), f"failed-{key}")
    if os.path.isdir(staging):
        for path in glob.glob(os.path.join(staging, "*")):
            os.remove(path)
    os.makedirs(staging, exist_ok=True)
    try:
        # The tools run inside the folder on its file names: the locations in diagnostics and
        # in the report name the entry's own files.
        with open(os.path.join(staging, "program.mlir"), "w") as f:
            f.write(program_text)
        _run("fuse", [tools["coda-opt"], fuse_flag, "program.mlir", "-o", "fused.mlir"], staging)
        report = _run("fuse", [tools["coda-opt"], "--coda-fuse-report", "fused.mlir", "-o", os.devnull],
                      staging)
        with open(os.path.join(staging, "report.txt"), "w") as f:
            f.write(report)
        _run("emit", [tools["coda-translate"], "--coda-to-cuda", "--emit-torch-binding", *translate,
                      "fused.mlir", "-o", f"{name}.cu"], staging)
        with open(os.path.join(staging, "entry.json"), "w") as f:
            json.dump({"name": name, "fuse": fuse_flag, "translate": translate, "arch": arch}, f)
    except CompileError as e:
        e.args = (f"{e.args[0]}\n(the program and what was written of it: {staging})",)
        raise
    # Complete entries only: another process may have written the same one meanwhile.
    try:
        os.rename(staging, entry)
    except OSError:
        for path in glob.glob(os.path.join(staging, "*")):
            os.remove(path)
        os.rmdir(staging)
    return entry


def _import_exporter():
    """torch and torch-mlir's fx exporter, or a CompileError that says how to install them."""
    missing = []
    for module in ("torch", "torch_mlir"):
        try:
            __import__(module)
        except ImportError:
            missing.append(module.replace("_", "-"))
    if missing:
        raise CompileError("export", f"{' and '.join(missing)} not installed: coda.compile exports "
                                     f"with torch-mlir (pip install torch {TORCH_MLIR})")


def _spec(x):
    import torch
    if isinstance(x, torch.Tensor):
        return ("tensor", tuple(x.shape), str(x.dtype))
    return ("value", repr(x))


def _source_of(fn):
    target = fn.forward if hasattr(fn, "forward") else fn
    try:
        return inspect.getsource(target)
    except (OSError, TypeError):
        return None


@contextlib.contextmanager
def _progress(what):
    """A one-line progress display on stderr for jobs longer than two seconds."""
    done = threading.Event()
    start = time.time()

    def show():
        while not done.wait(0.5):
            if time.time() - start > 2 and sys.stderr.isatty():
                sys.stderr.write(f"\rcoda: {what} ({time.time() - start:.0f} s)")
                sys.stderr.flush()
    thread = threading.Thread(target=show, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        if time.time() - start > 2:
            sys.stderr.write(f"\rcoda: {what} done in {time.time() - start:.0f} s\n")


def _build(entry, name):
    """Stage 4: the entry's .cu as a PyTorch extension, its kernel half compiled by nvcc into an
    object first (the binding alone goes through torch's build)."""
    from torch.utils.cpp_extension import load

    entry = os.path.normpath(entry)
    cu = os.path.join(entry, f"{name}.cu")
    out = os.path.join(entry, "build")
    os.makedirs(out, exist_ok=True)
    try:
        with _progress(f"building {os.path.basename(entry)[:12]} (nvcc)"):
            for ok, line in kernels.compile_all([cu], out, 1):
                if not ok:
                    raise CompileError("build", "nvcc failed on the kernels", line)
            obj, binding = kernels.object_for(cu, out)
            source = os.path.join(out, f"{name}_binding.cpp")
            if not os.path.exists(source):
                with open(source, "w") as f:
                    f.write(binding)
            return load(name=f"coda_{os.path.basename(entry)}", sources=[source],
                        extra_ldflags=[obj], with_cuda=True, build_directory=out, verbose=False)
    except CompileError:
        raise
    except Exception as e:  # torch's build raises RuntimeError with the compiler's output
        raise CompileError("build", "the PyTorch binding did not build", str(e)) from e


class CompiledFunction:
    """`fn` compiled by coda: call it as `fn`. Shapes or dtypes it was not compiled for compile
    again (logged), never run on the wrong kernels."""

    def __init__(self, fn, options, build):
        self.fn, self.options, self.build = fn, options, build
        self.variants = {}  # input specs -> (entry, module, output spec)
        self.entry = None
        self._prepared = {}

    def _params(self):
        import torch
        if isinstance(self.fn, torch.nn.Module):
            return dict(self.fn.named_parameters()) | dict(self.fn.named_buffers())
        return {}

    def _variant(self, inputs):
        """(entry, module, output spec) for inputs like these, compiled on first use."""
        params = self._params()
        specs = tuple(_spec(x) for x in (*params.values(), *inputs))
        if specs not in self.variants:
            if self.variants:
                print(f"coda: compiling again for new input shapes or dtypes {specs[len(params):]}",
                      file=sys.stderr)
            self.variants[specs] = self._compile(inputs)
        self.entry = self.variants[specs][0]
        return self.variants[specs]

    def _compile(self, inputs):
        from torch.utils import _pytree

        import torch

        entry = self.export_and_emit(inputs)
        with open(os.path.join(entry, "outputs.json")) as f:
            out_spec = _pytree.treespec_loads(json.load(f))
        if not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0):
            raise CompileError("build", "coda's kernels run on Hopper GPUs (sm_90a), and this "
                                        "machine has none; the emitted program is in " + entry)
        return entry, _build(entry, "program"), out_spec

    def export_and_emit(self, inputs):
        """Stages 1 to 3 for these inputs: the cache entry (found through the call's key when
        this function was compiled before, without exporting)."""
        import torch
        from torch.utils import _pytree

        from coda.exporting import export

        params = self._params()
        specs = tuple(_spec(x) for x in (*params.values(), *inputs))
        version = compiler_version(self.build)
        source = _source_of(self.fn)
        call_key = _digest(source, specs, json.dumps(self.options, sort_keys=True), version) \
            if source else None
        pointer = os.path.join(cache_root(), "calls", call_key) if call_key else None
        entry = None
        if pointer and os.path.exists(pointer):
            with open(pointer) as f:
                entry = f.read().strip()
            if not os.path.exists(os.path.join(entry, "entry.json")):
                entry = None
        if entry is None:
            _import_exporter()
            names = list(params)
            module = self.fn

            def flat(*xs):
                if names:
                    state = dict(zip(names, xs[: len(names)]))
                    return torch.func.functional_call(module, state, xs[len(names):])
                return module(*xs)
            example = (*params.values(), *inputs)
            with torch.no_grad():
                outputs = flat(*example)
            _, out_spec = _pytree.tree_flatten(outputs)
            try:
                text = export(lambda *xs: tuple(_pytree.tree_flatten(flat(*xs))[0]), *example)
            except Exception as e:
                raise CompileError("export", "torch-mlir could not export the function", str(e)) from e
            entry = emit_program(text, "program", self.options, self.build)
            with open(os.path.join(entry, "outputs.json"), "w") as f:
                json.dump(_pytree.treespec_dumps(out_spec), f)
            if pointer:
                os.makedirs(os.path.dirname(pointer), exist_ok=True)
                with open(pointer, "w") as f:
                    f.write(entry)
        return entry

    def __call__(self, *inputs):
        from torch.utils import _pytree

        _, module, out_spec = self._variant(inputs)
        params = self._params()
        args = (*params.values(), *inputs)
        if hasattr(module, "main_prepare"):
            # Weights prepared once per weight tensor identity and version (an nn.Module's
            # parameters; every argument of a plain function).
            weights = tuple(params.values()) or args
            key = tuple((id(t), getattr(t, "_version", 0), t.data_ptr()) for t in weights)
            if key not in self._prepared:
                prepared = module.main_prepare(*args)
                self._prepared = {key: prepared if isinstance(prepared, (list, tuple)) else [prepared]}
            results = module.main_prepared(*args, *self._prepared[key])
        else:
            results = module.main(*args)
        results = list(results) if isinstance(results, (list, tuple)) else [results]
        return _pytree.tree_unflatten(results, out_spec)


def compile(fn, *example_inputs, fuse=None, translate=(), build=None):
    """`fn` (a function of tensors, or an nn.Module) compiled by coda for inputs like
    `example_inputs`, built now: a callable with `fn`'s signature and outputs.

    fuse: options of --coda-fuse (e.g. "two-pass-variance=true"); translate: flags of
    coda-translate (e.g. ["--fp32-products=3xtf32"]); build: coda's build folder (default
    $CODA_BUILD_DIR or build/ of the checkout)."""
    options = {"fuse": fuse or "", "translate": list(translate)}
    compiled = CompiledFunction(fn, options, build or paths.build_dir())
    compiled._variant(example_inputs)
    return compiled


def explain(compiled, file=None):
    """Prints where a compiled function's stages are and what coda fused (the fusion report)."""
    entry = compiled.entry if isinstance(compiled, CompiledFunction) else compiled
    file = file or sys.stdout
    print(f"coda cache entry: {entry}", file=file)
    for name, what in [("program.mlir", "exported by torch-mlir"), ("fused.mlir", "after --coda-fuse"),
                       ("program.cu", "emitted CUDA (kernels, launchers, PyTorch binding)")]:
        print(f"  {name:14s} {what}", file=file)
    with open(os.path.join(entry, "report.txt")) as f:
        print(f.read(), end="", file=file)


def backend(gm, example_inputs):
    """torch.compile(model, backend="coda"): the graph compiled by coda where it can be, else
    by Inductor (the reason logged). The log says how many of the graph's parts coda fused."""
    try:
        compiled = compile(gm, *example_inputs)
    except CompileError as e:
        print(f"coda: this graph runs on Inductor: {str(e).splitlines()[0]}", file=sys.stderr)
        from torch._inductor.compile_fx import compile_fx
        return compile_fx(gm, example_inputs)
    with open(os.path.join(compiled.entry, "report.txt")) as f:
        print(f"coda: {f.readline().strip()}", file=sys.stderr)
    return lambda *xs: compiled(*xs)


def register_backend():
    """Makes backend="coda" known to torch.compile (also done by the package's entry point)."""
    from torch._dynamo import register_backend as register
    from torch._dynamo.backends.registry import _BACKENDS

    if "coda" not in _BACKENDS:
        register(name="coda")(backend)


if __name__ == "__main__":
    if sys.argv[1:] == ["tools-version"]:
        print(tools_version(paths.build_dir()))
    else:
        sys.exit("usage: python3 -m coda.compiler tools-version")
