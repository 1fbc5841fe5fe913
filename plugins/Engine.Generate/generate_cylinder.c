/* generate_cylinder.c - GenerateCylinder: a cylinder of radius r and height
 * h along z from `origin`, meshed two ways.
 * Tetrahedra: resHeight layers of 1 + resCircumferential * resRadial
 * points (the axis point, then rings j = 1..resRadial at radius j r /
 * resRadial, angles 2 pi k / resCircumferential), each slab between layers
 * cut into 3 tetrahedra per prism around the axis and 6 per hexahedron
 * outside it: 3 C (H - 1) + 6 (R - 1) C (H - 1) tetrahedra.
 * Triangles: the outer wall, resHeight rings of C points, 2 C (H - 1)
 * triangles; closed (openSurface false): plus both end discs (a centre and
 * R - 1 inner rings each), 2 C + 4 (R - 1) C more triangles.
 * BezierTetrahedronDegree / BezierTriangleDegree > 1 append SOFA's rational
 * Bezier control points to the positions, with their weights and a flag per
 * element (rational: two vertices or more on the wall). SOFA's
 * second alias of output_TetrahedraPosition, "position", is not there
 * (settee fields have one alias: "output_position"). */
#include <math.h>
#include <string.h>

#include "../shared/engine_util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct generate_cylinder {
    st_component base;
    st_array tetra_position, tri_position; /* outputs, coord[] */
    st_array tetrahedra, triangles;        /* outputs */
    st_array tri_weights, tri_rational, tetra_weights, tetra_rational; /* outputs (empty) */
    unsigned tri_degree, tetra_degree;
    double radius, height;
    st_vec3 origin;
    bool open_surface;
    unsigned res_circ, res_radial, res_height;
} generate_cylinder;

#define GC_OUT(m, key, T, help) ST_OUTPUT(generate_cylinder, m, key, T, st_array, help)

static const st_field gc_fields[] = {
    ST_FIELD_EX(generate_cylinder, tetra_position, "output_TetrahedraPosition", ST_T_COORDS,
                st_array, NULL, "output array of 3d points of tetrahedra mesh", ST_F_OUTPUT,
                "output_position", 0.0, 0.0),
    GC_OUT(tri_position, "output_TrianglesPosition", ST_T_COORDS,
           "output array of 3d points of triangle mesh"),
    GC_OUT(tetrahedra, "tetrahedra", ST_T_TETRAS, "output mesh tetrahedra"),
    GC_OUT(triangles, "triangles", ST_T_TRIANGLES, "output triangular mesh"),
    GC_OUT(tri_weights, "BezierTriangleWeights", ST_T_REALS,
           "weights of rational Bezier triangles"),
    GC_OUT(tri_rational, "isBezierTriangleRational", ST_T_UINTS,
           "booleans indicating if each Bezier triangle is rational or integral"),
    ST_UINT(generate_cylinder, tri_degree, "BezierTriangleDegree", "0",
            "order of Bezier triangles"),
    GC_OUT(tetra_weights, "BezierTetrahedronWeights", ST_T_REALS,
           "weights of rational Bezier tetrahedra"),
    GC_OUT(tetra_rational, "isBezierTetrahedronRational", ST_T_UINTS,
           "booleans indicating if each Bezier tetrahedron is rational or integral"),
    ST_UINT(generate_cylinder, tetra_degree, "BezierTetrahedronDegree", "0",
            "order of Bezier tetrahedra"),
    ST_REAL(generate_cylinder, radius, "radius", "0.2", "input cylinder radius"),
    ST_REAL(generate_cylinder, height, "height", "1", "input cylinder height"),
    ST_VEC3(generate_cylinder, origin, "origin", "0 0 0", "cylinder origin point"),
    ST_BOOL(generate_cylinder, open_surface, "openSurface", "true",
            "if the cylinder is open at its 2 ends"),
    ST_UINT(generate_cylinder, res_circ, "resCircumferential", "6",
            "Resolution in the circumferential direction"),
    ST_UINT(generate_cylinder, res_radial, "resRadial", "3", "Resolution in the radial direction"),
    ST_UINT(generate_cylinder, res_height, "resHeight", "5", "Resolution in the height direction"),
    ST_FIELD_END};

