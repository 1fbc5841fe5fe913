#!/bin/sh
# bench/output.sh - what `settee run --output DIR --every 10` costs (issue 16):
# the explicit beam of the seeds at 16x16x81 (20,736 points), STEPS steps
# (default 100) without output and with VTU + PVD + summary.json output every
# 10 steps, 3 runs each; prints the best steps/s of each and their ratio, and
# fails (exit 1) when the run with output is slower than 0.8 x the run
# without. Usage: bench/output.sh [SETTEE [STEPS]] (default build/bin/settee).
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
settee=${1:-"$src/build/bin/settee"}
steps=${2:-100}
SETTEE_PLUGIN_PATH=${SETTEE_PLUGIN_PATH:-}
export SETTEE_PLUGIN_PATH
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scene="$src/scenes/beam_explicit_diagonal.yaml"
g=/DeformableObject/topology
best() {
    b=0
    for _ in 1 2 3; do
        r=$("$settee" run "$scene" -n "$steps" --no-progress --set "$g.nx=16" --set "$g.ny=16" \
            --set "$g.nz=81" "$@" 2>/dev/null | sed -n 's/.*(\([0-9.]*\) steps\/s).*/\1/p')
        b=$(echo "$r $b" | awk '{print ($1 > $2) ? $1 : $2}')
    done
    echo "$b"
}
plain=$(best)
out=$(best --output "$tmp/out" --every 10)
ratio=$(echo "$out $plain" | awk '{printf "%.3f", $1 / $2}')
echo "output: 16x16x81 explicit beam, $steps steps: $plain steps/s without output," \
     "$out steps/s with --output --every 10 ($(ls "$tmp/out" | wc -l) files): ratio $ratio"
echo "$ratio" | awk '{exit ($1 >= 0.8) ? 0 : 1}'
