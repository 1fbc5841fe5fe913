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
 * SOFA's rational Bezier outputs (degree > 1) are not computed by settee:
 * a degree above 1 is an error; the weights and flags stay empty. SOFA's
 * second alias of output_TetrahedraPosition, "position", is not there
 * (settee fields have one alias: "output_position"). */
#include <math.h>

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
           "weights of rational Bezier triangles (not computed by settee)"),
    GC_OUT(tri_rational, "isBezierTriangleRational", ST_T_UINTS,
           "booleans indicating if each Bezier triangle is rational or integral (not computed "
           "by settee)"),
    ST_UINT(generate_cylinder, tri_degree, "BezierTriangleDegree", "0",
            "order of Bezier triangles (settee: at most 1)"),
    GC_OUT(tetra_weights, "BezierTetrahedronWeights", ST_T_REALS,
           "weights of rational Bezier tetrahedra (not computed by settee)"),
    GC_OUT(tetra_rational, "isBezierTetrahedronRational", ST_T_UINTS,
           "booleans indicating if each Bezier tetrahedron is rational or integral (not "
           "computed by settee)"),
    ST_UINT(generate_cylinder, tetra_degree, "BezierTetrahedronDegree", "0",
            "order of Bezier tetrahedra (settee: at most 1)"),
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

static st_status gc_update(st_component *self, st_error *err)
{
    generate_cylinder *e = (generate_cylinder *)self;
    if (e->tri_degree > 1 || e->tetra_degree > 1)
        return st_component_error(self,
                                  e->tri_degree > 1 ? "BezierTriangleDegree"
                                                    : "BezierTetrahedronDegree",
                                  err, ST_EINVAL,
                                  "rational Bezier elements (degree > 1) are not supported by "
                                  "settee yet");
    if (e->res_circ < 1 || e->res_radial < 1 || e->res_height < 2)
        return st_component_error(self, e->res_height < 2 ? "resHeight" : NULL, err, ST_EINVAL,
                                  "resCircumferential and resRadial must be >= 1 and resHeight "
                                  ">= 2 (got %u, %u, %u)",
                                  e->res_circ, e->res_radial, e->res_height);
    if (!e->open_surface && e->res_radial < 2)
        return st_component_error(self, "resRadial", err, ST_EINVAL,
                                  "a closed surface (openSurface false) needs resRadial >= 2 "
                                  "(SOFA indexes an inner ring)");
    ST_TRY(volume_mesh(e, err));
    return surface_mesh(e, err);
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
