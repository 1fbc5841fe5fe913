/* mechanics.h - mechanical states, the flat mechanical system, vector
 * operations and matrix assembly.
 *
 * At init each ODE solver that the animation loop drives compiles its
 * subtree into an st_system: the states below it (components playing the
 * state role) laid out one after another in global vectors (independent
 * states first, in scene order, then mapped states), each with the sizes of
 * its type (settee/state.h): coordinate vectors in coordinates, derivative
 * vectors in derivatives. The lists of masses, force fields, projective
 * constraints and mappings are in scene order. The states' position,
 * velocity, force, rest_position, externalForce and derivX arrays then
 * point into the global vectors, so that solvers run plain loops over
 * contiguous memory. Nothing here allocates during a step.
 */
#ifndef SETTEE_MECHANICS_H
#define SETTEE_MECHANICS_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/component.h"
#include "settee/roles.h"
#include "settee/state.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A mechanical state: the head of every component that plays the state
 * role (st_class.state; the built-in MechanicalObject is one). Plugins read
 * its members; the kernel and the state's class write them.
 *
 * Arrays hold n points each: coordinate arrays (position, rest_position,
 * reset_position) type->coord_size scalars per point, derivative arrays
 * (velocity, force, externalForce, derivX, reset_velocity)
 * type->deriv_size scalars per point. Vec3d: 3 and 3; Rigid3d: 7 (x y z
 * qx qy qz qw) and 6 (linear, then angular). */
struct st_mstate {
    st_component base;
    st_array position;       /* x, "position": coordinates */
    st_array velocity;       /* v, "velocity": derivatives */
    st_array force;          /* f, "force": derivatives */
    st_array rest_position;  /* x0, "rest_position": coordinates */
    st_array external_force; /* "externalForce": added to f, cleared after each step */
    st_array derivx;         /* "derivX": derivatives */
    st_array reset_position; /* "reset_position": coordinates */
    st_array reset_velocity; /* "reset_velocity": derivatives */
    double rest_scale;       /* "restScale" */
    bool use_topology;       /* "useTopology" */
    st_vec3 translation, rotation, scale3d, translation2, rotation2;
    st_component *topology;  /* "topology" link */
    unsigned size;           /* "size" */
    char *template_name;     /* "template" */
    /* Set by the kernel. */
    size_t n;                /* number of points */
    size_t xoffset;          /* first scalar of this state in the system's coordinate vectors */
    st_system *system;       /* the system integrating this state, or NULL */
    bool mapped;             /* output of a mapping */
    bool has_external_force; /* externalForce holds values this step */
    const st_state_type *type; /* the state type (Vec3d unless the template says otherwise) */
    size_t doffset;          /* first scalar of this state in the system's derivative vectors */
};

/* This state's part of a global derivative vector (v, f, dx, df, fext and
 * scratch vectors): type->deriv_size scalars per point. */
#define st_slice(vec, ms) ((vec) + (ms)->doffset)
/* This state's part of a global coordinate vector (x, x0 and coordinate
 * scratch vectors): type->coord_size scalars per point. For a system whose
 * states are all Vec types the two layouts coincide (xoffset == doffset),
 * but components must not rely on it. */
#define st_slice_x(vec, ms) ((vec) + (ms)->xoffset)

/* The compiled mechanical system of one ODE solver. Members are read-only
 * for plugins.
 *
 * Coordinate vectors (x, x0) hold each state's coordinates one after
 * another (xsize_all scalars); derivative vectors (v, f, fext, dx, df and
 * scratch vectors) hold each state's derivatives (size_all scalars).
 * Independent states come first, so vector operations and the matrix cover
 * the first `size` derivative scalars (or `xsize` coordinate scalars). */
