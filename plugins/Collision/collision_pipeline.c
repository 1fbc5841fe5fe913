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
 * models' boxes, the element pairs whose boxes meet (element_search.c:
 * the narrow phase's grid or sweep, the same pairs in the same order),
 * the intersection tests, then the penalty response refills each pair's
 * contacts. Nothing is allocated once the contact lists have reached
 * their largest size.
 *
 * A pair that gets no contact (the response "nullptr", or nothing
 * integrates either side) is still detected by SOFA's narrow phase, whose
 * outputs CarvingManager and ContactListener read: settee builds such a
 * detection-only pair when a reader asks for it (request_detections; the
 * listeners' models), and only then, so that scenes without readers pay
 * nothing; it is detected with the others and never responded to. */
#include <pthread.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../SofaDistanceGrid/distance_grid.h"
#include "collision.h"
#include "detection_phases.h"
#include "element_search.h"
#include "penalty.h"

extern const st_class min_proximity_intersection_class;
extern const st_class discrete_intersection_class;
extern const st_class new_proximity_intersection_class;
extern const st_class local_min_distance_class;
extern const st_class ccd_tight_inclusion_intersection_class;
extern const st_class brute_force_broad_phase_class;
extern const st_class brute_force_detection_class;
extern const st_class direct_sap_class;
extern const st_class incr_sap_class;
extern const st_class bvh_narrow_phase_class;
extern const st_class direct_sap_narrow_phase_class;
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
    cresp_kind pair_kind; /* the response of the pair add_pair is adding */
    cs_kind search;   /* the element search the broad phase selects */
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
    /* SubCollisionPipeline (sub_collision_pipeline.c): its parts come from
     * its links, not from a search below its node. */
    bool sub;
    st_array model_paths;  /* "collisionModels": "@path" items */
    st_component *l_method, *l_response, *l_broad, *l_narrow;
    /* ContactListeners whose narrow phase is this pipeline's (set at bind). */
    st_component **listeners;
    size_t nlisteners, caplisteners;
    /* The pairs that get no contact (the response "nullptr", or nothing
     * integrates either side) but whose narrow phase a reader of the
     * detection outputs asked for (request_detections, the listeners):
     * detected, never responded to. Built at bind. */
    cpair *dpairs;
    size_t ndpairs;
    /* The requests: model pairs want[2k], want[2k + 1] (NULL: any). */
    const st_component **want;
    size_t nwant, capwant;
    /* Every pair with a narrow phase, contact or detection-only, in the
     * broad phase's order (detections(), the listeners). */
    cpair **order;
    size_t norder;
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

/* BruteForceBroadPhase or its parallel twin; BVHNarrowPhase or its twin. */
static bool is_brute_force(const st_component *c)
{
    return class_is(c, &brute_force_broad_phase_class) ||
           class_is(c, &parallel_brute_force_broad_phase_class);
}

static bool is_bvh(const st_component *c)
{
    return class_is(c, &bvh_narrow_phase_class) || class_is(c, &parallel_bvh_narrow_phase_class);
}

/* The narrow phase casts rays: RayTraceNarrowPhase, or RayTraceDetection
 * (which in SOFA adds a BruteForceBroadPhase and a RayTraceNarrowPhase in
 * its place). */
static bool is_raytrace(const st_component *c)
{
    return c && (class_is(c, &raytrace_narrow_phase_class) ||
                 class_is(c, &raytrace_detection_class));
}

/* A narrow phase, as SOFA's context search for a NarrowPhaseDetection
 * finds it (DirectSAP, IncrSAP, RayTraceDetection and BruteForceDetection are,
 * or add, one). */
static bool is_narrow_phase(const st_component *c)
{
    return is_bvh(c) || class_is(c, &brute_force_detection_class) ||
           class_is(c, &direct_sap_narrow_phase_class) || class_is(c, &direct_sap_class) ||
           class_is(c, &incr_sap_class) || is_raytrace(c);
}

/* The ContactListeners of the scene below root whose nearest narrow phase
 * (their node, then its ancestors) is p's: they hear p's collisions. */
static st_status find_listeners(pipeline *p, st_node *n, st_error *err)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (!class_is(c, &contact_listener_class))
            continue;
        const st_component *np = NULL;
        for (st_node *a = n; a && !np; a = st_node_parent(a))
            for (size_t j = 0; j < st_node_object_count(a) && !np; j++)
                if (is_narrow_phase(st_node_object(a, j)))
                    np = st_node_object(a, j);
        if (np != p->narrow)
            continue;
        if (p->nlisteners == p->caplisteners) {
            size_t cap = p->caplisteners ? 2 * p->caplisteners : 4;
            st_component **l = st_realloc(p->listeners, cap * sizeof *l);
            if (!l)
                return st_error_set(err, ST_ENOMEM, "out of memory listing contact listeners");
            p->listeners = l;
            p->caplisteners = cap;
        }
        p->listeners[p->nlisteners++] = c;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        ST_TRY(find_listeners(p, st_node_child(n, i), err));
    return ST_OK;
}

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
                                  class_is(c, &local_min_distance_class) ||
                                  class_is(c, &ccd_tight_inclusion_intersection_class))) {
            p->method = (cintersect *)c;
        } else if (is_brute_force(c) || class_is(c, &brute_force_detection_class) ||
                   class_is(c, &direct_sap_class) || class_is(c, &incr_sap_class) || is_bvh(c) ||
                   class_is(c, &direct_sap_narrow_phase_class) ||
                   is_raytrace(c)) {
            /* The first broad and the first narrow phase in scene order, as
             * SOFA's context finds them; DirectSAP (which adds a broad phase
             * and a DirectSAPNarrowPhase in its place), IncrSAP, RayTraceDetection
             * (a broad phase and a RayTraceNarrowPhase) and BruteForceDetection
             * (brute force and BVH) are both. */
            bool broad = !is_bvh(c) &&
                         !class_is(c, &direct_sap_narrow_phase_class) &&
                         !class_is(c, &raytrace_narrow_phase_class);
            bool narrow = !is_brute_force(c);
            if (!p->broad && broad)
                p->broad = c;
            if (!p->narrow && narrow)
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
    if (a == CM_RAY || b == CM_RAY)
        return false; /* rays without directions (no picking): ray_collision_model.c */
    if (a >= CM_RIGIDDGRID || b >= CM_RIGIDDGRID) /* SofaDistanceGrid's (distance_grid_collision.c) */
        return dgrid_has_test(a, b);
    if (a >= CM_OBB || b >= CM_OBB) /* CollisionOBBCapsule's tests (obb_capsule.c) */
        return obbcap_has_test(m, a, b);
    if (a == CM_TETRA || b == CM_TETRA) /* every method, through DiscreteIntersection */
        return a == CM_TETRA && b == CM_POINT;
    if (m->method == CI_DISCRETE)
        return is_sphere(a) && is_sphere(b);
    if (m->method == CI_NEW) /* MeshNewProximityIntersection's table */
        return b == CM_POINT || is_sphere(b) || (a == CM_LINE && b == CM_LINE) ||
               (a == CM_TRIANGLE && b <= CM_LINE);
    if (m->method == CI_CCD) /* SOFA's CCDTightInclusionIntersection table */
        return (a == CM_LINE && b == CM_LINE) || (a == CM_TRIANGLE && b == CM_POINT);
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

/* Whether an ODE solver sits in node n or in one of its ancestors. */
static bool solver_at_or_above(st_node *n)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++)
            if (st_node_object(n, i)->cls->odesolver)
                return true;
    return false;
}

