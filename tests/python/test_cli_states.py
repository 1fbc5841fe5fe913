"""`settee run` checks every scalar of every state for NaN and infinity at
the end of a run, whatever the state's type (it read three per point, past
the end of a Vec1d state and short of a Rigid3d one)."""
import subprocess

import pytest

SCENE = '''
import Sofa.Core


class Poison(Sofa.Core.Controller):
    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.dofs = kwargs["dofs"]

    def onAnimateEndEvent(self, event):
        with self.dofs.position.writeableArray() as a:
            a.reshape(-1)[-1] = float("nan")


def createScene(root):
    root.addObject("DefaultAnimationLoop")
    d = root.addObject("MechanicalObject", name="dofs", template="%s", position=%r)
    root.addObject(Poison(name="poison", dofs=d))
'''


@pytest.mark.parametrize("template,position", [
    ("Rigid3d", [[0, 0, 0, 0, 0, 0, 1], [1, 0, 0, 0, 0, 0, 1]]),
    ("Vec1d", [0.0, 1.0, 2.0]),
])
def test_last_scalar_of_any_state_is_checked(tmp_path, settee_bin, template, position):
    f = tmp_path / "poison.py"
    f.write_text(SCENE % (template, position))
    r = subprocess.run([settee_bin, "run", str(f), "-n", "2"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode != 0
    assert "NaN or infinity" in r.stderr and "/dofs" in r.stderr, r.stderr
