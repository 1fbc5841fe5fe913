"""Test scenes shared by the Python tests: a string of points held by rest-shape
springs under gravity, with the springs in C (RestShapeSpringsForceField) or in
Python (PyRestShapeSprings), under an explicit, a matrix-free (CG) or an
assembled (direct) solver."""
import numpy as np

import Sofa.Core

SOLVERS = {
    "explicit": [("EulerExplicitSolver", {"symplectic": True})],
    "cg": [("EulerImplicitSolver", {"rayleighStiffness": 0.0, "rayleighMass": 0.0}),
           ("CGLinearSolver", {"iterations": 50, "tolerance": 1e-12, "threshold": 1e-15})],
    "direct": [("EulerImplicitSolver", {"rayleighStiffness": 0.0, "rayleighMass": 0.0}),
               ("SparseLDLSolver", {})],
}
PLUGINS = ["ODESolver.Forward", "ODESolver.Backward", "LinearSolver.Iterative",
           "LinearSolver.Direct", "Mass", "SolidMechanics.Spring"]
N = 5


class PyRestShapeSprings(Sofa.Core.ForceFieldVec3d):
    """f = -k (x - x0), the C RestShapeSpringsForceField's law, in numpy."""

    def __init__(self, *args, **kwargs):
        Sofa.Core.ForceFieldVec3d.__init__(self, *args, **kwargs)
        self.addData(name="stiffness", value=kwargs.get("stiffness", 100.0), type="double",
                     help="spring stiffness")
        self.addData(name="rest", value=kwargs.get("rest"), type="vector<Vec3d>",
                     help="rest positions")

    def addForce(self, m, forces, pos, vel):
        k = self.stiffness.value
        with forces.writeableArray() as f:
            f -= (pos.value - self.rest.value) * k

    def addDForce(self, m, dforce, dx):
        k = self.stiffness.value
        with dforce.writeableArray() as df:
            df -= dx.value * k * m["kFactor"]

    def addKToMatrix(self, m, nNodes, nDofs):
        k = self.stiffness.value
        return np.array([[i, i, -m["kFactor"] * k] for i in range(nNodes * nDofs)])

    def getPotentialEnergy(self, m, pos):
        d = pos.value - self.rest.value
        return 0.5 * self.stiffness.value * float((d * d).sum())


def rest_positions():
    return np.array([[float(i), 0.0, 0.0] for i in range(N)])


def build(root, solver, python_ff, k=100.0):
    root.gravity = [0, -9.81, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=PLUGINS)
    root.addObject("DefaultAnimationLoop")
    body = root.addChild("Body")
    for cls, kw in SOLVERS[solver]:
        body.addObject(cls, **kw)
    x0 = rest_positions()
    body.addObject("MechanicalObject", name="dofs", position=x0 + [0.0, 0.1, 0.0],
                   rest_position=x0)
    body.addObject("UniformMass", totalMass=1.0)
    if python_ff:
        body.addObject(PyRestShapeSprings(name="springs", stiffness=k, rest=x0))
    else:
        body.addObject("RestShapeSpringsForceField", name="springs", stiffness=k)
    return root
