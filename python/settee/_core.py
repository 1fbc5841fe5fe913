"""settee._core - the Python API of settee, over the native module settee._settee.

SofaPython3's names (Sofa.Core.Node, Data, Controller, ForceField ...) are
defined here and re-exported by the Sofa packages; settee's own small API
(settee.load, Scene) too. docs/python.md describes both.
"""
import contextlib
import importlib.util
import json
import os
import re
import sys

import numpy as np

from . import _settee as _st

Error = _st.Error

_PY_CLASSES = ("PythonController", "PythonForceField", "PythonScriptController",
               "PythonDataEngine", "PythonMapping")
_current_scene = None  # the SceneRef whose createScene runs (embedding)


# ---- values as scene text ----

def _text(v):
    """A Python value as the scene text settee's field parsers read."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, Data):
        return v.getLinkPath()
    if isinstance(v, (Object, BaseComponent)):
        return v.getLinkPath()
    if isinstance(v, Node):
        return "@" + v.getPathName()
    if v is None:
        return ""
    try:
        a = np.asarray(v)
    except ValueError:
        # rows of different sizes (a Rigid3 mass: [mass, volume, [9 inertia
        # values]]): each element's text in turn, as SOFA reads the value
        return " ".join(_text(x) for x in v)
    if a.dtype.kind == "f":
        return " ".join(repr(float(x)) for x in a.ravel())
    if a.dtype.kind in "iub":
        return " ".join(str(int(x)) for x in a.ravel())
    if a.dtype.kind in "US":
        return " ".join(str(x) for x in a.ravel())
    return " ".join(_text(x) for x in v)


_LEADING_REAL = re.compile(r"\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _sofa_real_text(obj, name, text):
    """A string given to addObject is SOFA's text, read as SOFA reads it (a
    .scn attribute): for a real field, SOFA's istream reads the leading number
    of "10-3" (10). The same here, with a warning; other text as it is."""
    m = _LEADING_REAL.match(text)
    if m is None or m.end() == len(text) or not text[m.end():].strip():
        return text
    try:
        if _st.field_info(obj._ref, name).get("type") != "real":
            return text
    except Exception:
        return text
    head = text[:m.end()].strip()
    _st.log(_st.LOG_WARNING, obj.getPathName(),
            "%s: field '%s' expects a real number: read '%s' as %s, as SOFA does (it reads the "
            "leading number); write it whole (1e-3, not 10-3) if another value is meant"
            % (obj.getClassName(), name, text, head), obj._ref.scene)
    return head


# ---- wrappers: one Python object per node or component ----

def _logs(w):
    """What Python set on the nodes and components of w's scene, by address:
    [(field, text)], to rebuild a subtree that moves (Node._move_child). Kept
    on the scene's wrapper cache, so it lives as long as the scene."""
    cache = w._ref.scene.cache
    logs = getattr(cache, "_st_logs", None)
    if logs is None:
        logs = cache._st_logs = {}
    return logs


def _wrap(ref):
    if ref is None:
        return None
    cache = ref.scene.cache
    w = cache.get(ref.address)
    if w is not None and w._ref is not None and w._ref.valid:
        return w
    if ref.is_node:
        w = Node.__new__(Node)
        object.__setattr__(w, "_ref", ref)
        object.__setattr__(w, "_pydata", {})
    else:
        w = _st.obj_pyobject(ref)
        if w is None:
            w = Object.__new__(Object)
            object.__setattr__(w, "_ref", ref)
            object.__setattr__(w, "_pydata", {})
    cache[ref.address] = w
    return w


class LinkPath(str):
    """SofaPython3's Sofa.Core.LinkPath: the link text of an object or a data
    ("@/Beam/dofs", "@/Beam/dofs.position"), usable wherever a link is, and
    target() the object or data it names."""

    def __new__(cls, text, target):
        s = str.__new__(cls, text)
        s._target = target
        return s

    def target(self):
        return self._target

    def __repr__(self):
        return 'LinkPath("%s")' % str(self)


def _refresh(owner, name):
    """SOFA's updateIfDirty: reading an engine's output runs the engine first
    when an input changed since its last update. The owner of an output
    names its engine in _st_outputs (no module-level table: the references
    stay within the scene's objects, where the garbage collector sees them)."""
    outs = owner.__dict__.get("_st_outputs")
    if outs:
        e = outs.get(name)
        if e is not None:
            e._update_if_dirty()


class Data:
    """A data field of a component or a node (SofaPython3's Sofa.Core.Data).

    value        a copy of the value (Python scalar, numpy array); assign to set
    array()      a read-only zero-copy numpy view of the field's memory
    writeableArray()  a context manager giving a writeable view
    """

    __slots__ = ("_owner", "_name")

    def __init__(self, owner, name):
        self._owner = owner
        self._name = name

    @property
    def value(self):
        return self._owner._get_data(self._name)

    @value.setter
    def value(self, v):
        self._owner._set_data(self._name, v)

    def getValue(self):
        return self.value

    def setValue(self, v):
        self.value = v

    def array(self):
        return self._owner._view_data(self._name, False)

    @contextlib.contextmanager
    def writeableArray(self):
        a = self._owner._view_data(self._name, True)
        try:
            yield a
        finally:
            self._owner._touch_data(self._name)

    writeable = writeableArray

    def getName(self):
        return self._name

    def getOwner(self):
        return self._owner

    def getLinkPath(self):
        return "@" + self._owner.getPathName() + "." + self._name

    @property
    def linkpath(self):
        return LinkPath(self.getLinkPath(), self)

    def getValueString(self):
        return _text(self.value)

    def getValueTypeString(self):
        return self._owner._data_info(self._name).get("type", "")

    def getHelp(self):
        return self._owner._data_info(self._name).get("help", "")

    def isSet(self):
        return bool(self._owner._data_info(self._name).get("set", False))

    def toList(self):
        v = self.value
        return v.tolist() if isinstance(v, np.ndarray) else v

    def __len__(self):
        return len(self.value)

    def __getitem__(self, i):
        return self.value[i]

    def __iter__(self):
        return iter(self.value)

    def __float__(self):
        return float(self.value)

    def __str__(self):
        return str(self.value)

    def __repr__(self):
        return "Data(%s.%s = %r)" % (self._owner.getPathName(), self._name, self.value)


class _PyDataStore:
    __slots__ = ("value", "help", "type", "set", "group", "version")

    def __init__(self, value, help, type, is_set, group):
        self.version = 0  # counts the writes (data engines' change tracking)
        self.value = value
        self.help = help
        self.type = type
        self.set = is_set
        self.group = group


def _as_data_value(v):
    if isinstance(v, (list, tuple)) and v and isinstance(v[0], (list, tuple, np.ndarray)):
        return np.asarray(v, dtype=float)
    return v


