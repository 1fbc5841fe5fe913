/* nonuniform_hexahedral_fem_force_field_and_mass.c -
 * NonUniformHexahedralFEMForceFieldAndMass: SOFA's HexahedralFEMForceFieldAndMass
 * on a MultilevelHexahedronSetTopologyContainer, each hexahedron's stiffness
 * and mass condensed from the fine voxels of its component (Nesme, Payan,
 * Faure 2006).
 *
 * At init (and reinit), with L the container's "level" and s = 2^L:
 *   the fine voxel: hexahedron 0's rest vertices, minus its vertex 0, over s
 *     (all hexahedra are taken to have that shape); its stiffness K_fine
 *     is HexahedralFEMForceField's closed form for the material of element
 *     0 (youngModulus, poissonRatio), its mass m_fine = density |n1 - n0|
 *     |n3 - n0| |n4 - n0| and its mass matrix SOFA's 1/216 pattern
 *     (hexa_condensation.h);
 *   hexahedron i: the voxels of its coarse component (the container's
 *     coarseComponents, fine voxel indices over its resolution, x fastest)
 *     condensed onto its corners, K = sum P^T K_fine P, M = sum P^T M_fine P,
 *     totalMass = sum m_fine, P the trilinear interpolation of the voxel's
 *     corners from the hexahedron's (recursive: octant by octant, as SOFA's
 *     "recursive"; otherwise SOFA's closed form for a full hexahedron, else
 *     the sum over the voxels, which SOFA's interval analysis groups);
 *   the frames and rotated rest points are HexahedralFEMForceField's (large
 *     or polar), the forces too, with these K;
 *   particleMasses: totalMass / 8 per hexahedron vertex; lumpedMasses (only
 *     with lumpedMass, as SOFA): the row sums of M per vertex.
 * The mass: M dx with the element matrices (or the lumped masses), the
 * assembled mass with the vertex blocks only (SOFA's addMToMatrix), gravity
 * on the particle masses (or on the velocities with separateGravity).
 * useMBK: SOFA forms (M mfactor - K kfactor) per element, rotated, for the
 * implicit products; the kernel here forms the same product from M dx and
 * the stiffness (a rotation leaves SOFA's blockwise-isotropic M unchanged),
 * except that with lumpedMass SOFA's product still uses the element
 * matrices where settee's uses the lumped masses.
 * SOFA does not follow topological changes (its handler is compiled out):
 * here the force field reads the container without following it, so a
 * change of it fails naming this object. Another topology is refused
 * (SOFA: "Object must have a MultilevelHexahedronSetTopologyContainer"). */
#include <math.h>
#include <string.h>

#include "hexa_condensation.h"
#include "nonuniform.h"

static void nuh_cleanup(st_component *self)
{
    nuhexal *s = (nuhexal *)self;
    st_free(s->M);
    s->M = NULL;
    s->nm = 0;
    hexal_fem_cleanup(self);
}

static const void *container_field(st_component *g, const char *name, st_type type)
{
    const st_field *f = st_component_field(g, name);
    return f && f->type == type ? st_component_field_ptr(g, f) : NULL;
}

/* The fine voxel's matrices (see the top). */
static void fine_voxel(const nuhexal *s, int level, double K[24][24], double M[24][24],
                       double *m)
{
    const hexal_fem *f = &s->hm.ff;
    const double *x = f->ms->rest_position.r;
    const unsigned *v = f->e[0].v;
    double n[8][3];
    for (int w = 0; w < 8; w++)
        for (int c = 0; c < 3; c++)
            n[w][c] = (x[3 * v[w] + c] - x[3 * v[0] + c]) / (double)(1 << level);
    hexal_element_stiffness(K, fem_value_in_element(&f->young_modulus, 0, FEM_DEFAULT_YOUNG),
                            fem_value_in_element(&f->poisson_ratio, 0, FEM_DEFAULT_POISSON), n);
    double vol = 1.0;
    const int edge[3] = {1, 3, 4};
    for (int k = 0; k < 3; k++) {
        const double *a = n[edge[k]];
        vol *= sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    }
    *m = vol * s->hm.density;
    hcond_voxel_mass(M, *m);
}

