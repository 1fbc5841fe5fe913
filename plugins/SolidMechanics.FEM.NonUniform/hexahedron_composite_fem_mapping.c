/* hexahedron_composite_fem_mapping.c - HexahedronCompositeFEMMapping: SOFA's
 * mapping from the coarse nodes of a HexahedronCompositeFEMForceFieldAndMass
 * to points embedded in its fine level, through the condensation's
 * weights: a stiff inclusion inside a coarse element stays undeformed.
 *
 * At init (SOFA's HexahedronCompositeFEMMapping::init): the input's
 * positions q0 and the output's p0 are kept; the fine nodes are the
 * corners of the force field's fine cells (the sparse grid's level
 * Lg - nbVirtualFinerLevels, a regular grid), at their grid positions
 * plus the input's translation (q0[0] minus the grid's point 0); each fine
 * node gets, for each coarse hexahedron one of whose fine cells it is a
 * corner of, the 3 x 24 rows of that cell's weight (the last cell of each
 * hexahedron, in the force field's order, when several give them); each
 * output point is located in the fine cell holding it, else the fine cell
 * whose centre is nearest (trilinear coordinates then extrapolate), as
 * SOFA's findCube / findNearestCube.
 *
 * apply, with R_e the element rotations of the force field (world to
 * element frame, updated by its last addForce):
 *   u_e = R_e x[e's vertices] - q0            (24 per hexahedron)
 *   q_f = mean over f's hexahedra e of R_e^T (q0_f + W_fe u_e)
 *   out = sum_k b_k q_(fine cell's corner k)
 * applyJ is the same without q0 and q0_f, with the rotations of the last
 * apply; applyJT its transpose. SOFA stores u_e in single precision; here
 * it stays double. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "nonuniform.h"

typedef struct fine_entry {
    unsigned hexa;       /* coarse hexahedron */
    const double *w;     /* its 3 x 24 rows (row stride 24) */
} fine_entry;

typedef struct hc_mapping {
    map_head h;
    /* Set at init. */
    composite_fem *ff;      /* borrowed */
    size_t n;               /* output points */
    size_t nfn;             /* fine nodes */
    double *q0;             /* input positions at init, 3 per input point */
    double *qf0;            /* fine node rest positions, 3 per fine node */
    size_t *fe_start;       /* nfn + 1 offsets into fe */
    fine_entry *fe;
    unsigned (*cell_nodes)[8]; /* per fine cell of the force field: its fine nodes */
    size_t *pcell;          /* per output point: fine cell (force field's index) */
    double (*bary)[8];      /* per output point: trilinear weights */
    double *ue, *qf;        /* scratch: 24 per hexahedron, 3 per fine node */
    double *rot;            /* rotations of the last apply, 9 per hexahedron */
} hc_mapping;

static const st_field hc_fields[] = {MAP_HEAD_FIELDS(hc_mapping), ST_FIELD_END};

static void hc_free(hc_mapping *m)
{
    st_free(m->q0), st_free(m->qf0), st_free(m->fe_start), st_free(m->fe);
    st_free(m->cell_nodes), st_free(m->pcell), st_free(m->bary), st_free(m->ue);
    st_free(m->qf), st_free(m->rot);
    m->q0 = m->qf0 = m->ue = m->qf = m->rot = NULL;
    m->fe_start = NULL, m->fe = NULL, m->cell_nodes = NULL, m->pcell = NULL, m->bary = NULL;
    m->n = m->nfn = 0;
}

static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

typedef struct node_key {
    size_t g;     /* fine grid point */
    unsigned hexa;
    size_t cell;  /* force field's fine cell */
    int k;        /* its corner */
} node_key;

static int key_cmp(const void *a, const void *b)
{
    const node_key *x = a, *y = b;
    if (x->g != y->g)
        return x->g < y->g ? -1 : 1;
    if (x->hexa != y->hexa)
        return x->hexa < y->hexa ? -1 : 1;
    return x->cell < y->cell ? -1 : x->cell > y->cell;
}

