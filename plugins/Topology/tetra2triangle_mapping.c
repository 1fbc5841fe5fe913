/* tetra2triangle_mapping.c - Tetra2TriangleTopologicalMapping: fills a
 * triangle container with the border triangles of a tetrahedral topology,
 * those held by exactly one tetrahedron, in the input's triangle order and
 * orientation (the input derives each triangle from the first tetrahedron
 * holding it, oriented outward of it; a border triangle has only that one, so
 * it points out of the volume). flipNormals reverses each as (v0, v2, v1).
 *
 * Topological changes (SOFA's updateTopologicalMappingTopDown): removing
 * tetrahedra adds the faces they exposed (oriented outward of the tetrahedron
 * that stays, flipped with flipNormals, rotated so that the smallest index
 * comes first; none with noNewTriangles) and removes the output triangles
 * whose input triangle went; removed points are removed from the output.
 * Adding tetrahedra adds the input's edges to the output as they come, then
 * the border triangles of the new tetrahedra not yet mapped (as the input
 * holds them; none with noNewTriangles), and removes the mapped triangles
 * that a new tetrahedron covered (no longer on the border). */
#include "topology.h"

typedef struct tetra2triangle {
    st_component base;
    st_component *input;    /* "input": tetrahedral topology */
    st_component *output;   /* "output": TriangleSetTopologyContainer */
    st_component *modifier; /* "modifier": optional, unused (no topological changes) */
    bool flip_normals;      /* "flipNormals" */
    bool no_new_triangles;  /* "noNewTriangles" (only affects topological changes) */
    bool no_initial;        /* "noInitialTriangles" */
    topo_map_prop prop;     /* propagation of the input's changes */
} tetra2triangle;

static const st_field tetra2triangle_fields[] = {
    TOPO_MAP_LINKS(tetra2triangle, "Input topology (tetrahedra)",
                   "Output topology (a TriangleSetTopologyContainer)"),
    ST_LINK(tetra2triangle, modifier, "modifier",
            ST_LINK_ANY, "Optional link to the output's TriangleSetTopologyModifier (default: "
                         "searched from the output's node upward)"),
    ST_BOOL(tetra2triangle, flip_normals, "flipNormals", "false",
            "Flip Normal ? (Inverse point order when creating triangle)"),
    ST_BOOL(tetra2triangle, no_new_triangles, "noNewTriangles", "false",
            "If true no new triangles are being created"),
    ST_BOOL(tetra2triangle, no_initial, "noInitialTriangles", "false",
            "If true the list of initial triangles is initially empty. Only additional triangles "
            "will be added in the list"),
    ST_FIELD_END};

/* The faces of a tetrahedron, slot j opposite vertex j, oriented outward
 * (SOFA's trianglesOrientationInTetrahedronArray). */
static const unsigned tetra_faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {1, 3, 0}, {0, 2, 1}};

/* A face exposed by a removal, oriented outward of `other`. */
static void exposed_triangle(const topo_map_prop *p, const unsigned *other, unsigned pos,
                             unsigned g, unsigned *out)
{
    (void)g;
    unsigned f[3] = {other[tetra_faces[pos][0]], other[tetra_faces[pos][1]],
                     other[tetra_faces[pos][2]]};
    if (p->flip) {
        unsigned t = f[2];
        f[2] = f[1];
        f[1] = t;
    }
    while (f[0] > f[1] || f[0] > f[2]) {
        unsigned t = f[0];
        f[0] = f[1];
        f[1] = f[2];
        f[2] = t;
    }
    out[0] = f[0], out[1] = f[1], out[2] = f[2];
}

static const topo_map_desc tetra2triangle_desc = {
    .vol = ST_ELEM_TETRAHEDRON,
    .face = ST_ELEM_TRIANGLE,
    .out = ST_ELEM_TRIANGLE,
    .slots = &tetra_faces[0][0],
    .nslots = 4,
    .batch = true,
    .exposed = exposed_triangle,
    .faces_added = topo_map_vols_added,
    .copy_edges = true,
    .copy_points = true,
};

static st_status tetra2triangle_changed(st_component *self, st_component *topology,
                                        const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    tetra2triangle *m = (tetra2triangle *)self;
    static const char *const modifiers[] = {"TriangleSetTopologyModifier",
                                            "TetrahedronSetTopologyModifier", NULL};
    if (!m->modifier && !topo_map_find_modifier(m->output->node, modifiers))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "No TriangleSetTopologyModifier found in output topology "
                                  "context (%s): the output cannot follow the change of '%s'",
                                  m->output->name, m->input->name);
    m->prop.flip = m->flip_normals;
    m->prop.no_new = m->no_new_triangles;
    return topo_map_prop_changed(&m->prop, ev, nev, err);
}

static void tetra2triangle_cleanup(st_component *self)
{
    topo_map_prop_free(&((tetra2triangle *)self)->prop);
}

static st_status tetra2triangle_init(st_component *self, st_error *err)
{
    tetra2triangle *m = (tetra2triangle *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(topo_map_check(self, m->input, m->output, "tetrahedra", "triangles", TOPO_DYNAMIC,
                          "TriangleSetTopologyContainer", err));
    topo *out = (topo *)m->output;
    static const char *const lists[] = {"triangles", "edges", NULL};
    topo_map_begin(m->input, out, lists);
    topo_map_prop *p = &m->prop;
    p->d = &tetra2triangle_desc;
    p->self = self, p->input = m->input, p->output = m->output;
    p->flip = m->flip_normals, p->no_new = m->no_new_triangles;
    p->nloc = 0;
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
            if (s == ST_OK)
                s = topo_map_loc_push(p, (unsigned)i, err);
        }
        st_free(counts);
        ST_TRY(s);
    } else if (!m->no_initial) {
        st_component_warn(self, "the input topology '%s' has no tetrahedra: the output stays empty",
                          m->input->name);
    }
    ST_TRY(topo_map_end(out, "triangles", err));
    ST_TRY(topo_map_prop_init(p, tetra2triangle_changed, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

TOPO_MAP_CHECKPOINT(tetra2triangle);

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
    .cleanup = tetra2triangle_cleanup,
    .checkpoint = &tetra2triangle_checkpoint_ops,
};
