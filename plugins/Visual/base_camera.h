/* base_camera.h - the data SOFA's cameras share (BaseCamera). Headless the
 * cameras keep their data; nothing is rendered. */
#ifndef SETTEE_VISUAL_BASE_CAMERA_H
#define SETTEE_VISUAL_BASE_CAMERA_H

#include <settee/settee.h>

#include "../shared/options.h"

typedef struct base_camera {
    st_component base;
    st_vec3 position, look_at, min_bbox, max_bbox;
    st_vec4 orientation; /* quaternion x y z w */
    double distance, field_of_view, z_near, z_far;
    bool compute_z_clip, activated, fixed_look_at;
    unsigned width_viewport, height_viewport;
    char *projection_type;
    st_array model_view_matrix, projection_matrix; /* 16 reals each */
} base_camera;

/* The BaseCamera rows of a camera's field table; S is the camera struct,
 * whose first member is a base_camera named cam. */
#define BASE_CAMERA_FIELDS(S)                                                                     \
    IGN_VEC3(S, cam.position, "position", "0 0 0", "Position of the camera"),                     \
    IGN_VEC4(S, cam.orientation, "orientation", "0 0 0 1",                                        \
             "Orientation of the camera (quaternion x y z w)"),                                   \
    IGN_VEC3(S, cam.look_at, "lookAt", "0 0 0", "Point the camera looks at"),                     \
    IGN_REAL(S, cam.distance, "distance", "0", "Distance from the camera to lookAt"),             \
    IGN_REAL(S, cam.field_of_view, "fieldOfView", "45", "Field of view in degrees"),              \
    IGN_REAL(S, cam.z_near, "zNear", "0.01", "Near clipping distance"),                           \
    IGN_REAL(S, cam.z_far, "zFar", "100", "Far clipping distance"),                               \
    IGN_BOOL(S, cam.compute_z_clip, "computeZClip", "true",                                       \
             "Compute zNear and zFar from the bounding box"),                                     \
    IGN_VEC3(S, cam.min_bbox, "minBBox", "0 0 0", "Lower corner of the scene's bounding box"),    \
    IGN_VEC3(S, cam.max_bbox, "maxBBox", "1 1 1", "Upper corner of the scene's bounding box"),    \
    IGN_UINT(S, cam.width_viewport, "widthViewport", "800", "Viewport width in pixels"),          \
    IGN_UINT(S, cam.height_viewport, "heightViewport", "600", "Viewport height in pixels"),       \
    IGN_STRING(S, cam.projection_type, "projectionType", "Perspective",                           \
               "Projection: Perspective or Orthographic"),                                        \
    IGN_BOOL(S, cam.activated, "activated", "true", "The camera is active"),                      \
    IGN_BOOL(S, cam.fixed_look_at, "fixedLookAt", "false", "Keep the lookAt point fixed"),        \
    IGN_REALS(S, cam.model_view_matrix, "modelViewMatrix", NULL, "Model-view matrix (16 reals)"), \
    IGN_REALS(S, cam.projection_matrix, "projectionMatrix", NULL, "Projection matrix (16 reals)")

/* Checks the shared camera data (projectionType, matrices). */
st_status base_camera_check(st_component *c, st_error *err);

#endif
