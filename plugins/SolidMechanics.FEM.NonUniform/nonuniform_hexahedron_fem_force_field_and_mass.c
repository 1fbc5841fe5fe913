/* nonuniform_hexahedron_fem_force_field_and_mass.c -
 * NonUniformHexahedronFEMForceFieldAndMass: SOFA's
 * HexahedronFEMForceFieldAndMass on a SparseGridTopology whose element
 * stiffness and mass matrices are condensed from the grid's virtual finer
 * levels (Nesme, Payan, Faure 2006), so a coarse hexahedron that is half
 * empty is about half as stiff, with the stiffness where the matter is.
 *
 * SOFA's computation, per coarse hexahedron: with L = nbVirtualFinerLevels
 * (of this force field, at most the grid's Lg), the cells of the grid's
 * level L below the coarse one (the finest when L = Lg) each get SOFA's
 * classical element stiffness and mass of their axis-aligned shape (grid
 * positions times the state's scale3d), material of element 0, times the
 * cell's stiffness coefficient (for the mass too: SOFA passes
 * getStiffnessCoef as the mass coefficient); each level then adds its 8
 * children as P^T K_child P, P the trilinear interpolation of the child's
 * corners from its parent's (SOFA's FINE_TO_COARSE tables). The nested
 * interpolations compose into the trilinear interpolation from the coarse
 * corners, which is what is used here, one pass per descendant cell.
 * A cell's coefficient at level L < Lg is the grid's: its finest
 * descendants' sum over 8^(Lg - L) (the filled fraction).
 *
 * useMass (default true): the mass is the condensed element matrices
 * (lumpedMass: their row sums, made positive), the weight from the
 * particle masses vol * massCoef * density / 8 per coarse element vertex.
 * useMass false: addMDx and the weight use particle masses totalMass /
 * (number of elements) each (SOFA's formula), and the weight is added
 * whatever separateGravity says.
 *
 * Without a sparse grid, without virtual levels on either side, or with
 * more levels here than on the grid, the classical uniform matrices are
 * kept, with a warning (SOFA logs an error and then indexes past its list
 * of levels). The condensed matrices are computed once: reinit only warns,
 * as SOFA. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nonuniform.h"

/* Corner c of a hexahedron: 0 or 1 along each axis (SOFA's order). */
static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

/* Weights of the coarse corners at the corners of descendant cell o (0..s-1
 * per axis) of a coarse cell cut s times per axis: w[k][j], corner k of
 * the cell, coarse corner j. */
static void prolongation(double w[8][8], const int o[3], int s)
{
    for (int k = 0; k < 8; k++) {
        double t[3];
        for (int a = 0; a < 3; a++)
            t[a] = (double)(o[a] + corner[k][a]) / s;
        for (int j = 0; j < 8; j++) {
            double p = 1.0;
            for (int a = 0; a < 3; a++)
                p *= corner[j][a] ? t[a] : 1.0 - t[a];
            w[k][j] = p;
        }
    }
}

/* out = P^T A P, P = w (x) I3 (24 x 24). */
static void condense(double out[24][24], const double A[24][24], const double w[8][8])
{
    double AP[24][24];
    for (int r = 0; r < 24; r++)
        for (int l = 0; l < 8; l++)
            for (int y = 0; y < 3; y++) {
                double acc = 0;
                for (int m = 0; m < 8; m++)
                    acc += A[r][3 * m + y] * w[m][l];
                AP[r][3 * l + y] = acc;
            }
    for (int j = 0; j < 8; j++)
        for (int x = 0; x < 3; x++)
            for (int c = 0; c < 24; c++) {
                double acc = 0;
                for (int k = 0; k < 8; k++)
                    acc += w[k][j] * AP[3 * k + x][c];
                out[3 * j + x][c] = acc;
            }
}

const void *nonuniform_grid_field(st_component *g, const char *name, st_type type)
{
    const st_field *f = st_component_field(g, name);
    if (!f || f->type != type)
        return NULL;
    return st_component_field_ptr(g, f);
}

