/* hexahedron_fem_force_field.c - HexahedronFEMForceField: SOFA's trilinear
 * hexahedron (8 nodes, 2x2x2 Gauss points), small displacements or
 * corotational (large: frame of the mean x and y edges; polar: polar
 * decomposition of the three mean edges), and HexahedronFEMForceFieldAndMass,
 * the same element carrying its own mass.
 *
 * Per element (SOFA's conventions):
 *   K: 24x24 stiffness of the rest shape in the element frame, integrated
 *      with the isoparametric Jacobian at each Gauss point (constant for a
 *      parallelepiped); material U = M(0,0), V = M(0,1), W = M(3,3) of the
 *      6x6 isotropic matrix;
 *   R: rotation world -> element frame (identity for small);
 *   D = rest - R x (24 values), F = K D, f += R^T F.
 * add_dforce and the matrix use R^T K R with R stored by the last
 * add_force (SOFA's corotational tangent: the derivative of R is left out).
 * Potential energy: 1/2 D^T K D at x for every method (SOFA returns the
 * value its last addForce accumulated, the same number at that state).
 *
 * The mass (AndMass): SOFA's element mass matrix, whose every 3x3 block of
 * the upper triangle is vol * density * 8/27 * I (SOFA integrates each
 * block with the first vertex's signs, so all blocks are equal), the
 * gravity from the particle masses vol * density / 8 per element vertex,
 * and, with lumpedMass, row sums of the element matrices. Element data are
 * computed at init into contiguous arrays; no step allocates.
 *
 * On a SparseGridTopology (as SOFA's _sparseGrid), each element's K is
 * scaled by the grid's stiffness coefficient (0.5 for a boundary cell with
 * fillWeighted, the filled fraction with virtual finer levels), and the
 * element mass and particle masses by its mass coefficient. */
#include <math.h>
#include <string.h>

#include "hexahedron_fem.h"
#include "../shared/rotation_finder.h"

