/* plugin.c - the Topology.Utility plugin (SOFA's Sofa.Component.Topology.
 * Utility): TopologicalChangeProcessor, which removes elements of dynamic
 * topologies while the scene runs. */
#include <settee/settee.h>

extern const st_class topological_change_processor_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_registry_add(r, &topological_change_processor_class, err);
}

static const char *const provides[] = {"Sofa.Component.Topology.Utility", NULL};

ST_PLUGIN_DEFINE("Topology.Utility", "0.1.0",
                 "Topological changes while a scene runs: TopologicalChangeProcessor",
                 "LGPL-2.1-or-later", provides, register_classes)
