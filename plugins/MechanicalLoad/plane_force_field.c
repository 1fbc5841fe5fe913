/* plane_force_field.c - PlaneForceField: a penalty force keeping points on
 * the positive side of the plane {x : x . normal = d}, as SOFA's.
 *
 * For each point i of the local range with penetration p = x_i . n - d < 0
 * (any p when bilateral):
 *   f_i += -stiffness p n + damping p v_i,
 * scaled down to |f_i| = maxForce when maxForce > 0 and |f_i| exceeds it. The
 * points in contact are recorded by add_force; K = -stiffness n n^T on each
 * of them (SOFA's: neither the damping term's position derivative nor the
 * maxForce scaling enters K, and there is no damping matrix). The normal is
 * used as given (SOFA normalises it only in setPlane). Potential energy:
 * SOFA's is not implemented (0). Negative stiffness, damping or maxForce are
 * reset to their defaults with a warning, as SOFA's init.
 *
 * The templates are SOFA's (Vec1d, Vec2d, Vec3d, Vec6d, Rigid3d): x . n and
 * the force use the position part of each point (SOFA's getCPos/getDPos:
 * the whole coordinate of a Vec type, the centre of a Rigid3d body, pushed
 * with no torque), so the normal has as many components as that part
 * (Vec1d: the first of "normal", Vec2d: the first two, Vec6d: six; missing
 * ones are 0, as SOFA's default normal (0 1 0 0 0 0) of a Vec6d state).
 *
 * The assembled matrix gets one block per point of the local range,
 * zero for points not in contact, so its pattern does not change while
 * contacts come and go (issue 19). */
#include <math.h>

#include "mechanical_load.h"

typedef struct plane_ff {
    st_component base;
    st_array normal;           /* "normal": 1 to 6 reals */
    double d;                  /* "d" */
    double stiffness;          /* "stiffness" */
    double damping;            /* "damping" */
    double max_force;          /* "maxForce", 0: no limit */
    bool bilateral;            /* "bilateral" */
    st_vec2 local_range;       /* "localRange" (integers), -1: unbounded */
    bool show_plane;           /* "showPlane" (drawing) */
    st_vec4 plane_color;       /* "planeColor" (drawing) */
    double show_plane_size;    /* "showPlaneSize" (drawing) */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *mstate;      /* "mstate" link */
    st_mstate *ms;             /* resolved at init */
    unsigned sp, cw, dw;       /* position (SOFA's CPos), coordinate and derivative widths */
    ml_contacts contacts;      /* points in contact at the last add_force */
} plane_ff;

/* SOFA's init: a negative value is replaced by the default, with a warning. */
static void nonnegative(st_component *self, const char *name, double *v, double def)
{
    if (*v < 0.0) {
        st_component_warn(self,
                          "The '%s=%g' parameter is outside the validity range of [0, +INF[. "
                          "Continuing with the default value=%g.",
                          name, *v, def);
        *v = def;
    }
}

static st_status plane_topology_changed(st_component *owner, st_component *topology,
                                        const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    (void)ev;
    (void)nev;
    plane_ff *p = (plane_ff *)owner;
    p->contacts.n = 0; /* their indices are stale until the next evaluation */
    return ml_contacts_reserve(&p->contacts, p->ms->n, err);
}

/* The state resized without a topology: SOFA's contacts are found again
 * at each evaluation over the positions' size; room for all of them. */
static st_status plane_resized(st_component *owner, st_mstate *ms, size_t before, st_error *err)
{
    (void)before;
    plane_ff *p = (plane_ff *)owner;
    p->contacts.n = 0;
    return ml_contacts_reserve(&p->contacts, ms->n, err);
}

static st_status plane_init(st_component *self, st_error *err)
{
    plane_ff *p = (plane_ff *)self;
    ST_TRY(ml_find_state(self, &p->ms, err));
    p->sp = p->ms->type->rigid ? p->ms->type->spatial_size : p->ms->type->coord_size;
    p->cw = p->ms->type->coord_size;
    p->dw = p->ms->type->deriv_size;
    nonnegative(self, "stiffness", &p->stiffness, 500.0);
    nonnegative(self, "damping", &p->damping, 5.0);
    nonnegative(self, "maxForce", &p->max_force, 0.0);
    ml_check_range(self, p->local_range);
    ST_TRY(ml_contacts_reserve(&p->contacts, p->ms->n, err));
    /* points added or removed (ParticleSource, ParticleSink): the contacts,
     * found again at each force evaluation, get room for all of them */
    st_component *topo = st_node_find(p->ms->base.node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (topo)
        ST_TRY(st_topology_listen(self, topo, plane_topology_changed, err));
    return st_mstate_follow_resize(self, p->ms, plane_resized, err);
}

static void plane_cleanup(st_component *self) { ml_contacts_free(&((plane_ff *)self)->contacts); }

static double pdot(const double *a, const double *b, unsigned n)
{
    double s = 0.0;
    for (unsigned k = 0; k < n; k++)
        s += a[k] * b[k];
    return s;
}

/* The normal's first sp components, 0 past the given ones. */
static void plane_normal(const plane_ff *p, double n[6])
{
    for (unsigned k = 0; k < 6; k++)
        n[k] = k < p->normal.n ? p->normal.r[k] : 0.0;
}

static void plane_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                            const double *v)
{
    (void)mp;
    plane_ff *p = (plane_ff *)self;
    double *fs = st_slice(f, p->ms);
    const double *xs = st_slice_x(x, p->ms), *vs = st_slice(v, p->ms);
    double limit = p->max_force * p->max_force;
    size_t begin, end;
    ml_range(p->local_range, p->ms->n, &begin, &end);
    p->contacts.n = 0;
    const unsigned sp = p->sp;
    double nrm[6];
    plane_normal(p, nrm);
    for (size_t i = begin; i < end; i++) {
        const double *xi = xs + p->cw * i, *vi = vs + p->dw * i;
        double pen = pdot(xi, nrm, sp) - p->d;
        if (!(p->bilateral || pen < 0))
            continue;
        double fi[6];
        for (unsigned k = 0; k < sp; k++)
            fi[k] = nrm[k] * (-p->stiffness * pen) - vi[k] * (-p->damping * pen);
        double amp = pdot(fi, fi, sp);
        if (limit > 0 && amp > limit)
            for (unsigned k = 0; k < sp; k++)
                fi[k] *= sqrt(limit / amp);
        for (unsigned k = 0; k < sp; k++)
            fs[p->dw * i + k] += fi[k];
        p->contacts.index[p->contacts.n++] = (unsigned)i;
    }
}