static void put(double *p, const double *o, double x, double y, double z)
{
    p[0] = x + o[0], p[1] = y + o[1], p[2] = z + o[2];
}

static void tet(unsigned *t, size_t a, size_t b, size_t c, size_t d)
{
    t[0] = (unsigned)a, t[1] = (unsigned)b, t[2] = (unsigned)c, t[3] = (unsigned)d;
}

static void tri(unsigned *t, size_t a, size_t b, size_t c)
{
    t[0] = (unsigned)a, t[1] = (unsigned)b, t[2] = (unsigned)c;
}

static st_status volume_mesh(generate_cylinder *e, st_error *err)
{
    size_t C = e->res_circ, R = e->res_radial, H = e->res_height;
    const double *o = e->origin;
    size_t layer = C * R + 1;
    ST_TRY(st_array_resize_width(&e->tetra_position, 3, layer * H, err));
    double *x = e->tetra_position.r;
    size_t at = 0;
    for (size_t i = 0; i < H; i++) {
        double z = (double)i * e->height / (double)(H - 1);
        put(x + 3 * at++, o, 0, 0, z);
        for (size_t j = 1; j <= R; j++) {
            double r = (double)j * e->radius / (double)R;
            for (size_t k = 0; k < C; k++) {
                double th = (double)k * 2 * M_PI / (double)C;
                put(x + 3 * at++, o, r * cos(th), r * sin(th), z);
            }
        }
    }
    size_t nt = 3 * C * (H - 1) + 6 * (R - 1) * C * (H - 1);
    ST_TRY(st_array_resize(&e->tetrahedra, ST_T_TETRAS, nt, err));
    unsigned *t = e->tetrahedra.u;
    at = 0;
    for (size_t i = 1; i < H; i++) {
        size_t c0 = i * layer, prev = C;
        for (size_t k = 1; k <= C; k++) {
            size_t p[6] = {c0, c0 + prev, c0 + k, c0 - layer, c0 + prev - layer, c0 + k - layer};
            tet(t + 4 * at++, p[1], p[0], p[2], p[3]);
            tet(t + 4 * at++, p[1], p[2], p[4], p[3]);
            tet(t + 4 * at++, p[3], p[4], p[5], p[2]);
            prev = k;
        }
        for (size_t j = 1; j < R; j++) {
            prev = C;
            for (size_t k = 1; k <= C; k++) {
                size_t h[8] = {c0 + k, c0 + prev, c0 + k + C, c0 + prev + C};
                for (int q = 0; q < 4; q++)
                    h[4 + q] = h[q] - layer;
                tet(t + 4 * at++, h[0], h[5], h[4], h[7]);
                tet(t + 4 * at++, h[0], h[1], h[5], h[3]);
                tet(t + 4 * at++, h[5], h[0], h[3], h[7]);
                tet(t + 4 * at++, h[0], h[3], h[7], h[2]);
                tet(t + 4 * at++, h[7], h[0], h[2], h[4]);
                tet(t + 4 * at++, h[6], h[7], h[2], h[4]);
                prev = k;
            }
            c0 += C;
        }
    }
    return ST_OK;
}

