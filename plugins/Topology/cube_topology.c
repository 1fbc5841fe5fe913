/* cube_topology.c - CubeTopology: the surface of a box as a static mesh
 * (SOFA's MeshTopology subclass of Sofa.Component.Topology.Container.
 * Constant): an nx x ny x nz grid of points between min and max (or xmin..
 * zmax times scale, read as float as SOFA reads them), of which only the
 * surface points are kept (internalPoints false, with every n > 1), or all
 * of them (internalPoints), or each face's own copy of its points
 * (splitNormals); the edges along the surface and the six faces' quads,
 * in SOFA's order and numbering. The lists are made as soon as the scene
 * sets the fields (SOFA builds them in its parse), so a MechanicalObject
 * in the node takes its points from them. */
#include <math.h>

#include "topology_fields.h"

typedef enum { P_UNKNOWN, P_X0, P_X1, P_Y0, P_Y1, P_Z0, P_Z1 } plane;

static const st_field cube_fields[] = {
    ST_INT(topo, nx, "nx", "0", "x grid resolution"),
    ST_INT(topo, ny, "ny", "0", "y grid resolution"),
    ST_INT(topo, nz, "nz", "0", "z grid resolution"),
    ST_BOOL(topo, internal_points, "internalPoints", "false",
            "include internal points (allow a one-to-one mapping between points from "
            "RegularGridTopology and CubeTopology)"),
    ST_BOOL(topo, split_normals, "splitNormals", "false",
            "split corner points to have planar normals"),
    ST_VEC3(topo, min, "min", "0 0 0", "Min"),
    ST_VEC3(topo, max, "max", "1 1 1", "Max"),
    ST_REAL(topo, xmin, "xmin", "0", "Min x (used with ymin zmin xmax ymax zmax; read as float)"),
    ST_REAL(topo, ymin, "ymin", "0", "Min y (used with the five others; read as float)"),
    ST_REAL(topo, zmin, "zmin", "0", "Min z (used with the five others; read as float)"),
    ST_REAL(topo, xmax, "xmax", "1", "Max x (used with the five others; read as float)"),
    ST_REAL(topo, ymax, "ymax", "1", "Max y (used with the five others; read as float)"),
    ST_REAL(topo, zmax, "zmax", "1", "Max z (used with the five others; read as float)"),
    ST_REAL(topo, scale, "scale", "1", "Factor applied to xmin..zmax (read as float)"),
    TOPO_F_POSITION(ST_F_OUTPUT),
    TOPO_F_EDGES(ST_F_OUTPUT),
    TOPO_F_TRIANGLES(ST_F_OUTPUT),
    TOPO_F_QUADS(ST_F_OUTPUT),
    ST_FIELD_END};

/* SOFA's point numbering. */
static int cube_point(const topo *t, int x, int y, int z, plane p)
{
    const int nx = t->nx, ny = t->ny, nz = t->nz;
    if (t->split_normals) {
        if (p == P_UNKNOWN)
            p = x == 0        ? P_X0
                : x == nx - 1 ? P_X1
                : y == 0      ? P_Y0
                : y == ny - 1 ? P_Y1
                : z == 0      ? P_Z0
                              : P_Z1;
        switch (p) {
        case P_X0: return y + ny * z;
        case P_X1: return ny * nz + nx * nz + nx * ny + y + ny * z;
        case P_Y0: return ny * nz + x + nx * z;
        case P_Y1: return 2 * ny * nz + nx * nz + nx * ny + x + nx * z;
        case P_Z0: return ny * nz + nx * nz + x + nx * y;
        case P_Z1: return 2 * ny * nz + 2 * nx * nz + nx * ny + x + nx * y;
        default: return 0;
        }
    }
    if (!t->internal_points && nx > 1 && ny > 1 && nz > 1) {
        if (z == 0)
            return x + nx * y;
        if (z == nz - 1)
            return x + nx * (y + ny);
        const int base = nx * ny * 2 + (2 * nx + 2 * ny - 4) * (z - 1);
        if (y == 0)
            return base + x;
        if (y == ny - 1)
            return base + x + nx;
        if (x == 0)
            return base + 2 * nx + (y - 1);
        return base + 2 * nx + (ny - 2) + (y - 1);
    }
    return x + nx * (y + ny * z);
}

