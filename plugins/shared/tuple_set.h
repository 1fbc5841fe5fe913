/* tuple_set.h - a hash set of small unsigned tuples (element keys such as an
 * edge's or a face's sorted vertices), in insertion order. Used to find the
 * sub-elements (edges of triangles, faces of tetrahedra) a mesh already has:
 * the mesh loaders and the topology containers both derive them. Compiled
 * into each plugin that uses it (plugins/shared is not a plugin). */
#ifndef SETTEE_SHARED_TUPLE_SET_H
#define SETTEE_SHARED_TUPLE_SET_H

#include <stdbool.h>
#include <stddef.h>

#include <settee/settee.h>

typedef struct tuple_set {
    unsigned *keys;  /* n * width, in insertion order */
    size_t n, cap;
    unsigned width;  /* values per key, at most 8 */
    size_t *slots;   /* open-addressing hash of key indices */
    size_t nslots;
} tuple_set;

/* Inserts key (width values, taken as given: sort them first for an
 * unordered key); *inserted says whether it was new. */
st_status tuple_set_insert(tuple_set *s, const unsigned *key, bool *inserted, st_error *err);
/* Index of key in insertion order, or (size_t)-1 when absent. */
size_t tuple_set_find(const tuple_set *s, const unsigned *key);
void tuple_set_free(tuple_set *s);

/* Sorts n (small) values ascending in place: the key of an unordered tuple. */
static inline void tuple_sort(unsigned *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++) {
        const unsigned k = v[i];
        unsigned j = i;
        for (; j > 0 && v[j - 1] > k; j--)
            v[j] = v[j - 1];
        v[j] = k;
    }
}

#endif
