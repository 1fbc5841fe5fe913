/* mechanical_load.c - what the MechanicalLoad force fields share: the state
 * they act on, SOFA's localRange check and the contact set with its
 * fixed-pattern matrix blocks. */
#include <string.h>

#include "mechanical_load.h"

st_status ml_find_state(st_component *self, st_mstate **out, st_error *err)
{
    *out = st_component_mstate(self);
    if (!*out)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mechanical object: add a MechanicalObject before %s "
                                  "in this node, or set mstate",
                                  self->cls->name);
    return ST_OK;
}

void ml_check_range(st_component *self, st_vec2 range)
{
    if (!st_component_is_set(self, "localRange"))
        return;
    if (range[0] < 0 || range[1] < 0 || range[0] > range[1]) {
        st_component_warn(self,
                          "The 'localRange=%g %g' parameter is not valid as it needs two indices "
                          "in numerical order. Continuing with no local range.",
                          range[0], range[1]);
        range[0] = range[1] = -1;
    }
}

st_status ml_contacts_reserve(ml_contacts *c, size_t n, st_error *err)
{
    ml_contacts_free(c);
    c->index = st_calloc(n ? n : 1, sizeof *c->index);
    if (!c->index)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu contacts", n);
    c->cap = n;
    return ST_OK;
}

void ml_contacts_free(ml_contacts *c)
{
    st_free(c->index);
    memset(c, 0, sizeof *c);
}

void ml_add_contact_blocks(st_matrix *m, const st_component *self, const st_mstate *ms,
                           size_t begin, size_t end, const ml_contacts *c, double factor,
                           ml_block_fn block)
{
    size_t k = 0;
    for (size_t i = begin; i < end; i++) {
        double b[9] = {0};
        /* Contacts are ascending and inside [begin, end). */
        if (k < c->n && c->index[k] == i)
            block(self, k++, factor, b);
        st_matrix_add_block(m, ms, i, ms, i, b);
    }
}
