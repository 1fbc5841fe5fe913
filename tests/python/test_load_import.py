"""Sofa.Simulation.load(path) (a scene file read into a new scene, not
initialised) and Sofa.import_sofa_python_scene(path) (a .py scene imported as
a module, its createScene called on a node of ours)."""
import subprocess

import numpy as np
import pytest

import Sofa
import Sofa.Core
import Sofa.Simulation
import settee

SCN = """<Node name="root" dt="0.01" gravity="0 -10 0">
  <RequiredPlugin pluginName="ODESolver.Forward Mass"/>
  <Node name="ball">
    <EulerExplicitSolver symplectic="true"/>
    <MechanicalObject name="dofs" position="0 1 0  2 1 0"/>
    <UniformMass totalMass="1"/>
  </Node>
</Node>
"""


def test_simulation_load_reads_a_scene_file(tmp_path):
    f = tmp_path / "ball.scn"
    f.write_text(SCN)
    root = Sofa.Simulation.load(str(f))
    assert isinstance(root, Sofa.Core.Node)
    assert [c.getName() for c in root.children] == ["ball"]
    assert root.ball.dofs.getClassName() == "MechanicalObject"
    assert root.dt.value == 0.01
    Sofa.Simulation.init(root)
    for _ in range(10):
        Sofa.Simulation.animate(root, root.dt.value)
    # symplectic Euler under g = -10: v_n = -10 n dt, y_n = 1 - 10 dt^2 n(n+1)/2
    y = root.ball.dofs.position.value[:, 1]
    assert np.allclose(y, 1 - 10 * 0.01 ** 2 * 55, rtol=0, atol=1e-12)
    Sofa.Simulation.unload(root)


def test_simulation_load_errors(tmp_path):
    with pytest.raises(settee.Error):
        Sofa.Simulation.load(str(tmp_path / "missing.scn"))


def test_loaded_scn_added_to_another_scene(tmp_path):
    """loadXMLfromPython.py's pattern: root.addChild(Sofa.Simulation.load(f)).
    The file is rebuilt under the new child; the result steps as the file
    alone does."""
    f = tmp_path / "ball.scn"
    f.write_text(SCN)
    alone = Sofa.Simulation.load(str(f))
    Sofa.Simulation.init(alone)
    for _ in range(10):
        Sofa.Simulation.animate(alone, 0.01)
    want = alone.ball.dofs.position.value

    root = Sofa.Core.Node("root")
    root.gravity = [0, -10, 0]
    root.dt = 0.01
    loaded = Sofa.Simulation.load(str(f))
    assert root.addChild(loaded) is loaded
    assert loaded.getPathName() == "/root"       # the file's root, now a child
    assert root.root.ball.dofs.getClassName() == "MechanicalObject"
    Sofa.Simulation.init(root)
    for _ in range(10):
        Sofa.Simulation.animate(root, 0.01)
    assert np.array_equal(root.root.ball.dofs.position.value, want)


def test_loaded_yaml_cannot_be_added(tmp_path):
    f = tmp_path / "ball.yaml"
    f.write_text("format: settee/1\nroot:\n  name: root\n  children:\n    - name: a\n")
    loaded = Sofa.Simulation.load(str(f))
    with pytest.raises(settee.Error, match="only .scn"):
        Sofa.Core.Node("root").addChild(loaded)


PART = '''
def createScene(node):
    node.addObject("RequiredPlugin", pluginName=["ODESolver.Forward", "Mass"])
    node.addObject("EulerExplicitSolver", symplectic=True)
    node.addObject("MechanicalObject", name="dofs", position=[[0, 0, 0]])
    node.addObject("UniformMass", totalMass=2.0)
'''


def test_import_sofa_python_scene(tmp_path):
    (tmp_path / "part_scene.py").write_text(PART)
    mod = Sofa.import_sofa_python_scene(str(tmp_path / "part_scene.py"))
    root = Sofa.Core.Node("root")
    root.gravity = [0, -1, 0]
    a = root.addChild("A")
    mod.createScene(a)
    assert a.dofs.getClassName() == "MechanicalObject"
    Sofa.Simulation.init(root)
    Sofa.Simulation.animate(root, 0.1)
    assert a.dofs.position.value[0, 1] == pytest.approx(-0.01)
    with pytest.raises(FileNotFoundError):
        Sofa.import_sofa_python_scene(str(tmp_path / "nope.py"))


def test_import_next_to_the_scene_in_the_program(tmp_path, settee_bin):
    """A relative name is found next to the running scene, as in SofaPython3's
    import_python_scene.py."""
    (tmp_path / "part_scene.py").write_text(PART)
    (tmp_path / "main_scene.py").write_text('''
import Sofa


def createScene(root):
    part = Sofa.import_sofa_python_scene("part_scene.py")
    part.createScene(root.addChild("A"))
''')
    out = tmp_path / "state.json"
    r = subprocess.run([settee_bin, "run", str(tmp_path / "main_scene.py"), "-n", "3",
                        "--export-state", str(out)],
                       capture_output=True, text=True, timeout=120, cwd="/")
    assert r.returncode == 0, r.stderr
    assert "/A/dofs" in out.read_text()
