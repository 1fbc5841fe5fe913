/* plugin.c - the Playback plugin (SOFA's Sofa.Component.Playback): states
 * written to and read from SOFA's text state files, and compared with
 * them as SOFA's regression suite does; topologies written (WriteTopology)
 * and compared; Linux input events read as mouse and key events
 * (InputEventReader). */
#include <settee/settee.h>

extern const st_class write_state_class, read_state_class, compare_state_class, monitor_class,
    compare_topology_class, read_topology_class,
    energy_monitor_class, write_topology_class, input_event_reader_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &write_state_class, err));
    ST_TRY(st_registry_add(r, &read_state_class, err));
    ST_TRY(st_registry_add(r, &compare_state_class, err));
    ST_TRY(st_registry_add(r, &compare_topology_class, err));
    ST_TRY(st_registry_add(r, &read_topology_class, err));
    ST_TRY(st_registry_add(r, &monitor_class, err));
    ST_TRY(st_registry_add(r, &energy_monitor_class, err));
    ST_TRY(st_registry_add(r, &write_topology_class, err));
    ST_TRY(st_registry_add(r, &input_event_reader_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Playback", "SofaValidation", NULL};

ST_PLUGIN_DEFINE("Playback", "0.1.0", "State files and monitors: write, read and compare mechanical states and topologies over time, monitor points and energies",
                 "LGPL-2.1-or-later", provides, register_classes)
