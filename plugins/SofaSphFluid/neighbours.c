/* neighbours.c - pairs of particles closer than h from a uniform hash grid
 * (neighbours.h). */
#include "neighbours.h"

#include <math.h>
#include <string.h>

void nb_grid_free(nb_grid *g)
{
    st_free(g->cell);
    st_free(g->head);
    st_free(g->next);
    st_free(g->pairs);
    memset(g, 0, sizeof *g);
}

st_status nb_grid_size(nb_grid *g, size_t n, unsigned dim, st_component *owner, st_error *err)
{
    nb_grid_free(g);
    g->dim = dim;
    g->n = n;
    g->table = 16;
    while (g->table < 2 * n)
        g->table *= 2;
    size_t m = n ? n : 1;
    g->cell = st_calloc(m * dim, sizeof *g->cell);
    g->next = st_calloc(m, sizeof *g->next);
    g->head = st_calloc(g->table, sizeof *g->head);
    g->cap = 8 * m;
    g->pairs = st_calloc(g->cap, sizeof *g->pairs);
    if (!g->cell || !g->next || !g->head || !g->pairs) {
        nb_grid_free(g);
        return st_component_error(owner, NULL, err, ST_ENOMEM,
                                  "out of memory for the neighbour grid of %zu particles", n);
    }
    return ST_OK;
}

static size_t cell_hash(const int64_t *c, unsigned dim, size_t table)
{
    uint64_t h = 1469598103934665603ull;
    for (unsigned k = 0; k < dim; k++)
        h = (h ^ (uint64_t)c[k]) * 1099511628211ull;
    h ^= h >> 29;
    return (size_t)(h & (table - 1));
}

static bool push_pair(nb_grid *g, unsigned i, unsigned j, double r2)
{
    if (g->npairs == g->cap) {
        /* grows only when the particles pack closer than ever before */
        nb_pair *p = st_realloc(g->pairs, 2 * g->cap * sizeof *p);
        if (!p)
            return false;
        g->pairs = p;
        g->cap *= 2;
    }
    g->pairs[g->npairs++] = (nb_pair){i, j, r2};
    return true;
}

bool nb_grid_find(nb_grid *g, const double *x, double h)
{
    const unsigned d = g->dim;
    const double h2 = h * h;
    g->npairs = 0;
    for (size_t b = 0; b < g->table; b++)
        g->head[b] = UINT32_MAX;
    for (size_t i = 0; i < g->n; i++) {
        for (unsigned k = 0; k < d; k++) {
            /* a non-finite or huge coordinate goes to cell 0 (distances still
             * decide; the step's finiteness check reports a NaN) */
            double c = floor(x[d * i + k] / h);
            g->cell[d * i + k] = fabs(c) < 4e18 ? (int64_t)c : 0;
        }
        size_t b = cell_hash(g->cell + d * i, d, g->table);
        g->next[i] = g->head[b];
        g->head[b] = (unsigned)i;
    }
    const int nb = d == 3 ? 27 : d == 2 ? 9 : 3;
    for (size_t i = 0; i < g->n; i++) {
        const int64_t *ci = g->cell + d * i;
        const size_t first = g->npairs;
        for (int o = 0; o < nb; o++) {
            int64_t c[3] = {ci[0] + o % 3 - 1, d > 1 ? ci[1] + (o / 3) % 3 - 1 : 0,
                            d > 2 ? ci[2] + o / 9 - 1 : 0};
            size_t b = cell_hash(c, d, g->table);
            for (unsigned j = g->head[b]; j != UINT32_MAX; j = g->next[j]) {
                if (j <= i || memcmp(g->cell + d * j, c, d * sizeof *c) != 0)
                    continue;
                double r2 = 0;
                for (unsigned k = 0; k < d; k++) {
                    double e = x[d * j + k] - x[d * i + k];
                    r2 += e * e;
                }
                if (r2 < h2 && !push_pair(g, (unsigned)i, j, r2))
                    return false;
            }
        }
        /* i's pairs by j, as the O(n^2) search meets them (a handful:
         * insertion sort) */
        for (size_t a = first + 1; a < g->npairs; a++) {
            nb_pair p = g->pairs[a];
            size_t z = a;
            for (; z > first && g->pairs[z - 1].j > p.j; z--)
                g->pairs[z] = g->pairs[z - 1];
            g->pairs[z] = p;
        }
    }
    return true;
}
