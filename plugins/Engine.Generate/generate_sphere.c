/* generate_sphere.c - GenerateSphere: a sphere of radius `radius` around
 * `origin` from a Platonic solid (tetrahedron, octahedron or icosahedron),
 * as SOFA's engine builds it:
 *   - the solid's vertices on the unit sphere; with tessellationDegree
 *     f > 1, each edge gets f - 1 points by spherical interpolation
 *     (cos(w phi) A + sin(w phi) n, n the unit tangent at A towards B,
 *     w = j / f), each face its (f - 1)(f - 2) / 2 inner points (the
 *     normalised barycentres (j A + k B + l C) / |.|), and f^2 triangles in
 *     SOFA's order;
 *   - the tetrahedra: the centre (point 0) joined to each triangle, or for
 *     the tetrahedron with f = 1 the solid itself;
 *   - with BezierTriangleDegree (BezierTetrahedronDegree) d > 1, the control
 *     points of rational Bezier triangles (tetrahedra) appended to the
 *     positions with their weights: on a sphere edge, degree 2: the
 *     normalised midpoint over cos(phi/2), weight cos(phi/2); degree 3 and 4
 *     SOFA's closed forms; otherwise (d > 4, or an edge or face not on the
 *     sphere) the points of the straight edge or face with weight 1; inner
 *     points of faces (d > 2) and volumes (d > 3) likewise;
 *   - finally every point scaled by radius and moved by origin.
 * SOFA's degree 3 and 4 closed forms use c = n.P1 of each face plane; on a
 * coarse solid (the octahedron: c = -1/sqrt(3)) the degree 3 weights
 * (1 + 2c)/3 come out negative and the curve leaves the sphere: SOFA's
 * result, kept. SOFA's quirks kept: isBezierTriangleRational has one entry per triangle of
 * the untessellated solid; an edge met again reversed is reused (the map is
 * keyed by sorted vertices). Deviation: outputs are rebuilt at each update
 * (SOFA's write-only accessors append to the previous positions), and an
 * unknown platonicSolid is an error (SOFA's message, then an undefined
 * solid). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../shared/engine_util.h"

typedef struct generate_sphere {
    st_component base;
    st_array tetra_position, tri_position; /* outputs, coord[] */
    st_array tetrahedra, triangles;        /* outputs */
    st_array tri_weights, tri_rational, tetra_weights, tetra_rational;
    unsigned tri_degree, tetra_degree;
    double radius;
    st_vec3 origin;
    unsigned tessellation;
    char *solid;
} generate_sphere;

#define GS_OUT(m, key, T, help) ST_OUTPUT(generate_sphere, m, key, T, st_array, help)

static const st_field gs_fields[] = {
    ST_FIELD_EX(generate_sphere, tetra_position, "output_TetrahedraPosition", ST_T_COORDS,
                st_array, NULL, "output array of 3d points of tetrahedra mesh", ST_F_OUTPUT,
                "output_position", 0.0, 0.0),
    GS_OUT(tetrahedra, "tetrahedra", ST_T_TETRAS, "output mesh tetrahedra"),
    GS_OUT(tri_position, "output_TrianglesPosition", ST_T_COORDS,
           "output array of 3d points of triangle mesh"),
    GS_OUT(triangles, "triangles", ST_T_TRIANGLES, "output triangular mesh"),
    ST_UINT(generate_sphere, tetra_degree, "BezierTetrahedronDegree", "0",
            "order of Bezier tetrahedra"),
    GS_OUT(tetra_weights, "BezierTetrahedronWeights", ST_T_REALS,
           "weights of rational Bezier tetrahedra"),
    GS_OUT(tetra_rational, "isBezierTetrahedronRational", ST_T_UINTS,
           "booleans indicating if each Bezier tetrahedron is rational or integral"),
    ST_UINT(generate_sphere, tri_degree, "BezierTriangleDegree", "0", "order of Bezier triangles"),
    GS_OUT(tri_weights, "BezierTriangleWeights", ST_T_REALS,
           "weights of rational Bezier triangles"),
    GS_OUT(tri_rational, "isBezierTriangleRational", ST_T_UINTS,
           "booleans indicating if each Bezier triangle is rational or integral"),
    ST_REAL(generate_sphere, radius, "radius", "0.2", "input sphere radius"),
    ST_VEC3(generate_sphere, origin, "origin", "0 0 0", "sphere center point"),
    ST_UINT(generate_sphere, tessellation, "tessellationDegree", "1",
            "Degree of tessellation of each Platonic triangulation"),
    ST_STRING(generate_sphere, solid, "platonicSolid", "icosahedron",
              "name of the Platonic triangulation used to create the spherical dome : either "
              "\"tetrahedron\", \"octahedron\" or \"icosahedron\""),
    ST_FIELD_END};

