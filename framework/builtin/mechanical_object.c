/* mechanical_object.c - the built-in MechanicalObject (templates Vec1d,
 * Vec2d, Vec3d, Vec6d, Rigid2d, Rigid3d): the state vectors of a set of points, initialised
 * as SOFA does (sizes, topology positions, scale/rotation/translation, rest
 * position), plus SOFA's reset and externalForce semantics. It plays the
 * state role like any third-party state class would: the kernel asks its
 * type through st_state_ops and lays its vectors out in the system's global
 * vectors. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtin/builtin.h"

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
    /* SOFA's parse attributes, read as floats at init (see apply_parse_attrs). */
    char *pa[16];
} mobject;

/* SOFA's MechanicalObject::parse attributes, in its order: scale; sx sy
 * sz; rx ry rz; dx dy dz; rx2 ry2 rz2; dx2 dy2 dz2. */
enum { PA_SCALE, PA_SX, PA_SY, PA_SZ, PA_RX, PA_RY, PA_RZ, PA_DX, PA_DY, PA_DZ, PA_RX2, PA_RY2,
       PA_RZ2, PA_DX2, PA_DY2, PA_DZ2 };

/* A field SOFA's MechanicalObject has that settee accepts without effect
 * (display, memory reservation, data rebuilt by other components). */
#define MO_IGN(m, key, T, CT, def, help) ST_IGNORED(mobject, m, key, T, CT, def, help)

