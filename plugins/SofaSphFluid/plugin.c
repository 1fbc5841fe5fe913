/* plugin.c - the SofaSphFluid plugin: SOFA's smoothed particle hydrodynamics
 * fluid force field. */
#include <settee/settee.h>

extern const st_class sph_fluid_force_field_class;
extern const st_class spatial_grid_container_class;
extern const st_class particle_source_class;
extern const st_class particle_sink_class;
extern const st_class particles_repulsion_force_field_class;
extern const st_class ogl_fluid_model_class;
extern const st_class sph_fluid_surface_mapping_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &sph_fluid_force_field_class, err));
    ST_TRY(st_registry_add(r, &spatial_grid_container_class, err));
    ST_TRY(st_registry_add(r, &particle_source_class, err));
    ST_TRY(st_registry_add(r, &particle_sink_class, err));
    ST_TRY(st_registry_add(r, &particles_repulsion_force_field_class, err));
    ST_TRY(st_registry_add(r, &ogl_fluid_model_class, err));
    ST_TRY(st_registry_add(r, &sph_fluid_surface_mapping_class, err));
    return ST_OK;
}

static const char *const provides[] = {"SofaSphFluid", NULL};

ST_PLUGIN_DEFINE("SofaSphFluid", "0.1.0",
                 "SOFA's SofaSphFluid plugin: SPHFluidForceField (smoothed particle "
                 "hydrodynamics; neighbours from a uniform hash grid), SpatialGridContainer (data "
                 "only), ParticleSource and ParticleSink (particles added and removed through the "
                 "topology), SPHFluidSurfaceMapping (marching-cubes surface into a visual model), "
                 "ParticlesRepulsionForceField, OglFluidModel (headless: nothing drawn)",
                 "LGPL-2.1-or-later", provides, register_classes)
