#!/usr/bin/env bash
# Installs fakeprop's build and test dependencies from Debian packages.
# Idempotent: when everything is present it only checks, in about a second.
#   scripts/setup.sh            build and test dependencies
#   scripts/setup.sh --torch    also current PyTorch, ONNX, ONNX Runtime, tlparse and
#                               playwright (scripts/oracle-requirements.txt) in .venv-oracle/,
#                               where the Python package's tests, the tlparse and browser tests
#                               and the oracle scripts run, and Debian's Chromium for the latter
#   scripts/setup.sh --oracle   --torch, and Debian's torch 1.13: no golden comes from it any
#                               more; scripts/export_models.py uses it as one more ONNX
#                               exporter (TorchScript-based, 2022) for the real-export tests
#   scripts/setup.sh --zoo      --torch, and the ONNX zoo's exporters and peers (skl2onnx,
#                               tf2onnx with tensorflow-cpu, onnx-shape-inference:
#                               scripts/zoo-requirements.txt) into .venv-oracle/; CI does not
#                               install them
#   scripts/setup.sh --optimum  after --zoo: optimum-onnx, onnxslim, onnxsim
#                               (scripts/optimum-requirements.txt) into .venv-optimum/, which
#                               reads torch and onnx from .venv-oracle/ (its transformers pin
#                               clashes with the oracle's); CI does not install them
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libcli11-dev nlohmann-json3-dev libprotobuf-dev protobuf-compiler libonnx-dev
  libspdlog-dev libgtest-dev libbenchmark-dev llvm-14-tools
  libsimdjson-dev  # scripts/bench/json_reader.cpp: the FX JSON reader against simdjson
  libzip-dev  # .pt2 archives (torch.export.save)
  python3 python3-jsonschema python3-onnx python3-numpy
  python3-dev pybind11-dev ccache  # the Python extension; ccache for repeated builds
  clang libclang-rt-14-dev  # scripts/fuzz.sh (libFuzzer, sanitizers)
)
# The oracle scripts that regenerate committed goldens also need PyTorch.
mode="${1:-}"
if [ "$mode" = "--oracle" ]; then
  packages+=(python3-torch python3-torchvision)
fi
if [ "$mode" = "--oracle" ] || [ "$mode" = "--torch" ] || [ "$mode" = "--zoo" ]; then
  packages+=(python3-venv)
  packages+=(chromium fonts-dejavu-core)  # testdata/html: the HTML report in headless Chromium
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

# The oracle's virtual environment, created once and brought to the pinned versions.
if [ "$mode" = "--oracle" ] || [ "$mode" = "--torch" ] || [ "$mode" = "--zoo" ]; then
  root="$(cd "$(dirname "$0")/.." && pwd)"
  venv="$root/.venv-oracle"
  reqs="$root/scripts/oracle-requirements.txt"
  if [ ! -x "$venv/bin/python" ]; then
    echo "setup: creating $venv"
    python3 -m venv "$venv"
  fi
  stamp="$venv/.installed-requirements"
  if ! cmp -s "$reqs" "$stamp"; then
    echo "setup: installing $(grep -c '==' "$reqs") pinned oracle packages into $venv (torch brings several GB)"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$reqs"
    cp "$reqs" "$stamp"
  fi
  zoo="$root/scripts/zoo-requirements.txt"
  zoo_stamp="$venv/.installed-zoo-requirements"
  if [ "$mode" = "--zoo" ] && ! cmp -s "$zoo" "$zoo_stamp"; then
    echo "setup: installing $(grep -c '==' "$zoo") pinned zoo packages into $venv (tensorflow-cpu brings several hundred MB)"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$zoo"
    cp "$zoo" "$zoo_stamp"
  fi
fi

# optimum's venv: its own transformers and optimum, the oracle's torch (a .pth file puts the
# oracle's site-packages after its own, so its own pins win).
if [ "$mode" = "--optimum" ]; then
  root="$(cd "$(dirname "$0")/.." && pwd)"
  oracle="${ORACLE_VENV:-$root/.venv-oracle}"
  venv="$root/.venv-optimum"
  reqs="$root/scripts/optimum-requirements.txt"
  if [ ! -x "$oracle/bin/python" ]; then
    echo "setup: no $oracle: run scripts/setup.sh --zoo first" >&2
    exit 1
  fi
  if [ ! -x "$venv/bin/python" ]; then
    echo "setup: creating $venv"
    "$oracle/bin/python" -m venv "$venv"
  fi
  site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
  "$oracle/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/zz-oracle.pth"
  stamp="$venv/.installed-requirements"
  if ! cmp -s "$reqs" "$stamp"; then
    echo "setup: installing $(grep -c '==' "$reqs") pinned optimum packages into $venv"
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$reqs"
    cp "$reqs" "$stamp"
  fi
fi
