/* eigen_sparse_lu.c - EigenSparseLU: SOFA's wrapper of Eigen's SparseLU
 * (supernodal LU with partial pivoting, diagonal pivot threshold 1), here
 * UMFPACK with the same backend as SparseLUSolver and pivot tolerance 1
 * (plain partial pivoting). Non-symmetric systems. */
#include "direct_common.h"

static const st_field elu_fields[] = {DIRECT_F_EIGEN(direct_lu), ST_FIELD_END};

static st_status elu_init(st_component *self, st_error *err)
{
    direct_lu *s = (direct_lu *)self;
    s->tolerance = 1.0; /* Eigen's SparseLU: partial pivoting */
    return direct_eigen_init(self, &s->ord, s->template_name, s->ordering_method, true, err);
}

const st_class eigen_sparse_lu_class = {
    .struct_size = sizeof(st_class),
    .name = "EigenSparseLU",
    .category = "LinearSolver",
    .description = "Direct linear solver of the assembled system: sparse LU with partial "
                   "pivoting (Eigen's SparseLU in SOFA; UMFPACK here), non-symmetric systems",
    .instance_size = sizeof(direct_lu),
    .fields = elu_fields,
    .init = elu_init,
    .cleanup = direct_lu_cleanup,
    .linsolver = &direct_lu_ops,
};
