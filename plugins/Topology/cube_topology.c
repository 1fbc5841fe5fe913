/* cube_topology.c - CubeTopology: the surface of a box sampled on an
 * nx x ny x nz grid (points, edges and quads), in SOFA's numbering.
 *
 * Points (SOFA's setSize / point / getPoint), three layouts:
 *  - splitNormals: each face of the box has its own grid of points (a
 *    corner or edge point exists once per face holding it, so each face
 *    can carry its own normal): faces x = 0, y = 0, z = 0 (ny nz, nx nz,
 *    nx ny points), then x = max, y = max, z = max; a point on several
 *    faces is, in the edge list, the one of the first face of x0, x1, y0,
 *    y1, z0, z1 holding it. SOFA counts nx ny (nz>1 ? 2 : 1) + ny nz
 *    (nx>1 ? 2 : 1) + nz nx (ny>1 ? 2 : 1) points.
 *  - no internalPoints and n > 1 on each axis: the z = 0 layer, the
 *    z = nz-1 layer, then for each inner z the ring y = 0 (nx), y = ny-1
 *    (nx), x = 0 (ny-2), x = nx-1 (ny-2);
 *  - otherwise every grid point, x fastest.
 * Position of grid point (x, y, z): min + (x dx, y dy, z dz) with
 * d = (max - min) / (n - 1) (0 on an axis of one point); xmin..zmax (with
 * scale) replace min and max when all six are given (read as float).
 * Edges: grid lines on the surface, points visited z, y, x (slowest to
 * fastest), each giving its +x, +y, +z edge. Quads: faces z = 0, z = nz-1,
 * y = 0, y = ny-1, x = 0, x = nx-1, oriented as SOFA's. No triangles.
 *
 * SphereQuadTopology is SOFA's CubeTopology whose grid point (x, y, z) is
 * put on a sphere: center + radius p / |p| with p = (2x/(nx-1) - 1,
 * 2y/(ny-1) - 1, 2z/(nz-1) - 1) (SOFA's Vec3::normalize: p kept when |p|
 * is below epsilon, the centre of an odd grid). SOFA's default radius is
 * 0; an axis of one point, which SOFA divides by zero, is an error. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "topology_fields.h"

enum { PLANE_UNKNOWN, PLANE_X0, PLANE_X1, PLANE_Y0, PLANE_Y1, PLANE_Z0, PLANE_Z1 };

typedef struct cube_geom {
    int n[3];
    double p0[3], d[3];
} cube_geom;

static int cube_point(const topo *t, const cube_geom *g, int x, int y, int z, int p)
{
    int nx = g->n[0], ny = g->n[1], nz = g->n[2];
    if (t->split_normals) {
        if (p == PLANE_UNKNOWN) {
            if (x == 0)
                p = PLANE_X0;
            else if (x == nx - 1)
                p = PLANE_X1;
            else if (y == 0)
                p = PLANE_Y0;
            else if (y == ny - 1)
                p = PLANE_Y1;
            else if (z == 0)
                p = PLANE_Z0;
            else if (z == nz - 1)
                p = PLANE_Z1;
        }
        switch (p) {
        case PLANE_X0: return y + ny * z;
        case PLANE_X1: return ny * nz + nx * nz + nx * ny + y + ny * z;
        case PLANE_Y0: return ny * nz + x + nx * z;
        case PLANE_Y1: return 2 * ny * nz + nx * nz + nx * ny + x + nx * z;
        case PLANE_Z0: return ny * nz + nx * nz + x + nx * y;
        case PLANE_Z1: return 2 * ny * nz + 2 * nx * nz + nx * ny + x + nx * y;
        default: return 0;
        }
    }
    if (!t->internal_points && nx > 1 && ny > 1 && nz > 1) {
        if (z == 0)
            return x + nx * y;
        if (z == nz - 1)
            return x + nx * (y + ny);
        int base = nx * ny * 2 + (2 * nx + 2 * ny - 4) * (z - 1);
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

/* The grid point of point i (SOFA's getPoint(i)). */
static void cube_coords(const topo *t, const cube_geom *g, int i, int c[3])
{
    int nx = g->n[0], ny = g->n[1], nz = g->n[2];
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
        int nxny = nx * ny;
        if (i < nxny) {
            x = i % nx, y = i / nx, z = 0;
        } else if (i < 2 * nxny) {
            i -= nxny;
            x = i % nx, y = i / nx, z = nz - 1;
        } else {
            i -= 2 * nxny;
            int psize = 2 * nx + 2 * (ny - 2);
            z = i / psize;
            i -= z * psize;
            z += 1;
            if (i < nx) {
                x = i, y = 0;
            } else if (i < 2 * nx) {
                x = i - nx, y = ny - 1;
            } else if (i < 2 * nx + (ny - 2)) {
                x = 0, y = 1 + i - 2 * nx;
            } else {
                x = nx - 1, y = 1 + i - 2 * nx - (ny - 2);
            }
        }
    } else {
        x = i % nx;
        i /= nx;
        y = i % ny;
        z = i / ny;
    }
    c[0] = x, c[1] = y, c[2] = z;
}

