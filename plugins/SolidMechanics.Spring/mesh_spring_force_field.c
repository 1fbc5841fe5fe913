/* mesh_spring_force_field.c - MeshSpringForceField: one spring per vertex
 * pair of the topology's elements, as SOFA creates them.
 *
 * Order: lines (the topology's edge list), triangles (3 pairs), quads (6
 * pairs: 4 sides and both diagonals), tetrahedra (6 pairs), hexahedra ("cubes":
 * all 28 pairs k < j), each type only when its stiffness or damping is not
 * zero. A vertex pair is created once: the first element type that makes it
 * wins. A spring with rest length l (from rest_position) > machine epsilon
 * gets ks = stiffness / l and kd = damping / l.
 *
 * `stiffness` and `damping`: in SOFA they are aliases of the five per-type
 * stiffness (damping) data. Here they are fields of their own whose value is
 * applied at init to every per-type field the scene did not set, so
 * `stiffness: 300` means 300 for every element type, as in SOFA.
 *
 * Templates as SOFA's: Vec3d, Vec2d and Vec1d (the spring set's arithmetic
 * runs on the state's components; rest lengths are measured in them). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../shared/topology_link.h"
#include "springs.h"

typedef struct mesh_spring_ff {
    st_component base;
    double lines_k, lines_d;
    double tris_k, tris_d;
    double quads_k, quads_d;
    double tetras_k, tetras_d;
    double cubes_k, cubes_d;
    double stiffness, damping;   /* "stiffness"/"damping": all types not set */
    bool no_compression;         /* "noCompression" */
    st_vec2 local_range;         /* "localRange": -1 = no bound */
    double draw_min, draw_max, draw_size;
    double rayleigh_stiffness;
    st_component *topology;
    st_component *object1, *object2;
    spring_set set;
    st_array spring_list;        /* "spring" (output): the springs made, 5 reals each */
    /* init-time pair set (open addressing, keys min << 32 | max, 0 = empty) */
    uint64_t *keys;
    size_t keycap;
} mesh_spring_ff;

static st_status pairs_reserve(mesh_spring_ff *s, size_t n, st_error *err)
{
    size_t cap = 64;
    while (cap < 2 * n + 1)
        cap *= 2;
    s->keys = st_calloc(cap, sizeof *s->keys);
    if (!s->keys)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu vertex pairs)", n);
    s->keycap = cap;
    return ST_OK;
}

/* Inserts the unordered pair; returns false when it was already there. */
static bool pairs_insert(mesh_spring_ff *s, unsigned a, unsigned b)
{
    unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    uint64_t key = ((uint64_t)lo << 32 | hi) + 1; /* never 0 */
    size_t mask = s->keycap - 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (s->keys[h]) {
        if (s->keys[h] == key)
            return false;
        h = (h + 1) & mask;
    }
    s->keys[h] = key;
    return true;
}

static st_status add_spring(mesh_spring_ff *s, unsigned m1, unsigned m2, double stiff,
                            double damp, st_error *err)
{
    double lo = s->local_range[0], hi = s->local_range[1];
    if (lo >= 0 && (m1 < lo || m2 < lo))
        return ST_OK;
    if (hi >= 0 && m1 > hi && m2 > hi)
        return ST_OK;
    if (!pairs_insert(s, m1, m2))
        return ST_OK;
    const double *x0 = s->set.ms1->rest_position.r;
    const unsigned D = s->set.ms1->type->coord_size;
    const double *p = x0 + D * (size_t)m1, *q = x0 + D * (size_t)m2;
    double l2 = 0.0;
    for (unsigned k = 0; k < D; k++)
        l2 += (q[k] - p[k]) * (q[k] - p[k]);
    double l = sqrt(l2);
    spring sp = {m1, m2, stiff, damp, l, s->no_compression, true};
    if (l > DBL_EPSILON) {
        sp.ks = stiff / l;
        sp.kd = damp / l;
    }
    return springs_push(&s->set, sp, err);
}

static const st_array *elems(st_component *topo, st_type kind)
{
    const st_array *a = topo->cls->topology->elements(topo, kind);
    return a && a->n ? a : NULL;
}

