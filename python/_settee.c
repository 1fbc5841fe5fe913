/* _settee.c - settee._settee, the one native module of settee's Python
 * support (docs/python.md). It serves both ways in:
 *   extending  `import settee` / `import Sofa` from python3: the module owns
 *              a runtime and the scenes it loads or builds;
 *   embedding  the SofaPython3 plugin starts (or finds) the interpreter and
 *              takes the table of stpy_api from this module's capsule: the
 *              host (the settee program) owns the scene.
 * The low-level objects live here: SceneRef (a scene), Ref (a node or a
 * component), numpy views of field memory, and the callbacks of Python
 * components. The API people use (Sofa.Core.Node, Data, Controller ...) is
 * Python, in settee/_core.py, on top of these.
 *
 * Lifetimes. A Ref holds its SceneRef; a scene this module owns is destroyed
 * when its SceneRef goes (its Python components are visible to the garbage
 * collector through it, so cycles through them are collected). A scene the
 * host owns tells the module, through a destroy hook, before it goes: its
 * SceneRef is then dead, every Ref to it raises, and every numpy view of its
 * memory is detached onto a private copy of its last values. Views are also
 * detached at init (states rebind their vectors into the system's). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

#include "stpy_api.h"

/* ---- module state ---- */

static st_runtime *g_rt;          /* the runtime of scenes made here (extending) */
static PyObject *g_error;         /* settee.Error */
static PyObject *g_core;          /* settee._core, for the callbacks */
static PyObject *g_log_fn;        /* Python log sink, or NULL: stderr */
static int g_verbose;             /* print information messages too */
static PyObject *g_last_cb_exc;   /* the exception of the last failed callback */

typedef struct viewbase viewbase;

typedef struct SceneRef {
    PyObject_HEAD
    st_scene *s;
    int owned;            /* destroyed with this object */
    int alive;
    int initialised;
    int in_reader;        /* createScene is running (the host initialises) */
    viewbase *views;      /* live numpy views of this scene's memory */
    PyObject *cache;      /* weak-valued dict for the Python layer */
    struct SceneRef *next; /* list of every SceneRef */
} SceneRef;

static SceneRef *g_scenes;

struct viewbase {
    PyObject_HEAD
    SceneRef *scene;      /* strong */
    PyArrayObject *arr;   /* borrowed: the array whose base this is */
    void *copy;           /* after a detach: the memory the array now reads */
    viewbase *next, *prev;
    int linked;
};

enum { REF_NODE = 1, REF_COMP = 2 };
typedef struct Ref {
    PyObject_HEAD
    SceneRef *scene;      /* strong */
    void *ptr;
    int kind;
    int dead;
} Ref;

static PyTypeObject SceneRef_Type, Ref_Type, ViewBase_Type;

/* ---- errors ---- */

static PyObject *raise_st(const st_error *err)
{
    char buf[ST_ERROR_MSG_MAX + ST_ERROR_WHERE_MAX + ST_ERROR_PATH_MAX + 32];
    st_error_format(err, buf, sizeof buf);
    PyObject *exc = PyObject_CallFunction(g_error, "s", buf);
    if (!exc)
        return NULL;
    PyObject_SetAttrString(exc, "code", PyUnicode_FromString(st_status_name(err->code)));
    PyObject *w = PyUnicode_FromString(err->where), *p = PyUnicode_FromString(err->path),
             *m = PyUnicode_FromString(err->msg);
    if (w && p && m) {
        PyObject_SetAttrString(exc, "where", w);
        PyObject_SetAttrString(exc, "path", p);
        PyObject_SetAttrString(exc, "message", m);
    }
    Py_XDECREF(w);
    Py_XDECREF(p);
    Py_XDECREF(m);
    if (g_last_cb_exc) {
        /* The Python exception that stopped the step is the cause. */
        PyException_SetCause(exc, g_last_cb_exc);
        g_last_cb_exc = NULL;
    }
    PyErr_SetObject(g_error, exc);
    Py_DECREF(exc);
    return NULL;
}

/* The pending Python exception as "Type: message\nTraceback ..." into buf
 * (then cleared, and kept as the cause of the settee error it becomes). */
static void py_exception_text(char *buf, size_t size, int *line, const char *file)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    snprintf(buf, size, "(unknown Python error)");
    if (line)
        *line = 0;
    if (!t) {
        return;
    }
    if (tb && v)
        PyException_SetTraceback(v, tb);
    PyObject *tbmod = PyImport_ImportModule("traceback");
    PyObject *lst = tbmod ? PyObject_CallMethod(tbmod, "format_exception", "OOO", t,
                                                v ? v : Py_None, tb ? tb : Py_None)
                          : NULL;
    PyObject *sep = PyUnicode_FromString("");
    PyObject *txt = lst && sep ? PyUnicode_Join(sep, lst) : NULL;
    const char *u = txt ? PyUnicode_AsUTF8(txt) : NULL;
    if (u)
        snprintf(buf, size, "%s", u);
    /* The last frame in the scene file gives the line. */
    if (line && file && tb) {
        for (PyTracebackObject *f = (PyTracebackObject *)tb; f; f = f->tb_next) {
            PyCodeObject *code = PyFrame_GetCode(f->tb_frame);
            const char *fn = code ? PyUnicode_AsUTF8(code->co_filename) : NULL;
            if (fn && !strcmp(fn, file))
                *line = f->tb_lineno;
            Py_XDECREF(code);
        }
    }
    PyErr_Clear();
    Py_XDECREF(txt);
    Py_XDECREF(sep);
    Py_XDECREF(lst);
    Py_XDECREF(tbmod);
    Py_XDECREF(g_last_cb_exc);
    g_last_cb_exc = v;
    Py_XINCREF(v);
    Py_XDECREF(t);
    Py_XDECREF(v);
    Py_XDECREF(tb);
}

/* ---- logging ---- */

static void log_sink(st_log_level level, const char *where, const char *path, const char *msg,
                     void *ud)
{
    (void)ud;
    if (level == ST_LOG_INFO && !g_verbose && !g_log_fn)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    if (g_log_fn) {
        PyObject *r = PyObject_CallFunction(g_log_fn, "isss", (int)level, where, path, msg);
        if (!r)
            PyErr_Print();
        Py_XDECREF(r);
    } else {
        const char *lv = level == ST_LOG_ERROR ? "error" : level == ST_LOG_WARNING ? "warning"
                                                                                    : "info";
        PySys_FormatStderr("%s%s%s: %s%s%s\n", where[0] ? where : "settee", ": ",
                           lv, path, path[0] ? ": " : "", msg);
    }
    PyGILState_Release(g);
}

static st_runtime *runtime(void)
{
    if (g_rt)
        return g_rt;
    st_error err = {0};
    if (st_runtime_create(&g_rt, &err) != ST_OK) {
        raise_st(&err);
        return NULL;
    }
    st_runtime_set_log(g_rt, log_sink, NULL);
    return g_rt;
}

/* ---- SceneRef ---- */

static void view_detach(viewbase *vb);

static void scene_unlink(SceneRef *sr)
{
    for (SceneRef **p = &g_scenes; *p; p = &(*p)->next)
        if (*p == sr) {
            *p = sr->next;
            break;
        }
    sr->next = NULL;
}

static void scene_gone(st_scene *s, void *ud)
{
    (void)s;
    SceneRef *sr = ud;
    PyGILState_STATE g = PyGILState_Ensure();
    while (sr->views)
        view_detach(sr->views);
    sr->alive = 0;
    sr->s = NULL;
    scene_unlink(sr);
    if (!sr->owned)
        Py_DECREF(sr); /* the reference the hook held */
    PyGILState_Release(g);
}

static SceneRef *scene_wrap(st_scene *s, int owned)
{
    for (SceneRef *sr = g_scenes; sr; sr = sr->next)
        if (sr->s == s) {
            Py_INCREF(sr);
            return sr;
        }
    SceneRef *sr = PyObject_GC_New(SceneRef, &SceneRef_Type);
    if (!sr)
        return NULL;
    sr->s = s;
    sr->owned = owned;
    sr->alive = 1;
    sr->initialised = st_scene_is_initialised(s);
    sr->in_reader = 0;
    sr->views = NULL;
    sr->cache = NULL;
    PyObject *weakref = PyImport_ImportModule("weakref");
    if (weakref) {
        sr->cache = PyObject_CallMethod(weakref, "WeakValueDictionary", NULL);
        Py_DECREF(weakref);
    }
    sr->next = g_scenes;
    g_scenes = sr;
    st_error err = {0};
    if (!sr->cache || st_scene_add_destroy_hook(s, scene_gone, sr, &err) != ST_OK) {
        sr->owned = 0;
        sr->s = NULL;
        sr->alive = 0;
        Py_DECREF(sr);
        return err.code ? (SceneRef *)raise_st(&err) : NULL;
    }
    if (!owned)
        Py_INCREF(sr); /* held by the hook until the host destroys the scene */
    PyObject_GC_Track(sr);
    return sr;
}

static void scene_destroy_owned(SceneRef *sr)
{
    if (sr->owned && sr->s) {
        st_scene *s = sr->s;
        st_scene_destroy(&s); /* the hook marks sr dead */
    }
}

/* The plugin's classes whose instances hold a Python object (script: also
 * PythonScriptController, which makes its own). */
static bool holds_python(const char *cn, bool script)
{
    return !strcmp(cn, STPY_CLASS_CONTROLLER) || !strcmp(cn, STPY_CLASS_FORCEFIELD) ||
           !strcmp(cn, STPY_CLASS_ENGINE) || !strcmp(cn, STPY_CLASS_MAPPING) ||
           (script && !strcmp(cn, STPY_CLASS_SCRIPT));
}

/* Python components of an owned scene hold Python objects: show them to the
 * garbage collector, so that cycles through the scene are collected. */
static int traverse_node(st_node *n, visitproc visit, void *arg)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        const char *cn = c->cls->name;
        if (holds_python(cn, true)) {
            PyObject *o = ((stpy_component *)c)->py;
            Py_VISIT(o);
        }
    }
    for (size_t i = 0; i < st_node_child_count(n); i++) {
        int r = traverse_node(st_node_child(n, i), visit, arg);
        if (r)
            return r;
    }
    return 0;
}

static int SceneRef_traverse(SceneRef *sr, visitproc visit, void *arg)
{
    Py_VISIT(sr->cache);
    if (sr->owned && sr->alive && sr->s)
        return traverse_node(st_scene_root(sr->s), visit, arg);
    return 0;
}

static int SceneRef_clear(SceneRef *sr)
{
    scene_destroy_owned(sr);
    Py_CLEAR(sr->cache);
    return 0;
}

static void SceneRef_dealloc(SceneRef *sr)
{
    PyObject_GC_UnTrack(sr);
    scene_destroy_owned(sr);
    scene_unlink(sr);
    Py_CLEAR(sr->cache);
    PyObject_GC_Del(sr);
}

static PyObject *SceneRef_get_cache(SceneRef *sr, void *c)
{
    (void)c;
    if (!sr->cache)
        Py_RETURN_NONE;
    Py_INCREF(sr->cache);
    return sr->cache;
}

static PyObject *SceneRef_get_alive(SceneRef *sr, void *c)
{
    (void)c;
    return PyBool_FromLong(sr->alive);
}

