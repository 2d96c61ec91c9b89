#!/usr/bin/env python3
"""coda and cuBLAS under sustained load: the SM clock and power each runs at.

bench/anchors.py times single calls interleaved with the other contenders, so the GPU rests
between calls; a training or serving step runs its GEMMs back to back, where an H200 sits at its
power cap and lowers its clock to stay there. Here, for each anchor case, coda (its weights
prepared once) and the case's GEMM alone through cuBLAS (torch.matmul) each run back to back
for --seconds, alternated A B A B (--rounds), the clocks left alone, while nvidia-smi reports
every 50 ms the SM clock, the power and the reasons the clock is held down. Per phase, after
0.4 s of settling: ms per call (CUDA events over the phase), mean SM MHz and W, and the cycles
per call (ms × MHz), which tell a kernel that needs more cycles from one that runs at a lower
clock. coda's result is checked against the PyTorch function first (as anchors.py does).

Usage: bench/sustained.py [--emitted DIR] [--builds DIR] [--tuning-db FILE] [--only CASE]
                          [--seconds S] [--rounds R] [--results DIR]
Writes DIR/sustained-h200.json (default bench/results; on another GPU sustained-<gpu>.json,
bench/gpu_results.py): medians over the rounds.
"""
import argparse
import atexit
import concurrent.futures
import json
import os
import statistics
import subprocess
import sys
import threading
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import anchors  # noqa: E402
import gpu_results  # noqa: E402

programs, check_examples = anchors.programs, anchors.check_examples

SETTLE_S = 0.4
QUERY = "clocks.sm,power.draw,clocks_event_reasons.active"


class Sampler:
    """nvidia-smi every 50 ms in the background: (time, SM MHz, W, throttle reasons)."""

    def __init__(self):
        query = QUERY
        if subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits"],
                          capture_output=True).returncode:  # drivers before clocks_event_reasons
            query = query.replace("clocks_event_reasons", "clocks_throttle_reasons")
        self.samples = []
        self.process = subprocess.Popen(
            ["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader,nounits", "-lms", "50"],
            stdout=subprocess.PIPE, text=True)
        threading.Thread(target=self._read, daemon=True).start()
        atexit.register(self.stop)  # nvidia-smi -lms would outlive the script

    def _read(self):
        for line in self.process.stdout:
            fields = [f.strip() for f in line.split(",")]
            try:
                self.samples.append((time.time(), float(fields[0]), float(fields[1]), fields[2]))
            except (ValueError, IndexError):
                pass  # a line nvidia-smi could not fill ("[N/A]")

    def between(self, t0, t1):
        return [s for s in self.samples if t0 <= s[0] <= t1]

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()