/* Signs of the natural coordinates of each vertex (SOFA's _coef). */
static const int coef[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                               {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

static const char *const method_names[] = {"large", "polar", "small"};

/* ---- Element kernels ---- */

static double dist(const double *a, const double *b)
{
    double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
}

/* dX/dxi at natural coordinates (x1, x2, x3): column c is d position /
 * d xi_c (J[3 * row + col]). */
static void iso_jacobian(double J[9], const double n[8][3], double x1, double x2, double x3)
{
    for (int c = 0; c < 3; c++) {
        J[3 * c] = (n[1][c] - n[0][c]) * (1 - x2) * (1 - x3) / 8 +
                   (n[2][c] - n[3][c]) * (1 + x2) * (1 - x3) / 8 +
                   (n[5][c] - n[4][c]) * (1 - x2) * (1 + x3) / 8 +
                   (n[6][c] - n[7][c]) * (1 + x2) * (1 + x3) / 8;
        J[3 * c + 1] = (n[3][c] - n[0][c]) * (1 - x1) * (1 - x3) / 8 +
                       (n[2][c] - n[1][c]) * (1 + x1) * (1 - x3) / 8 +
                       (n[7][c] - n[4][c]) * (1 - x1) * (1 + x3) / 8 +
                       (n[6][c] - n[5][c]) * (1 + x1) * (1 + x3) / 8;
        J[3 * c + 2] = (n[4][c] - n[0][c]) * (1 - x1) * (1 - x2) / 8 +
                       (n[5][c] - n[1][c]) * (1 + x1) * (1 - x2) / 8 +
                       (n[6][c] - n[2][c]) * (1 + x1) * (1 + x2) / 8 +
                       (n[7][c] - n[3][c]) * (1 - x1) * (1 + x2) / 8;
    }
}

/* SOFA's computeElementStiffness (its generic Gauss integration; the
 * parallelepiped test only decides whether J is evaluated once). */
void hexa_element_stiffness(double K[24][24], double U, double V, double W, const double n[8][3])
{
    double J[9], Ji[9], detJ = 1.0;
    double lx[3], ly[3], lz[3];
    for (int c = 0; c < 3; c++) {
        lx[c] = n[1][c] - n[0][c];
        ly[c] = n[3][c] - n[0][c];
        lz[c] = n[4][c] - n[0][c];
    }
    double nx = sqrt(lx[0] * lx[0] + lx[1] * lx[1] + lx[2] * lx[2]);
    double nz = sqrt(lz[0] * lz[0] + lz[1] * lz[1] + lz[2] * lz[2]);
    double t[3];
    bool parallel = true;
    for (int c = 0; c < 3; c++)
        t[c] = n[3][c] + lx[c];
    parallel = parallel && dist(t, n[2]) < nx * 0.001;
    const int zpairs[4][2] = {{0, 4}, {1, 5}, {2, 6}, {3, 7}};
    for (int k = 0; k < 4 && parallel; k++) {
        for (int c = 0; c < 3; c++)
            t[c] = n[zpairs[k][0]][c] + lz[c];
        parallel = dist(t, n[zpairs[k][1]]) < nz * 0.001;
    }
    if (parallel) {
        for (int c = 0; c < 3; c++) {
            J[3 * c] = lx[c] / 2;
            J[3 * c + 1] = ly[c] / 2;
            J[3 * c + 2] = lz[c] / 2;
        }
        detJ = fem_det3(J);
        if (!fem_invert3(Ji, J))
            memset(Ji, 0, sizeof Ji);
    }
    memset(K, 0, 24 * 24 * sizeof(double));
    const double g = 1.0 / sqrt(3.0);
    for (int g1 = -1; g1 <= 1; g1 += 2)
        for (int g2 = -1; g2 <= 1; g2 += 2)
            for (int g3 = -1; g3 <= 1; g3 += 2) {
                double x1 = g1 * g, x2 = g2 * g, x3 = g3 * g;
                if (!parallel) {
                    iso_jacobian(J, n, x1, x2, x3);
                    detJ = fem_det3(J);
                    if (!fem_invert3(Ji, J))
                        memset(Ji, 0, sizeof Ji);
                }
                double qx[8], qy[8], qz[8];
                for (int i = 0; i < 8; i++) {
                    const int *s = coef[i];
                    double d1 = s[0] * (1 + s[1] * x2) * (1 + s[2] * x3) / 8.0;
                    double d2 = (1 + s[0] * x1) * s[1] * (1 + s[2] * x3) / 8.0;
                    double d3 = (1 + s[0] * x1) * (1 + s[1] * x2) * s[2] / 8.0;
                    qx[i] = d1 * Ji[0] + d2 * Ji[3] + d3 * Ji[6];
                    qy[i] = d1 * Ji[1] + d2 * Ji[4] + d3 * Ji[7];
                    qz[i] = d1 * Ji[2] + d2 * Ji[5] + d3 * Ji[8];
                }
                for (int i = 0; i < 8; i++) {
                    /* M B_i, 6x3 (rows: xx yy zz xy yz zx) */
                    double mb[6][3] = {{U * qx[i], V * qy[i], V * qz[i]},
                                       {V * qx[i], U * qy[i], V * qz[i]},
                                       {V * qx[i], V * qy[i], U * qz[i]},
                                       {W * qy[i], W * qx[i], 0},
                                       {0, W * qz[i], W * qy[i]},
                                       {W * qz[i], 0, W * qx[i]}};
                    for (int j = i; j < 8; j++) {
                        double k[9]; /* B_j^T M B_i */
                        k[0] = qx[j] * mb[0][0] + qy[j] * mb[3][0] + qz[j] * mb[5][0];
                        k[1] = qx[j] * mb[0][1] + qy[j] * mb[3][1];
                        k[2] = qx[j] * mb[0][2] + qz[j] * mb[5][2];
                        k[3] = qy[j] * mb[1][0] + qx[j] * mb[3][0];
                        k[4] = qy[j] * mb[1][1] + qx[j] * mb[3][1] + qz[j] * mb[4][1];
                        k[5] = qy[j] * mb[1][2] + qz[j] * mb[4][2];
                        k[6] = qz[j] * mb[2][0] + qx[j] * mb[5][0];
                        k[7] = qz[j] * mb[2][1] + qy[j] * mb[4][1];
                        k[8] = qz[j] * mb[2][2] + qy[j] * mb[4][2] + qx[j] * mb[5][2];
                        for (int m = 0; m < 3; m++)
                            for (int l = 0; l < 3; l++)
                                K[3 * i + m][3 * j + l] += k[3 * l + m] * detJ;
                    }
                }
            }
    for (int i = 0; i < 24; i++)
        for (int j = i + 1; j < 24; j++)
            K[j][i] = K[i][j];
}

/* SOFA's "large" frame: x along the mean x edge, z normal to the mean x
 * and y edges. Rows of r are the axes. */
static void rotation_large(double r[9], const double n[8][3])
{
    double ex[3], ey[3];
    for (int c = 0; c < 3; c++) {
        ex[c] = (n[1][c] - n[0][c] + n[2][c] - n[3][c] + n[5][c] - n[4][c] + n[6][c] - n[7][c]) *
                .25;
        ey[c] = (n[3][c] - n[0][c] + n[2][c] - n[1][c] + n[7][c] - n[4][c] + n[6][c] - n[5][c]) *
                .25;
    }
    fem_frame(r, ex, ey);
}

/* SOFA's "polar" frame: orthogonal factor of the mean edge matrix. */
static void rotation_polar(double r[9], const double n[8][3])
{
    double A[9];
    for (int c = 0; c < 3; c++) {
        A[c] = (n[1][c] - n[0][c] + n[2][c] - n[3][c] + n[5][c] - n[4][c] + n[6][c] - n[7][c]) *
               .25;
        A[3 + c] = (n[3][c] - n[0][c] + n[2][c] - n[1][c] + n[7][c] - n[4][c] + n[6][c] -
                    n[5][c]) *
                   .25;
        A[6 + c] = (n[4][c] - n[0][c] + n[5][c] - n[1][c] + n[7][c] - n[3][c] + n[6][c] -
                    n[2][c]) *
                   .25;
    }
    fem_polar(A, r);
}

void hexa_rotation(int meth, double r[9], const double n[8][3])
{
    if (meth == HM_LARGE)
        rotation_large(r, n);
    else if (meth == HM_POLAR)
        rotation_polar(r, n);
    else
        for (int k = 0; k < 9; k++)
            r[k] = k % 4 == 0 ? 1.0 : 0.0;
}

static void gather(const double *x, const unsigned v[8], double p[8][3])
{
    for (int k = 0; k < 8; k++)
        memcpy(p[k], x + 3 * v[k], 3 * sizeof(double));
}

static void mat24_vec(double y[24], const double K[24][24], const double x[24])
{
    for (int i = 0; i < 24; i++) {
        double a = 0;
        for (int j = 0; j < 24; j++)
            a += K[i][j] * x[j];
        y[i] = a;
    }
}

/* SOFA's computeElementStiffness: K of the shape n, times the element's
 * stiffness coefficient. */
static void stiffness(hexa *h, const double n[8][3])
{
    hexa_element_stiffness(h->K, h->U, h->V, h->W, n);
    if (h->kcoef != 1.0)
        for (int i = 0; i < 24; i++)
            for (int j = 0; j < 24; j++)
                h->K[i][j] *= h->kcoef;
}

/* D = rest - R p for the current positions p (R from p, stored); K from the
 * deformed shape when updateStiffnessMatrix. */
static void displacement(hexa_fem *s, hexa *h, const double *x, double D[24])
{
    double p[8][3], def[8][3];
    gather(x, h->v, p);
    hexa_rotation(s->meth, h->R, p);
    for (int k = 0; k < 8; k++) {
        fem_mulv3(def[k], h->R, p[k]);
        for (int c = 0; c < 3; c++)
            D[3 * k + c] = h->rest[k][c] - def[k][c];
    }
    if (s->update_stiffness_matrix)
        stiffness(h, def);
}

/* ---- Init ---- */

static void material(hexa_fem *s, size_t i)
{
    hexa *h = &s->e[i];
    double nu = fem_value_in_element(&s->poisson_ratio, i, FEM_DEFAULT_POISSON);
    double E = fem_value_in_element(&s->young_modulus, i, FEM_DEFAULT_YOUNG);
    double scale = (E * (1 - nu)) / ((1 + nu) * (1 - 2 * nu));
    h->U = 1 * scale;
    h->V = nu / (1 - nu) * scale;
    h->W = (1 - 2 * nu) / (2 * (1 - nu)) * scale;
}

static void init_element(hexa_fem *s, size_t i)
{
    hexa *h = &s->e[i];
    double p[8][3];
    gather(s->initial_points.r, h->v, p);
    hexa_rotation(s->meth, h->R, p);
    memcpy(h->R0, h->R, sizeof h->R0);
    for (int k = 0; k < 8; k++)
        fem_mulv3(h->rest[k], h->R, p[k]);
    stiffness(h, h->rest);
}

/* Per element coefficient from a SparseGridTopology's (or
 * SparseGridRamificationTopology's) output `field` (stiffnessCoefs or
 * massCoefs; a SparseGridMultipleTopology's elementStiffnessCoefs or
 * elementMassCoefs), 1 for any other topology. */
static double grid_coef(st_component *topology, const char *field, size_t i, size_t ne)
{
    if (!strcmp(topology->cls->name, "SparseGridMultipleTopology"))
        field = !strcmp(field, "stiffnessCoefs") ? "elementStiffnessCoefs" : "elementMassCoefs";
    else if (strcmp(topology->cls->name, "SparseGridTopology") != 0 &&
             strcmp(topology->cls->name, "SparseGridRamificationTopology") != 0)
        return 1.0;
    const st_field *f = st_component_field(topology, field);
    if (!f || f->type != ST_T_REALS)
        return 1.0;
    const st_array *a = st_component_field_ptr(topology, f);
    return a->n == ne ? a->r[i] : 1.0;
}

/* SOFA's computeElementMass, for the rest shape in the element frame. */
void hexa_element_mass(double M[24][24], const double n[8][3], double density)
{
    double vol = dist(n[1], n[0]) * dist(n[3], n[0]) * dist(n[4], n[0]);
    /* SOFA's integrateMass at (+-1, +-1, +-1): 8/27, for every block. */
    double m = vol * ((1.0 / 72 + 1.0 / 72 + 1.0 / 216 + 1.0 / 24 + 1.0 / 8 + 1.0 / 72 +
                       1.0 / 24 + 1.0 / 24) *
                      density);
    memset(M, 0, 24 * 24 * sizeof(double));
    for (int i = 0; i < 8; i++)
        for (int j = i; j < 8; j++)
            for (int c = 0; c < 3; c++)
                M[3 * i + c][3 * j + c] += m;
    for (int i = 0; i < 24; i++)
        for (int j = i + 1; j < 24; j++)
            M[j][i] = M[i][j];
}

static void hfem_free(hexa_fem *s)
{
    st_free(s->e);
    st_free(s->particle_mass);
    st_free(s->lumped);
    st_free(s->M);
    fem_bsr_free(&s->Kg);
    s->e = NULL;
    s->particle_mass = s->lumped = NULL;
    s->M = NULL;
    s->ne = s->np = 0;
}

static st_status init_mass(hexa_fem *s, st_error *err)
{
    s->M = st_calloc(s->ne ? s->ne : 1, sizeof *s->M);
    s->particle_mass = st_calloc(s->np ? s->np : 1, sizeof *s->particle_mass);
    if (!s->M || !s->particle_mass)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu element mass matrices)", s->ne);
    for (size_t i = 0; i < s->ne; i++) {
        const hexa *h = &s->e[i];
        hexa_element_mass(s->M[i], h->rest, s->density);
        if (h->mcoef != 1.0)
            for (int a = 0; a < 24; a++)
                for (int b = 0; b < 24; b++)
                    s->M[i][a][b] *= h->mcoef;
        const double *x0 = s->initial_points.r;
        const double *n0 = x0 + 3 * h->v[0];
        double vol = dist(x0 + 3 * h->v[1], n0) * dist(x0 + 3 * h->v[3], n0) *
                     dist(x0 + 3 * h->v[4], n0) * h->mcoef;
        double m = (vol * s->density) / 8.0;
        for (int w = 0; w < 8; w++)
            s->particle_mass[h->v[w]] += m;
    }
    ST_TRY(st_array_resize(&s->mass_matrices, ST_T_REALS, 576 * s->ne, err));
    if (s->ne)
        memcpy(s->mass_matrices.r, s->M, s->ne * sizeof *s->M);
    if (!s->lumped_mass)
        return ST_OK;
    s->lumped = st_calloc(s->np ? 3 * s->np : 1, sizeof *s->lumped);
    if (!s->lumped)
        return st_error_set(err, ST_ENOMEM, "out of memory (lumped masses)");
    for (size_t i = 0; i < s->ne; i++)
        for (int w = 0; w < 8; w++)
            for (int j = 0; j < 24; j++)
                for (int c = 0; c < 3; c++)
                    s->lumped[3 * s->e[i].v[w] + (unsigned)c] += s->M[i][3 * w + c][j];
    return ST_OK;
}

/* The element stiffness output and, with the mass, the element and vertex
 * masses, from the elements as they are. */
static st_status outputs(hexa_fem *s, st_error *err)
{
    ST_TRY(st_array_resize(&s->stiffness_matrices, ST_T_REALS, 576 * s->ne, err));
    for (size_t i = 0; i < s->ne; i++)
        memcpy(s->stiffness_matrices.r + 576 * i, s->e[i].K, sizeof s->e[i].K);
    if (!s->with_mass)
        return ST_OK;
    st_free(s->particle_mass);
    st_free(s->lumped);
    st_free(s->M);
    s->particle_mass = s->lumped = NULL;
    s->M = NULL;
    return init_mass(s, err);
}

/* ---- Topological changes ---- */

/* An added hexahedron is computed by the listener, once the rest positions
 * of its points are there. */
static void hexa_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i;
    hexa *h = item;
    if (ev->vertices)
        memcpy(h->v, ev->vertices + 8 * k, sizeof h->v);
    h->kcoef = h->mcoef = 1.0;
    h->fresh = true;
}