/* ---- the solids (SOFA's tables) ---- */

static const unsigned tet_faces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
static const unsigned tet_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const unsigned oct_faces[8][3] = {{0, 1, 2}, {0, 2, 4}, {0, 4, 5}, {0, 5, 1},
                                         {1, 5, 3}, {1, 3, 2}, {3, 5, 4}, {2, 3, 4}};
static const unsigned oct_edges[12][2] = {{0, 1}, {0, 2}, {0, 4}, {0, 5}, {1, 2}, {1, 3},
                                          {1, 5}, {2, 3}, {2, 4}, {3, 4}, {3, 5}, {4, 5}};
static const double ico_pos[12][3] = {
    {0.4249358858193742, -0.6234212590752522, -0.901521749427252},
    {-0.5999406907417391, 0.05914133178387721, -1.009227188986324},
    {0.4980672603913731, 0.6101449500603583, -0.872707378430782},
    {1.170388006823068, -0.06734654200022822, -0.0873067158600265},
    {0.4878971283264427, -1.037062929459035, 0.2615777778398508},
    {-0.606226178027942, -0.958889124295748, -0.3082004094765843},
    {-0.4249358858193759, 0.6234212590752533, 0.90152174942725},
    {0.5999406907417364, -0.05914133178387813, 1.009227188986327},
    {-0.4980672603913764, -0.6101449500603557, 0.87270737843078},
    {-1.170388006823072, 0.0673465420002311, 0.0873067158600247},
    {-0.4878971283264417, 1.037062929459036, -0.2615777778398516},
    {0.606226178027942, 0.958889124295747, 0.3082004094765856}};
static const unsigned ico_faces[20][3] = {
    {0, 1, 5},  {0, 2, 1},  {0, 3, 2},  {0, 4, 3},  {0, 5, 4},  {1, 2, 10}, {1, 9, 5},
    {1, 10, 9}, {2, 3, 11}, {2, 11, 10}, {3, 4, 7}, {3, 7, 11}, {4, 5, 8},  {4, 8, 7},
    {5, 9, 8},  {6, 7, 8},  {6, 8, 9},  {6, 9, 10}, {6, 10, 11}, {6, 11, 7}};
static const unsigned ico_edges[30][2] = {
    {0, 1}, {0, 2}, {0, 3},  {0, 4},  {0, 5},  {1, 2},  {1, 5},  {1, 9},  {1, 10}, {2, 3},
    {2, 10}, {2, 11}, {3, 4}, {3, 7},  {3, 11}, {4, 5},  {4, 7},  {4, 8},  {5, 8},  {5, 9},
    {6, 7}, {6, 8},  {6, 9}, {6, 10}, {6, 11}, {7, 8},  {7, 11}, {8, 9},  {9, 10}, {10, 11}};
