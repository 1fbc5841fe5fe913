/* tetrahedron_fem_force_field.c - TetrahedronFEMForceField: SOFA's linear
 * elastic tetrahedron, small displacements or corotational (large: frame of
 * the first edge and face; polar: polar decomposition of the edge matrix;
 * svd: polar, or an SVD rotation for inverted and flat elements).
 *
 * Per element (vertices a, b, c, d; SOFA's conventions):
 *   J: 12x6 strain-displacement matrix of cofactors (6 V times the shape
 *      function gradients), in Voigt order xx, yy, zz, xy, yz, xz;
 *   K: 6x6 isotropic material matrix divided by 36 V, so J K J^T is the
 *      element stiffness;
 *   D: rest minus current positions in the element frame (12 values),
 *   f_local = J K J^T D (J^T D less a plastic strain when plasticity is on),
 *   f = R f_local with R the element rotation (identity for small).
 * add_dforce and the matrix use R J K J^T R^T with R stored by the last
 * add_force (SOFA's corotational tangent: the derivative of R is left out,
 * so for large/polar/svd it equals the exact Jacobian only where the local
 * deformation vanishes). Potential energy: 1/2 D^T J K J^T D for method
 * small, 0 for the corotational methods, as in SOFA; the same strain energy
 * for every method in TetrahedralCorotationalFEMForceField (SOFA: 0).
 *
 * When the topology has hexahedra and no tetrahedra, each hexahedron is cut
 * into 6 tetrahedra as SOFA's force field does (vertex swaps by grid
 * parity). Element data are computed at init into one contiguous array; no
 * step allocates. */
#include <math.h>
#include <string.h>

#include "tetrahedron_fem.h"
#include "../shared/rotation_finder.h"


/* ---- Element kernels ---- */

/* The 2x3 "pseudo determinant" of SOFA's shape function coefficients. */
static double pdet(double m00, double m01, double m02, double m10, double m11, double m12)
{
    return m01 * m12 - m11 * m02 - m00 * m12 + m10 * m02 + m00 * m11 - m10 * m01;
}

/* J from the four vertex positions p[0..3]. Node k uses the three next
 * vertices in cyclic order; its sign alternates (-, +, -, +). p is a
 * pointer, not p[4][3]: GCC 12 at -O3 misreads that bound (a false
 * -Wstringop-overflow that breaks the Release build). */
static void strain_displacement(double J[12][6], const double (*p)[3])
{
    memset(J, 0, 12 * 6 * sizeof(double));
    for (int k = 0; k < 4; k++) {
        const double *q = p[(k + 1) % 4], *r = p[(k + 2) % 4], *s = p[(k + 3) % 4];
        double sg = (k % 2 == 0) ? -1.0 : 1.0;
        double yz = pdet(q[1], r[1], s[1], q[2], r[2], s[2]);
        double xz = pdet(q[0], r[0], s[0], q[2], r[2], s[2]);
        double xy = pdet(q[0], r[0], s[0], q[1], r[1], s[1]);
        int b = 3 * k;
        J[b][0] = J[b + 1][3] = J[b + 2][5] = sg * yz;
        J[b][3] = J[b + 1][1] = J[b + 2][4] = -sg * xz;
        J[b][5] = J[b + 1][4] = J[b + 2][2] = sg * xy;
    }
}

/* Non-zero pattern of J: the rows feeding each strain component, and the
 * strain components of each row (by row % 3). */
static const int jt_rows[6][8] = {{0, 3, 6, 9, -1},
                                  {1, 4, 7, 10, -1},
                                  {2, 5, 8, 11, -1},
                                  {0, 1, 3, 4, 6, 7, 9, 10},
                                  {1, 2, 4, 5, 7, 8, 10, 11},
                                  {0, 2, 3, 5, 6, 8, 9, 11}};
static const int j_cols[3][3] = {{0, 3, 5}, {1, 3, 4}, {2, 4, 5}};

static void strain_of(const tet *t, const double D[12], double s[6])
{
    for (int c = 0; c < 6; c++) {
        double acc = 0;
        for (int k = 0; k < 8 && jt_rows[c][k] >= 0; k++)
            acc += t->J[jt_rows[c][k]][c] * D[jt_rows[c][k]];
        s[c] = acc;
    }
}

/* F = J (fact K s): nodal forces of the (elastic) strain s. */
static void force_of_strain(const tet *t, const double s[6], double fact, double F[12])
{
    double ks[6] = {t->kd * s[0] + t->ko * s[1] + t->ko * s[2],
                    t->ko * s[0] + t->kd * s[1] + t->ko * s[2],
                    t->ko * s[0] + t->ko * s[1] + t->kd * s[2],
                    t->ks * s[3], t->ks * s[4], t->ks * s[5]};
    if (fact != 1.0)
        for (int c = 0; c < 6; c++)
            ks[c] *= fact;
    for (int r = 0; r < 12; r++) {
        const int *c = j_cols[r % 3];
        F[r] = t->J[r][c[0]] * ks[c[0]] + t->J[r][c[1]] * ks[c[1]] + t->J[r][c[2]] * ks[c[2]];
    }
}

/* F = J K (J^T D - plastic), updating the plastic strain (SOFA's
 * Muller-Gross plasticity) when plasticMaxThreshold > 0. */
static void element_force(tetra_fem *s, tet *t, const double D[12], double F[12])
{
    double e[6];
    strain_of(t, D, e);
    if (s->plastic_max > 0) {
        double el[6], n2 = 0;
        for (int c = 0; c < 6; c++) {
            el[c] = e[c] - t->plastic[c];
            n2 += el[c] * el[c];
        }
        if (n2 > s->plastic_yield * s->plastic_yield)
            for (int c = 0; c < 6; c++)
                t->plastic[c] += s->plastic_creep * el[c];
        double p2 = 0;
        for (int c = 0; c < 6; c++)
            p2 += t->plastic[c] * t->plastic[c];
        if (p2 > s->plastic_max * s->plastic_max) {
            double k = s->plastic_max / sqrt(p2);
            for (int c = 0; c < 6; c++)
                t->plastic[c] *= k;
        }
        for (int c = 0; c < 6; c++)
            e[c] -= t->plastic[c];
    }
    force_of_strain(t, e, 1.0, F);
}

/* S = R J K J^T (12x12) and SR = S R^T, R block-diagonal (NULL: identity). */
static void element_stiffness(const tet *t, const double *R, double S[12][12], double SR[12][12])
{
    double JK[12][6], JKJt[12][12];
    double K[6][6] = {{t->kd, t->ko, t->ko}, {t->ko, t->kd, t->ko}, {t->ko, t->ko, t->kd}};
    K[3][3] = K[4][4] = K[5][5] = t->ks;
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 6; j++) {
            double a = 0;
            for (int k = 0; k < 6; k++)
                a += t->J[i][k] * K[k][j];
            JK[i][j] = a;
        }
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++) {
            double a = 0;
            for (int k = 0; k < 6; k++)
                a += JK[i][k] * t->J[j][k];
            JKJt[i][j] = a;
        }
    if (!R) {
        memcpy(S, JKJt, sizeof JKJt);
        memcpy(SR, JKJt, sizeof JKJt);
        return;
    }
    for (int bi = 0; bi < 4; bi++)
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 12; j++) {
                const double *Ri = R + 3 * i;
                S[3 * bi + i][j] = Ri[0] * JKJt[3 * bi][j] + Ri[1] * JKJt[3 * bi + 1][j] +
                                   Ri[2] * JKJt[3 * bi + 2][j];
            }
    for (int i = 0; i < 12; i++)
        for (int bj = 0; bj < 4; bj++)
            for (int j = 0; j < 3; j++) {
                const double *Sr = S[i] + 3 * bj;
                SR[i][3 * bj + j] = Sr[0] * R[3 * j] + Sr[1] * R[3 * j + 1] + Sr[2] * R[3 * j + 2];
            }
}

