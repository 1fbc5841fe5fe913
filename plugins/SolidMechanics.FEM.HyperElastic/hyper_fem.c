/* hyper_fem.c - the element code shared by SOFA's two hyperelastic
 * tetrahedron force fields (TetrahedronHyperelasticityFEMForceField and
 * StandardTetrahedralFEMForceField): a total Lagrangian linear tetrahedron
 * with a hyperelastic material (materialName, ParameterSet).
 *
 * Per element (rest vertices p0..p3, rest volume V0):
 *   g_a: the shape vectors, gradients of the barycentric coordinates at rest
 *        (g_1..g_3 the rows of [p1-p0 p2-p0 p3-p0]^-1, g_0 = -g_1-g_2-g_3);
 *   F = sum_a x_a (x) g_a = sum_{a>0} (x_a - x_0) (x) g_a, C = F^T F,
 *   J = det F;
 *   S = 2 dW/dC from the material; f_a = -V0 F S g_a.
 * The tangent is exact: df_a = -V0 (dF S + F dS) g_a with dF = sum_b dx_b
 * (x) g_b and dS the material's derivative for dC = dF^T F + F^T dF (SOFA
 * builds the same matrix edge by edge; add_dforce here applies it element by
 * element without storing it). add_force keeps F, S and the strain measures
 * of each element for add_dforce and add_k_to_matrix; no step allocates.
 * Potential energy: sum of V0 W (SOFA returns 0 with a warning). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hyper_fem.h"

/* ---- Element kernels ---- */

static void gather(const double *x, const unsigned v[4], double p[4][3])
{
    for (int k = 0; k < 4; k++)
        memcpy(p[k], x + 3 * v[k], sizeof p[k]);
}

/* F = sum_a p_a (x) g_a, as SOFA from the edges: sum_{a>0} (p_a - p_0) (x)
 * g_a (the same since the g_a add up to zero, without the round-off of
 * coordinates far from the origin). */
static void deformation_gradient(const helem *e, const double p[4][3], double F[9])
{
    double d[3][3];
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < 3; i++)
            d[a][i] = p[a + 1][i] - p[0][i];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            F[3 * i + j] = d[0][i] * e->g[1][j] + d[1][i] * e->g[2][j] + d[2][i] * e->g[3][j];
}

/* The strain measures of F into st. */
static void strain_of(const hyper_ff *s, const double F[9], hyper_strain *st)
{
    double C[9];
    mat3_mul_tn(C, F, F);
    hyper_strain_set(st, s->mat, s->parameter_set.r, C, mat3_det(F));
}

/* out_a -= fact V0 P g_a for the 4 vertices, P a 3x3 matrix. */
static void scatter(double *out, const helem *e, const double P[9], double fact)
{
    for (int a = 0; a < 4; a++) {
        double y[3];
        mat3_mulv(y, P, e->g[a]);
        double *o = out + 3 * e->v[a];
        for (int c = 0; c < 3; c++)
            o[c] -= fact * e->vol * y[c];
    }
}

/* The element's stresses for its F (kept in e): S, and P = F S (from F
 * directly for a material that gives P). */
static void element_stress(const hyper_ff *s, helem *e, double P[9])
{
    const double *prm = s->parameter_set.r;
    if (s->mat->pk1) {
        s->mat->pk1(s->mat, &e->st, prm, e->F, P);
        return;
    }
    s->mat->stress(s->mat, &e->st, prm, e->S);
    mat3_mul(P, e->F, e->S);
}

/* The stress increment for dF: dP = dF S + F dS(dF^T F + F^T dF). */
static void stress_increment(const hyper_ff *s, const helem *e, const double dF[9], double dP[9])
{
    if (s->mat->dpk1) {
        s->mat->dpk1(s->mat, &e->st, s->parameter_set.r, e->F, dF, dP);
        return;
    }
    double H[9], A[9], dS[9], t[9];
    mat3_mul_tn(A, dF, e->F);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            H[3 * i + j] = A[3 * i + j] + A[3 * j + i];
    s->mat->dstress(s->mat, &e->st, s->parameter_set.r, H, dS);
    mat3_mul(dP, dF, e->S);
    mat3_mul(t, e->F, dS);
    for (int i = 0; i < 9; i++)
        dP[i] += t[i];
}

/* ---- Init ---- */

static st_status find_topology(hyper_ff *s, st_error *err)
{
    st_component *self = &s->base, *t = s->topology;
    if (!t)
        t = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!t || !t->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  t ? t->name : "(none)", st_node_name(self->node));
    s->topology = t;
    return ST_OK;
}

/* The material by name; with by_index (SOFA's OptionsGroup), also by its
 * index in SOFA's option list, with SOFA's warning. */
