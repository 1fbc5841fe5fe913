/* interaction_ellipsoid_force_field.c - InteractionEllipsoidForceField:
 * penalty ellipsoids carried by a rigid frame (object2) acting on points
 * (object1), as SOFA's (template "Vec3d,Rigid3d").
 *
 * The frame is point object2_dof_index of object2 (inverted first with
 * object2_invert); each point p of object1, with velocity v, is taken to
 * the frame, q = R^T (p - C), w = R^T v, and meets the ellipsoid e (center
 * c_e, radii r_e: the lists are padded with their last entry, radii
 * default 1) whose n = sum_j (q - c_e)_j^2 / r_ej^2 is smallest. When
 * (n - 1) stiffness < 0 (inside for a positive stiffness, outside for a
 * negative one), with s = sqrt(n) - 1 and g_j = (q - c_e)_j / r_ej^2:
 *   f_local = -|stiffness| s g/|g| - damping |s| w,   f = R f_local,
 * added to the point, and (object2_forces) its opposite to the frame's
 * centre (SOFA adds no torque). The stiffness is the local derivative of
 * the stiffness term, M_ij = g_i g_j (a + c / r_j^2) + delta_ij b / r_j^2
 * with a = -|k|/(sqrt(n)|g|), b = -|k| s/|g|, c = |k| s/|g|^3, turned to
 * the world, K = R M R^T, acting on p - C (the frame's rotation and the
 * damping term are not differentiated, as SOFA). SOFA's add_dforce has
 * c = -|k| s/|g|^2 (not the derivative: its CG path differs from this one
 * by that term) and SOFA assembles no matrix for this class; settee's K is
 * checked against finite differences and assembled too (-K and K on the
 * frame's centre), so that the direct and matrix-free paths agree. A frame integrated by
 * another ODE solver is read, not pushed (object2's forces are then
 * dropped, with a warning when object2_forces is set). No energy (SOFA's
 * is not implemented: 0). */
#include <math.h>
#include <string.h>

#include "mechanical_load.h"

typedef struct iell {
    st_component base;
    char *contacts_f;          /* "contacts" (SOFA's internal output) */
    st_array center;           /* "center", vec3[] */
    st_array vradius;          /* "vradius", vec3[] */
    double stiffness;          /* "stiffness" */
    double damping;            /* "damping" */
    st_vec4 color;             /* "color" (drawing) */
    bool draw;                 /* "draw" (drawing) */
    int dof;                   /* "object2_dof_index" */
    bool forces2;              /* "object2_forces" */
    bool invert;               /* "object2_invert" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *object1, *object2;
    /* Set by init. */
    st_mstate *ms1, *ms2;
    size_t ne;           /* ellipsoids */
    double *ec, *inv_r2; /* 3 per ellipsoid, owned */
    double frame[7];     /* C, q of the last add_force */
    bool *contact;       /* per point of object1, owned */
    double *M;           /* 9 per point of object1 (local), owned */
    bool warned;
} iell;

static void ie_cleanup(st_component *self)
{
    iell *e = (iell *)self;
    st_free(e->ec);
    st_free(e->inv_r2);
    st_free(e->contact);
    st_free(e->M);
    e->ec = e->inv_r2 = e->M = NULL;
    e->contact = NULL;
}

static st_status ie_state(st_component *self, st_component *link, const char *field,
                          st_mstate **out, st_error *err)
{
    if (link) {
        if (!st_component_has_role(link, ST_ROLE_STATE))
            return st_component_error(self, field, err, ST_ELINK,
                                      "'%s' must link a MechanicalObject, not a %s", field,
                                      link->cls->name);
        *out = (st_mstate *)link;
        return ST_OK;
    }
    *out = st_component_mstate(self);
    if (!*out)
        return st_component_error(self, field, err, ST_ESCENE,
                                  "no MechanicalObject for '%s': link one or add one to the node",
                                  field);
    return ST_OK;
}

