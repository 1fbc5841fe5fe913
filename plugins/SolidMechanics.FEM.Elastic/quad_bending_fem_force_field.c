/* quad_bending_fem_force_field.c - QuadBendingFEMForceField: SOFA's
 * quadrilateral plate element, small displacements only.
 *
 * SOFA writes it with 5 values per vertex (u, v, w and two rotations) but
 * holds the rotations at zero and applies only the translational forces;
 * what remains, per quad (vertices 0 1 2 3, natural signs (-1 -1) (1 -1)
 * (1 1) (-1 1)), with l and h half the lengths of edges 01 and 03 of the
 * current positions, x and y the global axes (the quad is assumed in the xy
 * plane, edge 01 along x):
 *   in-plane (SOFA's "bending" part): the bilinear membrane stiffness,
 *   2x2 Gauss points, material t E / (1 - nu^2) [1 nu 0; nu 1 0; 0 0
 *   (1 - nu) / 2];
 *   out of plane (its "shear" part, rotations zero): 4 l h k G t (Ni,x Nj,x
 *   + Ni,y Nj,y) at the centre, k = 5/6, G t = E t / (2 (1 + nu));
 *   D = rest - current, each relative to the midpoint of vertices 0 and 2;
 *   f = K D.
 * add_dforce and the matrix use the K of the last add_force (the lengths
 * l, h are taken from the positions add_force receives; SOFA reads its
 * state's position, the same vector during a step). Deviations from SOFA:
 * its assembled matrix extracts 3x3 blocks from its 20x20 matrix with a
 * stride of 3 (mixing rotations in); settee assembles the blocks its
 * add_dforce applies. SOFA's addDForce leaves out Rayleigh stiffness: so
 * does settee (rayleighStiffness is ignored). Potential energy: SOFA has
 * none (error, 0); settee returns the strain energy 1/2 D^T K D. */
#include <math.h>
#include <string.h>

#include "../shared/topology_link.h"
#include "fem.h"

typedef struct qb_elem {
    unsigned v[4];
    double rest[4][3]; /* rest positions relative to the midpoint of 0 and 2 */
    double cb[3];      /* membrane material C00 (= C11), C01, C22 (times thickness) */
    double cs;         /* k G t */
    double K[12][12];  /* (u v w) per vertex, of the last add_force */
    bool fresh;        /* added by a topological change, not initialised yet */
} qb_elem;

typedef struct qb_fem {
    st_component base;
    double rayleigh_stiffness;
    st_component *topology;
    char *quad_info, *vertex_info, *edge_info; /* ignored internal data */
    char *method;
    st_array poisson_ratio, young_modulus; /* reals */
    double thickness;
    st_mstate *ms;
    size_t ne;
    qb_elem *e; /* ne elements, owned */
    st_component *followed; /* the topology whose changes it follows */
} qb_fem;

static const double node_sign[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};

/* K from the half lengths l, h. */
static void element_stiffness(const qb_elem *t, double l, double h, double K[12][12])
{
    memset(K, 0, 12 * sizeof *K);
    const double g = sqrt(3.0) / 3.0, gp[4][2] = {{g, g}, {-g, g}, {g, -g}, {-g, -g}};
    double c00 = t->cb[0], c01 = t->cb[1], c22 = t->cb[2];
    for (int q = 0; q < 4; q++) {
        double nx[4], ny[4];
        for (int i = 0; i < 4; i++) {
            double m = node_sign[i][0], n = node_sign[i][1];
            nx[i] = m * (1 + n * gp[q][1]) / (4 * l);
            ny[i] = n * (1 + m * gp[q][0]) / (4 * h);
        }
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++) {
                K[3 * i][3 * j] += l * h * (nx[i] * c00 * nx[j] + ny[i] * c22 * ny[j]);
                K[3 * i][3 * j + 1] += l * h * (nx[i] * c01 * ny[j] + ny[i] * c22 * nx[j]);
                K[3 * i + 1][3 * j] += l * h * (ny[i] * c01 * nx[j] + nx[i] * c22 * ny[j]);
                K[3 * i + 1][3 * j + 1] += l * h * (ny[i] * c00 * ny[j] + nx[i] * c22 * nx[j]);
            }
    }
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            double ax = node_sign[i][0] / (4 * l), ay = node_sign[i][1] / (4 * h);
            double bx = node_sign[j][0] / (4 * l), by = node_sign[j][1] / (4 * h);
            K[3 * i + 2][3 * j + 2] = l * h * (ax * t->cs * bx + ay * t->cs * by) * 4;
        }
}