static void cube_geometry(topo *t, cube_geom *g)
{
    st_component *c = &t->base;
    g->n[0] = t->nx, g->n[1] = t->ny, g->n[2] = t->nz;
    double lo[3], hi[3];
    if (st_component_is_set(c, "xmin") && st_component_is_set(c, "ymin") &&
        st_component_is_set(c, "zmin") && st_component_is_set(c, "xmax") &&
        st_component_is_set(c, "ymax") && st_component_is_set(c, "zmax")) {
        /* SOFA: float attributes times the float scale, in float. */
        float s = (float)t->scale;
        const double v[6] = {t->xmin, t->ymin, t->zmin, t->xmax, t->ymax, t->zmax};
        for (int a = 0; a < 3; a++) {
            lo[a] = (double)((float)v[a] * s);
            hi[a] = (double)((float)v[3 + a] * s);
        }
    } else {
        memcpy(lo, t->min, sizeof lo);
        memcpy(hi, t->max, sizeof hi);
    }
    for (int a = 0; a < 3; a++) {
        g->p0[a] = lo[a];
        g->d[a] = g->n[a] > 1 ? (hi[a] - lo[a]) / (g->n[a] - 1) : 0.0;
    }
}

static st_status push(st_array *a, st_type type, const unsigned *v, st_error *err)
{
    return topo_push(a, type, v, err);
}

