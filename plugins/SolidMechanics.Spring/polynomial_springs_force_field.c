/* polynomial_springs_force_field.c - PolynomialSpringsForceField (Vec3d):
 * springs between point firstObjectPoints[i] of object1 and point
 * secondObjectPoints[i] of object2 whose force is a polynomial of the
 * strain, as SOFA's:
 *   d = x2_j - x1_i,  L = |d|,  u = d / L,  s = |L - L0| / L0,
 *   F = P_k(s) sign,  sign = 1 when L >= L0, else -1 if compressible, else 0,
 *   f1_i += F u,  f2_j -= F u,
 * L0 the spring's length at init (computeZeroLength = 1) or zeroLength[i]
 * (one value: for all), P_k the i-th polynomial when polynomialDegree has
 * one entry per spring, else the first. The stiffness is SOFA's:
 *   J = (P'(s) / L0 - P(s) / L) u u^T + P(s) / L I,
 *   df1_i += kfactor J (dx2_j - dx1_i),  df2_j -= the same,
 * which is the derivative of the force in extension; SOFA uses it in
 * compression too (sign not applied), and so do we. */
#include <math.h>

#include "polynomial.h"
#include "springs.h"

typedef struct poly_ff {
    st_component base;
    st_array first_points;    /* "firstObjectPoints" */
    st_array second_points;   /* "secondObjectPoints" */
    st_array stiffness;       /* "polynomialStiffness" */
    st_array degree;          /* "polynomialDegree" */
    int compute_zero_length;  /* "computeZeroLength" */
    st_array zero_length;     /* "zeroLength" */
    bool recompute_indices;   /* "recompute_indices" */
    bool compressible;        /* "compressible" */
    int draw_mode;            /* "drawMode" */
    double show_arrow_size;   /* "showArrowSize" */
    st_vec4 spring_color;     /* "springColor" */
    double show_indices_scale; /* "showIndicesScale" */
    double rayleigh_stiffness;
    st_component *object1, *object2;
    st_mstate *ms1, *ms2;
    size_t n;                 /* springs */
    unsigned *start;          /* first coefficient of each polynomial */
    double *l0;               /* n: rest lengths */
    double (*jac)[9];         /* n: J of the last add_force, row-major */
} poly_ff;

static unsigned pf_first(const poly_ff *s, size_t i)
{
    return s->first_points.n ? s->first_points.u[i] : (unsigned)i;
}

static unsigned pf_second(const poly_ff *s, size_t i)
{
    return s->second_points.n ? s->second_points.u[i] : (unsigned)i;
}

static st_status pf_check_points(st_component *self, const st_array *pts, const st_mstate *ms,
                                 const char *field, st_error *err)
{
    for (size_t i = 0; i < pts->n; i++)
        if (pts->u[i] >= ms->n)
            return st_component_error(self, field, err, ST_EINVAL,
                                      "point %u out of range: '%s' has %zu points", pts->u[i],
                                      ms->base.name, ms->n);
    return ST_OK;
}