static PyObject *SceneRef_get_initialised(SceneRef *sr, void *c)
{
    (void)c;
    return PyBool_FromLong(sr->alive && (sr->initialised || st_scene_is_initialised(sr->s)));
}

static PyObject *SceneRef_get_in_reader(SceneRef *sr, void *c)
{
    (void)c;
    return PyBool_FromLong(sr->in_reader);
}

static PyObject *SceneRef_get_owned(SceneRef *sr, void *c)
{
    (void)c;
    return PyBool_FromLong(sr->owned);
}

static PyGetSetDef SceneRef_getset[] = {
    {"cache", (getter)SceneRef_get_cache, NULL, "wrappers by address (weak values)", NULL},
    {"alive", (getter)SceneRef_get_alive, NULL, "the scene still exists", NULL},
    {"initialised", (getter)SceneRef_get_initialised, NULL, "st_scene_init ran", NULL},
    {"in_reader", (getter)SceneRef_get_in_reader, NULL, "createScene is running", NULL},
    {"owned", (getter)SceneRef_get_owned, NULL, "this module owns the scene", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject SceneRef_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "settee._settee.SceneRef",
    .tp_basicsize = sizeof(SceneRef),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_dealloc = (destructor)SceneRef_dealloc,
    .tp_traverse = (traverseproc)SceneRef_traverse,
    .tp_clear = (inquiry)SceneRef_clear,
    .tp_getset = SceneRef_getset,
    .tp_doc = "A settee scene (low level; see settee.Scene and Sofa.Core.Node)",
};

static int scene_check(SceneRef *sr)
{
    if (!sr->alive || !sr->s) {
        PyErr_SetString(g_error, "the scene no longer exists (it was destroyed by its owner)");
        return 0;
    }
    return 1;
}

/* ---- Ref ---- */

static PyObject *ref_new(SceneRef *sr, void *ptr, int kind)
{
    if (!ptr)
        Py_RETURN_NONE;
    Ref *r = PyObject_GC_New(Ref, &Ref_Type);
    if (!r)
        return NULL;
    Py_INCREF(sr);
    r->scene = sr;
    r->ptr = ptr;
    r->kind = kind;
    r->dead = 0;
    PyObject_GC_Track(r);
    return (PyObject *)r;
}

static int Ref_traverse(Ref *r, visitproc visit, void *arg)
{
    Py_VISIT(r->scene);
    return 0;
}

static int Ref_clear(Ref *r)
{
    Py_CLEAR(r->scene);
    return 0;
}

static void Ref_dealloc(Ref *r)
{
    PyObject_GC_UnTrack(r);
    Py_CLEAR(r->scene);
    PyObject_GC_Del(r);
}

static PyObject *Ref_get_address(Ref *r, void *c)
{
    (void)c;
    return PyLong_FromVoidPtr(r->ptr);
}

static PyObject *Ref_get_scene(Ref *r, void *c)
{
    (void)c;
    if (!r->scene)
        Py_RETURN_NONE;
    Py_INCREF(r->scene);
    return (PyObject *)r->scene;
}

static PyObject *Ref_get_valid(Ref *r, void *c)
{
    (void)c;
    return PyBool_FromLong(r->scene && r->scene->alive && !r->dead);
}

static PyObject *Ref_get_is_node(Ref *r, void *c)
{
    (void)c;
    return PyBool_FromLong(r->kind == REF_NODE);
}

static PyGetSetDef Ref_getset[] = {
    {"address", (getter)Ref_get_address, NULL, "the object's address (identity)", NULL},
    {"scene", (getter)Ref_get_scene, NULL, "the SceneRef", NULL},
    {"valid", (getter)Ref_get_valid, NULL, "the object still exists", NULL},
    {"is_node", (getter)Ref_get_is_node, NULL, "a node (else a component)", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject Ref_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "settee._settee.Ref",
    .tp_basicsize = sizeof(Ref),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_dealloc = (destructor)Ref_dealloc,
    .tp_traverse = (traverseproc)Ref_traverse,
    .tp_clear = (inquiry)Ref_clear,
    .tp_getset = Ref_getset,
    .tp_doc = "A node or a component of a settee scene (low level)",
};

static void *ref_ptr(PyObject *o, int kind)
{
    if (!PyObject_TypeCheck(o, &Ref_Type)) {
        PyErr_SetString(PyExc_TypeError, "expected a settee._settee.Ref");
        return NULL;
    }
    Ref *r = (Ref *)o;
    if (!r->scene || !scene_check(r->scene))
        return NULL;
    if (r->dead) {
        PyErr_SetString(g_error, "this object was removed from its scene");
        return NULL;
    }
    if (kind && r->kind != kind) {
        PyErr_SetString(PyExc_TypeError, kind == REF_NODE ? "expected a node" : "expected a component");
        return NULL;
    }
    return r->ptr;
}

#define NODE_ARG(o) ((st_node *)ref_ptr((o), REF_NODE))
#define COMP_ARG(o) ((st_component *)ref_ptr((o), REF_COMP))

/* ---- numpy views ---- */

static void view_link(SceneRef *sr, viewbase *vb)
{
    vb->prev = NULL;
    vb->next = sr->views;
    if (sr->views)
        sr->views->prev = vb;
    sr->views = vb;
    vb->linked = 1;
}

static void view_unlink(viewbase *vb)
{
    if (!vb->linked)
        return;
    if (vb->prev)
        vb->prev->next = vb->next;
    else
        vb->scene->views = vb->next;
    if (vb->next)
        vb->next->prev = vb->prev;
    vb->linked = 0;
}

/* The array now reads a private copy of its last values. */
static void view_detach(viewbase *vb)
{
    view_unlink(vb);
    PyArrayObject *a = vb->arr;
    size_t nbytes = (size_t)PyArray_NBYTES(a);
    vb->copy = PyMem_RawMalloc(nbytes ? nbytes : 1);
    if (vb->copy) {
        memcpy(vb->copy, PyArray_DATA(a), nbytes);
        ((PyArrayObject_fields *)a)->data = vb->copy;
    } else {
        /* No memory for a copy: the array becomes empty-shaped. */
        ((PyArrayObject_fields *)a)->nd = 1;
        ((PyArrayObject_fields *)a)->dimensions[0] = 0;
    }
}

static void ViewBase_dealloc(viewbase *vb)
{
    view_unlink(vb);
    PyMem_RawFree(vb->copy);
    Py_CLEAR(vb->scene);
    PyObject_Del(vb);
}

static PyTypeObject ViewBase_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "settee._settee.ViewOwner",
    .tp_basicsize = sizeof(viewbase),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)ViewBase_dealloc,
    .tp_doc = "Keeps the scene behind a numpy view alive; detaches the view when it goes",
};