static const st_topo_follow_ops hexa_follow_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = hexa_create,
};

/* After a change the kept hexahedra keep their data (the kernel moved
 * them, SOFA's TopologyData); their vertex indices are re-read, the rest
 * positions taken again, added hexahedra computed, the outputs and the
 * masses rebuilt (the element masses from the kept rest shapes). */
static st_status hfem_topology_changed(st_component *self, st_component *topology,
                                       const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    hexa_fem *s = (hexa_fem *)self;
    fem_follow_list(self, "youngModulus", &s->young_modulus, 1, 1, ST_ELEM_HEXAHEDRON, ev, nev);
    fem_follow_list(self, "poissonRatio", &s->poisson_ratio, 1, 1, ST_ELEM_HEXAHEDRON, ev, nev);
    ST_TRY(fem_reread_vertices(self, s->e, s->ne, sizeof *s->e,
                               fem_elements(s->topology, ST_T_HEXAS), 8, err));
    s->np = s->ms->rest_position.n;
    for (size_t i = 0; i < s->ne; i++)
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 8, s->np, "hexahedron", err));
    ST_TRY(st_array_resize(&s->initial_points, ST_T_VEC3S, s->np, err));
    memcpy(s->initial_points.r, s->ms->rest_position.r, 3 * s->np * sizeof(double));
    for (size_t i = 0; i < s->ne; i++)
        if (s->e[i].fresh) {
            s->e[i].fresh = false;
            material(s, i);
            init_element(s, i);
        }
    fem_follow_rotations(&s->rotations, s->np);
    fem_bsr_forget(&s->Kg);
    ST_TRY(outputs(s, err));
    st_component_touch(self, st_component_field(self, "stiffnessMatrices"));
    if (s->with_mass)
        st_component_touch(self, st_component_field(self, "massMatrices"));
    return ST_OK;
}

