/* mesh_closing_engine.c - MeshClosingEngine: closes the holes of a triangle
 * and quad surface, as SOFA's engine. The oriented border edges are those
 * whose reverse no element has (an edge met again in reverse cancels);
 * from the border edges sorted by (from, to), each point's outgoing edge
 * (the last one when several) is followed into loops, starting from the
 * smallest point left. Each loop of n > 2 points gets its centroid as a
 * new point (appended to position) and a fan of triangles (centroid,
 * p_j, p_j-1) added to triangles; closingPosition and closingTriangles
 * hold the loops alone (their points, then the centroid), and indices the
 * points of each loop followed by its centroid's index in position (SOFA's
 * list of lists, flattened: settee has no ragged index type). quads are
 * the input quads. An element index beyond inputPosition is an error. */
#include <stdint.h>
#include <stdlib.h>

#include "../shared/engine_util.h"

typedef struct mesh_closing {
    st_component base;
    st_array in_pos, in_tris, in_quads;
    st_array pos, tris, quads, indices, cl_pos, cl_tris; /* outputs */
} mesh_closing;

#define MC_OUT(m, key, T, help) ST_OUTPUT(mesh_closing, m, key, T, st_array, help)

static const st_field mesh_closing_fields[] = {
    ST_VEC3S(mesh_closing, in_pos, "inputPosition", NULL, "input vertices"),
    ST_TRIANGLES(mesh_closing, in_tris, "inputTriangles", NULL, "input triangles"),
    ST_QUADS(mesh_closing, in_quads, "inputQuads", NULL, "input quads"),
    MC_OUT(pos, "position", ST_T_VEC3S, "Vertices of closed mesh"),
    MC_OUT(tris, "triangles", ST_T_TRIANGLES, "Triangles of closed mesh"),
    MC_OUT(quads, "quads", ST_T_QUADS, "Quads of closed mesh (=input quads with current method)"),
    MC_OUT(indices, "indices", ST_T_UINTS,
           "Index lists of the closing parts (each loop's points then its centroid, flattened)"),
    MC_OUT(cl_pos, "closingPosition", ST_T_VEC3S, "Vertices of the closing parts"),
    MC_OUT(cl_tris, "closingTriangles", ST_T_TRIANGLES, "Triangles of the closing parts"),
    ST_FIELD_END};