struct st_system {
    size_t struct_size;
    st_component *solver;    /* the ODE solver that owns it */
    st_node *node;           /* the solver's node */
    size_t nstates;
    st_mstate **states;      /* independent states first, then mapped ones */
    size_t nindep;           /* number of independent states */
    size_t ndof;             /* points of the independent states */
    size_t nall;             /* points of all states */
    size_t size;             /* derivative scalars of the independent states: the length of
                                vector operations and the order of the system matrix */
    double *x, *v, *f, *x0, *fext, *dx, *df;
    st_mparams mp;           /* dt, time and gravity of the current step */
    size_t size_all;         /* derivative scalars of all states */
    size_t xsize;            /* coordinate scalars of the independent states */
    size_t xsize_all;        /* coordinate scalars of all states */
    /* ABI 2.2. Wall-clock seconds spent since init, for run reports,
     * measured by the kernel (the last two through st_linsolver_set_system
     * and st_linsolver_solve). */
    double time_step;        /* the ODE solver's solve() calls, everything included */
    double time_force;       /* st_system_compute_force */
    double time_products;    /* st_system_add_mbkdx (matrix-free products) */
    double time_assembly;    /* st_matrix_assemble */
    double time_factor;      /* linear solvers' set_system without assembly: factorizations */
    double time_linsolve;    /* linear solvers' solve, matrix-free products included */
};

/* Allocates a scratch derivative vector (size_all doubles), zeroed, owned
 * by the system and freed with it. Call from bind(), never during a step. */
ST_API st_status st_system_vec_alloc(st_system *sys, double **out, st_error *err) ST_WARN_UNUSED;
/* Allocates a scratch coordinate vector (xsize_all doubles), a copy of x. */
ST_API st_status st_system_xvec_alloc(st_system *sys, double **out, st_error *err) ST_WARN_UNUSED;

/* f = externalForce + sum of forces at (x, v), mapped forces accumulated
 * back to the independent states. Order: SOFA's (scene order). */
ST_API void st_system_compute_force(st_system *sys, double *f, const double *x, const double *v);
/* df (+)= (mf M + bf B + kf K) dx over all components, with each component's
 * Rayleigh coefficients; clear first when clear is true. */
ST_API void st_system_add_mbkdx(st_system *sys, double *df, const double *dx, double mf, double bf,
                                double kf, bool clear);
/* True when every mass is diagonal and no mass sits on a mapped state. */
ST_API bool st_system_mass_is_diagonal(const st_system *sys);
/* a = M^-1 f for each mass (states without a mass untouched). */
ST_API st_status st_system_acc_from_f(st_system *sys, double *a, const double *f,
                                      st_error *err) ST_WARN_UNUSED;
ST_API void st_system_project_response(st_system *sys, double *dx);
ST_API void st_system_project_position(st_system *sys, double *x);
ST_API void st_system_project_velocity(st_system *sys, double *v);
/* Mappings, top-down: positions / velocities of mapped states. */
ST_API void st_system_propagate_x(st_system *sys, double *x);
ST_API void st_system_propagate_v(st_system *sys, double *v);
/* vec += J^T vec over the mappings, bottom-up: derivatives given on mapped
 * states are accumulated onto their inputs down to the independent states
 * (the mapped parts are left as they are). For constraint Jacobians
 * (SOFA's applyJT on constraint rows); non-linear mappings use their
 * Jacobian at the last positions propagated. */
ST_API void st_system_apply_jt(st_system *sys, double *vec);
/* ABI 2.5. The state's externalForce, to add to for the coming
 * integration (type->deriv_size scalars per point, n points): every force
 * evaluation of the state's system adds it (a mapped state's through J^T)
 * and the kernel clears it after the integration, as SOFA does. Marks the
 * state as holding external forces. NULL when no system integrates the
 * state. */
ST_API double *st_mstate_external_force(st_mstate *ms);
/* Masses that keep gravity separate add dt g to v. */
ST_API void st_system_add_separate_gravity(st_system *sys, double *v, double dt);
ST_API double st_system_kinetic_energy(st_system *sys);
ST_API double st_system_potential_energy(st_system *sys);
/* The linear solver serving the ODE solver: the component's "linearSolver"
 * link when set, else the first linear solver found below the solver's node
 * (down = true) or in its node and ancestors (down = false). NULL if none. */
ST_API st_component *st_system_find_linear_solver(st_system *sys, st_component *link, bool down);

/* ABI 2.2. A linear solver's set_system and solve, called through the
 * kernel so that the run report can split a step into its phases
 * (sys->time_factor: set_system without the assembly it does;
 * sys->time_linsolve: solves, matrix-free products included). ODE solvers
 * call these rather than the ops directly. */
ST_API st_status st_linsolver_set_system(st_component *ls, st_system *sys, double mf, double bf,
                                         double kf, st_error *err) ST_WARN_UNUSED;
