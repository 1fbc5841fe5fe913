/* topology.h - topologies that change while a scene runs (ABI 2.4, 2.5,
 * 2.6): SOFA's
 * dynamic containers, their topological changes, and the data that follow
 * them (SOFA's TopologyData, TopologySubsetData and their handlers).
 *
 * A change is an ordered list of events. A removal names the removed
 * elements in the order they are removed (SOFA's: descending); each removal
 * moves the topology's last element into the hole, so that the arrays stay
 * dense. An addition appends elements at the end. Removing elements may
 * leave sub-elements or points isolated: the container then sends their
 * removal as further events, as SOFA's modifiers do.
 *
 * A component says which of its arrays are indexed by a topology's points
 * or elements (st_topology_follow, st_topology_follow_field) and which of
 * its index lists name them (st_topology_follow_subset); the kernel applies
 * every event to them, in the order the components registered, so that no
 * component writes the renumbering by hand. A component that must redo a
 * computation after a change (a mass summed over elements) listens
 * (st_topology_listen). After a change the kernel rebuilds the mechanical
 * systems and the linear solvers' patterns before the next solve, and only
 * then: a step without a change allocates nothing.
 *
 * A component that reads a topology without following it (st_topology_use,
 * which plugins/shared/topology_link.h calls) makes a change of that
 * topology an error naming it, rather than a run that reads stale indices.
 */
#ifndef SETTEE_TOPOLOGY_H
#define SETTEE_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/component.h"
#include "settee/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a topology holds, by dimension. */
typedef enum st_elem {
    ST_ELEM_POINT = 0,
    ST_ELEM_EDGE,
    ST_ELEM_TRIANGLE,
    ST_ELEM_QUAD,
    ST_ELEM_TETRAHEDRON,
    ST_ELEM_HEXAHEDRON
} st_elem;
#define ST_ELEM_COUNT 6

/* Vertices of one element: 1 2 3 4 4 8. */
ST_API unsigned st_elem_vertices(st_elem e);
/* SOFA's plural names: "points", "edges", "triangles", "quads",
 * "tetrahedra", "hexahedra". */
ST_API const char *st_elem_name(st_elem e);

typedef enum st_topo_change {
    ST_TOPO_REMOVED = 1, /* SOFA's PointsRemoved, EdgesRemoved, ... */
    ST_TOPO_ADDED = 2    /* SOFA's PointsAdded, EdgesAdded, ... */
} st_topo_change;

/* One event of a change. */
typedef struct st_topo_event {
    st_topo_change change;
    st_elem elem;
    size_t n;              /* elements removed or added */
    size_t before;         /* elements of this kind before this event */
    /* REMOVED: the removed indices in removal order; removing index[k]
     * moves the then-last element (before - 1 - k) into index[k]. ADDED:
     * the indices of the new elements (before, before + 1, ...). */
    const unsigned *index;
    /* n * st_elem_vertices(elem) vertex indices: ADDED, the new elements;
     * REMOVED, the removed ones as they were (in the numbering of points
     * before this change's point events). NULL for points. */
    const unsigned *vertices;
    /* ADDED, optional (NULL): SOFA's ancestors and barycentric
     * coefficients of element k: ancestors[ancestor_start[k] ..
     * ancestor_start[k + 1]) with coefs at the same positions. */
    const size_t *ancestor_start;
    const unsigned *ancestors;
    const double *coefs;
} st_topo_event;

/* Callbacks of a followed array; each may be NULL. */
typedef struct st_topo_follow_ops {
    size_t struct_size;
    /* Element i is about to be removed; item is its data (still at i). */
    void (*destroy)(void *ud, size_t i, void *item);
    /* Element i was added (ev->index[k] == i); item is zero-filled. */
    void (*create)(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k);
} st_topo_follow_ops;

/* Follows an array of owner's, indexed by topology's elements of kind
 * elem: *items holds *n items of item_size bytes, allocated with
 * st_malloc/st_realloc (the kernel reallocates it). Items must be plain
 * data: the kernel moves them with memcpy and saves them in checkpoints.
 * ops and ud must outlive the registration, which ends when owner is
 * destroyed. */
ST_API st_status st_topology_follow(st_component *owner, st_component *topology, st_elem elem,
                                    void **items, size_t *n, size_t item_size,
                                    const st_topo_follow_ops *ops, void *ud, st_error *err);
/* The same for an array field of owner (any st_array type: state vectors,
 * reals, indices, element lists): its tuples follow. An empty field stays
 * empty. */
ST_API st_status st_topology_follow_field(st_component *owner, const char *field,
                                          st_component *topology, st_elem elem,
                                          const st_topo_follow_ops *ops, void *ud,
                                          st_error *err);