st_status nonuniform_finest(st_component *self, st_component *g, finest_level *fl, st_error *err)
{
    const double *fn = nonuniform_grid_field(g, "finestN", ST_T_VEC3);
    fl->fmin = nonuniform_grid_field(g, "finestMin", ST_T_VEC3);
    fl->fmax = nonuniform_grid_field(g, "finestMax", ST_T_VEC3);
    fl->cells = nonuniform_grid_field(g, "finestCells", ST_T_UINTS);
    fl->coefs = nonuniform_grid_field(g, "finestStiffnessCoefs", ST_T_REALS);
    if (!fn || !fl->fmin || !fl->fmax || !fl->cells || !fl->coefs)
        return st_component_error(self, "topology", err, ST_EPLUGIN,
                                  "the sparse grid '%s' does not give its finest level "
                                  "(finestN, finestCells, finestStiffnessCoefs)",
                                  g->name);
    fl->nc = 1;
    for (int a = 0; a < 3; a++) {
        fl->nf[a] = (int)fn[a];
        fl->nc *= fl->nf[a] > 1 ? (size_t)(fl->nf[a] - 1) : 0;
    }
    if (fl->nc == 0 || fl->cells->n != fl->nc || fl->coefs->n != fl->nc)
        return st_component_error(self, "topology", err, ST_EPLUGIN,
                                  "the sparse grid '%s' gives %zu finest cells for a %dx%dx%d "
                                  "grid",
                                  g->name, fl->cells->n, fl->nf[0], fl->nf[1], fl->nf[2]);
    return ST_OK;
}

/* Whether the grid gives what the condensation needs; warns and returns
 * false otherwise (the uniform matrices are kept). */
bool nonuniform_grid_usable(nonuniform_fem *n, st_component *g, int *grid_levels)
{
    st_component *self = &n->h.base;
    const char *cls = g->cls->name;
    if (n->nb_virtual_finer <= 0) {
        st_component_warn(self, "nbVirtualFinerLevels is 0: classical uniform properties are "
                                "used");
        return false;
    }
    if (strcmp(cls, "SparseGridTopology") != 0 && strcmp(cls, "SparseGridMultipleTopology") != 0 &&
        strcmp(cls, "SparseGridRamificationTopology") != 0) {
        st_component_warn(self, "must be used with a SparseGrid (the topology '%s' is a %s) in "
                                "order to handle VirtualFinerLevels: classical uniform "
                                "properties are used",
                          g->name, cls);
        return false;
    }
    const int *lg = nonuniform_grid_field(g, "nbVirtualFinerLevels", ST_T_INT);
    *grid_levels = lg ? *lg : 0;
    if (*grid_levels < n->nb_virtual_finer) {
        st_component_warn(self, "Conflict in nb of virtual levels between this force field (%d) "
                                "and SparseGrid '%s' (%d): classical uniform properties are used",
                          n->nb_virtual_finer, g->name, *grid_levels);
        return false;
    }
    return true;
}