static void free_pairs(pipeline *p);

/* SOFA's order of a pair's models: the model of lower kind first; same
 * kinds: the later model in scene order first (the broad phase's new
 * model, then the one it is tested against). a comes later than b. */
static void pair_models(cmodel *a, cmodel *b, cmodel **m0, cmodel **m1)
{
    bool swap = obbcap_order(b->kind) < obbcap_order(a->kind);
    *m0 = swap ? b : a;
    *m1 = swap ? a : b;
}

/* What every pair holds, contact or detection-only: its models and the
 * narrow phase's buffers (q is counted by the caller already, so that
 * free_pairs frees what was allocated). */
static st_status init_pair(const pipeline *p, cpair *q, cmodel *m0, cmodel *m1, st_error *err)
{
    memset(q, 0, sizeof *q);
    q->m[0] = m0;
    q->m[1] = m1;
    q->method = p->method;
    q->kind = CR_NONE;
    q->nid = m0->nelem > m1->nelem ? m0->nelem : m1->nelem;
    if (p->method->method == CI_NEW && m0->kind == CM_TRIANGLE && m1->kind == CM_TRIANGLE)
        q->nid = 3 * m0->nelem + 12 * m1->nelem; /* SOFA's ids of triangle-triangle outputs */
    if (is_raytrace(p->narrow))
        q->nid = 3 * (m0->nelem + m1->nelem); /* both directions' vertex ids */
    if (m0->kind >= CM_RIGIDDGRID || m1->kind >= CM_RIGIDDGRID)
        q->nid = 6 * (m0->nelem + m1->nelem) + /* SOFA's ids: triangle 6 t + k, line 2 l + k, */
                 (m0->grid ? m0->grid->npts : 0) + (m1->grid ? m1->grid->npts : 0); /* mesh points */
    q->by_id = st_calloc(q->nid ? q->nid : 1, sizeof *q->by_id);
    q->search = st_calloc(1, sizeof *q->search);
    if (!q->by_id || !q->search)
        return st_error_set(err, ST_ENOMEM, "out of memory creating a contact pair");
    return ST_OK;
}