static void half_lengths(const double *p, const unsigned v[4], double *l, double *h)
{
    const double *a = p + 3 * v[0], *b = p + 3 * v[1], *d = p + 3 * v[3];
    double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double f[3] = {d[0] - a[0], d[1] - a[1], d[2] - a[2]};
    *l = sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]) / 2;
    *h = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]) / 2;
}

static void qb_free(qb_fem *s)
{
    st_free(s->e);
    s->e = NULL;
    s->ne = 0;
}

/* Quad i from the rest and current positions (SOFA's createQuadInformation
 * and init). */
static st_status init_quad(qb_fem *s, size_t i, st_error *err)
{
    st_component *self = &s->base;
    size_t np = s->ms->rest_position.n;
    const double *x0 = s->ms->rest_position.r, *x = s->ms->position.r;
    qb_elem *t = &s->e[i];
    ST_TRY(fem_check_indices(self, t->v, 1, 4, np, "quad", err));
    const double *a = x0 + 3 * t->v[0], *c = x0 + 3 * t->v[2];
    for (int k = 0; k < 4; k++)
        for (int m = 0; m < 3; m++)
            t->rest[k][m] = x0[3 * t->v[k] + m] - (a[m] + c[m]) / 2;
    double E = s->young_modulus.r[s->young_modulus.n > i ? i : 0];
    double nu = s->poisson_ratio.r[s->poisson_ratio.n > i ? i : 0], th = s->thickness;
    t->cb[0] = E * th / (1 - nu * nu);
    t->cb[1] = nu * E * th / (1 - nu * nu);
    t->cb[2] = E * th * (1 - nu) / (2 - 2 * nu * nu);
    t->cs = 5.0 / 6.0 * E * th / (2 + 2 * nu);
    double l, h;
    half_lengths(x, t->v, &l, &h);
    if (!(l > 0 && h > 0))
        return st_component_error(self, "topology", err, ST_EINVAL,
                                  "quad %zu (vertices %u %u %u %u) has a zero-length edge", i,
                                  t->v[0], t->v[1], t->v[2], t->v[3]);
    element_stiffness(t, l, h, t->K);
    return ST_OK;
}

/* ---- Topological changes ---- */

static void qb_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i;
    qb_elem *t = item;
    if (ev->vertices)
        memcpy(t->v, ev->vertices + 4 * k, sizeof t->v);
    t->fresh = true;
}

static const st_topo_follow_ops qb_follow_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = qb_create,
};

/* After a change: the kept quads keep their data (SOFA's quadInfo, a
 * TopologyData), their vertex indices re-read; per-quad material lists
 * follow; added quads computed (SOFA's createQuadInformation). */
static st_status qb_topology_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    qb_fem *s = (qb_fem *)self;
    fem_follow_list(self, "youngModulus", &s->young_modulus, 1, 1, ST_ELEM_QUAD, ev, nev);
    fem_follow_list(self, "poissonRatio", &s->poisson_ratio, 1, 1, ST_ELEM_QUAD, ev, nev);
    ST_TRY(fem_reread_vertices(self, s->e, s->ne, sizeof *s->e,
                               fem_elements(s->topology, ST_T_QUADS), 4, err));
    size_t np = s->ms->rest_position.n;
    if (st_topology_state_ahead(s->topology, np))
        return ST_OK; /* the point removal follows: checked then */
    for (size_t i = 0; i < s->ne; i++) {
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 4, np, "quad", err));
        if (s->e[i].fresh) {
            s->e[i].fresh = false;
            ST_TRY(init_quad(s, i, err));
        }
    }
    return ST_OK;
}

