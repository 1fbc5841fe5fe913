/* topology_checker.c - SOFA's TopologyChecker: checks that a topology
 * container's element lists agree with each other, at the end of each step
 * when `eachStep` is set and at reinit (SOFA's GUI key 'T' too; settee has
 * no GUI). As SOFA, the check starts from the highest element kind the
 * container holds and goes down: hexahedra, then their quads, then edges;
 * tetrahedra, then triangles, then edges. For each kind:
 *   - the container: no element with two identical vertices, no vertex id
 *     that is invalid or beyond the points (SOFA finds those through the
 *     shells around vertices, which then miss the element);
 *   - the cross containers: every sub-element of an element (a triangle's
 *     edges, a tetrahedron's triangles and edges, a quad's edges, a
 *     hexahedron's quads and edges) is in the sub-element list (SOFA: an
 *     invalid id in EdgesInTriangle, TrianglesInTetrahedron, ...).
 * settee derives the shells around vertices and elements from these lists
 * whenever they are needed, so they cannot disagree with them; what can is
 * the lists themselves, as a scene or a change gives them. Each failure is
 * a warning with SOFA's wording (SOFA logs errors and goes on: so does
 * settee); `checkTopology` (read-only) holds the last check's result. */
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/tuple_set.h"

typedef struct checker {
    st_component base;
    bool each_step;
    st_component *topology;
    bool ok; /* the last check's result */
} checker;

static const st_field checker_fields[] = {
    ST_BOOL(checker, each_step, "eachStep", "false", "Check topology at each step"),
    ST_LINK(checker, topology, "topology", ST_LINK_TOPOLOGY, "link to the topology container"),
    ST_OUTPUT(checker, ok, "checkTopology", ST_T_BOOL, bool,
              "output (settee): the result of the last check (true: consistent, or never "
              "checked)"),
    ST_FIELD_END};

enum { K_EDGE = 1, K_TRIANGLE, K_QUAD, K_TETRA, K_HEXA };

static const st_type kind_type[6] = {0, ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                     ST_T_HEXAS};
static const char *const kind_word[6] = {NULL, "Edge", "Triangle", "Quad", "Tetrahedron",
                                         "Hexahedron"};
static const char *const kind_lower[6] = {NULL, "edge", "triangle", "quad", "tetrahedron",
                                          "hexahedron"};

