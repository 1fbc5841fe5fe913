/* quad_bending_springs.c - QuadBendingSprings: a SpringForceField whose
 * springs are made at init across every edge shared by two quads, as SOFA
 * makes them.
 *
 * Quads are visited in order, and each quad (q0 q1 q2 q3) registers its four
 * sides with the side facing them: (q0 q1) facing (q3 q2), (q1 q2) facing
 * (q0 q3), (q2 q3) facing (q1 q0), (q3 q0) facing (q2 q1). A side is stored
 * as the ordered pair (min, max), its facing pair swapped with it when the
 * side was swapped. The first quad registering a side keeps its facing pair
 * (e0, e1); each later one (c0, c1) adds the springs (c0, e0) and (c1, e1):
 * the vertices across the shared edge, on the same side of the surface.
 * A vertex pair gets one spring (the first made), none when both vertices
 * are below localRange[0] (>= 0) or both above localRange[1] (>= 0). Each
 * spring has ks = stiffness[0], kd = damping[0], rest length the distance
 * of its ends in the current positions. They are appended to the springs of
 * the `spring` list when the scene gives one; the lists are then rewritten
 * from the springs, and the springs follow the topology as SpringForceField's
 * (not made again). The force is SpringForceField's. */
#include <math.h>
#include <stdint.h>

#include "springs.h"

/* Open-addressing set of unordered vertex pairs (key 0 = empty). */
typedef struct pair_set {
    uint64_t *keys;
    size_t cap;
} pair_set;

static uint64_t pair_key(unsigned a, unsigned b)
{
    unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    return ((uint64_t)lo << 32 | hi) + 1;
}

/* Finds the slot of key: its own, or the empty one where it would go. */
static size_t pair_slot(const pair_set *ps, uint64_t key)
{
    size_t mask = ps->cap - 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (ps->keys[h] && ps->keys[h] != key)
        h = (h + 1) & mask;
    return h;
}

typedef struct quad_bending {
    spring_ff s;
    pair_set sides;      /* registered sides */
    unsigned (*facing)[2]; /* per slot of `sides`: the first facing pair */
    pair_set made;       /* vertex pairs that have a spring */
    double ks, kd;
} quad_bending;

static st_status qbs_add(quad_bending *q, unsigned a, unsigned b, st_error *err)
{
    double lo = q->s.local_range[0], hi = q->s.local_range[1];
    if (lo >= 0 && a < lo && b < lo)
        return ST_OK;
    if (hi >= 0 && a > hi && b > hi)
        return ST_OK;
    uint64_t key = pair_key(a, b);
    size_t h = pair_slot(&q->made, key);
    if (q->made.keys[h])
        return ST_OK;
    q->made.keys[h] = key;
    const st_mstate *ms = q->s.set.ms1;
    unsigned D = ms->type->coord_size;
    const double *x = ms->position.r;
    double l2 = 0;
    for (unsigned k = 0; k < D; k++) {
        double d = x[(size_t)D * a + k] - x[(size_t)D * b + k];
        l2 += d * d;
    }
    spring sp = {a, b, q->ks, q->kd, sqrt(l2), false, true};
    return springs_push(&q->s.set, sp, err);
}

static st_status qbs_register(quad_bending *q, unsigned a, unsigned b, unsigned c, unsigned d,
                              st_error *err)
{
    if (a > b) {
        unsigned t = a;
        a = b, b = t;
        t = c;
        c = d, d = t;
    }
    uint64_t key = pair_key(a, b);
    size_t h = pair_slot(&q->sides, key);
    if (!q->sides.keys[h]) {
        q->sides.keys[h] = key;
        q->facing[h][0] = c;
        q->facing[h][1] = d;
        return ST_OK;
    }
    unsigned e0 = q->facing[h][0], e1 = q->facing[h][1];
    ST_TRY(qbs_add(q, c, e0, err));
    return qbs_add(q, d, e1, err);
}

