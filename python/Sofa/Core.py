"""Sofa.Core: nodes, objects, data and the Python component base classes."""
from settee._core import (Node, Object, Data, BaseComponent as Base, Controller,  # noqa: F401
                          ForceField, ForceFieldVec1d, ForceFieldVec2d, ForceFieldVec3d,
                          ForceFieldRigid3d, Error, DataEngine, Mapping, LinkPath, MAPPINGS)

globals().update(MAPPINGS)  # Mapping_Vec3d_Vec3d, Mapping_Vec3d_Vec1d ...

BaseObject = Object
BaseNode = Node
Link = Data
from Sofa.SofaGL import DrawTool, VisualParams  # noqa: F401,E402  (headless, see Sofa.SofaGL)
from Sofa import _task_scheduler as TaskScheduler  # noqa: F401,E402