static st_status add_pair(pipeline *p, cmodel *a, cmodel *b, st_error *err)
{
    cmodel *m0, *m1;
    pair_models(a, b, &m0, &m1);
    st_system *s0 = m0->ms->system, *s1 = m1->ms->system;
    if (!s0 && !s1)
        return ST_OK; /* nothing integrates either side */
    /* Lagrangian contacts couple two systems through the constraint solver. */
    bool lagrangian = p->pair_kind == CR_FRICTION || p->pair_kind == CR_STICK ||
                      p->pair_kind == CR_AUGLAG;
    /* Where SOFA puts the penalty response (SubCollisionPipeline's
     * computeCollisionResponse): beside the simulated model when the other
     * is not simulated, so that the simulated one's solver integrates it
     * and reads the other side as fixed; else in the pipeline's node, where
     * no solver's visitors reach it unless a solver sits at or above that
     * node: then the animation loop adds its force, at the positions before
     * the solvers run, to both states' externalForce (SolveVisitor's
     * isolated interaction force fields). The group manager puts it in the
     * merged solver's node instead. */
    bool isolated = false;
    if (!lagrangian && s0 != s1 && (!m0->simulated || !m1->simulated)) {
        if (!m0->simulated)
            s0 = NULL;
        if (!m1->simulated)
            s1 = NULL;
        if (!s0 && !s1)
            return ST_OK;
    } else if (!lagrangian && !p->groups && m0->simulated && m1->simulated &&
               !solver_at_or_above(p->base.node)) {
        isolated = true;
    }
    if (s0 && s1 && s0 != s1 && !lagrangian && !isolated) {
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
    cpair *q = &p->pairs[p->npairs++];
    ST_TRY(init_pair(p, q, m0, m1, err));
    q->isolated = isolated;
    q->sys = isolated ? NULL : s0 ? s0 : s1;
    q->in_sys[0] = !isolated && s0 == q->sys;
    q->in_sys[1] = !isolated && s1 == q->sys;
    if (isolated) {
        char pa[256], pb[256];
        st_component_info(&p->base, "%s - %s: the response lies outside every ODE solver's "
                                    "subtree (SOFA: in the pipeline's node): an explicit "
                                    "force, at the positions before the solvers run, added to "
                                    "both states' externalForce",
                          st_component_path(&m0->base, pa, sizeof pa),
                          st_component_path(&m1->base, pb, sizeof pb));
        return ST_OK; /* no owner: no implicit terms */
    }
    /* The owner: the first side the system integrates. */
    cmodel *owner = q->in_sys[0] ? m0 : m1;
    cpair **l = st_realloc(owner->owned, (owner->nowned + 1) * sizeof *l);
    if (!l)
        return st_error_set(err, ST_ENOMEM, "out of memory creating a contact pair");
    owner->owned = l;
    owner->owned[owner->nowned++] = q;
    return ST_OK;
}

/* The pipeline owns its pairs; a model's `owned` list and the contact
 * manager's `pairs` only borrow them. Before the pairs are built again (a
 * topological change rebuilds the mechanical systems, then binds the
 * pipeline again: the pairs' systems are gone), every borrower lets go of
 * them first: freed while a model still lists them, the penalty forces of
 * the next solve would read freed memory; kept, their last contacts would
 * act in every later step beside the new pairs'. */
static void release_pairs(pipeline *p)
{
    for (size_t i = 0; i < p->npairs; i++)
        for (int k = 0; k < 2; k++) {
            cmodel *m = p->pairs[i].m[k];
            if (!m)
                continue;
            size_t kept = 0;
            for (size_t j = 0; j < m->nowned; j++)
                if (m->owned[j] != &p->pairs[i])
                    m->owned[kept++] = m->owned[j];
            m->nowned = kept;
        }
    if (p->response) {
        cresponse *r = (cresponse *)p->response;
        if (r->pairs == p->pairs) {
            r->pairs = NULL;
            r->npairs = 0;
        }
    }
    free_pairs(p);
    p->valid = false;
}

static void free_pair_list(cpair **pairs, size_t *n)
{
    for (size_t i = 0; i < *n; i++) {
        cpair *q = &(*pairs)[i];
        st_free(q->c);
        st_free(q->det);
        st_free(q->by_id);
        if (q->search)
            cs_free(q->search);
        st_free(q->search);
        st_free(q->u);
        st_free(q->narrow_err);
    }
    st_free(*pairs);
    *pairs = NULL;
    *n = 0;
}

static void free_pairs(pipeline *p)
{
    free_pair_list(&p->pairs, &p->npairs);
    free_pair_list(&p->dpairs, &p->ndpairs);
    st_free(p->order);
    p->order = NULL;
    p->norder = 0;
    st_free(p->models);
    p->models = NULL;
    p->nmodels = 0;
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

/* SOFA's point-triangle test skips a point whose projection falls on a
 * triangle's edge or vertex: those contacts are the Line and Point models'
 * business. A TriangleCollisionModel that may meet points without them on
 * its state can let a body through (a cube centred on a floor of split
 * quads); settee keeps SOFA's rule and says so once, at init. */
static void warn_lone_triangles(const pipeline *p)
{
    if (p->method->method == CI_CCD)
        return; /* the continuous test has no such rule */
    for (size_t i = 0; i < p->nmodels; i++) {
        const cmodel *t = p->models[i];
        if (t->kind != CM_TRIANGLE)
            continue;
        bool line = false, point = false, paired = false;
        for (size_t j = 0; j < p->nmodels; j++) {
            const cmodel *o = p->models[j];
            line |= o->kind == CM_LINE && o->ms == t->ms;
            point |= o->kind == CM_POINT && o->ms == t->ms;
        }
        for (size_t k = 0; k < p->npairs && !paired; k++)
            paired = (p->pairs[k].m[0] == t && p->pairs[k].m[1]->kind == CM_POINT) ||
                     (p->pairs[k].m[1] == t && p->pairs[k].m[0]->kind == CM_POINT);
        if (line && point)
            continue;
        if (!paired)
            continue;
        char sp[256];
        st_component_warn(&t->base,
                          "no %s on its state %s: as in SOFA, a point whose projection falls on "
                          "one of this model's edges or vertices gets no contact from the "
                          "triangles, so a body can pass through them; SOFA's scenes add "
                          "LineCollisionModel and PointCollisionModel beside "
                          "TriangleCollisionModel",
                          !line && !point ? "LineCollisionModel and PointCollisionModel"
                          : !line         ? "LineCollisionModel"
                                          : "PointCollisionModel",
                          st_component_path(&t->ms->base, sp, sizeof sp));
    }
}

/* A constraint solver under n, or ConstraintAnimationLoop (which solves
 * the constraints itself). */
static bool has_constraint_solver(st_node *n)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        const st_component *c = st_node_object(n, i);
        if (ST_CLASS_HAS(c->cls, constraint_solver) && c->cls->constraint_solver)
            return true;
        if (c->cls->animloop && !strcmp(c->cls->name, "ConstraintAnimationLoop"))
            return true;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        if (has_constraint_solver(st_node_child(n, i)))
            return true;
    return false;
}

/* SubCollisionPipeline: the models of its collisionModels list, in the
 * list's order, and its linked algorithms (each checked for its kind: a
 * link to something else is an error naming it). */
static st_status sub_find_components(pipeline *p, st_error *err)
{
    st_component *self = &p->base;
    static const char *const keys[] = {"intersectionMethod", "broadPhaseDetection",
                                       "narrowPhaseDetection", "contactManager"};
    st_component *links[] = {p->l_method, p->l_broad, p->l_narrow, p->l_response};
    for (int k = 0; k < 4; k++) {
        st_component *c = links[k];
        if (!c)
            continue;
        bool ok = k == 0   ? class_is(c, &ccd_tight_inclusion_intersection_class) ||
                                 class_is(c, &min_proximity_intersection_class) ||
                                 class_is(c, &discrete_intersection_class) ||
                                 class_is(c, &new_proximity_intersection_class) ||
                                 class_is(c, &local_min_distance_class)
                  : k == 1 ? is_brute_force(c) || class_is(c, &brute_force_detection_class) ||
                                 class_is(c, &direct_sap_class) || class_is(c, &incr_sap_class) ||
                                 class_is(c, &raytrace_detection_class)
                  : k == 2 ? is_bvh(c) || class_is(c, &brute_force_detection_class) ||
                                 class_is(c, &direct_sap_narrow_phase_class) ||
                                 is_raytrace(c) ||
                                 class_is(c, &direct_sap_class) || class_is(c, &incr_sap_class)
                           : st_is_contact_manager(c);
        if (!ok)
            return st_component_error(self, keys[k], err, ST_ELINK,
                                      "'%s' (%s) is not a%s", c->name, c->cls->name,
                                      k == 0   ? "n intersection method"
                                      : k == 1 ? " broad phase"
                                      : k == 2 ? " narrow phase"
                                               : " contact manager (CollisionResponse)");
    }
    p->method = (cintersect *)p->l_method;
    p->broad = p->l_broad;
    p->narrow = p->l_narrow;
    p->response = p->l_response;
    if (!p->model_paths.n)
        return ST_OK;
    p->models = st_calloc(p->model_paths.n, sizeof *p->models);
    if (!p->models)
        return st_error_set(err, ST_ENOMEM, "out of memory listing collision models");
    for (size_t i = 0; i < p->model_paths.n; i++) {
        const char *path = p->model_paths.s[i];
        st_component *c = NULL;
        if (path[0] == '@')
            path++;
        if (st_node_resolve(self->node, path, ST_LINK_ANY, &c, err) != ST_OK)
            return st_component_error(self, "collisionModels", err, ST_ELINK,
                                      "'%s' does not resolve: %s", p->model_paths.s[i], err->msg);
        if (!st_is_collision_model(c))
            return st_component_error(self, "collisionModels", err, ST_ELINK,
                                      "'%s' is a %s, not a collision model", p->model_paths.s[i],
                                      c->cls->name);
        bool dup = false;
        for (size_t j = 0; j < p->nmodels; j++)
            dup |= &p->models[j]->base == c;
        if (!dup && st_node_activated(c->node))
            p->models[p->nmodels++] = (cmodel *)c;
    }
    return ST_OK;
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
    if (p->sub)
        return sub_find_components(p, err);
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
    /* RayTraceNarrowPhase handles pairs of TriangleOctreeCollisionModels
     * only (SOFA's findPairsVolume; other pairs get no detection). */
    if (is_raytrace(p->narrow))
        return a->octree && b->octree;
    bool lower = obbcap_order(a->kind) < obbcap_order(b->kind);
    cm_kind ka = lower ? a->kind : b->kind;
    cm_kind kb = lower ? b->kind : a->kind;
    return has_test(p->method, ka, kb);
}

/* The response the contact manager gives the pair (SOFA's "nullptr":
 * CR_NONE, left out: no contact, no group). settee has one Lagrangian
 * response per scene, the manager's own: a pair whose rule or model asks
 * for another is refused. */
static st_status pair_response(const pipeline *p, const cmodel *a, const cmodel *b, cresp *out,
                               st_error *err)
{
    ST_TRY(st_contact_response(p->response, a, b, out, err));
    /* SOFA registers StickContactForceField for Vec3d points, lines,
     * triangles and spheres only: other pairs get no contact (SOFA's
     * "creation failed" error, and the run goes on). */
    if (out->kind == CR_STICKFF) {
        const cmodel *ms[2] = {a, b};
        for (int k = 0; k < 2; k++)
            if (ms[k]->kind != CM_POINT && ms[k]->kind != CM_LINE &&
                ms[k]->kind != CM_TRIANGLE && ms[k]->kind != CM_SPHERE) {
                char pa[256], pb[256];
                st_component_warn(p->response,
                                  "StickContactForceField between %s and %s: SOFA has no stick "
                                  "contact for a %s, the pair gets no contact",
                                  st_component_path(&a->base, pa, sizeof pa),
                                  st_component_path(&b->base, pb, sizeof pb),
                                  ms[k]->base.cls->name);
                out->kind = CR_NONE;
                return ST_OK;
            }
    }
    const cresponse *m = (const cresponse *)p->response;
    bool lagrangian = out->kind == CR_FRICTION || out->kind == CR_STICK || out->kind == CR_AUGLAG;
    if (lagrangian && (out->kind != m->kind || out->mu != m->mu ||
                       out->keep_alive != m->keep_alive || out->epsilon != m->epsilon)) {
        char pa[256], pb[256];
        return st_component_error(p->response, "response", err, ST_ESCENE,
                                  "the pair %s - %s asks for a Lagrangian response other than "
                                  "the manager's (%s): settee has one Lagrangian response, with "
                                  "one set of parameters, per scene",
                                  st_component_path(&a->base, pa, sizeof pa),
                                  st_component_path(&b->base, pb, sizeof pb), m->response);
    }
    return ST_OK;
}

/* Records a request for the narrow phase of the pairs of a and b (b NULL:
 * any), once. */
static st_status want_pair(pipeline *p, const st_component *a, const st_component *b,
                           st_error *err)
{
    for (size_t k = 0; k < p->nwant; k++)
        if (p->want[2 * k] == a && p->want[2 * k + 1] == b)
            return ST_OK;
    if (p->nwant == p->capwant) {
        size_t cap = p->capwant ? 2 * p->capwant : 4;
        const st_component **w = st_realloc(p->want, 2 * cap * sizeof *w);
        if (!w)
            return st_error_set(err, ST_ENOMEM, "out of memory recording a detection request");
        p->want = w;
        p->capwant = cap;
    }
    p->want[2 * p->nwant] = a;
    p->want[2 * p->nwant + 1] = b;
    p->nwant++;
    return ST_OK;
}

static bool wanted(const pipeline *p, const cmodel *a, const cmodel *b)
{
    for (size_t k = 0; k < p->nwant; k++) {
        const st_component *x = p->want[2 * k], *y = p->want[2 * k + 1];
        if ((x == &a->base && (!y || y == &b->base)) || (x == &b->base && (!y || y == &a->base)))
            return true;
    }
    return false;
}

/* The detection-only pairs (again), then the order of every pair: the
 * pairs the broad phase gives (may_collide) that got no contact pair at
 * bind, when asked for (SOFA's narrow phase detects them all; its contact
 * manager then leaves out those whose response is "nullptr"). */
static st_status build_detection_pairs(pipeline *p, st_error *err)
{
    free_pair_list(&p->dpairs, &p->ndpairs);
    st_free(p->order);
    p->order = NULL;
    p->norder = 0;
    size_t n = p->nmodels;
    if (p->nwant) {
        p->dpairs = st_calloc(n * (n + 1) / 2 + 1, sizeof *p->dpairs);
        if (!p->dpairs)
            return st_error_set(err, ST_ENOMEM, "out of memory creating detection pairs");
    }
    for (size_t i = 0, seq = 0, c = 0; i < n && p->nwant; i++) {
        cmodel *a = p->models[i];
        for (size_t j = 0; j <= i; j++, seq++) {
            cmodel *b = p->models[j == 0 ? i : j - 1];
            while (c < p->npairs && p->pairs[c].seq < seq)
                c++;
            if ((c < p->npairs && p->pairs[c].seq == seq) || !may_collide(p, a, b) ||
                !wanted(p, a, b))
                continue;
            cmodel *m0, *m1;
            pair_models(a, b, &m0, &m1);
            cpair *q = &p->dpairs[p->ndpairs++];
            ST_TRY(init_pair(p, q, m0, m1, err));
            q->seq = seq;
            char pa[256], pb[256];
            st_component_info(&p->base, "%s - %s: no contact; detected for the components that "
                                        "read the detection outputs",
                              st_component_path(&m0->base, pa, sizeof pa),
                              st_component_path(&m1->base, pb, sizeof pb));
        }
    }
    p->order = st_malloc((p->npairs + p->ndpairs + 1) * sizeof *p->order);
    if (!p->order)
        return st_error_set(err, ST_ENOMEM, "out of memory ordering the pairs");
    for (size_t i = 0, j = 0; i < p->npairs || j < p->ndpairs;)
        p->order[p->norder++] = j >= p->ndpairs || (i < p->npairs &&
                                                    p->pairs[i].seq < p->dpairs[j].seq)
                                    ? &p->pairs[i++]
                                    : &p->dpairs[j++];
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
            if (db >= n || !may_collide(p, a, b))
                continue;
            cresp r;
            ST_TRY(pair_response(p, a, b, &r, err));
            if (r.kind == CR_NONE)
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
    release_pairs(p); /* bound again after a topological change */
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
    /* The element search is the narrow phase's. */
    p->search = is_bvh(p->narrow) || class_is(p->narrow, &brute_force_detection_class) ? CS_GRID
                : class_is(p->narrow, &incr_sap_class)        ? CS_INCR_SAP
                                                              : CS_DIRECT_SAP;
    size_t n = p->nmodels;
    p->pairs = st_calloc(n * (n + 1) / 2 + 1, sizeof *p->pairs);
    if (!p->pairs)
        return st_error_set(err, ST_ENOMEM, "out of memory creating contact pairs");
    for (size_t i = 0, seq = 0; i < n; i++) {
        cmodel *a = p->models[i];
        for (size_t j = 0; j <= i; j++, seq++) {
            /* self first, then the earlier models (SOFA's order) */
            cmodel *b = p->models[j == 0 ? i : j - 1];
            if (!may_collide(p, a, b))
                continue;
            cresp r;
            ST_TRY(pair_response(p, a, b, &r, err));
            if (r.kind == CR_NONE) {
                char pa[256], pb[256];
                st_component_info(self, "%s - %s: no response (nullptr): no contact (detected "
                                        "only when a component reads the detection outputs)",
                                  st_component_path(&a->base, pa, sizeof pa),
                                  st_component_path(&b->base, pb, sizeof pb));
                continue;
            }
            size_t before = p->npairs;
            p->pair_kind = r.kind;
            ST_TRY(add_pair(p, a, b, err));
            if (p->npairs > before) {
                p->pairs[before].geometric_stiffness = r.geometric_stiffness;
                p->pairs[before].kind = r.kind;
                p->pairs[before].keep_alive = r.keep_alive;
                p->pairs[before].seq = seq;
            }
        }
    }
    warn_lone_triangles(p);
    p->nlisteners = 0;
    ST_TRY(find_listeners(p, st_node_root(self->node), err));
    for (size_t k = 0; k < p->nlisteners; k++) {
        const cmodel *l1, *l2;
        contact_listener_models(p->listeners[k], &l1, &l2);
        if (l1)
            ST_TRY(want_pair(p, &l1->base, l2 ? &l2->base : NULL, err));
    }
    ST_TRY(build_detection_pairs(p, err));
    cresponse *r = (cresponse *)p->response;
    r->pairs = p->pairs;
    r->npairs = p->npairs;
    if ((r->kind == CR_FRICTION || r->kind == CR_STICK || r->kind == CR_AUGLAG) &&
        !has_constraint_solver(st_node_root(self->node)))
        st_component_warn(p->response, "response %s: no constraint solver in the scene, the "
                                       "contacts will not act (add FreeMotionAnimationLoop and "
                                       "GenericConstraintSolver)",
                          r->response);
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

static const double *vtx(const cmodel *m, unsigned i)
{
    return cmodel_x(m) + (size_t)m->ms->type->coord_size * i;
}

static unsigned width(cm_kind k)
{
    return k == CM_LINE || k == CM_CAPSULE ? 2 : k == CM_TRIANGLE ? 3 : k == CM_TETRA ? 4 : 1;
}

/* The vertex indices of element e. */
static const unsigned *verts(const cmodel *m, size_t e, unsigned *tmp)
{
    if (m->kind == CM_LINE || m->kind == CM_TRIANGLE || m->kind == CM_TETRA ||
        m->kind == CM_CAPSULE)
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
 * spheres contact at their centres; LocalMinDistance filters each side);
 * the number of outputs written to d (triangle-line and triangle-triangle
 * give several). */
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
        if (m1->kind == CM_LINE || m1->kind == CM_TRIANGLE) { /* NewProximityIntersection */
            bool ll = q->method->use_line_line;
            if (m1->kind == CM_LINE)
                hit = st_coll_new_triangle_line(vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]),
                                                m0->tflags[i], vtx(m1, b[0]), vtx(m1, b[1]), ll,
                                                (unsigned)j, alarm, contact, d);
            else
                hit = st_coll_new_triangle_triangle(
                    vtx(m0, a[0]), vtx(m0, a[1]), vtx(m0, a[2]), m0->tflags[i], vtx(m1, b[0]),
                    vtx(m1, b[1]), vtx(m1, b[2]), m1->tflags[j], ll, 3 * (unsigned)i,
                    3 * (unsigned)m0->nelem + 12 * (unsigned)j, alarm, contact, d);
            for (int k = 0; k < hit; k++) {
                d[k].e[0] = (unsigned)i;
                d[k].e[1] = (unsigned)j;
            }
            return hit;
        }
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

