/* tetra2triangle_mapping.c - Tetra2TriangleTopologicalMapping: fills a
 * triangle container with the border triangles of a tetrahedral topology,
 * those held by exactly one tetrahedron, in the input's triangle order and
 * orientation (the input derives each triangle from the first tetrahedron
 * holding it, oriented outward of it; a border triangle has only that one, so
 * it points out of the volume). flipNormals reverses each as (v0, v2, v1). */
#include "topology.h"

typedef struct tetra2triangle {
    st_component base;
    st_component *input;    /* "input": tetrahedral topology */
    st_component *output;   /* "output": TriangleSetTopologyContainer */
    st_component *modifier; /* "modifier": optional, unused (no topological changes) */
    bool flip_normals;      /* "flipNormals" */
    bool no_new_triangles;  /* "noNewTriangles" (only affects topological changes) */
    bool no_initial;        /* "noInitialTriangles" */
} tetra2triangle;

static const st_field tetra2triangle_fields[] = {
    TOPO_MAP_LINKS(tetra2triangle, "Input topology (tetrahedra)",
                   "Output topology (a TriangleSetTopologyContainer)"),
    ST_LINK(tetra2triangle, modifier, "modifier",
            ST_LINK_ANY, "Optional link to a topology modifier (settee changes no topology at run "
                         "time: accepted, not used)"),
    ST_BOOL(tetra2triangle, flip_normals, "flipNormals", "false",
            "Flip Normal ? (Inverse point order when creating triangle)"),
    ST_IGNORED(tetra2triangle, no_new_triangles, "noNewTriangles", ST_T_BOOL, bool, "false",
               "If true no new triangles are being created (only affects topological changes, "
               "which settee does not simulate)"),
    ST_BOOL(tetra2triangle, no_initial, "noInitialTriangles", "false",
            "If true the list of initial triangles is initially empty. Only additional triangles "
            "will be added in the list"),
    ST_FIELD_END};

/* The faces of a tetrahedron (any orientation: only their vertex sets count). */
static const unsigned tetra_faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {1, 3, 0}, {0, 2, 1}};

static st_status tetra2triangle_init(st_component *self, st_error *err)
{
    tetra2triangle *m = (tetra2triangle *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "tetrahedra", "triangles", TOPO_DYNAMIC,
                          "TriangleSetTopologyContainer", err));
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"triangles", "edges", NULL};
    topo_map_begin(m->input, out, lists);
    const st_topology_ops *in = m->input->cls->topology;
    const st_array *tetras = in->elements(m->input, ST_T_TETRAS);
    const st_array *tris = in->elements(m->input, ST_T_TRIANGLES);
    if (!m->no_initial && tetras && tris && tetras->n > 0) {
        unsigned *counts = NULL;
        ST_TRY(topo_map_count_owners(tris, 3, tetras, 4, &tetra_faces[0][0], 4, &counts, err));
        st_status s = ST_OK;
        for (size_t i = 0; i < tris->n && s == ST_OK; i++) {
            if (counts[i] != 1)
                continue;
            const unsigned *t = tris->u + 3 * i;
            unsigned v[3] = {t[0], m->flip_normals ? t[2] : t[1], m->flip_normals ? t[1] : t[2]};
            s = topo_push(&out->triangles, ST_T_TRIANGLES, v, err);
        }
        st_free(counts);
        ST_TRY(s);
    } else if (!m->no_initial) {
        st_component_warn(self, "the input topology '%s' has no tetrahedra: the output stays empty",
                          m->input->name);
    }
    ST_TRY(topo_map_end(out, "triangles", err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class tetra2triangle_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "Tetra2TriangleTopologicalMapping",
    .category = "TopologicalMapping",
    .description = "Topological mapping where TetrahedronSetTopology is converted to "
                   "TriangleSetTopology (border triangles, oriented outward)",
    .instance_size = sizeof(tetra2triangle),
    .fields = tetra2triangle_fields,
    .init = tetra2triangle_init,
    .reinit = tetra2triangle_init,
};
