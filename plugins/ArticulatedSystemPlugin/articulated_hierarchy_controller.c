/* articulated_hierarchy_controller.c - ArticulatedHierarchyController:
 * SOFA's keyboard and mouse driver of an articulated hierarchy's
 * articulation values. A key listed in bindingKeys toggles the articulation
 * at the same place in articulationsIndices (activating one deactivates the
 * others; the comparison is in the key's case). While a mouse button is
 * held (left +1, right -1; a wheel turn 2 sign(delta), once), every step
 * start adds sign * angleDelta / (chain length + 1) to the position
 * (settee keeps no separate free position) of that articulation's value in the first Vec1d state below
 * the controller's node, and, with propagateUserInteraction, to the
 * articulations of the child centers that have the same kind and axis.
 * settee has no GUI: a driver, the Python binding or a test delivers the
 * events through articulated_controller_key_pressed and
 * articulated_controller_mouse (articulated.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

#include "articulated.h"
#include "../shared/state_view.h"

enum { MOUSE_NONE, MOUSE_LEFT, MOUSE_RIGHT, MOUSE_WHEEL };

typedef struct ahc {
    st_component base;
    st_array indices;        /* "articulationsIndices" */
    st_array keys;           /* "bindingKeys" */
    double angle_delta;      /* "angleDelta" */
    bool propagate;          /* "propagateUserInteraction" */
    bool *active;            /* one per binding key */
    int mouse_mode;
    double sign;
} ahc;

static const st_field ahc_fields[] = {
    ARTIC_CONTROLLER_FIELDS(ahc),
    ST_FIELD_END};

static bool is_class(const st_component *c, const char *name)
{
    return strcmp(c->cls->name, name) == 0;
}

/* The ArticulationCenters of n's subtree, in tree order (k counts). */
static size_t centers(st_node *n, articulation_center **out, size_t k)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (is_class(c, "ArticulationCenter")) {
            if (out)
                out[k] = (articulation_center *)c;
            k++;
        }
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        k = centers(st_node_child(n, i), out, k);
    return k;
}

/* The Articulations of a center: those below its node's children. */
static size_t arts(st_node *n, articulation **out, size_t cap, size_t k, bool self)
{
    if (!self)
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            if (is_class(c, "Articulation") && k < cap)
                out[k++] = (articulation *)c;
        }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        k = arts(st_node_child(n, i), out, cap, k, false);
    return k;
}

static st_mstate *first_vec1(st_node *n)
{
    st_mstate *ms = st_node_mstate(n);
    if (ms && ms->type == &st_vec1d_type)
        return ms;
    for (size_t i = 0; i < st_node_child_count(n); i++)
        if ((ms = first_vec1(st_node_child(n, i))))
            return ms;
    return NULL;
}

static void reset_state(ahc *c)
{
    if (c->active)
        memset(c->active, 0, c->keys.n * sizeof *c->active);
    c->mouse_mode = MOUSE_NONE;
}

static st_status ahc_init(st_component *self, st_error *err)
{
    ahc *c = (ahc *)self;
    for (size_t i = 0; i < c->keys.n; i++)
        if (strlen(c->keys.s[i]) != 1)
            return st_component_error(self, "bindingKeys", err, ST_EINVAL,
                                      "binding key %zu is '%s': expected one character", i,
                                      c->keys.s[i]);
    free(c->active);
    c->active = calloc(c->keys.n ? c->keys.n : 1, sizeof *c->active);
    if (!c->active)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    reset_state(c);
    return ST_OK;
}

static void ahc_reset(st_component *self) { reset_state((ahc *)self); }

static void ahc_cleanup(st_component *self)
{
    ahc *c = (ahc *)self;
    free(c->active);
    c->active = NULL;
}

void articulated_controller_key_pressed(st_component *self, char key)
{
    ahc *c = (ahc *)self;
    if (!c->active)
        return;
    size_t i = 0;
    for (; i < c->keys.n; i++) {
        char k = c->keys.s[i][0];
        if (k == (isupper((unsigned char)k) ? toupper((unsigned char)key)
                                            : tolower((unsigned char)key)))
            break;
    }
    if (i >= c->keys.n || i >= c->indices.n)
        return;
    if (c->active[i]) {
        c->active[i] = false;
    } else {
        memset(c->active, 0, c->keys.n * sizeof *c->active);
        c->active[i] = true;
    }
}

