/* plugin.c - the SolidMechanics.FEM.NonUniform plugin (SOFA's
 * Sofa.Component.SolidMechanics.FEM.NonUniform):
 * NonUniformHexahedronFEMForceFieldAndMass, built at registration from
 * HexahedronFEMForceFieldAndMass (compiled in). SOFA's
 * HexahedronCompositeFEMForceFieldAndMass and HexahedronCompositeFEMMapping
 * are not here yet. */
#include <pthread.h>

#include "nonuniform.h"

static const st_class *nonuniform_class;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_classes(void) { nonuniform_class = nonuniform_hexahedron_fem_class(); }

static st_status register_classes(st_registry *r, st_error *err)
{
    pthread_once(&once, make_classes);
    if (!nonuniform_class)
        return st_error_set(err, ST_EPLUGIN, "SolidMechanics.FEM.NonUniform: "
                                             "NonUniformHexahedronFEMForceFieldAndMass does not "
                                             "fit its field table");
    return st_registry_add(r, nonuniform_class, err);
}

static const char *const provides[] = {"Sofa.Component.SolidMechanics.FEM.NonUniform", NULL};

ST_PLUGIN_DEFINE("SolidMechanics.FEM.NonUniform", "0.1.0",
                 "Hexahedral finite elements with non-uniform stiffness and mass condensed from a "
                 "sparse grid's virtual finer levels",
                 "LGPL-2.1-or-later", provides, register_classes)