/* One element test; fills d[0..n) and returns n, the detections (at most
 * CDETECT_MAX). */
static int test_elements(const cpair *q, size_t i, size_t j, double alarm, double contact,
                         cdetect *d)
{
    if (q->m[0]->kind >= CM_RIGIDDGRID || q->m[1]->kind >= CM_RIGIDDGRID) /* SofaDistanceGrid's */
        return dgrid_test(q, i, j, contact, d);
    if (q->m[0]->kind >= CM_OBB || q->m[1]->kind >= CM_OBB) { /* CollisionOBBCapsule's tests */
        int hit = obbcap_test(q, i, j, alarm, contact, d);
        d->e[0] = (unsigned)i;
        d->e[1] = (unsigned)j;
        return hit;
    }
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
    if (q->method->method == CI_CCD)
        return ccd_test(q, i, j, contact, d);
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
    q->ndet = 0;
    q->search->ncand = 0;
    if (is_raytrace(p->narrow))
        return raytrace_pair(q, p->steps, err);
    const cmodel *m0 = q->m[0], *m1 = q->m[1];
    /* A TriangleModelInRegularGrid is one bounding cube, its grid's box:
     * the other model's elements are kept when their box meets it (SOFA's
     * tree traversal), then tested against every triangle (those whose
     * boxes are farther than the alarm distance find nothing). */
    const double *b0 = m0->grid_state ? m0->gbox : m0->mbox;
    const double *b1 = m1->grid_state ? m1->gbox : m1->mbox;
    bool g0 = m0->grid_state && !m1->grid_state, g1 = m1->grid_state && !m0->grid_state;
    if (!m0->nelem || !m1->nelem || !cs_boxes_meet(b0, b1, alarm))
        return ST_OK;
    /* The element pairs whose boxes meet, by element of the first model,
     * then of the second, whatever the search: each pair tested once. */
    csearch *s = q->search;
    ST_TRY(cs_find(s, p->search, m0, m1, alarm, err));
    for (size_t i = 0; i < m0->nelem; i++)
        for (uint32_t t = s->ostart[i], end = s->ostart[i + 1]; t < end; t++) {
            size_t j = s->oj[t];
            if ((g0 && !cs_boxes_meet(m0->gbox, m1->box + 6 * j, alarm)) ||
                (g1 && !cs_boxes_meet(m0->box + 6 * i, m1->gbox, alarm)))
                continue;
            if (share_vertex(q, i, j))
                continue;
            size_t room = q->m[0]->kind >= CM_RIGIDDGRID ? dgrid_max_outputs(q) : CDETECT_MAX;
            ST_TRY(cgrow((void **)&q->det, &q->capdet, q->ndet + room, sizeof *q->det, err));
            q->ndet += (size_t)test_elements(q, i, j, alarm, contact, &q->det[q->ndet]);
        }
    return ST_OK;
}

