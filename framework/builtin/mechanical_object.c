/* mechanical_object.c - the built-in MechanicalObject (template Vec3d): the
 * state vectors of a set of vertices, initialised as SOFA does (sizes,
 * topology positions, scale/rotation/translation, rest position), plus
 * SOFA's reset and externalForce semantics. Once a mechanical system is
 * compiled, the vectors point into the system's global vectors. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The instance: st_mstate (mechanics.h) first, then display-only fields
 * accepted for SOFA scene compatibility. */
typedef struct mobject {
    st_mstate ms;
    st_array free_position, free_velocity;
    bool show_object, show_indices, show_vectors;
    double show_object_scale, show_indices_scale, show_vectors_scale;
    int draw_mode;
    st_vec4 show_color;
    unsigned reserve;
    st_array constraint, mapping_jacobian; /* ignored */
} mobject;

/* A field SOFA's MechanicalObject has that settee accepts without effect
 * (display, memory reservation, data rebuilt by other components). */
#define MO_IGN(m, key, T, CT, def, help) ST_IGNORED(mobject, m, key, T, CT, def, help)

static const st_field mobject_fields[] = {
    ST_FIELD_EX(st_mstate, template_name, "template", ST_T_STRING, char *, "Vec3d",
                "Data type of the degrees of freedom (Vec3d; Vec3 is accepted as a synonym)", 0, NULL,
                0.0, 0.0),
    ST_VEC3S(st_mstate, position, "position", "0 0 0", "position coordinates of the degrees of freedom"),
    ST_VEC3S(st_mstate, velocity, "velocity", "0 0 0", "velocity coordinates of the degrees of freedom"),
    ST_VEC3S(st_mstate, force, "force", "0 0 0", "force vector of the degrees of freedom"),
    ST_VEC3S(st_mstate, rest_position, "rest_position", NULL,
             "rest position coordinates of the degrees of freedom"),
    ST_VEC3S(st_mstate, external_force, "externalForce", "0 0 0",
             "externalForces vector of the degrees of freedom (applied during the next step only)"),
    ST_VEC3S(st_mstate, derivx, "derivX", NULL, "dx vector of the degrees of freedom"),
    ST_VEC3S(mobject, free_position, "free_position", NULL,
             "free position coordinates of the degrees of freedom"),
    ST_VEC3S(mobject, free_velocity, "free_velocity", NULL,
             "free velocity coordinates of the degrees of freedom"),
    ST_VEC3S(st_mstate, reset_position, "reset_position", NULL,
             "reset position coordinates of the degrees of freedom"),
    ST_VEC3S(st_mstate, reset_velocity, "reset_velocity", NULL,
             "reset velocity coordinates of the degrees of freedom"),
    ST_REAL(st_mstate, rest_scale, "restScale", "1",
            "optional scaling of rest position coordinates (to simulated pre-existing internal tension)"),
    ST_BOOL(st_mstate, use_topology, "useTopology", "true",
            "Shall this object rely on any active topology to initialize its size and positions"),
    MO_IGN(show_object, "showObject", ST_T_BOOL, bool, "false", "Show objects. (default=false)"),
    MO_IGN(show_object_scale, "showObjectScale", ST_T_REAL, double, "0.1",
           "Scale for object display. (default=0.1)"),
    MO_IGN(show_indices, "showIndices", ST_T_BOOL, bool, "false", "Show indices. (default=false)"),
    MO_IGN(show_indices_scale, "showIndicesScale", ST_T_REAL, double, "1",
           "Scaling factor for indices display size"),
    MO_IGN(show_vectors, "showVectors", ST_T_BOOL, bool, "false", "Show velocity. (default=false)"),
    MO_IGN(show_vectors_scale, "showVectorsScale", ST_T_REAL, double, "0.0001",
           "Scale for vectors display. (default=0.0001)"),
    MO_IGN(draw_mode, "drawMode", ST_T_INT, int, "0",
           "The way vectors will be drawn: 0 line, 1 cylinder, 2 arrow"),
    MO_IGN(show_color, "showColor", ST_T_RGBA, st_vec4, "1 1 1 1",
           "Color for object display. (default=[1 1 1 1])"),
    MO_IGN(constraint, "constraint", ST_T_REALS, st_array, NULL,
           "constraints applied to the degrees of freedom (rebuilt by constraint components; "
           "settee has none)"),
    MO_IGN(mapping_jacobian, "mappingJacobian", ST_T_REALS, st_array, NULL,
           "mappingJacobian applied to the degrees of freedom (rebuilt by mappings)"),
    ST_VEC3(st_mstate, translation, "translation", "0 0 0", "Translation of the DOFs"),
    ST_VEC3(st_mstate, rotation, "rotation", "0 0 0", "Rotation of the DOFs (Euler angles in degrees)"),
    ST_VEC3(st_mstate, scale3d, "scale3d", "1 1 1", "Scale of the DOFs in 3 dimensions"),
    ST_VEC3(st_mstate, translation2, "translation2", "0 0 0",
            "Translation of the DOFs, applied after the rest position has been computed"),
    ST_VEC3(st_mstate, rotation2, "rotation2", "0 0 0",
            "Rotation of the DOFs, applied after the rest position has been computed"),
    ST_UINT(st_mstate, size, "size", "0", "Size of the vectors"),
    MO_IGN(reserve, "reserve", ST_T_UINT, unsigned, "0",
           "Size to reserve when creating vectors. (default=0)"),
    {"topology", ST_T_LINK, offsetof(st_mstate, topology), NULL,
     "Link to the topology relevant for this object", 0, NULL, ST_LINK_TOPOLOGY, 0.0, 0.0},
    ST_FIELD_END};

