"""Sofa.Core: nodes, objects, data and the Python component base classes."""
from settee._core import (Node, Object, Data, BaseComponent as Base, Controller,  # noqa: F401
                          ForceField, ForceFieldVec1d, ForceFieldVec2d, ForceFieldVec3d,
                          ForceFieldRigid3d, Error)

BaseObject = Object
BaseNode = Node
Link = Data
