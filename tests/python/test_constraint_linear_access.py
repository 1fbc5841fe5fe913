"""Constraint and linear-system matrices, as SofaPython3: a Lagrangian
constraint solver's W(), lambda_force() and dfree(), read from the
BuildConstraintSystemEndEvent and SolveConstraintSystemEndEvent a controller
receives; a state's constraint matrix (MechanicalObject.constraint.value, a
scipy.sparse matrix); a linear system's A(), b() and x() (SofaLinearSystem)."""
import numpy as np
import pytest

import Sofa.Core
import Sofa.Simulation
from Sofa import SofaConstraintSolver, SofaLinearSystem  # noqa: F401  (the modules exist)

scipy = pytest.importorskip("scipy")
import scipy.sparse  # noqa: E402

PLUGINS = ["Sofa.Component.AnimationLoop", "Sofa.Component.Constraint.Lagrangian.Correction",
           "Sofa.Component.Constraint.Lagrangian.Model",
           "Sofa.Component.Constraint.Lagrangian.Solver", "Sofa.Component.Constraint.Projective",
           "Sofa.Component.LinearSolver.Direct", "Sofa.Component.Mass",
           "Sofa.Component.ODESolver.Backward", "Sofa.Component.Topology.Container.Dynamic",
           "Sofa.Component.Mapping.NonLinear", "Sofa.Component.StateContainer",
           "Sofa.Component.Mapping.MappedMatrix", "Sofa.Component.LinearSystem"]


