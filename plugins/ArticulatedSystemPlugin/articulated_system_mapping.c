/* articulated_system_mapping.c - ArticulatedSystemMapping (Vec1d "input1",
 * optional Rigid3d "input2" to Rigid3d): places rigid bodies chained by
 * ArticulationCenters whose Articulations read the Vec1d values (angles of
 * rotation about, or slides along, their axes). As SOFA:
 *  - body 0 is input2's point indexInput2 (default: its last point), or
 *    stays where it is without input2;
 *  - the centers apply in scene order (a parent before its children), with
 *    the rule of their articulationProcess (see articulation_center.c);
 *  - J: a body's (v, w) is its parent's carried over the lever (C - P),
 *    plus, per articulation with axis a at point A and rate q',
 *    (a q' x (C - A), a q') for a rotation, (a q', 0) for a slide;
 *  - J^T walks the centers backwards: a child's (f, tau) moves to its
 *    parent as (f, tau + (C - P) x f) and gives each articulation
 *    a . (tau + (C - A) x f) (rotation) or a . f (slide); body 0's total
 *    goes to input2's point;
 *  - no geometric stiffness (SOFA's applyDJT is empty).
 * The hierarchy comes from an ArticulatedHierarchyContainer: the
 * "container" link, or the first one below input1's node. Unlike SOFA,
 * whose init leaves the bodies as the scene gives them until the first
 * step, settee places them at init. */
#include <math.h>
#include <string.h>

#include "../shared/mapping_common.h"
#include "articulated.h"

typedef struct asm_center {
    articulation_center *c;
    size_t first, count;      /* its articulations: arts[first .. first + count) */
    double orient[4];         /* OrientationArticulationCenter (x, y, z, w) */
    double disp[3];           /* DisplacementArticulationCenter */
} asm_center;

typedef struct asm_mapping {
    map_head h;                 /* h.input: input1's state */
    st_array input1, input2;    /* "input1", "input2": links (the first of each is used) */
    st_component *container;    /* "container" */
    unsigned index_root;        /* "indexInput2" */
    /* Set at init. */
    st_mstate *root;            /* input2's state, or NULL */
    size_t nin, nout, nroot;
    asm_center *centers;
    size_t ncenters;
    articulation **arts;        /* every center's articulations, center after center */
    size_t narts;
    double *axis;               /* nin x 3: ArticulationAxis (world) of the last apply */
    double *apos;               /* nin x 3: ArticulationPos of the last apply */
    double *prev;               /* nin: CoordinateBuf, the values of the last apply */
    double *fbuf;               /* nout x 6: scratch of J^T */
    int *center_of_child;       /* nout: the center whose child is body i, or -1 */
} asm_mapping;

/* The node's state is the Rigid3d output; SOFA's scenes may write the
 * template "Vec1d,Rigid3d,Rigid3d" (input1 first). */
static const char *const asm_templates[] = {"Rigid3d", "Vec1d", NULL};

static const st_field asm_fields[] = {
    ST_FIELD_EX(asm_mapping, input1, "input1", ST_T_STRINGS, st_array, NULL,
                "Input Object(s) (1st Data type): the articulation values (Vec1d)",
                ST_F_REQUIRED | ST_F_NOLINK, NULL, 0.0, 0.0),
    ST_FIELD_EX(asm_mapping, input2, "input2", ST_T_STRINGS, st_array, NULL,
                "Input Object(s) (2nd Data type): the base of the articulated system (Rigid3d)",
                ST_F_NOLINK, NULL, 0.0, 0.0),
    MAP_OUTPUT_FIELDS(asm_mapping),
    ST_LINK(asm_mapping, container, "container", ST_LINK_ANY,
            "Path to ArticulatedHierarchyContainer."),
    ST_UINT(asm_mapping, index_root, "indexInput2", "0",
            "Corresponding index if the base of the articulated system is attached to input2. "
            "Default is last index."),
    ST_FIELD_END};

/* ---- quaternions (x, y, z, w) ---- */

