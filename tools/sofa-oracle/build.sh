#!/bin/sh
# Builds run_scene against a SOFA build tree (README.md here says how to make one; the build
# tree has no exported *Targets.cmake, so this compiles with g++ directly).
#   SOFA_SRC    SOFA's source tree    (default /work/sofa-src)
#   SOFA_BUILD  its build tree        (default /work/sofa-build)
set -e
SRC=${SOFA_SRC:-/work/sofa-src}
S=$SRC/Sofa/framework
B=${SOFA_BUILD:-/work/sofa-build}
INC=""
for m in Simulation/Graph:Sofa.Simulation.Graph Simulation/Common:Sofa.Simulation.Common Core:Sofa.Core \
         Helper:Sofa.Helper Config:Sofa.Config Type:Sofa.Type Topology:Sofa.Topology Geometry:Sofa.Geometry \
         DefaultType:Sofa.DefaultType LinearAlgebra:Sofa.LinearAlgebra Simulation/Core:Sofa.Simulation.Core; do
  d=${m%%:*}; n=${m##*:}
  INC="$INC -I$S/$d/src -I$B/include/$n"
  [ -d $S/$d/compat ] && INC="$INC -I$S/$d/compat"
done
cd "$(dirname "$0")"
nice -n 19 g++ -std=gnu++20 -O2 -DNDEBUG $INC -isystem /usr/include/eigen3 -isystem "$SRC/extlibs/stb" \
  -isystem "$SRC/extlibs/difflib" run_scene.cpp -o run_scene \
  -L$B/lib -Wl,-rpath,$B/lib -lSofa.Simulation.Graph -lSofa.Simulation.Common -lSofa.Simulation.Core \
  -lSofa.Core -lSofa.DefaultType -lSofa.LinearAlgebra -lSofa.Helper -lSofa.Topology -lSofa.Geometry -lSofa.Type -lSofa.Config
