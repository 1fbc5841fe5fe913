"""SofaRuntime: plugins."""
from settee import _settee
from settee import _core


def importPlugin(name):
    """Loads a settee plugin by name ("Sofa.Component.ODESolver.Backward" or
    "ODESolver.Backward"): into the scene being read when createScene runs
    under the settee program, else into the runtime of the scenes made here."""
    sref = _core._current_scene
    _settee.load_plugin(name, sref if sref is not None and sref.alive else None)


class PluginRepository:
    @staticmethod
    def addFirstPath(path):
        _settee.add_plugin_path(path)

    @staticmethod
    def getPaths():
        return _settee.plugin_paths()


def getCategories(name):
    return []