class Recorder(Sofa.Core.Controller):
    """Keeps what the constraint events show, in the order they come."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.solver = kwargs.get("solver")
        self.dofs = kwargs.get("dofs")
        self.log = []

    def onBuildConstraintSystemEndEvent(self, event):
        self.log.append(("build", self.solver.W(), self.solver.dfree(),
                         self.dofs.constraint.value))

    def onSolveConstraintSystemEndEvent(self, event):
        self.log.append(("solve", self.solver.lambda_force()))

    def onAnimateEndEvent(self, event):
        self.log.append(("end",))


def chain(velocity_first):
    """Four points in a row, the first fixed, each edge held at its length by
    a Lagrangian constraint on a DistanceMapping; gravity stretches them."""
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.gravity = [0, -10, 0]
    root.dt = 0.01
    root.addObject("FreeMotionAnimationLoop", solveVelocityConstraintFirst=velocity_first)
    solver = root.addObject("GenericConstraintSolver", tolerance=1e-12, maxIterations=500)
    root.addObject("EulerImplicitSolver", rayleighStiffness=0, rayleighMass=0)
    root.addObject("SparseLDLSolver", template="CompressedRowSparseMatrixMat3x3d")
    root.addObject("GenericConstraintCorrection")
    root.addObject("EdgeSetTopologyContainer", name="topo",
                   position=[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]],
                   edges=[[0, 1], [1, 2], [2, 3]])
    dofs = root.addObject("MechanicalObject", name="dofs", template="Vec3d")
    root.addObject("FixedProjectiveConstraint", indices=[0])
    root.addObject("UniformMass", totalMass=0.4)
    ext = root.addChild("ext")
    ext.addObject("MechanicalObject", template="Vec1d", name="lengths")
    ext.addObject("DistanceMapping", topology="@../topo")
    ext.addObject("UniformLagrangianConstraint", template="Vec1d", iterative=True)
    rec = root.addObject(Recorder(name="rec", solver=solver, dofs=dofs))
    return root, rec


@pytest.mark.parametrize("velocity_first", [False, True])
def test_compliance_is_j_minv_jt(velocity_first):
    root, rec = chain(velocity_first)
    Sofa.Simulation.init(root)
    for _ in range(3):
        Sofa.Simulation.animate(root, root.dt.value)
    kinds = [e[0] for e in rec.log]
    assert kinds == ["build", "solve", "end"] * 3
    _, W, dfree, J = rec.log[-3]
    assert W.shape == (3, 3) and W.dtype == np.float64 and dfree.shape == (3,)
    # J: one row per edge, one column per scalar DOF of the 4 points; the
    # fixed point's columns are projected out
    assert scipy.sparse.issparse(J) and J.shape == (3, 12)
    Jd = J.toarray()
    assert np.all(Jd[:, :3] == 0)
    # rows are the edges' unit directions, on one point next to the fixed
    # one, on two points elsewhere
    assert np.allclose(np.linalg.norm(Jd[:, 3:], axis=1), [1, 2 ** 0.5, 2 ** 0.5])
    # W = f J A^-1 J^T with A = M here (no force field, no Rayleigh mass):
    # f = dt (EulerImplicitSolver's position factor) in the position order,
    # 1 (its velocity factor) in the velocity order
    m = 0.1
    f = 1.0 if velocity_first else root.dt.value
    expect = f * Jd @ Jd.T / m
    assert np.allclose(W, expect, rtol=1e-9, atol=1e-9)
    lam = rec.log[-2][1]
    assert lam.shape == (3,) and np.all(np.isfinite(lam))
    # gravity pulls the chain: the edges pull back, the one by the fixed
    # point the hardest (it carries the three masses)
    assert abs(lam[0]) > abs(lam[1]) > abs(lam[2]) > 0
    # lambda solves W lambda = -dfree (bilateral, converged)
    _, W, dfree, _ = rec.log[-3]
    assert np.allclose(W @ lam + dfree, 0, atol=1e-9)


def test_constraint_value_is_read_only_and_matrices_need_a_solver():
    root, rec = chain(False)
    Sofa.Simulation.init(root)
    with pytest.raises(Sofa.Core.Error, match="not from Python"):
        root.dofs.constraint.value = [1, 2]
    assert root.dofs.constraint.linkpath == "@/dofs.constraint"
    # before any step: an empty problem
    assert root.dofs.constraint.value.shape == (0, 12)
    with pytest.raises(Sofa.Core.Error, match="constraint solver"):
        root.dofs.W()
    with pytest.raises(Sofa.Core.Error, match="linear systems"):
        root.dofs.A()


def beam(template, solver, ls_template):
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=[
        "Sofa.Component.ODESolver.Backward", "Sofa.Component.LinearSolver.Direct",
        "Sofa.Component.LinearSolver.Iterative", "Sofa.Component.LinearSystem",
        "Sofa.Component.Mass", "Sofa.Component.SolidMechanics.Spring",
        "Sofa.Component.Constraint.Projective", "Sofa.Component.StateContainer"])
    root.gravity = [0, -9.81, 0]
    root.addObject("EulerImplicitSolver", rayleighStiffness=0.1, rayleighMass=0.2)
    system = root.addObject("MatrixLinearSystem", template=template, name="system")
    root.addObject(solver, template=ls_template, **({"iterations": 200, "tolerance": 1e-14,
                                                     "threshold": 1e-20}
                                                    if solver == "CGLinearSolver" else {}))
    root.addObject("MechanicalObject", name="dofs",
                   position=[[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 0, 0]])
    root.addObject("UniformMass", totalMass=4.0)
    root.addObject("FixedProjectiveConstraint", indices=[0])
    root.addObject("SpringForceField", spring=[[0, 1, 50, 0.5, 1], [1, 2, 50, 0.5, 1],
                                                [2, 3, 50, 0.5, 1], [0, 2, 20, 0, 2]])
    return root, system


@pytest.mark.parametrize("template,solver", [
    ("CompressedRowSparseMatrixMat3x3d", "SparseLDLSolver"),
    ("FullMatrix", "CGLinearSolver")])
def test_linear_system_a_b_x(template, solver):
    root, system = beam(template, solver, template)
    Sofa.Simulation.init(root)
    with pytest.raises(Sofa.Core.Error, match="run a step first"):
        system.A()
    for _ in range(2):
        Sofa.Simulation.animate(root, 0.01)
    A, b, x = system.get_system_matrix(), system.get_rhs_vector(), system.get_solution_vector()
    if template == "FullMatrix":
        assert isinstance(A, np.ndarray)
    else:
        assert scipy.sparse.issparse(A)
        A = A.toarray()
    assert A.shape == (12, 12) and b.shape == (12,) and x.shape == (12,)
    assert np.allclose(A, A.T)
    # the solution solves the system (projected: the fixed point's rows are
    # the identity and its right-hand side is zero)
    assert np.allclose(A @ x, b, rtol=0, atol=1e-9 * max(1.0, np.abs(b).max()))
    assert np.allclose(A[:3, :3], np.eye(3)) and np.all(x[:3] == 0)
    # A = (1 + h rm) M - h (h + h rs) K... checked on a free point's mass
    # diagonal: springs add -h(h + rs) K, positive on the diagonal
    h, m = 0.01, 1.0
    assert A[9, 9] > (1 + h * 0.2) * m
    assert np.array_equal(system.A() if template == "FullMatrix" else system.A().toarray(), A)
    np.testing.assert_array_equal(system.b(), b)
    np.testing.assert_array_equal(system.x(), x)
