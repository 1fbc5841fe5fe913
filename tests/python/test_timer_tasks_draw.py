"""SofaRuntime.Timer (settee's per-phase timings through SOFA's AdvancedTimer
labels), Sofa.Core.TaskScheduler (settee's thread count, followed by the
parallel element force fields) and the headless drawing of Python
controllers (Sofa.SofaGL.draw), with scenes of our own."""
import os

import numpy as np
import pytest

import Sofa.Core
import Sofa.Simulation
import Sofa.SofaGL
from Sofa.Core import TaskScheduler
from Sofa.Types import RGBAColor
from SofaRuntime import Timer

PLUGINS = ["ODESolver.Backward", "LinearSolver.Iterative", "Mass", "SolidMechanics.Spring",
           "SolidMechanics.FEM.Elastic", "Topology", "Constraint.Projective", "Engine.Select",
           "StateContainer"]


def static_beam(root, newton_its=3):
    """A hexahedral bar under gravity, solved statically (Newton + CG)."""
    root.gravity = [0, -9.81, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.addObject("DefaultAnimationLoop")
    root.addObject("RegularGridTopology", name="grid", min=[0, 0, 0], max=[4, 1, 1], n=[5, 2, 2])
    with root.addChild("bar") as bar:
        bar.addObject("NewtonRaphsonSolver", name="newton", maxNbIterationsNewton=newton_its,
                      relativeSuccessiveStoppingThreshold=0, absoluteResidualStoppingThreshold=0,
                      relativeInitialStoppingThreshold=0, warnWhenDiverge=False)
        bar.addObject("StaticSolver", newtonSolver="@newton")
        bar.addObject("CGLinearSolver", name="cg", iterations=7, tolerance=1e-30, threshold=1e-30)
        bar.addObject("MechanicalObject", name="dofs", position="@../grid.position")
        bar.addObject("HexahedronSetTopologyContainer", src="@../grid")
        bar.addObject("UniformMass", totalMass=1.0)
        bar.addObject("HexahedronFEMForceField", youngModulus=1e4, poissonRatio=0.3)
        bar.addObject("FixedProjectiveConstraint", indices=[0, 5, 10, 15])
    return root


def test_timer_records_have_the_steps_phases():
    Timer.clear()
    root = static_beam(Sofa.Core.Node("root"))
    Sofa.Simulation.init(root)
    assert not Timer.isEnabled("t")
    Timer.begin("t")                       # disabled: records nothing
    Sofa.Simulation.animate(root, 0.01)
    assert Timer.getRecords("t") == {}
    Timer.setEnabled("t", True)
    assert Timer.isEnabled("t")
    Timer.begin("t")
    Timer.stepBegin("mine")
    Sofa.Simulation.animate(root, 0.01)
    Timer.stepEnd("mine")
    rec = Timer.getRecords("t")            # read while it runs: its own level
    Timer.end("t")
    step = rec["mine"]["solve"]
    mech = step["Mechanical (bar)"]
    solve = mech["StaticSolver::Solve"]
    # three Newton iterations (every stopping test off), each with the
    # linear solve of its CG capped at 7 iterations
    assert solve["nb_iterations"] == 3
    assert solve["residual"] > 0
    newton = solve["NewtonStep"]
    assert isinstance(newton, list) and len(newton) == 3
    for it in newton:
        assert it["MBKSolve"]["CG iterations"] == 7
        assert it["MBKBuild"]["total_time"] >= 0
        assert it["ComputeForce"]["total_time"] >= 0
        assert it["start_time"] <= it["MBKSolve"]["start_time"] <= it["end_time"]
    # nested times add up: the iterations lie inside the solve, which lies in
    # the ODE solver's step, inside the loop's solve phase
    assert sum(it["total_time"] for it in newton) <= solve["total_time"] + 1e-9
    assert solve["total_time"] <= mech["total_time"] + 1e-9 <= step["total_time"] + 2e-9
    assert rec["start_time"] == 0.0
    # the same numbers as the CG component reports
    assert root.bar.cg.nbIterations.value == 7
    # after end, the top level holds the timer
    after = Timer.getRecords("t")
    assert set(after) == {"t"} and "mine" in after["t"]
    # a new run forgets the old one
    Timer.begin("t")
    assert "mine" not in Timer.getRecords("t")
    Timer.end("t")
    Timer.clear()


def test_timer_one_newton_iteration_is_a_dict_and_values_from_python():
    Timer.clear()
    root = static_beam(Sofa.Core.Node("root"), newton_its=1)
    Sofa.Simulation.init(root)
    Timer.setEnabled("one", True)
    Timer.begin("one")
    Sofa.Simulation.animate(root, 0.01)
    Timer.valSet("mark", 42)
    rec = Timer.getRecords("one")
    Timer.end("one")
    solve = rec["solve"]["Mechanical (bar)"]["StaticSolver::Solve"]
    assert isinstance(solve["NewtonStep"], dict)     # SofaPython3's shape for one
    assert solve["nb_iterations"] == 1
    assert rec["mark"] == 42
    Timer.clear()


def test_no_records_without_a_running_timer():
    Timer.clear()
    root = static_beam(Sofa.Core.Node("root"))
    Sofa.Simulation.init(root)
    Timer.setEnabled("idle", True)
    Sofa.Simulation.animate(root, 0.01)              # not begun: nothing recorded
    assert Timer.getRecords("idle") == {}
    Timer.clear()


def _threads():
    return len(os.listdir("/proc/self/task"))


def parallel_bar(root):
    root.gravity = [0, 0, -9.81]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=PLUGINS + ["MultiThreading"])
    root.addObject("DefaultAnimationLoop")
    root.addObject("EulerImplicitSolver", rayleighStiffness=0.1, rayleighMass=0.1)
    root.addObject("CGLinearSolver", iterations=25, tolerance=1e-12, threshold=1e-12)
    root.addObject("MechanicalObject", name="dofs")
    root.addObject("UniformMass", vertexMass=1)
    root.addObject("RegularGridTopology", nx=3, ny=3, nz=8, xmin=-1, xmax=1, ymin=-1, ymax=1,
                   zmin=0, zmax=7)
    root.addObject("FixedProjectiveConstraint", indices=list(range(9)))
    root.addObject("ParallelHexahedronFEMForceField", youngModulus=4e4, poissonRatio=0.3,
                   method="large")
    return root


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="counts threads in /proc")
def test_task_scheduler_sets_the_parallel_components_threads():
    saved = os.environ.get("SETTEE_THREADS")
    try:
        TaskScheduler.stop()
        assert TaskScheduler.getThreadCount() == 1
        assert TaskScheduler.GetHardwareThreadsCount() >= 1
        seq = parallel_bar(Sofa.Core.Node("root"))
        par = parallel_bar(Sofa.Core.Node("root"))
        Sofa.Simulation.init(seq)
        Sofa.Simulation.init(par)
        for _ in range(3):
            Sofa.Simulation.animate(seq, 0.01)
        base = _threads()
        TaskScheduler.init(3)
        assert TaskScheduler.getThreadCount() == 3
        for _ in range(3):
            Sofa.Simulation.animate(par, 0.01)
        # two workers for each of the two scenes' force fields; the first
        # scene's also resize at its next step
        assert _threads() == base + 2 + 0
        Sofa.Simulation.animate(seq, 0.01)
        assert _threads() == base + 4
        # same trajectory as one thread (the plugin adds in element order)
        TaskScheduler.stop()
        Sofa.Simulation.animate(par, 0.01)
        assert _threads() == base + 2          # par's pool back to one thread
        assert np.array_equal(seq.dofs.position.value, par.dofs.position.value)
        with pytest.raises(ValueError):
            TaskScheduler.init(-1)
        Sofa.Simulation.unload(seq)
        Sofa.Simulation.unload(par)
    finally:
        if saved is None:
            os.environ.pop("SETTEE_THREADS", None)
        else:
            os.environ["SETTEE_THREADS"] = saved


