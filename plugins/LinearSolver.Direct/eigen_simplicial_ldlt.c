/* eigen_simplicial_ldlt.c - EigenSimplicialLDLT: SOFA's wrapper of Eigen's
 * SimplicialLDLT, here CHOLMOD's simplicial LDL^T (no pivoting: factors
 * symmetric positive definite and, with nonzero pivots, indefinite
 * matrices). */
#include "direct_common.h"

static const st_field ldlt_fields[] = {DIRECT_F_EIGEN(direct_eigen), ST_FIELD_END};

static st_status ldlt_init(st_component *self, st_error *err)
{
    direct_eigen *s = (direct_eigen *)self;
    s->kind = EIGEN_LDLT;
    return direct_eigen_init(self, &s->ord, s->template_name, s->ordering_method, false, err);
}

const st_class eigen_simplicial_ldlt_class = {
    .struct_size = sizeof(st_class),
    .name = "EigenSimplicialLDLT",
    .category = "LinearSolver",
    .description = "Direct linear solver of the assembled symmetric system: simplicial LDL^T "
                   "(Eigen's SimplicialLDLT in SOFA; CHOLMOD here)",
    .instance_size = sizeof(direct_eigen),
    .fields = ldlt_fields,
    .init = ldlt_init,
    .cleanup = direct_eigen_chol_cleanup,
    .linsolver = &direct_eigen_chol_ops,
};
