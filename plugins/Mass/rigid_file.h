/* rigid_file.h - SOFA's .rigid files (the ones in share/BehaviorModels): a
 * rigid body's mass, volume and inertia, read into a RigidMass value. */
#ifndef SETTEE_MASS_RIGID_FILE_H
#define SETTEE_MASS_RIGID_FILE_H

#include <settee/settee.h>

/* Reads the file named in field `field` of c (found as any scene file) into
 * m, which keeps the values the file does not give. The first line is a
 * header; then keywords, each followed by its numbers:
 *   vertexMass m | volm v | inrt i00 .. i22 (9, row-major, per unit mass)
 * and, read and not used (as in SOFA): cntr|center x y z, frme (4), grav
 * (3), visc, stck, step, prec (1 each); '#' starts a comment to the end of
 * its line. *mass_given says whether the file gave the mass. Every number
 * must be finite (and at most 1e30 in magnitude); errors name FILE:LINE. */
st_status rigid_file_read(st_component *c, const char *field, const char *name,
                          st_mass_value *m, bool *mass_given, st_error *err);

#endif