/* ---- The parallel phases: the model pairs' narrow phase on threads ---- */

/* Threads for this step's narrow phases: the parallel phases' count (the
 * larger), at most one per pair; 1 otherwise. */
static unsigned narrow_threads(const pipeline *p)
{
    unsigned n = 1;
    if (class_is(p->narrow, &parallel_bvh_narrow_phase_class))
        n = cphase_threads(p->narrow);
    if (class_is(p->broad, &parallel_brute_force_broad_phase_class)) {
        unsigned b = cphase_threads(p->broad);
        n = b > n ? b : n;
    }
    return p->npairs < n ? (unsigned)p->npairs : n;
}

typedef struct narrow_share {
    pipeline *p;
    unsigned k, n; /* pairs k, k + n, k + 2n, ... */
} narrow_share;

static void *narrow_share_run(void *arg)
{
    const narrow_share *r = arg;
    for (size_t k = r->k; k < r->p->npairs; k += r->n) {
        cpair *q = &r->p->pairs[k];
        *q->narrow_err = (st_error){0};
        q->narrow_rc = narrow_pair(r->p, q, q->narrow_err);
    }
    return NULL;
}

/* Every pair's narrow phase on n threads (the caller is one): each pair's
 * search and detections are its own and the models are only read, so each
 * pair finds what it finds alone; the first failure in pair order is the
 * step's. A thread that cannot start leaves its share to the caller. */