static int cmp_edge(const void *a, const void *b)
{
    const unsigned *x = a, *y = b;
    if (x[0] != y[0])
        return x[0] < y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Oriented edges with cancellation, in element order (SOFA's set). */
typedef struct edge_set {
    unsigned *e;   /* 2 per edge */
    bool *alive;
    size_t n;
    size_t *slot;  /* open addressing: index + 1 */
    size_t cap;
} edge_set;

static size_t edge_hash(unsigned a, unsigned b, size_t cap)
{
    return (size_t)(((uint64_t)a * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)b * 0xc2b2ae3d27d4eb4full)) &
           (cap - 1);
}

/* The live edge (a, b), or SIZE_MAX. */
static size_t edge_find(const edge_set *s, unsigned a, unsigned b)
{
    for (size_t h = edge_hash(a, b, s->cap); s->slot[h]; h = (h + 1) & (s->cap - 1)) {
        size_t i = s->slot[h] - 1;
        if (s->alive[i] && s->e[2 * i] == a && s->e[2 * i + 1] == b)
            return i;
    }
    return SIZE_MAX;
}

static void edge_toggle(edge_set *s, unsigned p1, unsigned p2)
{
    size_t r = edge_find(s, p2, p1);
    if (r != SIZE_MAX) {
        s->alive[r] = false;
        return;
    }
    if (edge_find(s, p1, p2) != SIZE_MAX)
        return;
    size_t i = s->n++;
    s->e[2 * i] = p1, s->e[2 * i + 1] = p2, s->alive[i] = true;
    size_t h = edge_hash(p1, p2, s->cap);
    while (s->slot[h])
        h = (h + 1) & (s->cap - 1);
    s->slot[h] = i + 1;
}

static st_status mesh_closing_update(st_component *self, st_error *err)
{
    mesh_closing *m = (mesh_closing *)self;
    const size_t np = m->in_pos.n, nt = m->in_tris.n, nq = m->in_quads.n;
    for (int l = 0; l < 2; l++) {
        const st_array *a = l ? &m->in_quads : &m->in_tris;
        for (size_t i = 0; i < a->n * (l ? 4 : 3); i++)
            if (a->u[i] >= np)
                return st_component_error(self, l ? "inputQuads" : "inputTriangles", err,
                                          ST_EINVAL, "index %u beyond the %zu input points",
                                          a->u[i], np);
    }
    ST_TRY(st_array_resize(&m->pos, ST_T_VEC3S, np, err));
    ST_TRY(st_array_resize(&m->tris, ST_T_TRIANGLES, nt, err));
    ST_TRY(st_array_resize(&m->quads, ST_T_QUADS, nq, err));
    if (np)
        memcpy(m->pos.r, m->in_pos.r, 3 * np * sizeof(double));
    if (nt)
        memcpy(m->tris.u, m->in_tris.u, 3 * nt * sizeof(unsigned));
    if (nq)
        memcpy(m->quads.u, m->in_quads.u, 4 * nq * sizeof(unsigned));
    eng_clear(&m->indices), eng_clear(&m->cl_pos), eng_clear(&m->cl_tris);
    const size_t ne = 3 * nt + 4 * nq;
    edge_set s = {0};
    s.cap = 16;
    while (s.cap < 2 * ne + 2)
        s.cap *= 2;
    s.e = st_malloc((ne + 1) * 2 * sizeof *s.e);
    s.alive = st_malloc((ne + 1) * sizeof *s.alive);
    s.slot = st_calloc(s.cap, sizeof *s.slot);
    bool *has = st_calloc(np + 1, sizeof *has);
    unsigned *to = st_malloc((np + 1) * sizeof *to);
    unsigned *loop = st_malloc((ne + 2) * sizeof *loop);
    st_status st = ST_OK;
    if (!s.e || !s.alive || !s.slot || !has || !to || !loop) {
        st = st_error_set(err, ST_ENOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nt; i++)
        for (int j = 0; j < 3; j++)
            edge_toggle(&s, m->in_tris.u[3 * i + (j == 0 ? 2 : j - 1)], m->in_tris.u[3 * i + j]);
    for (size_t i = 0; i < nq; i++)
        for (int j = 0; j < 4; j++)
            edge_toggle(&s, m->in_quads.u[4 * i + (j == 0 ? 3 : j - 1)], m->in_quads.u[4 * i + j]);
    size_t nb = 0;
    for (size_t i = 0; i < s.n; i++)
        if (s.alive[i]) {
            s.e[2 * nb] = s.e[2 * i], s.e[2 * nb + 1] = s.e[2 * i + 1];
            nb++;
        }
    if (nb == 0)
        goto done; /* no hole */
    qsort(s.e, nb, 2 * sizeof *s.e, cmp_edge);
    size_t left = 0;
    for (size_t i = 0; i < nb; i++) {
        left += !has[s.e[2 * i]];
        has[s.e[2 * i]] = true, to[s.e[2 * i]] = s.e[2 * i + 1];
    }
    /* Follow the map into loops; each finished loop is closed at once. */
    size_t cursor = 0, len = 0;
    while (!has[cursor])
        cursor++;
    unsigned it = (unsigned)cursor;
    loop[len++] = it;
    for (;;) {
        const unsigned i = to[it];
        loop[len++] = i;
        has[it] = false;
        left--;
        bool end = left == 0 || i == loop[0];
        if (end && len > 2) {
            /* Close (SOFA: loops of more than 2 entries): points loop[0 .. len-2],
             * centroid last. */
            const size_t L = len - 1, c0 = m->cl_pos.n, ic = c0 + L;
            double centroid[3] = {0, 0, 0};
            const unsigned cpos = (unsigned)m->pos.n;
            for (size_t j = 0; j < L && st == ST_OK; j++) {
                const unsigned p = loop[j];
                const double *x = m->in_pos.r + 3 * (size_t)p;
                st = eng_push_index(&m->indices, p, err);
                if (st == ST_OK)
                    st = eng_push_r(&m->cl_pos, 3, x, err);
                for (int k = 0; k < 3; k++)
                    centroid[k] += x[k];
                const unsigned ct[3] = {(unsigned)ic, (unsigned)(m->cl_pos.n - 1),
                                        (unsigned)(j ? m->cl_pos.n - 2 : ic - 1)};
                const unsigned ot[3] = {cpos, p, j ? loop[j - 1] : loop[L - 1]};
                if (st == ST_OK)
                    st = eng_push_u(&m->cl_tris, ST_T_TRIANGLES, ct, err);
                if (st == ST_OK)
                    st = eng_push_u(&m->tris, ST_T_TRIANGLES, ot, err);
            }
            for (int k = 0; k < 3; k++)
                centroid[k] /= (double)L;
            if (st == ST_OK)
                st = eng_push_r(&m->cl_pos, 3, centroid, err);
            if (st == ST_OK)
                st = eng_push_index(&m->indices, cpos, err);
            if (st == ST_OK)
                st = eng_push_r(&m->pos, 3, centroid, err);
            if (st != ST_OK)
                goto done;
        }
        if (left == 0)
            break;
        if (end)
            len = 0; /* a new loop */
        if (i < np && has[i]) {
            it = i;
        } else {
            while (!has[cursor])
                cursor++;
            it = (unsigned)cursor;
            loop[len++] = it;
        }
    }
done:
    st_free(s.e), st_free(s.alive), st_free(s.slot), st_free(has), st_free(to), st_free(loop);
    return st;
}

static const st_engine_ops mesh_closing_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = mesh_closing_update,
};

const st_class mesh_closing_engine_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshClosingEngine",
    .category = "Engine",
    .description = "Close a given mesh.",
    .instance_size = sizeof(mesh_closing),
    .fields = mesh_closing_fields,
    .engine = &mesh_closing_engine,
};