/* x_out from x_in (coordinates) with the current element rotations. */
static void hc_apply_points(hc_mapping *m, const double *x, double *out, bool rest_terms)
{
    const hexa_fem *s = &m->ff->n.h;
    for (size_t e = 0; e < s->ne; e++) {
        const hexa *he = &s->e[e];
        double *u = m->ue + 24 * e;
        for (int w = 0; w < 8; w++) {
            const double *p = x + 3 * (size_t)he->v[w];
            const double *R = m->rot + 9 * e;
            for (int c = 0; c < 3; c++) {
                u[3 * w + c] = R[3 * c] * p[0] + R[3 * c + 1] * p[1] + R[3 * c + 2] * p[2];
                if (rest_terms)
                    u[3 * w + c] -= m->q0[3 * (size_t)he->v[w] + (size_t)c];
            }
        }
    }
    for (size_t f = 0; f < m->nfn; f++) {
        double q[3] = {0, 0, 0};
        size_t b = m->fe_start[f], e = m->fe_start[f + 1];
        for (size_t k = b; k < e; k++) {
            const fine_entry *fn = &m->fe[k];
            const double *u = m->ue + 24 * fn->hexa, *R = m->rot + 9 * (size_t)fn->hexa;
            double t[3];
            for (int r = 0; r < 3; r++) {
                double acc = rest_terms ? m->qf0[3 * f + (size_t)r] : 0.0;
                for (int j = 0; j < 24; j++)
                    acc += fn->w[24 * r + j] * u[j];
                t[r] = acc;
            }
            for (int c = 0; c < 3; c++)
                q[c] += R[c] * t[0] + R[3 + c] * t[1] + R[6 + c] * t[2];
        }
        for (int c = 0; c < 3; c++)
            m->qf[3 * f + (size_t)c] = e > b ? q[c] / (double)(e - b) : 0.0;
    }
    for (size_t i = 0; i < m->n; i++) {
        const unsigned *nd = m->cell_nodes[m->pcell[i]];
        double o[3] = {0, 0, 0};
        for (int k = 0; k < 8; k++)
            for (int c = 0; c < 3; c++)
                o[c] += m->bary[i][k] * m->qf[3 * (size_t)nd[k] + (size_t)c];
        memcpy(out + 3 * i, o, sizeof o);
    }
}

static void take_rotations(hc_mapping *m)
{
    const hexa_fem *s = &m->ff->n.h;
    for (size_t e = 0; e < s->ne; e++)
        memcpy(m->rot + 9 * e, s->e[e].R, 9 * sizeof(double));
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    hc_mapping *m = (hc_mapping *)self;
    take_rotations(m);
    hc_apply_points(m, xin, xout, true);
}

static composite_fem *find_forcefield(st_node *node)
{
    for (st_node *n = node; n; n = st_node_parent(n)) {
        st_component *all[64];
        size_t k = st_node_find_all(n, ST_ROLE_FORCEFIELD, ST_SEARCH_LOCAL, all, 64);
        for (size_t i = 0; i < k && i < 64; i++)
            if (strcmp(all[i]->cls->name, "HexahedronCompositeFEMForceFieldAndMass") == 0)
                return (composite_fem *)all[i];
    }
    return NULL;
}

