/* distances.c - SOFA's Distances: an engine between a
 * DynamicSparseGridTopologyContainer (hexaContainerPath) and a Vec3d
 * mechanical state (targetPath) whose scene-visible work is done at init:
 *
 *   the container and the target are found as SOFA's object factory finds
 *   them, paths relative to the object's description (a first ".." is the
 *   object's own node, a node stands for its mechanical state; absent:
 *   "../.." and ".."); a missing one or one of another type is refused,
 *   as SOFA refuses to create the object;
 *   then SOFA needs DynamicSparseGridGeometryAlgorithms in the container's
 *   context and a voxel loader (VoxelGridLoader) in its own; without
 *   either it logs SOFA's error and does nothing more (a warning here);
 *   initTarget: the target gets one point per hexahedron i whose rest
 *   centre c (the mean of its 8 rest points in the geometry algorithms'
 *   state) has int(c / voxelSize) divisible by initTargetStep on all three
 *   axes: the current centre plus offset, as position and rest position;
 *   the target is resized to those points, velocities zero.
 *
 * The distance maps (geodesic, harmonic, stiffness diffusion, Voronoi,
 * harmonic with stiffness; d_distanceType, harmonicMaxValue, zonesFramePair,
 * filename) are computed only when SOFA's C++ callers ask (addElt,
 * computeDistanceMap, getDistances), never by the engine's update, which
 * is empty: those fields are kept (d_distanceType checked against SOFA's
 * options) without effect, as the drawing ones. */
#include <math.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/options.h"

typedef struct distances {
    st_component base;
    unsigned show_map_index;   /* "showMapIndex" (drawing) */
    bool show_distances, show_goal, show_gradients; /* drawing */
    double text_scale, gradient_scale;              /* drawing */
    st_vec3 offset;            /* "offset" */
    char *distance_type;       /* "d_distanceType" */
    bool init_target;          /* "initTarget" */
    int init_target_step;      /* "initTargetStep" */
    char *zones;               /* "zonesFramePair" (distance maps only) */
    double harmonic_max;       /* "harmonicMaxValue" (distance maps only) */
    char *filename;            /* "filename" (distance maps only) */
    char *target_path;         /* "targetPath" */
    char *container_path;      /* "hexaContainerPath" */
    /* Found at init. */
    st_component *container, *geo, *loader;
    st_mstate *target;
} distances;

static const char *const distance_types[] = {"Geodesic", "Harmonic", "Stiffness Diffusion",
                                             "Voronoi", "Harmonic with Stiffness", NULL};
static const st_option_field options[] = {{"d_distanceType", distance_types}, {NULL, NULL}};

#define T distances
static const st_field distances_fields[] = {
    IGN_UINT(T, show_map_index, "showMapIndex", "0", "Frame DOF index on which display values."),
    IGN_BOOL(T, show_distances, "showDistancesMap", "false",
             "show the distance for each point of the target point set."),
    IGN_BOOL(T, show_goal, "showGoalDistancesMap", "false",
             "show the distance for each point of the target point set."),
    IGN_REAL(T, text_scale, "showTextScaleFactor", "0.001", "Scale to apply on the text."),
    IGN_BOOL(T, show_gradients, "showGradients", "false",
             "show gradients for each point of the target point set."),
    IGN_REAL(T, gradient_scale, "showGradientsScaleFactor", "0.1",
             "scale for the gradients displayed."),
    ST_VEC3(T, offset, "offset", "0 0 0",
            "translation offset between the topology and the point set."),
    ST_STRING(T, distance_type, "d_distanceType", "Geodesic",
              "type of distance to compute for inserted frames (Geodesic, Harmonic, Stiffness "
              "Diffusion, Voronoi, Harmonic with Stiffness; used by SOFA's C++ callers only)"),
    ST_BOOL(T, init_target, "initTarget", "false",
            "initialize the target MechanicalObject from the grid."),
    ST_INT(T, init_target_step, "initTargetStep", "1",
           "initialize the target MechanicalObject from the grid using this step."),
    IGN_STRING(T, zones, "zonesFramePair", "",
               "Correspondence between the segmented value and the frames (harmonic distances, "
               "computed only for SOFA's C++ callers)"),
    IGN_REAL(T, harmonic_max, "harmonicMaxValue", "100",
             "Max value used to initialize the harmonic distance grid (computed only for "
             "SOFA's C++ callers)"),
    ST_FIELD_EX(T, filename, "filename", ST_T_STRING, char *, "",
                "file containing the result of the computation of the distances (written only "
                "for SOFA's C++ callers)",
                ST_F_IGNORED, "d_fileDistance", 0.0, 0.0),
    ST_STRING(T, target_path, "targetPath", "",
              "path to the goal point set topology (absent: \"..\", the object's own node's "
              "mechanical state)"),
    ST_STRING(T, container_path, "hexaContainerPath", "",
              "path to the grid used to compute the distances (absent: \"../..\", SOFA's "
              "default, the parent node's mechanical state, which is never a grid)"),
    ST_FIELD_END};