static st_status mesh_build(mesh_spring_ff *s, st_error *err)
{
    st_component *topo = s->topology;
    const st_array *ed = elems(topo, ST_T_EDGES), *tr = elems(topo, ST_T_TRIANGLES),
                   *qu = elems(topo, ST_T_QUADS), *te = elems(topo, ST_T_TETRAS),
                   *hx = elems(topo, ST_T_HEXAS);
    size_t bound = (ed ? ed->n : 0) + 3 * (tr ? tr->n : 0) + 6 * (qu ? qu->n : 0) +
                   6 * (te ? te->n : 0) + 28 * (hx ? hx->n : 0);
    ST_TRY(pairs_reserve(s, bound, err));
    size_t np = s->set.ms1->rest_position.n;
    /* Every vertex index must exist in the state. */
    const st_array *all[5] = {ed, tr, qu, te, hx};
    const unsigned width[5] = {2, 3, 4, 4, 8};
    const char *names[5] = {"edge", "triangle", "quad", "tetrahedron", "hexahedron"};
    for (int t = 0; t < 5; t++)
        if (all[t])
            for (size_t i = 0; i < all[t]->n * width[t]; i++)
                if (all[t]->u[i] >= np)
                    return st_component_error(&s->base, "topology", err, ST_EINVAL,
                                              "%s %zu of the topology uses vertex %u but the "
                                              "state has %zu points",
                                              names[t], i / width[t], all[t]->u[i], np);
    if (ed && (s->lines_k != 0 || s->lines_d != 0))
        for (size_t i = 0; i < ed->n; i++)
            ST_TRY(add_spring(s, ed->u[2 * i], ed->u[2 * i + 1], s->lines_k, s->lines_d, err));
    if (tr && (s->tris_k != 0 || s->tris_d != 0))
        for (size_t i = 0; i < tr->n; i++) {
            const unsigned *t = tr->u + 3 * i;
            ST_TRY(add_spring(s, t[0], t[1], s->tris_k, s->tris_d, err));
            ST_TRY(add_spring(s, t[0], t[2], s->tris_k, s->tris_d, err));
            ST_TRY(add_spring(s, t[1], t[2], s->tris_k, s->tris_d, err));
        }
    if (qu && (s->quads_k != 0 || s->quads_d != 0))
        for (size_t i = 0; i < qu->n; i++) {
            const unsigned *q = qu->u + 4 * i;
            ST_TRY(add_spring(s, q[0], q[1], s->quads_k, s->quads_d, err));
            ST_TRY(add_spring(s, q[0], q[2], s->quads_k, s->quads_d, err));
            ST_TRY(add_spring(s, q[0], q[3], s->quads_k, s->quads_d, err));
            ST_TRY(add_spring(s, q[1], q[2], s->quads_k, s->quads_d, err));
            ST_TRY(add_spring(s, q[1], q[3], s->quads_k, s->quads_d, err));
            ST_TRY(add_spring(s, q[2], q[3], s->quads_k, s->quads_d, err));
        }
    if (te && (s->tetras_k != 0 || s->tetras_d != 0))
        for (size_t i = 0; i < te->n; i++) {
            const unsigned *t = te->u + 4 * i;
            ST_TRY(add_spring(s, t[0], t[1], s->tetras_k, s->tetras_d, err));
            ST_TRY(add_spring(s, t[0], t[2], s->tetras_k, s->tetras_d, err));
            ST_TRY(add_spring(s, t[0], t[3], s->tetras_k, s->tetras_d, err));
            ST_TRY(add_spring(s, t[1], t[2], s->tetras_k, s->tetras_d, err));
            ST_TRY(add_spring(s, t[1], t[3], s->tetras_k, s->tetras_d, err));
            ST_TRY(add_spring(s, t[2], t[3], s->tetras_k, s->tetras_d, err));
        }
    if (hx && (s->cubes_k != 0 || s->cubes_d != 0))
        for (size_t i = 0; i < hx->n; i++) {
            const unsigned *h = hx->u + 8 * i;
            for (int k = 0; k < 8; k++)
                for (int j = k + 1; j < 8; j++)
                    ST_TRY(add_spring(s, h[k], h[j], s->cubes_k, s->cubes_d, err));
        }
    return ST_OK;
}

/* The output `spring` list from the springs. */
static st_status msff_list(mesh_spring_ff *s, st_error *err)
{
    ST_TRY(st_array_resize(&s->spring_list, ST_T_REALS, 5 * s->set.n, err));
    for (size_t k = 0; k < s->set.n; k++) {
        const spring *sp = &s->set.s[k];
        double *r = s->spring_list.r + 5 * k;
        r[0] = sp->m1, r[1] = sp->m2, r[2] = sp->ks, r[3] = sp->kd, r[4] = sp->l0;
    }
    st_component_touch(&s->base, st_component_field(&s->base, "spring"));
    return ST_OK;
}