static st_status surface_mesh(generate_cylinder *e, st_error *err)
{
    size_t C = e->res_circ, R = e->res_radial, H = e->res_height;
    bool open = e->open_surface;
    const double *o = e->origin;
    size_t np = open ? C * H : C * (H + 2 * (R - 1)) + 2;
    ST_TRY(st_array_resize_width(&e->tri_position, 3, np, err));
    double *x = e->tri_position.r;
    size_t at = 0;
    for (size_t i = 0; i < H; i++) {
        double z = (double)i * e->height / (double)(H - 1);
        for (size_t k = 0; k < C; k++) {
            double th = (double)k * 2 * M_PI / (double)C;
            put(x + 3 * at++, o, e->radius * cos(th), e->radius * sin(th), z);
        }
    }
    if (!open)
        for (size_t i = 0; i < 2; i++) {
            double z = (double)i * e->height;
            put(x + 3 * at++, o, 0, 0, z);
            for (size_t j = 1; j < R; j++) {
                double r = (double)j * e->radius / (double)R;
                for (size_t k = 0; k < C; k++) {
                    double th = (double)k * 2 * M_PI / (double)C;
                    put(x + 3 * at++, o, r * cos(th), r * sin(th), z);
                }
            }
        }
    size_t nt = open ? 2 * C * (H - 1) : 2 * C * (H - 1) + 2 * C + 4 * (R - 1) * C;
    ST_TRY(st_array_resize(&e->triangles, ST_T_TRIANGLES, nt, err));
    unsigned *t = e->triangles.u;
    at = 0;
    for (size_t i = 1; i < H; i++)
        for (size_t k = 0; k < C; k++) {
            size_t k1 = (k + 1) % C;
            tri(t + 3 * at++, i * C + k, (i - 1) * C + k, (i - 1) * C + k1);
            tri(t + 3 * at++, i * C + k, (i - 1) * C + k1, i * C + k1);
        }
    if (open)
        return ST_OK;
    for (size_t i = 0; i < 2; i++) {
        size_t c0 = C * H + i * (C * (R - 1) + 1);
        for (size_t k = 0; k < C; k++) {
            size_t k1 = (k + 1) % C;
            if (i == 1)
                tri(t + 3 * at++, c0, c0 + 1 + k, c0 + 1 + k1);
            else
                tri(t + 3 * at++, c0, c0 + 1 + k1, c0 + 1 + k);
        }
        for (size_t j = 0; j + 2 < R; j++)
            for (size_t k = 0; k < C; k++) {
                size_t k1 = (k + 1) % C, a = c0 + 1 + j * C + k, b = c0 + 1 + (j + 1) * C + k,
                       b1 = c0 + 1 + (j + 1) * C + k1, a1 = c0 + 1 + j * C + k1;
                if (i == 1) {
                    tri(t + 3 * at++, a, b, b1);
                    tri(t + 3 * at++, a, b1, a1);
                } else {
                    tri(t + 3 * at++, a, b1, b);
                    tri(t + 3 * at++, a, a1, b1);
                }
            }
        size_t j = R - 2, w = i * (H - 1) * C;
        for (size_t k = 0; k < C; k++) {
            size_t k1 = (k + 1) % C, a = c0 + 1 + j * C + k, a1 = c0 + 1 + j * C + k1;
            if (i == 1) {
                tri(t + 3 * at++, a, w + k, w + k1);
                tri(t + 3 * at++, a, w + k1, a1);
            } else {
                tri(t + 3 * at++, a, w + k1, w + k);
                tri(t + 3 * at++, a, a1, w + k1);
            }
        }
    }
    return ST_OK;
}

/* ---- SOFA's rational Bezier control points ----
 * Appended to the positions after the mesh points, in SOFA's order: per
 * element, per edge (SOFA's edge order of a tetrahedron, (v1, v2) (v2, v0)
 * (v0, v1) of a triangle) not met before, degree - 1 points; for degree >
 * 2, points inside the faces. Edges along the outer circle (both ends on
 * the wall, same height) and the wall's diagonals (different height and y)
 * get control points of the circular arc (weights cos(pi / C) at degree 2,
 * (1 + 2 cos(pi / C)) / 3 at degree 3; any other degree: straight ones),
 * other edges straight ones (weight 1). */

typedef struct bez {
    st_array *x;   /* positions (grown) */
    st_array *w;   /* weights (grown) */
    double radius, c; /* c = cos(pi / C) */
} bez;

static st_status bez_push(bez *b, const double p[3], double w, st_error *err)
{
    ST_TRY(eng_push_r(b->x, 3, p, err));
    return eng_push_r(b->w, 1, &w, err);
}

static const double *bx(const bez *b, size_t i) { return b->x->r + 3 * i; }

/* The arc point over the middle of (p, q): its x, y pushed out to the
 * radius over cos(pi / C), at height z. */
static void arc_mid(const bez *b, const double *p, const double *q, double z, double out[3])
{
    out[0] = (p[0] + q[0]) / 2, out[1] = (p[1] + q[1]) / 2, out[2] = 0;
    double s = b->radius / (sqrt(out[0] * out[0] + out[1] * out[1]) * b->c);
    out[0] *= s, out[1] *= s, out[2] = z;
}

