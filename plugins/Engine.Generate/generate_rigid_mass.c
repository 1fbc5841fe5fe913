/* generate_rigid_mass.c - GenerateRigidMass: the rigid mass of a closed
 * surface (triangles, quads split along (0, 2), polygons fanned from their
 * first vertex) of uniform density, by the divergence theorem (Eberly's
 * polyhedral mass properties): volume, centre of mass, and the inertia
 * matrix about the centre per unit mass. Outputs, as SOFA: rigidMass (mass
 * = density * volume, the volume, the inertia per unit mass), mass,
 * volume, inertiaMatrix (per unit mass, 9 reals row by row), massCenter and
 * centerToOrigin = -massCenter. A zero volume leaves the outputs as they
 * were (SOFA's warning), a negative one (inward faces) gives a warning.
 * SOFA's polygons are lists of lists; settee's hold each polygon as its
 * number of vertices, then its vertices ("4 0 1 2 3"). */
#include "../shared/engine_util.h"

typedef struct generate_rigid_mass {
    st_component base;
    double density;
    st_array position;  /* vec3[] */
    st_array triangles, quads;
    st_array polygons;  /* size-prefixed polygons */
    st_mass_value rigid_mass; /* outputs */
    double mass, volume;
    st_array inertia;   /* 9 reals */
    st_vec3 mass_center, center_to_origin;
} generate_rigid_mass;

static const st_field grm_fields[] = {
    ST_REAL(generate_rigid_mass, density, "density", "1000", "input: Density of the object"),
    ST_VEC3S(generate_rigid_mass, position, "position", NULL,
             "input: positions of the vertices"),
    ST_TRIANGLES(generate_rigid_mass, triangles, "triangles", NULL,
                 "input: triangles of the mesh"),
    ST_QUADS(generate_rigid_mass, quads, "quads", NULL, "input: quads of the mesh"),
    ST_UINTS(generate_rigid_mass, polygons, "polygons", NULL,
             "input: polygons of the mesh (settee: each as its number of vertices, then its "
             "vertices)"),
    ST_OUTPUT(generate_rigid_mass, rigid_mass, "rigidMass", ST_T_MASS, st_mass_value,
              "output: rigid mass computed"),
    ST_OUTPUT(generate_rigid_mass, mass, "mass", ST_T_REAL, double, "output: mass of the mesh"),
    ST_OUTPUT(generate_rigid_mass, volume, "volume", ST_T_REAL, double,
              "output: volume of the mesh"),
    ST_OUTPUT(generate_rigid_mass, inertia, "inertiaMatrix", ST_T_REALS, st_array,
              "output: the inertia matrix of the mesh"),
    ST_OUTPUT(generate_rigid_mass, mass_center, "massCenter", ST_T_VEC3, st_vec3,
              "output: the gravity center of the mesh"),
    ST_OUTPUT(generate_rigid_mass, center_to_origin, "centerToOrigin", ST_T_VEC3, st_vec3,
              "output: vector going from the mass center to the space origin"),
    ST_FIELD_END};

/* Adds triangle (a, b, c)'s terms to the ten surface integrals. */
static void integrate(double s[10], const double *a, const double *b, const double *c)
{
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                   e1[0] * e2[1] - e1[1] * e2[0]};
    double f1[3], f2[3], f3[3], g0[3], g1[3], g2[3];
    for (int k = 0; k < 3; k++) {
        double w0 = a[k], w1 = b[k], w2 = c[k];
        double t0 = w0 + w1, t1 = w0 * w0, t2 = t1 + w1 * t0;
        f1[k] = t0 + w2;
        f2[k] = t2 + w2 * f1[k];
        f3[k] = w0 * t1 + w1 * t2 + w2 * f2[k];
        g0[k] = f2[k] + w0 * (f1[k] + w0);
        g1[k] = f2[k] + w1 * (f1[k] + w1);
        g2[k] = f2[k] + w2 * (f1[k] + w2);
    }
    s[0] += n[0] * f1[0];
    s[1] += n[0] * f2[0];
    s[2] += n[1] * f2[1];
    s[3] += n[2] * f2[2];
    s[4] += n[0] * f3[0];
    s[5] += n[1] * f3[1];
    s[6] += n[2] * f3[2];
    s[7] += n[0] * (a[1] * g0[0] + b[1] * g1[0] + c[1] * g2[0]);
    s[8] += n[1] * (a[2] * g0[1] + b[2] * g1[1] + c[2] * g2[1]);
    s[9] += n[2] * (a[0] * g0[2] + b[0] * g1[2] + c[0] * g2[2]);
}