/* SOFA's MeshSpringForceField is a SpringForceField: its springs, made at
 * init, follow the topology as SpringForceField's (springs on a removed
 * point erased, the others renumbered; a removed edge erases its spring
 * only on an EdgeSetTopologyContainer). */
static st_status msff_topology_changed(st_component *self, st_component *topology,
                                       const st_topo_event *ev, size_t nev, st_error *err)
{
    mesh_spring_ff *s = (mesh_spring_ff *)self;
    bool changed;
    ST_TRY(springs_topology_changed(&s->set, 3u, springs_edge_topology(topology), ev, nev,
                                    &changed, err));
    const st_mstate *ms = st_component_mstate(self);
    if (ms && st_topology_state_ahead(topology, ms->n))
        return ST_OK; /* the point removal follows: listed then */
    return msff_list(s, err);
}

static st_status msff_init(st_component *self, st_error *err)
{
    mesh_spring_ff *s = (mesh_spring_ff *)self;
    springs_free(&s->set);
    /* The shared stiffness/damping reach every per-type value not set. */
    static const char *const kn[5] = {"linesStiffness", "trianglesStiffness", "quadsStiffness",
                                      "tetrahedraStiffness", "cubesStiffness"};
    static const char *const dn[5] = {"linesDamping", "trianglesDamping", "quadsDamping",
                                      "tetrahedraDamping", "cubesDamping"};
    double *kv[5] = {&s->lines_k, &s->tris_k, &s->quads_k, &s->tetras_k, &s->cubes_k};
    double *dv[5] = {&s->lines_d, &s->tris_d, &s->quads_d, &s->tetras_d, &s->cubes_d};
    bool kset = st_component_is_set(self, "stiffness"), dset = st_component_is_set(self, "damping");
    for (int t = 0; t < 5; t++) {
        if (kset && !st_component_is_set(self, kn[t]))
            *kv[t] = s->stiffness;
        if (dset && !st_component_is_set(self, dn[t]))
            *dv[t] = s->damping;
    }

    /* SOFA's default for both: the context's state, the node's or the
     * nearest ancestor's (Node::getMechanicalState searches the parents). */
    st_mstate *ms = s->object1 ? (st_mstate *)s->object1 : st_component_mstate(self);
    st_mstate *ms2 = s->object2 ? (st_mstate *)s->object2 : ms;
    if ((s->object1 && !st_component_has_role(s->object1, ST_ROLE_STATE)) ||
        (s->object2 && !st_component_has_role(s->object2, ST_ROLE_STATE)))
        return st_component_error(self, s->object1 ? "object1" : "object2", err, ST_ELINK,
                                  "object1 and object2 must link a MechanicalObject");
    if (!ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors "
                                  "(MeshSpringForceField needs one)");
    if (ms != ms2)
        return st_component_error(self, "object2", err, ST_EINVAL,
                                  "MeshSpringForceField only acts inside one state: object1 and "
                                  "object2 must be the same MechanicalObject");
    s->set.ms1 = s->set.ms2 = ms;
    if (!s->topology)
        s->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!s->topology || !s->topology->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  s->topology ? s->topology->name : "(none)",
                                  st_node_name(self->node));
    st_status st = mesh_build(s, err);
    st_free(s->keys);
    s->keys = NULL;
    s->keycap = 0;
    ST_TRY(st);
    if (s->set.n == 0)
        st_component_info(self, "no spring created (every stiffness and damping is 0)");
    /* SOFA's `spring` data (inherited from SpringForceField) holds the
     * springs the mesh made: i j ks kd restLength each. */
    ST_TRY(msff_list(s, err));
    ST_TRY(springs_finish(&s->set, err));
    return st_topology_listen(self, s->topology, msff_topology_changed, err);
}

/* Checkpoints: the springs a topological change left, and the `spring`
 * list made from them. */
static st_status msff_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    mesh_spring_ff *s = (mesh_spring_ff *)self;
    ST_TRY(springs_transfer(&s->set, ck, err));
    return st_checkpoint_reading(ck) && s->topology && st_topology_revision(s->topology)
               ? msff_list(s, err)
               : ST_OK;
}

static const st_checkpoint_ops msff_ck = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = msff_transfer,
};

static void msff_cleanup(st_component *self)
{
    mesh_spring_ff *s = (mesh_spring_ff *)self;
    springs_free(&s->set);
    st_free(s->keys);
    s->keys = NULL;
}

spring_set *mesh_spring_force_field_set(st_component *self) { return &((mesh_spring_ff *)self)->set; }

static void msff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp;
    springs_add_force(&((mesh_spring_ff *)self)->set, f, x, v);
}