ST_API st_status st_linsolver_solve(st_component *ls, st_system *sys, double *x, const double *b,
                                    st_error *err) ST_WARN_UNUSED;

/* ABI 2.6. The last linear system an ODE solver of sys handed to its linear
 * solver through the two functions above: the factors of its matrix
 * mf M + bf B + kf K (assembled: set_system was called) and copies of the
 * right-hand side b and the solution x of the last successful solve (solved;
 * n = sys->size doubles, valid until the next solve). SofaPython3's
 * linear system A(), b(), x(). */
typedef struct st_linsolve_record {
    size_t struct_size;
    bool assembled, solved;
    double mf, bf, kf;
    size_t n;
    const double *b, *x;
} st_linsolve_record;
ST_API void st_system_last_linsolve(const st_system *sys, st_linsolve_record *out);

/* Vector operations over the independent part of derivative vectors
 * (sys->size doubles). */
ST_API void st_vec_clear(const st_system *sys, double *v);                            /* v = 0 */
ST_API void st_vec_eq(const st_system *sys, double *v, const double *a);              /* v = a */
ST_API void st_vec_peq(const st_system *sys, double *v, const double *a, double f);   /* v += f a */
ST_API void st_vec_teq(const st_system *sys, double *v, double f);                    /* v *= f */
ST_API void st_vec_op(const st_system *sys, double *v, const double *a, const double *b,
                      double f);                                                      /* v = a + f b */
ST_API double st_vec_dot(const st_system *sys, const double *a, const double *b);
ST_API double st_vec_norm(const st_system *sys, const double *a);

/* Coordinate operations over the independent states, each with its type's
 * arithmetic (Rigid3d: the rotation integrates on the quaternion). Every
 * ODE solver moves positions with these, never with st_vec_peq. */
/* x = x (+) f v (x a coordinate vector, v a derivative vector). */
ST_API void st_vec_x_peq(const st_system *sys, double *x, const double *v, double f);
/* xo = x (+) f v; xo may be x. */
ST_API void st_vec_x_op(const st_system *sys, double *xo, const double *x, const double *v,
                        double f);
/* xo = x (coordinate copy). */
ST_API void st_vec_x_eq(const st_system *sys, double *xo, const double *x);
/* d = a (-) b: the derivative vector taking coordinates b to a. */
ST_API void st_vec_x_diff(const st_system *sys, double *d, const double *a, const double *b);

/* Matrix assembly.
 *
 * A matrix of the system, square, of order sys->size (derivative space),
 * kept in compressed sparse rows by point blocks: the block coupling point
 * i of state a with point j of state b is a->type->deriv_size rows by
 * b->type->deriv_size columns (3x3 for two Vec3d points, 6x6 for two
 * Rigid3d points, 3x6 for a Vec3d/Rigid3d pair). Components add
 * contributions with the functions below, in the same order every time:
 * the first assembly records the pattern and, for each call, the slot it
 * writes; later assemblies write straight into those slots (no search, no
 * allocation). Points are local to their state (0 .. ms->n - 1).
 * A sequence that changes (contacts) is re-recorded; while its blocks stay
 * inside the pattern, the pattern (and pattern_version) is kept. */
/* Adds a block (row-major, da x db values) at point i of a and point j of b. */
ST_API void st_matrix_add_block(st_matrix *m, const st_mstate *a, size_t i, const st_mstate *b,
                                size_t j, const double *block);
/* Adds d times the identity (deriv_size) at point i of ms. */
ST_API void st_matrix_add_diag(st_matrix *m, const st_mstate *ms, size_t i, double d);
/* Declares that the block (point i of a, point j of b) may be written by
 * later assemblies (ABI 2.2). Only has effect inside a force field's
 * reserve_pattern; a block on a mapped state declares the blocks its
 * Jacobians spread it to. See st_forcefield_ops.reserve_pattern. */
ST_API void st_matrix_reserve_block(st_matrix *m, const st_mstate *a, size_t i,
                                    const st_mstate *b, size_t j);
/* Constrains one scalar DOF (component axis of point i's derivative): row
 * and column cleared, diagonal set to 1. */
ST_API void st_matrix_project_dof(st_matrix *m, const st_mstate *ms, size_t i, unsigned axis);

