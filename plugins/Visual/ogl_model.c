/* ogl_model.c - OglModel: a rendered surface. Headless it keeps its data
 * (positions, elements, material, transformation) so that SOFA scenes load
 * unchanged: `src` copies a loader's lists, the scene's translation,
 * rotation and scale3d (and SOFA's parse-only dx dy dz rx ry rz sx sy sz
 * scale) are applied to the positions, an IdentityMapping may update them;
 * nothing is drawn. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <settee/settee.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct ogl_model {
    st_component base;
    st_array position, rest_position, normal; /* vec3[] */
    st_array triangles, quads, edges;
    st_array texcoords;                       /* 2 reals per point */
    char *filename, *texturename, *material, *color;
    st_vec3 translation, rotation, scale3d;
    st_vec2 scale_tex, translation_tex;
    bool put_only_tex_coords, srgb_texturing, update_normals, compute_tangents, use_normals;
    bool handle_dynamic_topology, fix_merged_uv_seams, keep_lines, enable;
    double dx, dy, dz, rx, ry, rz, sx, sy, sz, scale; /* parse-only */
    char *blend_equation, *sfactor, *dfactor, *primitive_type;
    bool alpha_blend, depth_test, line_smooth, point_smooth, write_z_transparent,
        premultiplied_alpha;
    int cull_face;
    double line_width, point_size;
    st_component *src;
    double rgba[4]; /* the parsed color */
} ogl_model;

#define OGL_ARR(m, key, T, help) ST_FIELD_(ogl_model, m, key, T, st_array, NULL, help, 0)

