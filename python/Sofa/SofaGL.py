"""Sofa.SofaGL: SofaPython3's drawing entry point, headless in settee.

`draw(node)` calls `draw(visual_params)` of every Python component of the
subtree (controllers and force fields that define it), in scene order, with a
VisualParams whose DrawTool records the primitives instead of rendering them
(settee has no OpenGL). It returns that VisualParams, so that a script or a
test can read what was drawn: `vp.getDrawTool().calls`, a list of
`(primitive, {arguments})`. Arguments are checked as SOFA's DrawTool binding
takes them (points as (n, 3) arrays or position data, a colour as RGBAColor)."""
import numpy as _np

from settee._core import BaseComponent as _BaseComponent
from Sofa.Types import RGBAColor as _RGBAColor


def _points(p, width=3, what="points"):
    if hasattr(p, "array") and callable(p.array):      # a Data (positions ...)
        p = p.array()
    a = _np.asarray(p, dtype=float)
    if a.ndim == 1 and a.size == 0:
        a = a.reshape(0, width)
    if a.ndim != 2 or a.shape[1] < width:
        raise ValueError("DrawTool: %s must be rows of at least %d values, not shape %s"
                         % (what, width, a.shape))
    return a


def _indices(e, k, what):
    if hasattr(e, "array") and callable(e.array):
        e = e.array()
    a = _np.asarray(e, dtype=int)
    if a.size == 0:
        return a.reshape(0, k)
    if a.ndim != 2 or a.shape[1] != k:
        raise ValueError("DrawTool: %s must be rows of %d indices, not shape %s"
                         % (what, k, a.shape))
    return a


def _colour(c):
    if not isinstance(c, _RGBAColor):
        c = _RGBAColor(c)
    return c


class DrawTool:
    """SOFA's DrawTool, headless: each call is checked and appended to `calls`."""

    def __init__(self):
        self.calls = []
        self.lighting = True

    def _add(self, kind, **args):
        self.calls.append((kind, args))

    def enableLighting(self):
        self.lighting = True

    def disableLighting(self):
        self.lighting = False

    def drawPoints(self, points, size, color):
        self._add("points", points=_points(points)[:, :3], size=float(size), color=_colour(color))

    def drawLines(self, points, size, color):
        p = _points(points)[:, :3]
        if len(p) % 2:
            raise ValueError("DrawTool.drawLines: an even number of points (pairs), not %d"
                             % len(p))
        self._add("lines", points=p, size=float(size), color=_colour(color))

    def _faces(self, kind, k, positions, elements, color):
        p = _points(positions)[:, :3]
        if elements is None:          # a flat list of corners
            if len(p) % k:
                raise ValueError("DrawTool.draw%s: a multiple of %d points, not %d"
                                 % (kind.capitalize(), k, len(p)))
            e = _np.arange(len(p)).reshape(-1, k)
        else:
            e = _indices(elements, k, kind)
            if e.size and (e.min() < 0 or e.max() >= len(p)):
                raise ValueError("DrawTool.draw%s: an index out of the %d positions"
                                 % (kind.capitalize(), len(p)))
        self._add(kind, points=p, elements=e, color=_colour(color))

    def drawTriangles(self, positions, *args):
        self._faces("triangles", 3, positions, args[0] if len(args) == 2 else None, args[-1])

    def drawQuads(self, positions, *args):
        self._faces("quads", 4, positions, args[0] if len(args) == 2 else None, args[-1])

    def drawSpheres(self, positions, radius, color):
        self._add("spheres", points=_points(positions)[:, :3],
                  radius=_np.atleast_1d(_np.asarray(radius, dtype=float)), color=_colour(color))

    def drawFrames(self, positions, *args):
        if len(args) == 2:                                 # points, orientations, size
            p = _points(positions)[:, :3]
            q = _points(args[0], 4, "orientations")[:, :4]
            if len(q) != len(p):
                raise ValueError("DrawTool.drawFrames: %d points and %d orientations"
                                 % (len(p), len(q)))
            size = args[1]
        else:                                               # rigid positions, size
            r = _points(positions, 7, "rigid positions")
            p, q, size = r[:, :3], r[:, 3:7], args[0]
        self._add("frames", points=p, orientations=q,
                  size=_np.asarray(size, dtype=float).reshape(3))

    def drawDisk(self, radius, start, end, resolution, color):
        self._add("disk", radius=float(radius), start=float(start), end=float(end),
                  resolution=int(resolution), color=_colour(color))

    def drawCircle(self, radius, thickness, resolution, color):
        self._add("circle", radius=float(radius), thickness=float(thickness),
                  resolution=int(resolution), color=_colour(color))

    def drawBoundingBox(self, bmin, bmax, width=1.0):
        self._add("boundingbox", min=_np.asarray(bmin, dtype=float)[:3],
                  max=_np.asarray(bmax, dtype=float)[:3], width=float(width))

    def drawText(self, point, size, text, color):
        self._add("text", point=_np.asarray(point, dtype=float).reshape(3), size=float(size),
                  text=str(text), color=_colour(color))

    def drawOverlayText(self, point, size, text, color):
        self._add("overlaytext", point=_np.asarray(point, dtype=float).reshape(2),
                  size=int(size), text=str(text), color=_colour(color))


class VisualParams:
    """What draw(visual_params) receives: getDrawTool()."""

    def __init__(self):
        self._tool = DrawTool()

    def getDrawTool(self):
        return self._tool

    drawTool = getDrawTool


def _draw_subtree(node, vp):
    for o in node.objects:
        if isinstance(o, _BaseComponent) and callable(getattr(o, "draw", None)):
            o.draw(vp)
    for c in node.children:
        _draw_subtree(c, vp)


def draw(node):
    """Calls draw(vp) of the Python components under node; returns vp."""
    vp = VisualParams()
    _draw_subtree(node, vp)
    return vp


def glewInit():
    """Nothing to initialise headless."""
