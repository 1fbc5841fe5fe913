/* springs.h - the linear spring set shared by SpringForceField and
 * MeshSpringForceField, and the plugin's classes. Internal to the plugin. */
#ifndef SPRINGS_H
#define SPRINGS_H

#include <settee/settee.h>

/* One linear spring between vertex m1 of state 1 and vertex m2 of state 2
 * (SOFA's LinearSpring). */
typedef struct spring {
    unsigned m1, m2;
    double ks, kd, l0;
    bool elongation_only;
    bool enabled;
} spring;

/* A set of springs acting between two states (possibly the same one), with
 * the Jacobian of each spring cached by the last force computation. */
typedef struct spring_set {
    spring *s;          /* n springs, owned */
    /* The Jacobian df1[m1]/dx2[m2] of each spring, cached by the last force
     * computation as the five numbers it is made of, (ks - F/d, U, F/d):
     * J[j][k] = ((ks - F/d) U[j]) U[k] (+ F/d on the diagonal), rebuilt
     * with exactly these operations where it is used (springs_jacobian),
     * so the values are the 3x3 block's to the bit in 40 bytes instead of
     * 72. Owned. */
    double (*jac)[5];
    unsigned (*ends)[2];  /* n: (m1, m2) of each spring, packed for the product loop */
    size_t n, cap;
    st_mstate *ms1, *ms2;
    double min_length;  /* a spring shorter than this has no force (0: SOFA's
                           SpringForceField's 1e-9; the bending springs use 1e-4) */
    bool repulsive;     /* RepulsiveSpringForceField: a spring acts only when
                           0 < d < L0 (enabled and elongationOnly ignored, as
                           SOFA's), and has no potential energy (SOFA's 0) */
} spring_set;

/* Appends a spring (init time only). */
st_status springs_push(spring_set *set, spring sp, st_error *err);
/* The state of an object1/object2 link (which must be a state), or the
 * node's state; errors name the field. */
st_status springs_link_state(st_component *self, st_component *link, const char *field,
                             st_mstate **out, st_error *err);
/* Appends the spring (m1, m2, ks, kd) with its rest length from x0 (3
 * reals per point), enabled, not elongation-only. */
st_status springs_push_rest(spring_set *set, const double *x0, unsigned m1, unsigned m2,
                            double ks, double kd, st_error *err);
/* Allocates the Jacobian cache for the current springs (zeroed). */
st_status springs_finish(spring_set *set, st_error *err);
void springs_free(spring_set *set);

/* SOFA's SpringForceField handlers of a change of the topology of one or
 * both states (sides: 1 the m1 ends name its points, 2 the m2 ends, 3
 * both), each side as its own handler over the whole change: on points
 * removed (descending), the springs whose end is the removed point are
 * erased (order kept) and the ends naming the then-last point renumbered;
 * with edge_type (the topology is an EdgeSetTopologyContainer), a removed
 * edge (e0, e1) also erases the first spring (m1, m2) == (e0, e1) (side 1;
 * side 2 reads (m2, m1)). The Jacobian cache is resized. *changed tells
 * whether a spring was erased or renumbered. */
st_status springs_topology_changed(spring_set *set, unsigned sides, bool edge_type,
                                   const st_topo_event *ev, size_t nev, bool *changed,
                                   st_error *err);
/* A checkpoint of the springs (their count, then each one's ends, ks, kd,
 * rest length and flags): the springs a topological change erased or
 * renumbered are run state. Reading gives the set the saved springs and a
 * zeroed Jacobian cache (the next force computation fills it). */
st_status springs_transfer(spring_set *set, st_checkpoint *ck, st_error *err);
/* Whether SOFA's getTopologyType() of this topology is EDGE. */
bool springs_edge_topology(const st_component *topology);

/* A reader of SOFA's `spring` text of the rigid springs (JointSpringForceField,
 * GearSpringForceField: "BEGIN_SPRING i j ATTRIBUTE values ... END_SPRING"),
 * in whitespace-separated tokens; errors name the field `spring` of owner
 * and the spring being read (index, 0-based). */
typedef struct spring_text {
    const char *p;
    st_component *owner;
    size_t index;
} spring_text;
/* The next token into tok (size bytes); false at the end of the text. */
bool spring_text_token(spring_text *r, char *tok, size_t size);
/* count numbers after the attribute `what`. */
st_status spring_text_numbers(spring_text *r, const char *what, double *out, size_t count,
                              st_error *err);
/* An end's index, a point of ms (end_name: "p1", "m1", ...). */
st_status spring_text_index(spring_text *r, const st_mstate *ms, const char *end_name,
                            unsigned *out, st_error *err);

/* The role functions on a spring set; vectors are the system's global ones. */
void springs_add_force(spring_set *set, double *f, const double *x, const double *v);
void springs_add_dforce(spring_set *set, double *df, const double *dx, double kfactor);
void springs_add_k(spring_set *set, st_matrix *m, double kfactor);
double springs_energy(const spring_set *set, const double *x);

