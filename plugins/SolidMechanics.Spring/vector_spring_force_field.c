/* vector_spring_force_field.c - VectorSpringForceField: springs with a rest
 * vector instead of a rest length, between point a of object1 and point b
 * of object2 (Vec3d). With d = x2[b] - x1[a] - r (r the rest vector),
 *   F = ks d + kd (v2[b] - v1[a]),   f1[a] += F,   f2[b] -= F,
 * and SOFA's derivative keeps the stiffness only:
 *   df1[a] += kf ks (dx2[b] - dx1[a]),   df2[b] -= the same,
 * (K blocks -ks I on (a, a) and (b, b), +ks I across; no damping matrix:
 * SOFA's addDForce ignores the damping factor and its buildDampingMatrix is
 * empty, so kd acts explicitly only). SOFA's potential energy is always 0.
 *
 * The springs, as SOFA's bwdInit makes them:
 *   - useTopology and a topology (the `topology` link, else the first found
 *     from the node upward): one spring per edge (e0, e1), ks = stiffness,
 *     kd = viscosity, r = x0[e1] - x0[e0] from object1's rest positions;
 *   - else one spring (i, i) per point of object1, r = 0, ks = stiffness,
 *     kd = viscosity (object2 must have as many points).
 * `springs` shows them (ks kd rx ry rz each; SOFA's Spring is neither read
 * nor written as text, so a scene cannot give them).
 *
 * Deviations, on purpose: `filename` (SOFA's Xsp spring files) is refused
 * with a message, settee reads no Xsp file; the springs do not follow
 * topological changes (SOFA's EdgeData creation callback, which swaps ks and
 * kd for a new edge without ancestors); useTopology without a topology is
 * an error at init (SOFA: an error and an invalid component). */
#include <string.h>

#include "springs.h"

typedef struct vector_spring_ff {
    st_component base;
    st_array springs;          /* "springs": 5 reals per spring (output) */
    char *filename;            /* "filename" */
    double stiffness;          /* "stiffness" */
    double viscosity;          /* "viscosity" */
    bool use_topology;         /* "useTopology" */
    st_component *topology;    /* "topology" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *object1, *object2;
    /* Set at init. */
    st_mstate *ms1, *ms2;
    unsigned (*ends)[2];       /* n springs: (a, b) */
    size_t n;
} vector_spring_ff;

