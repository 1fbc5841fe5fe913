/* topology_bounding_trasher.c - SOFA's TopologyBoundingTrasher: at the end
 * of each step, removes the elements whose barycentre (the mean of their
 * vertices' `position`, usually linked to the state's) lies outside `box`
 * (xmin ymin zmin xmax ymax zmax; on the boundary counts as inside). The
 * element kind is chosen once at init, as SOFA does: hexahedra if the
 * topology has any, else tetrahedra, quads, triangles, edges; the removal
 * goes through the topology (st_topology_remove), with the isolated
 * sub-elements and points, ids in increasing order. A topology without a
 * modifier of that kind beside it is SOFA's error, and nothing is removed. */
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

typedef struct trasher {
    st_component base;
    st_array position;
    st_array box;
    bool draw_box;
    st_component *topology;
    int kind;           /* the element kind removed, -1: none */
    unsigned *ids;      /* scratch: the elements outside */
    size_t capids;
} trasher;

static const st_field trasher_fields[] = {
    ST_VEC3S(trasher, position, "position", NULL,
             "position coordinates of the topology object to interact with."),
    ST_REALS_N(trasher, box, "box", "-1000 -1000 -1000 1000 1000 1000",
               "List of boxes defined by xmin,ymin,zmin, xmax,ymax,zmax", 6),
    ST_IGNORED(trasher, draw_box, "drawBox", ST_T_BOOL, bool, "false", "Draw bounding box"),
    ST_LINK(trasher, topology, "topology", ST_LINK_TOPOLOGY, "link to the topology container"),
    ST_FIELD_END};

static const st_type kind_types[ST_ELEM_COUNT] = {0, ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS,
                                                  ST_T_TETRAS, ST_T_HEXAS};
static const char *const kind_class[ST_ELEM_COUNT] = {
    NULL, "EdgeSetTopologyModifier", "TriangleSetTopologyModifier", "QuadSetTopologyModifier",
    "TetrahedronSetTopologyModifier", "HexahedronSetTopologyModifier"};
static const char *const kind_word[ST_ELEM_COUNT] = {NULL,  "Edge", "Triangle",
                                                     "Quad", "Tetrahedron", "Hexahedron"};

static const st_array *elements(trasher *t, int kind)
{
    const st_topology_ops *ops = t->topology->cls->topology;
    return ops->elements ? ops->elements(t->topology, kind_types[kind]) : NULL;
}

static bool has_modifier(st_node *n, const char *cls)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++)
            if (!strcmp(st_node_object(n, i)->cls->name, cls))
                return true;
    return false;
}

static st_status trasher_init(st_component *self, st_error *err)
{
    trasher *t = (trasher *)self;
    if (!t->topology)
        t->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!t->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: , nor in current "
                                  "context: %s",
                                  st_node_name(self->node));
    t->kind = -1;
    static const int order[] = {ST_ELEM_HEXAHEDRON, ST_ELEM_TETRAHEDRON, ST_ELEM_QUAD,
                                ST_ELEM_TRIANGLE, ST_ELEM_EDGE};
    for (size_t i = 0; i < sizeof order / sizeof *order && t->kind < 0; i++) {
        const st_array *a = elements(t, order[i]);
        if (a && a->n)
            t->kind = order[i];
    }
    if (t->kind >= 0 && !has_modifier(self->node, kind_class[t->kind])) {
        st_component_warn(self,
                          "%s topology but no modifier found. Add the component %s: nothing "
                          "will be removed",
                          kind_word[t->kind], kind_class[t->kind]);
        t->kind = -1;
    }
    if (t->kind >= 0 && !t->position.n && !st_component_is_set(self, "position"))
        st_component_warn(self, "position is empty: link it to the state's position "
                                "(position: \"@dofs.position\"); nothing will be removed");
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool outside(const double *box, const double *p)
{
    for (int a = 0; a < 3; a++)
        if (p[a] < box[a] || p[a] > box[3 + a])
            return true;
    return false;
}

static void trasher_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    trasher *t = (trasher *)self;
    if (ev != ST_EVENT_ANIMATE_END || t->kind < 0 || t->box.n != 6)
        return;
    st_error uerr = {0};
    if (st_component_update_inputs(self, &uerr) != ST_OK)
        return;
    const st_array *a = elements(t, t->kind);
    if (!a || !a->n)
        return;
    unsigned w = st_elem_vertices((st_elem)t->kind);
    if (t->capids < a->n) {
        unsigned *p = st_realloc(t->ids, a->n * sizeof *p);
        if (!p)
            return;
        t->ids = p;
        t->capids = a->n;
    }
    size_t n = 0;
    for (size_t e = 0; e < a->n; e++) {
        double c[3] = {0, 0, 0};
        bool ok = true;
        for (unsigned v = 0; v < w && ok; v++) {
            unsigned p = a->u[e * w + v];
            ok = p < t->position.n;
            for (int k = 0; ok && k < 3; k++)
                c[k] += t->position.r[3 * (size_t)p + k];
        }
        if (!ok)
            continue;
        for (int k = 0; k < 3; k++)
            c[k] /= w;
        if (outside(t->box.r, c))
            t->ids[n++] = (unsigned)e;
    }
    st_error err = {0};
    /* A failed change is kept by the kernel, which stops the next step. */
    if (n)
        (void)st_topology_remove(t->topology, (st_elem)t->kind, t->ids, n, &err);
}

static void trasher_cleanup(st_component *self) { st_free(((trasher *)self)->ids); }

const st_class topology_bounding_trasher_class = {
    .struct_size = sizeof(st_class),
    .name = "TopologyBoundingTrasher",
    .category = "Topology",
    .description = "Removes the elements whose barycentre leaves a box",
    .instance_size = sizeof(trasher),
    .fields = trasher_fields,
    .init = trasher_init,
    .cleanup = trasher_cleanup,
    .on_event = trasher_on_event,
};
