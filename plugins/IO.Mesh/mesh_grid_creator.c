/* mesh_grid_creator.c - GridMeshCreator: SOFA's procedural two-dimensional
 * mesh. resolution = (nx, ny) vertices, at (x / (nx - 1), y / (ny - 1), 0),
 * x running fastest (vertex x + nx y). Each cell (x, y), row by row, gives
 * per trianglePattern: 0 the quad (v00 v10 v11 v01); 2 "upward" the
 * triangles (v00 v10 v11) (v00 v11 v01); 3 "downward" (v00 v10 v01)
 * (v10 v11 v01); 1 alternates them, upward where x + y is even. The
 * edges are SOFA's: every element side (a, b), in element order, is kept
 * in the orientation first met, and the list is sorted by (a, b) (SOFA
 * dumps a std::set of the oriented pairs). Then the MeshLoader steps apply
 * (T R S or transformation, triangulate, createSubelements,
 * onlyAttachedPoints, normals). As in SOFA the elements bypass flipNormals
 * (the creator writes them directly; only the triangles that triangulate
 * makes of quads are reversed), with a warning, and filename is never
 * read. A resolution below 2 (SOFA divides by zero) or an unknown pattern
 * (SOFA gives points without elements) is an error. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_loader.h"

typedef struct grid_creator {
    mesh_loader m;
    st_int2 resolution;
    int pattern;
} grid_creator;

static const st_field grid_fields[] = {
    LOADER_CREATOR_FILENAME,
    LOADER_BASE_FIELDS,
    LOADER_SUBELEMENTS("false"),
    ST_INT2(grid_creator, resolution, "resolution", "2 2", "Number of vertices in each direction"),
    ST_INT(grid_creator, pattern, "trianglePattern", "2",
           "0: no triangles, 1: alternate triangles, 2: upward triangles, 3: downward triangles"),
    ST_FIELD_END};

/* One element side as met: (a, b) and its rank. */
typedef struct side {
    unsigned a, b;
    size_t rank;
} side;

/* The unordered key of a side: (min, max). */
static void side_key(const side *s, unsigned k[2])
{
    k[0] = s->a < s->b ? s->a : s->b;
    k[1] = s->a < s->b ? s->b : s->a;
}

static bool same_key(const side *p, const side *q)
{
    unsigned kp[2], kq[2];
    side_key(p, kp);
    side_key(q, kq);
    return kp[0] == kq[0] && kp[1] == kq[1];
}

/* By key, then by rank: the first side met leads each key. */
static int side_by_key(const void *x, const void *y)
{
    const side *p = x, *q = y;
    unsigned kp[2], kq[2];
    side_key(p, kp);
    side_key(q, kq);
    for (int i = 0; i < 2; i++)
        if (kp[i] != kq[i])
            return kp[i] < kq[i] ? -1 : 1;
    return p->rank < q->rank ? -1 : p->rank > q->rank;
}

