/* regular_grid_spring_force_field.c - RegularGridSpringForceField: the
 * springs of SpringForceField's `spring` list, then springs along the lines,
 * the face diagonals and the cell diagonals of the RegularGridTopology of
 * the state's node (searched upward), as SOFA makes them.
 *
 * With the grid's resolution (nx, ny, nz), point(x, y, z) = x + nx (y + ny z)
 * and cell vectors Dx, Dy, Dz, each family is made only when its stiffness
 * or damping is not zero; a spring of rest length L gets ks = stiffness / L,
 * kd = damping / L. Order:
 *   lines: along x (z, y, x loops, x < nx-1), then along y, then along z;
 *   quads: in the xy planes the pairs (x,y,z)-(x+1,y+1,z) and
 *     (x+1,y,z)-(x,y+1,z) per cell, then xz: (x,y,z)-(x+1,y,z+1) and
 *     (x+1,y,z)-(x,y,z+1), then yz: (x,y,z)-(x,y+1,z+1) and
 *     (x,y+1,z)-(x,y,z+1) (the latter's ks and kd divided by |Dy + Dz|
 *     while its rest length is |Dy - Dz|, as SOFA does);
 *   cubes, per cell: (x,y,z)-(x+1,y+1,z+1), (x+1,y,z)-(x,y+1,z+1),
 *     (x,y+1,z)-(x+1,y,z+1), (x,y,z+1)-(x+1,y+1,z).
 * `stiffness` and `damping` are in SOFA aliases of the three families'
 * values: here, when set, they give every family whose own field is not
 * set. The springs follow SOFA's spring law (springs.c). The `spring` list
 * follows topological changes of the states' topologies as SOFA's
 * SpringForceField does. */
#include <math.h>
#include <string.h>

#include "springs.h"

typedef struct grid_springs {
    spring_head h;
    double lines_k, lines_d, quads_k, quads_d, cubes_k, cubes_d;
    double stiffness, damping; /* "stiffness"/"damping": all families not set */
    st_array spring_list;      /* "spring", 5 numbers per spring */
    st_array indices1, indices2, lengths, elongation_only, enabled; /* refused when set */
    double show_arrow_size;
    int draw_mode;
    char *file_springs;
    st_component *object1, *object2;
    bool grid;               /* the grid's springs were made */
    st_component *topo[2];   /* the states' topologies it listens to */
} grid_springs;

typedef struct grid_info {
    int n[3];
    double d[3][3]; /* Dx, Dy, Dz */
} grid_info;

static unsigned gpt(const grid_info *g, int x, int y, int z)
{
    return (unsigned)(x + g->n[0] * (y + g->n[1] * z));
}

