#!/usr/bin/env bash
# sdk-check.sh - proves the plugin SDK end to end, as a plugin author would
# use it, with nothing but the installed files:
#   1. builds settee without tests and installs it into a temporary prefix
#      (configured for another prefix, so nothing relies on the configured one);
#   2. checks the installed layout, the soname, that libsettee exports only
#      st_* symbols (no st__ internals), and that each installed public
#      header compiles on its own;
#   3. copies the installed template (share/settee/template) and example
#      plugin (share/settee/examples/ConstantForceField) out of the source
#      tree, builds them with find_package(Settee 0.1 REQUIRED), runs the
#      template's own tests, and builds the example once more with
#      pkg-config and plain cc;
#   4. runs their scenes through SETTEE_PLUGIN_PATH and checks the final
#      positions against closed forms;
#   5. builds plugins for another ABI major and a newer ABI minor and checks
#      that the loader refuses them with the messages docs/writing-a-plugin.md
#      quotes;
#   6. runs the commands of docs/writing-a-plugin.md (blocks "```sh tutorial"
#      and the files of blocks "```LANG file=PATH") and checks the result;
#   7. builds the C program of docs/embedding.md with pkg-config against the
#      install, runs it and compares its output with the page's.
#
# usage: scripts/sdk-check.sh [--build-dir DIR] [--keep]
#   --build-dir DIR  build settee in DIR (kept, so reruns are incremental);
#                    default: a fresh folder in the temporary work area
#   --keep           keep the temporary work area and print its path
# Needs only the Debian packages of scripts/deps.sh. Exit status 0 when
# every check passes; 1 with a "sdk-check: FAIL: ..." line otherwise.
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build_dir=""
keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) build_dir=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "sdk-check: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