static int side_by_pair(const void *x, const void *y)
{
    const side *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Appends the sides of the n-gon v to s (ns sides so far). */
static void add_sides(side *s, size_t *ns, const unsigned *v, unsigned n)
{
    for (unsigned k = 0; k < n; k++) {
        s[*ns] = (side){v[k], v[(k + 1) % n], *ns};
        (*ns)++;
    }
}

/* SOFA's unique edges: the first orientation of each side, sorted by (a, b). */
static st_status push_unique_edges(mesh_loader *l, side *s, size_t ns, st_error *err)
{
    qsort(s, ns, sizeof *s, side_by_key);
    size_t nu = 0;
    for (size_t i = 0; i < ns; i++)
        if (nu == 0 || !same_key(&s[i], &s[nu - 1]))
            s[nu++] = s[i];
    qsort(s, nu, sizeof *s, side_by_pair);
    ST_TRY(st_array_resize(&l->edges, ST_T_EDGES, nu, err));
    for (size_t i = 0; i < nu; i++) {
        l->edges.u[2 * i] = s[i].a;
        l->edges.u[2 * i + 1] = s[i].b;
    }
    return ST_OK;
}

static st_status grid_build(mesh_loader *l, st_error *err)
{
    grid_creator *g = (grid_creator *)l;
    unsigned nx = (unsigned)g->resolution[0], ny = (unsigned)g->resolution[1];
    for (unsigned y = 0; y < ny; y++)
        for (unsigned x = 0; x < nx; x++) {
            double p[3] = {x * 1.0 / (nx - 1), y * 1.0 / (ny - 1), 0.0};
            ST_TRY(loader_push_point(&l->position, p, err));
        }
    size_t cells = (size_t)(nx - 1) * (ny - 1);
    side *s = st_malloc(6 * cells * sizeof *s); /* 2 triangles (or 1 quad) per cell */
    if (!s)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu grid cells)", cells);
    size_t ns = 0;
    st_status st = ST_OK;
    for (unsigned y = 0; y + 1 < ny && st == ST_OK; y++)
        for (unsigned x = 0; x + 1 < nx && st == ST_OK; x++) {
            unsigned v00 = x + y * nx, v10 = v00 + 1, v01 = v00 + nx, v11 = v01 + 1;
            if (g->pattern == 0) {
                unsigned q[4] = {v00, v10, v11, v01};
                add_sides(s, &ns, q, 4);
                st = loader_push(l, &l->quads, ST_T_QUADS, q, false, err);
                continue;
            }
            bool up = g->pattern == 2 || (g->pattern == 1 && (x + y) % 2 == 0);
            unsigned t[2][3] = {{v00, v10, v11}, {v00, v11, v01}};
            if (!up) {
                unsigned d[2][3] = {{v00, v10, v01}, {v10, v11, v01}};
                memcpy(t, d, sizeof t);
            }
            for (int k = 0; k < 2 && st == ST_OK; k++) {
                add_sides(s, &ns, t[k], 3);
                st = loader_push(l, &l->triangles, ST_T_TRIANGLES, t[k], false, err);
            }
        }
    if (st == ST_OK)
        st = push_unique_edges(l, s, ns, err);
    st_free(s);
    return st;
}

static st_status grid_init(st_component *self, st_error *err)
{
    grid_creator *g = (grid_creator *)self;
    if (g->resolution[0] < 2 || g->resolution[1] < 2)
        return st_component_error(self, "resolution", err, ST_EINVAL,
                                  "resolution must be at least 2 vertices in each direction "
                                  "(vertices at x / (n - 1)), got %d %d",
                                  g->resolution[0], g->resolution[1]);
    if ((long long)g->resolution[0] * g->resolution[1] > INT_MAX)
        return st_component_error(self, "resolution", err, ST_EINVAL,
                                  "resolution %d x %d is more than %d vertices",
                                  g->resolution[0], g->resolution[1], INT_MAX);
    if (g->pattern < 0 || g->pattern > 3)
        return st_component_error(self, "trianglePattern", err, ST_EINVAL,
                                  "trianglePattern must be 0 (quads), 1 (alternate), 2 (upward) "
                                  "or 3 (downward), got %d",
                                  g->pattern);
    if (g->m.flip_normals && !(g->pattern == 0 && g->m.triangulate))
        st_component_warn(self, "flipNormals does not reverse the elements GridMeshCreator "
                                "creates (as in SOFA; only triangulated quads are reversed)");
    return loader_generate(&g->m, grid_build, err);
}

const st_class mesh_grid_creator_class = {
    .struct_size = sizeof(st_class),
    .name = "GridMeshCreator",
    .category = "Loader",
    .description = "Procedural creation of a two-dimensional mesh.",
    .instance_size = sizeof(grid_creator),
    .fields = grid_fields,
    .init = grid_init,
    .reinit = grid_init,
    .cleanup = loader_cleanup,
};
