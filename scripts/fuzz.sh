#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build-asan, the build
# scripts/sanitize.sh tests (scripts/sanitizer_build.sh), seeds them
# from testdata/, and runs each for SECONDS_PER_TARGET (default 60, as CI
# does). Any crash, sanitizer report, timeout (>10 s for one input) or
# out-of-memory (>2 GB) fails the script; the input is copied to
# testdata/fuzz_regressions/<target>/, where `ctest -R fuzz_regressions`
# replays it in every build once it is committed.
#   scripts/fuzz.sh            60 s per target (CI)
#   scripts/fuzz.sh 3600       the longer local run (an hour per target)
#   TARGETS="fx_graph" scripts/fuzz.sh 600    one target
#   FUZZ_RUNS=20000 scripts/fuzz.sh  a fixed number of inputs per target from a
#                      fixed seed (FUZZ_SEED, default 1) and a fresh corpus, as
#                      CI runs it. The seeds are listed in a fixed order (a
#                      directory would give them in the file system's order),
#                      but a run still varies between processes on one
#                      machine, so a finding is also printed whole (base64):
#                      CI's log alone then carries it here.
# The corpus grows in build-asan/corpus/<target> and is reused by later runs.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${BUILD_DIR:-build-asan}
jobs=${JOBS:-2}
targets=${TARGETS:-"onnx_model fx_graph pt2_archive source_spec expr_parse op_rules real_inputs output_file pt2_limits"}

source scripts/sanitizer_build.sh
configure_sanitizer_build "$build"
for t in $targets; do cmake --build "$build" -j"$jobs" --target "fuzz_$t"; done

# ---- seeds from testdata ----
seeds=$build/seeds
rm -rf "$seeds"
mkdir -p "$seeds"/{onnx_model,fx_graph,pt2_archive,source_spec,expr_parse,op_rules,real_inputs,output_file,pt2_limits}
# real_inputs: a format byte (even .npy, odd TensorProto), then the file.
for f in $(find testdata -name '*.npy' -size -64k) $(find testdata -path '*test_data_set_*' -name '*.pb' -size -64k); do
  case $f in *.npy) prefix='\000' ;; *) prefix='\001' ;; esac
  { printf "$prefix"; cat "$f"; } > "$seeds/real_inputs/$(echo "$f" | tr '/' '_')"
done
find testdata -name '*.rules' -exec cp {} "$seeds/op_rules/" \;
find testdata -name '*.onnx' -size -64k -exec cp {} "$seeds/onnx_model/" \;
find testdata/pt2 testdata/fuzz_regressions/pt2_archive -type f -size -64k ! -name '*.json' -exec cp {} "$seeds/pt2_archive/" \;
# pt2_limits: three limit bytes (a 16 KiB program limit, ratio 4), then an archive.
for f in $(find testdata/pt2 -type f -size -64k ! -name '*.json'); do
  { printf '\017\000\003'; cat "$f"; } > "$seeds/pt2_limits/$(basename "$f")"
done
# output_file: layouts of a file, a link to it, a dangling link, a FIFO and a folder, each target.
for layout in '\005\000\000\000\002\001\000\002\002\005\003\003\000\001\004\000\001' '\002\002\000\001\000\001\001'; do
  for target in 0 1 2 3 4 5 6; do
    printf "${layout}\\00${target}\\00${target}payload" > "$seeds/output_file/l$(echo "$layout" | md5sum | cut -c1-6)_$target"
  done
done
/usr/bin/python3 - "$seeds" <<'PY'
import glob, json, os, re, sys
seeds = sys.argv[1]
def put(target, name, text):
    with open(os.path.join(seeds, target, name), "w") as f:
        f.write(text)
exprs, n = set(), 0
def walk(x):
    if isinstance(x, dict):
        for v in x.values(): walk(v)
    elif isinstance(x, list):
        for v in x: walk(v)
    elif isinstance(x, str) and re.fullmatch(r"[\w\s+\-*/%()<>=!,]+", x) and re.search(r"[a-z]", x) and len(x) < 200:
        exprs.add(x)
