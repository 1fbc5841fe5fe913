/* tetrahedron_diffusion_fem_force_field.c - TetrahedronDiffusionFEMForceField:
 * SOFA's linear P1 diffusion (heat equation stiffness) on tetrahedra, for a
 * field of 1, 2 or 3 scalars per point (Vec1d, Vec2d, Vec3d).
 *
 * The geometry comes from another state: SOFA takes the MechanicalObject
 * tagged `tagMechanics`, searched from the component's node upward. settee
 * keeps no tags, so it takes the nearest Vec3d state from the node upward
 * other than the diffused one (the diffused one itself only when no other
 * exists); in SOFA's scenes the tagged state is that one.
 *
 * At init, with the geometry's positions p, for each tetrahedron i with
 * 6V = ((p1 - p0) x (p2 - p0)) . (p0 - p3) and the shape vectors
 * s_j = (-1)^(j+1) ((p_{j+2} - p_{j+1}) x (p_{j+3} - p_{j+1})) / 6V
 * (indices mod 4; s_j = -grad lambda_j), each of its six edges (k, l)
 * (local order 01 02 03 12 13 23) receives
 *   c += D_i |6V| / 6 * s_k . s_l                      (isotropic, r = 1)
 *   c += D_i |6V| / 6 * s_k . (s_l + a (r - 1) (a . s_l))  (anisotropic)
 * with D_i = tetraDiffusionCoefficient[i] (constantDiffusionCoefficient
 * when none is given), r = anisotropyRatio and a the tetrahedron's
 * transverseAnisotropyArray direction, used as given (SOFA computes its
 * norm and discards it). The force of edge (a, b) is
 *   f_b += c (x_b - x_a),   f_a -= c (x_b - x_a)
 * on every component of the field: f = -K x with K the P1 stiffness
 * (Laplacian) matrix, exact and linear, so the tangent is K. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/topology_link.h"

typedef struct diff_edge {
    unsigned a, b;
    double c; /* the edge's diffusion coefficient */
} diff_edge;

typedef struct diffusion_ff {
    st_component base;
    double constant_diffusion;   /* "constantDiffusionCoefficient" */
    st_array tetra_diffusion;    /* "tetraDiffusionCoefficient": one per tetrahedron */
    double anisotropy_ratio;     /* "anisotropyRatio" */
    st_array anisotropy_dirs;    /* "transverseAnisotropyArray": 3 x tetrahedra */
    char *tag_mechanics;         /* "tagMechanics" */
    bool draw_conduc;            /* "drawConduc" */
    st_component *topology;      /* "topology" */
    st_component *mstate;        /* "mstate" */
    /* Set at init. */
    st_mstate *ms;   /* the diffused field */
    st_mstate *geom; /* the positions the coefficients are computed from */
    unsigned dim;    /* scalars per point of the field */
    diff_edge *e;    /* ne edges, owned, in order of first appearance */
    size_t ne;
    size_t npoints; /* points of the field at the last build */
    bool listening;
} diffusion_ff;

static void sub3(double o[3], const double *a, const double *b)
{
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}

/* The geometry state, as described at the top of the file. */
static st_mstate *find_geometry(diffusion_ff *d)
{
    for (st_node *n = d->base.node; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            if (!st_component_has_role(c, ST_ROLE_STATE))
                continue;
            st_mstate *ms = (st_mstate *)c;
            if (ms != d->ms && ms->type && ms->type->coord_size == 3 &&
                !strcmp(ms->type->name, "Vec3d"))
                return ms;
        }
    if (d->ms->type && !strcmp(d->ms->type->name, "Vec3d"))
        return d->ms;
    return NULL;
}

/* The index of edge (a, b) in the list, appended when new. Edges are found
 * through a per-point chain (head[v]: the last edge whose smaller vertex is
 * v; next[e]: the previous one). */