static void plane_add_dforce(st_component *self, const st_mparams *mp, double *df,
                             const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    plane_ff *p = (plane_ff *)self;
    double *dfs = st_slice(df, p->ms);
    const double *dxs = st_slice(dx, p->ms);
    double fact = -p->stiffness * kfactor, nrm[6];
    plane_normal(p, nrm);
    for (size_t k = 0; k < p->contacts.n; k++) {
        size_t i = p->contacts.index[k];
        double a = fact * pdot(dxs + p->dw * i, nrm, p->sp);
        for (unsigned c = 0; c < p->sp; c++)
            dfs[p->dw * i + c] += nrm[c] * a;
    }
}

/* factor K = -stiffness factor n n^T on each contact's position rows and
 * columns, in SOFA's order of operations; a zero block on the other points
 * of the range, so the pattern stays (ml_add_contact_blocks' rule). */
static void plane_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    plane_ff *p = (plane_ff *)self;
    size_t begin, end, k = 0;
    ml_range(p->local_range, p->ms->n, &begin, &end);
    const double fact = -p->stiffness * kfactor;
    const unsigned dw = p->dw;
    double nrm[6];
    plane_normal(p, nrm);
    for (size_t i = begin; i < end; i++) {
        double b[36] = {0};
        if (k < p->contacts.n && p->contacts.index[k] == i) {
            k++;
            for (unsigned r = 0; r < p->sp; r++)
                for (unsigned c = 0; c < p->sp; c++)
                    b[dw * r + c] = nrm[r] * fact * nrm[c];
        }
        st_matrix_add_block(m, p->ms, i, p->ms, i, b);
    }
}

static double plane_rayleigh(const st_component *self)
{
    return ((const plane_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops plane_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = plane_add_force,
    .add_dforce = plane_add_dforce,
    .add_k_to_matrix = plane_add_k,
    .rayleigh_stiffness = plane_rayleigh,
};

static const st_field plane_fields[] = {
    ST_FIELD_EX(plane_ff, normal, "normal", ST_T_REALS, st_array, "0 1 0",
                "plane normal. (default=[0,1,0]) (as many components as a position: 1 to 6; "
                "missing ones are 0)",
                ST_F_COUNT, NULL, 1, 6),
    ST_REAL(plane_ff, d, "d", "0", "plane d coef. (default=0)"),
    ST_REAL(plane_ff, stiffness, "stiffness", "500", "force stiffness. (default=500)"),
    ST_REAL(plane_ff, damping, "damping", "5", "force damping. (default=5)"),
    ST_REAL(plane_ff, max_force, "maxForce", "0",
            "if non-null , the max force that can be applied to the object. (default=0)"),
    ST_BOOL(plane_ff, bilateral, "bilateral", "false",
            "if true the plane force field is applied on both sides. (default=false)"),
    ST_VEC2(plane_ff, local_range, "localRange", "-1 -1",
            "optional range of local DOF indices. Any computation involving indices outside of "
            "this range are discarded (useful for parallelization using mesh partitioning)"),
    IGN_BOOL(plane_ff, show_plane, "showPlane", "false",
             "enable/disable drawing of plane. (default=false)"),
    IGN_RGBA(plane_ff, plane_color, "planeColor", "0 0.5 0.2 1",
             "plane color. (default=[0.0,0.5,0.2,1.0])"),
    IGN_REAL(plane_ff, show_plane_size, "showPlaneSize", "10",
             "plane display size if draw is enabled. (default=10)"),
    ML_F_FORCEFIELD(plane_ff),
    ST_FIELD_END};

static const char *const plane_templates[] = {"Vec3d", "Vec2d", "Vec1d", "Vec6d", "Rigid3d", NULL};

const st_class plane_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "PlaneForceField",
    .category = "ForceField",
    .description = "Repulsion along the normal to a plane",
    .instance_size = sizeof(plane_ff),
    .fields = plane_fields,
    .init = plane_init,
    .cleanup = plane_cleanup,
    .forcefield = &plane_ops,
    .templates = plane_templates,
};
