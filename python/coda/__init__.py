"""coda's Python side: `coda.compile` for users, and the parts the scripts of bench/ and
test/gpu/ share.

- coda.compile(fn, *example_inputs): exports, fuses, emits, builds once (cached) and returns a
  drop-in callable; coda.explain(compiled) shows what was generated (coda.compiler);
- coda.paths: where the repository's parts are (this package lives in its python/ folder);
- coda.gpus: result files named after the GPU that measured them;
- coda.kernels: an emitted file's kernel half compiled ahead into an object (nvcc, no torch);
- coda.extension: an emitted file built as a PyTorch extension, and its calls checked;
- coda.bench: the benchmarks' programs (anchor cases, the Llama-3 block), timing and tuning.

Importing the package loads no torch: the modules that need it import it themselves.
"""


def compile(fn, *example_inputs, **options):  # noqa: A001 (the name users call)
    """coda.compiler.compile: `fn` (a function of tensors or an nn.Module) compiled by coda."""
    from coda.compiler import compile as compile_fn
    return compile_fn(fn, *example_inputs, **options)


def explain(compiled, file=None):
    """coda.compiler.explain: where a compiled function's stages are, and what coda fused."""
    from coda.compiler import explain as explain_fn
    return explain_fn(compiled, file)