/* A numpy view of n x w values at data (w == 0: 1-D of n). */
static PyObject *make_view(SceneRef *sr, void *data, npy_intp n, npy_intp w, int typenum,
                           int writeable)
{
    npy_intp dims[2] = {n, w};
    int nd = w > 0 ? 2 : 1;
    static double empty[1];
    PyObject *arr = PyArray_New(&PyArray_Type, nd, dims, typenum, NULL, data ? data : empty, 0,
                                NPY_ARRAY_CARRAY | (writeable ? 0 : 0), NULL);
    if (!arr)
        return NULL;
    if (!writeable)
        PyArray_CLEARFLAGS((PyArrayObject *)arr, NPY_ARRAY_WRITEABLE);
    viewbase *vb = PyObject_New(viewbase, &ViewBase_Type);
    if (!vb) {
        Py_DECREF(arr);
        return NULL;
    }
    Py_INCREF(sr);
    vb->scene = sr;
    vb->arr = (PyArrayObject *)arr;
    vb->copy = NULL;
    vb->linked = 0;
    if (PyArray_SetBaseObject((PyArrayObject *)arr, (PyObject *)vb) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    view_link(sr, vb);
    return arr;
}

static PyObject *detach_views(PyObject *self, PyObject *args)
{
    PyObject *o;
    if (!PyArg_ParseTuple(args, "O!", &SceneRef_Type, &o))
        return NULL;
    SceneRef *sr = (SceneRef *)o;
    while (sr->views)
        view_detach(sr->views);
    Py_RETURN_NONE;
}

/* ---- fields ---- */

static bool is_real_array(st_type t)
{
    return t == ST_T_REALS || t == ST_T_VEC3S || t == ST_T_COORDS || t == ST_T_DERIVS ||
           t == ST_T_RIGID3S || t == ST_T_QUATS;
}

static bool is_uint_array(st_type t)
{
    return t == ST_T_UINTS || t == ST_T_EDGES || t == ST_T_TRIANGLES || t == ST_T_QUADS ||
           t == ST_T_TETRAS || t == ST_T_HEXAS;
}

static const st_field *field_arg(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    if (!f) {
        char path[512];
        PyErr_Format(PyExc_AttributeError, "%s (%s) has no data field '%s'",
                     st_component_path(c, path, sizeof path), c->cls->name, name);
    }
    return f;
}

/* field_arg for a read: once the scene is initialised, an engine's output
 * is brought up to date first (SOFA's updateIfDirty when Python reads it). */
static const st_field *field_read_arg(PyObject *o, st_component *c, const char *name)
{
    const st_field *f = field_arg(c, name);
    SceneRef *sr = ((Ref *)o)->scene;
    if (f && sr->alive && (sr->initialised || st_scene_is_initialised(sr->s))) {
        st_error err = {0};
        if (st_component_refresh(c, &err) != ST_OK) {
            raise_st(&err);
            return NULL;
        }
    }
    return f;
}

static PyObject *vec_copy(const double *v, npy_intp n)
{
    npy_intp dims[1] = {n};
    PyObject *a = PyArray_SimpleNew(1, dims, NPY_DOUBLE);
    if (a && n > 0)
        memcpy(PyArray_DATA((PyArrayObject *)a), v, (size_t)n * sizeof(double));
    return a;
}

/* A field's value: Python scalars, numpy copies of vectors and arrays. */
static PyObject *field_value(st_component *c, const st_field *f)
{
    void *p = st_component_field_ptr(c, f);
    switch (f->type) {
    case ST_T_BOOL:
        return PyBool_FromLong(*(bool *)p);
    case ST_T_INT:
        return PyLong_FromLong(*(int *)p);
    case ST_T_UINT:
        return PyLong_FromUnsignedLong(*(unsigned *)p);
    case ST_T_REAL:
        return PyFloat_FromDouble(*(double *)p);
    case ST_T_STRING:
        return PyUnicode_FromString(*(char **)p ? *(char **)p : "");
    case ST_T_VEC2:
        return vec_copy(p, 2);
    case ST_T_VEC3:
        return vec_copy(p, 3);
    case ST_T_VEC4:
    case ST_T_RGBA:
        return vec_copy(p, 4);
    case ST_T_INT2:
        return Py_BuildValue("(ii)", ((int *)p)[0], ((int *)p)[1]);
    case ST_T_MASS:
        return PyFloat_FromDouble(((st_mass_value *)p)->mass);
    case ST_T_LINK: {
        st_component *t = *(st_component **)p;
        char path[512] = "";
        if (t)
            st_component_path(t, path, sizeof path);
        return PyUnicode_FromString(path);
    }
    case ST_T_STRINGS: {
        st_array *a = p;
        PyObject *l = PyList_New((Py_ssize_t)a->n);
        for (size_t i = 0; l && i < a->n; i++)
            PyList_SET_ITEM(l, (Py_ssize_t)i, PyUnicode_FromString(a->s[i] ? a->s[i] : ""));
        return l;
    }
    default:
        break;
    }
    st_array *a = p;
    unsigned w = st_component_field_width(c, f);
    npy_intp dims[2] = {(npy_intp)a->n, (npy_intp)w};
    int nd = w > 1 ? 2 : 1;
    if (is_real_array(f->type)) {
        PyObject *r = PyArray_SimpleNew(nd, dims, NPY_DOUBLE);
        if (r && a->n)
            memcpy(PyArray_DATA((PyArrayObject *)r), a->r, a->n * w * sizeof(double));
        return r;
    }
    if (is_uint_array(f->type)) {
        PyObject *r = PyArray_SimpleNew(nd, dims, NPY_UINT);
        if (r && a->n)
            memcpy(PyArray_DATA((PyArrayObject *)r), a->u, a->n * w * sizeof(unsigned));
        return r;
    }
    PyErr_Format(PyExc_TypeError, "field '%s' has a type Python cannot read", f->name);
    return NULL;
}

/* ---- module functions: runtime and scenes ---- */

static PyObject *py_new_scene(PyObject *self, PyObject *args)
{
    st_runtime *rt = runtime();
    if (!rt)
        return NULL;
    st_scene *s = NULL;
    st_error err = {0};
    if (st_scene_create(rt, &s, &err) != ST_OK)
        return raise_st(&err);
    SceneRef *sr = scene_wrap(s, 1);
    if (!sr)
        st_scene_destroy(&s);
    return (PyObject *)sr;
}

static PyObject *py_load_scene(PyObject *self, PyObject *args)
{
    const char *path;
    PyObject *sets = NULL;
    if (!PyArg_ParseTuple(args, "s|O", &path, &sets))
        return NULL;
    st_runtime *rt = runtime();
    if (!rt)
        return NULL;
    st_scene *s = NULL;
    st_error err = {0};
    if (st_scene_load(rt, path, &s, &err) != ST_OK)
        return raise_st(&err);
    SceneRef *sr = scene_wrap(s, 1);
    if (!sr) {
        st_scene_destroy(&s);
        return NULL;
    }
    if (sets && sets != Py_None) {
        PyObject *it = PyObject_GetIter(sets);
        PyObject *item;
        while (it && (item = PyIter_Next(it))) {
            const char *target, *value;
            if (!PyArg_ParseTuple(item, "ss", &target, &value) ||
                st_scene_set(s, target, value, &err) != ST_OK) {
                Py_DECREF(item);
                Py_DECREF(it);
                Py_DECREF(sr);
                return err.code ? raise_st(&err) : NULL;
            }
            Py_DECREF(item);
        }
        Py_XDECREF(it);
        if (PyErr_Occurred()) {
            Py_DECREF(sr);
            return NULL;
        }
    }
    return (PyObject *)sr;
}

static SceneRef *sceneref_arg(PyObject *o)
{
    if (!PyObject_TypeCheck(o, &SceneRef_Type)) {
        PyErr_SetString(PyExc_TypeError, "expected a SceneRef");
        return NULL;
    }
    return scene_check((SceneRef *)o) ? (SceneRef *)o : NULL;
}

static PyObject *py_scene_root(PyObject *self, PyObject *o)
{
    SceneRef *sr = sceneref_arg(o);
    return sr ? ref_new(sr, st_scene_root(sr->s), REF_NODE) : NULL;
}

static PyObject *py_scene_init(PyObject *self, PyObject *o)
{
    SceneRef *sr = sceneref_arg(o);
    if (!sr)
        return NULL;
    /* States rebind their vectors into the system's: views taken before
     * init would read freed memory. */
    while (sr->views)
        view_detach(sr->views);
    st_error err = {0};
    Py_CLEAR(g_last_cb_exc);
    if (st_scene_init(sr->s, &err) != ST_OK)
        return raise_st(&err);
    sr->initialised = 1;
    Py_RETURN_NONE;
}

/* Initialises what was added to an initialised scene (st_scene_init_added).
 * The systems are compiled again and the states bound anew: views taken
 * before are detached, as at init. */
static PyObject *py_scene_init_added(PyObject *self, PyObject *o)
{
    SceneRef *sr = sceneref_arg(o);
    if (!sr)
        return NULL;
    while (sr->views)
        view_detach(sr->views);
    st_error err = {0};
    Py_CLEAR(g_last_cb_exc);
    if (st_scene_init_added(sr->s, &err) != ST_OK)
        return raise_st(&err);
    Py_RETURN_NONE;
}

static PyObject *py_scene_step(PyObject *self, PyObject *args)
{
    PyObject *o;
    double dt = 0;
    unsigned long n = 1;
    if (!PyArg_ParseTuple(args, "O|dk", &o, &dt, &n))
        return NULL;
    SceneRef *sr = sceneref_arg(o);
    if (!sr)
        return NULL;
    st_error err = {0};
    for (unsigned long i = 0; i < n; i++) {
        Py_CLEAR(g_last_cb_exc);
        /* The step runs without the GIL: other Python threads run meanwhile,
         * and the Python components' calls take it back (PyGILState_Ensure
         * in every api_* entry and in the message sinks). */
        st_status rc;
        Py_BEGIN_ALLOW_THREADS
        rc = st_scene_step(sr->s, dt, &err);
        Py_END_ALLOW_THREADS
        if (rc != ST_OK)
            return raise_st(&err);
        if (PyErr_CheckSignals() < 0)
            return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *py_scene_reset(PyObject *self, PyObject *o)
{
    SceneRef *sr = sceneref_arg(o);
    if (!sr)
        return NULL;
    st_error err = {0};
    if (st_scene_reset(sr->s, &err) != ST_OK)
        return raise_st(&err);
    Py_RETURN_NONE;
}

static PyObject *py_scene_time(PyObject *self, PyObject *o)
{
    SceneRef *sr = sceneref_arg(o);
    return sr ? PyFloat_FromDouble(st_scene_time(sr->s)) : NULL;
}

static PyObject *py_scene_file(PyObject *self, PyObject *o)
{
    SceneRef *sr = sceneref_arg(o);
    return sr ? PyUnicode_FromString(st_scene_file(sr->s)) : NULL;
}

static PyObject *py_scene_destroy(PyObject *self, PyObject *o)
{
    SceneRef *sr = sceneref_arg(o);
    if (!sr)
        return NULL;
    if (!sr->owned) {
        PyErr_SetString(g_error, "this scene belongs to the program that embeds Python: it "
                                 "cannot be unloaded from Python");
        return NULL;
    }
    scene_destroy_owned(sr);
    Py_RETURN_NONE;
}

static PyObject *py_scene_checkpoint(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *path, *tag = "";
    if (!PyArg_ParseTuple(args, "Os|s", &o, &path, &tag))
        return NULL;
    SceneRef *sr = sceneref_arg(o);
    if (!sr)
        return NULL;
    st_error err = {0};
    if (st_scene_checkpoint_write(sr->s, path, tag, &err) != ST_OK)
        return raise_st(&err);
    Py_RETURN_NONE;
}

static PyObject *py_scene_restore(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *path, *tag = "";
    if (!PyArg_ParseTuple(args, "Os|s", &o, &path, &tag))
        return NULL;
    SceneRef *sr = sceneref_arg(o);
    if (!sr)
        return NULL;
    unsigned long steps = 0;
    st_error err = {0};
    if (st_scene_checkpoint_read(sr->s, path, tag, &steps, &err) != ST_OK)
        return raise_st(&err);
    return PyLong_FromUnsignedLong(steps);
}

static PyObject *py_load_plugin(PyObject *self, PyObject *args)
{
    const char *name;
    PyObject *o = NULL;
    if (!PyArg_ParseTuple(args, "s|O", &name, &o))
        return NULL;
    st_runtime *rt = NULL;
    if (o && o != Py_None) {
        SceneRef *sr = sceneref_arg(o);
        if (!sr)
            return NULL;
        rt = st_scene_runtime(sr->s);
    } else {
        rt = runtime();
    }
    if (!rt)
        return NULL;
    st_error err = {0};
    if (st_runtime_load_plugin(rt, name, &err) != ST_OK)
        return raise_st(&err);
    Py_RETURN_NONE;
}

static PyObject *py_plugin_paths(PyObject *self, PyObject *args)
{
    st_runtime *rt = runtime();
    if (!rt)
        return NULL;
    const char *dirs[64];
    size_t n = st_runtime_plugin_dirs(rt, dirs, 64);
    PyObject *l = PyList_New(0);
    for (size_t i = 0; l && i < n && i < 64; i++) {
        PyObject *s = PyUnicode_FromString(dirs[i]);
        PyList_Append(l, s);
        Py_XDECREF(s);
    }
    return l;
}

static PyObject *py_add_plugin_path(PyObject *self, PyObject *args)
{
    const char *dir;
    if (!PyArg_ParseTuple(args, "s", &dir))
        return NULL;
    st_runtime *rt = runtime();
    st_error err = {0};
    if (!rt)
        return NULL;
    if (st_runtime_add_plugin_path(rt, dir, &err) != ST_OK)
        return raise_st(&err);
    Py_RETURN_NONE;
}

static PyObject *py_log(PyObject *self, PyObject *args)
{
    int level;
    const char *path, *msg;
    PyObject *o = Py_None;
    if (!PyArg_ParseTuple(args, "iss|O", &level, &path, &msg, &o))
        return NULL;
    st_runtime *rt = NULL;
    if (o != Py_None) {
        SceneRef *sr = sceneref_arg(o);
        if (!sr)
            return NULL;
        rt = st_scene_runtime(sr->s);
    } else {
        rt = runtime();
    }
    if (!rt)
        return NULL;
    if (level < ST_LOG_ERROR || level > ST_LOG_INFO)
        level = ST_LOG_INFO;
    st_runtime_log(rt, (st_log_level)level, "", path, "%s", msg);
    Py_RETURN_NONE;
}

static PyObject *py_set_log(PyObject *self, PyObject *args)
{
    PyObject *fn;
    int verbose = 0;
    if (!PyArg_ParseTuple(args, "O|p", &fn, &verbose))
        return NULL;
    Py_CLEAR(g_log_fn);
    if (fn != Py_None) {
        Py_INCREF(fn);
        g_log_fn = fn;
    }
    g_verbose = verbose;
    Py_RETURN_NONE;
}

/* ---- nodes ---- */

static PyObject *py_node_info(PyObject *self, PyObject *o)
{
    st_node *n = NODE_ARG(o);
    if (!n)
        return NULL;
    char path[1024];
    double g[3];
    st_node_gravity(n, g);
    return Py_BuildValue("{s:s,s:s,s:(ddd),s:d,s:d,s:O,s:O}", "name", st_node_name(n), "path",
                         st_node_path(n, path, sizeof path), "gravity", g[0], g[1], g[2], "dt",
                         st_node_dt(n), "time", st_node_time(n), "animate",
                         st_node_animate(n) ? Py_True : Py_False, "activated",
                         st_node_activated(n) ? Py_True : Py_False);
}

static PyObject *py_node_parent(PyObject *self, PyObject *o)
{
    st_node *n = NODE_ARG(o);
    return n ? ref_new(((Ref *)o)->scene, st_node_parent(n), REF_NODE) : NULL;
}

/* A list of references to the k things get(n, i) of node n (children or
 * objects). */
static PyObject *ref_list(PyObject *o, st_node *n, size_t k, void *(*get)(st_node *, size_t),
                          int kind)
{
    PyObject *l = PyList_New((Py_ssize_t)k);
    for (size_t i = 0; l && i < k; i++) {
        PyObject *r = ref_new(((Ref *)o)->scene, get(n, i), kind);
        if (!r) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)i, r);
    }
    return l;
}

static void *child_at(st_node *n, size_t i) { return st_node_child(n, i); }
static void *object_at(st_node *n, size_t i) { return st_node_object(n, i); }

static PyObject *py_node_children(PyObject *self, PyObject *o)
{
    st_node *n = NODE_ARG(o);
    return n ? ref_list(o, n, st_node_child_count(n), child_at, REF_NODE) : NULL;
}

static PyObject *py_node_objects(PyObject *self, PyObject *o)
{
    st_node *n = NODE_ARG(o);
    return n ? ref_list(o, n, st_node_object_count(n), object_at, REF_COMP) : NULL;
}

static PyObject *py_node_add_child(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *name;
    if (!PyArg_ParseTuple(args, "Os", &o, &name))
        return NULL;
    st_node *n = NODE_ARG(o), *c = NULL;
    if (!n)
        return NULL;
    st_error err = {0};
    if (st_node_add_child(n, name, &c, &err) != ST_OK)
        return raise_st(&err);
    return ref_new(((Ref *)o)->scene, c, REF_NODE);
}

static PyObject *py_node_add_object(PyObject *self, PyObject *args)
{
    PyObject *o, *pyobj = Py_None;
    const char *cls, *name = NULL;
    if (!PyArg_ParseTuple(args, "Osz|O", &o, &cls, &name, &pyobj))
        return NULL;
    st_node *n = NODE_ARG(o);
    if (!n)
        return NULL;
    st_component *c = NULL;
    st_error err = {0};
    if (st_node_add_object(n, cls, name, &c, &err) != ST_OK) {
        /* As for SOFA's XML scenes (and runSofa, which has its plugins at
         * hand): a class of a plugin the scene did not require is loaded
         * from that plugin, with a warning. */
        st_scene *sc = st_node_scene(n);
        st_runtime *rt = sc ? st_scene_runtime(sc) : NULL;
        char plugin[256], path[512];
        st_error le = {0};
        if (err.code != ST_ENOTFOUND || !rt ||
            !st_runtime_which_plugin(rt, cls, plugin, sizeof plugin) ||
            st_runtime_load_plugin(rt, plugin, &le) != ST_OK)
            return raise_st(&err);
        st_error_clear(&err);
        if (st_node_add_object(n, cls, name, &c, &err) != ST_OK)
            return raise_st(&err);
        st_runtime_log(rt, ST_LOG_WARNING, "", st_node_path(n, path, sizeof path),
                       "%s is provided by plugin %s, which the scene does not require: loaded "
                       "it, as SOFA does; add RequiredPlugin(pluginName='%s') to the scene",
                       cls, plugin, plugin);
    }
    if (pyobj != Py_None) {
        if (!holds_python(c->cls->name, false)) {
            PyErr_Format(PyExc_TypeError, "class %s holds no Python object", cls);
            return NULL;
        }
        Py_INCREF(pyobj);
        ((stpy_component *)c)->py = pyobj;
    }
    return ref_new(((Ref *)o)->scene, c, REF_COMP);
}

static PyObject *py_node_set(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *key, *text;
    if (!PyArg_ParseTuple(args, "Oss", &o, &key, &text))
        return NULL;
    st_node *n = NODE_ARG(o);
    if (!n)
        return NULL;
    st_error err = {0};
    if (st_node_set(n, key, text, &err) != ST_OK)
        return raise_st(&err);
    Py_RETURN_NONE;
}

static PyObject *py_remove(PyObject *self, PyObject *args)
{
    PyObject *po, *co;
    if (!PyArg_ParseTuple(args, "OO!", &po, &Ref_Type, &co))
        return NULL;
    st_node *n = NODE_ARG(po);
    void *p = n ? ref_ptr(co, 0) : NULL;
    if (!p)
        return NULL;
    Ref *r = (Ref *)co;
    /* Views of the removed memory go first. */
    while (r->scene->views)
        view_detach(r->scene->views);
    st_error err = {0};
    st_status s = r->kind == REF_NODE ? st_node_remove_child(n, p, &err)
                                      : st_node_remove_object(n, p, &err);
    if (s != ST_OK)
        return raise_st(&err);
    r->dead = 1;
    Py_RETURN_NONE;
}

static PyObject *py_kill(PyObject *self, PyObject *o)
{
    if (!PyObject_TypeCheck(o, &Ref_Type)) {
        PyErr_SetString(PyExc_TypeError, "expected a Ref");
        return NULL;
    }
    ((Ref *)o)->dead = 1;
    Py_RETURN_NONE;
}

static PyObject *py_is_within(PyObject *self, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "O!O!", &Ref_Type, &a, &Ref_Type, &b))
        return NULL;
    void *pa = ref_ptr(a, 0);
    st_node *anc = pa ? NODE_ARG(b) : NULL;
    if (!anc)
        return NULL;
    st_node *n = ((Ref *)a)->kind == REF_NODE ? pa : ((st_component *)pa)->node;
    for (; n; n = st_node_parent(n))
        if (n == anc)
            Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* ---- components ---- */