static st_status ie_init(st_component *self, st_error *err)
{
    iell *e = (iell *)self;
    ie_cleanup(self);
    ST_TRY(ie_state(self, e->object1, "object1", &e->ms1, err));
    ST_TRY(ie_state(self, e->object2, "object2", &e->ms2, err));
    if (e->ms1->type != &st_vec3d_type)
        return st_component_error(self, "object1", err, ST_ESCENE,
                                  "object1 must be a Vec3d state (template Vec3d,Rigid3d), not %s",
                                  e->ms1->type->name);
    if (e->ms2->type != &st_rigid3d_type)
        return st_component_error(self, "object2", err, ST_ESCENE,
                                  "object2 must be a Rigid3d state (template Vec3d,Rigid3d), not "
                                  "%s",
                                  e->ms2->type->name);
    if (e->dof < 0 || (size_t)e->dof >= e->ms2->n)
        return st_component_error(self, "object2_dof_index", err, ST_ESCENE,
                                  "object2 has no point %d (it has %zu)", e->dof, e->ms2->n);
    size_t nr = e->vradius.n, nc = e->center.n;
    e->ne = nr > nc ? nr : nc;
    size_t n1 = e->ms1->n;
    e->ec = st_calloc(3 * (e->ne + 1), sizeof *e->ec);
    e->inv_r2 = st_calloc(3 * (e->ne + 1), sizeof *e->inv_r2);
    e->contact = st_calloc(n1 + 1, sizeof *e->contact);
    e->M = st_calloc(9 * (n1 + 1), sizeof *e->M);
    if (!e->ec || !e->inv_r2 || !e->contact || !e->M)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", n1);
    for (size_t k = 0; k < e->ne; k++) {
        const double *r = nr ? e->vradius.r + 3 * (k < nr ? k : nr - 1) : NULL;
        const double *c = nc ? e->center.r + 3 * (k < nc ? k : nc - 1) : NULL;
        for (int j = 0; j < 3; j++) {
            double rj = r ? r[j] : 1.0;
            e->inv_r2[3 * k + j] = 1.0 / (rj * rj);
            e->ec[3 * k + j] = c ? c[j] : 0.0;
        }
    }
    e->warned = false;
    return ST_OK;
}

/* The frame (C, q) from object2's coordinate, inverted on demand. */
static void ie_frame(const iell *e, const double *c2, double f[7])
{
    memcpy(f, c2, 7 * sizeof *f);
    if (!e->invert)
        return;
    double qi[4] = {-c2[3], -c2[4], -c2[5], c2[6]}, r[3];
    st_quat_rotate(r, qi, c2);
    for (int k = 0; k < 3; k++)
        f[k] = -r[k];
    memcpy(f + 3, qi, sizeof qi);
}

/* SOFA's calcF in the frame: true on contact, with the local force and M. */
static bool ie_calc(const iell *e, const double *q, const double *w, double *fl, double *M)
{
    double bdp[3] = {0, 0, 0}, bn = -1;
    long be = -1;
    for (size_t k = 0; k < e->ne; k++) {
        double dp[3], n2 = 0;
        for (int j = 0; j < 3; j++) {
            dp[j] = q[j] - e->ec[3 * k + j];
            n2 += dp[j] * dp[j] * e->inv_r2[3 * k + j];
        }
        if (be == -1 || n2 < bn) {
            bn = n2;
            be = (long)k;
            memcpy(bdp, dp, sizeof bdp);
        }
    }
    if (be < 0 || !((bn - 1) * e->stiffness < 0))
        return false;
    const double *ir = e->inv_r2 + 3 * be;
    double norm = sqrt(bn), s = norm - 1, g[3];
    for (int j = 0; j < 3; j++)
        g[j] = bdp[j] * ir[j];
    double g2 = ml_dot(g, g), gn = sqrt(g2), ks = fabs(e->stiffness);
    double fi = -ks * s / gn, di = e->damping * fabs(s);
    for (int j = 0; j < 3; j++)
        fl[j] = g[j] * fi - w[j] * di;
    double a = -ks / (norm * gn), b = -ks * s / gn, c = ks * s / (g2 * gn);
    for (int r = 0; r < 3; r++) {
        for (int q2 = 0; q2 < 3; q2++)
            M[3 * r + q2] = g[r] * g[q2] * (a + c * ir[q2]);
        M[3 * r + r] += b * ir[r];
    }
    return true;
}