static st_status cube_build(topo *t, st_error *err)
{
    st_component *self = &t->base;
    if (t->nx < 0 || t->ny < 0 || t->nz < 0 || t->nx > 100000 || t->ny > 100000 ||
        t->nz > 100000)
        return st_component_error(self, t->nx < 0 || t->nx > 100000 ? "nx"
                                        : t->ny < 0 || t->ny > 100000 ? "ny"
                                                                      : "nz",
                                  err, ST_EINVAL,
                                  "nx, ny and nz must be in 0..100000 (points per axis), got %d "
                                  "%d %d",
                                  t->nx, t->ny, t->nz);
    cube_geom g;
    cube_geometry(t, &g);
    int nx = g.n[0], ny = g.n[1], nz = g.n[2];
    long np;
    if (t->split_normals)
        np = (long)nx * ny * (nz > 1 ? 2 : 1) + (long)ny * nz * (nx > 1 ? 2 : 1) +
             (long)nz * nx * (ny > 1 ? 2 : 1);
    else if (!t->internal_points && nx > 1 && ny > 1 && nz > 1)
        np = (long)nx * ny * 2 + (long)(nz - 2) * (2 * nx + 2 * ny - 4);
    else
        np = (long)nx * ny * nz;
    if (np > 100000000L)
        return st_component_error(self, "nx", err, ST_EINVAL,
                                  "a %d x %d x %d cube surface has %ld points: more than 1e8", nx,
                                  ny, nz, np);
    ST_TRY(st_array_resize(&t->position, ST_T_VEC3S, (size_t)np, err));
    if (t->sphere_quad && (nx < 2 || ny < 2 || nz < 2) && np > 0)
        return st_component_error(self, nx < 2 ? "nx" : ny < 2 ? "ny" : "nz", err, ST_EINVAL,
                                  "a SphereQuadTopology needs at least 2 points per axis (SOFA "
                                  "divides by n - 1), got %d %d %d",
                                  nx, ny, nz);
    for (long i = 0; i < np; i++) {
        int c[3];
        cube_coords(t, &g, (int)i, c);
        double *x = t->position.r + 3 * i;
        if (!t->sphere_quad) {
            for (int a = 0; a < 3; a++)
                x[a] = g.p0[a] + g.d[a] * c[a];
            continue;
        }
        double p[3];
        for (int a = 0; a < 3; a++)
            p[a] = (2 * c[a]) / (double)(g.n[a] - 1) - 1;
        double len = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        if (len > DBL_EPSILON)
            p[0] /= len, p[1] /= len, p[2] /= len;
        for (int a = 0; a < 3; a++)
            x[a] = t->center[a] + p[a] * t->radius;
    }
    st_array_free(&t->edges, ST_T_EDGES);
    st_array_free(&t->quads, ST_T_QUADS);
    st_array_free(&t->triangles, ST_T_TRIANGLES);
    for (int z = 0; z < nz; z++)
        for (int y = 0; y < ny; y++)
            for (int x = 0; x < nx; x++) {
                unsigned e[2];
                e[0] = (unsigned)cube_point(t, &g, x, y, z, PLANE_UNKNOWN);
                if (x < nx - 1 && (y == 0 || y == ny - 1 || z == 0 || z == nz - 1)) {
                    e[1] = (unsigned)cube_point(t, &g, x + 1, y, z, PLANE_UNKNOWN);
                    ST_TRY(push(&t->edges, ST_T_EDGES, e, err));
                }
                if (y < ny - 1 && (x == 0 || x == nx - 1 || z == 0 || z == nz - 1)) {
                    e[1] = (unsigned)cube_point(t, &g, x, y + 1, z, PLANE_UNKNOWN);
                    ST_TRY(push(&t->edges, ST_T_EDGES, e, err));
                }
                if (z < nz - 1 && (x == 0 || x == nx - 1 || y == 0 || y == ny - 1)) {
                    e[1] = (unsigned)cube_point(t, &g, x, y, z + 1, PLANE_UNKNOWN);
                    ST_TRY(push(&t->edges, ST_T_EDGES, e, err));
                }
            }
    /* Faces: plane, the fixed coordinate, the two running axes (a slow,
     * b fast) and the corner offsets (in a, b) of the quad's 4 vertices. */
    static const struct {
        int plane, axis, a, b;
        bool last;
        int off[4][2];
    } faces[6] = {
        {PLANE_Z0, 2, 1, 0, false, {{0, 0}, {1, 0}, {1, 1}, {0, 1}}},
        {PLANE_Z1, 2, 1, 0, true, {{0, 0}, {0, 1}, {1, 1}, {1, 0}}},
        {PLANE_Y0, 1, 2, 0, false, {{0, 0}, {0, 1}, {1, 1}, {1, 0}}},
        {PLANE_Y1, 1, 2, 0, true, {{0, 0}, {1, 0}, {1, 1}, {0, 1}}},
        {PLANE_X0, 0, 2, 1, false, {{0, 0}, {1, 0}, {1, 1}, {0, 1}}},
        {PLANE_X1, 0, 2, 1, true, {{0, 0}, {0, 1}, {1, 1}, {1, 0}}},
    };
    for (int f = 0; f < 6; f++) {
        int ax = faces[f].axis, a = faces[f].a, b = faces[f].b;
        if (faces[f].last && g.n[ax] <= 1)
            continue;
        for (int i = 0; i < g.n[a] - 1; i++)
            for (int j = 0; j < g.n[b] - 1; j++) {
                unsigned q[4];
                for (int k = 0; k < 4; k++) {
                    int c[3];
                    c[ax] = faces[f].last ? g.n[ax] - 1 : 0;
                    c[a] = i + faces[f].off[k][0];
                    c[b] = j + faces[f].off[k][1];
                    q[k] = (unsigned)cube_point(t, &g, c[0], c[1], c[2], faces[f].plane);
                }
                ST_TRY(push(&t->quads, ST_T_QUADS, q, err));
            }
    }
    static const char *const names[] = {"position", "edges", "quads", "triangles"};
    for (size_t i = 0; i < 4; i++)
        st_component_touch(self, st_component_field(self, names[i]));
    t->lists_ready = true;
    return ST_OK;
}

