/* mass.h - the classes of the Mass plugin. */
#ifndef SETTEE_PLUGIN_MASS_H
#define SETTEE_PLUGIN_MASS_H

#include <settee/settee.h>

extern const st_class st_uniform_mass_class;

#endif
