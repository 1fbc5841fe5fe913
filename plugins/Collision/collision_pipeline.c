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
extern const st_class discrete_intersection_class;
extern const st_class new_proximity_intersection_class;
extern const st_class local_min_distance_class;
extern const st_class brute_force_broad_phase_class;
extern const st_class direct_sap_class;
extern const st_class incr_sap_class;
extern const st_class bvh_narrow_phase_class;
extern const st_class collision_response_class;
extern const st_class collision_group_manager_class;

typedef struct pipeline {
    st_component base;
    bool verbose;     /* "verbose" */
    bool draw;        /* "draw" */
    int depth;        /* "depth" */
    /* Set at bind. */
    cintersect *method;
    st_component *broad, *narrow, *response, *groups;
    cmodel **models;
    size_t nmodels;
    cpair *pairs;
    size_t npairs;
    bool valid;
    unsigned long steps;
    /* Outputs (settee's, not SOFA's): this step's contacts, pair after pair. */
    st_array out_points;   /* "contactPoints", 2 per contact */
    st_array out_normals;  /* "contactNormals" */
    st_array out_dist;     /* "contactDistances": u.n - dist at detection (negative: in) */
    st_array out_counts;   /* "contactCounts", 1 per pair */
    st_array out_pairs;    /* "contactPairs", 2 model paths per pair */
} pipeline;

static const st_field pipeline_fields[] = {
    ST_IGNORED(pipeline, verbose, "verbose", ST_T_BOOL, bool, "false",
               "Display extra information at each computation step. (default=false) (settee "
               "always logs each pair's contacts at each step as information, which settee run "
               "-v shows)"),
    ST_IGNORED(pipeline, draw, "draw", ST_T_BOOL, bool, "false",
               "Draw the detected collisions. (default=false) (no display)"),
    ST_IGNORED(pipeline, depth, "depth", ST_T_INT, int, "6",
               "Max depth of bounding trees. (default=6, min=?, max=?) (settee's narrow phase "
               "tests element boxes directly, with the same contacts)"),
    ST_OUTPUT(pipeline, out_points, "contactPoints", ST_T_VEC3S, st_array,
              "settee: this step's contact points, two per contact (on the first model, then on "
              "the second), pair after pair in the order of contactCounts"),
    ST_OUTPUT(pipeline, out_normals, "contactNormals", ST_T_VEC3S, st_array,
              "settee: this step's contact normals (unit, from the first model to the second), "
              "one per contact"),
    ST_OUTPUT(pipeline, out_dist, "contactDistances", ST_T_REALS, st_array,
              "settee: each contact's distance at detection minus its rest distance (negative "
              "when the penalty force acts), one per contact"),
    ST_OUTPUT(pipeline, out_counts, "contactCounts", ST_T_UINTS, st_array,
              "settee: the number of contacts of each pair of collision models that may collide "
              "(the pairs of settee run -v, in that order)"),
    ST_OUTPUT(pipeline, out_pairs, "contactPairs", ST_T_STRINGS, st_array,
              "settee: the paths of the two collision models of each pair, in the order of "
              "contactCounts (the first model, then the second)"),
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
                                  class_is(c, &discrete_intersection_class) ||
                                  class_is(c, &new_proximity_intersection_class) ||
                                  class_is(c, &local_min_distance_class))) {
            p->method = (cintersect *)c;
        } else if (!p->broad && (class_is(c, &brute_force_broad_phase_class) ||
                                 class_is(c, &direct_sap_class) || class_is(c, &incr_sap_class))) {
            p->broad = c;
        } else if (!p->narrow && class_is(c, &bvh_narrow_phase_class)) {
            p->narrow = c;
        } else if (!p->response && st_is_contact_manager(c)) {
            p->response = c;
        } else if (!p->groups && class_is(c, &collision_group_manager_class)) {
            p->groups = c;
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
    if (a == CM_CUBE || b == CM_CUBE || a == CM_CYLINDER || b == CM_CYLINDER)
        return false; /* SOFA's methods register no cylinder test */
    if (a == CM_TETRA || b == CM_TETRA) /* every method, through DiscreteIntersection */
        return a == CM_TETRA && b == CM_POINT;
    if (m->method == CI_DISCRETE)
        return is_sphere(a) && is_sphere(b);
    if (m->method == CI_NEW) /* MeshNewProximityIntersection's table */
        return b == CM_POINT || is_sphere(b) || (a == CM_LINE && b == CM_LINE) ||
               (a == CM_TRIANGLE && b <= CM_LINE);
    if (m->method == CI_LMD) /* Vec3d spheres only */
        return a != CM_RIGIDSPHERE && b != CM_RIGIDSPHERE &&
               (b == CM_POINT || b == CM_SPHERE || (a == CM_LINE && b == CM_LINE));
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
        char pa[256], pb[256], sa[256], sb[256];
        return st_component_error(&p->base, NULL, err, ST_ESCENE,
                                  "collision models %s and %s may collide, but their states are "
                                  "integrated by two different ODE solvers (%s, %s): add a "
                                  "DefaultCollisionGroupManager (SOFA's collision groups) to the "
                                  "root node, put both objects under one ODE solver, or make one "
                                  "side static (no solver above it)",
                                  st_component_path(&m0->base, pa, sizeof pa),
                                  st_component_path(&m1->base, pb, sizeof pb),
                                  st_component_path(s0->solver, sa, sizeof sa),
                                  st_component_path(s1->solver, sb, sizeof sb));
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
    q->nbuckets = 16;
    while (q->nbuckets < 2 * m1->nelem)
        q->nbuckets *= 2;
    q->bstart = st_malloc((q->nbuckets + 1) * sizeof *q->bstart);
    q->bitems = st_malloc((m1->nelem ? m1->nelem : 1) * sizeof *q->bitems);
    q->home = st_malloc((m1->nelem ? m1->nelem : 1) * 3 * sizeof *q->home);
    p->npairs++;
    if (!q->by_id || !q->bstart || !q->bitems || !q->home)
        return st_error_set(err, ST_ENOMEM, "out of memory creating a contact pair");
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
        st_free(p->pairs[i].bstart);
        st_free(p->pairs[i].bitems);
        st_free(p->pairs[i].home);
    }
    st_free(p->pairs);
    p->pairs = NULL;
    p->npairs = 0;
    st_free(p->models);
    p->models = NULL;
    p->nmodels = 0;
}

