/* roles.h - the interfaces components implement, one struct per role.
 *
 * Vectors passed to role functions are the mechanical system's *global*
 * vectors, all states of the solver's subtree laid out one after another.
 * Derivative vectors (v, f, df, dx) hold ms->type->deriv_size doubles per
 * point, coordinate vectors (x) ms->type->coord_size. A component finds its
 * own part with st_slice() (derivatives) and st_slice_x() (coordinates):
 *
 *   double *f = st_slice(fglobal, ms);        // ms = st_component_mstate(self)
 *   const double *x = st_slice_x(xglobal, ms);
 *   f[3*i + 1] += ...;                        // y component of point i (Vec3d)
 *
 * A component acting on two states (an interaction force field) takes one
 * slice per state. Every role struct begins with struct_size and is only
 * ever appended to.
 */
#ifndef SETTEE_ROLES_H
#define SETTEE_ROLES_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/component.h"
#include "settee/status.h"
#include "settee/topology.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct st_matrix st_matrix;

/* Parameters of the current mechanical operation. */
typedef struct st_mparams {
    size_t struct_size;
    double dt;          /* time step */
    double time;        /* simulated time at the start of the step */
    double gravity[3];  /* the context's gravity */
    bool implicit;      /* set by implicit solvers: force fields may cache Jacobians */
    /* ABI 2.8, in 2.6's padding (the size is unchanged): set while
     * st_system_apply_jt maps constraint rows (SOFA's applyJT on a
     * MatrixDeriv), for the mappings whose constraint mapping differs from
     * their force mapping. */
    bool constraint_jt;
    /* ABI 2.7, in what was padding (the size is 2.6's): how many
     * add_dforce calls each step's linear solve may make (a matrix-free
     * iterative solver's iteration cap, set when it binds to the system; 0:
     * not known). A force field may assemble its stiffness at a step's first
     * product when that many products pay for it. */
    unsigned dforce_calls;
} st_mparams;

/* Force fields. K = df/dx and B = df/dv as SOFA defines them (derivatives of
 * the force, so a spring's K is negative semi-definite). Matrix functions add
 * factor * K (or B) to m with st_matrix_add_block / st_matrix_add_diag. The
 * kernel passes kfactor already including the component's own Rayleigh
 * stiffness (kfactor + bfactor * rayleigh_stiffness) and skips calls whose
 * factors are exactly zero. */
struct st_forcefield_ops {
    size_t struct_size;
    /* f += f(x, v). */
    void (*add_force)(st_component *self, const st_mparams *mp, double *f, const double *x,
                      const double *v);
    /* df += kfactor * K dx + bfactor * B dx, K and B taken at the state of
     * the last add_force. */
    void (*add_dforce)(st_component *self, const st_mparams *mp, double *df, const double *dx,
                       double kfactor, double bfactor);
    void (*add_k_to_matrix)(st_component *self, const st_mparams *mp, st_matrix *m,
                            double kfactor);
    void (*add_b_to_matrix)(st_component *self, const st_mparams *mp, st_matrix *m,
                            double bfactor);
    double (*potential_energy)(st_component *self, const st_mparams *mp, const double *x);
    /* The component's Rayleigh stiffness coefficient (NULL: 0). */
    double (*rayleigh_stiffness)(const st_component *self);
    /* ABI 2.2. For force fields whose matrix calls change from step to step
     * (contacts, unilateral constraints, plasticity): declare once, with
     * st_matrix_reserve_block, every block add_k_to_matrix / add_b_to_matrix
     * may ever write (a superset). The kernel calls it when it builds a
     * pattern (the first assembly, and only again if a call falls outside
     * the pattern); an active set moving inside the declared blocks then
     * costs no allocation and no new symbolic analysis. NULL: the pattern
     * grows to the union of the blocks written so far (one rebuild each
     * time a new block appears). */
    void (*reserve_pattern)(st_component *self, const st_mparams *mp, st_matrix *m);
};