static st_status edge_index(diffusion_ff *d, unsigned a, unsigned b, size_t *cap, long *head,
                            long **next, size_t *out, st_error *err)
{
    unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    for (long k = head[lo]; k >= 0; k = (*next)[k])
        if ((d->e[k].a > d->e[k].b ? d->e[k].a : d->e[k].b) == hi) {
            *out = (size_t)k;
            return ST_OK;
        }
    if (d->ne == *cap) {
        size_t nc = *cap ? 2 * *cap : 64;
        diff_edge *e = st_realloc(d->e, nc * sizeof *e);
        if (!e)
            return st_error_set(err, ST_ENOMEM, "out of memory building diffusion edges");
        d->e = e;
        long *nx = st_realloc(*next, nc * sizeof *nx);
        if (!nx)
            return st_error_set(err, ST_ENOMEM, "out of memory building diffusion edges");
        *next = nx;
        *cap = nc;
    }
    /* SOFA's edges keep the orientation of the first tetrahedron holding them */
    d->e[d->ne] = (diff_edge){.a = a, .b = b, .c = 0};
    (*next)[d->ne] = head[lo];
    head[lo] = (long)d->ne;
    *out = d->ne++;
    return ST_OK;
}

/* strict: tetraDiffusionCoefficient must match the tetrahedra (at init);
 * after a topological change a list of the old count is left aside. */
static st_status build(diffusion_ff *d, bool strict, st_error *err)
{
    static const int local_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    st_component *self = &d->base;
    st_free(d->e);
    d->e = NULL;
    d->ne = 0;
    const st_array *el = d->topology->cls->topology->elements(d->topology, ST_T_TETRAS);
    size_t nt = el ? el->n : 0, np = d->geom->position.n, nf = d->ms->n;
    if (nt == 0) {
        st_component_warn(self, "No tetrahedra found in linked Topology.");
        d->npoints = nf;
        return ST_OK;
    }
    for (size_t i = 0; i < 4 * nt; i++)
        if (el->u[i] >= np || el->u[i] >= nf)
            return st_component_error(self, "topology", err, ST_ESCENE,
                                      "tetrahedron %zu uses point %u; the geometry '%s' has %zu "
                                      "points and the field '%s' %zu",
                                      i / 4, el->u[i], d->geom->base.name, np, d->ms->base.name,
                                      nf);
    bool per_tet = d->tetra_diffusion.n == nt;
    if (strict && d->tetra_diffusion.n && !per_tet)
        return st_component_error(self, "tetraDiffusionCoefficient", err, ST_ESCENE,
                                  "Wrong size of potential input vector: %zu coefficients for %zu "
                                  "tetrahedra",
                                  d->tetra_diffusion.n, nt);
    bool iso = d->anisotropy_ratio == 1.0;
    if (!iso && d->anisotropy_dirs.n < nt)
        return st_component_error(self, "transverseAnisotropyArray", err, ST_ESCENE,
                                  "anisotropyRatio is %g but transverseAnisotropyArray gives %zu "
                                  "directions for %zu tetrahedra (one per tetrahedron needed)",
                                  d->anisotropy_ratio, d->anisotropy_dirs.n, nt);
    long *head = st_malloc(np * sizeof *head), *next = NULL;
    if (!head)
        return st_error_set(err, ST_ENOMEM, "out of memory building diffusion edges");
    for (size_t v = 0; v < np; v++)
        head[v] = -1;
    size_t cap = 0;
    st_status st = ST_OK;
    const double *pos = d->geom->position.r;
    for (size_t i = 0; i < nt && st == ST_OK; i++) {
        const unsigned *tv = el->u + 4 * i;
        const double *p[4];
        for (int j = 0; j < 4; j++)
            p[j] = pos + 3 * tv[j];
        double u[3], w[3], z[3], n[3], s[4][3];
        sub3(u, p[1], p[0]);
        sub3(w, p[2], p[0]);
        sub3(z, p[0], p[3]);
        st_v3_cross(n, u, w);
        double vol = st_v3_dot(n, z);
        if (vol == 0 || !isfinite(vol)) {
            st = st_component_error(self, "topology", err, ST_ESCENE,
                                    "tetrahedron %zu (%u %u %u %u) has no volume in '%s': its "
                                    "shape vectors would divide by 0",
                                    i, tv[0], tv[1], tv[2], tv[3], d->geom->base.name);
            break;
        }
        for (int j = 0; j < 4; j++) {
            sub3(u, p[(j + 2) % 4], p[(j + 1) % 4]);
            sub3(w, p[(j + 3) % 4], p[(j + 1) % 4]);
            st_v3_cross(n, u, w);
            double sign = (j % 2) == 0 ? -1.0 : 1.0;
            for (int q = 0; q < 3; q++)
                s[j][q] = sign * n[q] / vol;
        }
        double coef = per_tet ? d->tetra_diffusion.r[i] : d->constant_diffusion;
        double diff = coef * fabs(vol) / 6;
        const double *a = iso ? NULL : d->anisotropy_dirs.r + 3 * i;
        for (int j = 0; j < 6 && st == ST_OK; j++) {
            int k = local_edges[j][0], l = local_edges[j][1];
            double val;
            if (iso) {
                val = st_v3_dot(s[k], s[l]) * diff;
            } else {
                double t = (d->anisotropy_ratio - 1) * st_v3_dot(a, s[l]), sl[3];
                for (int q = 0; q < 3; q++)
                    sl[q] = s[l][q] + a[q] * t;
                val = st_v3_dot(s[k], sl) * diff;
            }
            size_t e = 0;
            st = edge_index(d, tv[k], tv[l], &cap, head, &next, &e, err);
            if (st == ST_OK)
                d->e[e].c += val;
        }
    }
    st_free(head);
    st_free(next);
    d->npoints = nf;
    return st;
}

