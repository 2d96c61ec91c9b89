"""Kernels run back to back for seconds, at the GPU's power cap, with the clock they run at.

Sampler reads nvidia-smi every 50 ms (SM clock, power, the reasons the clock is held down);
time_back_to_back() alternates calls run back to back for some seconds each and gives, past
SETTLE_S of settling, ms per call, SM MHz, W and Mcycles per call. bench/sustained.py measures
the anchor cases so, bench/tune.py measure --sustained the variants of a kernel.
"""
import atexit
import statistics
import subprocess
import sys
import threading
import time

import torch

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
