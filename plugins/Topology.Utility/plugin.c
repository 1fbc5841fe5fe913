/* plugin.c - the Topology.Utility plugin (SOFA's Sofa.Component.Topology.
 * Utility): TopologicalChangeProcessor and TopologyBoundingTrasher, which
 * remove elements of dynamic topologies while the scene runs, and
 * TopologyChecker, which checks a container's lists. */
#include <settee/settee.h>

extern const st_class topological_change_processor_class, topology_bounding_trasher_class,
    topology_checker_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &topological_change_processor_class, err));
    ST_TRY(st_registry_add(r, &topology_bounding_trasher_class, err));
    return st_registry_add(r, &topology_checker_class, err);
}

static const char *const provides[] = {"Sofa.Component.Topology.Utility", NULL};

ST_PLUGIN_DEFINE("Topology.Utility", "0.1.0",
                 "Topological changes while a scene runs, and their checks: TopologicalChangeProcessor, TopologyBoundingTrasher, TopologyChecker",
                 "LGPL-2.1-or-later", provides, register_classes)
