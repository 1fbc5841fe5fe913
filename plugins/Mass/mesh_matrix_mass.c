/* mesh_matrix_mass.c - MeshMatrixMass: the consistent (or lumped) mass
 * matrix of a mesh, with SOFA's coefficients.
 *
 * Per element of density rho and measure |e| (current positions, or rest
 * positions with computeMassOnRest), SOFA adds to each vertex (diagonal) and
 * to each element edge (off-diagonal, stored on the topology's edge):
 *   triangle rho A/6, rho A/12;  quad rho A/8, rho A/16;
 *   tetrahedron rho V/10, rho V/20;  hexahedron rho V/20, rho V/40.
 * With lumping, M = c diag(vertexMass) with c = 2 (surfaces) or 2.5
 * (volumes). Gravity adds g c vertexMass_i in both modes (g times the row
 * sum of M). Edge-only meshes get no mass (SOFA does the same).
 *
 * Hexahedra: SOFA's V/20, V/40 make the element matrix indefinite (the
 * checkerboard mode has eigenvalue -V/40); they are the default so that SOFA
 * scenes give SOFA's numbers, and init warns about it. exactHexahedra: true
 * uses the exact consistent mass of the trilinear hexahedron instead (3x3x3
 * Gauss integration of rho N_i N_j det J, which is exact; for a box V/27 on
 * the diagonal, V/54 on edges, V/108 on face diagonals, V/216 on body
 * diagonals), symmetric positive definite; face and body diagonal terms are
 * kept in pairs of their own. With exactHexahedra and lumping, each vertex
 * gets its row sum. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <settee/settee.h>

#include "mass.h"

typedef struct mesh_matrix_mass {
    st_component base;
    st_array mass_density;      /* "massDensity": 1 value or one per element */
    double total_mass;          /* "totalMass" */
    st_array vertex_mass;       /* "vertexMass": diagonal terms */
    st_array edge_mass;         /* "edgeMass": off-diagonal terms per topology edge */
    bool compute_mass_on_rest;  /* "computeMassOnRest" */
    bool show_gravity_center;
    double show_axis_size;
    bool lumping;               /* "lumping" */
    bool print_mass;            /* "printMass" */
    bool exact_hexahedra;       /* "exactHexahedra" (settee's opt-in) */
    bool separate_gravity;
    double rayleigh_mass, rayleigh_stiffness;
    st_component *topology, *geometry_state, *mstate;
    /* Set at init. */
    st_mstate *ms;
    st_type elem;               /* element type used, 0 for none (edges only) */
    double c;                   /* SOFA's mass lumping coefficient */
    bool exact;                 /* exact trilinear hexahedra in use */
    size_t ne;                  /* topology edges */
    size_t npair;               /* pairs: the ne topology edges, then extra pairs */
    unsigned *pa, *pb;          /* npair vertex pairs */
    double *pm;                 /* npair off-diagonal masses */
    double *rowsum;             /* exact mode: row sums of M (n) */
    size_t paircap;
    uint64_t *keys;             /* init-time pair lookup: key -> index + 1 */
    size_t *kidx;
    size_t keycap;
    bool warned_acc;
    /* Topological changes (SOFA's handlers): a copy of the mass elements
     * with their density, following the topology's elements, so that a
     * removed element's masses come off its vertices and edges; the pairs
     * are then the topology's edges again (edgeMass follows them). */
    struct mm_item *copy;
    size_t ncopy;
    bool following;
} mesh_matrix_mass;

typedef struct mm_item {
    unsigned v[8];
    double rho;
} mm_item;

extern const st_class st_mesh_matrix_mass_class;

/* Exact consistent mass of a trilinear hexahedron with unit density
 * (SOFA's vertex order: bottom face 0..3 counter-clockwise, top 4..7). */
static void mm_hexa_exact(const double *const p[8], double me[8][8])
{
    static const double sx[8] = {-1, 1, 1, -1, -1, 1, 1, -1};
    static const double sy[8] = {-1, -1, 1, 1, -1, -1, 1, 1};
    static const double sz[8] = {-1, -1, -1, -1, 1, 1, 1, 1};
    static const double gp[3] = {-0.7745966692414834, 0.0, 0.7745966692414834};
    static const double gw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
    memset(me, 0, 64 * sizeof(double));
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 3; c++) {
                double xi = gp[a], et = gp[b], ze = gp[c], N[8], J[3][3] = {{0}};
                for (int i = 0; i < 8; i++) {
                    N[i] = (1 + sx[i] * xi) * (1 + sy[i] * et) * (1 + sz[i] * ze) / 8;
                    double d[3] = {sx[i] * (1 + sy[i] * et) * (1 + sz[i] * ze) / 8,
                                   sy[i] * (1 + sx[i] * xi) * (1 + sz[i] * ze) / 8,
                                   sz[i] * (1 + sx[i] * xi) * (1 + sy[i] * et) / 8};
                    for (int r = 0; r < 3; r++)
                        for (int k = 0; k < 3; k++)
                            J[r][k] += p[i][r] * d[k];
                }
                double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) -
                             J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
                             J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
                double w = gw[a] * gw[b] * gw[c] * fabs(det);
                for (int i = 0; i < 8; i++)
                    for (int j = 0; j < 8; j++)
                        me[i][j] += w * N[i] * N[j];
            }
}

/* ---- vertex pairs ---- */

static st_status mm_pairs_reset(mesh_matrix_mass *m, size_t expect, st_error *err)
{
    st_free(m->keys);
    st_free(m->kidx);
    size_t cap = 64;
    while (cap < 2 * expect + 1)
        cap *= 2;
    m->keys = st_calloc(cap, sizeof *m->keys);
    m->kidx = st_calloc(cap, sizeof *m->kidx);
    if (!m->keys || !m->kidx)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    m->keycap = cap;
    m->npair = 0;
    return ST_OK;
}