static st_status check_material(hyper_ff *s, bool by_index, st_error *err)
{
    st_component *self = &s->base;
    s->mat = hyper_material_find(s->material_name);
    char *end = NULL;
    long idx = s->material_name ? strtol(s->material_name, &end, 10) : -1;
    if (!s->mat && by_index && end && end != s->material_name && !*end && idx >= 0 &&
        (s->mat = hyper_material_at((unsigned)idx))) {
        st_component_warn_field(self, "materialName", "Error while parsing \"%s\": option %ld "
                                "of the list is %s",
                                s->material_name, idx, s->mat->name);
    }
    if (!s->mat)
        return st_component_error(self, "materialName", err, ST_EINVAL,
                                  "material name '%s' is not valid: expected one of %s",
                                  s->material_name ? s->material_name : "",
                                  hyper_material_names());
    if (s->parameter_set.n < s->mat->nparams)
        return st_component_error(self, "ParameterSet", err, ST_EINVAL,
                                  "material %s reads %u parameters (%s) from ParameterSet, "
                                  "got %zu",
                                  s->mat->name, s->mat->nparams, s->mat->params,
                                  s->parameter_set.n);
    return ST_OK;
}

static st_status init_element(hyper_ff *s, size_t i, const double *x0, st_error *err)
{
    helem *e = &s->e[i];
    double p[4][3], D[9], Di[9];
    gather(x0, e->v, p);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            D[3 * r + c] = p[c + 1][r] - p[0][r];
    double det = mat3_det(D);
    if (!mat3_invert(Di, D) || fabs(det) < 1e-300)
        return st_component_error(&s->base, "topology", err, ST_EINVAL,
                                  "tetrahedron %zu (vertices %u %u %u %u) has a zero rest "
                                  "volume",
                                  i, e->v[0], e->v[1], e->v[2], e->v[3]);
    e->vol = fabs(det) / 6;
    for (int c = 0; c < 3; c++) {
        e->g[0][c] = 0;
        for (int a = 1; a < 4; a++) {
            e->g[a][c] = Di[3 * (a - 1) + c];
            e->g[0][c] -= e->g[a][c];
        }
    }
    /* the rest state, so that add_dforce before any add_force is defined */
    deformation_gradient(e, p, e->F);
    strain_of(s, e->F, &e->st);
    double P[9];
    element_stress(s, e, P);
    return ST_OK;
}

/* ---- Topological changes ---- */

/* SOFA's createTetrahedronRestInformation: an added tetrahedron is computed
 * by the listener, once the rest positions of its points are there. */
static void helem_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i;
    helem *e = item;
    if (ev->vertices)
        memcpy(e->v, ev->vertices + 4 * k, sizeof e->v);
    e->fresh = true;
}

static const st_topo_follow_ops helem_follow_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = helem_create,
};

/* After a change: the kept tetrahedra keep their rest shape and last
 * stress (SOFA's tetrahedronInfo, a TopologyData), their vertex indices
 * re-read; added ones are computed from the rest positions. */
static st_status hyper_topology_changed(st_component *self, st_component *topology,
                                        const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    hyper_ff *s = (hyper_ff *)self;
    const st_array *te = s->topology->cls->topology->elements(s->topology, ST_T_TETRAS);
    size_t have = te ? te->n : 0;
    if (have != s->ne)
        return st_component_error(self, "topology", err, ST_ESOLVER,
                                  "holds %zu tetrahedra after a topological change, but its "
                                  "topology has %zu",
                                  s->ne, have);
    size_t np = s->ms->rest_position.n;
    for (size_t i = 0; i < s->ne; i++) {
        memcpy(s->e[i].v, te->u + 4 * i, sizeof s->e[i].v);
        for (int k = 0; k < 4; k++)
            if (s->e[i].v[k] >= np)
                return st_component_error(self, "topology", err, ST_EINVAL,
                                          "tetrahedron %zu of the topology uses vertex %u but "
                                          "the state has %zu points",
                                          i, s->e[i].v[k], np);
        if (s->e[i].fresh) {
            s->e[i].fresh = false;
            ST_TRY(init_element(s, i, s->ms->rest_position.r, err));
        }
    }
    return ST_OK;
}

/* Registers once per topology (reinit calls init again). */
static st_status follow_topology(hyper_ff *s, st_error *err)
{
    if (s->followed == s->topology)
        return ST_OK;
    st_component *self = &s->base;
    ST_TRY(st_topology_follow(self, s->topology, ST_ELEM_TETRAHEDRON, (void **)&s->e, &s->ne,
                              sizeof *s->e, &helem_follow_ops, s, err));
    ST_TRY(st_topology_listen(self, s->topology, hyper_topology_changed, err));
    s->followed = s->topology;
    return ST_OK;
}

