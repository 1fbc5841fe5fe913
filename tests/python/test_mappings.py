"""Mappings written in Python (Sofa.Core.Mapping_Vec3d_Vec3d ...): a Python
identity mapping and a Python subset mapping give the trajectories of the C
IdentityMapping and SubsetMapping bit for bit; a node added to a second parent
moves there, links following."""
import numpy as np
import pytest

import Sofa.Core
import Sofa.Simulation
import settee

PLUGINS = ["ODESolver.Forward", "ODESolver.Backward", "LinearSolver.Iterative",
           "LinearSolver.Direct", "Mass", "SolidMechanics.Spring", "Mapping.Linear"]


class PyIdentity(Sofa.Core.Mapping_Vec3d_Vec3d):
    def __init__(self, *args, **kwargs):
        Sofa.Core.Mapping_Vec3d_Vec3d.__init__(self, *args, **kwargs)
        self.calls = {"apply": 0, "applyJ": 0, "applyJT": 0}

    def apply(self, m, outCoord, inCoord):
        self.calls["apply"] += 1
        with outCoord.writeableArray() as wa:
            wa[:] = inCoord.value

    def applyJ(self, m, outDeriv, inDeriv):
        self.calls["applyJ"] += 1
        with outDeriv.writeableArray() as wa:
            wa[:] = inDeriv.value

    def applyJT(self, m, outDeriv, inDeriv):
        # out is the input state's force: f_in += J^T f_out
        self.calls["applyJT"] += 1
        with outDeriv.writeableArray() as wa:
            wa[:] += inDeriv.value


class PySubset(Sofa.Core.Mapping_Vec3d_Vec3d):
    def __init__(self, *args, **kwargs):
        Sofa.Core.Mapping_Vec3d_Vec3d.__init__(self, *args, **kwargs)
        self.idx = np.array(kwargs["indices"])

    def apply(self, m, out, inp):
        with out.writeableArray() as wa:
            wa[:] = inp.value[self.idx]

    def applyJ(self, m, out, inp):
        with out.writeableArray() as wa:
            wa[:] = inp.value[self.idx]

    def applyJT(self, m, out, inp):
        with out.writeableArray() as wa:
            for k, i in enumerate(self.idx):    # one += per point, as the C loop
                wa[i] += inp.value[k]


SOLVERS = {
    "explicit": [("EulerExplicitSolver", {"symplectic": True})],
    "cg": [("EulerImplicitSolver", {"rayleighStiffness": 0.0, "rayleighMass": 0.0}),
           ("CGLinearSolver", {"iterations": 50, "tolerance": 1e-12, "threshold": 1e-15})],
}


