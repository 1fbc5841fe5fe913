/* neighbours.h - the pairs of particles closer than a distance h, from a
 * uniform hash grid of cell h (exact: every pair within h is found, for
 * any spread of the particles), in the order of SOFA's O(n^2) search:
 * by first particle i, then by second particle j > i. */
#ifndef SETTEE_SPH_NEIGHBOURS_H
#define SETTEE_SPH_NEIGHBOURS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <settee/settee.h>

typedef struct nb_pair {
    unsigned i, j; /* i < j */
    double r2;     /* |x_j - x_i|^2 < h^2 */
} nb_pair;

typedef struct nb_grid {
    unsigned dim;       /* coordinates per particle: 1, 2 or 3 */
    size_t n;           /* particles the arrays are sized for */
    size_t table;       /* hash buckets (a power of two) */
    int64_t *cell;      /* dim x n: each particle's cell */
    unsigned *head;     /* table: first particle of a bucket (UINT32_MAX: none) */
    unsigned *next;     /* n: next particle of the same bucket */
    nb_pair *pairs;     /* the pairs found by the last nb_grid_find */
    size_t npairs, cap;
} nb_grid;

/* Sizes the grid for n particles of dim coordinates (its pairs kept). */
st_status nb_grid_size(nb_grid *g, size_t n, unsigned dim, st_component *owner, st_error *err);
void nb_grid_free(nb_grid *g);
/* Fills g->pairs with the pairs closer than h (x: dim reals per particle).
 * False when memory ran out: the pairs found so far are kept. */
bool nb_grid_find(nb_grid *g, const double *x, double h);

#endif
