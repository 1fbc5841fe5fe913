/* transform_position.c - TransformPosition: output_position is
 * input_position transformed by `method` (SOFA's list and default,
 * projectOnPlane):
 *   projectOnPlane            x + n ((origin - x) . n), n the unit normal
 *   translation               x + translation
 *   rotation                  R x, R from the Euler angles `rotation`
 *                             (degrees, SOFA's createQuaterFromEuler)
 *   random                    x + 3 draws in [-maxRandomDisplacement, +max]
 *                             from SOFA's RandomGenerator (rand48), seeded
 *                             with seedValue when it is not 0 (else SOFA's
 *                             default state): SOFA's own numbers
 *   scale                     origin + (x - origin) * scale (per axis)
 *   scaleTranslation          x * scale + translation
 *   scaleRotationTranslation  R (x * scale) + translation
 *   affine                    (M (x, 1)) / w, M the 4x4 `matrix` (row by
 *                             row); a point with |w| <= 1e-10 is left at 0
 *   fromFile                  affine, M read from `filename`: .tfm (ITK:
 *                             the 12 numbers of the "Parameters" line, 3x3
 *                             row by row then the translation, which SOFA
 *                             reads backwards: t = (p12, p11, p10)), .trm
 *                             (a translation line, then 3 rotation rows; the
 *                             translation is also written to `translation`),
 *                             .txt or .xfm (4 rows of 4); the matrix read is
 *                             written to `matrix`.
 * Points listed in fixedIndices keep their input position. The normal is
 * made unit at init (as SOFA); a zero normal with projectOnPlane and
 * points to project is an error (SOFA divides by its zero norm). SOFA's errors on a bad file
 * (missing, unknown extension, wrong counts) fall back to the identity or
 * to affine as SOFA does, with a warning; an unknown method is refused
 * (SOFA falls back to translation). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../shared/engine_util.h"
#include "../shared/euler_quat.h"
#include "../shared/options.h"
#include "../shared/sofa_random.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct transform_position {
    st_component base;
    st_vec3 origin;
    st_array input, output; /* vec3[] */
    st_vec3 normal, translation, rotation, scale;
    st_array matrix;        /* 16 reals, row by row */
    char *method;
    int seed;
    double max_displacement;
    st_array fixed;         /* indices */
    char *filename;
    bool draw_input, draw_output;
    double point_size;
    bool normal_done;
} transform_position;

static const st_field transform_position_fields[] = {
    ST_VEC3(transform_position, origin, "origin", "0 0 0",
            "A 3d point on the plane/Center of the scale"),
    ST_FIELD_EX(transform_position, input, "input_position", ST_T_VEC3S, st_array, NULL,
                "input array of 3d points", 0, "inputPosition", 0.0, 0.0),
    ST_FIELD_EX(transform_position, output, "output_position", ST_T_VEC3S, st_array, NULL,
                "output array of 3d points projected on a plane", ST_F_OUTPUT, "outputPosition",
                0.0, 0.0),
    ST_VEC3(transform_position, normal, "normal", "0 0 0", "plane normal"),
    ST_VEC3(transform_position, translation, "translation", "0 0 0", "translation vector "),
    ST_VEC3(transform_position, rotation, "rotation", "0 0 0", "rotation vector "),
    ST_VEC3(transform_position, scale, "scale", "1 1 1", "scale factor"),
    ST_FIELD_EX(transform_position, matrix, "matrix", ST_T_REALS, st_array,
                "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1", "4x4 affine matrix", ST_F_COUNT, NULL, 16, 16),
    ST_STRING(transform_position, method, "method", "projectOnPlane",
              "transformation method either translation or scale or rotation or random or "
              "projectOnPlane"),
    ST_INT(transform_position, seed, "seedValue", "0", "the seed value for the random generator"),
    ST_REAL(transform_position, max_displacement, "maxRandomDisplacement", "1",
            "the maximum displacement around initial position for the random transformation"),
    ST_UINTS(transform_position, fixed, "fixedIndices", NULL,
             "Indices of the entries that are not transformed"),
    ST_STRING(transform_position, filename, "filename", NULL,
              "filename of an affine matrix. Supported extensions are: .trm, .tfm, .xfm and "
              ".txt(read as .xfm)"),
    ST_IGNORED(transform_position, draw_input, "drawInput", ST_T_BOOL, bool, "false",
               "Draw input points"),
    ST_IGNORED(transform_position, draw_output, "drawOutput", ST_T_BOOL, bool, "false",
               "Draw output points"),
    ST_IGNORED(transform_position, point_size, "pointSize", ST_T_REAL, double, "1", "Point size"),
    ST_FIELD_END};

