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

/* Finds a topology-based mass's state (its node's MechanicalObject), its
 * topology (the "topology" link, else the first one up the tree) and the
 * state holding the geometry (the "geometryState" link, else the
 * topology's node's MechanicalObject). Errors name the field at fault. */
st_status mass_bind_topology(st_component *self, st_mstate **ms, st_component **topology,
                             st_component **geometry_state, st_error *err);

/* SOFA's separate gravity: v += g dt on every vertex of ms (v is a global
 * vector; masses call it when their separateGravity field is true). */
void mass_add_gravity_to_v(const st_mstate *ms, const st_mparams *mp, double *v, double dt);

#endif
