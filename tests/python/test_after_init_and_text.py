"""Components added to an initialised scene (initialised at once, the
mechanical systems compiled again), SOFA's reading of text values given
from Python (a ragged list as one text; "10-3" for a real reads 10, with a
warning, as in .scn scenes)."""
import subprocess

import pytest

import Sofa.Core
import Sofa.Helper
import Sofa.Simulation

PLUGINS = ["Sofa.Component.ODESolver.Backward", "Sofa.Component.LinearSolver.Direct",
           "Sofa.Component.LinearSolver.Iterative", "Sofa.Component.Mass",
           "Sofa.Component.StateContainer", "Sofa.Component.MechanicalLoad"]


def falling():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.gravity = [0, -10, 0]
    b = root.addChild("b")
    b.addObject("EulerImplicitSolver", rayleighStiffness=0, rayleighMass=0)
    b.addObject("SparseLDLSolver")
    b.addObject("MechanicalObject", name="dofs", position=[[0, 0, 0]])
    b.addObject("UniformMass", totalMass=1)
    return root


class Steps(Sofa.Core.Controller):
    def __init__(self, *a, **k):
        Sofa.Core.Controller.__init__(self, *a, **k)
        self.events = []

    def onSimulationInitDoneEvent(self, e):
        self.events.append("init")

    def onAnimateEndEvent(self, e):
        self.events.append("end")


def test_force_field_added_after_init_acts_from_the_next_step():
    root = falling()
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, 0.01)
    v1 = root.b.dofs.velocity.value.copy()
    assert v1[0, 1] == pytest.approx(-0.1)
    # +10 up on a 1 kg point cancels gravity: the velocity stays
    root.b.addObject("ConstantForceField", forces=[[0, 10, 0]])
    Sofa.Simulation.animate(root, 0.01)
    assert root.b.dofs.velocity.value[0, 1] == pytest.approx(-0.1, abs=1e-12)
    assert root.b.dofs.position.value[0, 1] == pytest.approx(-0.002, abs=1e-12)


def test_node_controller_and_solver_added_after_init():
    root = falling()
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, 0.01)
    c = root.addChild("c")
    c.addObject("SparseLDLSolver")            # a linear solver before its ODE solver
    c.addObject("EulerImplicitSolver", rayleighStiffness=0, rayleighMass=0)
    c.addObject("MechanicalObject", name="d", position=[[5, 0, 0]])
    c.addObject("UniformMass", totalMass=2)
    ctl = root.addObject(Steps(name="steps"))
    assert ctl.events == ["init"]             # a new component gets SimulationInitDone
    for _ in range(2):
        Sofa.Simulation.animate(root, 0.01)
    assert ctl.events == ["init", "end", "end"]
    # the new state falls from its own start; the first one went on
    assert c.d.position.value[0, 1] == pytest.approx(-0.003, abs=1e-12)
    assert root.b.dofs.position.value[0, 1] == pytest.approx(-0.006, abs=1e-12)


def test_a_failed_init_after_init_is_removed_and_raised():
    root = falling()
    Sofa.Simulation.init(root)
    with pytest.raises(Sofa.Core.Error, match="totalMass must be a positive value"):
        root.b.addObject("UniformMass", name="bad", totalMass=-1)
    assert "bad" not in [o.getName() for o in root.b.objects]
    Sofa.Simulation.animate(root, 0.01)        # the scene still runs
    assert root.b.dofs.velocity.value[0, 1] == pytest.approx(-0.1)


def test_moving_a_node_after_init_is_still_refused():
    root = falling()
    Sofa.Simulation.init(root)
    with pytest.raises(Sofa.Core.Error, match="initialised"):
        root.addChild(root.b)


def test_ragged_list_is_read_as_one_text():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.addObject("MechanicalObject", template="Rigid3d", position=[[0, 0, 0, 0, 0, 0, 1]])
    inertia = [2., 0., 0., 0., 3., 0., 0., 0., 4.]
    m = root.addObject("UniformMass", vertexMass=[5.0, 0.5, inertia])
    assert m.vertexMass.value == 5.0          # (settee's value of a rigid mass: the mass)
    # the inner list is part of the text: 4 values in all are refused, as a
    # rigid mass is 1 or 11 values
    with pytest.raises(Sofa.Core.Error, match="got 4 values"):
        root.addObject("UniformMass", name="m2", vertexMass=[5.0, 0.5, [1.0, 2.0]])


class Collect(Sofa.Helper.MessageHandler):
    def __init__(self):
        super().__init__()
        self.msgs = []

    def process(self, msg):
        self.msgs.append(msg)


def test_real_text_reads_its_leading_number_with_a_warning():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    with Collect() as h:
        cg = root.addObject("CGLinearSolver", tolerance="10-3", threshold="1e-5",
                            iterations="100")
    assert cg.tolerance.value == 10.0 and cg.threshold.value == 1e-5
    warned = [m for m in h.msgs if "tolerance" in m["message"]]
    assert len(warned) == 1 and warned[0]["type"] == "Warning"
    assert "read '10-3' as 10" in warned[0]["message"]
    assert not any("threshold" in m["message"] for m in h.msgs)
    # not a number at all: still refused
    with pytest.raises(Sofa.Core.Error, match="expects a real number"):
        root.addObject("CGLinearSolver", name="cg2", tolerance="abc")


SCN = """<Node name="root" dt="0.01">
  <RequiredPlugin pluginName="Sofa.Component.ODESolver.Backward
      Sofa.Component.LinearSolver.Iterative Sofa.Component.StateContainer"/>
  <DefaultAnimationLoop/>
  <EulerImplicitSolver/>
  <CGLinearSolver iterations="100" tolerance="10-3" threshold="2.5e-4x"/>
  <MechanicalObject position="0 0 0"/>
</Node>
"""


def test_scn_real_text_reads_its_leading_number(settee_bin, tmp_path):
    p = tmp_path / "tol.scn"
    p.write_text(SCN)
    r = subprocess.run([settee_bin, "check", str(p)], capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert "read '10-3' as 10, as SOFA does" in r.stderr
    assert "read '2.5e-4x' as 2.5e-4, as SOFA does" in r.stderr
