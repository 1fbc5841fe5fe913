/* mesh_tetra_stuffing.c - MeshTetraStuffing: a tetrahedral volume mesh of
 * a closed surface by isosurface stuffing (Labelle and Shewchuk, SIGGRAPH
 * 2007), as SOFA's engine does it. Two cubic grids of spacing `size` make a
 * body-centred cubic lattice around the surface's box (vbbox, grown by 1%
 * of the box on each side when the scene leaves it empty; a negative size
 * is the number of cells along the box's longest side): grid 1 has points
 * at the centre of the box plus whole cells, grid 2 the points of grid 1
 * shifted by half a cell, one more along each axis. Each lattice line (the
 * three axes of both grids, long edges, and the four diagonals between the
 * grids, short edges) is traced against the surface's triangles; a point's
 * "inside" vote is the sign of the nearest crossing's orientation on each
 * of its lines, and an uncertain point is outside. With snapPoints, points
 * whose edge to a point of the other side is cut closer than alphaLong
 * (long edges) or alphaShort (short edges) of its length move onto the cut
 * (outside points first, toward unviolated inside points, then the inside
 * points left violated), and are then on the surface. Each long edge gives
 * the four tetrahedra around it (two long-edge ends, two neighbours of the
 * other grid); a tetrahedron with no inside point and some outside point is
 * dropped. Without splitTetrahedra the others are kept whole; with it the
 * ones that cross the surface are cut at the edge cuts into one, two or
 * three tetrahedra (the stencils of the paper, diagonals chosen as SOFA
 * does). Unused lattice points are removed; an inverted tetrahedron is
 * reported and turned, and two tetrahedra sharing a face on the same side
 * are an error message (as in SOFA, the mesh is still given).
 * Crossings: the rays of SOFA's triangle test (Moeller-Trumbore, hits with
 * t > machine epsilon, edges widened by epsilon), every triangle once
 * (SOFA's octree gives the same set). Quads are split (0 1 2) (0 2 3).
 * SOFA keeps the cut points of a previous update; settee recomputes all. */
#include <math.h>
#include <float.h>
#include <stdlib.h>

#include "../shared/ray_triangle.h"
#include "../shared/engine_util.h"

typedef struct mesh_tetra_stuffing {
    st_component base;
    st_array vbbox;      /* 2 x vec3: min, max (6 reals) */
    double size;
    st_array in_points;  /* vec3[] */
    st_array in_triangles, in_quads;
    st_array out_points; /* vec3[] */
    st_array out_tetras;
    double alpha_long, alpha_short;
    bool snap, split, draw;
} mesh_tetra_stuffing;

static const st_field mesh_tetra_stuffing_fields[] = {
    ST_FIELD_EX(mesh_tetra_stuffing, vbbox, "vbbox", ST_T_REALS, st_array, "0 0 0 0 0 0",
                "BBox to restrict the volume to", ST_F_COUNT, NULL, 6, 6),
    ST_REAL(mesh_tetra_stuffing, size, "size", "-8",
            "Size of the generate tetrahedra. If negative, number of grid cells in the largest "
            "bbox dimension"),
    ST_VEC3S(mesh_tetra_stuffing, in_points, "inputPoints", NULL, "Input surface mesh points"),
    ST_TRIANGLES(mesh_tetra_stuffing, in_triangles, "inputTriangles", NULL,
                 "Input surface mesh triangles"),
    ST_QUADS(mesh_tetra_stuffing, in_quads, "inputQuads", NULL, "Input surface mesh quads"),
    ST_OUTPUT(mesh_tetra_stuffing, out_points, "outputPoints", ST_T_VEC3S, st_array,
              "Output volume mesh points"),
    ST_FIELD_EX(mesh_tetra_stuffing, out_tetras, "outputTetrahedra", ST_T_TETRAS, st_array, NULL,
                "Output volume mesh tetrahedra", ST_F_OUTPUT, "outputTetras", 0.0, 0.0),
    ST_REAL(mesh_tetra_stuffing, alpha_long, "alphaLong", "0.24999",
            "Minimum alpha values on long edges when snapping points"),
    ST_REAL(mesh_tetra_stuffing, alpha_short, "alphaShort", "0.42978",
            "Minimum alpha values on short edges when snapping points"),
    ST_BOOL(mesh_tetra_stuffing, snap, "snapPoints", "false",
            "Snap points to the surface if intersections on edges are closed to given alpha "
            "values"),
    ST_FIELD_EX(mesh_tetra_stuffing, split, "splitTetrahedra", ST_T_BOOL, bool, "false",
                "Split tetrahedra crossing the surface", 0, "splitTetras", 0.0, 0.0),
    ST_IGNORED(mesh_tetra_stuffing, draw, "draw", ST_T_BOOL, bool, "false",
               "Activate rendering of internal datasets"),
    ST_FIELD_END};

