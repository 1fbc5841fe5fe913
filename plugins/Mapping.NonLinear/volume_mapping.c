/* volume_mapping.c - VolumeMapping (Vec3d to Vec1d): each tetrahedron
 * (v0..v3) of the topology maps to its signed volume
 * (v1 - v0) . ((v2 - v0) x (v3 - v0)) / 6, negative when inverted (J and the
 * geometric stiffness in measure_common.c). The tetrahedra are read once at
 * init; hexahedra are refused, as SOFA does. */
#include "measure_common.h"

static st_status volume_init(st_component *self, st_error *err)
{
    return measure_init(self, MEASURE_VOLUME, err);
}

static const char *const volume_templates[] = {"Vec3d", NULL};

static const st_field volume_fields[] = {
    MAP_HEAD_FIELDS(measure_map),
    ST_LINK(measure_map, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    MEASURE_GS_FIELD,
    ST_FIELD_END};

const st_class volume_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "VolumeMapping",
    .category = "Mapping",
    .description = "Mapping each tetrahedron in a topology to a scalar value representing its volume",
    .instance_size = sizeof(measure_map),
    .fields = volume_fields,
    .init = volume_init,
    .reinit = volume_init,
    .cleanup = measure_cleanup,
    .mapping = &measure_ops,
    .templates = volume_templates,
};
