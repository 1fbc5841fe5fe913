/* raytrace.c - RayTraceNarrowPhase and TriangleOctreeCollisionModel:
 * SOFA's ray-traced volume contacts between closed triangle meshes.
 *
 * For a pair of octree models A and B, in both directions, each vertex of
 * A (once, by the triangle owning it) inside B's box casts a ray from
 * itself along minus its vertex normal. The first triangle of B hit (SOFA's
 * Moller-Trumbore test: t >= machine epsilon) must face away from the
 * vertex's triangle (normals' dot <= 0), and the ray must leave A itself
 * (a triangle of A hit, facing away too) no closer than it met B: the
 * vertex is then inside B. The detection is the vertex and the hit point Q,
 * the vertex normal as normal, -t as value and id 3 x triangle + the
 * vertex's rank among the triangle's owned vertices. The response (the
 * contact manager's) works on those detections as on any other.
 *
 * SOFA's model state, reproduced: each step, the vertex normals sum the
 * triangle normals of the previous step over the triangles from index 1
 * (triangle 0 is left out, and keeps a zero normal), then the triangle
 * normals are updated; the model box starts at vertex 0 and covers the
 * triangles from index 1. A model that does not move computes all this at
 * its first step only, when the triangle normals are still zero: its
 * vertex normals stay zero and it casts no ray. The first step of a moving
 * model casts none either. settee takes the nearest triangle hit over the
 * whole of B; SOFA's octree returns the nearest of the first octree cell
 * along the ray holding a hit, the same triangle unless two hits lie in
 * different cells out of order. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "collision.h"
#include "detection_phases.h"
#include "../shared/ray_triangle.h"

/* SOFA's per-step update of an octree model (computeBoundingTree). */
static st_status oct_update(cmodel *m, unsigned long step, st_error *err)
{
    if (m->oct_step == step)
        return ST_OK;
    bool first = m->oct_step == 0 || !m->oct_tnorm;
    m->oct_step = step;
    if (!first && !m->moving)
        return ST_OK;
    size_t nv = m->ms->n, nt = m->nelem;
    if (!m->oct_tnorm) {
        m->oct_tnorm = st_calloc(nt ? 3 * nt : 1, sizeof *m->oct_tnorm);
        m->oct_vnorm = st_calloc(nv ? 3 * nv : 1, sizeof *m->oct_vnorm);
        if (!m->oct_tnorm || !m->oct_vnorm)
            return st_error_set(err, ST_ENOMEM, "out of memory for octree normals");
    }
    const double *x = cmodel_x(m);
    double *vn = m->oct_vnorm, *tn = m->oct_tnorm;
    memset(vn, 0, 3 * nv * sizeof *vn);
    for (int k = 0; k < 3; k++)
        m->oct_box[k] = m->oct_box[3 + k] = nv ? x[k] : 0;
    for (size_t i = 1; i < nt; i++) {
        const unsigned *t = m->elems + 3 * i;
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                vn[3 * t[j] + k] += tn[3 * i + k];
        const double *p0 = x + 3 * t[0], *p1 = x + 3 * t[1], *p2 = x + 3 * t[2];
        double e1[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        double e2[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        double n[3];
        st_v3_cross(n, e1, e2);
        double l = sqrt(st_v3_dot(n, n));
        for (int k = 0; k < 3; k++)
            tn[3 * i + k] = l > 0 ? n[k] / l : n[k];
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++) {
                double c = x[3 * t[j] + k];
                m->oct_box[k] = c < m->oct_box[k] ? c : m->oct_box[k];
                m->oct_box[3 + k] = c > m->oct_box[3 + k] ? c : m->oct_box[3 + k];
            }
    }
    for (size_t v = 0; v < nv; v++) {
        double l = sqrt(st_v3_dot(vn + 3 * v, vn + 3 * v));
        if (l > 0)
            for (int k = 0; k < 3; k++)
                vn[3 * v + k] /= l;
    }
    return ST_OK;
}

/* The nearest triangle of m hit by the ray (o, d), or -1. */
static long trace(const cmodel *m, const double o[3], const double d[3], double *t, double *u,
                  double *v)
{
    const double *x = cmodel_x(m);
    long best = -1;
    double bt = 1e300;
    for (size_t i = 0; i < m->nelem; i++) {
        const unsigned *tr = m->elems + 3 * i;
        double ti, ui, vi;
        if (ray_triangle(x + 3 * tr[0], x + 3 * tr[1], x + 3 * tr[2], o, d, &ti, &ui, &vi) &&
            ti < bt) {
            bt = ti;
            best = (long)i;
            *u = ui;
            *v = vi;
        }
    }
    *t = bt;
    return best;
}

/* The detections of A's vertices inside B, appended to q->det; swap: A is
 * q->m[1] (the detections are written with the sides exchanged). */
static st_status find_pairs(cpair *q, const cmodel *a, const cmodel *b, bool swap, st_error *err)
{
    const double *xa = cmodel_x(a), *xb = cmodel_x(b), *box = b->oct_box;
    size_t id0 = swap ? 3 * q->m[0]->nelem : 0;
    for (size_t j = 0; j < a->nelem; j++) {
        const unsigned *tr = a->elems + 3 * j;
        unsigned char fl = a->tflags ? a->tflags[j] : 0;
        unsigned pts[3];
        int np = 0;
        for (int k = 0; k < 3; k++)
            if (fl & (TF_P1 << k))
                pts[np++] = tr[k];
        for (int t = 0; t < np; t++) {
            const double *pt = xa + 3 * pts[t];
            bool out = false;
            for (int k = 0; k < 3; k++)
                out |= pt[k] < box[k] || pt[k] > box[3 + k];
            if (out)
                continue;
            const double *vn = a->oct_vnorm + 3 * pts[t];
            double dir[3] = {-vn[0], -vn[1], -vn[2]}, t1, u1, v1, t2, u2, v2;
            long hit = trace(b, pt, dir, &t1, &u1, &v1);
            if (hit < 0 || st_v3_dot(a->oct_tnorm + 3 * j, b->oct_tnorm + 3 * hit) > 0)
                continue;
            long self = trace(a, pt, dir, &t2, &u2, &v2);
            if (self < 0 || t2 < t1 || st_v3_dot(a->oct_tnorm + 3 * j, a->oct_tnorm + 3 * self) > 0)
                continue;
            ST_TRY(cgrow((void **)&q->det, &q->capdet, q->ndet + 1, sizeof *q->det, err));
            cdetect *d = &q->det[q->ndet++];
            memset(d, 0, sizeof *d);
            const unsigned *h = b->elems + 3 * hit;
            double Q[3], wq[3] = {1 - u1 - v1, u1, v1};
            for (int k = 0; k < 3; k++)
                Q[k] = xb[3 * h[0] + k] * wq[0] + xb[3 * h[1] + k] * wq[1] +
                       xb[3 * h[2] + k] * wq[2];
            int sa = swap ? 1 : 0, sb = 1 - sa;
            memcpy(d->p[sa], pt, sizeof d->p[sa]);
            memcpy(d->p[sb], Q, sizeof d->p[sb]);
            for (int k = 0; k < 3; k++) {
                d->normal[k] = swap ? -vn[k] : vn[k];
                d->w[sa][k] = tr[k] == pts[t] ? 1.0 : 0.0;
                d->w[sb][k] = wq[k];
            }
            d->e[sa] = (unsigned)j;
            d->e[sb] = (unsigned)hit;
            d->value = -t1;
            d->id = (unsigned)(id0 + 3 * j + (size_t)t);
        }
    }
    return ST_OK;
}

st_status raytrace_pair(cpair *q, unsigned long step, st_error *err)
{
    q->ndet = 0;
    ST_TRY(oct_update(q->m[0], step, err));
    ST_TRY(oct_update(q->m[1], step, err));
    if (!q->m[0]->nelem || !q->m[1]->nelem)
        return ST_OK;
    ST_TRY(find_pairs(q, q->m[0], q->m[1], false, err));
    return find_pairs(q, q->m[1], q->m[0], true, err);
}

/* ---- the classes ---- */

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_IGNORED(cmodel, both_side, "bothSide", ST_T_BOOL, bool, "false",
               "activate collision on both side of the triangle model (not used by ray tracing)"),
    ST_IGNORED(cmodel, compute_normals, "computeNormals", ST_T_BOOL, bool, "true",
               "set to false to disable computation of triangles normal (the octree model "
               "computes its own)"),
    ST_IGNORED(cmodel, use_curvature, "useCurvature", ST_T_BOOL, bool, "false",
               "use the curvature of the mesh to avoid some self-intersection test (not used)"),
    ST_LINK(cmodel, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the topology of the node or above)"),
    ST_IGNORED(cmodel, draw_octree, "drawOctree", ST_T_BOOL, bool, "false",
               "draw the octree structure (no display)"),
    ST_FIELD_END};

