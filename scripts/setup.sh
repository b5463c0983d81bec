#!/usr/bin/env bash
# Installs fakeprop's build and test dependencies from Debian packages.
# Idempotent: when everything is present it only checks, in about a second.
#   scripts/setup.sh            build and test dependencies
#   scripts/setup.sh --oracle   also PyTorch, for the scripts that regenerate goldens
set -euo pipefail

packages=(
  cmake g++ make pkg-config
  libcli11-dev nlohmann-json3-dev libprotobuf-dev protobuf-compiler libonnx-dev
  libspdlog-dev libgtest-dev libbenchmark-dev llvm-14-tools
  python3 python3-jsonschema python3-onnx python3-numpy
  clang libclang-rt-14-dev  # scripts/fuzz.sh (libFuzzer, sanitizers)
)
# The oracle scripts that regenerate committed goldens also need PyTorch.
if [ "${1:-}" = "--oracle" ]; then
  packages+=(python3-torch python3-torchvision)
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