static const st_field vsff_fields[] = {
    ST_OUTPUT(vector_spring_ff, springs, "springs", ST_T_REALS, st_array,
              "springs data: ks kd rx ry rz per spring (SOFA's Spring has no text form: a scene "
              "cannot set them)"),
    ST_STRING(vector_spring_ff, filename, "filename", "",
              "File name from which the spring information are loaded (SOFA's Xsp files: not "
              "read by settee, refused)"),
    ST_REAL(vector_spring_ff, stiffness, "stiffness", "1",
            "Default edge stiffness used in absence of file information"),
    ST_REAL(vector_spring_ff, viscosity, "viscosity", "1",
            "Default edge viscosity used in absence of file information"),
    ST_BOOL(vector_spring_ff, use_topology, "useTopology", "false",
            "Activate/Deactivate topology mode of the component (springs on each edge)"),
    ST_LINK(vector_spring_ff, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container"),
    SPRING_F_RAYLEIGH(vector_spring_ff),
    SPRING_F_OBJECTS(vector_spring_ff),
    ST_FIELD_END};

static void vsff_free(vector_spring_ff *s)
{
    st_free(s->ends);
    s->ends = NULL;
    s->n = 0;
}

static st_status vsff_alloc(vector_spring_ff *s, size_t n, st_error *err)
{
    s->ends = st_calloc(n ? n : 1, sizeof *s->ends);
    if (!s->ends)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu vector springs", n);
    s->n = n;
    return st_array_resize(&s->springs, ST_T_REALS, 5 * n, err);
}

static void vsff_set(vector_spring_ff *s, size_t i, unsigned a, unsigned b, const double r[3])
{
    s->ends[i][0] = a;
    s->ends[i][1] = b;
    double *sp = s->springs.r + 5 * i;
    sp[0] = s->stiffness;
    sp[1] = s->viscosity;
    sp[2] = r[0], sp[3] = r[1], sp[4] = r[2];
}

static st_status vsff_init(st_component *self, st_error *err)
{
    vector_spring_ff *s = (vector_spring_ff *)self;
    self->state = ST_CSTATE_INVALID;
    vsff_free(s);
    ST_TRY(springs_link_state(self, s->object1, "object1", &s->ms1, err));
    ST_TRY(springs_link_state(self, s->object2, "object2", &s->ms2, err));
    if (s->ms1->type != &st_vec3d_type || s->ms2->type != &st_vec3d_type)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "VectorSpringForceField acts on Vec3d states: '%s' is %s, "
                                  "'%s' %s",
                                  s->ms1->base.name, s->ms1->type->name, s->ms2->base.name,
                                  s->ms2->type->name);
    if (s->filename && s->filename[0])
        return st_component_error(self, "filename", err, ST_ESCENE,
                                  "Xsp spring files are not read by settee ('%s'): give the "
                                  "springs by a topology (useTopology) or one per point",
                                  s->filename);
    st_component *topo = NULL;
    if (s->use_topology) {
        topo = s->topology ? s->topology : st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
        if (!topo)
            return st_component_error(self, "topology", err, ST_ESCENE,
                                      "No topology component found at path: (none), nor in "
                                      "current context: %s",
                                      self->node ? st_node_name(self->node) : "?");
    }
    const double zero[3] = {0, 0, 0};
    if (topo) {
        const st_array *ed = topo->cls->topology->elements(topo, ST_T_EDGES);
        size_t ne = ed ? ed->n : 0;
        ST_TRY(vsff_alloc(s, ne, err));
        const st_array *x0 = s->ms1->rest_position.n ? &s->ms1->rest_position : &s->ms1->position;
        for (size_t i = 0; i < ne; i++) {
            unsigned a = ed->u[2 * i], b = ed->u[2 * i + 1];
            if (a >= s->ms1->n || b >= s->ms1->n || b >= s->ms2->n)
                return st_component_error(self, "topology", err, ST_EINVAL,
                                          "edge %zu (%u, %u) names a point beyond the states "
                                          "('%s' has %zu points, '%s' %zu)",
                                          i, a, b, s->ms1->base.name, s->ms1->n,
                                          s->ms2->base.name, s->ms2->n);
            const double *p = x0->r + 3 * (size_t)a, *q = x0->r + 3 * (size_t)b;
            const double r[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
            vsff_set(s, i, a, b, r);
        }
    } else {
        size_t n = s->ms1->n;
        if (s->ms2->n < n)
            return st_component_error(self, "object2", err, ST_ESCENE,
                                      "one spring links point i of '%s' to point i of '%s': "
                                      "'%s' has %zu points, '%s' only %zu",
                                      s->ms1->base.name, s->ms2->base.name, s->ms1->base.name, n,
                                      s->ms2->base.name, s->ms2->n);
        ST_TRY(vsff_alloc(s, n, err));
        for (size_t i = 0; i < n; i++)
            vsff_set(s, i, (unsigned)i, (unsigned)i, zero);
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void vsff_cleanup(st_component *self) { vsff_free((vector_spring_ff *)self); }

static bool vsff_ready(const vector_spring_ff *s)
{
    if (s->base.state != ST_CSTATE_VALID)
        return false;
    for (size_t i = 0; i < s->n; i++)
        if (s->ends[i][0] >= s->ms1->n || s->ends[i][1] >= s->ms2->n)
            return false;
    return true;
}

static void vsff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp;
    vector_spring_ff *s = (vector_spring_ff *)self;
    if (!vsff_ready(s))
        return;
    double *f1 = st_slice(f, s->ms1), *f2 = st_slice(f, s->ms2);
    const double *x1 = st_slice_x(x, s->ms1), *x2 = st_slice_x(x, s->ms2);
    const double *v1 = st_slice(v, s->ms1), *v2 = st_slice(v, s->ms2);
    for (size_t i = 0; i < s->n; i++) {
        const size_t a = 3 * (size_t)s->ends[i][0], b = 3 * (size_t)s->ends[i][1];
        const double *sp = s->springs.r + 5 * i;
        for (int k = 0; k < 3; k++) {
            double F = sp[0] * (x2[b + k] - x1[a + k] - sp[2 + k]) +
                       sp[1] * (v2[b + k] - v1[a + k]);
            f1[a + k] += F;
            f2[b + k] -= F;
        }
    }
}

static void vsff_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                            double kfactor, double bfactor)
{
    (void)mp, (void)bfactor; /* SOFA's addDForce: no damping term */
    vector_spring_ff *s = (vector_spring_ff *)self;
    if (!vsff_ready(s))
        return;
    double *df1 = st_slice(df, s->ms1), *df2 = st_slice(df, s->ms2);
    const double *dx1 = st_slice(dx, s->ms1), *dx2 = st_slice(dx, s->ms2);
    for (size_t i = 0; i < s->n; i++) {
        const size_t a = 3 * (size_t)s->ends[i][0], b = 3 * (size_t)s->ends[i][1];
        const double ks = kfactor * s->springs.r[5 * i];
        for (int k = 0; k < 3; k++) {
            double d = ks * (dx2[b + k] - dx1[a + k]);
            df1[a + k] += d;
            df2[b + k] -= d;
        }
    }
}

static void vsff_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    vector_spring_ff *s = (vector_spring_ff *)self;
    if (!vsff_ready(s))
        return;
    for (size_t i = 0; i < s->n; i++) {
        const unsigned a = s->ends[i][0], b = s->ends[i][1];
        const double ks = kfactor * s->springs.r[5 * i];
        const double neg[9] = {-ks, 0, 0, 0, -ks, 0, 0, 0, -ks};
        const double pos[9] = {ks, 0, 0, 0, ks, 0, 0, 0, ks};
        st_matrix_add_block(m, s->ms1, a, s->ms1, a, neg);
        st_matrix_add_block(m, s->ms1, a, s->ms2, b, pos);
        st_matrix_add_block(m, s->ms2, b, s->ms1, a, pos);
        st_matrix_add_block(m, s->ms2, b, s->ms2, b, neg);
    }
}

static double vsff_rayleigh(const st_component *self)
{
    return ((const vector_spring_ff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops vsff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = vsff_add_force,
    .add_dforce = vsff_add_dforce,
    .add_k_to_matrix = vsff_add_k,
    .rayleigh_stiffness = vsff_rayleigh,
};

static const char *const vsff_templates[] = {"Vec3d", NULL};

const st_class vector_spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "VectorSpringForceField",
    .category = "ForceField",
    .description = "Spring force field acting along the edges of a mesh.",
    .instance_size = sizeof(vector_spring_ff),
    .fields = vsff_fields,
    .init = vsff_init,
    .reinit = vsff_init,
    .cleanup = vsff_cleanup,
    .forcefield = &vsff_ops,
    .templates = vsff_templates,
};
