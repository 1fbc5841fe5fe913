/* hexahedral_fem_force_field_and_mass.c - HexahedralFEMForceFieldAndMass:
 * HexahedralFEMForceField (its forces and stiffness unchanged) that is
 * also the node's mass, with SOFA's element mass. Per element, from its
 * rest points in the element frame: vol = |n1 - n0| |n3 - n0| |n4 - n0|,
 * m_tot = density vol ("totalMass"), and the 24x24 mass matrix is
 * m_e (1 1^T (8x8) (x) I3) with m_e = 8/27 m_tot: SOFA's integral of the
 * trilinear shape functions evaluates to 8/27 for every pair of vertices
 * (it reads vertex i's signs for the pair (i, j)), so every block is the
 * same, and the sum of the matrix is 64 m_e = 18.96 m_tot per axis; kept
 * as SOFA computes it. The vertex masses for gravity are m_tot / 8 per
 * element vertex ("particleMasses"): f += g m_p (or v += g dt with
 * separateGravity). lumpedMass uses the row sums, 8 m_e per element vertex
 * ("lumpedMasses"), and makes the mass diagonal. The assembled mass matrix
 * has only the vertex blocks m_e I (SOFA's addMToMatrix, the one its
 * assembly falls back to, "only diagonal elements"), while M dx uses the
 * full element matrices (or the lumped masses). SOFA's accFromF and
 * kinetic energy are unimplemented (an error, 0); here acc_from_f divides
 * by the lumped masses when lumpedMass is set, and the kinetic energy is
 * v.(M v) / 2. The masses are computed on the fly from the elements, so
 * they follow topological changes; the output lists are those of init. */
#include <string.h>

#include "hexahedral_fem.h"


/* The element's total mass, density times the volume of its rest box. */
static double element_total(const hexal_mass *s, const hexal *h)
{
    double d[3][3];
    const int corner[3] = {1, 3, 4};
    for (int k = 0; k < 3; k++)
        for (int c = 0; c < 3; c++)
            d[k][c] = h->rest[corner[k]][c] - h->rest[0][c];
    double vol = 1.0;
    for (int k = 0; k < 3; k++)
        vol *= sqrt(d[k][0] * d[k][0] + d[k][1] * d[k][1] + d[k][2] * d[k][2]);
    return s->density * vol;
}

static st_status hm_init(st_component *self, st_error *err)
{
    hexal_mass *s = (hexal_mass *)self;
    ST_TRY(hexal_fem_init(self, err));
    if (!(s->density > 0.0))
        return st_component_error(self, "density", err, ST_EINVAL,
                                  "density %g: the mass must be positive", s->density);
    const size_t ne = s->ff.ne, n = s->ff.ms->n;
    ST_TRY(st_array_resize(&s->total_mass, ST_T_REALS, ne, err));
    ST_TRY(st_array_resize(&s->particle_masses, ST_T_REALS, n, err));
    ST_TRY(st_array_resize(&s->lumped_masses, ST_T_VEC3S, n, err));
    memset(s->particle_masses.r, 0, n * sizeof(double));
    memset(s->lumped_masses.r, 0, 3 * n * sizeof(double));
    for (size_t i = 0; i < ne; i++) {
        const hexal *h = &s->ff.e[i];
        const double m = element_total(s, h);
        s->total_mass.r[i] = m;
        for (int w = 0; w < 8; w++) {
            s->particle_masses.r[h->v[w]] += 0.125 * m;
            for (int c = 0; c < 3; c++)
                s->lumped_masses.r[3 * h->v[w] + c] += 64.0 / 27.0 * m;
        }
    }
    return ST_OK;
}

static void hm_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    (void)mp;
    hexal_mass *s = (hexal_mass *)self;
    double *r = fem_derivs(res, s->ff.ms);
    const double *d = fem_dx(dx, s->ff.ms);
    for (size_t i = 0; i < s->ff.ne; i++) {
        const hexal *h = &s->ff.e[i];
        const double me = 8.0 / 27.0 * element_total(s, h) * factor;
        if (s->lumped) {
            for (int w = 0; w < 8; w++)
                for (int c = 0; c < 3; c++)
                    r[3 * h->v[w] + c] += 8.0 * me * d[3 * h->v[w] + c];
            continue;
        }
        /* Every block is m_e I: each vertex gets m_e times the sum. */
        double sum[3] = {0, 0, 0};
        for (int w = 0; w < 8; w++)
            for (int c = 0; c < 3; c++)
                sum[c] += d[3 * h->v[w] + c];
        for (int w = 0; w < 8; w++)
            for (int c = 0; c < 3; c++)
                r[3 * h->v[w] + c] += me * sum[c];
    }
}

