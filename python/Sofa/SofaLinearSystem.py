"""Sofa.SofaLinearSystem: SofaPython3's LinearSystem: A() / get_system_matrix(), b() /
get_rhs_vector(), x() / get_solution_vector() of a linear system component
(MatrixLinearSystem ...): the last linear system its ODE solver solved (methods of the
objects; this module names their class)."""
from settee._core import Object  # noqa: F401

LinearSystem = Object
