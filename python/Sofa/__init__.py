"""Sofa: SofaPython3's API on settee (docs/python.md says what differs)."""
from settee._core import PythonScriptController  # noqa: F401  (SofaPython's base class)
from settee._core import import_sofa_python_scene  # noqa: F401
from . import Core, Simulation, Helper  # noqa: F401

# SofaPython3 helpers that scripts call at start-up.


def importPlugin(name):
    import SofaRuntime
    SofaRuntime.importPlugin(name)
