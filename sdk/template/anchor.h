/* anchor.h - the classes of the Anchor plugin, shared with plugin.c. */
#ifndef ANCHOR_H
#define ANCHOR_H

#include <settee/settee.h>

extern const st_class anchor_force_field_class;

#endif