static PyObject *py_obj_info(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    char path[1024];
    const st_state_type *t = st_component_state_type(c);
    return Py_BuildValue("{s:s,s:s,s:s,s:s,s:s,s:s}", "name", c->name, "class", c->cls->name,
                         "category", c->cls->category ? c->cls->category : "", "path",
                         st_component_path(c, path, sizeof path), "plugin",
                         st_component_plugin(c) ? st_component_plugin(c) : "", "template",
                         t ? t->name : "");
}

static PyObject *py_obj_node(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    return c ? ref_new(((Ref *)o)->scene, c->node, REF_NODE) : NULL;
}

static PyObject *py_obj_pyobject(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    const char *cn = c->cls->name;
    if (holds_python(cn, true) &&
        ((stpy_component *)c)->py) {
        PyObject *p = ((stpy_component *)c)->py;
        Py_INCREF(p);
        return p;
    }
    Py_RETURN_NONE;
}

static PyObject *py_obj_fields(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    PyObject *l = PyList_New(0);
    const char *base[] = {"name", "printLog"};
    for (size_t i = 0; l && i < 2; i++) {
        PyObject *s = PyUnicode_FromString(base[i]);
        PyList_Append(l, s);
        Py_XDECREF(s);
    }
    for (const st_field *f = c->cls->fields; l && f && f->name; f++) {
        PyObject *s = PyUnicode_FromString(f->name);
        PyList_Append(l, s);
        Py_XDECREF(s);
    }
    return l;
}

static PyObject *py_field_info(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *name;
    if (!PyArg_ParseTuple(args, "Os", &o, &name))
        return NULL;
    st_component *c = COMP_ARG(o);
    const st_field *f = c ? field_arg(c, name) : NULL;
    if (!f)
        return NULL;
    return Py_BuildValue("{s:s,s:s,s:s,s:O,s:I,s:I,s:s}", "name", f->name, "type",
                         st_type_name(f->type), "help", f->help ? f->help : "", "set",
                         st_component_is_set(c, f->name) ? Py_True : Py_False, "flags", f->flags,
                         "width", st_component_field_width(c, f), "default",
                         f->def ? f->def : "");
}

static PyObject *py_field_get(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *name;
    if (!PyArg_ParseTuple(args, "Os", &o, &name))
        return NULL;
    st_component *c = COMP_ARG(o);
    const st_field *f = c ? field_read_arg(o, c, name) : NULL;
    return f ? field_value(c, f) : NULL;
}

static PyObject *py_field_set(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *name, *text;
    if (!PyArg_ParseTuple(args, "Oss", &o, &name, &text))
        return NULL;
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    st_error err = {0};
    if (st_component_set(c, name, text, &err) != ST_OK)
        return raise_st(&err);
    Py_RETURN_NONE;
}

/* A zero-copy view of an array field (or a fixed vector). */
static PyObject *py_field_view(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *name;
    int writeable = 0;
    if (!PyArg_ParseTuple(args, "Os|p", &o, &name, &writeable))
        return NULL;
    st_component *c = COMP_ARG(o);
    const st_field *f = c ? field_read_arg(o, c, name) : NULL;
    if (!f)
        return NULL;
    SceneRef *sr = ((Ref *)o)->scene;
    void *p = st_component_field_ptr(c, f);
    switch (f->type) {
    case ST_T_VEC2:
        return make_view(sr, p, 2, 0, NPY_DOUBLE, writeable);
    case ST_T_VEC3:
        return make_view(sr, p, 3, 0, NPY_DOUBLE, writeable);
    case ST_T_VEC4:
    case ST_T_RGBA:
        return make_view(sr, p, 4, 0, NPY_DOUBLE, writeable);
    default:
        break;
    }
    st_array *a = p;
    unsigned w = st_component_field_width(c, f);
    if (is_real_array(f->type))
        return make_view(sr, a->r, (npy_intp)a->n, w > 1 ? w : 0, NPY_DOUBLE, writeable);
    if (is_uint_array(f->type))
        return make_view(sr, a->u, (npy_intp)a->n, w > 1 ? w : 0, NPY_UINT, writeable);
    PyErr_Format(PyExc_TypeError, "field '%s' (%s) has no array view: use .value", f->name,
                 st_type_name(f->type));
    return NULL;
}

/* Writes values into an array field in place (same number of tuples),
 * then marks it changed. */
static PyObject *py_field_write(PyObject *self, PyObject *args)
{
    PyObject *o, *val;
    const char *name;
    if (!PyArg_ParseTuple(args, "OsO", &o, &name, &val))
        return NULL;
    st_component *c = COMP_ARG(o);
    const st_field *f = c ? field_arg(c, name) : NULL;
    if (!f)
        return NULL;
    if (!is_real_array(f->type))
        Py_RETURN_FALSE;
    st_array *a = st_component_field_ptr(c, f);
    unsigned w = st_component_field_width(c, f);
    PyArrayObject *arr =
        (PyArrayObject *)PyArray_FROMANY(val, NPY_DOUBLE, 0, 2, NPY_ARRAY_CARRAY_RO);
    if (!arr)
        return NULL;
    if ((size_t)PyArray_SIZE(arr) != a->n * w || !a->r) {
        Py_DECREF(arr);
        Py_RETURN_FALSE;
    }
    memcpy(a->r, PyArray_DATA(arr), a->n * w * sizeof(double));
    Py_DECREF(arr);
    st_component_touch(c, f);
    Py_RETURN_TRUE;
}

static PyObject *py_field_touch(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *name;
    if (!PyArg_ParseTuple(args, "Os", &o, &name))
        return NULL;
    st_component *c = COMP_ARG(o);
    const st_field *f = c ? field_arg(c, name) : NULL;
    if (!f)
        return NULL;
    st_component_touch(c, f);
    Py_RETURN_NONE;
}

