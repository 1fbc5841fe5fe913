/* gravity.c - Gravity: SOFA's context object that sets the gravity of its
 * node and of everything below it, in world coordinates.
 *
 * It applies while the scene is read (so that in the root it overrides the
 * root's `gravity` attribute wherever it appears), at init (for scenes built
 * in code) and at reinit. Below the root it gives its subtree another
 * gravity, as in SOFA: the kernel keeps it when it copies each parent's
 * context to the children (st_node_set_context_gravity), and each ODE
 * solver's system takes the gravity of its own node. */
#include "mechanical_load.h"

typedef struct gravity {
    st_component base;
    st_vec3 g; /* "gravity", m/s^2 */
} gravity;

static st_status gravity_apply(st_component *self, st_error *err)
{
    (void)err;
    gravity *c = (gravity *)self;
    st_node_set_context_gravity(self->node, c->g);
    return ST_OK;
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
