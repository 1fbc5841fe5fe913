/* field.h - typed data fields, declared by a static table per component.
 *
 * A component is a C struct whose first member is an st_component. Its data
 * fields are members of that struct, described once by a table of st_field.
 * From the table the kernel sets defaults, parses scene values, checks types
 * and arities, resolves links, and prints `settee inspect` and the docs.
 * Plugins never parse scene text themselves.
 *
 *   typedef struct my_solver { st_component base; double rayleigh_stiffness; } my_solver;
 *   static const st_field my_fields[] = {
 *       ST_REAL(my_solver, rayleigh_stiffness, "rayleighStiffness", "0",
 *               "Rayleigh damping coefficient related to stiffness, > 0"),
 *       ST_FIELD_END
 *   };
 */
#ifndef SETTEE_FIELD_H
#define SETTEE_FIELD_H

#include <stddef.h>
#include <stdint.h>

#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct st_component st_component;
typedef double st_vec3[3];
typedef double st_vec2[2];
typedef double st_vec4[4];
typedef int st_int2[2];
/* A mass as SOFA writes it: the mass, then (rigid bodies) the volume and
 * the 3x3 inertia matrix per unit mass, row-major. One value in the scene
 * gives volume 1 and the identity inertia. */
typedef struct st_mass_value {
    double mass;
    double volume;
    double inertia[9];
} st_mass_value;

/* Field types and the C member type each one is stored in. */
typedef enum st_type {
    ST_T_BOOL = 1,  /* bool */
    ST_T_INT,       /* int */
    ST_T_UINT,      /* unsigned int */
    ST_T_REAL,      /* double */
    ST_T_STRING,    /* char * (owned by the component, freed by the kernel) */
    ST_T_VEC3,      /* double[3] */
    ST_T_REALS,     /* st_array of double, width 1 */
    ST_T_UINTS,     /* st_array of unsigned, width 1 */
    ST_T_VEC3S,     /* st_array of double, width 3 */
    ST_T_EDGES,     /* st_array of unsigned, width 2 */
    ST_T_TRIANGLES, /* st_array of unsigned, width 3 */
    ST_T_QUADS,     /* st_array of unsigned, width 4 */
    ST_T_TETRAS,    /* st_array of unsigned, width 4 */
    ST_T_HEXAS,     /* st_array of unsigned, width 8 */
    ST_T_STRINGS,   /* st_array of char *, width 1 */
    ST_T_LINK,      /* st_component * : a link to another component ("@../dofs") */
    ST_T_VEC2,      /* double[2] */
    ST_T_VEC4,      /* double[4] */
    ST_T_RGBA,      /* double[4]: SOFA's RGBAColor ("1 0 0 1", "1 0 0", "#ff0000", "red") */
    ST_T_COORDS,    /* st_array of double, width: the component's state type's coordinate size */
    ST_T_DERIVS,    /* st_array of double, width: the component's state type's derivative size */
    ST_T_MASS,      /* st_mass_value: SOFA's MassType, "m" or (Rigid3d) "m volume inertia(9)" */
    ST_T_INT2,      /* int[2]: SOFA's Vec2i ("localRange") (ABI 2.2) */
    ST_T_RIGID3S,   /* st_array of double, width 7: Rigid3d frames "x y z qx qy qz qw", whatever
                       the component's template (ABI 2.9) */
    ST_T_QUATS,     /* st_array of double, width 4: quaternions "qx qy qz qw" (ABI 2.9) */
    ST_T_TYPE_COUNT
} st_type;

/* A growable array of tuples. The kernel owns and frees it. data holds
 * n * width scalars of the field's scalar type, contiguous. */
typedef struct st_array {
    union {
        void *p;
        double *r;    /* ST_T_REALS, ST_T_VEC3S, ST_T_RIGID3S, ST_T_QUATS */
        unsigned *u;  /* ST_T_UINTS and the element lists */
        char **s;     /* ST_T_STRINGS */
    };
    size_t n;   /* number of tuples */
    size_t cap; /* tuples allocated; 0 with p != NULL means borrowed memory */
} st_array;