/* Registers once per topology (reinit calls init again). */
static st_status follow_topology(hexa_fem *s, st_error *err)
{
    if (s->followed == s->topology)
        return ST_OK;
    st_component *self = &s->base;
    ST_TRY(st_topology_follow(self, s->topology, ST_ELEM_HEXAHEDRON, (void **)&s->e, &s->ne,
                              sizeof *s->e, &hexa_follow_ops, s, err));
    ST_TRY(st_topology_listen(self, s->topology, hfem_topology_changed, err));
    s->followed = s->topology;
    return ST_OK;
}

st_status hfem_init_common(st_component *self, bool with_mass, st_error *err)
{
    hexa_fem *s = (hexa_fem *)self;
    hfem_free(s);
    self->state = ST_CSTATE_INVALID;
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    s->meth = fem_method_index(s->method, method_names, 3);
    if (s->meth < 0) {
        st_component_warn(self, "Unknown method \"%s\": large method will be used. Available "
                                "methods are \"large\", \"polar\", \"small\"",
                          s->method ? s->method : "");
        s->meth = HM_LARGE;
        st_free(s->method);
        s->method = st_calloc(6, 1);
        if (!s->method)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        memcpy(s->method, "large", 6);
    }
    const st_array *hx = fem_elements(s->topology, ST_T_HEXAS);
    if (!hx)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "Object must have a hexahedric MeshTopology: '%s' has no "
                                  "hexahedra",
                                  s->topology->name);
    s->np = s->ms->rest_position.n;
    ST_TRY(fem_check_indices(self, hx->u, hx->n, 8, s->np, "hexahedron", err));
    s->ne = hx->n;
    s->e = st_calloc(s->ne, sizeof *s->e);
    if (!s->e)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu hexahedra)", s->ne);
    ST_TRY(st_array_resize(&s->initial_points, ST_T_VEC3S, s->np, err));
    memcpy(s->initial_points.r, s->ms->rest_position.r, 3 * s->np * sizeof(double));
    for (size_t i = 0; i < s->ne; i++) {
        memcpy(s->e[i].v, hx->u + 8 * i, sizeof s->e[i].v);
        s->e[i].kcoef = grid_coef(s->topology, "stiffnessCoefs", i, s->ne);
        s->e[i].mcoef = grid_coef(s->topology, "massCoefs", i, s->ne);
        material(s, i);
        init_element(s, i);
    }
    s->with_mass = with_mass;
    ST_TRY(outputs(s, err));
    ST_TRY(follow_topology(s, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static st_status hfem_init(st_component *self, st_error *err)
{
    return hfem_init_common(self, false, err);
}

static void hfem_cleanup(st_component *self)
{
    hfem_free((hexa_fem *)self);
}

/* ---- Forces ---- */

/* The rotation finder's per-vertex rotations (SOFA's getNodeRotation):
 * the orthogonal factor of the mean of the rotations rest to current of
 * the hexahedra around the vertex; the identity with method small. With
 * R world to element frame, that rotation is R^T R0. SOFA sums R R0^T, its
 * inverse, and starts the sum from the identity; settee sums the rotation
 * the warp needs, from zero (TetrahedronFEMForceField's mean); see
 * docs/solvers.md (WarpPreconditioner). */
static void node_rotations(hexa_fem *s)
{
    double *acc = s->rotations.r;
    const size_t np = s->ms->n;
    if (!fem_rotation_begin(acc, np, s->meth == HM_SMALL))
        return;
    for (size_t i = 0; i < s->ne; i++) {
        const hexa *h = &s->e[i];
        double rt[9], q[9];
        fem_transpose3(rt, h->R);
        fem_mul3(q, rt, h->R0);
        fem_rotation_add(acc, h->v, 8, q);
    }
    fem_rotation_finish(acc, np, false);
}

/* The element's force in the world frame, R^T K D, into g (24 scalars);
 * its rotation (and K with updateStiffnessMatrix) updated. */
static void element_world_force(hexa_fem *s, hexa *h, const double *p, double g[24])
{
    double D[24], F[24];
    displacement(s, h, p, D);
    mat24_vec(F, h->K, D);
    for (int k = 0; k < 8; k++)
        for (int c = 0; c < 3; c++) /* R^T F_k */
            g[3 * k + c] =
                h->R[c] * F[3 * k] + h->R[3 + c] * F[3 * k + 1] + h->R[6 + c] * F[3 * k + 2];
}

/* The element's share of df, before its sign: R^T K R dx kfactor. */
static void element_dforce(const hexa *h, const double *d, double kfactor, double g[24])
{
    double X[24], F[24];
    for (int k = 0; k < 8; k++)
        fem_mulv3(X + 3 * k, h->R, d + 3 * h->v[k]);
    mat24_vec(F, h->K, X);
    for (int k = 0; k < 8; k++)
        for (int c = 0; c < 3; c++)
            g[3 * k + c] =
                (h->R[c] * F[3 * k] + h->R[3 + c] * F[3 * k + 1] + h->R[6 + c] * F[3 * k + 2]) *
                kfactor;
}

void hfem_forces_range(hexa_fem *s, const double *p, size_t begin, size_t end, double *g)
{
    for (size_t i = begin; i < end; i++)
        element_world_force(s, &s->e[i], p, g + 24 * (i - begin));
}

void hfem_dforces_range(const hexa_fem *s, const double *d, double kfactor, size_t begin,
                        size_t end, double *g)
{
    for (size_t i = begin; i < end; i++)
        element_dforce(&s->e[i], d, kfactor, g + 24 * (i - begin));
}

void hfem_add_force_finish(hexa_fem *s)
{
    s->Kg.valid = false; /* the rotations (and K) may have changed */
    if (rotfinder_wanted(&s->rotations, s->ms->n))
        node_rotations(s);
}

static void hfem_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp, (void)v;
    hexa_fem *s = (hexa_fem *)self;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        hexa *h = &s->e[i];
        double g[24];
        element_world_force(s, h, p, g);
        for (int k = 0; k < 8; k++) {
            double *o = fs + 3 * h->v[k];
            o[0] += g[3 * k], o[1] += g[3 * k + 1], o[2] += g[3 * k + 2];
        }
    }
    hfem_add_force_finish(s);
}

