"""Data engines written in Python (Sofa.Core.DataEngine): update() runs when
an output is read while an input changed since the last update, as SOFA's
DDGNode; engines chain; a .py scene with an engine runs in the program."""
import os
import subprocess

import numpy as np
import pytest

import Sofa.Core
import Sofa.Simulation
import settee


class Double(Sofa.Core.DataEngine):
    """out = 2 * inp, counting its updates."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.DataEngine.__init__(self, *args, **kwargs)
        self.addData(name="inp", value=kwargs.get("inp", 1.0), type="double", help="input")
        self.addData(name="out", value=0.0, type="double", help="output")
        self.addInput(self.inp)
        self.addOutput(self.out)
        self.updates = 0

    def update(self):
        self.updates += 1
        self.out.value = 2 * self.inp.value


def test_update_runs_when_an_output_is_read_after_a_change():
    root = Sofa.Core.Node("root")
    e = root.addObject(Double(name="e", inp=3.0))
    Sofa.Simulation.init(root)
    assert e.updates == 0                 # lazy: nothing read yet
    assert e.out.value == 6.0 and e.updates == 1
    assert e.out.value == 6.0 and e.updates == 1   # clean: no second update
    assert e.inp.value == 3.0 and e.updates == 1   # reading an input does not update
    e.inp.value = 5.0
    assert e.updates == 1                 # still lazy
    assert e.out.value == 10.0 and e.updates == 2
    e.inp.value = 5.0                     # a write marks it dirty, same value or not
    assert e.out.value == 10.0 and e.updates == 3
    Sofa.Simulation.animate(root, 0.01)
    assert e.out.value == 10.0 and e.updates == 3


class Chained(Sofa.Core.DataEngine):
    """out = in + 1, where in is the output of another engine."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.DataEngine.__init__(self, *args, **kwargs)
        self.src = kwargs["src"]
        self.addData(name="out", value=0.0, type="double")
        self.addInput(self.src)
        self.addOutput(self.out)

    def update(self):
        self.out.value = self.src.value + 1


def test_engines_chain():
    root = Sofa.Core.Node("root")
    a = root.addObject(Double(name="a", inp=1.0))
    b = root.addObject(Chained(name="b", src=a.out))
    Sofa.Simulation.init(root)
    assert b.out.value == 3.0
    a.inp.value = 4.0
    assert b.out.value == 9.0 and a.updates == 2