static const char *const tp_methods[] = {"projectOnPlane",
                                         "translation",
                                         "rotation",
                                         "random",
                                         "scale",
                                         "scaleTranslation",
                                         "scaleRotationTranslation",
                                         "affine",
                                         "fromFile",
                                         NULL};
static const st_option_field tp_options[] = {{"method", tp_methods}, {NULL, NULL}};

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

/* Splits line at spaces (SOFA's strtok(" ")); returns the count (<= max). */
static size_t split_words(char *line, char **words, size_t max)
{
    size_t n = 0;
    for (char *w = strtok(line, " \r\n"); w && n < max; w = strtok(NULL, " \r\n"))
        words[n++] = w;
    return n;
}

static bool parse_real(const char *w, double *v)
{
    char *end;
    *v = strtod(w, &end);
    return end != w && *end == '\0';
}

/* Reads `filename` into m (row by row, identity where the file says
 * nothing); warnings as SOFA's errors. */
static st_status read_matrix_file(transform_position *t, double *m, st_error *err)
{
    st_component *self = &t->base;
    char path[4096];
    ST_TRY(st_component_find_file(self, "filename", t->filename, path, sizeof path, err));
    FILE *f = fopen(path, "r");
    if (!f) {
        st_component_warn_field(self, "filename", "Could not open file %s: matrix set to identity",
                                path);
        return ST_OK;
    }
    const bool tfm = ends_with(t->filename, ".tfm"), trm = ends_with(t->filename, ".trm");
    char line[4096];
    unsigned rows = 0;
    bool found = false;
    while (fgets(line, sizeof line, f)) {
        char *words[64];
        if (tfm) {
            if (found || !strstr(line, "Parameters"))
                continue;
            found = true;
            size_t nw = split_words(line, words, 64), nv = 0;
            double v[64];
            for (size_t i = 0; i < nw; i++)
                if (strpbrk(words[i], "1234567890.-")) {
                    if (parse_real(words[i], &v[nv]))
                        nv++;
                    else
                        st_component_warn_field(self, "filename", "error while parsing value %s",
                                                words[i]);
                }
            if (nv != 12) {
                st_component_warn_field(self, "filename",
                                        "Error in file %s: %zu parameters, expected 12", path, nv);
                continue;
            }
            for (int i = 0; i < 3; i++) {
                for (int j = 0; j < 3; j++)
                    m[4 * i + j] = v[3 * i + j];
                m[4 * i + 3] = v[11 - i];
            }
            continue;
        }
        if (line[0] == '\n' || line[0] == '\0' || (line[0] == '\r' && line[1] == '\n'))
            continue;
        const unsigned want = trm ? 3 : 4;
        if (++rows > 4) {
            st_component_warn_field(self, "filename", trm ? "File with more than 4 lines"
                                                          : "Matrix is not 4x4");
            break;
        }
        size_t nw = split_words(line, words, 64);
        if (nw < want) {
            st_component_warn_field(self, "filename",
                                    trm ? "Should be a line of 3 values" : "Matrix is not 4x4.");
            continue;
        }
        if (nw > want)
            st_component_warn_field(self, "filename",
                                    trm ? "Should be a line of 3 values" : "Matrix is not 4x4.");
        for (unsigned i = 0; i < want; i++) {
            double v;
            if (!parse_real(words[i], &v)) {
                st_component_warn_field(self, "filename", "Invalid number in file: %s",
                                        words[i]);
                v = 0.0;
            }
            if (!trm)
                m[4 * (rows - 1) + i] = v;
            else if (rows == 1)
                m[4 * i + 3] = t->translation[i] = v;
            else
                m[4 * (rows - 2) + i] = v;
        }
    }
    fclose(f);
    if (tfm && !found)
        st_component_warn_field(self, "filename", "Transformation not found in %s", path);
    return ST_OK;
}