/* Masses. The kernel passes factor already including the component's own
 * Rayleigh mass (mfactor - bfactor * rayleigh_mass). Gravity is part of the
 * force: add_gravity_to_force adds m g (unless the mass keeps gravity
 * separate, then add_gravity_to_v adds dt g to v). */
struct st_mass_ops {
    size_t struct_size;
    void (*add_m_dx)(st_component *self, const st_mparams *mp, double *res, const double *dx,
                     double factor);
    /* a = M^-1 f; NULL when the mass matrix is not diagonal. */
    void (*acc_from_f)(st_component *self, const st_mparams *mp, double *a, const double *f);
    void (*add_m_to_matrix)(st_component *self, const st_mparams *mp, st_matrix *m,
                            double mfactor);
    void (*add_gravity_to_force)(st_component *self, const st_mparams *mp, double *f,
                                 const double *x, const double *v);
    void (*add_gravity_to_v)(st_component *self, const st_mparams *mp, double *v, double dt);
    double (*kinetic_energy)(st_component *self, const st_mparams *mp, const double *v);
    double (*potential_energy)(st_component *self, const st_mparams *mp, const double *x);
    bool (*is_diagonal)(const st_component *self);
    double (*rayleigh_mass)(const st_component *self); /* NULL: 0 */
};

/* Projective constraints (fixed points, planes, ...). */
struct st_projective_ops {
    size_t struct_size;
    void (*project_response)(st_component *self, const st_mparams *mp, double *dx);
    void (*project_velocity)(st_component *self, const st_mparams *mp, double *v);
    void (*project_position)(st_component *self, const st_mparams *mp, double *x);
    /* Clears the constrained rows and columns with st_matrix_project_dof. */
    void (*apply_to_matrix)(st_component *self, const st_mparams *mp, st_matrix *m);
};

/* Mappings: an output state computed from one input state (or, for a
 * multi-mapping, several: see inputs and get_j). All vectors are the system's global
 * ones; a mapping reads its inputs' slices and writes its output's.
 *
 * SOFA's switches, reported by flags(): a mapping that does not map its
 * forces hides everything below it from the parent's dynamics (SOFA's
 * visitors stop there); one that maps forces but not masses hides the
 * masses of its output state and of the states below. */
enum {
    ST_MAP_FORCES = 1u << 0,      /* "mapForces" */
    ST_MAP_CONSTRAINTS = 1u << 1, /* "mapConstraints" */
    ST_MAP_MASSES = 1u << 2,      /* "mapMasses" */
    ST_MAP_MATRICES = 1u << 3,    /* "mapMatrices" */
    ST_MAP_ALL = 0xfu,
    /* Not a switch: the output is a visual model (SOFA's non-mechanical
     * mapping into a VisualModelImpl). The kernel keeps such a mapping out
     * of the mechanical system: no Jacobian, no forces back, never called
     * while a solver propagates; after each step (and the output set at
     * the mapping's init) it calls apply() once with the system's x, and
     * the mapping writes the visual model's positions itself (output()
     * returns NULL). */
    ST_MAP_VISUAL = 1u << 4,
    /* ABI 2.10. With ST_MAP_VISUAL: the non-mechanical output also has
     * velocities (a MappedObject, SOFA's State that is not a
     * MechanicalState). After each apply() the kernel calls apply_j() once
     * with the system's v, and the mapping writes the output's velocities
     * itself (SOFA's UpdateMappingVisitor: apply, then applyJ). */
    ST_MAP_VISUAL_VELOCITY = 1u << 5
};

/* Receives the blocks of a mapping's Jacobian J = d x_out / d x_in (see
 * st_mapping_ops.get_j). Owned by the kernel. */
typedef struct st_jbuilder st_jbuilder;

/* Adds a block of J: output point i (of the mapping's output) by point j of
 * the input state in, out->type->deriv_size x in->type->deriv_size values,
 * row-major. Blocks for the same (i, in, j) add up. */
