"""Sofa.Simulation: init, animate, reset and unload a scene from its root."""
from settee._core import sim_init as init, sim_animate as animate, sim_reset as reset  # noqa: F401
from settee._core import sim_unload as unload, sim_load as load  # noqa: F401

initRoot = init


def initVisual(node):
    """Headless: nothing to draw."""


def updateVisual(node):
    """Headless: nothing to draw."""


def initTextures(node):
    """Headless: nothing to draw."""
