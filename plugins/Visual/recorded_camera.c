/* recorded_camera.c - RecordedCamera: a camera moving along a recorded
 * path (SOFA's BaseCamera data and the path's). Headless: data kept and
 * checked, nothing rendered. */
#include "base_camera.h"

typedef struct recorded_camera {
    base_camera cam;
    double zoom_speed, pan_speed, start_time, end_time, rotation_speed;
    int pivot;
    bool rotation_mode, translation_mode, navigation_mode, draw_rotation, draw_translation;
    st_vec3 rotation_center, rotation_start_point, rotation_look_at, rotation_axis, camera_up;
    st_array camera_positions;    /* vec3 x n */
    st_array camera_orientations; /* quaternions x y z w, 4 reals each */
} recorded_camera;

#define S recorded_camera
static const st_field recorded_camera_fields[] = {
    BASE_CAMERA_FIELDS(S),
    IGN_REAL(S, zoom_speed, "zoomSpeed", "250", "Zoom speed"),
    IGN_REAL(S, pan_speed, "panSpeed", "0.1", "Pan speed"),
    IGN_INT(S, pivot, "pivot", "0", "Pivot: 0 scene centre, 1 world centre"),
    IGN_REAL(S, start_time, "startTime", "0", "Time when the camera starts moving"),
    IGN_REAL(S, end_time, "endTime", "200", "Time when the camera stops moving (or loops)"),
    IGN_BOOL(S, rotation_mode, "rotationMode", "false", "Rotate the camera"),
    IGN_BOOL(S, translation_mode, "translationMode", "false", "Translate the camera"),
    IGN_BOOL(S, navigation_mode, "navigationMode", "false", "Navigate along the recorded path"),
    IGN_REAL(S, rotation_speed, "rotationSpeed", "0.1", "Rotation speed"),
    IGN_VEC3(S, rotation_center, "rotationCenter", "0 0 0", "Centre of the rotation"),
    IGN_VEC3(S, rotation_start_point, "rotationStartPoint", "0 0 0",
             "Position of the camera when the rotation starts"),
    IGN_VEC3(S, rotation_look_at, "rotationLookAt", "0 0 0", "Point looked at while rotating"),
    IGN_VEC3(S, rotation_axis, "rotationAxis", "0 1 0", "Rotation axis"),
    IGN_VEC3(S, camera_up, "cameraUp", "0 0 0", "Up axis of the camera"),
    IGN_BOOL(S, draw_rotation, "drawRotation", "false", "Draw the rotation path"),
    IGN_BOOL(S, draw_translation, "drawTranslation", "false", "Draw the translation path"),
    IGN_VEC3S(S, camera_positions, "cameraPositions", NULL, "Intermediate camera positions"),
    IGN_REALS(S, camera_orientations, "cameraOrientations", NULL,
              "Intermediate camera orientations (quaternions x y z w)"),
    ST_FIELD_END};
#undef S

static const st_value_check recorded_camera_checks[] = {
    {"cameraOrientations", 4, 0, ST_CHECK_REAL}, {NULL, 0, 0, 0}};

static st_status recorded_camera_init(st_component *self, st_error *err)
{
    ST_TRY(st_options_check_values(self, recorded_camera_checks, err));
    return base_camera_check(self, err);
}

const st_class recorded_camera_class = {
    .struct_size = sizeof(st_class),
    .name = "RecordedCamera",
    .category = "Visual",
    .description = "A camera moving along a recorded path (headless: nothing rendered)",
    .instance_size = sizeof(recorded_camera),
    .fields = recorded_camera_fields,
    .init = recorded_camera_init,
};