/* The state vectors, with their scene names: SOFA resizes those that are
 * "set" (position, velocity, force and externalForce always are). */
typedef struct vec_ref {
    const char *name;
    size_t offset;
    bool forced;
} vec_ref;

static const vec_ref mobject_vecs[] = {
    {"position", offsetof(st_mstate, position), true},
    {"velocity", offsetof(st_mstate, velocity), true},
    {"force", offsetof(st_mstate, force), true},
    {"externalForce", offsetof(st_mstate, external_force), true},
    {"derivX", offsetof(st_mstate, derivx), false},
    {"free_position", offsetof(mobject, free_position), false},
    {"free_velocity", offsetof(mobject, free_velocity), false},
    {"rest_position", offsetof(st_mstate, rest_position), false},
    {"reset_position", offsetof(st_mstate, reset_position), false},
    {"reset_velocity", offsetof(st_mstate, reset_velocity), false},
};
#define NVECS (sizeof mobject_vecs / sizeof mobject_vecs[0])

static st_array *vec_at(st_mstate *ms, size_t k)
{
    return (st_array *)((char *)ms + mobject_vecs[k].offset);
}

static bool vec_is_set(st_mstate *ms, size_t k)
{
    return mobject_vecs[k].forced || vec_at(ms, k)->n > 0 ||
           st_component_is_set(&ms->base, mobject_vecs[k].name);
}

/* SOFA's resize(n): every set vector gets n entries (new ones zero); n = 0
 * empties them. Also sets "size". */
static st_status resize_set(st_mstate *ms, size_t n, st_error *err)
{
    ms->size = (unsigned)n;
    for (size_t k = 0; k < NVECS; k++) {
        if (!vec_is_set(ms, k))
            continue;
        st_array *a = vec_at(ms, k);
        if (a->n != n && st_array_resize(a, ST_T_VEC3S, n, err) != ST_OK)
            return st_component_error(&ms->base, mobject_vecs[k].name, err, ST_ENOMEM,
                                      "out of memory resizing to %zu vertices", n);
    }
    return ST_OK;
}

/* Pads velocity with copies of its last entry up to n entries. */
static st_status pad_velocity(st_mstate *ms, size_t n, st_error *err)
{
    st_array *v = &ms->velocity;
    size_t old = v->n;
    if (old < 1 || old >= n)
        return ST_OK;
    if (st_array_resize(v, ST_T_VEC3S, n, err) != ST_OK)
        return st_component_error(&ms->base, "velocity", err, ST_ENOMEM, "out of memory");
    for (size_t i = old; i < n; i++)
        memcpy(v->r + 3 * i, v->r + 3 * (old - 1), 3 * sizeof(double));
    return ST_OK;
}

/* Rotation matrix of SOFA's quaternion from Euler angles in degrees
 * (R = Rz Ry Rx: the rotation about x applies first). */
static void euler_matrix(const double deg[3], double R[9])
{
    double a = deg[0] * M_PI / 180.0 * 0.5, b = deg[1] * M_PI / 180.0 * 0.5,
           c = deg[2] * M_PI / 180.0 * 0.5;
    double sa = sin(a), ca = cos(a), sb = sin(b), cb = cos(b), sc = sin(c), cc = cos(c);
    double q0 = sa * cb * cc - ca * sb * sc; /* x */
    double q1 = ca * sb * cc + sa * cb * sc; /* y */
    double q2 = ca * cb * sc - sa * sb * cc; /* z */
    double q3 = ca * cb * cc + sa * sb * sc; /* w */
    R[0] = 1.0 - 2.0 * (q1 * q1 + q2 * q2);
    R[1] = 2.0 * (q0 * q1 - q2 * q3);
    R[2] = 2.0 * (q2 * q0 + q1 * q3);
    R[3] = 2.0 * (q0 * q1 + q2 * q3);
    R[4] = 1.0 - 2.0 * (q2 * q2 + q0 * q0);
    R[5] = 2.0 * (q1 * q2 - q0 * q3);
    R[6] = 2.0 * (q2 * q0 - q1 * q3);
    R[7] = 2.0 * (q1 * q2 + q0 * q3);
    R[8] = 1.0 - 2.0 * (q1 * q1 + q0 * q0);
}