/* Element h's blocks of K added to b: R^T K_ij R for its vertex pairs
 * i <= j, the pairs j > i by transposition. */
static inline void assemble_element(fem_bsr *b, size_t e, const hexa *h, bool part)
{
    const double *R = h->R;
    for (unsigned i = 0; i < 8; i++) {
        /* P = R^T K(rows of i, columns from i's on): 3 x 24 */
        double P[3][24];
        const double *k0 = h->K[3 * i], *k1 = h->K[3 * i + 1], *k2 = h->K[3 * i + 2];
        for (int r = 0; r < 3; r++)
            for (unsigned c = 3 * i; c < 24; c++)
                P[r][c] = R[r] * k0[c] + R[3 + r] * k1[c] + R[6 + r] * k2[c];
        for (unsigned j = i; j < 8; j++) {
            double blk[9];
            for (int r = 0; r < 3; r++) {
                const double *p = P[r] + 3 * j;
                for (int c = 0; c < 3; c++)
                    blk[3 * r + c] = p[0] * R[c] + p[1] * R[3 + c] + p[2] * R[6 + c];
            }
            if (part)
                fem_bsr_add_part(b, e, i, j, blk);
            else
                fem_bsr_add_pair(b, e, i, j, blk);
        }
    }
}

static void assemble_one(fem_bsr *b, size_t e, const void *ctx)
{
    if (b->part)
        assemble_element(b, e, &((const hexa_fem *)ctx)->e[e], true);
    else
        assemble_element(b, e, &((const hexa_fem *)ctx)->e[e], false);
}