/* Rows of a are the edges b - a, c - a, d - a. */
static void edge_matrix(double a[9], const double *p[4])
{
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++)
            a[3 * i + k] = p[i + 1][k] - p[0][k];
}

/* ---- Init ---- */

static const char *const method_names[] = {"small", "large", "polar", "svd"};

static void material(tetra_fem *s, size_t i, const double *x0)
{
    tet *t = &s->e[i];
    const st_array *lsf = &s->local_stiffness_factor;
    double young = fem_value_in_element(&s->young_modulus, i, FEM_DEFAULT_YOUNG);
    double E = (lsf->n ? lsf->r[i * lsf->n / s->ne] : 1.0) * young;
    double nu = fem_value_in_element(&s->poisson_ratio, i, FEM_DEFAULT_POISSON);
    double scale = (E * (1 - nu)) / ((1 + nu) * (1 - 2 * nu));
    double kd = 1 * scale, ko = nu / (1 - nu) * scale, ks = (1 - 2 * nu) / (2 * (1 - nu)) * scale;
    t->lambda = ko;
    t->mu = ks;
    const double *a = x0 + 3 * t->v[0], *b = x0 + 3 * t->v[1], *c = x0 + 3 * t->v[2],
                 *d = x0 + 3 * t->v[3];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double z[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]}, n[3];
    fem_cross(n, u, w);
    double vol = fabs((n[0] * z[0] + n[1] * z[1] + n[2] * z[2]) / 6.0);
    s->rest_volume += vol;
    double div = vol * 36;
    t->kd = kd / div;
    t->ko = ko / div;
    t->ks = ks / div;
}

static st_status init_element(tetra_fem *s, size_t i, const double *x0, st_error *err)
{
    tet *t = &s->e[i];
    const double *p[4];
    for (int k = 0; k < 4; k++)
        p[k] = x0 + 3 * t->v[k];
    double r01[9], rest[4][3];
    memset(t->plastic, 0, sizeof t->plastic);
    if (s->meth == M_SMALL) {
        for (int k = 0; k < 4; k++)
            memcpy(rest[k], p[k], sizeof rest[k]);
        strain_displacement(t->J, rest);
        for (int k = 0; k < 9; k++)
            t->R[k] = t->R0[k] = k % 4 == 0 ? 1.0 : 0.0;
        return ST_OK;
    }
    if (s->meth == M_LARGE) {
        fem_rotation_large(r01, p[0], p[1], p[2]);
    } else {
        double A[9];
        edge_matrix(A, p);
        if (s->meth == M_SVD && !fem_invert3(t->A0inv, A))
            return st_component_error(&s->base, "method", err, ST_EINVAL,
                                      "tetrahedron %zu (vertices %u %u %u %u) is flat: method "
                                      "svd needs a non-degenerate rest shape",
                                      i, t->v[0], t->v[1], t->v[2], t->v[3]);
        fem_polar(A, r01);
    }
    fem_transpose3(t->R0, r01);
    memcpy(t->R, t->R0, sizeof t->R);
    for (int k = 0; k < 4; k++)
        fem_mulv3(t->rest[k], r01, p[k]);
    if (s->meth == M_LARGE) {
        for (int k = 1; k < 4; k++)
            for (int c = 0; c < 3; c++)
                t->rest[k][c] -= t->rest[0][c];
        t->rest[0][0] = t->rest[0][1] = t->rest[0][2] = 0;
    }
    strain_displacement(t->J, t->rest);
    return ST_OK;
}

/* SOFA's in-force-field tessellation of hexahedra into 6 tetrahedra. */
static const unsigned hex_xedges[4][2] = {{0, 1}, {4, 5}, {3, 2}, {7, 6}};
static const unsigned hex_yedges[4][2] = {{4, 7}, {5, 6}, {1, 2}, {0, 3}};
static const unsigned hex_zedges[4][2] = {{4, 0}, {5, 1}, {6, 2}, {7, 3}};
static const unsigned hex_tets[6][4] = {{0, 5, 1, 6}, {0, 1, 3, 6}, {1, 3, 6, 2},
                                        {6, 3, 0, 7}, {6, 7, 0, 5}, {7, 5, 4, 0}};

static void swap_edges(unsigned c[8], const unsigned e[4][2])
{
    for (int k = 0; k < 4; k++) {
        unsigned t = c[e[k][0]];
        c[e[k][0]] = c[e[k][1]];
        c[e[k][1]] = t;
    }
}

static st_status collect_elements(tetra_fem *s, st_component *topo, st_error *err)
{
    const st_array *te = fem_elements(topo, ST_T_TETRAS);
    if (!te && s->corot) {
        st_component_warn(&s->base, "No tetrahedra found in linked Topology.");
        return ST_OK;
    }
    const st_array *hx = te ? NULL : fem_elements(topo, ST_T_HEXAS);
    s->from_hexa = hx != NULL;
    if (!te && !hx)
        return st_component_error(&s->base, "topology", err, ST_ESCENE,
                                  "object must have a tetrahedric topology: '%s' has no "
                                  "tetrahedra nor hexahedra",
                                  topo->name);
    s->ne = te ? te->n : 6 * hx->n;
    s->e = st_calloc(s->ne, sizeof *s->e);
    if (!s->e)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu tetrahedra)", s->ne);
    if (te) {
        for (size_t i = 0; i < te->n; i++)
            memcpy(s->e[i].v, te->u + 4 * i, sizeof s->e[i].v);
        return ST_OK;
    }
    int nx, ny;
    fem_grid_cells(topo, &nx, &ny);
    if (nx < 1)
        nx = 1;
    if (ny < 1)
        ny = 1;
    for (size_t i = 0; i < hx->n; i++) {
        unsigned c[8];
        memcpy(c, hx->u + 8 * i, sizeof c);
        if (!((i % (size_t)nx) & 1))
            swap_edges(c, hex_xedges);
        if (((i / (size_t)nx) % (size_t)ny) & 1)
            swap_edges(c, hex_yedges);
        if ((i / (size_t)(nx * ny)) & 1)
            swap_edges(c, hex_zedges);
        for (int k = 0; k < 6; k++)
            for (int j = 0; j < 4; j++)
                s->e[6 * i + (size_t)k].v[j] = c[hex_tets[k][j]];
    }
    return ST_OK;
}

static void tfem_free(tetra_fem *s)
{
    st_free(s->e);
    st_free(s->shape);
    st_free(s->node_count);
    fem_bsr_free(&s->K);
    s->e = NULL;
    s->shape = NULL;
    s->node_count = NULL;
    s->ne = 0;
}

