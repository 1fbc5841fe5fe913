/* collision_pipeline.c - CollisionPipeline (alias DefaultPipeline): SOFA's
 * collision pipeline, run by the animation loop before the ODE solvers.
 *
 * At init (bind, after the mechanical systems are compiled) it finds, below
 * its node, the collision models (scene order), the intersection method,
 * the broad and narrow phases and the contact manager, and builds every
 * pair of models that may ever collide, as SOFA's broad phase decides per
 * step: both active, not both non-simulated, canCollideWith both ways
 * (same node: selfCollision; else no common group), and an intersection
 * test for their element kinds. Each pair gets an owner: the model whose
 * state a solver integrates (the other side may be static: no solver above
 * it); a pair whose two states live in the systems of two different ODE
 * solvers is refused (SOFA merges such systems with its collision group
 * manager; settee does not yet). Each step: boxes, broad phase on the
 * models' boxes, narrow phase on element boxes and the intersection tests,
 * then the penalty response refills each pair's contacts. Nothing is
 * allocated once the contact lists have reached their largest size. */
#include <stdio.h>
#include <string.h>

#include "collision.h"
#include "penalty.h"

extern const st_class min_proximity_intersection_class;
extern const st_class new_proximity_intersection_class;
extern const st_class local_min_distance_class;
extern const st_class discrete_intersection_class;
extern const st_class brute_force_broad_phase_class;
extern const st_class direct_sap_class;
extern const st_class incr_sap_class;
extern const st_class bvh_narrow_phase_class;
extern const st_class collision_response_class;

typedef struct pipeline {
    st_component base;
    bool verbose;     /* "verbose" */
    bool draw;        /* "draw" */
    int depth;        /* "depth" */
    /* Set at bind. */
    cintersect *method;
    st_component *broad, *narrow, *response;
    cmodel **models;
    size_t nmodels;
    cpair *pairs;
    size_t npairs;
    bool valid;
    unsigned long steps;
} pipeline;

static const st_field pipeline_fields[] = {
    ST_BOOL(pipeline, verbose, "verbose",
            "false", "Display extra information at each computation step. (default=false)"),
    ST_IGNORED(pipeline, draw, "draw", ST_T_BOOL, bool, "false",
               "Draw the detected collisions. (default=false) (no display)"),
    ST_IGNORED(pipeline, depth, "depth", ST_T_INT, int, "6",
               "Max depth of bounding trees. (default=6, min=?, max=?) (settee's narrow phase "
               "tests element boxes directly, with the same contacts)"),
    ST_FIELD_END};

/* ---- finding the components ---- */

typedef struct found {
    pipeline *p;
    cmodel **models;
    size_t n, cap;
    st_status rc;
    st_error *err;
} found;

static bool class_is(const st_component *c, const st_class *k) { return c->cls == k; }

static void visit(st_node *n, found *f)
{
    if (!st_node_activated(n) || f->rc != ST_OK)
        return;
    pipeline *p = f->p;
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (st_is_collision_model(c)) {
            if (f->n == f->cap) {
                size_t cap = f->cap ? 2 * f->cap : 8;
                cmodel **l = st_realloc(f->models, cap * sizeof *l);
                if (!l) {
                    f->rc = st_error_set(f->err, ST_ENOMEM, "out of memory listing collision models");
                    return;
                }
                f->models = l;
                f->cap = cap;
            }
            f->models[f->n++] = (cmodel *)c;
        } else if (!p->method && (class_is(c, &min_proximity_intersection_class) ||
                                  class_is(c, &new_proximity_intersection_class) ||
                                  class_is(c, &local_min_distance_class) ||
                                  class_is(c, &discrete_intersection_class))) {
            p->method = (cintersect *)c;
        } else if (!p->broad && (class_is(c, &brute_force_broad_phase_class) ||
                                 class_is(c, &direct_sap_class) || class_is(c, &incr_sap_class))) {
            p->broad = c;
        } else if (!p->narrow && class_is(c, &bvh_narrow_phase_class)) {
            p->narrow = c;
        } else if (!p->response && class_is(c, &collision_response_class)) {
            p->response = c;
        }
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        visit(st_node_child(n, i), f);
}

/* ---- which pairs may collide ---- */

static bool is_sphere(cm_kind k) { return k == CM_SPHERE || k == CM_RIGIDSPHERE; }

