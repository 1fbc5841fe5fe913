/* barycentric_mapping.c - BarycentricMapping: each output point follows the
 * input element it was located in at init, with fixed barycentric
 * coefficients (a linear mapping: x_out = sum_k w_k x_in[v_k]).
 *
 * Location follows SOFA's mappers:
 * - a RegularGridTopology (3D): the cube found from the grid's origin and
 *   spacing; a point outside takes the nearest cube (indices clamped) with
 *   extrapolated coefficients (below 0 or above 1);
 * - a SparseGridTopology (SOFA's sparse grid mapper, locate_sparse): the
 *   cube of its regular grid, else the nearest surface cube, in the grid's
 *   frame (a state translated from its grid carries its mapped points);
 *   a ramified one: locate_ramified;
 * - any other topology (SOFA's MeshTopology mapper): with tetrahedra or
 *   hexahedra, the element whose coefficients are inside (the most inside
 *   one), else the one whose centre is nearest, coefficients extrapolated
 *   (hexahedra use the affine frame of their edges 0-1, 0-3, 0-4); else
 *   triangles and quads (a point is inside when within 0.01 of the
 *   element's plane, in units of the normal's length); else edges (the first
 *   edge whose projection coefficient lies in [0, 1], else the last edge).
 * Weights per element kind (SOFA's formulas and summation order):
 *   edge (1-fx, fx), triangle (1-fx-fy, fx, fy), quad bilinear, tetra
 *   (1-fx-fy-fz, fx, fy, fz), cube trilinear.
 *
 * Topological changes: as SOFA's BarycentricMapping::handleTopologyChange,
 * after a change of any topology above the mapping (or of its input
 * topology) every mapped point is located again, from the current positions
 * of the input and the output, in the elements that remain: a point whose
 * element disappeared is attached to the element containing it, else the
 * nearest one.
 *
 * A Rigid3d output (SOFA's BarycentricMapping<Vec3, Rigid3>): the frames'
 * centres are mapped as points. With a dynamic tetrahedron container as
 * input topology (no hexahedra; SOFA's BarycentricMapperTetrahedronSetTopology,
 * specialised for rigid outputs) the orientation follows the tetrahedron:
 * at init each axis r_d of the frame (a column of its rotation) is written
 * in the tetrahedron's edge basis E = [x1-x0, x2-x0, x3-x0] and normalised,
 * c_d = E^-1 r_d / |E^-1 r_d|; apply forms M = [E c_0, E c_1, E c_2] from
 * the current edges and takes the rotation of its polar decomposition.
 * J is SOFA's, not the derivative of that rotation: the linear velocity is
 * the barycentric sum, the angular one w = sum_k x_k x dx_k over the four
 * vertices of the tetrahedron (x_k their positions at the last apply), so
 * J^T sends a torque t to the forces t x x_k; constraint rows
 * (st_mparams.constraint_jt) are mapped by their linear part only, as
 * SOFA's applyJT on a MatrixDeriv. With any other topology the
 * orientations stay as they were at init and J has no angular rows. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/topology_link.h"

#define MAXV 8 /* vertices of an element */

typedef struct bary_mapping {
    map_head h;
    bool use_rest_position;      /* "useRestPosition" */
    st_component *in_topology;   /* "input_topology" */
    st_component *out_topology;  /* "output_topology" (kept) */
    /* Set at init. */
    size_t n;                    /* output points */
    unsigned *nv;                /* n: vertices of the point's element (while locating) */
    unsigned *v;                 /* input point indices, summation order: while locating
                                    MAXV per point, then packed (point i: row[i]..row[i+1]) */
    double *w;                   /* the weights, laid out as v */
    unsigned *row;               /* n + 1: each point's first term once packed */
    unsigned outside;            /* points located outside every element */
    bool listening;              /* registered for topological changes */
    bool relocating;             /* locating again after a change: current positions */
    /* Rigid3d output. */
    bool rigid;                  /* the output is Rigid3d */
    bool frames;                 /* orientations follow the tetrahedra */
    unsigned *tet;               /* n x 4: each frame's tetrahedron (frames) */
    double *ob;                  /* n x 9: c_0 c_1 c_2, the axes in the edge basis (frames) */
    double *xt;                  /* n x 12: the tetrahedron's vertices at the last apply */
    double *q0;                  /* n x 4: orientations at init (not frames) */
} bary_mapping;

static const st_field bary_fields[] = {
    MAP_HEAD_FIELDS(bary_mapping),
    ST_BOOL(bary_mapping, use_rest_position, "useRestPosition", "false",
            "Use the rest position of the input and output models to initialize the mapping"),
    ST_LINK(bary_mapping, in_topology, "input_topology", ST_LINK_TOPOLOGY,
            "Input topology container (usually the surrounding domain)."),
    ST_LINK(bary_mapping, out_topology, "output_topology", ST_LINK_TOPOLOGY,
            "Output topology container (usually the immersed domain)."),
    ST_FIELD_END};