static bool vm_on(const tetra_fem *s)
{
    return s->compute_von_mises == 1 || s->compute_von_mises == 2;
}

static void compute_von_mises(tetra_fem *s);

/* The rest volume of element i (SOFA's computeMaterialStiffness). */
static double volume_of(const tet *t, const double *x0)
{
    const double *a = x0 + 3 * t->v[0], *b = x0 + 3 * t->v[1], *c = x0 + 3 * t->v[2],
                 *d = x0 + 3 * t->v[3];
    double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double z[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]}, n[3];
    fem_cross(n, u, w);
    return fabs((n[0] * z[0] + n[1] * z[1] + n[2] * z[2]) / 6.0);
}

/* The element data (SOFA's reinit). keep: after a topological change, the
 * elements the kernel moved keep their data (material, rest shape,
 * rotations, plastic strain: SOFA's TopologyData); their vertex indices
 * are re-read from the topology (the points may have been renumbered), and
 * only the elements a change added (fresh) are computed, from the rest
 * positions, as SOFA's createTetrahedronInformation does. Otherwise every
 * element is collected and computed. Per-vertex data (initialPoints, von
 * Mises shape functions and counts) are rebuilt from the rest positions. */
static st_status build(tetra_fem *s, bool keep, st_error *err)
{
    st_component *self = &s->base;
    if (!keep) {
        st_free(s->e);
        s->e = NULL;
        s->ne = 0;
        ST_TRY(collect_elements(s, s->topology, err));
    } else {
        ST_TRY(fem_reread_vertices(self, s->e, s->ne, sizeof *s->e,
                                   fem_elements(s->topology, ST_T_TETRAS), 4, err));
    }
    st_free(s->shape);
    st_free(s->node_count);
    s->shape = NULL;
    s->node_count = NULL;
    size_t np = s->ms->rest_position.n;
    for (size_t i = 0; i < s->ne; i++)
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 4, np, "tetrahedron", err));
    /* initialPoints: the rest positions, as SOFA's reinit sets them. */
    ST_TRY(st_array_resize(&s->initial_points, ST_T_VEC3S, np, err));
    if (np) /* a removal may leave no point: no arrays to copy */
        memcpy(s->initial_points.r, s->ms->rest_position.r, 3 * np * sizeof(double));
    if (!s->corot)
        st_component_touch(self, st_component_field(self, "initialPoints"));
    const double *x0 = s->initial_points.r;
    s->rest_volume = 0;
    for (size_t i = 0; i < s->ne; i++) {
        if (keep && !s->e[i].fresh) {
            s->rest_volume += volume_of(&s->e[i], x0);
            continue;
        }
        s->e[i].fresh = false;
        material(s, i, x0);
        ST_TRY(init_element(s, i, x0, err));
    }
    if (vm_on(s)) {
        s->shape = st_calloc(s->ne ? s->ne : 1, sizeof *s->shape);
        s->node_count = st_calloc(np ? np : 1, sizeof *s->node_count);
        if (!s->shape || !s->node_count)
            return st_error_set(err, ST_ENOMEM, "out of memory (von Mises data)");
        ST_TRY(st_array_resize(&s->von_mises_elem, ST_T_REALS, s->ne, err));
        ST_TRY(st_array_resize(&s->von_mises_node, ST_T_REALS, np, err));
        for (size_t i = 0; i < s->ne; i++) {
            double m[16];
            for (int k = 0; k < 4; k++) {
                const double *p = x0 + 3 * s->e[i].v[k];
                m[4 * k] = 1.0;
                m[4 * k + 1] = p[0], m[4 * k + 2] = p[1], m[4 * k + 3] = p[2];
                s->node_count[s->e[i].v[k]]++;
            }
            if (!fem_invert4(s->shape[i], m))
                return st_component_error(self, "computeVonMisesStress", err, ST_EINVAL,
                                          "tetrahedron %zu is flat: no shape functions for the "
                                          "von Mises stress",
                                          i);
        }
    }
    return ST_OK;
}


/* ---- Topological changes ---- */

/* SOFA's createTetrahedronInformation: an added element is computed by the
 * listener, once the rest positions of its points are there. */
static void tet_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i;
    tet *t = item;
    if (ev->vertices)
        memcpy(t->v, ev->vertices + 4 * k, sizeof t->v);
    t->fresh = true;
}

static const st_topo_follow_ops tet_follow_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = tet_create,
};

/* After a change: the kept elements keep their data; per-element lists of
 * material values follow them; hexahedra cut into tetrahedra are cut
 * again (SOFA's reinit: the cut depends on the hexahedron's index). */
static st_status tfem_topology_changed(st_component *self, st_component *topology,
                                       const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    tetra_fem *s = (tetra_fem *)self;
    if (!s->from_hexa) {
        fem_follow_list(self, "youngModulus", &s->young_modulus, 1, 1, ST_ELEM_TETRAHEDRON, ev, nev);
        fem_follow_list(self, "poissonRatio", &s->poisson_ratio, 1, 1, ST_ELEM_TETRAHEDRON, ev, nev);
        fem_follow_list(self, "localStiffnessFactor", &s->local_stiffness_factor, 1, 1,
                        ST_ELEM_TETRAHEDRON, ev, nev);
    }
    ST_TRY(build(s, !s->from_hexa, err));
    fem_bsr_forget(&s->K);
    size_t np = s->ms->rest_position.n;
    fem_follow_rotations(&s->rotations, np);
    if (vm_on(s))
        compute_von_mises(s);
    return ST_OK;
}

/* Registers once per topology (reinit calls init again). */
static st_status follow_topology(tetra_fem *s, st_error *err)
{
    if (s->followed == s->topology)
        return ST_OK;
    st_component *self = &s->base;
    if (!s->from_hexa)
        ST_TRY(st_topology_follow(self, s->topology, ST_ELEM_TETRAHEDRON, (void **)&s->e, &s->ne,
                                  sizeof *s->e, &tet_follow_ops, s, err));
    ST_TRY(st_topology_listen(self, s->topology, tfem_topology_changed, err));
    s->followed = s->topology;
    return ST_OK;
}

static st_status tfem_init(st_component *self, st_error *err)
{
    tetra_fem *s = (tetra_fem *)self;
    tfem_free(s);
    self->state = ST_CSTATE_INVALID;
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    s->meth = fem_method_index(s->method, method_names, s->corot ? 3 : 4);
    if (s->corot) {
        /* SOFA's TetrahedralCorotational: any other name is large, silently. */
        if (s->meth < 0)
            s->meth = M_LARGE;
        s->compute_von_mises = s->corot_vm ? 1 : 0;
    } else if (s->meth < 0) {
        st_component_warn(self,
                          "Unknown method: large method will be used. Remark: Available method "
                          "are \"small\", \"polar\", \"large\", \"svd\"");
        s->meth = M_LARGE;
        st_free(s->method);
        s->method = st_calloc(6, 1);
        if (!s->method)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        memcpy(s->method, "large", 6);
    }
    if (s->corot) {
        /* no checks: its flag is a bool and every method computes */
    } else if (s->compute_von_mises < 0 || s->compute_von_mises > 2) {
        st_component_warn(self, "Value of computeVonMisesStress is invalid (must be 0, 1 or 2): "
                                "no von Mises stress computed");
        s->compute_von_mises = 0;
    } else if (s->compute_von_mises == 1 && s->meth == M_SMALL) {
        st_component_warn(self, "VonMisesStress can only be computed with full Green strain when "
                                "the method is SMALL: no von Mises stress computed");
        s->compute_von_mises = 0;
    }
    ST_TRY(build(s, false, err));
    ST_TRY(follow_topology(s, err));
    self->state = ST_CSTATE_VALID;
    if (vm_on(s))
        compute_von_mises(s);
    return ST_OK;
}