const fem_bsr *hfem_assembled(hexa_fem *s, const st_mparams *mp, const fem_bsr_pool *pool)
{
    return fem_bsr_assembled(&s->Kg, mp, s->ms->n, s->ne ? s->e[0].v : NULL,
                             sizeof(hexa) / sizeof(unsigned), s->ne, 8, assemble_one, s,
                             pool);
}

static void hfem_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                            double kfactor, double bfactor)
{
    (void)bfactor;
    hexa_fem *s = (hexa_fem *)self;
    double *dfs = fem_derivs(df, s->ms);
    const double *d = fem_dx(dx, s->ms);
    const fem_bsr *K = hfem_assembled(s, mp, NULL);
    if (K) {
        fem_bsr_mul_sub(K, dfs, d, kfactor, 0, K->n);
        return;
    }
    for (size_t i = 0; i < s->ne; i++) {
        const hexa *h = &s->e[i];
        double g[24];
        element_dforce(h, d, kfactor, g);
        for (int k = 0; k < 8; k++) {
            double *o = dfs + 3 * h->v[k];
            o[0] -= g[3 * k], o[1] -= g[3 * k + 1], o[2] -= g[3 * k + 2];
        }
    }
}

static void hfem_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    hexa_fem *s = (hexa_fem *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const hexa *h = &s->e[i];
        for (int n1 = 0; n1 < 8; n1++)
            for (int n2 = 0; n2 < 8; n2++) {
                double k[9], kr[9], rt[9], b[9];
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        k[3 * r + c] = h->K[3 * n1 + r][3 * n2 + c];
                fem_transpose3(rt, h->R);
                fem_mul3(kr, k, h->R);
                fem_mul3(b, rt, kr);
                for (int j = 0; j < 9; j++)
                    b[j] *= -kfactor;
                fem_add_block(m, s->ms, h->v[n1], h->v[n2], b);
            }
    }
}

