/* sofapython3.h - the plugin's internals: the Python bridge (embed.c) and
 * the component classes (components.c). */
#ifndef SOFAPYTHON3_H
#define SOFAPYTHON3_H

#include "stpy_api.h"

/* The module's table, importing settee._settee first (and starting an
 * interpreter when the process has none). NULL with err filled on failure. */
const stpy_api *sp3_api(st_error *err);

extern const st_class sp3_controller_class;
extern const st_class sp3_forcefield_class;
extern const st_class sp3_script_class;
extern const st_class sp3_engine_class;
extern const st_class sp3_mapping_class;
extern const st_scene_reader sp3_py_reader;

#endif
