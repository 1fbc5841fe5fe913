/* triangular_bending_springs.c - TriangularBendingSprings: for every edge
 * shared by exactly two triangles, a linear spring between the two vertices
 * opposite the edge, as SOFA builds them.
 *
 * Triangles are visited in order, and each one's sides j = 0, 1, 2 (side j
 * is the edge opposite vertex j); the first visit of an edge decides it: with
 * two triangles around it, m1 is the vertex opposite the edge in the other
 * triangle, m2 the one in the visiting triangle (so m2 lies in the lower
 * triangle), rest length |x0[m1] - x0[m2]|, ks = stiffness, kd = damping.
 * Springs are kept in edge order. The force is SOFA's spring law (see
 * springs.c), with no force below a length of 1e-4. SOFA's
 * getPotentialEnergy is not implemented (0 with an error); here the energy
 * is the springs' sum of ks (d - L0)^2 / 2, the value SOFA accumulates in
 * addForce. */
#include <math.h>

#include "springs.h"

typedef struct tri_bending {
    spring_head h;
    double ks;            /* "stiffness" */
    double kd;            /* "damping" */
    bool show_springs;    /* "showSprings" */
    st_component *topology;
} tri_bending;

static st_status tbs_init(st_component *self, st_error *err)
{
    tri_bending *b = (tri_bending *)self;
    springs_free(&b->h.set);
    st_mstate *ms = NULL;
    ST_TRY(bending_bind(self, &b->topology, &ms, err));
    b->h.set.ms1 = b->h.set.ms2 = ms;
    b->h.set.min_length = 1.0e-4;
    const st_topology_ops *t = b->topology->cls->topology;
    const st_array *tris = t->elements(b->topology, ST_T_TRIANGLES);
    const st_array *edges = t->elements(b->topology, ST_T_EDGES);
    if (!tris || tris->n == 0)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "object must have a Triangular Set Topology ('%s' has no "
                                  "triangles)",
                                  b->topology->name);
    for (size_t i = 0; i < 3 * tris->n; i++)
        if (tris->u[i] >= ms->n)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "triangle %zu uses vertex %u but the state has %zu points",
                                      i / 3, tris->u[i], ms->n);
    elem_edges ee;
    ST_TRY(elem_edges_build(self, edges, tris, 3, &ee, err));
    /* Per edge: the spring's ends, or none. */
    unsigned *ends = st_calloc(2 * ee.n_edges + 1, sizeof *ends);
    unsigned char *state = st_calloc(ee.n_edges + 1, 1); /* 0 new, 1 off, 2 on */
    st_status s = ends && state ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < tris->n && s == ST_OK; i++)
        for (unsigned j = 0; j < 3; j++) {
            unsigned k = ee.side[3 * i + j];
            if (state[k])
                continue;
            if (ee.count[k] != 2) {
                state[k] = 1;
                continue;
            }
            size_t other = ee.around[2 * k] == i ? ee.around[2 * k + 1] : ee.around[2 * k];
            unsigned i1 = elem_edges_index(&ee, 3, other, k);
            ends[2 * k] = tris->u[3 * other + i1];
            ends[2 * k + 1] = tris->u[3 * i + j];
            state[k] = 2;
        }
    const double *x0 = ms->rest_position.r;
    for (size_t k = 0; k < ee.n_edges && s == ST_OK; k++) {
        if (state[k] != 2)
            continue;
        const double *p = x0 + 3 * ends[2 * k], *q = x0 + 3 * ends[2 * k + 1];
        double u[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
        spring sp = {ends[2 * k], ends[2 * k + 1], b->ks, b->kd,
                     sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), false, true};
        s = springs_push(&b->h.set, sp, err);
    }
    st_free(ends);
    st_free(state);
    elem_edges_free(&ee);
    ST_TRY(s);
    return springs_finish(&b->h.set, err);
}

static void tbs_cleanup(st_component *self) { springs_free(&((tri_bending *)self)->h.set); }

static const st_field tbs_fields[] = {
    ST_REAL_RANGE(tri_bending, ks, "stiffness", "100000", "uniform stiffness for the all springs",
                  0.0, 1e300),
    ST_REAL_RANGE(tri_bending, kd, "damping", "1", "uniform damping for the all springs", 0.0,
                  1e300),
    ST_IGNORED(tri_bending, show_springs, "showSprings", ST_T_BOOL, bool, "true",
               "option to draw springs"),
    SPRING_F_RAYLEIGH_HEAD(tri_bending),
    ST_LINK(tri_bending, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ST_FIELD_END};

const st_class triangular_bending_springs_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangularBendingSprings",
    .category = "ForceField",
    .description = "Springs between the vertices opposite each edge shared by two triangles "
                   "(bending resistance of a triangulated surface)",
    .instance_size = sizeof(tri_bending),
    .fields = tbs_fields,
    .init = tbs_init,
    .cleanup = tbs_cleanup,
    .forcefield = &spring_head_ops,
};
