# render.py - run by scripts/render under pvpython: shows every .pvd below
# DIR, one frame per time of the collections, saved as OUTDIR/frame.NNNN.png.
import glob
import os
import sys

from paraview.simple import (ColorBy, GetActiveViewOrCreate, GetAnimationScene, PVDReader,
                             SaveAnimation, Show)

src, out, size = sys.argv[1], sys.argv[2], sys.argv[3]
side = sys.argv[4] if len(sys.argv) > 4 else "x"
w, h = (int(v) for v in size.lower().split("x"))
pvds = sorted(glob.glob(os.path.join(src, "**", "*.pvd"), recursive=True))
if not pvds:
    sys.exit("render: no .pvd file below %s" % src)
view = GetActiveViewOrCreate("RenderView")
view.ViewSize = [w, h]
view.Background = [0.12, 0.12, 0.16]
try:
    view.UseColorPaletteForBackground = 0
except AttributeError:
    pass
shown = []
for p in pvds:
    reader = PVDReader(FileName=p)
    d = Show(reader, view)
    if "velocity" in reader.PointData.keys():
        ColorBy(d, ("POINTS", "velocity", "Magnitude"))
        shown.append(d)
scene = GetAnimationScene()
scene.UpdateAnimationUsingDataTimeSteps()
times = list(scene.TimeKeeper.TimestepValues)
# Colours scaled on the last frame (the first is often at rest); a side
# view from +x (or +z), y up, slightly above, framed on the first frame.
if times:
    scene.AnimationTime = times[-1]
for d in shown:
    d.RescaleTransferFunctionToDataRange(False, False)
if times:
    scene.AnimationTime = times[0]
if side == "z":
    view.ResetActiveCameraToPositiveZ()
else:
    view.ResetActiveCameraToPositiveX()
cam = view.GetActiveCamera()
cam.SetViewUp(0, 1, 0)  # SOFA scenes' gravity is usually along -y
cam.Elevation(20)
cam.Azimuth(-25)
view.ResetCamera()
SaveAnimation(os.path.join(out, "frame.png"), view, ImageResolution=[w, h],
              FrameWindow=[0, max(0, len(scene.TimeKeeper.TimestepValues) - 1)])
print("render: wrote %d frame(s) to %s" % (len(glob.glob(os.path.join(out, "frame.*.png"))), out))
