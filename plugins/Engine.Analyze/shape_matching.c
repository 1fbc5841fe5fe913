/* shape_matching.c - ShapeMatching (Mueller et al. 2005): target positions
 * from clusters of points. For each cluster, with weights w (1 for the
 * state's points, fixedweight for fixed points, numbered after them), rest
 * centre c0 and current centre c, T = sum w (p - c)(p0 - c0)^T is replaced
 * by its rotation R (SOFA's polar decomposition, Higham's scaled Newton
 * iteration) blended with the affine T Q^-1, Q = sum w (p0 - c0)(p0 -
 * c0)^T, by affineRatio; each state point's target is the mean over its
 * clusters of c + T (p0 - c0), a point in no cluster keeps its position.
 * `iterations` repeats this from the targets. Rest positions are the
 * state's. The clusters come as ClusteringEngine writes them: each its size
 * then its indices. Rigid3d, as SOFA's, computes nothing (SOFA's
 * specialisation is an empty placeholder): targetPosition stays empty. */
#include <math.h>
#include <string.h>

#include "../shared/engine_util.h"

typedef struct shape_matching {
    st_component base;
    unsigned iterations;
    double affine_ratio, fixed_weight;
    st_array fixed_position0, fixed_position, position; /* coord[] */
    st_array cluster;                                   /* size-prefixed clusters */
    st_array target_position;                           /* output coord[] */
    st_component *mstate;
} shape_matching;

static const st_field shape_matching_fields[] = {
    ST_UINT(shape_matching, iterations, "iterations", "1", "Number of iterations."),
    ST_REAL(shape_matching, affine_ratio, "affineRatio", "0", "Blending between affine and rigid."),
    ST_REAL(shape_matching, fixed_weight, "fixedweight", "1", "weight of fixed particles."),
    ST_COORDS(shape_matching, fixed_position0, "fixedPosition0", NULL,
              "rest positions of non mechanical particles."),
    ST_COORDS(shape_matching, fixed_position, "fixedPosition", NULL,
              "current (fixed) positions of non mechanical particles."),
    ST_COORDS(shape_matching, position, "position", NULL, "Input positions."),
    ST_UINTS(shape_matching, cluster, "cluster", NULL,
             "Input clusters (settee: each cluster as its size, then its point indices, as "
             "ClusteringEngine writes them)"),
    ST_OUTPUT(shape_matching, target_position, "targetPosition", ST_T_COORDS, st_array,
              "Computed target positions."),
    ST_LINK(shape_matching, mstate, "mstate", ST_LINK_STATE,
            "MechanicalState used by this component (default: the node's, else the nearest "
            "ancestor's)"),
    ST_FIELD_END};

static double one_norm(const double m[9])
{
    double best = 0;
    for (int j = 0; j < 3; j++) {
        double s = fabs(m[j]) + fabs(m[3 + j]) + fabs(m[6 + j]);
        best = s > best ? s : best;
    }
    return best;
}

static double inf_norm(const double m[9])
{
    double best = 0;
    for (int i = 0; i < 3; i++) {
        double s = fabs(m[3 * i]) + fabs(m[3 * i + 1]) + fabs(m[3 * i + 2]);
        best = s > best ? s : best;
    }
    return best;
}

