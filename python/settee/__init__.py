"""settee: a plugin-based physics simulation framework modelled on SOFA.

    import settee
    s = settee.load("scene.yaml", set={"/Beam/springs.stiffness": 300})
    s.step(100)
    tip = s["/Beam/dofs"].position[-1]      # a read-only numpy view

SofaPython3's API is in the packages Sofa (Sofa.Core, Sofa.Simulation,
Sofa.Helper) and SofaRuntime; docs/python.md describes both.
"""
from ._settee import version as __version__  # noqa: F401
from ._core import (Error, Scene, Component, load, resume, system_matrix,  # noqa: F401
                    set_log)

__all__ = ["Error", "Scene", "Component", "load", "resume", "system_matrix", "set_log"]
