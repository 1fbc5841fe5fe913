/* list_of_lists.h - SOFA's vector<vector<T>> data held flat, as settee holds
 * them (docs/from-sofa.md): each inner list as its length then its
 * entries ("2 1 4  1 3": {1, 4}, {3}). Header-only, internal to the
 * plugins. */
#ifndef SETTEE_SHARED_LIST_OF_LISTS_H
#define SETTEE_SHARED_LIST_OF_LISTS_H

#include <stdlib.h>

#include <settee/settee.h>

/* The position of each inner list of field `field` of self (value a) in
 * a->u: *starts (malloc'ed, *n entries) gives where list i's length is.
 * An inner list cut short by the end is an error naming the field. */
static inline st_status lol_starts(st_component *self, const char *field, const st_array *a,
                                   size_t **starts, size_t *n, st_error *err)
{
    size_t m = 0, at = 0, last = 0;
    while (at < a->n) {
        last = at;
        at += 1 + (size_t)a->u[at];
        m++;
    }
    if (at != a->n)
        return st_component_error(self, field, err, ST_ESCENE,
                                  "list %zu announces %u entries but only %zu follow (each list "
                                  "is its length then its entries)",
                                  m - 1, a->u[last], a->n - last - 1);
    size_t *s = malloc((m + 1) * sizeof *s);
    if (!s)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu lists", m);
    at = 0;
    for (size_t i = 0; i < m; i++) {
        s[i] = at;
        at += 1 + (size_t)a->u[at];
    }
    *starts = s, *n = m;
    return ST_OK;
}

#endif