ST_API void st_jbuilder_add(st_jbuilder *jb, size_t i, const st_mstate *in, size_t j,
                            const double *block);
/* Adds w times the identity (the two states' derivatives of the same size;
 * on a Rigid3d/Vec3d pair the first three rows and columns). */
ST_API void st_jbuilder_add_diag(st_jbuilder *jb, size_t i, const st_mstate *in, size_t j,
                                 double w);

struct st_mapping_ops {
    size_t struct_size;
    st_mstate *(*input)(const st_component *self);
    st_mstate *(*output)(const st_component *self);
    void (*apply)(st_component *self, const st_mparams *mp, double *x);      /* x_out = J(x_in) */
    void (*apply_j)(st_component *self, const st_mparams *mp, double *v);    /* v_out = J v_in */
    void (*apply_jt)(st_component *self, const st_mparams *mp, double *f);   /* f_in += J^T f_out */
    /* ABI 2.1. */
    /* The Jacobian at the positions of the last apply, block by block with
     * st_jbuilder_add. Make the same calls (same points, same order) every
     * time while the topology is unchanged: the kernel records the pattern
     * at the first call and replays later ones into it. NULL: the mapping
     * cannot take part in matrix assembly. */
    void (*get_j)(st_component *self, const st_mparams *mp, st_jbuilder *jb);
    /* Non-linear mappings (NULL for linear ones). SOFA's updateK: f is the
     * global force vector, the output's slice holding the child force;
     * keep what the geometric stiffness K = d(J^T f_child)/d x_in needs. */
    void (*update_k)(st_component *self, const st_mparams *mp, const double *f);
    /* SOFA's applyDJT: df_in += kfactor K dx_in (K of the last update_k). */
    void (*apply_djt)(st_component *self, const st_mparams *mp, double *df, const double *dx,
                      double kfactor);
    /* SOFA's getK: adds kfactor K to m on input points (st_matrix_add_block). */
    void (*get_k)(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor);
    /* ST_MAP_* switches (NULL: ST_MAP_ALL). */
    unsigned (*flags)(const st_component *self);
    /* Multi-mappings: writes up to max input states into out and returns
     * how many there are (NULL: the one state of input()). */
    size_t (*inputs)(const st_component *self, st_mstate **out, size_t max);
};

/* ODE solvers. bind() runs once after the kernel compiled the solver's
 * subtree into a mechanical system: allocate scratch vectors there, find
 * the linear solver. solve() advances the system's x and v by dt. */
struct st_odesolver_ops {
    size_t struct_size;
    st_status (*bind)(st_component *self, st_system *sys, st_error *err);
    st_status (*solve)(st_component *self, st_system *sys, double dt, st_error *err);
    /* SOFA's integration factors. in/out: 0 = position, 1 = velocity, 2 = acceleration. */
    double (*integration_factor)(const st_component *self, int in, int out, double dt);
    double (*solution_integration_factor)(const st_component *self, int out, double dt);
    double (*velocity_integration_factor)(const st_component *self, double dt);
    double (*position_integration_factor)(const st_component *self, double dt);
};

/* Linear solvers: solve (mf M + bf B + kf K) x = b for a system. */
struct st_linsolver_ops {
    size_t struct_size;
    /* Once per system: allocate, build the pattern, analyse. */
    st_status (*bind)(st_component *self, st_system *sys, st_error *err);
    /* Each step: assemble (or remember the factors for a matrix-free
     * product) and factor. */
    st_status (*set_system)(st_component *self, st_system *sys, double mf, double bf, double kf,
                            st_error *err);
    st_status (*solve)(st_component *self, st_system *sys, double *x, const double *b,
                       st_error *err);
};

