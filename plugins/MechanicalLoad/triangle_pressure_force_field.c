/* triangle_pressure_force_field.c - TrianglePressureForceField: a pressure
 * on chosen triangles, as SOFA's.
 *
 * The triangles are triangleList (indices into the topology's triangles;
 * empty: no force). With useConstantForce (SOFA's default), triangle t
 * carries pressure x area(t at rest) (pressure is a vector: force per unit
 * area), a third on each vertex; a constant force: add_dforce and the matrix
 * add nothing, energy -sum f . x. Otherwise each vertex of t gets
 * cauchyStress . (x1 - x0) x (x2 - x0) / 6 at the current positions; SOFA
 * gives that force no derivative (add_dforce adds nothing, as SOFA's) and no
 * energy (0, as SOFA's getPotentialEnergy).
 * cauchyStress is SOFA's MatSym3 text: xx xy yy xz yz zz. */
#include <math.h>

#include "mechanical_load.h"

typedef struct tri_pressure {
    st_component base;
    st_vec3 pressure;          /* "pressure" */
    st_array cauchy;           /* "cauchyStress", 6 reals */
    st_array triangle_list;    /* "triangleList" */
    bool show_forces;          /* "showForces" */
    bool use_constant_force;   /* "useConstantForce" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *topology;    /* "topology" */
    st_component *mstate;      /* "mstate" */
    st_mstate *ms;
    ml_elem_load load;
    double sigma[9];           /* cauchyStress, full */
} tri_pressure;

static st_status tp_init(st_component *self, st_error *err)
{
    tri_pressure *t = (tri_pressure *)self;
    ml_elem_load_free(&t->load);
    ST_TRY(ml_find_state(self, &t->ms, err));
    ST_TRY(st_find_topology(self, &t->topology, err));
    if (t->cauchy.n != 6)
        return st_component_error(self, "cauchyStress", err, ST_EINVAL,
                                  "cauchyStress takes 6 values (xx xy yy xz yz zz), got %zu",
                                  t->cauchy.n);
    const double *c = t->cauchy.r;
    const double sigma[9] = {c[0], c[1], c[3], c[1], c[2], c[4], c[3], c[4], c[5]};
    for (int k = 0; k < 9; k++)
        t->sigma[k] = sigma[k];
    const st_array *tris = t->topology->cls->topology->elements(t->topology, ST_T_TRIANGLES);
    size_t ntris = tris ? tris->n : 0;
    ST_TRY(ml_elem_load_alloc(&t->load, t->triangle_list.n, 3, err));
    const double *x0 = t->ms->rest_position.r;
    for (size_t i = 0; i < t->triangle_list.n; i++) {
        unsigned id = t->triangle_list.u[i];
        if (id >= ntris)
            return st_component_error(self, "triangleList", err, ST_EINVAL,
                                      "triangle %u does not exist: the topology '%s' has %zu "
                                      "triangles",
                                      id, t->topology->name, ntris);
        for (int j = 0; j < 3; j++)
            t->load.v[3 * i + (size_t)j] = tris->u[3 * (size_t)id + (size_t)j];
        ST_TRY(ml_check_elements(self, "triangle", t->load.v + 3 * i, 1, 3, t->ms, err));
        const unsigned *v = t->load.v + 3 * i;
        double ab[3], ac[3], n[3];
        for (int k = 0; k < 3; k++) {
            ab[k] = x0[3 * v[1] + (size_t)k] - x0[3 * v[0] + (size_t)k];
            ac[k] = x0[3 * v[2] + (size_t)k] - x0[3 * v[0] + (size_t)k];
        }
        ml_cross(ab, ac, n);
        double area = sqrt(ml_dot(n, n)) / 2;
        for (int k = 0; k < 3; k++)
            t->load.force[3 * i + (size_t)k] = t->pressure[k] * area;
    }
    return ml_follow_elements(self, t->topology, "triangleList", ST_ELEM_TRIANGLE, err);
}

static void tp_cleanup(st_component *self) { ml_elem_load_free(&((tri_pressure *)self)->load); }

static void tp_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    tri_pressure *t = (tri_pressure *)self;
    double *fs = st_slice(f, t->ms);
    if (t->use_constant_force) {
        ml_elem_load_add_force(&t->load, fs);
        return;
    }
    const double *xs = st_slice_x(x, t->ms);
    for (size_t i = 0; i < t->load.n; i++) {
        const unsigned *e = t->load.v + 3 * i;
        double ab[3], ac[3], a[3], fo[3];
        for (int k = 0; k < 3; k++) {
            ab[k] = xs[3 * e[1] + (size_t)k] - xs[3 * e[0] + (size_t)k];
            ac[k] = xs[3 * e[2] + (size_t)k] - xs[3 * e[0] + (size_t)k];
        }
        ml_cross(ab, ac, a);
        for (int k = 0; k < 3; k++)
            a[k] /= 6.0;
        for (int r = 0; r < 3; r++)
            fo[r] = t->sigma[3 * r] * a[0] + t->sigma[3 * r + 1] * a[1] + t->sigma[3 * r + 2] * a[2];
        for (int j = 0; j < 3; j++)
            ml_axpy(fs + 3 * (size_t)e[j], 1.0, fo);
    }
}

static double tp_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    tri_pressure *t = (tri_pressure *)self;
    if (!t->use_constant_force)
        return 0.0;
    return ml_elem_load_energy(&t->load, st_slice_x(x, t->ms));
}

static double tp_rayleigh(const st_component *self)
{
    return ((const tri_pressure *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops tp_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = tp_add_force,
    .potential_energy = tp_energy,
    .rayleigh_stiffness = tp_rayleigh,
};

static const st_field tp_fields[] = {
    ST_VEC3(tri_pressure, pressure, "pressure", "0 0 0", "Pressure force per unit area"),
    ST_REALS(tri_pressure, cauchy, "cauchyStress", "0 0 0 0 0 0",
             "Cauchy Stress applied on the normal of each triangle (xx xy yy xz yz zz; used when "
             "useConstantForce is false)"),
    ST_UINTS(tri_pressure, triangle_list, "triangleList", NULL,
             "Indices of triangles separated with commas where a pressure is applied"),
    IGN_BOOL(tri_pressure, show_forces, "showForces", "false",
             "draw triangles which have a given pressure"),
    ST_BOOL(tri_pressure, use_constant_force, "useConstantForce", "true",
            "applied force is computed as the pressure vector times the area at rest"),
    ST_LINK(tri_pressure, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ML_F_FORCEFIELD(tri_pressure),
    ST_FIELD_END};

const st_class triangle_pressure_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TrianglePressureForceField",
    .category = "ForceField",
    .description = "Pressure (a force per unit area) on chosen triangles",
    .instance_size = sizeof(tri_pressure),
    .fields = tp_fields,
    .init = tp_init,
    .reinit = tp_init,
    .cleanup = tp_cleanup,
    .forcefield = &tp_ops,
};
