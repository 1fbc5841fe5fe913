/* values_from_positions.c - ValuesFromPositions: a value, or a vector, per
 * point, edge, triangle and tetrahedron (taken at its centre). fieldType
 * Scalar (SOFA's default): inputValues interpolated linearly along
 * `direction`: with c = (centre . direction - bmin) / (bmax - bmin) (n - 1)
 * for n input values, v = values[floor c] and values[floor c + 1] mixed by
 * the fraction of c, clamped to the first and last value (none: 0; one:
 * that value). SOFA takes bmin and bmax from the x components of the scene's
 * bounding box, which settee does not compute: settee uses the x extent of
 * `position` (so values differ from SOFA's unless the scene's box and the
 * points' x extent agree). fieldType Vector: `direction` for every element.
 * position links to the context state's rest_position (else a loader's
 * position) and edges, triangles and tetrahedra to the context topology
 * when unset, at the first update. An element index beyond the positions
 * is an error. */
#include <math.h>

#include "../shared/engine_util.h"
#include "../shared/options.h"

typedef struct values_from_positions {
    st_component base;
    st_array input_values; /* reals */
    st_vec3 direction;
    st_array x0;           /* coord[] */
    st_array edges, triangles, tetrahedra;
    st_array values[4];    /* outputs: points, edges, triangles, tetrahedra */
    st_array vectors[4];   /* outputs */
    char *field_type;
    bool draw;
    double draw_length;
    bool linked;
} values_from_positions;

#define VFP_OUT(m, key, T, help) ST_OUTPUT(values_from_positions, m, key, T, st_array, help)

static const st_field values_from_positions_fields[] = {
    ST_REALS(values_from_positions, input_values, "inputValues", NULL, "Input values"),
    ST_VEC3(values_from_positions, direction, "direction", "0 1 0",
            "Direction along which the values are interpolated"),
    ST_FIELD_EX(values_from_positions, x0, "position", ST_T_COORDS, st_array, NULL,
                "Rest position coordinates of the degrees of freedom", 0, "rest_position", 0.0,
                0.0),
    ST_EDGES(values_from_positions, edges, "edges", NULL, "Edge Topology"),
    ST_TRIANGLES(values_from_positions, triangles, "triangles", NULL, "Triangle Topology"),
    ST_TETRAS(values_from_positions, tetrahedra, "tetrahedra", NULL, "Tetrahedron Topology"),
    VFP_OUT(values[0], "values", ST_T_REALS, "Values of the points contained in the ROI"),
    VFP_OUT(values[1], "edgeValues", ST_T_REALS, "Values of the edges contained in the ROI"),
    VFP_OUT(values[2], "triangleValues", ST_T_REALS,
            "Values of the triangles contained in the ROI"),
    VFP_OUT(values[3], "tetrahedronValues", ST_T_REALS,
            "Values of the tetrahedra contained in the ROI"),
    VFP_OUT(vectors[0], "pointVectors", ST_T_VEC3S, "Vectors of the points contained in the ROI"),
    VFP_OUT(vectors[1], "edgeVectors", ST_T_VEC3S, "Vectors of the edges contained in the ROI"),
    VFP_OUT(vectors[2], "triangleVectors", ST_T_VEC3S,
            "Vectors of the triangles contained in the ROI"),
    VFP_OUT(vectors[3], "tetrahedronVectors", ST_T_VEC3S,
            "Vectors of the tetrahedra contained in the ROI"),
    ST_STRING(values_from_positions, field_type, "fieldType", "Scalar",
              "field type of output elements"),
    ST_IGNORED(values_from_positions, draw, "drawVectors", ST_T_BOOL, bool, "false",
               "draw vectors line"),
    ST_IGNORED(values_from_positions, draw_length, "drawVectorLength", ST_T_REAL, double, "10",
               "vector length visualisation. "),
    ST_FIELD_END};

static const char *const vfp_types[] = {"Scalar", "Vector", NULL};
static const st_option_field vfp_options[] = {{"fieldType", vfp_types}, {NULL, NULL}};