static st_status bez_straight(bez *b, size_t e0, size_t e1, unsigned deg, st_error *err)
{
    for (unsigned j = 1; j < deg; j++) {
        double p[3];
        for (int a = 0; a < 3; a++)
            p[a] = ((double)j * bx(b, e1)[a] + (double)(deg - j) * bx(b, e0)[a]) / deg;
        ST_TRY(bez_push(b, p, 1.0, err));
    }
    return ST_OK;
}

/* An edge's control points; on_arc: both ends on the wall. */
static st_status bez_edge(bez *b, size_t e0, size_t e1, bool on_arc, unsigned deg, st_error *err)
{
    double p0[3], p1[3], t[3], t2[3], q[3], c = b->c, k = 1 + 2 * c;
    memcpy(p0, bx(b, e0), sizeof p0);
    memcpy(p1, bx(b, e1), sizeof p1);
    bool ring = on_arc && p0[2] == p1[2];
    bool diag = on_arc && p0[2] != p1[2] && p0[1] != p1[1];
    if (!(ring || diag) || deg > 3)
        return bez_straight(b, e0, e1, deg, err);
    if (deg == 2) {
        arc_mid(b, p0, p1, p1[2], q);
        return bez_push(b, q, c, err);
    }
    if (ring) {
        arc_mid(b, p0, p1, p1[2], t);
        for (int a = 0; a < 3; a++)
            q[a] = (2 * c * t[a] + p0[a]) / k;
        ST_TRY(bez_push(b, q, k / 3.0, err));
        for (int a = 0; a < 3; a++)
            q[a] = (2 * c * t[a] + p1[a]) / k;
        return bez_push(b, q, k / 3.0, err);
    }
    arc_mid(b, p0, p1, p0[2], t);
    memcpy(t2, p0, sizeof t2);
    t2[2] = p1[2];
    for (int a = 0; a < 3; a++)
        q[a] = (2 * c * t[a] + t2[a]) / k;
    ST_TRY(bez_push(b, q, k / 3.0, err));
    t[2] = p1[2];
    memcpy(t2, p1, sizeof t2);
    t2[2] = p0[2];
    for (int a = 0; a < 3; a++)
        q[a] = (2 * c * t[a] + t2[a]) / k;
    return bez_push(b, q, k / 3.0, err);
}

/* The face point of a wall triangle (v[0..2]): from its vertex j whose two
 * others differ in height and in y, and the vertex k at j's height. False
 * when the triangle has no such vertex (SOFA would loop on). */
static bool bez_wall_face(bez *b, const unsigned v[3], double q[3])
{
    const double *x[3] = {bx(b, v[0]), bx(b, v[1]), bx(b, v[2])};
    unsigned j = 0, k = 1;
    while (j < 3 && (x[(j + 1) % 3][2] == x[(j + 2) % 3][2] ||
                     x[(j + 1) % 3][1] == x[(j + 2) % 3][1]))
        j++;
    if (j == 3)
        return false;
    while (k < 3 && x[(j + k) % 3][2] != x[j][2])
        k++;
    if (k == 3)
        return false;
    double t[3], t2[3], c = b->c;
    arc_mid(b, x[j], x[(j + k) % 3], x[(j + 1) % 3][2], t);
    memcpy(t2, t, sizeof t2);
    t2[2] = x[(j + 2) % 3][2];
    for (int a = 0; a < 3; a++)
        q[a] = (x[j][a] + c * t[a] + c * t2[a]) / (1 + 2 * c);
    return true;
}

/* Whether the undirected edge (a, b) was met; marks it. */
static bool seen_edge(unsigned *keys, size_t *n, unsigned a, unsigned b2)
{
    unsigned lo = a < b2 ? a : b2, hi = a < b2 ? b2 : a;
    for (size_t i = 0; i < *n; i++)
        if (keys[2 * i] == lo && keys[2 * i + 1] == hi)
            return true;
    keys[2 * *n] = lo, keys[2 * *n + 1] = hi;
    (*n)++;
    return false;
}

