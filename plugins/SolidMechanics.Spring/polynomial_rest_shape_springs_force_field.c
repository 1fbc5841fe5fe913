/* polynomial_rest_shape_springs_force_field.c -
 * PolynomialRestShapeSpringsForceField (Vec3d): each controlled point p is
 * pulled towards its reference point q (its rest position, or the position
 * of the external_rest_shape state) with a force whose magnitude is a
 * polynomial of the strain, as SOFA's:
 *   d = x_p - x0_q,  s = |d| / L0_i,  D = sqrt(|d|^2 + e^(shift - scale |d|^2)),
 *   f_p -= P_k(s) d / D,
 * L0_i = initialLength[i] (else [0]; empty: 1), P_k the i-th polynomial
 * when polynomialDegree has one entry per point, else the first. The
 * exponential term smooths the direction near d = 0 (the force vanishes
 * there instead of jumping). The stiffness is SOFA's diagonal approximation
 * (one value per axis a, no coupling between axes):
 *   J_a = (P'(s) / L0 - P(s) / D) (1 - scale e^(shift - scale |d|^2)) u_a^2 + P(s) / D,
 * u = d / D, and df_p -= kfactor J_a dx_p. */
#include <math.h>

#include "polynomial.h"
#include "springs.h"

typedef struct poly_rest_ff {
    st_component base;
    st_array points;          /* "points" */
    st_array external_points; /* "external_points" */
    st_array stiffness;       /* "polynomialStiffness" */
    st_array degree;          /* "polynomialDegree" */
    bool recompute_indices;   /* "recompute_indices" */
    bool draw_spring;         /* "drawSpring" */
    st_vec4 spring_color;     /* "springColor" */
    double show_indices_scale; /* "showIndicesScale" */
    st_array zero_length;     /* "initialLength" */
    double smooth_shift;      /* "smoothShift" */
    double smooth_scale;      /* "smoothScale" */
    double rayleigh_stiffness;
    st_component *external_rest_shape;
    st_mstate *ms, *ext;
    unsigned *start;          /* first coefficient of each polynomial */
    double (*jac)[3];         /* per spring: the diagonal stiffness of the last add_force */
    size_t njac;
} poly_rest_ff;

static size_t pr_count(const poly_rest_ff *r)
{
    return r->points.n ? r->points.n : r->ms->n;
}

static size_t pr_point(const poly_rest_ff *r, size_t i)
{
    return r->points.n ? r->points.u[i] : i;
}

/* The reference point of spring i: an index of the external state when
 * there is one, else the controlled point itself (SOFA ignores
 * external_points without an external state). */
static size_t pr_ref(const poly_rest_ff *r, size_t i)
{
    if (!r->ext)
        return pr_point(r, i);
    return r->external_points.n ? r->external_points.u[i] : i;
}

static st_status pr_init(st_component *self, st_error *err)
{
    poly_rest_ff *r = (poly_rest_ff *)self;
    r->ms = st_component_mstate(self);
    if (!r->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in the node or its ancestors "
                                  "(PolynomialRestShapeSpringsForceField needs one)");
    if (r->ms->type->coord_size != 3 || r->ms->type->rigid)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the state '%s' is %s: SOFA's "
                                  "PolynomialRestShapeSpringsForceField exists for Vec3d only",
                                  r->ms->base.name, r->ms->type->name);
    r->ext = NULL;
    if (r->external_rest_shape) {
        if (!st_component_has_role(r->external_rest_shape, ST_ROLE_STATE))
            return st_component_error(self, "external_rest_shape", err, ST_ELINK,
                                      "external_rest_shape must link a MechanicalObject, not a %s",
                                      r->external_rest_shape->cls->name);
        r->ext = (st_mstate *)r->external_rest_shape;
        if (r->ext->type != r->ms->type)
            return st_component_error(self, "external_rest_shape", err, ST_ESCENE,
                                      "the external state '%s' is %s, the controlled state %s",
                                      r->ext->base.name, r->ext->type->name, r->ms->type->name);
    }
    ST_TRY(poly_setup(self, &r->stiffness, &r->degree, &r->start, err));
    if (r->zero_length.n == 0) {
        ST_TRY(st_array_resize(&r->zero_length, ST_T_REALS, 1, err));
        r->zero_length.r[0] = 1.0;
    }
    for (size_t i = 0; i < r->zero_length.n; i++)
        if (!(r->zero_length.r[i] > 0.0))
            return st_component_error(self, "initialLength", err, ST_EINVAL,
                                      "initialLength[%zu] = %g: the strain divides by it, it "
                                      "must be > 0",
                                      i, r->zero_length.r[i]);
    for (size_t i = 0; i < r->points.n; i++)
        if (r->points.u[i] >= r->ms->n)
            return st_component_error(self, "points", err, ST_EINVAL,
                                      "point %u out of range: the state has %zu points",
                                      r->points.u[i], r->ms->n);
    const size_t np = pr_count(r);
    const size_t nref = r->external_points.n ? r->external_points.n
                                             : (r->ext ? r->ext->n : r->ms->n);
    for (size_t i = 0; r->ext && i < r->external_points.n; i++)
        if (r->external_points.u[i] >= r->ext->n)
            return st_component_error(self, "external_points", err, ST_EINVAL,
                                      "point %u out of range: the external state has %zu points",
                                      r->external_points.u[i], r->ext->n);
    if (np > nref)
        return st_component_error(self, "external_points", err, ST_EINVAL,
                                  "the dimension of the source and the targeted points are "
                                  "different: %zu points and %zu reference points",
                                  np, nref);
    /* A polynomial per point, or the first one for all: its coefficients
     * are checked by poly_setup. */
    st_free(r->jac);
    r->jac = st_calloc(np ? np : 1, sizeof *r->jac);
    if (!r->jac)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    r->njac = np;
    return ST_OK;
}

