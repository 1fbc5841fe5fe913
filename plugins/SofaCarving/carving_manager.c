/* carving_manager.c - SOFA's CarvingManager (plugin SofaCarving): removes the
 * elements of a surface that a tool touches.
 *
 * While `active`, at the end of each step, it reads the narrow phase's
 * detection outputs of that step (st_collision_ops.detections: the outputs
 * the pipeline computed at the step's beginning, at the positions before
 * the solve) for each pair made of the tool model and a collision model
 * tagged CarvingSurface, and keeps the surface elements of the outputs whose
 * value (distance minus contact distance) is below carvingDistance. SOFA's
 * narrow phase detects every pair, whatever its response; settee's pipeline
 * detects a pair without contact (response "nullptr", nothing integrating
 * it) when asked: the manager asks at init for (tool, surface) pairs
 * (st_collision_ops.request_detections). Each pair's elements are then
 * removed as SOFA's TopologicalChangeManager does
 * (removeItemsFromCollisionModel), pair after pair:
 *
 *   - triangles (TriangleCollisionModel): on a topology holding tetrahedra,
 *     the first tetrahedron on each triangle; holding hexahedra, the first
 *     hexahedron on quad index / 2; else the triangles (a triangle split from
 *     a quad: SOFA's (index + triangles) / 2). "First" is SOFA's shell order
 *     (shell_order below), not the lowest index;
 *   - points (PointCollisionModel): the triangles around each point, then as
 *     triangles;
 *   - spheres (SphereCollisionModel on Vec3d): the points;
 *   - lines (LineCollisionModel): the edges, by the edge modifier, without
 *     going up the topological mappings (as SOFA).
 *
 * Triangles, points and spheres then go up the topological mappings, as
 * SOFA's manager does: while the node of the current topology holds a
 * topological mapping, each output element becomes the input element SOFA's
 * getGlobIndex then getFromIndex give (up_maps below), and the current
 * topology becomes the mapping's input; the mappings where SOFA's give
 * nothing useful are refused with a warning. The first topology modifier
 * from that topology's node upward removes the indices (its own element
 * kind, as SOFA's removeItems), through st_topology_remove: the same change
 * a TopologicalChangeProcessor makes, which the states, masses, force
 * fields and the topological mappings follow. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/topology_modifier.h"

typedef struct hit {
    const st_component *model; /* the surface model */
    unsigned elem;
} hit;

/* SOFA's order of the volumes around a face (TetrahedraAroundTriangle,
 * HexahedraAroundQuad): built at init in increasing index; a removal
 * erases an entry and renames the moved last volume in place; an addition
 * appends. So the first of a shell is the volume that has been in the
 * container longest: each volume carries a stamp, its index at init, then
 * increasing for each one added, which the kernel moves with it
 * (st_topology_follow). */
typedef struct shell_order {
    st_component *topo;
    st_elem kind;     /* ST_ELEM_TETRAHEDRON or ST_ELEM_HEXAHEDRON */
    unsigned *stamp;  /* per volume, followed */
    size_t n;
    unsigned base;    /* the stamp of the first volume of the addition under way */
} shell_order;

typedef struct carving {
    st_component base;
    st_component *tool;         /* "toolModel" */
    st_component *narrow;       /* "narrowPhaseDetection" */
    char *surface_path;         /* "surfaceModelPath" */
    double carving_distance;    /* "carvingDistance" */
    bool active;                /* "active" */
    char *key, *key_switch;     /* "key", "keySwitch" */
    bool mouse_event, omni_event;
    char *activator_name;
    /* Set at init. */
    st_component **pipes;       /* the collision pipelines that give detection outputs */
    size_t npipes;
    hit *hits;                  /* this step's elements to remove */
    size_t nhits, caphits;
    unsigned *items, *next;     /* the indices going up the mappings */
    size_t nitems, capitems, nnext, capnext;
    bool told_mapping, told_ambiguous;
    shell_order *orders;        /* the carved models' volume topologies (set at init done) */
    size_t norders;
    bool ordered;
} carving;

