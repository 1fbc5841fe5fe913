/* topology_link.h - the topology a component reads, as SOFA's components
 * find it: their `topology` link, else the first topology found upward from
 * their node. Header-only (one static function), for any plugin. */
#ifndef SETTEE_SHARED_TOPOLOGY_LINK_H
#define SETTEE_SHARED_TOPOLOGY_LINK_H

#include <settee/settee.h>

/* Resolves *topology (left as linked when set); SOFA's error naming the
 * link and the node when there is none. */
static inline st_status st_find_topology(st_component *self, st_component **topology,
                                         st_error *err)
{
    if (!*topology)
        *topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!*topology || !(*topology)->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  *topology ? (*topology)->name : "(none)",
                                  st_node_name(self->node));
    return ST_OK;
}

#endif
