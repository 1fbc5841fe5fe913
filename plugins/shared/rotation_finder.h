/* rotation_finder.h - SOFA's BaseRotationFinder (getRotations) as data:
 * how a corotational force field hands per-vertex rotations to a
 * WarpPreconditioner without an SDK interface.
 *
 * The force field (TetrahedronFEMForceField, HexahedronFEMForceField,
 * TetrahedralCorotationalFEMForceField) declares an output field
 * "rotations" (ST_T_REALS): 9 reals per vertex of its state, row-major,
 * the rotation from the rest shape to the current one at the positions of
 * its last add_force (SOFA's getRotation(R, vertex)). Computing them costs
 * a polar decomposition per vertex, so the field stays empty until a
 * consumer asks for it: rotfinder_request() sizes the array to 9 values
 * per vertex, and from then on every add_force fills it (rotfinder_wanted).
 * Header-only, shared by plugins. */
#ifndef PLUGINS_SHARED_ROTATION_FINDER_H
#define PLUGINS_SHARED_ROTATION_FINDER_H

#include <stdbool.h>
#include <string.h>

#include <settee/settee.h>

#define ROTFINDER_FIELD "rotations"
#define ROTFINDER_HELP                                                                             \
    "Per-vertex rotations from the rest shape to the shape of the last force computation, 9 "     \
    "reals per vertex, row-major (SOFA's getRotations of a rotation finder; settee fills it "     \
    "only when a WarpPreconditioner uses this force field)"

/* Force field side: true when a consumer asked for the rotations of its np
 * vertices. */
static inline bool rotfinder_wanted(const st_array *rot, size_t np)
{
    return np > 0 && rot->n == 9 * np;
}

/* Consumer side: the "rotations" array of c, or NULL when c is not a
 * rotation finder. */
static inline st_array *rotfinder_field(st_component *c)
{
    const st_field *f = st_component_field(c, ROTFINDER_FIELD);
    if (!f || f->type != ST_T_REALS || !(f->flags & ST_F_OUTPUT))
        return NULL;
    return (st_array *)st_component_field_ptr(c, f);
}

/* Consumer side: asks finder c for the rotations of its np vertices (sized
 * to identities, so that they are valid before the first force). */
static inline st_status rotfinder_request(st_component *c, size_t np, st_array **out,
                                          st_error *err)
{
    st_array *a = rotfinder_field(c);
    if (!a)
        return st_error_set(err, ST_EINVAL, "%s is not a rotation finder", c->name);
    if (a->n != 9 * np) {
        ST_TRY(st_array_resize(a, ST_T_REALS, 9 * np, err));
        for (size_t i = 0; i < np; i++)
            for (int k = 0; k < 9; k++)
                a->r[9 * i + (size_t)k] = k % 4 == 0 ? 1.0 : 0.0;
    }
    *out = a;
    return ST_OK;
}

#endif