static const st_field carving_fields[] = {
    ST_LINK(carving, tool, "toolModel", ST_LINK_ANY,
            "link to the carving collision model, if not set, manager will search for a "
            "collision model with tag: CarvingTool."),
    ST_LINK(carving, narrow, "narrowPhaseDetection", ST_LINK_ANY,
            "link to the narrow Phase Detection component, if not set, manager will search for "
            "it in root Node."),
    ST_STRING(carving, surface_path, "surfaceModelPath", NULL,
              "TriangleSetModel or SphereCollisionModel<sofa::defaulttype::Vec3Types> path "
              "(as in SOFA, only checked at init: the carved models are those tagged "
              "CarvingSurface)"),
    ST_REAL(carving, carving_distance, "carvingDistance", "0",
            "Collision distance at which cavring will start. Equal to contactDistance by "
            "default."),
    ST_BOOL(carving, active, "active", "false",
            "Activate this object. Note that this can be dynamically controlled by using a key"),
    ST_STRING(carving, key, "key", "1",
              "key to press to activate this object until the key is released"),
    ST_STRING(carving, key_switch, "keySwitch", "4",
              "key to activate this object until the key is pressed again"),
    ST_IGNORED(carving, mouse_event, "mouseEvent", ST_T_BOOL, bool, "true",
               "Activate carving with middle mouse button (settee's input events have no mouse "
               "buttons)"),
    ST_IGNORED(carving, omni_event, "omniEvent", ST_T_BOOL, bool, "true",
               "Activate carving with omni button (settee has no haptic device events)"),
    ST_IGNORED(carving, activator_name, "activatorName", ST_T_STRING, char *, "button1",
               "Name to active the script event parsing. Will look for 'pressed' or 'release' "
               "keyword. For example: 'button1_pressed' (settee has no script events)"),
    ST_FIELD_END};

/* ---- the scene's components ---- */

static bool is_collision_model(const st_component *c)
{
    return c->cls->category && !strcmp(c->cls->category, "CollisionModel");
}

static bool is_narrow_phase(const st_component *c)
{
    static const char *const names[] = {
        "BVHNarrowPhase",  "ParallelBVHNarrowPhase", "DirectSAPNarrowPhase", "RayTraceNarrowPhase",
        "BruteForceDetection", "DirectSAP", "IncrSAP", "RayTraceDetection", NULL};
    for (const char *const *n = names; *n; n++)
        if (!strcmp(c->cls->name, *n))
            return true;
    return false;
}

static const st_collision_ops *detecting(const st_component *c)
{
    if (!ST_CLASS_HAS(c->cls, collision) || !c->cls->collision)
        return NULL;
    const st_collision_ops *o = c->cls->collision;
    bool has = o->struct_size >= offsetof(st_collision_ops, detections) + sizeof o->detections;
    return has && o->detections ? o : NULL;
}

/* Calls fn on every component of the subtree of n, objects then children
 * (SOFA's SearchRoot order); stops when fn returns true. */
static bool walk(st_node *n, bool (*fn)(st_component *, void *), void *ud)
{
    for (size_t i = 0; i < st_node_object_count(n); i++)
        if (fn(st_node_object(n, i), ud))
            return true;
    for (size_t i = 0; i < st_node_child_count(n); i++)
        if (walk(st_node_child(n, i), fn, ud))
            return true;
    return false;
}

static bool is_carved(const st_component *c)
{
    return is_collision_model(c) && st_component_has_tag(c, "CarvingSurface");
}

static bool first_tool(st_component *c, void *ud)
{
    if (is_collision_model(c) && st_component_has_tag(c, "CarvingTool")) {
        *(st_component **)ud = c;
        return true;
    }
    return false;
}

static bool count_surface(st_component *c, void *ud)
{
    if (is_carved(c))
        ++*(size_t *)ud;
    return false;
}

static bool add_pipe(st_component *c, void *ud)
{
    carving *m = ud;
    if (detecting(c))
        m->pipes[m->npipes++] = c;
    return false;
}

/* Asks every pipeline for the narrow phase of the pair (tool, c) when c
 * is a carved model: SOFA's narrow phase detects every pair, whatever its
 * response ("nullptr" too), and the manager reads them all. */
typedef struct asking {
    carving *m;
    st_error *err;
    st_status rc;
} asking;

static bool ask_pipes(st_component *c, void *ud)
{
    asking *a = ud;
    if (!is_carved(c))
        return false;
    for (size_t i = 0; i < a->m->npipes && a->rc == ST_OK; i++) {
        const st_collision_ops *o = detecting(a->m->pipes[i]);
        if (o->struct_size >= offsetof(st_collision_ops, request_detections) +
                                  sizeof o->request_detections &&
            o->request_detections)
            a->rc = o->request_detections(a->m->pipes[i], a->m->tool, c, a->err);
    }
    return a->rc != ST_OK;
}

static bool count_pipe(st_component *c, void *ud)
{
    if (detecting(c))
        ++*(size_t *)ud;
    return false;
}

/* ---- init ---- */

static st_status check_key(carving *m, const char *field, const char *k, st_error *err)
{
    if (!k || strlen(k) != 1)
        return st_component_error(&m->base, field, err, ST_ESCENE,
                                  "expected one character (SOFA's char), got '%s'", k ? k : "");
    return ST_OK;
}

