/* sphere_loader.c - SphereLoader: SOFA's sphere files (".sph"): a first
 * line "sph 1.0", then "nums N" (the count, informative), "sphe INDEX X Y Z
 * RADIUS" per sphere and '#' comments. Outputs the centres, transformed by
 * T R S as SOFA does, and the radii (not scaled, as in SOFA). Malformed
 * lines are errors naming the file's own line; unknown keywords are
 * warnings, as in SOFA. */
#include <math.h>
#include <string.h>

#include "mesh_loader.h"

typedef struct sphere_loader {
    st_component base;
    char *filename;
    st_array position; /* sphere centres, vec3[] */
    st_array radius;   /* one per sphere */
    st_vec3 scale, rotation, translation;
} sphere_loader;

static const st_field sphere_fields[] = {
    ST_FIELD_EX(sphere_loader, filename, "filename", ST_T_STRING, char *, NULL,
                "Filename of the object (the scene's folder, then SETTEE_DATA_PATH and "
                "SOFA_DATA_PATH)",
                ST_F_REQUIRED, NULL, 0.0, 0.0),
    ST_FIELD_EX(sphere_loader, position, "position", ST_T_VEC3S, st_array, NULL, "Sphere centers",
                ST_F_OUTPUT, "sphere_centers", 0.0, 0.0),
    ST_OUTPUT(sphere_loader, radius, "listRadius", ST_T_REALS, st_array, "Radius of each sphere"),
    ST_FIELD_EX(sphere_loader, scale, "scale", ST_T_VEC3, st_vec3, "1 1 1",
                "Scale applied to sphere positions & radius (SOFA scales the positions only)", 0,
                "scale3d", 0.0, 0.0),
    ST_VEC3(sphere_loader, rotation, "rotation", "0 0 0", "Rotation of the DOFs"),
    ST_VEC3(sphere_loader, translation, "translation", "0 0 0",
            "Translation applied to sphere positions"),
    ST_FIELD_END};

static st_status sph_parse(sphere_loader *o, const mesh_file *f, st_error *err)
{
    text_cursor tc;
    text_cursor_init(&tc, f);
    const char *s;
    size_t len;
    if (!text_next_line(&tc, &s, &len) || len < 3 || memcmp(s, "sph", 3))
        return loader_error_at(&o->base, f->path, 1, 0, err, ST_EPARSE,
                               "not a sphere file: the first line must be 'sph 1.0'");
    while (text_next_line(&tc, &s, &len)) {
        text_cursor lc = {
            .path = f->path, .begin = s, .p = s, .end = s + len, .pline = 1, .eol = '\n'};
        const char *w;
        size_t wl;
        if (!text_next_token(&lc, &w, &wl) || w[0] == '#')
            continue;
        if (memchr(s, 0, len))
            return loader_error_at(&o->base, f->path, tc.line, 0, err, ST_EPARSE,
                                   "binary data (a NUL byte) in a sphere file");
        if (wl == 4 && !memcmp(w, "nums", 4)) {
            long long n;
            if (!text_next_token(&lc, &w, &wl) || !parse_long(w, wl, &n) || n < 0)
                return loader_error_at(&o->base, f->path, tc.line, 0, err, ST_EPARSE,
                                       "'nums' needs the number of spheres");
        } else if (wl == 4 && !memcmp(w, "sphe", 4)) {
            double v[5];
            for (int k = 0; k < 5; k++)
                if (!text_next_token(&lc, &w, &wl) || !parse_real(w, wl, &v[k]) ||
                    !isfinite(v[k]))
                    return loader_error_at(&o->base, f->path, tc.line, 0, err, ST_EPARSE,
                                           "a sphere line needs 'sphe index x y z radius' (5 "
                                           "finite numbers)");
            ST_TRY(loader_push_point(&o->position, v + 1, err));
            size_t n = o->radius.n;
            ST_TRY(st_array_resize(&o->radius, ST_T_REALS, n + 1 > o->radius.cap ? 2 * n + 1 : n + 1,
                                   err));
            o->radius.n = n + 1;
            o->radius.r[n] = v[4];
        } else {
            st_component_warn(&o->base, "%s:%d: Unknown Sphere keyword: %.*s", f->path, tc.line,
                              (int)wl, w);
        }
    }
    return ST_OK;
}

static st_status sph_init(st_component *self, st_error *err)
{
    sphere_loader *o = (sphere_loader *)self;
    mesh_file f;
    ST_TRY(mesh_file_read(self, o->filename, &f, err));
    st_array_free(&o->position, ST_T_VEC3S);
    st_array_free(&o->radius, ST_T_REALS);
    st_status s = sph_parse(o, &f, err);
    mesh_file_free(&f);
    if (s != ST_OK) {
        st_array_free(&o->position, ST_T_VEC3S);
        st_array_free(&o->radius, ST_T_REALS);
        return s;
    }
    if (o->scale[0] == 0 || o->scale[1] == 0 || o->scale[2] == 0)
        st_component_warn(self, "Data scale should not be set to zero");
    double M[3][4];
    loader_trs_matrix(o->translation, o->rotation, o->scale, M);
    for (size_t k = 0; k < o->position.n; k++) {
        double *p = o->position.r + 3 * k, q[3];
        for (int i = 0; i < 3; i++)
            q[i] = M[i][0] * p[0] + M[i][1] * p[1] + M[i][2] * p[2] + M[i][3];
        memcpy(p, q, sizeof q);
    }
    st_component_touch(self, st_component_field(self, "position"));
    st_component_touch(self, st_component_field(self, "listRadius"));
    return ST_OK;
}

const st_class sphere_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "SphereLoader",
    .category = "Loader",
    .description = "Loader for sphere model description files.",
    .instance_size = sizeof(sphere_loader),
    .fields = sphere_fields,
    .init = sph_init,
    .reinit = sph_init,
};
