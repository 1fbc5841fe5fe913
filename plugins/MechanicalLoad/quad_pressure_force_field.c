/* quad_pressure_force_field.c - QuadPressureForceField: a pressure on chosen
 * quads, as SOFA's.
 *
 * The quads: quadList when it is not empty (indices into the topology's
 * quads); else, when dmin != dmax, every quad whose four vertices at rest
 * lie strictly between dmin and dmax along `normal` (x . normal); else none.
 * Quad q carries pressure x area(q at rest), the area of q being that of
 * its triangles (q0, q1, q2) and (q0, q2, q3); a quarter goes to each
 * vertex. A constant force: add_dforce and the matrix add nothing, energy
 * -sum f . x (SOFA's getPotentialEnergy returns 0 with a warning). */
#include <math.h>

#include "mechanical_load.h"

typedef struct quad_pressure {
    st_component base;
    st_vec3 pressure;          /* "pressure" */
    st_array quad_list;        /* "quadList" */
    st_vec3 normal;            /* "normal" */
    double dmin, dmax;         /* "dmin", "dmax" */
    bool show_forces;          /* "showForces" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" */
    st_component *mstate;      /* "mstate" */
    st_mstate *ms;
    ml_elem_load load;
} quad_pressure;

static double tri_area(const double *a, const double *b, const double *c)
{
    double ab[3], ac[3], n[3];
    for (int k = 0; k < 3; k++)
        ab[k] = b[k] - a[k], ac[k] = c[k] - a[k];
    ml_cross(ab, ac, n);
    return sqrt(ml_dot(n, n)) / 2;
}

static bool in_slab(const quad_pressure *q, const double *p)
{
    double d = ml_dot(p, q->normal);
    return d > q->dmin && d < q->dmax;
}

static st_status qp_init(st_component *self, st_error *err)
{
    quad_pressure *q = (quad_pressure *)self;
    ml_elem_load_free(&q->load);
    ST_TRY(ml_find_state(self, &q->ms, err));
    ST_TRY(st_find_topology(self, &q->topology, err));
    const st_array *quads = q->topology->cls->topology->elements(q->topology, ST_T_QUADS);
    size_t nq = quads ? quads->n : 0;
    if (nq)
        ST_TRY(ml_check_elements(self, "quad", quads->u, nq, 4, q->ms, err));
    const double *x0 = q->ms->rest_position.r;
    /* The selected quads' indices, in order. */
    size_t cap = q->quad_list.n > 0 ? q->quad_list.n : nq;
    unsigned *sel = st_calloc(cap + 1, sizeof *sel);
    if (!sel)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu quads", cap);
    size_t n = 0;
    st_status s = ST_OK;
    if (q->quad_list.n > 0) {
        for (size_t i = 0; i < q->quad_list.n && s == ST_OK; i++) {
            sel[n++] = q->quad_list.u[i];
            if (q->quad_list.u[i] >= nq)
                s = st_component_error(self, "quadList", err, ST_EINVAL,
                                       "quad %u does not exist: the topology '%s' has %zu quads",
                                       q->quad_list.u[i], q->topology->name, nq);
        }
    } else if (q->dmin != q->dmax) {
        for (size_t i = 0; i < nq; i++) {
            bool all = true;
            for (int j = 0; j < 4; j++)
                all = all && in_slab(q, x0 + 3 * quads->u[4 * i + (size_t)j]);
            if (all)
                sel[n++] = (unsigned)i;
        }
    }
    if (s == ST_OK)
        s = ml_elem_load_alloc(&q->load, n, 4, err);
    for (size_t k = 0; k < n && s == ST_OK; k++) {
        const unsigned *v = quads->u + 4 * (size_t)sel[k];
        for (int j = 0; j < 4; j++)
            q->load.v[4 * k + (size_t)j] = v[j];
        double area = tri_area(x0 + 3 * v[0], x0 + 3 * v[1], x0 + 3 * v[2]) +
                      tri_area(x0 + 3 * v[0], x0 + 3 * v[2], x0 + 3 * v[3]);
        for (int c = 0; c < 3; c++)
            q->load.force[3 * k + (size_t)c] = q->pressure[c] * area;
    }
    st_free(sel);
    ST_TRY(s);
    return ml_follow_elements(self, q->topology, "quadList", ST_ELEM_QUAD, err);
}

static void qp_cleanup(st_component *self) { ml_elem_load_free(&((quad_pressure *)self)->load); }

static void qp_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)x, (void)v;
    quad_pressure *q = (quad_pressure *)self;
    ml_elem_load_add_force(&q->load, st_slice(f, q->ms));
}

static double qp_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    quad_pressure *q = (quad_pressure *)self;
    return ml_elem_load_energy(&q->load, st_slice_x(x, q->ms));
}

static double qp_rayleigh(const st_component *self)
{
    return ((const quad_pressure *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops qp_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = qp_add_force,
    .potential_energy = qp_energy,
    .rayleigh_stiffness = qp_rayleigh,
};

static const st_field qp_fields[] = {
    ST_VEC3(quad_pressure, pressure, "pressure", "0 0 0", "Pressure force per unit area"),
    ST_UINTS(quad_pressure, quad_list, "quadList", NULL,
             "Indices of quads separated with commas where a pressure is applied"),
    ST_VEC3(quad_pressure, normal, "normal", "0 0 0",
            "Normal direction for the plane selection of quads"),
    ST_REAL(quad_pressure, dmin, "dmin", "0",
            "Minimum distance from the origin along the normal direction"),
    ST_REAL(quad_pressure, dmax, "dmax", "0",
            "Maximum distance from the origin along the normal direction"),
    IGN_BOOL(quad_pressure, show_forces, "showForces", "false",
             "draw quads which have a given pressure"),
    ST_LINK(quad_pressure, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ML_F_FORCEFIELD(quad_pressure),
    ST_FIELD_END};

const st_class quad_pressure_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "QuadPressureForceField",
    .category = "ForceField",
    .description = "Pressure (a force per unit area) on chosen quads",
    .instance_size = sizeof(quad_pressure),
    .fields = qp_fields,
    .init = qp_init,
    .reinit = qp_init,
    .cleanup = qp_cleanup,
    .forcefield = &qp_ops,
};