/* Index of the pair {a, b}, created (with mass 0) when absent. */
static st_status mm_pair(mesh_matrix_mass *m, unsigned a, unsigned b, size_t *out, st_error *err)
{
    unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    uint64_t key = ((uint64_t)lo << 32 | hi) + 1;
    size_t mask = m->keycap - 1;
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (m->keys[h]) {
        if (m->keys[h] == key) {
            *out = m->kidx[h];
            return ST_OK;
        }
        h = (h + 1) & mask;
    }
    if (m->npair == m->paircap) {
        size_t cap = m->paircap ? 2 * m->paircap : 64;
        unsigned *pa = st_realloc(m->pa, cap * sizeof *pa);
        if (pa)
            m->pa = pa;
        unsigned *pb = st_realloc(m->pb, cap * sizeof *pb);
        if (pb)
            m->pb = pb;
        double *pm = st_realloc(m->pm, cap * sizeof *pm);
        if (pm)
            m->pm = pm;
        if (!pa || !pb || !pm)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        m->paircap = cap;
    }
    /* Table stays under half full: the reset sized it for every pair. */
    size_t i = m->npair++;
    m->pa[i] = a, m->pb[i] = b, m->pm[i] = 0;
    m->keys[h] = key;
    m->kidx[h] = i;
    *out = i;
    return ST_OK;
}

static const st_array *mm_elems(const mesh_matrix_mass *m, st_type kind)
{
    const st_array *a = m->topology->cls->topology->elements(m->topology, kind);
    return a && a->n ? a : NULL;
}

/* ---- mass computation (SOFA's computeMass) ---- */

static const unsigned tri_edges[3][2] = {{0, 1}, {0, 2}, {1, 2}};
static const unsigned quad_edges[4][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}};
static const unsigned tet_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const unsigned hexa_edges[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                           {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};

/* The measure (length, area, volume) of an element as SOFA computes it. */
static double measure(const mesh_matrix_mass *m, const double *x, const unsigned *v)
{
    switch (m->elem) {
    case ST_T_TRIANGLES:
        return mass_tri_area(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2]);
    case ST_T_QUADS:
        return mass_tri_area(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2]) +
               mass_tri_area(x + 3 * v[0], x + 3 * v[2], x + 3 * v[3]);
    case ST_T_TETRAS:
        return mass_tet_volume(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], x + 3 * v[3]);
    default: {
        const double *p[8];
        for (int j = 0; j < 8; j++)
            p[j] = x + 3 * v[j];
        return mass_hexa_volume(p);
    }
    }
}

/* Computes vertexMass, the pair masses and the total for the densities in
 * massDensity (one per element). Returns the total as SOFA accumulates it. */
static st_status mm_compute(mesh_matrix_mass *m, double *total, st_error *err)
{
    size_t n = m->ms->n;
    ST_TRY(st_array_resize(&m->vertex_mass, ST_T_REALS, n, err));
    double *vm = m->vertex_mass.r;
    memset(vm, 0, n * sizeof *vm);
    for (size_t i = 0; i < m->npair; i++)
        m->pm[i] = 0;
    if (m->rowsum)
        memset(m->rowsum, 0, n * sizeof *m->rowsum);
    double t = 0;
    *total = 0;
    if (!m->elem)
        return ST_OK;
    st_mstate *g = (st_mstate *)m->geometry_state;
    const double *x = m->compute_mass_on_rest ? g->rest_position.r : g->position.r;
    const st_array *e = mm_elems(m, m->elem);
    unsigned w = st_type_width(m->elem);
    const double *rho = m->mass_density.r;
    unsigned nedge = m->elem == ST_T_TRIANGLES ? 3 : m->elem == ST_T_QUADS ? 4
                     : m->elem == ST_T_TETRAS  ? 6
                                               : 12;
    const unsigned(*edges)[2] = m->elem == ST_T_TRIANGLES ? tri_edges
                                : m->elem == ST_T_QUADS   ? quad_edges
                                : m->elem == ST_T_TETRAS  ? tet_edges
                                                          : hexa_edges;
    double dv = m->elem == ST_T_TRIANGLES ? 6.0 : m->elem == ST_T_QUADS ? 8.0
                : m->elem == ST_T_TETRAS  ? 10.0
                                          : 20.0;

    if (m->exact) {
        for (size_t i = 0; i < e->n; i++) {
            const unsigned *v = e->u + 8 * i;
            const double *p[8];
            for (int j = 0; j < 8; j++)
                p[j] = x + 3 * v[j];
            double me[8][8];
            mm_hexa_exact(p, me);
            for (int a = 0; a < 8; a++) {
                vm[v[a]] += rho[i] * me[a][a];
                for (int b = 0; b < 8; b++)
                    m->rowsum[v[a]] += rho[i] * me[a][b];
                for (int b = a + 1; b < 8; b++) {
                    size_t k;
                    ST_TRY(mm_pair(m, v[a], v[b], &k, err));
                    m->pm[k] += rho[i] * me[a][b];
                }
            }
            for (int a = 0; a < 8; a++)
                for (int b = 0; b < 8; b++)
                    t += rho[i] * me[a][b];
        }
        if (m->lumping)
            for (size_t i = 0; i < n; i++)
                vm[i] = m->rowsum[i];
        *total = t;
        return ST_OK;
    }

    if (!m->lumping) {
        for (size_t i = 0; i < e->n; i++) {
            const unsigned *v = e->u + (size_t)w * i;
            double mass = (rho[i] * measure(m, x, v)) / (2.0 * dv);
            for (unsigned j = 0; j < nedge; j++) {
                size_t k;
                ST_TRY(mm_pair(m, v[edges[j][0]], v[edges[j][1]], &k, err));
                m->pm[k] += mass;
            }
            t += (double)nedge * mass * 2.0;
        }
    }
    for (size_t i = 0; i < e->n; i++) {
        const unsigned *v = e->u + (size_t)w * i;
        double mass = (rho[i] * measure(m, x, v)) / dv;
        for (unsigned j = 0; j < w; j++)
            vm[v[j]] += mass;
        if (!m->lumping)
            t += (double)w * mass;
        else
            t += (double)w * mass * m->c;
    }
    *total = t;
    return ST_OK;
}