/* Registers once per topology (reinit calls init again). */
static st_status follow_topology(qb_fem *s, st_error *err)
{
    if (s->followed == s->topology)
        return ST_OK;
    st_component *self = &s->base;
    ST_TRY(st_topology_follow(self, s->topology, ST_ELEM_QUAD, (void **)&s->e, &s->ne,
                              sizeof *s->e, &qb_follow_ops, s, err));
    ST_TRY(st_topology_listen(self, s->topology, qb_topology_changed, err));
    s->followed = s->topology;
    return ST_OK;
}

static st_status qb_init(st_component *self, st_error *err)
{
    qb_fem *s = (qb_fem *)self;
    qb_free(s);
    self->state = ST_CSTATE_INVALID;
    s->ms = st_component_mstate(self);
    if (!s->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors (%s needs one)",
                                  self->cls->name);
    ST_TRY(fem_find_topology(self, &s->topology, err));
    if (s->young_modulus.n == 0 || s->poisson_ratio.n == 0)
        return st_component_error(self, s->young_modulus.n ? "poissonRatio" : "youngModulus",
                                  err, ST_EINVAL, "needs at least one value");
    if (!s->method || strcmp(s->method, "small"))
        st_component_warn(self, "method '%s': only small displacements are implemented (as in "
                                "SOFA, which uses small whatever the method)",
                          s->method ? s->method : "");
    const st_array *qd = fem_elements(s->topology, ST_T_QUADS);
    if (!qd) {
        st_component_warn(self, "No quads found in linked Topology.");
        ST_TRY(follow_topology(s, err));
        self->state = ST_CSTATE_VALID;
        return ST_OK;
    }
    s->ne = qd->n;
    s->e = st_calloc(s->ne, sizeof *s->e);
    if (!s->e)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu quads)", s->ne);
    for (size_t i = 0; i < s->ne; i++) {
        memcpy(s->e[i].v, qd->u + 4 * i, sizeof s->e[i].v);
        ST_TRY(init_quad(s, i, err));
    }
    ST_TRY(follow_topology(s, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void qb_cleanup(st_component *self)
{
    qb_free((qb_fem *)self);
}

/* out[v] += scale K X (12 values) */
static void apply(const qb_elem *t, const double X[12], double scale, double *out)
{
    for (int i = 0; i < 4; i++) {
        double *o = out + 3 * t->v[i];
        for (int a = 0; a < 3; a++) {
            double acc = 0;
            for (int j = 0; j < 12; j++)
                acc += t->K[3 * i + a][j] * X[j];
            o[a] += scale * acc;
        }
    }
}

/* D = rest - current, each relative to the midpoint of vertices 0 and 2. */
static void displacement(const qb_elem *t, const double *p, double D[12])
{
    const double *a = p + 3 * t->v[0], *c = p + 3 * t->v[2];
    for (int k = 0; k < 4; k++)
        for (int m = 0; m < 3; m++)
            D[3 * k + m] = t->rest[k][m] - (p[3 * t->v[k] + m] - (a[m] + c[m]) / 2);
}

static void qb_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    qb_fem *s = (qb_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        qb_elem *t = &s->e[i];
        double l, h;
        half_lengths(p, t->v, &l, &h);
        if (l > 0 && h > 0)
            element_stiffness(t, l, h, t->K);
        double D[12];
        displacement(t, p, D);
        apply(t, D, 1.0, fs);
    }
}

static void qb_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    qb_fem *s = (qb_fem *)self;
    double *dfs = fem_derivs(df, s->ms);
    const double *d = fem_dx(dx, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        const qb_elem *t = &s->e[i];
        double X[12];
        for (int k = 0; k < 4; k++)
            memcpy(X + 3 * k, d + 3 * t->v[k], 3 * sizeof(double));
        apply(t, X, -kfactor, dfs);
    }
}

