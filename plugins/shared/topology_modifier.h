/* topology_modifier.h - SOFA's topology modifier classes as settee names
 * them: the element kind each removes and adds, and SOFA's class chain
 * (Point < Edge < Triangle < Tetrahedron, Edge < Quad < Hexahedron), by
 * which a search for a modifier of one kind finds those derived from it.
 * Header-only, for any plugin. */
#ifndef SETTEE_SHARED_TOPOLOGY_MODIFIER_H
#define SETTEE_SHARED_TOPOLOGY_MODIFIER_H

#include <string.h>

#include <settee/settee.h>

/* The element kind of a *SetTopologyModifier class, or -1. */
static inline int st_modifier_kind(const st_component *c)
{
    static const char *const names[ST_ELEM_COUNT] = {
        "PointSetTopologyModifier",       "EdgeSetTopologyModifier",
        "TriangleSetTopologyModifier",    "QuadSetTopologyModifier",
        "TetrahedronSetTopologyModifier", "HexahedronSetTopologyModifier"};
    for (int k = 0; k < ST_ELEM_COUNT; k++)
        if (!strcmp(c->cls->name, names[k]))
            return k;
    return -1;
}

/* Whether a modifier of kind k is one of kind base (SOFA's class chain). */
static inline bool st_modifier_derives(int k, int base)
{
    static const int parent[ST_ELEM_COUNT] = {-1, ST_ELEM_POINT, ST_ELEM_EDGE, ST_ELEM_EDGE,
                                              ST_ELEM_TRIANGLE, ST_ELEM_QUAD};
    for (; k >= 0; k = parent[k])
        if (k == base)
            return true;
    return false;
}

/* The first modifier from node n upward whose kind is base or derives from
 * it (base < 0: any): SOFA's getContext()->get<...TopologyModifier>(). */
static inline st_component *st_find_modifier(st_node *n, int base)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *c = st_node_object(n, i);
            int k = st_modifier_kind(c);
            if (k >= 0 && (base < 0 || st_modifier_derives(k, base)))
                return c;
        }
    return NULL;
}

#endif
