/* ordering_methods.c - AMDOrderingMethod, NaturalOrderingMethod and
 * COLAMDOrderingMethod. The three are data-free markers, so their class
 * records share this file rather than taking one file each: a direct solver
 * of LinearSolver.Direct finds one (its `orderingMethod` link, or the one in
 * its node), reads which class it is and asks CHOLMOD or UMFPACK for that
 * permutation. */
#include <settee/settee.h>

const st_class amd_ordering_method_class = {
    .struct_size = sizeof(st_class),
    .name = "AMDOrderingMethod",
    .category = "OrderingMethod",
    .description = "Approximate minimum degree fill-reducing ordering (SuiteSparse AMD), for "
                   "SparseLDLSolver, SparseCholeskySolver and SparseLUSolver",
    .instance_size = sizeof(st_component),
};

const st_class natural_ordering_method_class = {
    .struct_size = sizeof(st_class),
    .name = "NaturalOrderingMethod",
    .category = "OrderingMethod",
    .description = "The identity permutation: the system is factored in the order of its "
                   "degrees of freedom",
    .instance_size = sizeof(st_component),
};

const st_class colamd_ordering_method_class = {
    .struct_size = sizeof(st_class),
    .name = "COLAMDOrderingMethod",
    .category = "OrderingMethod",
    .description = "Column approximate minimum degree ordering for LU of non-symmetric "
                   "matrices (SparseLUSolver only, through UMFPACK's unsymmetric strategy)",
    .instance_size = sizeof(st_component),
};
