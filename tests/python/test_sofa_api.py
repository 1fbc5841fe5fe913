"""SofaPython3's API on settee: nodes, objects, data, numpy views, simulation,
plugins, messages, and errors in both directions."""
import gc

import numpy as np
import pytest

import Sofa
import Sofa.Core
import Sofa.Helper
import Sofa.Simulation
import SofaRuntime
import settee

import springs_scene as ss


def ball():
    root = Sofa.Core.Node("root")
    root.gravity = [0, -9.81, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=["ODESolver.Forward", "Mass"])
    root.addObject("DefaultAnimationLoop")
    b = root.addChild("Ball")
    b.addObject("EulerExplicitSolver", symplectic=True)
    b.addObject("MechanicalObject", name="dofs", position=[[0, 0, 0]], velocity=[[0, 5, 0]])
    b.addObject("UniformMass", totalMass=2)
    return root


def test_node_graph_and_paths():
    root = ball()
    assert root.getName() == "root" and root.getPathName() == "/"
    b = root.getChild("Ball")
    assert b is root.Ball and b is root.children[0] and root.children["Ball"] is b
    dofs = b.getObject("dofs")
    assert dofs is root.Ball.dofs and dofs.getClassName() == "MechanicalObject"
    assert dofs.getPathName() == "/Ball/dofs" and dofs.getLinkPath() == "@/Ball/dofs"
    assert dofs.getContext() is b and b.getRoot() is root and b.getParent() is root
    assert [o.getName() for o in b.objects] == ["EulerExplicitSolver1", "dofs", "UniformMass1"]
    assert "dofs" in b.objects
    assert root.Ball.dofs.position.getLinkPath() == "@/Ball/dofs.position"
    assert root.Ball.dofs.position.linkpath == "@/Ball/dofs.position"


def test_remove_object_and_child():
    root = ball()
    extra = root.addChild("Extra")
    e = extra.addObject("MechanicalObject", name="m")
    root.Ball.addObject("UniformMass", name="second", totalMass=1)
    root.Ball.removeObject(root.Ball.second)
    assert root.Ball.getObject("second") is None
    root.removeChild(extra)
    assert root.getChild("Extra") is None
    with pytest.raises(settee.Error, match="removed"):
        e.position.value


def test_data_value_and_string():
    root = ball()
    d = root.Ball.dofs
    assert np.array_equal(d.velocity.value, [[0, 5, 0]])
    d.velocity.value = [[0, 6, 0]]
    assert d.velocity.value[0][1] == 6.0
    assert d.velocity.getValueString() == "0.0 6.0 0.0"
    assert root.Ball.UniformMass1.totalMass.value == 2.0
    assert root.dt.value == 0.01 and list(root.gravity.value) == [0, -9.81, 0]
    data = d.getData("position")
    assert data.getName() == "position" and data.getOwner() is d and data.isSet()
    d.addData(name="note", value="hello", type="string", help="a note")
    assert d.note.value == "hello"


def test_array_is_a_zero_copy_view_alive_across_steps():
    root = ball()
    Sofa.Simulation.init(root)
    view = root.Ball.dofs.position.array()
    assert not view.flags.writeable
    with pytest.raises(ValueError):
        view[0, 0] = 1.0
    for _ in range(100):
        Sofa.Simulation.animate(root, root.dt.value)
    # symplectic Euler, closed form: y = n h v0 - g h^2 n (n + 1) / 2
    assert view[0, 1] == pytest.approx(0.04595, abs=1e-12)
    assert np.array_equal(view, root.Ball.dofs.position.value)
    with root.Ball.dofs.position.writeableArray() as w:
        w[0, 0] = 3.0
    assert view[0, 0] == 3.0


def test_view_outlives_its_scene():
    root = ball()
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, 0.01)
    view = root.Ball.dofs.position.array()
    last = view.copy()
    Sofa.Simulation.unload(root)          # the scene is destroyed now
    gc.collect()
    assert np.array_equal(view, last)     # detached: a private copy of the last values
    with pytest.raises(settee.Error, match="no longer exists"):
        root.Ball


def test_simulation_init_animate_reset():
    root = ball()
    Sofa.Simulation.initRoot(root)
    Sofa.Simulation.animate(root, 0.01)
    assert root.time.value == pytest.approx(0.01)
    Sofa.Simulation.reset(root)
    assert root.time.value == 0.0
    assert np.array_equal(root.Ball.dofs.position.value, [[0, 0, 0]])


def test_import_plugin_and_runtime():
    SofaRuntime.importPlugin("Sofa.Component.SolidMechanics.Spring")
    root = Sofa.Core.Node("root")
    root.addObject("RestShapeSpringsForceField", name="s")
    with pytest.raises(settee.Error, match="NoSuchPlugin"):
        SofaRuntime.importPlugin("NoSuchPlugin")