/* SOFA's edgesInTetrahedronArray and the two other vertices of each. */
static const unsigned tetra_edge[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
static const unsigned tetra_adj[6][2] = {{2, 3}, {1, 3}, {1, 2}, {0, 3}, {0, 2}, {0, 1}};

/* ---- small vector helpers ---- */

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static void cross3(const double *a, const double *b, double *c)
{
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}
static void scale3(double *a, double s)
{
    a[0] *= s, a[1] *= s, a[2] *= s;
}
static void normalize3(double *a)
{
    scale3(a, 1.0 / sqrt(dot3(a, a)));
}

/* Points as SOFA's vector<Coord> (pointers move on growth: copy before). */
static st_status push_p(st_array *a, const double *p, st_error *err)
{
    return eng_push_r(a, 3, p, err);
}
static st_status push_w(st_array *a, double w, st_error *err)
{
    return eng_push_r(a, 1, &w, err);
}
static const double *P(const st_array *a, size_t i) { return a->r + 3 * i; }

/* ---- the base mesh ---- */

static st_status base_mesh(generate_sphere *e, int solid, size_t *nb_platonic, st_error *err)
{
    st_array *pos = &e->tri_position, *tri = &e->triangles;
    const unsigned(*faces)[3];
    const unsigned(*edges)[2];
    size_t nv, nf, ne;
    if (solid == 0) {
        const double s2 = sqrt(2.0);
        const double v[4][3] = {{0, 0, 1},
                                {0, 2 * s2 / 3., -1. / 3.},
                                {-s2 / sqrt(3.), -s2 / 3, -1. / 3.},
                                {s2 / sqrt(3.), -s2 / 3, -1. / 3.}};
        for (int i = 0; i < 4; i++)
            ST_TRY(push_p(pos, v[i], err));
        faces = tet_faces, edges = tet_edges, nv = 4, nf = 4, ne = 6;
    } else if (solid == 1) {
        const double v[6][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, -1}, {-1, 0, 0}, {0, -1, 0}};
        for (int i = 0; i < 6; i++)
            ST_TRY(push_p(pos, v[i], err));
        faces = oct_faces, edges = oct_edges, nv = 6, nf = 8, ne = 12;
    } else {
        for (int i = 0; i < 12; i++) {
            double p[3] = {ico_pos[i][0], ico_pos[i][1], ico_pos[i][2]};
            normalize3(p);
            ST_TRY(push_p(pos, p, err));
        }
        faces = ico_faces, edges = ico_edges, nv = 12, nf = 20, ne = 30;
    }
    *nb_platonic = nf;
    const size_t f = e->tessellation;
    if (f <= 1) {
        for (size_t i = 0; i < nf; i++)
            ST_TRY(eng_push_u(tri, ST_T_TRIANGLES, faces[i], err));
        return ST_OK;
    }
    /* the edges of each face (slot j: the edge opposite vertex j) */
    unsigned face_edge[20][3];
    for (size_t i = 0; i < nf; i++)
        for (int j = 0; j < 3; j++) {
            unsigned a = faces[i][(j + 1) % 3], b = faces[i][(j + 2) % 3];
            unsigned lo = a < b ? a : b, hi = a < b ? b : a;
            for (size_t k = 0; k < ne; k++)
                if (edges[k][0] == lo && edges[k][1] == hi)
                    face_edge[i][j] = (unsigned)k;
        }
    /* points on the edges (spherical interpolation) */
    for (size_t i = 0; i < ne; i++) {
        double A[3], B[3], n[3], t[3];
        memcpy(A, P(pos, edges[i][0]), sizeof A);
        memcpy(B, P(pos, edges[i][1]), sizeof B);
        cross3(A, B, t);
        cross3(t, A, n);
        normalize3(n);
        double phi = acos(dot3(A, B));
        for (size_t j = 1; j < f; j++) {
            double w = (double)j / (double)f, p[3];
            for (int a = 0; a < 3; a++)
                p[a] = cos(w * phi) * A[a] + sin(w * phi) * n[a];
            ST_TRY(push_p(pos, p, err));
        }
    }
    /* local numbering of a face's (f+1)(f+2)/2 points, SOFA's order */
    size_t side = f + 1;
    unsigned *loc = st_calloc(side * side, sizeof *loc);
    unsigned(*sub)[3] = st_calloc(f * f + 1, sizeof *sub);
    unsigned *macro = st_calloc((f + 1) * (f + 2) / 2 + 1, sizeof *macro);
    if (!loc || !sub || !macro) {
        st_free(loc), st_free(sub), st_free(macro);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
#define LOC(a, b) loc[(size_t)(a) * side + (size_t)(b)] /* (a, b, f - a - b) */
    unsigned rank = 0;
    LOC(f, 0) = rank++;
    LOC(0, f) = rank++;
    LOC(0, 0) = rank++;
    for (unsigned j = 0; j < 3; j++)
        for (size_t k = 1; k < f; k++) {
            size_t t[3];
            t[j] = 0, t[(j + 1) % 3] = f - k, t[(j + 2) % 3] = k;
            LOC(t[0], t[1]) = rank++;
        }
    for (size_t j = 1; j < f; j++)
        for (size_t k = 1; k < f - j; k++)
            LOC(j, k) = rank++;
    size_t ns = 0;
    for (size_t i = 1; i <= f; i++)
        for (size_t j = 0; j < f - i + 1; j++) {
            unsigned *s = sub[ns++];
            s[0] = LOC(i, j);
            s[1] = LOC(i - 1, j + 1);
            s[2] = LOC(i - 1, j);
            if (i + j < f) {
                unsigned *s2 = sub[ns++];
                s2[0] = s[0];
                s2[2] = s[1];
                s2[1] = LOC(i, j + 1);
            }
        }
#undef LOC
    const size_t inside = (f - 2) * (f - 1) / 2;
    st_status st = ST_OK;
    for (size_t i = 0; i < nf && st == ST_OK; i++) {
        double A[3], B[3], C[3];
        memcpy(A, P(pos, faces[i][0]), sizeof A);
        memcpy(B, P(pos, faces[i][1]), sizeof B);
        memcpy(C, P(pos, faces[i][2]), sizeof C);
        for (size_t j = 1; f > 2 && j < f && st == ST_OK; j++)
            for (size_t k = 1; k < f - j && st == ST_OK; k++) {
                size_t l = f - k - j;
                double p[3];
                for (int a = 0; a < 3; a++)
                    p[a] = (double)j * A[a] + (double)k * B[a] + (double)l * C[a];
                normalize3(p);
                st = push_p(pos, p, err);
            }
        size_t m = 0;
        for (int j = 0; j < 3; j++)
            macro[m++] = faces[i][j];
        for (int j = 0; j < 3; j++) {
            unsigned a = faces[i][(j + 1) % 3], b = faces[i][(j + 2) % 3];
            size_t vr = nv + (f - 1) * face_edge[i][j];
            for (size_t k = 1; k < f; k++)
                macro[m++] = (unsigned)(a < b ? vr + k - 1 : vr + f - 1 - k);
        }
        size_t vr = nv + (f - 1) * ne + i * inside;
        for (size_t j = 0; j < inside; j++)
            macro[m++] = (unsigned)(vr + j);
        for (size_t j = 0; j < ns && st == ST_OK; j++) {
            unsigned t[3] = {macro[sub[j][0]], macro[sub[j][1]], macro[sub[j][2]]};
            st = eng_push_u(tri, ST_T_TRIANGLES, t, err);
        }
    }
    st_free(loc), st_free(sub), st_free(macro);
    return st;
}

/* ---- SOFA's closed forms for the rational Bezier control points ---- */

/* Degree 3 on a sphere edge A-B: two points, weight (1 + 2 c) / 3 each. */
static void edge_deg3(const double *A, const double *B, double c, double out[2][3])
{
    double t[3];
    double d = 1 + dot3(A, B);
    for (int a = 0; a < 3; a++)
        t[a] = (A[a] + B[a]) / d;
    for (int a = 0; a < 3; a++) {
        out[0][a] = (2 * c * t[a] + A[a]) / (1 + 2 * c);
        out[1][a] = (2 * c * t[a] + B[a]) / (1 + 2 * c);
    }
}

/* Degree 4 on a sphere edge A-B: three points and weights. */
static void edge_deg4(const double *A, const double *B, const double *n, double c,
                      double out[3][3], double w[3])
{
    double P110[3], mid[3];
    double d = 1 + dot3(A, B);
    for (int a = 0; a < 3; a++)
        P110[a] = (A[a] + B[a]) / d, mid[a] = (A[a] + B[a]) / 2;
    double w110 = sqrt(dot3(mid, mid));
    double nP = dot3(n, P110);
    double w310 = 2 - c - nP;
    for (int a = 0; a < 3; a++) {
        out[0][a] = (P110[a] * (1 - c) + A[a] * (1 - nP)) / w310;
        out[2][a] = ((1 - c) * P110[a] + (1 - nP) * B[a]) / w310;
    }
    w310 *= w110 / (2 * (1 - c));
    double w220 = 4 * (1 - nP) * w110 * w110 + 2 * (1 - c);
    for (int a = 0; a < 3; a++)
        out[1][a] = (P110[a] * 4 * (1 - nP) * w110 * w110 + (A[a] + B[a]) * (1 - c)) / w220;
    w220 /= 6 * (1 - c);
    w[0] = w310, w[1] = w220, w[2] = w310;
}

/* Degree 4 inside a sphere face (V0, V1, V2): three points and weights, in
 * SOFA's order (i = 2, 1, 0). */
static void face_deg4(const double *V[3], const double *n, double c, double out[3][3],
                      double w[3])
{
    double mid[3][3], wm[3];
    for (int i = 0; i < 3; i++) {
        const double *a = V[(i + 1) % 3], *b = V[(i + 2) % 3];
        double d = 1 + dot3(a, b), h[3];
        for (int k = 0; k < 3; k++)
            mid[i][k] = (a[k] + b[k]) / d, h[k] = (a[k] + b[k]) / 2;
        wm[i] = sqrt(dot3(h, h));
    }
    int o = 0;
    for (int j = 3; j > 0; j--) {
        int i = (j + 2) % 3, i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        double ww = 2 * wm[i1] * wm[i2] *
                        (1 + dot3(mid[i1], mid[i2]) - dot3(n, mid[i1]) - dot3(n, mid[i2])) +
                    wm[i] * (1 + dot3(V[i], mid[i]) - c - dot3(mid[i], n));
        for (int k = 0; k < 3; k++)
            out[o][k] = (2 * wm[i1] * wm[i2] *
                             ((1 - dot3(n, mid[i1])) * mid[i2][k] +
                              (1 - dot3(n, mid[i2])) * mid[i1][k] +
                              (dot3(mid[i1], mid[i2]) - 1) * n[k]) +
                         wm[i] * ((1 - c) * mid[i][k] + (1 - dot3(n, mid[i])) * V[i][k] +
                                  (dot3(V[i], mid[i]) - 1) * n[k])) /
                        ww;
        w[o++] = ww / (6 * (1 - c));
    }
}

/* The unit normal of (a, b, c) as SOFA takes it (cross(c - b, c - a)),
 * turned so that its dot with `on` is <= 0; returns that dot. */
static double sphere_normal(const double *a, const double *b, const double *c, const double *on,
                            double *n)
{
    double u[3], v[3];
    for (int k = 0; k < 3; k++)
        u[k] = c[k] - b[k], v[k] = c[k] - a[k];
    cross3(u, v, n);
    normalize3(n);
    double ct = dot3(n, on);
    if (ct > 0) {
        scale3(n, -1.0);
        ct = -ct;
    }
    return ct;
}

/* Appends the control points of one edge A-B (points and weights). */
static st_status bezier_edge(st_array *pos, st_array *wts, const double *A, const double *B,
                             const double *lin0, const double *lin1, bool on_sphere,
                             const double *n, double c, unsigned d, st_error *err)
{
    if (on_sphere && d == 2) {
        double p[3];
        double phi = acos(dot3(A, B));
        for (int k = 0; k < 3; k++)
            p[k] = (A[k] + B[k]) / 2;
        normalize3(p);
        scale3(p, 1.0 / cos(phi / 2));
        ST_TRY(push_p(pos, p, err));
        return push_w(wts, cos(phi / 2), err);
    }
    if (on_sphere && d == 3) {
        double q[2][3];
        edge_deg3(lin0, lin1, c, q);
        ST_TRY(push_p(pos, q[0], err));
        ST_TRY(push_p(pos, q[1], err));
        ST_TRY(push_w(wts, (1 + 2 * c) / 3.0, err));
        return push_w(wts, (1 + 2 * c) / 3.0, err);
    }
    if (on_sphere && d == 4) {
        double q[3][3], w[3];
        edge_deg4(lin0, lin1, n, c, q, w);
        for (int k = 0; k < 3; k++) {
            ST_TRY(push_p(pos, q[k], err));
            ST_TRY(push_w(wts, w[k], err));
        }
        return ST_OK;
    }
    for (unsigned j = 1; j < d; j++) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = ((double)j * lin1[k] + (double)(d - j) * lin0[k]) / d;
        ST_TRY(push_p(pos, p, err));
        ST_TRY(push_w(wts, 1.0, err));
    }
    return ST_OK;
}