/* The loops of springs_add_force and springs_add_dforce over a range of
 * springs, for the parallel twins (plugins/MultiThreading), where
 * springs_one_state3 holds (both ends on one Vec3d state): 6 scalars per
 * spring at g + 6 (i - begin), for its two ends, which the caller adds to the points
 * in spring order, as the sequential loop does (forces_range: what f gains,
 * Jacobians cached; dforces_range: what df loses). x, v, dx: the state's
 * slices. */
bool springs_one_state3(const spring_set *set);
void springs_forces_range(spring_set *set, const double *x, const double *v, size_t begin,
                          size_t end, double *g);
void springs_dforces_range(const spring_set *set, const double *dx, double kfactor, size_t begin,
                           size_t end, double *g);
/* The spring sets of SpringForceField and MeshSpringForceField instances. */
spring_set *spring_force_field_set(st_component *self);
spring_set *mesh_spring_force_field_set(st_component *self);

/* The head of a component whose force is one spring set (the bending
 * springs, the grid springs): spring_head_ops act on it. */
typedef struct spring_head {
    st_component base;
    spring_set set;
    double rayleigh_stiffness; /* "rayleighStiffness" */
} spring_head;
extern const st_forcefield_ops spring_head_ops;

/* ---- what the bending springs share (bending_common.c) ---- */

/* Edges of surface elements as SOFA's containers number them: side j of an
 * element e of width w is the edge (e[(j+1)%w], e[(j+2)%w]) (for a triangle,
 * the edge opposite vertex j); around[2*k], around[2*k+1] are the first two
 * elements holding edge k (in element order) and count[k] how many do. */
typedef struct elem_edges {
    unsigned *side;   /* n_elements * w edge indices */
    unsigned *around; /* n_edges * 2 */
    unsigned *count;  /* n_edges */
    size_t n_edges;
} elem_edges;
void elem_edges_free(elem_edges *e);

/* What a bending component reads: binds the node's state and the topology
 * (the `topology` link, else the first found upward), takes the topology's
 * elements of `type` (w vertices each), checks that they use points of the
 * state, and numbers their edges. *elems is NULL (and ee empty) when the
 * topology has none. Errors name the component. */
st_status bending_elements(st_component *self, st_component **topology, st_mstate **ms,
                           st_type type, unsigned w, const st_array **elems, elem_edges *ee,
                           st_error *err);

/* FastTriangularBendingSprings and the quad bending springs follow their
 * topology by building again from its current elements after each change
 * (the class's init, run by a listener), which is the set SOFA's handlers
 * leave when no change moves a point or meets an edge held by more than
 * three triangles (TriangularBendingSprings follows SOFA's handlers event
 * by event instead: triangular_bending_springs.c). Registers once. */
/* True while a topological change builds a bending component again. */
bool bending_rebuilding(void);
st_status bending_follow(st_component *self, st_component *topology, st_error *err);

/* SOFA's bending springs visit the elements in order and each one's sides
 * in order. For edge k held by exactly two elements, the first visit (or
 * the last, with `last`) comes from element e at its side j, the other
 * element o holding the edge at its side jo. False when k is not held by
 * exactly two elements. */
typedef struct edge_visit {
    size_t e, o;
    unsigned j, jo;
} edge_visit;
bool elem_edges_visit(const elem_edges *ee, unsigned w, size_t k, bool last, edge_visit *v);

/* SOFA's PairInteractionForceField links, for S with members object1, object2. */
#define SPRING_F_OBJECTS(S)                                                                       \
    ST_LINK(S, object1, "object1", ST_LINK_STATE,                                                 \
            "First object associated to this spring set (default: the MechanicalObject of the "   \
            "node, else of its nearest ancestor)"),                                               \
        ST_LINK(S, object2, "object2", ST_LINK_STATE,                                             \
                "Second object associated to this spring set (default: the MechanicalObject of "  \
                "the node, else of its nearest ancestor)")

/* SOFA's ForceField data, shared by the spring force fields. */
#define SPRING_F_RAYLEIGH(S)                                                                      \
    ST_REAL(S, rayleigh_stiffness, "rayleighStiffness", "0",                                      \
            "Rayleigh damping coefficient related to stiffness, > 0")
/* The same for a component beginning with a spring_head h. */
#define SPRING_F_RAYLEIGH_HEAD(S)                                                                 \
    ST_REAL(S, h.rayleigh_stiffness, "rayleighStiffness", "0",                                    \
            "Rayleigh damping coefficient related to stiffness, > 0")

/* ---- SpringForceField and the classes derived from it in SOFA
 * (QuadBendingSprings, TriangleBendingSprings) ---- */
