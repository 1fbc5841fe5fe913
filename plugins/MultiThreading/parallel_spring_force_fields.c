/* parallel_spring_force_fields.c - ParallelSpringForceField and
 * ParallelMeshSpringForceField: SpringForceField and MeshSpringForceField
 * (plugins/SolidMechanics.Spring, compiled into this plugin) with addForce
 * and addDForce parallel over the springs (mt_elements.c), a spring being
 * an element of two points. Springs between two states, or on other than
 * Vec3d, run the sequential loops. */
#include "mt_pool.h"
#include "springs.h"

/* A twin's ops and how its sequential instance holds its springs. */
typedef struct spring_twin {
    mt_elem_ops ops; /* first: mt_elem_ops_of gives it back */
    spring_set *(*set)(st_component *self);
} spring_twin;

static spring_set *set_of(st_component *self)
{
    return ((const spring_twin *)mt_elem_ops_of(self))->set(self);
}

static void spring_elements(st_component *self, const unsigned **verts, size_t *stride,
                            size_t *ne, size_t *np)
{
    spring_set *set = set_of(self);
    const bool ok = springs_one_state3(set) && set->n > 0;
    *verts = ok ? set->ends[0] : NULL;
    *stride = 2;
    *ne = ok ? set->n : 0;
    *np = ok ? set->ms1->n : 0;
}

static st_mstate *spring_mstate(st_component *self) { return set_of(self)->ms1; }

static void spring_forces(st_component *self, const double *p, const double *v, size_t b,
                          size_t e, double *g)
{
    springs_forces_range(set_of(self), p, v, b, e, g);
}

static void spring_dforces(st_component *self, const double *d, double kfactor, size_t b,
                           size_t e, double *g)
{
    springs_dforces_range(set_of(self), d, kfactor, b, e, g);
}

#define SPRING_TWIN(BASE, NAME, SEQ, SET)                                                         \
    {.ops = {.base = &(BASE),                                                                     \
             .name = (NAME),                                                                      \
             .description = SEQ " with addForce and addDForce parallel over the springs (the "   \
                            "same forces to the bit at any thread count)",                        \
             .nv = 2,                                                                             \
             .elements = spring_elements,                                                         \
             .mstate = spring_mstate,                                                             \
             .forces = spring_forces,                                                             \
             .dforces = spring_dforces},                                                          \
     .set = (SET)}

static const spring_twin spring_ops = SPRING_TWIN(
    spring_force_field_class, "ParallelSpringForceField", "SpringForceField", spring_force_field_set);
static const spring_twin mesh_spring_ops =
    SPRING_TWIN(mesh_spring_force_field_class, "ParallelMeshSpringForceField",
                "MeshSpringForceField", mesh_spring_force_field_set);

const st_class *parallel_spring_force_field_class(void) { return mt_elem_class(&spring_ops.ops); }

const st_class *parallel_mesh_spring_force_field_class(void)
{
    return mt_elem_class(&mesh_spring_ops.ops);
}