static const st_field mobject_fields[] = {
    ST_FIELD_EX(st_mstate, template_name, "template", ST_T_STRING, char *, "Vec3d",
                "Data type of the degrees of freedom: Vec1d, Vec2d, Vec3d, Vec6d, Rigid2d or "
                "Rigid3d (SOFA's spellings Vec1, Vec2, Vec3, Vec6, Rigid2, Rigid3 and Rigid "
                "accepted)",
                0, NULL, 0.0, 0.0),
    ST_COORDS(st_mstate, position, "position", "0 0 0", "position coordinates of the degrees of freedom"),
    ST_DERIVS(st_mstate, velocity, "velocity", "0 0 0", "velocity coordinates of the degrees of freedom"),
    ST_DERIVS(st_mstate, force, "force", "0 0 0", "force vector of the degrees of freedom"),
    ST_COORDS(st_mstate, rest_position, "rest_position", NULL,
              "rest position coordinates of the degrees of freedom"),
    ST_DERIVS(st_mstate, external_force, "externalForce", "0 0 0",
              "externalForces vector of the degrees of freedom (applied during the next step only)"),
    ST_DERIVS(st_mstate, derivx, "derivX", NULL, "dx vector of the degrees of freedom"),
    ST_COORDS(mobject, free_position, "free_position", NULL,
              "free position coordinates of the degrees of freedom"),
    ST_DERIVS(mobject, free_velocity, "free_velocity", NULL,
              "free velocity coordinates of the degrees of freedom"),
    ST_COORDS(st_mstate, reset_position, "reset_position", NULL,
              "reset position coordinates of the degrees of freedom"),
    ST_DERIVS(st_mstate, reset_velocity, "reset_velocity", NULL,
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
    /* SOFA's parse attributes: each replaces a component of scale3d,
     * rotation or translation, read as ONE float (SOFA's getAttributeAsFloat:
     * a value strtof does not consume whole gives the default, with a
     * warning). */
    ST_STRING(mobject, pa[PA_SCALE], "scale", NULL, "Uniform scale: replaces scale3d (parse attribute, one float)"),
    ST_STRING(mobject, pa[PA_SX], "sx", NULL, "Scale along x: replaces scale3d (parse attribute)"),
    ST_STRING(mobject, pa[PA_SY], "sy", NULL, "Scale along y: replaces scale3d (parse attribute)"),
    ST_STRING(mobject, pa[PA_SZ], "sz", NULL, "Scale along z: replaces scale3d (parse attribute)"),
    ST_STRING(mobject, pa[PA_RX], "rx", NULL, "Rotation about x (degrees): replaces rotation (parse attribute)"),
    ST_STRING(mobject, pa[PA_RY], "ry", NULL, "Rotation about y (degrees): replaces rotation (parse attribute)"),
    ST_STRING(mobject, pa[PA_RZ], "rz", NULL, "Rotation about z (degrees): replaces rotation (parse attribute)"),
    ST_STRING(mobject, pa[PA_DX], "dx", NULL, "Translation along x: replaces translation (parse attribute)"),
    ST_STRING(mobject, pa[PA_DY], "dy", NULL, "Translation along y: replaces translation (parse attribute)"),
    ST_STRING(mobject, pa[PA_DZ], "dz", NULL, "Translation along z: replaces translation (parse attribute)"),
    ST_STRING(mobject, pa[PA_RX2], "rx2", NULL, "Rotation2 about x: replaces rotation2 (parse attribute)"),
    ST_STRING(mobject, pa[PA_RY2], "ry2", NULL, "Rotation2 about y: replaces rotation2 (parse attribute)"),
    ST_STRING(mobject, pa[PA_RZ2], "rz2", NULL, "Rotation2 about z: replaces rotation2 (parse attribute)"),
    ST_STRING(mobject, pa[PA_DX2], "dx2", NULL, "Translation2 along x: replaces translation2 (parse attribute)"),
    ST_STRING(mobject, pa[PA_DY2], "dy2", NULL, "Translation2 along y: replaces translation2 (parse attribute)"),
    ST_STRING(mobject, pa[PA_DZ2], "dz2", NULL, "Translation2 along z: replaces translation2 (parse attribute)"),
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
    bool coord;   /* coordinates (else derivatives) */
} vec_ref;

static const vec_ref mobject_vecs[] = {
    {"position", offsetof(st_mstate, position), true, true},
    {"velocity", offsetof(st_mstate, velocity), true, false},
    {"force", offsetof(st_mstate, force), true, false},
    {"externalForce", offsetof(st_mstate, external_force), true, false},
    {"derivX", offsetof(st_mstate, derivx), false, false},
    {"free_position", offsetof(mobject, free_position), false, true},
    {"free_velocity", offsetof(mobject, free_velocity), false, false},
    {"rest_position", offsetof(st_mstate, rest_position), false, true},
    {"reset_position", offsetof(st_mstate, reset_position), false, true},
    {"reset_velocity", offsetof(st_mstate, reset_velocity), false, false},
};

static unsigned cw(const st_mstate *ms) { return ms->type->coord_size; }
static unsigned dw(const st_mstate *ms) { return ms->type->deriv_size; }

/* Resizes a coordinate array to n points; new points are the type's
 * identity (SOFA's default-constructed coordinates: unit quaternion). */
static st_status resize_coords(st_mstate *ms, st_array *a, size_t n, st_error *err)
{
    size_t old = a->n;
    ST_TRY(st_array_resize_width(a, cw(ms), n, err));
    for (size_t i = old; i < n; i++)
        memcpy(a->r + cw(ms) * i, ms->type->identity, cw(ms) * sizeof(double));
    return ST_OK;
}
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
        if (a->n != n && (mobject_vecs[k].coord ? resize_coords(ms, a, n, err)
                                                : st_array_resize_width(a, dw(ms), n, err)) != ST_OK)
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
    unsigned w = dw(ms);
    if (st_array_resize_width(v, w, n, err) != ST_OK)
        return st_component_error(&ms->base, "velocity", err, ST_ENOMEM, "out of memory");
    for (size_t i = old; i < n; i++)
        memcpy(v->r + w * i, v->r + w * (old - 1), w * sizeof(double));
    return ST_OK;
}

/* SOFA's quaternion from Euler angles in degrees (x y z w) and its
 * rotation matrix (R = Rz Ry Rx: the rotation about x applies first). */
