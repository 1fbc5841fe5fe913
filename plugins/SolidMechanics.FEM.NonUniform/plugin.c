/* plugin.c - the SolidMechanics.FEM.NonUniform plugin (SOFA's
 * Sofa.Component.SolidMechanics.FEM.NonUniform):
 * NonUniformHexahedronFEMForceFieldAndMass, built at registration from
 * HexahedronFEMForceFieldAndMass (compiled in),
 * HexahedronCompositeFEMForceFieldAndMass built from it, and
 * HexahedronCompositeFEMMapping; NonUniformHexahedralFEMForceFieldAndMass,
 * on HexahedralFEMForceField (compiled in). */
#include <pthread.h>

#include "nonuniform.h"

static const st_class *nonuniform_class, *composite_class;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void make_classes(void)
{
    nonuniform_class = nonuniform_hexahedron_fem_class();
    composite_class = hexahedron_composite_fem_class();
}

static st_status register_classes(st_registry *r, st_error *err)
{
    pthread_once(&once, make_classes);
    if (!nonuniform_class || !composite_class)
        return st_error_set(err, ST_EPLUGIN, "SolidMechanics.FEM.NonUniform: "
                                             "a class built from HexahedronFEMForceFieldAndMass "
                                             "does not fit its field table");
    ST_TRY(st_registry_add(r, nonuniform_class, err));
    ST_TRY(st_registry_add(r, composite_class, err));
    ST_TRY(st_registry_add(r, &nonuniform_hexahedral_fem_class, err));
    return st_registry_add(r, &hexahedron_composite_fem_mapping_class, err);
}

static const char *const provides[] = {"Sofa.Component.SolidMechanics.FEM.NonUniform", NULL};

ST_PLUGIN_DEFINE("SolidMechanics.FEM.NonUniform", "0.1.0",
                 "Hexahedral finite elements with non-uniform stiffness and mass condensed from a "
                 "sparse grid's virtual finer levels",
                 "LGPL-2.1-or-later", provides, register_classes)