class _Base:
    """What nodes, components and Python components share."""

    _ref = None  # the settee._settee.Ref (None: a Python component not in a scene yet)

    # -- data added from Python (addData) --
    def addData(self, name, value=None, default=None, help="", group="", type=None):
        if not name or name in self._pydata:
            raise Error("addData: '%s' is empty or exists already" % name)
        is_set = value is not None
        self._pydata[name] = _PyDataStore(_as_data_value(value if is_set else default), help,
                                          type or "", is_set, group)
        return Data(self, name)

    def getData(self, name):
        if name in self._pydata or self._has_field(name):
            return Data(self, name)
        return None

    findData = getData

    def getDataFields(self):
        return list(self._pydata) + self._field_names()

    def _has_field(self, name):
        return False

    def _field_names(self):
        return []

    def _data_info(self, name):
        d = self._pydata.get(name)
        if d is not None:
            return {"type": d.type, "help": d.help, "set": d.set}
        return self._field_info(name)

    def _field_info(self, name):
        raise AttributeError(name)

    @property
    def linkpath(self):
        return LinkPath(self.getLinkPath(), self)

    def _get_data(self, name):
        _refresh(self, name)
        d = self._pydata.get(name)
        if d is not None:
            return d.value
        return self._get_field(name)

    def _set_data(self, name, v):
        d = self._pydata.get(name)
        if d is not None:
            d.value = _as_data_value(v.value if isinstance(v, Data) else v)
            d.set = True
            d.version += 1
            return
        self._set_field(name, v)

    def _view_data(self, name, writeable):
        _refresh(self, name)
        d = self._pydata.get(name)
        if d is not None:
            if writeable:
                d.version += 1
            if not isinstance(d.value, np.ndarray):
                d.value = np.asarray(d.value, dtype=float)
            if writeable:
                return d.value
            v = d.value.view()
            v.flags.writeable = False
            return v
        return self._view_field(name, writeable)

    def _touch_data(self, name):
        d = self._pydata.get(name)
        if d is None:
            self._touch_field(name)
        else:
            d.version += 1

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        pd = self.__dict__.get("_pydata")
        if pd is not None and name in pd:
            return Data(self, name)
        r = self._lookup(name)
        if r is not None:
            return r
        raise AttributeError("%s has no child, object or data named '%s'"
                             % (self._describe(), name))

    def __setattr__(self, name, v):
        if name.startswith("_") or name in type(self).__dict__:
            object.__setattr__(self, name, v)
            return
        pd = self.__dict__.get("_pydata")
        if pd is not None and name in pd:
            self._set_data(name, v)
        elif self._has_field(name):
            self._set_field(name, v)
        else:
            object.__setattr__(self, name, v)

    def _lookup(self, name):
        return None

    def _describe(self):
        return repr(self)


