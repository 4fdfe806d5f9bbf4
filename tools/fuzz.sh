#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/*_fuzz.cpp) with clang in build-fuzz/ (incrementally) and
# runs each for SECONDS (default 20) on its corpus fuzz/corpus/<target>/, which it only reads: new
# inputs go to build-fuzz/scratch/<target>/. Fails (exit 1) on any crash, sanitizer report, leak
# or timeout, naming the input that did it; exits 77 (a skip for ctest) when clang or libFuzzer is
# missing. Prints each target's executions.
#
#   tools/fuzz.sh [--merge] [--build-only] [SECONDS] [TARGET...]
#     --merge       afterwards, add the scratch inputs that reach new code to fuzz/corpus/<target>/
#     --build-only  configure and build build-fuzz/, run nothing
#   FUZZ_FLAGS      extra libFuzzer flags, e.g. FUZZ_FLAGS="-fork=2" or "-only_ascii=1"
#   FUZZ_JOBS       build parallelism (default: nproc)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=$root/build-fuzz

merge=0 build_only=0 seconds=20 targets=()
for arg in "$@"; do
  case $arg in
    --merge) merge=1 ;;
    --build-only) build_only=1 ;;
    [0-9]*) seconds=$arg ;;
    *) targets+=("$arg") ;;
  esac
done
if ((${#targets[@]} == 0)); then
  for f in fuzz/*_fuzz.cpp; do
    t=${f#fuzz/}
    targets+=("${t%_fuzz.cpp}")
  done
fi
for t in "${targets[@]}"; do
  [[ -f fuzz/${t}_fuzz.cpp ]] || { echo "fuzz: no target \"$t\" (no fuzz/${t}_fuzz.cpp)" >&2; exit 1; }
done

mkdir -p "$build"
if ! command -v clang++ >/dev/null; then
  echo "fuzz: SKIPPED: clang++ not found (Debian packages clang, libclang-rt-14-dev: tools/setup.sh)" >&2
  exit 77
fi
# libFuzzer comes with Debian's compiler-rt (libclang-rt-*-dev): try to link a trivial target.
if [[ ! -f $build/.libfuzzer-ok ]]; then
  probe='extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }'
  if ! echo "$probe" | clang++ -x c++ -fsanitize=fuzzer - -o "$build/.probe" 2>"$build/.probe.log"; then
    echo "fuzz: SKIPPED: clang++ cannot link -fsanitize=fuzzer (package libclang-rt-14-dev: tools/setup.sh)" >&2
    exit 77
  fi
  rm -f "$build/.probe"
  touch "$build/.libfuzzer-ok"
fi

# Concurrent callers (ctest -j runs one entry per target) build one at a time; an up-to-date
# build costs about a second.
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true
(
  flock 9
  if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S . -B "$build" -DEDGETRAIN_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  cmake --build "$build" -j"${FUZZ_JOBS:-$(nproc)}" >"$build/build.log" 2>&1 || {
    tail -40 "$build/build.log" >&2
    echo "fuzz: the build failed (log: $build/build.log)" >&2
    exit 1
  }
) 9>"$build/.lock"
((build_only)) && exit 0

failed=() total=0
for t in "${targets[@]}"; do
  bin=$build/fuzz/${t}_fuzz
  corpus=fuzz/corpus/$t scratch=$build/scratch/$t crashes=$build/crashes/$t tmp=$build/tmp/$t
  log=$build/logs/$t.log
  rm -rf "$scratch" "$tmp"
  mkdir -p "$corpus" "$scratch" "$crashes" "$tmp" "$(dirname "$log")"
  # Per-target flags (e.g. -max_len) from the target's "// fuzz.sh:" comment line.
  read -r -a flags <<<"$(sed -n 's|^// fuzz.sh: *||p' "fuzz/${t}_fuzz.cpp" | head -1)"
  [[ -f fuzz/$t.dict ]] && flags+=("-dict=fuzz/$t.dict")
  read -r -a extra <<<"${FUZZ_FLAGS:-}"
  status=0
  TMPDIR=$tmp timeout -k 10 $((seconds + 120)) "$bin" -max_total_time="$seconds" -print_final_stats=1 -timeout=10 \
    -rss_limit_mb=2048 -malloc_limit_mb=512 -error_exitcode=1 -timeout_exitcode=1 -artifact_prefix="$crashes/" \
    "${flags[@]}" "${extra[@]}" "$scratch" "$corpus" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  total=$((total + ${runs:-0}))
  new=$(find "$scratch" -type f | wc -l)
  if ((status != 0)); then
    failed+=("$t")
    # The report: from the first sanitizer, libFuzzer or target line to the summary, without
    # the fuzzer's and the standard library's own stack frames.
    sed -n '/runtime error\|^==[0-9]*==\|^[a-z]*_fuzz: /,/^SUMMARY/p' "$log" | grep -a -v ' in fuzzer::\| in std::\| in __' |
      cut -c1-300 | head -40 >&2
    artifact=$(sed -n 's/.*Test unit written to //p' "$log" | tail -1)
    echo "fuzz $t: FAILED (exit $status) after ${runs:-?} executions; log: $log" >&2
    [[ -n $artifact ]] && echo "fuzz $t: reproduce with: $bin $artifact" >&2
    continue
  fi
  echo "fuzz $t: ${runs:-?} executions in ${seconds} s, $(find "$corpus" -type f | wc -l) corpus inputs, $new new"
  if ((merge && new > 0)); then
    # Edges only (no hit counts): the committed corpus stays small.
    "$bin" -merge=1 -use_counters=0 "${flags[@]}" "$corpus" "$scratch" >"$build/logs/$t.merge.log" 2>&1
    echo "fuzz $t: merged; fuzz/corpus/$t now holds $(find "$corpus" -type f | wc -l) inputs ($(du -sk "$corpus" | cut -f1) KB)"
  fi
done
((${#targets[@]} > 1)) && echo "fuzz: $total executions in total"
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]}" >&2
  exit 1
fi
