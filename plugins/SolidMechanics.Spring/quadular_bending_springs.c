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
#include "springs.h"

typedef struct quad_bending {
    spring_head h;
    double ks; /* "stiffness" */
    double kd; /* "damping" */
    st_component *topology;
} quad_bending;

static st_status qbs_init(st_component *self, st_error *err)
{
    quad_bending *b = (quad_bending *)self;
    springs_free(&b->h.set);
    st_mstate *ms = NULL;
    const st_array *quads = NULL;
    elem_edges ee;
    ST_TRY(bending_elements(self, &b->topology, &ms, ST_T_QUADS, 4, &quads, &ee, err));
    b->h.set.ms1 = b->h.set.ms2 = ms;
    b->h.set.min_length = 1.0e-4;
    if (!quads)
        st_component_warn(self, "No Quads found in linked Topology.");
    const double *x0 = ms->rest_position.r;
    st_status s = ST_OK;
    for (size_t k = 0; k < ee.n_edges && s == ST_OK; k++) {
        edge_visit v;
        if (!elem_edges_visit(&ee, 4, k, false, &v))
            continue;
        const unsigned *t1 = quads->u + 4 * v.o, *t2 = quads->u + 4 * v.e;
        s = springs_push_rest(&b->h.set, x0, t1[v.jo], t2[(v.j + 3) % 4], b->ks, b->kd, err);
        if (s == ST_OK)
            s = springs_push_rest(&b->h.set, x0, t1[(v.jo + 3) % 4], t2[v.j], b->ks, b->kd,
                                  err);
    }
    elem_edges_free(&ee);
    ST_TRY(s);
    ST_TRY(springs_finish(&b->h.set, err));
    return bending_follow(self, b->topology, err);
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
