/* deformable_on_rigid_frame_mapping.c - DeformableOnRigidFrameMapping
 * (Vec3d "input1" and Rigid3d "input2" to Vec3d): points p_i expressed in
 * a moving rigid frame (c, R) are placed in the world, x_i = R p_i + c. As
 * SOFA:
 *  - repartition empty: every point follows frame "index" (counted from
 *    the end with indexFromEnd); one value n: frame k carries points
 *    [k n, (k + 1) n); one value per frame: frame k carries its count;
 *  - the velocity uses frame "index" (v, w) and the orientation R of the
 *    last frame applied: v_i = w x (R p_i) + R dp_i + v, so J has the
 *    blocks R (on p_i) and (I, -[R p_i]x) (on the frame);
 *  - J^T f: R^T f_i on p_i, (sum f_i, sum (R p_i) x f_i) on the frame;
 *  - no input2: the identity.
 * rootLinearForceScaleFactor and rootAngularForceScaleFactor scale what
 * SOFA's constraint rows (MatrixDeriv) send to the frame; settee's
 * constraints go through J, so they have no effect here. No geometric
 * stiffness (SOFA's applyDJT is empty). */
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef struct dorf_mapping {
    map_head h;              /* h.input: input1's state */
    st_array input1, input2; /* "input1", "input2": links (the first of each is used) */
    unsigned index;          /* "index" */
    bool index_from_end;     /* "indexFromEnd" */
    st_array repartition;    /* "repartition" */
    bool global_to_local;    /* "globalToLocalCoords" (unused by SOFA's computation) */
    double root_ang_scale;   /* "rootAngularForceScaleFactor" */
    double root_lin_scale;   /* "rootLinearForceScaleFactor" */
    /* Set at init. */
    st_mstate *root;         /* input2's state, or NULL */
    size_t n, nroot;
    double *rotated;         /* n x 3: R p_i at the last apply */
    double rot[9];           /* R of the last frame applied (row-major) */
} dorf_mapping;

static const char *const dorf_templates[] = {"Vec3d", NULL};

static const st_field dorf_fields[] = {
    ST_FIELD_EX(dorf_mapping, input1, "input1", ST_T_STRINGS, st_array, NULL,
                "Input Object(s) (1st Data type): the deformable points (Vec3d)",
                ST_F_REQUIRED | ST_F_NOLINK, NULL, 0.0, 0.0),
    ST_FIELD_EX(dorf_mapping, input2, "input2", ST_T_STRINGS, st_array, NULL,
                "Input Object(s) (2nd Data type): the rigid frames (Rigid3d); none: the identity",
                ST_F_NOLINK, NULL, 0.0, 0.0),
    MAP_OUTPUT_FIELDS(dorf_mapping),
    ST_UINT(dorf_mapping, index, "index", "0", "input DOF index"),
    ST_BOOL(dorf_mapping, index_from_end, "indexFromEnd", "false",
            "input DOF index starts from the end of input DOFs vector"),
    ST_UINTS(dorf_mapping, repartition, "repartition", "", "number of dest dofs per entry dof"),
    ST_BOOL(dorf_mapping, global_to_local, "globalToLocalCoords", "false",
            "are the output DOFs initially expressed in global coordinates (no effect, as in "
            "SOFA)"),
    ST_REAL(dorf_mapping, root_ang_scale, "rootAngularForceScaleFactor", "1",
            "Scale factor applied on the angular force accumulated on the rigid model (SOFA: on "
            "constraint rows only; no effect in settee, whose constraints go through J)"),
    ST_REAL(dorf_mapping, root_lin_scale, "rootLinearForceScaleFactor", "1",
            "Scale factor applied on the linear force accumulated on the rigid model (SOFA: on "
            "constraint rows only; no effect in settee, whose constraints go through J)"),
    ST_FIELD_END};

static st_status resolve_state(st_component *self, const char *field, const char *path,
                               st_mstate **out, st_error *err)
{
    st_component *c = NULL;
    st_error e = {0};
    if (!path || path[0] != '@' ||
        st_node_resolve(self->node, path + 1, ST_LINK_STATE, &c, &e) != ST_OK || !c ||
        !st_component_has_role(c, ST_ROLE_STATE))
        return st_component_error(self, field, err, ST_ELINK,
                                  "'%s' is not a link to a MechanicalObject%s%s", path ? path : "",
                                  e.msg[0] ? ": " : "", e.msg);
    *out = (st_mstate *)c;
    return ST_OK;
}

/* R (row-major) of the unit quaternion q = (x, y, z, w). */
static void quat_matrix(const double *q, double *R)
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    R[0] = 1 - 2 * (y * y + z * z), R[1] = 2 * (x * y - z * w), R[2] = 2 * (x * z + y * w);
    R[3] = 2 * (x * y + z * w), R[4] = 1 - 2 * (x * x + z * z), R[5] = 2 * (y * z - x * w);
    R[6] = 2 * (x * z - y * w), R[7] = 2 * (y * z + x * w), R[8] = 1 - 2 * (x * x + y * y);
}