/* K and M of every element from the grid's finest level (see the top). */
static st_status condense_all(nonuniform_fem *n, st_component *g, int grid_levels, st_error *err)
{
    hexa_fem *s = &n->h;
    st_component *self = &s->base;
    finest_level fl;
    ST_TRY(nonuniform_finest(self, g, &fl, err));
    const double *fmin = fl.fmin, *fmax = fl.fmax;
    const st_array *cells = fl.cells, *coefs = fl.coefs;
    const int *nf = fl.nf;
    const size_t nc = fl.nc;
    const int L = n->nb_virtual_finer, skip = grid_levels - L, S = 1 << L;
    const size_t S3 = (size_t)S * (size_t)S * (size_t)S;
    if (s->ne > ((size_t)1 << 26) / S3)
        return st_component_error(self, "nbVirtualFinerLevels", err, ST_EINVAL,
                                  "%zu elements with %d virtual levels: more than 2^26 "
                                  "descendant cells",
                                  s->ne, L);
    double *acc = st_calloc(s->ne * S3, sizeof *acc);
    if (!acc)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu descendant cells)", s->ne * S3);
    /* Each finest cell's coefficient into its ancestor at level L. */
    for (size_t c = 0; c < nc; c++) {
        unsigned H = cells->u[c];
        if (H == UINT_MAX || H >= s->ne || coefs->r[c] == 0)
            continue;
        size_t r = c;
        int ijk[3];
        for (int a = 0; a < 3; a++) {
            ijk[a] = (int)(r % (size_t)(nf[a] - 1));
            r /= (size_t)(nf[a] - 1);
        }
        size_t o = 0;
        for (int a = 2; a >= 0; a--)
            o = o * (size_t)S + (size_t)((ijk[a] >> skip) - ((ijk[a] >> grid_levels) << L));
        acc[(size_t)H * S3 + o] += coefs->r[c];
    }
    double div = ldexp(1.0, 3 * skip);
    /* One cell of level L: all have the same shape. */
    double nodes[8][3];
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++) {
            double d = (fmax[a] - fmin[a]) / (nf[a] - 1) * ldexp(1.0, skip);
            nodes[k][a] = corner[k][a] * d * s->ms->scale3d[a];
        }
    double (*Kc)[24][24] = st_malloc(2 * sizeof *Kc);
    if (!Kc) {
        st_free(acc);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    double Kcell[24][24], Mcell[24][24];
    hexa_element_stiffness(Kcell, s->e[0].U, s->e[0].V, s->e[0].W, nodes);
    hexa_element_mass(Mcell, nodes, s->density);
    for (size_t i = 0; i < s->ne; i++) {
        memset(s->e[i].K, 0, sizeof s->e[i].K);
        memset(s->M[i], 0, sizeof s->M[i]);
    }
    for (size_t o = 0; o < S3; o++) {
        int off[3] = {(int)(o % (size_t)S), (int)(o / (size_t)S % (size_t)S),
                      (int)(o / ((size_t)S * (size_t)S))};
        bool used = false;
        for (size_t i = 0; i < s->ne && !used; i++)
            used = acc[i * S3 + o] != 0;
        if (!used)
            continue;
        double w[8][8];
        prolongation(w, off, S);
        condense(Kc[0], (const double(*)[24])Kcell, (const double(*)[8])w);
        condense(Kc[1], (const double(*)[24])Mcell, (const double(*)[8])w);
        for (size_t i = 0; i < s->ne; i++) {
            double c = acc[i * S3 + o];
            if (c == 0)
                continue;
            c /= div;
            for (int a = 0; a < 24; a++)
                for (int b = 0; b < 24; b++) {
                    s->e[i].K[a][b] += c * Kc[0][a][b];
                    s->M[i][a][b] += c * Kc[1][a][b];
                }
        }
    }
    st_free(Kc);
    st_free(acc);
    return ST_OK;
}

/* The outputs and lumped masses from the condensed matrices; the particle
 * masses for useMass false. */
st_status nonuniform_refresh(nonuniform_fem *n, st_error *err)
{
    hexa_fem *s = &n->h;
    for (size_t i = 0; i < s->ne; i++) {
        memcpy(s->stiffness_matrices.r + 576 * i, s->e[i].K, sizeof s->e[i].K);
        memcpy(s->mass_matrices.r + 576 * i, s->M[i], sizeof s->M[i]);
    }
    if (s->lumped) {
        memset(s->lumped, 0, 3 * s->np * sizeof *s->lumped);
        for (size_t i = 0; i < s->ne; i++)
            for (int w = 0; w < 8; w++)
                for (int j = 0; j < 24; j++)
                    for (int c = 0; c < 3; c++)
                        s->lumped[3 * s->e[i].v[w] + (unsigned)c] += s->M[i][3 * w + c][j];
        for (size_t j = 0; j < 3 * s->np; j++)
            s->lumped[j] = fabs(s->lumped[j]);
    }
    if (!n->use_mass)
        for (size_t i = 0; i < s->np; i++)
            s->particle_mass[i] = s->ne ? n->total_mass / (double)s->ne : 0.0;
    (void)err;
    return ST_OK;
}