static st_status bezier_tetra(generate_cylinder *e, const bool *on_wall, size_t nv,
                              st_error *err)
{
    unsigned deg = e->tetra_degree;
    const st_array *t = &e->tetrahedra;
    bez b = {&e->tetra_position, &e->tetra_weights, e->radius, cos(M_PI / e->res_circ)};
    ST_TRY(st_array_resize(&e->tetra_weights, ST_T_REALS, nv, err));
    for (size_t i = 0; i < nv; i++)
        e->tetra_weights.r[i] = 1;
    ST_TRY(st_array_resize(&e->tetra_rational, ST_T_UINTS, t->n, err));
    static const int edge_of[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    unsigned *keys = st_calloc(12 * t->n + 2, sizeof *keys), *faces = NULL;
    if (!keys)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t nk = 0, nf = 0;
    st_status st = ST_OK;
    for (size_t r = 0; r < t->n && st == ST_OK; r++) {
        const unsigned *v = t->u + 4 * r;
        unsigned ns = 0;
        for (int i = 0; i < 4; i++)
            ns += on_wall[v[i]];
        e->tetra_rational.u[r] = ns >= 2;
        for (int i = 0; i < 6 && st == ST_OK; i++) {
            unsigned a = v[edge_of[i][0]], c = v[edge_of[i][1]];
            if (seen_edge(keys, &nk, a, c))
                continue;
            unsigned lo = a < c ? a : c, hi = a < c ? c : a;
            st = bez_edge(&b, lo, hi, on_wall[lo] && on_wall[hi], deg, err);
        }
    }
    if (st == ST_OK && deg > 2) {
        faces = st_calloc(12 * t->n + 3, sizeof *faces);
        if (!faces)
            st = st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t r = 0; deg > 2 && r < t->n && st == ST_OK; r++) {
        const unsigned *tv = t->u + 4 * r;
        for (int i = 0; i < 4 && st == ST_OK; i++) {
            unsigned v0 = tv[(i + 1) % 4], v1, v2;
            if (i % 2)
                v1 = tv[(i + 2) % 4], v2 = tv[(i + 3) % 4];
            else
                v2 = tv[(i + 2) % 4], v1 = tv[(i + 3) % 4];
            while (v0 > v1 || v0 > v2) {
                unsigned tmp = v0;
                v0 = v1, v1 = v2, v2 = tmp;
            }
            bool reversed_seen = false, same_seen = false;
            for (size_t f = 0; f < nf; f++) {
                const unsigned *q = faces + 3 * f;
                reversed_seen |= q[0] == v0 && q[1] == v2 && q[2] == v1;
                same_seen |= q[0] == v0 && q[1] == v1 && q[2] == v2;
            }
            if (reversed_seen)
                continue;
            if (same_seen)
                st_component_warn(&e->base, "Duplicate triangle %u %u %u in tetra %zu", v0, v1,
                                  v2, r);
            else
                faces[3 * nf] = v0, faces[3 * nf + 1] = v1, faces[3 * nf + 2] = v2, nf++;
            unsigned ns = 0;
            for (int j = 1; j < 4; j++)
                ns += on_wall[tv[(i + j) % 4]];
            const unsigned tr[3] = {v0, v1, v2};
            double q[3];
            if (ns == 3) {
                if (!bez_wall_face(&b, tr, q)) {
                    st = st_component_error(&e->base, "BezierTetrahedronDegree", err, ST_EINVAL,
                                            "face %u %u %u: no wall vertex to place its control "
                                            "point from",
                                            v0, v1, v2);
                    break;
                }
                st = bez_push(&b, q, (1 + 2 * b.c) / 3.0, err);
                continue;
            }
            for (unsigned j = 1; j + 1 < deg && st == ST_OK; j++)
                for (unsigned k = 1; k < deg - j && st == ST_OK; k++) {
                    for (int a = 0; a < 3; a++)
                        q[a] = bx(&b, v0)[a] * k / deg +
                               (double)(deg - j - k) * bx(&b, v1)[a] / deg +
                               (double)j * bx(&b, v2)[a] / deg;
                    st = bez_push(&b, q, 1.0, err);
                }
        }
    }
    st_free(keys);
    st_free(faces);
    return st;
}

static st_status bezier_triangles(generate_cylinder *e, st_error *err)
{
    unsigned deg = e->tri_degree;
    const st_array *t = &e->triangles;
    size_t nv = e->tri_position.n, wall = (size_t)e->res_circ * e->res_height;
    bez b = {&e->tri_position, &e->tri_weights, e->radius, cos(M_PI / e->res_circ)};
    ST_TRY(st_array_resize(&e->tri_weights, ST_T_REALS, nv, err));
    for (size_t i = 0; i < nv; i++)
        e->tri_weights.r[i] = 1;
    ST_TRY(st_array_resize(&e->tri_rational, ST_T_UINTS, t->n, err));
    unsigned *keys = st_calloc(6 * t->n + 2, sizeof *keys);
    if (!keys)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t nk = 0;
    st_status st = ST_OK;
    for (size_t r = 0; r < t->n && st == ST_OK; r++) {
        const unsigned *v = t->u + 3 * r;
        unsigned nc = (v[0] < wall) + (v[1] < wall) + (v[2] < wall);
        e->tri_rational.u[r] = nc >= 2;
        for (int i = 0; i < 3 && st == ST_OK; i++) {
            unsigned a = v[(i + 1) % 3], c = v[(i + 2) % 3];
            if (!seen_edge(keys, &nk, a, c))
                st = bez_edge(&b, a, c, a < wall && c < wall, deg, err);
        }
    }
    st_free(keys);
    size_t nwall = 2 * (size_t)e->res_circ * (e->res_height - 1);
    for (size_t r = 0; deg > 2 && r < t->n && st == ST_OK; r++) {
        const unsigned *v = t->u + 3 * r;
        double q[3];
        if (r < nwall) {
            if (!bez_wall_face(&b, v, q))
                return st_component_error(&e->base, "BezierTriangleDegree", err, ST_EINVAL,
                                          "wall triangle %zu: no vertex to place its control "
                                          "point from",
                                          r);
            st = bez_push(&b, q, (1 + 2 * b.c) / 3.0, err);
        } else {
            for (int a = 0; a < 3; a++)
                q[a] = (bx(&b, v[0])[a] + bx(&b, v[1])[a] + bx(&b, v[2])[a]) / 3.0;
            st = bez_push(&b, q, 1.0, err);
        }
    }
    return st;
}

static st_status gc_update(st_component *self, st_error *err)
{
    generate_cylinder *e = (generate_cylinder *)self;
    if (e->res_circ < 1 || e->res_radial < 1 || e->res_height < 2)
        return st_component_error(self, e->res_height < 2 ? "resHeight" : NULL, err, ST_EINVAL,
                                  "resCircumferential and resRadial must be >= 1 and resHeight "
                                  ">= 2 (got %u, %u, %u)",
                                  e->res_circ, e->res_radial, e->res_height);
    if (!e->open_surface && e->res_radial < 2)
        return st_component_error(self, "resRadial", err, ST_EINVAL,
                                  "a closed surface (openSurface false) needs resRadial >= 2 "
                                  "(SOFA indexes an inner ring)");
    eng_clear(&e->tri_weights);
    eng_clear(&e->tri_rational);
    eng_clear(&e->tetra_weights);
    eng_clear(&e->tetra_rational);
    ST_TRY(volume_mesh(e, err));
    if (e->tetra_degree > 1) {
        size_t nv = e->tetra_position.n, layer = (size_t)e->res_circ * e->res_radial + 1;
        bool *on_wall = st_calloc(nv + 1, sizeof *on_wall);
        if (!on_wall)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        /* the last ring of each layer */
        for (size_t i = 0; i < nv; i++)
            on_wall[i] = i % layer > layer - 1 - e->res_circ;
        st_status st = bezier_tetra(e, on_wall, nv, err);
        st_free(on_wall);
        ST_TRY(st);
    }
    ST_TRY(surface_mesh(e, err));
    return e->tri_degree > 1 ? bezier_triangles(e, err) : ST_OK;
}

static const st_engine_ops gc_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = gc_update,
};

static const char *const gc_templates[] = {"Vec3d", NULL};

const st_class generate_cylinder_class = {
    .struct_size = sizeof(st_class),
    .name = "GenerateCylinder",
    .category = "Engine",
    .description = "Engine generating a cylindrical tetrahedral mesh.",
    .instance_size = sizeof(generate_cylinder),
    .fields = gc_fields,
    .engine = &gc_engine,
    .templates = gc_templates,
};
