/* eigen_common.c - what SOFA's Eigen-named direct solvers share here: the
 * template and ordering checks, and the CHOLMOD backend of
 * EigenSimplicialLDLT and EigenSimplicialLLT (simplicial factorizations,
 * as Eigen's SimplicialLDLT and SimplicialLLT, so that the factors and
 * hence the solutions agree with SOFA's to round-off). Symbolic analysis
 * once per matrix pattern, numeric factorization every step. */
#include "direct_common.h"

st_status direct_eigen_init(st_component *self, direct_ordering *ord, const char *template_name,
                            st_component *link, bool colamd_ok, st_error *err)
{
    ST_TRY(direct_check_template(self, template_name, err));
    /* SOFA creates a MetisOrderingMethod when the solver has none. */
    *ord = DIRECT_ORDER_METIS;
    return direct_resolve_ordering(self, link, NULL, colamd_ok, ord, err);
}

static st_status eigen_bind(st_component *self, st_system *sys, st_error *err)
{
    direct_eigen *s = (direct_eigen *)self;
    direct_chol_finish(&s->ch);
    st_matrix_destroy(&s->m);
    s->sys = sys;
    ST_TRY(st_matrix_create(sys, &s->m, err));
    ST_TRY(direct_chol_start(&s->ch, s->ord, false, self, err));
    s->ch.ldl = s->kind == EIGEN_LDLT;
    s->ch.simplicial = s->kind == EIGEN_LLT;
    return ST_OK;
}

static st_status eigen_set_system(st_component *self, st_system *sys, double mf, double bf,
                                  double kf, st_error *err)
{
    direct_eigen *s = (direct_eigen *)self;
    if (!s->m || s->sys != sys)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    ST_TRY(st_matrix_assemble(s->m, sys, mf, bf, kf, err));
    st_csr a;
    st_matrix_csr(s->m, &a);
    return direct_chol_factor(&s->ch, &a, false, self, sys->mp.time, err);
}

static st_status eigen_solve(st_component *self, st_system *sys, double *x, const double *b,
                             st_error *err)
{
    direct_eigen *s = (direct_eigen *)self;
    return direct_chol_solve(&s->ch, x, b, self, err);
}

void direct_eigen_chol_cleanup(st_component *self)
{
    direct_eigen *s = (direct_eigen *)self;
    direct_chol_finish(&s->ch);
    st_matrix_destroy(&s->m);
}

const st_linsolver_ops direct_eigen_chol_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = eigen_bind,
    .set_system = eigen_set_system,
    .solve = eigen_solve,
};
