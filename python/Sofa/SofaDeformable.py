"""Sofa.SofaDeformable: SofaPython3's SpringForceField bindings (LinearSpring,
and the spring list of a SpringForceField object read and changed through its
`spring` field)."""
from settee._core import Object  # noqa: F401


class LinearSpring:
    """One spring of a SpringForceField: SOFA's LinearSpring."""

    def __init__(self, index1, index2, springStiffness, dampingFactor, restLength,
                 elongationOnly=False, enabled=True):
        self.index1 = int(index1)
        self.index2 = int(index2)
        self.springStiffness = float(springStiffness)
        self.dampingFactor = float(dampingFactor)
        self.restLength = float(restLength)
        self.elongationOnly = bool(elongationOnly)
        self.enabled = bool(enabled)

    def __repr__(self):
        return "%d %d %.17g %.17g %.17g" % (self.index1, self.index2, self.springStiffness,
                                           self.dampingFactor, self.restLength)

    __str__ = __repr__


SpringForceField = Object