#undef T

/* SOFA's object-factory lookup of path from the object (see the top):
 * NULL when nothing is found. */
static st_component *find_from_object(st_component *self, const char *path)
{
    const char *p = path;
    if (p[0] == '.' && p[1] == '.' && (p[2] == '\0' || p[2] == '/')) {
        p += 2;
        while (*p == '/')
            p++;
        if (*p == '\0')
            p = ".";
    }
    st_component *out = NULL;
    st_error err = {0};
    if (st_node_resolve(self->node, p, ST_LINK_ANY, &out, &err) != ST_OK)
        return NULL;
    return out;
}

/* The first object of class cls in n or its ancestors (SOFA's
 * context->get). */
static st_component *find_up(st_node *n, const char *cls)
{
    for (; n; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            st_component *o = st_node_object(n, i);
            if (strcmp(o->cls->name, cls) == 0)
                return o;
        }
    return NULL;
}

static const void *field_of(st_component *c, const char *name, st_type type)
{
    const st_field *f = st_component_field(c, name);
    return f && f->type == type ? st_component_field_ptr(c, f) : NULL;
}

/* SOFA's initTarget (see the top). */
static st_status init_target(distances *d, st_error *err)
{
    st_component *self = &d->base;
    const st_array *hx = d->container->cls->topology->elements(d->container, ST_T_HEXAS);
    const double *vs = field_of(d->container, "voxelSize", ST_T_VEC3);
    st_component *gs = st_node_find(d->geo->node, ST_ROLE_STATE, ST_SEARCH_UP);
    st_mstate *g = gs ? st_component_mstate(gs) : NULL;
    const size_t nh = hx ? hx->n : 0;
    if (!vs)
        return st_component_error(self, "hexaContainerPath", err, ST_EPLUGIN,
                                  "the container '%s' gives no voxelSize", d->container->name);
    if (nh && !g)
        return st_component_error(self, "hexaContainerPath", err, ST_ESCENE,
                                  "the geometry algorithms '%s' have no mechanical state for "
                                  "the hexahedra's centres",
                                  d->geo->name);
    for (size_t i = 0; i < 8 * nh; i++)
        if (hx->u[i] >= g->n)
            return st_component_error(self, "hexaContainerPath", err, ST_EINVAL,
                                      "hexahedron %zu of '%s' names point %u; its state has %zu",
                                      i / 8, d->container->name, hx->u[i], g->n);
    const int step = d->init_target_step;
    double *pos = st_malloc((nh ? nh : 1) * 3 * sizeof *pos);
    if (!pos)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu centres)", nh);
    size_t n = 0;
    for (size_t i = 0; i < nh; i++) {
        double rest[3] = {0, 0, 0}, cur[3] = {0, 0, 0};
        for (int w = 0; w < 8; w++)
            for (int c = 0; c < 3; c++) {
                rest[c] += g->rest_position.r[3 * hx->u[8 * i + w] + c] / 8;
                cur[c] += g->position.r[3 * hx->u[8 * i + w] + c] / 8;
            }
        bool kept = true;
        for (int c = 0; c < 3; c++) {
            const double q = rest[c] / vs[c];
            if (!(fabs(q) < 2e9)) { /* SOFA's int() of it would overflow */
                st_free(pos);
                return st_component_error(self, "hexaContainerPath", err, ST_EINVAL,
                                          "hexahedron %zu: its centre %g over the voxel size "
                                          "%g along %c is not an int",
                                          i, rest[c], vs[c], "xyz"[c]);
            }
            kept = kept && (int)q % step == 0;
        }
        if (!kept)
            continue;
        for (int c = 0; c < 3; c++)
            pos[3 * n + (size_t)c] = cur[c] + d->offset[c];
        n++;
    }
    st_status rc = map_resize_output(d->target, n, err);
    if (rc == ST_OK) {
        memcpy(d->target->position.r, pos, 3 * n * sizeof *pos);
        memcpy(d->target->rest_position.r, pos, 3 * n * sizeof *pos);
        memset(d->target->velocity.r, 0, 3 * n * sizeof(double));
    }
    st_free(pos);
    return rc;
}