/* Straight inner points of a face (i V0 + j V1 + (d-i-j) V2) / d, weight 1. */
static st_status linear_face(st_array *pos, st_array *wts, const double *V[3], unsigned d,
                             st_error *err)
{
    for (unsigned i = 1; i + 1 < d; i++)
        for (unsigned j = 1; j < d - i; j++) {
            double p[3];
            for (int k = 0; k < 3; k++)
                p[k] = ((double)i * V[0][k] + (double)j * V[1][k] + (double)(d - i - j) * V[2][k]) /
                       d;
            ST_TRY(push_p(pos, p, err));
            ST_TRY(push_w(wts, 1.0, err));
        }
    return ST_OK;
}

static bool seen_edge(unsigned *keys, size_t *n, unsigned a, unsigned b)
{
    unsigned lo = a < b ? a : b, hi = a < b ? b : a;
    for (size_t i = 0; i < *n; i++)
        if (keys[2 * i] == lo && keys[2 * i + 1] == hi)
            return true;
    keys[2 * *n] = lo, keys[2 * *n + 1] = hi;
    (*n)++;
    return false;
}

static st_status bezier_triangles(generate_sphere *e, size_t nb_platonic, st_error *err)
{
    const unsigned d = e->tri_degree;
    st_array *pos = &e->tri_position, *w = &e->tri_weights;
    const st_array *t = &e->triangles;
    size_t nv = pos->n;
    for (size_t i = 0; i < nv; i++)
        ST_TRY(push_w(w, 1.0, err));
    for (size_t i = 0; i < nb_platonic; i++) {
        unsigned one = 1;
        ST_TRY(eng_push_u(&e->tri_rational, ST_T_UINTS, &one, err));
    }
    unsigned *keys = st_calloc(6 * t->n + 2, sizeof *keys);
    if (!keys)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t nk = 0;
    st_status st = ST_OK;
    for (size_t r = 0; r < t->n && st == ST_OK; r++) {
        const unsigned *v = t->u + 3 * r;
        for (int i = 0; i < 3 && st == ST_OK; i++) {
            unsigned a = v[(i + 1) % 3], b = v[(i + 2) % 3];
            if (seen_edge(keys, &nk, a, b))
                continue;
            double A[3], B[3], V0[3], V1[3], V2[3], n[3];
            memcpy(A, P(pos, a), sizeof A), memcpy(B, P(pos, b), sizeof B);
            memcpy(V0, P(pos, v[0]), sizeof V0), memcpy(V1, P(pos, v[1]), sizeof V1);
            memcpy(V2, P(pos, v[2]), sizeof V2);
            double c = sphere_normal(V0, V1, V2, V1, n);
            st = bezier_edge(pos, w, A, B, A, B, true, n, c, d, err);
        }
    }
    st_free(keys);
    for (size_t r = 0; d > 2 && r < t->n && st == ST_OK; r++) {
        const unsigned *v = t->u + 3 * r;
        double V[3][3];
        for (int k = 0; k < 3; k++)
            memcpy(V[k], P(pos, v[k]), sizeof V[k]);
        const double *Vp[3] = {V[0], V[1], V[2]};
        if (d == 4) {
            double n[3], q[3][3], ww[3];
            double c = sphere_normal(V[0], V[1], V[2], V[1], n);
            face_deg4(Vp, n, c, q, ww);
            for (int k = 0; k < 3 && st == ST_OK; k++) {
                st = push_p(pos, q[k], err);
                if (st == ST_OK)
                    st = push_w(w, ww[k], err);
            }
        } else {
            st = linear_face(pos, w, Vp, d, err);
        }
    }
    return st;
}

