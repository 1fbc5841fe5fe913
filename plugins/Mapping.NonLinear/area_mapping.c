/* area_mapping.c - AreaMapping (Vec3d to Vec1d): each triangle (v0, v1, v2)
 * of the topology maps to its area |(v1 - v0) x (v2 - v0)| / 2 (J and the
 * geometric stiffness in measure_common.c). The triangles are read once at
 * init; quads are refused, as SOFA does. */
#include "measure_common.h"

static st_status area_init(st_component *self, st_error *err)
{
    return measure_init(self, MEASURE_AREA, err);
}

static const char *const area_templates[] = {"Vec3d", NULL};

static const st_field area_fields[] = {
    MAP_HEAD_FIELDS(measure_map),
    ST_LINK(measure_map, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    MEASURE_GS_FIELD,
    ST_FIELD_END};

const st_class area_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "AreaMapping",
    .category = "Mapping",
    .description = "Mapping each triangle in a topology to a scalar value representing its area",
    .instance_size = sizeof(measure_map),
    .fields = area_fields,
    .init = area_init,
    .reinit = area_init,
    .cleanup = measure_cleanup,
    .mapping = &measure_ops,
    .templates = area_templates,
};