/* Edges around a lattice point: 0..5 along the axes of its own grid
 * (-x +x -y +y -z +z), 6..13 the diagonals to the other grid. */
enum { SHELL = 14 };

/* The lattice being built. */
typedef struct stuffing {
    mesh_tetra_stuffing *m;
    int gsize[3], hsize[3];
    int ph0;        /* first point of grid 2 */
    int nbp;        /* lattice points */
    double *p;      /* points, 3 x np (lattice, then cut points) */
    size_t np, pcap;
    int *inside;    /* votes, nbp: > 0 inside, < 0 outside, 0 on the surface */
    double *ebd;    /* cut fraction along each edge, nbp x SHELL (0: none) */
    int *cut;       /* cut point of each edge, nbp x SHELL (-1: none) */
    unsigned *tet;  /* tetrahedra, 4 x nt */
    size_t nt, tcap;
    size_t nerrors; /* cut points missing (SOFA: "Cut point ... not found") */
} stuffing;

/* The point at the other end of edge e of point p, or -1 off the lattice. */
static int edge_point(const stuffing *s, int p, int e)
{
    int c[3];
    const int *sz;
    int base;
    if (p < s->ph0) {
        sz = s->gsize, base = 0;
    } else {
        sz = s->hsize, base = s->ph0;
        p -= s->ph0;
    }
    c[0] = p % sz[0];
    p /= sz[0];
    c[1] = p % sz[1];
    c[2] = p / sz[1];
    if (e < 6) {
        int a = e >> 1;
        c[a] += (e & 1) ? 1 : -1;
        if (c[a] < 0 || c[a] >= sz[a])
            return -1;
        return base + c[0] + sz[0] * (c[1] + sz[1] * c[2]);
    }
    e -= 6;
    const int d[3] = {e & 1, ((e >> 1) ^ e) & 1, ((e >> 2) ^ e) & 1};
    if (base == 0)
        return s->ph0 + (c[0] + d[0]) + s->hsize[0] * ((c[1] + d[1]) + s->hsize[1] * (c[2] + d[2]));
    for (int k = 0; k < 3; k++) {
        c[k] += d[k] - 1;
        if (c[k] < 0 || c[k] >= s->gsize[k])
            return -1;
    }
    return c[0] + s->gsize[0] * (c[1] + s->gsize[1] * c[2]);
}

/* The edge of p that ends at q, or -1. */
static int edge_to(const stuffing *s, int p, int q)
{
    for (int e = 0; e < SHELL; e++)
        if (edge_point(s, p, e) == q)
            return e;
    return -1;
}

static double edge_alpha(const mesh_tetra_stuffing *m, int e)
{
    return e < 6 ? m->alpha_long : m->alpha_short;
}

static st_status push_point(stuffing *s, const double *x, st_error *err)
{
    if (s->np == s->pcap) {
        size_t cap = s->pcap ? 2 * s->pcap : 64;
        double *np = st_realloc(s->p, 3 * cap * sizeof *np);
        if (!np)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        s->p = np, s->pcap = cap;
    }
    memcpy(s->p + 3 * s->np++, x, 3 * sizeof *x);
    return ST_OK;
}

static double vol6(const double *x, int a, int b, int c, int d)
{
    const double *pa = x + 3 * a, *pb = x + 3 * b, *pc = x + 3 * c, *pd = x + 3 * d;
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++)
        u[k] = pb[k] - pa[k], v[k] = pc[k] - pa[k], w[k] = pd[k] - pa[k];
    return u[0] * (v[1] * w[2] - v[2] * w[1]) + u[1] * (v[2] * w[0] - v[0] * w[2]) +
           u[2] * (v[0] * w[1] - v[1] * w[0]);
}

/* Appends a tetrahedron, its last two corners swapped when flip is set,
 * and again when it is then inverted. */
static st_status add_final(stuffing *s, int a, int b, int c, int d, bool flip, st_error *err)
{
    if (flip) {
        int t = c;
        c = d, d = t;
    }
    if (vol6(s->p, a, b, c, d) < 0) {
        int t = c;
        c = d, d = t;
    }
    if (s->nt == s->tcap) {
        size_t cap = s->tcap ? 2 * s->tcap : 256;
        unsigned *nt = st_realloc(s->tet, 4 * cap * sizeof *nt);
        if (!nt)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        s->tet = nt, s->tcap = cap;
    }
    unsigned *t = s->tet + 4 * s->nt++;
    t[0] = (unsigned)a, t[1] = (unsigned)b, t[2] = (unsigned)c, t[3] = (unsigned)d;
    return ST_OK;
}