def phase(f, seconds, sampler):
    """`f` back to back for `seconds`: ms per call and the samples after settling."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = time.time()
    start.record()
    calls = 0
    while time.time() - t0 < seconds:
        for _ in range(10):
            f()
        calls += 10
        torch.cuda.synchronize()
    end.record()
    torch.cuda.synchronize()
    samples = sampler.between(t0 + SETTLE_S, time.time())
    if not samples:
        sys.exit("sustained: no nvidia-smi samples (is nvidia-smi there?)")
    mhz = statistics.mean(s[1] for s in samples)
    ms = start.elapsed_time(end) / calls
    return {"ms": ms, "sm_mhz": mhz, "w": statistics.mean(s[2] for s in samples),
            "mcycles": ms * mhz / 1000, "throttle": sorted({s[3] for s in samples})}


def time_back_to_back(fns, seconds, rounds, sampler):
    """Each of `fns` back to back for `seconds`, alternated `rounds` times: per name, the
    medians of ms per call, SM MHz, W and Mcycles per call, and the throttle reasons seen."""
    for f in fns.values():
        f()
    torch.cuda.synchronize()
    phases = {name: [] for name in fns}
    for _ in range(rounds):
        for name, f in fns.items():
            phases[name].append(phase(f, seconds, sampler))
            time.sleep(0.3)
    return {name: {**{key: statistics.median(r[key] for r in runs)
                      for key in ("ms", "sm_mhz", "w", "mcycles")},
                   "throttle": sorted({t for r in runs for t in r["throttle"]})}
            for name, runs in phases.items()}


def sustained_case(case, module, args, sampler):
    xs = anchors.random_inputs(case)
    fn = programs.CASES[case]
    call, err = check_examples.checked_call(module, xs, check_examples.fp32_reference(fn, xs))
    a, b = xs[anchors.GEMM[case][0]], xs[anchors.GEMM[case][1]]
    fns = {"coda": call, "cublas_gemm": lambda: torch.matmul(a, b.t())}
    result = {"max_rel_err": err, "passed": err <= anchors.BOUND}
    for name, r in time_back_to_back(fns, args.seconds, args.rounds, sampler).items():
        result.update({f"{name}_{key}": value for key, value in r.items()})
    result["ratio_vs_gemm"] = result["coda_ms"] / result["cublas_gemm_ms"]
    result["cycles_vs_gemm"] = result["coda_mcycles"] / result["cublas_gemm_mcycles"]
    result["clock_vs_gemm"] = result["coda_sm_mhz"] / result["cublas_gemm_sm_mhz"]
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.environ.get("CODA_BUILD_DIR", os.path.join(ROOT, "build")))
    parser.add_argument("--emitted", dest="out", default=None)
    parser.add_argument("--builds", default=None)
    anchors.add_tuning_db_argument(parser)
    parser.add_argument("--only", default=None, choices=list(programs.CASES))
    parser.add_argument("--seconds", type=float, default=2.0, help="each phase (default: 2)")
    parser.add_argument("--rounds", type=int, default=2, help="A B alternations (default: 2)")
    parser.add_argument("--results", default=os.path.join(HERE, "results"))
    args = parser.parse_args()
    if args.seconds <= SETTLE_S or args.rounds < 1:
        parser.error(f"--seconds must exceed the {SETTLE_S} s of settling and --rounds be >= 1")
    args.from_tuning = None
    anchors.resolve_tuning_db(args)
    args.out = args.out or os.path.join(args.build, "anchors")
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.results, exist_ok=True)
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0a")
    cases = [args.only] if args.only else list(programs.CASES)
    with concurrent.futures.ThreadPoolExecutor(max_workers=len(cases)) as pool:  # nvcc in parallel
        modules = dict(zip(cases, (m for m, _ in pool.map(lambda c: anchors.build_case(c, args), cases))))
    limit = subprocess.run(["nvidia-smi", "--query-gpu=power.limit", "--format=csv,noheader,nounits"],
                           capture_output=True, text=True).stdout.strip()
    results = {"device": torch.cuda.get_device_name(), "power_limit_w": limit,
               "seconds": args.seconds, "rounds": args.rounds, "cases": {}}
    json_path = gpu_results.results_path(args.results, "sustained", results["device"], "json")
    if args.only and os.path.exists(json_path):  # one case at a time adds to the file
        with open(json_path) as f:
            results["cases"] = json.load(f).get("cases", {})
    sampler = Sampler()
    for case in cases:
        r = results["cases"][case] = sustained_case(case, modules[case], args, sampler)
        print(f"{case:18s} coda {r['coda_ms']:.3f} ms {r['coda_sm_mhz']:.0f} MHz {r['coda_w']:.0f} W"
              f" | cuBLAS {r['cublas_gemm_ms']:.3f} ms {r['cublas_gemm_sm_mhz']:.0f} MHz"
              f" {r['cublas_gemm_w']:.0f} W | time {r['ratio_vs_gemm']:.3f}x, clock"
              f" {r['clock_vs_gemm']:.3f}x, cycles {r['cycles_vs_gemm']:.3f}x"
              f" | rel err {r['max_rel_err']:.1e}" + ("" if r["passed"] else "  FAIL"), flush=True)
        torch.cuda.empty_cache()
        with open(json_path, "w") as f:  # after every case: a run cut short keeps its cases
            json.dump(results, f, indent=2)
    return 0 if all(r["passed"] for r in results["cases"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
