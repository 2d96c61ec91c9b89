"""Where the repository's parts are. This package lives in python/ of a checkout (installed
editable by scripts/setup.sh, or found through PYTHONPATH), so the repository is two folders up."""
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
TUNING = os.path.join(ROOT, "data", "tuning")


def build_dir():
    """coda's build folder: $CODA_BUILD_DIR, else build/ of the repository."""
    return os.environ.get("CODA_BUILD_DIR", os.path.join(ROOT, "build"))
