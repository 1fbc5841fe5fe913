/* mapping_common.h - what every mechanical mapping plugin shares: the head
 * of the instance (input, output, SOFA's map* switches), its fields, the
 * flags() role function and the sizing of the output state. Compiled into
 * each plugin that uses it (plugins/shared is not a plugin itself). */
#ifndef SETTEE_SHARED_MAPPING_COMMON_H
#define SETTEE_SHARED_MAPPING_COMMON_H

#include <settee/settee.h>

/* Head of a mapping instance (first member of the class's struct).
 *
 * The output may be a visual model (an OglModel: no state role, a Vec3
 * 'position'), as SOFA maps into a VisualModelImpl (a State, not a
 * MechanicalState). Then `out` points to `vis`, a Vec3d state owned by the
 * mapping holding a copy of the model's positions while the mapping
 * initialises (so its init reads and sizes `out` as for a MechanicalObject);
 * map_init_outputs() (or map_head_visual_commit()) copies the result into
 * the model. The mapping is not mechanical (ST_MAP_VISUAL): the kernel
 * calls only its apply(), once after each step, which writes the model's
 * positions through map_head_xout(). */
typedef struct map_head {
    st_component base;
    st_component *input;  /* "input" */
    st_component *output; /* "output" */
    bool map_forces, map_constraints, map_masses, map_matrices; /* SOFA's switches */
    bool apply_rest_position;                                   /* "applyRestPosition" */
    /* Set at init. */
    st_mstate *in, *out;
    bool visual;                  /* the output is a visual model: out == &vis */
    st_mstate vis;                /* the visual output's positions during init (owned) */
    st_array *visual_pos;         /* the visual model's own positions, or NULL */
    const st_field *visual_field;
    /* The output is a MappedObject (SOFA's non-mechanical State of any
     * type): flat 'position' and 'velocity' arrays of its 'template', which
     * the mapping writes after each step as SOFA's UpdateMappingVisitor
     * (apply, then applyJ). `vis` has its type. */
    bool mapped_object;
    st_array *visual_vel;         /* the MappedObject's velocities */
    const st_field *visual_vel_field;
    /* Set by a mapping, before map_head_bind(), that handles MappedObjects
     * itself: outputs of any type it maps, and velocities, its apply_j
     * writing through map_head_vout() (the kernel calls it after each step:
     * ST_MAP_VISUAL_VELOCITY). Other mappings take Vec3d MappedObjects
     * only, positions only, as visual models. */
    bool visual_velocity;
} map_head;

/* Marks the visual output's positions as changed. */
void map_head_touch_visual(map_head *h);
/* Where apply() writes the output's coordinates: the output's slice of x,
 * or the visual model's positions (NULL when the model was resized since
 * the mapping's init: nothing to write). */
double *map_head_xout(map_head *h, double *x);
/* Where apply_j() writes the output's derivatives: the output's slice of v,
 * a MappedObject's velocities, or NULL (a visual model has none; a
 * MappedObject resized since the mapping's init). */
double *map_head_vout(map_head *h, double *v);
/* Copies the positions the mapping's init computed into the visual model
 * (resized to them; with applyRestPosition its restPosition too), or the
 * positions and velocities into a MappedObject. Nothing for a mechanical
 * output. */
st_status map_head_visual_commit(map_head *h, st_error *err);
/* Frees what the head owns (the visual output's copy): call from cleanup. */
void map_head_release(map_head *h);
/* A cleanup for classes whose instance starts with a map_head and own
 * nothing else. */
void map_head_cleanup(st_component *self);

/* Field entries of the head for instance struct S whose first member is
 * `map_head h`: input, output and SOFA's switches. */
#define MAP_HEAD_FIELDS(S)                                                                         \
    {"input", ST_T_LINK, offsetof(S, h.input) + ST_FIELD_CHECK_(S, h.input, st_component *), "@../", \
     "Input object to map (default: the parent node's MechanicalObject)", 0, NULL, ST_LINK_STATE, \
     0.0, 0.0},                                                                                    \
        MAP_OUTPUT_FIELDS(S)

/* The same without "input" (multi-mappings declare their own). */
#define MAP_OUTPUT_FIELDS(S)                                                                       \
    {"output", ST_T_LINK, offsetof(S, h.output) + ST_FIELD_CHECK_(S, h.output, st_component *),   \
     "@./",                                                                                     \
     "Output object to map (default: this node's MechanicalObject, else its visual model; a "  \
     "visual model (OglModel) makes the mapping visual: applied after each step, no forces "   \
     "back)",                                                                                  \
     0, NULL, ST_LINK_ANY,                                                                     \
     0.0, 0.0},                                                                                    \
        ST_FIELD_EX(S, h.map_forces, "mapForces", ST_T_BOOL, bool, "true",                         \
                    "Are forces mapped ? (false: the output's forces and masses do not act on "   \
                    "the input; alias isMechanical, which SOFA also gives mapConstraints and "    \
                    "mapMasses)",                                                                  \
                    0, "isMechanical", 0.0, 0.0),                                                  \
        ST_IGNORED(S, h.map_constraints, "mapConstraints", ST_T_BOOL, bool, "true",                \
                   "Are constraints mapped ? (settee has no constraints to map)"),                \
        ST_BOOL(S, h.map_masses, "mapMasses", "true",                                              \
                "Are masses mapped ? (as in SOFA, no effect on the dynamics)"),                   \
        ST_IGNORED(S, h.map_matrices, "mapMatrices", ST_T_BOOL, bool, "false",                     \
                   "Are matrix explicit mapped? (as SOFA's linear system, settee always "         \
                   "projects mapped matrices)"),                                                  \
        ST_BOOL(S, h.apply_rest_position, "applyRestPosition", "false",                            \
                "set to true to apply this mapping to restPosition at init")

/* st_mapping_ops.flags for any class whose instance starts with a map_head. */
unsigned map_head_flags(const st_component *self);
st_mstate *map_head_input(const st_component *self);
st_mstate *map_head_output(const st_component *self);

/* Checks input (a mechanical state of type in_type, NULL: any) and output
 * (a mechanical state of type out_type, NULL: any, a visual model when
 * out_type is NULL or Vec3d, or a MappedObject of type out_type) and sets
 * h->in, h->out (and h->vis). */
st_status map_head_bind(map_head *h, const st_state_type *in_type, const st_state_type *out_type,
                        st_error *err);

/* A multi-mapping's "input" list (links "@path" to mechanical states):
 * 1 to max entries, each resolved from self's node into ins[0..*n). An
 * error names the entry and what it is not. */
st_status map_resolve_inputs(st_component *self, const st_array *paths, st_mstate **ins,
                             size_t max, size_t *n, st_error *err);

/* Resizes the output state to n points (positions, velocities, rest
 * positions; force and externalForce when they hold values). */
st_status map_resize_output(st_mstate *out, size_t n, st_error *err);
/* The first component of class `cls` in node n or above (SOFA's context
 * search for a companion, such as a mapping's topological mapping), or NULL. */
st_component *map_find_upward(st_node *n, const char *cls);

/* The usual init tail: x_out = apply(x_in), v_out = J v_in, and with
 * applyRestPosition the rest positions too, on the states' own arrays
 * (before the kernel binds them to a system). apply and apply_j take the
 * input's and the output's arrays. */
typedef void (*map_apply_fn)(st_component *self, const double *xin, double *xout);
typedef void (*map_applyj_fn)(st_component *self, const double *vin, double *vout);
st_status map_init_outputs(map_head *h, map_apply_fn apply, map_applyj_fn apply_j,
                           st_error *err);

#endif