static double len3(const double *a, double sa, const double *b, double sb, const double *c,
                   double sc)
{
    double v[3];
    for (int k = 0; k < 3; k++)
        v[k] = sa * a[k] + sb * b[k] + sc * c[k];
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

static st_status push(grid_springs *g, unsigned m1, unsigned m2, double l0, double ks, double kd,
                      st_error *err)
{
    spring sp = {m1, m2, ks, kd, l0, false, true};
    return springs_push(&g->h.set, sp, err);
}

/* Pushes, for each cell in the loops' ranges, the springs of `pairs`
 * (offsets of both ends from (x, y, z)). */
typedef struct family {
    int hi[3];             /* loop bounds: x < n[0] - hi[0] ... */
    int np;                /* springs per cell */
    int off[4][2][3];      /* ends' offsets */
    double l0[4], div[4];  /* rest length, divisor of stiffness and damping */
} family;

static st_status push_family(grid_springs *g, const grid_info *gi, const family *f, double k,
                             double d, st_error *err)
{
    for (int z = 0; z < gi->n[2] - f->hi[2]; z++)
        for (int y = 0; y < gi->n[1] - f->hi[1]; y++)
            for (int x = 0; x < gi->n[0] - f->hi[0]; x++)
                for (int p = 0; p < f->np; p++) {
                    const int *a = f->off[p][0], *b = f->off[p][1];
                    ST_TRY(push(g, gpt(gi, x + a[0], y + a[1], z + a[2]),
                                gpt(gi, x + b[0], y + b[1], z + b[2]), f->l0[p], k / f->div[p],
                                d / f->div[p], err));
                }
    return ST_OK;
}

static st_status grid_build(grid_springs *g, const grid_info *gi, st_error *err)
{
    const double *Dx = gi->d[0], *Dy = gi->d[1], *Dz = gi->d[2];
    if (g->lines_k != 0.0 || g->lines_d != 0.0) {
        double lx = len3(Dx, 1, Dy, 0, Dz, 0), ly = len3(Dx, 0, Dy, 1, Dz, 0),
               lz = len3(Dx, 0, Dy, 0, Dz, 1);
        const family fx = {{1, 0, 0}, 1, {{{0, 0, 0}, {1, 0, 0}}}, {lx}, {lx}};
        const family fy = {{0, 1, 0}, 1, {{{0, 0, 0}, {0, 1, 0}}}, {ly}, {ly}};
        const family fz = {{0, 0, 1}, 1, {{{0, 0, 0}, {0, 0, 1}}}, {lz}, {lz}};
        ST_TRY(push_family(g, gi, &fx, g->lines_k, g->lines_d, err));
        ST_TRY(push_family(g, gi, &fy, g->lines_k, g->lines_d, err));
        ST_TRY(push_family(g, gi, &fz, g->lines_k, g->lines_d, err));
    }
    if (g->quads_k != 0.0 || g->quads_d != 0.0) {
        double a = len3(Dx, 1, Dy, 1, Dz, 0), b = len3(Dx, 1, Dy, -1, Dz, 0);
        const family fxy = {{1, 1, 0}, 2,
                            {{{0, 0, 0}, {1, 1, 0}}, {{1, 0, 0}, {0, 1, 0}}}, {a, b}, {a, b}};
        ST_TRY(push_family(g, gi, &fxy, g->quads_k, g->quads_d, err));
        a = len3(Dx, 1, Dy, 0, Dz, 1), b = len3(Dx, 1, Dy, 0, Dz, -1);
        const family fxz = {{1, 0, 1}, 2,
                            {{{0, 0, 0}, {1, 0, 1}}, {{1, 0, 0}, {0, 0, 1}}}, {a, b}, {a, b}};
        ST_TRY(push_family(g, gi, &fxz, g->quads_k, g->quads_d, err));
        a = len3(Dx, 0, Dy, 1, Dz, 1), b = len3(Dx, 0, Dy, 1, Dz, -1);
        /* SOFA divides the second yz diagonal's ks and kd by the first's length. */
        const family fyz = {{0, 1, 1}, 2,
                            {{{0, 0, 0}, {0, 1, 1}}, {{0, 1, 0}, {0, 0, 1}}}, {a, b}, {a, a}};
        ST_TRY(push_family(g, gi, &fyz, g->quads_k, g->quads_d, err));
    }
    if (g->cubes_k != 0.0 || g->cubes_d != 0.0) {
        double l1 = len3(Dx, 1, Dy, 1, Dz, 1), l2 = len3(Dx, -1, Dy, 1, Dz, 1),
               l3 = len3(Dx, 1, Dy, -1, Dz, 1), l4 = len3(Dx, 1, Dy, 1, Dz, -1);
        const family fc = {{1, 1, 1},
                           4,
                           {{{0, 0, 0}, {1, 1, 1}},
                            {{1, 0, 0}, {0, 1, 1}},
                            {{0, 1, 0}, {1, 0, 1}},
                            {{0, 0, 1}, {1, 1, 0}}},
                           {l1, l2, l3, l4},
                           {l1, l2, l3, l4}};
        ST_TRY(push_family(g, gi, &fc, g->cubes_k, g->cubes_d, err));
    }
    return ST_OK;
}

/* The grid of the state's node (searched upward), when it is a
 * RegularGridTopology. */
static bool find_grid(const st_mstate *ms, grid_info *gi)
{
    st_component *t = st_node_find(ms->base.node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!t || strcmp(t->cls->name, "RegularGridTopology") || !t->cls->topology)
        return false;
    const st_field *fn = st_component_field(t, "n");
    if (!fn || fn->type != ST_T_VEC3)
        return false;
    const double *n = st_component_field_ptr(t, fn);
    for (int a = 0; a < 3; a++)
        gi->n[a] = (int)n[a];
    if ((size_t)gi->n[0] * (size_t)gi->n[1] * (size_t)gi->n[2] != t->cls->topology->nb_points(t))
        return false;
    /* Cell vectors from the grid's points (only used along axes with more
     * than one point). */
    double p0[3];
    t->cls->topology->get_point(t, 0, p0);
    memset(gi->d, 0, sizeof gi->d);
    const unsigned step[3] = {1, (unsigned)gi->n[0], (unsigned)(gi->n[0] * gi->n[1])};
    for (int a = 0; a < 3; a++)
        if (gi->n[a] > 1) {
            double p[3];
            t->cls->topology->get_point(t, step[a], p);
            for (int k = 0; k < 3; k++)
                gi->d[a][k] = p[k] - p0[k];
        }
    return true;
}

/* SOFA's SpringForceField handler, which RegularGridSpringForceField
 * inherits: the `spring` list follows the points of the states'
 * topologies (springs on a removed point erased, the others renumbered).
 * The grid's own springs are made from a RegularGridTopology, which does
 * not change; a changing topology means there are none. */
static st_status rgs_list(grid_springs *g, st_error *err);

static st_status rgs_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    grid_springs *g = (grid_springs *)self;
    if (g->grid)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the grid's springs cannot follow a change of '%s'",
                                  topology->name);
    unsigned sides = (g->topo[0] == topology ? 1u : 0u) | (g->topo[1] == topology ? 2u : 0u);
    bool changed = false;
    ST_TRY(springs_topology_changed(&g->h.set, sides, springs_edge_topology(topology), ev, nev,
                                    &changed, err));
    return changed ? rgs_list(g, err) : ST_OK;
}

