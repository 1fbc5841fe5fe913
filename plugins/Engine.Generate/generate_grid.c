/* generate_grid.c - GenerateGrid: a regular grid between min and max with
 * resolution[0] x resolution[1] x resolution[2] cells, points x fastest,
 * then y, then z. With a z resolution of 0 the grid is flat: quads and two
 * triangles per quad; otherwise hexahedra and six tetrahedra per
 * hexahedron (SOFA's split), cells ordered x slowest. The lists of the
 * other dimension are left as they were, as in SOFA. A zero x or y
 * resolution is taken as 1 with an error message, as in SOFA. Vec2d: the
 * points keep x and y. */
#include "../shared/engine_util.h"

typedef struct generate_grid {
    st_component base;
    st_array output;     /* "output_position", output coord[] */
    st_array tetrahedra, quads, triangles, hexahedra; /* outputs */
    st_vec3 min, max;
    st_array resolution; /* 3 uints */
} generate_grid;

#define GG_OUT(m, key, T, help) ST_OUTPUT(generate_grid, m, key, T, st_array, help)

static const st_field generate_grid_fields[] = {
    ST_FIELD_EX(generate_grid, output, "output_position", ST_T_COORDS, st_array, NULL,
                "output array of 3d points", ST_F_OUTPUT, "position", 0.0, 0.0),
    GG_OUT(tetrahedra, "tetrahedra", ST_T_TETRAS, "output mesh tetrahedra"),
    GG_OUT(quads, "quads", ST_T_QUADS, "output mesh quads"),
    GG_OUT(triangles, "triangles", ST_T_TRIANGLES, "output mesh triangles"),
    GG_OUT(hexahedra, "hexahedra", ST_T_HEXAS, "output mesh hexahedra"),
    ST_VEC3(generate_grid, min, "min", "0 0 0", "the 3 coordinates of the minimum corner"),
    ST_VEC3(generate_grid, max, "max", "0 0 0", "the 3 coordinates of the maximum corner"),
    ST_FIELD_EX(generate_grid, resolution, "resolution", ST_T_UINTS, st_array, "3 3 3",
                "the number of cubes in the x,y,z directions. If resolution in the z direction "
                "is  0 then a 2D grid is generated",
                ST_F_COUNT, NULL, 3, 3),
    ST_FIELD_END};

static st_status generate_grid_update(st_component *self, st_error *err)
{
    generate_grid *g = (generate_grid *)self;
    size_t nl = g->resolution.u[0], nw = g->resolution.u[1], nh = g->resolution.u[2];
    if (nl == 0 || nw == 0) {
        st_component_warn_field(self, "resolution",
                                "Number of cubes in the %s direction cannot be 0; Changed to 1",
                                nl == 0 ? "x" : "y");
        nl = nl ? nl : 1;
        nw = nw ? nw : 1;
    }
    const double length = (g->max[0] - g->min[0]) / (double)nl;
    const double width = (g->max[1] - g->min[1]) / (double)nw;
    const double height = nh ? (g->max[2] - g->min[2]) / (double)nh : 0.0;
    unsigned cw = eng_coord_size(self);
    ST_TRY(st_array_resize_width(&g->output, cw, (nl + 1) * (nw + 1) * (nh + 1), err));
    size_t index = 0;
    for (size_t k = 0; k <= nh; k++)
        for (size_t j = 0; j <= nw; j++)
            for (size_t i = 0; i <= nl; i++, index++) {
                const double t[3] = {i * length, j * width, k * height};
                for (unsigned c = 0; c < cw; c++)
                    g->output.r[cw * index + c] = t[c] + g->min[c];
            }
    const size_t rx = nl + 1, slab = (nl + 1) * (nw + 1);
    if (nh == 0) {
        ST_TRY(st_array_resize(&g->quads, ST_T_QUADS, nl * nw, err));
        ST_TRY(st_array_resize(&g->triangles, ST_T_TRIANGLES, 2 * nl * nw, err));
        index = 0;
        for (size_t i = 0; i < nl; i++)
            for (size_t j = 0; j < nw; j++, index++) {
                unsigned q[4] = {(unsigned)(i + j * rx), (unsigned)(i + 1 + j * rx),
                                 (unsigned)(i + 1 + (j + 1) * rx), (unsigned)(i + (j + 1) * rx)};
                memcpy(g->quads.u + 4 * index, q, sizeof q);
                unsigned *t = g->triangles.u + 6 * index;
                t[0] = q[0], t[1] = q[1], t[2] = q[3];
                t[3] = q[3], t[4] = q[1], t[5] = q[2];
            }
        return ST_OK;
    }
    ST_TRY(st_array_resize(&g->hexahedra, ST_T_HEXAS, nl * nw * nh, err));
    ST_TRY(st_array_resize(&g->tetrahedra, ST_T_TETRAS, 6 * nl * nw * nh, err));
    /* SOFA's six tetrahedra of a hexahedron, as corner numbers. */
    static const unsigned split[6][4] = {{0, 5, 1, 6}, {0, 1, 3, 6}, {1, 3, 6, 2},
                                         {6, 3, 0, 7}, {6, 7, 0, 5}, {7, 5, 4, 0}};
    index = 0;
    for (size_t i = 0; i < nl; i++)
        for (size_t j = 0; j < nw; j++)
            for (size_t k = 0; k < nh; k++, index++) {
                unsigned *h = g->hexahedra.u + 8 * index;
                const size_t b = i + j * rx + k * slab;
                h[0] = (unsigned)b, h[1] = (unsigned)(b + 1), h[2] = (unsigned)(b + 1 + rx),
                h[3] = (unsigned)(b + rx);
                for (int c = 0; c < 4; c++)
                    h[4 + c] = h[c] + (unsigned)slab;
                for (int t = 0; t < 6; t++)
                    for (int c = 0; c < 4; c++)
                        g->tetrahedra.u[4 * (6 * index + t) + c] = h[split[t][c]];
            }
    return ST_OK;
}

static const st_engine_ops generate_grid_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = generate_grid_update,
};

static const char *const generate_grid_templates[] = {"Vec3d", "Vec2d", NULL};

const st_class generate_grid_class = {
    .struct_size = sizeof(st_class),
    .name = "GenerateGrid",
    .category = "Engine",
    .description = "Engine generating a grid tetrahedral or hexahedral mesh.",
    .instance_size = sizeof(generate_grid),
    .fields = generate_grid_fields,
    .engine = &generate_grid_engine,
    .templates = generate_grid_templates,
};
