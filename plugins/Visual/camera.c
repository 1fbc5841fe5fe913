/* camera.c - Camera: a fixed camera (SOFA's BaseCamera data only).
 * Headless: data kept and checked, nothing rendered. */
#include "base_camera.h"

typedef struct camera {
    base_camera cam;
} camera;

static const st_field camera_fields[] = {BASE_CAMERA_FIELDS(camera), ST_FIELD_END};

const st_class camera_class = {
    .struct_size = sizeof(st_class),
    .name = "Camera",
    .category = "Visual",
    .description = "A camera (headless: nothing rendered)",
    .instance_size = sizeof(camera),
    .fields = camera_fields,
    .init = base_camera_check,
};