class Node(_Base):
    """A node of the scene graph (SofaPython3's Sofa.Core.Node).

    Node("root") makes a new scene whose root this is."""

    def __init__(self, name="root"):
        sref = _st.new_scene()
        object.__setattr__(self, "_ref", _st.scene_root(sref))
        object.__setattr__(self, "_pydata", {})
        sref.cache[self._ref.address] = self

    # -- identity --
    def getName(self):
        return _st.node_info(self._ref)["name"]

    def getPathName(self):
        return _st.node_info(self._ref)["path"]

    def getLinkPath(self):
        return "@" + self.getPathName()

    def getRoot(self):
        return _wrap(_st.scene_root(self._ref.scene))

    def getParent(self):
        return _wrap(_st.node_parent(self._ref))

    @property
    def parents(self):
        p = self.getParent()
        return [p] if p is not None else []

    def getContext(self):
        return self

    # -- SOFA's BaseContext reads (the node's context data) --
    def getTime(self):
        return self.time.value

    def getDt(self):
        return self.dt.value

    def getGravity(self):
        return self.gravity.value

    def _describe(self):
        return "node %s" % self.getPathName()

    def __repr__(self):
        return "<Sofa.Core.Node %s>" % (self.getPathName() if self._ref.valid else "(gone)")

    def __eq__(self, other):
        return isinstance(other, Node) and other._ref.address == self._ref.address

    def __hash__(self):
        return hash(self._ref.address)

    # `with root.addChild("meca") as meca:` (SofaPython3's nodes are context
    # managers that only give themselves back)
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    # -- the graph --
    @property
    def children(self):
        return _NamedList([_wrap(r) for r in _st.node_children(self._ref)])

    @property
    def objects(self):
        return _NamedList([_wrap(r) for r in _st.node_objects(self._ref)])

    def getChild(self, name):
        for r in _st.node_children(self._ref):
            if _st.node_info(r)["name"] == name:
                return _wrap(r)
        return None

    def getObject(self, name):
        for r in _st.node_objects(self._ref):
            if _st.obj_info(r)["name"] == name:
                return _wrap(r)
        return None

    def getMechanicalState(self):
        for o in self.objects:
            if isinstance(o, Object) and o.getClassName() == "MechanicalObject":
                return o
        return None

    def _check_not_running(self, what):
        if self._ref.scene.initialised:
            raise Error("%s: the scene is initialised; settee compiles its mechanical systems "
                        "at init, so build the graph before Sofa.Simulation.init" % what)

    def addChild(self, child, **kwargs):
        if isinstance(child, Node):
            self._check_not_running("addChild of an existing node")
        if isinstance(child, Node) and child._ref.scene is self._ref.scene:
            # SofaPython3 gives the node a second parent; settee's graph is a
            # tree: the node moves here (see _move_child).
            node = self._move_child(child)
            for k, v in kwargs.items():
                node._set_field(k, v)
            return node
        if isinstance(child, Node) and child.__dict__.get("_st_loaded"):
            return self._graft_loaded(child, kwargs.pop("name", None))
        if isinstance(child, Node):
            # A Node("name") made alone: its own, empty scene becomes this child.
            if _st.node_children(child._ref) or _st.node_objects(child._ref):
                raise Error("addChild: settee moves only empty nodes between scenes; add "
                            "objects after addChild")
            name = kwargs.pop("name", None) or child.__dict__.get("_wanted_name") or "node"
            old = child._ref.scene
            ref = _st.node_add_child(self._ref, name)
            object.__setattr__(child, "_ref", ref)
            self._ref.scene.cache[ref.address] = child
            if old.owned:
                _st.scene_destroy(old)
            node = child
        elif isinstance(child, Node):
            pass
        else:
            node = _wrap(_st.node_add_child(self._ref, str(child)))
        _logs(node)[node._ref.address] = []
        for k, v in kwargs.items():
            node._set_field(k, v)
        return node

    createChild = addChild

    def _graft_loaded(self, loaded, name):
        """addChild(Sofa.Simulation.load("file.scn")): settee cannot copy a
        graph between scenes, so the XML file is read again under a new child,
        element by element, as addChild and addObject (attributes as text);
        the loaded scene is destroyed and its root wrapper becomes the child."""
        import xml.etree.ElementTree as ET
        path = loaded._st_loaded
        if os.path.splitext(path)[1].lower() not in (".scn", ".xml"):
            raise Error("addChild: a scene loaded from %s cannot be added to another scene "
                        "(settee rebuilds only .scn files under a node)" % path)
        try:
            top = ET.parse(path).getroot()
        except (ET.ParseError, OSError) as e:
            raise Error("addChild: %s: %s" % (path, e))
        if top.tag != "Node":
            raise Error("addChild: %s: the root element is <%s>, expected <Node>" % (path, top.tag))

        def fill(node, el):
            for k, v in el.attrib.items():
                if k != "name":
                    node._set_field(k, v)
            for sub in el:
                if not isinstance(sub.tag, str):
                    continue  # comments
                if sub.tag == "Node":
                    fill(node.addChild(sub.attrib.get("name", "node")), sub)
                    continue
                attrs = dict(sub.attrib)
                cls = attrs.pop("type", None) if sub.tag == "Object" else sub.tag
                if not cls:
                    raise Error("addChild: %s: <Object> without type" % path)
                node.addObject(cls, **attrs)

        old = loaded._ref.scene
        child = self.addChild(name or top.attrib.get("name") or loaded.getName())
        fill(child, top)
        if old.owned:
            _st.scene_destroy(old)
        object.__setattr__(loaded, "_ref", child._ref)
        self._ref.scene.cache[child._ref.address] = loaded
        loaded.__dict__.pop("_st_loaded", None)
        return loaded

    def _move_child(self, child):
        """SofaPython3's second parent (node.addChild(existing node)): settee's
        graph is a tree, so the subtree moves under this node, rebuilt from
        what Python set (node and object wrappers stay valid; links naming
        the old path are rewritten). Only nodes built from Python can move."""
        if _st.is_within(self._ref, child._ref):
            raise Error("addChild: %s is %s or one of its children"
                        % (self.getPathName(), child.getPathName()))
        old_parent = child.getParent()
        if old_parent is None:
            raise Error("addChild: the root cannot be added as a child")
        if old_parent == self:
            return child
        sref = self._ref.scene
        old = child.getPathName()
        new = self.getPathName().rstrip("/") + "/" + child.getName()

        def describe(node):
            if node._ref.address not in logs:
                raise Error("addChild: %s has a second parent in SofaPython3; settee's nodes "
                            "have one, and it moves only nodes built from Python (this one "
                            "comes from a scene file)" % node.getPathName())
            objs = []
            for o in node.objects:
                if o._ref.address not in logs:
                    raise Error("addChild: cannot move %s (made by a scene file, not from "
                                "Python)" % o.getPathName())
                cls = o._st_class if isinstance(o, BaseComponent) else o.getClassName()
                objs.append((o, cls, o.getName(), logs[o._ref.address]))
            return (node, node.getName(), logs[node._ref.address], objs,
                    [describe(c) for c in node.children])

        logs = _logs(self)
        tree = describe(child)
        pat = re.compile(r"(^|\s)@" + re.escape(old) + r"(?=[/.\s]|$)")

        def fix(text):
            return pat.sub(lambda m: m.group(1) + "@" + new, text) if "@" in text else text

        moving = [w for w in list(sref.cache.values())
                  if w._ref is not None and w._ref.valid and _st.is_within(w._ref, child._ref)]
        for w in moving:
            if isinstance(w, BaseComponent):
                object.__setattr__(w, "_moving", True)
        try:
            _st.remove(old_parent._ref, child._ref)
        finally:
            for w in moving:
                w.__dict__.pop("_moving", None)
        for w in moving:
            sref.cache.pop(w._ref.address, None)
            logs.pop(w._ref.address, None)
            _st.kill(w._ref)

        def build(parent_ref, desc):
            node, name, nlog, objs, children = desc
            ref = _st.node_add_child(parent_ref, name)
            object.__setattr__(node, "_ref", ref)
            sref.cache[ref.address] = node
            logs[ref.address] = nlog
            for k, t in nlog:
                _st.node_set(ref, k, fix(t))
            for o, cls, oname, olog in objs:
                py = o if isinstance(o, BaseComponent) else None
                oref = (_st.node_add_object(ref, cls, oname, py) if py is not None
                        else _st.node_add_object(ref, cls, oname))
                object.__setattr__(o, "_ref", oref)
                sref.cache[oref.address] = o
                olog[:] = [(k, fix(t)) for k, t in olog]
                logs[oref.address] = olog
                for k, t in olog:
                    _st.field_set(oref, k, t)
            for c in children:
                build(ref, c)

        build(self._ref, tree)
        # Links from elsewhere into the moved subtree.
        for addr, log in logs.items():
            ref = next((w._ref for w in sref.cache.values()
                        if w._ref is not None and w._ref.address == addr), None)
            if ref is None or ref.is_node or _st.is_within(ref, child._ref):
                continue
            for i, (k, t) in enumerate(log):
                t2 = fix(t)
                if t2 != t:
                    log[i] = (k, t2)
                    _st.field_set(ref, k, t2)
        return child

    def addObject(self, type_or_obj, *args, **kwargs):
        if isinstance(type_or_obj, BaseComponent):
            obj = type_or_obj._attach(self)
            self._init_added(obj)
            return obj
        if not isinstance(type_or_obj, str):
            raise TypeError("addObject expects a class name (str) or a Python component, got %r"
                            % (type_or_obj,))
        cls = type_or_obj
        name = kwargs.pop("name", args[0] if args else None)
        sref = self._ref.scene
        if cls == "RequiredPlugin":
            names = kwargs.get("pluginName", name)
            if isinstance(names, str):
                names = names.split()
            for p in names or []:
                _st.load_plugin(str(p), sref)
        ref = _st.node_add_object(self._ref, cls, None if name is None else str(name))
        obj = _wrap(ref)
        log = _logs(obj)[ref.address] = []
        try:
            items = sorted(kwargs.items(), key=lambda kv: kv[0] != "template")
            for k, v in items:
                t = _text(v)
                if isinstance(v, str):
                    t = _sofa_real_text(obj, k, t)
                _st.field_set(ref, k, t)
                log.append((k, t))
        except Exception:
            _st.remove(self._ref, ref)
            raise
        self._init_added(obj)
        return obj

    createObject = addObject

    def _init_added(self, obj):
        """A component added to an initialised scene is initialised at once
        and the mechanical systems compiled again (st_scene_init_added); one
        whose init fails is removed and the error raised."""
        sref = self._ref.scene
        if not sref.initialised:
            return
        try:
            _st.scene_init_added(sref)
        except Exception:
            if obj._ref is not None and obj._ref.valid:
                _st.remove(self._ref, obj._ref)
                _logs(self).pop(obj._ref.address, None)
                if isinstance(obj, BaseComponent):
                    object.__setattr__(obj, "_ref", None)
            raise

    def removeObject(self, obj):
        self._check_not_running("removeObject")
        ref = obj._ref if not isinstance(obj, str) else self.getObject(obj)._ref
        _st.remove(self._ref, ref)
        _logs(self).pop(ref.address, None)

    def removeChild(self, child):
        self._check_not_running("removeChild")
        if isinstance(child, str):
            child = self.getChild(child)
        cache = self._ref.scene.cache
        doomed = [w for w in list(cache.values())
                  if w._ref is not None and w._ref.valid and _st.is_within(w._ref, child._ref)]
        _st.remove(self._ref, child._ref)
        logs = _logs(self)
        for w in doomed:
            logs.pop(w._ref.address, None)
            _st.kill(w._ref)

    def init(self):
        import Sofa.Simulation
        Sofa.Simulation.init(self)

    # -- data: the context (gravity, dt, time, animate, activated, name) --
    _CONTEXT = ("gravity", "dt", "time", "animate", "activated", "name")

    def _has_field(self, name):
        return name in self._CONTEXT

    def _field_names(self):
        return list(self._CONTEXT)

    def _field_info(self, name):
        if name not in self._CONTEXT:
            raise AttributeError(name)
        return {"type": "vec3" if name == "gravity" else "real", "help": "context data",
                "set": True}

    def _get_field(self, name):
        info = _st.node_info(self._ref)
        if name not in info or name == "path":
            raise AttributeError(name)
        v = info[name]
        return np.array(v) if name == "gravity" else v

    def _set_field(self, name, v):
        if name == "name":
            if _text(v) == self.getName():
                return  # SofaPython3 scenes often name the root "root" again
            raise Error("settee cannot rename a node (give the name to addChild)")
        t = _text(v)
        _st.node_set(self._ref, name, t)
        log = _logs(self).get(self._ref.address)
        if log is not None and not self._ref.scene.initialised:
            log.append((name, t))

    def _view_field(self, name, writeable):
        return np.asarray(self._get_field(name))

    def _touch_field(self, name):
        pass

    def _lookup(self, name):
        c = self.getChild(name)
        if c is not None:
            return c
        o = self.getObject(name)
        if o is not None:
            return o
        if name in self._CONTEXT:
            return Data(self, name)
        return None