static void tfem_cleanup(st_component *self)
{
    tetra_fem *s = (tetra_fem *)self;
    tfem_free(s);
    if (s->corot) /* not a field of this class: owned here */
        st_array_free(&s->initial_points, ST_T_VEC3S);
}

static void tfem_reset(st_component *self)
{
    tetra_fem *s = (tetra_fem *)self;
    for (size_t i = 0; i < s->ne; i++)
        memset(s->e[i].plastic, 0, sizeof s->e[i].plastic);
}

/* ---- Forces ---- */

static void gather(const double *x, const unsigned v[4], double p[4][3])
{
    for (int k = 0; k < 4; k++)
        memcpy(p[k], x + 3 * v[k], 3 * sizeof(double));
}

/* g = R F, per vertex (R NULL: g = F): the element's force in the world
 * frame, 12 scalars. */
static void world_force(double g[12], const double *R, const double F[12])
{
    if (!R) {
        memcpy(g, F, 12 * sizeof *g);
        return;
    }
    for (int k = 0; k < 4; k++)
        fem_mulv3(g + 3 * k, R, F + 3 * k);
}

/* f[v] += g, vertex by vertex in element order (the parallel twin adds the
 * same g in the same order: tetrahedron_fem.h). */
static void scatter(double *f, const unsigned v[4], const double g[12])
{
    for (int k = 0; k < 4; k++) {
        double *fk = f + 3 * v[k];
        fk[0] += g[3 * k], fk[1] += g[3 * k + 1], fk[2] += g[3 * k + 2];
    }
}

/* computeGlobalMatrix: the force from the full element matrix S (SOFA's
 * assembling branch). */
static void assembled_force(const tet *t, const double *R, const double D[12], double F[12])
{
    double S[12][12], SR[12][12];
    element_stiffness(t, R, S, SR);
    for (int i = 0; i < 12; i++) {
        double a = 0;
        for (int j = 0; j < 12; j++)
            a += S[i][j] * D[j];
        F[i] = a;
    }
}

/* ---- Local displacements D (rest - current, element frame), as the
 * forces and the energy use them; none of them writes the element. ---- */

static void small_local(const tetra_fem *s, const tet *t, const double *p, double D[12])
{
    const double *x0 = s->initial_points.r;
    const double *a0 = x0 + 3 * t->v[0], *pa = p + 3 * t->v[0];
    memset(D, 0, 3 * sizeof *D);
    for (int k = 1; k < 4; k++) {
        const double *bk = x0 + 3 * t->v[k], *pk = p + 3 * t->v[k];
        for (int c = 0; c < 3; c++)
            D[3 * k + c] = bk[c] - a0[c] - pk[c] + pa[c];
    }
}

/* large: the frame r02 (world to element) of the first edge and face, def
 * the current shape in it relative to vertex 0 (SOFA's partial form). */
static void large_local(const tet *t, const double pos[4][3], double r02[9],
                        double def[4][3], double D[12])
{
    fem_rotation_large(r02, pos[0], pos[1], pos[2]);
    for (int k = 0; k < 4; k++)
        fem_mulv3(def[k], r02, pos[k]);
    def[1][0] -= def[0][0];
    def[2][0] -= def[0][0];
    def[2][1] -= def[0][1];
    for (int c = 0; c < 3; c++)
        def[3][c] -= def[0][c];
    const double d[12] = {0, 0, 0, t->rest[1][0] - def[1][0], 0, 0, t->rest[2][0] - def[2][0],
                          t->rest[2][1] - def[2][1], 0, t->rest[3][0] - def[3][0],
                          t->rest[3][1] - def[3][1], t->rest[3][2] - def[3][2]};
    memcpy(D, d, sizeof d);
}

/* updateStiffnessMatrix with method large: J of the deformed shape def. */
static void large_update_j(double J[12][6], const double def[4][3])
{
    J[0][0] = -def[2][1] * def[3][2];
    J[1][1] = def[2][0] * def[3][2] - def[1][0] * def[3][2];
    J[2][2] = def[2][1] * def[3][0] - def[2][0] * def[3][1] + def[1][0] * def[3][1] -
              def[1][0] * def[2][1];
    J[3][0] = def[2][1] * def[3][2];
    J[4][1] = -def[2][0] * def[3][2];
    J[5][2] = -def[2][1] * def[3][0] + def[2][0] * def[3][1];
    J[7][1] = def[1][0] * def[3][2];
    J[8][2] = -def[1][0] * def[3][1];
    J[11][2] = def[1][0] * def[2][1];
}

/* polar and svd: the current shape def in the frame r02, D = rest - def. */
static void rotated_local(const tet *t, const double pos[4][3], const double r02[9],
                          double def[4][3], double D[12])
{
    for (int k = 0; k < 4; k++) {
        fem_mulv3(def[k], r02, pos[k]);
        for (int c = 0; c < 3; c++)
            D[3 * k + c] = t->rest[k][c] - def[k][c];
    }
}

static void polar_frame(const double pos[4][3], double r02[9])
{
    double A[9];
    const double *pp[4] = {pos[0], pos[1], pos[2], pos[3]};
    edge_matrix(A, pp);
    fem_polar(A, r02);
}

static void svd_frame(const tet *t, const double pos[4][3], double r02[9])
{
    double A[9], F[9];
    const double *pp[4] = {pos[0], pos[1], pos[2], pos[3]};
    edge_matrix(A, pp);
    fem_mul3(F, A, t->A0inv);
    if (fem_det3(F) < 1e-6) {
        /* inverted or flat: the SVD rotation, back into the initial frame */
        double q[9], r01[9];
        fem_polar_stable(F, q);
        fem_transpose3(r01, t->R0);
        fem_mul3(r02, q, r01);
    } else {
        fem_polar(A, r02);
    }
}

/* Each method's element force in the world frame into g (12 scalars);
 * false when the configuration computes none (SOFA's assembled branch with
 * plasticity, polar or svd). The element's rotation and J are updated. */
static bool force_small(tetra_fem *s, tet *t, const double *p, double g[12])
{
    double D[12];
    small_local(s, t, p, D);
    if (!s->assembling)
        element_force(s, t, D, g);
    else if (s->plastic_max <= 0)
        assembled_force(t, NULL, D, g);
    else
        return false; /* SOFA: no assembled matrix with plasticity (init warned) */
    return true;
}