static st_status nuh_init(st_component *self, st_error *err)
{
    nuhexal *s = (nuhexal *)self;
    hexal_fem *f = &s->hm.ff;
    st_free(s->M);
    s->M = NULL;
    s->nm = 0;
    ST_TRY(hexal_fem_setup(self, false, err));
    self->state = ST_CSTATE_INVALID;
    st_component *g = f->topology;
    if (strcmp(g->cls->name, "MultilevelHexahedronSetTopologyContainer") != 0)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "Object must have a MultilevelHexahedronSetTopologyContainer "
                                  "('%s' is a %s)",
                                  g->name, g->cls->name);
    ST_TRY(st_topology_use(self, g, err));
    if (!(s->hm.density > 0.0))
        return st_component_error(self, "density", err, ST_EINVAL,
                                  "density %g: the mass must be positive", s->hm.density);
    const int *level = container_field(g, "level", ST_T_INT);
    const double *res = container_field(g, "resolution", ST_T_VEC3);
    const st_array *comp = container_field(g, "coarseComponents", ST_T_UINTS);
    if (!level || !res || !comp)
        return st_component_error(self, "topology", err, ST_EPLUGIN,
                                  "the container '%s' does not give its level, resolution and "
                                  "coarseComponents",
                                  g->name);
    const int L = *level;
    if (L < 0 || L > HCOND_MAX_LEVEL)
        return st_component_error(self, "topology", err, ST_EINVAL,
                                  "the container '%s' has level %d: 0 to %d levels between the "
                                  "fine and the coarse mesh are supported",
                                  g->name, L, HCOND_MAX_LEVEL);
    const size_t ne = f->ne;
    if (comp->n != ne)
        return st_component_error(self, "topology", err, ST_EINVAL,
                                  "the container '%s' gives %zu coarse components for %zu "
                                  "hexahedra",
                                  g->name, comp->n, ne);
    const size_t rx = (size_t)res[0], ry = (size_t)res[1];
    const double cells = res[0] * res[1] * res[2];
    s->M = st_calloc(ne ? ne : 1, sizeof *s->M);
    ST_TRY(st_array_resize(&s->hm.total_mass, ST_T_REALS, ne, err));
    if (!s->M)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu element masses)", ne);
    s->nm = ne;
    double Kf[24][24], Mf[24][24], mf;
    fine_voxel(s, L, Kf, Mf, &mf);
    for (size_t i = 0; i < ne; i++) {
        const unsigned id = comp->u[i];
        if (!((double)id < cells))
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "hexahedron %zu: its voxel %u is outside the %gx%gx%g "
                                      "resolution of '%s'",
                                      i, id, res[0], res[1], res[2], g->name);
        const int vox[1][3] = {{(int)(id % rx), (int)(id / rx % ry), (int)(id / (rx * ry))}};
        if (!hcond_condense(f->e[i].K, s->M[i], &s->hm.total_mass.r[i],
                            (const double(*)[24])Kf, (const double(*)[24])Mf, mf, L, vox, 1,
                            s->recursive))
            return st_error_set(err, ST_ENOMEM, "out of memory (condensation)");
    }
    const size_t np = f->ms->n;
    ST_TRY(st_array_resize(&s->hm.particle_masses, ST_T_REALS, np, err));
    memset(s->hm.particle_masses.r, 0, np * sizeof(double));
    ST_TRY(st_array_resize(&s->hm.lumped_masses, ST_T_VEC3S, s->hm.lumped ? np : 0, err));
    if (s->hm.lumped)
        memset(s->hm.lumped_masses.r, 0, 3 * np * sizeof(double));
    for (size_t i = 0; i < ne; i++) {
        const unsigned *v = f->e[i].v;
        for (int w = 0; w < 8; w++) {
            s->hm.particle_masses.r[v[w]] += 0.125 * s->hm.total_mass.r[i];
            if (!s->hm.lumped)
                continue;
            for (int j = 0; j < 24; j++)
                for (int c = 0; c < 3; c++)
                    s->hm.lumped_masses.r[3 * v[w] + c] += s->M[i][3 * w + c][j];
        }
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* ---- the mass role ---- */

static void nuh_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                         double factor)
{
    (void)mp;
    nuhexal *s = (nuhexal *)self;
    const hexal_fem *f = &s->hm.ff;
    double *r = fem_derivs(res, f->ms);
    const double *d = fem_dx(dx, f->ms);
    if (s->hm.lumped) {
        for (size_t k = 0; k < s->hm.lumped_masses.n * 3; k++)
            r[k] += s->hm.lumped_masses.r[k] * d[k] * factor;
        return;
    }
    for (size_t i = 0; i < s->nm; i++) {
        const unsigned *v = f->e[i].v;
        double X[24];
        for (int w = 0; w < 8; w++)
            for (int c = 0; c < 3; c++)
                X[3 * w + c] = d[3 * v[w] + c];
        for (int a = 0; a < 24; a++) {
            double acc = 0;
            for (int b = 0; b < 24; b++)
                acc += s->M[i][a][b] * X[b];
            r[3 * v[a / 3] + (unsigned)(a % 3)] += acc * factor;
        }
    }
}