static void msff_add_dforce(st_component *self, const st_mparams *mp, double *df,
                            const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    springs_add_dforce(&((mesh_spring_ff *)self)->set, df, dx, kfactor);
}

static void msff_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    springs_add_k(&((mesh_spring_ff *)self)->set, m, kfactor);
}

static double msff_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    return springs_energy(&((mesh_spring_ff *)self)->set, x);
}

static double msff_rayleigh(const st_component *self)
{
    return ((const mesh_spring_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops msff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = msff_add_force,
    .add_dforce = msff_add_dforce,
    .add_k_to_matrix = msff_add_k,
    .potential_energy = msff_energy,
    .rayleigh_stiffness = msff_rayleigh,
};

#define MSFF_REAL(m, key, alias, help)                                                            \
    ST_FIELD_EX(mesh_spring_ff, m, key, ST_T_REAL, double, "0", help, 0, alias, 0.0, 0.0)

static const st_field msff_fields[] = {
    MSFF_REAL(lines_k, "linesStiffness", NULL, "Stiffness for the Lines"),
    MSFF_REAL(lines_d, "linesDamping", NULL, "Damping for the Lines"),
    MSFF_REAL(tris_k, "trianglesStiffness", NULL, "Stiffness for the Triangles"),
    MSFF_REAL(tris_d, "trianglesDamping", NULL, "Damping for the Triangles"),
    MSFF_REAL(quads_k, "quadsStiffness", NULL, "Stiffness for the Quads"),
    MSFF_REAL(quads_d, "quadsDamping", NULL, "Damping for the Quads"),
    MSFF_REAL(tetras_k, "tetrahedraStiffness", "tetrasStiffness", "Stiffness for the Tetrahedra"),
    MSFF_REAL(tetras_d, "tetrahedraDamping", "tetrasDamping", "Damping for the Tetrahedra"),
    MSFF_REAL(cubes_k, "cubesStiffness", NULL, "Stiffness for the Cubes (hexahedra)"),
    MSFF_REAL(cubes_d, "cubesDamping", NULL, "Damping for the Cubes (hexahedra)"),
    MSFF_REAL(stiffness, "stiffness", NULL,
              "Stiffness of every element type whose own *Stiffness field is not set (SOFA's "
              "alias of the five stiffness data)"),
    MSFF_REAL(damping, "damping", NULL,
              "Damping of every element type whose own *Damping field is not set (SOFA's alias "
              "of the five damping data)"),
    ST_BOOL(mesh_spring_ff, no_compression, "noCompression", "false",
            "Only consider elongation: the springs do not resist compression"),
    ST_VEC2(mesh_spring_ff, local_range, "localRange", "-1 -1",
            "optional range of local DOF indices; springs with a vertex below the first bound, "
            "or with both above the second, are skipped (-1: no bound)"),
    ST_IGNORED(mesh_spring_ff, draw_min, "drawMinElongationRange", ST_T_REAL, double, "8",
               "Min range of elongation"),
    ST_IGNORED(mesh_spring_ff, draw_max, "drawMaxElongationRange", ST_T_REAL, double, "15",
               "Max range of elongation"),
    ST_IGNORED(mesh_spring_ff, draw_size, "drawSpringSize", ST_T_REAL, double, "8",
               "Size of drawed lines"),
    SPRING_F_RAYLEIGH(mesh_spring_ff),
    ST_LINK(mesh_spring_ff, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ST_LINK(mesh_spring_ff, object1, "object1", ST_LINK_STATE,
            "The MechanicalObject (default: the node's; must equal object2)"),
    ST_LINK(mesh_spring_ff, object2, "object2", ST_LINK_STATE,
            "The MechanicalObject (default: object1)"),
    ST_OUTPUT(mesh_spring_ff, spring_list, "spring", ST_T_REALS, st_array,
              "The springs made from the mesh at init, as SOFA's LinearSpring text: 'i j ks kd "
              "restLength' (5 numbers per spring; ks and kd divided by the rest length)"),
    ST_FIELD_END};

static const char *const msff_templates[] = {"Vec3d", "Vec2d", "Vec1d", NULL};

const st_class mesh_spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshSpringForceField",
    .category = "ForceField",
    .description = "Springs on the vertex pairs of a mesh's elements, stiffness per unit length",
    .instance_size = sizeof(mesh_spring_ff),
    .templates = msff_templates,
    .fields = msff_fields,
    .init = msff_init,
    .cleanup = msff_cleanup,
    .forcefield = &msff_ops,
    .checkpoint = &msff_ck,
};