/* NewProximityIntersection's triangle-line and triangle-triangle tests are
 * not available: refused rather than giving fewer contacts than SOFA. */
static st_status refuse_missing_test(pipeline *p, const cmodel *a, const cmodel *b, cm_kind ka,
                                     cm_kind kb, st_error *err)
{
    if (p->method->method != CI_NEW || ka != CM_TRIANGLE || kb > CM_LINE)
        return ST_OK;
    char pa[256], pb[256];
    return st_component_error(&p->method->base, NULL, err, ST_ESCENE,
                              "collision models %s and %s may collide as %s, a test of "
                              "NewProximityIntersection not available in settee: give the "
                              "surface Point and Line models, or use MinProximityIntersection",
                              st_component_path(&a->base, pa, sizeof pa),
                              st_component_path(&b->base, pb, sizeof pb),
                              kb == CM_LINE ? "triangle-line" : "triangle-triangle");
}

/* LocalMinDistance's point filter reads the edges of a LineCollisionModel
 * of the point's node (SOFA asks its node for one). */
static void link_lines(pipeline *p)
{
    for (size_t i = 0; i < p->nmodels; i++) {
        cmodel *m = p->models[i];
        m->lines = NULL;
        for (size_t j = 0; j < p->nmodels && m->kind == CM_POINT; j++)
            if (p->models[j]->kind == CM_LINE && p->models[j]->base.node == m->base.node &&
                p->models[j]->ms == m->ms) {
                m->lines = p->models[j];
                break;
            }
    }
}

/* Finds, below the pipeline's node, its models and algorithms (again
 * when called twice: solver_groups runs before bind). */
static st_status find_components(pipeline *p, st_error *err)
{
    st_free(p->models);
    p->models = NULL;
    p->nmodels = 0;
    p->method = NULL;
    p->broad = p->narrow = p->response = p->groups = NULL;
    found f = {p, NULL, 0, 0, ST_OK, err};
    visit(p->base.node, &f);
    p->models = f.models;
    p->nmodels = f.n;
    return f.rc;
}

/* Whether models a (later in scene order) and b (a itself: self-collision)
 * may ever collide: SOFA's broad phase rules and the method's table. */