/* Field flags. */
enum {
    ST_F_OUTPUT = 1u << 0,   /* read-only output, computed by the component */
    ST_F_REQUIRED = 1u << 1, /* must be set by the scene */
    ST_F_HIDDEN = 1u << 2,   /* not listed by inspect (internal state) */
    ST_F_NOLINK = 1u << 3,   /* may not be linked with "@..." (a string list with it takes
                              * "@a @b" as its items: SOFA's multi-link path lists) */
    ST_F_IGNORED = 1u << 4,  /* accepted for SOFA compatibility, no effect in settee: a scene
                                that sets it gets an information message (--verbose), and the
                                component reference marks it */
    ST_F_COUNT = 1u << 6,    /* an array whose number of tuples must lie in [min, max]
                                (ABI 2.2; see ST_REALS_N) */
    ST_F_NOAUTOLINK = 1u << 5, /* a src="@this" on another component does not link this field
                                (SOFA's setAutoLink(false): a loader's translation, ...) */
    ST_F_BRACKETS = 1u << 7, /* a real list SOFA reads as matrices or rigid masses: in .scn
                                text '[', ']' and ',' separate values too ("[a b c,d e f,g h i]",
                                "m v [a b c, d e f, g h i] ...") */
    ST_F_GEOMETRY = 1u << 8  /* a state link that only gives positions (SOFA's geometryState):
                                not the state the component acts on, so its type does not
                                decide the component's template (ST_LINK_GEOMETRY) */
};

/* Link target kinds, for ST_T_LINK fields: which component a path that ends
 * on a node resolves to. */
typedef enum st_link_kind {
    ST_LINK_ANY = 0,
    ST_LINK_STATE,         /* a MechanicalObject */
    ST_LINK_TOPOLOGY,      /* a topology container */
    ST_LINK_LINEAR_SOLVER, /* a linear solver */
    ST_LINK_ODE_SOLVER,    /* an ODE solver */
    ST_LINK_LOADER,        /* a mesh loader */
    ST_LINK_NODE_KINDS
} st_link_kind;

/* One data field of a component class. Tables end with ST_FIELD_END. */
typedef struct st_field {
    const char *name;        /* scene name, SOFA's ("rayleighStiffness") */
    st_type type;
    size_t offset;           /* offsetof the member in the component struct */
    const char *def;         /* default as scene text ("0", "0 -9.81 0"), or NULL: empty */
    const char *help;        /* one sentence */
    unsigned flags;          /* ST_F_* */
    const char *alias;       /* another scene name for the same field, or NULL */
    st_link_kind link_kind;  /* for ST_T_LINK */
    double min, max;         /* range of numeric scalars when min < max */
} st_field;

/* x rounded to float and back, as SOFA's float data (RGBAColor, grid
 * bounds, OglModel's parse attributes) hold it. The volatile keeps the
 * round trip: GCC 12's SLP vectoriser drops it at -O2 otherwise. */
static inline double st_float_round(double x)
{
    volatile float f = (float)x;
    return f;
}

/* Number of scalars in one tuple of a type (3 for VEC3S, 8 for HEXAS). */
ST_API unsigned st_type_width(st_type t);
/* The type's name as inspect prints it ("real", "vec3[]", "coord[]", "hexahedra"). */
ST_API const char *st_type_name(st_type t);
/* SOFA's named colours (RGBAColor: "red", "navy", ...): true and the colour
 * (rgba may be NULL) when name is one. ABI 2.6. */
ST_API bool st_colour_by_name(const char *name, double rgba[4]);

/* Compile-time check that a member has the C type a field type needs. */
#define ST_FIELD_CHECK_(S, m, T) (0 * sizeof(&((S *)0)->m == (T *)0))
#define ST_FIELD_(S, m, key, T, CT, def, help, flags)                                            \
    {(key), (T), offsetof(S, m) + ST_FIELD_CHECK_(S, m, CT), (def), (help), (flags), NULL,         \
     ST_LINK_ANY, 0.0, 0.0}

