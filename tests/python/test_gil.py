"""Steps run without the GIL: another Python thread runs while a scene steps,
and Python components called from a step on a non-main thread take the GIL
back (their calls still happen, once per step, in order)."""
import threading
import time

import Sofa
import Sofa.Core
import Sofa.Simulation
import settee

HEAVY = """format: settee/1
root:
  gravity: [0, -9.81, 0]
  dt: 0.01
  objects:
    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass, Topology,
        SolidMechanics.Spring, Constraint.Projective]}
    - EulerImplicitSolver: {}
    - CGLinearSolver: {iterations: 25, tolerance: 1e-30, threshold: 1e-30}
    - RegularGridTopology: {n: [8, 8, 40], min: [0, 0, 0], max: [1, 1, 5]}
    - MechanicalObject: {name: dofs}
    - UniformMass: {totalMass: 1}
    - MeshSpringForceField: {stiffness: 300}
    - FixedProjectiveConstraint: {indices: [0, 1, 2, 3]}
"""


def test_other_threads_run_while_a_scene_steps(tmp_path):
    path = tmp_path / "heavy.yaml"
    path.write_text(HEAVY)
    s = settee.load(str(path))
    span = {}
    done = threading.Event()

    def stepper():
        span["t0"] = time.perf_counter()
        s.step(60)
        span["t1"] = time.perf_counter()
        done.set()

    stamps = []
    t = threading.Thread(target=stepper)
    t.start()
    while not done.is_set():
        stamps.append(time.perf_counter())   # pure Python: needs the GIL
    t.join()
    assert s.steps == 60
    t0, t1 = span["t0"], span["t1"]
    assert t1 - t0 > 0.02, "the scene steps too fast to tell"
    # stamps strictly inside the call, away from its ends: with the GIL held
    # through the step there would be none (this thread could not run)
    margin = 0.1 * (t1 - t0)
    inside = sum(1 for x in stamps if t0 + margin < x < t1 - margin)
    assert inside > 1000, (inside, len(stamps), t1 - t0)


class Count(Sofa.Core.Controller):
    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.begins = []

    def onAnimateBeginEvent(self, event):
        self.begins.append(event["time"])


def test_python_components_called_from_a_stepping_thread():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName="ODESolver.Forward Mass")
    root.addObject("EulerExplicitSolver")
    root.addObject("MechanicalObject", position=[[0, 0, 0]])
    root.addObject("UniformMass", totalMass=1)
    c = root.addObject(Count(name="count"))
    Sofa.Simulation.init(root)

    def stepper():
        for _ in range(25):
            Sofa.Simulation.animate(root, 0.01)

    t = threading.Thread(target=stepper)
    t.start()
    t.join()
    assert len(c.begins) == 25
    assert all(abs(b - 0.01 * i) < 1e-12 for i, b in enumerate(c.begins))