static st_status pf_init(st_component *self, st_error *err)
{
    poly_ff *s = (poly_ff *)self;
    ST_TRY(springs_link_state(self, s->object1, "object1", &s->ms1, err));
    ST_TRY(springs_link_state(self, s->object2, "object2", &s->ms2, err));
    for (int k = 0; k < 2; k++) {
        const st_mstate *ms = k ? s->ms2 : s->ms1;
        if (ms->type->coord_size != 3 || ms->type->rigid)
            return st_component_error(self, k ? "object2" : "object1", err, ST_ESCENE,
                                      "the state '%s' is %s: SOFA's PolynomialSpringsForceField "
                                      "exists for Vec3d only",
                                      ms->base.name, ms->type->name);
    }
    ST_TRY(pf_check_points(self, &s->first_points, s->ms1, "firstObjectPoints", err));
    ST_TRY(pf_check_points(self, &s->second_points, s->ms2, "secondObjectPoints", err));
    const size_t n1 = s->first_points.n ? s->first_points.n : s->ms1->n;
    const size_t n2 = s->second_points.n ? s->second_points.n : s->ms2->n;
    if (n1 > n2)
        return st_component_error(self, "secondObjectPoints", err, ST_EINVAL,
                                  "the dimension of the source and the targeted points are "
                                  "different: %zu first points, %zu second points",
                                  n1, n2);
    ST_TRY(poly_setup(self, &s->stiffness, &s->degree, &s->start, err));
    s->n = n1;
    st_free(s->l0);
    st_free(s->jac);
    s->l0 = st_calloc(n1 ? n1 : 1, sizeof *s->l0);
    s->jac = st_calloc(n1 ? n1 : 1, sizeof *s->jac);
    if (!s->l0 || !s->jac)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    if (s->compute_zero_length != 1 && s->zero_length.n == 0)
        return st_component_error(self, "zeroLength", err, ST_EINVAL,
                                  "computeZeroLength is %d, so zeroLength must give the rest "
                                  "lengths (one for all, or one per spring)",
                                  s->compute_zero_length);
    /* SOFA takes the lengths of the first force computation, the
     * positions at init. */
    const double *x1 = s->ms1->position.r, *x2 = s->ms2->position.r;
    for (size_t i = 0; i < n1; i++) {
        if (s->compute_zero_length == 1) {
            const double *a = x1 + 3 * (size_t)pf_first(s, i), *b = x2 + 3 * (size_t)pf_second(s, i);
            const double d[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
            s->l0[i] = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        } else {
            if (s->zero_length.n > 1 && i >= s->zero_length.n)
                return st_component_error(self, "zeroLength", err, ST_EINVAL,
                                          "%zu lengths for %zu springs", s->zero_length.n, n1);
            s->l0[i] = s->zero_length.r[s->zero_length.n > 1 ? i : 0];
        }
        if (!(s->l0[i] > 0.0))
            return st_component_error(self, s->compute_zero_length == 1 ? NULL : "zeroLength",
                                      err, ST_EINVAL,
                                      "spring %zu (points %u and %u) has rest length %g: the "
                                      "strain divides by it, it must be > 0",
                                      i, pf_first(s, i), pf_second(s, i), s->l0[i]);
    }
    return ST_OK;
}

static void pf_cleanup(st_component *self)
{
    poly_ff *s = (poly_ff *)self;
    st_free(s->start);
    st_free(s->l0);
    st_free(s->jac);
    s->start = NULL;
    s->l0 = NULL;
    s->jac = NULL;
}

static void pf_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    poly_ff *s = (poly_ff *)self;
    double *f1 = st_slice(f, s->ms1), *f2 = st_slice(f, s->ms2);
    const double *x1 = st_slice_x(x, s->ms1), *x2 = st_slice_x(x, s->ms2);
    const bool per_spring = s->degree.n == s->n;
    const double compression = s->compressible ? -1.0 : 0.0;
    for (size_t i = 0; i < s->n; i++) {
        const size_t a = pf_first(s, i), b = pf_second(s, i);
        const size_t k = per_spring ? i : 0;
        const double *c = s->stiffness.r + s->start[k];
        const unsigned deg = s->degree.u[k];
        double d[3];
        for (int j = 0; j < 3; j++)
            d[j] = x2[3 * b + j] - x1[3 * a + j];
        const double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double *J = s->jac[i];
        if (len == 0.0) {
            /* No direction: no force (SOFA divides by zero here). */
            for (int j = 0; j < 9; j++)
                J[j] = 0.0;
            continue;
        }
        const double l0 = s->l0[i];
        const double strain = fabs(len - l0) / l0;
        const double pv = poly_value(c, deg, strain);
        const double sign = len - l0 >= 0.0 ? 1.0 : compression;
        double u[3];
        for (int j = 0; j < 3; j++) {
            u[j] = d[j] / len;
            f1[3 * a + j] += pv * sign * u[j];
            f2[3 * b + j] -= pv * sign * u[j];
        }
        const double fl = pv / len, dl = poly_derivative(c, deg, strain) / l0;
        for (int r = 0; r < 3; r++) {
            for (int q = 0; q < 3; q++)
                J[3 * r + q] = (dl - fl) * u[r] * u[q];
            J[4 * r] += fl;
        }
    }
}