/* True when object2 is integrated with object1 (its vectors are ours). */
static bool ie_shared(const iell *e) { return e->ms2->system && e->ms2->system == e->ms1->system; }

static void ie_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp;
    iell *e = (iell *)self;
    bool shared = ie_shared(e);
    const double *x2 = shared ? st_slice_x(x, e->ms2) : e->ms2->position.r;
    ie_frame(e, x2 + 7 * (size_t)e->dof, e->frame);
    const double *C = e->frame, *q = e->frame + 3;
    double qi[4] = {-q[0], -q[1], -q[2], q[3]}, f2[3] = {0, 0, 0};
    double *fs = st_slice(f, e->ms1);
    const double *xs = st_slice_x(x, e->ms1), *vs = st_slice(v, e->ms1);
    for (size_t i = 0; i < e->ms1->n; i++) {
        double d[3], ql[3], wl[3], fl[3], fw[3];
        for (int k = 0; k < 3; k++)
            d[k] = xs[3 * i + k] - C[k];
        st_quat_rotate(ql, qi, d);
        st_quat_rotate(wl, qi, vs + 3 * i);
        e->contact[i] = ie_calc(e, ql, wl, fl, e->M + 9 * i);
        if (!e->contact[i])
            continue;
        st_quat_rotate(fw, q, fl);
        ml_axpy(fs + 3 * i, 1.0, fw);
        ml_axpy(f2, -1.0, fw);
    }
    if (!e->forces2)
        return;
    if (!shared) {
        if (!e->warned)
            st_component_warn(self, "object2 is integrated by another ODE solver: its forces "
                                    "(object2_forces) are not applied");
        e->warned = true;
        return;
    }
    ml_axpy(st_slice(f, e->ms2) + 6 * (size_t)e->dof, 1.0, f2);
}

/* K = R M R^T for point i, times s. */
static void ie_world_k(const iell *e, size_t i, double s, double K[9])
{
    const double *q = e->frame + 3, *M = e->M + 9 * i;
    double qi[4] = {-q[0], -q[1], -q[2], q[3]};
    for (int c = 0; c < 3; c++) {
        double ec[3] = {0, 0, 0}, l[3], m[3], w[3];
        ec[c] = 1.0;
        st_quat_rotate(l, qi, ec);
        for (int r = 0; r < 3; r++)
            m[r] = M[3 * r] * l[0] + M[3 * r + 1] * l[1] + M[3 * r + 2] * l[2];
        st_quat_rotate(w, q, m);
        for (int r = 0; r < 3; r++)
            K[3 * r + c] = s * w[r];
    }
}

static void ie_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    iell *e = (iell *)self;
    bool two = e->forces2 && ie_shared(e);
    const double *d2 = two ? st_slice(dx, e->ms2) + 6 * (size_t)e->dof : NULL;
    double *dfs = st_slice(df, e->ms1), *df2 = two ? st_slice(df, e->ms2) + 6 * (size_t)e->dof : 0;
    const double *dxs = st_slice(dx, e->ms1);
    for (size_t i = 0; i < e->ms1->n; i++) {
        if (!e->contact[i])
            continue;
        double K[9], du[3], DF[3];
        ie_world_k(e, i, kfactor, K);
        for (int k = 0; k < 3; k++)
            du[k] = dxs[3 * i + k] - (d2 ? d2[k] : 0.0);
        for (int r = 0; r < 3; r++)
            DF[r] = K[3 * r] * du[0] + K[3 * r + 1] * du[1] + K[3 * r + 2] * du[2];
        ml_axpy(dfs + 3 * i, 1.0, DF);
        if (df2)
            ml_axpy(df2, -1.0, DF);
    }
}

