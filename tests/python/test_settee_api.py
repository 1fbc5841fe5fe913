"""settee's own Python API: load with set=, step, numpy state, checkpoints."""
import os

import numpy as np
import pytest

import settee


def test_load_step_read(scenes):
    s = settee.load(os.path.join(scenes, "beam_tip.yaml"),
                    set={"/Beam/springs.stiffness": 200, "dt": 0.005})
    s.step(10)
    assert s.time == pytest.approx(0.05)
    pos = s["/Beam/dofs"].position
    assert isinstance(pos, np.ndarray) and pos.shape == (5, 3) and not pos.flags.writeable
    assert s["/Beam/springs"].stiffness[0] == 200.0
    assert np.array_equal(s["/Beam/dofs.position"], pos)
    with pytest.raises(KeyError):
        s["/Beam/nothing"]


def test_checkpoint_resume_bit_identical(scenes, tmp_path):
    path = os.path.join(scenes, "beam_tip.yaml")
    a = settee.load(path)
    a.step(20)
    ck = str(tmp_path / "run.ckpt")
    a.checkpoint(ck)
    a.step(30)
    b = settee.resume(ck)
    assert b.steps == 20
    b.step(30)
    assert np.array_equal(a["/Beam/dofs"].position, b["/Beam/dofs"].position)


def test_load_errors_are_python_exceptions(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("format: settee/1\nroot:\n  objects:\n    - NoSuchComponent: {}\n")
    with pytest.raises(settee.Error) as e:
        settee.load(str(bad))
    assert "bad.yaml:4" in str(e.value) and "NoSuchComponent" in str(e.value)


def test_load_python_scene_from_python(scenes):
    s = settee.load(os.path.join(scenes, "beam_tip.py"))
    t = settee.load(os.path.join(scenes, "beam_tip.yaml"))
    s.step(25)
    t.step(25)
    assert np.array_equal(s["/Beam/dofs"].position, t["/Beam/dofs"].position)