class Centroid(Sofa.Core.DataEngine):
    """The mean of a MechanicalObject's positions (a C component's field as input)."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.DataEngine.__init__(self, *args, **kwargs)
        self.addData(name="center", value=[0.0, 0.0, 0.0], type="Vec3d")
        self.addInput(kwargs["positions"])
        self.addOutput(self.center)
        self.pos = kwargs["positions"]
        self.updates = 0

    def update(self):
        self.updates += 1
        self.center.value = self.pos.value.mean(axis=0)


def test_an_input_of_a_component_changes_with_the_simulation():
    root = Sofa.Core.Node("root")
    root.gravity = [0, -10, 0]
    root.dt = 0.1
    root.addObject("RequiredPlugin", pluginName=["ODESolver.Forward", "Mass"])
    root.addObject("EulerExplicitSolver", symplectic=True)
    dofs = root.addObject("MechanicalObject", name="dofs", position=[[0, 0, 0], [2, 4, 0]])
    root.addObject("UniformMass", totalMass=1.0)
    e = root.addObject(Centroid(name="c", positions=dofs.position))
    Sofa.Simulation.init(root)
    assert np.array_equal(e.center.value, [1.0, 2.0, 0.0]) and e.updates == 1
    assert e.center.array()[1] == 2.0 and e.updates == 1
    Sofa.Simulation.animate(root, 0.1)
    y = dofs.position.value[:, 1].mean()
    assert y < 2.0
    assert e.center.value[1] == y and e.updates == 2


def test_a_native_engine_output_read_from_python_is_up_to_date():
    """A C engine (BoxROI) read from Python after steps: SOFA's updateIfDirty
    runs it on the moved points, through .value and through .array()."""
    root = Sofa.Core.Node("root")
    root.gravity = [0, -10, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=["ODESolver.Forward", "Mass", "Engine.Select"])
    root.addObject("EulerExplicitSolver")
    root.addObject("MechanicalObject", name="dofs", position=[[0, 0, 0], [5, 0, 0]])
    root.addObject("UniformMass", vertexMass=1.0)
    box = root.addObject("BoxROI", name="box", box=[-1, -0.1, -1, 1, 1, 1],
                         position="@dofs.position")
    Sofa.Simulation.init(root)
    assert list(box.indices.value) == [0]
    for _ in range(100):
        Sofa.Simulation.animate(root, 0.01)
    assert root.dofs.position.value[0][1] < -5
    assert list(box.indices.value) == []
    assert len(box.indices.array()) == 0


def test_engine_errors():
    class NoUpdate(Sofa.Core.DataEngine):
        def __init__(self, *a, **k):
            Sofa.Core.DataEngine.__init__(self, *a, **k)
            self.addData(name="o", value=0.0)
            self.addOutput(self.o)

    root = Sofa.Core.Node("root")
    e = root.addObject(NoUpdate(name="e"))
    with pytest.raises(settee.Error, match="no update"):
        e.o.value
    with pytest.raises(TypeError, match="expects a Data"):
        e.addInput(3.0)


def test_engine_scene_in_the_program(tmp_path, settee_bin):
    """An engine read by a controller at each step of `settee run`."""
    (tmp_path / "engine_scene.py").write_text('''
import Sofa.Core
import Sofa.Helper


class Double(Sofa.Core.DataEngine):
    def __init__(self, *args, **kwargs):
        Sofa.Core.DataEngine.__init__(self, *args, **kwargs)
        self.addData(name="inp", value=1.0)
        self.addData(name="out", value=0.0)
        self.addInput(self.inp)
        self.addOutput(self.out)

    def update(self):
        self.out.value = 2 * self.inp.value
        Sofa.Helper.msg_info(self, "update %g" % self.out.value)


class Driver(Sofa.Core.Controller):
    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.engine = kwargs["engine"]

    def onAnimateBeginEvent(self, event):
        if int(round(event["time"] / 0.1)) % 2 == 0:
            self.engine.inp.value = event["time"]
        print("out", self.engine.out.value)


def createScene(root):
    root.dt = 0.1
    root.addObject("DefaultAnimationLoop")
    e = root.addObject(Double(name="double"))
    root.addObject(Driver(name="driver", engine=e))
''')
    r = subprocess.run([settee_bin, "run", str(tmp_path / "engine_scene.py"), "-n", "4", "-v"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    outs = [line for line in r.stdout.splitlines() if line.startswith("out")]
    assert outs == ["out 0.0", "out 0.0", "out 0.4", "out 0.4"], r.stdout
    assert (r.stdout + r.stderr).count("update ") == 2


def test_components_alive_at_interpreter_exit():
    """A scene still held by a module at exit is destroyed by the
    interpreter's last collection; the Python cleanup is not run then (it
    crashed the interpreter when it was)."""
    import sys
    script = '''
import Sofa.Core
import settee._core as core


def make():
    class C(Sofa.Core.Controller):
        pass

    class E(Sofa.Core.DataEngine):
        def __init__(self, *a, **k):
            Sofa.Core.DataEngine.__init__(self, *a, **k)
            self.addData(name="o", value=0.0)
            self.addOutput(self.o)

        def update(self):
            self.o.value = 1.0

    root = Sofa.Core.Node("root")
    c = root.addObject(C(name="c"))
    e = root.addObject(E(name="e"))
    print("value", e.o.value)
    core._held_for_the_test = {(id(c), "x"): (c, e)}


make()
'''
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("value 1.0")