work=$(mktemp -d "${TMPDIR:-/tmp}/settee-sdk-check.XXXXXX")
cleanup() { if [ "$keep" = 1 ]; then echo "sdk-check: work area kept in $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
[ -n "$build_dir" ] || build_dir="$work/build"
prefix="$work/prefix"
log="$work/log"

fail() { echo "sdk-check: FAIL: $*" >&2; exit 1; }
step() { echo "sdk-check: $*"; }
# Runs a command quietly; on failure shows its output and fails.
quiet() {
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    fail "command failed: $*"
  fi
}

# Prints the positions of an --export-state file, one "x y z" line each.
positions() {
  awk '/"position"/ { p = 1; next } /"velocity"/ { p = 0 }
       p && /\[/ { gsub(/[][,]/, " "); print $1, $2, $3 }' "$1"
}
# Compares the positions of FILE with the lines "x y z" on stdin, to a
# relative tolerance of 1e-12.
check_positions() {
  local file=$1 what=$2
  positions "$file" >"$work/got"
  awk -v what="$what" '
    function abs(v) { return v < 0 ? -v : v }
    NR == FNR { want[FNR] = $0; n = FNR; next }
    { m++; split(want[m], w, " ");
      for (d = 1; d <= 3; d++) {
        tol = 1e-12 * (abs(w[d]) > 1 ? abs(w[d]) : 1)
        if (abs($d - w[d]) > tol) {
          printf "%s: vertex %d axis %d: got %.17g, closed form %.17g\n", what, m - 1, d - 1, $d, w[d]
          bad = 1
        }
      } }
    END { if (m != n) { printf "%s: %d vertices, expected %d\n", what, m, n; bad = 1 }
          exit bad }' - "$work/got" || fail "$what does not match its closed form"
}

# ---- 1. build and install ----
step "building settee (tests off) in $build_dir"
# Unoptimised and without debug information: a third of the compile time
# of the default RelWithDebInfo, and the checks below run only tiny scenes.
quiet cmake -S "$src" -B "$build_dir" -DSETTEE_BUILD_TESTS=OFF -DSETTEE_BUILD_BENCH=OFF \
  -DSETTEE_SANITIZE=OFF -DCMAKE_INSTALL_PREFIX=/nonexistent/settee \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG=-O0
quiet cmake --build "$build_dir" -j2
step "installing into $prefix"
quiet cmake --install "$build_dir" --prefix "$prefix"

# Nothing below may see the build or source tree.
unset SETTEE_PLUGIN_PATH
export PATH="$prefix/bin:$PATH"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"

# ---- 2. layout, symbols, headers ----
step "checking the installed layout"
for f in bin/settee lib/libsettee.so lib/libsettee.so.0 include/settee/settee.h \
         lib/cmake/Settee/SetteeConfig.cmake lib/cmake/Settee/SetteeConfigVersion.cmake \
         lib/cmake/Settee/SetteeAddPlugin.cmake lib/pkgconfig/settee.pc \
         lib/settee/plugins/libODESolver.Forward.so lib/settee/plugins/libMass.so \
         share/settee/template/CMakeLists.txt share/settee/examples/ConstantForceField/plugin.c; do
  [ -e "$prefix/$f" ] || fail "$f is not installed"
done
[ ! -e "$prefix/include/settee/internal.h" ] && [ -z "$(find "$prefix/include" -name 'internal*')" ] ||
  fail "kernel internals are installed under include/"
soname=$(objdump -p "$prefix/lib/libsettee.so" | awk '$1 == "SONAME" { print $2 }')
[ "$soname" = "libsettee.so.0" ] || fail "libsettee's soname is '$soname', expected libsettee.so.0"
nm -D --defined-only "$prefix/lib/libsettee.so" | awk '{ print $NF }' >"$work/symbols"
[ "$(wc -l <"$work/symbols")" -gt 50 ] || fail "libsettee exports almost nothing"
bad=$(grep -v '^st_' "$work/symbols" || true)
[ -z "$bad" ] || fail "libsettee exports symbols outside the public API: $(echo $bad | head -c 300)"
bad=$(grep '^st__' "$work/symbols" || true)
[ -z "$bad" ] || fail "libsettee exports kernel internals: $(echo $bad | head -c 300)"
for h in "$prefix"/include/settee/*.h; do
  name=$(basename "$h")
  printf '#include <settee/%s>\n#include <settee/%s>\ntypedef int sdk_check_tu;\n' "$name" "$name" |
    cc -std=c11 -Wall -Wextra -Werror -Wpedantic -fsyntax-only -I"$prefix/include" -x c - 2>"$log" ||
    { cat "$log" >&2; fail "installed header settee/$name does not compile on its own"; }
done
v_prog=$(settee --version | awk '{ print $2 }')
v_pc=$(pkg-config --modversion settee)
[ "$v_prog" = "$v_pc" ] || fail "settee --version says $v_prog but settee.pc says $v_pc"
pkg-config --atleast-version=0.1 settee || fail "pkg-config does not accept settee >= 0.1"
# The installed program finds its bundled plugins by itself.
settee inspect >"$work/inspect.txt" 2>&1 || { cat "$work/inspect.txt" >&2; fail "settee inspect failed"; }
grep -q "^  $prefix/lib/settee/plugins\$" "$work/inspect.txt" ||
  fail "the installed settee does not search $prefix/lib/settee/plugins"
grep -q "^ODESolver.Forward " "$work/inspect.txt" || fail "the installed settee does not find its plugins"

# ---- 3. the template and the example, out of tree ----
mkdir -p "$work/src"
cp -r "$prefix/share/settee/template" "$work/src/anchor"
cp -r "$prefix/share/settee/examples/ConstantForceField" "$work/src/cff"

step "building the template plugin with find_package(Settee 0.1 REQUIRED)"
quiet cmake -S "$work/src/anchor" -B "$work/src/anchor/build" -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$work/src/anchor/build"
grep -q "test_anchor" "$work/src/anchor/build/CTestTestfile.cmake" ||
  fail "the template's Criterion test was not configured (is libcriterion-dev installed?)"
quiet ctest --test-dir "$work/src/anchor/build" --output-on-failure
[ "$(nm -D --defined-only "$work/src/anchor/build/plugins/libAnchor.so" | awk '{ print $NF }')" = \
  st_plugin_descriptor ] || fail "libAnchor.so exports more than its descriptor"

step "building the example plugin with find_package(Settee 0.1 REQUIRED)"
quiet cmake -S "$work/src/cff" -B "$work/src/cff/build" -DCMAKE_PREFIX_PATH="$prefix"
quiet cmake --build "$work/src/cff/build"

step "building the example plugin with pkg-config and cc"
mkdir -p "$work/src/cff/pc"
# shellcheck disable=SC2046
quiet cc -std=c11 -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC -fvisibility=hidden \
  -DSETTEE_PLUGIN_NAME='"Example.MechanicalLoad"' $(pkg-config --cflags settee) \
  -o "$work/src/cff/pc/libExample.MechanicalLoad.so" "$work/src/cff/plugin.c" \
  "$work/src/cff/constant_force_field.c" $(pkg-config --libs settee) -Wl,--no-undefined
# A plugin that calls libm links with pkg-config's flags alone (-lm is in Libs).
cat >"$work/src/cff/pc/libm_user.c" <<'EOF'
#include <math.h>
double settee_sdk_check_norm(double x, double y);
double settee_sdk_check_norm(double x, double y) { return sqrt(x * x + y * y); }
EOF
# shellcheck disable=SC2046
quiet cc -std=c11 -shared -fPIC $(pkg-config --cflags settee) -o "$work/src/cff/pc/liblibm.so" \
  "$work/src/cff/pc/libm_user.c" $(pkg-config --libs settee) -Wl,--no-undefined

# ---- 4. the scenes against closed forms ----
step "running the template's scene (AnchorForceField, closed-form oscillation)"
SETTEE_PLUGIN_PATH="$work/src/anchor/build/plugins" quiet settee run "$work/src/anchor/scene.yaml" \
  -n 300 --export-state "$work/anchor.json"
# x_n - anchor = cos(n t) - h^2 w^2 sin(n t) / (2 sin t), cos t = 1 - h^2 w^2 / 2
awk 'BEGIN { h = 0.01; w2 = 8 / 2; n = 300; c = 1 - h * h * w2 / 2; t = atan2(sqrt(1 - c * c), c)
             printf "%.17g 2 0\n", cos(n * t) - h * h * w2 * sin(n * t) / (2 * sin(t)) }' |
  check_positions "$work/anchor.json" "template scene"

for build in build/plugins pc; do
  step "running the example's scene with the $build plugin (ExampleConstantForceField)"
  SETTEE_PLUGIN_PATH="$work/src/cff/$build" quiet settee run "$work/src/cff/scene.yaml" -n 100 \
    --export-state "$work/cff.json"
  grep -q "$work/src/cff/$build/libExample.MechanicalLoad.so" <(SETTEE_PLUGIN_PATH="$work/src/cff/$build" \
    settee inspect Example.MechanicalLoad 2>&1) || fail "the example plugin was not loaded from $build"
  # x_n = x0 + n h v0 + h^2 a n (n + 1) / 2, a = [2, 4, 0] on vertices 0 and 2
  awk 'BEGIN { n = 100; h = 0.01; k = h * h * n * (n + 1) / 2
               printf "%.17g %.17g 0\n", 0 + n * h + 2 * k, 4 * k
               printf "1 %.17g 0\n", n * h
               printf "%.17g %.17g %.17g\n", 2 + 2 * k, 4 * k, n * h }' |
    check_positions "$work/cff.json" "example scene ($build)"
done

# ---- 5. ABI refusals, with the messages the tutorial quotes ----
doc="$src/docs/writing-a-plugin.md"
# Prints the body of the fenced block whose info string is exactly $1.
doc_block() { awk -v info="$1" '$0 == "```" info { p = 1; next } p && /^```/ { exit } p' "$doc"; }
mkdir -p "$work/abi"
cat >"$work/abi/future.yaml" <<'EOF'
format: settee/1
root:
  name: root
  objects:
    - RequiredPlugin: {pluginName: [Future]}
EOF
for kind in major minor; do
  if [ $kind = major ]; then abi="ST_ABI_MAJOR + 1, 0"; else abi="ST_ABI_MAJOR, ST_ABI_MINOR + 1"; fi
  cat >"$work/abi/future.c" <<EOF
#include <settee/settee.h>
static st_status reg(st_registry *r, st_error *err) { (void)r; (void)err; return ST_OK; }
ST_API extern const st_plugin_desc st_plugin_descriptor;
const st_plugin_desc st_plugin_descriptor = {$abi, sizeof(st_plugin_desc), "Future", "9.0.0",
                                             "Built for another ABI", "MIT", NULL, reg};
EOF
  mkdir -p "$work/abi/$kind"
  # shellcheck disable=SC2046
  quiet cc -std=c11 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags settee) \
    -o "$work/abi/$kind/libFuture.so" "$work/abi/future.c" $(pkg-config --libs settee)
  want=$(doc_block "text abi-$kind")
  [ -n "$want" ] || fail "docs/writing-a-plugin.md has no block \`\`\`text abi-$kind"
  got=$(cd "$work/abi" && SETTEE_PLUGIN_PATH="$work/abi/$kind" NO_COLOR=1 settee run future.yaml 2>&1 || true)
  got=${got//"$work/abi/$kind"/\/home\/me\/plugins}
  [ "$got" = "$want" ] ||
    fail "the ABI $kind refusal differs from the tutorial's:"$'\n'"  settee: $got"$'\n'"  docs:   $want"
done
# A plugin built for an older (or, while ST_ABI_MINOR is 0, the same) minor loads.
cat >"$work/abi/older.c" <<'EOF'
#include <settee/settee.h>
static st_status reg(st_registry *r, st_error *err) { (void)r; (void)err; return ST_OK; }
ST_API extern const st_plugin_desc st_plugin_descriptor;
const st_plugin_desc st_plugin_descriptor = {
    ST_ABI_MAJOR, ST_ABI_MINOR > 0 ? ST_ABI_MINOR - 1 : 0, sizeof(st_plugin_desc), "Older",
    "0.0.1", "Built for an older ABI minor", "MIT", NULL, reg};
EOF
mkdir -p "$work/abi/older"
# shellcheck disable=SC2046
quiet cc -std=c11 -shared -fPIC -fvisibility=hidden $(pkg-config --cflags settee) \
  -o "$work/abi/older/libOlder.so" "$work/abi/older.c" $(pkg-config --libs settee)
SETTEE_PLUGIN_PATH="$work/abi/older" quiet settee inspect Older
step "ABI: older minor loads; other major and newer minor refused with the documented messages"

# ---- 6. the tutorial's own commands ----
step "running the commands of docs/writing-a-plugin.md"
tut="$work/tutorial"
mkdir -p "$tut"
awk -v dir="$tut" '
  /^```sh tutorial$/ { out = dir "/run.sh"; next }
  /^```[A-Za-z]+ file=[^ ]+$/ { sub(/^```[A-Za-z]+ file=/, ""); out = dir "/" $0
                                d = out; sub(/\/[^\/]*$/, "", d); system("mkdir -p \"" d "\"")
                                printf "" > out; next }
  /^```/ { if (out) close(out); out = ""; next }
  out { print >> out }' "$doc"
[ -s "$tut/run.sh" ] || fail "docs/writing-a-plugin.md has no \`\`\`sh tutorial block"
(cd "$tut" && SETTEE_PREFIX="$prefix" bash -euo pipefail run.sh) >"$log" 2>&1 ||
  { cat "$log" >&2; fail "a command of docs/writing-a-plugin.md failed (output above)"; }
[ -f "$tut/drag/out.json" ] || fail "the tutorial did not write drag/out.json"
# v_n = v0 r^n, x_n = x0 + h v0 r (1 - r^n) / (1 - r), r = 1 - h c / m
awk 'BEGIN { h = 0.01; c = 0.5; m = 1; n = 100; r = 1 - h * c / m
             printf "%.17g 0 0\n", h * 2 * r * (1 - r ^ n) / (1 - r) }' |
  check_positions "$tut/drag/out.json" "tutorial scene"

# The outputs the tutorial quotes.
got=$(SETTEE_PLUGIN_PATH="$tut/drag/build/plugins" settee inspect DragForceField 2>&1)
[ "$got" = "$(doc_block "text inspect-drag")" ] ||
  fail "settee inspect DragForceField differs from the tutorial's block inspect-drag:"$'\n'"$got"
mkdir -p "$work/typo/drag"
sed 's/{damping: 0.5}/{dampnig: 0.5}/' "$tut/drag/scene.yaml" >"$work/typo/drag/scene.yaml"
got=$(cd "$work/typo" && SETTEE_PLUGIN_PATH="$tut/drag/build/plugins" NO_COLOR=1 \
      settee run drag/scene.yaml 2>&1 || true)
[ "$got" = "$(doc_block "text typo-drag")" ] ||
  fail "the typo error differs from the tutorial's block typo-drag:"$'\n'"$got"

# ---- 7. docs/embedding.md: a C program driving a scene, against the install ----
step "building and running the program of docs/embedding.md"
doc="$src/docs/embedding.md"
emb="$work/embedding"
mkdir -p "$emb"
awk -v dir="$emb" '
  /^```sh embedding$/ { out = dir "/run.sh"; printf "" > out; next }
  /^```[A-Za-z]+ file=[^ ]+$/ { sub(/^```[A-Za-z]+ file=/, ""); out = dir "/" $0
                                printf "" > out; next }
  /^```/ { if (out) close(out); out = ""; next }
  out { print >> out }' "$doc"
[ -s "$emb/run.sh" ] && [ -s "$emb/drive.c" ] && [ -s "$emb/ball.yaml" ] ||
  fail "docs/embedding.md lacks its \`\`\`sh embedding block or its files"
got=$(cd "$emb" && bash -euo pipefail run.sh 2>&1) ||
  { echo "$got" >&2; fail "a command of docs/embedding.md failed (output above)"; }
[ "$got" = "$(doc_block "text embedding-output")" ] ||
  fail "the program of docs/embedding.md printed:"$'\n'"$got"$'\n'"not the page's block embedding-output"
[ -s "$emb/ball-state.json" ] || fail "the program of docs/embedding.md wrote no ball-state.json"

step "PASS"
