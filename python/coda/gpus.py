"""Where the benchmarks write their results: files named after the GPU that measured them.

bench/anchors.py, block.py, sustained.py and tune.py write
`bench/results/<stem>-<gpu>.<ext>`, <gpu> the CUDA device name without its vendor, in lower case,
words joined by '-': `anchors-h200.json` on an H200, `anchors-h100-80gb-hbm3.json` on an H100
SXM, `anchors-h100-pcie.json` on an H100 PCIe (another SM count). So a run on one GPU never
overwrites, or merges `--only` rows into, the numbers of another. The anchors' Markdown table is
docs/performance.md on the H200 (the GPU the targets are set on) and docs/performance-<gpu>.md on
any other. coda-translate's tuning database is the GPU's own once stage 2 has written one, else
the H200's.
"""
import os
import re


def gpu_label(device_name):
    """The name a table gives the GPU: 'NVIDIA H200' -> 'H200'."""
    return re.sub(r"^NVIDIA\s+", "", device_name.strip(), flags=re.IGNORECASE) or device_name


def gpu_tag(device_name):
    """'NVIDIA H200' -> 'h200', 'NVIDIA H100 80GB HBM3' -> 'h100-80gb-hbm3'."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_label(device_name).lower()).strip("-") or "gpu"


def results_path(folder, stem, device_name, ext):
    return os.path.join(folder, f"{stem}-{gpu_tag(device_name)}.{ext}")


def tuning_db(folder, device_name):
    """The tuning database coda-translate takes on this GPU: its own where stage 2 has written
    one, else the H200's (the GPU the targets are set on)."""
    own = results_path(folder, "tuning", device_name, "json")
    return own if os.path.exists(own) else os.path.join(folder, "tuning-h200.json")


def performance_md(docs, device_name):
    tag = gpu_tag(device_name)
    return os.path.join(docs, "performance.md" if tag == "h200" else f"performance-{tag}.md")