static void euler_matrix(const double deg[3], double R[9], double q[4])
{
    double a = deg[0] * M_PI / 180.0 * 0.5, b = deg[1] * M_PI / 180.0 * 0.5,
           c = deg[2] * M_PI / 180.0 * 0.5;
    double sa = sin(a), ca = cos(a), sb = sin(b), cb = cos(b), sc = sin(c), cc = cos(c);
    double q0 = sa * cb * cc - ca * sb * sc; /* x */
    double q1 = ca * sb * cc + sa * cb * sc; /* y */
    double q2 = ca * cb * sc - sa * sb * cc; /* z */
    double q3 = ca * cb * cc + sa * sb * sc; /* w */
    q[0] = q0;
    q[1] = q1;
    q[2] = q2;
    q[3] = q3;
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

/* Rotates the position part of each coordinate (missing components of
 * Vec1d/Vec2d read as 0); a Rigid3d orientation is left-multiplied by the
 * rotation, as SOFA's MechanicalObject<Rigid3>::applyRotation. */
static void apply_rotation(const st_mstate *ms, st_array *p, const double deg[3])
{
    if (vec3_is(deg, 0.0))
        return;
    double R[9], q[4];
    euler_matrix(deg, R, q);
    unsigned w = cw(ms), sp = ms->type->spatial_size;
    for (size_t i = 0; i < p->n; i++) {
        double *x = p->r + w * i;
        double u = x[0], v = sp > 1 ? x[1] : 0.0, z = sp > 2 ? x[2] : 0.0;
        double r[3] = {R[0] * u + R[1] * v + R[2] * z, R[3] * u + R[4] * v + R[5] * z,
                       R[6] * u + R[7] * v + R[8] * z};
        for (unsigned j = 0; j < sp; j++)
            x[j] = r[j];
        if (ms->type->rigid && ms->type->coord_size == 7) /* Rigid2d: the angle stays */
            st_quat_mul(x + 3, q, x + 3);
    }
}

static void apply_translation(const st_mstate *ms, st_array *p, const double t[3])
{
    if (vec3_is(t, 0.0))
        return;
    unsigned w = cw(ms), sp = ms->type->spatial_size;
    for (size_t i = 0; i < p->n; i++)
        for (unsigned j = 0; j < sp; j++)
            p->r[w * i + j] += t[j];
}

static void apply_scale(const st_mstate *ms, st_array *p, const double s[3])
{
    if (vec3_is(s, 1.0))
        return;
    unsigned w = cw(ms), sp = ms->type->spatial_size;
    for (size_t i = 0; i < p->n; i++)
        for (unsigned j = 0; j < sp; j++)
            p->r[w * i + j] = p->r[w * i + j] * s[j];
}

static bool array_nonzero(const st_array *a, unsigned w)
{
    for (size_t i = 0; i < w * a->n; i++)
        if (a->r[i] != 0.0)
            return true;
    return false;
}

/* Copies src into dst (an owned or empty array of w scalars per point). */
static st_status copy_array(st_array *dst, const st_array *src, unsigned w, st_error *err)
{
    if (dst->n != src->n && st_array_resize_width(dst, w, src->n, err) != ST_OK)
        return err ? err->code : ST_ENOMEM;
    if (src->n)
        memmove(dst->r, src->r, w * src->n * sizeof(double));
    return ST_OK;
}

/* SOFA's storeResetState: reset_position := position, and reset_velocity :=
 * velocity when the velocity is not zero. */
static st_status store_reset_state(st_mstate *ms, st_error *err)
{
    if (ms->reset_position.cap == 0 && ms->reset_position.p)
        return ST_OK; /* never bound, but be safe with borrowed memory */
    ST_TRY(copy_array(&ms->reset_position, &ms->position, cw(ms), err));
    if (array_nonzero(&ms->velocity, dw(ms)))
        ST_TRY(copy_array(&ms->reset_velocity, &ms->velocity, dw(ms), err));
    return ST_OK;
}

/* One parse attribute as SOFA reads it: strtof over the whole text, else
 * the default with a warning. */
static double parse_attr(st_component *self, const mobject *mo, int k, const char *name,
                         double def)
{
    const char *t = mo->pa[k];
    if (!t)
        return def;
    char *end;
    float v = strtof(t, &end);
    if (!t[0] || *end) {
        st_component_warn_field(self, name,
                                "'%s' is not one number: SOFA reads it as a float and uses %g",
                                t, def);
        return def;
    }
    return st_float_round(v);
}

/* SOFA's MechanicalObject::parse: scale, sx sy sz, rx ry rz, dx dy dz,
 * rx2 ry2 rz2, dx2 dy2 dz2 replace the data they stand for. */
static void apply_parse_attrs(st_component *self)
{
    mobject *mo = (mobject *)self;
    st_mstate *ms = &mo->ms;
    if (mo->pa[PA_SCALE]) {
        double sc = parse_attr(self, mo, PA_SCALE, "scale", 1.0);
        ms->scale3d[0] = ms->scale3d[1] = ms->scale3d[2] = sc;
    }
    static const char *const names[] = {"sx", "sy", "sz", "rx",  "ry",  "rz",  "dx",  "dy",
                                        "dz", "rx2", "ry2", "rz2", "dx2", "dy2", "dz2"};
    double *targets[5] = {ms->scale3d, ms->rotation, ms->translation, ms->rotation2,
                          ms->translation2};
    const double defs[5] = {1.0, 0.0, 0.0, 0.0, 0.0};
    for (int g = 0; g < 5; g++) {
        int k0 = PA_SX + 3 * g;
        if (!mo->pa[k0] && !mo->pa[k0 + 1] && !mo->pa[k0 + 2])
            continue;
        for (int a = 0; a < 3; a++)
            targets[g][a] = parse_attr(self, mo, k0 + a, names[3 * g + a], defs[g]);
    }
}

/* Points added (SOFA's MechanicalObject on PointsAdded): each vector's new
 * entries are the weighted sums of their ancestors' (computeWeightedValue);
 * a point without ancestors keeps zero derivatives and the type's identity
 * coordinates. A rigid coordinate sums its centres; its orientation is
 * that of its weightiest ancestor. */
static void points_added(st_mstate *ms, const st_topo_event *ev)
{
    for (size_t k = 0; k < NVECS; k++) {
        st_array *a = vec_at(ms, k);
        unsigned w = mobject_vecs[k].coord ? cw(ms) : dw(ms);
        bool rigid = mobject_vecs[k].coord && ms->type->rigid;
        const unsigned sp = ms->type->spatial_size;
        for (size_t j = 0; j < ev->n; j++) {
            size_t i = ev->index[j];
            if (i >= a->n)
                continue;
            double *v = a->r + (size_t)w * i;
            size_t a0 = ev->ancestor_start ? ev->ancestor_start[j] : 0;
            size_t a1 = ev->ancestor_start ? ev->ancestor_start[j + 1] : 0;
            if (a0 == a1) {
                if (mobject_vecs[k].coord)
                    memcpy(v, ms->type->identity, w * sizeof(double));
                continue;
            }
            size_t best = a0;
            for (size_t q = a0; q < a1; q++) {
                const double *u = a->r + (size_t)w * ev->ancestors[q];
                for (unsigned c = 0; c < (rigid ? sp : w); c++)
                    v[c] += ev->coefs[q] * u[c];
                if (ev->coefs[q] > ev->coefs[best])
                    best = q;
            }
            if (rigid)
                memcpy(v + sp, a->r + (size_t)w * ev->ancestors[best] + sp,
                       (w - sp) * sizeof(double));
        }
    }
}

/* After a change of the topology whose points the state follows: its
 * vectors were renumbered by the kernel (new points zero-filled); the new
 * points get their ancestors' values; the point count follows. */
static st_status mobject_topology_changed(st_component *self, st_component *topology,
                                          const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)err;
    st_mstate *ms = (st_mstate *)self;
    for (size_t e = 0; e < nev; e++) {
        if (ev[e].change != ST_TOPO_ADDED || ev[e].elem != ST_ELEM_POINT)
            continue;
        /* The kernel leaves an empty array empty; the vectors SOFA always
         * sizes are empty because the state was (every point removed,
         * then new ones added: a ParticleSink then a ParticleSource): they
         * grow with the points, the new ones zero (coordinates: identity). */
        for (size_t k = 0; k < NVECS && ev[e].before == 0; k++) {
            st_array *a = vec_at(ms, k);
            if (!mobject_vecs[k].forced || a->n)
                continue;
            ST_TRY(mobject_vecs[k].coord ? resize_coords(ms, a, ev[e].n, err)
                                         : st_array_resize_width(a, dw(ms), ev[e].n, err));
        }
        points_added(ms, &ev[e]);
    }
    ms->n = ms->position.n;
    ms->size = (unsigned)ms->n;
    return ST_OK;
}

