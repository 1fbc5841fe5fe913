#!/usr/bin/env bash
# deps.sh - installs the Debian packages settee needs, when missing, by group:
#   build  building settee and running scenes: a C11 compiler, CMake,
#          pkg-config, libyaml (YAML scenes), libxml2 (SOFA's XML scenes, VTK
#          XML meshes), zlib (gzip state files, compressed VTK), SuiteSparse
#          (CHOLMOD, UMFPACK: the direct linear solvers), OpenBLAS and LAPACK,
#          METIS (SofaMatrix's FillReducingOrdering)
#   test   the test suites: Criterion (tests/AREA/test_*.c; with it, CMake builds
#          the tests and benchmarks by default), python3-meshio (tests read
#          the VTK output back with it), GNU parallel, slurm-wlm and munge
#          (the sweep tests run cases through parallel and a one-node Slurm
#          cluster on localhost)
#   python Python support (docs/python.md): the module settee._settee and the
#          SofaPython3 plugin (python3-dev, python3-numpy) and their tests
#          (python3-pytest, python3-scipy: assembled matrices as scipy.sparse);
#          skipped cleanly when absent
#   fuzz   the libFuzzer target (tests/fuzz): clang and its runtimes
#   extra  optional parts, skipped cleanly when absent: PETSc (the plugin
#          LinearSolver.PETSc and tests/solvers/test_petsc.c), ParaView with xvfb
#          (tests/io/test_paraview.c reads the VTU output with ParaView's readers
#          and renders a frame; scripts/render)
#   plot   the plotting samples of docs/sweeps.md: matplotlib for Debian's
#          /usr/bin/python3 and gnuplot (not in the default set: nothing else
#          needs them)
# usage: scripts/deps.sh [GROUP...]   (default: every group but plot)
#        scripts/deps.sh --list       (prints each group and its packages)
set -euo pipefail
declare -A groups=(
  [build]="build-essential cmake pkg-config libyaml-dev libxml2-dev zlib1g-dev libsuitesparse-dev libopenblas-dev liblapack-dev libmetis-dev"
  [test]="libcriterion-dev python3-meshio parallel slurm-wlm munge"
  [python]="python3-dev python3-numpy python3-pytest python3-scipy"
  [fuzz]="clang libclang-rt-14-dev"
  [extra]="libpetsc-real-dev paraview python3-paraview xvfb xauth"
  [plot]="python3-matplotlib gnuplot-nox"
)
order=(build test python fuzz extra)
if [ "${1:-}" = "--list" ]; then
  for g in "${order[@]}" plot; do echo "$g: ${groups[$g]}"; done
  exit 0
fi
wanted=("$@")
[ ${#wanted[@]} -eq 0 ] && wanted=("${order[@]}")
pkgs=()
for g in "${wanted[@]}"; do
  [ -n "${groups[$g]:-}" ] || { echo "deps.sh: unknown group '$g' (build, test, python, fuzz, extra, plot)" >&2; exit 2; }
  # shellcheck disable=SC2206
  pkgs+=(${groups[$g]})
done
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing: ${missing[*]}" >&2
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