static bool force_large(tetra_fem *s, tet *t, const double *p, double g[12])
{
    double r02[9], def[4][3], pos[4][3], D[12];
    gather(p, t->v, pos);
    large_local(t, pos, r02, def, D);
    fem_transpose3(t->R, r02);
    if (s->update_stiffness_matrix)
        large_update_j(t->J, def);
    double F[12];
    if (!s->assembling) {
        element_force(s, t, D, F);
        world_force(g, t->R, F);
    } else if (s->plastic_max <= 0) {
        t->J[6][0] = t->J[9][0] = t->J[10][1] = 0;
        assembled_force(t, t->R, D, g);
    } else {
        return false;
    }
    return true;
}

/* polar and svd: D from the rest shape and the current shape both rotated
 * into the element frame r02. */
static void force_rotated(tetra_fem *s, tet *t, const double pos[4][3], const double r02[9],
                          double g[12])
{
    double def[4][3], D[12];
    fem_transpose3(t->R, r02);
    rotated_local(t, pos, r02, def, D);
    if (s->update_stiffness_matrix)
        strain_displacement(t->J, def);
    double F[12];
    element_force(s, t, D, F);
    world_force(g, t->R, F);
}

static bool force_polar(tetra_fem *s, tet *t, const double *p, double g[12])
{
    if (s->assembling)
        return false; /* SOFA: no assembled matrix with method polar */
    double pos[4][3], r02[9];
    gather(p, t->v, pos);
    polar_frame(pos, r02);
    force_rotated(s, t, pos, r02, g);
    return true;
}

static bool force_svd(tetra_fem *s, tet *t, const double *p, double g[12])
{
    if (s->assembling)
        return false; /* SOFA: no assembled matrix with method svd */
    double pos[4][3], r02[9];
    gather(p, t->v, pos);
    svd_frame(t, pos, r02);
    force_rotated(s, t, pos, r02, g);
    return true;
}

static bool element_world_force(tetra_fem *s, tet *t, const double *p, double g[12])
{
    switch (s->meth) {
    case M_SMALL: return force_small(s, t, p, g);
    case M_LARGE: return force_large(s, t, p, g);
    case M_POLAR: return force_polar(s, t, p, g);
    default: return force_svd(s, t, p, g);
    }
}

bool tfem_has_force(const tetra_fem *s)
{
    if (!s->assembling)
        return true;
    return (s->meth == M_SMALL || s->meth == M_LARGE) && s->plastic_max <= 0;
}

void tfem_forces_range(tetra_fem *s, const double *p, size_t begin, size_t end, double *g)
{
    for (size_t i = begin; i < end; i++)
        if (!element_world_force(s, &s->e[i], p, g + 12 * (i - begin)))
            memset(g + 12 * (i - begin), 0, 12 * sizeof *g);
}

/* The element's share of df, before its sign: R K R^T dx (K J K J^T,
 * scaled by kfactor); rot false: no rotation (method small). */
static void element_dforce(const tet *t, const double *d, double kfactor, bool rot, double g[12])
{
    double X[12], F[12], e[6];
    for (int k = 0; k < 4; k++) {
        const double *dk = d + 3 * t->v[k];
        if (rot) /* R^T dx */
            for (int c = 0; c < 3; c++)
                X[3 * k + c] = t->R[c] * dk[0] + t->R[3 + c] * dk[1] + t->R[6 + c] * dk[2];
        else
            memcpy(X + 3 * k, dk, 3 * sizeof(double));
    }
    strain_of(t, X, e);
    force_of_strain(t, e, kfactor, F);
    if (!rot) {
        memcpy(g, F, sizeof F);
        return;
    }
    for (int k = 0; k < 4; k++) {
        const double *Fk = F + 3 * k;
        for (int c = 0; c < 3; c++)
            g[3 * k + c] = t->R[3 * c] * Fk[0] + t->R[3 * c + 1] * Fk[1] + t->R[3 * c + 2] * Fk[2];
    }
}

void tfem_dforces_range(const tetra_fem *s, const double *d, double kfactor, size_t begin,
                        size_t end, double *g)
{
    const bool rot = s->meth != M_SMALL;
    for (size_t i = begin; i < end; i++)
        element_dforce(&s->e[i], d, kfactor, rot, g + 12 * (i - begin));
}

/* SOFA's getRotation of each vertex (rotation finder): the mean of the
 * rotations R R0^T (rest to current) of its tetrahedra made a rotation, by
 * polar decomposition (TetrahedronFEMForceField) or by SOFA's row
 * orthogonalization (TetrahedralCorotationalFEMForceField); the identity
 * with method small, as SOFA. */
static void node_rotations(tetra_fem *s)
{
    double *acc = s->rotations.r;
    const size_t np = s->ms->n;
    if (!fem_rotation_begin(acc, np, s->meth == M_SMALL))
        return;
    for (size_t i = 0; i < s->ne; i++) {
        const tet *t = &s->e[i];
        double r0t[9], q[9];
        fem_transpose3(r0t, t->R0);
        fem_mul3(q, t->R, r0t);
        fem_rotation_add(acc, t->v, 4, q);
    }
    fem_rotation_finish(acc, np, s->corot);
}

void tfem_add_force_finish(tetra_fem *s)
{
    s->K.valid = false; /* the rotations (and J, the material) may have changed */
    if (rotfinder_wanted(&s->rotations, s->ms->n))
        node_rotations(s);
    s->vm_dirty = true;
    if (s->corot && s->corot_vm) /* SOFA computes it at the end of addForce */
        compute_von_mises(s);
}

/* Whether every element's J has strain_displacement's form, rows 3k, 3k+1,
 * 3k+2 being [gx 0 0 gy 0 gz], [0 gy 0 gx gz 0], [0 0 gz 0 gy gx] for the
 * shape-function gradient g of vertex k: J is written by strain_displacement
 * only, except with method large when updateStiffnessMatrix (large_update_j
 * rewrites single entries) or computeGlobalMatrix (force_large zeroes three)
 * is set. */
static bool j_has_gradient_form(const tetra_fem *s)
{
    return s->meth != M_LARGE || (!s->update_stiffness_matrix && !s->assembling);
}

/* assemble_element through the gradients (J in strain_displacement's form):
 * with the material's kd, ko, ks, J_i Kmat J_j^T = ko g_i g_j^T + ks g_j g_i^T
 * + ks (g_i . g_j) I + (kd - ko - 2 ks) diag(g_i * g_j), and kd - ko - 2 ks
 * is zero for the isotropic material (kd, ko, ks = 1, nu / (1 - nu),
 * (1 - 2 nu) / (2 (1 - nu)), times the same factor: material()), but for
 * the rounding of the three values. The rotated block is then
 * ko h_i h_j^T + ks h_j h_i^T + ks (g_i . g_j) I with h = R g: a fifth of the
 * operations of the general product, whose blocks it equals at round-off. */
