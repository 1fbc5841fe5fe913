#!/usr/bin/env bash
# Installs the Debian packages settee builds and tests with, when missing
# (python3-meshio: tests/test_results.c reads the VTK output back with it;
# paraview and xvfb: tests/test_paraview.c and scripts/render).
set -euo pipefail
# parallel, slurm-wlm and munge: the sweep tests run cases through GNU parallel
# and a one-node Slurm cluster on localhost (tests/test_sweep.c).
pkgs=(build-essential cmake pkg-config libyaml-dev libsuitesparse-dev libopenblas-dev
      liblapack-dev libcriterion-dev libxml2-dev zlib1g-dev parallel slurm-wlm munge
      python3-meshio
      paraview python3-paraview xvfb xauth # tests/test_paraview.c, scripts/render (skipped without)
      libpetsc-real-dev # optional plugin LinearSolver.PETSc (skipped by CMake without it)
      clang libclang-rt-14-dev) # clang and its runtimes: the fuzz target (tests/fuzz)
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