/* r = a b (Hamilton: b first, then a). */
static void qmul(const double *a, const double *b, double *r)
{
    double t[4] = {a[3] * b[0] + b[3] * a[0] + a[1] * b[2] - a[2] * b[1],
                   a[3] * b[1] + b[3] * a[1] + a[2] * b[0] - a[0] * b[2],
                   a[3] * b[2] + b[3] * a[2] + a[0] * b[1] - a[1] * b[0],
                   a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]};
    double n = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2] + t[3] * t[3]);
    if (n > 0)
        for (int k = 0; k < 4; k++)
            t[k] /= n;
    memcpy(r, t, sizeof t);
}

/* SOFA's q += d: rotation q followed by rotation d, normalised. */
static void qadd(double *q, const double *d) { qmul(d, q, q); }

static void qrot(const double *q, const double *v, double *r)
{
    /* r = v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z) */
    const double *u = q, w = q[3];
    double t[3] = {2 * (u[1] * v[2] - u[2] * v[1]), 2 * (u[2] * v[0] - u[0] * v[2]),
                   2 * (u[0] * v[1] - u[1] * v[0])};
    double o[3] = {v[0] + w * t[0] + u[1] * t[2] - u[2] * t[1],
                   v[1] + w * t[1] + u[2] * t[0] - u[0] * t[2],
                   v[2] + w * t[2] + u[0] * t[1] - u[1] * t[0]};
    memcpy(r, o, sizeof o);
}

/* Rotation of angle phi about axis a (identity for a null axis). */
static void axis_quat(const double *a, double phi, double *q)
{
    double n = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (n < 2.220446049250313e-16) {
        q[0] = q[1] = q[2] = 0, q[3] = 1;
        return;
    }
    double s = sin(phi / 2) / n;
    q[0] = a[0] * s, q[1] = a[1] * s, q[2] = a[2] * s, q[3] = cos(phi / 2);
}

static void cross(const double *a, const double *b, double *r)
{
    double t[3] = {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                   a[0] * b[1] - a[1] * b[0]};
    memcpy(r, t, sizeof t);
}

static double dot(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* ---- the hierarchy ---- */

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

/* The first component of class cls in n's subtree (objects, then children
 * depth-first), or NULL. */
static st_component *find_down(const st_node *n, const st_class *cls)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (c->cls == cls)
            return c;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++) {
        st_component *c = find_down(st_node_child(n, i), cls);
        if (c)
            return c;
    }
    return NULL;
}

/* Appends the components of class cls in n's subtree to *list (scene
 * order); counts them when list is NULL. */
static size_t collect(const st_node *n, const st_class *cls, st_component **list, size_t k)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (c->cls == cls) {
            if (list)
                list[k] = c;
            k++;
        }
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        k = collect(st_node_child(n, i), cls, list, k);
    return k;
}

/* Articulations of a center: those below each child node of its node. */
static size_t collect_articulations(const articulation_center *c, st_component **list, size_t k)
{
    const st_node *n = c->base.node;
    for (size_t i = 0; i < st_node_child_count(n); i++)
        k = collect(st_node_child(n, i), &articulation_class, list, k);
    return k;
}

static void asm_free(asm_mapping *m)
{
    st_free(m->centers);
    st_free(m->arts);
    st_free(m->axis);
    st_free(m->apos);
    st_free(m->prev);
    st_free(m->fbuf);
    st_free(m->center_of_child);
    m->centers = NULL, m->arts = NULL, m->axis = m->apos = m->prev = m->fbuf = NULL;
    m->center_of_child = NULL;
    m->ncenters = m->narts = 0;
}

static void reset_accumulators(asm_mapping *m, const double *in)
{
    for (size_t k = 0; k < m->ncenters; k++) {
        asm_center *ac = &m->centers[k];
        ac->orient[0] = ac->orient[1] = ac->orient[2] = 0, ac->orient[3] = 1;
        ac->disp[0] = ac->disp[1] = ac->disp[2] = 0;
    }
    for (size_t i = 0; i < m->nin; i++)
        m->prev[i] = in ? in[i] : 0.0;
}

/* ---- apply ---- */