def test_messages_go_to_settee_log():
    got = []
    settee.set_log(lambda level, where, path, msg: got.append((level, path, msg)), verbose=True)
    try:
        root = ball()
        Sofa.Helper.msg_info(root.Ball.dofs, "hello")
        Sofa.Helper.msg_warning("careful")
        Sofa.Helper.msg_error(root, "bad")
    finally:
        settee.set_log(None)
    assert (2, "/Ball/dofs", "hello") in got
    assert (1, "", "careful") in got
    assert (0, "/", "bad") in got


def test_settee_error_becomes_python_exception():
    root = ball()
    with pytest.raises(settee.Error, match="EulerExplicitSolvr") as e:
        root.addObject("EulerExplicitSolvr")
    assert "did you mean" in str(e.value) and e.value.code == "ST_ENOTFOUND" or e.value.code
    with pytest.raises(settee.Error, match="initialised before it steps"):
        Sofa.Simulation.animate(root, 0.01)
    with pytest.raises(settee.Error, match="totalMass"):
        root.Ball.UniformMass1.totalMass.value = "heavy"


class Boom(Sofa.Core.Controller):
    def onAnimateBeginEvent(self, event):
        if event["time"] > 0.015:
            raise ValueError("boom at %g" % event["time"])


def test_python_exception_stops_the_step_with_context():
    root = ball()
    root.addObject(Boom(name="boom"))
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, 0.01)
    Sofa.Simulation.animate(root, 0.01)
    with pytest.raises(settee.Error) as e:
        Sofa.Simulation.animate(root, 0.01)
    msg = str(e.value)
    assert "/boom" in msg and "Boom" in msg and "ValueError: boom at 0.02" in msg
    assert "Traceback" in msg and "onAnimateBeginEvent" in msg
    assert isinstance(e.value.__cause__, ValueError)
    assert root.time.value == pytest.approx(0.03)


class Counter(Sofa.Core.Controller):
    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.addData(name="count", value=0, type="int", help="steps seen")
        self.ends = 0

    def onAnimateBeginEvent(self, event):
        self.count = self.count.value + 1

    def onAnimateEndEvent(self, event):
        self.ends += 1

    def onKeypressedEvent(self, event):   # accepted, never sent headless
        raise AssertionError("no keyboard in settee")


def test_controller_events_and_python_data():
    root = ball()
    c = root.addObject(Counter(name="counter"))
    assert root.counter is c and c.getPathName() == "/counter"
    Sofa.Simulation.init(root)
    for _ in range(7):
        Sofa.Simulation.animate(root, 0.01)
    assert c.count.value == 7 and c.ends == 7


class Stiffener(Sofa.Core.Controller):
    """Sets the springs' stiffness to 400 at the step that starts at t = 0.2."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.springs = kwargs["springs"]

    def onAnimateBeginEvent(self, event):
        if abs(event["time"] - 0.2) < 1e-9:
            self.springs.stiffness.value = [400.0]


def test_controller_changes_stiffness_at_a_given_time():
    a = ss.build(Sofa.Core.Node("root"), "direct", python_ff=False)
    a.addObject(Stiffener(name="stiffener", springs=a.Body.springs))
    Sofa.Simulation.init(a)
    b = ss.build(Sofa.Core.Node("root"), "direct", python_ff=False)
    Sofa.Simulation.init(b)
    for i in range(40):
        if i == 20:   # the same change made from outside, between steps
            b.Body.springs.stiffness.value = [400.0]
        Sofa.Simulation.animate(a, 0.01)
        Sofa.Simulation.animate(b, 0.01)
        assert np.array_equal(a.Body.dofs.position.value, b.Body.dofs.position.value)
        if i == 19:
            assert a.Body.springs.stiffness.value[0] == 100.0
    assert a.Body.springs.stiffness.value[0] == 400.0


def test_python_forcefield_energy_and_matrix():
    root = ss.build(Sofa.Core.Node("root"), "direct", python_ff=True)
    Sofa.Simulation.init(root)
    K = settee.system_matrix(root.Body.dofs, 0.0, 0.0, 1.0)
    assert K.shape == (15, 15)
    assert np.allclose(K.toarray(), -100.0 * np.eye(15))
    c = ss.build(Sofa.Core.Node("root"), "direct", python_ff=False)
    Sofa.Simulation.init(c)
    Kc = settee.system_matrix(c.Body.dofs, 1.0, 0.0, -0.01)
    Kp = settee.system_matrix(root.Body.dofs, 1.0, 0.0, -0.01)
    assert np.array_equal(Kc.toarray(), Kp.toarray())