/* Whether the method tests kinds a <= b (SOFA's intersector table). */
static bool has_test(const cintersect *m, cm_kind a, cm_kind b)
{
    if (a == CM_CUBE || b == CM_CUBE)
        return false;
    if (!m->proximity) /* DiscreteIntersection */
        return is_sphere(a) && is_sphere(b);
    if (is_sphere(a) && is_sphere(b))
        return true;
    switch (a) {
    case CM_TRIANGLE:
        return b == CM_POINT || (is_sphere(b) && m->use_sphere_triangle);
    case CM_LINE:
        return (b == CM_LINE && m->use_line_line) || (b == CM_POINT && m->use_line_point) ||
               (is_sphere(b) && m->use_sphere_triangle);
    case CM_SPHERE:
    case CM_RIGIDSPHERE:
        return b == CM_POINT && m->use_sphere_triangle;
    case CM_POINT:
        return b == CM_POINT && m->use_point_point;
    default:
        return false;
    }
}

static st_status add_pair(pipeline *p, cmodel *a, cmodel *b, st_error *err)
{
    /* SOFA's order: the model of lower kind first; same kinds: the later
     * model in scene order first (the broad phase's new model, then the
     * one it is tested against). a comes later than b here. */
    cmodel *m0 = a, *m1 = b;
    if (b->kind < a->kind) {
        m0 = b;
        m1 = a;
    }
    st_system *s0 = m0->ms->system, *s1 = m1->ms->system;
    if (!s0 && !s1)
        return ST_OK; /* nothing integrates either side */
    if (s0 && s1 && s0 != s1) {
        char pa[256], pb[256];
        return st_component_error(&p->base, NULL, err, ST_ESCENE,
                                  "collision models %s and %s may collide, but their states are "
                                  "integrated by two different ODE solvers (%s, %s); SOFA merges "
                                  "such systems with its collision group manager, settee does not "
                                  "yet: put both objects under one ODE solver, or make one side "
                                  "static (no solver above it)",
                                  st_component_path(&m0->base, pa, sizeof pa),
                                  st_component_path(&m1->base, pb, sizeof pb),
                                  s0->solver->name, s1->solver->name);
    }
    cpair *q = &p->pairs[p->npairs];
    memset(q, 0, sizeof *q);
    q->m[0] = m0;
    q->m[1] = m1;
    q->method = p->method;
    q->sys = s0 ? s0 : s1;
    q->in_sys[0] = s0 == q->sys;
    q->in_sys[1] = s1 == q->sys;
    q->nid = m0->nelem > m1->nelem ? m0->nelem : m1->nelem;
    q->by_id = st_calloc(q->nid ? q->nid : 1, sizeof *q->by_id);
    if (!q->by_id)
        return st_error_set(err, ST_ENOMEM, "out of memory creating a contact pair");
    p->npairs++;
    /* The owner: the first side the system integrates. */
    cmodel *owner = q->in_sys[0] ? m0 : m1;
    cpair **l = st_realloc(owner->owned, (owner->nowned + 1) * sizeof *l);
    if (!l)
        return st_error_set(err, ST_ENOMEM, "out of memory creating a contact pair");
    owner->owned = l;
    owner->owned[owner->nowned++] = q;
    return ST_OK;
}

static void free_pairs(pipeline *p)
{
    for (size_t i = 0; i < p->npairs; i++) {
        st_free(p->pairs[i].c);
        st_free(p->pairs[i].det);
        st_free(p->pairs[i].by_id);
    }
    st_free(p->pairs);
    p->pairs = NULL;
    p->npairs = 0;
    st_free(p->models);
    p->models = NULL;
    p->nmodels = 0;
}

static st_status pipeline_bind(st_component *self, st_node *root, st_error *err)
{
    pipeline *p = (pipeline *)self;
    (void)root;
    found f = {p, NULL, 0, 0, ST_OK, err};
    visit(self->node, &f);
    p->models = f.models;
    p->nmodels = f.n;
    ST_TRY(f.rc);
    const char *missing = !p->nmodels   ? "At least one CollisionModel is"
                          : !p->method  ? "An Intersection detection component is"
                          : !p->response ? "A contact manager component is"
                          : !p->broad   ? "A BroadPhase component is"
                          : !p->narrow  ? "A NarrowPhase component is"
                                        : NULL;
    if (missing) {
        st_component_warn(self, "%s required to compute collision detection: no collision "
                                "detection",
                          missing);
        return ST_OK;
    }
    size_t n = p->nmodels;
    p->pairs = st_calloc(n * (n + 1) / 2 + 1, sizeof *p->pairs);
    if (!p->pairs)
        return st_error_set(err, ST_ENOMEM, "out of memory creating contact pairs");
    for (size_t i = 0; i < n; i++) {
        cmodel *a = p->models[i];
        if (!a->active)
            continue;
        if (a->self_collision && a->simulated && has_test(p->method, a->kind, a->kind))
            ST_TRY(add_pair(p, a, a, err));
        for (size_t j = 0; j < i; j++) {
            cmodel *b = p->models[j];
            if (!b->active || (!a->simulated && !b->simulated))
                continue;
            if (!cmodel_can_collide(a, b) || !cmodel_can_collide(b, a))
                continue;
            cm_kind ka = a->kind < b->kind ? a->kind : b->kind;
            cm_kind kb = a->kind < b->kind ? b->kind : a->kind;
            if (!has_test(p->method, ka, kb))
                continue;
            ST_TRY(add_pair(p, a, b, err));
        }
    }
    p->valid = true;
    return ST_OK;
}

