"""MatrixLinearSystem observers (parts switched off) and CompositeLinearSystem,
as SofaPython3's access_mass_matrix.py uses them: the mass-only system's A()
equals the masses' matrices times the step's mass factor, a stiffness-only one
the force fields' K times kf, the solver's system is the whole one; bad set-ups
are refused with the field named."""
import numpy as np
import pytest

import settee
import Sofa.Core
import Sofa.Simulation

scipy = pytest.importorskip("scipy")

DT, RM, RK = 0.01, 0.1, 0.2
PLUGINS = ["ODESolver.Backward", "LinearSolver.Direct", "LinearSystem", "Mass",
           "SolidMechanics.Spring", "Constraint.Projective", "StateContainer", "Topology"]


def scene(observers=True, mass_system_kwargs=None, composite=None):
    root = Sofa.Core.Node("root")
    root.gravity = [0, -9.81, 0]
    root.dt = DT
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.addObject("DefaultAnimationLoop")
    root.addObject("EulerImplicitSolver", rayleighMass=RM, rayleighStiffness=RK)
    mats = root.addChild("matrices")
    mats.addObject("MatrixLinearSystem", name="system")
    if observers:
        kw = dict(assembleStiffness=False, assembleDamping=False,
                  assembleGeometricStiffness=False, applyProjectiveConstraints=False)
        kw.update(mass_system_kwargs or {})
        mats.addObject("MatrixLinearSystem", name="M", **kw)
        mats.addObject("MatrixLinearSystem", name="K", assembleMass=False, assembleDamping=False,
                       assembleGeometricStiffness=False, applyProjectiveConstraints=False)
    links = composite or dict(
        linearSystems="@matrices/system @matrices/M @matrices/K" if observers
        else "@matrices/system", solverLinearSystem="@matrices/system")
    root.addObject("CompositeLinearSystem", name="composite", **links)
    root.addObject("SparseLDLSolver", linearSystem="@composite")
    for i, m in enumerate((2.0, 3.0)):
        b = root.addChild("B%d" % i)
        b.addObject("MeshTopology", edges=[[0, 1], [1, 2], [2, 3]])
        b.addObject("MechanicalObject", name="dofs",
                    position=[[k, i, 0] for k in range(4)])
        b.addObject("UniformMass", name="mass", totalMass=m)
        b.addObject("MeshSpringForceField", name="springs", stiffness=50 + 10 * i,
                    damping=0)
        b.addObject("FixedProjectiveConstraint", indices=[0])
    return root


def test_mass_only_system_is_the_masses_diagonal():
    root = scene()
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, DT)
    M = root.matrices.M.A()
    assert scipy.sparse.issparse(M) and M.shape == (24, 24)
    mf = 1.0 + DT * RM          # Euler implicit's mass factor
    per_point = np.repeat([2.0 / 4, 3.0 / 4], 12)
    # no projective constraint: the fixed points keep their mass
    assert np.allclose(M.toarray(), np.diag(mf * per_point), rtol=0, atol=1e-14)
    # the same as each mass's own matrix (assembleMMatrix), block by block
    for i in range(2):
        Mi = getattr(root, "B%d" % i).mass.assembleMMatrix().toarray()
        assert np.allclose(M.toarray()[12 * i:12 * i + 12, 12 * i:12 * i + 12], mf * Mi)


def test_stiffness_only_system_and_the_solvers_whole_system():
    root = scene()
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, DT)
    A = root.matrices.system.A().toarray()
    K = root.matrices.K.A().toarray()
    M = root.matrices.M.A().toarray()
    kf = -(DT * RK + DT * DT)   # Euler implicit's stiffness factor, settee's K sign
    # the whole system is M + K (the K of the step, as the observer's) with
    # the fixed points' rows and columns projected
    free = [d for d in range(24) if d % 12 >= 3]
    assert np.allclose(A[np.ix_(free, free)], (M + K)[np.ix_(free, free)], rtol=0, atol=1e-14)
    fixed = [0, 1, 2, 12, 13, 14]
    assert np.allclose(A[fixed][:, free], 0) and np.allclose(A[free][:, fixed], 0)
    assert not np.allclose(K[fixed][:, free], 0)     # the observer does not project
    # the composite's A() is its solver's: the whole system
    assert np.allclose(root.composite.A().toarray(), A)
    # each force field's own K (taken at the positions after the step, so
    # close to the step's, not equal), in its block, times kf
    for i in range(2):
        Ki = getattr(root, "B%d" % i).springs.assembleKMatrix().toarray()
        assert np.abs(Ki).max() > 40
        assert np.allclose(K[12 * i:12 * i + 12, 12 * i:12 * i + 12], kf * Ki, rtol=0,
                           atol=1e-3)
        assert np.allclose(K[12 * i:12 * i + 12, 12 * (1 - i):12 * (1 - i) + 12], 0)


def test_observers_change_nothing_in_the_trajectory():
    a, b = scene(True), scene(False)
    Sofa.Simulation.init(a)
    Sofa.Simulation.init(b)
    for _ in range(5):
        Sofa.Simulation.animate(a, DT)
        Sofa.Simulation.animate(b, DT)
    assert np.array_equal(a.B1.dofs.position.value, b.B1.dofs.position.value)
    assert not np.array_equal(a.B1.dofs.position.value, [[k, 1, 0] for k in range(4)])


def test_bad_observers_are_refused():
    root = scene(mass_system_kwargs=dict(applyProjectiveConstraints=True))
    with pytest.raises(settee.Error, match="applyProjectiveConstraints"):
        Sofa.Simulation.init(root)
    # a geometric-stiffness observer loads and runs (SOFA scenes have one);
    # its matrix is not available
    root = scene(mass_system_kwargs=dict(assembleGeometricStiffness=True))
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, DT)
    with pytest.raises(settee.Error, match="assembleGeometricStiffness.*not available"):
        root.matrices.M.A()


def test_partial_system_serving_a_solver_is_refused():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.addObject("EulerImplicitSolver")
    root.addObject("SparseLDLSolver")
    root.addObject("MatrixLinearSystem", assembleStiffness=False, assembleDamping=False,
                   assembleGeometricStiffness=False, applyProjectiveConstraints=False)
    root.addObject("MechanicalObject", position=[[0, 0, 0]])
    root.addObject("UniformMass", totalMass=1)
    with pytest.raises(settee.Error, match="cannot serve"):
        Sofa.Simulation.init(root)


def test_composite_solver_system_must_be_whole():
    root = scene(composite=dict(linearSystems="@matrices/M @matrices/system",
                                solverLinearSystem="@matrices/M"))
    with pytest.raises(settee.Error, match="parts switched off"):
        Sofa.Simulation.init(root)
    # no solverLinearSystem: the first listed
    root = scene(composite=dict(linearSystems="@matrices/M @matrices/system"))
    with pytest.raises(settee.Error, match="linearSystems.*parts switched off"):
        Sofa.Simulation.init(root)
    root = scene(composite=dict(linearSystems="@matrices/system @B0/dofs"))
    with pytest.raises(settee.Error, match="entry 1 .* not a link to a MatrixLinearSystem"):
        Sofa.Simulation.init(root)