static st_status carving_init(st_component *self, st_error *err)
{
    carving *m = (carving *)self;
    st_node *root = st_node_root(self->node);
    ST_TRY(check_key(m, "key", m->key, err));
    ST_TRY(check_key(m, "keySwitch", m->key_switch, err));
    if (!m->tool)
        walk(root, first_tool, &m->tool);
    if (!m->tool)
        return st_component_error(self, "toolModel", err, ST_ESCENE,
                                  "Tool Collision Model not found. Set the link to toolModel or "
                                  "set tag 'CarvingTool' to the right collision model.");
    if (!is_collision_model(m->tool))
        return st_component_error(self, "toolModel", err, ST_ELINK,
                                  "toolModel must link a collision model, got a %s",
                                  m->tool->cls->name);
    size_t nsurf = 0;
    if (m->surface_path && m->surface_path[0]) {
        st_component *s = NULL;
        const char *p = m->surface_path[0] == '@' ? m->surface_path + 1 : m->surface_path;
        if (st_node_resolve(self->node, p, ST_LINK_ANY, &s, err) != ST_OK || !s ||
            !is_collision_model(s))
            return st_component_error(self, "surfaceModelPath", err, ST_ESCENE,
                                      "m_surfaceCollisionModels not found: '%s' is not a "
                                      "collision model",
                                      m->surface_path);
        nsurf = 1;
    } else {
        walk(root, count_surface, &nsurf);
    }
    if (!nsurf)
        return st_component_error(self, "surfaceModelPath", err, ST_ESCENE,
                                  "m_surfaceCollisionModels not found. Set tag 'CarvingSurface' "
                                  "to the right collision models.");
    if (!m->narrow)
        for (st_node *n = self->node; n && !m->narrow; n = st_node_parent(n))
            for (size_t i = 0; i < st_node_object_count(n) && !m->narrow; i++)
                if (is_narrow_phase(st_node_object(n, i)))
                    m->narrow = st_node_object(n, i);
    if (!m->narrow || !is_narrow_phase(m->narrow))
        return st_component_error(self, "narrowPhaseDetection", err, ST_ESCENE,
                                  "NarrowPhaseDetection not found. Add a NarrowPhaseDetection "
                                  "method in your scene and link it using narrowPhaseDetection "
                                  "field.");
    size_t np = 0;
    walk(root, count_pipe, &np);
    st_free(m->pipes);
    m->npipes = 0;
    m->pipes = np ? st_malloc(np * sizeof *m->pipes) : NULL;
    if (np && !m->pipes)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    walk(root, add_pipe, m);
    if (!m->npipes)
        st_component_warn(self, "no collision pipeline in the scene: nothing will be carved");
    asking ask = {m, err, ST_OK};
    walk(root, ask_pipes, &ask);
    ST_TRY(ask.rc);
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* ---- the carving ---- */

static bool grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = st_realloc(*p, c * size);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

static st_status collect(void *ud, const st_detection *d, st_error *err)
{
    carving *m = ud;
    int side;
    if (d->model[0] == m->tool && st_component_has_tag(d->model[1], "CarvingSurface"))
        side = 1;
    else if (d->model[1] == m->tool && st_component_has_tag(d->model[0], "CarvingSurface"))
        side = 0;
    else
        return ST_OK;
    if (!(d->value < m->carving_distance))
        return ST_OK;
    if (!grow((void **)&m->hits, &m->caphits, m->nhits + 1, sizeof *m->hits))
        return st_error_set(err, ST_ENOMEM, "out of memory");
    m->hits[m->nhits++] = (hit){d->model[side], d->elem[side]};
    return ST_OK;
}

/* Inserts v into the ascending set items[0..*n) (SOFA's std::set). */
static bool set_add(unsigned **items, size_t *n, size_t *cap, unsigned v)
{
    size_t lo = 0, hi = *n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if ((*items)[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < *n && (*items)[lo] == v)
        return true;
    if (!grow((void **)items, cap, *n + 1, sizeof **items))
        return false;
    memmove(*items + lo + 1, *items + lo, (*n - lo) * sizeof **items);
    (*items)[lo] = v;
    ++*n;
    return true;
}

static const st_type elem_types[ST_ELEM_COUNT] = {0, ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS,
                                                  ST_T_TETRAS, ST_T_HEXAS};

static const st_array *elements(st_component *topo, st_elem k)
{
    const st_topology_ops *o = topo->cls->topology;
    if (!o || !o->elements || k == ST_ELEM_POINT)
        return NULL;
    const st_array *a = o->elements(topo, elem_types[k]);
    return a && a->n ? a : NULL;
}

static size_t count(st_component *topo, st_elem k)
{
    const st_array *a = elements(topo, k);
    return a ? a->n : 0;
}

/* Whether element e of a (width w) holds the nv vertices v. */
static bool holds(const st_array *a, unsigned w, size_t e, const unsigned *v, unsigned nv)
{
    for (unsigned i = 0; i < nv; i++) {
        bool in = false;
        for (unsigned j = 0; j < w && !in; j++)
            in = a->u[e * w + j] == v[i];
        if (!in)
            return false;
    }
    return true;
}

/* The elements of kind k holding the nv vertices v: how many as the
 * result (stops at 2 when order is NULL), the first into *first: the one
 * of lowest stamp in order (SOFA's first of the shell), else the lowest
 * index. */
static unsigned around(st_component *topo, st_elem k, const unsigned *v, unsigned nv,
                       unsigned *first, const shell_order *order)
{
    const st_array *a = elements(topo, k);
    unsigned w = st_elem_vertices(k), found = 0;
    for (size_t e = 0; a && e < a->n && (order || found < 2); e++)
        if (holds(a, w, e, v, nv) && (!found++ || (order && order->stamp[e] < order->stamp[*first])))
            *first = (unsigned)e;
    return found;
}

/* The shell order of topo's volumes of kind k, when followed. */
static const shell_order *order_of(const carving *m, const st_component *topo, st_elem k)
{
    for (size_t i = 0; i < m->norders; i++)
        if (m->orders[i].topo == topo && m->orders[i].kind == k &&
            m->orders[i].n == count((st_component *)topo, k))
            return &m->orders[i];
    return NULL;
}

static const unsigned *vertices_of(st_component *topo, st_elem k, unsigned i)
{
    const st_array *a = elements(topo, k);
    return a && i < a->n ? a->u + (size_t)i * st_elem_vertices(k) : NULL;
}

/* Adds the items for triangles tris[0..n) of topo, as SOFA's manager does
 * for a triangle model: the volume on each, or the triangles. */
static bool items_of_triangles(carving *m, st_component *topo, const unsigned *tris, size_t n)
{
    bool tets = count(topo, ST_ELEM_TETRAHEDRON) > 0, hexas = count(topo, ST_ELEM_HEXAHEDRON) > 0;
    size_t nt = count(topo, ST_ELEM_TRIANGLE);
    for (size_t i = 0; i < n; i++) {
        unsigned t = tris[i], v;
        if (tets || hexas) {
            st_elem face = tets ? ST_ELEM_TRIANGLE : ST_ELEM_QUAD;
            const unsigned *fv = vertices_of(topo, face, tets ? t : t / 2);
            st_elem vk = tets ? ST_ELEM_TETRAHEDRON : ST_ELEM_HEXAHEDRON;
            if (!fv || !around(topo, vk, fv, st_elem_vertices(face), &v, order_of(m, topo, vk)))
                continue; /* SOFA reads the first of an empty list */
        } else {
            v = t < nt ? t : (unsigned)((t + nt) / 2);
        }
        if (!set_add(&m->items, &m->nitems, &m->capitems, v))
            return false;
    }
    return true;
}

/* How the manager goes up each topological mapping: SOFA's
 * getGlobIndex then getFromIndex, per mapping. */
typedef enum up_rule {
    UP_FACE,    /* the output element's input element (Loc2Glob), then the one input
                   element of kind `in` holding its vertices (Tetra2Triangle, Hexa2Quad,
                   Triangle2Edge: getFromIndex gives the only volume or face on it;
                   Quad2Triangle: the quad the triangle was cut from) */
    UP_SAME,    /* the same index (CenterPoint: point i is hexahedron i's centre) */
    UP_SUBSET,  /* the D2S map of the highest kind handled (SubsetTopologicalMapping) */
    UP_CIRCLES, /* Edge2Quad: the quad's circle points i N + j are on input point i:
                   the input edge holding those points (Loc2Glob) */
    UP_SOURCE,  /* Mesh2Point: the element output point i was made from (its pointSource),
                   whatever its kind, removed as the input's own kind (as SOFA) */
    UP_NONE     /* SOFA gives nothing useful: nothing removed, with a warning */
} up_rule;

typedef struct up_map {
    const char *name;
    up_rule rule;
    st_elem out, in;
    const char *why; /* UP_NONE: what SOFA does */
} up_map;

static const up_map up_maps[] = {
    {"Tetra2TriangleTopologicalMapping", UP_FACE, ST_ELEM_TRIANGLE, ST_ELEM_TETRAHEDRON, NULL},
    {"Hexa2QuadTopologicalMapping", UP_FACE, ST_ELEM_QUAD, ST_ELEM_HEXAHEDRON, NULL},
    {"Quad2TriangleTopologicalMapping", UP_FACE, ST_ELEM_TRIANGLE, ST_ELEM_QUAD, NULL},
    {"Triangle2EdgeTopologicalMapping", UP_FACE, ST_ELEM_EDGE, ST_ELEM_TRIANGLE, NULL},
    {"CenterPointTopologicalMapping", UP_SAME, ST_ELEM_POINT, ST_ELEM_HEXAHEDRON, NULL},
    {"SubsetTopologicalMapping", UP_SUBSET, ST_ELEM_POINT, ST_ELEM_POINT, NULL},
    {"Edge2QuadTopologicalMapping", UP_CIRCLES, ST_ELEM_QUAD, ST_ELEM_EDGE, NULL},
    {"IdentityTopologicalMapping", UP_NONE, 0, 0,
     "SOFA's keeps no index map there and gives element 0 of the input for every element"},
    {"SimpleTesselatedHexaTopologicalMapping", UP_NONE, 0, 0,
     "SOFA's keeps no index map there and gives element 0 of the input for every element"},
    {"Hexa2TetraTopologicalMapping", UP_NONE, 0, 0,
     "SOFA's gives an invalid index, which its modifier skips: nothing is removed"},
    {"Hexa2PrismTopologicalMapping", UP_NONE, 0, 0,
     "SOFA's gives an invalid index, which its modifier skips: nothing is removed"},
    {"Mesh2PointTopologicalMapping", UP_SOURCE, ST_ELEM_POINT, ST_ELEM_POINT, NULL},
};

static const up_map *up_map_of(const st_component *c)
{
    for (size_t i = 0; i < sizeof up_maps / sizeof *up_maps; i++)
        if (!strcmp(c->cls->name, up_maps[i].name))
            return &up_maps[i];
    return NULL;
}

static st_component *link_of(st_component *c, const char *field)
{
    const st_field *f = st_component_field(c, field);
    if (!f || f->type != ST_T_LINK)
        return NULL;
    return *(st_component **)st_component_field_ptr(c, f);
}

/* The first topological mapping of node n that propagates from input to
 * output only (all but SimpleTesselatedTetraTopologicalMapping). */
static st_component *mapping_of(st_node *n)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (c->cls->category && !strcmp(c->cls->category, "TopologicalMapping") &&
            strcmp(c->cls->name, "SimpleTesselatedTetraTopologicalMapping"))
            return c;
    }
    return NULL;
}

