/* mass.h - the classes of the Mass plugin. */
#ifndef SETTEE_PLUGIN_MASS_H
#define SETTEE_PLUGIN_MASS_H

#include <settee/settee.h>

extern const st_class st_uniform_mass_class;

/* Element measures (mass_geometry.c), in SOFA's arithmetic order. */
double mass_tri_area(const double *p0, const double *p1, const double *p2);
double mass_tet_volume(const double *p0, const double *p1, const double *p2, const double *p3);
/* Sum of the absolute volumes of SOFA's 6-tetrahedron split. */
double mass_hexa_volume(const double *const p[8]);
double mass_edge_length(const double *p0, const double *p1);

#endif
