/* tuple_set.c - see tuple_set.h. */
#include <string.h>

#include "tuple_set.h"

static size_t hash_key(const unsigned *k, unsigned w)
{
    size_t h = 1469598103934665603ull;
    for (unsigned i = 0; i < w; i++) {
        h ^= k[i];
        h *= 1099511628211ull;
    }
    return h;
}

static st_status grow(tuple_set *s, st_error *err)
{
    size_t nslots = s->nslots ? 2 * s->nslots : 256;
    size_t *slots = st_malloc(nslots * sizeof *slots);
    if (!slots)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < nslots; i++)
        slots[i] = (size_t)-1;
    for (size_t k = 0; k < s->n; k++) {
        size_t h = hash_key(s->keys + k * s->width, s->width) & (nslots - 1);
        while (slots[h] != (size_t)-1)
            h = (h + 1) & (nslots - 1);
        slots[h] = k;
    }
    st_free(s->slots);
    s->slots = slots;
    s->nslots = nslots;
    return ST_OK;
}

st_status tuple_set_insert(tuple_set *s, const unsigned *key, bool *inserted, st_error *err)
{
    if (2 * (s->n + 1) > s->nslots)
        ST_TRY(grow(s, err));
    size_t h = hash_key(key, s->width) & (s->nslots - 1);
    while (s->slots[h] != (size_t)-1) {
        if (!memcmp(s->keys + s->slots[h] * s->width, key, s->width * sizeof(unsigned))) {
            *inserted = false;
            return ST_OK;
        }
        h = (h + 1) & (s->nslots - 1);
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        unsigned *k = st_realloc(s->keys, cap * s->width * sizeof(unsigned));
        if (!k)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        s->keys = k;
        s->cap = cap;
    }
    memcpy(s->keys + s->n * s->width, key, s->width * sizeof(unsigned));
    s->slots[h] = s->n++;
    *inserted = true;
    return ST_OK;
}

size_t tuple_set_find(const tuple_set *s, const unsigned *key)
{
    if (s->nslots == 0)
        return (size_t)-1;
    size_t h = hash_key(key, s->width) & (s->nslots - 1);
    while (s->slots[h] != (size_t)-1) {
        if (!memcmp(s->keys + s->slots[h] * s->width, key, s->width * sizeof(unsigned)))
            return s->slots[h];
        h = (h + 1) & (s->nslots - 1);
    }
    return (size_t)-1;
}

void tuple_set_free(tuple_set *s)
{
    st_free(s->keys);
    st_free(s->slots);
    memset(s, 0, sizeof *s);
}
