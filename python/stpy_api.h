/* stpy_api.h - the contract between the SofaPython3 plugin and the Python
 * module settee._settee (never installed, not part of the SDK).
 *
 * The plugin registers the Python component classes and the ".py" scene
 * reader, and links no Python: it opens libpython at run time when the
 * process has no interpreter yet (embedding), then imports settee._settee
 * and takes this table from its capsule STPY_CAPSULE. Every function of the
 * table runs with the GIL taken by itself. The instances of the plugin's
 * classes are stpy_component, so the module reads the same struct. */
#ifndef SETTEE_STPY_API_H
#define SETTEE_STPY_API_H

#include <settee/settee.h>

#define STPY_CAPSULE "settee._settee._C_API"
#define STPY_API_VERSION 2u

/* Class names the plugin registers. */
#define STPY_CLASS_CONTROLLER "PythonController"
#define STPY_CLASS_FORCEFIELD "PythonForceField"
#define STPY_CLASS_SCRIPT "PythonScriptController"
#define STPY_CLASS_ENGINE "PythonDataEngine"
#define STPY_CLASS_MAPPING "PythonMapping"

/* The instance of every Python component class. */
typedef struct stpy_component {
    st_component base;
    void *py;             /* the Python object (a strong reference), or NULL */
    /* PythonScriptController (SOFA's SofaPython fields) */
    char *filename;       /* "filename": the script */
    char *classname;      /* "classname": the class to instantiate in it */
    st_array variables;   /* "variables": strings handed to the script */
    bool listening;       /* "listening": receives events */
    bool timing;          /* "timingEnabled" (ignored) */
    bool autoreload;      /* "autoreload" (ignored) */
    char *template_name;  /* "template" of the force field: its state type */
    /* PythonMapping (SOFA's BaseMapping fields) */
    st_component *input;  /* "input": the state mapped from */
    st_component *output; /* "output": the state mapped to */
    bool map_forces;      /* "mapForces" */
    bool map_masses;      /* "mapMasses" */
    char *in_type;        /* the Python class's input and output state types ("Vec3d") */
    char *out_type;
    /* The events the Python object handles (bits: api_on_event's event
     * index, then onEvent, then a SofaPython2 script), looked up once for
     * the object events_of (pybind11, which SofaPython3 uses, caches its
     * overrides per type too). */
    unsigned events;
    const void *events_of;
} stpy_component;

/* Which mapping method a map call runs (SofaPython3's names). */
typedef enum stpy_map_op { STPY_APPLY = 0, STPY_APPLY_J, STPY_APPLY_JT } stpy_map_op;

typedef struct stpy_api {
    size_t struct_size;
    unsigned version;
    /* The ".py" reader: runs the file, calls createScene(root). */
    st_status (*read_scene)(st_scene *s, const char *path, st_error *err);
    /* Lifecycle of the plugin's classes. */
    st_status (*init)(stpy_component *c, st_error *err);
    st_status (*reinit)(stpy_component *c, st_error *err);
    void (*reset)(stpy_component *c);
    void (*cleanup)(stpy_component *c);
    void (*on_event)(stpy_component *c, st_event ev, double dt);
    /* PythonScriptController: loads filename and instantiates classname. */
    st_status (*script_load)(stpy_component *c, st_error *err);
    /* Force fields. */
    void (*add_force)(stpy_component *c, const st_mparams *mp, double *f, const double *x,
                      const double *v);
    void (*add_dforce)(stpy_component *c, const st_mparams *mp, double *df, const double *dx,
                       double kfactor, double bfactor);
    void (*add_k_to_matrix)(stpy_component *c, const st_mparams *mp, st_matrix *m,
                            double kfactor);
    double (*potential_energy)(stpy_component *c, const st_mparams *mp, const double *x);
    /* Version 2. Mappings: calls apply(mp, out, in), applyJ(mp, out, in) or
     * applyJT(mp, out, in) with out and in numpy views of nout x wout and
     * nin x win doubles (applyJT: out is the input state's force, added to). */
    void (*map)(stpy_component *c, stpy_map_op op, const st_mparams *mp, double *out,
                size_t nout, unsigned wout, const double *in, size_t nin, unsigned win);
} stpy_api;

#endif