static bool on_unit(const double *p) { return fabs(dot3(p, p) - 1) < 1e-4; }

static st_status bezier_tetrahedra(generate_sphere *e, st_error *err)
{
    const unsigned d = e->tetra_degree;
    st_array *pos = &e->tetra_position, *w = &e->tetra_weights;
    const st_array *t = &e->tetrahedra;
    for (size_t i = 0, nv = pos->n; i < nv; i++)
        ST_TRY(push_w(w, 1.0, err));
    for (size_t i = 0; i < t->n; i++) {
        unsigned one = 1;
        ST_TRY(eng_push_u(&e->tetra_rational, ST_T_UINTS, &one, err));
    }
    unsigned *keys = st_calloc(12 * t->n + 2, sizeof *keys);
    if (!keys)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t nk = 0;
    st_status st = ST_OK;
    for (size_t r = 0; r < t->n && st == ST_OK; r++) {
        const unsigned *v = t->u + 4 * r;
        for (int i = 0; i < 6 && st == ST_OK; i++) {
            unsigned a = v[tetra_edge[i][0]], b = v[tetra_edge[i][1]];
            if (seen_edge(keys, &nk, a, b))
                continue;
            unsigned lo = a < b ? a : b, hi = a < b ? b : a;
            double A[3], B[3], L0[3], L1[3], n[3] = {0, 0, 0}, c = 0;
            memcpy(A, P(pos, a), sizeof A), memcpy(B, P(pos, b), sizeof B);
            memcpy(L0, P(pos, lo), sizeof L0), memcpy(L1, P(pos, hi), sizeof L1);
            bool sphere = on_unit(A) && on_unit(B);
            if (sphere) {
                unsigned nx = v[tetra_adj[i][0]];
                if (!on_unit(P(pos, nx)))
                    nx = v[tetra_adj[i][1]];
                double N[3];
                memcpy(N, P(pos, nx), sizeof N);
                c = sphere_normal(A, B, N, B, n);
            }
            st = bezier_edge(pos, w, A, B, L0, L1, sphere, n, c, d, err);
        }
    }
    st_free(keys);
    unsigned *faces = NULL;
    size_t nf = 0;
    if (d > 2 && st == ST_OK) {
        faces = st_calloc(12 * t->n + 3, sizeof *faces);
        if (!faces)
            st = st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t r = 0; d > 2 && r < t->n && st == ST_OK; r++) {
        const unsigned *tv = t->u + 4 * r;
        for (int k = 0; k < 4 && st == ST_OK; k++) {
            unsigned f0 = tv[(k + 1) % 4], f1, f2;
            if (k % 2)
                f1 = tv[(k + 2) % 4], f2 = tv[(k + 3) % 4];
            else
                f1 = tv[(k + 3) % 4], f2 = tv[(k + 2) % 4];
            while (f0 > f1 || f0 > f2) {
                unsigned tmp = f0;
                f0 = f1, f1 = f2, f2 = tmp;
            }
            bool reversed = false, same = false;
            for (size_t q = 0; q < nf; q++) {
                const unsigned *s = faces + 3 * q;
                reversed |= s[0] == f0 && s[1] == f2 && s[2] == f1;
                same |= s[0] == f0 && s[1] == f1 && s[2] == f2;
            }
            if (reversed)
                continue;
            if (!same)
                faces[3 * nf] = f0, faces[3 * nf + 1] = f1, faces[3 * nf + 2] = f2, nf++;
            double V[3][3];
            memcpy(V[0], P(pos, f0), sizeof V[0]);
            memcpy(V[1], P(pos, f1), sizeof V[1]);
            memcpy(V[2], P(pos, f2), sizeof V[2]);
            const double *Vp[3] = {V[0], V[1], V[2]};
            if (d == 4 && on_unit(V[0]) && on_unit(V[1]) && on_unit(V[2])) {
                double n[3], q[3][3], ww[3];
                double c = sphere_normal(V[0], V[1], V[2], V[1], n);
                face_deg4(Vp, n, c, q, ww);
                for (int m = 0; m < 3 && st == ST_OK; m++) {
                    st = push_p(pos, q[m], err);
                    if (st == ST_OK)
                        st = push_w(w, ww[m], err);
                }
            } else {
                st = linear_face(pos, w, Vp, d, err);
            }
        }
    }
    st_free(faces);
    for (size_t r = 0; d > 3 && r < t->n && st == ST_OK; r++) {
        const unsigned *tv = t->u + 4 * r;
        double V[4][3];
        for (int k = 0; k < 4; k++)
            memcpy(V[k], P(pos, tv[k]), sizeof V[k]);
        for (unsigned i = 1; i + 2 < d && st == ST_OK; i++)
            for (unsigned j = 1; j + i + 1 < d && st == ST_OK; j++)
                for (unsigned k = 1; k < d - j - i && st == ST_OK; k++) {
                    double p[3];
                    unsigned l = d - i - j - k;
                    for (int a = 0; a < 3; a++)
                        p[a] = (i * V[0][a] + j * V[1][a] + k * V[2][a] + l * V[3][a]) / d;
                    st = push_p(pos, p, err);
                    if (st == ST_OK)
                        st = push_w(w, 1.0, err);
                }
    }
    return st;
}