/* SubsetTopologicalMapping's getGlobIndex: the D2S map of the first kind
 * it handles whose map is not empty, hexahedra first, then the points' when
 * they differ; none: the index itself (NULL). */
static const st_array *subset_map(st_component *map)
{
    static const char *const kinds[][2] = {{"handleHexahedra", "hexahedronD2S"},
                                           {"handleTetrahedra", "tetrahedronD2S"},
                                           {"handleQuads", "quadD2S"},
                                           {"handleTriangles", "triangleD2S"},
                                           {"handleEdges", "edgeD2S"}};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        const st_field *h = st_component_field(map, kinds[i][0]);
        const st_field *f = st_component_field(map, kinds[i][1]);
        if (h && f && *(const bool *)st_component_field_ptr(map, h) &&
            ((const st_array *)st_component_field_ptr(map, f))->n)
            return st_component_field_ptr(map, f);
    }
    const st_field *same = st_component_field(map, "samePoints");
    const st_field *f = st_component_field(map, "pointD2S");
    if (same && f && !*(const bool *)st_component_field_ptr(map, same) &&
        ((const st_array *)st_component_field_ptr(map, f))->n)
        return st_component_field_ptr(map, f);
    return NULL;
}

/* The input element output element i of a mapping comes from (rule r);
 * false when there is none to remove (told once). */