/* An index field of owner (ST_T_UINTS) that lists some of topology's
 * elements (SOFA's TopologySubsetData: FixedProjectiveConstraint.indices):
 * an entry naming a removed element is dropped, and one naming the element
 * that moves into the hole is renumbered. */
ST_API st_status st_topology_follow_subset(st_component *owner, const char *field,
                                           st_component *topology, st_elem elem,
                                           st_error *err);

/* An index field of owner that names topology's points (its own copy of
 * element lists, a spring's ends: ST_T_UINTS, ST_T_EDGES ... ST_T_HEXAS):
 * when points are removed, an entry naming the point that moves into the
 * hole is renumbered, as the containers renumber their elements. An entry
 * naming a removed point is an error: remove the elements first. */
ST_API st_status st_topology_follow_vertices(st_component *owner, const char *field,
                                             st_component *topology, st_error *err);

/* Called after each change of topology, once its events reached every
 * followed array; and, when a checkpoint of a run that changed the
 * topology is read (--resume), once more with no events (ev NULL, nev 0)
 * after the topology, the followed arrays and the states are restored:
 * rebuild from the topology as it now is, or do nothing. */
typedef st_status (*st_topo_listener)(st_component *owner, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err);
ST_API st_status st_topology_listen(st_component *owner, st_component *topology,
                                    st_topo_listener fn, st_error *err);

/* owner reads topology without following its changes: a later change of
 * it fails, naming owner (see the top of this header). Idempotent. */
ST_API st_status st_topology_use(st_component *owner, st_component *topology, st_error *err);

/* For topologies (containers): announces a change, once the topology's
 * own lists hold its result. The events are in SOFA's order (elements, then
 * the sub-elements and points they left isolated); each applies to the
 * followers in turn, then the listeners hear of the whole change, and the
 * systems are rebuilt before the next solve. An error (a reader that does
 * not follow, an inconsistent array, a listener's error) stops the run. */
ST_API st_status st_topology_changed(st_component *topology, const st_topo_event *ev, size_t nev,
                                     st_error *err);

/* Asks a topology to remove elements (st_topology_ops.remove), as SOFA's
 * modifiers do: ids in any order, out-of-range ones skipped with SOFA's
 * warning, isolated sub-elements and points removed too where the
 * container does so. ST_EINVAL when the topology cannot change. */
ST_API st_status st_topology_remove(st_component *topology, st_elem elem, const unsigned *ids,
                                    size_t n, st_error *err);

/* ABI 2.5. Asks a topology to add n elements of kind elem on existing
 * points (st_topology_ops.add), as SOFA's modifiers do (addEdges,
 * addTriangles, addQuads, addTetrahedra, addHexahedra): the new elements go
 * at the end of the list, and the sub-elements they need that the
 * container lacks (a triangle's edges, a tetrahedron's faces) are added
 * before them. Components that follow the topology get ADDED
 * events and compute the new elements' data from the rest positions, as
 * SOFA's creation callbacks. ST_EINVAL when the topology cannot add that
 * kind. */
ST_API st_status st_topology_add(st_component *topology, st_elem elem, const unsigned *verts,
                                 size_t n, st_error *err);

/* ABI 2.6. Asks a topology to add n points (st_topology_ops.add_points),
 * as SOFA's addPoints(n, ancestors, coefs): point k is made of the points
 * ancestors[ancestor_start[k] .. ancestor_start[k + 1]) with the weights
 * coefs at the same positions (ancestor_start has n + 1 entries; all three
 * NULL: points without ancestors). The new points go at the end; the
 * states that follow the topology give them the weighted sums of their
 * ancestors' values in every vector (positions, velocities, rest
 * positions...), as SOFA's MechanicalObject does. ST_EINVAL when the
 * topology cannot add points or an ancestor is not one of its points. */
ST_API st_status st_topology_add_points(st_component *topology, size_t n,
                                        const size_t *ancestor_start, const unsigned *ancestors,
                                        const double *coefs, st_error *err);

/* ABI 2.11. Whether the topology can change while the scene runs (its
 * class has the operation): remove elements of kind elem (ST_TOPO_REMOVED),
 * or add them (ST_TOPO_ADDED: points through add_points, other kinds
 * through add). SOFA's dynamic containers (*SetTopologyContainer with
 * their modifier) can; static ones (MeshTopology, grids) cannot. */
ST_API bool st_topology_can_change(const st_component *topology, st_topo_change change,
                                   st_elem elem);

/* How many changes the topology has announced (0 before the first). */
ST_API unsigned long st_topology_revision(const st_component *topology);

#ifdef __cplusplus
}
#endif

#endif