static void qb_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    qb_fem *s = (qb_fem *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const qb_elem *t = &s->e[i];
        for (int n1 = 0; n1 < 4; n1++)
            for (int n2 = 0; n2 < 4; n2++) {
                double b[9];
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        b[3 * r + c] = -kfactor * t->K[3 * n1 + r][3 * n2 + c];
                fem_add_block(m, s->ms, t->v[n1], t->v[n2], b);
            }
    }
}

/* Strain energy 1/2 sum_e D^T K D with the D and K (lengths l, h at x)
 * add_force uses (f_e = K D). K follows the lengths of edges 01 and 03, so
 * -dE/dx equals f exactly only where those lengths stay (e.g. moving
 * vertex 2), and to first order in D elsewhere. */
static double qb_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    qb_fem *s = (qb_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return 0.0;
    const double *p = fem_coords(x, s->ms);
    double energy = 0;
    for (size_t i = 0; i < s->ne; i++) {
        const qb_elem *t = &s->e[i];
        double l, h, K[12][12], D[12];
        half_lengths(p, t->v, &l, &h);
        if (l > 0 && h > 0)
            element_stiffness(t, l, h, K);
        else
            memcpy(K, t->K, sizeof K);
        displacement(t, p, D);
        for (int r = 0; r < 12; r++) {
            double a = 0;
            for (int c = 0; c < 12; c++)
                a += K[r][c] * D[c];
            energy += D[r] * a;
        }
    }
    return 0.5 * energy;
}

static const st_forcefield_ops qb_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = qb_add_force,
    .add_dforce = qb_add_dforce,
    .add_k_to_matrix = qb_add_k,
    .potential_energy = qb_energy,
};

#define T qb_fem
static const st_field qb_fields[] = {
    ST_IGNORED(T, rayleigh_stiffness, "rayleighStiffness", ST_T_REAL, double, "0",
               "Rayleigh damping coefficient related to stiffness (SOFA's QuadBendingFEMForceField "
               "does not apply it)"),
    FEM_F_TOPOLOGY(T),
    ST_IGNORED(T, quad_info, "quadInfo", ST_T_STRING, char *, NULL,
               "Internal quad data (not read by settee)"),
    ST_IGNORED(T, vertex_info, "vertexInfo", ST_T_STRING, char *, NULL,
               "Internal point data (not read by settee)"),
    ST_IGNORED(T, edge_info, "edgeInfo", ST_T_STRING, char *, NULL,
               "Internal edge data (not read by settee)"),
    ST_STRING(T, method, "method", "small",
              "large: large displacements, small: small displacements (only small is "
              "implemented, in SOFA too: another value warns)"),
    ST_REALS(T, poisson_ratio, "poissonRatio", "0.45", "Poisson ratio in Hooke's law (vector)"),
    ST_REALS(T, young_modulus, "youngModulus", "1000", "Young modulus in Hooke's law (vector)"),
    ST_REAL(T, thickness, "thickness", "1", "Thickness of the elements"),
    ST_FIELD_END};
#undef T

const st_class quad_bending_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "QuadBendingFEMForceField",
    .category = "ForceField",
    .description = "Quadrilateral plate elements in the xy plane (small displacements: "
                   "bilinear membrane plus the transverse shear stiffness of the deflection, "
                   "rotations held at zero, as SOFA applies it). Potential energy: SOFA has "
                   "none; settee returns the strain energy 1/2 D^T K D",
    .instance_size = sizeof(qb_fem),
    .fields = qb_fields,
    .init = qb_init,
    .reinit = qb_init,
    .cleanup = qb_cleanup,
    .forcefield = &qb_ops,
};