static size_t frame_index(const dorf_mapping *m)
{
    return m->index_from_end ? m->nroot - 1 - m->index : m->index;
}

/* Points of frame k (repartition) as [*b, *e). */
static void frame_range(const dorf_mapping *m, size_t k, size_t *b, size_t *e)
{
    if (m->repartition.n == 1) {
        *b = k * m->repartition.u[0];
        *e = *b + m->repartition.u[0];
        return;
    }
    size_t s = 0;
    for (size_t j = 0; j < k; j++)
        s += m->repartition.u[j];
    *b = s;
    *e = s + m->repartition.u[k];
}

/* out = R p + c per point (xroot: the frames' coordinates, or NULL). */
static void dorf_apply_x(dorf_mapping *m, const double *p, const double *xroot, double *out)
{
    if (!m->root || !xroot) {
        memcpy(out, p, 3 * m->n * sizeof *out);
        memcpy(m->rotated, p, 3 * m->n * sizeof *out);
        static const double I[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(m->rot, I, sizeof I);
        return;
    }
    size_t nf = m->repartition.n == 0 ? 1 : m->nroot;
    for (size_t k = 0; k < nf; k++) {
        size_t f = m->repartition.n == 0 ? frame_index(m) : k, b = 0, e = m->n;
        if (m->repartition.n)
            frame_range(m, k, &b, &e);
        const double *fr = xroot + 7 * f;
        quat_matrix(fr + 3, m->rot);
        for (size_t i = b; i < e && i < m->n; i++) {
            const double *pi = p + 3 * i, *R = m->rot;
            double *r = m->rotated + 3 * i;
            for (int a = 0; a < 3; a++) {
                r[a] = R[3 * a] * pi[0] + R[3 * a + 1] * pi[1] + R[3 * a + 2] * pi[2];
                out[3 * i + a] = r[a] + fr[a];
            }
        }
    }
}

static void dorf_apply_v(const dorf_mapping *m, const double *dp, const double *vroot, double *out)
{
    if (!m->root || !vroot) {
        memcpy(out, dp, 3 * m->n * sizeof *out);
        return;
    }
    const double *fv = vroot + 6 * frame_index(m), *w = fv + 3, *R = m->rot;
    for (size_t i = 0; i < m->n; i++) {
        const double *r = m->rotated + 3 * i, *d = dp + 3 * i;
        const double wr[3] = {w[1] * r[2] - w[2] * r[1], w[2] * r[0] - w[0] * r[2],
                              w[0] * r[1] - w[1] * r[0]};
        for (int a = 0; a < 3; a++)
            out[3 * i + a] = wr[a] + R[3 * a] * d[0] + R[3 * a + 1] * d[1] + R[3 * a + 2] * d[2] +
                             fv[a];
    }
}

static st_status dorf_init(st_component *self, st_error *err)
{
    dorf_mapping *m = (dorf_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    st_free(m->rotated);
    m->rotated = NULL;
    m->root = NULL;
    if (m->input1.n < 1)
        return st_component_error(self, "input1", err, ST_ESCENE,
                                  "Error while initializing ; input Model not found");
    st_mstate *in1 = NULL;
    ST_TRY(resolve_state(self, "input1", m->input1.s[0], &in1, err));
    if (m->input2.n > 0)
        ST_TRY(resolve_state(self, "input2", m->input2.s[0], &m->root, err));
    m->h.input = &in1->base;
    ST_TRY(map_head_bind(&m->h, &st_vec3d_type, &st_vec3d_type, err));
    if (m->h.visual)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "DeformableOnRigidFrameMapping maps into a MechanicalObject");
    if (m->root && m->root->type != &st_rigid3d_type)
        return st_component_error(self, "input2", err, ST_ESCENE,
                                  "input2 '%s' is %s: the frames are Rigid3d", m->root->base.name,
                                  m->root->type->name);
    m->n = in1->position.n;
    m->nroot = m->root ? m->root->position.n : 0;
    if (m->root) {
        if (m->nroot == 0 || m->index >= m->nroot)
            return st_component_error(self, "index", err, ST_ESCENE,
                                      "index %u names no frame of '%s' (%zu)", m->index,
                                      m->root->base.name, m->nroot);
        size_t total = 0;
        if (m->repartition.n == 1)
            total = m->repartition.u[0] * m->nroot;
        else if (m->repartition.n > 1) {
            if (m->repartition.n != m->nroot)
                return st_component_error(self, "repartition", err, ST_ESCENE,
                                          "Error : mapping dofs repartition is not correct (%zu "
                                          "values for %zu frames)",
                                          m->repartition.n, m->nroot);
            for (size_t k = 0; k < m->repartition.n; k++)
                total += m->repartition.u[k];
        }
        if (m->repartition.n && total > m->n)
            return st_component_error(self, "repartition", err, ST_ESCENE,
                                      "repartition places %zu points; input1 '%s' has %zu", total,
                                      in1->base.name, m->n);
    }
    m->rotated = st_calloc(3 * (m->n ? m->n : 1), sizeof *m->rotated);
    if (!m->rotated)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu points)", m->n);
    st_mstate *out = m->h.out;
    if (out->position.n != m->n || out->velocity.n != m->n || out->rest_position.n != m->n)
        ST_TRY(map_resize_output(out, m->n, err));
    const double *xr = m->root ? m->root->position.r : NULL;
    if (m->h.apply_rest_position && in1->rest_position.n == m->n &&
        (!m->root || m->root->rest_position.n == m->nroot))
        dorf_apply_x(m, in1->rest_position.r, m->root ? m->root->rest_position.r : NULL,
                     out->rest_position.r);
    dorf_apply_x(m, in1->position.r, xr, out->position.r);
    if (in1->velocity.n == m->n && (!m->root || m->root->velocity.n == m->nroot))
        dorf_apply_v(m, in1->velocity.r, m->root ? m->root->velocity.r : NULL, out->velocity.r);
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void dorf_cleanup(st_component *self)
{
    dorf_mapping *m = (dorf_mapping *)self;
    st_free(m->rotated);
    m->rotated = NULL;
    map_head_release(&m->h);
}

static bool ready(const dorf_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->n && (!m->root || m->root->n == m->nroot);
}

static void dorf_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    dorf_mapping *m = (dorf_mapping *)self;
    if (ready(m))
        dorf_apply_x(m, st_slice_x(x, m->h.in), m->root ? st_slice_x(x, m->root) : NULL,
                     st_slice_x(x, m->h.out));
}