static void nuh_acc_from_f(st_component *self, const st_mparams *mp, double *a, const double *f)
{
    (void)mp;
    nuhexal *s = (nuhexal *)self;
    double *as = fem_derivs(a, s->hm.ff.ms);
    const double *fs = fem_dx(f, s->hm.ff.ms);
    if (!s->hm.lumped || s->hm.lumped_masses.n != s->hm.ff.ms->n)
        return;
    for (size_t k = 0; k < 3 * s->hm.lumped_masses.n; k++)
        as[k] = s->hm.lumped_masses.r[k] > 0.0 ? fs[k] / s->hm.lumped_masses.r[k] : 0.0;
}

static void nuh_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m,
                                double mfactor)
{
    (void)mp;
    nuhexal *s = (nuhexal *)self;
    const hexal_fem *f = &s->hm.ff;
    for (size_t i = 0; i < s->nm; i++)
        for (int w = 0; w < 8; w++) {
            double b[9];
            for (int r = 0; r < 3; r++)
                for (int c = 0; c < 3; c++)
                    b[3 * r + c] = s->M[i][3 * w + r][3 * w + c] * mfactor;
            fem_add_block(m, f->ms, f->e[i].v[w], f->e[i].v[w], b);
        }
}

static void nuh_add_gravity_to_force(st_component *self, const st_mparams *mp, double *f,
                                     const double *x, const double *v)
{
    (void)x, (void)v;
    nuhexal *s = (nuhexal *)self;
    if (s->hm.separate_gravity)
        return;
    double *fs = fem_derivs(f, s->hm.ff.ms);
    for (size_t k = 0; k < s->hm.particle_masses.n; k++)
        for (int c = 0; c < 3; c++)
            fs[3 * k + c] += mp->gravity[c] * s->hm.particle_masses.r[k];
}

static void nuh_add_gravity_to_v(st_component *self, const st_mparams *mp, double *v, double dt)
{
    nuhexal *s = (nuhexal *)self;
    if (!s->hm.separate_gravity)
        return;
    double *vs = fem_derivs(v, s->hm.ff.ms);
    for (size_t k = 0; k < s->hm.ff.ms->n; k++)
        for (int c = 0; c < 3; c++)
            vs[3 * k + c] += mp->gravity[c] * dt;
}

/* v.(M v) / 2 with the element matrices (or the lumped masses). */
static double nuh_kinetic(st_component *self, const st_mparams *mp, const double *v)
{
    (void)mp;
    nuhexal *s = (nuhexal *)self;
    const hexal_fem *f = &s->hm.ff;
    const double *vs = fem_dx(v, f->ms);
    double e = 0.0;
    if (s->hm.lumped) {
        for (size_t k = 0; k < 3 * s->hm.lumped_masses.n; k++)
            e += s->hm.lumped_masses.r[k] * vs[k] * vs[k];
        return 0.5 * e;
    }
    for (size_t i = 0; i < s->nm; i++) {
        const unsigned *vi = f->e[i].v;
        double X[24];
        for (int w = 0; w < 8; w++)
            for (int c = 0; c < 3; c++)
                X[3 * w + c] = vs[3 * vi[w] + c];
        for (int a = 0; a < 24; a++)
            for (int b = 0; b < 24; b++)
                e += X[a] * s->M[i][a][b] * X[b];
    }
    return 0.5 * e;
}

static bool nuh_is_diagonal(const st_component *self) { return ((const nuhexal *)self)->hm.lumped; }

static double nuh_rayleigh_mass(const st_component *self)
{
    return ((const nuhexal *)self)->hm.rayleigh_mass;
}

static const st_mass_ops nuh_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = nuh_add_m_dx,
    .acc_from_f = nuh_acc_from_f,
    .add_m_to_matrix = nuh_add_m_to_matrix,
    .add_gravity_to_force = nuh_add_gravity_to_force,
    .add_gravity_to_v = nuh_add_gravity_to_v,
    .kinetic_energy = nuh_kinetic,
    .is_diagonal = nuh_is_diagonal,
    .rayleigh_mass = nuh_rayleigh_mass,
};

static const st_field nuh_fields[] = {
    HEXAL_FEM_FIELDS,
    HEXAL_MASS_FIELDS,
    ST_BOOL(nuhexal, recursive, "recursive", "false", "Use recursive matrix computation"),
    ST_BOOL(nuhexal, use_mbk, "useMBK", "true",
            "compute MBK and use it in addMBKdx, instead of using addDForce and addMDx."),
    ST_FIELD_END};

const st_class nonuniform_hexahedral_fem_class = {
    .struct_size = sizeof(st_class),
    .name = "NonUniformHexahedralFEMForceFieldAndMass",
    .category = "ForceField",
    .description = "Non uniform Hexahedral finite elements.",
    .instance_size = sizeof(nuhexal),
    .fields = nuh_fields,
    .init = nuh_init,
    .reinit = nuh_init,
    .cleanup = nuh_cleanup,
    .forcefield = &hexal_fem_ops,
    .mass = &nuh_mass_ops,
};