/* 1/2 D^T K D summed over the elements, D at x. Reads the element data
 * only (the rotations are recomputed locally). */
static double elastic_energy(const hexa_fem *s, const double *x)
{
    const double *p = fem_coords(x, s->ms);
    double energy = 0;
    for (size_t i = 0; i < s->ne; i++) {
        const hexa *h = &s->e[i];
        double pos[8][3], R[9], D[24], F[24];
        gather(p, h->v, pos);
        hexa_rotation(s->meth, R, pos);
        for (int k = 0; k < 8; k++) {
            double d[3];
            fem_mulv3(d, R, pos[k]);
            for (int c = 0; c < 3; c++)
                D[3 * k + c] = h->rest[k][c] - d[c];
        }
        mat24_vec(F, h->K, D);
        for (int j = 0; j < 24; j++)
            energy += F[j] * -D[j];
    }
    return energy / -2.0;
}

static double hfem_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    return elastic_energy((hexa_fem *)self, x);
}

static double hfem_rayleigh(const st_component *self)
{
    return ((const hexa_fem *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops hfem_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = hfem_add_force,
    .add_dforce = hfem_add_dforce,
    .add_k_to_matrix = hfem_add_k,
    .potential_energy = hfem_energy,
    .rayleigh_stiffness = hfem_rayleigh,
};

/* ---- HexahedronFEMForceFieldAndMass: the mass role ---- */

static st_status hfm_init(st_component *self, st_error *err)
{
    /* The kernel calls both roles: the force comes whole from the mass role
     * (SOFA's addForce, weight included), add_dforce and K from the force
     * field role. */
    return hfem_init_common(self, true, err);
}

static void hfm_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                         double factor)
{
    (void)mp;
    hexa_fem *s = (hexa_fem *)self;
    double *r = fem_derivs(res, s->ms);
    const double *d = fem_dx(dx, s->ms);
    if (s->lumped_mass) {
        for (size_t i = 0; i < 3 * s->np; i++)
            r[i] += s->lumped[i] * d[i] * factor;
        return;
    }
    for (size_t i = 0; i < s->ne; i++) {
        const hexa *h = &s->e[i];
        double X[24], F[24];
        for (int k = 0; k < 8; k++)
            memcpy(X + 3 * k, d + 3 * h->v[k], 3 * sizeof(double));
        mat24_vec(F, s->M[i], X);
        for (int k = 0; k < 8; k++)
            for (int c = 0; c < 3; c++)
                r[3 * h->v[k] + (unsigned)c] += F[3 * k + c] * factor;
    }
}

/* SOFA's addMToMatrix: the consistent element matrices (lumpedMass only
 * changes addMDx, as in SOFA). */
static void hfm_add_m_matrix(st_component *self, const st_mparams *mp, st_matrix *m, double mfactor)
{
    (void)mp;
    hexa_fem *s = (hexa_fem *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const hexa *h = &s->e[i];
        for (int n1 = 0; n1 < 8; n1++)
            for (int n2 = 0; n2 < 8; n2++) {
                double b[9];
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        b[3 * r + c] = s->M[i][3 * n1 + r][3 * n2 + c] * mfactor;
                fem_add_block(m, s->ms, h->v[n1], h->v[n2], b);
            }
    }
}

/* SOFA's addForce of the AndMass: the elastic force, then the particle
 * masses' weight unless gravity is separate. */
static void hfm_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    hfem_add_force(self, mp, f, x, v);
    hexa_fem *s = (hexa_fem *)self;
    if (s->separate_gravity)
        return;
    double *fs = fem_derivs(f, s->ms);
    for (size_t i = 0; i < s->np; i++)
        for (int c = 0; c < 3; c++)
            fs[3 * i + (unsigned)c] += mp->gravity[c] * s->particle_mass[i];
}

static void hfm_add_gravity_to_v(st_component *self, const st_mparams *mp, double *v, double dt)
{
    hexa_fem *s = (hexa_fem *)self;
    if (!s->separate_gravity)
        return;
    double *vs = fem_derivs(v, s->ms);
    for (size_t i = 0; i < s->np; i++)
        for (int c = 0; c < 3; c++)
            vs[3 * i + (unsigned)c] += mp->gravity[c] * dt;
}

