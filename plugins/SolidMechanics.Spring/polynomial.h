/* polynomial.h - the force polynomials of SOFA's polynomial springs
 * (PolynomialSpringsForceField, PolynomialRestShapeSpringsForceField):
 * `polynomialStiffness` holds the coefficients of every polynomial one
 * after another, `polynomialDegree` the degree of each; polynomial k of
 * degree d is P(s) = c_1 s + c_2 s^2 + ... + c_d s^d (no constant term).
 * Internal to the plugin. */
#ifndef POLYNOMIAL_H
#define POLYNOMIAL_H

#include <settee/settee.h>

/* P(s) for the d coefficients at c. */
static inline double poly_value(const double *c, unsigned d, double s)
{
    double p = 1.0, r = 0.0;
    for (unsigned k = 0; k < d; k++) {
        p *= s;
        r += c[k] * p;
    }
    return r;
}

/* P'(s) for the d coefficients at c. */
static inline double poly_derivative(const double *c, unsigned d, double s)
{
    double p = 1.0, r = 0.0;
    for (unsigned k = 0; k < d; k++) {
        r += (double)(k + 1) * c[k] * p;
        p *= s;
    }
    return r;
}

/* Fills the defaults SOFA writes at init (stiffness [100], degree [1]) and
 * checks that the degrees do not ask for more coefficients than given;
 * writes the first coefficient of each polynomial into *start (owned by
 * the caller, freed with st_free). */
static inline st_status poly_setup(st_component *self, st_array *stiffness, st_array *degree,
                                   unsigned **start, st_error *err)
{
    if (stiffness->n == 0) {
        ST_TRY(st_array_resize(stiffness, ST_T_REALS, 1, err));
        stiffness->r[0] = 100.0;
    }
    if (degree->n == 0) {
        ST_TRY(st_array_resize(degree, ST_T_UINTS, 1, err));
        degree->u[0] = 1;
    }
    st_free(*start);
    *start = st_calloc(degree->n, sizeof **start);
    if (!*start)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    size_t total = 0;
    for (size_t k = 0; k < degree->n; k++) {
        (*start)[k] = (unsigned)total;
        total += degree->u[k];
    }
    if (total > stiffness->n)
        return st_component_error(self, "polynomialStiffness", err, ST_EINVAL,
                                  "the degrees in polynomialDegree add up to %zu coefficients, "
                                  "polynomialStiffness holds %zu",
                                  total, stiffness->n);
    return ST_OK;
}

#endif
