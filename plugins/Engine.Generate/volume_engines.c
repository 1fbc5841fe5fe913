/* volume_engines.c - VolumeFromTriangles and VolumeFromVolumetricElements:
 * the volume enclosed by a closed triangle and quad surface, by the
 * divergence theorem as SOFA sums it (per triangle (a b c):
 * ((b-a)_y (c-a)_z - (c-a)_y (b-a)_z)(a_x + b_x + c_x) / 6, quads split
 * (0 1 2) (0 2 3)), and the volume of tetrahedra and hexahedra (each
 * |det| / 6, a hexahedron as SOFA's six tetrahedra (0 5 1 6) (0 1 3 6)
 * (1 3 6 2) (6 3 0 7) (6 7 0 5) (7 5 4 0)); the absolute value of the sum.
 * position links to the context's MechanicalObject when unset (or to the
 * state `mechanical` links), the element lists are copied from the
 * context's topology (or `topology`) when unset. The volume is computed at
 * init, and again as the positions change only with update (SOFA's
 * doUpdate). Without positions or elements: SOFA's error, as a warning,
 * and the volume stays 0 (the component is invalid, as in SOFA); an index
 * beyond the positions is an error. VolumeFromVolumetricElements is also
 * SOFA's VolumeFromTetrahedrons. */
#include <math.h>

#include "../shared/engine_util.h"

typedef struct volume_engine {
    st_component base;
    st_component *topology, *mechanical; /* links */
    st_array position;                   /* coord[] */
    st_array a, b;                       /* triangles, quads / tetras, hexas */
    double volume;                       /* output */
    bool update;
    bool volumetric;                     /* set by the class's create */
    bool ready, invalid;
} volume_engine;

#define VOL_LINKS                                                                                 \
    {"topology", ST_T_LINK, offsetof(volume_engine, topology), NULL, "link to the topology", 0,  \
     NULL, ST_LINK_TOPOLOGY, 0.0, 0.0},                                                           \
        {"mechanical", ST_T_LINK, offsetof(volume_engine, mechanical), NULL,                     \
         "link to the mechanical", 0, NULL, ST_LINK_STATE, 0.0, 0.0},                            \
        ST_COORDS(volume_engine, position, "position", NULL,                                      \
                  "If not set by user, find the context mechanical.")

static const st_field volume_triangles_fields[] = {
    VOL_LINKS,
    ST_TRIANGLES(volume_engine, a, "triangles", NULL,
                 "If not set by user, find the context topology."),
    ST_QUADS(volume_engine, b, "quads", NULL, "If not set by user, find the context topology."),
    ST_OUTPUT(volume_engine, volume, "volume", ST_T_REAL, double,
              "The volume is only relevant if the surface is closed."),
    ST_BOOL(volume_engine, update, "update", "false",
            "If true, will update the volume at each time step of the simulation."),
    ST_FIELD_END};

static const st_field volume_elements_fields[] = {
    VOL_LINKS,
    ST_TETRAS(volume_engine, a, "tetras", NULL, "If not set by user, find the context topology."),
    ST_HEXAS(volume_engine, b, "hexas", NULL, "If not set by user, find the context topology."),
    ST_OUTPUT(volume_engine, volume, "volume", ST_T_REAL, double, "The computed volume."),
    ST_BOOL(volume_engine, update, "update", "false",
            "If true, will update the volume at each time step of the simulation."),
    ST_FIELD_END};

static double surface_term(const double *p0, const double *p1, const double *p2)
{
    return ((p1[1] - p0[1]) * (p2[2] - p0[2]) - (p2[1] - p0[1]) * (p1[2] - p0[2])) *
           (p0[0] + p1[0] + p2[0]) / 6;
}

static double tetra_volume(const double *a, const double *b, const double *c, const double *d)
{
    double u[3], v[3], w[3];
    for (int k = 0; k < 3; k++)
        u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
    return fabs(u[0] * (v[1] * w[2] - v[2] * w[1]) + u[1] * (v[2] * w[0] - v[0] * w[2]) +
                u[2] * (v[0] * w[1] - v[1] * w[0])) /
           6;
}

/* SOFA's first init: default links and copies. */
static st_status volume_setup(volume_engine *e, st_error *err)
{
    st_component *self = &e->base;
    if (!st_component_is_set(self, "position")) {
        st_component *ms = e->mechanical ? e->mechanical : (st_component *)st_component_mstate(self);
        if (!ms) {
            st_component_warn(self, "No positions given by the user and no mechanical state found "
                                    "in the context. The component cannot work.");
            e->invalid = true;
            return ST_OK;
        }
        ST_TRY(eng_link(self, "position", ms, "position", err));
    }
    const char *na = e->volumetric ? "tetras" : "triangles", *nb = e->volumetric ? "hexas" : "quads";
    const bool has_a = st_component_is_set(self, na), has_b = st_component_is_set(self, nb);
    st_component *topo =
        e->topology ? e->topology : st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (topo && !topo->cls->topology)
        topo = NULL;
    if (!has_a && !has_b && !topo) {
        st_component_warn(self, "No %s or %s given by the user and no topology context. The "
                                "component cannot work",
                          e->volumetric ? "tetras" : "quads", e->volumetric ? "hexas" : "triangles");
        e->invalid = true;
        return ST_OK;
    }
    const st_type ta = e->volumetric ? ST_T_TETRAS : ST_T_TRIANGLES,
                  tb = e->volumetric ? ST_T_HEXAS : ST_T_QUADS;
    /* SOFA copies the topology's lists once (no link). */
    for (int k = 0; k < 2 && topo; k++) {
        if (k == 0 ? has_a : has_b)
            continue;
        const st_array *src = topo->cls->topology->elements(topo, k ? tb : ta);
        st_array *dst = k ? &e->b : &e->a;
        const unsigned w = st_type_width(k ? tb : ta);
        ST_TRY(st_array_resize(dst, k ? tb : ta, src ? src->n : 0, err));
        if (src && src->n)
            memcpy(dst->u, src->u, src->n * w * sizeof(unsigned));
    }
    return st_component_update_inputs(self, err);
}

