"""Sofa.SofaLinearSolver: SofaPython3's LinearSolver: A(), b(), x() of a linear solver: the
last linear system it solved (methods of the objects; this module names their class)."""
from settee._core import Object  # noqa: F401

LinearSolver = Object
