/* topology_link.h - the topology a component reads, as SOFA's components
 * find it: their `topology` link, else their context's (the last topology
 * of their node, else of the nearest ancestor holding one). Header-only, for
 * any plugin. */
#ifndef SETTEE_SHARED_TOPOLOGY_LINK_H
#define SETTEE_SHARED_TOPOLOGY_LINK_H

#include <settee/settee.h>

/* Resolves *topology (left as linked when set) as SOFA's
 * getContext()->getMeshTopologyLink(): the topology the node registered
 * last (a node keeps one: each new one replaces the previous, so a grid
 * followed by the container a Hexa2TetraTopologicalMapping fills gives the
 * container), else its parent's; SOFA's error naming the link and the node
 * when there is none. */
static inline st_status st_find_topology(st_component *self, st_component **topology,
                                         st_error *err)
{
    for (st_node *n = self->node; n && !*topology; n = st_node_parent(n))
        for (size_t i = st_node_object_count(n); i-- > 0 && !*topology;) {
            st_component *c = st_node_object(n, i);
            if (c->cls->topology && st_component_has_role(c, ST_ROLE_TOPOLOGY))
                *topology = c;
        }
    if (!*topology || !(*topology)->cls->topology)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "No topology component found at path: %s, nor in current "
                                  "context: %s",
                                  *topology ? (*topology)->name : "(none)",
                                  st_node_name(self->node));
    return ST_OK;
}

/* Registers fn for the changes of every topology of self's node and of its
 * ancestors: SOFA's TopologyChangeVisitor and StateChangeVisitor reach a
 * component from any modifier above it (IdentityMapping re-inits, visual
 * and collision models re-read their lists). Call once per component. */
static inline st_status st_listen_topologies_above(st_component *self, st_topo_listener fn,
                                                   st_error *err)
{
    for (st_node *n = self->node; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            if (c != self && c->cls->topology)
                ST_TRY(st_topology_listen(self, c, fn, err));
        }
    return ST_OK;
}

/* True while topo has more points than the state it reads: a topological
 * mapping's output (Quad2Triangle, Tetra2Triangle) hears of its removed
 * elements before of the removed points, which the shared state has already
 * lost, so its lists still name points past the state's end until the point
 * removal reaches it. A listener keeps its followed data then, and waits for
 * that change to check vertex indices and rebuild per-vertex data (SOFA's
 * handlers do not look at vertices in between). */
static inline bool st_topology_state_ahead(st_component *topo, size_t state_points)
{
    const st_topology_ops *t = topo && topo->cls ? topo->cls->topology : NULL;
    size_t tp = t && t->nb_points ? t->nb_points(topo) : 0;
    if (tp == 0 && topo) {
        /* a container without positions (a mapping's output): SOFA's
         * nbPoints, which the mapping set from its input */
        const st_field *f = st_component_field(topo, "nbPoints");
        if (f && f->type == ST_T_UINT)
            tp = *(const unsigned *)st_component_field_ptr(topo, f);
    }
    return tp > state_points;
}

#endif
