/* gravity.c - Gravity: SOFA's context object that sets the gravity of its
 * node (and so of everything below it) in world coordinates.
 *
 * settee keeps one gravity per scene, the root's, which every node copies
 * (as SOFA's root context is what matters for a scene without context
 * objects). A Gravity in the root node sets it: while the scene is read
 * (so that it overrides the root's `gravity` attribute wherever it
 * appears) and again at init (for scenes built in code). A Gravity below
 * the root would give its subtree another gravity in SOFA, which settee
 * cannot represent: it is an error rather than a silent difference. */
#include <stdio.h>

#include "mechanical_load.h"

typedef struct gravity {
    st_component base;
    st_vec3 g; /* "gravity", m/s^2 */
} gravity;

/* The kernel copies the root's context to the other nodes before init
 * and after each step. When this runs at init (a scene built in code, where
 * there is no reading step), nodes that already copied the old value get
 * the new one now, so that the first step uses it. In a scene read from a
 * file the value was set while reading and nothing differs here. */
static st_status set_below(st_node *n, const double g[3], const char *text, st_error *err)
{
    for (size_t i = 0; i < st_node_child_count(n); i++) {
        st_node *c = st_node_child(n, i);
        double cg[3];
        st_node_gravity(c, cg);
        if (cg[0] != g[0] || cg[1] != g[1] || cg[2] != g[2])
            ST_TRY(st_node_set(c, "gravity", text, err));
        ST_TRY(set_below(c, g, text, err));
    }
    return ST_OK;
}

static st_status gravity_apply(st_component *self, st_error *err)
{
    gravity *c = (gravity *)self;
    st_node *n = self->node;
    if (st_node_parent(n))
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Gravity below the root node is not supported: settee keeps "
                                  "one gravity for the whole scene (the root's); move Gravity "
                                  "to the root node");
    char text[128];
    snprintf(text, sizeof text, "%.17g %.17g %.17g", c->g[0], c->g[1], c->g[2]);
    ST_TRY(st_node_set(n, "gravity", text, err));
    return set_below(n, c->g, text, err);
}

static const st_field gravity_fields[] = {
    ST_VEC3(gravity, g, "gravity", "0 0 0", "Gravity in the world coordinate system"),
    ST_FIELD_END};

const st_class gravity_class = {
    .struct_size = sizeof(st_class),
    .name = "Gravity",
    .category = "ContextObject",
    .description = "Gravity in world coordinates",
    .instance_size = sizeof(gravity),
    .fields = gravity_fields,
    .parsed = gravity_apply,
    .init = gravity_apply,
    .reinit = gravity_apply,
};