static st_status hc_locate(hc_mapping *m, const double *p0, st_error *err)
{
    const composite_fem *cf = m->ff;
    const size_t ncx = (size_t)(cf->fine_n[0] - 1), ncy = (size_t)(cf->fine_n[1] - 1),
                 ncz = (size_t)(cf->fine_n[2] - 1);
    const size_t ncell = ncx * ncy * ncz;
    if (ncell > ((size_t)1 << 27))
        return st_error_set(err, ST_EINVAL, "fine grid of %zu cells: too large", ncell);
    size_t *lookup = st_malloc(ncell * sizeof *lookup);
    if (!lookup)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t c = 0; c < ncell; c++)
        lookup[c] = SIZE_MAX;
    for (size_t k = cf->nfine; k-- > 0;)
        lookup[cf->fine_cell[k]] = k;
    for (size_t i = 0; i < m->n; i++) {
        const double *p = p0 + 3 * i;
        size_t found = SIZE_MAX;
        int ijk[3];
        bool inside = true;
        for (int a = 0; a < 3; a++) {
            ijk[a] = (int)floor((p[a] - cf->fine_min[a]) / cf->fine_d[a]);
            inside = inside && ijk[a] >= 0 && ijk[a] < cf->fine_n[a] - 1;
        }
        if (inside)
            found = lookup[(size_t)ijk[0] + ncx * ((size_t)ijk[1] + ncy * (size_t)ijk[2])];
        if (found == SIZE_MAX) {
            double best = INFINITY;
            for (size_t k = 0; k < cf->nfine; k++) {
                size_t c = cf->fine_cell[k];
                int cc[3] = {(int)(c % ncx), (int)(c / ncx % ncy), (int)(c / (ncx * ncy))};
                double d2 = 0;
                for (int a = 0; a < 3; a++) {
                    double ctr = cf->fine_min[a] + cf->fine_d[a] * (cc[a] + 0.5);
                    d2 += (p[a] - ctr) * (p[a] - ctr);
                }
                if (d2 < best)
                    best = d2, found = k;
            }
        }
        size_t c = cf->fine_cell[found];
        int cc[3] = {(int)(c % ncx), (int)(c / ncx % ncy), (int)(c / (ncx * ncy))};
        double t[3];
        for (int a = 0; a < 3; a++)
            t[a] = (p[a] - (cf->fine_min[a] + cf->fine_d[a] * cc[a])) / cf->fine_d[a];
        m->pcell[i] = found;
        for (int k = 0; k < 8; k++) {
            double b = 1.0;
            for (int a = 0; a < 3; a++)
                b *= corner[k][a] ? t[a] : 1.0 - t[a];
            m->bary[i][k] = b;
        }
    }
    st_free(lookup);
    return ST_OK;
}

