"""Sofa.Types: SofaPython3's value types that scripts build by hand:
RGBAColor (drawing colours) and BoundingBox (a node's bbox, min and max
corners)."""
import numpy as _np

# SOFA's named colours; the same table as the kernel's colour fields
# (framework/core/field.c).
_NAMED = {
    "white": (1, 1, 1, 1), "black": (0, 0, 0, 1), "red": (1, 0, 0, 1), "green": (0, 1, 0, 1),
    "blue": (0, 0, 1, 1), "cyan": (0, 1, 1, 1), "magenta": (1, 0, 1, 1), "yellow": (1, 1, 0, 1),
    "gray": (0.5, 0.5, 0.5, 1), "darkgray": (0.25, 0.25, 0.25, 1),
    "lightgray": (0.75, 0.75, 0.75, 1), "orange": (1, 0.5, 0, 1), "purple": (0.5, 0, 0.5, 1),
    "pink": (1, 0, 0.5, 1), "brown": (0.6, 0.3, 0, 1), "lime": (0.5, 1, 0, 1),
    "teal": (0, 0.5, 0.5, 1), "navy": (0, 0, 0.5, 1), "olive": (0.5, 0.5, 0, 1),
    "maroon": (0.5, 0, 0, 1), "silver": (0.75, 0.75, 0.75, 1), "gold": (1, 0.84, 0, 1),
    "azure": (0, 0.5, 1, 1)}


def _parse_colour(text):
    t = text.strip()
    if t in _NAMED:
        return _NAMED[t]
    if t.startswith("#") and len(t) in (7, 9):
        try:
            v = [int(t[i:i + 2], 16) / 255.0 for i in range(1, len(t), 2)]
        except ValueError:
            v = None
        if v is not None:
            return tuple(v) + ((1.0,) if len(v) == 3 else ())
    try:
        v = [float(x) for x in t.split()]
    except ValueError:
        v = []
    if len(v) == 4:
        return tuple(v)
    raise ValueError("RGBAColor: '%s' is not a colour (a name such as 'red', '#rrggbb', "
                     "'#rrggbbaa' or four numbers 'r g b a')" % text)


class RGBAColor:
    """RGBAColor(), RGBAColor(r, g, b, a), RGBAColor("red" or "#ff0000"),
    RGBAColor([r, g, b, a]), RGBAColor(other); r(), g(), b(), a(), lighten(f)."""

    __slots__ = ("_v",)

    def __init__(self, *args):
        if not args:
            v = (1.0, 1.0, 1.0, 1.0)
        elif len(args) == 4:
            v = args
        elif len(args) == 1 and isinstance(args[0], RGBAColor):
            v = args[0]._v
        elif len(args) == 1 and isinstance(args[0], str):
            v = _parse_colour(args[0])
        elif len(args) == 1 and len(args[0]) == 4:
            v = tuple(args[0])
        else:
            raise TypeError("RGBAColor takes nothing, r g b a, a colour name or 4 values")
        self._v = tuple(float(x) for x in v)

    def r(self):
        return self._v[0]

    def g(self):
        return self._v[1]

    def b(self):
        return self._v[2]

    def a(self):
        return self._v[3]

    def lighten(self, factor):
        """Moves r, g, b towards white by factor (clamped to [0, 1]); alpha 1."""
        f = min(max(float(factor), 0.0), 1.0)
        rgb = [c + (1.0 - min(max(c, 0.0), 1.0)) * f for c in self._v[:3]]
        return RGBAColor(rgb[0], rgb[1], rgb[2], 1.0)

    def __iter__(self):
        return iter(self._v)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self._v[i]

    def __eq__(self, other):
        return isinstance(other, RGBAColor) and self._v == other._v

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._v)

    def __repr__(self):
        return "RGBAColor(%s)" % ",".join("%g" % c for c in self._v)

    __str__ = __repr__


class BoundingBox:
    """An axis-aligned box: BoundingBox(min, max); getMin(), getMax(),
    setMin(v), setMax(v), getCenter()."""

    def __init__(self, min=(0.0, 0.0, 0.0), max=(0.0, 0.0, 0.0)):
        self.setMin(min)
        self.setMax(max)

    def getMin(self):
        return list(self._min)

    def getMax(self):
        return list(self._max)

    def setMin(self, v):
        self._min = self._vec3(v)

    def setMax(self, v):
        self._max = self._vec3(v)

    def getCenter(self):
        return list((_np.asarray(self._min) + _np.asarray(self._max)) / 2.0)

    @staticmethod
    def _vec3(v):
        v = [float(x) for x in v]
        if len(v) != 3:
            raise ValueError("BoundingBox: a corner has 3 coordinates, got %d" % len(v))
        return v

    def __repr__(self):
        return "BoundingBox(%s, %s)" % (self._min, self._max)
