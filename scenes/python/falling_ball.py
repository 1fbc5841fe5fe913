"""A 2 kg ball under gravity, thrown up, as a SofaPython3 scene.
Run it: settee run scenes/python/falling_ball.py --steps 100"""
import Sofa.Core


class Thrower(Sofa.Core.Controller):
    """Gives the ball an upward velocity at the first step."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.Controller.__init__(self, *args, **kwargs)
        self.dofs = kwargs["dofs"]
        self.done = False

    def onAnimateBeginEvent(self, event):
        if not self.done:
            self.dofs.velocity.value = [[0.0, 5.0, 0.0]]
            self.done = True


def createScene(root):
    root.gravity = [0, -9.81, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=["ODESolver.Forward", "Mass"])
    root.addObject("DefaultAnimationLoop")
    ball = root.addChild("Ball")
    ball.addObject("EulerExplicitSolver", symplectic=True)
    dofs = ball.addObject("MechanicalObject", name="dofs", position=[[0, 0, 0]])
    ball.addObject("UniformMass", totalMass=2)
    root.addObject(Thrower(name="thrower", dofs=dofs))
    return root