/* SOFA's MechanicalObject hears of its topology's point changes (the
 * containers' state changes, propagateToDOF): every vector follows the
 * topology's points, so a removed point's place takes the last point's
 * values, as the topology's own lists do. */
static st_status follow_topology(st_mstate *ms, st_component *topo, st_error *err)
{
    st_component *self = &ms->base;
    for (size_t k = 0; k < NVECS; k++)
        ST_TRY(st_topology_follow_field(self, mobject_vecs[k].name, topo, ST_ELEM_POINT, NULL,
                                        NULL, err));
    return st_topology_listen(self, topo, mobject_topology_changed, err);
}

static st_status mobject_init(st_component *self, st_error *err)
{
    st_mstate *ms = (st_mstate *)self;
    if (!ms->type)
        return st_component_error(self, NULL, err, ST_ESTATE, "initialised before its type");
    apply_parse_attrs(self);

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
        ST_TRY(copy_array(&ms->position, &ms->rest_position, cw(ms), err));

    if (ms->position.n <= 1 && ms->velocity.n <= 1) {
        size_t nbp = topo && topo->cls->topology->nb_points ? topo->cls->topology->nb_points(topo) : 0;
        if (nbp > 0) {
            ST_TRY(pad_velocity(ms, nbp, err));
            ST_TRY(resize_set(ms, nbp, err));
            for (size_t i = 0; i < nbp; i++) {
                double p[3];
                topo->cls->topology->get_point(topo, i, p);
                memcpy(ms->position.r + cw(ms) * i, p, ms->type->spatial_size * sizeof(double));
            }
        } else if (ms->position.n == 0) {
            ST_TRY(resize_set(ms, 0, err));
        }
    } else if (ms->position.n != ms->size || ms->velocity.n != ms->size) {
        ST_TRY(pad_velocity(ms, ms->position.n, err));
        size_t n = ms->position.n > ms->velocity.n ? ms->position.n : ms->velocity.n;
        ST_TRY(resize_set(ms, n, err));
    }

    /* reinit(): scale, rotation, translation. */
    apply_scale(ms, &ms->position, ms->scale3d);
    apply_rotation(ms, &ms->position, ms->rotation);
    apply_translation(ms, &ms->position, ms->translation);

    if (ms->rest_position.n != ms->position.n) {
        ST_TRY(copy_array(&ms->rest_position, &ms->position, cw(ms), err));
        if (ms->rest_scale != 1.0)
            for (size_t i = 0; i < ms->rest_position.n; i++)
                for (unsigned j = 0; j < ms->type->spatial_size; j++)
                    ms->rest_position.r[cw(ms) * i + j] *= ms->rest_scale;
    }
    apply_rotation(ms, &ms->position, ms->rotation2);
    apply_translation(ms, &ms->position, ms->translation2);

    ms->n = ms->position.n;
    ms->size = (unsigned)ms->n;
    ms->has_external_force =
        ms->external_force.n > 0 && array_nonzero(&ms->external_force, dw(ms));
    if (topo)
        ST_TRY(follow_topology(ms, topo, err));
    return store_reset_state(ms, err);
}