/* ---- narrow phase ---- */

static bool boxes_meet(const double *a, const double *b, double tol)
{
    for (int k = 0; k < 3; k++)
        if (a[k] > b[k + 3] + tol || b[k] > a[k + 3] + tol)
            return false;
    return true;
}

static const double *vtx(const cmodel *m, unsigned i)
{
    return cmodel_x(m) + (size_t)m->ms->type->coord_size * i;
}

static unsigned width(cm_kind k) { return k == CM_LINE ? 2 : k == CM_TRIANGLE ? 3 : 1; }

/* The vertex indices of element e. */
static const unsigned *verts(const cmodel *m, size_t e, unsigned *tmp)
{
    if (m->kind == CM_LINE || m->kind == CM_TRIANGLE)
        return m->elems + width(m->kind) * e;
    *tmp = (unsigned)e;
    return tmp;
}

/* Elements of one state that share a vertex never collide (SOFA's
 * canCollideWithElement for self-collision). */
static bool share_vertex(const cpair *q, size_t i, size_t j)
{
    if (q->m[0]->ms != q->m[1]->ms)
        return false;
    unsigned t0, t1;
    const unsigned *a = verts(q->m[0], i, &t0), *b = verts(q->m[1], j, &t1);
    for (unsigned x = 0; x < width(q->m[0]->kind); x++)
        for (unsigned y = 0; y < width(q->m[1]->kind); y++)
            if (a[x] == b[y])
                return true;
    return false;
}

/* One element test; fills d and returns 1 on a detection. */
static int test_elements(const cpair *q, size_t i, size_t j, double alarm, double contact,
                         cdetect *d)
{
    const cmodel *m0 = q->m[0], *m1 = q->m[1];
    unsigned t0, t1;
    const unsigned *a = verts(m0, i, &t0), *b = verts(m1, j, &t1);
    bool big0 = m0->nelem > m1->nelem;
    int hit = 0;
    bool r0 = m0->kind == CM_RIGIDSPHERE, r1 = m1->kind == CM_RIGIDSPHERE;
    switch (m0->kind) {
    case CM_TRIANGLE:
        if (m1->kind == CM_POINT) {
            hit = st_coll_triangle_point(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]),
                                         vtx(m1, b[0]), alarm, contact, d);
            d->id = (unsigned)j;
        } else {
            hit = st_coll_triangle_sphere(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]),
                                          vtx(m1, b[0]), cmodel_radius(m1, j), r1, alarm,
                                          contact, d);
            d->id = (unsigned)j;
        }
        break;
    case CM_LINE:
        if (m1->kind == CM_LINE) {
            hit = st_coll_line_line(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m1, b[0]), vtx(m1, b[1]),
                                    alarm, contact, d);
            d->id = (unsigned)(big0 ? i : j);
        } else if (m1->kind == CM_POINT) {
            hit = st_coll_line_point(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m1, b[0]), alarm, contact,
                                     d);
            d->id = (unsigned)j;
        } else {
            hit = st_coll_line_sphere(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m1, b[0]),
                                      cmodel_radius(m1, j), r1, alarm, contact, d);
            d->id = (unsigned)j;
        }
        break;
    case CM_SPHERE:
    case CM_RIGIDSPHERE:
        if (m1->kind == CM_POINT) {
            hit = st_coll_sphere_point(vtx(m0, a[0]), cmodel_radius(m0, i), r0, vtx(m1, b[0]),
                                       alarm, contact, d);
            d->id = (unsigned)i;
        } else {
            hit = st_coll_sphere_sphere(vtx(m0, a[0]), cmodel_radius(m0, i), r0, vtx(m1, b[0]),
                                        cmodel_radius(m1, j), r1, alarm, contact, d);
            d->id = (unsigned)(big0 ? i : j);
        }
        break;
    case CM_POINT:
        hit = st_coll_point_point(vtx(m0, a[0]), vtx(m1, b[0]), alarm, contact, d);
        d->id = (unsigned)(big0 ? i : j);
        break;
    default:
        break;
    }
    d->e[0] = (unsigned)i;
    d->e[1] = (unsigned)j;
    return hit;
}

