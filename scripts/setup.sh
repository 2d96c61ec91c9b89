#!/usr/bin/env bash
# Makes a fresh Debian 12 machine ready to build and test coda. Idempotent: packages already
# present at the pinned versions are left alone. Run as root (or with sudo available).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"

LLVM_VERSION=22
LLVM_DEB_VERSION="1:22.1.8-1~deb12u1"
CUTLASS_PIP_VERSION="4.2.0.0"

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

debs=(
  "llvm-${LLVM_VERSION}-dev=${LLVM_DEB_VERSION}"
  "llvm-${LLVM_VERSION}-tools=${LLVM_DEB_VERSION}"
  "libmlir-${LLVM_VERSION}-dev=${LLVM_DEB_VERSION}"
  "mlir-${LLVM_VERSION}-tools=${LLVM_DEB_VERSION}"
  ninja-build
  cmake
  g++
  libgtest-dev
  python3
)

missing=()
for spec in "${debs[@]}"; do
  name="${spec%%=*}"
  want="${spec#*=}"
  have=$(dpkg-query -W -f='${Status} ${Version}' "$name" 2>/dev/null || true)
  if [[ "$have" != "install ok installed"* ]]; then
    missing+=("$spec")
  elif [[ "$spec" == *=* && "$have" != *" $want" ]]; then
    missing+=("$spec")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: Debian packages present"
fi

PY=${PYTHON:-python3}
if ! $PY -m pip show nvidia-cutlass 2>/dev/null | grep -qx "Version: ${CUTLASS_PIP_VERSION}"; then
  echo "setup: installing nvidia-cutlass==${CUTLASS_PIP_VERSION}"
  $PY -m pip install --quiet --disable-pip-version-check "nvidia-cutlass==${CUTLASS_PIP_VERSION}"
else
  echo "setup: nvidia-cutlass ${CUTLASS_PIP_VERSION} present"
fi

# The coda package that the scripts of bench/ and test/gpu/ import, installed editable from
# python/: the installed package is this checkout's folder, and nothing is fetched (it lists no
# dependencies). pip builds it without isolation, which takes setuptools >= 64 and, before
# setuptools 70.1, the wheel package; where those are missing, the path entry an editable
# install amounts to is written as a .pth file instead.
if (cd / && $PY -E -c 'import sys, coda.paths; sys.exit(coda.paths.ROOT != sys.argv[1])' "$root") 2>/dev/null; then
  echo "setup: coda (python/) present"
elif $PY -c 'import setuptools, sys, importlib.util as u
v = tuple(int(x) for x in setuptools.__version__.split(".")[:2])
sys.exit(not (v >= (70, 1) or (v >= (64, 0) and u.find_spec("wheel"))))' 2>/dev/null; then
  echo "setup: installing coda (python/, editable)"
  $PY -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e "$root/python"
else
  pth="$($PY -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/coda.pth"
  echo "setup: installing coda (python/) as $pth (no setuptools >= 64 with wheel for pip -e)"
  echo "$root/python" > "$pth"
fi
