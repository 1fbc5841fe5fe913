# sofa_regression.py - what scripts/sofa-topology-regression and
# scripts/sofa-state-regression share: SOFA's scene lists and the environment
# its scenes are run in.
import os


def scene_list(path, default_steps=30):
    """The scenes of one of SOFA's *.regression-tests lists: (scene relative
    to examples/, steps, the line's further columns as strings). Comments,
    blank lines and the reference folder's line ($REGRESSION_DIR/...) are
    skipped."""
    out = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or line.startswith("$"):
                continue
            parts = line.split()
            steps = int(parts[1]) if len(parts) > 1 else default_steps
            out.append((parts[0], steps, parts[2:]))
    return out


def sofa_env(sofa):
    """The environment SOFA's scenes are run in: SOFA_DATA_PATH on its
    share/ and examples/."""
    env = dict(os.environ)
    env["SOFA_DATA_PATH"] = "%s:%s" % (os.path.join(sofa, "share"), os.path.join(sofa, "examples"))
    return env


def settee_arg(args):
    """--settee PATH out of args (removed), else build/bin/settee beside
    this script's folder."""
    settee = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build", "bin",
                          "settee")
    if "--settee" in args:
        i = args.index("--settee")
        settee = args[i + 1]
        del args[i:i + 2]
    return settee