static const st_field ogl_fields[] = {
    ST_FIELD_EX(ogl_model, position, "position", ST_T_VEC3S, st_array, NULL,
                "Vertices coordinates", 0, "vertices", 0.0, 0.0),
    OGL_ARR(rest_position, "restPosition", ST_T_VEC3S, "Vertices rest coordinates"),
    OGL_ARR(normal, "normal", ST_T_VEC3S, "Normals of the model"),
    OGL_ARR(triangles, "triangles", ST_T_TRIANGLES, "Triangles of the model"),
    OGL_ARR(quads, "quads", ST_T_QUADS, "Quads of the model"),
    OGL_ARR(edges, "edges", ST_T_EDGES, "Edges of the model"),
    OGL_ARR(texcoords, "texcoords", ST_T_REALS, "Texture coordinates (two reals per point)"),
    ST_FIELD_EX(ogl_model, filename, "filename", ST_T_STRING, char *, NULL,
                "Path to an ogl model (not loaded headless)", 0, "fileMesh", 0.0, 0.0),
    ST_FIELD_EX(ogl_model, texturename, "texturename", ST_T_STRING, char *, NULL,
                "Name of the Texture (not loaded headless)", 0, "fileTexture", 0.0, 0.0),
    ST_STRING(ogl_model, material, "material", NULL, "Material (kept headless)"),
    ST_STRING(ogl_model, color, "color", NULL,
              "Diffuse color: a name (white, yellow, ...), #RRGGBB[AA] or \"r g b [a]\" in [0,1]"),
    ST_VEC3(ogl_model, translation, "translation", "0 0 0", "Initial Translation of the object"),
    ST_VEC3(ogl_model, rotation, "rotation", "0 0 0",
            "Initial Rotation of the object (Euler angles in degrees)"),
    ST_VEC3(ogl_model, scale3d, "scale3d", "1 1 1", "Initial Scale of the object"),
    ST_VEC2(ogl_model, scale_tex, "scaleTex", "1 1", "Scale of the texture"),
    ST_VEC2(ogl_model, translation_tex, "translationTex", "0 0", "Translation of the texture"),
    ST_BOOL(ogl_model, put_only_tex_coords, "putOnlyTexCoords", "false",
            "Give Texture Coordinates without the texture binding"),
    ST_BOOL(ogl_model, srgb_texturing, "srgbTexturing", "false",
            "When sRGB rendering is enabled, is the texture in sRGB colorspace?"),
    ST_BOOL(ogl_model, update_normals, "updateNormals", "true",
            "True if normals should be updated at each iteration"),
    ST_BOOL(ogl_model, compute_tangents, "computeTangents", "false",
            "True if tangents should be computed at startup"),
    ST_BOOL(ogl_model, use_normals, "useNormals", "true",
            "True if normal smoothing groups should be read from file"),
    ST_BOOL(ogl_model, handle_dynamic_topology, "handleDynamicTopology", "true",
            "True if topological changes should be handled"),
    ST_BOOL(ogl_model, fix_merged_uv_seams, "fixMergedUVSeams", "true",
            "True if UV seams should be handled even when duplicate UVs are merged"),
    ST_BOOL(ogl_model, keep_lines, "keepLines", "false",
            "keep and draw lines (false by default)"),
    ST_BOOL(ogl_model, enable, "enable", "true", "Display the object or not"),
    ST_REAL(ogl_model, dx, "dx", "0", "Translation along x (SOFA parse attribute)"),
    ST_REAL(ogl_model, dy, "dy", "0", "Translation along y (SOFA parse attribute)"),
    ST_REAL(ogl_model, dz, "dz", "0", "Translation along z (SOFA parse attribute)"),
    ST_REAL(ogl_model, rx, "rx", "0", "Rotation about x in degrees (SOFA parse attribute)"),
    ST_REAL(ogl_model, ry, "ry", "0", "Rotation about y in degrees (SOFA parse attribute)"),
    ST_REAL(ogl_model, rz, "rz", "0", "Rotation about z in degrees (SOFA parse attribute)"),
    ST_REAL(ogl_model, sx, "sx", "1", "Scale along x (SOFA parse attribute)"),
    ST_REAL(ogl_model, sy, "sy", "1", "Scale along y (SOFA parse attribute)"),
    ST_REAL(ogl_model, sz, "sz", "1", "Scale along z (SOFA parse attribute)"),
    ST_REAL(ogl_model, scale, "scale", "1", "Uniform scale (SOFA parse attribute)"),
    ST_STRING(ogl_model, blend_equation, "blendEquation", "GL_FUNC_ADD",
              "if alpha blending is enabled this specifies how source and destination colors "
              "are combined"),
    ST_STRING(ogl_model, sfactor, "sfactor", "GL_SRC_ALPHA",
              "if alpha blending is enabled this specifies how the red, green, blue, and alpha "
              "source blending factors are computed"),
    ST_STRING(ogl_model, dfactor, "dfactor", "GL_ONE_MINUS_SRC_ALPHA",
              "if alpha blending is enabled this specifies how the red, green, blue, and alpha "
              "destination blending factors are computed"),
    ST_STRING(ogl_model, primitive_type, "primitiveType", "DEFAULT",
              "Select types of primitives to send (necessary for some shader types such as "
              "geometry or tessellation)"),
    ST_BOOL(ogl_model, alpha_blend, "alphaBlend", "false", "Enable alpha blending"),
    ST_BOOL(ogl_model, depth_test, "depthTest", "true", "Enable depth testing"),
    ST_INT(ogl_model, cull_face, "cullFace", "0",
           "Face culling (0 = no culling, 1 = cull back faces, 2 = cull front faces)"),
    ST_REAL(ogl_model, line_width, "lineWidth", "1", "Line width (set if != 1, only for lines rendering)"),
    ST_REAL(ogl_model, point_size, "pointSize", "1", "Point size (set if != 1, only for points rendering)"),
    ST_BOOL(ogl_model, line_smooth, "lineSmooth", "false", "Enable smooth line rendering"),
    ST_BOOL(ogl_model, point_smooth, "pointSmooth", "false", "Enable smooth point rendering"),
    ST_BOOL(ogl_model, write_z_transparent, "writeZTransparent", "false",
            "Write into Z Buffer for Transparent Object"),
    ST_BOOL(ogl_model, premultiplied_alpha, "premultipliedAlpha", "false",
            "is alpha premultiplied ?"),
    {"src", ST_T_LINK, offsetof(ogl_model, src) + ST_FIELD_CHECK_(ogl_model, src, st_component *),
     NULL, "Mesh loader whose position, triangles, quads and edges are used when not given", 0,
     NULL, ST_LINK_LOADER, 0.0, 0.0},
    ST_FIELD_END};

