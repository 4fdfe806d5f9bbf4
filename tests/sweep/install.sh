#!/usr/bin/env bash
# What cluster nodes install: `cmake --install` into a prefix, and the .deb that `cpack -G DEB`
# builds (its Depends found by dpkg-shlibdeps), unpacked into a fresh root with `dpkg -x`. From each,
# the installed quickstart (which finds its platform through ../platforms) runs timing-only, and the
# installed binary runs a sweep of it. Usage: install.sh EDGETRAIN BUILD_DIR
set -euo pipefail
build=$(realpath "$2")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cmake cpack dpkg-deb dpkg-shlibdeps; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install cmake dpkg-dev)"
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
timing_only=(--set training.compute=timing-only --set stop.target_accuracy=null --set stop.rounds=3)

# Runs the installed quickstart and a two-run sweep of it with the edgetrain under $1.
check_installed() {
  local bin=$1/bin/edgetrain share=$1/share/edgetrain tag=$2
  [ -x "$bin" ] || fail "$tag: no bin/edgetrain"
  for f in platforms/quickstart.xml scenarios/quickstart.json scenarios/adacomp plot; do
    [ -e "$share/$f" ] || fail "$tag: share/edgetrain/$f not installed"
  done
  "$bin" run "$share/scenarios/quickstart.json" "${timing_only[@]}" --out "$tmp/$tag-run" --quiet > "$tag-run.out" 2>&1 ||
    { cat "$tag-run.out"; fail "$tag: the installed quickstart did not run"; }
  grep -q '"status": "completed"' "$tmp/$tag-run/summary.json" || fail "$tag: run not completed"
  cat > "$tag-sweep.json" <<JSON
{"base": "$share/scenarios/quickstart.json", "grid": {"seed": [1, 2]},
 "runs": [{"training.compute": "timing-only", "stop.target_accuracy": null, "stop.rounds": 3}]}
JSON
  "$bin" sweep "$tag-sweep.json" --jobs 2 --threads 1 > "$tag-sweep.out" 2>&1 || { cat "$tag-sweep.out"; fail "$tag: sweep failed"; }
  [ "$(grep -c ',completed,' "results/$tag-sweep/sweep.csv")" = 2 ] || fail "$tag: sweep.csv"
  # The runs were started by the installed binary.
  "$bin" sweep "$tag-sweep.json" --emit-jobs "$tag-jobs.txt" --out "$tmp/other-$tag" > /dev/null
  grep -q "^$bin run " "$tag-jobs.txt" || fail "$tag: emitted lines do not name the installed binary"
}

cmake --install "$build" --prefix "$tmp/prefix" > install.out 2>&1 || { cat install.out; fail "cmake --install"; }
check_installed "$tmp/prefix" prefix

cpack -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/deb" > cpack.out 2>&1 || { cat cpack.out; fail "cpack -G DEB"; }
deb=$(ls deb/edgetrain_*.deb)
depends=$(dpkg-deb -f "$deb" Depends)
for p in libsimgrid3.32 libtorch1.13 libboost-program-options1.74.0 libpugixml1v5 libssl3; do
  [[ "$depends" == *"$p "* ]] || fail "Depends lacks $p: $depends"
done
[[ "$(dpkg-deb -f "$deb" Recommends)" == *python3-matplotlib* ]] || fail "Recommends lacks python3-matplotlib"
dpkg -x "$deb" root
check_installed "$tmp/root/usr" deb
echo "install: ok ($(basename "$deb"): Depends: $depends)"
