"""SofaPython3's own example scripts, run by `settee run` when a SofaPython3
checkout is available: SETTEE_SOFAPYTHON3_DIR=/path/to/SofaPython3 (its
examples/ folder is used), SOFA's meshes through SOFA_DATA_PATH (default:
/work/sofa-data/share:/work/sofa-data/examples when it exists). Skipped
otherwise: this repository holds none of SofaPython3's files.

docs/python.md lists which examples run and why the others do not; this
file is that list, checked."""
import os
import re
import shutil
import subprocess

import pytest

SP3 = os.environ.get("SETTEE_SOFAPYTHON3_DIR", "")
EXAMPLES = os.path.join(SP3, "examples") if SP3 else ""
DEFAULT_DATA = "/work/sofa-data/share:/work/sofa-data/examples"

# Examples that run as they are (settee run FILE -n 20), and what they show.
RUN = {
    "basic.py": "a falling sphere, createScene",
    "basic-addGUI.py": "createScene (the GUI part runs only as __main__)",
    "basic-useQtGUI.py": "createScene (the GUI part runs only as __main__)",
    "emptyController.py": "a Sofa.Core.Controller and its events",
    "emptyDataEngine.py": "a Sofa.Core.DataEngine subclass",
    "example-scriptcontroller.py": "a controller changing a scene",
    "liver.py": "SOFA's liver with meshes from SOFA_DATA_PATH",
    "liver-scriptcontroller.py": "the liver and a controller",
    "pointSetTopologyModifier.py": "removing points from Python",
    "scene_check.py": "the scene checks",
    "import_python_scene.py": "Sofa.import_sofa_python_scene",
    "loadXMLfromPython.py": "Sofa.Simulation.load, the loaded graph added to a node",
    "access_stiffness_matrix.py": "ForceField.assembleKMatrix (needs matplotlib)",
    "example-mapping.py": "Python Mapping_Vec3d_Vec3d, a node with a second parent",
    "example-mapping_3_to_1.py": "Python Mapping_Vec3d_Vec1d",
    "example-forcefield.py": "a Python force field (RequiredPlugin Sofa.GL.Component)",
    "access_compliance_matrix.py": "ConstraintSolver.W() / lambda_force() in the constraint "
                                   "events (solveVelocityConstraintFirst)",
    "access_constraint_matrix.py": "MechanicalObject.constraint.value, a scipy.sparse matrix",
    "access_matrix.py": "MatrixLinearSystem A() / b() / x(), CRS and FullMatrix",
    "access_energy.py": "kinetic and potential energies, with the MultiThreading plugin",
    "access_contact_forces.py": "contact forces of a Lagrangian solver",
    "keyEvents.py": "Sofa.constants.Key (no keyboard event headless)",
    "MessageHandler.py": "Sofa.Helper.MessageHandler",
    "ReadTheDocs_Example.py": "a rigid mass given as a ragged list, meshes from SOFA_DATA_PATH",
    "emptyForceField.py": "tolerance=\"10-3\" read as 10 with a warning, as SOFA reads it",
    "advanced_timer.py": "SofaRuntime.Timer records of each step's Newton iterations",
    "taskScheduler.py": "Sofa.Core.TaskScheduler, ParallelHexahedronFEMForceField",
    "access_mass_matrix.py": "a mass-only MatrixLinearSystem observer, CompositeLinearSystem, "
                             "MeshMatrixMass.assembleMMatrix (needs matplotlib)",
    "example-drawing-controller.py": "a controller with draw() (never called headless; our "
                                     "own mesh/raptor_35kp.obj, SOFA's share/ has none)",
    "springForceField.py": "Sofa.SofaDeformable springs, PlaneForceField on Rigid3d states",
    "thermoelasticity.py": "TetrahedronDiffusionFEMForceField (Vec1d temperatures), "
                           "getContext().getTime() in a controller",
    "CCDIntersection.py": "CCDTightInclusionIntersection",
}

# A small mesh of our own under the name an example asks for and SOFA's
# share/ lacks (example-drawing-controller.py: mesh/raptor_35kp.obj).
OWN_MESH = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 1 2 4 3\n"

# Examples that run once a text settee reads differently is changed: none
# since the collection names (Sofa.GL.Component, Sofa.Component) load their
# modules; kept for the next such case.
PATCHED = {}

pytestmark = pytest.mark.skipif(
    not EXAMPLES or not os.path.isdir(EXAMPLES),
    reason="set SETTEE_SOFAPYTHON3_DIR to a SofaPython3 checkout to run its examples")


def data_path():
    p = os.environ.get("SOFA_DATA_PATH")
    if p:
        return p
    return DEFAULT_DATA if os.path.isdir(DEFAULT_DATA.split(":")[0]) else ""


