/* blender_exporter.c - SOFA's BlenderExporter: the node's mechanical state
 * (Vec3d or Rigid3d: the first three coordinates and derivatives) written
 * as Blender point-cache files (.bphys) on SOFA's BaseSimulationExporter
 * events (sim_exporter.h), each named FILENAME[NNNNN]_00.bphys.
 *
 * A file, little-endian: "BPHYSICS" (8 bytes), then uint32 type
 * (simulationType, hair written as cloth: 2), uint32 count (the points;
 * hair: points + points / nbPtsByHair), uint32 data type (22 for hair,
 * else 6), then the points from the last to the first, each float32
 * position (3) and velocity (3), hair adding the rest position (3). Hair
 * also writes, before each strand's root (index divisible by nbPtsByHair),
 * an extra point one unit from the root towards the next point (position,
 * zero velocity, the same position as rest). A point past the velocity (or
 * rest position) list keeps the previous point's value, as SOFA's
 * accumulators do. With simulationType 3 (hair), init also writes SOFA's
 * information frame FILENAME[NNNNN] (no extension): "BPHYSICS", uint32 1 1
 * 64, float32 0 100 100.
 *
 * path, baseName and step are SOFA's data that its writer never reads: the
 * files follow filename and exportEveryNumberOfSteps. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "../shared/sim_exporter.h"

enum { BL_SOFT_BODY = 0, BL_PARTICLE, BL_CLOTH, BL_HAIR };

typedef struct blender_exporter {
    st_component base;
    sim_exporter ex;
    char *path;         /* "path" (unused by SOFA's writer) */
    char *base_name;    /* "baseName" (unused by SOFA's writer) */
    int sim_type;       /* "simulationType" */
    int sim_step;       /* "step" (unused by SOFA's writer) */
    int pts_by_hair;    /* "nbPtsByHair" */
    st_mstate *ms;
} blender_exporter;

#define T blender_exporter
static const st_field blender_exporter_fields[] = {
    SIM_EXPORTER_FIELDS(T),
    ST_STRING(T, path, "path", NULL, "output path (unused: the files follow filename)"),
    ST_STRING(T, base_name, "baseName", NULL,
              "Base name for the output files (unused: the files follow filename)"),
    ST_INT(T, sim_type, "simulationType", "0",
           "simulation type (0: soft body, 1: particles, 2:cloth, 3:hair)"),
    ST_INT(T, sim_step, "step", "2",
           "save the  simulation result every step frames (unused: exportEveryNumberOfSteps "
           "decides)"),
    ST_INT(T, pts_by_hair, "nbPtsByHair", "20", "number of element by hair strand"),
    ST_FIELD_END};
#undef T

static void put_u32(FILE *f, uint32_t v)
{
    const uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    fwrite(b, 1, 4, f);
}

static void put_f32s(FILE *f, const float *v, int n)
{
    for (int i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        put_u32(f, u);
    }
}

static void to_f32(float out[3], const double *x)
{
    for (int k = 0; k < 3; k++)
        out[k] = (float)x[k];
}

static st_status blender_write(st_component *self, st_error *err)
{
    blender_exporter *e = (blender_exporter *)self;
    const st_mstate *ms = e->ms;
    const bool hair = e->sim_type == BL_HAIR;
    const size_t n = ms->n, cs = ms->type->coord_size, ds = ms->type->deriv_size;
    if (hair && n % (size_t)e->pts_by_hair == 1)
        return st_component_error(self, "nbPtsByHair", err, ST_EINVAL,
                                  "the last hair strand has one point (%zu points, %d per strand): "
                                  "its root tangent needs a second one",
                                  n, e->pts_by_hair);
    char path[OUT_PATH_MAX];
    ST_TRY(sim_exporter_path(self, &e->ex, true, path, sizeof path - 9, err));
    strcat(path, "_00.bphys");
    out_file o;
    ST_TRY(out_open(&o, path, err));
    fwrite("BPHYSICS", 1, 8, o.f);
    put_u32(o.f, hair ? BL_CLOTH : (uint32_t)e->sim_type);
    put_u32(o.f, hair ? (uint32_t)(n + n / (size_t)e->pts_by_hair) : (uint32_t)n);
    put_u32(o.f, hair ? 22u : 6u);
    float pos[3] = {0}, vel[3] = {0}, rest[3] = {0}, zero[3] = {0};
    for (size_t k = n; k-- > 0;) {
        const double *x = ms->position.r + cs * k;
        if (hair && k % (size_t)e->pts_by_hair == 0) {
            const double *x1 = ms->position.r + cs * (k + 1);
            double t[3] = {x1[0] - x[0], x1[1] - x[1], x1[2] - x[2]};
            double len = sqrt(t[0] * t[0] + t[1] * t[1] + t[2] * t[2]);
            float root[3];
            for (int c = 0; c < 3; c++)
                root[c] = (float)(x[c] + (len > 0 ? t[c] / len : t[c]));
            put_f32s(o.f, root, 3);
            put_f32s(o.f, zero, 3);
            put_f32s(o.f, root, 3);
        }
        to_f32(pos, x);
        if (k < ms->velocity.n)
            to_f32(vel, ms->velocity.r + ds * k);
        if (k < ms->rest_position.n)
            to_f32(rest, ms->rest_position.r + cs * k);
        put_f32s(o.f, pos, 3);
        put_f32s(o.f, vel, 3);
        if (hair)
            put_f32s(o.f, rest, 3);
    }
    ST_TRY(out_commit(&o, err));
    if (self->print_log)
        st_component_info(self, "writing in %s", path);
    return ST_OK;
}

