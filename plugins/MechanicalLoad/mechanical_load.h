/* mechanical_load.h - the classes of the MechanicalLoad plugin and what they
 * share: per-point vector helpers, SOFA's ForceField data, the local range
 * and the contact set of the penalty force fields. Internal to the plugin.
 *
 * States are Vec3d today. The per-point code goes through ML_N and the
 * helpers below, so that Vec1d/Vec2d (ML_N = 1, 2) need only these to
 * change; Rigid3d (coordinate 7, derivative 6) will need ML_COORD/ML_DERIV. */
#ifndef MECHANICAL_LOAD_H
#define MECHANICAL_LOAD_H

#include <stddef.h>

#include <settee/settee.h>

#include "../shared/options.h"        /* IGN_* field macros */
#include "../shared/topology_link.h"  /* st_find_topology */

/* Values per point of a Vec3d state, for coordinates and derivatives. */
#define ML_N 3

static inline double ml_dot(const double *a, const double *b)
{
    double s = 0.0;
    for (int k = 0; k < ML_N; k++)
        s += a[k] * b[k];
    return s;
}

/* y += a x on one point. */
static inline void ml_axpy(double *y, double a, const double *x)
{
    for (int k = 0; k < ML_N; k++)
        y[k] += a * x[k];
}

/* SOFA's ForceField data every force field of the plugin has. */
#define ML_F_FORCEFIELD(S)                                                                        \
    ST_REAL(S, rayleigh_stiffness, "rayleighStiffness", "0",                                      \
            "Rayleigh damping - stiffness matrix coefficient"),                                   \
        ST_LINK(S, mstate, "mstate", ST_LINK_STATE, "MechanicalState used by this component")

/* SOFA's localRange: [first, last] point indices, negative = unbounded.
 * Gives the half-open range [*begin, *end) over n points. */
static inline void ml_range(const st_vec2 range, size_t n, size_t *begin, size_t *end)
{
    *begin = range[0] >= 0 ? (size_t)range[0] : 0;
    *end = n;
    if (range[1] >= 0 && (size_t)range[1] + 1 < n)
        *end = (size_t)range[1] + 1;
}

/* Checks localRange as SOFA's PlaneForceField does: a set range needs two
 * non-negative indices in order, else it is reset to unbounded with a
 * warning. */
void ml_check_range(st_component *self, st_vec2 range);

/* The points in contact found by the last add_force, ascending. */
typedef struct ml_contacts {
    unsigned *index; /* n points, capacity cap, owned */
    size_t n, cap;
} ml_contacts;

/* Sizes the set for n points (init time; frees a previous set). */
st_status ml_contacts_reserve(ml_contacts *c, size_t n, st_error *err);
void ml_contacts_free(ml_contacts *c);

/* The 3x3 block of contact k (row-major), times factor. */
typedef void (*ml_block_fn)(const st_component *self, size_t k, double factor, double b[9]);

/* Adds factor * block(k) on the diagonal of each contact point and a zero
 * block on every other point of [begin, end): the sequence of matrix calls,
 * hence the recorded sparsity pattern, stays the same while contacts come
 * and go (issue 19), so a direct solver analyses the pattern once. */
void ml_add_contact_blocks(st_matrix *m, const st_component *self, const st_mstate *ms,
                           size_t begin, size_t end, const ml_contacts *c, double factor,
                           ml_block_fn block);

/* Resolves the state a force field acts on (its mstate link, else its
 * node's); an error naming the class when there is none. */
/* The pressure loads follow their topology as SOFA's TriangleSparseData /
 * QuadSparseData: list_field (indices into the topology's elements of kind
 * elem; empty: every element, taken again after each change) is a subset
 * of them (st_topology_follow_subset), and after each change the class's
 * init computes the loads again from the renumbered list, the topology's
 * current elements and the renumbered rest positions (the areas SOFA keeps
 * per entry). Registers once. */
st_status ml_follow_elements(st_component *self, st_component *topology, const char *list_field,
                             st_elem elem, st_error *err);
st_status ml_find_state(st_component *self, st_mstate **out, st_error *err);


/* Checks that every index of `n` elements of `w` vertices is a point of ms. */
st_status ml_check_elements(st_component *self, const char *what, const unsigned *v, size_t n,
                            unsigned w, const st_mstate *ms, st_error *err);

/* Cross product r = a x b on Vec3d points. */
static inline void ml_cross(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* The 3x3 matrix of v -> s (u x v), row-major. */
static inline void ml_cross_matrix(const double *u, double s, double m[9])
{
    m[0] = 0, m[1] = -u[2] * s, m[2] = u[1] * s;
    m[3] = u[2] * s, m[4] = 0, m[5] = -u[0] * s;
    m[6] = -u[1] * s, m[7] = u[0] * s, m[8] = 0;
}

/* A constant load per element: element e (w vertices v[w e ...]) carries
 * force[3 e ...], shared equally by its vertices (SOFA's Triangle- and
 * QuadPressureForceField with pressure x rest area). */
typedef struct ml_elem_load {
    unsigned *v;   /* n * w vertex indices, owned */
    double *force; /* n * 3, owned */
    size_t n;
    unsigned w;
} ml_elem_load;
st_status ml_elem_load_alloc(ml_elem_load *l, size_t n, unsigned w, st_error *err);
void ml_elem_load_free(ml_elem_load *l);
/* f += each element's force / w on each of its vertices (SOFA's order). */
void ml_elem_load_add_force(const ml_elem_load *l, double *f);
/* The potential of the constant forces: -sum over elements of
 * (force / w) . (sum of its vertices' x). */
double ml_elem_load_energy(const ml_elem_load *l, const double *x);

extern const st_class triangle_pressure_force_field_class;
extern const st_class quad_pressure_force_field_class;
extern const st_class surface_pressure_force_field_class;
extern const st_class tait_surface_pressure_force_field_class;

extern const st_class constant_force_field_class;
extern const st_class plane_force_field_class;
extern const st_class sphere_force_field_class;
extern const st_class ellipsoid_force_field_class;
extern const st_class edge_pressure_force_field_class;
extern const st_class gravity_class;
extern const st_class uniform_velocity_damping_force_field_class;
extern const st_class diagonal_velocity_damping_force_field_class;
extern const st_class linear_force_field_class;
extern const st_class torsion_force_field_class;
extern const st_class conical_force_field_class;
extern const st_class oscillating_torsion_pressure_force_field_class;
extern const st_class interaction_ellipsoid_force_field_class;

#endif
