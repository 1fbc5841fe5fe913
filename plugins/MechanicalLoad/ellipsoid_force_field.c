/* ellipsoid_force_field.c - EllipsoidForceField: a penalty force pushing
 * points out of an ellipsoid (stiffness > 0) or keeping them inside it
 * (stiffness < 0), as SOFA's.
 *
 * With u = x_i - center, g_j = u_j / r_j^2 (r = vradius), s = sum_j u_j g_j
 * and e = sqrt(s) - 1, a point is in contact when (s - 1) stiffness < 0:
 *   f_i += -|stiffness| e g / |g| - damping |e| v_i.
 * Each contact records SOFA's 3x3 matrix
 *   m = g g^T (a + b diag(1/r^2)) + c diag(1/r^2),
 *   a = -|k| / (sqrt(s) |g|), b = -|k| e / |g|^2, c = -|k| e / |g|,
 * used as K by add_dforce and the assembled matrix. It is SOFA's, kept for
 * SOFA's numbers: its b term differs from the exact derivative of the force
 * (+|k| e / |g|^3), so K is exact only on the surface (e = 0). No local
 * range, no damping matrix, potential energy 0 (not implemented in SOFA).
 * The matrix gets one block per point, zero off contact (issue 19). */
#include <math.h>
#include <string.h>

#include "mechanical_load.h"

/* Values per contact in the "contacts" output: index, then m row-major. */
#define ELL_CW (1 + ML_N * ML_N)

typedef struct ellipsoid_ff {
    st_component base;
    st_array contacts;         /* "contacts" output: ELL_CW reals per contact */
    st_vec3 center;            /* "center" */
    st_vec3 vradius;           /* "vradius" */
    double stiffness;          /* "stiffness" */
    double damping;            /* "damping" */
    st_vec4 color;             /* "color" (drawing) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *mstate;      /* "mstate" link */
    st_mstate *ms;
    ml_contacts set;
} ellipsoid_ff;

static st_status ell_init(st_component *self, st_error *err)
{
    ellipsoid_ff *e = (ellipsoid_ff *)self;
    ST_TRY(ml_find_state(self, &e->ms, err));
    size_t n = e->ms->n;
    ST_TRY(ml_contacts_reserve(&e->set, n, err));
    ST_TRY(st_array_resize(&e->contacts, ST_T_REALS, ELL_CW * (n ? n : 1), err));
    e->contacts.n = 0;
    return ST_OK;
}

static void ell_cleanup(st_component *self) { ml_contacts_free(&((ellipsoid_ff *)self)->set); }

static void ell_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp;
    ellipsoid_ff *e = (ellipsoid_ff *)self;
    double *fs = st_slice(f, e->ms);
    const double *xs = st_slice_x(x, e->ms), *vs = st_slice(v, e->ms);
    double kabs = fabs(e->stiffness), inv_r2[ML_N];
    for (int j = 0; j < ML_N; j++)
        inv_r2[j] = 1 / (e->vradius[j] * e->vradius[j]);
    e->set.n = 0;
    for (size_t i = 0; i < e->ms->n; i++) {
        double u[ML_N], s = 0;
        for (int j = 0; j < ML_N; j++) {
            u[j] = xs[ML_N * i + j] - e->center[j];
            s += (u[j] * u[j]) * inv_r2[j];
        }
        if (!((s - 1) * e->stiffness < 0))
            continue;
        double norm = sqrt(s), ev = norm - 1, g[ML_N];
        for (int j = 0; j < ML_N; j++)
            g[j] = u[j] * inv_r2[j];
        double gnorm2 = ml_dot(g, g), gnorm = sqrt(gnorm2);
        double fi = -kabs * ev / gnorm, di = e->damping * fabs(ev);
        for (int j = 0; j < ML_N; j++)
            fs[ML_N * i + j] += g[j] * fi - vs[ML_N * i + j] * di;
        double a = -kabs / (norm * gnorm), c = -kabs * ev / gnorm, b = -kabs * ev / gnorm2;
        double *rec = e->contacts.r + ELL_CW * e->set.n, *m = rec + 1;
        rec[0] = (double)i;
        for (int r = 0; r < ML_N; r++) {
            for (int q = 0; q < ML_N; q++)
                m[ML_N * r + q] = g[r] * g[q] * (a + b * inv_r2[q]);
            m[ML_N * r + r] += c * inv_r2[r];
        }
        e->set.index[e->set.n++] = (unsigned)i;
    }
    e->contacts.n = ELL_CW * e->set.n;
    st_component_touch(self, st_component_field(self, "contacts"));
}

static void ell_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    ellipsoid_ff *e = (ellipsoid_ff *)self;
    double *dfs = st_slice(df, e->ms);
    const double *dxs = st_slice(dx, e->ms);
    for (size_t k = 0; k < e->set.n; k++) {
        const double *m = e->contacts.r + ELL_CW * k + 1;
        size_t i = e->set.index[k];
        for (int r = 0; r < ML_N; r++)
            dfs[ML_N * i + r] += ml_dot(m + ML_N * r, dxs + ML_N * i) * kfactor;
    }
}

static void ell_block(const st_component *self, size_t k, double factor, double b[9])
{
    const ellipsoid_ff *e = (const ellipsoid_ff *)self;
    const double *m = e->contacts.r + ELL_CW * k + 1;
    for (int j = 0; j < ML_N * ML_N; j++)
        b[j] = m[j] * factor;
}

static void ell_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    ellipsoid_ff *e = (ellipsoid_ff *)self;
    ml_add_contact_blocks(m, self, e->ms, 0, e->ms->n, &e->set, kfactor, ell_block);
}

static double ell_rayleigh(const st_component *self)
{
    return ((const ellipsoid_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops ell_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = ell_add_force,
    .add_dforce = ell_add_dforce,
    .add_k_to_matrix = ell_add_k,
    .rayleigh_stiffness = ell_rayleigh,
};

static const st_field ell_fields[] = {
    ST_OUTPUT(ellipsoid_ff, contacts, "contacts", ST_T_REALS, st_array,
              "Vector of contacts: for each point in contact at the last force computation, its "
              "index and its 3x3 stiffness block (row-major)"),
    ST_VEC3(ellipsoid_ff, center, "center", "0 0 0", "ellipsoid center"),
    ST_VEC3(ellipsoid_ff, vradius, "vradius", "0 0 0", "ellipsoid radius"),
    ST_REAL(ellipsoid_ff, stiffness, "stiffness", "500",
            "force stiffness (positive to repulse outward, negative inward)"),
    ST_REAL(ellipsoid_ff, damping, "damping", "5", "force damping"),
    IGN_RGBA(ellipsoid_ff, color, "color", "0 0.5 1 1",
             "ellipsoid color. (default=0,0.5,1.0,1.0)"),
    ML_F_FORCEFIELD(ellipsoid_ff),
    ST_FIELD_END};

const st_class ellipsoid_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "EllipsoidForceField",
    .category = "ForceField",
    .description = "Outward / inward repulsion applied by an ellipsoid geometry",
    .instance_size = sizeof(ellipsoid_ff),
    .fields = ell_fields,
    .init = ell_init,
    .cleanup = ell_cleanup,
    .forcefield = &ell_ops,
};