static PyObject *py_obj_reinit(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    st_error err = {0};
    if (c->cls->reinit && c->cls->reinit(c, &err) != ST_OK)
        return raise_st(&err);
    Py_RETURN_NONE;
}

static PyObject *py_find_file(PyObject *self, PyObject *args)
{
    PyObject *o;
    const char *field, *name;
    if (!PyArg_ParseTuple(args, "Oss", &o, &field, &name))
        return NULL;
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    char out[4096];
    st_error err = {0};
    if (st_component_find_file(c, field, name, out, sizeof out, &err) != ST_OK)
        return raise_st(&err);
    return PyUnicode_FromString(out);
}

/* The assembled system matrix mf M + bf B + kf K of the ODE solver that
 * integrates the state of a component's node, as (n, indptr, indices, data). */
static PyObject *py_system_matrix(PyObject *self, PyObject *args)
{
    PyObject *o;
    double mf = 0, bf = 0, kf = 1;
    if (!PyArg_ParseTuple(args, "O|ddd", &o, &mf, &bf, &kf))
        return NULL;
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    st_mstate *ms = st_component_mstate(c);
    if (!ms || !ms->system) {
        PyErr_SetString(g_error, "no mechanical system: the component has no state integrated by "
                                 "an ODE solver (initialise the scene first)");
        return NULL;
    }
    st_system *sys = ms->system;
    st_matrix *m = NULL;
    st_error err = {0};
    if (st_matrix_create(sys, &m, &err) != ST_OK || st_matrix_assemble(m, sys, mf, bf, kf, &err)) {
        st_matrix_destroy(&m);
        return raise_st(&err);
    }
    st_csr csr;
    st_matrix_csr(m, &csr);
    npy_intp np1 = (npy_intp)csr.n + 1, nnz = (npy_intp)csr.nnz;
    PyObject *ip = PyArray_SimpleNew(1, &np1, NPY_INT), *ix = PyArray_SimpleNew(1, &nnz, NPY_INT),
             *dv = PyArray_SimpleNew(1, &nnz, NPY_DOUBLE);
    if (ip && ix && dv) {
        memcpy(PyArray_DATA((PyArrayObject *)ip), csr.rowptr, (size_t)np1 * sizeof(int));
        memcpy(PyArray_DATA((PyArrayObject *)ix), csr.colind, (size_t)nnz * sizeof(int));
        memcpy(PyArray_DATA((PyArrayObject *)dv), csr.values, (size_t)nnz * sizeof(double));
    }
    st_matrix_destroy(&m);
    if (!ip || !ix || !dv) {
        Py_XDECREF(ip);
        Py_XDECREF(ix);
        Py_XDECREF(dv);
        return NULL;
    }
    char path[512];
    st_component_path(sys->solver, path, sizeof path);
    return Py_BuildValue("(nNNNs)", (Py_ssize_t)csr.n, ip, ix, dv, path);
}

/* One component's own matrix in its state's scalar DOFs (SofaPython3's
 * assembleKMatrix: which 'K', kf = 1; assembleMMatrix: 'M', mf = 1), as
 * (n, indptr, indices, data). */
static PyObject *py_component_matrix(PyObject *self, PyObject *args)
{
    PyObject *o;
    int which, wide = 0;
    if (!PyArg_ParseTuple(args, "OC|p", &o, &which, &wide))
        return NULL;
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    st_mstate *ms = st_component_mstate(c);
    char path[512];
    st_component_path(c, path, sizeof path);
    if (!ms || !ms->system) {
        PyErr_Format(g_error, "%s: no mechanical system: its state is integrated by no ODE "
                              "solver (initialise the scene first)", path);
        return NULL;
    }
    if (ms->mapped) {
        PyErr_Format(g_error, "%s: its state is mapped; settee assembles matrices on the "
                              "independent states only (use settee.system_matrix)", path);
        return NULL;
    }
    st_system *sys = ms->system;
    const st_forcefield_ops *ff = c->cls->forcefield;
    if (which == 'K' && ff && ff->add_force && !wide) {
        /* K is taken at the state of the last add_force (roles.h): compute
         * the forces of the current state first, into a scratch vector, as
         * SOFA's addKToMatrix sees the current positions. wide (a linear
         * system observer): the K of the last step, as the solver's. */
        double *f = calloc(sys->size_all ? sys->size_all : 1, sizeof *f);
        if (!f)
            return PyErr_NoMemory();
        ff->add_force(c, &sys->mp, f, sys->x, sys->v);
        free(f);
        if (PyErr_Occurred())
            return NULL;
    }
    st_matrix *m = NULL;
    st_error err = {0};
    double mf = which == 'M' ? 1.0 : 0.0, kf = which == 'M' ? 0.0 : 1.0;
    if (st_matrix_create_component(sys, c, &m, &err) != ST_OK ||
        st_matrix_assemble(m, sys, mf, 0.0, kf, &err) != ST_OK) {
        st_matrix_destroy(&m);
        return raise_st(&err);
    }
    st_csr csr;
    st_matrix_csr(m, &csr);
    /* The rows and columns of this state: [doffset, doffset + n d); wide:
     * the whole system's (a partial linear system's sum). */
    size_t lo = wide ? 0 : ms->doffset;
    size_t n = wide ? sys->size : ms->n * ms->type->deriv_size, hi = lo + n;
    size_t nnz = 0;
    for (size_t r = lo; r < hi && r < csr.n; r++)
        for (int k = csr.rowptr[r]; k < csr.rowptr[r + 1]; k++)
            nnz += (size_t)csr.colind[k] >= lo && (size_t)csr.colind[k] < hi;
    npy_intp np1 = (npy_intp)n + 1, nz = (npy_intp)nnz;
    PyObject *ip = PyArray_SimpleNew(1, &np1, NPY_INT), *ix = PyArray_SimpleNew(1, &nz, NPY_INT),
             *dv = PyArray_SimpleNew(1, &nz, NPY_DOUBLE);
    if (ip && ix && dv) {
        int *rp = PyArray_DATA((PyArrayObject *)ip), *ci = PyArray_DATA((PyArrayObject *)ix);
        double *vv = PyArray_DATA((PyArrayObject *)dv);
        size_t w = 0;
        rp[0] = 0;
        for (size_t r = lo; r < hi; r++) {
            if (r < csr.n)
                for (int k = csr.rowptr[r]; k < csr.rowptr[r + 1]; k++) {
                    size_t col = (size_t)csr.colind[k];
                    if (col >= lo && col < hi) {
                        ci[w] = (int)(col - lo);
                        vv[w++] = csr.values[k];
                    }
                }
            rp[r - lo + 1] = (int)w;
        }
    }
    st_matrix_destroy(&m);
    if (!ip || !ix || !dv) {
        Py_XDECREF(ip);
        Py_XDECREF(ix);
        Py_XDECREF(dv);
        return NULL;
    }
    return Py_BuildValue("(nNNN)", (Py_ssize_t)n, ip, ix, dv);
}

/* ---- constraint problems and linear systems (SofaPython3's
 * SofaConstraintSolver, SofaLinearSystem, SofaLinearSolver) ---- */

/* What a component is, for the Python classes that add methods by role. */
static PyObject *py_obj_roles(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    const st_csolver_ops *cs = c->cls->constraint_solver;
    bool problem = cs && cs->struct_size >= offsetof(st_csolver_ops, problem) + sizeof cs->problem &&
                   cs->problem;
    bool linsys = c->cls->category && strcmp(c->cls->category, "LinearSystem") == 0;
    return Py_BuildValue("{s:O,s:O,s:O,s:O}", "constraint_solver", problem ? Py_True : Py_False,
                         "linear_solver", c->cls->linsolver ? Py_True : Py_False, "linear_system",
                         linsys ? Py_True : Py_False, "state",
                         st_component_state_type(c) && (st_component *)st_component_mstate(c) == c
                             ? Py_True
                             : Py_False);
}

static bool get_problem(const st_component *c, st_cproblem *p)
{
    const st_csolver_ops *cs = c->cls->constraint_solver;
    if (!cs || cs->struct_size < offsetof(st_csolver_ops, problem) + sizeof cs->problem ||
        !cs->problem)
        return false;
    cs->problem(c, p);
    return true;
}

/* (W (dim, dim), dfree (dim), lambda (dim)): copies of the last problem. */
static PyObject *py_constraint_problem(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    st_cproblem p = {0};
    if (!get_problem(c, &p)) {
        char path[512];
        PyErr_Format(g_error, "%s: %s is not a constraint solver that tells its problem",
                     st_component_path(c, path, sizeof path), c->cls->name);
        return NULL;
    }
    npy_intp dims[2] = {(npy_intp)p.dim, (npy_intp)p.dim};
    PyObject *W = PyArray_SimpleNew(2, dims, NPY_DOUBLE);
    PyObject *df = vec_copy(p.dfree, (npy_intp)p.dim),
             *la = vec_copy(p.lambda, (npy_intp)p.dim);
    if (!W || !df || !la) {
        Py_XDECREF(W);
        Py_XDECREF(df);
        Py_XDECREF(la);
        return NULL;
    }
    if (p.dim)
        memcpy(PyArray_DATA((PyArrayObject *)W), p.W, p.dim * p.dim * sizeof(double));
    return Py_BuildValue("(NNN)", W, df, la);
}

/* The first constraint solver of n's subtree that tells its problem. */
static st_component *find_csolver(st_node *n)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_cproblem p;
        st_component *c = st_node_object(n, i);
        if (get_problem(c, &p))
            return c;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++) {
        st_component *c = find_csolver(st_node_child(n, i));
        if (c)
            return c;
    }
    return NULL;
}

/* A state's constraint matrix (SOFA's MechanicalObject "constraint"): the
 * last problem's rows restricted to the state, in its scalar DOFs, as COO
 * (rows, cols, row, col, value). Rows on a mapped state as the models wrote
 * them; on an independent state, the rows taken down to it by the mappings. */
static PyObject *py_constraint_matrix(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    st_mstate *ms = st_component_mstate(c);
    if (!ms || (st_component *)ms != c) {
        PyErr_SetString(g_error, "constraint: not a mechanical state");
        return NULL;
    }
    st_component *solver = find_csolver(st_node_root(c->node));
    st_cproblem p = {0};
    if (solver)
        (void)get_problem(solver, &p);
    const st_cjacobian *J = p.dim == 0 ? NULL : ms->mapped ? p.J : p.Jind;
    unsigned d = (unsigned)ms->type->deriv_size;
    size_t cnt = 0;
    if (J)
        for (size_t t = 0; t < J->nterms; t++)
            cnt += J->terms[t].ms == ms ? d : 0;
    npy_intp nz = (npy_intp)cnt;
    PyObject *ri = PyArray_SimpleNew(1, &nz, NPY_INT64), *ci = PyArray_SimpleNew(1, &nz, NPY_INT64),
             *vv = PyArray_SimpleNew(1, &nz, NPY_DOUBLE);
    if (!ri || !ci || !vv) {
        Py_XDECREF(ri);
        Py_XDECREF(ci);
        Py_XDECREF(vv);
        return NULL;
    }
    int64_t *r = PyArray_DATA((PyArrayObject *)ri), *cc = PyArray_DATA((PyArrayObject *)ci);
    double *v = PyArray_DATA((PyArrayObject *)vv);
    size_t w = 0;
    if (J)
        for (size_t row = 0; row < J->nrows; row++)
            for (size_t t = row ? J->row_end[row - 1] : 0; t < J->row_end[row]; t++) {
                const st_cterm *term = &J->terms[t];
                if (term->ms != ms)
                    continue;
                for (unsigned k = 0; k < d && w < cnt; k++, w++) {
                    r[w] = (int64_t)row;
                    cc[w] = (int64_t)(term->point * d + k);
                    v[w] = term->d[k];
                }
            }
    size_t nrows = J ? J->nrows : 0;
    return Py_BuildValue("(nnNNN)", (Py_ssize_t)nrows, (Py_ssize_t)(ms->n * d), ri, ci, vv);
}