class _NamedList(list):
    """A list of nodes or objects that also answers by name (node.children["Liver"])."""

    def __getitem__(self, i):
        if isinstance(i, str):
            for x in self:
                if x.getName() == i:
                    return x
            raise KeyError(i)
        return list.__getitem__(self, i)

    def __contains__(self, x):
        if isinstance(x, str):
            return any(y.getName() == x for y in self)
        return list.__contains__(self, x)


class _ComponentMixin:
    """Fields of a C component (kernel data)."""

    def _has_field(self, name):
        return self._ref is not None and name in _st.obj_fields(self._ref)

    def _field_names(self):
        return _st.obj_fields(self._ref) if self._ref is not None else []

    def _field_info(self, name):
        return _st.field_info(self._ref, name)

    def _get_field(self, name):
        return _st.field_get(self._ref, name)

    def _set_field(self, name, v):
        if isinstance(v, Data) and not isinstance(v.getOwner(), Node):
            v = v.value if self._ref.scene.initialised else v.getLinkPath()
        if (not isinstance(v, str) and self._ref.scene.initialised
                and _st.field_write(self._ref, name, v)):
            return
        t = _text(v)
        _st.field_set(self._ref, name, t)
        log = _logs(self).get(self._ref.address)
        if log is not None and not self._ref.scene.initialised:
            log.append((name, t))

    def _view_field(self, name, writeable):
        return _st.field_view(self._ref, name, writeable)

    def _touch_field(self, name):
        _st.field_touch(self._ref, name)

    def getName(self):
        return _st.obj_info(self._ref)["name"]

    def getPathName(self):
        return _st.obj_info(self._ref)["path"]

    def getLinkPath(self):
        return "@" + self.getPathName()

    def getTemplateName(self):
        return _st.obj_info(self._ref)["template"]

    def getContext(self):
        return _wrap(_st.obj_node(self._ref))

    def reinit(self):
        _st.obj_reinit(self._ref)


class _SpringMethods:
    """SofaPython3's SofaDeformable methods of a SpringForceField: the
    springs as LinearSpring values, changed through the `spring` field and
    the component's reinit (the springs are read again)."""

    _SPRING_CLASSES = ("SpringForceField", "StiffSpringForceField", "ParallelSpringForceField")

    def _springs_owner(self, what):
        if self.getClassName() not in self._SPRING_CLASSES:
            raise AttributeError("%s has no %s (a SpringForceField method)"
                                 % (self._describe(), what))

    def getSprings(self):
        self._springs_owner("getSprings")
        from Sofa.SofaDeformable import LinearSpring
        get = self._get_field
        i1, i2 = get("springsIndices1"), get("springsIndices2")
        ks, kd, l0 = get("stiffness"), get("damping"), get("lengths")
        eo, en = get("elongationOnly"), get("enabled")
        return [LinearSpring(i1[k], i2[k], ks[k], kd[k], l0[k], bool(eo[k]), bool(en[k]))
                for k in range(len(i1))]

    def _set_springs(self, springs):
        rows = " ".join("%d %d %.17g %.17g %.17g" % (s.index1, s.index2, s.springStiffness,
                                                      s.dampingFactor, s.restLength)
                        for s in springs)
        self._set_field("spring", rows)
        if self._ref.scene.initialised:
            self.reinit()

    def removeSpring(self, index):
        springs = self.getSprings()
        if not 0 <= int(index) < len(springs):
            raise IndexError("%s: no spring %d (it has %d)" % (self._describe(), int(index),
                                                            len(springs)))
        del springs[int(index)]
        self._set_springs(springs)

    def removeSprings(self, indices):
        drop = {int(i) for i in indices}
        self._set_springs([s for k, s in enumerate(self.getSprings()) if k not in drop])

    def addSpring(self, *args):
        from Sofa.SofaDeformable import LinearSpring
        sp = args[0] if len(args) == 1 else LinearSpring(*args)
        self._set_springs(self.getSprings() + [sp])

    def addSprings(self, springs):
        self._set_springs(self.getSprings() + list(springs))

    def clear(self, reserve=0):
        self._springs_owner("clear")
        self._set_springs([])