static st_status transform_position_update(st_component *self, st_error *err)
{
    transform_position *t = (transform_position *)self;
    ST_TRY(st_options_check(self, tp_options, err));
    const char *method = t->method;
    bool affine = !strcmp(method, "affine");
    if (!strcmp(method, "fromFile")) {
        affine = true;
        const char *fn = t->filename;
        if (!fn || !*fn) {
            st_component_warn_field(self, "filename", "Filename not set. Will use affine instead");
        } else if (ends_with(fn, ".trm") || ends_with(fn, ".txt") || ends_with(fn, ".xfm") ||
                   ends_with(fn, ".tfm")) {
            double m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
            ST_TRY(read_matrix_file(t, m, err));
            memcpy(t->matrix.r, m, sizeof m);
        } else {
            st_component_warn_field(self, "filename",
                                    "Unknown extension. Will use affine instead.");
        }
    }
    double *n = t->normal;
    if (!t->normal_done) {
        double n2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        if (fabs(n2 - 1.0) > 1e-10 && n2 > 0)
            for (int k = 0; k < 3; k++)
                n[k] /= sqrt(n2);
        t->normal_done = true;
    }
    if (!strcmp(method, "projectOnPlane") && t->input.n && n[0] == 0 && n[1] == 0 && n[2] == 0)
        return st_component_error(self, "normal", err, ST_EINVAL,
                                  "projectOnPlane needs a nonzero plane normal");
    const size_t np = t->input.n;
    for (size_t i = 0; i < t->fixed.n; i++)
        if (t->fixed.u[i] >= np)
            return st_component_error(self, "fixedIndices", err, ST_EINVAL,
                                      "index %u beyond the %zu input points", t->fixed.u[i], np);
    ST_TRY(st_array_resize(&t->output, ST_T_VEC3S, np, err));
    double q[4] = {0, 0, 0, 1};
    if (!strcmp(method, "rotation") || !strcmp(method, "scaleRotationTranslation")) {
        const double rad[3] = {t->rotation[0] * M_PI / 180.0, t->rotation[1] * M_PI / 180.0,
                               t->rotation[2] * M_PI / 180.0};
        quat_from_euler(q, rad);
    }
    sofa_rng rng;
    sofa_rng_default(&rng);
    if (t->seed != 0)
        sofa_rng_seed(&rng, t->seed);
    const double dis = t->max_displacement, *o = t->origin, *tr = t->translation, *s = t->scale;
    const double *M = t->matrix.r;
    for (size_t i = 0; i < np; i++) {
        const double *x = t->input.r + 3 * i;
        double *y = t->output.r + 3 * i;
        if (affine) {
            double h[4];
            for (int r = 0; r < 4; r++)
                h[r] = M[4 * r] * x[0] + M[4 * r + 1] * x[1] + M[4 * r + 2] * x[2] + M[4 * r + 3];
            if (fabs(h[3]) > 1e-10)
                for (int k = 0; k < 3; k++)
                    y[k] = h[k] / h[3];
            else
                y[0] = y[1] = y[2] = 0.0;
        } else if (!strcmp(method, "projectOnPlane")) {
            double d = (o[0] - x[0]) * n[0] + (o[1] - x[1]) * n[1] + (o[2] - x[2]) * n[2];
            for (int k = 0; k < 3; k++)
                y[k] = x[k] + n[k] * d;
        } else if (!strcmp(method, "random")) {
            for (int k = 0; k < 3; k++)
                y[k] = x[k] + sofa_rng_real(&rng, -dis, dis);
        } else if (!strcmp(method, "translation")) {
            for (int k = 0; k < 3; k++)
                y[k] = x[k] + tr[k];
        } else if (!strcmp(method, "scale")) {
            for (int k = 0; k < 3; k++)
                y[k] = o[k] + (x[k] - o[k]) * s[k];
        } else if (!strcmp(method, "scaleTranslation")) {
            for (int k = 0; k < 3; k++)
                y[k] = x[k] * s[k] + tr[k];
        } else { /* rotation, scaleRotationTranslation */
            const bool srt = !strcmp(method, "scaleRotationTranslation");
            for (int k = 0; k < 3; k++)
                y[k] = srt ? x[k] * s[k] : x[k];
            quat_rotate(q, y);
            if (srt)
                for (int k = 0; k < 3; k++)
                    y[k] += tr[k];
        }
    }
    for (size_t i = 0; i < t->fixed.n; i++)
        memcpy(t->output.r + 3 * t->fixed.u[i], t->input.r + 3 * t->fixed.u[i],
               3 * sizeof(double));
    return ST_OK;
}

static const st_engine_ops transform_position_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = transform_position_update,
};

const st_class transform_position_class = {
    .struct_size = sizeof(st_class),
    .name = "TransformPosition",
    .category = "Engine",
    .description = "Transform position of 3d points.",
    .instance_size = sizeof(transform_position),
    .fields = transform_position_fields,
    .engine = &transform_position_engine,
};
