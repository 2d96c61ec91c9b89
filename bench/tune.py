#!/usr/bin/env python3
"""Stage 2 of the configuration choice: time the analytic model's best candidates on the GPU.

`coda-translate --coda-to-cuda` writes, for every kernel, its tuning key and the model's ranked
candidates as comments (`// coda-tuning-key: ...`, `// coda-candidate: {...} model X ms`).

  bench/tune.py emit DIR [--top N] [--around DB] [--only CASE] [--block]
                                       (where LLVM is) fuses every anchor program (--block: and
                                       the block's two halves, block_pre and block_post), for each
                                       kernel writes one .cu per candidate (a one-entry tuning
                                       database each) and DIR/manifest.json; with --around DB,
                                       a kernel that DB holds gets its configuration, the
                                       neighbours the model cannot rank (other clusters, raster
                                       orders, no swizzle, the other epilogue subtile width, the
                                       other division where the epilogue divides) and
                                       the model's best of the other schedule instead of the
                                       model's candidates
  bench/tune.py measure DIR            (on the GPU) builds every variant (--build-only: only
                                       that), checks it against the PyTorch reference, times the
                                       variants of a kernel and cuBLAS's products alone interleaved
                                       (medians of --reps), and writes the fastest per
                                       kernel by GPU time (queued behind a GPU sleep) into
                                       data/tuning/tuning-<gpu>.json (--db; <gpu> as
                                       python/coda/gpus.py names it: tuning-h200.json on an
                                       H200), with the baseline's
                                       time beside it (the model's choice, or DB's); with
                                       --sustained, by the time per call back to back at the
                                       GPU's power cap (bench/sustained.py), into --db

`coda-translate --tuning-db=data/tuning/tuning-h200.json` then uses the measured choices.
"""
import argparse

from coda import paths
from coda.bench import tuning


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("stage", choices=["emit", "measure"],
                        help="emit: write the variants (where LLVM is); measure: time them (GPU)")
    parser.add_argument("dir", help="the variants' folder (.cu files and manifest.json)")
    parser.add_argument("--build", default=paths.build_dir(),
                        help="coda's build folder, for bin/coda-opt and bin/coda-translate "
                             "(emit; default: $CODA_BUILD_DIR or build/)")
    parser.add_argument("--builds", default=None, help="folder for the extension builds")
    parser.add_argument("--top", type=int, default=7, help="candidates per kernel (emit)")
    parser.add_argument("--reps", type=int, default=21,
                        help="interleaved alternations whose medians are compared (measure)")
    parser.add_argument("--only", default=None, help="one case")
    parser.add_argument("--block", action="store_true",
                        help="(emit) also the two halves of the Llama-3-8B block, cases block_pre "
                             "and block_post (bench/block.py), whose kernels are not the anchors'")
    parser.add_argument("--around", default=None, metavar="DB",
                        help="(emit) for each kernel that the tuning database DB holds, time its "
                             "configuration, the neighbours the model cannot rank (other "
                             "clusters, raster orders, no swizzle, the other epilogue subtile "
                             "width, the other division where the epilogue divides) and the "
                             "model's best of the other schedule instead of the model's --top")
    parser.add_argument("--db", default=None,
                        help="(measure) the tuning database to update with the fastest "
                             "configurations (default: data/tuning/tuning-<gpu>.json, the "
                             "GPU's own: tuning-h200.json on an H200)")
    parser.add_argument("--sustained", action="store_true",
                        help="(measure) rank by the time per call back to back at the GPU's power "
                             "cap (bench/sustained.py: --seconds per variant and for cuBLAS, "
                             "alternated twice) instead of by interleaved single calls; write into "
                             "a database of its own (--db)")
    parser.add_argument("--seconds", type=float, default=2.0,
                        help="(measure --sustained) seconds per phase (default: 2)")
    parser.add_argument("--build-only", action="store_true",
                        help="build every variant (in parallel) and stop (measure)")
    args = parser.parse_args()
    if args.seconds <= 0.4:
        parser.error("--seconds must exceed the 0.4 s a phase settles for (bench/sustained.py)")
    (tuning.emit if args.stage == "emit" else tuning.measure)(args)


if __name__ == "__main__":
    main()
