/* fast_triangular_bending_springs.c - FastTriangularBendingSprings: SOFA's
 * linear bending model after Volino & Magnenat-Thalmann ("Simple linear
 * bending stiffness in particle systems"), one bending element per edge
 * shared by exactly two triangles.
 *
 * For an edge (C, D) = (edge[0], edge[1]) with opposite vertices A (in the
 * lower-numbered triangle) and B (in the other), at the rest positions:
 *   NA = (A-C) x (A-D), NB = (B-D) x (B-C), NC = (C-B) x (C-A),
 *   ND = (D-A) x (D-B);
 *   alpha = (|NB|, |NA|) / (|NA| + |NB|) for A, B and
 *           -(|ND|, |NC|) / (|NC| + |ND|) for C, D;
 *   ha, hb = distances of A and B to the line CD, l = |C - D|;
 *   lambda = 2/3 (ha + hb) / (ha^2 hb^2) l bendingStiffness.
 * With R = sum_j alpha_j x_j (zero on a flat rest shape):
 *   f_j -= lambda alpha_j R, energy lambda |R|^2 / 2,
 *   K_jk = -lambda alpha_j alpha_k I (constant: the force is linear in x).
 * An element whose A-B or C-D rest distance is not above minDistValidity is
 * not created. SOFA visits the triangles in order and lets the last visit
 * of an edge (from its higher-numbered triangle) decide A and B, as here.
 * add_k_to_matrix adds all 4 x 4 blocks (SOFA's addKToMatrix does; its newer
 * buildStiffnessMatrix loops over 3 vertices only and misses D's blocks). */
#include <math.h>
#include <string.h>

#include "springs.h"

typedef struct fast_bending {
    st_component base;
    double stiffness;     /* "bendingStiffness" */
    double min_dist;      /* "minDistValidity" */
    double rayleigh_stiffness;
    st_component *topology;
    st_mstate *ms;
    size_t n;             /* active elements */
    unsigned (*vid)[4];   /* A, B, C, D */
    double (*alpha)[4];
    double *lambda;
} fast_bending;

static void fb_free(fast_bending *b)
{
    st_free(b->vid);
    st_free(b->alpha);
    st_free(b->lambda);
    b->vid = NULL, b->alpha = NULL, b->lambda = NULL;
    b->n = 0;
}

static void sub3(const double *a, const double *b, double *r)
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}

static double norm_cross(const double *a, const double *b)
{
    double c[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0]};
    return sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
}

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* SOFA's setEdgeSpring on the rest positions. */
static void set_element(const double *x0, const unsigned v[4], double stiffness,
                        double alpha[4], double *lambda)
{
    const double *A = x0 + 3 * v[0], *B = x0 + 3 * v[1], *C = x0 + 3 * v[2], *D = x0 + 3 * v[3];
    double ac[3], ad[3], bd[3], bc[3], cb[3], ca[3], da[3], db[3];
    sub3(A, C, ac), sub3(A, D, ad), sub3(B, D, bd), sub3(B, C, bc);
    sub3(C, B, cb), sub3(C, A, ca), sub3(D, A, da), sub3(D, B, db);
    double na = norm_cross(ac, ad), nb = norm_cross(bd, bc);
    double nc = norm_cross(cb, ca), nd = norm_cross(da, db);
    alpha[0] = nb / (na + nb);
    alpha[1] = na / (na + nb);
    alpha[2] = -nd / (nc + nd);
    alpha[3] = -nc / (nc + nd);
    double e[3];
    sub3(C, D, e);
    double l = sqrt(dot3(e, e));
    double en[3] = {e[0] / l, e[1] / l, e[2] / l};
    double acv[3], bcv[3];
    sub3(C, A, acv), sub3(C, B, bcv);
    double pa = dot3(acv, en), pb = dot3(bcv, en);
    double ra[3] = {acv[0] - en[0] * pa, acv[1] - en[1] * pa, acv[2] - en[2] * pa};
    double rb[3] = {bcv[0] - en[0] * pb, bcv[1] - en[1] * pb, bcv[2] - en[2] * pb};
    double ha = sqrt(dot3(ra, ra)), hb = sqrt(dot3(rb, rb));
    *lambda = 2.0 / 3.0 * (ha + hb) / (ha * ha * hb * hb) * l * stiffness;
}