static bool may_collide(const pipeline *p, const cmodel *a, const cmodel *b)
{
    if (!a->active || !b->active)
        return false;
    if (a == b)
        return a->self_collision && a->simulated && has_test(p->method, a->kind, a->kind);
    if (!a->simulated && !b->simulated)
        return false;
    if (!cmodel_can_collide(a, b) || !cmodel_can_collide(b, a))
        return false;
    cm_kind ka = a->kind < b->kind ? a->kind : b->kind;
    cm_kind kb = a->kind < b->kind ? b->kind : a->kind;
    return has_test(p->method, ka, kb);
}

/* Whether the contact manager gives the pair a response (SOFA's
 * "nullptr" leaves it out: no contact, no group). */
static st_status responds(const pipeline *p, const cmodel *a, const cmodel *b, bool *yes,
                          int *gs, st_error *err)
{
    cresp r = {CR_PENALTY, 0};
    ST_TRY(st_contact_response(p->response, a, b, &r, err));
    *yes = r.kind != CR_NONE;
    if (gs)
        *gs = r.geometric_stiffness;
    return ST_OK;
}

/* The index in sv of the driven solver above node n, or n_sv when none. */
static size_t driver_of(st_node *n, st_component *const *sv, size_t n_sv)
{
    size_t found_at = n_sv;
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < n_sv; i++)
            if (sv[i]->node == n)
                found_at = i; /* the topmost one drives */
    return found_at;
}

static size_t group_root(size_t *g, size_t i)
{
    while (g[i] != i)
        i = g[i];
    return i;
}

/* DefaultCollisionGroupManager: SOFA merges, for the steps they are in
 * contact, the integration groups of two objects under different ODE
 * solvers. The kernel compiles each system once, so settee merges at init
 * the solvers whose subtrees hold two models that may ever collide: one
 * system, integrated by the first solver of the group (docs/architecture.md). */
static st_status pipeline_solver_groups(st_component *self, st_node *root,
                                        st_component *const *sv, size_t n, size_t *group,
                                        st_error *err)
{
    (void)root;
    pipeline *p = (pipeline *)self;
    ST_TRY(find_components(p, err));
    if (!p->groups || !p->method || !p->nmodels)
        return ST_OK;
    for (size_t i = 0; i < p->nmodels; i++) {
        cmodel *a = p->models[i];
        size_t da = driver_of(a->ms->base.node, sv, n);
        for (size_t j = 0; j < i && da < n; j++) {
            cmodel *b = p->models[j];
            size_t db = driver_of(b->ms->base.node, sv, n);
            bool yes = false;
            if (db >= n || !may_collide(p, a, b))
                continue;
            ST_TRY(responds(p, a, b, &yes, NULL, err));
            if (!yes)
                continue;
            size_t ra = group_root(group, da), rb = group_root(group, db);
            if (ra == rb)
                continue;
            group[ra > rb ? ra : rb] = ra < rb ? ra : rb;
            char pa[256], pb[256];
            st_component_info(self, "collision group: %s and %s integrated together (models %s, %s)",
                              st_component_path(sv[da], pa, sizeof pa),
                              st_component_path(sv[db], pb, sizeof pb), a->base.name,
                              b->base.name);
            if (sv[da]->cls != sv[db]->cls)
                st_component_warn(self,
                                  "collision group: %s (%s) and %s (%s) are different solvers; "
                                  "settee integrates the group with the first in scene order, "
                                  "SOFA's SolverMerger with the more stable one",
                                  pa, sv[da]->cls->name, pb, sv[db]->cls->name);
        }
    }
    for (size_t i = 0; i < n; i++)
        group[i] = group_root(group, i);
    return ST_OK;
}