static bool vec3_is(const double v[3], double x)
{
    return v[0] == x && v[1] == x && v[2] == x;
}

static void apply_rotation(st_array *p, const double deg[3])
{
    if (vec3_is(deg, 0.0))
        return;
    double R[9];
    euler_matrix(deg, R);
    for (size_t i = 0; i < p->n; i++) {
        double *x = p->r + 3 * i;
        double u = x[0], v = x[1], w = x[2];
        x[0] = R[0] * u + R[1] * v + R[2] * w;
        x[1] = R[3] * u + R[4] * v + R[5] * w;
        x[2] = R[6] * u + R[7] * v + R[8] * w;
    }
}

static void apply_translation(st_array *p, const double t[3])
{
    if (vec3_is(t, 0.0))
        return;
    for (size_t i = 0; i < p->n; i++)
        for (int j = 0; j < 3; j++)
            p->r[3 * i + j] += t[j];
}

static void apply_scale(st_array *p, const double s[3])
{
    if (vec3_is(s, 1.0))
        return;
    for (size_t i = 0; i < p->n; i++)
        for (int j = 0; j < 3; j++)
            p->r[3 * i + j] = p->r[3 * i + j] * s[j];
}

static bool array_nonzero(const st_array *a)
{
    for (size_t i = 0; i < 3 * a->n; i++)
        if (a->r[i] != 0.0)
            return true;
    return false;
}

/* Copies src into dst (an owned or empty array) with its size. */
static st_status copy_array(st_array *dst, const st_array *src, st_error *err)
{
    if (dst->n != src->n && st_array_resize(dst, ST_T_VEC3S, src->n, err) != ST_OK)
        return err ? err->code : ST_ENOMEM;
    if (src->n)
        memmove(dst->r, src->r, 3 * src->n * sizeof(double));
    return ST_OK;
}

/* SOFA's storeResetState: reset_position := position, and reset_velocity :=
 * velocity when the velocity is not zero. */
static st_status store_reset_state(st_mstate *ms, st_error *err)
{
    if (ms->reset_position.cap == 0 && ms->reset_position.p)
        return ST_OK; /* never bound, but be safe with borrowed memory */
    ST_TRY(copy_array(&ms->reset_position, &ms->position, err));
    if (array_nonzero(&ms->velocity))
        ST_TRY(copy_array(&ms->reset_velocity, &ms->velocity, err));
    return ST_OK;
}

