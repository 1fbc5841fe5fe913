"""A string of 5 points on rest-shape springs under gravity (implicit Euler,
CG), written in Python; beam_tip.yaml is its YAML twin and gives the same
trajectory bit for bit. Run: settee run scenes/python/beam_tip.py --steps 100"""


def createScene(root):
    root.gravity = [0, -9.81, 0]
    root.dt = 0.01
    root.addObject("RequiredPlugin", pluginName=["ODESolver.Backward", "LinearSolver.Iterative",
                                                 "Mass", "SolidMechanics.Spring"])
    root.addObject("DefaultAnimationLoop")
    beam = root.addChild("Beam")
    beam.addObject("EulerImplicitSolver", rayleighStiffness=0.1, rayleighMass=0.1)
    beam.addObject("CGLinearSolver", iterations=50, tolerance=1e-12, threshold=1e-15)
    beam.addObject("MechanicalObject", name="dofs",
                   position=[[i, 0.5, 0] for i in range(5)],
                   rest_position=[[i, 0, 0] for i in range(5)])
    beam.addObject("UniformMass", totalMass=1.0)
    beam.addObject("RestShapeSpringsForceField", name="springs", stiffness=[100.0])
