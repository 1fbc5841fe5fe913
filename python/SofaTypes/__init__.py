"""SofaTypes: SofaPython3's module of SOFA's small vector types. settee's
Python API takes and returns numpy arrays and lists for them; the module is
here so that scripts importing it load (Vec3d and the others are numpy
constructors)."""
import numpy as _np


def _vec(n):
    def make(*values):
        if len(values) == 1 and hasattr(values[0], "__len__"):
            values = tuple(values[0])
        if not values:
            values = (0.0,) * n
        if len(values) != n:
            raise ValueError("Vec%dd takes %d values, not %d" % (n, n, len(values)))
        return _np.array(values, dtype=float)
    make.__name__ = "Vec%dd" % n
    return make


Vec1d, Vec2d, Vec3d, Vec4d, Vec6d = (_vec(n) for n in (1, 2, 3, 4, 6))