/* ---- initialisation (SOFA's massInitialization) ---- */

static size_t mm_nelems(const mesh_matrix_mass *m)
{
    const st_array *e = m->elem ? mm_elems(m, m->elem) : NULL;
    return e ? e->n : 0;
}

/* Sets massDensity to one value for every element. */
static st_status mm_set_density(mesh_matrix_mass *m, double rho, st_error *err)
{
    size_t ne = mm_nelems(m);
    ST_TRY(st_array_resize(&m->mass_density, ST_T_REALS, ne ? ne : 1, err));
    for (size_t i = 0; i < m->mass_density.n; i++)
        m->mass_density.r[i] = rho;
    return ST_OK;
}

/* SOFA's checkMassDensity: 1 value (expanded) or one per element, >= 0. */
static st_status mm_check_density(mesh_matrix_mass *m, bool *ok, st_error *err)
{
    size_t ne = mm_nelems(m);
    *ok = false;
    if (m->mass_density.n == 0)
        return ST_OK;
    if (m->elem && m->mass_density.n != ne && m->mass_density.n != 1) {
        st_component_warn(&m->base, "Inconsistent size of massDensity = %zu, should be either 1 "
                                    "or %zu",
                          m->mass_density.n, ne);
        return ST_OK;
    }
    for (size_t i = 0; i < m->mass_density.n; i++)
        if (m->mass_density.r[i] < 0) {
            if (m->mass_density.n == 1)
                st_component_warn(&m->base, "Negative value of massDensity: massDensity = %g",
                                  m->mass_density.r[0]);
            else
                st_component_warn(&m->base,
                                  "Negative value of massDensity vector: massDensity[%zu] = %g",
                                  i, m->mass_density.r[i]);
            return ST_OK;
        }
    if (m->mass_density.n == 1)
        ST_TRY(mm_set_density(m, m->mass_density.r[0], err));
    *ok = true;
    return ST_OK;
}

static void mm_check_total_init(mesh_matrix_mass *m)
{
    if (m->total_mass < 0.0) {
        st_component_warn(&m->base,
                          "totalMass data can not have a negative value. To remove this warning, "
                          "you need to set a strictly positive value to the totalMass data");
        st_component_warn(&m->base, "Switching back to default values: totalMass = 1.0");
        m->total_mass = 1.0;
    }
}

static st_status mm_from_total(mesh_matrix_mass *m, st_error *err)
{
    double total = m->total_mass, sum;
    ST_TRY(mm_set_density(m, 1.0, err));
    ST_TRY(mm_compute(m, &sum, err));
    double md = sum > DBL_EPSILON ? total / sum : 1.0;
    ST_TRY(mm_set_density(m, md, err));
    m->total_mass = total;
    for (size_t i = 0; i < m->vertex_mass.n; i++)
        m->vertex_mass.r[i] *= md;
    for (size_t i = 0; i < m->npair; i++)
        m->pm[i] *= md;
    if (m->rowsum)
        for (size_t i = 0; i < m->ms->position.n; i++)
            m->rowsum[i] *= md;
    return ST_OK;
}

static st_status mm_from_density(mesh_matrix_mass *m, st_error *err)
{
    double sum;
    ST_TRY(mm_compute(m, &sum, err));
    if (m->exact) {
        m->total_mass = sum;
        return ST_OK;
    }
    double s = 0;
    for (size_t i = 0; i < m->vertex_mass.n; i++)
        s += m->vertex_mass.r[i];
    if (!m->lumping) {
        double se = 0;
        for (size_t i = 0; i < m->ne; i++)
            se += m->pm[i];
        s += se * 2.0;
    } else {
        s *= m->c;
    }
    m->total_mass = s;
    return ST_OK;
}

static bool mm_check_list(mesh_matrix_mass *m, const st_array *a, size_t want, const char *name)
{
    if (a->n != want) {
        st_component_warn(&m->base, "Inconsistent size of %s vector (%zu) compared to the "
                                    "expected size (%zu).",
                          name, a->n, want);
        return false;
    }
    for (size_t i = 0; i < a->n; i++)
        if (a->r[i] < 0) {
            st_component_warn(&m->base, "Negative value of %s vector: %s[%zu] = %g", name, name,
                              i, a->r[i]);
            return false;
        }
    return true;
}

/* initFromVertexMass / initFromVertexAndEdgeMass: keep the given values,
 * deduce the density from the geometry. */
static st_status mm_from_given(mesh_matrix_mass *m, bool with_edges, st_error *err)
{
    size_t nv = m->vertex_mass.n, nem = m->edge_mass.n;
    double *sv = st_malloc((nv + nem + 1) * sizeof *sv);
    if (!sv)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(sv, m->vertex_mass.r, nv * sizeof *sv);
    if (nem)
        memcpy(sv + nv, m->edge_mass.r, nem * sizeof *sv);
    double save = 0;
    for (size_t i = 0; i < nv; i++)
        save += sv[i];
    if (with_edges)
        for (size_t i = 0; i < nem; i++)
            save += sv[nv + i];
    double sum;
    st_status st = mm_set_density(m, 1.0, err);
    if (st == ST_OK)
        st = mm_compute(m, &sum, err);
    if (st == ST_OK) {
        double volume = 0;
        for (size_t i = 0; i < m->vertex_mass.n; i++)
            volume += m->vertex_mass.r[i] * m->c;
        memcpy(m->vertex_mass.r, sv, nv * sizeof *sv);
        if (with_edges)
            for (size_t i = 0; i < m->ne && i < nem; i++)
                m->pm[i] = sv[nv + i];
        st = mm_set_density(m, volume > 0 ? save / volume : 1.0, err);
        m->total_mass = save;
    }
    st_free(sv);
    return st;
}