/* SOFA's reset(): force := 0; back to the stored reset position and
 * velocity (zero velocity when none was stored). */
static void mobject_reset(st_component *self)
{
    st_mstate *ms = (st_mstate *)self;
    if (!ms->type)
        return;
    if (ms->force.p)
        memset(ms->force.p, 0, dw(ms) * ms->force.n * sizeof(double));
    if (ms->reset_position.n == 0)
        return;
    size_t n = ms->reset_position.n < ms->position.n ? ms->reset_position.n : ms->position.n;
    memmove(ms->position.r, ms->reset_position.r, cw(ms) * n * sizeof(double));
    if (ms->velocity.p) {
        memset(ms->velocity.p, 0, dw(ms) * ms->velocity.n * sizeof(double));
        size_t nv = ms->reset_velocity.n < ms->velocity.n ? ms->reset_velocity.n : ms->velocity.n;
        if (nv)
            memmove(ms->velocity.r, ms->reset_velocity.r, dw(ms) * nv * sizeof(double));
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
            st_array_free(&ms->reset_position, ST_T_COORDS);
            st_array_free(&ms->reset_velocity, ST_T_DERIVS);
            return;
        }
        st_error e = {0};
        if (store_reset_state((st_mstate *)self, &e) != ST_OK)
            st_component_warn(self, "could not store the reset state: %s", e.msg);
    }
}