static st_status td_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                            size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    diffusion_ff *d = (diffusion_ff *)self;
    if (self->state != ST_CSTATE_VALID || st_topology_state_ahead(d->topology, d->ms->n) ||
        st_topology_state_ahead(d->topology, d->geom->n))
        return ST_OK;
    /* SOFA computes the coefficients once, at init; a changed mesh gets
     * them again from the remaining tetrahedra. */
    return build(d, false, err);
}

static st_status td_init(st_component *self, st_error *err)
{
    diffusion_ff *d = (diffusion_ff *)self;
    self->state = ST_CSTATE_INVALID;
    d->ms = d->mstate && st_component_has_role(d->mstate, ST_ROLE_STATE)
                ? (st_mstate *)d->mstate
                : st_component_mstate(self);
    if (!d->ms)
        return st_component_error(self, "mstate", err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors (the "
                                  "diffused field)");
    d->dim = d->ms->type ? d->ms->type->deriv_size : 3;
    if (d->dim < 1 || d->dim > 3 || (d->ms->type && d->ms->type->coord_size != d->dim))
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "the field '%s' is %s; TetrahedronDiffusionFEMForceField "
                                  "diffuses Vec1d, Vec2d or Vec3d states",
                                  d->ms->base.name, d->ms->type ? d->ms->type->name : "?");
    ST_TRY(st_find_topology(self, &d->topology, err));
    d->geom = find_geometry(d);
    if (!d->geom)
        return st_component_error(self, "tagMechanics", err, ST_ESCENE,
                                  "cannot find the mechanical object tagged '%s' (settee: a Vec3d "
                                  "MechanicalObject in the node or its ancestors) giving the "
                                  "tetrahedra's positions",
                                  d->tag_mechanics ? d->tag_mechanics : "");
    ST_TRY(build(d, true, err));
    if (!d->listening) {
        ST_TRY(st_topology_listen(self, d->topology, td_changed, err));
        d->listening = true;
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void td_cleanup(st_component *self)
{
    diffusion_ff *d = (diffusion_ff *)self;
    st_free(d->e);
    d->e = NULL;
    d->ne = 0;
}

static bool td_ready(const diffusion_ff *d)
{
    return d->base.state == ST_CSTATE_VALID && d->ms && d->ms->n == d->npoints;
}

static void td_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    diffusion_ff *d = (diffusion_ff *)self;
    if (!td_ready(d))
        return;
    double *fs = st_slice(f, d->ms);
    const double *xs = st_slice_x(x, d->ms);
    unsigned n = d->dim;
    for (size_t i = 0; i < d->ne; i++) {
        const diff_edge *e = &d->e[i];
        for (unsigned k = 0; k < n; k++) {
            double dp = (xs[n * e->b + k] - xs[n * e->a + k]) * e->c;
            fs[n * e->b + k] += dp;
            fs[n * e->a + k] -= dp;
        }
    }
}

static void td_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    diffusion_ff *d = (diffusion_ff *)self;
    if (!td_ready(d))
        return;
    double *fs = st_slice(df, d->ms);
    const double *ds = st_slice(dx, d->ms);
    unsigned n = d->dim;
    for (size_t i = 0; i < d->ne; i++) {
        const diff_edge *e = &d->e[i];
        for (unsigned k = 0; k < n; k++) {
            double dp = (ds[n * e->b + k] - ds[n * e->a + k]) * e->c * kfactor;
            fs[n * e->b + k] += dp;
            fs[n * e->a + k] -= dp;
        }
    }
}