static st_status fb_init(st_component *self, st_error *err)
{
    fast_bending *b = (fast_bending *)self;
    fb_free(b);
    const st_array *tris = NULL;
    elem_edges ee;
    ST_TRY(bending_elements(self, &b->topology, &b->ms, ST_T_TRIANGLES, 3, &tris, &ee, err));
    if (!tris) {
        st_component_warn(self, "No triangles found in linked Topology.");
        return bending_follow(self, b->topology, err);
    }
    const st_array *edges = b->topology->cls->topology->elements(b->topology, ST_T_EDGES);
    size_t ne = ee.n_edges;
    b->vid = st_calloc(ne + 1, sizeof *b->vid);
    b->alpha = st_calloc(ne + 1, sizeof *b->alpha);
    b->lambda = st_calloc(ne + 1, sizeof *b->lambda);
    if (!b->vid || !b->alpha || !b->lambda) {
        elem_edges_free(&ee);
        fb_free(b);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu edges)", ne);
    }
    const double *x0 = b->ms->rest_position.r;
    double eps2 = b->min_dist * b->min_dist;
    for (size_t k = 0; k < ne; k++) {
        /* The last visit decides: A in the lower triangle, B in the other. */
        edge_visit v;
        if (!elem_edges_visit(&ee, 3, k, true, &v))
            continue;
        unsigned id[4] = {tris->u[3 * v.o + v.jo], tris->u[3 * v.e + v.j], edges->u[2 * k],
                          edges->u[2 * k + 1]};
        double vp[3], ve[3];
        sub3(x0 + 3 * id[1], x0 + 3 * id[0], vp);
        sub3(x0 + 3 * id[3], x0 + 3 * id[2], ve);
        if (!(dot3(vp, vp) > eps2 && dot3(ve, ve) > eps2))
            continue;
        memcpy(b->vid[b->n], id, sizeof id);
        set_element(x0, id, b->stiffness, b->alpha[b->n], &b->lambda[b->n]);
        b->n++;
    }
    elem_edges_free(&ee);
    return bending_follow(self, b->topology, err);
}

static void fb_cleanup(st_component *self) { fb_free((fast_bending *)self); }

/* R = sum_j alpha_j x_j of element e. */
static void bend_vector(const fast_bending *b, size_t e, const double *xs, double R[3])
{
    const unsigned *id = b->vid[e];
    const double *al = b->alpha[e];
    for (int c = 0; c < 3; c++)
        R[c] = xs[3 * id[0] + c] * al[0] + xs[3 * id[1] + c] * al[1] +
               xs[3 * id[2] + c] * al[2] + xs[3 * id[3] + c] * al[3];
}

static void fb_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    fast_bending *b = (fast_bending *)self;
    double *fs = st_slice(f, b->ms);
    const double *xs = st_slice_x(x, b->ms);
    for (size_t e = 0; e < b->n; e++) {
        double R[3];
        bend_vector(b, e, xs, R);
        for (int j = 0; j < 4; j++)
            for (int c = 0; c < 3; c++)
                fs[3 * b->vid[e][j] + c] -= R[c] * b->lambda[e] * b->alpha[e][j];
    }
}

static void fb_add_dforce(st_component *self, const st_mparams *mp, double *df,
                          const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    fast_bending *b = (fast_bending *)self;
    double *dfs = st_slice(df, b->ms);
    const double *dxs = st_slice(dx, b->ms);
    for (size_t e = 0; e < b->n; e++) {
        const unsigned *id = b->vid[e];
        const double *al = b->alpha[e];
        double dk[4][3];
        for (int k = 0; k < 4; k++)
            for (int c = 0; c < 3; c++)
                dk[k][c] = dxs[3 * id[k] + c] * b->lambda[e] * kfactor * al[k];
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++)
                for (int c = 0; c < 3; c++)
                    dfs[3 * id[j] + c] -= dk[k][c] * al[j];
    }
}

static void fb_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    fast_bending *b = (fast_bending *)self;
    for (size_t e = 0; e < b->n; e++)
        for (int j = 0; j < 4; j++)
            for (int k = 0; k < 4; k++) {
                double d = -b->lambda[e] * b->alpha[e][j] * b->alpha[e][k] * kfactor;
                double blk[9] = {d, 0, 0, 0, d, 0, 0, 0, d};
                st_matrix_add_block(m, b->ms, b->vid[e][j], b->ms, b->vid[e][k], blk);
            }
}

static double fb_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    fast_bending *b = (fast_bending *)self;
    const double *xs = st_slice_x(x, b->ms);
    double energy = 0;
    for (size_t e = 0; e < b->n; e++) {
        double R[3];
        bend_vector(b, e, xs, R);
        energy += dot3(R, R) * b->lambda[e] * 0.5;
    }
    return energy;
}

static double fb_rayleigh(const st_component *self)
{
    return ((const fast_bending *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops fb_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = fb_add_force,
    .add_dforce = fb_add_dforce,
    .add_k_to_matrix = fb_add_k,
    .potential_energy = fb_energy,
    .rayleigh_stiffness = fb_rayleigh,
};

static const st_field fb_fields[] = {
    ST_REAL(fast_bending, stiffness, "bendingStiffness", "1",
            "Bending stiffness of the material"),
    ST_REAL_RANGE(fast_bending, min_dist, "minDistValidity", "0.000001",
                  "Distance under which a spring is not valid", 0.0, 1e300),
    SPRING_F_RAYLEIGH(fast_bending),
    ST_LINK(fast_bending, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ST_FIELD_END};

const st_class fast_triangular_bending_springs_class = {
    .struct_size = sizeof(st_class),
    .name = "FastTriangularBendingSprings",
    .category = "ForceField",
    .description = "Linear bending elements on the edges shared by two triangles (Volino's "
                   "model: a force linear in the positions, constant stiffness)",
    .instance_size = sizeof(fast_bending),
    .fields = fb_fields,
    .init = fb_init,
    .cleanup = fb_cleanup,
    .forcefield = &fb_ops,
};