def run(settee_bin, path, cwd, extra_data=None):
    env = dict(os.environ)
    env["SOFA_DATA_PATH"] = ":".join(p for p in (extra_data, data_path()) if p)
    env.setdefault("MPLBACKEND", "Agg")
    return subprocess.run([settee_bin, "run", path, "-n", "20"], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=env)


@pytest.mark.parametrize("name", sorted(RUN))
def test_example_runs(name, settee_bin, tmp_path):
    path = os.path.join(EXAMPLES, name)
    if not os.path.exists(path):
        pytest.skip("%s is not in this SofaPython3 checkout" % name)
    if name in ("access_stiffness_matrix.py", "access_mass_matrix.py"):
        pytest.importorskip("matplotlib")
    if name.startswith("access_"):
        pytest.importorskip("scipy")
    if (name.startswith("liver") or name == "ReadTheDocs_Example.py") and not data_path():
        pytest.skip("liver meshes: set SOFA_DATA_PATH to SOFA's share/ folder")
    (tmp_path / "mesh").mkdir()
    (tmp_path / "mesh" / "raptor_35kp.obj").write_text(OWN_MESH)
    r = run(settee_bin, path, EXAMPLES, str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert "20 steps" in r.stdout + r.stderr
    if name == "advanced_timer.py":
        # the controller printed the timer's records: 5 Newton iterations
        # (the scene's maximum, not reached by its CG capped at 25) per step
        its = re.findall(r"Newton iteration #(\d) took [0-9.]+ ms using (\d+) CG", r.stdout)
        assert len(its) == 5 * 20 and {n for _, n in its} == {"25"}, r.stdout[-2000:]
        assert r.stdout.count("Step took") == 20
    if name == "access_mass_matrix.py":
        # the global mass-only system is the two beams' masses times Euler's
        # mass factor 1 + dt rayleighMass (dt 0.01, 0.1)
        norms = dict(re.findall(r"Mass matrix (\S+)\n=+\n(?:.*\n){4}norm: ([0-9.e+-]+)",
                                r.stdout))
        m1, m2, glob = (float(norms[k]) for k in ("/Beam1/mass1", "/Beam2/mass2", "/matrices/M"))
        assert m1 > 0 and abs(m1 - m2) < 1e-9 * m1
        assert abs(glob - 1.001 * (m1 * m1 + m2 * m2) ** 0.5) < 1e-9 * glob
        assert "shape: (1920, 1920)" in r.stdout and "shape: (960, 960)" in r.stdout


@pytest.mark.parametrize("name", sorted(PATCHED))
def test_example_runs_patched(name, settee_bin, tmp_path):
    path = os.path.join(EXAMPLES, name)
    if not os.path.exists(path):
        pytest.skip("%s is not in this SofaPython3 checkout" % name)
    text = open(path, encoding="utf-8").read()
    for pat, rep in PATCHED[name][1]:
        text, n = re.subn(pat, rep, text)
        assert n, "%s no longer contains %s: update PATCHED" % (name, pat)
    copy = tmp_path / name
    copy.write_text(text, encoding="utf-8")
    for f in os.listdir(EXAMPLES):      # scripts it may import
        if f.endswith(".py") and f != name:
            shutil.copy(os.path.join(EXAMPLES, f), tmp_path / f)
    r = run(settee_bin, str(copy), str(tmp_path))
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    assert "20 steps" in r.stdout + r.stderr
    assert "APPLY-J " in r.stdout    # the Python mapping's methods were called


def test_drawing_controller_draws_headless(tmp_path, monkeypatch):
    """example-drawing-controller.py's draw(), called by Sofa.SofaGL.draw:
    every primitive it asks for is accepted and recorded."""
    import importlib.util
    import Sofa.Core
    import Sofa.Simulation
    import Sofa.SofaGL
    path = os.path.join(EXAMPLES, "example-drawing-controller.py")
    if not os.path.exists(path):
        pytest.skip("not in this SofaPython3 checkout")
    (tmp_path / "mesh").mkdir()
    (tmp_path / "mesh" / "raptor_35kp.obj").write_text(OWN_MESH)
    monkeypatch.setenv("SOFA_DATA_PATH", str(tmp_path))
    spec = importlib.util.spec_from_file_location("drawing_example", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    root = Sofa.Core.Node("root")
    mod.createScene(root)
    Sofa.Simulation.init(root)
    calls = Sofa.SofaGL.draw(root).getDrawTool().calls
    assert [k for k, _ in calls] == ["points", "triangles", "quads", "frames", "points", "points",
                                     "lines", "frames", "text", "overlaytext"]
    assert calls[0][1]["points"].shape == (4, 3)          # our mesh's 4 vertices
    assert calls[3][1]["points"].shape == (10, 3)         # the 10 rigid frames
    Sofa.Simulation.unload(root)
