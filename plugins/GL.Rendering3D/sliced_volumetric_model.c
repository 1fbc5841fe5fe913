/* sliced_volumetric_model.c - SlicedVolumetricModel: a volume drawn as
 * textured slices. Headless: fields kept, nothing drawn. */
#include <settee/settee.h>

#include "../shared/options.h"

typedef struct sliced_volumetric_model {
    st_component base;
    bool enable;
    double alpha;
    st_vec4 color;
    int nb_slices;
} sliced_volumetric_model;

#define S sliced_volumetric_model
static const st_field sliced_volumetric_model_fields[] = {
    IGN_ENABLE(S),
    IGN_REAL(S, alpha, "alpha", "0.2", "Opacity of the slices (1 is opaque)"),
    IGN_RGBA(S, color, "color", "1 1 1 1", "Colour of the slices"),
    IGN_INT(S, nb_slices, "nbSlices", "100", "Number of slices"),
    ST_FIELD_END};
#undef S

ST_HEADLESS_CLASS(sliced_volumetric_model_class, "SlicedVolumetricModel", "Visual",
                  "Draws a volume as slices (headless: nothing drawn)",
                  sliced_volumetric_model, sliced_volumetric_model_fields, NULL, NULL, NULL);
