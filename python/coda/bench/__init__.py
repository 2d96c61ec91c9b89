"""The benchmarks' shared code: the anchor cases (programs) and the Llama-3 block (blocks) as
PyTorch functions, coda's builds and timings of them (anchors, sustained) and the configuration
search's stage 2 (tuning). The command lines are the scripts of bench/."""