#define ST_BOOL(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_BOOL, bool, def, help, 0)
#define ST_INT(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_INT, int, def, help, 0)
#define ST_UINT(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_UINT, unsigned, def, help, 0)
#define ST_REAL(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_REAL, double, def, help, 0)
#define ST_STRING(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_STRING, char *, def, help, 0)
#define ST_VEC2(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_VEC2, st_vec2, def, help, 0)
#define ST_VEC3(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_VEC3, st_vec3, def, help, 0)
#define ST_VEC4(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_VEC4, st_vec4, def, help, 0)
#define ST_RGBA(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_RGBA, st_vec4, def, help, 0)
#define ST_REALS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_REALS, st_array, def, help, 0)
#define ST_UINTS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_UINTS, st_array, def, help, 0)
#define ST_VEC3S(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_VEC3S, st_array, def, help, 0)
#define ST_EDGES(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_EDGES, st_array, def, help, 0)
#define ST_TRIANGLES(S, m, key, def, help)                                                        \
    ST_FIELD_(S, m, key, ST_T_TRIANGLES, st_array, def, help, 0)
#define ST_QUADS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_QUADS, st_array, def, help, 0)
#define ST_TETRAS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_TETRAS, st_array, def, help, 0)
#define ST_HEXAS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_HEXAS, st_array, def, help, 0)
/* State vectors: the width of a point follows the component's state type
 * (st_component_state_type). Before init they parse with the type its
 * "template" names (Vec3d when none; a later "template" regroups the values
 * already parsed); the kernel regroups them into points of the resolved
 * type before init, erroring at the field when the values do not make whole
 * points. A default is written for Vec3d and means one point: a vector the
 * scene did not set holds the type's identity (coordinates) or zero. */
#define ST_COORDS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_COORDS, st_array, def, help, 0)
#define ST_DERIVS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_DERIVS, st_array, def, help, 0)
#define ST_MASS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_MASS, st_mass_value, def, help, 0)
/* Rigid frames and quaternions held by a component whose template is not
 * Rigid3d (SOFA's QuatToRigidEngine<Vec3d>: a vector<Rigid3dCoord> and a
 * vector<Quat>): fixed widths 7 and 4, linking to and from a Rigid3d state's
 * coordinates point for point. ABI 2.9. */
#define ST_RIGID3S(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_RIGID3S, st_array, def, help, 0)
#define ST_QUATS(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_QUATS, st_array, def, help, 0)
#define ST_STRINGS(S, m, key, def, help)                                                          \
    ST_FIELD_(S, m, key, ST_T_STRINGS, st_array, def, help, 0)
/* A link to another component; kind says what a path ending on a node means. */
#define ST_LINK(S, m, key, kind, help)                                                            \
    {(key), ST_T_LINK, offsetof(S, m) + ST_FIELD_CHECK_(S, m, st_component *), NULL, (help), 0,   \
     NULL, (kind), 0.0, 0.0}

/* A link to a state read for its positions only (ST_F_GEOMETRY). */
#define ST_LINK_GEOMETRY(S, m, key, help)                                                         \
    {(key), ST_T_LINK, offsetof(S, m) + ST_FIELD_CHECK_(S, m, st_component *), NULL, (help),      \
     ST_F_GEOMETRY, NULL, ST_LINK_STATE, 0.0, 0.0}

/* A real in [lo, hi], checked when the scene's value is read:
 *   ST_REAL_RANGE(S, poisson, "poissonRatio", "0.45", "help", -1.0, 0.5) */
#define ST_REAL_RANGE(S, m, key, def, help, lo, hi)                                               \
    ST_FIELD_EX(S, m, key, ST_T_REAL, double, def, help, 0, NULL, lo, hi)

/* A pair of integers (SOFA's Vec2i), e.g. localRange "-1 -1". */
#define ST_INT2(S, m, key, def, help) ST_FIELD_(S, m, key, ST_T_INT2, st_int2, def, help, 0)
/* An array with a fixed number of tuples, checked when the scene's value is
 * read (the error names the field and the count):
 *   ST_REALS_N(S, weights, "weights", "1 1 1 1 1 1", "help", 6)
 * ST_FIELD_EX with ST_F_COUNT and [lo, hi] gives a range of counts. */
#define ST_REALS_N(S, m, key, def, help, n)                                                       \
    ST_FIELD_EX(S, m, key, ST_T_REALS, st_array, def, help, ST_F_COUNT, NULL, (n), (n))
#define ST_VEC3S_N(S, m, key, def, help, n)                                                       \
    ST_FIELD_EX(S, m, key, ST_T_VEC3S, st_array, def, help, ST_F_COUNT, NULL, (n), (n))

