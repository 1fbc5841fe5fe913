/* extrude_surface.c - ExtrudeSurface: a closed shell from part of a
 * surface. For the triangles listed in surfaceTriangles (indices into
 * triangles, vertices in surfaceVertices), each vertex used gives two
 * points, itself and itself moved by heightFactor along its normal (the
 * normalised sum of the unit normals of its selected triangles), in order
 * of first use; each triangle gives its bottom copy (reversed) and its top
 * copy; each border edge (in one selected triangle only), in increasing
 * (first, second) order, gives two side triangles. Nothing is computed
 * while surfaceVertices and surfaceTriangles hold at most one entry each
 * (SOFA's guard). */
#include <math.h>
#include <stdlib.h>

#include "../shared/engine_util.h"

typedef struct extrude_surface {
    st_component base;
    bool is_visible;
    double height_factor;
    st_array triangles;            /* all triangles */
    st_array extrusion_vertices;   /* output coord[] */
    st_array surface_vertices;     /* coord[] */
    st_array extrusion_triangles;  /* output */
    st_array surface_triangles;    /* uint[]: indices into triangles */
} extrude_surface;

static const st_field extrude_fields[] = {
    ST_IGNORED(extrude_surface, is_visible, "isVisible", ST_T_BOOL, bool, "true", "is Visible ?"),
    ST_REAL(extrude_surface, height_factor, "heightFactor", "1",
            "Factor for the height of the extrusion (based on normal)"),
    ST_TRIANGLES(extrude_surface, triangles, "triangles", NULL,
                 "Triangle topology (list of BaseMeshTopology::Triangle)"),
    ST_OUTPUT(extrude_surface, extrusion_vertices, "extrusionVertices", ST_T_COORDS, st_array,
              "Position coordinates of the extrusion"),
    ST_COORDS(extrude_surface, surface_vertices, "surfaceVertices", NULL,
              "Position coordinates of the surface"),
    ST_OUTPUT(extrude_surface, extrusion_triangles, "extrusionTriangles", ST_T_TRIANGLES,
              st_array, "Subset triangle topology used for the extrusion"),
    ST_UINTS(extrude_surface, surface_triangles, "surfaceTriangles", NULL,
             "Indices of the triangles of the surface to extrude"),
    ST_FIELD_END};

/* A directed edge of the extrusion's bottom, keyed by its vertex pair. */
typedef struct dedge {
    unsigned a, b;   /* as written */
    unsigned lo, hi; /* sorted */
} dedge;

static int by_key(const void *x, const void *y)
{
    const dedge *p = x, *q = y;
    if (p->lo != q->lo)
        return p->lo < q->lo ? -1 : 1;
    return p->hi < q->hi ? -1 : p->hi > q->hi;
}