static st_status narrow_parallel(pipeline *p, unsigned n, st_error *err)
{
    enum { MAX_THREADS = 64 };
    if (n > MAX_THREADS)
        n = MAX_THREADS;
    for (size_t k = 0; k < p->npairs; k++)
        if (!p->pairs[k].narrow_err &&
            !(p->pairs[k].narrow_err = st_calloc(1, sizeof *p->pairs[k].narrow_err)))
            return st_error_set(err, ST_ENOMEM, "out of memory");
    narrow_share share[MAX_THREADS];
    pthread_t th[MAX_THREADS];
    bool started[MAX_THREADS] = {false};
    for (unsigned t = 0; t < n; t++)
        share[t] = (narrow_share){.p = p, .k = t, .n = n};
    for (unsigned t = 1; t < n; t++)
        started[t] = pthread_create(&th[t], NULL, narrow_share_run, &share[t]) == 0;
    narrow_share_run(&share[0]);
    for (unsigned t = 1; t < n; t++) {
        if (started[t])
            pthread_join(th[t], NULL);
        else
            narrow_share_run(&share[t]);
    }
    for (size_t k = 0; k < p->npairs; k++)
        if (p->pairs[k].narrow_rc != ST_OK) {
            *err = *p->pairs[k].narrow_err;
            return p->pairs[k].narrow_rc;
        }
    return ST_OK;
}

/* Copies this step's contacts into the output fields (no allocation once
 * they have reached their largest size). */
static st_status write_outputs(pipeline *p, st_error *err)
{
    size_t total = 0;
    for (size_t k = 0; k < p->npairs; k++)
        total += p->pairs[k].n + p->pairs[k].nu;
    ST_TRY(st_array_resize(&p->out_points, ST_T_VEC3S, 2 * total, err));
    ST_TRY(st_array_resize(&p->out_normals, ST_T_VEC3S, total, err));
    ST_TRY(st_array_resize(&p->out_dist, ST_T_REALS, total, err));
    ST_TRY(st_array_resize(&p->out_counts, ST_T_UINTS, p->npairs, err));
    size_t at = 0;
    for (size_t k = 0; k < p->npairs; k++) {
        const cpair *q = &p->pairs[k];
        p->out_counts.u[k] = (unsigned)(q->n + q->nu);
        for (size_t i = 0; i < q->nu; i++, at++) {
            const ucontact *c = &q->u[i];
            memcpy(p->out_points.r + 6 * at, c->pt, 6 * sizeof(double));
            memcpy(p->out_normals.r + 3 * at, c->n, 3 * sizeof(double));
            double un = 0.0;
            for (int a = 0; a < 3; a++)
                un += (c->p[a] - c->q[a]) * c->n[a];
            p->out_dist.r[at] = un - c->dist;
        }
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

/* For a point-triangle pair that found no contact this step: a point of
 * the point model inside a triangle's outline and behind its plane (against
 * its normal), by less than the triangle's longest edge (a penetration the
 * detection did not see). True with the first such point. */
static bool unseen_penetration(const cpair *q, unsigned *pt, unsigned *tri, double *depth)
{
    const cmodel *pm = q->m[0]->kind == CM_POINT ? q->m[0] : q->m[1];
    const cmodel *tm = pm == q->m[0] ? q->m[1] : q->m[0];
    for (size_t j = 0; j < tm->nelem; j++) {
        const unsigned *v = tm->elems + 3 * j;
        const double *a = vtx(tm, v[0]), *b = vtx(tm, v[1]), *c = vtx(tm, v[2]);
        double e1[3], e2[3], n[3], L;
        for (int k = 0; k < 3; k++)
            e1[k] = b[k] - a[k], e2[k] = c[k] - a[k];
        n[0] = e1[1] * e2[2] - e1[2] * e2[1];
        n[1] = e1[2] * e2[0] - e1[0] * e2[2];
        n[2] = e1[0] * e2[1] - e1[1] * e2[0];
        double nn = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        if (!(nn > 0.0))
            continue;
        double l1 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2];
        double l2 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2];
        double l3 = (c[0] - b[0]) * (c[0] - b[0]) + (c[1] - b[1]) * (c[1] - b[1]) +
                    (c[2] - b[2]) * (c[2] - b[2]);
        L = sqrt(l1 > l2 ? (l1 > l3 ? l1 : l3) : (l2 > l3 ? l2 : l3));
        const double *box = tm->box + 6 * j;
        for (size_t i = 0; i < pm->nelem; i++) {
            const double *x = vtx(pm, (unsigned)i);
            bool inbox = true;
            for (int k = 0; k < 3 && inbox; k++)
                inbox = x[k] >= box[k] - L && x[k] <= box[3 + k] + L;
            if (!inbox)
                continue;
            double r[3] = {x[0] - a[0], x[1] - a[1], x[2] - a[2]};
            double d = (r[0] * n[0] + r[1] * n[1] + r[2] * n[2]) / nn;
            if (!(d < -1e-12 * L && d > -L))
                continue;
            /* barycentric coordinates of the projection */
            double d11 = l1, d22 = l2, d12 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
            double r1 = r[0] * e1[0] + r[1] * e1[1] + r[2] * e1[2];
            double r2 = r[0] * e2[0] + r[1] * e2[1] + r[2] * e2[2];
            double det = d11 * d22 - d12 * d12;
            double u = (d22 * r1 - d12 * r2) / det, w = (d11 * r2 - d12 * r1) / det;
            const double eps = 1e-9;
            if (u >= -eps && w >= -eps && u + w <= 1.0 + eps) {
                *pt = (unsigned)i, *tri = (unsigned)j, *depth = -d;
                return true;
            }
        }
    }
    return false;
}