/* Topologies: points and element lists. */
struct st_topology_ops {
    size_t struct_size;
    size_t (*nb_points)(st_component *self);                       /* 0: no positions */
    void (*get_point)(st_component *self, size_t i, double p[3]);
    /* Element lists by type (ST_T_EDGES ... ST_T_HEXAS); NULL or n == 0 when none. */
    const st_array *(*elements)(st_component *self, st_type kind);
    /* Appended after ABI 2.3 (read only when struct_size covers it; may be
     * NULL: the topology cannot change). Removes elements as SOFA's
     * modifiers do and announces the change (st_topology_changed);
     * st_topology_remove calls it. */
    st_status (*remove)(st_component *self, st_elem elem, const unsigned *ids, size_t n,
                        st_error *err);
    /* Appended in ABI 2.5 (read only when struct_size covers it; may be
     * NULL: elements cannot be added). Appends n elements of kind elem
     * (verts: st_elem_vertices(elem) point indices each) as SOFA's modifiers
     * do, with the new sub-elements (a face's missing edges) first, and
     * announces the change; st_topology_add calls it. */
    st_status (*add)(st_component *self, st_elem elem, const unsigned *verts, size_t n,
                     st_error *err);
    /* Appended in ABI 2.6 (read only when struct_size covers it; may be
     * NULL: points cannot be added). Appends n points, each optionally
     * made of ancestors (st_topology_add_points), as SOFA's addPoints, and
     * announces the change; st_topology_add_points calls it. */
    st_status (*add_points)(st_component *self, size_t n, const size_t *ancestor_start,
                            const unsigned *ancestors, const double *coefs, st_error *err);
    /* Appended in ABI 2.11 (read only when struct_size covers it; may be
     * NULL: the operations above tell). Whether this instance can remove
     * (ST_TOPO_REMOVED) or add (ST_TOPO_ADDED) elements of kind elem while
     * the scene runs, for a class whose instances differ (a static mesh and
     * a dynamic container sharing the operations); st_topology_can_change
     * asks it after the operation's presence. */
    bool (*can_change)(const st_component *self, st_topo_change change, st_elem elem);
};

/* Engines: outputs computed from inputs, recomputed lazily when an output
 * is read while an input changed. */
struct st_engine_ops {
    size_t struct_size;
    st_status (*update)(st_component *self, st_error *err);
};

/* Mechanical states. The instance of a class with this role begins with an
 * st_mstate (mechanics.h). After the class's init has sized it (ms->n =
 * position.n), the kernel lays position, velocity, force, rest_position,
 * externalForce and derivX out in the global vectors of the system that
 * integrates it, and gives them back (owned) when the scene is destroyed:
 * declare them as fields (ST_COORDS / ST_DERIVS, freed by the kernel) or
 * free them in cleanup. */
struct st_state_ops {
    size_t struct_size;
    /* The state's type, from its fields (its "template"); called once by
     * the kernel before the state's vectors are parsed into points and
     * before init. Errors name the field. */
    st_status (*resolve_type)(st_component *self, const st_state_type **out, st_error *err);
    /* Appended in ABI 2.11 (read only when struct_size covers them; may be
     * NULL: the state cannot be resized without a topology). Called by
     * st_mstate_resize and st_mstate_replace_value, on vectors the state
     * owns (the systems are unbound first): resize gives every vector n
     * points (new ones zero, coordinates the identity) and sets ms->n;
     * replace_value copies point from onto point to in every vector
     * holding both. */
    st_status (*resize)(st_component *self, size_t n, st_error *err);
    void (*replace_value)(st_component *self, size_t from, size_t to);
};

/* ABI 2.11. One output of a narrow phase (SOFA's DetectionOutput), as
 * st_collision_ops.detections gives it. */
typedef struct st_detection {
    const st_component *model[2]; /* the two collision models of the pair */
    unsigned elem[2];             /* the element of each model */
    double point[2][3];           /* the closest points on elem[0] and elem[1] */
    double normal[3];             /* unit, from point[0] to point[1] */
    double value;                 /* their distance minus the contact distance */
} st_detection;
/* Called for each detection output; an error stops the walk. */
typedef st_status (*st_detection_fn)(void *ud, const st_detection *d, st_error *err);