static st_status qbs_build(quad_bending *q, const st_array *quads, st_error *err)
{
    size_t cap = 64;
    while (cap < 8 * quads->n + 1)
        cap *= 2;
    q->sides.cap = q->made.cap = cap;
    q->sides.keys = st_calloc(cap, sizeof *q->sides.keys);
    q->made.keys = st_calloc(cap, sizeof *q->made.keys);
    q->facing = st_malloc(cap * sizeof *q->facing);
    if (!q->sides.keys || !q->made.keys || !q->facing)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu quads)", quads->n);
    for (size_t i = 0; i < quads->n; i++) {
        const unsigned *f = quads->u + 4 * i;
        ST_TRY(qbs_register(q, f[0], f[1], f[3], f[2], err));
        ST_TRY(qbs_register(q, f[1], f[2], f[0], f[3], err));
        ST_TRY(qbs_register(q, f[2], f[3], f[1], f[0], err));
        ST_TRY(qbs_register(q, f[3], f[0], f[2], f[1], err));
    }
    return ST_OK;
}

static void qbs_scratch_free(quad_bending *q)
{
    st_free(q->sides.keys);
    st_free(q->made.keys);
    st_free(q->facing);
    q->sides.keys = q->made.keys = NULL;
    q->facing = NULL;
}

static st_status qbs_init(st_component *self, st_error *err)
{
    quad_bending *q = (quad_bending *)self;
    ST_TRY(spring_ff_bind(&q->s, err));
    if (q->s.set.ms1 != q->s.set.ms2)
        return st_component_error(self, "object2", err, ST_EINVAL,
                                  "QuadBendingSprings makes its springs inside one state: "
                                  "object1 and object2 must be the same MechanicalObject");
    static const char *const lists[] = {"springsIndices1", "springsIndices2", "lengths",
                                        "elongationOnly", "enabled"};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++)
        if (st_component_is_set(self, lists[i]))
            return st_component_error(self, lists[i], err, ST_EINVAL,
                                      "QuadBendingSprings makes its springs from the quads: "
                                      "'%s' is not read (give extra springs with 'spring')",
                                      lists[i]);
    /* SOFA reads the first stiffness and damping of the lists. */
    if (q->s.stiffness.n == 0 || q->s.damping.n == 0)
        return st_component_error(self, q->s.stiffness.n ? "damping" : "stiffness", err,
                                  ST_EINVAL, "needs a value (the springs' uniform %s)",
                                  q->s.stiffness.n ? "damping" : "stiffness");
    q->ks = q->s.stiffness.r[0];
    q->kd = q->s.damping.r[0];
    if (st_component_is_set(self, "spring"))
        ST_TRY(spring_ff_read(&q->s, err));

    st_component *topo = q->s.topology;
    if (!topo)
        topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!topo || !topo->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  topo ? topo->name : "(none)", st_node_name(self->node));
    const st_array *quads = topo->cls->topology->elements(topo, ST_T_QUADS);
    size_t np = q->s.set.ms1->n;
    if (quads && quads->n) {
        for (size_t i = 0; i < 4 * quads->n; i++)
            if (quads->u[i] >= np)
                return st_component_error(self, "topology", err, ST_EINVAL,
                                          "quad %zu of '%s' uses vertex %u but the state has "
                                          "%zu points",
                                          i / 4, topo->name, quads->u[i], np);
        st_status st = qbs_build(q, quads, err);
        qbs_scratch_free(q);
        ST_TRY(st);
    }
    if (q->s.set.n == 0)
        st_component_info(self, "no bending spring made: '%s' has no two quads sharing an edge",
                          topo->name);
    ST_TRY(spring_ff_lists(&q->s, true, err));
    return spring_ff_done(&q->s, err);
}

static void qbs_cleanup(st_component *self)
{
    qbs_scratch_free((quad_bending *)self);
    spring_ff_cleanup(self);
}

static const st_field qbs_fields[] = {
    SPRING_FF_FIELDS,
    ST_VEC2(spring_ff, local_range, "localRange", "-1 -1",
            "optional range of local DOF indices. Any computation involving only indices outside "
            "of this range are discarded (useful for parallelization using mesh partitioning)"),
    ST_LINK(spring_ff, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ST_FIELD_END};

static const char *const qbs_templates[] = {"Vec3d", "Vec2d", NULL};

const st_class quad_bending_springs_class = {
    .struct_size = sizeof(st_class),
    .name = "QuadBendingSprings",
    .category = "ForceField",
    .description = "Springs added to a quad mesh to prevent bending: across each edge shared by "
                   "two quads, between the vertices facing each other",
    .instance_size = sizeof(quad_bending),
    .fields = qbs_fields,
    .init = qbs_init,
    .cleanup = qbs_cleanup,
    .forcefield = &spring_ff_ops,
    .templates = qbs_templates,
};