/* Whether the orders (p1 p2 p3 p4) and (q1 q2 q3 q4) of the same four
 * points differ in orientation, by SOFA's rotations. */
static bool need_flip(int p1, int p2, int p3, int p4, int q1, int q2, int q3, int q4)
{
    bool flip = false;
    int t;
    while (p1 > p2 || p1 > p3 || p1 > p4)
        t = p1, p1 = p2, p2 = p3, p3 = p4, p4 = t, flip = !flip;
    while (q1 > q2 || q1 > q3 || q1 > q4)
        t = q1, q1 = q2, q2 = q3, q3 = q4, q4 = t, flip = !flip;
    while (p2 > p3 || p2 > p4)
        t = p2, p2 = p3, p3 = p4, p4 = t;
    while (q2 > q3 || q2 > q4)
        t = q2, q2 = q3, q3 = q4, q4 = t;
    (void)p4, (void)q1, (void)q2, (void)q3;
    return p3 == q4 ? !flip : flip;
}

/* Whether the quad a b c d (long edge ab, e the outside point) is cut
 * along bd rather than ac: along the long edge's cut when there is one,
 * else by the parity of the coordinates of a above c's. */
static bool flip_diag(const stuffing *s, int a, int b, int c, int e)
{
    const int h = s->ph0;
    if (e < h) {
        if (a < h)
            return true;
        if (b < h)
            return false;
    } else {
        if (a >= h)
            return true;
        if (b >= h)
            return false;
    }
    int nsup = 0;
    for (int k = 0; k < 3; k++)
        nsup += s->p[3 * a + k] > s->p[3 * c + k];
    return (nsup & 1) != (a < h ? 1 : 0);
}

static int cut_point(stuffing *s, int from, int to)
{
    int e = edge_to(s, from, to);
    if (e >= 0 && s->cut[SHELL * from + e] >= 0)
        return s->cut[SHELL * from + e];
    e = edge_to(s, to, from);
    if (e >= 0 && s->cut[SHELL * to + e] >= 0)
        return s->cut[SHELL * to + e];
    s->nerrors++;
    return from;
}