/* SofaPython3's linear system A(), b(), x(): the last system its ODE solver
 * handed to a linear solver, assembled again with the same factors, as
 * (n, indptr, indices, data, b or None, x or None, (mf, bf, kf)). */
static PyObject *py_linear_system(PyObject *self, PyObject *o)
{
    st_component *c = COMP_ARG(o);
    if (!c)
        return NULL;
    st_system *sys = st_node_system(c->node);
    char path[512];
    st_component_path(c, path, sizeof path);
    if (!sys) {
        PyErr_Format(g_error, "%s: no ODE solver integrates a state here (initialise the scene "
                              "first)", path);
        return NULL;
    }
    st_linsolve_record rec;
    st_system_last_linsolve(sys, &rec);
    if (!rec.assembled) {
        PyErr_Format(g_error, "%s: no linear system yet: its ODE solver has not solved one "
                              "(run a step first)", path);
        return NULL;
    }
    st_matrix *m = NULL;
    st_error err = {0};
    if (st_matrix_create(sys, &m, &err) != ST_OK ||
        st_matrix_assemble(m, sys, rec.mf, rec.bf, rec.kf, &err) != ST_OK) {
        st_matrix_destroy(&m);
        return raise_st(&err);
    }
    st_csr csr;
    st_matrix_csr(m, &csr);
    npy_intp np1 = (npy_intp)csr.n + 1, nnz = (npy_intp)csr.nnz;
    PyObject *ip = PyArray_SimpleNew(1, &np1, NPY_INT), *ix = PyArray_SimpleNew(1, &nnz, NPY_INT),
             *dv = PyArray_SimpleNew(1, &nnz, NPY_DOUBLE);
    if (ip && ix && dv) {
        memcpy(PyArray_DATA((PyArrayObject *)ip), csr.rowptr, (size_t)np1 * sizeof(int));
        memcpy(PyArray_DATA((PyArrayObject *)ix), csr.colind, (size_t)nnz * sizeof(int));
        memcpy(PyArray_DATA((PyArrayObject *)dv), csr.values, (size_t)nnz * sizeof(double));
    }
    size_t n = csr.n;
    st_matrix_destroy(&m);
    PyObject *b = NULL, *x = NULL;
    if (rec.solved) {
        b = vec_copy(rec.b, (npy_intp)rec.n);
        x = vec_copy(rec.x, (npy_intp)rec.n);
    } else {
        b = Py_None;
        x = Py_None;
        Py_INCREF(b);
        Py_INCREF(x);
    }
    if (!ip || !ix || !dv || !b || !x) {
        Py_XDECREF(ip);
        Py_XDECREF(ix);
        Py_XDECREF(dv);
        Py_XDECREF(b);
        Py_XDECREF(x);
        return NULL;
    }
    return Py_BuildValue("(nNNNNN(ddd))", (Py_ssize_t)n, ip, ix, dv, b, x, rec.mf, rec.bf, rec.kf);
}

/* ---- the callbacks of Python components (stpy_api) ---- */

static SceneRef *scene_of(st_component *c)
{
    st_scene *s = st_node_scene(c->node);
    return s ? scene_wrap(s, 0) : NULL;
}

static PyObject *core(void)
{
    if (!g_core)
        g_core = PyImport_ImportModule("settee._core");
    return g_core;
}

/* ---- message observers (SofaPython3's Sofa.Helper.MessageHandler) ----
 * A runtime's sink is wrapped once: the wrapper hands each message to
 * settee._core._dispatch_message (the handlers entered in Python) and then
 * to the sink it replaced, so the program prints as before. */

typedef struct log_chain {
    st_runtime *rt;
    st_log_fn prev;
    void *prev_ud;
} log_chain;

static log_chain g_chain[16];
static size_t g_nchain;
static bool g_dispatching; /* a handler's own messages are not dispatched again */

static void chain_sink(st_log_level level, const char *where, const char *path, const char *msg,
                       void *ud)
{
    log_chain *ch = ud;
    if (!g_dispatching && Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        PyObject *c = core();
        if (c) {
            g_dispatching = true;
            PyObject *r = PyObject_CallMethod(c, "_dispatch_message", "isss", (int)level, where,
                                              path, msg);
            g_dispatching = false;
            if (!r)
                PyErr_WriteUnraisable(c);
            Py_XDECREF(r);
        } else {
            PyErr_Clear();
        }
        PyGILState_Release(g);
    }
    if (ch->prev)
        ch->prev(level, where, path, msg, ch->prev_ud);
}

static bool observe_runtime(st_runtime *rt)
{
    st_log_fn fn;
    void *ud;
    st_runtime_get_log(rt, &fn, &ud);
    if (fn == chain_sink)
        return true;
    log_chain *ch = NULL;
    for (size_t i = 0; i < g_nchain && !ch; i++)
        if (g_chain[i].rt == rt)
            ch = &g_chain[i];
    if (!ch) {
        if (g_nchain == sizeof g_chain / sizeof g_chain[0]) {
            PyErr_SetString(g_error, "MessageHandler: too many settee runtimes observed (16)");
            return false;
        }
        ch = &g_chain[g_nchain++];
    }
    *ch = (log_chain){rt, fn, ud};
    st_runtime_set_log(rt, chain_sink, ch);
    return true;
}

/* observe_log(scene or None): messages of this module's runtime and of the
 * scene's (the program's, when embedded) reach _dispatch_message. */
static PyObject *py_observe_log(PyObject *self, PyObject *arg)
{
    st_runtime *rt = runtime();
    if (!rt || !observe_runtime(rt))
        return NULL;
    if (arg != Py_None) {
        if (!PyObject_TypeCheck(arg, &SceneRef_Type)) {
            PyErr_SetString(PyExc_TypeError, "observe_log: a scene reference or None");
            return NULL;
        }
        SceneRef *sr = (SceneRef *)arg;
        st_runtime *srt = sr->s ? st_scene_runtime(sr->s) : NULL;
        if (srt && !observe_runtime(srt))
            return NULL;
    }
    Py_RETURN_NONE;
}

/* Records the pending Python exception as a failure of c: an error for
 * st_status callbacks (err), else st_component_fail. */
static st_status fail_py(stpy_component *c, const char *method, st_error *err)
{
    char text[ST_ERROR_MSG_MAX - 200];
    py_exception_text(text, sizeof text, NULL, NULL);
    size_t n = strlen(text);
    if (n && text[n - 1] == '\n')
        text[n - 1] = 0;
    st_error local = {0};
    st_error *e = err ? err : &local;
    const char *cls = c->py ? Py_TYPE((PyObject *)c->py)->tp_name : c->base.cls->name;
    st_component_error(&c->base, NULL, e, ST_ESCENE, "Python exception in %s.%s:\n%s", cls,
                       method, text);
    if (!err)
        st_component_fail(&c->base, e);
    return e->code;
}

/* Calls c's Python method; what names it in errors ("onAnimateBeginEvent"). */
static st_status call_method(stpy_component *c, const char *method, const char *what,
                             PyObject *args, st_error *err, PyObject **result)
{
    if (result)
        *result = NULL;
    if (!c->py)
        return ST_OK;
    PyObject *m = PyObject_GetAttrString(c->py, method);
    if (!m) {
        PyErr_Clear();
        return ST_OK;
    }
    PyObject *r = PyObject_CallObject(m, args);
    Py_DECREF(m);
    if (!r)
        return fail_py(c, what, err);
    if (result)
        *result = r;
    else
        Py_DECREF(r);
    return ST_OK;
}

static st_status api_init(stpy_component *c, st_error *err)
{
    PyGILState_STATE g = PyGILState_Ensure();
    st_status s = ST_OK;
    if (!c->py)
        s = st_component_error(&c->base, NULL, err, ST_ESCENE,
                               "%s holds no Python object (add it from Python: "
                               "node.addObject(MyController()))",
                               c->base.cls->name);
    else
        s = call_method(c, "_st_init", "init", NULL, err, NULL);
    PyGILState_Release(g);
    return s;
}

static st_status api_reinit(stpy_component *c, st_error *err)
{
    PyGILState_STATE g = PyGILState_Ensure();
    st_status s = call_method(c, "_st_reinit", "reinit", NULL, err, NULL);
    PyGILState_Release(g);
    return s;
}

static void api_reset(stpy_component *c)
{
    PyGILState_STATE g = PyGILState_Ensure();
    (void)call_method(c, "_st_reset", "reset", NULL, NULL, NULL);
    PyGILState_Release(g);
}

/* True while the interpreter shuts down: its last collections destroy the
 * scenes still owned by Python, and Python code (the component's cleanup)
 * must not run then (the modules it uses are half torn down). */