/* The grid coordinates of point i (SOFA's getPoint(i)). */
static void cube_coords(const topo *t, int i, int *xo, int *yo, int *zo)
{
    const int nx = t->nx, ny = t->ny, nz = t->nz;
    int x, y, z;
    if (t->split_normals) {
        if (i < ny * nz + nx * nz + nx * ny) {
            x = y = z = 0;
        } else {
            i -= ny * nz + nx * nz + nx * ny;
            x = nx - 1, y = ny - 1, z = nz - 1;
        }
        if (i < ny * nz) {
            y = i % ny;
            z = i / ny;
        } else {
            i -= ny * nz;
            if (i < nx * nz) {
                x = i % nx;
                z = i / nx;
            } else {
                i -= nx * nz;
                x = i % nx;
                y = i / nx;
            }
        }
    } else if (!t->internal_points && nx > 1 && ny > 1 && nz > 1) {
        const int nxny = nx * ny;
        if (i < nxny) {
            x = i % nx, y = i / nx, z = 0;
        } else if (i < 2 * nxny) {
            i -= nxny;
            x = i % nx, y = i / nx, z = nz - 1;
        } else {
            i -= 2 * nxny;
            const int psize = 2 * nx + 2 * (ny - 2);
            z = i / psize;
            i -= z * psize;
            z += 1;
            if (i < nx)
                x = i, y = 0;
            else if (i < 2 * nx)
                x = i - nx, y = ny - 1;
            else if (i < 2 * nx + (ny - 2))
                x = 0, y = 1 + i - 2 * nx;
            else
                x = nx - 1, y = 1 + i - 2 * nx - (ny - 2);
        }
    } else {
        x = i % nx;
        i /= nx;
        y = i % ny;
        z = i / ny;
    }
    *xo = x, *yo = y, *zo = z;
}

static st_status push_quad(topo *t, int a, int b, int c, int d, st_error *err)
{
    const unsigned q[4] = {(unsigned)a, (unsigned)b, (unsigned)c, (unsigned)d};
    return topo_push(&t->quads, ST_T_QUADS, q, err);
}

/* Points, edges and quads from the fields. */
static st_status cube_build(topo *t, st_error *err)
{
    st_component *c = &t->base;
    const int nx = t->nx, ny = t->ny, nz = t->nz;
    if (nx < 1 || ny < 1 || nz < 1)
        return st_component_error(c, "nx", err, ST_EINVAL,
                                  "the resolution nx ny nz must be at least 1 1 1, got %d %d %d",
                                  nx, ny, nz);
    if ((double)nx * ny * nz > 1e8)
        return st_component_error(c, "nx", err, ST_EINVAL,
                                  "a %d x %d x %d grid is too large", nx, ny, nz);
    double lo[3], hi[3];
    if (st_component_is_set(c, "xmin") && st_component_is_set(c, "ymin") &&
        st_component_is_set(c, "zmin") && st_component_is_set(c, "xmax") &&
        st_component_is_set(c, "ymax") && st_component_is_set(c, "zmax")) {
        /* SOFA: float attributes times the float scale, a float product. */
        double s = st_float_round(t->scale);
        const double v[6] = {t->xmin, t->ymin, t->zmin, t->xmax, t->ymax, t->zmax};
        for (int a = 0; a < 3; a++) {
            lo[a] = st_float_round(st_float_round(v[a]) * s);
            hi[a] = st_float_round(st_float_round(v[3 + a]) * s);
        }
    } else {
        for (int a = 0; a < 3; a++)
            lo[a] = t->min[a], hi[a] = t->max[a];
    }
    const int n[3] = {nx, ny, nz};
    double d[3];
    for (int a = 0; a < 3; a++)
        d[a] = n[a] > 1 ? (hi[a] - lo[a]) / (n[a] - 1) : 0.0;
    int np;
    if (t->split_normals)
        np = nx * ny * (nz > 1 ? 2 : 1) + ny * nz * (nx > 1 ? 2 : 1) + nz * nx * (ny > 1 ? 2 : 1);
    else if (!t->internal_points && nx > 1 && ny > 1 && nz > 1)
        np = nx * ny * 2 + (nz - 2) * (2 * nx + 2 * ny - 4);
    else
        np = nx * ny * nz;
    ST_TRY(st_array_resize(&t->position, ST_T_VEC3S, (size_t)np, err));
    for (int i = 0; i < np; i++) {
        int g[3];
        cube_coords(t, i, &g[0], &g[1], &g[2]);
        for (int a = 0; a < 3; a++)
            t->position.r[3 * i + a] = lo[a] + d[a] * g[a];
    }
    st_array_free(&t->edges, ST_T_EDGES);
    st_array_free(&t->quads, ST_T_QUADS);
    st_array_free(&t->triangles, ST_T_TRIANGLES);
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                unsigned e[2];
                e[0] = (unsigned)cube_point(t, x, y, z, P_UNKNOWN);
                if (x < nx - 1 && (y == 0 || y == ny - 1 || z == 0 || z == nz - 1)) {
                    e[1] = (unsigned)cube_point(t, x + 1, y, z, P_UNKNOWN);
                    ST_TRY(topo_push(&t->edges, ST_T_EDGES, e, err));
                }
                if (y < ny - 1 && (x == 0 || x == nx - 1 || z == 0 || z == nz - 1)) {
                    e[1] = (unsigned)cube_point(t, x, y + 1, z, P_UNKNOWN);
                    ST_TRY(topo_push(&t->edges, ST_T_EDGES, e, err));
                }
                if (z < nz - 1 && (x == 0 || x == nx - 1 || y == 0 || y == ny - 1)) {
                    e[1] = (unsigned)cube_point(t, x, y, z + 1, P_UNKNOWN);
                    ST_TRY(topo_push(&t->edges, ST_T_EDGES, e, err));
                }
            }
