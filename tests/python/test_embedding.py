"""The SofaPython3 plugin from the settee program: `settee run scene.py`, Python
scenes against their YAML twins, PythonScriptController in YAML, and errors."""
import json
import os
import subprocess


def run(settee_bin, *args):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)   # the plugin finds the packages next to itself
    return subprocess.run([settee_bin, *args], capture_output=True, text=True, env=env,
                          timeout=120)


def state(settee_bin, scene, tmp_path, name, steps=100):
    out = str(tmp_path / (name + ".json"))
    r = run(settee_bin, "run", scene, "--steps", str(steps), "--export-state", out)
    assert r.returncode == 0, r.stderr
    with open(out) as f:
        return f.read()


def test_run_python_scene(settee_bin, scenes, tmp_path):
    s = json.loads(state(settee_bin, os.path.join(scenes, "falling_ball.py"), tmp_path, "ball"))
    y = s["objects"][0]["position"][0][1]
    assert abs(y - 0.04595) < 1e-12 and s["steps"] == 100


def test_python_scene_and_yaml_twin_identical(settee_bin, scenes, tmp_path):
    a = state(settee_bin, os.path.join(scenes, "beam_tip.py"), tmp_path, "py")
    b = state(settee_bin, os.path.join(scenes, "beam_tip.yaml"), tmp_path, "yaml")
    assert a == b


def test_check_python_scene(settee_bin, scenes):
    r = run(settee_bin, "check", os.path.join(scenes, "beam_tip.py"))
    assert r.returncode == 0, r.stderr
    assert "ok" in r.stdout


def test_script_controller_in_yaml(settee_bin, scenes, tmp_path):
    base = json.loads(state(settee_bin, os.path.join(scenes, "beam_tip.yaml"), tmp_path, "b", 50))
    ctl = json.loads(state(settee_bin, os.path.join(scenes, "stiffen.yaml"), tmp_path, "c", 50))
    assert base == ctl   # before t = 0.5 the controller changed nothing
    base = json.loads(state(settee_bin, os.path.join(scenes, "beam_tip.yaml"), tmp_path, "b", 80))
    ctl = json.loads(state(settee_bin, os.path.join(scenes, "stiffen.yaml"), tmp_path, "c", 80))
    assert base != ctl


def test_python_error_in_scene_names_file_and_line(settee_bin, tmp_path):
    p = tmp_path / "broken.py"
    p.write_text("def createScene(root):\n    root.addObject('DefaultAnimationLoop')\n"
                 "    raise RuntimeError('no scene today')\n")
    r = run(settee_bin, "run", str(p), "--steps", "1")
    assert r.returncode != 0
    assert "broken.py:3" in r.stderr and "no scene today" in r.stderr


def test_python_exception_in_step_stops_the_run(settee_bin, tmp_path):
    p = tmp_path / "failing.py"
    p.write_text(
        "import Sofa.Core\n"
        "class F(Sofa.Core.Controller):\n"
        "    def onAnimateEndEvent(self, e):\n"
        "        if e['time'] > 0.025: raise KeyError('late')\n"
        "def createScene(root):\n"
        "    root.addObject('DefaultAnimationLoop')\n"
        "    root.addObject(F(name='failing'))\n")
    r = run(settee_bin, "run", str(p), "--steps", "10")
    assert r.returncode != 0
    assert "/failing" in r.stderr and "KeyError: 'late'" in r.stderr and "step 3" in r.stderr