static st_status narrow_pair(pipeline *p, cpair *q, st_error *err)
{
    const cintersect *m = p->method;
    double cd = q->m[0]->contact_distance + q->m[1]->contact_distance;
    double alarm = (m->proximity ? m->alarm_distance : 0.0) + cd;
    double contact = (m->proximity ? m->contact_distance : 0.0) + cd;
    bool self = q->m[0] == q->m[1];
    q->ndet = 0;
    if (!boxes_meet(q->m[0]->mbox, q->m[1]->mbox, alarm))
        return ST_OK;
    /* A sweep along x: the second model's elements sorted by their box's
     * lower x; for element i only those whose lower x lies within
     * [lo(i) - tol - widest, hi(i) + tol] can meet it. */
    const cmodel *m1 = q->m[1];
    for (size_t i = 0; i < q->m[0]->nelem; i++) {
        const double *bi = q->m[0]->box + 6 * i;
        if (!boxes_meet(bi, m1->mbox, alarm))
            continue;
        double lo = bi[0] - alarm - m1->max_extent, hi = bi[3] + alarm;
        size_t a = 0, b = m1->nelem;
        while (a < b) { /* first sorted element with lower x >= lo */
            size_t mid = a + (b - a) / 2;
            if (m1->box[6 * (size_t)m1->order[mid]] < lo)
                a = mid + 1;
            else
                b = mid;
        }
        for (size_t k = a; k < m1->nelem && m1->box[6 * (size_t)m1->order[k]] <= hi; k++) {
            size_t j = m1->order[k];
            if ((self && j <= i) || !boxes_meet(bi, m1->box + 6 * j, alarm) ||
                share_vertex(q, i, j))
                continue;
            if (q->ndet == q->capdet) {
                size_t cap = q->capdet ? 2 * q->capdet : 16;
                cdetect *l = st_realloc(q->det, cap * sizeof *l);
                if (!l)
                    return st_error_set(err, ST_ENOMEM, "out of memory listing detections");
                q->det = l;
                q->capdet = cap;
            }
            if (test_elements(q, i, j, alarm, contact, &q->det[q->ndet]))
                q->ndet++;
        }
    }
    return ST_OK;
}

static st_status pipeline_compute(st_component *self, st_node *root, st_error *err)
{
    (void)root;
    pipeline *p = (pipeline *)self;
    if (!p->valid)
        return ST_OK;
    p->steps++;
    for (size_t i = 0; i < p->nmodels; i++) {
        cmodel *m = p->models[i];
        m->number_of_contacts = 0;
        if (m->active)
            cmodel_update_boxes(m);
    }
    double d0 = p->method->proximity ? p->method->contact_distance : 0.0;
    for (size_t k = 0; k < p->npairs; k++) {
        cpair *q = &p->pairs[k];
        ST_TRY(narrow_pair(p, q, err));
        ST_TRY(penalty_fill(q, d0 + q->m[0]->contact_distance + q->m[1]->contact_distance, err));
        if (q->n) {
            q->m[0]->number_of_contacts++;
            if (q->m[1] != q->m[0])
                q->m[1]->number_of_contacts++;
        }
        char a[128], b[128];
        st_component_info(self, "step %lu: %s - %s: %zu contacts", p->steps,
                          st_component_path(&q->m[0]->base, a, sizeof a),
                          st_component_path(&q->m[1]->base, b, sizeof b), q->n);
    }
    return ST_OK;
}

static void pipeline_reset(st_component *self)
{
    pipeline *p = (pipeline *)self;
    p->steps = 0;
    for (size_t k = 0; k < p->npairs; k++)
        p->pairs[k].n = 0;
}

static void pipeline_cleanup(st_component *self) { free_pairs((pipeline *)self); }

static const st_collision_ops pipeline_ops = {
    .struct_size = sizeof(st_collision_ops),
    .bind = pipeline_bind,
    .compute = pipeline_compute,
};

static const char *const pipeline_aliases[] = {"DefaultPipeline", NULL};

const st_class collision_pipeline_class = {
    .struct_size = sizeof(st_class),
    .name = "CollisionPipeline",
    .category = "CollisionAlgorithm",
    .description = "The default collision detection and modeling pipeline: bounding boxes, "
                   "broad phase, narrow phase, then contact response, before the ODE solvers",
    .aliases = pipeline_aliases,
    .instance_size = sizeof(pipeline),
    .fields = pipeline_fields,
    .reset = pipeline_reset,
    .cleanup = pipeline_cleanup,
    .collision = &pipeline_ops,
};
