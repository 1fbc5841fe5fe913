/* eigen_simplicial_llt.c - EigenSimplicialLLT: SOFA's wrapper of Eigen's
 * SimplicialLLT, here CHOLMOD's simplicial LL^T (symmetric positive
 * definite matrices only: anything else is an error naming the column). */
#include "direct_common.h"

static const st_field llt_fields[] = {DIRECT_F_EIGEN(direct_eigen), ST_FIELD_END};

static st_status llt_init(st_component *self, st_error *err)
{
    direct_eigen *s = (direct_eigen *)self;
    s->kind = EIGEN_LLT;
    return direct_eigen_init(self, &s->ord, s->template_name, s->ordering_method, false, err);
}

const st_class eigen_simplicial_llt_class = {
    .struct_size = sizeof(st_class),
    .name = "EigenSimplicialLLT",
    .category = "LinearSolver",
    .description = "Direct linear solver of the assembled symmetric positive definite system: "
                   "simplicial LL^T (Eigen's SimplicialLLT in SOFA; CHOLMOD here)",
    .instance_size = sizeof(direct_eigen),
    .fields = llt_fields,
    .init = llt_init,
    .cleanup = direct_eigen_chol_cleanup,
    .linsolver = &direct_eigen_chol_ops,
};