static const struct {
    const char *name;
    double rgba[4];
} named_colors[] = {
    {"white", {1, 1, 1, 1}},       {"black", {0, 0, 0, 1}},     {"red", {1, 0, 0, 1}},
    {"green", {0, 1, 0, 1}},       {"blue", {0, 0, 1, 1}},      {"cyan", {0, 1, 1, 1}},
    {"magenta", {1, 0, 1, 1}},     {"yellow", {1, 1, 0, 1}},    {"gray", {0.5, 0.5, 0.5, 1}},
    {"darkgray", {0.25, 0.25, 0.25, 1}}, {"lightgray", {0.75, 0.75, 0.75, 1}},
    {"orange", {1, 0.5, 0, 1}},    {"purple", {0.5, 0, 0.5, 1}}, {"pink", {1, 0.75, 0.8, 1}},
    {"brown", {0.6, 0.3, 0.1, 1}}};

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses a color; false when it is not one. */
static bool parse_color(const char *s, double rgba[4])
{
    while (*s == ' ')
        s++;
    for (size_t i = 0; i < sizeof named_colors / sizeof named_colors[0]; i++)
        if (!strcasecmp(s, named_colors[i].name)) {
            memcpy(rgba, named_colors[i].rgba, 4 * sizeof(double));
            return true;
        }
    if (s[0] == '#') {
        size_t n = strlen(s + 1);
        if (n != 6 && n != 8)
            return false;
        rgba[3] = 1;
        for (size_t k = 0; k < n / 2; k++) {
            int hi = hexval(s[1 + 2 * k]), lo = hexval(s[2 + 2 * k]);
            if (hi < 0 || lo < 0)
                return false;
            rgba[k] = (hi * 16 + lo) / 255.0;
        }
        return true;
    }
    double v[4] = {0, 0, 0, 1};
    int k = 0;
    const char *p = s;
    while (*p && k < 5) {
        char *end;
        double x = strtod(p, &end);
        if (end == p)
            return false;
        if (k < 4)
            v[k] = x;
        k++;
        p = end;
        while (*p == ' ')
            p++;
    }
    if (k < 3 || k > 4)
        return false;
    for (int i = 0; i < k; i++)
        if (v[i] < 0 || v[i] > 1)
            return false;
    memcpy(rgba, v, sizeof v);
    return true;
}

static st_status copy_from_src(ogl_model *m, const char *mine, const char *theirs, st_error *err)
{
    if (st_component_is_set(&m->base, mine))
        return ST_OK;
    const st_field *fm = st_component_field(&m->base, mine);
    const st_field *ft = st_component_field(m->src, theirs);
    if (!fm || !ft || fm->type != ft->type)
        return ST_OK;
    const st_array *from = st_component_field_ptr(m->src, ft);
    st_array *to = st_component_field_ptr(&m->base, fm);
    unsigned w = st_type_width(fm->type);
    size_t es = fm->type == ST_T_VEC3S ? sizeof(double) : sizeof(unsigned);
    ST_TRY(st_array_resize(to, fm->type, from->n, err));
    if (from->n)
        memcpy(to->p, from->p, from->n * w * es);
    st_component_touch(&m->base, fm);
    return ST_OK;
}

