"""Sofa.Types (RGBAColor, BoundingBox) and Sofa.constants (Key, KeyCode), as
SofaPython3 scripts use them; a keyboard controller scene loads and steps
(settee sends no keyboard event)."""
import pytest

import Sofa.Core
import Sofa.Simulation
from Sofa.Types import RGBAColor, BoundingBox
from Sofa.constants import *  # noqa: F401,F403  (what scripts do)
from Sofa.constants import Key, KeyCode


def test_rgba_colour_constructors():
    assert (RGBAColor().r(), RGBAColor().a()) == (1.0, 1.0)
    c = RGBAColor(0.1, 0.2, 0.3, 0.4)
    assert (c.r(), c.g(), c.b(), c.a()) == (0.1, 0.2, 0.3, 0.4)
    assert RGBAColor("blue") == RGBAColor(0, 0, 1, 1)
    assert RGBAColor("#ff8000") == RGBAColor(1, 128 / 255, 0, 1)
    assert RGBAColor("#00000080").a() == pytest.approx(128 / 255)
    assert RGBAColor("0 1 0 0.5") == RGBAColor([0, 1, 0, 0.5])
    assert RGBAColor(RGBAColor("red")) == RGBAColor("red") != RGBAColor("green")
    assert str(RGBAColor("red")) == "RGBAColor(1,0,0,1)"
    with pytest.raises(ValueError, match="not a colour"):
        RGBAColor("reddish")
    # lighten moves towards white, alpha becomes 1
    assert RGBAColor(0, 0.5, 1, 0.2).lighten(0.5) == RGBAColor(0.5, 0.75, 1, 1)
    assert RGBAColor(0, 0, 0, 1).lighten(3) == RGBAColor(1, 1, 1, 1)


def test_rgba_colour_sets_a_colour_field():
    root = Sofa.Core.Node("root")
    root.addObject("RequiredPlugin", pluginName=["Sofa.Component.Visual"])
    style = root.addObject("VisualStyle")
    grid = root.addObject("VisualGrid", color=list(RGBAColor("#ff000080")))
    Sofa.Simulation.init(root)
    assert list(grid.color.value) == pytest.approx([1, 0, 0, 128 / 255])
    assert style is not None


def test_bounding_box():
    b = BoundingBox([0, 0, 0], [2, 4, 6])
    assert b.getCenter() == [1, 2, 3]
    b.setMin([-2, 0, 0])
    assert b.getMin() == [-2, 0, 0] and b.getCenter() == [0, 2, 3]
    with pytest.raises(ValueError, match="3 coordinates"):
        b.setMax([1, 2])


def test_key_constants():
    assert Key.leftarrow == chr(18) and Key.uparrow == chr(19)
    assert Key.rightarrow == chr(20) and Key.downarrow == chr(21)
    assert (Key.space, Key.plus, Key.minus, Key.I, Key.Z, Key.KP_7) == (" ", "+", "-", "I",
                                                                         "Z", "7")
    assert KeyCode.leftarrow == 18 and KeyCode.A == 65 and KeyCode.KP_0 == 48
    assert KeyCode.space == 32


class Keys(Sofa.Core.Controller):
    def __init__(self, *a, **k):
        Sofa.Core.Controller.__init__(self, *a, **k)
        self.listening = True
        self.pressed = []
        self.steps = 0

    def onKeypressedEvent(self, event):
        self.pressed.append(event["key"])

    def onAnimateEndEvent(self, event):
        self.steps += 1


def test_keyboard_controller_runs_headless():
    root = Sofa.Core.Node("root")
    root.addObject("DefaultAnimationLoop")
    k = root.addObject(Keys(name="keys"))
    Sofa.Simulation.init(root)
    for _ in range(3):
        Sofa.Simulation.animate(root, 0.01)
    assert k.steps == 3 and k.pressed == []