/* Sub-elements by corner, in SOFA's orders. */
static const unsigned tri_edges[3][2] = {{0, 1}, {1, 2}, {2, 0}};
static const unsigned quad_edges[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
static const unsigned tet_tris[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
static const unsigned tet_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const unsigned hex_quads[6][4] = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                         {1, 2, 6, 5}, {2, 3, 7, 6}, {3, 0, 4, 7}};
static const unsigned hex_edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                          {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};

static const st_array *elements(const checker *c, int kind)
{
    const st_topology_ops *ops = c->topology->cls->topology;
    return ops->elements ? ops->elements(c->topology, kind_type[kind]) : NULL;
}

/* The container of one kind: identical vertices, invalid ids. */
static bool check_container(const checker *c, int kind)
{
    const st_array *a = elements(c, kind);
    const unsigned w = st_type_width(kind_type[kind]);
    const size_t np = c->topology->cls->topology->nb_points(c->topology);
    bool ok = true;
    for (size_t e = 0; a && e < a->n; e++) {
        const unsigned *v = a->u + (size_t)w * e;
        bool same = false, bad = false;
        for (unsigned i = 0; i < w; i++) {
            bad = bad || v[i] >= np;
            for (unsigned j = i + 1; j < w; j++)
                same = same || v[i] == v[j];
        }
        char list[128];
        int k = 0;
        for (unsigned i = 0; i < w && k < (int)sizeof list - 12; i++)
            k += snprintf(list + k, sizeof list - (size_t)k, i ? " %u" : "%u", v[i]);
        if (same) {
            st_component_warn(&c->base, "Check%sTopology failed: %s %zu has 2 identical vertices: %s",
                              kind_word[kind], kind_lower[kind], e, list);
            ok = false;
        }
        if (bad) {
            st_component_warn(&c->base,
                              "Check%sTopology failed: %s %zu has an invalid vertex id: %s (the "
                              "container has %zu points)",
                              kind_word[kind], kind_lower[kind], e, list, np);
            ok = false;
        }
    }
    return ok;
}

/* Every sub-element (nsub of width sw, corners in `def`) of each element of
 * `kind` is in the list of `sub`. */
static bool check_cross(const checker *c, int kind, int sub, const unsigned *def, unsigned nsub,
                        unsigned sw, const char *table)
{
    const st_array *a = elements(c, kind), *s = elements(c, sub);
    if (!a || a->n == 0)
        return true;
    const unsigned w = st_type_width(kind_type[kind]);
    tuple_set set = {.width = sw};
    st_error err = {0};
    bool ok = true, fresh;
    for (size_t i = 0; s && i < s->n; i++) {
        unsigned key[4];
        memcpy(key, s->u + (size_t)sw * i, sw * sizeof *key);
        tuple_sort(key, sw);
        if (tuple_set_insert(&set, key, &fresh, &err) != ST_OK) {
            st_component_warn(&c->base, "out of memory: the %s were not checked", table);
            tuple_set_free(&set);
            return false;
        }
    }
    for (size_t e = 0; e < a->n; e++) {
        const unsigned *v = a->u + (size_t)w * e;
        for (unsigned f = 0; f < nsub; f++) {
            unsigned key[4];
            for (unsigned k = 0; k < sw; k++)
                key[k] = v[def[f * sw + k]];
            tuple_sort(key, sw);
            if (tuple_set_find(&set, key) == (size_t)-1) {
                char list[64];
                int n = 0;
                for (unsigned k = 0; k < sw; k++)
                    n += snprintf(list + n, sizeof list - (size_t)n, k ? " %u" : "%u", key[k]);
                st_component_warn(&c->base,
                                  "Check%sTopology failed: %s of %s %zu has an invalid ID: its "
                                  "%s %u [%s] is not in the %s list",
                                  kind_word[kind], table, kind_lower[kind], e, kind_lower[sub], f,
                                  list, kind_lower[sub]);
                ok = false;
            }
        }
    }
    tuple_set_free(&set);
    return ok;
}

static bool check_edges(const checker *c) { return check_container(c, K_EDGE); }

static bool check_triangles(const checker *c)
{
    if (!check_container(c, K_TRIANGLE))
        return false;
    bool ok = check_cross(c, K_TRIANGLE, K_EDGE, &tri_edges[0][0], 3, 2, "EdgesInTriangle");
    return ok && check_edges(c);
}

static bool check_quads(const checker *c)
{
    if (!check_container(c, K_QUAD))
        return false;
    bool ok = check_cross(c, K_QUAD, K_EDGE, &quad_edges[0][0], 4, 2, "EdgesInQuad");
    return ok && check_edges(c);
}

static bool check_tetrahedra(const checker *c)
{
    if (!check_container(c, K_TETRA))
        return false;
    bool ok = check_cross(c, K_TETRA, K_TRIANGLE, &tet_tris[0][0], 4, 3,
                          "TrianglesInTetrahedron");
    ok = ok && check_cross(c, K_TETRA, K_EDGE, &tet_edges[0][0], 6, 2, "EdgesInTetrahedron");
    return ok && check_triangles(c);
}

static bool check_hexahedra(const checker *c)
{
    if (!check_container(c, K_HEXA))
        return false;
    bool ok = check_cross(c, K_HEXA, K_QUAD, &hex_quads[0][0], 6, 4, "QuadsInHexahedron");
    ok = ok && check_cross(c, K_HEXA, K_EDGE, &hex_edges[0][0], 12, 2, "EdgesInHexahedron");
    return ok && check_quads(c);
}

/* SOFA's checkTopology: from the container's highest element kind. */
static bool check_topology(checker *c)
{
    static const int order[] = {K_HEXA, K_TETRA, K_QUAD, K_TRIANGLE, K_EDGE};
    int kind = 0;
    for (size_t i = 0; i < sizeof order / sizeof *order && !kind; i++) {
        const st_array *a = elements(c, order[i]);
        if (a && a->n)
            kind = order[i];
    }
    bool ok = true;
    switch (kind) {
    case K_HEXA:
        ok = check_hexahedra(c);
        break;
    case K_TETRA:
        ok = check_tetrahedra(c);
        break;
    case K_QUAD:
        ok = check_quads(c);
        break;
    case K_TRIANGLE:
        ok = check_triangles(c);
        break;
    case K_EDGE:
        ok = check_edges(c);
        break;
    default:
        break;
    }
    c->ok = ok;
    st_component_touch(&c->base, st_component_field(&c->base, "checkTopology"));
    return ok;
}

static st_status checker_init(st_component *self, st_error *err)
{
    checker *c = (checker *)self;
    if (!c->topology)
        c->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!c->topology || !c->topology->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: , nor in current "
                                  "context: %s",
                                  st_node_name(self->node));
    c->ok = true;
    return ST_OK;
}

/* SOFA checks at reinit, not at init. */
static st_status checker_reinit(st_component *self, st_error *err)
{
    ST_TRY(checker_init(self, err));
    check_topology((checker *)self);
    return ST_OK;
}

static void checker_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    checker *c = (checker *)self;
    if (ev == ST_EVENT_ANIMATE_END && c->each_step && c->topology)
        check_topology(c);
}

const st_class topology_checker_class = {
    .struct_size = sizeof(st_class),
    .name = "TopologyChecker",
    .category = "Topology",
    .description = "Checks that a topology container's element lists are consistent (at each "
                   "step with eachStep, and at reinit)",
    .instance_size = sizeof(checker),
    .fields = checker_fields,
    .init = checker_init,
    .reinit = checker_reinit,
    .on_event = checker_on_event,
};