static inline void assemble_gradients(fem_bsr *b, size_t e, const tet *t, bool rot, bool part,
                                      const double g[4][3])
{
    static const double id[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    const double *R = rot ? t->R : id;
    const double ko = t->ko, ks = t->ks;
    double h[4][3], hk[4][3];
    for (int i = 0; i < 4; i++)
        for (int a = 0; a < 3; a++) {
            h[i][a] = R[3 * a] * g[i][0] + R[3 * a + 1] * g[i][1] + R[3 * a + 2] * g[i][2];
            hk[i][a] = ks * h[i][a];
        }
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = i; j < 4; j++) {
            const double dot = ks * (g[i][0] * g[j][0] + g[i][1] * g[j][1] + g[i][2] * g[j][2]);
            double blk[9];
            for (int p = 0; p < 3; p++) {
                const double kp = ko * h[i][p];
                for (int q = 0; q < 3; q++)
                    blk[3 * p + q] = kp * h[j][q] + hk[j][p] * h[i][q];
            }
            blk[0] += dot, blk[4] += dot, blk[8] += dot;
            if (part)
                fem_bsr_add_part(b, e, i, j, blk);
            else
                fem_bsr_add_pair(b, e, i, j, blk);
        }
}

/* Element t's blocks of K added to b: R J_i Kmat J_j^T R^T for its vertex
 * pairs i <= j (J_i: rows 3i..3i+2 of J; R the identity with method small),
 * the pairs j > i by transposition. */
static inline void assemble_element(fem_bsr *b, size_t e, const tet *t, bool rot, bool jform,
                                    bool part)
{
    if (jform) {
        double g[4][3];
        for (int k = 0; k < 4; k++)
            g[k][0] = t->J[3 * k][0], g[k][1] = t->J[3 * k + 1][1], g[k][2] = t->J[3 * k + 2][2];
        assemble_gradients(b, e, t, rot, part, g);
        return;
    }
    double A[4][3][6], B[4][3][6];
    for (int i = 0; i < 4; i++)
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 6; c++)
                A[i][a][c] = rot ? t->R[3 * a] * t->J[3 * i][c] + t->R[3 * a + 1] * t->J[3 * i + 1][c] +
                                       t->R[3 * a + 2] * t->J[3 * i + 2][c]
                                 : t->J[3 * i + a][c];
    for (int i = 0; i < 4; i++)
        for (int a = 0; a < 3; a++) {
            const double *x = A[i][a];
            B[i][a][0] = t->kd * x[0] + t->ko * x[1] + t->ko * x[2];
            B[i][a][1] = t->ko * x[0] + t->kd * x[1] + t->ko * x[2];
            B[i][a][2] = t->ko * x[0] + t->ko * x[1] + t->kd * x[2];
            B[i][a][3] = t->ks * x[3];
            B[i][a][4] = t->ks * x[4];
            B[i][a][5] = t->ks * x[5];
        }
    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = i; j < 4; j++) {
            double blk[9];
            for (int a = 0; a < 3; a++)
                for (int c = 0; c < 3; c++) {
                    const double *u = B[i][a], *w = A[j][c];
                    blk[3 * a + c] = u[0] * w[0] + u[1] * w[1] + u[2] * w[2] + u[3] * w[3] +
                                     u[4] * w[4] + u[5] * w[5];
                }
            if (part)
                fem_bsr_add_part(b, e, i, j, blk);
            else
                fem_bsr_add_pair(b, e, i, j, blk);
        }
}

static void tfem_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp, (void)v;
    tetra_fem *s = (tetra_fem *)self;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms);
    const bool eager = fem_bsr_eager_begin(&s->K, s->ms->n, s->ne ? s->e[0].v : NULL,
                                           sizeof(tet) / sizeof(unsigned), s->ne, 4);
    const bool rot = s->meth != M_SMALL, jform = j_has_gradient_form(s);
    for (size_t i = 0; i < s->ne; i++) {
        tet *t = &s->e[i];
        double g[12];
        if (element_world_force(s, t, p, g))
            scatter(fs, t->v, g);
        if (eager)
            assemble_element(&s->K, i, t, rot, jform, false);
    }
    tfem_add_force_finish(s);
    if (eager)
        fem_bsr_eager_end(&s->K);
}

static void assemble_one(fem_bsr *b, size_t e, const void *ctx)
{
    const tetra_fem *s = ctx;
    if (b->part)
        assemble_element(b, e, &s->e[e], s->meth != M_SMALL, j_has_gradient_form(s), true);
    else
        assemble_element(b, e, &s->e[e], s->meth != M_SMALL, j_has_gradient_form(s), false);
}

const fem_bsr *tfem_assembled(tetra_fem *s, const st_mparams *mp, const fem_bsr_pool *pool)
{
    return fem_bsr_assembled(&s->K, mp, s->ms->n, s->ne ? s->e[0].v : NULL,
                             sizeof(tet) / sizeof(unsigned), s->ne, 4, assemble_one, s,
                             pool);
}

static void tfem_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                            double kfactor, double bfactor)
{
    (void)bfactor;
    tetra_fem *s = (tetra_fem *)self;
    double *dfs = fem_derivs(df, s->ms);
    const double *d = fem_dx(dx, s->ms);
    const fem_bsr *K = tfem_assembled(s, mp, NULL);
    if (K) {
        fem_bsr_mul_sub(K, dfs, d, kfactor, 0, K->n);
        return;
    }
    const bool rot = s->meth != M_SMALL;
    for (size_t i = 0; i < s->ne; i++) {
        const tet *t = &s->e[i];
        double g[12];
        element_dforce(t, d, kfactor, rot, g);
        for (int k = 0; k < 4; k++) {
            double *o = dfs + 3 * t->v[k];
            o[0] -= g[3 * k], o[1] -= g[3 * k + 1], o[2] -= g[3 * k + 2];
        }
    }
}

static void tfem_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    tetra_fem *s = (tetra_fem *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const tet *t = &s->e[i];
        double S[12][12], SR[12][12];
        element_stiffness(t, s->meth == M_SMALL ? NULL : t->R, S, SR);
        for (int n1 = 0; n1 < 4; n1++)
            for (int n2 = 0; n2 < 4; n2++) {
                double b[9];
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        b[3 * r + c] = -SR[3 * n1 + r][3 * n2 + c] * kfactor;
                fem_add_block(m, s->ms, t->v[n1], t->v[n2], b);
            }
    }
}

/* Strain energy 1/2 sum_e D^T J K J^T D = 1/2 D . F with the D and J the
 * force uses (f_e = R J K J^T D); J follows the deformed shape with
 * updateStiffnessMatrix, as add_force makes it. TetrahedronFEMForceField
 * keeps SOFA's: method small only (0 for the corotational methods);
 * TetrahedralCorotationalFEMForceField has it for every method (SOFA: 0).
 * Exact -dE/dx for small; the corotational force leaves dR out. */
static double tfem_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    tetra_fem *s = (tetra_fem *)self;
    if (!s->corot && (s->meth != M_SMALL || s->assembling))
        return 0.0;
    const double *p = fem_coords(x, s->ms);
    double energy = 0;
    for (size_t i = 0; i < s->ne; i++) {
        tet t = s->e[i]; /* a copy: J may follow the deformed shape */
        double D[12], F[12], e[6], pos[4][3], def[4][3], r02[9];
        if (s->meth == M_SMALL) {
            small_local(s, &t, p, D);
        } else {
            gather(p, t.v, pos);
            if (s->meth == M_LARGE) {
                large_local(&t, pos, r02, def, D);
                if (s->update_stiffness_matrix)
                    large_update_j(t.J, def);
            } else {
                if (s->meth == M_POLAR)
                    polar_frame(pos, r02);
                else
                    svd_frame(&t, pos, r02);
                rotated_local(&t, pos, r02, def, D);
                if (s->update_stiffness_matrix)
                    strain_displacement(t.J, def);
            }
        }
        strain_of(&t, D, e);
        force_of_strain(&t, e, 1.0, F);
        for (int k = 0; k < 12; k++)
            energy += F[k] * D[k];
    }
    return 0.5 * energy;
}