static st_status mobject_init(st_component *self, st_error *err)
{
    st_mstate *ms = (st_mstate *)self;
    const char *tpl = ms->template_name ? ms->template_name : "Vec3d";
    if (strcmp(tpl, "Vec3d") != 0 && strcmp(tpl, "Vec3") != 0)
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "unsupported template '%s': MechanicalObject supports Vec3d "
                                  "(also written Vec3)",
                                  tpl);

    /* The scene's "size" resizes the set vectors (SOFA does it at parse). */
    if (st_component_is_set(self, "size"))
        ST_TRY(resize_set(ms, ms->size, err));

    st_component *topo = ms->topology;
    if (!topo && ms->use_topology)
        topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_LOCAL);
    if (topo && !topo->cls->topology)
        topo = NULL;

    /* Sizes as the scene gave them: resize to the largest, and warn about
     * vectors of more than one entry that disagree with it. */
    size_t sizes[NVECS], max_size = 0;
    for (size_t k = 0; k < NVECS; k++) {
        sizes[k] = vec_at(ms, k)->n;
        if (sizes[k] > max_size)
            max_size = sizes[k];
    }
    if (ms->size < max_size)
        ST_TRY(resize_set(ms, max_size, err));
    bool mismatch = false;
    for (size_t k = 0; k < NVECS; k++)
        mismatch = mismatch || (sizes[k] > 1 && sizes[k] != max_size);
    if (mismatch) {
        char list[512];
        size_t len = 0;
        list[0] = '\0';
        for (size_t k = 0; k < NVECS && len < sizeof list; k++)
            if (sizes[k] > 1) {
                int w = snprintf(list + len, sizeof list - len, "%s(size %zu) ",
                                 mobject_vecs[k].name, sizes[k]);
                if (w > 0)
                    len += (size_t)w;
            }
        st_component_warn(self,
                          "One or more of the state vectors passed as argument don't match the "
                          "size of the others : %s",
                          list);
    }

    if (ms->rest_position.n > ms->position.n)
        ST_TRY(copy_array(&ms->position, &ms->rest_position, err));

    if (ms->position.n <= 1 && ms->velocity.n <= 1) {
        size_t nbp = topo && topo->cls->topology->nb_points ? topo->cls->topology->nb_points(topo) : 0;
        if (nbp > 0) {
            ST_TRY(pad_velocity(ms, nbp, err));
            ST_TRY(resize_set(ms, nbp, err));
            for (size_t i = 0; i < nbp; i++)
                topo->cls->topology->get_point(topo, i, ms->position.r + 3 * i);
        } else if (ms->position.n == 0) {
            ST_TRY(resize_set(ms, 0, err));
        }
    } else if (ms->position.n != ms->size || ms->velocity.n != ms->size) {
        ST_TRY(pad_velocity(ms, ms->position.n, err));
        size_t n = ms->position.n > ms->velocity.n ? ms->position.n : ms->velocity.n;
        ST_TRY(resize_set(ms, n, err));
    }

    /* reinit(): scale, rotation, translation. */
    apply_scale(&ms->position, ms->scale3d);
    apply_rotation(&ms->position, ms->rotation);
    apply_translation(&ms->position, ms->translation);

    if (ms->rest_position.n != ms->position.n) {
        ST_TRY(copy_array(&ms->rest_position, &ms->position, err));
        if (ms->rest_scale != 1.0)
            for (size_t i = 0; i < 3 * ms->rest_position.n; i++)
                ms->rest_position.r[i] *= ms->rest_scale;
    }
    apply_rotation(&ms->position, ms->rotation2);
    apply_translation(&ms->position, ms->translation2);

    ms->n = ms->position.n;
    ms->size = (unsigned)ms->n;
    ms->has_external_force = ms->external_force.n > 0 && array_nonzero(&ms->external_force);
    return store_reset_state(ms, err);
}

/* SOFA's reset(): force := 0; back to the stored reset position and
 * velocity (zero velocity when none was stored). */
static void mobject_reset(st_component *self)
{
    st_mstate *ms = (st_mstate *)self;
    if (ms->force.p)
        memset(ms->force.p, 0, 3 * ms->force.n * sizeof(double));
    if (ms->reset_position.n == 0)
        return;
    size_t n = ms->reset_position.n < ms->position.n ? ms->reset_position.n : ms->position.n;
    memmove(ms->position.r, ms->reset_position.r, 3 * n * sizeof(double));
    if (ms->velocity.p) {
        memset(ms->velocity.p, 0, 3 * ms->velocity.n * sizeof(double));
        size_t nv = ms->reset_velocity.n < ms->velocity.n ? ms->reset_velocity.n : ms->velocity.n;
        if (nv)
            memmove(ms->velocity.r, ms->reset_velocity.r, 3 * nv * sizeof(double));
    }
    const st_field *fp = st_component_field(self, "position");
    const st_field *fv = st_component_field(self, "velocity");
    if (fp)
        st_component_touch(self, fp);
    if (fv)
        st_component_touch(self, fv);
}

/* After the whole scene was initialised (projections done), store the reset
 * state again, as SOFA's StoreResetStateVisitor does. */
static void mobject_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    if (ev == ST_EVENT_INIT_DONE) {
        st_mstate *ms = (st_mstate *)self;
        if (ms->mapped) {
            /* Mapped states are deduced from their inputs: no reset state. */
            st_array_free(&ms->reset_position, ST_T_VEC3S);
            st_array_free(&ms->reset_velocity, ST_T_VEC3S);
            return;
        }
        st_error e = {0};
        if (store_reset_state((st_mstate *)self, &e) != ST_OK)
            st_component_warn(self, "could not store the reset state: %s", e.msg);
    }
}

bool st__is_mstate(const st_component *c)
{
    return c && c->cls == &st__mechanical_object_class;
}

const st_class st__mechanical_object_class = {
    .struct_size = sizeof(st_class),
    .name = "MechanicalObject",
    .category = "State",
    .description = "Mechanical state vectors (positions, velocities, forces) of a set of vertices",
    .aliases = NULL,
    .instance_size = sizeof(mobject),
    .fields = mobject_fields,
    .init = mobject_init,
    .reset = mobject_reset,
    .on_event = mobject_on_event,
};