void articulated_controller_mouse(st_component *self, articulated_mouse_event ev, int wheel_delta)
{
    ahc *c = (ahc *)self;
    switch (ev) {
    case ARTICULATED_MOUSE_LEFT_PRESSED: c->sign = 1.0; c->mouse_mode = MOUSE_LEFT; break;
    case ARTICULATED_MOUSE_RIGHT_PRESSED: c->sign = -1.0; c->mouse_mode = MOUSE_RIGHT; break;
    case ARTICULATED_MOUSE_LEFT_RELEASED:
    case ARTICULATED_MOUSE_RIGHT_RELEASED: c->mouse_mode = MOUSE_NONE; break;
    case ARTICULATED_MOUSE_WHEEL:
        if (wheel_delta != 0) {
            c->sign = wheel_delta > 0 ? 2.0 : -2.0;
            c->mouse_mode = MOUSE_WHEEL;
        }
        break;
    case ARTICULATED_MOUSE_RESET: reset_state(c); break;
    }
}

/* Articulation number idx among the centers, and its center. */
static articulation *find_art(articulation_center **cs, size_t nc, int idx,
                              articulation_center **center)
{
    articulation *a[64];
    for (size_t i = 0; i < nc; i++) {
        size_t na = arts(cs[i]->base.node, a, 64, 0, true);
        for (size_t j = 0; j < na; j++)
            if (a[j]->articulation_index == idx) {
                *center = cs[i];
                return a[j];
            }
    }
    return NULL;
}

/* SOFA's propagation chain: down the first child center (parentIndex ==
 * this center's childIndex) holding an articulation of the same kind. */
static size_t chain(articulation_center **cs, size_t nc, const articulation *ref,
                    const articulation_center *parent, int *out, size_t k, size_t cap)
{
    articulation *a[64];
    for (size_t i = 0; i < nc && k < cap; i++) {
        if (cs[i]->parent_index != parent->child_index)
            continue;
        size_t na = arts(cs[i]->base.node, a, 64, 0, true);
        for (size_t j = 0; j < na; j++)
            if (a[j]->rotation == ref->rotation && a[j]->translation == ref->translation &&
                memcmp(a[j]->axis, ref->axis, sizeof ref->axis) == 0) {
                out[k++] = a[j]->articulation_index;
                return chain(cs, nc, ref, cs[i], out, k, cap);
            }
    }
    return k;
}

static void ahc_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    ahc *c = (ahc *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || c->mouse_mode == MOUSE_NONE || !c->active)
        return;
    if (c->mouse_mode == MOUSE_WHEEL)
        c->mouse_mode = MOUSE_NONE;
    size_t i = 0;
    while (i < c->keys.n && i < c->indices.n && !c->active[i])
        i++;
    if (i >= c->keys.n || i >= c->indices.n)
        return;
    int idx = (int)c->indices.u[i];
    size_t nc = centers(self->node, NULL, 0);
    articulation_center **cs = calloc(nc ? nc : 1, sizeof *cs);
    if (!cs)
        return;
    centers(self->node, cs, 0);
    int list[64];
    size_t n = 0;
    list[n++] = idx;
    articulation_center *center = NULL;
    articulation *ref = find_art(cs, nc, idx, &center);
    if (c->propagate && ref)
        n = chain(cs, nc, ref, center, list, n, 64);
    double step = c->sign * c->angle_delta / (double)n;
    st_mstate *ms = first_vec1(self->node);
    bool moved = false;
    for (size_t j = 0; ms && j < n; j++) {
        articulation_center *cj;
        articulation *a = find_art(cs, nc, list[j], &cj);
        if (!a || a->articulation_index < 0 || (size_t)a->articulation_index >= ms->n)
            continue;
        ms->position.r[a->articulation_index] += step;
        moved = true;
    }
    if (moved)
        state_view_propagate(ms);
    free(cs);
}

const st_class articulated_hierarchy_controller_class = {
    .struct_size = sizeof(st_class),
    .name = "ArticulatedHierarchyController",
    .category = "Controller",
    .description = "Implements an user interaction handler that controls the values of the "
                   "articulations of an articulated hierarchy container.",
    .instance_size = sizeof(ahc),
    .fields = ahc_fields,
    .init = ahc_init,
    .reset = ahc_reset,
    .cleanup = ahc_cleanup,
    .on_event = ahc_on_event,
};