static int by_directed(const void *x, const void *y)
{
    const dedge *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

static st_status extrude_update(st_component *self, st_error *err)
{
    extrude_surface *e = (extrude_surface *)self;
    const st_array *sel = &e->surface_triangles, *sv = &e->surface_vertices;
    if (sv->n <= 1 && sel->n <= 1)
        return ST_OK;
    for (size_t i = 0; i < sel->n; i++) {
        if (sel->u[i] >= e->triangles.n)
            return st_component_error(self, "surfaceTriangles", err, ST_EINVAL,
                                      "triangle %u beyond the %zu triangles", sel->u[i],
                                      e->triangles.n);
        const unsigned *t = e->triangles.u + 3 * (size_t)sel->u[i];
        for (int k = 0; k < 3; k++)
            if (t[k] >= sv->n)
                return st_component_error(self, "triangles", err, ST_EINVAL,
                                          "triangle %u has vertex %u beyond the %zu surface "
                                          "vertices",
                                          sel->u[i], t[k], sv->n);
    }
    size_t nv = sv->n, ns = sel->n;
    double *normal = st_calloc(3 * nv + 1, sizeof *normal);
    unsigned *match = st_calloc(nv + 1, sizeof *match); /* 1 + first extrusion point, 0: none */
    dedge *edges = st_calloc(3 * ns + 1, sizeof *edges);
    if (!normal || !match || !edges) {
        st_free(normal), st_free(match), st_free(edges);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    const double *x = sv->r;
    for (size_t i = 0; i < ns; i++) {
        const unsigned *t = e->triangles.u + 3 * (size_t)sel->u[i];
        const double *p0 = x + 3 * (size_t)t[0], *p1 = x + 3 * (size_t)t[1],
                     *p2 = x + 3 * (size_t)t[2];
        double u[3] = {p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]};
        double v[3] = {p2[0] - p0[0], p2[1] - p0[1], p2[2] - p0[2]};
        double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                       u[0] * v[1] - u[1] * v[0]};
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int k = 0; k < 3 && len > 0; k++)
            n[k] /= len;
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                normal[3 * (size_t)t[k] + a] += n[a];
    }
    for (size_t i = 0; i < nv; i++) {
        double *n = normal + 3 * i, len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
        for (int a = 0; a < 3 && len > 0; a++)
            n[a] /= len;
    }
    eng_clear(&e->extrusion_vertices);
    eng_clear(&e->extrusion_triangles);
    st_status st = ST_OK;
    for (size_t i = 0; i < ns && st == ST_OK; i++) {
        const unsigned *t = e->triangles.u + 3 * (size_t)sel->u[i];
        unsigned t1[3], t2[3];
        for (int k = 0; k < 3 && st == ST_OK; k++) {
            if (!match[t[k]]) {
                const double *p = x + 3 * (size_t)t[k], *n = normal + 3 * (size_t)t[k];
                double q[3] = {p[0] + n[0] * e->height_factor, p[1] + n[1] * e->height_factor,
                               p[2] + n[2] * e->height_factor};
                st = eng_push_r(&e->extrusion_vertices, 3, p, err);
                if (st == ST_OK)
                    st = eng_push_r(&e->extrusion_vertices, 3, q, err);
                match[t[k]] = (unsigned)e->extrusion_vertices.n - 1;
            }
            t1[k] = match[t[k]] - 1;
            t2[k] = match[t[k]];
        }
        const unsigned pairs[3][2] = {{t1[0], t1[1]}, {t1[0], t1[2]}, {t1[1], t1[2]}};
        for (int k = 0; k < 3; k++) {
            dedge *d = &edges[3 * i + (size_t)k];
            d->a = pairs[k][0], d->b = pairs[k][1];
            d->lo = d->a < d->b ? d->a : d->b, d->hi = d->a < d->b ? d->b : d->a;
        }
        unsigned bottom[3] = {t1[0], t1[2], t1[1]};
        if (st == ST_OK)
            st = eng_push_u(&e->extrusion_triangles, ST_T_TRIANGLES, bottom, err);
        if (st == ST_OK)
            st = eng_push_u(&e->extrusion_triangles, ST_T_TRIANGLES, t2, err);
    }
    /* border edges: the undirected pairs seen once, in their direction */
    size_t ne = 3 * ns, nb = 0;
    qsort(edges, ne, sizeof *edges, by_key);
    for (size_t i = 0; i < ne;) {
        size_t j = i + 1;
        while (j < ne && !by_key(&edges[i], &edges[j]))
            j++;
        if (j == i + 1)
            edges[nb++] = edges[i];
        i = j;
    }
    qsort(edges, nb, sizeof *edges, by_directed);
    for (size_t i = 0; i < nb && st == ST_OK; i++) {
        unsigned a = edges[i].a, b = edges[i].b;
        unsigned f1[3] = {a, b, a + 1}, f2[3] = {b + 1, a + 1, b};
        st = eng_push_u(&e->extrusion_triangles, ST_T_TRIANGLES, f1, err);
        if (st == ST_OK)
            st = eng_push_u(&e->extrusion_triangles, ST_T_TRIANGLES, f2, err);
    }
    st_free(normal), st_free(match), st_free(edges);
    return st;
}

static const st_engine_ops extrude_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = extrude_update,
};

static const char *const extrude_templates[] = {"Vec3d", NULL};

const st_class extrude_surface_class = {
    .struct_size = sizeof(st_class),
    .name = "ExtrudeSurface",
    .category = "Engine",
    .description = "Engine creating a mesh from the extrusion of the surface of a given mesh.",
    .instance_size = sizeof(extrude_surface),
    .fields = extrude_fields,
    .engine = &extrude_engine,
    .templates = extrude_templates,
};