/* Collision pipelines (SOFA's Pipeline: CollisionPipeline). The animation
 * loop calls compute() of the first component of the root node that plays
 * this role at SOFA's point of the step: after the begin event and the
 * engines' inputs, before the ODE solvers integrate (DefaultAnimationLoop's
 * computeCollision). bind() runs once at scene init, after the mechanical
 * systems are compiled and bound (it may allocate; compute() should not).
 * Appended after ABI 2.1. */
typedef struct st_collision_ops {
    size_t struct_size;
    st_status (*bind)(st_component *self, st_node *root, st_error *err);
    st_status (*compute)(st_component *self, st_node *root, st_error *err);
    /* Appended after ABI 2.2 (read only when struct_size covers it; may be
     * NULL). Collision groups (SOFA's CollisionGroupManager): called once
     * at scene init, after every component's init and before the
     * mechanical systems are compiled, with the n driven ODE solvers in
     * the kernel's order. It sets group[i] to the index j <= i of the first
     * solver whose subtree must be integrated together with solver i's
     * (the kernel has set group[i] = i); each group is then compiled into
     * one system that its first solver integrates. */
    st_status (*solver_groups)(st_component *self, st_node *root, st_component *const *solvers,
                               size_t n, size_t *group, st_error *err);
    /* Appended in ABI 2.5 (read only when struct_size covers it; may be
     * NULL). SOFA's isolated interaction force fields: the contacts whose
     * force field lies outside every ODE solver's subtree. DefaultAnimationLoop
     * calls it once per step after compute(), MultiStepAnimationLoop before
     * each of its integrations, both before any ODE solver runs: the
     * component adds the contacts' forces at the states' current positions
     * to their externalForce (st_mstate_external_force), which every force
     * evaluation of that integration adds and which the kernel clears after
     * it. */
    st_status (*integrate_begin)(st_component *self, st_node *root, st_error *err);
    /* Appended in ABI 2.11 (read only when struct_size covers it; may be
     * NULL). SOFA's NarrowPhaseDetection::getDetectionOutputs: calls fn for
     * each detection output of the last compute(), pair of models after
     * pair, when the pipeline's narrow phase is `narrow` (NULL: any). The
     * outputs stay valid until the next compute() or topological change:
     * copy what is needed before changing a topology. */
    st_status (*detections)(st_component *self, const st_component *narrow, st_detection_fn fn,
                            void *ud, st_error *err);
    /* Appended in ABI 2.12 (read only when struct_size covers it; may be
     * NULL). SOFA's narrow phase computes the outputs of every pair of
     * models its broad phase gives, whatever the contact manager then does
     * with them; settee computes those of a pair that gets no contact (the
     * response "nullptr", or nothing integrates either side) only when a
     * component asks: a reader of detections() calls this from its init
     * (or later) for the pairs of collision models a and b (b NULL: every
     * pair holding a). From then on, such pairs get their narrow phase at
     * each compute() and appear in detections(), in the broad phase's
     * order among the others; no contact is created for them. */
    st_status (*request_detections)(st_component *self, const st_component *a,
                                    const st_component *b, st_error *err);
} st_collision_ops;

/* Animation loops: one step of the whole scene. */
struct st_animloop_ops {
    size_t struct_size;
    st_status (*step)(st_component *self, st_node *root, double dt, st_error *err);
};

/* ABI 2.2. Checkpoints (`settee run --checkpoint FILE`, `--resume FILE`).
 * The kernel itself saves the steps, every node's time, every state's
 * vectors and every system's vectors, its scratch vectors included
 * (st_system_vec_alloc): a solver whose only memory between steps lives
 * there needs nothing. A component with other state that changes during the
 * run gives `transfer`, called once the scene is initialised, in scene
 * order, both when a checkpoint is written and when it is read: it passes
 * each item to st_checkpoint_data in the same order both times. */