static void sub3(double r[3], const double a[3], const double b[3])
{
    r[0] = a[0] - b[0];
    r[1] = a[1] - b[1];
    r[2] = a[2] - b[2];
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

/* inv = the inverse of the matrix whose columns are c0, c1, c2; false when
 * singular. */
static bool inverse_cols(double inv[9], const double c0[3], const double c1[3], const double c2[3])
{
    /* Rows of the inverse are the cross products over the determinant. */
    double r0[3], r1[3], r2[3];
    cross3(r0, c1, c2);
    cross3(r1, c2, c0);
    cross3(r2, c0, c1);
    double det = dot3(c0, r0);
    if (det == 0.0)
        return false;
    for (int k = 0; k < 3; k++) {
        inv[k] = r0[k] / det;
        inv[3 + k] = r1[k] / det;
        inv[6 + k] = r2[k] / det;
    }
    return true;
}

static void mul33(double r[3], const double m[9], const double v[3])
{
    for (int k = 0; k < 3; k++)
        r[k] = m[3 * k] * v[0] + m[3 * k + 1] * v[1] + m[3 * k + 2] * v[2];
}

static double fmax3(double a, double b, double c) { return fmax(fmax(a, b), c); }

/* ---- weights per element kind (SOFA's summation order) ---- */

static void set_edge(bary_mapping *m, size_t i, const unsigned *e, double fx)
{
    unsigned *v = m->v + MAXV * i;
    double *w = m->w + MAXV * i;
    m->nv[i] = 2;
    v[0] = e[0], w[0] = 1 - fx;
    v[1] = e[1], w[1] = fx;
}

static void set_triangle(bary_mapping *m, size_t i, const unsigned *t, double fx, double fy)
{
    unsigned *v = m->v + MAXV * i;
    double *w = m->w + MAXV * i;
    m->nv[i] = 3;
    v[0] = t[0], w[0] = 1 - fx - fy;
    v[1] = t[1], w[1] = fx;
    v[2] = t[2], w[2] = fy;
}

static void set_quad(bary_mapping *m, size_t i, const unsigned *q, double fx, double fy)
{
    unsigned *v = m->v + MAXV * i;
    double *w = m->w + MAXV * i;
    m->nv[i] = 4;
    v[0] = q[0], w[0] = (1 - fx) * (1 - fy);
    v[1] = q[1], w[1] = fx * (1 - fy);
    v[2] = q[3], w[2] = (1 - fx) * fy;
    v[3] = q[2], w[3] = fx * fy;
}

static void set_tetra(bary_mapping *m, size_t i, const unsigned *t, const double f[3])
{
    unsigned *v = m->v + MAXV * i;
    double *w = m->w + MAXV * i;
    m->nv[i] = 4;
    v[0] = t[0], w[0] = 1 - f[0] - f[1] - f[2];
    v[1] = t[1], w[1] = f[0];
    v[2] = t[2], w[2] = f[1];
    v[3] = t[3], w[3] = f[2];
}

static void set_cube(bary_mapping *m, size_t i, const unsigned *c, const double f[3])
{
    static const unsigned order[8] = {0, 1, 3, 2, 4, 5, 7, 6};
    const double fx = f[0], fy = f[1], fz = f[2];
    const double ws[8] = {(1 - fx) * (1 - fy) * (1 - fz), fx * (1 - fy) * (1 - fz),
                          (1 - fx) * fy * (1 - fz),       fx * fy * (1 - fz),
                          (1 - fx) * (1 - fy) * fz,       fx * (1 - fy) * fz,
                          (1 - fx) * fy * fz,             fx * fy * fz};
    m->nv[i] = 8;
    for (int k = 0; k < 8; k++) {
        m->v[MAXV * i + k] = c[order[k]];
        m->w[MAXV * i + k] = ws[k];
    }
}

/* ---- location ---- */

typedef struct elems {
    const st_array *edges, *tris, *quads, *tetras, *hexas;
} elems;

static size_t count(const st_array *a) { return a ? a->n : 0; }

/* The 3D case of SOFA's mesh mapper: tetrahedra, then hexahedra. */
static st_status locate_3d(bary_mapping *m, const elems *e, const double *in, const double *out,
                           st_error *err)
{
    size_t nt = count(e->tetras), nh = count(e->hexas), ne = nt + nh;
    double *bases = st_malloc(ne * 9 * sizeof *bases), *centres = st_malloc(ne * 3 * sizeof(double));
    if (!bases || !centres) {
        st_free(bases);
        st_free(centres);
        return st_error_set(err, ST_ENOMEM, "out of memory locating the mapped points");
    }
    for (size_t k = 0; k < ne; k++) {
        bool tet = k < nt;
        const unsigned *el = tet ? e->tetras->u + 4 * k : e->hexas->u + 8 * (k - nt);
        unsigned nvx = tet ? 4 : 8;
        const double *p0 = in + 3 * el[0];
        double c0[3], c1[3], c2[3];
        sub3(c0, in + 3 * el[1], p0);
        sub3(c1, in + 3 * el[tet ? 2 : 3], p0);
        sub3(c2, in + 3 * el[tet ? 3 : 4], p0);
        if (!inverse_cols(bases + 9 * k, c0, c1, c2)) {
            st_free(bases);
            st_free(centres);
            return st_component_error(&m->h.base, NULL, err, ST_ESCENE,
                                      "%s %zu of the input topology is degenerate",
                                      tet ? "tetrahedron" : "hexahedron", tet ? k : k - nt);
        }
        double *c = centres + 3 * k;
        c[0] = c[1] = c[2] = 0.0;
        for (unsigned a = 0; a < nvx; a++)
            for (int d = 0; d < 3; d++)
                c[d] += in[3 * el[a] + d];
        for (int d = 0; d < 3; d++)
            c[d] *= tet ? 0.25 : 0.125;
    }
    for (size_t i = 0; i < m->n; i++) {
        const double *pos = out + 3 * i;
        double best = 1e10, coefs[3] = {0, 0, 0};
        size_t index = (size_t)-1;
        for (size_t k = 0; k < ne; k++) {
            bool tet = k < nt;
            const unsigned *el = tet ? e->tetras->u + 4 * k : e->hexas->u + 8 * (k - nt);
            double rel[3], v[3];
            sub3(rel, pos, in + 3 * el[0]);
            mul33(v, bases + 9 * k, rel);
            double d = fmax(fmax3(-v[0], -v[1], -v[2]),
                            tet ? v[0] + v[1] + v[2] - 1 : fmax3(v[0] - 1, v[1] - 1, v[2] - 1));
            if (d > 0) {
                double r[3];
                sub3(r, pos, centres + 3 * k);
                d = dot3(r, r);
            }
            if (d < best) {
                memcpy(coefs, v, sizeof coefs);
                best = d;
                index = k;
            }
        }
        if (best > 0)
            m->outside++;
        if (index < nt)
            set_tetra(m, i, e->tetras->u + 4 * index, coefs);
        else if (index != (size_t)-1)
            set_cube(m, i, e->hexas->u + 8 * (index - nt), coefs);
    }
    st_free(bases);
    st_free(centres);
    return ST_OK;
}

/* The 2D case: triangles, then quads. */
static st_status locate_2d(bary_mapping *m, const elems *e, const double *in, const double *out,
                           st_error *err)
{
    size_t nt = count(e->tris), nq = count(e->quads), ne = nt + nq;
    double *bases = st_malloc(ne * 9 * sizeof *bases), *centres = st_malloc(ne * 3 * sizeof(double));
    if (!bases || !centres) {
        st_free(bases);
        st_free(centres);
        return st_error_set(err, ST_ENOMEM, "out of memory locating the mapped points");
    }
    for (size_t k = 0; k < ne; k++) {
        bool tri = k < nt;
        const unsigned *el = tri ? e->tris->u + 3 * k : e->quads->u + 4 * (k - nt);
        unsigned nvx = tri ? 3 : 4;
        const double *p0 = in + 3 * el[0];
        double c0[3], c1[3], c2[3];
        sub3(c0, in + 3 * el[1], p0);
        sub3(c1, in + 3 * el[tri ? 2 : 3], p0);
        cross3(c2, c0, c1);
        if (!inverse_cols(bases + 9 * k, c0, c1, c2)) {
            st_free(bases);
            st_free(centres);
            return st_component_error(&m->h.base, NULL, err, ST_ESCENE,
                                      "%s %zu of the input topology is degenerate",
                                      tri ? "triangle" : "quad", tri ? k : k - nt);
        }
        double *c = centres + 3 * k;
        c[0] = c[1] = c[2] = 0.0;
        for (unsigned a = 0; a < nvx; a++)
            for (int d = 0; d < 3; d++)
                c[d] += in[3 * el[a] + d];
        for (int d = 0; d < 3; d++)
            c[d] = tri ? c[d] / 3 : c[d] * 0.25;
    }
    for (size_t i = 0; i < m->n; i++) {
        const double *pos = out + 3 * i;
        double best = 1e10, coefs[3] = {0, 0, 0};
        size_t index = (size_t)-1;
        for (size_t k = 0; k < ne; k++) {
            bool tri = k < nt;
            const unsigned *el = tri ? e->tris->u + 3 * k : e->quads->u + 4 * (k - nt);
            double rel[3], v[3];
            sub3(rel, pos, in + 3 * el[0]);
            mul33(v, bases + 9 * k, rel);
            double d = tri ? fmax(fmax(-v[0], -v[1]), fmax(fabs(v[2]) - 0.01, v[0] + v[1] - 1))
                           : fmax(fmax(-v[0], -v[1]),
                                  fmax(fmax(v[1] - 1, v[0] - 1), fmax(v[2] - 0.01, -v[2] - 0.01)));
            if (d > 0) {
                double r[3];
                sub3(r, pos, centres + 3 * k);
                d = dot3(r, r);
            }
            if (d < best) {
                memcpy(coefs, v, sizeof coefs);
                best = d;
                index = k;
            }
        }
        if (best > 0)
            m->outside++;
        if (index < nt)
            set_triangle(m, i, e->tris->u + 3 * index, coefs[0], coefs[1]);
        else if (index != (size_t)-1)
            set_quad(m, i, e->quads->u + 4 * (index - nt), coefs[0], coefs[1]);
    }
    st_free(bases);
    st_free(centres);
    return ST_OK;
}

/* The 1D case: the first edge whose coefficient is in [0, 1], else the
 * last edge with its coefficient. */
static void locate_1d(bary_mapping *m, const elems *e, const double *in, const double *out)
{
    size_t ne = count(e->edges);
    for (size_t i = 0; i < m->n; i++) {
        double coef = 0.0;
        size_t k;
        for (k = 0; k < ne; k++) {
            const unsigned *ed = e->edges->u + 2 * k;
            double d[3], r[3];
            sub3(d, in + 3 * ed[1], in + 3 * ed[0]);
            double len = sqrt(dot3(d, d));
            double u[3] = {d[0], d[1], d[2]};
            if (len > 0)
                for (int a = 0; a < 3; a++)
                    u[a] /= len;
            sub3(r, out + 3 * i, in + 3 * ed[0]);
            coef = dot3(u, r) / len;
            if (coef >= 0 && coef <= 1)
                break;
        }
        if (k == ne) {
            k = ne - 1;
            m->outside++;
        }
        set_edge(m, i, e->edges->u + 2 * k, coef);
    }
}

/* SOFA's regular grid mapper: the cube from the grid's origin and spacing,
 * read from the grid's points and its hexahedra (cube (i, j, k) is
 * i + (nx-1) (j + (ny-1) k), point (i, j, k) is i + nx (j + ny k)). Returns
 * false when the topology is not a 3D grid. */
static bool locate_grid(bary_mapping *m, st_component *topo, const elems *e, const double *out)
{
    const st_topology_ops *ops = topo->cls->topology;
    if (strcmp(topo->cls->name, "RegularGridTopology") != 0 || count(e->hexas) == 0 ||
        !ops->nb_points || !ops->get_point)
        return false;
    const unsigned *h0 = e->hexas->u;
    size_t np = ops->nb_points(topo);
    size_t nx = h0[3], nxy = h0[4];
    if (nx < 2 || nxy < 2 * nx || nxy % nx || np % nxy || np / nxy < 2)
        return false;
    long n[3] = {(long)nx, (long)(nxy / nx), (long)(np / nxy)};
    double p0[3], p[3], d[3][3], inv2[3];
    ops->get_point(topo, 0, p0);
    const size_t step[3] = {1, nx, nxy};
    for (int a = 0; a < 3; a++) {
        ops->get_point(topo, step[a], p);
        sub3(d[a], p, p0);
        double l2 = dot3(d[a], d[a]);
        if (l2 == 0.0)
            return false;
        inv2[a] = 1.0 / l2;
    }
    for (size_t i = 0; i < m->n; i++) {
        double rel[3], f[3];
        long c[3];
        bool in = true;
        sub3(rel, out + 3 * i, p0);
        for (int a = 0; a < 3; a++) {
            double x = dot3(rel, d[a]) * inv2[a];
            c[a] = (long)floor(x);
            if (c[a] < 0 || c[a] > n[a] - 2) {
                in = false;
                c[a] = c[a] < 0 ? 0 : n[a] - 2;
            }
            f[a] = x - (double)c[a];
        }
        if (!in)
            m->outside++;
        size_t cube = (size_t)(c[0] + (n[0] - 1) * (c[1] + (n[1] - 1) * c[2]));
        set_cube(m, i, e->hexas->u + 8 * cube, f);
    }
    return true;
}

/* A field of the input topology by name and type; NULL when absent. */
static void *topo_field(st_component *topo, const char *name, st_type type)
{
    const st_field *f = st_component_field(topo, name);
    return f && f->type == type ? st_component_field_ptr(topo, f) : NULL;
}

/* A regular grid of SOFA's RegularGridTopology::findCube: n points per axis
 * from lo to hi. */
typedef struct rgrid {
    long n[3];
    double lo[3], d[3], inv2[3];
} rgrid;

static bool rgrid_set(rgrid *g, const double *n, const double *lo, const double *hi)
{
    for (int a = 0; a < 3; a++) {
        if (!(n[a] >= 2 && n[a] < 1e9))
            return false;
        g->n[a] = (long)n[a];
        g->lo[a] = lo[a];
        g->d[a] = (hi[a] - lo[a]) / (n[a] - 1);
        if (g->d[a] == 0.0)
            return false;
        g->inv2[a] = 1.0 / (g->d[a] * g->d[a]);
    }
    return true;
}

/* The cell holding pos (clamped to the grid when clamp, else -1 outside)
 * and the coefficients in it. */
static long rgrid_find(const rgrid *g, const double pos[3], bool clamp, double f[3])
{
    long c[3];
    for (int a = 0; a < 3; a++) {
        double x = (pos[a] - g->lo[a]) * g->d[a] * g->inv2[a];
        c[a] = (long)floor(x);
        if (c[a] < 0 || c[a] > g->n[a] - 2) {
            if (!clamp)
                return -1;
            c[a] = c[a] < 0 ? 0 : g->n[a] - 2;
        }
        f[a] = x - (double)c[a];
    }
    return c[0] + (g->n[0] - 1) * (c[1] + (g->n[1] - 1) * c[2]);
}

/* SOFA's sparse grid mapper on a SparseGridRamificationTopology (its
 * findCube and findNearestCube): the finest level's cell holding the point
 * gives the coarsest hexahedron over it (so a point goes to the piece of a
 * repeated cube it lies in), the coefficients come from the grid's own
 * cube; outside the object, the finest cell of nearest centre (single
 * precision distance, first one on ties), with the coefficients of the
 * grid's clamped cube (with virtual levels) or of that cell. The same for a
 * SparseGridMultipleTopology with computeRamifications. Returns false when
 * the topology is not one (or not ramified). */
static bool locate_ramified(bary_mapping *m, st_component *topo, const elems *e,
                            const double *out)
{
    if ((strcmp(topo->cls->name, "SparseGridRamificationTopology") != 0 &&
         strcmp(topo->cls->name, "SparseGridMultipleTopology") != 0) ||
        count(e->hexas) == 0)
        return false;
    const double *fn = topo_field(topo, "finestN", ST_T_VEC3),
                 *fmin = topo_field(topo, "finestMin", ST_T_VEC3),
                 *fmax = topo_field(topo, "finestMax", ST_T_VEC3),
                 *cn = topo_field(topo, "n", ST_T_VEC3), *cmin = topo_field(topo, "min", ST_T_VEC3),
                 *cmax = topo_field(topo, "max", ST_T_VEC3);
    const st_array *cells = topo_field(topo, "finestCells", ST_T_UINTS),
                   *near = topo_field(topo, "finestNearestCells", ST_T_UINTS);
    const int *levels = topo_field(topo, "nbVirtualFinerLevels", ST_T_INT);
    rgrid fine, coarse;
    if (!fn || !fmin || !fmax || !cn || !cmin || !cmax || !cells || !near || !near->n ||
        !levels || !rgrid_set(&fine, fn, fmin, fmax) || !rgrid_set(&coarse, cn, cmin, cmax) ||
        cells->n != (size_t)((fine.n[0] - 1) * (fine.n[1] - 1) * (fine.n[2] - 1)))
        return false;
    size_t nh = count(e->hexas);
    for (size_t i = 0; i < m->n; i++) {
        const double *pos = out + 3 * i;
        double f[3];
        long c = rgrid_find(&fine, pos, false, f);
        unsigned h = c >= 0 ? cells->u[c] : UINT_MAX;
        if (h != UINT_MAX) {
            rgrid_find(&coarse, pos, true, f);
        } else {
            float best = 99999999.0f;
            size_t pick = near->u[0];
            for (size_t k = 0; k < near->n; k++) {
                long cc = (long)near->u[k], ijk[3] = {cc % (fine.n[0] - 1),
                                                      cc / (fine.n[0] - 1) % (fine.n[1] - 1),
                                                      cc / ((fine.n[0] - 1) * (fine.n[1] - 1))};
                double r[3];
                for (int a = 0; a < 3; a++) {
                    double p0 = fine.lo[a] + fine.d[a] * (double)ijk[a];
                    double p6 = fine.lo[a] + fine.d[a] * (double)(ijk[a] + 1);
                    r[a] = pos[a] - (p0 + p6) * 0.5;
                }
                float lg = (float)sqrt(dot3(r, r));
                if (lg < best) {
                    best = lg;
                    pick = near->u[k];
                }
            }
            h = pick < cells->n ? cells->u[pick] : UINT_MAX;
            if (*levels > 0) {
                rgrid_find(&coarse, pos, true, f);
            } else {
                long ijk[3] = {(long)pick % (fine.n[0] - 1),
                               (long)pick / (fine.n[0] - 1) % (fine.n[1] - 1),
                               (long)pick / ((fine.n[0] - 1) * (fine.n[1] - 1))};
                for (int a = 0; a < 3; a++) {
                    double p0 = fine.lo[a] + fine.d[a] * (double)ijk[a];
                    double p6 = fine.lo[a] + fine.d[a] * (double)(ijk[a] + 1);
                    f[a] = (pos[a] - p0) / (p6 - p0);
                }
            }
            m->outside++;
        }
        if (h >= nh)
            h = 0;
        set_cube(m, i, e->hexas->u + 8 * (size_t)h, f);
    }
    return true;
}

/* Corners 0 and 6 of hexahedron c, from the topology's points (zero
 * when it names a point past np). */
static void hexa_diagonal(st_component *topo, const unsigned *c, size_t np, double p0[3],
                          double p6[3])
{
    for (int a = 0; a < 3; a++)
        p0[a] = p6[a] = 0;
    if (c[0] < np && c[6] < np) {
        topo->cls->topology->get_point(topo, c[0], p0);
        topo->cls->topology->get_point(topo, c[6], p6);
    }
}

/* SOFA's sparse grid mapper on a SparseGridTopology (its findCube and
 * findNearestCube): the cube of the topology's regular grid (n, min, max)
 * holding the point, if the sparse grid has a hexahedron there, with the
 * regular grid's coefficients; else the surface hexahedron (every one for a
 * grid from a .raw file: SOFA's marching-cubes case) whose centre, from the
 * topology's own points, is nearest (single precision distance, first on
 * ties), with the coefficients along its diagonal from corner 0 to corner
 * 6. Both work in the grid's frame, not in the state's positions: a state
 * translated from its grid (dx, dy, dz on the MechanicalObject) carries the
 * mapped points along, as in SOFA. Returns false when the topology is not a
 * plain sparse grid; *st is the outcome when true. */
static bool locate_sparse(bary_mapping *m, st_component *topo, const elems *e,
                          const double *out, st_status *st, st_error *err)
{
    const st_topology_ops *ops = topo->cls->topology;
    const char *cls = topo->cls->name;
    if ((strcmp(cls, "SparseGridTopology") != 0 && strcmp(cls, "SparseGridMultipleTopology") != 0 &&
         strcmp(cls, "SparseGridRamificationTopology") != 0) ||
        count(e->hexas) == 0 || !ops->nb_points || !ops->get_point)
        return false;
    const double *n = topo_field(topo, "n", ST_T_VEC3), *lo = topo_field(topo, "min", ST_T_VEC3),
                 *hi = topo_field(topo, "max", ST_T_VEC3);
    const st_array *types = topo_field(topo, "cellTypes", ST_T_UINTS);
    char *const *file = topo_field(topo, "filename", ST_T_STRING);
    rgrid g;
    size_t nh = count(e->hexas), np = ops->nb_points(topo);
    if (!n || !lo || !hi || !types || types->n != nh || !rgrid_set(&g, n, lo, hi))
        return false;
    size_t ncell = (size_t)((g.n[0] - 1) * (g.n[1] - 1) * (g.n[2] - 1));
    unsigned *hexa_of = st_malloc((ncell ? ncell : 1) * sizeof *hexa_of);
    double *centre = st_malloc(3 * nh * sizeof *centre);
    if (!hexa_of || !centre) {
        st_free(hexa_of);
        st_free(centre);
        *st = st_error_set(err, ST_ENOMEM, "out of memory locating the mapped points");
        return true;
    }
    for (size_t c = 0; c < ncell; c++)
        hexa_of[c] = UINT_MAX;
    const unsigned *hx = e->hexas->u;
    for (size_t h = 0; h < nh; h++) {
        double p0[3], p6[3], f[3];
        hexa_diagonal(topo, hx + 8 * h, np, p0, p6);
        for (int a = 0; a < 3; a++)
            centre[3 * h + a] = (p0[a] + p6[a]) * 0.5;
        long c = rgrid_find(&g, centre + 3 * h, false, f);
        if (c >= 0 && hexa_of[c] == UINT_MAX)
            hexa_of[c] = (unsigned)h;
    }
    size_t len = file && *file ? strlen(*file) : 0;
    bool every = len > 4 && strcmp(*file + len - 4, ".raw") == 0;
    for (size_t i = 0; i < m->n; i++) {
        const double *pos = out + 3 * i;
        double f[3];
        long c = rgrid_find(&g, pos, false, f);
        unsigned h = c >= 0 ? hexa_of[c] : UINT_MAX;
        if (h == UINT_MAX) {
            float best = 99999999.0f;
            h = 0;
            for (size_t k = 0; k < nh; k++) {
                if (!every && types->u[k] != 1)
                    continue;
                double r[3];
                sub3(r, pos, centre + 3 * k);
                float d = (float)sqrt(dot3(r, r));
                if (d < best) {
                    best = d;
                    h = (unsigned)k;
                }
            }
            double p0[3], p6[3];
            hexa_diagonal(topo, hx + 8 * (size_t)h, np, p0, p6);
            for (int a = 0; a < 3; a++)
                f[a] = (pos[a] - p0[a]) / (p6[a] - p0[a]);
            m->outside++;
        }
        set_cube(m, i, hx + 8 * (size_t)h, f);
    }
    st_free(hexa_of);
    st_free(centre);
    *st = ST_OK;
    return true;
}

static void bary_free(bary_mapping *m)
{
    st_free(m->nv);
    st_free(m->v);
    st_free(m->w);
    st_free(m->row);
    st_free(m->tet);
    st_free(m->ob);
    st_free(m->xt);
    st_free(m->q0);
    m->nv = m->v = m->row = m->tet = NULL;
    m->w = m->ob = m->xt = m->q0 = NULL;
    m->n = 0;
}

static void apply_points(const bary_mapping *m, const double *restrict in, double *restrict out)
{
    const unsigned *restrict row = m->row, *restrict v = m->v;
    const double *restrict w = m->w;
    const size_t n = m->n;
    for (size_t i = 0; i < n; i++) {
        double r0 = 0.0, r1 = 0.0, r2 = 0.0;
        for (unsigned k = row[i], e = row[i + 1]; k < e; k++) {
            const double *p = in + 3 * (size_t)v[k];
            const double wk = w[k];
            r0 += p[0] * wk;
            r1 += p[1] * wk;
            r2 += p[2] * wk;
        }
        out[3 * i] = r0;
        out[3 * i + 1] = r1;
        out[3 * i + 2] = r2;
    }
}

/* ---- Rigid3d outputs ---- */

static double norm1_3(const double m[9]) /* largest column sum */
{
    double r = 0;
    for (int j = 0; j < 3; j++)
        r = fmax(r, fabs(m[j]) + fabs(m[3 + j]) + fabs(m[6 + j]));
    return r;
}

static double norminf_3(const double m[9]) /* largest row sum */
{
    double r = 0;
    for (int i = 0; i < 3; i++)
        r = fmax(r, fabs(m[3 * i]) + fabs(m[3 * i + 1]) + fabs(m[3 * i + 2]));
    return r;
}

/* q = the rotation of the polar decomposition of m (row-major), SOFA's
 * Decompose::polarDecomposition: Higham's scaled Newton iteration on m^T,
 * stopped when the step is below 1e-8 of the iterate (1-norms). */
static void polar_rotation(const double m[9], double q[9])
{
    double mk[9], adj[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            mk[3 * i + j] = m[3 * j + i];
    double m_one = norm1_3(mk), m_inf = norminf_3(mk);
    for (int it = 0; it < 100; it++) { /* converges quadratically; the cap guards NaN */
        cross3(adj, mk + 3, mk + 6);
        cross3(adj + 3, mk + 6, mk);
        cross3(adj + 6, mk, mk + 3);
        double det = dot3(mk, adj);
        if (det == 0.0)
            break;
        double gamma = sqrt(sqrt(norm1_3(adj) * norminf_3(adj) / (m_one * m_inf)) / fabs(det));
        double g1 = gamma * 0.5, g2 = 0.5 / (gamma * det), e[9];
        for (int k = 0; k < 9; k++) {
            double next = mk[k] * g1 + adj[k] * g2;
            e[k] = mk[k] - next;
            mk[k] = next;
        }
        m_one = norm1_3(mk);
        m_inf = norminf_3(mk);
        if (!(norm1_3(e) > m_one * 1e-8))
            break;
    }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            q[3 * i + j] = mk[3 * j + i];
}

/* SOFA's Quat::fromMatrix of a rotation (row-major); q is x y z w. */
static void quat_from_rotation(double q[4], const double r[9])
{
    const double tr = r[0] + r[4] + r[8];
    double s;
    if (tr > 0) {
        s = sqrt(tr + 1);
        q[3] = s * 0.5;
        s = 0.5 / s;
        q[0] = (r[7] - r[5]) * s;
        q[1] = (r[2] - r[6]) * s;
        q[2] = (r[3] - r[1]) * s;
    } else if (r[4] > r[0] && r[8] <= r[4]) {
        s = sqrt((r[4] - (r[8] + r[0])) + 1.0);
        q[1] = s * 0.5;
        if (s != 0.0)
            s = 0.5 / s;
        q[2] = (r[5] + r[7]) * s;
        q[0] = (r[1] + r[3]) * s;
        q[3] = (r[2] - r[6]) * s;
    } else if ((r[4] <= r[0] && r[8] > r[0]) || r[8] > r[4]) {
        s = sqrt((r[8] - (r[0] + r[4])) + 1.0);
        q[2] = s * 0.5;
        if (s != 0.0)
            s = 0.5 / s;
        q[0] = (r[6] + r[2]) * s;
        q[1] = (r[5] + r[7]) * s;
        q[3] = (r[3] - r[1]) * s;
    } else {
        s = sqrt((r[0] - (r[4] + r[8])) + 1.0);
        q[0] = s * 0.5;
        if (s != 0.0)
            s = 0.5 / s;
        q[1] = (r[1] + r[3]) * s;
        q[2] = (r[6] + r[2]) * s;
        q[3] = (r[7] - r[5]) * s;
    }
}

/* The rotation (row-major) of the unit quaternion q, SOFA's Quat::toMatrix. */
static void rotation_from_quat(double r[9], const double q[4])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    r[0] = 1 - 2 * (y * y + z * z);
    r[1] = 2 * (x * y - z * w);
    r[2] = 2 * (z * x + y * w);
    r[3] = 2 * (x * y + z * w);
    r[4] = 1 - 2 * (z * z + x * x);
    r[5] = 2 * (y * z - x * w);
    r[6] = 2 * (z * x - y * w);
    r[7] = 2 * (y * z + x * w);
    r[8] = 1 - 2 * (y * y + x * x);
}

/* The edge basis of frame i's tetrahedron in x: columns x1-x0, x2-x0, x3-x0. */
static void edge_basis(const bary_mapping *m, size_t i, const double *x, double e[9])
{
    const unsigned *t = m->tet + 4 * i;
    const double *p0 = x + 3 * (size_t)t[0];
    for (int c = 0; c < 3; c++) {
        const double *p = x + 3 * (size_t)t[c + 1];
        for (int d = 0; d < 3; d++)
            e[3 * d + c] = p[d] - p0[d];
    }
}

/* Each frame's axes in its tetrahedron's edge basis, from the input
 * positions xin and the frames' orientations (7 scalars per frame in xout).
 * False when a tetrahedron is degenerate. */
static bool frames_locate(bary_mapping *m, const double *xin, const double *xout, size_t *bad)
{
    for (size_t i = 0; i < m->n; i++) {
        double e[9], inv[9], r[9];
        edge_basis(m, i, xin, e);
        const double c0[3] = {e[0], e[3], e[6]}, c1[3] = {e[1], e[4], e[7]},
                     c2[3] = {e[2], e[5], e[8]};
        if (!inverse_cols(inv, c0, c1, c2)) {
            *bad = i;
            return false;
        }
        double q[4];
        memcpy(q, xout + 7 * i + 3, sizeof q);
        rotation_from_quat(r, q);
        for (int d = 0; d < 3; d++) {
            const double axis[3] = {r[d], r[3 + d], r[6 + d]};
            double *c = m->ob + 9 * i + 3 * d;
            mul33(c, inv, axis);
            double len = sqrt(dot3(c, c));
            if (len > 0)
                for (int k = 0; k < 3; k++)
                    c[k] /= len;
        }
    }
    return true;
}

/* x_out (7 per frame) from x_in: centres by the weights, orientations from
 * the tetrahedra (or as at init); keeps the tetrahedra's vertices for J. */
static void apply_frames(bary_mapping *m, const double *restrict in, double *restrict out)
{
    for (size_t i = 0; i < m->n; i++) {
        double *o = out + 7 * i;
        double r0 = 0.0, r1 = 0.0, r2 = 0.0;
        for (unsigned k = m->row[i], e = m->row[i + 1]; k < e; k++) {
            const double *p = in + 3 * (size_t)m->v[k];
            r0 += p[0] * m->w[k];
            r1 += p[1] * m->w[k];
            r2 += p[2] * m->w[k];
        }
        o[0] = r0;
        o[1] = r1;
        o[2] = r2;
        if (!m->frames) {
            memcpy(o + 3, m->q0 + 4 * i, 4 * sizeof(double));
            continue;
        }
        for (int k = 0; k < 4; k++)
            memcpy(m->xt + 12 * i + 3 * k, in + 3 * (size_t)m->tet[4 * i + k], 3 * sizeof(double));
        double e[9], mm[9], rot[9];
        edge_basis(m, i, in, e);
        for (int d = 0; d < 3; d++) {
            double col[3];
            mul33(col, e, m->ob + 9 * i + 3 * d);
            mm[d] = col[0];
            mm[3 + d] = col[1];
            mm[6 + d] = col[2];
        }
        polar_rotation(mm, rot);
        quat_from_rotation(o + 3, rot);
    }
}

/* v_out (6 per frame) = J v_in. */
static void apply_j_frames(const bary_mapping *m, const double *restrict in, double *restrict out)
{
    for (size_t i = 0; i < m->n; i++) {
        double *o = out + 6 * i;
        double r0 = 0.0, r1 = 0.0, r2 = 0.0;
        for (unsigned k = m->row[i], e = m->row[i + 1]; k < e; k++) {
            const double *p = in + 3 * (size_t)m->v[k];
            r0 += p[0] * m->w[k];
            r1 += p[1] * m->w[k];
            r2 += p[2] * m->w[k];
        }
        o[0] = r0;
        o[1] = r1;
        o[2] = r2;
        double w[3] = {0.0, 0.0, 0.0};
        if (m->frames)
            for (int k = 0; k < 4; k++) {
                double c[3];
                cross3(c, m->xt + 12 * i + 3 * k, in + 3 * (size_t)m->tet[4 * i + k]);
                for (int d = 0; d < 3; d++)
                    w[d] += c[d];
            }
        memcpy(o + 3, w, sizeof w);
    }
}

/* f_in += J^T f_out (6 per frame: force, then torque). */
static void apply_jt_frames(const bary_mapping *m, double *restrict fin,
                            const double *restrict fout, bool torques)
{
    for (size_t i = 0; i < m->n; i++) {
        const double *f = fout + 6 * i;
        for (unsigned k = m->row[i], e = m->row[i + 1]; k < e; k++) {
            double *p = fin + 3 * (size_t)m->v[k];
            p[0] += f[0] * m->w[k];
            p[1] += f[1] * m->w[k];
            p[2] += f[2] * m->w[k];
        }
        if (!m->frames || !torques)
            continue;
        for (int k = 0; k < 4; k++) {
            double c[3];
            cross3(c, m->xt + 12 * i + 3 * k, f + 3);
            double *p = fin + 3 * (size_t)m->tet[4 * i + k];
            p[0] -= c[0];
            p[1] -= c[1];
            p[2] -= c[2];
        }
    }
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    bary_mapping *m = (bary_mapping *)self;
    if (m->rigid)
        apply_frames(m, xin, xout);
    else
        apply_points(m, xin, xout);
}

static st_status bary_init(st_component *self, st_error *err);

/* SOFA's processTopologicalChanges: clear(), then init() from the current
 * positions. */
static st_status bary_changed(st_component *self, st_component *topology,
                              const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    bary_mapping *m = (bary_mapping *)self;
    m->relocating = true;
    st_status st = bary_init(self, err);
    m->relocating = false;
    return st;
}

static st_status bary_listen(bary_mapping *m, st_component *topo, st_error *err)
{
    if (m->listening)
        return ST_OK;
    st_component *self = &m->h.base;
    ST_TRY(st_listen_topologies_above(self, bary_changed, err));
    bool above = false;
    for (st_node *n = self->node; n && !above; n = st_node_parent(n))
        above = topo->node == n;
    if (!above)
        ST_TRY(st_topology_listen(self, topo, bary_changed, err));
    m->listening = true;
    return ST_OK;
}

static st_status locate_all(bary_mapping *m, st_component *topo, const elems *e_,
                            const double *xin, size_t nin, const double *xout, st_error *err);

/* The frames' data: their axes in their tetrahedra (frames), else their
 * orientations at init. */
static st_status frames_init(bary_mapping *m, const double *xin, const double *xframes,
                             st_error *err)
{
    size_t n = m->n ? m->n : 1;
    if (!m->frames) {
        m->q0 = st_malloc(n * 4 * sizeof *m->q0);
        if (!m->q0)
            return st_error_set(err, ST_ENOMEM, "out of memory for the mapped frames");
        for (size_t i = 0; i < m->n; i++)
            memcpy(m->q0 + 4 * i, xframes + 7 * i + 3, 4 * sizeof(double));
        return ST_OK;
    }
    m->ob = st_malloc(n * 9 * sizeof *m->ob);
    m->xt = st_calloc(n * 12, sizeof *m->xt);
    if (!m->ob || !m->xt)
        return st_error_set(err, ST_ENOMEM, "out of memory for the mapped frames");
    size_t bad = 0;
    if (!frames_locate(m, xin, xframes, &bad))
        return st_component_error(&m->h.base, NULL, err, ST_ESCENE,
                                  "the tetrahedron of frame %zu is degenerate", bad);
    return ST_OK;
}

static st_status bary_init(st_component *self, st_error *err)
{
    bary_mapping *m = (bary_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    bary_free(m);
    m->outside = 0;
    ST_TRY(map_head_bind(&m->h, &st_vec3d_type, NULL, err));
    bool visual = m->h.visual;
    m->rigid = !visual && m->h.out->type == &st_rigid3d_type;
    if (!visual && !m->rigid && m->h.out->type != &st_vec3d_type)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "BarycentricMapping maps to a Vec3d or a Rigid3d output; '%s' "
                                  "is %s",
                                  m->h.out->base.name, m->h.out->type->name);
    st_component *topo = m->in_topology;
    if (!topo)
        topo = st_node_find(m->h.input->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!topo || !topo->cls->topology)
        return st_component_error(self, "input_topology", err, ST_ESCENE,
                                  "no topology found for the input '%s' (its node and above)",
                                  m->h.in->base.name);
    ST_TRY(bary_listen(m, topo, err));
    const st_topology_ops *ops = topo->cls->topology;
    elems e = {ops->elements(topo, ST_T_EDGES), ops->elements(topo, ST_T_TRIANGLES),
               ops->elements(topo, ST_T_QUADS), ops->elements(topo, ST_T_TETRAS),
               ops->elements(topo, ST_T_HEXAS)};
    const st_mstate *in = m->h.in, *out = m->h.out;
    bool rest = m->use_rest_position && !m->relocating;
    const double *xin = rest ? in->rest_position.r : in->position.r;
    size_t nin = rest ? in->rest_position.n : in->position.n;
    /* A visual output is located from its positions as they are at init. */
    const double *xout = visual ? out->position.r
                                : (rest ? out->rest_position.r : out->position.r);
    m->n = visual ? out->position.n : (rest ? out->rest_position.n : out->position.n);
    /* SOFA's tetrahedron mapper for rigid outputs serves the dynamic
     * containers with tetrahedra and no hexahedra. */
    m->frames = m->rigid && strstr(topo->cls->name, "SetTopologyContainer") &&
                count(e.tetras) > 0 && count(e.hexas) == 0;
    /* Frames are located by their centres. */
    const double *xframes = NULL;
    double *centres = NULL;
    if (m->rigid) {
        xframes = xout;
        centres = st_malloc((m->n ? m->n : 1) * 3 * sizeof *centres);
        if (!centres)
            return st_error_set(err, ST_ENOMEM, "out of memory locating the mapped frames");
        for (size_t i = 0; i < m->n; i++)
            memcpy(centres + 3 * i, xframes + 7 * i, 3 * sizeof(double));
        xout = centres;
    }
    st_status st = locate_all(m, topo, &e, xin, nin, xout, err);
    st_free(centres);
    if (st != ST_OK)
        return st;
    if (m->rigid)
        ST_TRY(frames_init(m, xin, xframes, err));
    if (visual) {
        if (m->n)
            apply_points(m, in->position.r, out->position.r);
        ST_TRY(map_head_visual_commit(&m->h, err));
        self->state = ST_CSTATE_VALID;
        return ST_OK;
    }
    ST_TRY(map_init_outputs(&m->h, init_apply, NULL, err));
    if (m->rigid) {
        /* x last, so J is taken at the positions (not the rest ones). */
        if (m->n && in->position.n == nin)
            apply_frames(m, in->position.r, out->position.r);
        if (in->velocity.n == nin && out->velocity.n == m->n && m->n)
            apply_j_frames(m, in->velocity.r, out->velocity.r);
    } else if (in->velocity.n == nin && out->velocity.n == m->n && m->n) {
        apply_points(m, in->velocity.r, out->velocity.r);
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* Locates the n points xout (3 each) in the elements of topo and packs the
 * terms. */
static st_status locate_all(bary_mapping *m, st_component *topo, const elems *e_,
                            const double *xin, size_t nin, const double *xout, st_error *err)
{
    st_component *self = &m->h.base;
    const elems e = *e_;
    /* Element vertices must be input points. */
    const st_array *lists[5] = {e.edges, e.tris, e.quads, e.tetras, e.hexas};
    const unsigned widths[5] = {2, 3, 4, 4, 8};
    for (int l = 0; l < 5; l++)
        for (size_t k = 0; lists[l] && k < lists[l]->n * widths[l]; k++)
            if (lists[l]->u[k] >= nin)
                return st_component_error(self, "input", err, ST_ESCENE,
                                          "topology '%s' names point %u; the input '%s' has %zu",
                                          topo->name, lists[l]->u[k], m->h.in->base.name,
                                          nin);
    m->nv = st_calloc(m->n ? m->n : 1, sizeof *m->nv);
    m->v = st_calloc((m->n ? m->n : 1) * MAXV, sizeof *m->v);
    m->w = st_calloc((m->n ? m->n : 1) * MAXV, sizeof *m->w);
    m->row = st_calloc(m->n + 1, sizeof *m->row);
    if (!m->nv || !m->v || !m->w || !m->row) {
        bary_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory locating the mapped points");
    }
    st_status located = ST_OK;
    if (!locate_grid(m, topo, &e, xout) && !locate_ramified(m, topo, &e, xout) &&
        !locate_sparse(m, topo, &e, xout, &located, err)) {
        if (count(e.tetras) || count(e.hexas))
            ST_TRY(locate_3d(m, &e, xin, xout, err));
        else if (count(e.tris) || count(e.quads))
            ST_TRY(locate_2d(m, &e, xin, xout, err));
        else if (count(e.edges))
            locate_1d(m, &e, xin, xout);
        else
            return st_component_error(self, "input_topology", err, ST_ESCENE,
                                      "topology '%s' has no elements to map points into",
                                      topo->name);
    }
    ST_TRY(located);
    /* A frame keeps its tetrahedron's four vertices (terms of weight 0
     * too: they enter the angular velocity). */
    if (m->frames) {
        m->tet = st_malloc((m->n ? m->n : 1) * 4 * sizeof *m->tet);
        if (!m->tet)
            return st_error_set(err, ST_ENOMEM, "out of memory locating the mapped frames");
        for (size_t i = 0; i < m->n; i++)
            memcpy(m->tet + 4 * i, m->v + MAXV * i, 4 * sizeof *m->tet);
    }
    /* Pack the terms point after point, dropping those of weight exactly
     * 0 (they add nothing: a point on a grid node keeps one term of eight).
     * Packing moves terms only backwards, so it is done in place. */
    unsigned t = 0;
    for (size_t i = 0; i < m->n; i++) {
        m->row[i] = t;
        for (unsigned k = 0; k < m->nv[i]; k++)
            if (m->w[MAXV * i + k] != 0.0) {
                m->v[t] = m->v[MAXV * i + k];
                m->w[t++] = m->w[MAXV * i + k];
            }
    }
    m->row[m->n] = t;
    return ST_OK;
}

static void bary_destroy(st_component *self)
{
    bary_free((bary_mapping *)self);
    map_head_release(&((bary_mapping *)self)->h);
}

static bool ready(const bary_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n;
}

/* ready() for the mechanical operations (never called on a visual output). */
static bool ready_mech(const bary_mapping *m) { return ready(m) && !m->h.visual; }

static void bary_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    bary_mapping *m = (bary_mapping *)self;
    double *xout = ready(m) ? map_head_xout(&m->h, x) : NULL;
    if (!xout)
        return;
    if (m->rigid)
        apply_frames(m, st_slice_x(x, m->h.in), xout);
    else
        apply_points(m, st_slice_x(x, m->h.in), xout);
    map_head_touch_visual(&m->h);
}

static void bary_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    bary_mapping *m = (bary_mapping *)self;
    if (!ready_mech(m))
        return;
    if (m->rigid)
        apply_j_frames(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
    else
        apply_points(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void bary_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    bary_mapping *m = (bary_mapping *)self;
    if (!ready_mech(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    if (m->rigid) {
        /* SOFA maps a constraint row's linear part only. */
        bool rows = mp && mp->struct_size >= offsetof(st_mparams, constraint_jt) + sizeof(bool) &&
                    mp->constraint_jt;
        apply_jt_frames(m, fin, fout, !rows);
        return;
    }
    const unsigned *row = m->row, *v = m->v;
    const double *w = m->w;
    for (size_t i = 0; i < m->n; i++) {
        const double f0 = fout[3 * i], f1 = fout[3 * i + 1], f2 = fout[3 * i + 2];
        for (unsigned k = row[i], e = row[i + 1]; k < e; k++) {
            double *p = fin + 3 * (size_t)v[k];
            const double wk = w[k];
            p[0] += f0 * wk;
            p[1] += f1 * wk;
            p[2] += f2 * wk;
        }
    }
}

static void bary_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    bary_mapping *m = (bary_mapping *)self;
    if (!ready_mech(m))
        return;
    if (m->frames) {
        /* Per vertex of the frame's tetrahedron: w_k I over [x_k]x. */
        for (size_t i = 0; i < m->n; i++)
            for (int k = 0; k < 4; k++) {
                const unsigned vk = m->tet[4 * i + k];
                double wk = 0.0;
                for (unsigned t = m->row[i]; t < m->row[i + 1]; t++)
                    if (m->v[t] == vk)
                        wk += m->w[t];
                const double *x = m->xt + 12 * i + 3 * k;
                const double b[18] = {wk, 0, 0, 0, wk, 0, 0, 0, wk,
                                      0, -x[2], x[1], x[2], 0, -x[0], -x[1], x[0], 0};
                st_jbuilder_add(jb, i, m->h.in, vk, b);
            }
        return;
    }
    for (size_t i = 0; i < m->n; i++)
        for (unsigned k = m->row[i]; k < m->row[i + 1]; k++)
            st_jbuilder_add_diag(jb, i, m->h.in, m->v[k], m->w[k]);
}

static const st_mapping_ops bary_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = bary_apply,
    .apply_j = bary_apply_j,
    .apply_jt = bary_apply_jt,
    .get_j = bary_get_j,
    .flags = map_head_flags,
};

/* Checkpoints, when the mapping follows topological changes: where each
 * output point is located (its terms and weights; a frame's tetrahedron
 * and axes). A change locates the points again at the positions of that
 * moment (SOFA's processTopologicalChanges), which a resumed run no longer
 * has: locating them at the checkpoint's positions would give other
 * weights (in the last bits, or another element for a point outside). */
static st_status bary_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    bary_mapping *m = (bary_mapping *)self;
    if (!m->listening || !m->row)
        return ST_OK;
    uint64_t head[3] = {m->n, m->row[m->n], m->outside};
    ST_TRY(st_checkpoint_data(ck, head, sizeof head, err));
    if (head[0] != m->n || head[1] > (uint64_t)MAXV * m->n)
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "the checkpoint locates %llu points with %llu terms; this "
                                  "scene's mapping has %zu points: it does not match this scene",
                                  (unsigned long long)head[0], (unsigned long long)head[1],
                                  m->n);
    ST_TRY(st_checkpoint_data(ck, m->row, (m->n + 1) * sizeof *m->row, err));
    if (m->row[m->n] != head[1])
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "the checkpoint is damaged: %u terms listed, %llu announced",
                                  m->row[m->n], (unsigned long long)head[1]);
    if (head[1]) {
        ST_TRY(st_checkpoint_data(ck, m->v, (size_t)head[1] * sizeof *m->v, err));
        ST_TRY(st_checkpoint_data(ck, m->w, (size_t)head[1] * sizeof *m->w, err));
    }
    m->outside = (unsigned)head[2];
    if (m->frames && m->n) {
        ST_TRY(st_checkpoint_data(ck, m->tet, 4 * m->n * sizeof *m->tet, err));
        ST_TRY(st_checkpoint_data(ck, m->ob, 9 * m->n * sizeof *m->ob, err));
    }
    return ST_OK;
}

static const st_checkpoint_ops bary_ck = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = bary_transfer,
};

static const char *const vec3_only[] = {"Vec3d", NULL};

const st_class barycentric_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "BarycentricMapping",
    .category = "Mapping",
    .description = "Mapping using barycentric coordinates of the child with respect to cells of "
                   "its parent",
    .instance_size = sizeof(bary_mapping),
    .fields = bary_fields,
    .init = bary_init,
    .reinit = bary_init,
    .cleanup = bary_destroy,
    .mapping = &bary_ops,
    .templates = vec3_only,
    .checkpoint = &bary_ck,
};
