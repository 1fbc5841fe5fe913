/* clip_plane.c - ClipPlane: an OpenGL clipping plane for the visual models
 * of its subtree. Headless: fields kept, nothing clipped. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct clip_plane {
    st_component base;
    bool enable;
    st_vec3 position, normal;
    int id;
    bool active;
} clip_plane;

static const st_field clip_plane_fields[] = {
    IGN_ENABLE(clip_plane),
    IGN_VEC3(clip_plane, position, "position", "0 0 0", "A point of the clipping plane"),
    IGN_VEC3(clip_plane, normal, "normal", "1 0 0",
             "Normal of the plane, pointing toward the clipped side"),
    IGN_INT(clip_plane, id, "id", "0", "OpenGL clipping plane number"),
    IGN_BOOL(clip_plane, active, "active", "true", "Apply the clipping plane"),
    ST_FIELD_END};

const st_class clip_plane_class = {
    .struct_size = sizeof(st_class),
    .name = "ClipPlane",
    .category = "Visual",
    .description = "OpenGL clipping plane (headless: nothing clipped)",
    .instance_size = sizeof(clip_plane),
    .fields = clip_plane_fields,
    .init = st_headless_init,
};