typedef struct st_checkpoint st_checkpoint;
typedef struct st_checkpoint_ops st_checkpoint_ops;
struct st_checkpoint_ops {
    size_t struct_size;
    st_status (*transfer)(st_component *self, st_checkpoint *ck, st_error *err);
};
/* Writing: saves size bytes at data. Reading: fills them from the
 * checkpoint, or fails (ST_EINVAL naming the component and the item) when
 * the checkpoint's item has another size. */
ST_API st_status st_checkpoint_data(st_checkpoint *ck, void *data, size_t size,
                                    st_error *err) ST_WARN_UNUSED;
/* True while a checkpoint is read (after the data was restored, a
 * component may rebuild what derives from it). */
ST_API bool st_checkpoint_reading(const st_checkpoint *ck);
/* ABI 2.12. An array field of self (any st_array type but strings) as the
 * run left it: its count, then its tuples. Reading gives the field the
 * saved count first, in memory of its own (a linked value is copied, not
 * written through), and marks it changed. For the lists a component edits
 * itself at a topological change (the pairs, indices or forces that name
 * removed points), whose length is not the scene's. */
ST_API st_status st_checkpoint_field(st_checkpoint *ck, st_component *self, const char *field,
                                     st_error *err) ST_WARN_UNUSED;

/* Lagrangian constraints (ABI 2.2), driven by FreeMotionAnimationLoop as in
 * SOFA: free motion of every system, then the constraint solver builds the
 * constraint Jacobian J and the violations at the free positions, the
 * compliance W = J C J^T from the constraint corrections, solves for the
 * multipliers lambda, and the corrections move each state by C J^T lambda.
 *
 * J is stored by rows; each row is a list of terms (a state, a point, and
 * deriv_size values). A constraint appends rows with st_cjac_row and terms
 * with st_cjac_add; the solver sized the arrays from the constraint's
 * size() before calling build(). */
typedef struct st_cterm {
    st_mstate *ms;  /* the state the term acts on */
    size_t point;   /* point of ms */
    double d[6];    /* ms->type->deriv_size values */
} st_cterm;

/* SOFA's ConstraintOrder, what a solve is about (ABI 2.5). POS_AND_VEL:
 * violations at the free positions, corrections move positions and
 * velocities (pf, vf). VEL (FreeMotionAnimationLoop's
 * solveVelocityConstraintFirst): the states hold their positions at the
 * start of the step and their free velocities; violations are velocity
 * violations, W takes the velocity factor and corrections change the
 * velocities only (SOFA's applyVelocityCorrection). */
typedef enum st_corder { ST_CORDER_POS_AND_VEL = 0, ST_CORDER_VEL = 1 } st_corder;

typedef struct st_cjacobian {
    size_t nrows;     /* rows written */
    size_t nterms;    /* terms written */
    size_t *row_end;  /* terms of row r: [r ? row_end[r - 1] : 0, row_end[r]) */
    st_cterm *terms;
    size_t caprows, capterms; /* owned by the solver */
    st_corder order;  /* ABI 2.5: the order of this solve, set by the solver */
} st_cjacobian;

/* Starts a new row; returns its index. The caller sized J. */
static inline size_t st_cjac_row(st_cjacobian *J)
{
    J->row_end[J->nrows] = J->nterms;
    return J->nrows++;
}

/* Adds a term (ms, point, values) to the last row. */
static inline void st_cjac_add(st_cjacobian *J, st_mstate *ms, size_t point, const double *d,
                               unsigned n)
{
    st_cterm *t = &J->terms[J->nterms++];
    t->ms = ms;
    t->point = point;
    for (unsigned k = 0; k < 6; k++)
        t->d[k] = k < n ? d[k] : 0.0;
    J->row_end[J->nrows - 1] = J->nterms;
}

static inline size_t st_cjac_row_begin(const st_cjacobian *J, size_t r)
{
    return r ? J->row_end[r - 1] : 0;
}

/* Constraint models (SOFA's BaseLagrangianConstraint and its
 * ConstraintResolution). W is the dense compliance, row-major, dim x dim. */
