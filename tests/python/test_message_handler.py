"""Sofa.Helper.MessageHandler: a handler entered with `with` receives the
messages settee logs (the kernel's, the components', msg_* from Python) as
SofaPython3's dicts, from python3 and inside the settee program."""
import os
import subprocess
import textwrap

import Sofa.Core
import Sofa.Helper
import Sofa.Simulation


class Collect(Sofa.Helper.MessageHandler):
    def __init__(self):
        super().__init__()
        self.msgs = []

    def process(self, msg):
        self.msgs.append(msg)
        if msg["message"] == "echo me":
            Sofa.Helper.msg_info("from the handler")   # not dispatched again


def cg_scene():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=["Sofa.Component.ODESolver.Backward",
                                                  "Sofa.Component.LinearSolver.Iterative"])
    root.addObject("EulerImplicitSolver")
    root.addObject("CGLinearSolver", name="cg")   # iterations etc. unset: warnings
    root.addObject("MechanicalObject", position=[[0, 0, 0]])
    return root


def test_handler_receives_kernel_and_python_messages():
    with Collect() as h:
        root = cg_scene()
        Sofa.Simulation.init(root)
        Sofa.Helper.msg_warning(root.cg, "careful")
        Sofa.Helper.msg_error("plain error")
        Sofa.Helper.msg_info(root, "echo me")
    n = len(h.msgs)
    Sofa.Helper.msg_warning("after exit")
    assert len(h.msgs) == n                         # no longer entered
    kinds = {(m["type"], m["sender"], m["message"]) for m in h.msgs}
    assert ("Warning", "/cg", "careful") in kinds
    assert ("Info", "/", "echo me") in kinds
    assert any(t == "Error" and msg == "plain error" for t, _s, msg in kinds)
    assert not any(msg == "from the handler" for _t, _s, msg in kinds)
    # the kernel's warning about an unset required field of CGLinearSolver
    cg = [m for m in h.msgs if m["path"] == "/cg" and "iterations" in m["message"]]
    assert cg and cg[0]["type"] == "Warning" and cg[0]["isEmpty"] is False
    assert set(h.msgs[0]) >= {"type", "isEmpty", "sender", "message", "component"}


def test_two_handlers_and_nesting():
    with Collect() as a:
        Sofa.Helper.msg_warning("one")
        with Collect() as b:
            Sofa.Helper.msg_warning("two")
        Sofa.Helper.msg_warning("three")
    assert [m["message"] for m in a.msgs] == ["one", "two", "three"]
    assert [m["message"] for m in b.msgs] == ["two"]


SCENE = """
import Sofa.Core, Sofa.Helper

class Count(Sofa.Helper.MessageHandler):
    def __init__(self):
        super().__init__()
        self.n = {}
    def process(self, msg):
        self.n[msg["type"]] = self.n.get(msg["type"], 0) + 1

H = Count()

class Report(Sofa.Core.Controller):
    def onAnimateEndEvent(self, e):
        if self.getContext().time.value > 0.015:
            H.__exit__(None, None, None)
            print("COUNTS", sorted(H.n.items()))

def createScene(root):
    H.__enter__()
    root.addObject("RequiredPlugin", pluginName=["Sofa.Component.ODESolver.Backward",
                                                  "Sofa.Component.LinearSolver.Iterative"])
    root.addObject("EulerImplicitSolver")
    root.addObject("CGLinearSolver")
    root.addObject("MechanicalObject", position=[[0, 0, 0]])
    root.addObject(Report())
    Sofa.Helper.msg_warning(root, "from createScene")
"""


def test_handler_inside_the_settee_program(settee_bin, tmp_path):
    p = tmp_path / "handled.py"
    p.write_text(textwrap.dedent(SCENE))
    r = subprocess.run([settee_bin, "run", str(p), "-n", "2"], capture_output=True, text=True,
                       timeout=120, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    # the program still prints the messages ...
    assert "from createScene" in r.stderr and "iterations" in r.stderr
    # ... and the handler counted them: 3 unset-field warnings + msg_warning
    line = [x for x in r.stdout.splitlines() if x.startswith("COUNTS")]
    assert line, r.stdout
    assert "('Warning', 4)" in line[0]