static st_status pipeline_bind(st_component *self, st_node *root, st_error *err)
{
    pipeline *p = (pipeline *)self;
    (void)root;
    ST_TRY(find_components(p, err));
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
    link_lines(p);
    size_t n = p->nmodels;
    p->pairs = st_calloc(n * (n + 1) / 2 + 1, sizeof *p->pairs);
    if (!p->pairs)
        return st_error_set(err, ST_ENOMEM, "out of memory creating contact pairs");
    for (size_t i = 0; i < n; i++) {
        cmodel *a = p->models[i];
        for (size_t j = 0; j <= i; j++) {
            /* self first, then the earlier models (SOFA's order) */
            cmodel *b = p->models[j == 0 ? i : j - 1];
            bool yes = false;
            int gs = 0;
            if (!may_collide(p, a, b))
                continue;
            ST_TRY(responds(p, a, b, &yes, &gs, err));
            if (!yes) {
                char pa[256], pb[256];
                st_component_info(self, "%s - %s: no response (nullptr): left out",
                                  st_component_path(&a->base, pa, sizeof pa),
                                  st_component_path(&b->base, pb, sizeof pb));
                continue;
            }
            cm_kind ka = a->kind < b->kind ? a->kind : b->kind;
            cm_kind kb = a->kind < b->kind ? b->kind : a->kind;
            ST_TRY(refuse_missing_test(p, a, b, ka, kb, err));
            size_t before = p->npairs;
            ST_TRY(add_pair(p, a, b, err));
            if (p->npairs > before)
                p->pairs[before].geometric_stiffness = gs;
        }
    }
    ST_TRY(st_array_resize(&p->out_pairs, ST_T_STRINGS, 2 * p->npairs, err));
    for (size_t k = 0; k < 2 * p->npairs; k++) {
        char path[256];
        st_component_path(&p->pairs[k / 2].m[k % 2]->base, path, sizeof path);
        st_free(p->out_pairs.s[k]);
        if (!(p->out_pairs.s[k] = st_strdup(path)))
            return st_error_set(err, ST_ENOMEM, "out of memory naming the contact pairs");
    }
    p->valid = true;
    return ST_OK;
}

/* ---- narrow phase ---- */

static bool boxes_meet(const double *a, const double *b, double tol)
{
    /* Written so that a NaN coordinate gives false. */
    for (int k = 0; k < 3; k++)
        if (!(a[k] <= b[k + 3] + tol && b[k] <= a[k + 3] + tol))
            return false;
    return true;
}

static const double *vtx(const cmodel *m, unsigned i)
{
    return cmodel_x(m) + (size_t)m->ms->type->coord_size * i;
}

static unsigned width(cm_kind k)
{
    return k == CM_LINE ? 2 : k == CM_TRIANGLE ? 3 : k == CM_TETRA ? 4 : 1;
}

/* The vertex indices of element e. */
static const unsigned *verts(const cmodel *m, size_t e, unsigned *tmp)
{
    if (m->kind == CM_LINE || m->kind == CM_TRIANGLE || m->kind == CM_TETRA)
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

/* NewProximityIntersection's and LocalMinDistance's element tests (Vec3d
 * spheres contact at their centres; LocalMinDistance filters each side). */
static int test_new_lmd(const cpair *q, size_t i, size_t j, double alarm, double contact,
                        cdetect *d)
{
    const cmodel *m0 = q->m[0], *m1 = q->m[1];
    unsigned t0, t1;
    const unsigned *a = verts(m0, i, &t0), *b = verts(m1, j, &t1);
    bool lmd = q->method->method == CI_LMD;
    unsigned big = (unsigned)(m0->nelem > m1->nelem ? i : j);
    int hit = 0;
    d->id = (unsigned)j;
    switch (m0->kind) {
    case CM_TRIANGLE:
        if (m1->kind == CM_POINT)
            hit = lmd ? st_coll_triangle_point(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]),
                                               vtx(m1, b[0]), alarm, contact, d)
                      : st_coll_new_triangle_point(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]),
                                                   m0->tflags[i], vtx(m1, b[0]), alarm,
                                                   contact, d);
        else
            hit = lmd ? st_coll_triangle_sphere(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]),
                                                vtx(m1, b[0]), cmodel_radius(m1, j), false,
                                                alarm, contact, d)
                      : st_coll_new_triangle_sphere(
                            vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]), m0->tflags[i],
                            vtx(m1, b[0]), cmodel_radius(m1, j), m1->kind == CM_RIGIDSPHERE,
                            alarm, contact, d);
        break;
    case CM_LINE: {
        double r = m1->kind == CM_LINE || m1->kind == CM_POINT ? 0.0 : cmodel_radius(m1, j);
        if (m1->kind == CM_LINE) {
            hit = (lmd ? st_coll_lmd_line_line : st_coll_new_line_line)(
                vtx(m0, a[0]), vtx(m0, a[1]), vtx(m1, b[0]), vtx(m1, b[1]), alarm, contact, d);
            d->id = big;
        } else if (lmd) {
            hit = st_coll_lmd_line_point(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m1, b[0]), r, alarm,
                                         contact, d);
        } else { /* clamped to the segment, the sphere at its centre */
            hit = st_coll_line_point(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m1, b[0]), alarm + r,
                                     contact + r, d);
        }
        break;
    }
    case CM_SPHERE:
    case CM_RIGIDSPHERE:
        if (m1->kind == CM_POINT)
            hit = st_coll_sphere_point(vtx(m0, a[0]), cmodel_radius(m0, i), false, vtx(m1, b[0]),
                                       alarm, contact, d);
        else
            hit = st_coll_sphere_sphere(vtx(m0, a[0]), cmodel_radius(m0, i), false,
                                        vtx(m1, b[0]), cmodel_radius(m1, j), false, alarm,
                                        contact, d);
        d->id = big;
        break;
    case CM_POINT:
        hit = st_coll_point_point(vtx(m0, a[0]), vtx(m1, b[0]), alarm, contact, d);
        d->id = big;
        break;
    default:
        break;
    }
    if (hit && lmd) {
        double pq[3], qp[3];
        for (int k = 0; k < 3; k++) {
            pq[k] = d->p[1][k] - d->p[0][k];
            qp[k] = -pq[k];
        }
        if (!st_coll_lmd_valid(q->method, m0, i, pq) || !st_coll_lmd_valid(q->method, m1, j, qp))
            hit = 0;
    }
    d->e[0] = (unsigned)i;
    d->e[1] = (unsigned)j;
    return hit;
}