static bool up_one(carving *m, const up_map *r, st_component *map, st_component *in,
                   st_component *out, unsigned i, unsigned *e)
{
    unsigned n = 0;
    const unsigned *v = NULL;
    switch (r->rule) {
    case UP_SAME:
        *e = i;
        return true;
    case UP_SOURCE: {
        /* SOFA's getGlobIndex: pointSource's element (InvalidID for a point
         * whose element went, which SOFA's modifier skips) */
        const st_field *f = st_component_field(map, "pointSource");
        const st_array *src = f ? st_component_field_ptr(map, f) : NULL;
        if (src && i < src->n / 2) {
            *e = src->u[2 * (size_t)i + 1];
            return *e != UINT_MAX;
        }
        break;
    }
    case UP_SUBSET: {
        const st_array *d2s = subset_map(map);
        if (!d2s) {
            *e = i;
            return true;
        }
        if (i < d2s->n && d2s->u[i] != UINT_MAX) {
            *e = d2s->u[i];
            return true;
        }
        break; /* SOFA reads past its map */
    }
    case UP_CIRCLES: {
        v = vertices_of(out, ST_ELEM_QUAD, i);
        const st_field *f = st_component_field(map, "nbPointsOnEachCircle");
        unsigned nc = f ? *(const unsigned *)st_component_field_ptr(map, f) : 0;
        if (!v || !nc)
            break;
        unsigned ends[2] = {v[0] / nc, v[0] / nc};
        for (int k = 1; k < 4; k++)
            if (v[k] / nc != ends[0])
                ends[1] = v[k] / nc;
        n = around(in, ST_ELEM_EDGE, ends, 2, e, NULL);
        if (n == 1)
            return true;
        break;
    }
    case UP_FACE:
        v = vertices_of(out, r->out, i);
        n = v ? around(in, r->in, v, st_elem_vertices(r->out), e, NULL) : 0;
        if (n == 1)
            return true;
        break;
    case UP_NONE:
        break;
    }
    /* SOFA's getFromIndex gives element 0 here (Tetra2Triangle, Hexa2Quad,
     * Triangle2Edge: a face on no volume or on several) */
    if (!m->told_ambiguous) {
        if (r->rule == UP_FACE || r->rule == UP_CIRCLES)
            st_component_warn(&m->base,
                              "%s %u of %s is on %u %s of %s: not removed (SOFA would remove "
                              "element 0; said once)",
                              st_elem_name(r->out), i, out->name, n, st_elem_name(r->in),
                              in->name);
        else
            st_component_warn(&m->base,
                              "element %u of %s is beyond %s's index map: not removed (said "
                              "once)",
                              i, out->name, map->name);
    }
    m->told_ambiguous = true;
    return false;
}

