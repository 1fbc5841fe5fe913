/* interactive_camera.c - InteractiveCamera: a camera moved with the mouse.
 * Headless: data kept and checked, nothing rendered. */
#include "base_camera.h"

typedef struct interactive_camera {
    base_camera cam;
    double zoom_speed, pan_speed;
    int pivot;
} interactive_camera;

#define S interactive_camera
static const st_field interactive_camera_fields[] = {
    BASE_CAMERA_FIELDS(S),
    IGN_REAL(S, zoom_speed, "zoomSpeed", "250", "Zoom speed"),
    IGN_REAL(S, pan_speed, "panSpeed", "0.1", "Pan speed"),
    ST_FIELD_EX(S, pivot, "pivot", ST_T_INT, int, "2",
                "Pivot: 0 lookAt, 1 camera position, 2 scene centre, 3 world centre",
                ST_F_IGNORED, NULL, 0.0, 3.0),
    ST_FIELD_END};
#undef S

const st_class interactive_camera_class = {
    .struct_size = sizeof(st_class),
    .name = "InteractiveCamera",
    .category = "Visual",
    .description = "A camera moved with the mouse (headless: nothing rendered)",
    .instance_size = sizeof(interactive_camera),
    .fields = interactive_camera_fields,
    .init = base_camera_check,
};
