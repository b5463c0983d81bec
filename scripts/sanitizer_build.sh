# Sourced by scripts/sanitize.sh and scripts/fuzz.sh: the one clang build both
# use (ASan + UBSan, libFuzzer's coverage everywhere, the fuzz targets beside
# the tests), so CI compiles the library under sanitizers once, not twice.
# configure_sanitizer_build DIR: configures DIR (log in DIR/configure.log).
configure_sanitizer_build() {
  local build=$1
  mkdir -p "$build"
  CXX=${CXX:-clang++} cmake -S . -B "$build" -DFAKEPROP_FUZZ=ON -DFAKEPROP_PYTHON=OFF -DFAKEPROP_BUILD_BENCHMARKS=OFF \
    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" > "$build/configure.log" 2>&1 ||
    { cat "$build/configure.log"; return 1; }
}
