"""A SofaPython-style script controller, used by stiffen.yaml through
PythonScriptController: doubles the springs' stiffness once t >= 0.5 s."""
import Sofa


class Stiffen(Sofa.PythonScriptController):
    def initGraph(self, node):
        self.springs = node.getChild("Beam").getObject("springs")
        self.factor = float(self.variables[0]) if self.variables else 2.0

    def onBeginAnimationStep(self, dt):
        t = self.getContext().time.value
        if t >= 0.5 - 1e-12 and not getattr(self, "done", False):
            self.springs.stiffness = [self.springs.stiffness.value[0] * self.factor]
            self.done = True