void hyper_fem_cleanup(st_component *self)
{
    hyper_ff *s = (hyper_ff *)self;
    st_free(s->e);
    s->e = NULL;
    s->ne = 0;
}

st_status hyper_fem_init(st_component *self, bool sofa_options, st_error *err)
{
    hyper_ff *s = (hyper_ff *)self;
    hyper_fem_cleanup(self);
    self->state = ST_CSTATE_INVALID;
    s->ms = st_component_mstate(self);
    if (!s->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors (%s needs one)",
                                  self->cls->name);
    ST_TRY(find_topology(s, err));
    ST_TRY(check_material(s, sofa_options, err));
    const st_array *te = s->topology->cls->topology->elements(s->topology, ST_T_TETRAS);
    if ((!te || !te->n) && sofa_options)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "object must have a Tetrahedral Set Topology: '%s' has no "
                                  "tetrahedra",
                                  s->topology->name);
    if (!te || !te->n) {
        st_component_warn(self, "No tetrahedra found in linked Topology.");
        ST_TRY(follow_topology(s, err));
        self->state = ST_CSTATE_VALID;
        return ST_OK;
    }
    size_t np = s->ms->rest_position.n;
    for (size_t i = 0; i < 4 * te->n; i++)
        if (te->u[i] >= np)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "tetrahedron %zu of the topology uses vertex %u but the "
                                      "state has %zu points",
                                      i / 4, te->u[i], np);
    s->ne = te->n;
    s->e = st_calloc(s->ne, sizeof *s->e);
    if (!s->e)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu tetrahedra)", s->ne);
    for (size_t i = 0; i < s->ne; i++) {
        memcpy(s->e[i].v, te->u + 4 * i, sizeof s->e[i].v);
        ST_TRY(init_element(s, i, s->ms->rest_position.r, err));
    }
    ST_TRY(follow_topology(s, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* ---- Force field role ---- */

static void hff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp, (void)v;
    hyper_ff *s = (hyper_ff *)self;
    double *fs = st_slice(f, s->ms);
    const double *xs = st_slice_x(x, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        helem *e = &s->e[i];
        double p[4][3], P[9];
        gather(xs, e->v, p);
        deformation_gradient(e, p, e->F);
        strain_of(s, e->F, &e->st);
        element_stress(s, e, P);
        scatter(fs, e, P, 1.0);
    }
}

static void hff_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    hyper_ff *s = (hyper_ff *)self;
    double *dfs = st_slice(df, s->ms);
    const double *d = st_slice(dx, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        const helem *e = &s->e[i];
        double p[4][3], dF[9], dP[9];
        gather(d, e->v, p);
        deformation_gradient(e, p, dF);
        stress_increment(s, e, dF, dP);
        scatter(dfs, e, dP, kfactor);
    }
}

static void hff_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    hyper_ff *s = (hyper_ff *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const helem *e = &s->e[i];
        /* K[a][b] (3x3, row-major): column n is -V0 dP(e_n (x) g_b) g_a. */
        double K[4][4][9];
        for (int b = 0; b < 4; b++)
            for (int n = 0; n < 3; n++) {
                double dF[9] = {0}, dP[9];
                for (int c = 0; c < 3; c++)
                    dF[3 * n + c] = e->g[b][c];
                stress_increment(s, e, dF, dP);
                for (int a = 0; a < 4; a++) {
                    double y[3];
                    mat3_mulv(y, dP, e->g[a]);
                    for (int r = 0; r < 3; r++)
                        K[a][b][3 * r + n] = -kfactor * e->vol * y[r];
                }
            }
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                st_matrix_add_block(m, s->ms, e->v[a], s->ms, e->v[b], K[a][b]);
    }
}

static double hff_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    hyper_ff *s = (hyper_ff *)self;
    const double *xs = st_slice_x(x, s->ms);
    double energy = 0;
    for (size_t i = 0; i < s->ne; i++) {
        const helem *e = &s->e[i];
        double p[4][3], F[9];
        hyper_strain st;
        gather(xs, e->v, p);
        deformation_gradient(e, p, F);
        strain_of(s, F, &st);
        energy += e->vol * s->mat->energy(s->mat, &st, s->parameter_set.r);
    }
    return energy;
}

static double hff_rayleigh(const st_component *self)
{
    return ((const hyper_ff *)self)->rayleigh_stiffness;
}

const st_forcefield_ops hyper_fem_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = hff_add_force,
    .add_dforce = hff_add_dforce,
    .add_k_to_matrix = hff_add_k,
    .potential_energy = hff_energy,
    .rayleigh_stiffness = hff_rayleigh,
};