static void asm_apply_x(asm_mapping *m, const double *in, const double *xroot, double *out)
{
    if (m->root && xroot)
        memcpy(out, xroot + 7 * m->index_root, 7 * sizeof *out);
    for (size_t k = 0; k < m->ncenters; k++) {
        asm_center *ac = &m->centers[k];
        articulation_center *c = ac->c;
        double *P = out + 7 * c->parent_index, *C = out + 7 * c->child_index;
        const double *qp = P + 3;
        double qc_prev[4];
        memcpy(qc_prev, C + 3, sizeof qc_prev);
        double g[3];
        qrot(qp, c->pos_on_parent, g);
        for (int a = 0; a < 3; a++)
            c->global_position[a] = P[a] + g[a];
        articulation **arts = m->arts + ac->first;
        if (c->process == 0) {
            /* Euler angles: each axis turned by the rotations before it. */
            double d[3], t[3];
            for (int a = 0; a < 3; a++)
                d[a] = c->pos_on_parent[a] - c->pos_on_child[a];
            memcpy(C + 3, qp, 4 * sizeof *C);
            qrot(qp, d, t);
            for (int a = 0; a < 3; a++)
                C[a] = P[a] + t[a];
            double apos[3] = {c->global_position[0], c->global_position[1],
                              c->global_position[2]};
            for (size_t j = 0; j < ac->count; j++) {
                articulation *ar = arts[j];
                double n = sqrt(dot(ar->axis, ar->axis));
                if (n > 0)
                    for (int a = 0; a < 3; a++)
                        ar->axis[a] /= n;
                size_t ind = (size_t)ar->articulation_index;
                double val = in[ind], *ax = m->axis + 3 * ind;
                qrot(C + 3, ar->axis, ax);
                if (ar->rotation) {
                    /* turn about the joint: the child's offset -posOnChild
                     * turns with it */
                    double dq[4], ap1[3], ap2[3], mpc[3] = {-c->pos_on_child[0],
                                                            -c->pos_on_child[1],
                                                            -c->pos_on_child[2]};
                    axis_quat(ax, val, dq);
                    qrot(C + 3, mpc, ap1);
                    qrot(dq, ap1, ap2);
                    for (int a = 0; a < 3; a++)
                        C[a] += ap2[a] - ap1[a];
                    qadd(C + 3, dq);
                }
                if (ar->translation)
                    for (int a = 0; a < 3; a++) {
                        C[a] += ax[a] * val;
                        apos[a] += ax[a] * val;
                    }
                memcpy(m->apos + 3 * ind, apos, sizeof apos);
            }
        } else {
            /* 1: axes on the parent; 2: axes on the child's previous
             * orientation. Rotations accumulate by increments. */
            const double *qaxis = c->process == 1 ? qp : qc_prev;
            double disp2[3] = {0, 0, 0};
            for (size_t j = 0; j < ac->count; j++) {
                articulation *ar = arts[j];
                size_t ind = (size_t)ar->articulation_index;
                double val = in[ind], delta = val - m->prev[ind], *ax = m->axis + 3 * ind;
                qrot(qaxis, ar->axis, ax);
                if (ar->rotation) {
                    double r[4];
                    axis_quat(ax, delta, r);
                    qadd(ac->orient, r);
                }
                if (ar->translation)
                    for (int a = 0; a < 3; a++) {
                        if (c->process == 1)
                            ac->disp[a] += ax[a] * delta;
                        else
                            disp2[a] += ax[a] * val;
                    }
                if (c->process == 2)
                    memcpy(m->apos + 3 * ind, c->global_position, 3 * sizeof(double));
            }
            if (c->process == 1) {
                for (int a = 0; a < 3; a++)
                    c->global_position[a] += ac->disp[a];
                for (size_t j = 0; j < ac->count; j++)
                    memcpy(m->apos + 3 * (size_t)arts[j]->articulation_index,
                           c->global_position, 3 * sizeof(double));
            } else
                memcpy(ac->disp, disp2, sizeof disp2);
            double q[4], pc[3];
            memcpy(q, qp, sizeof q);
            qadd(q, ac->orient);
            memcpy(C + 3, q, sizeof q);
            qrot(q, c->pos_on_child, pc);
            for (int a = 0; a < 3; a++)
                C[a] = c->global_position[a] - pc[a] + (c->process == 2 ? ac->disp[a] : 0.0);
        }
    }
    for (size_t i = 0; i < m->nin; i++)
        m->prev[i] = in[i];
}

