"""Per-component matrices, as SofaPython3: ForceField.assembleKMatrix() (K =
df/dx of that force field alone) and Mass.assembleMMatrix(), scipy.sparse
matrices in the component's state's scalar DOFs."""
import numpy as np
import pytest

import Sofa.Core
import Sofa.Simulation
import settee

import springs_scene as ss

PLUGINS = ["ODESolver.Backward", "LinearSolver.Direct", "Mass", "SolidMechanics.Spring",
           "Constraint.Projective"]


def scene(fixed=False):
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    b = root.addChild("B")
    b.addObject("EulerImplicitSolver")
    b.addObject("SparseLDLSolver")
    b.addObject("MechanicalObject", name="dofs",
                position=[[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 1]])
    b.addObject("UniformMass", name="mass", totalMass=2.0)
    b.addObject("RestShapeSpringsForceField", name="rs", stiffness=[100.0])
    r2 = 2 ** 0.5   # springs at their rest lengths
    b.addObject("SpringForceField", name="mesh",
                spring=[[0, 1, 30, 0, 1], [1, 2, 30, 0, 1], [2, 3, 30, 0, r2],
                        [3, 0, 30, 0, r2], [0, 2, 30, 0, r2]])
    if fixed:
        b.addObject("FixedProjectiveConstraint", indices=[0])
    # a second, unrelated state in the same system: matrices stay per state
    c = b.addChild("C")
    c.addObject("MechanicalObject", name="other", position=[[5, 5, 5]])
    c.addObject("UniformMass", totalMass=1.0)
    return root


def test_stiffness_and_mass_of_each_component():
    root = scene()
    Sofa.Simulation.init(root)
    b = root.B
    K_rs = b.rs.assembleKMatrix()
    assert K_rs.shape == (12, 12) and K_rs.dtype == np.float64
    assert np.array_equal(K_rs.toarray(), -100.0 * np.eye(12))
    M = b.mass.assembleMMatrix()
    assert np.array_equal(M.toarray(), 0.5 * np.eye(12))
    K_mesh = b.mesh.assembleKMatrix().toarray()
    assert np.allclose(K_mesh, K_mesh.T) and np.abs(K_mesh).max() > 0
    # at rest a spring's K is -k u u^T on its two points: trace = -2 k per edge
    assert np.trace(K_mesh) == pytest.approx(-2 * 30.0 * 5)
    # together they are the system's K and M (no projective constraint here)
    sysK = settee.system_matrix(b.dofs, m=0, b=0, k=1).toarray()[:12, :12]
    assert np.allclose(K_rs.toarray() + K_mesh, sysK, rtol=0, atol=1e-12)
    sysM = settee.system_matrix(b.dofs, m=1, b=0, k=0).toarray()[:12, :12]
    assert np.array_equal(M.toarray(), sysM)


def test_component_matrix_is_not_projected():
    root = scene(fixed=True)
    Sofa.Simulation.init(root)
    K = root.B.rs.assembleKMatrix().toarray()
    assert K[0, 0] == -100.0  # the fixed point keeps its stiffness
    sysK = settee.system_matrix(root.B.dofs, m=0, b=0, k=1).toarray()
    assert sysK[0, 0] == 1.0  # the system's row is projected


def test_follows_the_state():
    root = scene()
    Sofa.Simulation.init(root)
    for _ in range(3):
        Sofa.Simulation.animate(root, 0.01)
    K = root.B.mesh.assembleKMatrix().toarray()
    assert np.allclose(K, K.T)


def test_python_forcefield_matrix():
    """A Python force field's assembleKMatrix is what its addKToMatrix gives."""
    c = ss.build(Sofa.Core.Node("root"), "direct", python_ff=False)
    p = ss.build(Sofa.Core.Node("root"), "direct", python_ff=True)
    Sofa.Simulation.init(c)
    Sofa.Simulation.init(p)
    Kc = c.Body.springs.assembleKMatrix()
    Kp = p.Body.springs.assembleKMatrix()
    assert np.array_equal(Kc.toarray(), Kp.toarray())
    assert Kc.shape == (3 * ss.N, 3 * ss.N)


def test_errors():
    root = scene()
    with pytest.raises(settee.Error, match="initialise"):
        root.B.rs.assembleKMatrix()
    Sofa.Simulation.init(root)
    with pytest.raises(settee.Error, match="neither a force field nor a mass"):
        root.B.dofs.assembleKMatrix()