for path in sorted(glob.glob("testdata/fx_goldens/*.json")):
    doc = json.load(open(path))
    graphs = doc["cases"] if "cases" in doc else [doc]
    for g in graphs:
        walk(g)
        text = json.dumps(g)
        if len(text) <= 16384:
            put("fx_graph", "g%04d.json" % n, text)
            n += 1
for i, e in enumerate(sorted(exprs)[:500]):
    put("expr_parse", "e%04d" % i, e)
for i, e in enumerate(["2*s0 + 1", "s0//2", "max(1, s0)", "(s0 + 7) % 8 == 0 and s1 >= 2", "-(u0 - 3)*(s0 - 1) // 4",
                       "min(s0, s1, 4) != 3 or not s2 < 5"]):
    put("expr_parse", "b%02d" % i, e)
specs = set()
for path in glob.glob("testdata/lit/**/*.test", recursive=True):
    for m in re.finditer(r"--(?:dynamic|unbacked|static)[ =](\"[^\"]*\"|'[^']*'|\S+)", open(path).read()):
        specs.add(m.group(1).strip("'\""))
specs |= {"L['x']:0", "x,y", "L\\[.x.\\]", "L\\['(a|b)+'\\]:2", "x:1, L[y]", ".*"}
for i, s in enumerate(sorted(specs)):
    put("source_spec", "s%03d" % i, s + "\nL['x']\nL['y']\nL['input_ids']")
PY

# ---- run ----
status=0
summary=()
for t in $targets; do
  case $t in
    onnx_model) max_len=16384 ;;
    fx_graph) max_len=16384 ;;
    pt2_archive) max_len=65536 ;;
    source_spec) max_len=1024 ;;
    expr_parse) max_len=1024 ;;
    op_rules) max_len=4096 ;;
    real_inputs) max_len=4096 ;;
    output_file) max_len=256 ;;
    pt2_limits) max_len=65536 ;;
  esac
  corpus=$build/corpus/$t
  artifacts=$build/artifacts/$t
  if [ -n "${FUZZ_RUNS:-}" ]; then
    rm -rf "$corpus"  # start from the seeds only, in the order of their names
    find "$seeds/$t" -type f | LC_ALL=C sort | paste -sd, > "$build/seeds_$t.list"
    bound=(-runs="$FUZZ_RUNS" -seed="${FUZZ_SEED:-1}" -seed_inputs=@"$build/seeds_$t.list")
    inputs=("$corpus")
  else
    bound=(-max_total_time="$seconds")
    inputs=("$corpus" "$seeds/$t")
  fi
  rm -rf "$artifacts"  # findings of earlier runs are in testdata/fuzz_regressions already
  mkdir -p "$corpus" "$artifacts"
  log=$build/fuzz_$t.log
  echo "fuzz: $t: ${bound[*]} (log: $log)"
  set +e
  "$build/fuzz/fuzz_$t" "${bound[@]}" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$artifacts/" "${inputs[@]}" > "$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  found=$(find "$artifacts" -type f | wc -l)
  summary+=("$t: ${execs:-?} inputs, exit $rc, $found finding(s)")
  if [ "$rc" != 0 ] || [ "$found" != 0 ]; then
    status=1
    mkdir -p "testdata/fuzz_regressions/$t"
    for f in "$artifacts"/*; do
      [ -f "$f" ] || continue
      cp "$f" "testdata/fuzz_regressions/$t/$(basename "$f")"
      echo "fuzz: $t: finding $(basename "$f") copied to testdata/fuzz_regressions/$t/"
      if [ "$(stat -c %s "$f")" -le 8192 ]; then
        echo "fuzz: $t: $(basename "$f") as base64 (base64 -d > FILE): $(base64 -w0 "$f")"
      fi
    done
    grep -E "ERROR|SUMMARY|timeout|out-of-memory|deadly|terminate called|what\(\)|internal error" "$log" | head -20 || true
  fi
done
printf 'fuzz: %s\n' "${summary[@]}"
exit $status