/* Goes up the topological mappings from *topo, the items becoming the
 * mappings' input elements, as SOFA's manager does (the first topological
 * mapping of the topology's node, but SimpleTesselatedTetra, which sends
 * its output's changes up itself). False: a mapping this manager cannot go
 * up (told once), nothing to remove. */
static bool up_mappings(carving *m, st_component **topo)
{
    for (int depth = 0; depth < 32; depth++) {
        st_component *map = mapping_of((*topo)->node);
        if (!map)
            return true;
        const up_map *r = up_map_of(map);
        st_component *in = link_of(map, "input"), *out = link_of(map, "output");
        if (!r || r->rule == UP_NONE || !in || !out || !in->cls->topology) {
            if (!m->told_mapping)
                st_component_warn(&m->base,
                                  "removing elements through %s (%s) is not handled: %s; "
                                  "nothing removed (said once)",
                                  map->name, map->cls->name,
                                  r && r->why ? r->why : "no input element to map back to");
            m->told_mapping = true;
            return false;
        }
        m->nnext = 0;
        for (size_t i = 0; i < m->nitems; i++) {
            unsigned e;
            if (up_one(m, r, map, in, out, m->items[i], &e) &&
                !set_add(&m->next, &m->nnext, &m->capnext, e))
                return false;
        }
        unsigned *t = m->items;
        size_t tc = m->capitems;
        m->items = m->next;
        m->capitems = m->capnext;
        m->nitems = m->nnext;
        m->next = t;
        m->capnext = tc;
        *topo = in;
    }
    return true;
}

/* removeItems of the modifier found from topo's node: its own kind. */
static void remove_items(carving *m, st_component *topo, int base)
{
    if (!m->nitems)
        return;
    st_component *mod = st_find_modifier(topo->node, base);
    st_component *cont = mod ? st_node_find(mod->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP) : NULL;
    if (!cont) {
        st_component_warn(&m->base, "no topology modifier above %s: %zu elements not removed",
                          topo->name, m->nitems);
        return;
    }
    st_elem k = (st_elem)st_modifier_kind(mod);
    char path[256], list[160] = "";
    for (size_t i = 0, at = 0; i < m->nitems && at < sizeof list - 16; i++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%u", i ? " " : "",
                               m->items[m->nitems - 1 - i]);
    st_component_info(&m->base, "t=%g: removing %zu %s of %s: %s%s", st_node_time(m->base.node),
                      m->nitems, st_elem_name(k), st_component_path(cont, path, sizeof path), list,
                      strlen(list) >= sizeof list - 16 ? " ..." : "");
    st_error err = {0};
    /* A failed change is kept by the kernel, which stops the next step. */
    (void)st_topology_remove(cont, k, m->items, m->nitems, &err);
}

typedef enum { MK_NONE, MK_TRIANGLE, MK_POINT, MK_SPHERE, MK_LINE } model_kind;