static st_status check_ids(generate_rigid_mass *e, const char *field, const unsigned *v,
                           size_t n, st_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] >= e->position.n)
            return st_component_error(&e->base, field, err, ST_EINVAL,
                                      "vertex %u beyond the %zu positions", v[i],
                                      e->position.n);
    return ST_OK;
}

static st_status grm_update(st_component *self, st_error *err)
{
    generate_rigid_mass *e = (generate_rigid_mass *)self;
    const double *x = e->position.r;
    double s[10] = {0};
    ST_TRY(check_ids(e, "triangles", e->triangles.u, 3 * e->triangles.n, err));
    ST_TRY(check_ids(e, "quads", e->quads.u, 4 * e->quads.n, err));
    for (size_t t = 0; t < e->triangles.n; t++) {
        const unsigned *v = e->triangles.u + 3 * t;
        integrate(s, x + 3 * (size_t)v[0], x + 3 * (size_t)v[1], x + 3 * (size_t)v[2]);
    }
    for (size_t q = 0; q < e->quads.n; q++) {
        const unsigned *v = e->quads.u + 4 * q;
        integrate(s, x + 3 * (size_t)v[0], x + 3 * (size_t)v[1], x + 3 * (size_t)v[2]);
        integrate(s, x + 3 * (size_t)v[0], x + 3 * (size_t)v[2], x + 3 * (size_t)v[3]);
    }
    for (size_t at = 0; at < e->polygons.n;) {
        size_t m = e->polygons.u[at++];
        if (m > e->polygons.n - at)
            return st_component_error(self, "polygons", err, ST_EINVAL,
                                      "a polygon says it has %zu vertices, only %zu values "
                                      "follow",
                                      m, e->polygons.n - at);
        const unsigned *v = e->polygons.u + at;
        ST_TRY(check_ids(e, "polygons", v, m, err));
        for (size_t j = 2; j < m; j++)
            integrate(s, x + 3 * (size_t)v[0], x + 3 * (size_t)v[j - 1], x + 3 * (size_t)v[j]);
        at += m;
    }
    static const double div[10] = {6, 24, 24, 24, 60, 60, 60, 120, 120, 120};
    for (int k = 0; k < 10; k++)
        s[k] /= div[k];
    double vol = s[0];
    if (vol == 0.0) {
        st_component_warn(self, "Mesh volume is nul.");
        return ST_OK;
    }
    if (vol < 0.0)
        st_component_warn(self, "Mesh volume is negative.");
    double c[3] = {s[1] / vol, s[2] / vol, s[3] / vol}, I[9];
    I[0] = s[5] + s[6] - vol * (c[1] * c[1] + c[2] * c[2]);
    I[4] = s[4] + s[6] - vol * (c[2] * c[2] + c[0] * c[0]);
    I[8] = s[4] + s[5] - vol * (c[0] * c[0] + c[1] * c[1]);
    I[1] = I[3] = -s[7] + vol * c[0] * c[1];
    I[5] = I[7] = -s[8] + vol * c[1] * c[2];
    I[2] = I[6] = -s[9] + vol * c[2] * c[0];
    for (int k = 0; k < 9; k++)
        I[k] /= vol;
    e->rigid_mass.mass = vol * e->density;
    e->rigid_mass.volume = vol;
    memcpy(e->rigid_mass.inertia, I, sizeof I);
    e->mass = e->rigid_mass.mass;
    e->volume = vol;
    ST_TRY(st_array_resize(&e->inertia, ST_T_REALS, 9, err));
    memcpy(e->inertia.r, I, sizeof I);
    for (int k = 0; k < 3; k++) {
        e->mass_center[k] = c[k];
        e->center_to_origin[k] = -c[k];
    }
    return ST_OK;
}

static const st_engine_ops grm_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = grm_update,
};

const st_class generate_rigid_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "GenerateRigidMass",
    .category = "Engine",
    .description = "Engine computing the RigidMass of a mesh: mass, volume and inertia matrix.",
    .instance_size = sizeof(generate_rigid_mass),
    .fields = grm_fields,
    .engine = &grm_engine,
};