/* SOFA builds the lists while the scene is read (parse), so components
 * before the cube in its node see them; init builds them again. */
static st_status cube_parsed(st_component *self, st_error *err)
{
    topo *t = (topo *)self;
    if (t->filename && t->filename[0])
        return ST_OK; /* refused by init */
    return cube_build(t, err);
}

static st_status cube_init(st_component *self, st_error *err)
{
    topo *t = (topo *)self;
    if (t->filename && t->filename[0])
        return st_component_error(self, "filename", err, ST_EINVAL,
                                  "a CubeTopology builds its own lists: reading '%s' is not "
                                  "supported (SOFA replaces the file's lists with the cube's)",
                                  t->filename);
    ST_TRY(cube_build(t, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static st_status cube_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_MESH;
    return ST_OK;
}

#define CUBE_FIELDS                                                                                \
    TOPO_MESH_COMMON(ST_F_OUTPUT),                                                                 \
    ST_INT(topo, nx, "nx", "0", "x grid resolution"),                                              \
    ST_INT(topo, ny, "ny", "0", "y grid resolution"),                                              \
    ST_INT(topo, nz, "nz", "0", "z grid resolution"),                                              \
    ST_BOOL(topo, internal_points, "internalPoints", "false",                                      \
            "include internal points (allow a one-to-one mapping between points from "             \
            "RegularGridTopology and CubeTopology)"),                                              \
    ST_BOOL(topo, split_normals, "splitNormals", "false",                                          \
            "split corner points to have planar normals"),                                         \
    ST_VEC3(topo, min, "min", "0 0 0", "Min"),                                                     \
    ST_VEC3(topo, max, "max", "1 1 1", "Max"),                                                     \
    ST_REAL(topo, xmin, "xmin", "0", "Min x (used with ymin zmin xmax ymax zmax; read as float)"), \
    ST_REAL(topo, ymin, "ymin", "0", "Min y (used with the five others; read as float)"),          \
    ST_REAL(topo, zmin, "zmin", "0", "Min z (used with the five others; read as float)"),          \
    ST_REAL(topo, xmax, "xmax", "1", "Max x (used with the five others; read as float)"),          \
    ST_REAL(topo, ymax, "ymax", "1", "Max y (used with the five others; read as float)"),          \
    ST_REAL(topo, zmax, "zmax", "1", "Max z (used with the five others; read as float)"),          \
    ST_REAL(topo, scale, "scale", "1", "Factor applied to xmin..zmax (read as float)")

static const st_field cube_fields[] = {CUBE_FIELDS, ST_FIELD_END};

static const st_field sphere_quad_fields[] = {
    CUBE_FIELDS,
    ST_VEC3(topo, center, "center", "0 0 0", "Center of the sphere"),
    ST_REAL(topo, radius, "radius", "0", "Radius of the sphere"),
    ST_FIELD_END};

static st_status sphere_quad_create(st_component *self, st_error *err)
{
    ST_TRY(cube_create(self, err));
    ((topo *)self)->sphere_quad = true;
    return ST_OK;
}

const st_class cube_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "CubeTopology",
    .category = "Topology",
    .description = "Surface topology of a cube in 3D (points, edges and quads).",
    .instance_size = sizeof(topo),
    .fields = cube_fields,
    .create = cube_create,
    .init = cube_init,
    .reinit = cube_init,
    .parsed = cube_parsed,
    .topology = &topo_ops,
};

const st_class sphere_quad_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "SphereQuadTopology",
    .category = "Topology",
    .description = "Sphere topology constructed with deformed quads.",
    .instance_size = sizeof(topo),
    .fields = sphere_quad_fields,
    .create = sphere_quad_create,
    .init = cube_init,
    .reinit = cube_init,
    .parsed = cube_parsed,
    .topology = &topo_ops,
};