/* The type named by "template", with the accepted names and a suggestion
 * when it names none. */
static st_status mobject_resolve_type(st_component *self, const st_state_type **out,
                                      st_error *err)
{
    st_mstate *ms = (st_mstate *)self;
    const char *tpl = ms->template_name && ms->template_name[0] ? ms->template_name : "Vec3d";
    *out = st_state_type_find(tpl);
    if (*out)
        return ST_OK;
    const char *names[32], *sugg[1];
    size_t ns = st__suggest(tpl, names, st__state_type_names(names, 32), sugg, 1);
    char list[256];
    return st_component_error(self, "template", err, ST_ESCENE,
                              "unsupported template '%s'%s%s%s: MechanicalObject supports %s", tpl,
                              ns ? " (did you mean '" : "", ns ? sugg[0] : "", ns ? "'?)" : "",
                              st_state_type_list(list, sizeof list));
}

/* SOFA's resize(n) without a topology (st_mstate_resize): the set vectors
 * get n points, new ones zero (coordinates: the identity). */
static st_status mobject_resize(st_component *self, size_t n, st_error *err)
{
    st_mstate *ms = (st_mstate *)self;
    ST_TRY(resize_set(ms, n, err));
    ms->n = ms->position.n;
    for (size_t k = 0; k < NVECS; k++) {
        const st_field *f = st_component_field(self, mobject_vecs[k].name);
        if (f)
            st_component_touch(self, f);
    }
    return ST_OK;
}

/* SOFA's replaceValue(from, to): every vector holding both points. */
static void mobject_replace_value(st_component *self, size_t from, size_t to)
{
    st_mstate *ms = (st_mstate *)self;
    size_t top = from > to ? from : to;
    for (size_t k = 0; k < NVECS; k++) {
        st_array *a = vec_at(ms, k);
        unsigned w = mobject_vecs[k].coord ? cw(ms) : dw(ms);
        if (a->n > top)
            memmove(a->r + (size_t)w * to, a->r + (size_t)w * from, w * sizeof(double));
    }
}

static const st_state_ops mobject_state_ops = {
    .struct_size = sizeof(st_state_ops),
    .resolve_type = mobject_resolve_type,
    .resize = mobject_resize,
    .replace_value = mobject_replace_value,
};

static const char *const mobject_templates[] = {"Vec1d",   "Vec2d",   "Vec3d", "Vec6d",
                                                "Rigid2d", "Rigid3d", NULL};

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
    .state = &mobject_state_ops,
    .templates = mobject_templates,
};