static st_status octree_init(st_component *self, st_error *err)
{
    cmodel *m = (cmodel *)self;
    m->octree = true;
    return cmodel_init(m, CM_TRIANGLE, err);
}

/* The normals of the last update (the triangle normals are one step
 * behind), the box and the step of that update. */
static st_status octree_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    cmodel *m = (cmodel *)self;
    ST_TRY(st_checkpoint_data(ck, &m->oct_step, sizeof m->oct_step, err));
    ST_TRY(st_checkpoint_data(ck, m->oct_box, sizeof m->oct_box, err));
    bool have = m->oct_tnorm != NULL;
    ST_TRY(st_checkpoint_data(ck, &have, sizeof have, err));
    size_t nv = m->ms ? m->ms->n : 0, nt = m->nelem;
    if (have && !m->oct_tnorm) {
        m->oct_tnorm = st_calloc(nt ? 3 * nt : 1, sizeof *m->oct_tnorm);
        m->oct_vnorm = st_calloc(nv ? 3 * nv : 1, sizeof *m->oct_vnorm);
        if (!m->oct_tnorm || !m->oct_vnorm)
            return st_error_set(err, ST_ENOMEM, "out of memory for octree normals");
    }
    if (!have)
        return ST_OK;
    ST_TRY(st_checkpoint_data(ck, m->oct_tnorm, 3 * nt * sizeof *m->oct_tnorm, err));
    return st_checkpoint_data(ck, m->oct_vnorm, 3 * nv * sizeof *m->oct_vnorm, err);
}

