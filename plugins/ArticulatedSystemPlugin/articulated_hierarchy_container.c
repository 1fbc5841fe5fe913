/* articulated_hierarchy_container.c - ArticulatedHierarchyContainer: marks
 * the subtree whose ArticulationCenters (scene order) make an articulated
 * system; ArticulatedSystemMapping finds it below its input1's node (or
 * through its "container" link) and reads the centers from there. SOFA
 * can also build the centers from a BVH motion file ("filename"); settee
 * does not read BVH files and says so. */
#include "articulated.h"

static const st_field container_fields[] = {
    ST_STRING(articulated_hierarchy_container, filename, "filename", "",
              "BVH File to load the articulation (not supported by settee: an error)"),
    ST_FIELD_END};

static st_status container_init(st_component *self, st_error *err)
{
    articulated_hierarchy_container *c = (articulated_hierarchy_container *)self;
    if (c->filename && c->filename[0])
        return st_component_error(self, "filename", err, ST_ESCENE,
                                  "loading articulations from a BVH file ('%s') is not "
                                  "supported; describe them with ArticulationCenter and "
                                  "Articulation",
                                  c->filename);
    return ST_OK;
}

const st_class articulated_hierarchy_container_class = {
    .struct_size = sizeof(st_class),
    .name = "ArticulatedHierarchyContainer",
    .category = "Misc",
    .description = "Holds the articulation centers of an articulated rigid system.",
    .instance_size = sizeof(articulated_hierarchy_container),
    .fields = container_fields,
    .init = container_init,
    .reinit = container_init,
};