static void pf_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    poly_ff *s = (poly_ff *)self;
    double *df1 = st_slice(df, s->ms1), *df2 = st_slice(df, s->ms2);
    const double *dx1 = st_slice(dx, s->ms1), *dx2 = st_slice(dx, s->ms2);
    for (size_t i = 0; i < s->n; i++) {
        const size_t a = pf_first(s, i), b = pf_second(s, i);
        const double *J = s->jac[i];
        double dd[3];
        for (int j = 0; j < 3; j++)
            dd[j] = dx2[3 * b + j] - dx1[3 * a + j];
        for (int r = 0; r < 3; r++) {
            const double g = (J[3 * r] * dd[0] + J[3 * r + 1] * dd[1] + J[3 * r + 2] * dd[2]) *
                             kfactor;
            df1[3 * a + r] += g;
            df2[3 * b + r] -= g;
        }
    }
}

static void pf_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    poly_ff *s = (poly_ff *)self;
    for (size_t i = 0; i < s->n; i++) {
        const size_t a = pf_first(s, i), b = pf_second(s, i);
        double pos[9], neg[9];
        for (int j = 0; j < 9; j++) {
            pos[j] = kfactor * s->jac[i][j];
            neg[j] = -pos[j];
        }
        st_matrix_add_block(m, s->ms1, a, s->ms1, a, neg);
        st_matrix_add_block(m, s->ms1, a, s->ms2, b, pos);
        st_matrix_add_block(m, s->ms2, b, s->ms1, a, pos);
        st_matrix_add_block(m, s->ms2, b, s->ms2, b, neg);
    }
}

static double pf_rayleigh(const st_component *self)
{
    return ((const poly_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops pf_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = pf_add_force,
    .add_dforce = pf_add_dforce,
    .add_k_to_matrix = pf_add_k,
    .rayleigh_stiffness = pf_rayleigh,
};

static const st_field pf_fields[] = {
    ST_UINTS(poly_ff, first_points, "firstObjectPoints", NULL,
             "points related to the first object (empty: all its points)"),
    ST_UINTS(poly_ff, second_points, "secondObjectPoints", NULL,
             "points related to the second object (empty: all its points)"),
    ST_REALS(poly_ff, stiffness, "polynomialStiffness", NULL,
             "coefficients for all spring polynomials (empty: 100)"),
    ST_UINTS(poly_ff, degree, "polynomialDegree", NULL,
             "vector of values that show polynomials degrees (empty: 1)"),
    ST_INT(poly_ff, compute_zero_length, "computeZeroLength", "1",
           "flag to compute initial length for springs"),
    ST_REALS(poly_ff, zero_length, "zeroLength", NULL, "initial length for springs"),
    ST_IGNORED(poly_ff, recompute_indices, "recompute_indices", ST_T_BOOL, bool, "false",
               "Recompute indices (should be false for BBOX); the points are read at init"),
    ST_BOOL(poly_ff, compressible, "compressible", "false",
            "Indicates if object compresses without any reaction force"),
    ST_IGNORED(poly_ff, draw_mode, "drawMode", ST_T_INT, int, "0",
               "The way springs will be drawn:\n- 0: Line\n- 1:Cylinder\n- 2: Arrow"),
    ST_IGNORED(poly_ff, show_arrow_size, "showArrowSize", ST_T_REAL, double, "0.01",
               "size of the axis"),
    ST_FIELD_EX(poly_ff, spring_color, "springColor", ST_T_RGBA, st_vec4, "0 1 0 1",
                "spring color", ST_F_IGNORED, NULL, 0.0, 0.0),
    ST_IGNORED(poly_ff, show_indices_scale, "showIndicesScale", ST_T_REAL, double, "0.02",
               "Scale for indices display (default=0.02)"),
    SPRING_F_RAYLEIGH(poly_ff),
    ST_LINK(poly_ff, object1, "object1", ST_LINK_STATE,
            "First object in interaction (default: the node's state)"),
    ST_LINK(poly_ff, object2, "object2", ST_LINK_STATE,
            "Second object in interaction (default: the node's state)"),
    ST_FIELD_END};

static const char *const pf_templates[] = {"Vec3d", NULL};

const st_class polynomial_springs_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "PolynomialSpringsForceField",
    .category = "ForceField",
    .description = "Simple elastic springs applied to given degrees of freedom between their "
                   "current and rest shape position",
    .instance_size = sizeof(poly_ff),
    .fields = pf_fields,
    .init = pf_init,
    .cleanup = pf_cleanup,
    .forcefield = &pf_ops,
    .templates = pf_templates,
};