static model_kind kind_of(const st_component *c)
{
    const char *n = c->cls->name;
    if (!strcmp(n, "TriangleCollisionModel") || !strcmp(n, "TriangleModelInRegularGrid") ||
        !strcmp(n, "TriangleOctreeCollisionModel"))
        return MK_TRIANGLE;
    if (!strcmp(n, "PointCollisionModel") || !strcmp(n, "SpatialGridPointModel"))
        return MK_POINT;
    if (!strcmp(n, "SphereCollisionModel")) {
        const st_state_type *t = st_component_state_type(c);
        return t && t->rigid ? MK_NONE : MK_SPHERE;
    }
    if (!strcmp(n, "LineCollisionModel"))
        return MK_LINE;
    return MK_NONE;
}

/* The topology a collision model reads (SOFA's getCollisionTopology). */
static st_component *model_topology(const st_component *model)
{
    st_component *topo = link_of((st_component *)model, "topology");
    if (!topo)
        topo = st_node_find(model->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    return topo && topo->cls->topology ? topo : NULL;
}

static bool is_dynamic(const st_component *topo)
{
    const st_topology_ops *o = topo->cls->topology;
    return o->struct_size >= offsetof(st_topology_ops, remove) + sizeof o->remove && o->remove;
}

/* ---- SOFA's shell order ---- */

static void stamp_added(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    shell_order *o = ud;
    (void)i;
    if (k == 0) {
        o->base = 0;
        for (size_t e = 0; e < ev->before; e++)
            if (o->stamp[e] >= o->base)
                o->base = o->stamp[e] + 1;
    }
    *(unsigned *)item = o->base + (unsigned)k;
}

static const st_topo_follow_ops stamp_ops = {.struct_size = sizeof stamp_ops,
                                             .create = stamp_added};

typedef struct topo_list {
    st_component **t;
    size_t n, cap;
    bool oom;
} topo_list;

static bool add_surface_topology(st_component *c, void *ud)
{
    topo_list *l = ud;
    if (!is_carved(c))
        return false;
    st_component *t = model_topology(c);
    if (!t || !is_dynamic(t))
        return false;
    for (size_t i = 0; i < l->n; i++)
        if (l->t[i] == t)
            return false;
    if (!grow((void **)&l->t, &l->cap, l->n + 1, sizeof *l->t)) {
        l->oom = true;
        return true;
    }
    l->t[l->n++] = t;
    return false;
}

/* Follows the volumes of the carved models' changing topologies. */
static st_status follow_orders(carving *m, st_error *err)
{
    topo_list l = {0};
    walk(st_node_root(m->base.node), add_surface_topology, &l);
    st_status rc = l.oom ? st_error_set(err, ST_ENOMEM, "out of memory") : ST_OK;
    if (rc == ST_OK && l.n && !(m->orders = st_calloc(2 * l.n, sizeof *m->orders)))
        rc = st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < l.n && rc == ST_OK; i++)
        for (int v = 0; v < 2 && rc == ST_OK; v++) {
            st_elem kind = v ? ST_ELEM_HEXAHEDRON : ST_ELEM_TETRAHEDRON;
            if (!count(l.t[i], kind) && !st_topology_can_change(l.t[i], ST_TOPO_ADDED, kind))
                continue; /* a container that never holds such volumes */
            shell_order *o = &m->orders[m->norders];
            o->topo = l.t[i];
            o->kind = kind;
            o->n = count(o->topo, o->kind);
            if (!(o->stamp = st_malloc((o->n ? o->n : 1) * sizeof *o->stamp))) {
                rc = st_error_set(err, ST_ENOMEM, "out of memory");
                break;
            }
            m->norders++;
            for (size_t e = 0; e < o->n; e++)
                o->stamp[e] = (unsigned)e;
            rc = st_topology_follow(&m->base, o->topo, o->kind, (void **)&o->stamp, &o->n,
                                    sizeof *o->stamp, &stamp_ops, o, err);
        }
    st_free(l.t);
    return rc;
}

/* SOFA's removeItemsFromCollisionModel for the elements ids[0..n) of
 * model. */