/* A field SOFA's twin has and settee accepts but does not use (see
 * ST_F_IGNORED): same storage rules as the typed macros. */
#define ST_IGNORED(S, m, key, T, CT, def, help)                                                  \
    ST_FIELD_(S, m, key, T, CT, def, help, ST_F_IGNORED)

/* Fields with flags, an alias or a numeric range use the _EX form:
 *   ST_FIELD_EX(S, m, "key", ST_T_REAL, double, "0", "help", 0, "oldKey", 0.0, 1e300)
 *   ST_OUTPUT(S, m, "indices", ST_T_UINTS, st_array, "help")   -> a read-only output */
#define ST_FIELD_END {NULL, 0, 0, NULL, NULL, 0, NULL, ST_LINK_ANY, 0.0, 0.0}

/* Field tables are static data; to add flags/alias/range in a constant
 * initializer use the _EX form directly. */
#define ST_FIELD_EX(S, m, key, T, CT, def, help, flags, alias, lo, hi)                            \
    {(key), (T), offsetof(S, m) + ST_FIELD_CHECK_(S, m, CT), (def), (help), (flags), (alias),     \
     ST_LINK_ANY, (lo), (hi)}
#define ST_OUTPUT(S, m, key, T, CT, help)                                                         \
    ST_FIELD_EX(S, m, key, T, CT, NULL, help, ST_F_OUTPUT, NULL, 0.0, 0.0)

/* Reading and writing fields of a component at run time (by name). These
 * go through the same parser as the scene loader. */

/* Finds a field of a component by scene name or alias; NULL when absent. */
ST_API const st_field *st_component_field(const st_component *c, const char *name);
/* ABI 2.5. Up to max field names or aliases of c closest to name (best
 * first, the rule of the scene loader's "did you mean"); returns the count.
 * The strings are borrowed from c's class. */
ST_API size_t st_component_suggest_field(const st_component *c, const char *name,
                                         const char **out, size_t max);
/* Scalars per tuple of a field of c: st_type_width(f->type), or for state
 * vectors (ST_T_COORDS, ST_T_DERIVS) the size of c's state type. */
ST_API unsigned st_component_field_width(const st_component *c, const st_field *f);
/* Pointer to a field's storage inside the component. */
ST_API void *st_component_field_ptr(st_component *c, const st_field *f);
/* Parses text (SOFA style: "0 -9.81 0", "true", "@../dofs") into a field,
 * marking it set. Errors say which field and what was expected. */
ST_API st_status st_component_set(st_component *c, const char *name, const char *text,
                                  st_error *err) ST_WARN_UNUSED;
/* True if the scene (or st_component_set) set the field. */
ST_API bool st_component_is_set(const st_component *c, const char *name);
/* Marks a field as modified (after a component writes it), so that readers
 * linked to it refresh. */
ST_API void st_component_touch(st_component *c, const st_field *f);
/* Brings every data-linked input of c up to date (running engines upstream
 * when their inputs changed). Called by the kernel before init and before
 * each step; components may call it before reading a linked input. */
ST_API st_status st_component_update_inputs(st_component *c, st_error *err) ST_WARN_UNUSED;
/* Brings c's own fields up to date for a reader outside the step (the CLI's
 * --collect, the Python module): pulls c's linked inputs and, when c is an
 * initialised engine whose inputs changed since it last ran, runs it, as
 * SOFA's updateIfDirty does when an engine output is read (a BoxROI's
 * indices after its points moved). ABI 2.8. */
ST_API st_status st_component_refresh(st_component *c, st_error *err) ST_WARN_UNUSED;

/* Array helpers (kernel allocator). Resizing keeps the first min(n, old)
 * tuples and zero-fills the rest. */
ST_API st_status st_array_resize(st_array *a, st_type t, size_t n, st_error *err) ST_WARN_UNUSED;
ST_API void st_array_free(st_array *a, st_type t);
/* Resizes a real array of width scalars per tuple (state vectors: the
 * type's coord_size or deriv_size), with the same rules. */
ST_API st_status st_array_resize_width(st_array *a, unsigned width, size_t n,
                                       st_error *err) ST_WARN_UNUSED;

#ifdef __cplusplus
}
#endif
#endif