struct st_constraint_ops {
    size_t struct_size;
    /* Rows and Jacobian terms this constraint writes this step (0: none). */
    void (*size)(st_component *self, size_t *rows, size_t *terms);
    /* Appends its rows to J, first row J->nrows on entry, on its states at
     * their current positions (the free positions during a
     * FreeMotionAnimationLoop step), and writes each row's violation into
     * violation[row]. */
    st_status (*build)(st_component *self, st_cjacobian *J, double *violation, st_error *err);
    /* Before the iterations: prepares its resolution blocks (rows
     * [first, first + rows)) from W and writes its initial multipliers
     * (warm start) into lambda. */
    void (*init_resolution)(st_component *self, size_t first, const double *W, size_t dim,
                            double *lambda);
    /* Rows per resolution block (SOFA's getNbLines). */
    unsigned (*block_rows)(const st_component *self);
    /* One Gauss-Seidel update of the block starting at row: d holds
     * dfree + W lambda on the block's rows; updates lambda there. */
    void (*resolution)(st_component *self, size_t row, const double *W, size_t dim,
                       const double *d, double *lambda);
    /* After the iterations: keeps the multipliers of its rows. */
    void (*store)(st_component *self, size_t first, const double *lambda, bool converged);
    /* ABI 2.5: build honours J->order == ST_CORDER_VEL (velocity
     * violations); a solver refuses that order when this is false. */
    bool velocity_order;
};

/* Constraint corrections (SOFA's BaseConstraintCorrection), one state each. */
struct st_ccorrection_ops {
    size_t struct_size;
    /* W += J C J^T over the terms of J on the correction's state, C its
     * compliance times the ODE solver's position integration factor. */
    st_status (*add_compliance)(st_component *self, const st_cjacobian *J, double *W, size_t dim,
                                st_error *err);
    /* dx = C J^T lambda on its state; the state holds the free motion on
     * entry and x = x_free + pf dx, v = v_free + vf dx on return (pf, vf the
     * ODE solver's position and velocity integration factors). */
    st_status (*apply_correction)(st_component *self, const st_cjacobian *J,
                                  const double *lambda, st_error *err);
    /* ABI 2.5: add_compliance and apply_correction honour J->order ==
     * ST_CORDER_VEL (velocity factor in W, v = v_free + vf dx, x kept). */
    bool velocity_order;
};

/* Constraint solvers (SOFA's ConstraintSolver). */
/* ABI 2.6. The constraint problem of a solver's last step, for reading
 * (SofaPython3's ConstraintSolver.W(), lambda_force(), dfree(), and the
 * constraint matrices of the states). Pointers are the solver's, valid
 * until its next solve. */
typedef struct st_cproblem {
    size_t struct_size;
    size_t dim;               /* constraint rows */
    const double *W;          /* dim x dim, row-major: the compliance J A^-1 J^T */
    const double *dfree;      /* dim: the violations after the free motion */
    const double *lambda;     /* dim: the multipliers found */
    const st_cjacobian *J;    /* the rows as the constraint models wrote them */
    const st_cjacobian *Jind; /* the rows on independent states (J when no row was mapped) */
} st_cproblem;

struct st_csolver_ops {
    size_t struct_size;
    /* After the free motion of every system: build the constraint problem
     * of the scene under root, solve it, apply the corrections. */
    st_status (*solve_constraint)(st_component *self, st_node *root, double dt, st_error *err);
    /* ABI 2.5: the same in a given order (solve_constraint is
     * ST_CORDER_POS_AND_VEL). NULL: only that order is supported. */
    st_status (*solve_constraint_order)(st_component *self, st_node *root, double dt,
                                        st_corder order, st_error *err);
    /* ABI 2.6: fills out with the last step's problem (dim 0 before any).
     * NULL: the solver does not tell. */
    void (*problem)(const st_component *self, st_cproblem *out);
};

#ifdef __cplusplus
}
#endif
#endif
