/* engine_util.h - small helpers shared by the engine plugins (Engine.Select,
 * Engine.Transform, Engine.Generate): default data links as SOFA's engines
 * make them in init, and appending tuples to output arrays. Header-only
 * (static functions). */
#ifndef SETTEE_SHARED_ENGINE_UTIL_H
#define SETTEE_SHARED_ENGINE_UTIL_H

#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

/* Links field `field` of self to `src_field` of src ("@/path.src_field"). */
static inline st_status eng_link(st_component *self, const char *field, const st_component *src,
                                 const char *src_field, st_error *err)
{
    char path[ST_ERROR_PATH_MAX], text[ST_ERROR_PATH_MAX + 64];
    st_component_path(src, path, sizeof path);
    snprintf(text, sizeof text, "@%s.%s", path, src_field);
    return st_component_set(self, field, text, err);
}

/* When the scene left `field` unset, links it to `state_field` of the
 * mechanical state of self's context (the node's, else an ancestor's); does
 * nothing when there is none. */
static inline st_status eng_link_state(st_component *self, const char *field,
                                       const char *state_field, st_error *err)
{
    if (st_component_is_set(self, field))
        return ST_OK;
    st_mstate *ms = st_component_mstate(self);
    if (!ms)
        return ST_OK;
    return eng_link(self, field, (st_component *)ms, state_field, err);
}

/* SOFA creates the numbered inputs PREFIX1..PREFIX<n> of its vectorData
 * when it reads the count field; settee's field tables are static, up to
 * max. Warns about each PREFIX<k>, n < k <= max, the scene set anyway. */
static inline void eng_warn_unused_inputs(st_component *self, const char *prefix, unsigned n,
                                          unsigned max, const char *count_field)
{
    for (unsigned i = n; i < max; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%u", prefix, i + 1);
        if (st_component_is_set(self, name))
            st_component_warn(self, "%s is set but %s is %u: it is not used", name, count_field,
                              n);
    }
}

/* The first object of self's node that plays role, or NULL. */
static inline st_component *eng_local(st_component *self, st_role role)
{
    st_node *n = self->node;
    for (size_t i = 0; i < st_node_object_count(n); i++)
        if (st_component_has_role(st_node_object(n, i), role))
            return st_node_object(n, i);
    return NULL;
}

/* The first mesh loader of self's node (category Loader with a position). */
static inline st_component *eng_local_loader(st_component *self)
{
    st_node *n = self->node;
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (c->cls->category && !strcmp(c->cls->category, "Loader") &&
            st_component_field(c, "position"))
            return c;
    }
    return NULL;
}

/* Sets a's length to 0 keeping its storage. */
static inline void eng_clear(st_array *a)
{
    if (a->cap)
        a->n = 0;
}

/* Appends one tuple of an unsigned array type (ST_T_UINTS, ST_T_EDGES...). */
static inline st_status eng_push_u(st_array *a, st_type t, const unsigned *v, st_error *err)
{
    size_t n = a->n;
    unsigned w = st_type_width(t);
    ST_TRY(st_array_resize(a, t, n + 1 > a->cap ? (n ? 2 * n : 16) : n + 1, err));
    a->n = n + 1;
    memcpy(a->u + (size_t)w * n, v, w * sizeof(unsigned));
    return ST_OK;
}

/* Appends one tuple of w reals. */
static inline st_status eng_push_r(st_array *a, unsigned w, const double *v, st_error *err)
{
    size_t n = a->n;
    ST_TRY(st_array_resize_width(a, w, n + 1 > a->cap ? (n ? 2 * n : 16) : n + 1, err));
    a->n = n + 1;
    memcpy(a->r + (size_t)w * n, v, w * sizeof(double));
    return ST_OK;
}

/* Appends one index. */
static inline st_status eng_push_index(st_array *a, unsigned v, st_error *err)
{
    return eng_push_u(a, ST_T_UINTS, &v, err);
}

/* The coordinate size of self's state type (3 when unresolved). */
static inline unsigned eng_coord_size(const st_component *self)
{
    const st_state_type *t = st_component_state_type(self);
    return t ? t->coord_size : 3;
}

/* The spatial size of self's state type (3 when unresolved). */
static inline unsigned eng_spatial_size(const st_component *self)
{
    const st_state_type *t = st_component_state_type(self);
    return t ? t->spatial_size : 3;
}

#endif