static void asm_apply_v(const asm_mapping *m, const double *in, const double *vroot,
                        const double *xout, double *out)
{
    memset(out, 0, 6 * m->nout * sizeof *out);
    if (m->root && vroot)
        memcpy(out, vroot + 6 * m->index_root, 6 * sizeof *out);
    for (size_t k = 0; k < m->ncenters; k++) {
        const asm_center *ac = &m->centers[k];
        const articulation_center *c = ac->c;
        double *vp = out + 6 * c->parent_index, *vc = out + 6 * c->child_index;
        const double *P = xout + 7 * c->parent_index, *C = xout + 7 * c->child_index;
        double pc[3] = {P[0] - C[0], P[1] - C[1], P[2] - C[2]}, t[3];
        for (int a = 0; a < 3; a++)
            vc[3 + a] += vp[3 + a];
        cross(pc, vp + 3, t);
        for (int a = 0; a < 3; a++)
            vc[a] = vp[a] + t[a];
        for (size_t j = 0; j < ac->count; j++) {
            const articulation *ar = m->arts[ac->first + j];
            size_t ind = (size_t)ar->articulation_index;
            const double *ax = m->axis + 3 * ind, *A = m->apos + 3 * ind;
            double q = in[ind], w[3] = {ax[0] * q, ax[1] * q, ax[2] * q};
            if (ar->rotation) {
                double ac3[3] = {A[0] - C[0], A[1] - C[1], A[2] - C[2]};
                cross(ac3, w, t);
                for (int a = 0; a < 3; a++) {
                    vc[a] += t[a];
                    vc[3 + a] += w[a];
                }
            }
            if (ar->translation)
                for (int a = 0; a < 3; a++)
                    vc[a] += w[a];
        }
    }
}

/* f_in += J^T f_out (fo: nout x 6; fin: nin; froot: input2's forces or NULL). */
static void asm_apply_t(asm_mapping *m, const double *fo, const double *xout, double *fin,
                        double *froot)
{
    double *b = m->fbuf;
    memcpy(b, fo, 6 * m->nout * sizeof *b);
    for (size_t k = m->ncenters; k-- > 0;) {
        const asm_center *ac = &m->centers[k];
        const articulation_center *c = ac->c;
        double *fp = b + 6 * c->parent_index, *fc = b + 6 * c->child_index;
        const double *P = xout + 7 * c->parent_index, *C = xout + 7 * c->child_index;
        double cp[3] = {C[0] - P[0], C[1] - P[1], C[2] - P[2]}, t[3];
        cross(cp, fc, t);
        for (int a = 0; a < 3; a++) {
            fp[a] += fc[a];
            fp[3 + a] += fc[3 + a] + t[a];
        }
        for (size_t j = ac->count; j-- > 0;) {
            const articulation *ar = m->arts[ac->first + j];
            size_t ind = (size_t)ar->articulation_index;
            const double *ax = m->axis + 3 * ind, *A = m->apos + 3 * ind;
            double ca[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]}, tau[3];
            cross(ca, fc, tau);
            for (int a = 0; a < 3; a++)
                tau[a] += fc[3 + a];
            if (ar->rotation)
                fin[ind] += dot(ax, tau);
            if (ar->translation)
                fin[ind] += dot(ax, fc);
        }
    }
    if (froot)
        for (int a = 0; a < 6; a++)
            froot[6 * m->index_root + a] += b[a];
}

/* ---- component ---- */