static int finalizing(void)
{
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

static void api_cleanup(stpy_component *c)
{
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *p = c->py;
    if (p) {
        PyObject *r = finalizing() ? (Py_INCREF(Py_None), Py_None)
                                   : PyObject_CallMethod(p, "_st_cleanup", NULL);
        if (!r)
            PyErr_Clear();
        Py_XDECREF(r);
        c->py = NULL;
        Py_DECREF(p);
    }
    PyGILState_Release(g);
}

static const char *const event_names[] = {"AnimateBeginEvent", "AnimateEndEvent",
                                           "SimulationInitDoneEvent",
                                           "BuildConstraintSystemEndEvent",
                                           "SolveConstraintSystemEndEvent"};
enum { EV_COUNT = 5, EV_ON_EVENT = 1u << 5, EV_SP2 = 1u << 6 };

/* c->events for c->py (the GIL held). */
static unsigned handled_events(stpy_component *c)
{
    if (c->events_of == c->py)
        return c->events;
    unsigned m = 0;
    for (int i = 0; i < EV_COUNT; i++) {
        char handler[64];
        snprintf(handler, sizeof handler, "on%s", event_names[i]);
        if (PyObject_HasAttrString(c->py, handler))
            m |= 1u << i;
    }
    if (PyObject_HasAttrString(c->py, "onEvent"))
        m |= EV_ON_EVENT;
    if (PyObject_HasAttrString(c->py, "_sp2"))
        m |= EV_SP2;
    c->events = m;
    c->events_of = c->py;
    return m;
}

static void api_on_event(stpy_component *c, st_event ev, double dt)
{
    if (!c->listening || !c->py)
        return;
    const int i = ev == ST_EVENT_ANIMATE_BEGIN                 ? 0
                  : ev == ST_EVENT_ANIMATE_END                 ? 1
                  : ev == ST_EVENT_INIT_DONE                   ? 2
                  : ev == ST_EVENT_BUILD_CONSTRAINT_SYSTEM_END ? 3
                  : ev == ST_EVENT_SOLVE_CONSTRAINT_SYSTEM_END ? 4
                                                               : -1;
    if (i < 0)
        return;
    const char *name = event_names[i];
    char handler[64];
    snprintf(handler, sizeof handler, "on%s", name);
    PyGILState_STATE g = PyGILState_Ensure();
    /* Nothing to call (no handler for this event, no onEvent, not a
     * SofaPython2-style script): no Python frame at all. */
    if (!(handled_events(c) & ((1u << i) | EV_ON_EVENT | EV_SP2))) {
        PyGILState_Release(g);
        return;
    }
    const double time = c->base.node ? st_node_time(c->base.node) : 0.0;
    PyObject *args = Py_BuildValue("(sdd)", name, dt, time);
    if (args)
        (void)call_method(c, "_st_event", handler, args, NULL, NULL);
    else
        (void)fail_py(c, handler, NULL);
    Py_XDECREF(args);
    PyGILState_Release(g);
}

static PyObject *mparams(stpy_component *c, const st_mparams *mp, double mf, double bf, double kf)
{
    return Py_BuildValue("{s:d,s:d,s:d,s:d,s:d,s:O}", "time", mp->time, "dt", mp->dt, "mFactor",
                         mf, "bFactor", bf, "kFactor", kf, "isImplicit",
                         mp->implicit ? Py_True : Py_False);
}

static void api_add_force(stpy_component *c, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    st_mstate *ms = st_component_mstate(&c->base);
    if (!ms || !c->py)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    SceneRef *sr = scene_of(&c->base);
    npy_intp n = (npy_intp)ms->n, d = ms->type->deriv_size, cs = ms->type->coord_size;
    PyObject *args = NULL;
    if (sr)
        args = Py_BuildValue("(NNNN)", mparams(c, mp, 0, 0, 0),
                             make_view(sr, st_slice(f, ms), n, d, NPY_DOUBLE, 1),
                             make_view(sr, (void *)st_slice_x(x, ms), n, cs, NPY_DOUBLE, 0),
                             make_view(sr, (void *)st_slice(v, ms), n, d, NPY_DOUBLE, 0));
    if (args)
        (void)call_method(c, "_st_addForce", "addForce", args, NULL, NULL);
    else
        (void)fail_py(c, "addForce", NULL);
    Py_XDECREF(args);
    Py_XDECREF(sr);
    PyGILState_Release(g);
}

static void api_add_dforce(stpy_component *c, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    st_mstate *ms = st_component_mstate(&c->base);
    if (!ms || !c->py)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    SceneRef *sr = scene_of(&c->base);
    npy_intp n = (npy_intp)ms->n, d = ms->type->deriv_size;
    PyObject *args = NULL;
    if (sr)
        args = Py_BuildValue("(NNN)", mparams(c, mp, 0, bfactor, kfactor),
                             make_view(sr, st_slice(df, ms), n, d, NPY_DOUBLE, 1),
                             make_view(sr, (void *)st_slice(dx, ms), n, d, NPY_DOUBLE, 0));
    if (args)
        (void)call_method(c, "_st_addDForce", "addDForce", args, NULL, NULL);
    else
        (void)fail_py(c, "addDForce", NULL);
    Py_XDECREF(args);
    Py_XDECREF(sr);
    PyGILState_Release(g);
}

/* addKToMatrix returns SofaPython3's forms: a plain (N, N) or (N, N, 1)
 * matrix, or rows (i, j, value), in scalar indices of the state. */
static void api_add_k(stpy_component *c, const st_mparams *mp, st_matrix *m, double kfactor)
{
    st_mstate *ms = st_component_mstate(&c->base);
    if (!ms || !c->py)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    unsigned d = ms->type->deriv_size;
    PyObject *args = Py_BuildValue("(NnI)", mparams(c, mp, 0, 0, kfactor), (Py_ssize_t)ms->n, d);
    PyObject *r = NULL;
    if (!args || call_method(c, "_st_addKToMatrix", "addKToMatrix", args, NULL, &r) != ST_OK || !r) {
        if (!args)
            (void)fail_py(c, "addKToMatrix", NULL);
        Py_XDECREF(args);
        PyGILState_Release(g);
        return;
    }
    Py_DECREF(args);
    PyArrayObject *a = r == Py_None ? NULL
                                    : (PyArrayObject *)PyArray_FROMANY(r, NPY_DOUBLE, 1, 3,
                                                                       NPY_ARRAY_CARRAY_RO);
    Py_DECREF(r);
    if (!a) {
        if (PyErr_Occurred())
            (void)fail_py(c, "addKToMatrix", NULL);
        PyGILState_Release(g);
        return;
    }
    size_t N = ms->n * d;
    const double *k = PyArray_DATA(a);
    double block[36];
    int nd = PyArray_NDIM(a);
    npy_intp *sh = PyArray_DIMS(a);
    if (nd >= 2 && (size_t)sh[0] == N && (size_t)sh[1] == N && (nd == 2 || sh[2] == 1) && N != 3) {
        for (size_t bi = 0; bi < ms->n; bi++)
            for (size_t bj = 0; bj < ms->n; bj++) {
                bool any = false;
                for (unsigned r2 = 0; r2 < d; r2++)
                    for (unsigned c2 = 0; c2 < d; c2++) {
                        double val = k[(bi * d + r2) * N + bj * d + c2];
                        block[r2 * d + c2] = val;
                        any |= val != 0;
                    }
                if (any)
                    st_matrix_add_block(m, ms, bi, ms, bj, block);
            }
    } else if (nd == 2 && sh[1] == 3) {
        for (npy_intp t = 0; t < sh[0]; t++) {
            double fi = k[3 * t], fj = k[3 * t + 1];
            if (!(fi >= 0 && fj >= 0 && fi < (double)N && fj < (double)N)) {
                PyErr_Format(PyExc_IndexError,
                             "addKToMatrix: row %zd (%g, %g) is outside the %zu x %zu matrix",
                             (Py_ssize_t)t, fi, fj, N, N);
                (void)fail_py(c, "addKToMatrix", NULL);
                break;
            }
            size_t i = (size_t)fi, j = (size_t)fj;
            memset(block, 0, sizeof block);
            block[(i % d) * d + j % d] = k[3 * t + 2];
            st_matrix_add_block(m, ms, i / d, ms, j / d, block);
        }
    } else {
        PyErr_SetString(PyExc_TypeError,
                        "addKToMatrix must return a plain (N, N) or (N, N, 1) matrix or rows "
                        "(i, j, value)");
        (void)fail_py(c, "addKToMatrix", NULL);
    }
    Py_DECREF(a);
    PyGILState_Release(g);
}

static double api_energy(stpy_component *c, const st_mparams *mp, const double *x)
{
    st_mstate *ms = st_component_mstate(&c->base);
    if (!ms || !c->py)
        return 0.0;
    PyGILState_STATE g = PyGILState_Ensure();
    SceneRef *sr = scene_of(&c->base);
    double e = 0.0;
    PyObject *args = sr ? Py_BuildValue("(NN)", mparams(c, mp, 0, 0, 0),
                                        make_view(sr, (void *)st_slice_x(x, ms), (npy_intp)ms->n,
                                                  ms->type->coord_size, NPY_DOUBLE, 0))
                        : NULL;
    PyObject *r = NULL;
    if (args && call_method(c, "_st_getPotentialEnergy", "getPotentialEnergy", args, NULL, &r) == ST_OK && r) {
        e = PyFloat_AsDouble(r);
        if (PyErr_Occurred())
            (void)fail_py(c, "getPotentialEnergy", NULL);
    }
    Py_XDECREF(r);
    Py_XDECREF(args);
    Py_XDECREF(sr);
    PyGILState_Release(g);
    return e;
}

static st_status api_read_scene(st_scene *s, const char *path, st_error *err)
{
    PyGILState_STATE g = PyGILState_Ensure();
    st_status st = ST_OK;
    SceneRef *sr = scene_wrap(s, 0);
    PyObject *mod = sr ? core() : NULL;
    PyObject *r = NULL;
    if (mod) {
        sr->in_reader = 1;
        r = PyObject_CallMethod(mod, "_read_scene", "Os", (PyObject *)sr, path);
        sr->in_reader = 0;
    }
    if (!r) {
        char text[ST_ERROR_MSG_MAX - 64];
        int line = 0;
        py_exception_text(text, sizeof text, &line, path);
        size_t n = strlen(text);
        if (n && text[n - 1] == '\n')
            text[n - 1] = 0;
        st = st_error_set_at(err, ST_ESCENE, path, line, line ? 1 : 0, "%s", text);
    }
    Py_XDECREF(r);
    Py_XDECREF(sr);
    PyGILState_Release(g);
    return st;
}

static st_status api_script_load(stpy_component *c, st_error *err)
{
    if (c->py)
        return ST_OK;
    PyGILState_STATE g = PyGILState_Ensure();
    st_status st = ST_OK;
    char file[4096];
    if (!c->filename || !c->filename[0] || !c->classname || !c->classname[0]) {
        st = st_component_error(&c->base, !c->filename || !c->filename[0] ? "filename" : "classname",
                                err, ST_ESCENE, "PythonScriptController needs filename and classname");
    } else if ((st = st_component_find_file(&c->base, "filename", c->filename, file, sizeof file,
                                            err)) == ST_OK) {
        SceneRef *sr = scene_of(&c->base);
        PyObject *ref = sr ? ref_new(sr, c, REF_COMP) : NULL;
        PyObject *vars = PyList_New(0);
        for (size_t i = 0; vars && i < c->variables.n; i++) {
            PyObject *s = PyUnicode_FromString(c->variables.s[i] ? c->variables.s[i] : "");
            PyList_Append(vars, s);
            Py_XDECREF(s);
        }
        PyObject *mod = ref && vars ? core() : NULL;
        PyObject *obj = mod ? PyObject_CallMethod(mod, "_script_load", "OssO", ref, file,
                                                  c->classname, vars)
                            : NULL;
        if (!obj) {
            char text[ST_ERROR_MSG_MAX - 200];
            int line = 0;
            py_exception_text(text, sizeof text, &line, file);
            size_t n = strlen(text);
            if (n && text[n - 1] == '\n')
                text[n - 1] = 0;
            st = st_component_error(&c->base, "filename", err, ST_ESCENE,
                                    "PythonScriptController: %s (%s:%d): %s", c->classname, file,
                                    line, text);
        } else {
            c->py = obj; /* the reference _script_load returned */
            PyObject *r = PyObject_CallMethod(mod, "_script_loaded", "O", obj);
            if (!r)
                st = fail_py(c, "createGraph", err);
            Py_XDECREF(r);
        }
        Py_XDECREF(vars);
        Py_XDECREF(ref);
        Py_XDECREF(sr);
    }
    PyGILState_Release(g);
    return st;
}

/* Mappings: SofaPython3 calls apply, applyJ and applyJT with the Data of
 * the two states; here numpy views of the states' parts of the vectors. */
static void api_map(stpy_component *c, stpy_map_op op, const st_mparams *mp, double *out,
                    size_t nout, unsigned wout, const double *in, size_t nin, unsigned win)
{
    static const char *const names[] = {"apply", "applyJ", "applyJT"};
    if (!c->py)
        return;
    PyGILState_STATE g = PyGILState_Ensure();
    SceneRef *sr = scene_of(&c->base);
    PyObject *args = NULL;
    if (sr)
        args = Py_BuildValue("(sNNN)", names[op], mparams(c, mp, 0, 0, 0),
                             make_view(sr, out, (npy_intp)nout, (npy_intp)wout, NPY_DOUBLE, 1),
                             make_view(sr, (void *)in, (npy_intp)nin, (npy_intp)win, NPY_DOUBLE,
                                       0));
    if (args)
        (void)call_method(c, "_st_map", names[op], args, NULL, NULL);
    else
        (void)fail_py(c, names[op], NULL);
    Py_XDECREF(args);
    Py_XDECREF(sr);
    PyGILState_Release(g);
}

static const stpy_api g_api = {
    .struct_size = sizeof(stpy_api),
    .version = STPY_API_VERSION,
    .read_scene = api_read_scene,
    .init = api_init,
    .reinit = api_reinit,
    .reset = api_reset,
    .cleanup = api_cleanup,
    .on_event = api_on_event,
    .script_load = api_script_load,
    .add_force = api_add_force,
    .add_dforce = api_add_dforce,
    .add_k_to_matrix = api_add_k,
    .potential_energy = api_energy,
    .map = api_map,
};

/* ---- SOFA's AdvancedTimer (settee/timer.h), for SofaRuntime.Timer ---- */

static PyObject *py_timer_set_enabled(PyObject *self, PyObject *args)
{
    const char *id;
    int on;
    if (!PyArg_ParseTuple(args, "sp", &id, &on))
        return NULL;
    st_timer_set_enabled(id, on != 0);
    Py_RETURN_NONE;
}

static PyObject *py_timer_is_enabled(PyObject *self, PyObject *args)
{
    const char *id;
    if (!PyArg_ParseTuple(args, "s", &id))
        return NULL;
    return PyBool_FromLong(st_timer_is_enabled(id));
}

/* timer_call(what, label[, value]): begin, end, step_begin, step_end, val_set. */
static PyObject *py_timer_call(PyObject *self, PyObject *args)
{
    const char *what, *label;
    double v = 0.0;
    if (!PyArg_ParseTuple(args, "ss|d", &what, &label, &v))
        return NULL;
    if (!strcmp(what, "begin"))
        st_timer_begin(label);
    else if (!strcmp(what, "end"))
        st_timer_end(label);
    else if (!strcmp(what, "step_begin"))
        st_timer_step_begin(label);
    else if (!strcmp(what, "step_end"))
        st_timer_step_end(label);
    else if (!strcmp(what, "val_set"))
        st_timer_val_set(label, v);
    else {
        PyErr_Format(PyExc_ValueError, "timer_call: unknown operation '%s'", what);
        return NULL;
    }
    Py_RETURN_NONE;
}

/* timer_records(id) -> ([(type, label, seconds, value)], truncated); type:
 * "begin", "end", "step_begin", "step_end", "val_set". */
static PyObject *py_timer_records(PyObject *self, PyObject *args)
{
    static const char *const names[] = {"begin", "end", "step_begin", "step_end", "val_set"};
    const char *id;
    if (!PyArg_ParseTuple(args, "s", &id))
        return NULL;
    const st_timer_record *r;
    size_t n;
    bool truncated;
    st_timer_records(id, &r, &n, &truncated);
    PyObject *list = PyList_New((Py_ssize_t)n);
    if (!list)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        PyObject *t = Py_BuildValue("(ssdd)", names[r[i].type], r[i].label, r[i].time, r[i].value);
        if (!t) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, t);
    }
    return Py_BuildValue("(NO)", list, truncated ? Py_True : Py_False);
}

