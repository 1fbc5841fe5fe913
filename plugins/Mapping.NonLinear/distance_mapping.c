/* distance_mapping.c - DistanceMapping (Vec3d or Rigid3d to Vec1d): each
 * edge (a, b) of the topology maps to its length minus a rest length,
 * y = |x_b - x_a| - L (see distance_common.c for J and the geometric
 * stiffness). restLengths, when it has not one value per edge, is resized
 * with zeros and, unless computeDistance, set to the edges' lengths at init
 * (SOFA's rule). The edges are read once at init. */
#include "distance_common.h"
#include "../shared/options.h"

static st_status distance_init(st_component *self, st_error *err)
{
    return dist_init(self, DIST_LENGTH, err);
}

static const st_field distance_fields[] = {
    MAP_HEAD_FIELDS(dist_map),
    ST_BOOL(dist_map, compute_distance, "computeDistance", "false",
            "if 'computeDistance = true', then rest length of each element equal 0, otherwise "
            "rest length is the initial length of each of them"),
    ST_REALS(dist_map, rest_lengths, "restLengths", "", "Rest lengths of the connections"),
    IGN_REAL(dist_map, show_scale, "showObjectScale", "0", "Scale for object display"),
    IGN_RGBA(dist_map, show_color, "showColor", "1 1 0 1",
             "Color for object display. (default=[1.0,1.0,0.0,1.0])"),
    ST_LINK(dist_map, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    DIST_GS_FIELD,
    ST_FIELD_END};

const st_class distance_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "DistanceMapping",
    .category = "Mapping",
    .description = "Maps point pairs (the edges of a topology) to their distance minus a rest "
                   "length",
    .instance_size = sizeof(dist_map),
    .fields = distance_fields,
    .init = distance_init,
    .reinit = distance_init,
    .cleanup = dist_cleanup,
    .mapping = &dist_ops,
    .templates = dist_templates,
};
