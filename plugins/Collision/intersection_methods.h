/* intersection_methods.h - the field table entries the intersection
 * methods share (SOFA's BaseProximityIntersection). */
#ifndef COLLISION_INTERSECTION_METHODS_H
#define COLLISION_INTERSECTION_METHODS_H

#include "collision.h"

#define CINTERSECT_PROXIMITY_FIELDS(alarm, contact)                                              \
    ST_REAL(cintersect, alarm_distance, "alarmDistance", alarm,                                  \
            "Distance above which the intersection computations ignores the proximity pair. "    \
            "This distance can also be used in some broad phase algorithms to reduce the search " \
            "area"),                                                                              \
        ST_REAL(cintersect, contact_distance, "contactDistance", contact,                        \
                "Distance below which a contact is created")

#endif
