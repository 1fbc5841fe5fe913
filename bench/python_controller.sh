#!/bin/sh
# bench/python_controller.sh SETTEE [STEPS] - what an empty Python controller
# costs per step (issue 28: at most a few microseconds). The same one-particle
# scene is run by `settee run scene.py -n STEPS` (the SofaPython3 plugin
# embeds the interpreter) without and with a Sofa.Core.Controller whose
# onAnimateBeginEvent does nothing; the process's user + system CPU time
# (best of 3 each, GNU time: Debian package `time`) is compared. Prints one
# key=value line.
set -eu
settee=$1
steps=${2:-100000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for with in 0 1; do
    cat >"$dir/s$with.py" <<PY
import Sofa.Core


class Empty(Sofa.Core.Controller):
    def onAnimateBeginEvent(self, event):
        pass


def createScene(root):
    root.addObject("RequiredPlugin", pluginName="ODESolver.Forward Mass")
    root.addObject("EulerExplicitSolver")
    root.addObject("MechanicalObject", position=[[0, 0, 0]])
    root.addObject("UniformMass", totalMass=1)
    if $with:
        root.addObject(Empty(name="empty"))
PY
done
best() {
    b=""
    for _ in 1 2 3; do
        /usr/bin/time -o "$dir/t" -f "%U %S" "$settee" run "$1" -n "$steps" -q --no-progress \
            >/dev/null 2>&1
        t=$(awk '{print $1 + $2}' "$dir/t")
        if [ -z "$b" ] || awk "BEGIN{exit !($t < $b)}"; then b=$t; fi
    done
    echo "$b"
}
t0=$(best "$dir/s0.py")
t1=$(best "$dir/s1.py")
awk -v a="$t0" -v b="$t1" -v n="$steps" 'BEGIN {
    printf "bench=python_controller steps=%d cpu_s_without=%.3f cpu_s_with=%.3f us_per_step=%.2f\n",
           n, a, b, 1e6 * (b - a) / n }'
