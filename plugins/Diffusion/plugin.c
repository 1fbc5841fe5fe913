/* plugin.c - the Diffusion plugin (SOFA's Sofa.Component.Diffusion): the
 * Laplacian of a field on tetrahedra, as a force field. */
#include <settee/settee.h>

extern const st_class tetrahedron_diffusion_fem_force_field_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_registry_add(r, &tetrahedron_diffusion_fem_force_field_class, err);
}

static const char *const provides[] = {"Sofa.Component.Diffusion", NULL};

ST_PLUGIN_DEFINE("Diffusion", "0.1.0", "Diffusion (Laplacian) force field on tetrahedra",
                 "LGPL-2.1-or-later", provides, register_classes)
