/* quadular_bending_springs.c - QuadularBendingSprings: for every edge shared
 * by exactly two quads, two linear springs across it, as SOFA builds them.
 *
 * Side j of quad q is the edge (q[j+1], q[j+2]) (indices mod 4). Quads are
 * visited in order, each one's sides j = 0..3; the first visit of an edge
 * with two quads around it, from quad t2 at side i2 with the other quad t1
 * holding the edge at its side i1, makes the springs (t1[i1], t2[i2+3]) and
 * (t1[i1+3], t2[i2]): with both quads oriented alike these join the two
 * vertices beside each end of the edge, one in each quad. Rest lengths from
 * the rest positions, ks = stiffness, kd = damping, springs in edge order,
 * SOFA's spring law (springs.c) with no force below a length of 1e-4. SOFA's
 * getPotentialEnergy is not implemented (0 with an error); here the energy
 * is the springs' sum of ks (d - L0)^2 / 2, the value SOFA accumulates in
 * addForce. */
#include <math.h>

#include "springs.h"

typedef struct quad_bending {
    spring_head h;
    double ks; /* "stiffness" */
    double kd; /* "damping" */
    st_component *topology;
} quad_bending;

static st_status push_spring(quad_bending *b, const double *x0, unsigned m1, unsigned m2,
                             st_error *err)
{
    const double *p = x0 + 3 * m1, *q = x0 + 3 * m2;
    double u[3] = {p[0] - q[0], p[1] - q[1], p[2] - q[2]};
    spring sp = {m1, m2, b->ks, b->kd, sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), false,
                 true};
    return springs_push(&b->h.set, sp, err);
}

static st_status qbs_init(st_component *self, st_error *err)
{
    quad_bending *b = (quad_bending *)self;
    springs_free(&b->h.set);
    st_mstate *ms = NULL;
    ST_TRY(bending_bind(self, &b->topology, &ms, err));
    b->h.set.ms1 = b->h.set.ms2 = ms;
    b->h.set.min_length = 1.0e-4;
    const st_topology_ops *t = b->topology->cls->topology;
    const st_array *quads = t->elements(b->topology, ST_T_QUADS);
    const st_array *edges = t->elements(b->topology, ST_T_EDGES);
    if (!quads || quads->n == 0) {
        st_component_warn(self, "No Quads found in linked Topology.");
        return springs_finish(&b->h.set, err);
    }
    for (size_t i = 0; i < 4 * quads->n; i++)
        if (quads->u[i] >= ms->n)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "quad %zu uses vertex %u but the state has %zu points",
                                      i / 4, quads->u[i], ms->n);
    elem_edges ee;
    ST_TRY(elem_edges_build(self, edges, quads, 4, &ee, err));
    unsigned *ends = st_calloc(4 * ee.n_edges + 1, sizeof *ends);
    unsigned char *state = st_calloc(ee.n_edges + 1, 1); /* 0 new, 1 off, 2 on */
    st_status s = ends && state ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < quads->n && s == ST_OK; i++)
        for (unsigned j = 0; j < 4; j++) {
            unsigned k = ee.side[4 * i + j];
            if (state[k])
                continue;
            if (ee.count[k] != 2) {
                state[k] = 1;
                continue;
            }
            size_t other = ee.around[2 * k] == i ? ee.around[2 * k + 1] : ee.around[2 * k];
            unsigned i1 = elem_edges_index(&ee, 4, other, k);
            const unsigned *t1 = quads->u + 4 * other, *t2 = quads->u + 4 * i;
            ends[4 * k] = t1[i1];
            ends[4 * k + 1] = t2[(j + 3) % 4];
            ends[4 * k + 2] = t1[(i1 + 3) % 4];
            ends[4 * k + 3] = t2[j];
            state[k] = 2;
        }
    const double *x0 = ms->rest_position.r;
    for (size_t k = 0; k < ee.n_edges && s == ST_OK; k++)
        if (state[k] == 2) {
            s = push_spring(b, x0, ends[4 * k], ends[4 * k + 1], err);
            if (s == ST_OK)
                s = push_spring(b, x0, ends[4 * k + 2], ends[4 * k + 3], err);
        }
    st_free(ends);
    st_free(state);
    elem_edges_free(&ee);
    ST_TRY(s);
    return springs_finish(&b->h.set, err);
}

static void qbs_cleanup(st_component *self) { springs_free(&((quad_bending *)self)->h.set); }

static const st_field qbs_fields[] = {
    ST_REAL_RANGE(quad_bending, ks, "stiffness", "100000",
                  "uniform stiffness for the all springs", 0.0, 1e300),
    ST_REAL_RANGE(quad_bending, kd, "damping", "1", "uniform damping for the all springs", 0.0,
                  1e300),
    SPRING_F_RAYLEIGH_HEAD(quad_bending),
    ST_LINK(quad_bending, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ST_FIELD_END};

const st_class quadular_bending_springs_class = {
    .struct_size = sizeof(st_class),
    .name = "QuadularBendingSprings",
    .category = "ForceField",
    .description = "Springs across each edge shared by two quads (bending resistance of a quad "
                   "surface)",
    .instance_size = sizeof(quad_bending),
    .fields = qbs_fields,
    .init = qbs_init,
    .cleanup = qbs_cleanup,
    .forcefield = &spring_head_ops,
};