/* One element test; fills d and returns 1 on a detection. */
static int test_elements(const cpair *q, size_t i, size_t j, double alarm, double contact,
                         cdetect *d)
{
    if (q->m[0]->kind == CM_TETRA) { /* SOFA's TetrahedronDiscreteIntersection, in every method */
        const cmodel *m0 = q->m[0], *m1 = q->m[1];
        static const double zero[3] = {0, 0, 0};
        const unsigned *a = m0->elems + 4 * i;
        int hit = st_coll_tetra_point(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]), vtx(m0, a[3]),
                                      vtx(m1, (unsigned)j),
                                      m1->pnormals ? m1->pnormals + 3 * j : zero, d);
        d->id = (unsigned)j;
        d->e[0] = (unsigned)i;
        d->e[1] = (unsigned)j;
        return hit;
    }
    if (q->method->method == CI_NEW || q->method->method == CI_LMD)
        return test_new_lmd(q, i, j, alarm, contact, d);
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

static size_t cell_hash(const int h[3])
{
    return (size_t)((unsigned)h[0] * 73856093u ^ (unsigned)h[1] * 19349663u ^
                    (unsigned)h[2] * 83492791u);
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
    /* A spatial hash of the second model's elements: cells of size c (at
     * least the widest element of either model plus the alarm margins),
     * each element in its lower corner's cell; element i of the first
     * model visits the cells its box (widened by the margins and by the
     * second model's widest element) covers, and tests the elements whose
     * home cell it is. Each pair of elements is tested once. */
    const cmodel *m0 = q->m[0], *m1 = q->m[1];
    if (!m0->nelem || !m1->nelem)
        return ST_OK;
    double c = 0.0;
    for (int k = 0; k < 3; k++) {
        c = c > m1->ext[k] ? c : m1->ext[k];
        c = c > m0->ext[k] + 2 * alarm ? c : m0->ext[k] + 2 * alarm;
    }
    for (int k = 0; k < 3; k++) /* at most 2^20 cells along an axis */
        if ((m1->mbox[k + 3] - m1->mbox[k]) / c > 1048576.0)
            c = (m1->mbox[k + 3] - m1->mbox[k]) / 1048576.0;
    if (!(c > 0.0))
        c = 1.0;
    const double *o = m1->mbox;
    size_t nb = q->nbuckets, mask = nb - 1;
    memset(q->bstart, 0, (nb + 1) * sizeof *q->bstart);
    for (size_t j = 0; j < m1->nelem; j++) {
        int *h = q->home + 3 * j;
        for (int k = 0; k < 3; k++) { /* a non-finite box: cell 0, never met */
            double v = (m1->box[6 * j + k] - o[k]) / c;
            h[k] = v >= 0.0 && v <= 1048577.0 ? (int)v : 0;
        }
        q->bstart[cell_hash(h) & mask]++;
    }
    unsigned run = 0;
    for (size_t b = 0; b <= nb; b++) {
        unsigned cnt = b < nb ? q->bstart[b] : 0;
        q->bstart[b] = run;
        run += cnt;
    }
    for (size_t j = 0; j < m1->nelem; j++) /* stable: ascending j per bucket */
        q->bitems[q->bstart[cell_hash(q->home + 3 * j) & mask]++] = (unsigned)j;
    /* bstart[b] now ends bucket b, which starts where bucket b - 1 ends. */
    int top[3];
    for (int k = 0; k < 3; k++) {
        double v = (m1->mbox[k + 3] - o[k]) / c;
        top[k] = v >= 0.0 && v <= 1048577.0 ? (int)v : 0;
    }
    for (size_t i = 0; i < m0->nelem; i++) {
        const double *bi = m0->box + 6 * i;
        if (!boxes_meet(bi, m1->mbox, alarm))
            continue;
        int lo[3], hi[3];
        for (int k = 0; k < 3; k++) {
            /* bi meets the model's box: l and h lie within its cells, give
             * or take the margins. */
            double l = (bi[k] - alarm - m1->ext[k] - o[k]) / c, h = (bi[k + 3] + alarm - o[k]) / c;
            lo[k] = l < 0 ? 0 : l > top[k] ? top[k] + 1 : (int)l;
            hi[k] = h > top[k] ? top[k] : h < 0 ? -1 : (int)h;
        }
        int cell[3];
        for (cell[0] = lo[0]; cell[0] <= hi[0]; cell[0]++)
            for (cell[1] = lo[1]; cell[1] <= hi[1]; cell[1]++)
                for (cell[2] = lo[2]; cell[2] <= hi[2]; cell[2]++) {
                    size_t b = cell_hash(cell) & mask;
                    unsigned from = b ? q->bstart[b - 1] : 0, to = q->bstart[b];
                    for (unsigned t = from; t < to; t++) {
                        size_t j = q->bitems[t];
                        const int *h = q->home + 3 * j;
                        if (h[0] != cell[0] || h[1] != cell[1] || h[2] != cell[2])
                            continue;
                        if ((self && j <= i) || !boxes_meet(bi, m1->box + 6 * j, alarm) ||
                            share_vertex(q, i, j))
                            continue;
                        ST_TRY(cgrow((void **)&q->det, &q->capdet, q->ndet + 1, sizeof *q->det, err));
                        if (test_elements(q, i, j, alarm, contact, &q->det[q->ndet]))
                            q->ndet++;
                    }
                }
    }
    return ST_OK;
}