typedef struct spring_ff {
    st_component base;
    st_array stiffness;       /* "stiffness", real[] */
    st_array damping;         /* "damping", real[] */
    st_array spring_list;     /* "spring", real[] (5 per spring) */
    st_array lengths;         /* "lengths" (alias "length") */
    st_array elongation_only; /* "elongationOnly", uint[] of 0/1 */
    st_array enabled;         /* "enabled", uint[] of 0/1 */
    st_array indices1;        /* "springsIndices1" (alias "indices1") */
    st_array indices2;        /* "springsIndices2" (alias "indices2") */
    double show_arrow_size;   /* "showArrowSize" */
    char *file_springs;       /* "fileSprings": refused when set */
    int draw_mode;            /* "drawMode" */
    double rayleigh_stiffness;
    st_component *object1, *object2;
    spring_set set;
    st_component *topo[2];    /* each state's topology (SOFA's getMeshTopology()), or NULL */
    /* the derived classes' own data */
    st_vec2 local_range;      /* QuadBendingSprings' "localRange" */
    st_component *topology;   /* the bending springs' "topology" link */
} spring_ff;

/* SpringForceField's init in three steps, so that a derived class can make
 * its springs between them: bind checks fileSprings and binds object1 and
 * object2 (both of the class's template); read makes the springs of the
 * `spring` list, else of the index lists; done lays out the Jacobian cache
 * and follows each state's topology (SOFA's point and edge handlers). */
st_status spring_ff_bind(spring_ff *s, st_error *err);
st_status spring_ff_read(spring_ff *s, st_error *err);
st_status spring_ff_done(spring_ff *s, st_error *err);
/* Rewrites the lists (indices, stiffness, damping, lengths, elongationOnly,
 * enabled, and `spring` when `list`) from the springs. */
st_status spring_ff_lists(spring_ff *s, bool list, st_error *err);
void spring_ff_cleanup(st_component *self);
extern const st_forcefield_ops spring_ff_ops;

/* SpringForceField's data, shared by the classes deriving from it. */
#define SPRING_FF_FIELDS \
    ST_REALS(spring_ff, stiffness, "stiffness", "100", \
             "List of stiffnesses of the springs built from indices1/indices2 (padded with its " \
             "last value)"), \
    ST_REALS(spring_ff, damping, "damping", "5", \
             "List of damping coefficients of the springs built from indices1/indices2 (padded " \
             "with its last value)"), \
    ST_REALS(spring_ff, spring_list, "spring", NULL, \
             "Springs as SOFA's LinearSpring text: 'i j ks kd restLength' repeated (5 numbers " \
             "per spring); when set, the lists are rewritten from it"), \
    ST_FIELD_EX(spring_ff, lengths, "lengths", ST_T_REALS, st_array, NULL, \
                "List of rest lengths of the springs built from indices1/indices2 (empty: 0)", 0, \
                "length", 0.0, 0.0), \
    ST_UINTS(spring_ff, elongation_only, "elongationOnly", "0", \
             "Per spring, 1 if the spring only acts when stretched (0 or 1; padded with its last " \
             "value)"), \
    ST_UINTS(spring_ff, enabled, "enabled", "1", \
             "Per spring, 1 if the spring is enabled (0 or 1; padded with its last value)"), \
    ST_FIELD_EX(spring_ff, indices1, "springsIndices1", ST_T_UINTS, st_array, NULL, \
                "Indices of the first vertex of each spring, in object1", 0, "indices1", 0.0, \
                0.0), \
    ST_FIELD_EX(spring_ff, indices2, "springsIndices2", ST_T_UINTS, st_array, NULL, \
                "Indices of the second vertex of each spring, in object2", 0, "indices2", 0.0, \
                0.0), \
    ST_IGNORED(spring_ff, show_arrow_size, "showArrowSize", ST_T_REAL, double, "0.01", \
               "size of the axis"), \
    ST_IGNORED(spring_ff, draw_mode, "drawMode", ST_T_INT, int, "0", \
               "The way springs will be drawn: 0 line, 1 cylinder, 2 arrow"), \
    ST_STRING(spring_ff, file_springs, "fileSprings", NULL, \
              "File of springs (SOFA's .xs3); not supported yet: an error when set"), \
    SPRING_F_RAYLEIGH(spring_ff), \
    SPRING_F_OBJECTS(spring_ff)

extern const st_class spring_force_field_class;
extern const st_class mesh_spring_force_field_class;
extern const st_class rest_shape_springs_force_field_class;
extern const st_class triangular_bending_springs_class;
extern const st_class fast_triangular_bending_springs_class;
extern const st_class quadular_bending_springs_class;
extern const st_class regular_grid_spring_force_field_class;
extern const st_class quad_bending_springs_class;
extern const st_class triangle_bending_springs_class;
extern const st_class joint_spring_force_field_class;
extern const st_class triangular_quadratic_springs_class;
extern const st_class triangular_biquadratic_springs_class;
extern const st_class polynomial_springs_force_field_class;
extern const st_class polynomial_rest_shape_springs_force_field_class;
extern const st_class gear_spring_force_field_class;
extern const st_class repulsive_spring_force_field_class;
extern const st_class angular_spring_force_field_class;
extern const st_class frame_spring_force_field_class;

#endif