static st_status volume_update(st_component *self, st_error *err)
{
    volume_engine *e = (volume_engine *)self;
    if (e->ready && !e->update)
        return ST_OK;
    if (!e->ready) {
        e->ready = true;
        ST_TRY(volume_setup(e, err));
    }
    if (e->invalid)
        return ST_OK;
    const unsigned cw = eng_coord_size(self);
    const size_t np = e->position.n;
    const st_array *lists[2] = {&e->a, &e->b};
    const unsigned ws[2] = {e->volumetric ? 4u : 3u, e->volumetric ? 8u : 4u};
    const char *names[2] = {e->volumetric ? "tetras" : "triangles",
                            e->volumetric ? "hexas" : "quads"};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->n * ws[k]; i++)
            if (lists[k]->u[i] >= np)
                return st_component_error(self, names[k], err, ST_EINVAL,
                                          "%s[%zu][%zu]=%u. is too large regarding positions "
                                          "size of(%zu)",
                                          names[k], i / ws[k], i % ws[k], lists[k]->u[i], np);
    if (e->volumetric && e->a.n == 0 && e->b.n == 0) {
        st_component_warn(self, "Something is wrong with the topology. No tetrahedrons nor "
                                "hexahedrons were given. The component cannot work.");
        e->invalid = true;
        return ST_OK;
    }
    const double *x = e->position.r;
#define P(i) (x + (size_t)cw * (i))
    double v = 0;
    if (!e->volumetric) {
        for (size_t t = 0; t < e->a.n; t++) {
            const unsigned *q = e->a.u + 3 * t;
            v += surface_term(P(q[0]), P(q[1]), P(q[2]));
        }
        for (size_t t = 0; t < e->b.n; t++) {
            const unsigned *q = e->b.u + 4 * t;
            v += surface_term(P(q[0]), P(q[1]), P(q[2]));
            v += surface_term(P(q[0]), P(q[2]), P(q[3]));
        }
    } else {
        for (size_t t = 0; t < e->a.n; t++) {
            const unsigned *q = e->a.u + 4 * t;
            v += tetra_volume(P(q[0]), P(q[1]), P(q[2]), P(q[3]));
        }
        static const int split[6][4] = {{0, 5, 1, 6}, {0, 1, 3, 6}, {1, 3, 6, 2},
                                        {6, 3, 0, 7}, {6, 7, 0, 5}, {7, 5, 4, 0}};
        for (size_t h = 0; h < e->b.n; h++) {
            const unsigned *q = e->b.u + 8 * h;
            for (int s = 0; s < 6; s++)
                v += tetra_volume(P(q[split[s][0]]), P(q[split[s][1]]), P(q[split[s][2]]),
                                  P(q[split[s][3]]));
        }
    }
#undef P
    e->volume = fabs(v);
    return ST_OK;
}

static st_status volume_elements_create(st_component *self, st_error *err)
{
    (void)err;
    ((volume_engine *)self)->volumetric = true;
    return ST_OK;
}

static const st_engine_ops volume_engine_ops = {
    .struct_size = sizeof(st_engine_ops),
    .update = volume_update,
};

static const char *const volume_triangles_templates[] = {"Vec3d", "Rigid3d", NULL};
static const char *const volume_elements_aliases[] = {"VolumeFromTetrahedrons", NULL};

const st_class volume_from_triangles_class = {
    .struct_size = sizeof(st_class),
    .name = "VolumeFromTriangles",
    .category = "Engine",
    .description = "This component computes the volume of a given closed surfacic mesh.",
    .instance_size = sizeof(volume_engine),
    .fields = volume_triangles_fields,
    .engine = &volume_engine_ops,
    .templates = volume_triangles_templates,
};

const st_class volume_from_elements_class = {
    .struct_size = sizeof(st_class),
    .name = "VolumeFromVolumetricElements",
    .category = "Engine",
    .description = "This component computes the volume of a given volumetric mesh.",
    .instance_size = sizeof(volume_engine),
    .fields = volume_elements_fields,
    .create = volume_elements_create,
    .engine = &volume_engine_ops,
    .aliases = volume_elements_aliases,
};
