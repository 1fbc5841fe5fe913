"""ContactListener from Python (SofaPython3's methods): two unit-diameter
spheres 0.9 apart under MinProximityIntersection (contactDistance 0.1), one
contact of value -0.2 between their centres, read one collision late as
SOFA's getters read the listener's buffer."""
import numpy as np
import pytest

import Sofa.Core
import Sofa.Simulation


def make_scene():
    root = Sofa.Core.Node("root")
    root.gravity = [0, 0, 0]
    root.dt = 0.01
    for p in ("ODESolver.Backward", "LinearSolver.Iterative", "Mass",
              "Constraint.Projective", "Collision"):
        root.addObject("RequiredPlugin", pluginName=p)
    root.addObject("DefaultAnimationLoop")
    root.addObject("CollisionPipeline")
    root.addObject("BruteForceBroadPhase")
    root.addObject("BVHNarrowPhase")
    root.addObject("MinProximityIntersection", alarmDistance=0.3, contactDistance=0.1)
    root.addObject("CollisionResponse")
    a = root.addChild("A")
    a.addObject("EulerImplicitSolver")
    a.addObject("CGLinearSolver", iterations=100, tolerance=1e-20, threshold=1e-30)
    a.addObject("MechanicalObject", position=[[0, 0, 0]])
    a.addObject("UniformMass", totalMass=1)
    a.addObject("FixedProjectiveConstraint", indices=[0])
    a.addObject("SphereCollisionModel", name="sa", radius=0.5)
    b = root.addChild("B")
    b.addObject("MechanicalObject", position=[[0.9, 0, 0]])
    b.addObject("SphereCollisionModel", name="sb", radius=0.5, simulated=False, moving=False)
    listener = root.addObject("ContactListener", name="listener",
                              collisionModel1="@A/sa", collisionModel2="@B/sb")
    Sofa.Simulation.init(root)
    return root, listener


def test_contacts_one_collision_late():
    root, listener = make_scene()
    Sofa.Simulation.animate(root, root.dt.value)
    assert listener.getNumberOfContacts() == 0      # the buffer: no collision before
    assert listener.getDistances() == []
    Sofa.Simulation.animate(root, root.dt.value)
    assert listener.getNumberOfContacts() == 1
    assert listener.getDistances() == pytest.approx([-0.2], abs=1e-12)
    (m0, p0, m1, p1), = listener.getContactPoints()
    # the detection's first element is on sb, the pair's first model: id 1
    assert (m0, m1) == (1, 0)
    assert np.allclose(p0, [0.9, 0, 0]) and np.allclose(p1, [0, 0, 0])
    assert listener.getContactElements() == [(1, 0, 0, 0)]
    d = listener.getContactData()
    assert d["numberOfContacts"] == 1
    assert np.allclose(d["collisionPointsModel1"][0], [0, 0, 0])   # on sa
    assert np.allclose(d["collisionPointsModel2"][0], [0.9, 0, 0])  # on sb
    assert d["collisionElementsModel1"] == [0] and d["collisionElementsModel2"] == [0]


def test_other_components_have_no_listener_methods():
    root, _ = make_scene()
    with pytest.raises(Exception, match="for ContactListeners"):
        root.A.sa.getNumberOfContacts()