class Drawer(Sofa.Core.Controller):
    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.mo = kwargs["mo"]
        self.mesh = kwargs["mesh"]

    def draw(self, vp):
        dt = vp.getDrawTool()
        dt.disableLighting()
        dt.drawPoints(self.mesh.position, 5.0, RGBAColor("blue"))
        dt.drawTriangles(self.mesh.position, self.mesh.triangles, RGBAColor("white"))
        dt.drawFrames(self.mo.position, [0.1, 0.1, 0.1])
        dt.drawLines([[0, 0, 0], [1, 0, 0]], 1.0, RGBAColor("green"))
        dt.drawText([0, 1, 0], 0.5, "hello", RGBAColor("white"))
        dt.enableLighting()


def test_headless_draw_records_the_primitives():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=["StateContainer", "Topology"])
    root.addObject("DefaultAnimationLoop")
    mesh = root.addObject("MeshTopology", name="mesh", position=[[0, 0, 0], [1, 0, 0], [0, 1, 0]],
                          triangles=[[0, 1, 2]])
    mo = root.addObject("MechanicalObject", name="mo", template="Rigid3",
                        position=[[i, 0, 0, 0, 0, 0, 1] for i in range(4)])
    root.addObject(Drawer(name="drawer", mo=mo, mesh=mesh))
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, 0.01)       # steps draw nothing
    vp = Sofa.SofaGL.draw(root)
    calls = vp.getDrawTool().calls
    kinds = [k for k, _ in calls]
    assert kinds == ["points", "triangles", "frames", "lines", "text"]
    pts = calls[0][1]
    assert pts["points"].shape == (3, 3) and pts["color"] == RGBAColor("blue")
    assert calls[1][1]["elements"].tolist() == [[0, 1, 2]]
    fr = calls[2][1]
    assert fr["points"][:, 0].tolist() == [0, 1, 2, 3]
    assert fr["orientations"].tolist() == [[0, 0, 0, 1]] * 4
    assert calls[4][1]["text"] == "hello"
    assert vp.getDrawTool().lighting
    # bad arguments are refused, not drawn
    with pytest.raises(ValueError, match="even number"):
        vp.getDrawTool().drawLines([[0, 0, 0]], 1.0, RGBAColor("red"))
    with pytest.raises(ValueError, match="index out"):
        vp.getDrawTool().drawTriangles([[0, 0, 0]], [[0, 1, 2]], RGBAColor("red"))