static void dorf_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    dorf_mapping *m = (dorf_mapping *)self;
    if (ready(m))
        dorf_apply_v(m, st_slice(v, m->h.in), m->root ? st_slice(v, m->root) : NULL,
                     st_slice(v, m->h.out));
}

static void dorf_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    dorf_mapping *m = (dorf_mapping *)self;
    if (!ready(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fo = st_slice(f, m->h.out), *R = m->rot;
    if (!m->root) {
        for (size_t i = 0; i < 3 * m->n; i++)
            fin[i] += fo[i];
        return;
    }
    double v[3] = {0, 0, 0}, w[3] = {0, 0, 0};
    for (size_t i = 0; i < m->n; i++) {
        const double *fi = fo + 3 * i, *r = m->rotated + 3 * i;
        for (int a = 0; a < 3; a++) {
            v[a] += fi[a];
            fin[3 * i + a] += R[a] * fi[0] + R[3 + a] * fi[1] + R[6 + a] * fi[2];
        }
        w[0] += r[1] * fi[2] - r[2] * fi[1];
        w[1] += r[2] * fi[0] - r[0] * fi[2];
        w[2] += r[0] * fi[1] - r[1] * fi[0];
    }
    double *fr = st_slice(f, m->root) + 6 * frame_index(m);
    for (int a = 0; a < 3; a++) {
        fr[a] += v[a];
        fr[3 + a] += w[a];
    }
}

static void dorf_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    dorf_mapping *m = (dorf_mapping *)self;
    if (!ready(m))
        return;
    for (size_t i = 0; i < m->n; i++) {
        if (!m->root) {
            st_jbuilder_add_diag(jb, i, m->h.in, i, 1.0);
            continue;
        }
        st_jbuilder_add(jb, i, m->h.in, i, m->rot);
        const double *r = m->rotated + 3 * i;
        /* (I, -[R p]x): 3 x 6, row-major */
        const double B[18] = {1, 0, 0, 0,     r[2],  -r[1], 0, 1, 0, -r[2], 0, r[0],
                              0, 0, 1, r[1], -r[0], 0};
        st_jbuilder_add(jb, i, m->root, frame_index(m), B);
    }
}

static size_t dorf_inputs(const st_component *self, st_mstate **out, size_t max)
{
    const dorf_mapping *m = (const dorf_mapping *)self;
    size_t n = 0;
    if (n < max)
        out[n] = m->h.in;
    n++;
    if (m->root) {
        if (n < max)
            out[n] = m->root;
        n++;
    }
    return n;
}

static const st_mapping_ops dorf_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = dorf_apply,
    .apply_j = dorf_apply_j,
    .apply_jt = dorf_apply_jt,
    .get_j = dorf_get_j,
    .flags = map_head_flags,
    .inputs = dorf_inputs,
};

const st_class deformable_on_rigid_frame_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "DeformableOnRigidFrameMapping",
    .category = "Mapping",
    .description = "Set the positions and velocities of points attached to a rigid parent.",
    .instance_size = sizeof(dorf_mapping),
    .fields = dorf_fields,
    .init = dorf_init,
    .reinit = dorf_init,
    .cleanup = dorf_cleanup,
    .mapping = &dorf_ops,
    .templates = dorf_templates,
};
