/* sph_fluid.h - what SPHFluidSurfaceMapping reads of an SPHFluidForceField
 * of the same plugin (SOFA's getParticleField and getParticleFieldConstant
 * use the force field's densities and particle mass). */
#ifndef SETTEE_PLUGIN_SPH_FLUID_H
#define SETTEE_PLUGIN_SPH_FLUID_H

#include <stddef.h>

#include <settee/settee.h>

extern const st_class sph_fluid_force_field_class;

/* The state the force field acts on (NULL before its init). */
st_mstate *sph_fluid_state(const st_component *ff);
/* The densities of the last force evaluation (its rest density before the
 * first), *n of them (the particles of the last init or change). */
const double *sph_fluid_densities(const st_component *ff, size_t *n);
/* The mass of a particle ("mass", SOFA's particleMass). */
double sph_fluid_particle_mass(const st_component *ff);

#endif