static st_status mm_init_mass(mesh_matrix_mass *m, st_error *err)
{
    st_component *self = &m->base;
    bool vm_set = st_component_is_set(self, "vertexMass");
    bool md_set = st_component_is_set(self, "massDensity");
    bool tm_set = st_component_is_set(self, "totalMass");
    bool em_set = st_component_is_set(self, "edgeMass");
    size_t np = mass_topology_nb_points(m->topology);
    if (tm_set) {
        if (vm_set || md_set)
            st_component_warn(self, "totalMass value overriding other mass information "
                                    "(vertexMass or massDensity). To remove this warning you need "
                                    "to define only one single mass information data field.");
        mm_check_total_init(m);
        return mm_from_total(m, err);
    }
    if (md_set) {
        if (vm_set)
            st_component_warn(self, "massDensity value overriding the value of the attribute "
                                    "vertexMass. To remove this warning you need to set either "
                                    "vertexMass or massDensity data field, but not both.");
        bool ok;
        ST_TRY(mm_check_density(m, &ok, err));
        if (!ok) {
            mm_check_total_init(m);
            return mm_from_total(m, err);
        }
        return mm_from_density(m, err);
    }
    if (vm_set && !m->exact) {
        if (em_set) {
            if (!mm_check_list(m, &m->vertex_mass, np, "vertexMass") ||
                !mm_check_list(m, &m->edge_mass, m->ne, "edgeMass")) {
                mm_check_total_init(m);
                return mm_from_total(m, err);
            }
            return mm_from_given(m, true, err);
        }
        if (m->lumping) {
            if (!mm_check_list(m, &m->vertex_mass, np, "vertexMass")) {
                mm_check_total_init(m);
                return mm_from_total(m, err);
            }
            return mm_from_given(m, false, err);
        }
        st_component_warn(self, "Initialization using vertexMass requires the lumping option or "
                                "the edgeMass information; totalMass is used instead");
        mm_check_total_init(m);
        return mm_from_total(m, err);
    }
    if (vm_set)
        st_component_warn(self, "vertexMass cannot initialise exactHexahedra; totalMass is used");
    else
        st_component_info(self, "No information about the mass is given. Default : totalMass "
                                "= 1.0");
    mm_check_total_init(m);
    return mm_from_total(m, err);
}

static void mm_free_runtime(mesh_matrix_mass *m)
{
    st_free(m->copy);
    m->copy = NULL;
    m->ncopy = 0;
    st_free(m->pa), st_free(m->pb), st_free(m->pm), st_free(m->rowsum);
    st_free(m->keys), st_free(m->kidx);
    m->pa = m->pb = NULL, m->pm = m->rowsum = NULL, m->keys = NULL, m->kidx = NULL;
    m->npair = m->paircap = m->keycap = m->ne = 0;
}

/* ---- topological changes (SOFA's MeshMatrixMass handlers) ---- */

static st_elem mm_elem_kind(st_type t)
{
    switch (t) {
    case ST_T_TRIANGLES: return ST_ELEM_TRIANGLE;
    case ST_T_QUADS: return ST_ELEM_QUAD;
    case ST_T_TETRAS: return ST_ELEM_TETRAHEDRON;
    default: return ST_ELEM_HEXAHEDRON;
    }
}

/* The pair {a, b} among the topology's edges as they were before the
 * change (pa, pb are rebuilt only after it), or -1. */
static size_t mm_find_pair(const mesh_matrix_mass *m, unsigned a, unsigned b)
{
    for (size_t k = 0; k < m->npair; k++)
        if ((m->pa[k] == a && m->pb[k] == b) || (m->pa[k] == b && m->pb[k] == a))
            return k;
    return (size_t)-1;
}

/* Adds sign times an element's masses (SOFA's applyVertexMassXxxCreation /
 * Destruction and applyEdgeMassXxx...): rho |e| / dv on each vertex and
 * rho |e| / (2 dv) on each edge, positions as computeMassOnRest says. */
static size_t mm_find_edge(const st_array *edges, unsigned a, unsigned b)
{
    for (size_t k = 0; k < edges->n; k++) {
        const unsigned *e = edges->u + 2 * k;
        if ((e[0] == a && e[1] == b) || (e[0] == b && e[1] == a))
            return k;
    }
    return (size_t)-1;
}

/* edges_now: the topology's edges when the element is created (its new
 * edges were added just before it, and edgeMass has their slots, while
 * the pairs are remade after the change), else NULL: the pairs. */
static void mm_elem_apply(mesh_matrix_mass *m, const mm_item *it, double sign,
                          const st_array *edges_now)
{
    st_mstate *g = (st_mstate *)m->geometry_state;
    const st_array *pos = m->compute_mass_on_rest ? &g->rest_position : &g->position;
    unsigned w = st_type_width(m->elem);
    for (unsigned j = 0; j < w; j++)
        if (it->v[j] >= pos->n || it->v[j] >= m->vertex_mass.n)
            return;
    unsigned nedge = m->elem == ST_T_TRIANGLES ? 3 : m->elem == ST_T_QUADS ? 4
                     : m->elem == ST_T_TETRAS  ? 6
                                               : 12;
    const unsigned(*edges)[2] = m->elem == ST_T_TRIANGLES ? tri_edges
                                : m->elem == ST_T_QUADS   ? quad_edges
                                : m->elem == ST_T_TETRAS  ? tet_edges
                                                          : hexa_edges;
    double dv = m->elem == ST_T_TRIANGLES ? 6.0 : m->elem == ST_T_QUADS ? 8.0
                : m->elem == ST_T_TETRAS  ? 10.0
                                          : 20.0;
    double meas = measure(m, pos->r, it->v);
    double mass = (it->rho * meas) / dv;
    for (unsigned j = 0; j < w; j++)
        m->vertex_mass.r[it->v[j]] += sign * mass;
    m->total_mass += sign * (m->lumping ? (double)w * mass * m->c : (double)w * mass);
    if (m->lumping)
        return;
    double me = (it->rho * meas) / (2.0 * dv);
    for (unsigned j = 0; j < nedge; j++) {
        unsigned a = it->v[edges[j][0]], b = it->v[edges[j][1]];
        size_t k = edges_now ? mm_find_edge(edges_now, a, b) : mm_find_pair(m, a, b);
        if (k < m->edge_mass.n)
            m->edge_mass.r[k] += sign * me;
    }
    m->total_mass += sign * ((double)nedge * me * 2.0);
}