static st_status hc_init(st_component *self, st_error *err)
{
    hc_mapping *m = (hc_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    hc_free(m);
    ST_TRY(map_head_bind(&m->h, &st_vec3d_type, &st_vec3d_type, err));
    m->ff = find_forcefield(m->h.input->node);
    if (!m->ff)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "HexahedronCompositeFEMMapping can only be used with a "
                                  "HexahedronCompositeFEMForceFieldAndMass (none in the input "
                                  "'%s''s node or above)",
                                  m->h.in->base.name);
    composite_fem *cf = m->ff;
    const hexa_fem *s = &cf->n.h;
    if (cf->n.h.base.state != ST_CSTATE_VALID || s->ms != m->h.in)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "the force field '%s' is not initialised on the input '%s'",
                                  cf->n.h.base.name, m->h.in->base.name);
    if (cf->nfine == 0)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "the force field '%s' has no fine level (it needs a sparse "
                                  "grid and nbVirtualFinerLevels > 0)",
                                  cf->n.h.base.name);
    if (cf->complete_interpolation)
        st_component_warn(self, "%s: completeInterpolation is not supported by settee: the "
                                "masked, normalised weights are used (as when it is false)",
                          cf->n.h.base.name);
    const st_mstate *in = m->h.in, *out = m->h.out;
    m->n = out->position.n;
    size_t nin = in->position.n;
    for (size_t e = 0; e < s->ne; e++)
        for (int w = 0; w < 8; w++)
            if (s->e[e].v[w] >= nin)
                return st_component_error(self, "input", err, ST_ESCENE,
                                          "hexahedron %zu names point %u; the input has %zu", e,
                                          s->e[e].v[w], nin);
    node_key *keys = st_malloc(8 * cf->nfine * sizeof *keys);
    m->q0 = st_malloc((3 * nin + 1) * sizeof *m->q0);
    m->cell_nodes = st_malloc(cf->nfine * sizeof *m->cell_nodes);
    m->pcell = st_malloc((m->n + 1) * sizeof *m->pcell);
    m->bary = st_malloc((m->n + 1) * sizeof *m->bary);
    m->ue = st_malloc(24 * (s->ne + 1) * sizeof *m->ue);
    m->rot = st_malloc(9 * (s->ne + 1) * sizeof *m->rot);
    if (!keys || !m->q0 || !m->cell_nodes || !m->pcell || !m->bary || !m->ue || !m->rot) {
        st_free(keys);
        hc_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (nin)
        memcpy(m->q0, in->position.r, 3 * nin * sizeof *m->q0);
    /* the fine nodes: distinct grid points of the fine cells' corners */
    const size_t nx = (size_t)cf->fine_n[0], ny = (size_t)cf->fine_n[1];
    const size_t ncx = nx - 1, ncy = ny - 1;
    for (size_t k = 0; k < cf->nfine; k++) {
        size_t c = cf->fine_cell[k];
        size_t cc[3] = {c % ncx, c / ncx % ncy, c / (ncx * ncy)};
        for (int w = 0; w < 8; w++) {
            node_key *key = &keys[8 * k + (size_t)w];
            key->g = (cc[0] + (size_t)corner[w][0]) +
                     nx * ((cc[1] + (size_t)corner[w][1]) + ny * (cc[2] + (size_t)corner[w][2]));
            key->hexa = cf->fine_hexa[k];
            key->cell = k;
            key->k = w;
        }
    }
    qsort(keys, 8 * cf->nfine, sizeof *keys, key_cmp);
    size_t nfn = 0, nent = 0;
    for (size_t i = 0; i < 8 * cf->nfine; i++) {
        bool new_node = i == 0 || keys[i].g != keys[i - 1].g;
        nfn += new_node;
        nent += new_node || keys[i].hexa != keys[i - 1].hexa;
    }
    m->nfn = nfn;
    m->fe_start = st_malloc((nfn + 1) * sizeof *m->fe_start);
    m->fe = st_malloc((nent + 1) * sizeof *m->fe);
    m->qf0 = st_malloc((3 * nfn + 1) * sizeof *m->qf0);
    m->qf = st_malloc((3 * nfn + 1) * sizeof *m->qf);
    if (!m->fe_start || !m->fe || !m->qf0 || !m->qf) {
        st_free(keys);
        hc_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu fine nodes)", nfn);
    }
    /* the input's translation from the grid */
    double tr[3] = {0, 0, 0};
    st_component *topo = cf->n.h.topology;
    if (nin && topo && topo->cls->topology && topo->cls->topology->nb_points(topo)) {
        double g0[3];
        topo->cls->topology->get_point(topo, 0, g0);
        for (int c = 0; c < 3; c++)
            tr[c] = in->position.r[c] - g0[c];
    }
    size_t f = SIZE_MAX, ne = 0;
    for (size_t i = 0; i < 8 * cf->nfine; i++) {
        const node_key *key = &keys[i];
        if (i == 0 || key->g != keys[i - 1].g) {
            f = f == SIZE_MAX ? 0 : f + 1;
            m->fe_start[f] = ne;
            size_t g = key->g;
            size_t p[3] = {g % nx, g / nx % ny, g / (nx * ny)};
            for (int c = 0; c < 3; c++)
                m->qf0[3 * f + (size_t)c] = cf->fine_min[c] + cf->fine_d[c] * (double)p[c] + tr[c];
            m->fe[ne].hexa = key->hexa;
            ne++;
        } else if (key->hexa != keys[i - 1].hexa) {
            m->fe[ne].hexa = key->hexa;
            ne++;
        }
        /* sorted by cell within a hexahedron: the last cell's rows stay */
        m->fe[ne - 1].w = &cf->fine_w[key->cell][3 * key->k][0];
        m->cell_nodes[key->cell][key->k] = (unsigned)f;
    }
    m->fe_start[nfn] = ne;
    st_free(keys);
    ST_TRY(hc_locate(m, out->position.r, err));
    if (m->h.visual) {
        if (m->n)
            init_apply(self, in->position.r, m->h.out->position.r);
        ST_TRY(map_head_visual_commit(&m->h, err));
        self->state = ST_CSTATE_VALID;
        return ST_OK;
    }
    ST_TRY(map_init_outputs(&m->h, init_apply, NULL, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const hc_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->ff->n.h.base.state == ST_CSTATE_VALID;
}

static void hc_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    hc_mapping *m = (hc_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    take_rotations(m);
    hc_apply_points(m, st_slice_x(x, m->h.in), xout, true);
    map_head_touch_visual(&m->h);
}

static void hc_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    hc_mapping *m = (hc_mapping *)self;
    if (ready(m) && !m->h.visual)
        hc_apply_points(m, st_slice(v, m->h.in), st_slice(v, m->h.out), false);
}

