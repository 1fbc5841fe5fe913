/* point_splat_model.c - PointSplatModel: points drawn as billboards.
 * Headless: fields kept, nothing drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct point_splat_model {
    st_component base;
    bool enable;
    double radius, alpha;
    int texture_size;
    st_vec4 color;
    st_array point_data; /* one value in 0..255 per point */
} point_splat_model;

#define S point_splat_model
static const st_field point_splat_model_fields[] = {
    IGN_ENABLE(S),
    IGN_REAL(S, radius, "radius", "1", "Radius of the spheres"),
    IGN_INT(S, texture_size, "textureSize", "32", "Size of the billboard texture"),
    IGN_REAL(S, alpha, "alpha", "1", "Opacity of the billboards (1 is opaque)"),
    IGN_RGBA(S, color, "color", "1 1 1 1", "Billboard colour"),
    IGN_UINTS(S, point_data, "pointData", NULL, "Scalar field (0..255) modulating point colours"),
    ST_FIELD_END};
#undef S

static st_status point_splat_init(st_component *self, st_error *err)
{
    const point_splat_model *m = (const point_splat_model *)self;
    for (size_t i = 0; i < m->point_data.n; i++)
        if (m->point_data.u[i] > 255)
            return st_component_error(self, "pointData", err, ST_EINVAL,
                                      "values are bytes (0..255), value %zu is %u", i,
                                      m->point_data.u[i]);
    return st_headless_init(self, err);
}

const st_class point_splat_model_class = {
    .struct_size = sizeof(st_class),
    .name = "PointSplatModel",
    .category = "Visual",
    .description = "Draws points as splats (headless: nothing drawn)",
    .instance_size = sizeof(point_splat_model),
    .fields = point_splat_model_fields,
    .init = point_splat_init,
};
