#!/usr/bin/env bash
# What cluster nodes install: `cmake --install` into a prefix, and the .deb that `cpack -G DEB`
# builds (its Depends found by dpkg-shlibdeps), unpacked into a fresh root with `dpkg -x`. From each,
# the installed quickstart (which finds its platform through ../platforms) runs timing-only, and the
# installed binary runs a sweep of it; the reference is there (README and every page of docs/, the HTML
# site when the build has mkdocs, the Debian copyright file, a man page that `man -l` reads, --help naming
# them), the Python module runs the installed binary, and `plot` draws a run. Usage: install.sh EDGETRAIN BUILD_DIR
set -euo pipefail
build=$(realpath "$2")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cmake cpack dpkg-deb dpkg-shlibdeps man; do
  command -v "$tool" >/dev/null || skip "$tool is not installed (apt-get install cmake dpkg-dev man-db)"
done
source=$(realpath "$(dirname "$0")/../..")
# The build makes the HTML docs when configure found mkdocs (CMakeLists.txt: docs_html).
html=no
grep -q '^MKDOCS:FILEPATH=/' "$build/CMakeCache.txt" && html=yes
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
timing_only=(--set training.compute=timing-only --set stop.target_accuracy=null --set stop.rounds=3)

# Runs the installed quickstart and a two-run sweep of it with the edgetrain under $1.
check_installed() {
  local bin=$1/bin/edgetrain share=$1/share/edgetrain tag=$2
  [ -x "$bin" ] || fail "$tag: no bin/edgetrain"
  for f in platforms/quickstart.xml scenarios/quickstart.json scenarios/adacomp plot notebooks/stragglers.ipynb; do
    [ -e "$share/$f" ] || fail "$tag: share/edgetrain/$f not installed"
  done
  # The reference an installed user has: README and docs, copyright, the man page, --help naming them.
  local doc=$1/share/doc/edgetrain
  for f in README.md docs/index.md docs/tutorials/teaching.md copyright; do
    [ -s "$doc/$f" ] || fail "$tag: share/doc/edgetrain/$f not installed"
  done
  cmp -s "$doc/README.md" "$source/README.md" || fail "$tag: the installed README is not the source's"
  diff -r "$source/docs" "$doc/docs" > "$tag-docs.diff" || { cat "$tag-docs.diff"; fail "$tag: the installed docs/ are not the source's"; }
  if [ "$html" = yes ]; then
    for f in index.html tutorials/quickstart.html reference/scenario-keys.html development/architecture.html; do
      [ -s "$doc/html/$f" ] || fail "$tag: share/doc/edgetrain/html/$f not installed"
    done
    # The site opens from disk and loads nothing from the network (mkdocs.yml: no CDN).
    ! grep -rlE '<(script|link|img)[^>]+(src|href)="(https?:)?//' "$doc/html" --include='*.html' ||
      fail "$tag: an installed HTML page loads something from the network"
  fi
  head -1 "$doc/copyright" | grep -q '^Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/$' ||
    fail "$tag: copyright is not in Debian's machine-readable format"
  grep -q '^Files: \*$' "$doc/copyright" && grep -q '^License: ' "$doc/copyright" || fail "$tag: copyright lacks Files/License"
  local page=$1/share/man/man1/edgetrain.1.gz
  [ -s "$page" ] || fail "$tag: share/man/man1/edgetrain.1.gz not installed"
  MANWIDTH=100 man -l "$page" 2>"$tag-man.err" | col -b > "$tag-man.txt" || { cat "$tag-man.err"; fail "$tag: man -l"; }
  for words in "edgetrain - emulate deep-learning training" "SYNOPSIS" "edgetrain compare RUN_DIR" "--threads" \
               "/usr/share/doc/edgetrain/README.md" "/usr/share/edgetrain/scenarios/"; do
    grep -qF -- "$words" "$tag-man.txt" || fail "$tag: the man page lacks \"$words\""
  done
  # Generated from the help: every option of `edgetrain --help` is in the page.
  "$bin" --help > "$tag-help.txt"
  grep -q "^Documentation: man edgetrain; README.md and docs/ in /usr/share/doc/edgetrain" "$tag-help.txt" ||
    fail "$tag: --help does not name the documentation"
  for option in $(grep -oE -- '--[a-z]+' "$tag-help.txt" | sort -u); do
    grep -qF -- "$option" "$tag-man.txt" || fail "$tag: the man page lacks $option of --help"
  done
  "$bin" run "$share/scenarios/quickstart.json" "${timing_only[@]}" --out "$tmp/$tag-run" --quiet > "$tag-run.out" 2>&1 ||
    { cat "$tag-run.out"; fail "$tag: the installed quickstart did not run"; }
  grep -q '"status": "completed"' "$tmp/$tag-run/summary.json" || fail "$tag: run not completed"
  # One real round: the binary loads its LibTorch module from lib/edgetrain.
  [ -f "$1/lib/edgetrain/libedgetrain_torch.so" ] || fail "$tag: lib/edgetrain/libedgetrain_torch.so not installed"
  "$bin" run "$share/scenarios/quickstart.json" --set stop.rounds=1 --set stop.target_accuracy=null \
    --set eval.test_samples=100 --out "$tmp/$tag-real" --quiet > "$tag-real.out" 2>&1 ||
    { cat "$tag-real.out"; fail "$tag: the installed quickstart did not train a round"; }
  # The Python module, where Debian's python3 looks under this prefix, runs the installed binary.
  local package
  package=$(ls -d "$1"/lib/python3*/dist-packages/edgetrain 2>/dev/null | head -1)
  [ -f "$package/__init__.py" ] && ls "$package"/_core.*.so >/dev/null 2>&1 || fail "$tag: the Python module is not installed"
  PYTHONPATH=$(dirname "$package") /usr/bin/python3 - "$bin" "$share/scenarios/quickstart.json" "$tmp/$tag-py" \
    > "$tag-py.out" 2>&1 <<'PY' || { cat "$tag-py.out"; fail "$tag: the installed Python module did not run"; }
import os, sys, edgetrain
assert os.path.samefile(edgetrain.engine_path(), sys.argv[1]), edgetrain.engine_path()
run = edgetrain.run(sys.argv[2], out=sys.argv[3], set={"training.compute": "timing-only", "stop.target_accuracy": None, "stop.rounds": 3})
assert run.status == "completed" and len(run.rounds) == 3, run
PY
  # The results reader the plots and the package share (src/plot/result_files.py, a link in the source
  # package) is a file in both places, and the installed plots read a run with it.
  for f in "$share/plot/result_files.py" "$package/_result_files.py"; do
    [ -f "$f" ] && [ ! -L "$f" ] || fail "$tag: $f is not a file"
  done
  "$bin" plot "$tmp/$tag-run" --out "$tmp/$tag-plots" > "$tag-plot.out" 2>&1 || { cat "$tag-plot.out"; fail "$tag: plot"; }
  ls "$tmp/$tag-plots"/*.png > /dev/null 2>&1 || fail "$tag: plot wrote no image"
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
for p in libsimgrid3.32 libtorch1.13 libboost-program-options1.74.0 libpugixml1v5 libmimalloc2.0 libssl3; do
  [[ "$depends" == *"$p "* ]] || fail "Depends lacks $p: $depends"
done
for p in python3-matplotlib python3-pandas; do
  [[ "$(dpkg-deb -f "$deb" Recommends)" == *$p* ]] || fail "Recommends lacks $p"
done
dpkg -x "$deb" root
check_installed "$tmp/root/usr" deb
echo "install: ok ($(basename "$deb"): Depends: $depends; HTML docs: $html)"