static double value_at(const values_from_positions *e, const double *p, double bmin, double bmax)
{
    const size_t nbv = e->input_values.n;
    const double *iv = e->input_values.r;
    if (nbv == 0)
        return 0;
    if (nbv == 1)
        return iv[0];
    const double *d = e->direction;
    double coef = p[0] * d[0] + p[1] * d[1] + p[2] * d[2];
    coef = (coef - bmin) / (bmax - bmin);
    coef *= (double)(nbv - 1);
    const double fl = floor(coef);
    if (fl < 0)
        return iv[0];
    if (fl >= (double)(nbv - 1))
        return iv[nbv - 1];
    const size_t v = (size_t)fl;
    coef -= fl;
    return iv[v] * (1 - coef) + iv[v + 1] * coef;
}

static st_status link_defaults(values_from_positions *e, st_error *err)
{
    st_component *self = &e->base;
    if (!st_component_is_set(self, "position")) {
        st_mstate *ms = st_component_mstate(self);
        st_component *src = ms ? (st_component *)ms : eng_local_loader(self);
        if (src)
            ST_TRY(eng_link(self, "position", src, ms ? "rest_position" : "position", err));
    }
    st_component *topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (topo && topo->cls->topology) {
        static const char *const lists[] = {"edges", "triangles", "tetrahedra"};
        for (int k = 0; k < 3; k++)
            if (!st_component_is_set(self, lists[k]))
                ST_TRY(eng_link(self, lists[k], topo, lists[k], err));
    }
    return st_component_update_inputs(self, err);
}

static st_status vfp_update(st_component *self, st_error *err)
{
    values_from_positions *e = (values_from_positions *)self;
    ST_TRY(st_options_check(self, vfp_options, err));
    if (!e->linked) {
        e->linked = true;
        ST_TRY(link_defaults(e, err));
    }
    const unsigned cw = eng_coord_size(self);
    const size_t np = e->x0.n;
    const st_array *lists[3] = {&e->edges, &e->triangles, &e->tetrahedra};
    static const char *const names[3] = {"edges", "triangles", "tetrahedra"};
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < lists[k]->n * (unsigned)(k + 2); i++)
            if (lists[k]->u[i] >= np)
                return st_component_error(self, names[k], err, ST_EINVAL,
                                          "index %u beyond the %zu positions", lists[k]->u[i], np);
    double bmin = 0, bmax = 0;
    for (size_t i = 0; i < np; i++) {
        const double x = e->x0.r[(size_t)cw * i];
        if (i == 0 || x < bmin)
            bmin = x;
        if (i == 0 || x > bmax)
            bmax = x;
    }
    const bool vectors = !strcmp(e->field_type, "Vector");
    for (int k = 0; k < 4; k++) {
        eng_clear(&e->values[k]);
        eng_clear(&e->vectors[k]);
    }
    for (int k = 0; k < 4; k++) {
        const size_t n = k ? lists[k - 1]->n : np;
        const unsigned w = k ? (unsigned)k + 1 : 1;
        for (size_t i = 0; i < n; i++) {
            if (vectors) {
                ST_TRY(eng_push_r(&e->vectors[k], 3, e->direction, err));
                continue;
            }
            double c[3] = {0, 0, 0};
            for (unsigned j = 0; j < w; j++) {
                const unsigned p = k ? lists[k - 1]->u[(size_t)w * i + j] : (unsigned)i;
                for (int a = 0; a < 3; a++)
                    c[a] += e->x0.r[(size_t)cw * p + a];
            }
            for (int a = 0; a < 3; a++)
                c[a] /= (double)w;
            const double v = value_at(e, c, bmin, bmax);
            ST_TRY(eng_push_r(&e->values[k], 1, &v, err));
        }
    }
    return ST_OK;
}

static const st_engine_ops vfp_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = vfp_update,
};

static const char *const vfp_templates[] = {"Vec3d", "Rigid3d", NULL};

const st_class values_from_positions_class = {
    .struct_size = sizeof(st_class),
    .name = "ValuesFromPositions",
    .category = "Engine",
    .description = "Assign values to primitives (vertex/edge/triangle/tetrahedron) based on a "
                   "linear interpolation of values along a direction.",
    .instance_size = sizeof(values_from_positions),
    .fields = values_from_positions_fields,
    .engine = &vfp_engine,
    .templates = vfp_templates,
};