static PyObject *py_timer_clear(PyObject *self, PyObject *args)
{
    st_timer_clear();
    Py_RETURN_NONE;
}

/* ---- module ---- */

#define FN(name, fn, flags, doc) {name, (PyCFunction)(void (*)(void))(fn), flags, doc}
static PyMethodDef methods[] = {
    FN("new_scene", py_new_scene, METH_NOARGS, "new_scene() -> SceneRef: an empty scene"),
    FN("load_scene", py_load_scene, METH_VARARGS,
       "load_scene(path, sets=None) -> SceneRef; sets: [(\"/A/b.field\", \"text\")]"),
    FN("scene_root", py_scene_root, METH_O, "the root node's Ref"),
    FN("scene_init", py_scene_init, METH_O, "st_scene_init"),
    FN("scene_step", py_scene_step, METH_VARARGS, "scene_step(scene, dt=0, n=1)"),
    FN("scene_reset", py_scene_reset, METH_O, "st_scene_reset"),
    FN("scene_time", py_scene_time, METH_O, "simulated time"),
    FN("scene_file", py_scene_file, METH_O, "the scene's file"),
    FN("scene_destroy", py_scene_destroy, METH_O, "destroys an owned scene now"),
    FN("scene_checkpoint", py_scene_checkpoint, METH_VARARGS, "scene_checkpoint(scene, path, tag)"),
    FN("scene_restore", py_scene_restore, METH_VARARGS, "scene_restore(scene, path, tag) -> steps"),
    FN("detach_views", detach_views, METH_VARARGS, "detach every numpy view of a scene"),
    FN("load_plugin", py_load_plugin, METH_VARARGS, "load_plugin(name, scene=None)"),
    FN("timer_set_enabled", py_timer_set_enabled, METH_VARARGS, "timer_set_enabled(id, on)"),
    FN("timer_is_enabled", py_timer_is_enabled, METH_VARARGS, "timer_is_enabled(id)"),
    FN("timer_call", py_timer_call, METH_VARARGS, "timer_call(what, label, value=0)"),
    FN("timer_records", py_timer_records, METH_VARARGS, "timer_records(id) -> (records, truncated)"),
    FN("timer_clear", py_timer_clear, METH_NOARGS, "st_timer_clear"),
    FN("plugin_paths", py_plugin_paths, METH_NOARGS, "the plugin search path"),
    FN("add_plugin_path", py_add_plugin_path, METH_VARARGS, "add_plugin_path(dir)"),
    FN("log", py_log, METH_VARARGS, "log(level, path, msg, scene=None)"),
    FN("set_log", py_set_log, METH_VARARGS, "set_log(fn(level, where, path, msg) or None, verbose)"),
    FN("node_info", py_node_info, METH_O, "name, path and context of a node"),
    FN("node_parent", py_node_parent, METH_O, "parent node Ref or None"),
    FN("node_children", py_node_children, METH_O, "child node Refs"),
    FN("node_objects", py_node_objects, METH_O, "component Refs"),
    FN("node_add_child", py_node_add_child, METH_VARARGS, "node_add_child(node, name)"),
    FN("node_add_object", py_node_add_object, METH_VARARGS,
       "node_add_object(node, class, name, pyobj=None)"),
    FN("node_set", py_node_set, METH_VARARGS, "node_set(node, key, text)"),
    FN("remove", py_remove, METH_VARARGS, "remove(node, child_or_object)"),
    FN("kill", py_kill, METH_O, "marks a Ref dead"),
    FN("is_within", py_is_within, METH_VARARGS, "is_within(ref, node)"),
    FN("obj_info", py_obj_info, METH_O, "name, class, path ... of a component"),
    FN("obj_node", py_obj_node, METH_O, "the component's node"),
    FN("obj_pyobject", py_obj_pyobject, METH_O, "the Python object of a Python component"),
    FN("obj_fields", py_obj_fields, METH_O, "field names"),
    FN("obj_reinit", py_obj_reinit, METH_O, "calls the component's reinit"),
    FN("field_info", py_field_info, METH_VARARGS, "field_info(obj, name)"),
    FN("field_get", py_field_get, METH_VARARGS, "field_get(obj, name): a copy"),
    FN("field_set", py_field_set, METH_VARARGS, "field_set(obj, name, text)"),
    FN("field_view", py_field_view, METH_VARARGS, "field_view(obj, name, writeable=False)"),
    FN("field_write", py_field_write, METH_VARARGS, "field_write(obj, name, values) -> bool"),
    FN("field_touch", py_field_touch, METH_VARARGS, "field_touch(obj, name)"),
    FN("find_file", py_find_file, METH_VARARGS, "find_file(obj, field, name)"),
    FN("component_matrix", py_component_matrix, METH_VARARGS,
       "component_matrix(obj, 'K' or 'M', wide=False) -> (n, indptr, indices, data) in the "
       "state's DOFs (wide: the system's)"),
    FN("scene_init_added", py_scene_init_added, METH_O,
       "scene_init_added(scene): initialises the components added since init"),
    FN("observe_log", py_observe_log, METH_O,
       "observe_log(scene or None): messages reach settee._core._dispatch_message"),
    FN("obj_roles", py_obj_roles, METH_O, "what a component is (constraint solver, ...)"),
    FN("constraint_problem", py_constraint_problem, METH_O,
       "constraint_problem(solver) -> (W, dfree, lambda), copies of the last problem"),
    FN("constraint_matrix", py_constraint_matrix, METH_O,
       "constraint_matrix(state) -> (rows, cols, row, col, value) of the last problem"),
    FN("linear_system", py_linear_system, METH_O,
       "linear_system(obj) -> (n, indptr, indices, data, b, x, factors) of the last solve"),
    FN("system_matrix", py_system_matrix, METH_VARARGS,
       "system_matrix(obj, mf=0, bf=0, kf=1) -> (n, indptr, indices, data, solver path)"),
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "settee._settee",
                                    "settee's native module (low level; see settee, Sofa)", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__settee(void);
PyMODINIT_FUNC PyInit__settee(void)
{
    if (_import_array() < 0)
        return NULL;
    if (PyType_Ready(&SceneRef_Type) < 0 || PyType_Ready(&Ref_Type) < 0 ||
        PyType_Ready(&ViewBase_Type) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&moddef);
    if (!m)
        return NULL;
    g_error = PyErr_NewExceptionWithDoc("settee.Error",
                                        "A settee error: message, where (file:line:col), path "
                                        "(component) and code (ST_E...)",
                                        PyExc_RuntimeError, NULL);
    Py_XINCREF(g_error);
    PyObject *cap = PyCapsule_New((void *)&g_api, STPY_CAPSULE, NULL);
    if (!g_error || !cap || PyModule_AddObject(m, "Error", g_error) < 0 ||
        PyModule_AddObject(m, "_C_API", cap) < 0) {
        Py_XDECREF(cap);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&SceneRef_Type);
    PyModule_AddObject(m, "SceneRef", (PyObject *)&SceneRef_Type);
    Py_INCREF(&Ref_Type);
    PyModule_AddObject(m, "Ref", (PyObject *)&Ref_Type);
    PyModule_AddIntConstant(m, "LOG_ERROR", ST_LOG_ERROR);
    PyModule_AddIntConstant(m, "LOG_WARNING", ST_LOG_WARNING);
    PyModule_AddIntConstant(m, "LOG_INFO", ST_LOG_INFO);
    PyModule_AddStringConstant(m, "version", ST_VERSION_STRING);
    return m;
}