ST_API st_status st_matrix_create(st_system *sys, st_matrix **out, st_error *err) ST_WARN_UNUSED;
ST_API void st_matrix_destroy(st_matrix **m);
/* ABI 2.5. A matrix of sys that assembles c's own contribution alone: a
 * force field's kf K + bf B, a mass's mf M, written by c's role functions
 * as in st_matrix_assemble (a state mapped into sys is projected onto the
 * independent states), without projective constraints and without the
 * geometric stiffness of mappings. SofaPython3's assembleKMatrix and
 * assembleMMatrix. c must belong to sys. */
ST_API st_status st_matrix_create_component(st_system *sys, st_component *c, st_matrix **out,
                                            st_error *err) ST_WARN_UNUSED;
/* m = mf M + bf B + kf K with projective constraints applied. */
ST_API st_status st_matrix_assemble(st_matrix *m, st_system *sys, double mf, double bf, double kf,
                                    st_error *err) ST_WARN_UNUSED;
/* Scalar CSR view of the assembled matrix (both triangles, sorted columns).
 * Pointers stay valid until the pattern changes or the matrix is destroyed. */
typedef struct st_csr {
    size_t n;             /* rows = columns = sys->size */
    size_t nnz;
    const int *rowptr;    /* n + 1 */
    const int *colind;    /* nnz */
    const double *values; /* nnz */
    unsigned long pattern_version; /* changes when the pattern is rebuilt */
} st_csr;
ST_API void st_matrix_csr(const st_matrix *m, st_csr *out);
/* y = A x over the assembled matrix. */
ST_API void st_matrix_mul(const st_matrix *m, double *y, const double *x);

/* ABI 2.11. A state resized directly, without a topology: SOFA's
 * BaseMechanicalState::resize and MechanicalObject::replaceValue, which
 * SOFA's ParticleSource and ParticleSink call in a node without a topology
 * container. Nothing is renumbered for anyone: as in SOFA, each component
 * that holds data sized by the state's points deals with a new size itself
 * (most of SOFA's resize lazily at their next evaluation; UniformMass keeps
 * its indices). A component says it does by st_mstate_follow_resize; a
 * resize is refused, naming the first one, while a component of the
 * state's subtree (or one linking to the state) that may hold such data
 * (force fields, masses, projective constraints, mappings, engines,
 * collision and visual models) has not said so. */
/* fn, called after each resize of ms (before: the former number of
 * points), may be NULL. The registration ends when owner is destroyed. */
typedef st_status (*st_resize_listener)(st_component *owner, st_mstate *ms, size_t before,
                                        st_error *err);
ST_API st_status st_mstate_follow_resize(st_component *owner, st_mstate *ms,
                                         st_resize_listener fn, st_error *err) ST_WARN_UNUSED;
/* Whether ms's class can resize it (st_state_ops.resize) and ms is not a
 * mapping's output nor follows a topology (change those through it). */
ST_API bool st_mstate_can_resize(const st_mstate *ms);
/* SOFA's resize(n): every vector of the state gets n points, the new ones
 * zero (coordinates: the type's identity); n = 0 empties the state. The
 * systems are rebuilt before the next solve, as after a topological
 * change, and the followers' listeners are called. */
ST_API st_status st_mstate_resize(st_mstate *ms, size_t n, st_error *err) ST_WARN_UNUSED;
/* SOFA's replaceValue(from, to): point from's values copied onto point to
 * in every vector of the state that holds both. */
ST_API st_status st_mstate_replace_value(st_mstate *ms, size_t from, size_t to,
                                         st_error *err) ST_WARN_UNUSED;

/* ABI 2.11. res += factor M dx with SOFA's addMdx (MechanicalAddMDxVisitor):
 * the mass of each node (its last one), on nodes the visitor reaches from
 * the solver's node: not a node holding a mechanical mapping or below one,
 * not below a node whose mass was used. Masses on mapped states add
 * nothing (st_system_add_mbkdx maps them). Mapped parts of res untouched. */
ST_API void st_system_add_mdx(st_system *sys, double *res, const double *dx, double factor);

/* ABI 2.11. The mechanical system seen from node n, as a linear system or
 * solver there sees it: that of the first state with a system at n or in
 * its subtree (depth first), else the same search from each ancestor in
 * turn. NULL before init or when no ODE solver integrates a state there. */
ST_API st_system *st_node_system(st_node *n);

#ifdef __cplusplus
}
#endif
#endif
