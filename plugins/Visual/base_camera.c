/* base_camera.c - checks of the data SOFA's cameras share. */
#include "base_camera.h"

static const char *const projections[] = {"Perspective", "Orthographic", NULL};
static const st_option_field camera_options[] = {{"projectionType", projections}, {NULL, NULL}};

st_status base_camera_check(st_component *c, st_error *err)
{
    ST_TRY(st_options_check(c, camera_options, err));
    const char *const matrices[] = {"modelViewMatrix", "projectionMatrix"};
    for (int i = 0; i < 2; i++) {
        const st_array *m = st_component_field_ptr(c, st_component_field(c, matrices[i]));
        if (m->n && m->n != 16)
            return st_component_error(c, matrices[i], err, ST_EINVAL,
                                      "expects a 4x4 matrix (16 reals), got %zu", m->n);
    }
    return st_headless_init(c, err);
}