static void remove_from_model(carving *m, const st_component *model, const unsigned *ids,
                              size_t n)
{
    model_kind mk = kind_of(model);
    st_component *topo = model_topology(model);
    if (mk == MK_NONE || !topo)
        return;
    bool dynamic = is_dynamic(topo);
    m->nitems = 0;
    if (mk == MK_LINE) {
        if (!dynamic || (!count(topo, ST_ELEM_EDGE) && !count(topo, ST_ELEM_TRIANGLE)))
            return;
        for (size_t i = 0; i < n; i++)
            if (!set_add(&m->items, &m->nitems, &m->capitems, ids[i]))
                return;
        remove_items(m, topo, ST_ELEM_EDGE);
        return;
    }
    if (mk == MK_SPHERE) {
        if (!dynamic)
            return;
        for (size_t i = 0; i < n; i++)
            if (!set_add(&m->items, &m->nitems, &m->capitems, ids[i]))
                return;
    } else {
        if (mk == MK_TRIANGLE || mk == MK_POINT) {
            bool volumes = count(topo, ST_ELEM_TETRAHEDRON) || count(topo, ST_ELEM_HEXAHEDRON);
            if (!volumes)
                for (st_node *up = model->node; up; up = st_node_parent(up))
                    for (size_t i = 0; i < st_node_object_count(up); i++)
                        if (!strcmp(st_node_object(up, i)->cls->name,
                                    "Hexa2TetraTopologicalMapping")) {
                            st_component_warn(&m->base, "Removing element is not handle by "
                                                        "Hexa2TetraTopologicalMapping. Stopping "
                                                        "process.");
                            return;
                        }
        }
        if (mk == MK_TRIANGLE) {
            if (!items_of_triangles(m, topo, ids, n))
                return;
        } else {
            /* the triangles around each point, in a set */
            const st_array *tri = elements(topo, ST_ELEM_TRIANGLE);
            m->nnext = 0;
            for (size_t i = 0; i < n && tri; i++)
                for (size_t t = 0; t < tri->n; t++)
                    if (holds(tri, 3, t, &ids[i], 1) &&
                        !set_add(&m->next, &m->nnext, &m->capnext, (unsigned)t))
                        return;
            if (!items_of_triangles(m, topo, m->next, m->nnext))
                return;
        }
    }
    if (!up_mappings(m, &topo))
        return;
    remove_items(m, topo, -1);
}

static void carve(carving *m)
{
    m->nhits = 0;
    st_error err = {0};
    for (size_t i = 0; i < m->npipes; i++) {
        const st_collision_ops *o = detecting(m->pipes[i]);
        if (o->detections(m->pipes[i], m->narrow, collect, m, &err) != ST_OK) {
            st_component_warn(&m->base, "%s", err.msg);
            return;
        }
    }
    /* the outputs are copied: the removals may rebuild the pipeline's pairs */
    unsigned *ids = NULL;
    size_t capids = 0;
    for (size_t i = 0, j; i < m->nhits; i = j) {
        for (j = i + 1; j < m->nhits && m->hits[j].model == m->hits[i].model; j++)
            ;
        if (!grow((void **)&ids, &capids, j - i, sizeof *ids))
            break;
        for (size_t k = i; k < j; k++)
            ids[k - i] = m->hits[k].elem;
        remove_from_model(m, m->hits[i].model, ids, j - i);
    }
    st_free(ids);
}

static void carving_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    carving *m = (carving *)self;
    if (ev == ST_EVENT_INIT_DONE && self->state == ST_CSTATE_VALID && !m->ordered) {
        m->ordered = true;
        st_error err = {0};
        if (follow_orders(m, &err) != ST_OK)
            st_component_warn(self, "%s: the volumes around a face are taken in index order",
                              err.msg);
    }
    if (ev == ST_EVENT_ANIMATE_END && self->state == ST_CSTATE_VALID && m->active)
        carve(m);
}

static void carving_on_input(st_component *self, const st_input_event *ev)
{
    carving *m = (carving *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    bool on = m->active;
    if (ev->kind == ST_INPUT_KEY_PRESSED) {
        if (ev->key == m->key[0])
            on = true;
        else if (ev->key == m->key_switch[0])
            on = !on;
    } else if (ev->kind == ST_INPUT_KEY_RELEASED && ev->key == m->key[0]) {
        on = false;
    }
    if (on != m->active) {
        m->active = on;
        st_component_touch(self, st_component_field(self, "active"));
    }
}

static void carving_cleanup(st_component *self)
{
    carving *m = (carving *)self;
    st_free(m->pipes);
    st_free(m->hits);
    st_free(m->items);
    st_free(m->next);
    for (size_t i = 0; i < m->norders; i++)
        st_free(m->orders[i].stamp);
    st_free(m->orders);
}

const st_class carving_manager_class = {
    .struct_size = sizeof(st_class),
    .name = "CarvingManager",
    .category = "Controller",
    .description = "Manager handling carving operations between a tool and an object.",
    .instance_size = sizeof(carving),
    .fields = carving_fields,
    .init = carving_init,
    .cleanup = carving_cleanup,
    .on_event = carving_on_event,
    .on_input = carving_on_input,
};