static void rotate(st_array *p, const double deg[3])
{
    double a = deg[0] * M_PI / 360, b = deg[1] * M_PI / 360, c = deg[2] * M_PI / 360;
    double sa = sin(a), ca = cos(a), sb = sin(b), cb = cos(b), sc = sin(c), cc = cos(c);
    double x = sa * cb * cc - ca * sb * sc, y = ca * sb * cc + sa * cb * sc,
           z = ca * cb * sc - sa * sb * cc, w = ca * cb * cc + sa * sb * sc;
    double R[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (z * x + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (z * z + x * x), 2 * (y * z - x * w)},
                      {2 * (z * x - y * w), 2 * (y * z + x * w), 1 - 2 * (y * y + x * x)}};
    for (size_t i = 0; i < p->n; i++) {
        double *v = p->r + 3 * i, q[3];
        for (int r = 0; r < 3; r++)
            q[r] = R[r][0] * v[0] + R[r][1] * v[1] + R[r][2] * v[2];
        memcpy(v, q, sizeof q);
    }
}

static st_status ogl_init(st_component *self, st_error *err)
{
    ogl_model *m = (ogl_model *)self;
    if (m->color && m->color[0] && !parse_color(m->color, m->rgba))
        return st_component_error(self, "color", err, ST_EINVAL,
                                  "'%s' is not a color: use a name (white, black, red, green, "
                                  "blue, cyan, magenta, yellow, gray, ...), #RRGGBB[AA] or 3 or 4 "
                                  "numbers in [0, 1]",
                                  m->color);
    if (m->filename && m->filename[0])
        st_component_warn(self, "filename '%s' is not loaded headless (use src=\"@loader\")",
                          m->filename);
    /* SOFA's parse-only attributes fold into the transformation. */
    if (st_component_is_set(self, "dx") || st_component_is_set(self, "dy") ||
        st_component_is_set(self, "dz")) {
        m->translation[0] = m->dx, m->translation[1] = m->dy, m->translation[2] = m->dz;
    }
    if (st_component_is_set(self, "rx") || st_component_is_set(self, "ry") ||
        st_component_is_set(self, "rz")) {
        m->rotation[0] = m->rx, m->rotation[1] = m->ry, m->rotation[2] = m->rz;
    }
    if (st_component_is_set(self, "sx") || st_component_is_set(self, "sy") ||
        st_component_is_set(self, "sz")) {
        m->scale3d[0] = m->sx, m->scale3d[1] = m->sy, m->scale3d[2] = m->sz;
    }
    if (st_component_is_set(self, "scale"))
        for (int a = 0; a < 3; a++)
            m->scale3d[a] = m->scale;
    if (m->src) {
        ST_TRY(st_component_update_inputs(m->src, err));
        ST_TRY(copy_from_src(m, "position", "position", err));
        ST_TRY(copy_from_src(m, "triangles", "triangles", err));
        ST_TRY(copy_from_src(m, "quads", "quads", err));
        ST_TRY(copy_from_src(m, "edges", "edges", err));
        ST_TRY(copy_from_src(m, "normal", "normals", err));
    }
    /* Scale, then rotation, then translation (VisualModelImpl::init). */
    for (size_t i = 0; i < m->position.n; i++)
        for (int a = 0; a < 3; a++)
            m->position.r[3 * i + a] *= m->scale3d[a];
    if (m->rotation[0] != 0 || m->rotation[1] != 0 || m->rotation[2] != 0)
        rotate(&m->position, m->rotation);
    for (size_t i = 0; i < m->position.n; i++)
        for (int a = 0; a < 3; a++)
            m->position.r[3 * i + a] += m->translation[a];
    if (m->rest_position.n != m->position.n) {
        ST_TRY(st_array_resize(&m->rest_position, ST_T_VEC3S, m->position.n, err));
        if (m->position.n)
            memcpy(m->rest_position.r, m->position.r, 3 * m->position.n * sizeof(double));
    }
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static const char *const ogl_aliases[] = {"VisualModel", NULL};

const st_class ogl_model_class = {
    .struct_size = sizeof(st_class),
    .name = "OglModel",
    .category = "Visual",
    .description = "Generic visual model for OpenGL display (kept headless: data only, nothing "
                   "drawn)",
    .aliases = ogl_aliases,
    .instance_size = sizeof(ogl_model),
    .fields = ogl_fields,
    .init = ogl_init,
};
