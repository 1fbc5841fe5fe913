/* repulsive_spring_force_field.c - RepulsiveSpringForceField: SOFA's
 * SpringForceField whose springs only repel: a spring acts while it is
 * shorter than its rest length (0 < d < L0), with SpringForceField's force
 * and Jacobian, and not at all otherwise; its enabled and elongationOnly
 * flags are read but not used, as in SOFA. SOFA gives it no potential
 * energy (an error message and 0); settee reports 0 too. Vec1d, Vec2d and
 * Vec3d, as SOFA instantiates it. */
#include "springs.h"

static st_status rsff_init(st_component *self, st_error *err)
{
    spring_ff *s = (spring_ff *)self;
    ST_TRY(spring_ff_bind(s, err));
    ST_TRY(spring_ff_read(s, err));
    s->set.repulsive = true;
    return spring_ff_done(s, err);
}

static const st_field rsff_fields[] = {SPRING_FF_FIELDS, ST_FIELD_END};

static const char *const rsff_templates[] = {"Vec3d", "Vec2d", "Vec1d", NULL};

const st_class repulsive_spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "RepulsiveSpringForceField",
    .category = "ForceField",
    .description = "Springs which only repel.",
    .instance_size = sizeof(spring_ff),
    .fields = rsff_fields,
    .init = rsff_init,
    .reinit = rsff_init,
    .cleanup = spring_ff_cleanup,
    .forcefield = &spring_ff_ops,
    .templates = rsff_templates,
};