static st_status asm_init(st_component *self, st_error *err)
{
    asm_mapping *m = (asm_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    asm_free(m);
    m->root = NULL;
    if (m->input1.n < 1)
        return st_component_error(self, "input1", err, ST_ESCENE,
                                  "While iniatilizing ; input Model not found.");
    st_mstate *in1 = NULL;
    ST_TRY(resolve_state(self, "input1", m->input1.s[0], &in1, err));
    if (m->input2.n > 0 && m->input2.s[0][0]) /* input2="": none, as SOFA */
        ST_TRY(resolve_state(self, "input2", m->input2.s[0], &m->root, err));
    m->h.input = &in1->base;
    ST_TRY(map_head_bind(&m->h, &st_vec1d_type, &st_rigid3d_type, err));
    if (m->h.visual)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "ArticulatedSystemMapping maps into a Rigid3d MechanicalObject");
    if (m->root && m->root->type != &st_rigid3d_type)
        return st_component_error(self, "input2", err, ST_ESCENE,
                                  "input2 '%s' is %s: the base is Rigid3d", m->root->base.name,
                                  m->root->type->name);
    m->nin = in1->position.n;
    m->nout = m->h.out->position.n;
    m->nroot = m->root ? m->root->position.n : 0;
    if (m->root) {
        if (m->nroot == 0)
            return st_component_error(self, "input2", err, ST_ESCENE,
                                      "input2 '%s' has no point", m->root->base.name);
        if (!st_component_is_set(self, "indexInput2"))
            m->index_root = (unsigned)(m->nroot - 1);
        else if (m->index_root >= m->nroot) {
            st_component_warn(self, "indexInput2, %u, is larger than input2's size, %zu. Using the "
                                 "default value instead which in this case will be %zu",
                           m->index_root, m->nroot, m->nroot - 1);
            m->index_root = (unsigned)(m->nroot - 1);
        }
    }
    if (m->nout == 0)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "output '%s' has no body", m->h.out->base.name);
    /* The container: the link, else the first below input1's node. */
    st_component *hc = m->container;
    if (hc && hc->cls != &articulated_hierarchy_container_class)
        return st_component_error(self, "container", err, ST_ELINK,
                                  "'%s' is a %s, not an ArticulatedHierarchyContainer", hc->name,
                                  hc->cls->name);
    if (!hc)
        hc = find_down(in1->base.node, &articulated_hierarchy_container_class);
    if (!hc)
        return st_component_error(self, "container", err, ST_ESCENE,
                                  "ArticulatedSystemMapping needs a ArticulatedHierarchyContainer, "
                                  "but it could not find it (none below '%s')",
                                  st_node_name(in1->base.node));
    size_t nc = collect(hc->node, &articulation_center_class, NULL, 0);
    if (nc > m->nin)
        return st_component_error(self, "input1", err, ST_ESCENE,
                                  "ArticulationCenters '%s' size: %zu is bigger than the size of "
                                  "input model '%s' position vector: %zu",
                                  hc->name, nc, in1->base.name, m->nin);
    st_component **list = st_calloc(nc ? nc : 1, sizeof *list);
    m->centers = st_calloc(nc ? nc : 1, sizeof *m->centers);
    if (!list || !m->centers) {
        st_free(list);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu articulation centers)", nc);
    }
    collect(hc->node, &articulation_center_class, list, 0);
    m->ncenters = nc;
    size_t na = 0;
    for (size_t k = 0; k < nc; k++) {
        m->centers[k].c = (articulation_center *)list[k];
        m->centers[k].first = na;
        m->centers[k].count = collect_articulations(m->centers[k].c, NULL, 0);
        na += m->centers[k].count;
    }
    st_free(list);
    m->arts = st_calloc(na ? na : 1, sizeof *m->arts);
    m->axis = st_calloc(3 * (m->nin ? m->nin : 1), sizeof *m->axis);
    m->apos = st_calloc(3 * (m->nin ? m->nin : 1), sizeof *m->apos);
    m->prev = st_calloc(m->nin ? m->nin : 1, sizeof *m->prev);
    m->fbuf = st_calloc(6 * m->nout, sizeof *m->fbuf);
    m->center_of_child = st_calloc(m->nout, sizeof *m->center_of_child);
    if (!m->arts || !m->axis || !m->apos || !m->prev || !m->fbuf || !m->center_of_child)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu articulations)", na);
    m->narts = na;
    for (size_t k = 0; k < nc; k++)
        collect_articulations(m->centers[k].c, (st_component **)(m->arts + m->centers[k].first),
                              0);
    /* Checks: indices name bodies and values. */
    for (size_t i = 0; i < m->nout; i++)
        m->center_of_child[i] = -1;
    for (size_t k = 0; k < nc; k++) {
        articulation_center *c = m->centers[k].c;
        if (c->parent_index < 0 || (size_t)c->parent_index >= m->nout || c->child_index < 0 ||
            (size_t)c->child_index >= m->nout)
            return st_component_error(&c->base, "childIndex", err, ST_ESCENE,
                                      "parentIndex %d / childIndex %d: output '%s' has %zu bodies",
                                      c->parent_index, c->child_index, m->h.out->base.name,
                                      m->nout);
        if (m->center_of_child[c->child_index] < 0)
            m->center_of_child[c->child_index] = (int)k;
        for (size_t j = 0; j < m->centers[k].count; j++) {
            articulation *a = m->arts[m->centers[k].first + j];
            if (a->articulation_index < 0 || (size_t)a->articulation_index >= m->nin)
                return st_component_error(&a->base, "articulationIndex", err, ST_ESCENE,
                                          "articulationIndex %d: input1 '%s' has %zu values",
                                          a->articulation_index, in1->base.name, m->nin);
        }
    }
    /* The ancestors of each body must end at body 0 (SOFA's getAcendantList). */
    for (size_t i = 1; i < m->nout; i++) {
        size_t b = i, steps = 0;
        while (b != 0 && m->center_of_child[b] >= 0 && steps <= nc) {
            b = (size_t)m->centers[m->center_of_child[b]].c->parent_index;
            steps++;
        }
        if (steps > nc)
            return st_component_error(self, "container", err, ST_ESCENE,
                                      "the articulation centers make a loop through body %zu", i);
    }
    reset_accumulators(m, in1->position.r);
    st_mstate *out = m->h.out;
    if (out->velocity.n != m->nout || out->rest_position.n != m->nout)
        ST_TRY(map_resize_output(out, m->nout, err));
    asm_apply_x(m, in1->position.r, m->root ? m->root->position.r : NULL, out->position.r);
    if (in1->velocity.n == m->nin && (!m->root || m->root->velocity.n == m->nroot))
        asm_apply_v(m, in1->velocity.r, m->root ? m->root->velocity.r : NULL, out->position.r,
                    out->velocity.r);
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void asm_reset(st_component *self)
{
    asm_mapping *m = (asm_mapping *)self;
    if (self->state == ST_CSTATE_VALID && m->h.in)
        reset_accumulators(m, m->h.in->position.r);
}