/* Elastic energy plus the particle masses' potential -m g . x. */
static double hfm_energy(st_component *self, const st_mparams *mp, const double *x)
{
    hexa_fem *s = (hexa_fem *)self;
    double e = elastic_energy(s, x);
    const double *p = fem_coords(x, s->ms);
    for (size_t i = 0; i < s->np; i++)
        e -= s->particle_mass[i] * (mp->gravity[0] * p[3 * i] + mp->gravity[1] * p[3 * i + 1] +
                                    mp->gravity[2] * p[3 * i + 2]);
    return e;
}

static bool hfm_is_diagonal(const st_component *self)
{
    (void)self;
    return false;
}

static double hfm_rayleigh_mass(const st_component *self)
{
    return ((const hexa_fem *)self)->rayleigh_mass;
}

static const st_mass_ops hfm_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = hfm_add_m_dx,
    .add_m_to_matrix = hfm_add_m_matrix,
    .add_gravity_to_force = hfm_add_force,
    .add_gravity_to_v = hfm_add_gravity_to_v,
    .potential_energy = hfm_energy,
    .is_diagonal = hfm_is_diagonal,
    .rayleigh_mass = hfm_rayleigh_mass,
};

/* The stiffness part, for a kernel that dispatches both roles: the force
 * comes whole from the mass role (add_gravity_to_force), so add_force and
 * the energy stay NULL here. */
static const st_forcefield_ops hfm_ff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_dforce = hfem_add_dforce,
    .add_k_to_matrix = hfem_add_k,
    .rayleigh_stiffness = hfem_rayleigh,
};

/* ---- Classes ---- */

#define T hexa_fem
#define HFEM_FIELDS                                                                               \
    FEM_F_RAYLEIGH(T), FEM_F_MATERIAL(T), FEM_F_TOPOLOGY(T),                                      \
        ST_STRING(T, method, "method", "large", "\"large\" or \"polar\" or \"small\" displacements"), \
        ST_BOOL(T, update_stiffness_matrix, "updateStiffnessMatrix", "false",                     \
                "Recompute the element stiffness from the deformed shape at each force "          \
                "computation"),                                                                   \
        ST_IGNORED(T, gather_pt, "gatherPt", ST_T_STRING, char *, " ",                            \
                   "number of dof accumulated per threads during the gather operation (Only use " \
                   "in GPU version)"),                                                            \
        ST_IGNORED(T, gather_bsize, "gatherBsize", ST_T_STRING, char *, " ",                      \
                   "number of dof accumulated per threads during the gather operation (Only use " \
                   "in GPU version)"),                                                            \
        ST_IGNORED(T, drawing, "drawing", ST_T_BOOL, bool, "true", "draw the forcefield if true"), \
        ST_IGNORED(T, draw_offset, "drawPercentageOffset", ST_T_REAL, double, "0.15",             \
                   "size of the hexa"),                                                           \
        ST_OUTPUT(T, stiffness_matrices, "stiffnessMatrices", ST_T_REALS, st_array,               \
                  "Stiffness matrices per element (K_i), 24 x 24 row-major each"),                \
        ST_VEC3S(T, initial_points, "initialPoints", NULL,                                        \
                 "Initial Position (set from the state's rest positions at init)"),               \
        ST_OUTPUT(T, rotations, ROTFINDER_FIELD, ST_T_REALS, st_array, ROTFINDER_HELP)

static const st_field hfem_fields[] = {HFEM_FIELDS, ST_FIELD_END};

static const st_field hfm_fields[] = {
    HFEM_FIELDS,
    ST_OUTPUT(T, mass_matrices, "massMatrices", ST_T_REALS, st_array,
              "Mass matrices per element (M_i), 24 x 24 row-major each"),
    ST_REAL(T, density, "density", "1", "density == volumetric mass in english (kg.m-3)"),
    ST_BOOL(T, lumped_mass, "lumpedMass", "false", "Does it use lumped masses?"),
    ST_BOOL(T, separate_gravity, "separateGravity", "false",
            "add separately gravity to velocity computation"),
    ST_REAL(T, rayleigh_mass, "rayleighMass", "0", "Rayleigh damping - mass matrix coefficient"),
    ST_FIELD_END};
#undef T

const st_class hexahedron_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "HexahedronFEMForceField",
    .category = "ForceField",
    .description = "Hexahedral finite elements (trilinear, linear elasticity; small, or "
                   "corotational large, polar)",
    .instance_size = sizeof(hexa_fem),
    .fields = hfem_fields,
    .init = hfem_init,
    .reinit = hfem_init,
    .cleanup = hfem_cleanup,
    .forcefield = &hfem_ops,
};

const st_class hexahedron_fem_force_field_and_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "HexahedronFEMForceFieldAndMass",
    .category = "Mass",
    .description = "HexahedronFEMForceField carrying its own mass (element mass matrices, "
                   "optionally lumped)",
    .instance_size = sizeof(hexa_fem),
    .fields = hfm_fields,
    .init = hfm_init,
    .reinit = hfm_init,
    .cleanup = hfem_cleanup,
    .forcefield = &hfm_ff_ops,
    .mass = &hfm_mass_ops,
};