static st_status gs_update(st_component *self, st_error *err)
{
    generate_sphere *e = (generate_sphere *)self;
    const char *name = e->solid ? e->solid : "";
    int solid = !strcmp(name, "tetrahedron") ? 0 : !strcmp(name, "octahedron") ? 1
                : !strcmp(name, "icosahedron") ? 2 : -1;
    if (solid < 0)
        return st_component_error(self, "platonicSolid", err, ST_EINVAL,
                                  "Wrong Platonic Solid Name : %s. It should be either "
                                  "\"tetrahedron\", \"octahedron\" or \"icosahedron\"",
                                  name);
    if (e->tessellation < 1)
        return st_component_error(self, "tessellationDegree", err, ST_EINVAL,
                                  "tessellationDegree must be >= 1 (got 0)");
    st_array *outs[] = {&e->tri_position, &e->tetra_position, &e->tri_weights, &e->tetra_weights};
    for (int k = 0; k < 4; k++)
        eng_clear(outs[k]);
    eng_clear(&e->triangles);
    eng_clear(&e->tetrahedra);
    eng_clear(&e->tri_rational);
    eng_clear(&e->tetra_rational);
    size_t nb_platonic = 0;
    ST_TRY(base_mesh(e, solid, &nb_platonic, err));
    const st_array *pt = &e->tri_position;
    if (solid == 0 && e->tessellation == 1) {
        for (size_t i = 0; i < pt->n; i++) {
            double p[3];
            memcpy(p, P(pt, i), sizeof p);
            ST_TRY(push_p(&e->tetra_position, p, err));
        }
        const unsigned t4[4] = {0, 1, 2, 3};
        ST_TRY(eng_push_u(&e->tetrahedra, ST_T_TETRAS, t4, err));
    } else {
        const double zero[3] = {0, 0, 0};
        ST_TRY(push_p(&e->tetra_position, zero, err));
        for (size_t i = 0; i < pt->n; i++) {
            double p[3];
            memcpy(p, P(pt, i), sizeof p);
            ST_TRY(push_p(&e->tetra_position, p, err));
        }
        for (size_t i = 0; i < e->triangles.n; i++) {
            const unsigned *t = e->triangles.u + 3 * i;
            const unsigned t4[4] = {0, t[0] + 1, t[1] + 1, t[2] + 1};
            ST_TRY(eng_push_u(&e->tetrahedra, ST_T_TETRAS, t4, err));
        }
    }
    if (e->tri_degree > 1)
        ST_TRY(bezier_triangles(e, nb_platonic, err));
    if (e->tetra_degree > 1)
        ST_TRY(bezier_tetrahedra(e, err));
    st_array *lists[2] = {&e->tri_position, &e->tetra_position};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < lists[l]->n; i++) {
            double *p = lists[l]->r + 3 * i;
            for (int a = 0; a < 3; a++)
                p[a] = p[a] * e->radius + e->origin[a];
        }
    return ST_OK;
}

static const st_engine_ops gs_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = gs_update,
};

static const char *const gs_templates[] = {"Vec3d", NULL};

const st_class generate_sphere_class = {
    .struct_size = sizeof(st_class),
    .name = "GenerateSphere",
    .category = "Engine",
    .description = "Engine generating a spherical (Bezier) tetrahedral and triangular mesh.",
    .instance_size = sizeof(generate_sphere),
    .fields = gs_fields,
    .engine = &gs_engine,
    .templates = gs_templates,
};