static void asm_cleanup(st_component *self)
{
    asm_mapping *m = (asm_mapping *)self;
    asm_free(m);
    map_head_release(&m->h);
}

static bool ready(const asm_mapping *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->nout &&
           m->h.in->n == m->nin && (!m->root || m->root->n == m->nroot);
}

static void asm_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    asm_mapping *m = (asm_mapping *)self;
    if (ready(m))
        asm_apply_x(m, st_slice_x(x, m->h.in), m->root ? st_slice_x(x, m->root) : NULL,
                    st_slice_x(x, m->h.out));
}

void articulated_mapping_refresh(st_component *self, const st_mstate *input)
{
    asm_mapping *m = (asm_mapping *)self;
    if (self->cls != &articulated_system_mapping_class || m->h.in != input || !ready(m))
        return;
    st_mstate *out = m->h.out;
    asm_apply_x(m, m->h.in->position.r, m->root ? m->root->position.r : NULL, out->position.r);
    const st_field *f = st_component_field(&out->base, "position");
    if (f)
        st_component_touch(&out->base, f);
}

/* The output's positions as of the last apply (SOFA reads the output's
 * position vector in J and J^T). */
static const double *xout_now(const asm_mapping *m) { return m->h.out->position.r; }

static void asm_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    asm_mapping *m = (asm_mapping *)self;
    if (ready(m))
        asm_apply_v(m, st_slice(v, m->h.in), m->root ? st_slice(v, m->root) : NULL, xout_now(m),
                    st_slice(v, m->h.out));
}

static void asm_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    asm_mapping *m = (asm_mapping *)self;
    if (ready(m))
        asm_apply_t(m, st_slice(f, m->h.out), xout_now(m), st_slice(f, m->h.in),
                    m->root ? st_slice(f, m->root) : NULL);
}

/* J block by block: body i depends on the articulations of the centers on
 * its way up to body 0, and on input2's point (rigid transport). */