/* SOFA's isolated interaction force fields: the penalty pairs outside
 * every solver, at the positions before this integration. */
static st_status pipeline_integrate_begin(st_component *self, st_node *root, st_error *err)
{
    (void)root;
    (void)err;
    pipeline *p = (pipeline *)self;
    if (!p->valid)
        return ST_OK;
    for (size_t k = 0; k < p->npairs; k++)
        if (p->pairs[k].isolated)
            penalty_add_external(&p->pairs[k]);
    return ST_OK;
}

/* SOFA's getDetectionOutputs: this step's narrow phase outputs, pair after
 * pair, read in place (no copy). */
static st_status pipeline_detections(st_component *self, const st_component *narrow,
                                     st_detection_fn fn, void *ud, st_error *err)
{
    pipeline *p = (pipeline *)self;
    if (!p->valid || (narrow && narrow != p->narrow))
        return ST_OK;
    for (size_t k = 0; k < p->norder; k++) {
        const cpair *q = p->order[k];
        st_detection d = {.model = {&q->m[0]->base, &q->m[1]->base}};
        for (size_t i = 0; i < q->ndet; i++) {
            const cdetect *c = &q->det[i];
            memcpy(d.point, c->p, sizeof d.point);
            memcpy(d.normal, c->normal, sizeof d.normal);
            d.elem[0] = c->e[0];
            d.elem[1] = c->e[1];
            d.value = c->value;
            ST_TRY(fn(ud, &d, err));
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
    for (size_t i = 0; i < p->nmodels; i++)
        ST_TRY(cmodel_refresh(p->models[i], err));
    for (size_t i = 0; i < p->nmodels; i++) {
        cmodel *m = p->models[i];
        m->number_of_contacts = 0;
        if (m->active)
            cmodel_update_boxes(m);
        if (m->active && p->method->method == CI_CCD && p->method->ccd_swept)
            ccd_sweep_boxes(m);
    }
    double d0 = p->method->proximity ? p->method->contact_distance : 0.0;
    const cresponse *resp = (const cresponse *)p->response;
    size_t candidates = 0;
    const unsigned nt = is_raytrace(p->narrow) ? 1 : narrow_threads(p);
    if (nt > 1)
        ST_TRY(narrow_parallel(p, nt, err));
    for (size_t k = 0; k < p->npairs; k++) {
        cpair *q = &p->pairs[k];
        if (nt <= 1)
            ST_TRY(narrow_pair(p, q, err));
        candidates += q->search->ncand;
        double dq = d0 + q->m[0]->contact_distance + q->m[1]->contact_distance;
        if (q->kind == CR_PENALTY || q->kind == CR_STICKFF)
            ST_TRY(penalty_fill(q, dq, err));
        else
            ST_TRY(contact_constraint_fill(resp, q, dq, err));
        if (q->n || q->nu) {
            q->m[0]->number_of_contacts++;
            if (q->m[1] != q->m[0])
                q->m[1]->number_of_contacts++;
        }
        char a[128], b[128];
        st_component_info(self, "step %lu: %s - %s: %zu contacts", p->steps,
                          st_component_path(&q->m[0]->base, a, sizeof a),
                          st_component_path(&q->m[1]->base, b, sizeof b), q->n + q->nu);
        /* Once per pair, an information line (`settee run -v`) when points
         * sit below triangles that found no contact with them. */
        bool pt_tri = (q->m[0]->kind == CM_POINT && q->m[1]->kind == CM_TRIANGLE) ||
                      (q->m[1]->kind == CM_POINT && q->m[0]->kind == CM_TRIANGLE);
        /* Points up to a triangle's size behind it: the boxes meet with
         * that margin. The test is plain O(points x triangles), so it is
         * left out for pairs above 4 million candidates. */
        unsigned pi, ti;
        double depth;
        const cmodel *tq = q->m[0]->kind == CM_TRIANGLE ? q->m[0] : q->m[1];
        double margin = tq->ext[0] + tq->ext[1] + tq->ext[2];
        if (pt_tri && !q->told_unseen && q->n + q->nu == 0 && q->m[0]->active &&
            q->m[1]->active && (double)q->m[0]->nelem * (double)q->m[1]->nelem <= 4e6 &&
            cs_boxes_meet(q->m[0]->mbox, q->m[1]->mbox, margin) &&
            unseen_penetration(q, &pi, &ti, &depth)) {
            const cmodel *pm = q->m[0]->kind == CM_POINT ? q->m[0] : q->m[1];
            const cmodel *tm = pm == q->m[0] ? q->m[1] : q->m[0];
            char sp[128], st[128], sm[128];
            st_component_info(self,
                              "step %lu: %s - %s: no contact, yet point %u is %g behind triangle "
                              "%u (against its normal), inside its outline: the point-triangle test skips points "
                              "whose projection falls on an edge or vertex (as SOFA's does); "
                              "LineCollisionModel and PointCollisionModel on %s would see it "
                              "(said once per pair)",
                              p->steps, st_component_path(&pm->base, sp, sizeof sp),
                              st_component_path(&tm->base, st, sizeof st), pi, depth, ti,
                              st_component_path(&tm->ms->base, sm, sizeof sm));
            q->told_unseen = true;
        }
    }
    for (size_t k = 0; k < p->ndpairs; k++) {
        ST_TRY(narrow_pair(p, &p->dpairs[k], err));
        candidates += p->dpairs[k].search->ncand;
    }
    for (size_t k = 0; k < p->nlisteners; k++)
        ST_TRY(contact_listener_collide(p->listeners[k], (const cpair *const *)p->order,
                                        p->norder, err));
    if (class_is(p->narrow, &direct_sap_narrow_phase_class)) {
        ((cphase *)p->narrow)->nb_pairs = (int)candidates;
        st_component_touch(p->narrow, st_component_field(p->narrow, "nbPairs"));
    }
    return write_outputs(p, err);
}

static void pipeline_reset(st_component *self)
{
    pipeline *p = (pipeline *)self;
    p->steps = 0;
    for (size_t k = 0; k < p->npairs; k++)
        p->pairs[k].n = p->pairs[k].nu = 0;
}

/* request_detections: recorded for every later bind; the pairs are
 * built at once when the pipeline is bound already. */
static st_status pipeline_request_detections(st_component *self, const st_component *a,
                                             const st_component *b, st_error *err)
{
    pipeline *p = (pipeline *)self;
    if (!a)
        return ST_OK;
    size_t before = p->nwant;
    ST_TRY(want_pair(p, a, b, err));
    return p->valid && p->nwant > before ? build_detection_pairs(p, err) : ST_OK;
}

static void pipeline_cleanup(st_component *self)
{
    pipeline *p = (pipeline *)self;
    free_pairs(p);
    st_free(p->want);
    p->want = NULL;
    p->nwant = p->capwant = 0;
    st_free(p->listeners);
    p->listeners = NULL;
    p->nlisteners = p->caplisteners = 0;
}

static const st_collision_ops pipeline_ops = {
    .struct_size = sizeof(st_collision_ops),
    .bind = pipeline_bind,
    .compute = pipeline_compute,
    .solver_groups = pipeline_solver_groups,
    .integrate_begin = pipeline_integrate_begin,
    .detections = pipeline_detections,
    .request_detections = pipeline_request_detections,
};

/* The step count: the octree models of RayTraceNarrowPhase update once per
 * step of it, and their first step differs. */
static st_status pipeline_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    pipeline *p = (pipeline *)self;
    return st_checkpoint_data(ck, &p->steps, sizeof p->steps, err);
}

static const st_checkpoint_ops pipeline_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = pipeline_checkpoint,
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
    .checkpoint = &pipeline_checkpoint_ops,
};

