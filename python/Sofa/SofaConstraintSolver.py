"""Sofa.SofaConstraintSolver: SofaPython3's ConstraintSolver: W(), lambda_force() and dfree()
of a Lagrangian constraint solver's last problem, as numpy copies (methods of the solver
objects; this module names their class)."""
from settee._core import Object  # noqa: F401

ConstraintSolverImpl = Object