static void mm_elem_destroy(void *ud, size_t i, void *item)
{
    (void)i;
    mm_elem_apply(ud, item, -1.0, NULL);
}

static void mm_elem_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    mesh_matrix_mass *m = ud;
    mm_item *it = item;
    unsigned w = st_type_width(m->elem);
    if (!ev->vertices)
        return;
    memcpy(it->v, ev->vertices + k * w, w * sizeof(unsigned));
    it->rho = m->mass_density.n ? m->mass_density.r[i < m->mass_density.n ? i : 0] : 1.0;
    mm_elem_apply(m, it, 1.0, m->topology->cls->topology->elements(m->topology, ST_T_EDGES));
}

static const st_topo_follow_ops mm_elem_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .destroy = mm_elem_destroy,
    .create = mm_elem_create,
};

/* applyVertexMassDestruction: totalMass -= the point's mass. */
static void mm_point_destroy(void *ud, size_t i, void *item)
{
    (void)i;
    mesh_matrix_mass *m = ud;
    m->total_mass -= *(const double *)item;
}

/* applyEdgeMassDestruction: totalMass -= the edge's mass (not lumped). */
static void mm_edge_destroy(void *ud, size_t i, void *item)
{
    (void)i;
    mesh_matrix_mass *m = ud;
    if (!m->lumping)
        m->total_mass -= *(const double *)item;
}

static const st_topo_follow_ops mm_point_ops = {.struct_size = sizeof(st_topo_follow_ops),
                                                .destroy = mm_point_destroy};
static const st_topo_follow_ops mm_edge_ops = {.struct_size = sizeof(st_topo_follow_ops),
                                               .destroy = mm_edge_destroy};

static st_status mm_pairs_from_edges(mesh_matrix_mass *m, st_error *err);

/* After the change: the copies renumbered as the container's elements, the
 * pairs made of the topology's edges again, with edgeMass's values. */
static st_status mm_topology_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].change != ST_TOPO_REMOVED || ev[e].elem != ST_ELEM_POINT)
            continue;
        for (size_t k = 0; k < ev[e].n; k++) {
            unsigned id = ev[e].index[k], last = (unsigned)(ev[e].before - 1 - k);
            for (size_t i = 0; i < m->ncopy; i++)
                for (unsigned j = 0; j < 8; j++)
                    if (m->copy[i].v[j] == last)
                        m->copy[i].v[j] = id;
        }
    }
    return mm_pairs_from_edges(m, err);
}

/* The pairs made of the topology's edges again, with edgeMass's values
 * (after a change, and when a checkpoint is read). */
static st_status mm_pairs_from_edges(mesh_matrix_mass *m, st_error *err)
{
    st_component *self = &m->base;
    const st_array *edges = m->topology->cls->topology->elements(m->topology, ST_T_EDGES);
    size_t ne = edges ? edges->n : 0;
    if (ne != m->edge_mass.n)
        return st_component_error(self, "edgeMass", err, ST_ESOLVER,
                                  "%zu edge masses for %zu topology edges after a change",
                                  m->edge_mass.n, ne);
    if (ne > m->paircap) {
        unsigned *pa = st_realloc(m->pa, ne * sizeof *pa);
        if (pa)
            m->pa = pa;
        unsigned *pb = st_realloc(m->pb, ne * sizeof *pb);
        if (pb)
            m->pb = pb;
        double *pm = st_realloc(m->pm, ne * sizeof *pm);
        if (pm)
            m->pm = pm;
        if (!pa || !pb || !pm)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        m->paircap = ne;
    }
    for (size_t k = 0; k < ne; k++) {
        m->pa[k] = edges->u[2 * k];
        m->pb[k] = edges->u[2 * k + 1];
        m->pm[k] = m->lumping ? 0.0 : m->edge_mass.r[k];
    }
    m->npair = m->ne = ne;
    st_component_touch(self, st_component_field(self, "vertexMass"));
    st_component_touch(self, st_component_field(self, "edgeMass"));
    st_component_touch(self, st_component_field(self, "massDensity"));
    st_component_touch(self, st_component_field(self, "totalMass"));
    return ST_OK;
}

/* Follows the topology when the pairs are exactly its edges (SOFA's
 * EdgeData edgeMass); the exact hexahedra (pairs of their own) and
 * topologies without the elements' edges do not follow: a change of them
 * is refused by the kernel. */
static st_status mm_follow(mesh_matrix_mass *m, st_error *err)
{
    st_component *self = &m->base;
    if (m->following || !m->elem || m->exact || m->npair != m->ne)
        return ST_OK;
    const st_array *e = mm_elems(m, m->elem);
    unsigned w = st_type_width(m->elem);
    size_t n = e ? e->n : 0;
    m->copy = st_calloc(n ? n : 1, sizeof *m->copy);
    if (!m->copy)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        memcpy(m->copy[i].v, e->u + (size_t)w * i, w * sizeof(unsigned));
        m->copy[i].rho = m->mass_density.r[i < m->mass_density.n ? i : 0];
    }
    m->ncopy = n;
    ST_TRY(st_topology_follow_field(self, "vertexMass", m->topology, ST_ELEM_POINT, &mm_point_ops,
                                    m, err));
    ST_TRY(st_topology_follow_field(self, "edgeMass", m->topology, ST_ELEM_EDGE, &mm_edge_ops, m,
                                    err));
    ST_TRY(st_topology_follow(self, m->topology, mm_elem_kind(m->elem), (void **)&m->copy,
                              &m->ncopy, sizeof *m->copy, &mm_elem_ops, m, err));
    if (m->mass_density.n == n)
        ST_TRY(st_topology_follow_field(self, "massDensity", m->topology, mm_elem_kind(m->elem),
                                        NULL, NULL, err));
    ST_TRY(st_topology_listen(self, m->topology, mm_topology_changed, err));
    m->following = true;
    return ST_OK;
}

