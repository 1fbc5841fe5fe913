"""A force field written in Python (numpy) against the same force field in C
(RestShapeSpringsForceField): identical trajectories, bit for bit, through the
explicit, the matrix-free (CG) and the assembled (direct) solver paths."""
import numpy as np
import pytest

import Sofa.Core
import Sofa.Simulation
import settee

import springs_scene as ss


def run(solver, python_ff, steps=60):
    root = ss.build(Sofa.Core.Node("root"), solver, python_ff)
    Sofa.Simulation.init(root)
    out = []
    for _ in range(steps):
        Sofa.Simulation.animate(root, root.dt.value)
        out.append(root.Body.dofs.position.value)
    return np.array(out)


@pytest.mark.parametrize("solver", ["explicit", "cg", "direct"])
def test_python_forcefield_matches_c(solver):
    c = run(solver, python_ff=False)
    p = run(solver, python_ff=True)
    assert np.array_equal(c, p), "max difference %g" % np.abs(c - p).max()
    # the springs hold the string: it oscillates around its rest shape
    assert np.abs(c[:, :, 1]).max() < 0.2


class NoDForce(Sofa.Core.ForceFieldVec3d):
    def addForce(self, m, f, x, v):
        pass


def test_missing_adddforce_in_an_implicit_path_is_an_error():
    root = ss.build(Sofa.Core.Node("root"), "cg", python_ff=False)
    root.Body.addObject(NoDForce(name="nod"))
    Sofa.Simulation.init(root)
    with pytest.raises(settee.Error, match="addDForce"):
        Sofa.Simulation.animate(root, 0.01)