/* The `spring` list from the springs a change left. */
static st_status rgs_list(grid_springs *g, st_error *err)
{
    st_component *self = &g->h.base;
    if (!g->spring_list.cap && g->spring_list.p) { /* a linked value: made its own first */
        st_array a = g->spring_list;
        g->spring_list = (st_array){0};
        ST_TRY(st_array_resize(&g->spring_list, ST_T_REALS, a.n, err));
        memcpy(g->spring_list.r, a.r, a.n * sizeof(double));
    }
    ST_TRY(st_array_resize(&g->spring_list, ST_T_REALS, 5 * g->h.set.n, err));
    for (size_t k = 0; k < g->h.set.n; k++) {
        const spring *sp = &g->h.set.s[k];
        double *r = g->spring_list.r + 5 * k;
        r[0] = sp->m1, r[1] = sp->m2, r[2] = sp->ks, r[3] = sp->kd, r[4] = sp->l0;
    }
    st_component_touch(self, st_component_field(self, "spring"));
    return ST_OK;
}

/* Listens to the topology of each state (the first found from its node
 * upward), once per topology (reinit calls init again). */
static st_status rgs_follow(grid_springs *g, st_error *err)
{
    for (int k = 0; k < 2; k++) {
        st_mstate *ms = k ? g->h.set.ms2 : g->h.set.ms1;
        st_component *t = st_node_find(ms->base.node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
        t = t && t->cls->topology ? t : NULL;
        if (t && t != g->topo[0] && t != g->topo[1])
            ST_TRY(st_topology_listen(&g->h.base, t, rgs_topology_changed, err));
        if (t)
            g->topo[k] = t;
    }
    return ST_OK;
}

static st_status rgs_init(st_component *self, st_error *err)
{
    grid_springs *g = (grid_springs *)self;
    springs_free(&g->h.set);
    if (g->file_springs && g->file_springs[0])
        return st_component_error(self, "fileSprings", err, ST_EINVAL,
                                  "loading springs from a file is not supported by settee yet");
    static const char *const lists[] = {"springsIndices1", "springsIndices2", "lengths",
                                        "elongationOnly", "enabled"};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        if (st_component_is_set(self, lists[i]))
            return st_component_error(self, lists[i], err, ST_EINVAL,
                                      "RegularGridSpringForceField takes its extra springs from "
                                      "'spring' (i j ks kd restLength per spring) in settee; "
                                      "the index lists are not supported here");
    double *kv[3] = {&g->lines_k, &g->quads_k, &g->cubes_k};
    double *dv[3] = {&g->lines_d, &g->quads_d, &g->cubes_d};
    static const char *const kn[3] = {"linesStiffness", "quadsStiffness", "cubesStiffness"};
    static const char *const dn[3] = {"linesDamping", "quadsDamping", "cubesDamping"};
    bool kset = st_component_is_set(self, "stiffness"), dset = st_component_is_set(self, "damping");
    for (int t = 0; t < 3; t++) {
        if (kset && !st_component_is_set(self, kn[t]))
            *kv[t] = g->stiffness;
        if (dset && !st_component_is_set(self, dn[t]))
            *dv[t] = g->damping;
    }
    ST_TRY(springs_link_state(self, g->object1, "object1", &g->h.set.ms1, err));
    ST_TRY(springs_link_state(self, g->object2, "object2", &g->h.set.ms2, err));
    st_mstate *m1 = g->h.set.ms1, *m2 = g->h.set.ms2;
    if (g->spring_list.n % 5 != 0)
        return st_component_error(self, "spring", err, ST_EINVAL,
                                  "'spring' takes 5 numbers per spring (i j ks kd restLength), "
                                  "got %zu numbers",
                                  g->spring_list.n);
    for (size_t k = 0; k < g->spring_list.n / 5; k++) {
        const double *r = g->spring_list.r + 5 * k;
        if (!(r[0] >= 0 && r[0] == floor(r[0]) && r[0] < (double)m1->n) ||
            !(r[1] >= 0 && r[1] == floor(r[1]) && r[1] < (double)m2->n))
            return st_component_error(self, "spring", err, ST_EINVAL,
                                      "spring %zu: vertex indices %g, %g are not points of the "
                                      "states (%zu and %zu points)",
                                      k, r[0], r[1], m1->n, m2->n);
        ST_TRY(push(g, (unsigned)r[0], (unsigned)r[1], r[4], r[2], r[3], err));
    }
    grid_info gi;
    g->grid = false;
    if (m1 == m2) {
        g->grid = find_grid(m1, &gi);
        if (g->grid)
            ST_TRY(grid_build(g, &gi, err));
        else
            st_component_warn(self, "no RegularGridTopology in the state's node: only the "
                                    "'spring' list acts");
    }
    ST_TRY(springs_finish(&g->h.set, err));
    return rgs_follow(g, err);
}

static void rgs_cleanup(st_component *self) { springs_free(&((grid_springs *)self)->h.set); }

#define RGS_REAL(m, key, def, help) ST_REAL(grid_springs, m, key, def, help)

static const st_field rgs_fields[] = {
    RGS_REAL(lines_k, "linesStiffness", "100", "Lines Stiffness"),
    RGS_REAL(lines_d, "linesDamping", "5", "Lines Damping"),
    RGS_REAL(quads_k, "quadsStiffness", "100", "Quads Stiffness"),
    RGS_REAL(quads_d, "quadsDamping", "5", "Quads Damping"),
    RGS_REAL(cubes_k, "cubesStiffness", "100", "Cubes Stiffness"),
    RGS_REAL(cubes_d, "cubesDamping", "5", "Cubes Damping"),
    RGS_REAL(stiffness, "stiffness", "100",
             "Stiffness of the lines, quads and cubes whose own field is not set (SOFA's alias "
             "of the three)"),
    RGS_REAL(damping, "damping", "5",
             "Damping of the lines, quads and cubes whose own field is not set (SOFA's alias of "
             "the three)"),
    ST_REALS(grid_springs, spring_list, "spring", NULL,
             "Extra springs as SOFA's LinearSpring text: 'i j ks kd restLength' repeated (5 "
             "numbers per spring), before the grid's"),
    ST_FIELD_EX(grid_springs, indices1, "springsIndices1", ST_T_UINTS, st_array, NULL,
                "Indices of the first vertex of extra springs (not supported here: an error "
                "when set; use spring)",
                0, "indices1", 0.0, 0.0),
    ST_FIELD_EX(grid_springs, indices2, "springsIndices2", ST_T_UINTS, st_array, NULL,
                "Indices of the second vertex of extra springs (not supported here: an error "
                "when set; use spring)",
                0, "indices2", 0.0, 0.0),
    ST_FIELD_EX(grid_springs, lengths, "lengths", ST_T_REALS, st_array, NULL,
                "Rest lengths of extra springs (not supported here: an error when set)", 0,
                "length", 0.0, 0.0),
    ST_UINTS(grid_springs, elongation_only, "elongationOnly", NULL,
             "Per extra spring, 1 if it only acts when stretched (not supported here: an error "
             "when set)"),
    ST_UINTS(grid_springs, enabled, "enabled", NULL,
             "Per extra spring, 1 if enabled (not supported here: an error when set)"),
    ST_IGNORED(grid_springs, show_arrow_size, "showArrowSize", ST_T_REAL, double, "0.01",
               "size of the axis"),
    ST_IGNORED(grid_springs, draw_mode, "drawMode", ST_T_INT, int, "0",
               "The way springs will be drawn: 0 line, 1 cylinder, 2 arrow"),
    ST_STRING(grid_springs, file_springs, "fileSprings", NULL,
              "File of springs (SOFA's .xs3); not supported yet: an error when set"),
    SPRING_F_RAYLEIGH_HEAD(grid_springs),
    SPRING_F_OBJECTS(grid_springs),
    ST_FIELD_END};

/* Checkpoints: the springs a topological change left (a grid's own
 * springs never change), and the `spring` list made from them. */
static st_status rgs_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    grid_springs *g = (grid_springs *)self;
    ST_TRY(springs_transfer(&g->h.set, ck, err));
    bool changed = false;
    for (int k = 0; k < 2; k++)
        changed |= g->topo[k] && st_topology_revision(g->topo[k]) != 0;
    return st_checkpoint_reading(ck) && changed && !g->grid ? rgs_list(g, err) : ST_OK;
}

static const st_checkpoint_ops rgs_ck = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = rgs_transfer,
};

const st_class regular_grid_spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "RegularGridSpringForceField",
    .category = "ForceField",
    .description = "Springs along the lines, face diagonals and cell diagonals of a regular "
                   "grid, stiffness per unit length",
    .instance_size = sizeof(grid_springs),
    .fields = rgs_fields,
    .init = rgs_init,
    .cleanup = rgs_cleanup,
    .forcefield = &spring_head_ops,
    .checkpoint = &rgs_ck,
};
