"""`settee run --checkpoint` / `--resume` of a Python scene with a controller:
the resumed run ends where the uninterrupted one does, bit for bit. The
controller here keeps no Python state of its own (it reads the scene's
time); a controller's own Python state is its author's to save (docs/python.md)."""
import json
import subprocess

SCENE = '''
import Sofa.Core


class Push(Sofa.Core.Controller):
    """From t = 0.05 on, a constant force pushes the particle along x."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.ff = kwargs["ff"]

    def onAnimateBeginEvent(self, event):
        if event["time"] >= 0.05 - 1e-12:
            self.ff.forces.value = [[2.0, 0.0, 0.0]]


def createScene(root):
    root.gravity.value = [0, -9.81, 0]
    root.dt.value = 0.01
    root.addObject("RequiredPlugin", pluginName="ODESolver.Backward Mass MechanicalLoad "
                   "LinearSolver.Iterative")
    root.addObject("EulerImplicitSolver")
    root.addObject("CGLinearSolver", iterations=25, tolerance=1e-12, threshold=1e-20)
    root.addObject("MechanicalObject", name="dofs", position=[[0, 0, 0]])
    root.addObject("UniformMass", totalMass=1)
    ff = root.addObject("ConstantForceField", name="push", indices=[0], forces=[[0, 0, 0]])
    root.addObject(Push(name="push_ctl", ff=ff))
'''


def run(settee_bin, cwd, *args):
    r = subprocess.run([settee_bin, "run", "scene.py", "-q", "--no-progress"] + list(args),
                       cwd=cwd, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def test_resume_of_a_python_scene_is_bit_identical(settee_bin, tmp_path):
    (tmp_path / "scene.py").write_text(SCENE)
    run(settee_bin, tmp_path, "-n", "12", "--export-state", "full.json")
    run(settee_bin, tmp_path, "-n", "4", "--checkpoint", "c.ck")
    run(settee_bin, tmp_path, "-n", "12", "--resume", "c.ck", "--export-state", "resumed.json")
    full = (tmp_path / "full.json").read_bytes()
    assert full == (tmp_path / "resumed.json").read_bytes()
    # the controller's push acted from t = 0.05 (x moved), gravity all along
    x, y, _ = json.loads(full)["objects"][0]["position"][0]
    assert x > 1e-3 and y < -0.05