class Object(_SpringMethods, _ComponentMixin, _Base):
    """A component implemented in C (SofaPython3's Sofa.Core.Object)."""

    def __init__(self, *a, **k):
        raise TypeError("components are made with node.addObject('ClassName', ...)")

    def getClassName(self):
        return _st.obj_info(self._ref)["class"]

    def getCategory(self):
        return _st.obj_info(self._ref)["category"]

    def assembleKMatrix(self):
        """A force field's stiffness K = df/dx alone, in its state's scalar DOFs
        (SofaPython3's ForceField.assembleKMatrix), as a scipy.sparse.csr_matrix."""
        return _component_matrix(self, "K")

    def assembleMMatrix(self):
        """A mass's matrix M alone, in its state's scalar DOFs (SofaPython3's
        Mass.assembleMMatrix), as a scipy.sparse.csr_matrix."""
        return _component_matrix(self, "M")

    # SofaPython3's SofaConstraintSolver: the last constraint problem of a
    # Lagrangian constraint solver, as numpy copies.
    def W(self):
        """The compliance matrix in constraint space of the last step, (n, n)."""
        self._role("constraint_solver", "W")
        return _st.constraint_problem(self._ref)[0]

    def dfree(self):
        """The constraint violations after the free motion of the last step."""
        self._role("constraint_solver", "dfree")
        return _st.constraint_problem(self._ref)[1]

    def lambda_force(self):
        """The constraint multipliers (forces) the last step found."""
        self._role("constraint_solver", "lambda_force")
        return _st.constraint_problem(self._ref)[2]

    # SofaPython3's SofaLinearSystem and SofaLinearSolver: the last linear
    # system the ODE solver handed to its linear solver.
    def A(self):
        """The matrix of the last linear system (scipy.sparse.csr_matrix; a
        dense numpy array for the FullMatrix templates)."""
        n, indptr, indices, data, _b, _x, f = self._linear("A")
        import scipy.sparse
        if self._partial_system():
            m = self._partial_matrix(n, f)
        else:
            m = scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, n))
        if "FullMatrix" in self._template_text():
            return m.toarray()
        return m

    get_system_matrix = A

    def b(self):
        """The right-hand side of the last linear solve (numpy, a copy)."""
        return self._linear("b")[4]

    get_rhs_vector = b

    def x(self):
        """The solution of the last linear solve (numpy, a copy)."""
        return self._linear("x")[5]

    get_solution_vector = x

    _SWITCHES = ("assembleMass", "assembleStiffness", "assembleDamping",
                 "assembleGeometricStiffness", "applyProjectiveConstraints")

    def _partial_system(self):
        """A MatrixLinearSystem with a switch off: a system that observes the
        step (SOFA's secondary systems of a CompositeLinearSystem)."""
        return (self.getClassName() == "MatrixLinearSystem" and
                not all(self._get_field(k) for k in self._SWITCHES))

    def _partial_matrix(self, n, factors):
        """mf M (assembleMass) + kf K (assembleStiffness) of the components
        of the system, each its own contribution without projective
        constraints (the kernel checked the switches at init)."""
        import scipy.sparse
        mf, _bf, kf = factors
        if self._get_field("assembleGeometricStiffness"):
            raise Error("%s: assembleGeometricStiffness: the geometric stiffness of mappings "
                        "is not available in settee's observer systems (set it false; the "
                        "solver's own system includes it)" % self._describe())
        m = scipy.sparse.csr_matrix((n, n))
        parts = [("M", mf)] if self._get_field("assembleMass") else []
        if self._get_field("assembleStiffness"):
            parts.append(("K", kf))
        todo = [self.getContext().getRoot()]
        while todo:
            node = todo.pop(0)
            for o in node.objects:
                if not isinstance(o, Object):
                    continue
                for which, factor in parts:
                    try:
                        k, ip, ix, dv = _st.component_matrix(o._ref, which, True)
                    except Error:
                        continue        # not a mass or force field of this system
                    if k == n and factor != 0.0:
                        m = m + factor * scipy.sparse.csr_matrix((dv, ix, ip), shape=(n, n))
            todo.extend(node.children)
        return m.tocsr()

    def _linear(self, what):
        r = _st.obj_roles(self._ref)
        if not (r["linear_system"] or r["linear_solver"]):
            raise Error("%s: %s() is for linear systems and linear solvers"
                        % (self._describe(), what))
        out = _st.linear_system(self._ref)
        if what in ("b", "x") and out[4] is None:
            raise Error("%s: no linear solve yet (run a step first)" % self._describe())
        return out

    def _template_text(self):
        if self._has_field("template"):
            v = self._get_field("template")
            return v if isinstance(v, str) else ""
        return ""

    # SofaPython3's ContactListener: the previous collision's contacts of
    # the listener's first detection-output vector (SOFA's buffer).
    def _listener(self, what):
        if self.getClassName() != "ContactListener":
            raise Error("%s: %s() is for ContactListeners" % (self._describe(), what))
        return _st.field_get(self._ref, "listenerNumberOfContacts")

    def getNumberOfContacts(self):
        """The number of contacts SOFA's getter gives (the previous collision's)."""
        return int(self._listener("getNumberOfContacts"))

    def getDistances(self):
        """Each contact's distance minus the contact distance (a list)."""
        n = self._listener("getDistances")
        return [float(v) for v in _st.field_get(self._ref, "listenerDistances")[:n]]

    def getContactPoints(self):
        """A list of (model, point, model, point) tuples: model 0 is
        collisionModel1, points as numpy arrays of 3."""
        n = self._listener("getContactPoints")
        v = np.asarray(_st.field_get(self._ref, "listenerPoints"), dtype=float)
        return [(int(v[8 * i]), v[8 * i + 1:8 * i + 4].copy(), int(v[8 * i + 4]),
                 v[8 * i + 5:8 * i + 8].copy()) for i in range(n)]

    def getContactElements(self):
        """A list of (model, element, model, element) tuples."""
        n = self._listener("getContactElements")
        v = np.asarray(_st.field_get(self._ref, "listenerElements"))
        return [tuple(int(x) for x in v[4 * i:4 * i + 4]) for i in range(n)]

    def getContactData(self):
        """SofaPython3's dict: numberOfContacts, collisionPointsModel1/2 and
        collisionElementsModel1/2 (each contact's side on collisionModel1,
        then the other side)."""
        n = self.getNumberOfContacts()
        pts, els = self.getContactPoints(), self.getContactElements()
        d = {"numberOfContacts": n, "collisionPointsModel1": [],
             "collisionPointsModel2": [], "collisionElementsModel1": [],
             "collisionElementsModel2": []}
        for i in range(n):
            a, b = (1, 3) if els[i][0] == 0 else (3, 1)
            d["collisionElementsModel1"].append(els[i][a])
            d["collisionElementsModel2"].append(els[i][b])
            a, b = (1, 3) if pts[i][0] == 0 else (3, 1)
            d["collisionPointsModel1"].append(pts[i][a])
            d["collisionPointsModel2"].append(pts[i][b])
        return d

    def _role(self, role, what):
        if not _st.obj_roles(self._ref)[role]:
            raise Error("%s: %s() is for %ss" % (self._describe(), what, role.replace("_", " ")))

    def init(self):
        pass

    def _lookup(self, name):
        if name == "constraint" and _st.obj_roles(self._ref)["state"]:
            return _ConstraintData(self, name)
        if self._has_field(name):
            return Data(self, name)
        return None

    def _describe(self):
        return "%s (%s)" % (self.getPathName(), self.getClassName())

    def __repr__(self):
        if not self._ref.valid:
            return "<Sofa.Core.Object (gone)>"
        return "<Sofa.Core.Object %s %s>" % (self.getClassName(), self.getPathName())

    def __eq__(self, other):
        return isinstance(other, Object) and other._ref.address == self._ref.address

    def __hash__(self):
        return hash(self._ref.address)


# ---- Python components ----

class _ConstraintData(Data):
    """A state's constraint matrix (SofaPython3's MechanicalObject.constraint):
    value is a scipy.sparse.csr_matrix, one row per constraint row of the last
    step's problem, one column per scalar DOF of the state; read-only."""

    __slots__ = ()

    @property
    def value(self):
        rows, cols, r, c, v = _st.constraint_matrix(self._owner._ref)
        import scipy.sparse
        return scipy.sparse.coo_matrix((v, (r, c)), shape=(rows, cols)).tocsr()

    @value.setter
    def value(self, v):
        raise Error("%s: the constraint matrix is written by the constraint models, not "
                    "from Python" % self.getLinkPath())

    def getValueString(self):
        return str(self.value)


class _VecData:
    """A state vector handed to a force field callback (SofaPython3 passes Data):
    .value (a numpy view, writeable for the force vectors), indexing, and the
    writeable()/writeableArray() context manager."""

    __slots__ = ("_a",)

    def __init__(self, a):
        self._a = a

    @property
    def value(self):
        return self._a

    def array(self):
        return self._a

    @contextlib.contextmanager
    def writeableArray(self):
        if not self._a.flags.writeable:
            raise Error("this vector is read-only in this callback")
        yield self._a

    writeable = writeableArray

    def __getitem__(self, i):
        return self._a[i]

    def __len__(self):
        return len(self._a)

    def __repr__(self):
        return repr(self._a)


