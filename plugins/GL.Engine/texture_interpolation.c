/* texture_interpolation.c - TextureInterpolation (SOFA's
 * Sofa.GL.Component.Engine): maps a field's values to texture coordinates
 * (u = (t - min) / (max - min), v = 0) so that a colour texture shows them.
 * t is the first component of each value (scalarField, the default) or the
 * mean of its components; min and max are the field's own unless
 * manual_scale (then min_value < max_value is required, as SOFA reports).
 * Without input_states, SOFA's standard planar mapping of
 * input_coordinates: the two axes other than the last flat one, each
 * scaled to [0, 1] over the bounding box. Nothing is drawn (headless):
 * drawPotentiels, showIndicesScale and vertexPloted are kept only. SOFA's
 * per-step "graph" output (a GUI plot) is not kept. */
#include <math.h>

#include <settee/settee.h>

typedef struct texture_interpolation {
    st_component base;
    st_array input_states;  /* "input_states": coordinates of the template */
    st_array input_coords;  /* "input_coordinates": Vec3 */
    st_array output;        /* "output_coordinates": 2 reals per point */
    bool scalar_field;      /* "scalarField" */
    double min_value;       /* "min_value" */
    double max_value;       /* "max_value" */
    bool manual_scale;      /* "manual_scale" */
    bool draw_potentiels;   /* "drawPotentiels" */
    double show_indices_scale; /* "showIndicesScale" */
    unsigned vertex_ploted; /* "vertexPloted" */
} texture_interpolation;

static unsigned coord_size(const st_component *self)
{
    const st_state_type *t = st_component_state_type(self);
    return t ? t->coord_size : 1;
}

static st_status planar(texture_interpolation *t, st_error *err)
{
    size_t n = t->input_coords.n;
    ST_TRY(st_array_resize(&t->output, ST_T_REALS, 2 * n, err));
    double lo[3] = {1e5, 1e5, 1e5}, hi[3] = {-1e5, -1e5, -1e5};
    const double *c = t->input_coords.r;
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) {
            if (c[3 * i + j] < lo[j])
                lo[j] = c[3 * i + j];
            if (c[3 * i + j] > hi[j])
                hi[j] = c[3 * i + j];
        }
    int flat = 0;
    for (int j = 0; j < 3; j++)
        if (lo[j] == hi[j])
            flat = j;
    int a1 = flat == 0 ? 1 : flat == 1 ? 2 : 0, a2 = flat == 0 ? 2 : flat == 1 ? 0 : 1;
    double us = 1 / (hi[a1] - lo[a1]), vs = 1 / (hi[a2] - lo[a2]);
    for (size_t i = 0; i < n; i++) {
        t->output.r[2 * i] = (c[3 * i + a1] - lo[a1]) * us;
        t->output.r[2 * i + 1] = (c[3 * i + a2] - lo[a2]) * vs;
    }
    return ST_OK;
}

static st_status ti_update(st_component *self, st_error *err)
{
    texture_interpolation *t = (texture_interpolation *)self;
    if (!st_component_is_set(self, "input_states"))
        return ST_OK;
    size_t n = t->input_states.n;
    unsigned w = coord_size(self);
    ST_TRY(st_array_resize(&t->output, ST_T_REALS, 2 * n, err));
    if (n == 0)
        return ST_OK;
    const double *in = t->input_states.r;
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        double v = in[w * i];
        if (!t->scalar_field && w > 1) {
            v = 0;
            for (unsigned j = 0; j < w; j++)
                v += in[w * i + j];
            v /= w;
        }
        t->output.r[2 * i] = v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    if (t->manual_scale) {
        if (t->min_value < t->max_value) {
            lo = t->min_value;
            hi = t->max_value;
        } else {
            st_component_error(self, "min_value", err, ST_ESCENE,
                               "In scale for TextureInterpolation, min_value is not smaller "
                               "than max_value.");
            return ST_ESCENE;
        }
    }
    /* SOFA divides by max - min as it is (a uniform field gives inf/nan) */
    double scale = 1 / (hi - lo);
    for (size_t i = 0; i < n; i++) {
        t->output.r[2 * i] = (t->output.r[2 * i] - lo) * scale;
        t->output.r[2 * i + 1] = 0;
    }
    return ST_OK;
}

static st_status ti_init(st_component *self, st_error *err)
{
    texture_interpolation *t = (texture_interpolation *)self;
    if (!st_component_is_set(self, "input_states"))
        return planar(t, err);
    return ti_update(self, err);
}

static const st_field ti_fields[] = {
    ST_COORDS(texture_interpolation, input_states, "input_states", NULL,
              "input array of state values."),
    ST_VEC3S(texture_interpolation, input_coords, "input_coordinates", NULL,
             "input array of coordinates values."),
    ST_OUTPUT(texture_interpolation, output, "output_coordinates", ST_T_REALS, st_array,
              "output array of texture coordinates (u v per point)."),
    ST_BOOL(texture_interpolation, scalar_field, "scalarField", "true",
            "To interpolate only the first dimension of input field (useful if this component "
            "need to be templated in higher dimension)."),
    ST_REAL(texture_interpolation, min_value, "min_value", "0",
            "minimum value of state value for interpolation."),
    ST_REAL(texture_interpolation, max_value, "max_value", "0",
            "maximum value of state value for interpolation."),
    ST_BOOL(texture_interpolation, manual_scale, "manual_scale", "false",
            "compute texture interpolation on manually scale defined above."),
    ST_IGNORED(texture_interpolation, draw_potentiels, "drawPotentiels", ST_T_BOOL, bool, "false",
               "Debug: view state values."),
    ST_IGNORED(texture_interpolation, show_indices_scale, "showIndicesScale", ST_T_REAL, double,
               "0.0001", "Debug : scale of state values displayed."),
    ST_IGNORED(texture_interpolation, vertex_ploted, "vertexPloted", ST_T_UINT, unsigned, "0",
               "Vertex index of values display in graph for each iteration."),
    ST_FIELD_END};

static const st_engine_ops ti_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = ti_update,
};

static const char *const ti_templates[] = {"Vec1d", "Vec2d", "Vec3d", NULL};

static const st_class texture_interpolation_class = {
    .struct_size = sizeof(st_class),
    .name = "TextureInterpolation",
    .category = "Engine",
    .description = "Texture coordinates from a field's values (or a planar mapping of "
                   "coordinates), to show the field with a colour texture",
    .instance_size = sizeof(texture_interpolation),
    .fields = ti_fields,
    .init = ti_init,
    .engine = &ti_engine,
    .templates = ti_templates,
};

static st_status register_classes(st_registry *r, st_error *err)
{
    return st_registry_add(r, &texture_interpolation_class, err);
}

static const char *const provides[] = {"Sofa.GL.Component.Engine", NULL};

ST_PLUGIN_DEFINE("GL.Engine", "0.1.0",
                 "SOFA's GL engine (TextureInterpolation), headless: texture coordinates from a "
                 "field", "LGPL-2.1-or-later", provides, register_classes)