static const st_checkpoint_ops octree_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = octree_checkpoint,
};

static const char *const aliases[] = {"TriangleOctreeModel", NULL};

const st_class triangle_octree_collision_model_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangleOctreeCollisionModel",
    .category = "CollisionModel",
    .description = "Collision model using a triangular mesh mapped to an Octree (a triangle "
                   "model; RayTraceNarrowPhase casts rays against it)",
    .aliases = aliases,
    .instance_size = sizeof(cmodel),
    .fields = fields,
    .init = octree_init,
    .cleanup = cmodel_cleanup,
    .forcefield = &cmodel_forcefield_ops,
    .checkpoint = &octree_checkpoint_ops,
};

static const st_field phase_fields[] = {ST_FIELD_END};

const st_class raytrace_narrow_phase_class = {
    .struct_size = sizeof(st_class),
    .name = "RayTraceNarrowPhase",
    .category = "CollisionAlgorithm",
    .description = "Narrow phase by ray tracing between TriangleOctreeCollisionModels: the "
                   "vertices of each inside the other",
    .instance_size = sizeof(cphase),
    .fields = phase_fields,
};

/* SOFA's RayTraceDetection has no data of its own: created, it adds a
 * BruteForceBroadPhase and a RayTraceNarrowPhase to its node. Here it is
 * both phases at its place in the node: every pair of models whose boxes
 * meet, then RayTraceNarrowPhase's rays (the same contacts). */
const st_class raytrace_detection_class = {
    .struct_size = sizeof(st_class),
    .name = "RayTraceDetection",
    .category = "CollisionAlgorithm",
    .description = "Collision detection by ray tracing (SOFA: a BruteForceBroadPhase and a "
                   "RayTraceNarrowPhase; settee: both in one, the same contacts)",
    .instance_size = sizeof(cphase),
    .fields = phase_fields,
};
