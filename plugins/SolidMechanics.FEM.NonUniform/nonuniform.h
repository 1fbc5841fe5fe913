/* nonuniform.h - the SolidMechanics.FEM.NonUniform plugin's classes and the
 * NonUniformHexahedronFEMForceFieldAndMass instance (tests include it). */
#ifndef SETTEE_PLUGIN_NONUNIFORM_H
#define SETTEE_PLUGIN_NONUNIFORM_H

#include "hexahedron_fem.h"

typedef struct nonuniform_fem {
    hexa_fem h;              /* HexahedronFEMForceFieldAndMass, first */
    int nb_virtual_finer;    /* "nbVirtualFinerLevels" */
    bool use_mass;           /* "useMass" */
    double total_mass;       /* "totalMass" */
    bool condensed;          /* K and M condensed from the finer levels at init */
} nonuniform_fem;

/* The class, built once from HexahedronFEMForceFieldAndMass (its fields,
 * then this class's); NULL when the field table does not fit. */
const st_class *nonuniform_hexahedron_fem_class(void);

#endif