static double tfem_rayleigh(const st_component *self)
{
    return ((const tetra_fem *)self)->rayleigh_stiffness;
}

/* ---- von Mises stress (SOFA's computeVonMisesStress) ---- */

static void compute_von_mises(tetra_fem *s)
{
    const double *X = s->ms->position.r, *X0 = s->initial_points.r;
    for (size_t el = 0; el < s->ne; el++) {
        tet *t = &s->e[el];
        const double *shf = s->shape[el];
        double U[12], G[9], st[6];
        if (s->corot && s->meth != M_LARGE) {
            /* SOFA's TetrahedralCorotational fills its shape functions for
             * method large only: the stress of the others is 0. */
            s->von_mises_elem.r[el] = 0.0;
            continue;
        }
        if (s->compute_von_mises == 2) {
            for (int m = 0; m < 4; m++)
                for (int k = 0; k < 3; k++)
                    U[3 * m + k] = X[3 * t->v[m] + k] - X0[3 * t->v[m] + k];
        } else {
            /* corotational displacement, as the last force computation saw it */
            double pos[4][3], r02[9], def[4][3];
            gather(X, t->v, pos);
            if (s->meth == M_LARGE) {
                fem_rotation_large(r02, pos[0], pos[1], pos[2]);
            } else {
                double A[9];
                const double *pp[4] = {pos[0], pos[1], pos[2], pos[3]};
                edge_matrix(A, pp);
                fem_polar(A, r02);
            }
            if (!s->corot) /* TetrahedralCorotational leaves its rotations alone */
                fem_transpose3(t->R, r02);
            for (int k = 0; k < 4; k++)
                fem_mulv3(def[k], r02, pos[k]);
            if (s->meth == M_LARGE) {
                def[1][0] -= def[0][0];
                def[2][0] -= def[0][0];
                def[2][1] -= def[0][1];
                for (int c = 0; c < 3; c++)
                    def[3][c] -= def[0][c];
                double D[12] = {0, 0, 0, t->rest[1][0] - def[1][0], 0, 0,
                                t->rest[2][0] - def[2][0], t->rest[2][1] - def[2][1], 0,
                                t->rest[3][0] - def[3][0], t->rest[3][1] - def[3][1],
                                t->rest[3][2] - def[3][2]};
                memcpy(U, D, sizeof D);
            } else {
                for (int k = 0; k < 4; k++)
                    for (int c = 0; c < 3; c++)
                        U[3 * k + c] = t->rest[k][c] - def[k][c];
            }
        }
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++) {
                double g = 0.0;
                for (int m = 0; m < 4; m++)
                    g += shf[4 * (l + 1) + m] * U[3 * m + k];
                G[3 * k + l] = g;
            }
        double E[9];
        for (int k = 0; k < 3; k++)
            for (int l = 0; l < 3; l++) {
                double q = G[3 * k + l] + G[3 * l + k];
                if (s->compute_von_mises == 2) /* + G^T G */
                    q += G[k] * G[l] + G[3 + k] * G[3 + l] + G[6 + k] * G[6 + l];
                E[3 * k + l] = 0.5 * q;
            }
        double vs[6] = {E[0], E[4], E[8], E[5], E[2], E[1]};
        /* TetrahedralCorotational takes its Lame coefficients from the
         * material matrix, which it divided by 36 V. */
        double lambda = s->corot ? t->ko : t->lambda, mu = s->corot ? t->ks : t->mu;
        double tr = 0.0;
        for (int k = 0; k < 3; k++) {
            tr += vs[k];
            st[k] = vs[k] * 2 * mu;
        }
        for (int k = 3; k < 6; k++)
            st[k] = vs[k] * 2 * mu;
        for (int k = 0; k < 3; k++)
            st[k] += lambda * tr;
        double vm = sqrt(st[0] * st[0] + st[1] * st[1] + st[2] * st[2] - st[0] * st[1] -
                         st[1] * st[2] - st[2] * st[0] + 3 * st[3] * st[3] + 3 * st[4] * st[4] +
                         3 * st[5] * st[5]);
        s->von_mises_elem.r[el] = vm < 1e-10 ? 0.0 : vm;
    }
    size_t np = s->von_mises_node.n;
    memset(s->von_mises_node.r, 0, np * sizeof(double));
    for (size_t el = 0; el < s->ne; el++)
        for (int k = 0; k < 4; k++)
            s->von_mises_node.r[s->e[el].v[k]] += s->von_mises_elem.r[el];
    for (size_t i = 0; i < np; i++)
        if (s->node_count[i])
            s->von_mises_node.r[i] /= (double)s->node_count[i];
    st_component *self = &s->base;
    st_component_touch(self, st_component_field(self, "vonMisesPerElement"));
    st_component_touch(self, st_component_field(self, "vonMisesPerNode"));
    s->vm_dirty = false;
}

static void tfem_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    tetra_fem *s = (tetra_fem *)self;
    if (self->state != ST_CSTATE_VALID || s->corot)
        return;
    if (ev == ST_EVENT_ANIMATE_BEGIN && s->update_stiffness) {
        for (size_t i = 0; i < s->ne; i++)
            material(s, i, s->initial_points.r);
    } else if (ev == ST_EVENT_ANIMATE_END && vm_on(s) && s->vm_dirty) {
        compute_von_mises(s);
    }
}

static const st_forcefield_ops tfem_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = tfem_add_force,
    .add_dforce = tfem_add_dforce,
    .add_k_to_matrix = tfem_add_k,
    .potential_energy = tfem_energy,
    .rayleigh_stiffness = tfem_rayleigh,
};

/* SOFA's localStiffnessFactor, in both tetrahedral classes. */
#define TFEM_F_LOCAL_STIFFNESS(S)                                                                 \
    ST_REALS(S, local_stiffness_factor, "localStiffnessFactor", NULL,                             \
             "Allow specification of different stiffness per element. If there are N element "   \
             "and M values are specified, the youngModulus factor for element i would be "        \
             "localStiffnessFactor[i*M/N]")