/* The same blocks at every assembly (zero off contact): a fixed pattern. */
static void ie_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    iell *e = (iell *)self;
    bool two = e->forces2 && ie_shared(e);
    size_t j = (size_t)e->dof;
    for (size_t i = 0; i < e->ms1->n; i++) {
        double K[9] = {0}, b12[18] = {0}, b21[18] = {0}, b22[36] = {0};
        if (e->contact[i])
            ie_world_k(e, i, kfactor, K);
        st_matrix_add_block(m, e->ms1, i, e->ms1, i, K);
        if (!two)
            continue;
        for (int r = 0; r < 3; r++)
            for (int c = 0; c < 3; c++) {
                b12[6 * r + c] = -K[3 * r + c];
                b21[3 * r + c] = -K[3 * r + c];
                b22[6 * r + c] = K[3 * r + c];
            }
        st_matrix_add_block(m, e->ms1, i, e->ms2, j, b12);
        st_matrix_add_block(m, e->ms2, j, e->ms1, i, b21);
        st_matrix_add_block(m, e->ms2, j, e->ms2, j, b22);
    }
}

static double ie_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0;
}

static double ie_rayleigh(const st_component *self)
{
    return ((const iell *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops ie_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = ie_add_force,
    .add_dforce = ie_add_dforce,
    .add_k_to_matrix = ie_add_k,
    .potential_energy = ie_energy,
    .rayleigh_stiffness = ie_rayleigh,
};

static const st_field ie_fields[] = {
    IGN_STRING(iell, contacts_f, "contacts", NULL, "Contacts (internal: computed at each force)"),
    ST_VEC3S(iell, center, "center", NULL, "ellipsoid center"),
    ST_VEC3S(iell, vradius, "vradius", NULL, "ellipsoid radius"),
    ST_REAL(iell, stiffness, "stiffness", "500",
            "force stiffness (positive to repulse outward, negative inward)"),
    ST_REAL(iell, damping, "damping", "5", "force damping"),
    IGN_RGBA(iell, color, "color", "0 0.5 1 1", "ellipsoid color. (default=[0.0,0.5,1.0,1.0])"),
    IGN_BOOL(iell, draw, "draw", "true", "enable/disable drawing of the ellipsoid"),
    ST_INT(iell, dof, "object2_dof_index", "0",
           "Dof index of object 2 where the forcefield is attached"),
    ST_BOOL(iell, forces2, "object2_forces", "true",
            "enable/disable propagation of forces to object 2"),
    ST_BOOL(iell, invert, "object2_invert", "false",
            "inverse transform from object 2 (use when object 1 is in local coordinates within a "
            "frame defined by object 2)"),
    ST_REAL(iell, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping - stiffness matrix coefficient"),
    ST_LINK(iell, object1, "object1", ST_LINK_STATE,
            "First object in interaction: the points (Vec3d; default: the node's state)"),
    /* Not a state-kind link: the kernel types the component from object1
     * (Vec3d), as SOFA's template "Vec3d,Rigid3d" does. */
    ST_LINK(iell, object2, "object2", ST_LINK_ANY,
            "Second object in interaction: the rigid frame carrying the ellipsoids (a Rigid3d "
            "MechanicalObject)"),
    ST_FIELD_END};

const st_class interaction_ellipsoid_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "InteractionEllipsoidForceField",
    .category = "ForceField",
    .description = "Repulsion applied by ellipsoids carried by a rigid frame (template "
                   "Vec3d,Rigid3d: points, frame)",
    .instance_size = sizeof(iell),
    .fields = ie_fields,
    .init = ie_init,
    .reinit = ie_init,
    .cleanup = ie_cleanup,
    .forcefield = &ie_ops,
};
