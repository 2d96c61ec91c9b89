"""coda's Python side, shared by the scripts of bench/ and test/gpu/.

- coda.paths: where the repository's parts are (this package lives in its python/ folder);
- coda.gpus: result files named after the GPU that measured them;
- coda.kernels: an emitted file's kernel half compiled ahead into an object (nvcc, no torch);
- coda.extension: an emitted file built as a PyTorch extension, and its calls checked;
- coda.bench: the benchmarks' programs (anchor cases, the Llama-3 block), timing and tuning.

Importing the package loads no torch: the modules that need it import it themselves.
"""
