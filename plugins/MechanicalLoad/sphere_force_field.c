/* sphere_force_field.c - SphereForceField: a penalty force pushing points out
 * of a sphere (center c, radius r), as SOFA's.
 *
 * For each point i of the local range with |x_i - c| < r (any distance when
 * bilateral), with u = x_i - c, l = |u| and p = l - r:
 *   f_i += -stiffness p u / l + damping p v_i.
 * Each contact records (i, u / l, r / l), SOFA's `contacts` output, and
 * K_i = -stiffness (fact n n^T + (1 - fact) I), n = u / l, fact = r / l:
 * the exact derivative of the stiffness term (the damping term's position
 * derivative is left out, as SOFA does; no damping matrix). Potential
 * energy: SOFA's is not implemented (0). The matrix gets one block per
 * point of the local range, zero off contact (issue 19). */
#include <math.h>

#include "mechanical_load.h"

/* Values per contact in the "contacts" output: index, normal, fact. */
#define SPHERE_CW (2 + ML_N)

typedef struct sphere_ff {
    st_component base;
    st_array contacts;         /* "contacts" output: SPHERE_CW reals per contact */
    st_vec3 center;            /* "center" */
    double radius;             /* "radius" */
    double stiffness;          /* "stiffness" */
    double damping;            /* "damping" */
    st_vec4 color;             /* "color" (drawing) */
    st_vec2 local_range;       /* "localRange" */
    bool bilateral;            /* "bilateral" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *mstate;      /* "mstate" link */
    st_mstate *ms;
    ml_contacts set;           /* contact points, ascending */
} sphere_ff;

static st_status sphere_init(st_component *self, st_error *err)
{
    sphere_ff *s = (sphere_ff *)self;
    ST_TRY(ml_find_state(self, &s->ms, err));
    size_t n = s->ms->n;
    ST_TRY(ml_contacts_reserve(&s->set, n, err));
    /* Room for every point, so that add_force never allocates. */
    ST_TRY(st_array_resize(&s->contacts, ST_T_REALS, SPHERE_CW * (n ? n : 1), err));
    s->contacts.n = 0;
    return ST_OK;
}

static void sphere_cleanup(st_component *self) { ml_contacts_free(&((sphere_ff *)self)->set); }

static void sphere_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                             const double *v)
{
    (void)mp;
    sphere_ff *s = (sphere_ff *)self;
    double *fs = st_slice(f, s->ms);
    const double *xs = st_slice_x(x, s->ms), *vs = st_slice(v, s->ms);
    double r = s->radius, r2 = r * r;
    size_t begin, end;
    ml_range(s->local_range, s->ms->n, &begin, &end);
    s->set.n = 0;
    for (size_t i = begin; i < end; i++) {
        double u[ML_N];
        for (int k = 0; k < ML_N; k++)
            u[k] = xs[ML_N * i + k] - s->center[k];
        double l2 = ml_dot(u, u);
        if (!(l2 < r2 || s->bilateral))
            continue;
        double l = sqrt(l2), p = l - r;
        double fk = -s->stiffness * p, fd = -s->damping * p;
        for (int k = 0; k < ML_N; k++)
            fs[ML_N * i + k] += u[k] * (fk / l) - vs[ML_N * i + k] * fd;
        double *c = s->contacts.r + SPHERE_CW * s->set.n;
        c[0] = (double)i;
        for (int k = 0; k < ML_N; k++)
            c[1 + k] = u[k] / l;
        c[1 + ML_N] = r / l;
        s->set.index[s->set.n++] = (unsigned)i;
    }
    s->contacts.n = SPHERE_CW * s->set.n;
    st_component_touch(self, st_component_field(self, "contacts"));
}

static void sphere_add_dforce(st_component *self, const st_mparams *mp, double *df,
                              const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    sphere_ff *s = (sphere_ff *)self;
    double *dfs = st_slice(df, s->ms);
    const double *dxs = st_slice(dx, s->ms);
    double fact = -s->stiffness * kfactor;
    for (size_t k = 0; k < s->set.n; k++) {
        const double *c = s->contacts.r + SPHERE_CW * k, *n = c + 1;
        size_t i = s->set.index[k];
        const double *du = dxs + ML_N * i;
        double a = ml_dot(du, n) * c[1 + ML_N], b = 1 - c[1 + ML_N];
        for (int j = 0; j < ML_N; j++)
            dfs[ML_N * i + j] += (n[j] * a + du[j] * b) * fact;
    }
}

/* factor K = -stiffness factor (fact n n^T + (1 - fact) I), in SOFA's order
 * of operations. */
static void sphere_block(const st_component *self, size_t k, double factor, double b[9])
{
    const sphere_ff *s = (const sphere_ff *)self;
    const double *c = s->contacts.r + SPHERE_CW * k, *n = c + 1, fact = c[1 + ML_N];
    double kf = -s->stiffness * factor;
    for (int r = 0; r < ML_N; r++)
        for (int q = 0; q < ML_N; q++)
            b[ML_N * r + q] = (n[r] * n[q] * fact + (r == q ? 1 - fact : 0.0)) * kf;
}

static void sphere_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    sphere_ff *s = (sphere_ff *)self;
    size_t begin, end;
    ml_range(s->local_range, s->ms->n, &begin, &end);
    ml_add_contact_blocks(m, self, s->ms, begin, end, &s->set, kfactor, sphere_block);
}

static double sphere_rayleigh(const st_component *self)
{
    return ((const sphere_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops sphere_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = sphere_add_force,
    .add_dforce = sphere_add_dforce,
    .add_k_to_matrix = sphere_add_k,
    .rayleigh_stiffness = sphere_rayleigh,
};

static const st_field sphere_fields[] = {
    ST_OUTPUT(sphere_ff, contacts, "contacts", ST_T_REALS, st_array,
              "Contacts: for each point inside the sphere at the last force computation, its "
              "index, the outward normal (3 reals) and radius / distance"),
    ST_VEC3(sphere_ff, center, "center", "0 0 0", "sphere center"),
    ST_REAL(sphere_ff, radius, "radius", "1", "sphere radius"),
    ST_REAL(sphere_ff, stiffness, "stiffness", "500", "force stiffness"),
    ST_REAL(sphere_ff, damping, "damping", "5", "force damping"),
    IGN_RGBA(sphere_ff, color, "color", "0 0 1 1", "sphere color. (default=[0,0,1,1])"),
    ST_VEC2(sphere_ff, local_range, "localRange", "-1 -1",
            "optional range of local DOF indices. Any computation involving only indices outside "
            "of this range are discarded (useful for parallelization using mesh partitioning)"),
    ST_BOOL(sphere_ff, bilateral, "bilateral", "false",
            "if true the sphere force field is applied on both sides"),
    ML_F_FORCEFIELD(sphere_ff),
    ST_FIELD_END};

const st_class sphere_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "SphereForceField",
    .category = "ForceField",
    .description = "Outward repulsion applied by a sphere geometry",
    .instance_size = sizeof(sphere_ff),
    .fields = sphere_fields,
    .init = sphere_init,
    .cleanup = sphere_cleanup,
    .forcefield = &sphere_ops,
};