/* One tetrahedron of the lattice: kept, dropped or cut at the surface. */
static st_status add_tetra(stuffing *s, int p1, int p2, int p3, int p4, st_error *err)
{
    if (vol6(s->p, p1, p2, p3, p4) < 0) {
        int t = p3;
        p3 = p4, p4 = t;
    }
    const int q[4] = {p1, p2, p3, p4};
    int neg[4], pos[4], zero[4], nn = 0, np = 0, nz = 0;
    for (int i = 0; i < 4; i++) {
        int v = s->inside[q[i]];
        if (v < 0)
            neg[nn++] = q[i];
        else if (v > 0)
            pos[np++] = q[i];
        else
            zero[nz++] = q[i];
    }
    if (np == 0 && nn > 0)
        return ST_OK;
    if (nn == 0 || !s->m->split)
        return add_final(s, p1, p2, p3, p4, false, err);
    if (np == 1) {
        int r[4];
        for (int i = 0; i < 4; i++)
            r[i] = s->inside[q[i]] < 0 ? cut_point(s, q[i], pos[0]) : q[i];
        return add_final(s, r[0], r[1], r[2], r[3], false, err);
    }
    if (np == 2 && nn == 1) {
        const int p0 = zero[0];
        const int c1 = cut_point(s, neg[0], pos[0]), c2 = cut_point(s, neg[0], pos[1]);
        const bool fd = flip_diag(s, pos[0], pos[1], c2, neg[0]);
        const bool ft = need_flip(p0, pos[0], pos[1], neg[0], p1, p2, p3, p4);
        if (!fd) {
            ST_TRY(add_final(s, p0, pos[0], pos[1], c2, ft, err));
            return add_final(s, p0, pos[0], c2, c1, ft, err);
        }
        ST_TRY(add_final(s, p0, pos[0], pos[1], c1, ft, err));
        return add_final(s, p0, pos[1], c2, c1, ft, err);
    }
    if (np == 2 && nn == 2) {
        const int c1 = cut_point(s, neg[0], pos[0]), c2 = cut_point(s, neg[0], pos[1]);
        const int c3 = cut_point(s, neg[1], pos[0]), c4 = cut_point(s, neg[1], pos[1]);
        const bool fa = flip_diag(s, pos[0], pos[1], c2, neg[0]);
        const bool fb = flip_diag(s, pos[0], pos[1], c4, neg[1]);
        const bool ft = need_flip(pos[0], pos[1], neg[0], neg[1], p1, p2, p3, p4);
        if (!fa && fb) {
            ST_TRY(add_final(s, pos[0], pos[1], c2, c3, ft, err));
            ST_TRY(add_final(s, pos[0], c2, c1, c3, ft, err));
            return add_final(s, pos[1], c2, c3, c4, ft, err);
        }
        if (fa && !fb) {
            ST_TRY(add_final(s, pos[0], pos[1], c1, c4, ft, err));
            ST_TRY(add_final(s, pos[1], c1, c4, c2, ft, err));
            return add_final(s, pos[0], c1, c3, c4, ft, err);
        }
        s->nerrors++; /* SOFA: "Invalid tetra split", nothing added */
        return ST_OK;
    }
    /* three inside, one outside */
    const int c1 = cut_point(s, neg[0], pos[0]), c2 = cut_point(s, neg[0], pos[1]),
              c3 = cut_point(s, neg[0], pos[2]);
    const bool f1 = flip_diag(s, pos[0], pos[1], c2, neg[0]);
    const bool f2 = flip_diag(s, pos[1], pos[2], c3, neg[0]);
    bool f3 = flip_diag(s, pos[2], pos[0], c1, neg[0]);
    if (f1 == f2 && f2 == f3) {
        s->nerrors++;
        f3 = !f1;
    }
    const int pp0 = (f1 && !f2) ? pos[1] : (f2 && !f3) ? pos[2] : pos[0];
    const int pc0 = (!f1 && f2) ? c2 : (!f2 && f3) ? c3 : c1;
    const bool ft = need_flip(neg[0], pos[0], pos[1], pos[2], p1, p2, p3, p4);
    ST_TRY(add_final(s, pp0, c1, c3, c2, ft, err));
    ST_TRY(add_final(s, pc0, pos[0], pos[1], pos[2], ft, err));
    if (f1 == f2)
        return add_final(s, pos[1], c2, pp0, pc0,
                         need_flip(pos[1], neg[0], pp0, pp0 == pos[0] ? pos[2] : pos[0], p1, p2,
                                   p3, p4),
                         err);
    if (f2 == f3)
        return add_final(s, pos[2], c3, pp0, pc0,
                         need_flip(pos[2], neg[0], pp0, pp0 == pos[0] ? pos[1] : pos[0], p1, p2,
                                   p3, p4),
                         err);
    return add_final(s, pos[0], c1, pp0, pc0,
                     need_flip(pos[0], neg[0], pp0, pp0 == pos[1] ? pos[2] : pos[1], p1, p2, p3,
                               p4),
                     err);
}

typedef struct hit {
    double t;
    int sign; /* -1: the ray enters the surface, +1: it leaves */
} hit;

static int cmp_hit(const void *a, const void *b)
{
    double x = ((const hit *)a)->t, y = ((const hit *)b)->t;
    return x < y ? -1 : x > y;
}


/* Traces the lattice line starting at p along edge e: votes and cuts. */
static void trace_line(stuffing *s, int p, int e, const double *x, const unsigned *tri,
                       const double *tn, size_t nt, hit *hits)
{
    int p1 = edge_point(s, p, e);
    const double *o = s->p + 3 * p;
    const double dir[3] = {s->p[3 * p1] - o[0], s->p[3 * p1 + 1] - o[1], s->p[3 * p1 + 2] - o[2]};
    size_t n = 0;
    for (size_t t = 0; t < nt; t++) {
        const unsigned *v = tri + 3 * t;
        double h;
        if (ray_triangle(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], o, dir, &h, NULL, NULL)) {
            const double *nn = tn + 3 * t;
            hits[n].t = h;
            hits[n].sign = nn[0] * dir[0] + nn[1] * dir[1] + nn[2] * dir[2] < 0 ? -1 : 1;
            n++;
        }
    }
    if (n == 0)
        return;
    qsort(hits, n, sizeof *hits, cmp_hit);
    size_t i = 0;
    p1 = p;
    for (int d = 0; p1 != -1; d++) {
        while (i < n && hits[i].t < d)
            i++;
        /* The vote of the crossing nearest to the point on this line. */
        if (i >= n)
            s->inside[p1] -= hits[n - 1].sign;
        else if (i == 0)
            s->inside[p1] += hits[0].sign;
        else if (d - hits[i - 1].t < hits[i].t - d)
            s->inside[p1] += hits[i].sign;
        else
            s->inside[p1] -= hits[i - 1].sign;
        if (i < n)
            s->ebd[SHELL * p1 + e] = hits[i].t - d;
        if (i > 0)
            s->ebd[SHELL * p1 + e + 1] = d - hits[i - 1].t;
        p1 = edge_point(s, p1, e);
    }
}