static void cross(double out[3], const double a[3], const double b[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* The rotation of m's polar decomposition (SOFA's Decompose: Higham's
 * iteration on M^T until the change is below 1e-6 of the norm). A singular
 * m stops the iteration where it is. */
static void polar_rotation(const double m[9], double q[9])
{
    double mk[9], ek[9], adj[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            mk[3 * i + j] = m[3 * j + i];
    double m1 = one_norm(mk), minf = inf_norm(mk), e1;
    int guard = 0;
    do {
        cross(adj, mk + 3, mk + 6);
        cross(adj + 3, mk + 6, mk);
        cross(adj + 6, mk, mk + 3);
        double det = mk[0] * adj[0] + mk[1] * adj[1] + mk[2] * adj[2];
        if (det == 0.0)
            break;
        double a1 = one_norm(adj), ainf = inf_norm(adj);
        double gamma = sqrt(sqrt((a1 * ainf) / (m1 * minf)) / fabs(det));
        double g1 = gamma * 0.5, g2 = 0.5 / (gamma * det);
        for (int k = 0; k < 9; k++) {
            ek[k] = mk[k];
            mk[k] = mk[k] * g1 + adj[k] * g2;
            ek[k] -= mk[k];
        }
        e1 = one_norm(ek);
        m1 = one_norm(mk);
        minf = inf_norm(mk);
    } while (e1 > m1 * 1e-6 && ++guard < 100);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            q[3 * i + j] = mk[3 * j + i];
}

/* Walks the size-prefixed clusters: checks them, counts them. */
static st_status check_clusters(shape_matching *e, size_t nbp, size_t nbf, size_t *nclusters,
                                st_error *err)
{
    const st_array *c = &e->cluster;
    size_t k = 0, at = 0;
    while (at < c->n) {
        size_t m = c->u[at++];
        if (m > c->n - at)
            return st_component_error(&e->base, "cluster", err, ST_EINVAL,
                                      "cluster %zu says it has %zu points, only %zu values follow",
                                      k, m, c->n - at);
        for (size_t j = 0; j < m; j++)
            if (c->u[at + j] >= nbp + nbf)
                return st_component_error(&e->base, "cluster", err, ST_EINVAL,
                                          "cluster %zu: point %u beyond the %zu points (%zu of "
                                          "the state, %zu fixed)",
                                          k, c->u[at + j], nbp + nbf, nbp, nbf);
        if (m == 0)
            return st_component_error(&e->base, "cluster", err, ST_EINVAL,
                                      "cluster %zu is empty", k);
        at += m;
        k++;
    }
    *nclusters = k;
    return ST_OK;
}

static st_status shape_matching_update(st_component *self, st_error *err)
{
    shape_matching *e = (shape_matching *)self;
    st_mstate *ms = st_component_mstate(self);
    if (!ms || eng_coord_size(self) != 3)
        return ST_OK;
    const st_array *x0 = &ms->rest_position, *x = &e->position;
    size_t nbp = x0->n, nbf = e->fixed_position0.n, nbc = 0;
    ST_TRY(check_clusters(e, nbp, nbf, &nbc, err));
    if (!nbc || !nbp || !x->n)
        return ST_OK;
    if (x->n < nbp)
        return st_component_error(self, "position", err, ST_EINVAL,
                                  "%zu positions for the %zu points of the state", x->n, nbp);
    if (e->fixed_position.n < nbf)
        return st_component_error(self, "fixedPosition", err, ST_EINVAL,
                                  "%zu fixed positions for %zu fixed rest positions",
                                  e->fixed_position.n, nbf);
    double *work = st_calloc(nbc * 25 + nbp + 1, sizeof(double));
    if (!work)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    double *c0 = work, *qinv = c0 + 3 * nbc, *cm = qinv + 9 * nbc, *tt = cm + 3 * nbc,
           *wsum = tt + 9 * nbc, *count = wsum + nbc;
    const double fw = e->fixed_weight;
    /* rest centres and Q^-1 */
    const unsigned *cl = e->cluster.u;
    for (size_t i = 0, at = 0; i < nbc; i++) {
        size_t m = cl[at++];
        double q[9] = {0};
        for (size_t j = 0; j < m; j++, at++) {
            unsigned id = cl[at];
            const double *p0 = id < nbp ? x0->r + 3 * (size_t)id
                                        : e->fixed_position0.r + 3 * (size_t)(id - nbp);
            double w = id < nbp ? 1.0 : fw;
            for (int a = 0; a < 3; a++) {
                c0[3 * i + a] += p0[a] * w;
                for (int b = 0; b < 3; b++)
                    q[3 * a + b] += p0[a] * p0[b] * w;
            }
            wsum[i] += w;
            if (id < nbp)
                count[id] += 1;
        }
        for (int a = 0; a < 3; a++)
            c0[3 * i + a] /= wsum[i];
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 3; b++)
                q[3 * a + b] -= c0[3 * i + a] * c0[3 * i + b] * wsum[i];
        if (st_m3_inverse(qinv + 9 * i, q) == 0.0)
            memset(qinv + 9 * i, 0, 9 * sizeof(double));
    }
    st_status st = st_array_resize_width(&e->target_position, 3, nbp, err);
    if (st != ST_OK) {
        st_free(work);
        return st;
    }
    double *t = e->target_position.r;
    memcpy(t, x->r, 3 * nbp * sizeof(double));
    const double ar = e->affine_ratio;
    for (unsigned iter = 0; iter < e->iterations; iter++) {
        for (size_t i = 0, at = 0; i < nbc; i++) {
            size_t m = cl[at++];
            double *c = cm + 3 * i, *T = tt + 9 * i;
            memset(c, 0, 3 * sizeof(double));
            memset(T, 0, 9 * sizeof(double));
            for (size_t j = 0; j < m; j++, at++) {
                unsigned id = cl[at];
                const double *p0 = id < nbp ? x0->r + 3 * (size_t)id
                                            : e->fixed_position0.r + 3 * (size_t)(id - nbp);
                const double *p = id < nbp ? t + 3 * (size_t)id
                                           : e->fixed_position.r + 3 * (size_t)(id - nbp);
                double w = id < nbp ? 1.0 : fw;
                for (int a = 0; a < 3; a++) {
                    c[a] += p[a] * w;
                    for (int b = 0; b < 3; b++)
                        T[3 * a + b] += p[a] * p0[b] * w;
                }
            }
            for (int a = 0; a < 3; a++)
                for (int b = 0; b < 3; b++)
                    T[3 * a + b] -= c[a] * c0[3 * i + b];
            for (int a = 0; a < 3; a++)
                c[a] /= wsum[i];
            double R[9] = {0};
            if (ar != 1.0)
                polar_rotation(T, R);
            if (ar != 0.0) {
                double A[9];
                st_m3_mul(A, T, qinv + 9 * i);
                for (int k = 0; k < 9; k++)
                    T[k] = A[k] * ar + R[k] * (1.0 - ar);
            } else {
                memcpy(T, R, sizeof R);
            }
        }
        memset(t, 0, 3 * nbp * sizeof(double));
        for (size_t i = 0, at = 0; i < nbc; i++) {
            size_t m = cl[at++];
            const double *c = cm + 3 * i, *T = tt + 9 * i;
            for (size_t j = 0; j < m; j++, at++) {
                unsigned id = cl[at];
                if (id >= nbp)
                    continue;
                const double *p0 = x0->r + 3 * (size_t)id;
                double d[3] = {p0[0] - c0[3 * i], p0[1] - c0[3 * i + 1], p0[2] - c0[3 * i + 2]};
                for (int a = 0; a < 3; a++)
                    t[3 * id + a] += c[a] + T[3 * a] * d[0] + T[3 * a + 1] * d[1] +
                                     T[3 * a + 2] * d[2];
            }
        }
        for (size_t i = 0; i < nbp; i++)
            for (int a = 0; a < 3; a++)
                t[3 * i + a] = count[i] ? t[3 * i + a] / count[i] : x->r[3 * i + a];
    }
    st_free(work);
    return ST_OK;
}

static const st_engine_ops shape_matching_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = shape_matching_update,
};

static const char *const shape_matching_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class shape_matching_class = {
    .struct_size = sizeof(st_class),
    .name = "ShapeMatching",
    .category = "Engine",
    .description = "Compute target positions using shape matching deformation method by Mueller "
                   "et al.",
    .instance_size = sizeof(shape_matching),
    .fields = shape_matching_fields,
    .engine = &shape_matching_engine,
    .templates = shape_matching_templates,
};