static st_status mm_init(st_component *self, st_error *err)
{
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    mm_free_runtime(m);
    ST_TRY(mass_bind_topology(self, &m->ms, &m->topology, &m->geometry_state, err));
    const st_state_type *gt = ((st_mstate *)m->geometry_state)->type;
    if (gt && strcmp(gt->name, "Vec3d"))
        return st_component_error(self, "geometryState", err, ST_ESCENE,
                                  "the geometry state '%s' is %s; MeshMatrixMass reads Vec3d "
                                  "positions (SOFA's GeometricalTypes)",
                                  m->geometry_state->name, gt->name);
    static const st_type order[4] = {ST_T_HEXAS, ST_T_TETRAS, ST_T_QUADS, ST_T_TRIANGLES};
    m->elem = 0;
    for (int i = 0; i < 4 && !m->elem; i++)
        if (mm_elems(m, order[i]))
            m->elem = order[i];
    const st_array *edges = mm_elems(m, ST_T_EDGES);
    if (!m->elem && !edges)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "Topology empty: the topology '%s' has no edges, triangles, "
                                  "quads, tetrahedra or hexahedra",
                                  m->topology->name);
    if (!m->elem && m->lumping)
        return st_component_error(self, "lumping", err, ST_ESCENE,
                                  "Edge topology found: MeshMatrixMass computes no mass on edges "
                                  "(as SOFA), so every lumped vertex mass is 0 and accFromF would "
                                  "divide by it; use DiagonalMass or UniformMass on edges");
    if (!m->elem)
        st_component_warn(self, "Edge topology found: MeshMatrixMass computes no mass on edges "
                                "(as SOFA), every mass is 0");
    m->c = (m->elem == ST_T_TRIANGLES || m->elem == ST_T_QUADS) ? 2.0
           : m->elem                                          ? 2.5
                                                              : 0.0;
    m->exact = m->exact_hexahedra && m->elem == ST_T_HEXAS;
    if (m->exact_hexahedra && !m->exact)
        st_component_warn(self, "exactHexahedra has no effect: the topology has no hexahedra");
    if (m->exact && m->lumping)
        m->c = 1.0; /* vertexMass then holds the row sums */

    /* Every vertex the elements use must exist in both states. */
    size_t n = m->ms->n;
    st_mstate *g = (st_mstate *)m->geometry_state;
    size_t gn = m->compute_mass_on_rest ? g->rest_position.n : g->position.n;
    const st_type kinds[5] = {ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS, ST_T_HEXAS};
    for (int t = 0; t < 5; t++) {
        const st_array *e = mm_elems(m, kinds[t]);
        if (!e || (kinds[t] != ST_T_EDGES && kinds[t] != m->elem))
            continue;
        unsigned w = st_type_width(kinds[t]);
        for (size_t i = 0; i < e->n * w; i++)
            if (e->u[i] >= n || e->u[i] >= gn)
                return st_component_error(self, "topology", err, ST_EINVAL,
                                          "the topology's %s use vertex %u but the state has "
                                          "%zu points",
                                          st_type_name(kinds[t]), e->u[i], n < gn ? n : gn);
    }

    /* The topology's edges come first among the pairs, in its order. */
    size_t nel = mm_nelems(m);
    size_t expect = (edges ? edges->n : 0) + 28 * (m->elem == ST_T_HEXAS ? nel : 0) +
                    6 * (m->elem != ST_T_HEXAS ? nel : 0);
    ST_TRY(mm_pairs_reset(m, expect, err));
    for (size_t i = 0; edges && i < edges->n; i++) {
        size_t k;
        ST_TRY(mm_pair(m, edges->u[2 * i], edges->u[2 * i + 1], &k, err));
    }
    m->ne = m->npair;
    if (m->exact) {
        m->rowsum = st_calloc(n ? n : 1, sizeof *m->rowsum);
        if (!m->rowsum)
            return st_error_set(err, ST_ENOMEM, "out of memory");
    }

    ST_TRY(mm_init_mass(m, err));
    /* A lumped mass is diagonal: accFromF divides by each vertex's mass. */
    if (m->lumping)
        ST_TRY(mass_check_vertex_masses(self, "vertexMass", m->vertex_mass.r,
                                        m->vertex_mass.n < n ? m->vertex_mass.n : n, m->c, err));

    /* Outputs: the edge masses of the topology's edges. */
    ST_TRY(st_array_resize(&m->edge_mass, ST_T_REALS, m->ne, err));
    for (size_t i = 0; i < m->ne; i++)
        m->edge_mass.r[i] = m->lumping ? 0.0 : m->pm[i];
    if (m->lumping)
        for (size_t i = 0; i < m->npair; i++)
            m->pm[i] = 0.0;
    st_free(m->keys), st_free(m->kidx);
    m->keys = NULL, m->kidx = NULL, m->keycap = 0;
    st_component_touch(self, st_component_field(self, "vertexMass"));
    st_component_touch(self, st_component_field(self, "edgeMass"));
    st_component_touch(self, st_component_field(self, "massDensity"));
    st_component_touch(self, st_component_field(self, "totalMass"));

    if (m->elem == ST_T_HEXAS && !m->lumping && !m->exact)
        st_component_warn(self,
                          "SOFA's hexahedron mass coefficients (V/20 on the diagonal, V/40 on the "
                          "12 edges) make the element mass matrix indefinite: its checkerboard "
                          "mode has eigenvalue -V/40, which can make implicit and explicit "
                          "integration unstable. Kept by default to reproduce SOFA; set "
                          "exactHexahedra: true for the exact trilinear consistent mass or "
                          "lumping: true for a diagonal mass");
    if (m->print_mass)
        st_component_info(self, "mass information computed: totalMass = %g", m->total_mass);
    return mm_follow(m, err);
}

