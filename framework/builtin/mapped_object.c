/* mapped_object.c - the built-in MappedObject (SOFA's
 * Sofa.Component.StateContainer): a state that is not mechanical. It holds
 * positions and velocities of its template (Vec1d, Vec2d, Vec3d, Vec6d,
 * Rigid2d, Rigid3d; Vec3d by default) and nothing else: no forces, no
 * masses act on it, no solver integrates it. A mapping whose output it is
 * becomes non-mechanical, as a mapping into a visual model: the kernel
 * applies it after each step (positions, then velocities through applyJ),
 * which is SOFA's UpdateMappingVisitor (plugins/shared/mapping_common.c
 * binds it).
 *
 * Why the vectors are flat reals: the kernel gives a typed component the
 * type of its context's MechanicalObject when the scene writes no template,
 * but SOFA creates a MappedObject without a template as Vec3d whatever its
 * context holds (the usual place is a child of a Rigid3d body). So the
 * object reads its own "template" (default Vec3d), and "position" and
 * "velocity" hold coord_size and deriv_size values per point.
 *
 * Init follows SOFA: an empty position takes the x, y, z of each point of
 * the node's own MechanicalObject (the centre for a rigid one), set into
 * coordinates of the template (a rigid's orientation the identity); the
 * velocity is left as written. */
#include <string.h>

#include "builtin/builtin.h"

typedef struct mapped_object {
    st_component base;
    char *template_name; /* "template" */
    st_array position;   /* "position": coord_size values per point */
    st_array velocity;   /* "velocity": deriv_size values per point */
} mapped_object;

static const st_field mapped_object_fields[] = {
    ST_STRING(mapped_object, template_name, "template", "Vec3d",
              "Data type of the points: Vec1d, Vec2d, Vec3d, Vec6d, Rigid2d or Rigid3d (SOFA's "
              "spellings Vec1, Vec3, Rigid3 ... accepted)"),
    ST_REALS(mapped_object, position, "position", "",
             "position vector (the template's coordinates, one point after another)"),
    ST_REALS(mapped_object, velocity, "velocity", "",
             "velocity vector (the template's derivatives, one point after another)"),
    ST_FIELD_END};

static const char *const mapped_object_types[] = {"Vec1d",   "Vec2d",   "Vec3d", "Vec6d",
                                                  "Rigid2d", "Rigid3d", NULL};

static const st_state_type *template_type(const mapped_object *m)
{
    const char *name = m->template_name && m->template_name[0] ? m->template_name : "Vec3d";
    const st_state_type *t = st_state_type_find(name);
    for (const char *const *p = mapped_object_types; t && *p; p++)
        if (st_state_type_find(*p) == t)
            return t;
    return NULL;
}

/* The MechanicalObject of n itself (SOFA's context getMechanicalState). */
static st_mstate *own_mstate(st_node *n)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (st_component_has_role(c, ST_ROLE_STATE))
            return (st_mstate *)c;
    }
    return NULL;
}

/* Coordinates of type t at (x, y, z): the spatial part set, the rest the
 * type's identity (a rigid's unit quaternion, zero elsewhere). */
static void set_coord(const st_state_type *t, double *c, const double p[3])
{
    memcpy(c, t->identity, t->coord_size * sizeof(double));
    for (unsigned k = 0; k < t->spatial_size && k < 3; k++)
        c[k] = p[k];
}

static st_status mapped_object_init(st_component *self, st_error *err)
{
    mapped_object *m = (mapped_object *)self;
    const st_state_type *t = template_type(m);
    if (!t) {
        char list[256];
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "unsupported template '%s': MappedObject supports Vec1d, Vec2d, "
                                  "Vec3d, Vec6d, Rigid2d and Rigid3d (state types are %s)",
                                  m->template_name, st_state_type_list(list, sizeof list));
    }
    const unsigned cw = t->coord_size;
    if (m->position.n % cw)
        return st_component_error(self, "position", err, ST_ESCENE,
                                  "%zu values are not a whole number of %s coordinates (%u "
                                  "values each)",
                                  m->position.n, t->name, cw);
    st_mstate *ms = m->position.n == 0 ? own_mstate(self->node) : NULL;
    if (ms && ms->n) {
        const unsigned mw = ms->type->coord_size, ms_sp = ms->type->spatial_size;
        ST_TRY(st_array_resize(&m->position, ST_T_REALS, cw * ms->n, err));
        for (size_t i = 0; i < ms->n; i++) {
            double p[3] = {0.0, 0.0, 0.0};
            for (unsigned k = 0; k < ms_sp && k < 3; k++)
                p[k] = ms->position.r[mw * i + k];
            set_coord(t, m->position.r + cw * i, p);
        }
    }
    return ST_OK;
}

const st_class st__mapped_object_class = {
    .struct_size = sizeof(st_class),
    .name = "MappedObject",
    .category = "State",
    .description = "Mapped state vectors: positions and velocities that a mapping writes, with "
                   "no mechanics",
    .instance_size = sizeof(mapped_object),
    .fields = mapped_object_fields,
    .init = mapped_object_init,
    .reinit = mapped_object_init,
};
