/* anchor_force_field.c - AnchorForceField: pulls every vertex of its state
 * towards one point with a linear spring, f_i = -stiffness (x_i - anchor).
 * A complete force field in one file: the instance struct, the field table,
 * init, the five force-field functions and the class. Copy it, rename it,
 * change the physics. */
#include <settee/settee.h>

#include "anchor.h"

/* The instance: st_component first, then the data fields, then what init
 * computes. The kernel allocates it zeroed and frees it. */
typedef struct anchor_force_field {
    st_component base;
    double stiffness; /* "stiffness", N/m, >= 0 */
    st_vec3 anchor;   /* "anchor", the point every vertex is pulled to */
    st_mstate *ms;    /* set by init: the MechanicalObject acted on (borrowed) */
} anchor_force_field;

/* The field table: scene name, default (as scene text) and help of each
 * data field. The kernel parses, checks and documents them from here. */
static const st_field anchor_fields[] = {
    ST_FIELD_EX(anchor_force_field, stiffness, "stiffness", ST_T_REAL, double, "100",
                "Stiffness of the spring pulling each vertex to the anchor (N/m)", 0, NULL, 0.0,
                1e300),
    ST_VEC3(anchor_force_field, anchor, "anchor", "0 0 0",
            "Point every vertex is pulled towards"),
    ST_FIELD_END};

static st_status anchor_init(st_component *self, st_error *err)
{
    anchor_force_field *a = (anchor_force_field *)self;
    a->ms = st_component_mstate(self);
    if (!a->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject to act on: add one before "
                                  "AnchorForceField in this node");
    return ST_OK;
}

/* f += -k (x - anchor), over this state's part of the global vectors. */
static void anchor_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                             const double *v)
{
    anchor_force_field *a = (anchor_force_field *)self;
    double *fs = st_slice(f, a->ms);
    const double *xs = st_slice_x(x, a->ms);
    const double k = a->stiffness;
    for (size_t i = 0, n = a->ms->n; i < n; i++)
        for (int d = 0; d < 3; d++)
            fs[3 * i + d] -= k * (xs[3 * i + d] - a->anchor[d]);
}

/* df += kfactor K dx with K = -k I (no damping, so bfactor is unused). */
static void anchor_add_dforce(st_component *self, const st_mparams *mp, double *df,
                              const double *dx, double kfactor, double bfactor)
{
    anchor_force_field *a = (anchor_force_field *)self;
    double *dfs = st_slice(df, a->ms);
    const double *dxs = st_slice(dx, a->ms);
    const double c = -a->stiffness * kfactor;
    for (size_t i = 0, n = 3 * a->ms->n; i < n; i++)
        dfs[i] += c * dxs[i];
}

/* m += kfactor K: one diagonal 3x3 block per point (state and local index). */
static void anchor_add_k_to_matrix(st_component *self, const st_mparams *mp, st_matrix *m,
                                   double kfactor)
{
    anchor_force_field *a = (anchor_force_field *)self;
    for (size_t i = 0; i < a->ms->n; i++)
        st_matrix_add_diag(m, a->ms, i, -a->stiffness * kfactor);
}

static double anchor_potential_energy(st_component *self, const st_mparams *mp, const double *x)
{
    anchor_force_field *a = (anchor_force_field *)self;
    const double *xs = st_slice_x(x, a->ms);
    double e = 0.0;
    for (size_t i = 0; i < a->ms->n; i++)
        for (int d = 0; d < 3; d++) {
            double u = xs[3 * i + d] - a->anchor[d];
            e += 0.5 * a->stiffness * u * u;
        }
    return e;
}

static const st_forcefield_ops anchor_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = anchor_add_force,
    .add_dforce = anchor_add_dforce,
    .add_k_to_matrix = anchor_add_k_to_matrix,
    .potential_energy = anchor_potential_energy,
};

static const char *const anchor_templates[] = {"Vec3d", NULL};

const st_class anchor_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "AnchorForceField",
    .category = "ForceField",
    .description = "Pulls every vertex towards a point with a linear spring",
    .instance_size = sizeof(anchor_force_field),
    .fields = anchor_fields,
    .init = anchor_init,
    .forcefield = &anchor_ops,
    /* The state types it works on (NULL would mean the same: Vec3d only).
     * A scene putting it on another type gets an error naming both. */
    .templates = anchor_templates,
};