static void pr_cleanup(st_component *self)
{
    poly_rest_ff *r = (poly_rest_ff *)self;
    st_free(r->start);
    st_free(r->jac);
    r->start = NULL;
    r->jac = NULL;
}

static void pr_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    poly_rest_ff *r = (poly_rest_ff *)self;
    double *fs = st_slice(f, r->ms);
    const double *xs = st_slice_x(x, r->ms);
    const double *x0 = r->ext ? r->ext->position.r : r->ms->rest_position.r;
    const size_t n = r->njac;
    const bool per_point = r->degree.n == n;
    for (size_t i = 0; i < n; i++) {
        const size_t p = pr_point(r, i), q = pr_ref(r, i);
        const size_t k = per_point ? i : 0;
        const double *c = r->stiffness.r + r->start[k];
        const unsigned deg = r->degree.u[k];
        const double l0 = r->zero_length.r[i < r->zero_length.n ? i : 0];
        double d[3], n2 = 0.0;
        for (int a = 0; a < 3; a++) {
            d[a] = xs[3 * p + a] - x0[3 * q + a];
            n2 += d[a] * d[a];
        }
        const double s = sqrt(n2) / l0;
        const double e = exp(r->smooth_shift - r->smooth_scale * n2);
        const double den = sqrt(n2 + e);
        const double pv = poly_value(c, deg, s);
        const double fd = pv / den;
        const double dd = poly_derivative(c, deg, s) / l0;
        const double ed = 1.0 - r->smooth_scale * e;
        for (int a = 0; a < 3; a++) {
            const double u = d[a] / den;
            fs[3 * p + a] -= pv * u;
            r->jac[i][a] = (dd - fd) * ed * u * u + fd;
        }
    }
}

static void pr_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    poly_rest_ff *r = (poly_rest_ff *)self;
    double *dfs = st_slice(df, r->ms);
    const double *dxs = st_slice(dx, r->ms);
    for (size_t i = 0; i < r->njac; i++) {
        const size_t p = pr_point(r, i);
        for (int a = 0; a < 3; a++)
            dfs[3 * p + a] -= r->jac[i][a] * dxs[3 * p + a] * kfactor;
    }
}

static void pr_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    poly_rest_ff *r = (poly_rest_ff *)self;
    for (size_t i = 0; i < r->njac; i++) {
        const double b[9] = {-kfactor * r->jac[i][0], 0, 0, 0, -kfactor * r->jac[i][1], 0,
                             0, 0, -kfactor * r->jac[i][2]};
        st_matrix_add_block(m, r->ms, pr_point(r, i), r->ms, pr_point(r, i), b);
    }
}

static double pr_rayleigh(const st_component *self)
{
    return ((const poly_rest_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops pr_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = pr_add_force,
    .add_dforce = pr_add_dforce,
    .add_k_to_matrix = pr_add_k,
    .rayleigh_stiffness = pr_rayleigh,
};

static const st_field pr_fields[] = {
    ST_UINTS(poly_rest_ff, points, "points", NULL,
             "points controlled by the rest shape springs (empty: all points)"),
    ST_UINTS(poly_rest_ff, external_points, "external_points", NULL,
             "points from the external Mechanical State that define the rest shape springs"),
    ST_REALS(poly_rest_ff, stiffness, "polynomialStiffness", NULL,
             "coefficients for all spring polynomials (empty: 100)"),
    ST_UINTS(poly_rest_ff, degree, "polynomialDegree", NULL,
             "vector of values that show polynomials degrees (empty: 1)"),
    ST_IGNORED(poly_rest_ff, recompute_indices, "recompute_indices", ST_T_BOOL, bool, "false",
               "Recompute indices (should be false for BBOX); settee reads the current points "
               "at every step, which gives the same springs unless points change"),
    ST_IGNORED(poly_rest_ff, draw_spring, "drawSpring", ST_T_BOOL, bool, "false", "draw Spring"),
    ST_FIELD_EX(poly_rest_ff, spring_color, "springColor", ST_T_RGBA, st_vec4, "0 1 0 1",
                "spring color", ST_F_IGNORED, NULL, 0.0, 0.0),
    ST_IGNORED(poly_rest_ff, show_indices_scale, "showIndicesScale", ST_T_REAL, double, "1",
               "Scaling factor for indices display size. Indices are auto-scaled to maintain a "
               "constant screen size."),
    ST_REALS(poly_rest_ff, zero_length, "initialLength", NULL,
             "initial virtual length of the spring (empty: 1)"),
    ST_REAL(poly_rest_ff, smooth_shift, "smoothShift", "0",
            "denominator correction adding shift value"),
    ST_REAL(poly_rest_ff, smooth_scale, "smoothScale", "1",
            "denominator correction adding scale"),
    SPRING_F_RAYLEIGH(poly_rest_ff),
    ST_LINK(poly_rest_ff, external_rest_shape, "external_rest_shape", ST_LINK_STATE,
            "rest_shape can be defined by the position of an external Mechanical State"),
    ST_FIELD_END};

static const char *const pr_templates[] = {"Vec3d", NULL};

const st_class polynomial_rest_shape_springs_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "PolynomialRestShapeSpringsForceField",
    .category = "ForceField",
    .description = "Simple elastic springs applied to given degrees of freedom between their "
                   "current and rest shape position",
    .instance_size = sizeof(poly_rest_ff),
    .fields = pr_fields,
    .init = pr_init,
    .cleanup = pr_cleanup,
    .forcefield = &pr_ops,
    .templates = pr_templates,
};