class BaseComponent(_ComponentMixin, _Base):
    """A component written in Python: its C twin (a PythonController or
    PythonForceField of the SofaPython3 plugin) calls back its methods."""

    _st_class = None

    def __init__(self, *args, **kwargs):
        if "_ref" not in self.__dict__:
            object.__setattr__(self, "_ref", None)
            object.__setattr__(self, "_pydata", {})
        name = kwargs.get("name", args[0] if args and isinstance(args[0], str) else None)
        object.__setattr__(self, "_wanted_name", name)
        object.__setattr__(self, "_kwargs", dict(kwargs))

    def _attach(self, node):
        if self.__dict__.get("_ref") is not None:
            raise Error("%s is already in a scene" % self.getPathName())
        if "_pydata" not in self.__dict__:
            raise Error("%s.__init__ must call the base class __init__ "
                        "(Sofa.Core.Controller.__init__(self, *args, **kwargs))"
                        % type(self).__name__)
        sref = node._ref.scene
        _st.load_plugin("SofaPython3", sref)
        name = self._wanted_name
        if not name:
            taken = {o.getName() for o in node.objects}
            base = type(self).__name__
            name, i = base, 1
            while name in taken:
                name, i = "%s%d" % (base, i), i + 1
        ref = _st.node_add_object(node._ref, self._st_class, str(name), self)
        object.__setattr__(self, "_ref", ref)
        sref.cache[ref.address] = self
        fields = set(_st.obj_fields(ref))
        log = _logs(self)[ref.address] = []
        for k, v in self._kwargs.items():
            if k in ("name",) or k in self._pydata:
                continue
            if k in fields or k == "template":
                t = _text(v)
                _st.field_set(ref, k, t)
                log.append((k, t))
        return self

    def getName(self):
        if self._ref is None:
            return self._wanted_name or type(self).__name__
        return _ComponentMixin.getName(self)

    def getClassName(self):
        return type(self).__name__

    def getPathName(self):
        if self._ref is None:
            return self.getName()
        return _ComponentMixin.getPathName(self)

    def _lookup(self, name):
        if name == "name":
            return Data(self, "name") if self._ref is not None else self.getName()
        if self._ref is not None and self._has_field(name):
            return Data(self, name)
        return None

    def _describe(self):
        return "%s (Python %s)" % (self.getPathName(), type(self).__name__)

    def __repr__(self):
        return "<%s %s>" % (type(self).__name__, self.getPathName())

    # -- SOFA's lifecycle, overridable --
    def init(self):
        pass

    def reinit(self):
        pass

    def reset(self):
        pass

    def cleanup(self):
        pass

    # -- called by the C side --
    def _st_init(self):
        if "_sp2" in self.__dict__ and hasattr(self, "initGraph"):
            self.initGraph(self.getContext())
        self.init()

    def _st_reinit(self):
        self.reinit()

    def _st_reset(self):
        self.reset()

    def _st_cleanup(self):
        if self.__dict__.get("_moving"):
            return  # its node moves (Node._move_child): the same object comes back
        try:
            self.cleanup()
        finally:
            object.__setattr__(self, "_ref", None)

    _SP2 = {"AnimateBeginEvent": "onBeginAnimationStep",
            "AnimateEndEvent": "onEndAnimationStep"}

    def _st_event(self, name, dt, time=None):
        if time is None:
            time = self.getContext().time.value
        event = {"type": name, "dt": dt, "time": time}
        handler = getattr(self, "on" + name, None)
        if handler is not None:
            handler(event)
        elif "_sp2" in self.__dict__:
            if name == "SimulationInitDoneEvent":
                if hasattr(self, "bwdInitGraph"):
                    self.bwdInitGraph(self.getContext())
            elif name in self._SP2 and hasattr(self, self._SP2[name]):
                getattr(self, self._SP2[name])(dt)
        elif hasattr(self, "onEvent"):
            self.onEvent(event)


class Controller(BaseComponent):
    """Sofa.Core.Controller: subclass it and define onAnimateBeginEvent(event),
    onAnimateEndEvent(event) (event: a dict with type, dt, time). Keyboard and
    mouse handlers are accepted and never called (settee runs headless)."""

    _st_class = "PythonController"


class ForceField(BaseComponent):
    """Sofa.Core.ForceField (ForceFieldVec3d ...): define addForce(mparams, f, x, v),
    addDForce(mparams, df, dx) (implicit solvers, matrix-free or not) and
    addKToMatrix(mparams, nNodes, nDofs) (assembled solvers), as SofaPython3."""

    _st_class = "PythonForceField"
    _template = None

    def __init__(self, *args, **kwargs):
        if self._template and "template" not in kwargs:
            kwargs["template"] = self._template
        BaseComponent.__init__(self, *args, **kwargs)

    def _st_addForce(self, mp, f, x, v):
        self.addForce(mp, _VecData(f), _VecData(x), _VecData(v))

    def _st_addDForce(self, mp, df, dx):
        fn = getattr(self, "addDForce", None)
        if fn is None:
            raise NotImplementedError("an implicit solver needs addDForce(mparams, df, dx)")
        fn(mp, _VecData(df), _VecData(dx))

    def _st_addKToMatrix(self, mp, n, d):
        fn = getattr(self, "addKToMatrix", None)
        if fn is None:
            raise NotImplementedError("an assembled solver needs addKToMatrix(mparams, "
                                      "nNodes, nDofs)")
        return fn(mp, n, d)

    def _st_getPotentialEnergy(self, mp, x):
        fn = getattr(self, "getPotentialEnergy", None)
        return float(fn(mp, _VecData(x))) if fn is not None else 0.0

    def addForce(self, mparams, f, x, v):
        raise NotImplementedError("a force field defines addForce(mparams, f, x, v)")

    def assembleKMatrix(self):
        """This force field's K (from its addKToMatrix), as SofaPython3's."""
        return _component_matrix(self, "K")


class ForceFieldVec3d(ForceField):
    _template = "Vec3d"


class ForceFieldVec1d(ForceField):
    _template = "Vec1d"


class ForceFieldVec2d(ForceField):
    _template = "Vec2d"


class ForceFieldRigid3d(ForceField):
    _template = "Rigid3d"


