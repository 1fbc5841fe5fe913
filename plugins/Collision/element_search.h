/* element_search.h - which element pairs of two collision models have
 * bounding boxes that meet within the alarm distance: the candidates that
 * the intersection method then tests. Three searches, one per broad phase
 * (element_search.c):
 * - CS_GRID (BruteForceBroadPhase + BVHNarrowPhase): a uniform grid of the
 *   second model's elements, its cells numbered densely (or hashed when the
 *   grid would be too sparse), the elements stored cell after cell in
 *   contiguous arrays;
 * - CS_DIRECT_SAP (DirectSAP, SOFA's DirectSAPNarrowPhase): the boxes'
 *   end points along the axis of largest variance sorted each step (radix
 *   sort), then swept;
 * - CS_INCR_SAP (IncrSAP): the same end point list kept from step to step
 *   and re-sorted by insertion sort (nearly sorted when bodies move a
 *   little), then swept.
 * The sweep keeps its active boxes in stripes along the axis of second
 * largest variance, so that two surfaces in contact do not pay for every
 * box that overlaps along the sweep axis alone.
 * Every search gives exactly the pairs for which cs_boxes_meet holds (and
 * j > i within one model), listed by i, then by j, ascending: the same
 * contacts in the same order whatever the broad phase. Nothing is
 * allocated once the arrays have reached their largest size. */
#ifndef COLLISION_ELEMENT_SEARCH_H
#define COLLISION_ELEMENT_SEARCH_H

#include <stdint.h>

#include "collision.h"

typedef enum cs_kind { CS_GRID = 0, CS_DIRECT_SAP, CS_INCR_SAP } cs_kind;

/* Whether boxes a and b (min xyz, max xyz) meet within tol; false when a
 * coordinate is NaN. Every search applies this very test last. */
static inline bool cs_boxes_meet(const double *a, const double *b, double tol)
{
    for (int k = 0; k < 3; k++)
        if (!(a[k] <= b[k + 3] + tol && b[k] <= a[k + 3] + tol))
            return false;
    return true;
}

/* One sweep end point: the sort key of its value (element_search.c's
 * end_key) and who it is (flattened element << 1 | is_max: the first
 * model's elements, then the second's). */
typedef struct cs_end {
    uint32_t key;
    uint32_t id;
} cs_end;

/* The search state of one pair of models (owned by its cpair). */
typedef struct csearch {
    /* Output: the candidates of element i of the first model are
     * oj[ostart[i]] .. oj[ostart[i + 1] - 1], ascending. */
    uint32_t *ostart, *oj;
    size_t nstart, capj;
    size_t ncand;
    /* Raw candidates (the sweeps find them out of order). */
    uint32_t *ci, *cj;
    size_t capc;
    /* Grid: per cell (or bucket) where its elements start, the elements
     * stored cell after cell (index, cell, box), their home cells. */
    uint32_t *gstart, *gelem, *gbkt;
    int32_t *gcell, *home;
    double *gbox;
    size_t capg, capn, caph;
    /* Sweep: end points (sorted), their radix-sort twin, the stripes'
     * active lists (doubly linked entries, one per box and stripe it
     * covers: per box its first entry). */
    cs_end *ends, *tmp;
    size_t nends, cape;
    uint32_t *first, *ecount;
    uint32_t *slot_elem; /* the element in each slot (order of lower end points) */
    double *sbox;        /* the boxes, slot after slot */
    size_t capb;
    int32_t *enext, *eprev, *eowner, *estripe;
    size_t capl;
    int32_t *heads;
    size_t caps;
    /* IncrSAP: the sizes and axis the kept end point list was built for. */
    size_t n0, n1;
    int axis;
    bool kept;
} csearch;

/* Fills s's output for models m0 and m1 (self: one model against
 * itself) with boxes meeting within alarm. */
st_status cs_find(csearch *s, cs_kind kind, const cmodel *m0, const cmodel *m1, double alarm,
                  st_error *err);
void cs_free(csearch *s);

#endif