static void mm_cleanup(st_component *self) { mm_free_runtime((mesh_matrix_mass *)self); }

/* ---- role functions ---- */

static size_t mm_n(const mesh_matrix_mass *m)
{
    return m->vertex_mass.n < m->ms->n ? m->vertex_mass.n : m->ms->n;
}

/* M dx for a field of w scalars per point (Vec1d, Vec2d): the same scalar
 * mass on every component. */
static void mm_add_m_dx_d(const mesh_matrix_mass *m, double *r, const double *d, double factor,
                          unsigned w)
{
    const double *vm = m->vertex_mass.r;
    size_t n = mm_n(m);
    double c = m->lumping ? m->c : 1.0;
    for (size_t i = 0; i < n; i++)
        for (unsigned q = 0; q < w; q++)
            r[w * i + q] += d[w * i + q] * vm[i] * c * factor;
    if (m->lumping)
        return;
    for (size_t k = 0; k < m->npair; k++) {
        double t = m->pm[k] * factor;
        for (unsigned q = 0; q < w; q++) {
            r[w * m->pa[k] + q] += d[w * m->pb[k] + q] * t;
            r[w * m->pb[k] + q] += d[w * m->pa[k] + q] * t;
        }
    }
}

static void mm_add_m_dx(st_component *self, const st_mparams *mp, double *res, const double *dx,
                        double factor)
{
    (void)mp;
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    double *r = st_slice(res, m->ms);
    const double *d = st_slice(dx, m->ms);
    const double *vm = m->vertex_mass.r;
    size_t n = mm_n(m);
    unsigned w = m->ms->type->deriv_size;
    if (w != 3) {
        mm_add_m_dx_d(m, r, d, factor, w);
        return;
    }
    if (m->lumping) {
        for (size_t i = 0; i < 3 * n; i++)
            r[i] += d[i] * vm[i / 3] * m->c * factor;
        return;
    }
    for (size_t i = 0; i < 3 * n; i++)
        r[i] += d[i] * vm[i / 3] * factor;
    for (size_t k = 0; k < m->npair; k++) {
        double t = m->pm[k] * factor;
        double *ra = r + 3 * m->pa[k], *rb = r + 3 * m->pb[k];
        const double *da = d + 3 * m->pa[k], *db = d + 3 * m->pb[k];
        ra[0] += db[0] * t, ra[1] += db[1] * t, ra[2] += db[2] * t;
        rb[0] += da[0] * t, rb[1] += da[1] * t, rb[2] += da[2] * t;
    }
}

static void mm_acc_from_f(st_component *self, const st_mparams *mp, double *a, const double *f)
{
    (void)mp;
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    if (!m->lumping) {
        if (!m->warned_acc)
            st_component_warn(self, "the method 'accFromF' can't be used with MeshMatrixMass as "
                                    "this SPARSE mass matrix can't be inversed easily. Please "
                                    "proceed to mass lumping or use a DiagonalMass (both are "
                                    "equivalent).");
        m->warned_acc = true;
        return;
    }
    double *as = st_slice(a, m->ms);
    const double *fs = st_slice(f, m->ms);
    size_t n = mm_n(m);
    unsigned w = m->ms->type->deriv_size;
    for (size_t i = 0; i < w * n; i++)
        as[i] = fs[i] / (m->vertex_mass.r[i / w] * m->c);
}

static void mm_add_m_to_matrix(st_component *self, const st_mparams *mp, st_matrix *mat,
                               double mfactor)
{
    (void)mp;
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    size_t n = mm_n(m);
    const st_mstate *ms = m->ms;
    if (m->lumping) {
        for (size_t i = 0; i < n; i++)
            st_matrix_add_diag(mat, ms, i, m->vertex_mass.r[i] * m->c * mfactor);
        return;
    }
    for (size_t i = 0; i < n; i++)
        st_matrix_add_diag(mat, ms, i, m->vertex_mass.r[i] * mfactor);
    for (size_t k = 0; k < m->npair; k++) {
        if (m->pm[k] == 0.0)
            continue;
        double e = m->pm[k] * mfactor;
        unsigned w = ms->type->deriv_size;
        double b[9] = {0};
        for (unsigned q = 0; q < w; q++)
            b[w * q + q] = e;
        st_matrix_add_block(mat, ms, m->pa[k], ms, m->pb[k], b);
        st_matrix_add_block(mat, ms, m->pb[k], ms, m->pa[k], b);
    }
}

static void mm_add_gravity(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)x, (void)v;
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    if (m->separate_gravity)
        return;
    double *fs = st_slice(f, m->ms);
    const double *g = mp->gravity;
    size_t n = mm_n(m);
    unsigned w = m->ms->type->deriv_size;
    if (w != 3) {
        /* SOFA's DataTypes::set(gravity, gx, gy, gz): the first w components */
        for (size_t i = 0; i < n; i++)
            for (unsigned q = 0; q < w; q++)
                fs[w * i + q] += g[q] * m->vertex_mass.r[i] * m->c;
        return;
    }
    for (size_t i = 0; i < n; i++) {
        if (m->exact && !m->lumping) {
            double r = m->rowsum[i];
            fs[3 * i] += g[0] * r, fs[3 * i + 1] += g[1] * r, fs[3 * i + 2] += g[2] * r;
            continue;
        }
        double vm = m->vertex_mass.r[i];
        fs[3 * i] += g[0] * vm * m->c;
        fs[3 * i + 1] += g[1] * vm * m->c;
        fs[3 * i + 2] += g[2] * vm * m->c;
    }
}

static void mm_add_gravity_to_v(st_component *self, const st_mparams *mp, double *v, double dt)
{
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    if (m->separate_gravity)
        mass_add_gravity_to_v(m->ms, mp, v, dt);
}

