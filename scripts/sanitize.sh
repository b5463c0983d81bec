#!/usr/bin/env bash
# Builds everything with AddressSanitizer + UndefinedBehaviorSanitizer (clang,
# scripts/sanitizer_build.sh: the build scripts/fuzz.sh runs its targets from)
# in build-asan and runs the whole test suite there. Any sanitizer report is
# fatal (-fno-sanitize-recover, halt_on_error), so a finding fails ctest.
# The Python extension is left out: an ASan build of it cannot load into an
# uninstrumented interpreter (its C++ core is what the tests here cover).
#   scripts/sanitize.sh            configure, build (-j2), ctest
#   JOBS=1 scripts/sanitize.sh     fewer parallel compiles
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD_DIR:-build-asan}
jobs=${JOBS:-2}
source scripts/sanitizer_build.sh
configure_sanitizer_build "$build"
cmake --build "$build" -j"$jobs"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$build" --output-on-failure -j"$jobs" "$@"
