/* square_distance_mapping.c - SquareDistanceMapping (Vec3d or Rigid3d to
 * Vec1d): each edge (a, b) of the topology maps to its squared length,
 * y = |x_b - x_a|^2, with no rest length (see distance_common.c for J and
 * the geometric stiffness). The edges are read once at init. */
#include "distance_common.h"
#include "../shared/options.h"

static st_status square_init(st_component *self, st_error *err)
{
    return dist_init(self, DIST_SQUARE, err);
}

static const st_field square_fields[] = {
    MAP_HEAD_FIELDS(dist_map),
    IGN_REAL(dist_map, show_scale, "showObjectScale", "0", "Scale for object display"),
    IGN_RGBA(dist_map, show_color, "showColor", "1 1 0 1",
             "Color for object display. (default=[1.0,1.0,0.0,1.0])"),
    ST_LINK(dist_map, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    DIST_GS_FIELD,
    ST_FIELD_END};

const st_class square_distance_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SquareDistanceMapping",
    .category = "Mapping",
    .description = "Maps point pairs (the edges of a topology) to their squared distance",
    .instance_size = sizeof(dist_map),
    .fields = square_fields,
    .init = square_init,
    .reinit = square_init,
    .cleanup = dist_cleanup,
    .mapping = &dist_ops,
    .templates = dist_templates,
};