def build(kind, solver, python):
    """A string of 4 points (mass, gravity); a mapped child holds springs to
    its rest shape, so the dynamics go through apply, applyJ and applyJT."""
    root = Sofa.Core.Node("root")
    root.gravity = [0, -9.81, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.addObject("DefaultAnimationLoop")
    body = root.addChild("Body")
    for cls, kw in SOLVERS[solver]:
        body.addObject(cls, **kw)
    pos = [[float(i), 0.0, 0.0] for i in range(4)]
    dofs = body.addObject("MechanicalObject", name="dofs", position=pos)
    body.addObject("UniformMass", totalMass=1.0)
    m = body.addChild("Mapped")
    if kind == "identity":
        out = m.addObject("MechanicalObject", name="dofs", position=pos)
        if python:
            mapping = m.addObject(PyIdentity(name="map", input=dofs, output=out))
        else:
            mapping = m.addObject("IdentityMapping", name="map", input="@../dofs", output="@dofs")
        rest = [[float(i), 0.0, 0.0] for i in range(4)]
    else:
        sub = [pos[0], pos[2]]
        out = m.addObject("MechanicalObject", name="dofs", position=sub)
        if python:
            mapping = m.addObject(PySubset(name="map", input=dofs.linkpath, output=out.linkpath,
                                           indices=[0, 2]))
        else:
            mapping = m.addObject("SubsetMapping", name="map", input="@../dofs", output="@dofs",
                                  indices=[0, 2])
        rest = sub
    m.addObject("RestShapeSpringsForceField", stiffness=[50.0], points=list(range(len(rest))))
    return root, mapping


def trajectory(kind, solver, python, steps=40):
    root, mapping = build(kind, solver, python)
    Sofa.Simulation.init(root)
    xs, mapped = [], []
    for _ in range(steps):
        Sofa.Simulation.animate(root, root.dt.value)
        xs.append(root.Body.dofs.position.value)
        mapped.append(root.Body.Mapped.dofs.position.value)
    return np.array(xs), np.array(mapped), mapping


@pytest.mark.parametrize("solver", ["explicit", "cg"])
@pytest.mark.parametrize("kind", ["identity", "subset"])
def test_python_mapping_matches_c(kind, solver):
    cx, cm, _ = trajectory(kind, solver, python=False)
    px, pm, mapping = trajectory(kind, solver, python=True)
    assert np.array_equal(cx, px), "max difference %g" % np.abs(cx - px).max()
    assert np.array_equal(cm, pm)
    # the springs on the mapped points act on the input: the mapped points
    # fall less than the free ones (points 1 and 3 of the subset)
    if kind == "subset":
        assert px[-1, 0, 1] > px[-1, 1, 1] + 1e-3
    assert abs(px[-1, 0, 1]) > 1e-4  # and everything moved


def test_python_mapping_callbacks_and_mparams():
    root, mapping = build("identity", "cg", python=True)
    seen = []
    mapping.apply = (lambda m, o, i, f=mapping.apply: (seen.append(dict(m)), f(m, o, i)))
    Sofa.Simulation.init(root)
    # at init (SOFA's Mapping::init, then the kernel's propagation)
    assert mapping.calls["apply"] >= 1 and mapping.calls["applyJ"] >= 1
    assert mapping.calls["applyJT"] == 0
    n = mapping.calls["apply"]
    Sofa.Simulation.animate(root, 0.01)
    assert mapping.calls["applyJT"] >= 1 and mapping.calls["apply"] > n
    assert {"time", "kFactor", "bFactor", "mFactor", "isImplicit"} <= set(seen[-1])


class MeanY(Sofa.Core.Mapping_Vec3d_Vec1d):
    """A Vec3d -> Vec1d mapping: the mean height of the input points."""

    def apply(self, m, out, inp):
        with out.writeableArray() as wa:
            wa[0, 0] = inp.value[:, 1].mean()

    def applyJ(self, m, out, inp):
        with out.writeableArray() as wa:
            wa[0, 0] = inp.value[:, 1].mean()

    def applyJT(self, m, out, inp):
        with out.writeableArray() as wa:
            wa[:, 1] += inp.value[0, 0] / len(wa)


def test_vec3_to_vec1_mapping():
    root = Sofa.Core.Node("root")
    root.gravity = [0, -9.81, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    body = root.addChild("Body")
    body.addObject("EulerImplicitSolver")
    body.addObject("CGLinearSolver", iterations=50, tolerance=1e-12, threshold=1e-15)
    dofs = body.addObject("MechanicalObject", name="dofs",
                          position=[[0, 1, 0], [1, 3, 0]])
    body.addObject("UniformMass", totalMass=2.0)
    m = body.addChild("Height")
    h = m.addObject("MechanicalObject", template="Vec1d", name="h", position=[0.0])
    m.addObject(MeanY(name="mean", input=dofs, output=h))
    Sofa.Simulation.init(root)
    assert h.position.value.ravel()[0] == 2.0  # apply at init
    for _ in range(5):
        Sofa.Simulation.animate(root, 0.01)
    y = dofs.position.value[:, 1]
    assert h.position.value.ravel()[0] == pytest.approx(y.mean(), abs=1e-15)
    assert y[0] < 1.0


def test_mapping_types_are_checked():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    a = root.addObject("MechanicalObject", name="a", position=[0, 0, 0])
    c = root.addChild("c")
    b = c.addObject("MechanicalObject", name="b", position=[0, 0, 0])
    c.addObject(MeanY(name="wrong", input=a, output=b))
    with pytest.raises(settee.Error, match="Vec1d"):
        Sofa.Simulation.init(root)


def test_missing_method_is_an_error():
    class OnlyApply(Sofa.Core.Mapping_Vec3d_Vec3d):
        def apply(self, m, out, inp):
            with out.writeableArray() as wa:
                wa[:] = inp.value

    root, _ = build("identity", "cg", python=False)
    mapped = root.Body.Mapped
    mapped.removeObject(mapped.map)
    mapped.addObject(OnlyApply(name="map", input=root.Body.dofs, output=mapped.dofs))
    with pytest.raises(settee.Error, match="OnlyApply.applyJ"):
        Sofa.Simulation.init(root)  # applyJ maps the velocities at init


def test_second_parent_moves_the_node_and_its_links():
    """SofaPython3's example-mapping pattern: the model is built under one
    node, then added to the node of the solvers."""
    ref_x, _, _ = trajectory("identity", "cg", python=True, steps=10)

    root = Sofa.Core.Node("root")
    root.gravity = [0, -9.81, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    model = root.addChild("Model")
    body = model.addChild("Body")
    pos = [[float(i), 0.0, 0.0] for i in range(4)]
    dofs = body.addObject("MechanicalObject", name="dofs", position=pos)
    body.addObject("UniformMass", totalMass=1.0)
    m = body.addChild("Mapped")
    out = m.addObject("MechanicalObject", name="dofs", position=pos)
    mapping = m.addObject(PyIdentity(name="map", input=dofs, output=out))  # absolute links
    m.addObject("RestShapeSpringsForceField", stiffness=[50.0], points=[0, 1, 2, 3])
    sim = root.addChild("Simulation")
    for cls, kw in SOLVERS["cg"]:
        sim.addObject(cls, **kw)
    assert sim.addChild(root.Model) is model
    assert model.getPathName() == "/Simulation/Model"
    assert [c.getName() for c in root.children] == ["Simulation"]
    assert dofs.getPathName() == "/Simulation/Model/Body/dofs"   # the wrappers follow
    assert str(mapping.input.value) == "" or "/Simulation/Model" in str(mapping.input.value)
    Sofa.Simulation.init(root)
    assert mapping.input.value == "/Simulation/Model/Body/dofs"
    xs = []
    for _ in range(10):
        Sofa.Simulation.animate(root, 0.01)
        xs.append(dofs.position.value)
    assert np.array_equal(np.array(xs), ref_x)


def test_second_parent_refusals():
    root = Sofa.Core.Node("root")
    a = root.addChild("a")
    b = a.addChild("b")
    with pytest.raises(settee.Error, match="one of its children"):
        b.addChild(a)
    # the node keeps its place when added to its own parent
    assert a.addChild(b) is b and b.getPathName() == "/a/b"


def test_assembled_solver_refuses_a_python_mapping():
    """No Jacobian from Python: a direct solver says so instead of dropping
    the mapped springs."""
    root, _ = build("identity", "cg", python=True)
    body = root.Body
    body.removeObject(body.CGLinearSolver1)
    body.addObject("SparseLDLSolver")
    Sofa.Simulation.init(root)
    with pytest.raises(settee.Error, match="gives no Jacobian"):
        Sofa.Simulation.animate(root, 0.01)


class Translation(Sofa.Core.Mapping_Rigid3d_Vec3d):
    """A point at a fixed offset from a frame's origin, rotation ignored."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.Mapping_Rigid3d_Vec3d.__init__(self, *args, **kwargs)
        self.shapes = set()

    def apply(self, m, out, inp):
        self.shapes.add(("x", out.value.shape, inp.value.shape))
        with out.writeableArray() as wa:
            wa[:] = inp.value[:, :3] + [0.0, 1.0, 0.0]

    def applyJ(self, m, out, inp):
        self.shapes.add(("v", out.value.shape, inp.value.shape))
        with out.writeableArray() as wa:
            wa[:] = inp.value[:, :3]

    def applyJT(self, m, out, inp):
        self.shapes.add(("f", out.value.shape, inp.value.shape))
        with out.writeableArray() as wa:
            wa[:, :3] += inp.value


def test_rigid_to_vec3_mapping():
    """Rigid3d views are (n, 7) coordinates and (n, 6) derivatives; a force
    on the mapped point moves the frame."""
    root = Sofa.Core.Node("root")
    root.gravity = [0, 0, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.addObject("RequiredPlugin", pluginName=["MechanicalLoad"])
    frame = root.addChild("Frame")
    frame.addObject("EulerExplicitSolver", symplectic=True)
    dofs = frame.addObject("MechanicalObject", template="Rigid3d", name="dofs",
                           position=[[0, 0, 0, 0, 0, 0, 1]])
    frame.addObject("UniformMass", totalMass=1.0)
    tip = frame.addChild("Tip")
    pt = tip.addObject("MechanicalObject", name="pt", position=[[0, 1, 0]])
    mapping = tip.addObject(Translation(name="map", input=dofs, output=pt))
    tip.addObject("ConstantForceField", totalForce=[2.0, 0, 0])
    Sofa.Simulation.init(root)
    for _ in range(3):
        Sofa.Simulation.animate(root, 0.01)
    assert mapping.shapes == {("x", (1, 3), (1, 7)), ("v", (1, 3), (1, 6)),
                              ("f", (1, 6), (1, 3))}
    x = dofs.position.value[0]
    assert x[0] > 0 and x[1] == 0.0          # pushed along x through applyJT
    assert pt.position.value[0, 1] == 1.0
