/* sliced_volumetric_model.c - SlicedVolumetricModel: a volume drawn as
 * textured slices. Headless: fields kept, nothing drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct sliced_volumetric_model {
    st_component base;
    bool enable;
    double alpha;
    char *color;
    int nb_slices;
} sliced_volumetric_model;

#define S sliced_volumetric_model
static const st_field sliced_volumetric_model_fields[] = {
    IGN_ENABLE(S),
    IGN_REAL(S, alpha, "alpha", "0.2", "Opacity of the slices (1 is opaque)"),
    IGN_COLOR(S, color, "color", "1 1 1 1", "Colour of the slices"),
    IGN_INT(S, nb_slices, "nbSlices", "100", "Number of slices"),
    ST_FIELD_END};
#undef S

static const char *const sliced_colours[] = {"color", NULL};

static st_status sliced_init(st_component *self, st_error *err)
{
    return st_headless_check(self, NULL, sliced_colours, err);
}

const st_class sliced_volumetric_model_class = {
    .struct_size = sizeof(st_class),
    .name = "SlicedVolumetricModel",
    .category = "Visual",
    .description = "Draws a volume as slices (headless: nothing drawn)",
    .instance_size = sizeof(sliced_volumetric_model),
    .fields = sliced_volumetric_model_fields,
    .init = sliced_init,
};