/* Copies this step's contacts into the output fields (no allocation once
 * they have reached their largest size). */
static st_status write_outputs(pipeline *p, st_error *err)
{
    size_t total = 0;
    for (size_t k = 0; k < p->npairs; k++)
        total += p->pairs[k].n;
    ST_TRY(st_array_resize(&p->out_points, ST_T_VEC3S, 2 * total, err));
    ST_TRY(st_array_resize(&p->out_normals, ST_T_VEC3S, total, err));
    ST_TRY(st_array_resize(&p->out_dist, ST_T_REALS, total, err));
    ST_TRY(st_array_resize(&p->out_counts, ST_T_UINTS, p->npairs, err));
    size_t at = 0;
    for (size_t k = 0; k < p->npairs; k++) {
        const cpair *q = &p->pairs[k];
        p->out_counts.u[k] = (unsigned)q->n;
        for (size_t i = 0; i < q->n; i++, at++) {
            const ccontact *c = &q->c[i];
            memcpy(p->out_points.r + 6 * at, c->pt, 6 * sizeof(double));
            memcpy(p->out_normals.r + 3 * at, c->norm, 3 * sizeof(double));
            double un = 0.0;
            for (int a = 0; a < 3; a++)
                un += (c->pt[1][a] - c->pt[0][a]) * c->norm[a];
            /* Rest distance of the mapped points: dist minus the radii the
             * mappers add (the detection points of a Vec3d sphere are its
             * centre, of a Rigid3d one on its surface, as SOFA's). */
            p->out_dist.r[at] = un - c->dist;
        }
    }
    static const char *const names[] = {"contactPoints", "contactNormals", "contactDistances",
                                        "contactCounts"};
    for (int i = 0; i < 4; i++)
        st_component_touch(&p->base, st_component_field(&p->base, names[i]));
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
    return write_outputs(p, err);
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
    .solver_groups = pipeline_solver_groups,
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