static void td_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    diffusion_ff *d = (diffusion_ff *)self;
    if (!td_ready(d))
        return;
    for (size_t i = 0; i < d->ne; i++) {
        const diff_edge *e = &d->e[i];
        double c = e->c * kfactor;
        st_matrix_add_diag(m, d->ms, e->a, c);
        st_matrix_add_diag(m, d->ms, e->b, c);
        double off[9] = {0};
        for (unsigned k = 0; k < d->dim; k++)
            off[d->dim * k + k] = -c;
        st_matrix_add_block(m, d->ms, e->a, d->ms, e->b, off);
        st_matrix_add_block(m, d->ms, e->b, d->ms, e->a, off);
    }
}

/* SOFA gives no energy ("not implemented yet"): 0. */
static double td_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0;
}

static const st_forcefield_ops td_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = td_add_force,
    .add_dforce = td_add_dforce,
    .add_k_to_matrix = td_add_k,
    .potential_energy = td_energy,
};

static const st_field td_fields[] = {
    ST_REAL(diffusion_ff, constant_diffusion, "constantDiffusionCoefficient", "1",
            "Constant diffusion coefficient"),
    ST_REALS(diffusion_ff, tetra_diffusion, "tetraDiffusionCoefficient", "",
             "Diffusion coefficient for each tetrahedron, by default equal to "
             "constantDiffusionCoefficient."),
    ST_REAL(diffusion_ff, anisotropy_ratio, "anisotropyRatio", "1",
            "Anisotropy ratio (r^2 > 1). Default is 1.0 = isotropy."),
    ST_VEC3S(diffusion_ff, anisotropy_dirs, "transverseAnisotropyArray", "",
             "Anisotropy direction of each tetrahedron (used when anisotropyRatio is not 1)"),
    ST_STRING(diffusion_ff, tag_mechanics, "tagMechanics", "meca",
              "Tag of the Mechanical Object (settee keeps no tags: the nearest Vec3d "
              "MechanicalObject from the node upward, other than the diffused one, gives the "
              "positions)"),
    ST_IGNORED(diffusion_ff, draw_conduc, "drawConduc", ST_T_BOOL, bool, "false",
               "To display conductivity map."),
    ST_LINK(diffusion_ff, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found from the node "
            "upward)"),
    ST_LINK(diffusion_ff, mstate, "mstate", ST_LINK_STATE,
            "MechanicalState used by this component (the diffused field; default: the node's, "
            "else the nearest ancestor's)"),
    ST_FIELD_END,
};

static const char *const td_templates[] = {"Vec2d", "Vec1d", "Vec3d", NULL};

const st_class tetrahedron_diffusion_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TetrahedronDiffusionFEMForceField",
    .category = "ForceField",
    .description = "Diffusion (P1 Laplacian stiffness) of a field on tetrahedra, the geometry "
                   "taken from a Vec3d MechanicalObject",
    .instance_size = sizeof(diffusion_ff),
    .fields = td_fields,
    .init = td_init,
    .cleanup = td_cleanup,
    .forcefield = &td_ops,
    .templates = td_templates,
};