/* SOFA's extra information frame of a hair simulation. */
static st_status hair_info(st_component *self, blender_exporter *e, st_error *err)
{
    char path[OUT_PATH_MAX];
    ST_TRY(sim_exporter_path(self, &e->ex, true, path, sizeof path, err));
    out_file o;
    ST_TRY(out_open(&o, path, err));
    fwrite("BPHYSICS", 1, 8, o.f);
    put_u32(o.f, 1);
    put_u32(o.f, 1);
    put_u32(o.f, 64);
    const float f[3] = {0, 100, 100};
    put_f32s(o.f, f, 3);
    ST_TRY(out_commit(&o, err));
    if (self->print_log)
        st_component_info(self, "writing in %s", path);
    return ST_OK;
}

static st_status blender_init(st_component *self, st_error *err)
{
    blender_exporter *e = (blender_exporter *)self;
    self->state = ST_CSTATE_INVALID;
    e->ms = st_node_mstate(self->node);
    if (!e->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "No mechanical state with the datatype 'Vec3d' found in the "
                                  "context node.");
    if (e->ms->type->coord_size < 3 || e->ms->type->deriv_size < 3)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the state '%s' is a %s: BlenderExporter writes Vec3d and "
                                  "Rigid3d states",
                                  e->ms->base.name, e->ms->type->name);
    if (e->sim_type < BL_SOFT_BODY || e->sim_type > BL_HAIR)
        return st_component_error(self, "simulationType", err, ST_EINVAL,
                                  "simulationType must be 0 (soft body), 1 (particles), 2 "
                                  "(cloth) or 3 (hair), got %d",
                                  e->sim_type);
    if (e->sim_type == BL_HAIR && e->pts_by_hair <= 0)
        return st_component_error(self, "nbPtsByHair", err, ST_EINVAL,
                                  "nbPtsByHair must be > 0 for a hair simulation, got %d",
                                  e->pts_by_hair);
    if (e->ex.at_end && !sim_exporter_outlives(&e->ms->base, self))
        return st_component_error(self, "exportAtEnd", err, ST_EINVAL,
                                  "exportAtEnd writes while the scene is destroyed, when "
                                  "components of child nodes and later ones in this node are "
                                  "already gone: place the exporter after the mechanical state");
    e->ex.step = 0;
    if (e->sim_type == BL_HAIR)
        ST_TRY(hair_info(self, e, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void blender_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    sim_exporter_event(self, &((blender_exporter *)self)->ex, ev, blender_write);
}

static void blender_cleanup(st_component *self)
{
    blender_exporter *e = (blender_exporter *)self;
    /* exportAtEnd: init checked that the state is destroyed after this. */
    if (e->ms && self->state == ST_CSTATE_VALID)
        sim_exporter_cleanup(self, &e->ex, blender_write);
}

static void blender_reset(st_component *self)
{
    ((blender_exporter *)self)->ex.step = 0;
}

static const char *const blender_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class blender_exporter_class = {
    .struct_size = sizeof(st_class),
    .name = "BlenderExporter",
    .category = "Exporter",
    .description = "Export the simulation result as blender point cache files.",
    .instance_size = sizeof(blender_exporter),
    .fields = blender_exporter_fields,
    .init = blender_init,
    .reinit = blender_init,
    .reset = blender_reset,
    .on_event = blender_event,
    .cleanup = blender_cleanup,
    .templates = blender_templates,
};