static st_status distances_init(st_component *self, st_error *err)
{
    distances *d = (distances *)self;
    self->state = ST_CSTATE_INVALID;
    d->container = d->geo = d->loader = NULL;
    d->target = NULL;
    ST_TRY(st_options_check(self, options, err));
    if (d->init_target_step < 1)
        return st_component_error(self, "initTargetStep", err, ST_EINVAL,
                                  "initTargetStep %d: the step must be at least 1 (SOFA takes "
                                  "the voxel coordinates modulo it)",
                                  d->init_target_step);
    const char *cp = d->container_path && *d->container_path ? d->container_path : "../..";
    const char *tp = d->target_path && *d->target_path ? d->target_path : "..";
    st_component *c = find_from_object(self, cp);
    if (!c)
        return st_component_error(self, "hexaContainerPath", err, ST_ESCENE,
                                  "Cannot create Distances as the hexas container is missing "
                                  "('%s' does not resolve)",
                                  cp);
    if (strcmp(c->cls->name, "DynamicSparseGridTopologyContainer") != 0)
        return st_component_error(self, "hexaContainerPath", err, ST_ESCENE,
                                  "Object pointed by data attribute 'hexaContainerPath' is not of "
                                  "type DynamicSparseGridTopologyContainer ('%s' is '%s', a %s)",
                                  cp, c->name, c->cls->name);
    st_component *t = find_from_object(self, tp);
    if (!t)
        return st_component_error(self, "targetPath", err, ST_ESCENE,
                                  "Cannot create Distances as the target point set is missing "
                                  "('%s' does not resolve)",
                                  tp);
    st_mstate *ms = st_component_has_role(t, ST_ROLE_STATE) ? st_component_mstate(t) : NULL;
    if (!ms || strcmp(ms->type->name, "Vec3d") != 0)
        return st_component_error(self, "targetPath", err, ST_ESCENE,
                                  "Data attribute 'targetPath' does not point to a mechanical "
                                  "state of data type 'Vec3d' ('%s' is '%s', a %s)",
                                  tp, t->name, ms ? ms->type->name : t->cls->name);
    d->container = c;
    d->target = ms;
    self->state = ST_CSTATE_VALID;
    d->geo = find_up(c->node, "DynamicSparseGridGeometryAlgorithms");
    if (!d->geo) {
        st_component_warn(self, "Can not find the hexahedron geometry algorithms component "
                                "(DynamicSparseGridGeometryAlgorithms in the context of '%s'): "
                                "nothing is done, as in SOFA",
                          c->name);
        return ST_OK;
    }
    d->loader = find_up(self->node, "VoxelGridLoader");
    if (!d->loader) {
        st_component_warn(self, "Can not find the Voxel Grid Loader component "
                                "(VoxelGridLoader in its context): nothing is done, as in SOFA");
        return ST_OK;
    }
    return d->init_target ? init_target(d, err) : ST_OK;
}

/* SOFA's reinit only updates the engine, whose update is empty. */
static st_status distances_reinit(st_component *self, st_error *err)
{
    (void)self, (void)err;
    return ST_OK;
}

static const char *const distances_templates[] = {"Vec3d", NULL};

const st_class distances_class = {
    .struct_size = sizeof(st_class),
    .name = "Distances",
    .category = "Engine",
    .description = "Compute distances based on a grid.",
    .instance_size = sizeof(distances),
    .fields = distances_fields,
    .init = distances_init,
    .reinit = distances_reinit,
    .templates = distances_templates,
};