#define P(x, y, z, p) cube_point(t, x, y, z, p)
    for (int y = 0; y < ny - 1; y++)
        for (int x = 0; x < nx - 1; x++)
            ST_TRY(push_quad(t, P(x, y, 0, P_Z0), P(x, y + 1, 0, P_Z0), P(x + 1, y + 1, 0, P_Z0),
                             P(x + 1, y, 0, P_Z0), err));
    if (nz > 1)
        for (int y = 0, z = nz - 1; y < ny - 1; y++)
            for (int x = 0; x < nx - 1; x++)
                ST_TRY(push_quad(t, P(x, y, z, P_Z1), P(x + 1, y, z, P_Z1),
                                 P(x + 1, y + 1, z, P_Z1), P(x, y + 1, z, P_Z1), err));
    for (int z = 0; z < nz - 1; z++)
        for (int x = 0; x < nx - 1; x++)
            ST_TRY(push_quad(t, P(x, 0, z, P_Y0), P(x + 1, 0, z, P_Y0), P(x + 1, 0, z + 1, P_Y0),
                             P(x, 0, z + 1, P_Y0), err));
    if (ny > 1)
        for (int z = 0, y = ny - 1; z < nz - 1; z++)
            for (int x = 0; x < nx - 1; x++)
                ST_TRY(push_quad(t, P(x, y, z, P_Y1), P(x, y, z + 1, P_Y1),
                                 P(x + 1, y, z + 1, P_Y1), P(x + 1, y, z, P_Y1), err));
    for (int z = 0; z < nz - 1; z++)
        for (int y = 0; y < ny - 1; y++)
            ST_TRY(push_quad(t, P(0, y, z, P_X0), P(0, y, z + 1, P_X0), P(0, y + 1, z + 1, P_X0),
                             P(0, y + 1, z, P_X0), err));
    if (nx > 1)
        for (int z = 0, x = nx - 1; z < nz - 1; z++)
            for (int y = 0; y < ny - 1; y++)
                ST_TRY(push_quad(t, P(x, y, z, P_X1), P(x, y + 1, z, P_X1),
                                 P(x, y + 1, z + 1, P_X1), P(x, y, z + 1, P_X1), err));
#undef P
    static const char *const lists[] = {"position", "edges", "quads", "triangles", NULL};
    for (size_t i = 0; lists[i]; i++)
        st_component_touch(c, st_component_field(c, lists[i]));
    t->lists_ready = false;
    return ST_OK;
}

static st_status cube_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_MESH;
    return ST_OK;
}

static st_status cube_parsed(st_component *self, st_error *err)
{
    topo *t = (topo *)self;
    /* a resolution not given yet leaves the lists for init to report */
    if (t->nx < 1 || t->ny < 1 || t->nz < 1)
        return ST_OK;
    return cube_build(t, err);
}

static st_status cube_init(st_component *self, st_error *err)
{
    ST_TRY(cube_build((topo *)self, err));
    return topo_init(self, err);
}

const st_class cube_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "CubeTopology",
    .category = "Topology",
    .description = "Surface topology of a cube in 3D (points, edges and quads)",
    .instance_size = sizeof(topo),
    .fields = cube_fields,
    .create = cube_create,
    .init = cube_init,
    .reinit = cube_init,
    .topology = &topo_ops,
    .parsed = cube_parsed,
};