/* Moves point p a fraction of its edge e onto the surface. */
static void snap_point(stuffing *s, int p, int e)
{
    int q = edge_point(s, p, e);
    double a = s->ebd[SHELL * p + e];
    for (int k = 0; k < 3; k++)
        s->p[3 * p + k] += (s->p[3 * q + k] - s->p[3 * p + k]) * a;
    s->inside[p] = 0;
    for (int f = 0; f < SHELL; f++) {
        s->ebd[SHELL * p + f] = 0;
        int r = edge_point(s, p, f);
        if (r != -1)
            s->ebd[SHELL * r + (f ^ 1)] = 0;
    }
}

/* The violated edge of p with the nearest cut toward a point passing
 * `ok`, or -1. */
static int nearest_violated(const stuffing *s, int p, bool toward_outside, const bool *violated)
{
    double best = 0;
    int be = -1;
    for (int e = 0; e < SHELL; e++) {
        int q = edge_point(s, p, e);
        if (q == -1)
            continue;
        if (toward_outside ? s->inside[q] >= 0 : (s->inside[q] > 0 || violated[q]))
            continue;
        double a = s->ebd[SHELL * p + e];
        if (a == 0.0 || a >= edge_alpha(s->m, e))
            continue;
        double d = a * a * (e < 6 ? 4 : 3);
        if (be == -1 || d < best)
            be = e, best = d;
    }
    return be;
}

static void snap_points(stuffing *s, bool *violated, bool *vin, bool *vout)
{
    const int nbp = s->nbp;
    for (int p = 0; p < nbp; p++) {
        bool in1 = s->inside[p] > 0, v = false;
        for (int e = 0; e < SHELL && !v; e++) {
            int q = edge_point(s, p, e);
            if (q == -1 || in1 == (s->inside[q] > 0))
                continue;
            double a = s->ebd[SHELL * p + e];
            v = a != 0.0 && a < edge_alpha(s->m, e);
        }
        violated[p] = v;
        vin[p] = v && in1;
        vout[p] = v && !in1;
    }
    /* Outside points first, toward unviolated inside points, until none moves. */
    int moved;
    do {
        moved = 0;
        for (int p = 0; p < nbp; p++) {
            if (!vout[p] || s->inside[p] == 0)
                continue;
            int e = nearest_violated(s, p, false, violated);
            if (e == -1)
                continue;
            snap_point(s, p, e);
            moved++;
            violated[p] = false;
            for (int f = 0; f < SHELL; f++) {
                int q = edge_point(s, p, f);
                if (q == -1 || !violated[q] || s->inside[q] <= 0)
                    continue;
                /* q may be violated no more (SOFA tests each of q's edges
                 * against the alpha of edge f). */
                bool still = false;
                for (int g = 0; g < SHELL && !still; g++) {
                    int r = edge_point(s, q, g);
                    if (r == -1 || s->inside[r] >= 0)
                        continue;
                    double a = s->ebd[SHELL * q + g];
                    still = a != 0.0 && a < edge_alpha(s->m, f);
                }
                if (!still)
                    violated[q] = false, vin[q] = false;
            }
        }
    } while (moved > 0);
    /* Then the inside points still violated, toward outside points. */
    for (int p = 0; p < nbp; p++) {
        if (!vin[p])
            continue;
        if (s->inside[p] == 0) {
            s->nerrors++;
            continue;
        }
        int e = nearest_violated(s, p, true, violated);
        if (e == -1) {
            s->nerrors++;
            continue;
        }
        snap_point(s, p, e);
        violated[p] = false;
    }
}

static int cmp_tri(const void *a, const void *b)
{
    const unsigned *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k])
            return x[k] < y[k] ? -1 : 1;
    return 0;
}