class DataEngine(BaseComponent):
    """Sofa.Core.DataEngine: declare data (addData), then addInput(data) and
    addOutput(data), and define update(). As SOFA's DDGNode, update() runs when
    an output is read (from Python) while the engine is dirty: an input
    changed since the last update (a Python data written, a component's field
    holding another value), or an input or output was added since."""

    _st_class = "PythonDataEngine"

    def __init__(self, *args, **kwargs):
        BaseComponent.__init__(self, *args, **kwargs)
        object.__setattr__(self, "_inputs", [])
        object.__setattr__(self, "_outputs", [])
        object.__setattr__(self, "_stamps", None)
        object.__setattr__(self, "_updating", False)

    @staticmethod
    def _as_data(d, what):
        if not isinstance(d, Data):
            raise TypeError("%s expects a Data (obj.name or obj.getData(name)), got %r"
                            % (what, d))
        return d

    def addInput(self, data):
        self._inputs.append(self._as_data(data, "addInput"))
        object.__setattr__(self, "_stamps", None)

    def addOutput(self, data):
        d = self._as_data(data, "addOutput")
        self._outputs.append(d)
        outs = d._owner.__dict__.get("_st_outputs")
        if outs is None:
            outs = {}
            object.__setattr__(d._owner, "_st_outputs", outs)
        outs[d._name] = self
        object.__setattr__(self, "_stamps", None)

    def getInputs(self):
        return list(self._inputs)

    def getOutputs(self):
        return list(self._outputs)

    @staticmethod
    def _stamp(d):
        store = d._owner.__dict__.get("_pydata", {}).get(d._name)
        if store is not None:
            _refresh(d._owner, d._name)   # an upstream engine's output: update it first
            return (id(store), store.version)
        v = d._owner._get_data(d._name)   # updates an upstream engine first
        return np.array(v, copy=True) if isinstance(v, np.ndarray) else v

    def _dirty(self):
        if self._stamps is None or len(self._stamps) != len(self._inputs):
            return True
        for d, old in zip(self._inputs, self._stamps):
            new = self._stamp(d)
            if isinstance(old, np.ndarray) or isinstance(new, np.ndarray):
                if not (isinstance(old, np.ndarray) and isinstance(new, np.ndarray)
                        and old.shape == new.shape and np.array_equal(old, new)):
                    return True
            elif old != new:
                return True
        return False

    def _update_if_dirty(self):
        if self._updating or not self._dirty():
            return
        fn = getattr(self, "update", None)
        if fn is None:
            raise Error("%s has no update() method" % self.getName())
        object.__setattr__(self, "_updating", True)
        try:
            fn()
        finally:
            object.__setattr__(self, "_updating", False)
        object.__setattr__(self, "_stamps", [self._stamp(d) for d in self._inputs])


def _object_at(node, path):
    """The component at an absolute path ("/Beam/dofs") of node's scene."""
    node = node.getRoot()
    parts = [p for p in path.split("/") if p]
    for p in parts[:-1]:
        node = node.getChild(p)
        if node is None:
            return None
    return node.getObject(parts[-1]) if parts else None


class Mapping(BaseComponent):
    """Sofa.Core.Mapping_In_Out (Mapping_Vec3d_Vec3d ...): input and output
    (links to the two MechanicalObjects, or the objects' linkpath), and
    apply(mparams, out, in) (x_out from x_in), applyJ(mparams, out, in)
    (v_out = J v_in) and applyJT(mparams, out, in) (f_in += J^T f_out: out is
    the input's force), as SofaPython3. Matrix-free: solvers that assemble the
    system (direct linear solvers) need a Jacobian settee cannot ask Python for."""

    _st_class = "PythonMapping"
    _in = _out = None

    def __init__(self, *args, **kwargs):
        for k in ("input", "output"):
            v = kwargs.get(k)
            if isinstance(v, (Object, BaseComponent)):
                kwargs[k] = v.linkpath
        BaseComponent.__init__(self, *args, **kwargs)

    def _st_init(self):
        for field, want in (("input", self._in), ("output", self._out)):
            path = _st.field_get(self._ref, field)
            obj = _object_at(self.getContext(), path) if path else None
            have = obj.getTemplateName() if obj is not None else ""
            if want and have and have != want:
                raise Error("%s is a Mapping_%s_%s: its %s must be a %s state, %s is %s"
                            % (self.getName(), self._in, self._out, field, want, path, have))
        BaseComponent._st_init(self)

    def _st_map(self, op, mp, out, inp):
        fn = getattr(self, op, None)
        if fn is None:
            raise NotImplementedError("a mapping defines %s(mparams, out, in)" % op)
        fn(mp, _VecData(out), _VecData(inp))


# SofaPython3's pairs (Binding_Mapping): In -> Out.
_MAPPING_PAIRS = (("Vec1d", "Vec1d"), ("Vec1d", "Vec2d"), ("Vec1d", "Vec3d"), ("Vec2d", "Vec2d"),
                  ("Vec2d", "Vec1d"), ("Vec3d", "Vec3d"), ("Vec3d", "Vec2d"), ("Vec3d", "Vec1d"),
                  ("Vec6d", "Vec6d"), ("Vec6d", "Vec3d"), ("Vec6d", "Vec1d"),
                  ("Rigid2d", "Vec2d"), ("Rigid2d", "Rigid2d"), ("Rigid3d", "Vec6d"),
                  ("Rigid3d", "Vec3d"), ("Rigid3d", "Vec1d"), ("Rigid3d", "Rigid3d"),
                  ("Vec3d", "Rigid3d"))
MAPPINGS = {}
for _i, _o in _MAPPING_PAIRS:
    _name = "Mapping_%s_%s" % (_i, _o)
    MAPPINGS[_name] = type(_name, (Mapping,), {"_in": _i, "_out": _o, "__module__": __name__})
del _i, _o, _name


def _component_matrix(obj, which):
    if obj._ref is None:
        raise Error("%s is not in a scene" % obj.getName())
    n, indptr, indices, data = _st.component_matrix(obj._ref, which)
    import scipy.sparse
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, n))


class PythonScriptController(Controller):
    """SofaPython's script controller base (Sofa.PythonScriptController): the
    classname of a PythonScriptController component in a .scn or YAML scene.
    Hooks: onLoaded(node), createGraph(node), initGraph(node), bwdInitGraph(node),
    onBeginAnimationStep(dt), onEndAnimationStep(dt), reset(), cleanup()."""


# ---- the SofaPython3 plugin's entry points ----

def _run_file(path, modname):
    d = os.path.dirname(os.path.abspath(path))
    if d not in sys.path:
        sys.path.insert(0, d)
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _read_scene(sref, path):
    """The ".py" reader: runs the file and calls its createScene(root), as runSofa."""
    global _current_scene
    prev, _current_scene = _current_scene, sref
    try:
        name = os.path.splitext(os.path.basename(path))[0]
        mod = _run_file(path, name)
        fn = getattr(mod, "createScene", None)
        if fn is None:
            raise Error("%s defines no createScene(rootNode) function" % path)
        fn(_wrap(_st.scene_root(sref)))
    finally:
        _current_scene = prev


def _script_load(ref, path, classname, variables):
    """PythonScriptController: loads path, instantiates classname."""
    saved = sys.argv
    sys.argv = [path] + list(variables)
    try:
        mod = _run_file(path, os.path.splitext(os.path.basename(path))[0])
    finally:
        sys.argv = saved
    cls = getattr(mod, classname, None)
    if cls is None or not isinstance(cls, type):
        raise Error("%s defines no class '%s'" % (path, classname))
    if not issubclass(cls, BaseComponent):
        raise Error("class %s of %s must derive from Sofa.PythonScriptController or "
                    "Sofa.Core.Controller" % (classname, path))
    name = _st.obj_info(ref)["name"]
    try:
        obj = cls(name=name)
    except TypeError:
        obj = cls()
    if "_pydata" not in obj.__dict__:
        BaseComponent.__init__(obj, name=name)
    object.__setattr__(obj, "_ref", ref)
    object.__setattr__(obj, "_sp2", True)
    object.__setattr__(obj, "variables", list(variables))
    ref.scene.cache[ref.address] = obj
    return obj


def _script_loaded(obj):
    node = obj.getContext()
    for hook in ("onLoaded", "createGraph"):
        fn = getattr(obj, hook, None)
        if fn is not None:
            fn(node)


# ---- Sofa.Simulation ----

