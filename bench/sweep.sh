#!/bin/sh
# bench/sweep.sh - `bench/run sweep`: a 64-case `settee sweep` of the 4x4x11
# implicit beam (scenes/beam_implicit_cg.yaml: 8 stiffnesses x 8 Rayleigh
# mass dampings) on JOBS processes, and the start-up cost of one `settee`
# process (load + init of the beam, `settee run -n 0`).
# Usage: bench/sweep.sh SETTEE   (the Release program; bench/run passes it)
# Environment: SETTEE_BENCH_SWEEP_STEPS (steps per case, default 400),
#   SETTEE_BENCH_SWEEP_JOBS (default 2), SETTEE_BENCH_STARTUP_RUNS (default 30).
# Prints one line: bench=sweep cases=64 jobs=J steps=S wall_s=W case_sum_s=C
#   ideal_s=C/J ratio=W/(C/J) driver_overhead_ms=... startup_ms_median=... startup_ms_min=...
set -eu
settee=$1
src=$(cd "$(dirname "$0")/.." && pwd)
steps=${SETTEE_BENCH_SWEEP_STEPS:-400}
jobs=${SETTEE_BENCH_SWEEP_JOBS:-2}
runs=${SETTEE_BENCH_STARTUP_RUNS:-30}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/plan.yaml" <<PLAN
sweep: settee/1
scene: $src/scenes/beam_implicit_cg.yaml
steps: $steps
parameters:
  /Beam/MeshSpringForceField1.stiffness: {start: 100, stop: 3000, num: 8, scale: log}
  /Beam/odesolver.rayleighMass: {start: 0, stop: 0.35, num: 8}
collect:
  - {name: tip_y, field: "/Beam/dofs.position[-1][1]"}
PLAN

now() { date +%s.%N; }
t0=$(now)
"$settee" sweep "$tmp/plan.yaml" -j "$jobs" --out "$tmp/out" -q --no-progress
t1=$(now)
# wall_s is column 5: case, stiffness, rayleighMass, status, wall_s
case_sum=$(awk -F, 'NR > 1 { s += $5; if ($4 != "ok") bad++ }
                    END { if (bad) exit 1; printf "%.3f", s }' "$tmp/out/results.csv")

# start-up: load + init of the same beam, one process each
: >"$tmp/startup"
i=0
while [ "$i" -lt "$runs" ]; do
    a=$(now)
    "$settee" run "$src/scenes/beam_implicit_cg.yaml" -n 0 -q
    b=$(now)
    echo "$a $b" | awk '{ printf "%.3f\n", ($2 - $1) * 1e3 }' >>"$tmp/startup"
    i=$((i + 1))
done
sort -n "$tmp/startup" >"$tmp/startup.sorted"
median=$(awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }' "$tmp/startup.sorted")
min=$(head -n 1 "$tmp/startup.sorted")

echo "$t0 $t1 $case_sum $jobs $steps $median $min" | awk '{
    wall = $2 - $1; ideal = $3 / $4;
    printf "bench=sweep cases=64 jobs=%d steps=%d wall_s=%.3f case_sum_s=%.3f ideal_s=%.3f " \
           "ratio=%.3f driver_overhead_ms=%.1f startup_ms_median=%s startup_ms_min=%s\n",
           $4, $5, wall, $3, ideal, wall / ideal, (wall * $4 - $3) / 64 * 1e3, $6, $7 }'