static double mm_kinetic(st_component *self, const st_mparams *mp, const double *v)
{
    (void)mp;
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    const double *vs = st_slice(v, m->ms);
    size_t n = mm_n(m);
    double e = 0, c = m->lumping ? m->c : 1.0;
    unsigned d = m->ms->type->deriv_size;
    for (size_t i = 0; i < n; i++) {
        const double *w = vs + d * i;
        double s = 0;
        for (unsigned q = 0; q < d; q++)
            s += w[q] * w[q];
        e += s * m->vertex_mass.r[i] * c;
    }
    if (!m->lumping)
        for (size_t k = 0; k < m->npair; k++) {
            const double *a = vs + d * m->pa[k], *b = vs + d * m->pb[k];
            double s = 0;
            for (unsigned q = 0; q < d; q++)
                s += a[q] * b[q];
            e += 2 * s * m->pm[k];
        }
    return e / 2;
}

static double mm_potential(st_component *self, const st_mparams *mp, const double *x)
{
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    const double *xs = st_slice_x(x, m->ms);
    const double *g = mp->gravity;
    size_t n = mm_n(m);
    unsigned d = m->ms->type->coord_size;
    double e = 0;
    for (size_t i = 0; i < n; i++) {
        const double *p = xs + d * i;
        double w = (m->exact && !m->lumping) ? m->rowsum[i] : m->vertex_mass.r[i] * m->c;
        for (unsigned q = 0; q < d; q++)
            e -= g[q] * p[q] * w;
    }
    return e;
}

static bool mm_is_diagonal(const st_component *self)
{
    return ((const mesh_matrix_mass *)self)->lumping;
}

static double mm_rayleigh_mass(const st_component *self)
{
    return ((const mesh_matrix_mass *)self)->rayleigh_mass;
}

static const st_mass_ops mm_mass_ops = {
    .struct_size = sizeof(st_mass_ops),
    .add_m_dx = mm_add_m_dx,
    .acc_from_f = mm_acc_from_f,
    .add_m_to_matrix = mm_add_m_to_matrix,
    .add_gravity_to_force = mm_add_gravity,
    .add_gravity_to_v = mm_add_gravity_to_v,
    .kinetic_energy = mm_kinetic,
    .potential_energy = mm_potential,
    .is_diagonal = mm_is_diagonal,
    .rayleigh_mass = mm_rayleigh_mass,
};

static const st_field mm_fields[] = {
    ST_REALS(mesh_matrix_mass, mass_density, "massDensity", NULL,
             "Specify real and strictly positive value(s) for the mass density (one, or one per "
             "element). If unspecified or wrongly set, the totalMass information is used."),
    ST_REAL(mesh_matrix_mass, total_mass, "totalMass", "1",
            "Specify the total mass resulting from all particles. If unspecified or wrongly set, "
            "the default value is used: totalMass = 1.0"),
    ST_REALS(mesh_matrix_mass, vertex_mass, "vertexMass", NULL,
             "internal values of the particles masses on vertices (the diagonal of M)"),
    ST_REALS(mesh_matrix_mass, edge_mass, "edgeMass", NULL,
             "internal values of the particles masses on edges (off-diagonal terms of M, one per "
             "topology edge)"),
    ST_BOOL(mesh_matrix_mass, compute_mass_on_rest, "computeMassOnRest", "false",
            "If true, the mass of every element is computed based on the rest position rather "
            "than the position"),
    MASS_F_SHOW(mesh_matrix_mass),
    ST_BOOL(mesh_matrix_mass, lumping, "lumping", "false",
            "boolean if you need to use a lumped mass matrix (c x vertexMass on the diagonal, "
            "c = 2 on surfaces, 2.5 on volumes)"),
    ST_BOOL(mesh_matrix_mass, print_mass, "printMass", "false",
            "boolean if you want to check the mass conservation"),
    ST_BOOL(mesh_matrix_mass, exact_hexahedra, "exactHexahedra", "false",
            "settee extension: use the exact consistent mass of trilinear hexahedra (positive "
            "definite) instead of SOFA's V/20 diagonal and V/40 edge coefficients, whose element "
            "matrix is indefinite (checkerboard eigenvalue -V/40); default false reproduces SOFA"),
    ST_LINK(mesh_matrix_mass, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the node's last topology, else its parent's)"),
    ST_LINK_GEOMETRY(mesh_matrix_mass, geometry_state, "geometryState",
            "link to the MechanicalObject associated with the geometry (default: the "
            "topology's node's)"),
    MASS_F_COMMON(mesh_matrix_mass),
    ST_FIELD_END};

/* Checkpoints: the followed arrays (masses, element copies) are restored by
 * the kernel; the pairs, made from them after each change, are made again. */
static st_status mm_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    mesh_matrix_mass *m = (mesh_matrix_mass *)self;
    if (!st_checkpoint_reading(ck) || !m->following)
        return ST_OK;
    return mm_pairs_from_edges(m, err);
}

/* SOFA's Vec1d, Vec2d and Vec3d instances (the geometry Vec3d in each:
 * "Vec1,Vec3" is the Vec1d mass on a Vec3d geometry). */
static const char *const mm_templates[] = {"Vec3d", "Vec2d", "Vec1d", NULL};

static const st_checkpoint_ops mm_checkpoint_ops = {sizeof(st_checkpoint_ops), mm_checkpoint};

const st_class st_mesh_matrix_mass_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshMatrixMass",
    .category = "Mass",
    .description = "Consistent (or lumped) mass matrix of triangles, quads, tetrahedra or "
                   "hexahedra with SOFA's coefficients",
    .instance_size = sizeof(mesh_matrix_mass),
    .fields = mm_fields,
    .init = mm_init,
    .cleanup = mm_cleanup,
    .mass = &mm_mass_ops,
    .checkpoint = &mm_checkpoint_ops,
    .templates = mm_templates,
};
