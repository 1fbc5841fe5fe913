/* metis_ordering_method.c - MetisOrderingMethod: nested dissection by METIS
 * (CHOLMOD's or UMFPACK's METIS interface computes it). Data-free: the
 * direct solvers read its class; as in SOFA it belongs to this plugin while
 * the other orderings live in LinearSolver.Ordering. */
#include <settee/settee.h>

const st_class metis_ordering_method_class = {
    .struct_size = sizeof(st_class),
    .name = "MetisOrderingMethod",
    .category = "OrderingMethod",
    .description = "Nested-dissection fill-reducing ordering (METIS), for SparseLDLSolver, "
                   "SparseCholeskySolver and SparseLUSolver",
    .instance_size = sizeof(st_component),
};