static st_status nu_init(st_component *self, st_error *err)
{
    nonuniform_fem *n = (nonuniform_fem *)self;
    ST_TRY(hfem_init_common(self, true, err));
    self->state = ST_CSTATE_INVALID;
    int grid_levels = 0;
    n->condensed = false;
    if (nonuniform_grid_usable(n, n->h.topology, &grid_levels) && n->h.ne) {
        ST_TRY(condense_all(n, n->h.topology, grid_levels, err));
        n->condensed = true;
    }
    ST_TRY(nonuniform_refresh(n, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static st_status nu_reinit(st_component *self, st_error *err)
{
    (void)err;
    st_component_warn(self, "Non-uniform mechanical properties can't be updated, changes on "
                            "mechanical properties (young, poisson, density) are not taken into "
                            "account.");
    return ST_OK;
}

/* ---- the mass role, useMass false: particle masses ---- */

static const st_mass_ops *base_mass(void)
{
    return hexahedron_fem_force_field_and_mass_class.mass;
}

static void nu_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    nonuniform_fem *n = (nonuniform_fem *)self;
    if (n->use_mass) {
        base_mass()->add_m_dx(self, mp, res, dx, factor);
        return;
    }
    hexa_fem *s = &n->h;
    double *r = fem_derivs(res, s->ms);
    const double *d = fem_dx(dx, s->ms);
    for (size_t i = 0; i < s->np; i++)
        for (int c = 0; c < 3; c++)
            r[3 * i + (unsigned)c] += d[3 * i + (unsigned)c] * s->particle_mass[i] * factor;
}

static void nu_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    nonuniform_fem *n = (nonuniform_fem *)self;
    if (n->use_mass) {
        base_mass()->add_gravity_to_force(self, mp, f, x, v);
        return;
    }
    hexahedron_fem_force_field_class.forcefield->add_force(self, mp, f, x, v);
    hexa_fem *s = &n->h;
    double *fs = fem_derivs(f, s->ms);
    for (size_t i = 0; i < s->np; i++)
        for (int c = 0; c < 3; c++)
            fs[3 * i + (unsigned)c] += mp->gravity[c] * s->particle_mass[i];
}

/* ---- the class ---- */

#define T nonuniform_fem
static const st_field own_fields[] = {
    ST_INT(T, nb_virtual_finer, "nbVirtualFinerLevels", "0",
           "use virtual finer levels, in order to compte non-uniform stiffness"),
    ST_BOOL(T, use_mass, "useMass", "true",
            "Using this ForceField like a Mass? (rather than using a separated Mass)"),
    ST_REAL(T, total_mass, "totalMass", "0",
            "Total mass when useMass is false: each particle gets totalMass / (number of "
            "elements)"),
    ST_FIELD_END};
#undef T

enum { NU_MAX_FIELDS = 64 };
static st_field fields[NU_MAX_FIELDS];
static st_mass_ops mass_ops;
static st_class cls;

const st_class *nonuniform_hexahedron_fem_class(void)
{
    const st_class *base = &hexahedron_fem_force_field_and_mass_class;
    size_t nf = 0;
    for (const st_field *f = base->fields; f->name; f++) {
        if (nf + 1 >= NU_MAX_FIELDS)
            return NULL;
        fields[nf++] = *f;
    }
    for (const st_field *f = own_fields; f->name; f++) {
        if (nf + 1 >= NU_MAX_FIELDS)
            return NULL;
        fields[nf++] = *f;
    }
    fields[nf] = own_fields[sizeof own_fields / sizeof *own_fields - 1];
    mass_ops = *base->mass;
    mass_ops.add_m_dx = nu_add_m_dx;
    mass_ops.add_gravity_to_force = nu_add_force;
    cls = *base;
    cls.name = "NonUniformHexahedronFEMForceFieldAndMass";
    cls.description = "HexahedronFEMForceFieldAndMass whose element stiffness and mass are "
                      "condensed from the sparse grid's virtual finer levels (non-uniform "
                      "stiffness)";
    cls.aliases = NULL;
    cls.instance_size = sizeof(nonuniform_fem);
    cls.fields = fields;
    cls.init = nu_init;
    cls.reinit = nu_reinit;
    cls.mass = &mass_ops;
    return &cls;
}
