/* triangle_bending_springs.c - TriangleBendingSprings: a SpringForceField
 * whose springs are made at init across every edge shared by two
 * triangles, as SOFA makes them.
 *
 * The triangles are visited in order, then each quad (q0 q1 q2 q3) as the
 * two triangles (q0 q1 q2) and (q0 q2 q3). A triangle (a b c) registers its
 * edges (a b), (b c), (c a) with the vertex opposite each (c, a, b); the
 * first triangle registering an edge keeps its opposite vertex o, each
 * later one with opposite vertex p adds the spring (p, o) (no check for a
 * pair made twice). Each spring has ks = stiffness[0] (100 when the list is
 * empty), kd = damping[0] (5), rest length the distance of its ends in the
 * current positions. The springs replace any given by the scene (SOFA
 * clears them first); the lists are then rewritten from them, the lists
 * stiffness and damping left with one value per spring, and the springs
 * follow the topology as SpringForceField's. Both ends are in the node's
 * MechanicalObject (object1 and object2 are not read, as in SOFA). */
#include <math.h>
#include <stdint.h>

#include "springs.h"

typedef struct tri_bend {
    spring_ff s;
    uint64_t *keys;      /* registered edges (open addressing, 0 = empty) */
    unsigned *opposite;  /* per slot: the first opposite vertex */
    size_t cap;
    double ks, kd;
} tri_bend;

static st_status tb_register(tri_bend *t, unsigned a, unsigned b, unsigned opp, st_error *err)
{
    unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    uint64_t key = ((uint64_t)lo << 32 | hi) + 1;
    size_t mask = t->cap - 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (t->keys[h] && t->keys[h] != key)
        h = (h + 1) & mask;
    if (!t->keys[h]) {
        t->keys[h] = key;
        t->opposite[h] = opp;
        return ST_OK;
    }
    const st_mstate *ms = t->s.set.ms1;
    unsigned D = ms->type->coord_size, o = t->opposite[h];
    const double *x = ms->position.r;
    double l2 = 0;
    for (unsigned k = 0; k < D; k++) {
        double d = x[(size_t)D * opp + k] - x[(size_t)D * o + k];
        l2 += d * d;
    }
    spring sp = {opp, o, t->ks, t->kd, sqrt(l2), false, true};
    return springs_push(&t->s.set, sp, err);
}

static st_status tb_triangle(tri_bend *t, unsigned a, unsigned b, unsigned c, st_error *err)
{
    ST_TRY(tb_register(t, a, b, c, err));
    ST_TRY(tb_register(t, b, c, a, err));
    return tb_register(t, c, a, b, err);
}

static void tb_scratch_free(tri_bend *t)
{
    st_free(t->keys);
    st_free(t->opposite);
    t->keys = NULL;
    t->opposite = NULL;
}

static st_status tb_build(tri_bend *t, const st_array *tris, const st_array *quads, st_error *err)
{
    size_t nt = (tris ? tris->n : 0) + 2 * (quads ? quads->n : 0);
    size_t cap = 64;
    while (cap < 6 * nt + 1)
        cap *= 2;
    t->cap = cap;
    t->keys = st_calloc(cap, sizeof *t->keys);
    t->opposite = st_malloc(cap * sizeof *t->opposite);
    if (!t->keys || !t->opposite)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu triangles)", nt);
    for (size_t i = 0; tris && i < tris->n; i++) {
        const unsigned *f = tris->u + 3 * i;
        ST_TRY(tb_triangle(t, f[0], f[1], f[2], err));
    }
    for (size_t i = 0; quads && i < quads->n; i++) {
        const unsigned *f = quads->u + 4 * i;
        ST_TRY(tb_triangle(t, f[0], f[1], f[2], err));
        ST_TRY(tb_triangle(t, f[0], f[2], f[3], err));
    }
    return ST_OK;
}

static st_status tb_check(st_component *self, const st_component *topo, const st_array *a,
                          unsigned w, const char *what, size_t np, st_error *err)
{
    for (size_t i = 0; a && i < (size_t)w * a->n; i++)
        if (a->u[i] >= np)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "%s %zu of '%s' uses vertex %u but the state has %zu "
                                      "points",
                                      what, i / w, topo->name, a->u[i], np);
    return ST_OK;
}

static st_status tb_init(st_component *self, st_error *err)
{
    tri_bend *t = (tri_bend *)self;
    ST_TRY(spring_ff_bind(&t->s, err));
    st_mstate *ms = st_node_mstate(self->node);
    if (!ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node '%s' (TriangleBendingSprings "
                                  "acts on the node's state)",
                                  st_node_name(self->node));
    if (ms->type != t->s.set.ms1->type)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the node's state '%s' is %s, the springs are %s",
                                  ms->base.name, ms->type->name, t->s.set.ms1->type->name);
    t->s.set.ms1 = t->s.set.ms2 = ms;
    static const char *const given[] = {"spring", "springsIndices1", "springsIndices2",
                                        "lengths", "elongationOnly", "enabled"};
    for (size_t i = 0; i < sizeof given / sizeof *given; i++)
        if (st_component_is_set(self, given[i]))
            st_component_warn_field(self, given[i],
                                    "the value set for '%s' is not used: TriangleBendingSprings "
                                    "replaces the springs by those it makes from the triangles",
                                    given[i]);
    t->ks = t->s.stiffness.n ? t->s.stiffness.r[0] : 100.0;
    t->kd = t->s.damping.n ? t->s.damping.r[0] : 5.0;

    st_component *topo = t->s.topology;
    if (!topo)
        topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!topo || !topo->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  topo ? topo->name : "(none)", st_node_name(self->node));
    const st_array *tris = topo->cls->topology->elements(topo, ST_T_TRIANGLES);
    const st_array *quads = topo->cls->topology->elements(topo, ST_T_QUADS);
    ST_TRY(tb_check(self, topo, tris, 3, "triangle", ms->n, err));
    ST_TRY(tb_check(self, topo, quads, 4, "quad", ms->n, err));
    st_status st = tb_build(t, tris, quads, err);
    tb_scratch_free(t);
    ST_TRY(st);
    if (t->s.set.n == 0)
        st_component_info(self,
                          "no bending spring made: '%s' has no two triangles sharing an edge",
                          topo->name);
    ST_TRY(spring_ff_lists(&t->s, true, err));
    return spring_ff_done(&t->s, err);
}

static void tb_cleanup(st_component *self)
{
    tb_scratch_free((tri_bend *)self);
    spring_ff_cleanup(self);
}

static const st_field tb_fields[] = {
    SPRING_FF_FIELDS,
    ST_LINK(spring_ff, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ST_FIELD_END};

static const char *const tb_templates[] = {"Vec3d", "Vec2d", NULL};

const st_class triangle_bending_springs_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangleBendingSprings",
    .category = "ForceField",
    .description = "Springs added to a triangular mesh to prevent bending: across each edge "
                   "shared by two triangles, between the two opposite vertices",
    .instance_size = sizeof(tri_bend),
    .fields = tb_fields,
    .init = tb_init,
    .cleanup = tb_cleanup,
    .forcefield = &spring_ff_ops,
    .templates = tb_templates,
};