def _scene_of(node):
    if not isinstance(node, (Node, Object, BaseComponent)) or node._ref is None:
        raise TypeError("expected a node of a scene, got %r" % (node,))
    return node._ref.scene


def sim_init(node):
    sref = _scene_of(node)
    if sref.in_reader or sref.initialised:
        return  # runSofa (the settee program) initialises after createScene
    _st.scene_init(sref)


def sim_animate(node, dt=0.0):
    _st.scene_step(_scene_of(node), float(dt or 0.0), 1)


def sim_reset(node):
    _st.scene_reset(_scene_of(node))


def sim_load(path):
    """Sofa.Simulation.load: reads a scene file (.scn, .yaml, .py) into a new
    scene, not initialised, and returns its root."""
    sref = _st.load_scene(str(path), [])
    root = _wrap(_st.scene_root(sref))
    object.__setattr__(root, "_st_loaded", os.path.abspath(str(path)))
    return root


def import_sofa_python_scene(path):
    """Sofa.import_sofa_python_scene: imports a .py scene file as a module
    (found next to the running scene, or as given), without running
    createScene."""
    p = str(path)
    if not os.path.isabs(p) and not os.path.exists(p) and _current_scene is not None:
        f = _st.scene_file(_current_scene)
        if f:
            cand = os.path.join(os.path.dirname(os.path.abspath(f)), p)
            if os.path.exists(cand):
                p = cand
    if not os.path.exists(p):
        raise FileNotFoundError("import_sofa_python_scene: no file %s" % path)
    return _run_file(p, os.path.splitext(os.path.basename(p))[0])


def sim_unload(node):
    sref = _scene_of(node)
    if sref.owned:
        _st.scene_destroy(sref)


# ---- Sofa.Helper ----

def _msg(level, args):
    if len(args) >= 2:
        emitter, text = args[0], " ".join(str(a) for a in args[1:])
    else:
        emitter, text = None, " ".join(str(a) for a in args)
    path, sref = "", _current_scene
    if isinstance(emitter, (Node, Object, BaseComponent)) and emitter._ref is not None:
        path, sref = emitter.getPathName(), emitter._ref.scene
    elif emitter is not None:
        path = str(emitter)
    _st.log(level, path, text, sref if sref is not None and sref.alive else None)


_handlers = []  # Sofa.Helper.MessageHandler objects entered, in order


def _dispatch_message(level, where, path, text):
    """Called by the native module for each message settee logs while a
    MessageHandler is entered: gives each handler SofaPython3's message dict."""
    if not _handlers:
        return
    kind = {0: "Error", 1: "Warning"}.get(level, "Info")
    msg = {"type": kind, "isEmpty": not text, "sender": path or where or "settee",
           "message": text, "component": None, "where": where, "path": path}
    for h in list(_handlers):
        h.process(dict(msg))


def _enter_handler(h):
    sref = _current_scene
    _st.observe_log(sref if sref is not None and sref.alive else None)
    _handlers.append(h)


def _exit_handler(h):
    if h in _handlers:
        _handlers.remove(h)


# ---- settee's own API ----

def system_matrix(obj, m=0.0, b=0.0, k=1.0):
    """The assembled matrix m M + b B + k K (projective constraints applied) of
    the ODE solver integrating obj's state, as a scipy.sparse.csr_matrix (or,
    without scipy, the tuple (n, indptr, indices, data))."""
    if isinstance(obj, Node):
        obj = obj.getMechanicalState()
    n, indptr, indices, data, _solver = _st.system_matrix(obj._ref, m, b, k)
    try:
        import scipy.sparse
    except ImportError:
        return n, indptr, indices, data
    return scipy.sparse.csr_matrix((data, indices, indptr), shape=(n, n))


class Component:
    """A component seen from settee's API: its fields as attributes, arrays as
    read-only numpy views (zero copy), scalars as Python values."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        object.__setattr__(self, "_obj", obj)

    def __getattr__(self, name):
        o = self._obj
        try:
            return o._view_data(name, False)
        except (TypeError, AttributeError):
            return o._get_data(name)

    def __setattr__(self, name, v):
        self._obj._set_data(name, v)

    def __dir__(self):
        return self._obj.getDataFields()

    def __repr__(self):
        return "<settee.Component %s>" % self._obj.getPathName()


class Scene:
    """A scene loaded by settee.load: step(n), time, s["/Beam/dofs"].position."""

    def __init__(self, sref, path, sets):
        self._sref = sref
        self.path = path
        self.sets = dict(sets)
        self.steps = 0

    @property
    def root(self):
        return _wrap(_st.scene_root(self._sref))

    @property
    def time(self):
        return _st.scene_time(self._sref)

    def init(self):
        _st.scene_init(self._sref)
        return self

    def step(self, n=1, dt=0.0):
        _st.scene_step(self._sref, float(dt), int(n))
        self.steps += int(n)
        return self

    def reset(self):
        _st.scene_reset(self._sref)
        self.steps = 0

    def find(self, path):
        """The node or component at path ("/Beam/dofs", "/Beam")."""
        node = self.root
        parts = [p for p in path.split("/") if p]
        for i, p in enumerate(parts):
            child = node.getChild(p)
            if child is not None:
                node = child
                continue
            obj = node.getObject(p) if i == len(parts) - 1 else None
            if obj is None:
                raise KeyError("%s: no node or object '%s' under %s"
                               % (path, p, node.getPathName()))
            return obj
        return node

    def __getitem__(self, path):
        field = None
        last = path.rsplit("/", 1)[-1]
        if "." in last:
            path, field = path.rsplit(".", 1)
        obj = self.find(path)
        c = Component(obj)
        return getattr(c, field) if field else c

    def _tag(self):
        return json.dumps(sorted(self.sets.items()))

    def checkpoint(self, path):
        """Writes a checkpoint (docs/results.md) and, next to it (path + ".scene.json"),
        the scene file and the set= values that settee.resume needs."""
        _st.scene_checkpoint(self._sref, path, self._tag())
        with open(path + ".scene.json", "w") as f:
            json.dump({"scene": os.path.abspath(self.path), "set": self.sets,
                       "steps": self.steps}, f)

    def matrix(self, path, m=0.0, b=0.0, k=1.0):
        return system_matrix(self.find(path), m, b, k)

    def close(self):
        if self._sref.owned:
            _st.scene_destroy(self._sref)


def load(path, set=None, init=True):
    """Loads a scene (YAML, .scn, or .py through the SofaPython3 plugin); set:
    {"/Beam/springs.stiffness": 300, "dt": 0.001} applied before init."""
    sets = {k: _text(v) for k, v in (set or {}).items()}
    sref = _st.load_scene(str(path), list(sets.items()))
    s = Scene(sref, str(path), sets)
    if init:
        s.init()
    return s


def resume(checkpoint):
    """A scene continued from checkpoint (written by Scene.checkpoint): bit-identical
    to the run that wrote it."""
    with open(checkpoint + ".scene.json") as f:
        meta = json.load(f)
    s = load(meta["scene"], set=meta["set"])
    s.steps = _st.scene_restore(s._sref, checkpoint, s._tag())
    return s


def set_log(fn=None, verbose=False):
    """Routes settee's messages to fn(level, where, path, message) (None: stderr);
    verbose also shows information messages."""
    _st.set_log(fn, verbose)
