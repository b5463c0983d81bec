#!/usr/bin/env bash
# Runs ONNX's backend node tests through fakeprop.
#   scripts/onnx_conformance.sh [RUNNER [DIR]] [runner options...]
# RUNNER defaults to build/fakeprop_conformance, DIR to build/onnx_node_tests.
# Exit 77 (ctest SKIP_RETURN_CODE) when python3-onnx is not installed.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
runner="${1:-$root/build/fakeprop_conformance}"
dir="${2:-$root/build/onnx_node_tests}"
shift $(( $# < 2 ? $# : 2 ))

/usr/bin/python3 "$root/scripts/gen_onnx_node_tests.py" "$dir"
rc=$?
if [ "$rc" = 3 ] || [ ! -x /usr/bin/python3 ]; then
  echo "SKIPPED: ONNX conformance needs python3-onnx (scripts/setup.sh --oracle installs it)"
  exit 77
fi
[ "$rc" = 0 ] || { echo "onnx_conformance: generating the node tests failed (exit $rc)" >&2; exit "$rc"; }

exec "$runner" "$dir" \
  --known-failures "$root/testdata/onnx_conformance/known_failures.txt" \
  --disagreements "$root/testdata/onnx_conformance/onnx_disagreements.txt" "$@"