/* Keeps the points the tetrahedra use, checks orientation and faces. */
static st_status finish(stuffing *s, st_error *err)
{
    mesh_tetra_stuffing *m = s->m;
    int *newid = st_calloc(s->np ? s->np : 1, sizeof *newid);
    unsigned *faces = st_malloc((s->nt ? s->nt : 1) * 12 * sizeof *faces);
    if (!newid || !faces) {
        st_free(newid), st_free(faces);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t t = 0; t < 4 * s->nt; t++)
        newid[s->tet[t]] = 1;
    size_t n = 0;
    for (size_t p = 0; p < s->np; p++) {
        if (!newid[p]) {
            newid[p] = -1;
            continue;
        }
        newid[p] = (int)n;
        if (n != p)
            memcpy(s->p + 3 * n, s->p + 3 * p, 3 * sizeof(double));
        n++;
    }
    for (size_t t = 0; t < 4 * s->nt; t++)
        s->tet[t] = (unsigned)newid[s->tet[t]];
    size_t ninv = 0, ndup = 0;
    for (size_t t = 0; t < s->nt; t++) {
        unsigned *q = s->tet + 4 * t;
        if (vol6(s->p, (int)q[0], (int)q[1], (int)q[2], (int)q[3]) < 0) {
            unsigned x = q[2];
            q[2] = q[3], q[3] = x;
            ninv++;
        }
        /* The four faces, outward, each rotated to start at its least index. */
        static const int fv[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
        for (int f = 0; f < 4; f++) {
            unsigned v[3] = {q[fv[f][0]], q[fv[f][1]], q[fv[f][2]]};
            int r = v[1] < v[0] && v[1] < v[2] ? 1 : v[2] < v[0] && v[2] < v[1] ? 2 : 0;
            unsigned *o = faces + 12 * t + 3 * f;
            for (int k = 0; k < 3; k++)
                o[k] = v[(r + k) % 3];
        }
    }
    qsort(faces, 4 * s->nt, 3 * sizeof *faces, cmp_tri);
    for (size_t i = 1; i < 4 * s->nt; i++)
        ndup += !cmp_tri(faces + 3 * (i - 1), faces + 3 * i);
    st_free(faces);
    st_free(newid);
    if (ninv)
        st_component_warn(&m->base, "%zu tetrahedra were inverted (turned)", ninv);
    if (ndup)
        st_component_warn(&m->base,
                          "%zu duplicate triangles: tetrahedra overlapping on the same side of a "
                          "face (SOFA: \"Duplicate triangle\")",
                          ndup);
    if (s->nerrors)
        st_component_warn(&m->base,
                          "%zu inconsistencies while cutting tetrahedra at the surface (SOFA's "
                          "\"Cut point not found\", \"Invalid tetra split\", \"already wrapped\" "
                          "errors)",
                          s->nerrors);
    ST_TRY(st_array_resize(&m->out_points, ST_T_VEC3S, n, err));
    if (n)
        memcpy(m->out_points.r, s->p, 3 * n * sizeof(double));
    ST_TRY(st_array_resize(&m->out_tetras, ST_T_TETRAS, s->nt, err));
    if (s->nt)
        memcpy(m->out_tetras.u, s->tet, 4 * s->nt * sizeof(unsigned));
    st_component_info(&m->base, "Final mesh: %zu points, %zu tetrahedra.", n, s->nt);
    return ST_OK;
}

static st_status stuff(stuffing *s, const double *x, size_t nx, const unsigned *tri, size_t ntri,
                       st_error *err)
{
    mesh_tetra_stuffing *m = s->m;
    /* Normals (unnormalised) and the input's box. */
    double *tn = st_malloc((ntri ? ntri : 1) * 3 * sizeof *tn);
    if (!tn)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t t = 0; t < ntri; t++) {
        const double *a = x + 3 * tri[3 * t], *b = x + 3 * tri[3 * t + 1],
                     *c = x + 3 * tri[3 * t + 2];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double v[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        tn[3 * t] = u[1] * v[2] - u[2] * v[1];
        tn[3 * t + 1] = u[2] * v[0] - u[0] * v[2];
        tn[3 * t + 2] = u[0] * v[1] - u[1] * v[0];
    }
    double lo[3], hi[3];
    memcpy(lo, x, sizeof lo);
    memcpy(hi, x, sizeof hi);
    for (size_t p = 1; p < nx; p++)
        for (int c = 0; c < 3; c++) {
            /* SOFA's else-if: a point that lowers the minimum is not
             * tested against the maximum. */
            if (x[3 * p + c] < lo[c])
                lo[c] = x[3 * p + c];
            else if (x[3 * p + c] > hi[c])
                hi[c] = x[3 * p + c];
        }
    double *bb = m->vbbox.r;
    if (bb[0] >= bb[3])
        for (int c = 0; c < 3; c++) {
            bb[c] = lo[c] - (hi[c] - lo[c]) * 0.01;
            bb[3 + c] = hi[c] + (hi[c] - lo[c]) * 0.01;
        }
    double cell = m->size;
    if (cell < 0) {
        double big = bb[3] - bb[0];
        for (int c = 1; c < 3; c++)
            if (bb[3 + c] - bb[c] > big)
                big = bb[3 + c] - bb[c];
        cell = big / -cell;
    }
    if (!(cell > 0) || !isfinite(cell)) {
        st_free(tn);
        return st_component_error(&m->base, "size", err, ST_EINVAL,
                                  "cell size %g (from size %g and the box): expected > 0", cell,
                                  m->size);
    }
    double g0[3], h0[3];
    long total = 1;
    for (int c = 0; c < 3; c++) {
        double mid = (bb[c] + bb[3 + c]) / 2;
        double n0 = (mid - bb[c]) / cell, n1 = (bb[3 + c] - mid) / cell;
        if (!(n0 < 1e5 && n1 < 1e5)) {
            st_free(tn);
            return st_component_error(&m->base, "size", err, ST_EINVAL,
                                      "cell size %g makes a grid of more than 2e5 cells along "
                                      "axis %d",
                                      cell, c);
        }
        int c0 = -((int)n0 + 2), c1 = (int)n1 + 2;
        s->gsize[c] = c1 - c0 + 1;
        s->hsize[c] = s->gsize[c] + 1;
        g0[c] = mid + c0 * cell;
        h0[c] = g0[c] - cell / 2;
        total *= s->hsize[c];
    }
    if (total > 50000000L) {
        st_free(tn);
        return st_component_error(&m->base, "size", err, ST_EINVAL,
                                  "cell size %g makes a lattice of %ld points (at most 5e7)",
                                  cell, 2 * total);
    }
    s->ph0 = s->gsize[0] * s->gsize[1] * s->gsize[2];
    s->nbp = s->ph0 + s->hsize[0] * s->hsize[1] * s->hsize[2];
    st_component_info(&m->base, "bbox = %g %g %g %g %g %g cell size = %g", bb[0], bb[1], bb[2],
                      bb[3], bb[4], bb[5], cell);
    s->inside = st_calloc((size_t)s->nbp, sizeof *s->inside);
    s->ebd = st_calloc((size_t)s->nbp * SHELL, sizeof *s->ebd);
    s->cut = st_malloc((size_t)s->nbp * SHELL * sizeof *s->cut);
    hit *hits = st_malloc((ntri ? ntri : 1) * sizeof *hits);
    bool *flags = st_calloc(3 * (size_t)s->nbp, sizeof *flags);
    if (!s->inside || !s->ebd || !s->cut || !hits || !flags) {
        st_free(tn), st_free(hits), st_free(flags);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < (size_t)s->nbp * SHELL; i++)
        s->cut[i] = -1;
    st_status st = ST_OK;
    for (int z = 0; z < s->gsize[2] && st == ST_OK; z++)
        for (int y = 0; y < s->gsize[1] && st == ST_OK; y++)
            for (int i = 0; i < s->gsize[0] && st == ST_OK; i++) {
                const double q[3] = {g0[0] + i * cell, g0[1] + y * cell, g0[2] + z * cell};
                st = push_point(s, q, err);
            }
    for (int z = 0; z < s->hsize[2] && st == ST_OK; z++)
        for (int y = 0; y < s->hsize[1] && st == ST_OK; y++)
            for (int i = 0; i < s->hsize[0] && st == ST_OK; i++) {
                const double q[3] = {h0[0] + i * cell, h0[1] + y * cell, h0[2] + z * cell};
                st = push_point(s, q, err);
            }
    /* Each line once, from its first point (the one with no point behind). */
    for (int p = 0; p < s->nbp && st == ST_OK; p++)
        for (int e = 0; e < SHELL; e += 2)
            if (edge_point(s, p, e) != -1 && edge_point(s, p, e + 1) == -1)
                trace_line(s, p, e, x, tri, tn, ntri, hits);
    for (int p = 0; p < s->nbp; p++)
        if (s->inside[p] == 0)
            s->inside[p] = -1;
    if (st == ST_OK && m->snap)
        snap_points(s, flags, flags + s->nbp, flags + 2 * s->nbp);
    /* Cut points on the edges from outside to inside points. */
    if (st == ST_OK && m->split)
        for (int p = 0; p < s->nbp && st == ST_OK; p++) {
            if (s->inside[p] >= 0)
                continue;
            for (int e = 0; e < SHELL && st == ST_OK; e++) {
                int q = edge_point(s, p, e);
                if (q == -1 || s->inside[q] <= 0)
                    continue;
                double a = s->ebd[SHELL * p + e], c[3];
                for (int k = 0; k < 3; k++)
                    c[k] = s->p[3 * p + k] + (s->p[3 * q + k] - s->p[3 * p + k]) * a;
                s->cut[SHELL * p + e] = (int)s->np;
                st = push_point(s, c, err);
            }
        }
    /* The four tetrahedra around each long edge of grid 1. */
    const int *gs = s->gsize, *hs = s->hsize;
    const int g01 = gs[0] * gs[1], h01 = hs[0] * hs[1];
    int p = 0, ph = s->ph0;
    for (int z = 0; z < gs[2] && st == ST_OK; z++, ph += hs[0])
        for (int y = 0; y < gs[1] && st == ST_OK; y++, ph++)
            for (int i = 0; i < gs[0] && st == ST_OK; i++, p++, ph++) {
                int shells[3][4] = {{ph, ph + hs[0], ph + hs[0] + h01, ph + h01},
                                    {ph, ph + h01, ph + 1 + h01, ph + 1},
                                    {ph, ph + 1, ph + 1 + hs[0], ph + hs[0]}};
                const int prev[3] = {i > 0 ? p - 1 : -1, y > 0 ? p - gs[0] : -1,
                                     z > 0 ? p - g01 : -1};
                for (int a = 0; a < 3 && st == ST_OK; a++) {
                    if (prev[a] < 0)
                        continue;
                    for (int k = 0; k < 4 && st == ST_OK; k++)
                        st = add_tetra(s, p, prev[a], shells[a][(k + 1) % 4], shells[a][k], err);
                }
            }
    st_free(tn), st_free(hits), st_free(flags);
    if (st == ST_OK)
        st = finish(s, err);
    return st;
}

static st_status mesh_tetra_stuffing_update(st_component *self, st_error *err)
{
    mesh_tetra_stuffing *m = (mesh_tetra_stuffing *)self;
    const st_array *x = &m->in_points, *tr = &m->in_triangles, *qd = &m->in_quads;
    if (x->n == 0 || (tr->n == 0 && qd->n == 0)) {
        st_component_warn(self, "Empty input mesh. Use data dependency to link them to a loaded "
                                "Topology or MeshLoader (SOFA logs this as an error; the outputs "
                                "stay empty)");
        eng_clear(&m->out_points);
        eng_clear(&m->out_tetras);
        return ST_OK;
    }
    size_t nt = tr->n + 2 * qd->n;
    unsigned *tri = st_malloc(3 * nt * sizeof *tri);
    if (!tri)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    if (tr->n)
        memcpy(tri, tr->u, 3 * tr->n * sizeof *tri);
    for (size_t q = 0; q < qd->n; q++) {
        const unsigned *v = qd->u + 4 * q;
        unsigned *o = tri + 3 * (tr->n + 2 * q);
        o[0] = v[0], o[1] = v[1], o[2] = v[2];
        o[3] = v[0], o[4] = v[2], o[5] = v[3];
    }
    st_status st = ST_OK;
    for (size_t i = 0; i < 3 * nt && st == ST_OK; i++)
        if (tri[i] >= x->n)
            st = st_component_error(self, tri[i] < 3 * tr->n ? "inputTriangles" : "inputQuads",
                                    err, ST_EINVAL, "point index %u beyond the %zu input points",
                                    tri[i], x->n);
    stuffing s = {.m = m};
    if (st == ST_OK)
        st = stuff(&s, x->r, x->n, tri, nt, err);
    st_free(tri);
    st_free(s.p), st_free(s.inside), st_free(s.ebd), st_free(s.cut), st_free(s.tet);
    return st;
}

static const st_engine_ops mesh_tetra_stuffing_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = mesh_tetra_stuffing_update,
};

const st_class mesh_tetra_stuffing_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshTetraStuffing",
    .category = "Engine",
    .description = "Create a tetrahedral volume mesh from a surface, using the algorithm from F. "
                   "Labelle and J.R. Shewchuk, \"Isosurface Stuffing: Fast Tetrahedral Meshes "
                   "with Good Dihedral Angles\", SIGGRAPH 2007.",
    .instance_size = sizeof(mesh_tetra_stuffing),
    .fields = mesh_tetra_stuffing_fields,
    .engine = &mesh_tetra_stuffing_engine,
};
