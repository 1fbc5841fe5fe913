/* triangle_collision_model.c - TriangleCollisionModel: collision model using a triangular mesh, as described in a topology (its triangles, and its quads cut in two).
 * Common data, boxes and the contact forces: model_common.c. */
#include <string.h>

#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_IGNORED(cmodel, both_side, "bothSide", ST_T_BOOL, bool, "false",
               "activate collision on both side of the triangle model (no effect with "
               "MinProximityIntersection)"),
    ST_IGNORED(cmodel, compute_normals, "computeNormals", ST_T_BOOL, bool, "true",
               "set to false to disable computation of triangles normal (normals are not used "
               "by MinProximityIntersection)"),
    ST_IGNORED(cmodel, use_curvature, "useCurvature", ST_T_BOOL, bool, "false",
               "use the curvature of the mesh to avoid some self-intersection test (not used)"),
    ST_LINK(cmodel, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the topology of the node or above)"),
    ST_FIELD_END};

static const char *const aliases[] = {"TriangleModel", NULL};

CMODEL_CLASS(triangle_collision_model_class, "TriangleCollisionModel", CM_TRIANGLE,
             "Collision model using a triangular mesh, as described in a topology (its triangles, and its quads cut in two)",
             NULL);

/* TriangleModelInRegularGrid: SOFA's triangle model whose bounding tree is
 * one cube, the box of the points of the topology its triangles come from
 * through topological mappings (followed from its topology, as SOFA walks
 * every TopologicalMapping of the scene whose output is the current one),
 * or of its own points when none leads there. The triangles, their normals
 * and their contacts are TriangleCollisionModel's; only the cube differs:
 * a model whose elements lie outside it (a surface not mapped from the
 * grid) is pruned by it, as in SOFA. */
static st_component *link_of(const st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    if (!f || f->type != ST_T_LINK)
        return NULL;
    return *(st_component *const *)st_component_field_ptr((st_component *)c, f);
}

typedef struct topo_maps {
    const st_component **v;
    size_t n, cap;
    bool oom;
} topo_maps;

static void collect_topo_maps(const st_node *n, topo_maps *m)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        const st_component *c = st_node_object(n, i);
        if (!c->cls->category || strcmp(c->cls->category, "TopologicalMapping"))
            continue;
        if (m->n == m->cap) {
            size_t cap = m->cap ? 2 * m->cap : 8;
            const st_component **v = st_realloc(m->v, cap * sizeof *v);
            if (!v) {
                m->oom = true;
                return;
            }
            m->v = v;
            m->cap = cap;
        }
        m->v[m->n++] = c;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        collect_topo_maps(st_node_child(n, i), m);
}

static st_status grid_init(st_component *self, st_error *err)
{
    cmodel *m = (cmodel *)self;
    ST_TRY(cmodel_init(m, CM_TRIANGLE, err));
    st_component *topo =
        m->topology ? m->topology : st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!topo)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "TriangleModelInRegularGrid requires a BaseMeshTopology");
    topo_maps maps = {0};
    collect_topo_maps(st_node_root(self->node), &maps);
    if (maps.oom) {
        st_free(maps.v);
        return st_error_set(err, ST_ENOMEM, "out of memory listing topological mappings");
    }
    /* SOFA's walk: pass over the mappings while one outputs the current
     * topology (several hops can happen in one pass); bounded here. */
    const st_component *higher = topo, *mapping = NULL;
    const st_mstate *state = m->ms;
    bool found = true;
    for (size_t pass = 0; found && pass <= maps.n; pass++) {
        found = false;
        for (size_t i = 0; i < maps.n && higher; i++) {
            if (link_of(maps.v[i], "output") != higher)
                continue;
            found = true;
            mapping = maps.v[i];
            higher = link_of(mapping, "input");
            if (higher)
                state = st_node_mstate(higher->node);
        }
        if (!higher)
            break;
    }
    st_free(maps.v);
    if (mapping && !higher)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Topological Mapping %s returns a from topology pointer equal "
                                  "to nullptr.",
                                  mapping->name);
    if (!state || state->type != &st_vec3d_type)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the topology %s the bounding tree is computed from has no "
                                  "Vec3d MechanicalObject in its node",
                                  higher->name);
    if (higher != topo)
        st_component_info(self, "Using the %s \"%s\" to compute the bounding trees.",
                          higher->cls->name, higher->name);
    else
        st_component_info(self, "Keeping the TriangleCollisionModel<sofa::defaulttype::Vec3Types> "
                                "to compute the bounding trees.");
    m->grid_state = state;
    return ST_OK;
}

const st_class triangle_model_in_regular_grid_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangleModelInRegularGrid",
    .category = "CollisionModel",
    .description = "Collision model using a triangular mesh in a regular grid, as described in "
                   "BaseMeshTopology (a triangle model bounded by one cube: the box of the "
                   "points of the topology its triangles are mapped from)",
    .instance_size = sizeof(cmodel),
    .fields = fields,
    .init = grid_init,
    .cleanup = cmodel_cleanup,
    .forcefield = &cmodel_forcefield_ops,
};