static void hc_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    hc_mapping *m = (hc_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    const hexa_fem *s = &m->ff->n.h;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    memset(m->qf, 0, 3 * m->nfn * sizeof *m->qf);
    for (size_t i = 0; i < m->n; i++) {
        const unsigned *nd = m->cell_nodes[m->pcell[i]];
        for (int k = 0; k < 8; k++)
            for (int c = 0; c < 3; c++)
                m->qf[3 * (size_t)nd[k] + (size_t)c] += m->bary[i][k] * fout[3 * i + (size_t)c];
    }
    for (size_t fn = 0; fn < m->nfn; fn++) {
        size_t b = m->fe_start[fn], e = m->fe_start[fn + 1];
        if (e == b)
            continue;
        const double *ff = m->qf + 3 * fn;
        for (size_t k = b; k < e; k++) {
            const fine_entry *en = &m->fe[k];
            const double *R = m->rot + 9 * (size_t)en->hexa;
            double rf[3];
            for (int r = 0; r < 3; r++)
                rf[r] = (R[3 * r] * ff[0] + R[3 * r + 1] * ff[1] + R[3 * r + 2] * ff[2]) /
                        (double)(e - b);
            double dfl[24];
            for (int j = 0; j < 24; j++)
                dfl[j] = en->w[j] * rf[0] + en->w[24 + j] * rf[1] + en->w[48 + j] * rf[2];
            const hexa *he = &s->e[en->hexa];
            for (int w = 0; w < 8; w++) {
                double *p = fin + 3 * (size_t)he->v[w];
                for (int c = 0; c < 3; c++)
                    p[c] += R[c] * dfl[3 * w] + R[3 + c] * dfl[3 * w + 1] +
                            R[6 + c] * dfl[3 * w + 2];
            }
        }
    }
}

/* J block by block: point i, input vertex of hexahedron e's corner w:
 * sum over the cell's corners k of b_k / n_f R_e^T W_fe[:, 3w..3w+2] R_e. */
static void hc_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    hc_mapping *m = (hc_mapping *)self;
    if (!ready(m) || m->h.visual)
        return;
    const hexa_fem *s = &m->ff->n.h;
    for (size_t i = 0; i < m->n; i++) {
        const unsigned *nd = m->cell_nodes[m->pcell[i]];
        for (int k = 0; k < 8; k++) {
            size_t fn = nd[k];
            size_t b = m->fe_start[fn], e = m->fe_start[fn + 1];
            for (size_t q = b; q < e; q++) {
                const fine_entry *en = &m->fe[q];
                const double *R = m->rot + 9 * (size_t)en->hexa;
                double sc = m->bary[i][k] / (double)(e - b);
                for (int w = 0; w < 8; w++) {
                    double A[9], B[9];
                    /* A = W_w R (3 x 3) */
                    for (int r = 0; r < 3; r++)
                        for (int c = 0; c < 3; c++) {
                            double acc = 0;
                            for (int l = 0; l < 3; l++)
                                acc += en->w[24 * r + 3 * w + l] * R[3 * l + c];
                            A[3 * r + c] = acc;
                        }
                    for (int r = 0; r < 3; r++)
                        for (int c = 0; c < 3; c++)
                            B[3 * r + c] = sc * (R[r] * A[c] + R[3 + r] * A[3 + c] +
                                                 R[6 + r] * A[6 + c]);
                    st_jbuilder_add(jb, i, m->h.in, s->e[en->hexa].v[w], B);
                }
            }
        }
    }
}

static void hc_cleanup(st_component *self)
{
    hc_free((hc_mapping *)self);
    map_head_release(&((hc_mapping *)self)->h);
}

static const st_mapping_ops hc_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = hc_apply,
    .apply_j = hc_apply_j,
    .apply_jt = hc_apply_jt,
    .get_j = hc_get_j,
    .flags = map_head_flags,
};

static const char *const vec3_only[] = {"Vec3d", NULL};

const st_class hexahedron_composite_fem_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "HexahedronCompositeFEMMapping",
    .category = "Mapping",
    .description = "Maps points embedded in a HexahedronCompositeFEMForceFieldAndMass's fine "
                   "level through its condensation weights (the inside of a coarse element "
                   "deforms as the fine material would)",
    .instance_size = sizeof(hc_mapping),
    .fields = hc_fields,
    .init = hc_init,
    .reinit = hc_init,
    .cleanup = hc_cleanup,
    .mapping = &hc_ops,
    .templates = vec3_only,
};