/* ---- SubCollisionPipeline ---- */

static const st_field sub_pipeline_fields[] = {
    ST_IGNORED(pipeline, depth, "depth", ST_T_INT, int, "6",
               "Max depth of bounding trees. (default=6, min=?, max=?) (settee's narrow phase "
               "tests element boxes directly, with the same contacts)"),
    ST_FIELD_EX(pipeline, model_paths, "collisionModels", ST_T_STRINGS, st_array, NULL,
                "List of collision models to consider in this pipeline", ST_F_NOLINK, NULL, 0.0,
                0.0),
    ST_LINK(pipeline, l_method, "intersectionMethod", ST_LINK_ANY,
            "Intersection method to use in this pipeline"),
    ST_LINK(pipeline, l_response, "contactManager", ST_LINK_ANY,
            "Contact manager to use in this pipeline"),
    ST_LINK(pipeline, l_broad, "broadPhaseDetection", ST_LINK_ANY,
            "Broad phase detection to use in this pipeline"),
    ST_LINK(pipeline, l_narrow, "narrowPhaseDetection", ST_LINK_ANY,
            "Narrow phase detection to use in this pipeline"),
    ST_OUTPUT(pipeline, out_points, "contactPoints", ST_T_VEC3S, st_array,
              "settee: this step's contact points, two per contact (as CollisionPipeline's)"),
    ST_OUTPUT(pipeline, out_normals, "contactNormals", ST_T_VEC3S, st_array,
              "settee: this step's contact normals, one per contact"),
    ST_OUTPUT(pipeline, out_dist, "contactDistances", ST_T_REALS, st_array,
              "settee: each contact's distance at detection minus its rest distance"),
    ST_OUTPUT(pipeline, out_counts, "contactCounts", ST_T_UINTS, st_array,
              "settee: the number of contacts of each pair of collision models that may collide"),
    ST_OUTPUT(pipeline, out_pairs, "contactPairs", ST_T_STRINGS, st_array,
              "settee: the paths of the two collision models of each pair"),
    ST_FIELD_END};

static st_status sub_pipeline_init(st_component *self, st_error *err)
{
    (void)err;
    pipeline *p = (pipeline *)self;
    p->sub = true;
    /* SOFA's doInit: each missing part is a warning, the pipeline then
     * does nothing (bind says it again, once, before the run). */
    if (!p->model_paths.n)
        st_component_warn(self, "At least one CollisionModel is required to compute collision "
                                "detection.");
    return ST_OK;
}

bool sub_collision_pipeline_has(const st_component *sub, const st_component *model)
{
    const pipeline *p = (const pipeline *)sub;
    for (size_t i = 0; i < p->nmodels; i++)
        if (&p->models[i]->base == model)
            return true;
    return false;
}

const st_collision_ops sub_collision_pipeline_ops = {
    .struct_size = sizeof(st_collision_ops),
    .bind = pipeline_bind,
    .compute = pipeline_compute,
    .solver_groups = pipeline_solver_groups,
    .integrate_begin = pipeline_integrate_begin,
    .detections = pipeline_detections,
    .request_detections = pipeline_request_detections,
};

const st_class sub_collision_pipeline_class = {
    .struct_size = sizeof(st_class),
    .name = "SubCollisionPipeline",
    .category = "CollisionAlgorithm",
    .description = "Collision pipeline to be used with CompositeCollisionPipeline: its collision "
                   "models, intersection method, phases and contact manager are linked",
    .instance_size = sizeof(pipeline),
    .fields = sub_pipeline_fields,
    .init = sub_pipeline_init,
    .reset = pipeline_reset,
    .cleanup = pipeline_cleanup,
    .checkpoint = &pipeline_checkpoint_ops,
};