#define T tetra_fem
static const st_field tfem_fields[] = {
    FEM_F_RAYLEIGH(T),
    FEM_F_MATERIAL(T),
    FEM_F_TOPOLOGY(T),
    ST_VEC3S(T, initial_points, "initialPoints", NULL,
             "Initial Position (set from the state's rest positions at init)"),
    ST_STRING(T, method, "method", "large",
              "\"small\", \"large\" (by QR), \"polar\" or \"svd\" displacements"),
    TFEM_F_LOCAL_STIFFNESS(T),
    ST_BOOL(T, update_stiffness_matrix, "updateStiffnessMatrix", "false",
            "Recompute the strain-displacement matrix from the deformed shape at each force "
            "computation (large, polar, svd)"),
    ST_FIELD_EX(T, assembling, "computeGlobalMatrix", ST_T_BOOL, bool, "false",
                "Compute the force from the full element matrix (small, large; SOFA's "
                "assembling)",
                0, "assembling", 0.0, 0.0),
    ST_REAL(T, plastic_max, "plasticMaxThreshold", "0",
            "Plastic Max Threshold (2-norm of the strain)"),
    ST_REAL(T, plastic_yield, "plasticYieldThreshold", "9.9999997473787516e-05",
            "Plastic Yield Threshold (2-norm of the strain); SOFA's default is 0.0001 as a "
            "float"),
    ST_REAL(T, plastic_creep, "plasticCreep", "0.89999997615814209",
            "Plastic Creep Factor * dt [0,1]. Warning this factor depends on dt. SOFA's default "
            "is 0.9 as a float"),
    ST_IGNORED(T, gather_pt, "gatherPt", ST_T_STRING, char *, NULL,
               "number of dof accumulated per threads during the gather operation (Only use in "
               "GPU version)"),
    ST_IGNORED(T, gather_bsize, "gatherBsize", ST_T_STRING, char *, NULL,
               "number of dof accumulated per threads during the gather operation (Only use in "
               "GPU version)"),
    ST_IGNORED(T, draw_heterogeneous, "drawHeterogeneousTetra", ST_T_BOOL, bool, "false",
               "Draw Heterogeneous Tetra in different color"),
    ST_INT(T, compute_von_mises, "computeVonMisesStress", "0",
           "compute and display von Mises stress: 0: no computations, 1: using corotational "
           "strain, 2: using full Green strain. Set listening=1"),
    ST_OUTPUT(T, von_mises_elem, "vonMisesPerElement", ST_T_REALS, st_array,
              "von Mises Stress per element"),
    ST_OUTPUT(T, von_mises_node, "vonMisesPerNode", ST_T_REALS, st_array,
              "von Mises Stress per node"),
    ST_FIELD_EX(T, von_mises_colors, "vonMisesStressColors", ST_T_REALS, st_array, NULL,
                "Vector of colors describing the VonMises stress (drawing only)",
                ST_F_OUTPUT | ST_F_IGNORED, NULL, 0.0, 0.0),
    ST_IGNORED(T, show_color_map, "showStressColorMap", ST_T_STRING, char *, "Blue to Red",
               "Color map used to show stress values"),
    ST_IGNORED(T, show_alpha, "showStressAlpha", ST_T_REAL, double, "1",
               "Alpha for vonMises visualisation"),
    ST_IGNORED(T, show_vm_node, "showVonMisesStressPerNode", ST_T_BOOL, bool, "false",
               "draw points showing vonMises stress interpolated in nodes"),
    ST_IGNORED(T, show_vm_node_map, "showVonMisesStressPerNodeColorMap", ST_T_BOOL, bool,
               "false", "draw elements showing vonMises stress interpolated in nodes"),
    ST_IGNORED(T, show_vm_elem, "showVonMisesStressPerElement", ST_T_BOOL, bool, "false",
               "draw triangles showing vonMises stress interpolated in elements"),
    ST_IGNORED(T, show_gap, "showElementGapScale", ST_T_REAL, double, "0.333",
               "draw gap between elements (when showWireFrame is disabled) [0,1]: 0: no gap, 1: "
               "no element"),
    ST_BOOL(T, update_stiffness, "updateStiffness", "false",
            "update structures (precomputed in init) using stiffness parameters in each "
            "iteration (set listening=1)"),
    ST_OUTPUT(T, rotations, ROTFINDER_FIELD, ST_T_REALS, st_array, ROTFINDER_HELP),
    ST_FIELD_END};
#undef T

const st_class tetrahedron_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TetrahedronFEMForceField",
    .category = "ForceField",
    .description = "Tetrahedral finite elements (linear elasticity; small, or corotational "
                   "large, polar, svd)",
    .instance_size = sizeof(tetra_fem),
    .fields = tfem_fields,
    .init = tfem_init,
    .reinit = tfem_init,
    .reset = tfem_reset,
    .cleanup = tfem_cleanup,
    .on_event = tfem_on_event,
    .forcefield = &tfem_ops,
};

/* ---- TetrahedralCorotationalFEMForceField ---- */

static st_status corot_init(st_component *self, st_error *err)
{
    ((tetra_fem *)self)->corot = true;
    return tfem_init(self, err);
}

#define T tetra_fem
static const st_field corot_fields[] = {
    FEM_F_RAYLEIGH(T),
    FEM_F_MATERIAL(T),
    FEM_F_TOPOLOGY(T),
    ST_IGNORED(T, tetra_info, "tetrahedronInfo", ST_T_STRING, char *, NULL,
               "Internal tetrahedron data (SOFA's serialized element data; settee computes its "
               "own at init and does not read this)"),
    ST_STRING(T, method, "method", "large",
              "\"small\", \"large\" (by QR) or \"polar\" displacements (any other value: "
              "large)"),
    TFEM_F_LOCAL_STIFFNESS(T),
    ST_BOOL(T, update_stiffness_matrix, "updateStiffnessMatrix", "false",
            "Recompute the strain-displacement matrix from the deformed shape at each force "
            "computation (large, polar)"),
    ST_FIELD_EX(T, assembling, "computeGlobalMatrix", ST_T_BOOL, bool, "false",
                "Compute the force from the full element matrix (small, large; with polar SOFA "
                "reports an error and computes no force, and so does settee)",
                0, "assembling", 0.0, 0.0),
    FEM_F_DRAW_COLORS(T, drawing, draw_color),
    ST_BOOL(T, corot_vm, "computeVonMisesStress", "false",
            "compute von Mises stress at each addForce, from the corotational strain of the "
            "large frame and the material matrix divided by 36 V, as SOFA does (only method "
            "large has shape functions in SOFA: small and polar give 0)"),
    ST_OUTPUT(T, von_mises_elem, "vonMisesPerElement", ST_T_REALS, st_array,
              "von Mises Stress per element"),
    ST_OUTPUT(T, von_mises_node, "vonMisesPerNode", ST_T_REALS, st_array,
              "von Mises Stress per node"),
    ST_OUTPUT(T, rotations, ROTFINDER_FIELD, ST_T_REALS, st_array, ROTFINDER_HELP),
    ST_FIELD_END};
#undef T

const st_class tetrahedral_corotational_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TetrahedralCorotationalFEMForceField",
    .category = "ForceField",
    .description = "Corotational tetrahedral finite elements (linear elasticity; small, large, "
                   "polar), the element of TetrahedronFEMForceField without svd and plasticity. "
                   "Potential energy: SOFA has none (it warns and returns 0); settee returns the "
                   "strain energy 1/2 D^T J K J^T D of the local displacement D, for every "
                   "method",
    .instance_size = sizeof(tetra_fem),
    .fields = corot_fields,
    .init = corot_init,
    .reinit = corot_init,
    .cleanup = tfem_cleanup,
    .forcefield = &tfem_ops,
};