static void hm_acc_from_f(st_component *self, const st_mparams *mp, double *a, const double *f)
{
    (void)mp;
    hexal_mass *s = (hexal_mass *)self;
    double *as = fem_derivs(a, s->ff.ms);
    const double *fs = fem_dx(f, s->ff.ms);
    const size_t n = s->ff.ms->n;
    if (!s->lumped || s->lumped_masses.n != n)
        return;
    for (size_t k = 0; k < 3 * n; k++)
        as[k] = s->lumped_masses.r[k] > 0.0 ? fs[k] / s->lumped_masses.r[k] : 0.0;
}

static void hm_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m,
                               double mfactor)
{
    (void)mp;
    hexal_mass *s = (hexal_mass *)self;
    for (size_t i = 0; i < s->ff.ne; i++) {
        const hexal *h = &s->ff.e[i];
        const double me = 8.0 / 27.0 * element_total(s, h) * mfactor;
        for (int w = 0; w < 8; w++)
            st_matrix_add_diag(m, s->ff.ms, h->v[w], me);
    }
}

static void hm_add_gravity_to_force(st_component *self, const st_mparams *mp, double *f,
                                    const double *x, const double *v)
{
    (void)x, (void)v;
    hexal_mass *s = (hexal_mass *)self;
    if (s->separate_gravity)
        return;
    double *fs = fem_derivs(f, s->ff.ms);
    for (size_t i = 0; i < s->ff.ne; i++) {
        const hexal *h = &s->ff.e[i];
        const double mp8 = 0.125 * element_total(s, h);
        for (int w = 0; w < 8; w++)
            for (int c = 0; c < 3; c++)
                fs[3 * h->v[w] + c] += mp->gravity[c] * mp8;
    }
}

static void hm_add_gravity_to_v(st_component *self, const st_mparams *mp, double *v, double dt)
{
    hexal_mass *s = (hexal_mass *)self;
    if (!s->separate_gravity)
        return;
    double *vs = fem_derivs(v, s->ff.ms);
    for (size_t k = 0; k < s->ff.ms->n; k++)
        for (int c = 0; c < 3; c++)
            vs[3 * k + c] += mp->gravity[c] * dt;
}

static double hm_kinetic(st_component *self, const st_mparams *mp, const double *v)
{
    hexal_mass *s = (hexal_mass *)self;
    const double *vs = fem_dx(v, s->ff.ms);
    double e = 0.0;
    for (size_t i = 0; i < s->ff.ne; i++) {
        const hexal *h = &s->ff.e[i];
        const double me = 8.0 / 27.0 * element_total(s, h);
        if (s->lumped) {
            for (int w = 0; w < 8; w++)
                for (int c = 0; c < 3; c++)
                    e += 8.0 * me * vs[3 * h->v[w] + c] * vs[3 * h->v[w] + c];
            continue;
        }
        double sum[3] = {0, 0, 0};
        for (int w = 0; w < 8; w++)
            for (int c = 0; c < 3; c++)
                sum[c] += vs[3 * h->v[w] + c];
        e += me * (sum[0] * sum[0] + sum[1] * sum[1] + sum[2] * sum[2]);
    }
    (void)mp;
    return 0.5 * e;
}

static bool hm_is_diagonal(const st_component *self)
{
    return ((const hexal_mass *)self)->lumped;
}

static double hm_rayleigh_mass(const st_component *self)
{
    return ((const hexal_mass *)self)->rayleigh_mass;
}

static const st_mass_ops hm_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = hm_add_m_dx,
    .acc_from_f = hm_acc_from_f,
    .add_m_to_matrix = hm_add_m_to_matrix,
    .add_gravity_to_force = hm_add_gravity_to_force,
    .add_gravity_to_v = hm_add_gravity_to_v,
    .kinetic_energy = hm_kinetic,
    .is_diagonal = hm_is_diagonal,
    .rayleigh_mass = hm_rayleigh_mass,
};

static const st_field hm_fields[] = {HEXAL_FEM_FIELDS, HEXAL_MASS_FIELDS, ST_FIELD_END};

const st_class hexahedral_fem_force_field_and_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "HexahedralFEMForceFieldAndMass",
    .category = "ForceField",
    .description = "Hexahedral finite elements with mass",
    .instance_size = sizeof(hexal_mass),
    .fields = hm_fields,
    .init = hm_init,
    .reinit = hm_init,
    .cleanup = hexal_fem_cleanup,
    .forcefield = &hexal_fem_ops,
    .mass = &hm_mass_ops,
};