static void asm_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    asm_mapping *m = (asm_mapping *)self;
    if (!ready(m))
        return;
    const double *x = xout_now(m);
    for (size_t i = 0; i < m->nout; i++) {
        const double *C = x + 7 * i;
        size_t b = i, steps = 0;
        while (b != 0 && m->center_of_child[b] >= 0 && steps++ <= m->ncenters) {
            const asm_center *ac = &m->centers[m->center_of_child[b]];
            for (size_t j = 0; j < ac->count; j++) {
                const articulation *ar = m->arts[ac->first + j];
                size_t ind = (size_t)ar->articulation_index;
                const double *ax = m->axis + 3 * ind, *A = m->apos + 3 * ind;
                double blk[6] = {0, 0, 0, 0, 0, 0};
                if (ar->rotation) {
                    double ca[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
                    cross(ax, ca, blk);
                    blk[3] = ax[0], blk[4] = ax[1], blk[5] = ax[2];
                }
                if (ar->translation)
                    for (int a = 0; a < 3; a++)
                        blk[a] += ax[a];
                st_jbuilder_add(jb, i, m->h.in, ind, blk);
            }
            b = (size_t)ac->c->parent_index;
        }
        if (m->root && b == 0) {
            const double *R0 = x;
            double r[3] = {C[0] - R0[0], C[1] - R0[1], C[2] - R0[2]};
            /* (v, w) = (v0 + w0 x r, w0): [[I, -[r]x], [0, I]] */
            const double B[36] = {1, 0, 0, 0,     r[2],  -r[1], 0, 1, 0, -r[2], 0, r[0],
                                  0, 0, 1, r[1], -r[0], 0,     0, 0, 0, 1,     0, 0,
                                  0, 0, 0, 0,     1,     0,     0, 0, 0, 0,     0, 1};
            st_jbuilder_add(jb, i, m->root, m->index_root, B);
        }
    }
}

/* The increments' reference (the values of the last apply), each center's
 * accumulated rotation and slide, and the axes and points J uses. */
static st_status asm_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    asm_mapping *m = (asm_mapping *)self;
    unsigned long long sizes[2] = {m->nin, m->ncenters};
    ST_TRY(st_checkpoint_data(ck, sizes, sizeof sizes, err));
    if (st_checkpoint_reading(ck) && (sizes[0] != m->nin || sizes[1] != m->ncenters))
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "the checkpoint holds %llu values and %llu centers, this scene "
                                  "%zu and %zu",
                                  sizes[0], sizes[1], m->nin, m->ncenters);
    if (m->nin) {
        ST_TRY(st_checkpoint_data(ck, m->prev, m->nin * sizeof *m->prev, err));
        ST_TRY(st_checkpoint_data(ck, m->axis, 3 * m->nin * sizeof *m->axis, err));
        ST_TRY(st_checkpoint_data(ck, m->apos, 3 * m->nin * sizeof *m->apos, err));
    }
    for (size_t k = 0; k < m->ncenters; k++) {
        ST_TRY(st_checkpoint_data(ck, m->centers[k].orient, sizeof m->centers[k].orient, err));
        ST_TRY(st_checkpoint_data(ck, m->centers[k].disp, sizeof m->centers[k].disp, err));
    }
    return ST_OK;
}

static const st_checkpoint_ops asm_checkpoint_ops = {.struct_size = sizeof(st_checkpoint_ops),
                                                     .transfer = asm_checkpoint};

static size_t asm_inputs(const st_component *self, st_mstate **out, size_t max)
{
    const asm_mapping *m = (const asm_mapping *)self;
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

static const st_mapping_ops asm_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = asm_apply,
    .apply_j = asm_apply_j,
    .apply_jt = asm_apply_jt,
    .get_j = asm_get_j,
    .flags = map_head_flags,
    .inputs = asm_inputs,
};

const st_class articulated_system_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "ArticulatedSystemMapping",
    .category = "Mapping",
    .description = "Mapping between a set of 6D DOF's and a set of angles (µ) using an "
                   "articulated hierarchy container.",
    .instance_size = sizeof(asm_mapping),
    .fields = asm_fields,
    .init = asm_init,
    .reinit = asm_init,
    .reset = asm_reset,
    .cleanup = asm_cleanup,
    .mapping = &asm_ops,
    .templates = asm_templates,
    .checkpoint = &asm_checkpoint_ops,
};
