/* ogl_model.c - OglModel (SOFA's VisualModelImpl and OglModel data): a
 * rendered surface. Headless it keeps its mesh and applies what changes the
 * numbers: the scene's scale3d, rotation and translation (and SOFA's parse
 * attributes dx.. sx.. scale) at init, the texture transformation, `flip`,
 * and the normals, recomputed after each step while updateNormals is true.
 * It is a Vec3 visual state, as SOFA's VisualModelImpl: a mapping whose
 * output is the model (RigidMapping, SubsetMapping, SubsetMultiMapping,
 * IdentityMapping, BarycentricMapping) reads `position` at its init as the
 * output's positions (after the transformation above) and writes it after
 * every step; such a mapping is not mechanical (mapping_common.h). The
 * mapped models are listed by --export-state and written by --output. `src="@loader"` is the kernel's (SOFA's setSrc): position,
 * triangles, quads, edges, texcoords... of the loader are linked by name;
 * SOFA's `normal` is not the loader's `normals`, so normals are computed
 * from the faces, as SOFA does with updateNormals. `edges` is not linked
 * when another component names this model as its src (SOFA's
 * setAutoLink(false)). Rendering options are accepted and validated;
 * nothing is drawn.
 *
 * Topological changes (SOFA's initFromTopology and handleDynamicTopology):
 * a model given no faces takes the triangles (or quads) of its topology
 * (its `topology` link, else the first one found upward) when that topology
 * can change, and they follow it: removed ones go (the last takes the hole),
 * added ones are copied from the topology, removed points renumber them.
 * After any change of a topology above it, the normals are sized and
 * computed again (an IdentityMapping resizes the positions). settee takes
 * the faces from dynamic containers only (SOFA: from any topology). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/options.h"
#include "../shared/topology_link.h"
#include "ogl_model.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

struct ogl_model {
    st_component base;
    /* VisualState */
    st_array position, rest_position, normal; /* vec3 x n */
    /* VisualModelImpl */
    bool init_rest_positions, use_normals, update_normals, compute_tangents, update_tangents,
        compute_texcoords, handle_dynamic_topology, fix_merged_uv_seams, keep_lines;
    st_array vertices, tangents, bitangents; /* vec3 x n */
    st_array texcoords;                      /* 2 reals per point */
    st_array edges, triangles, quads;
    st_array vert_pos_idx, vert_norm_idx;
    char *filename, *texturename, *material;
    st_vec3 translation, rotation, scale3d;
    st_vec2 scale_tex, translation_tex;
    bool put_only_tex_coords, srgb_texturing;
    char *materials, *groups;
    st_component *topology;
    /* SOFA's parse attributes (VisualModelImpl::parse, OglModel::parse). */
    double dx, dy, dz, rx, ry, rz, sx, sy, sz, su, sv, du, dv;
    char *scale;
    st_vec4 color;
    int normals_attr, castshadow;
    bool flip, is_enabled;
    bool listening; /* registered for topological changes */
    /* VisualModel */
    bool enable;
    /* OglModel */
    bool blend_translucency, premultiplied_alpha, write_z_transparent, alpha_blend, depth_test;
    int cull_face;
    double line_width, point_size;
    bool line_smooth, point_smooth;
    char *primitive_type, *blend_equation, *sfactor, *dfactor;
    /* Set at init. */
    bool normals_ok; /* the elements index existing points: normals can be computed */
    bool mapped;     /* a mapping writes the positions (known from INIT_DONE on) */
    bool recheck;    /* faces past the positions: checked again after the mappings apply */
};

#define S ogl_model
#define ARR(m, key, T, help) ST_FIELD_(S, m, key, T, st_array, NULL, help, 0)

const st_field ogl_model_fields[] = {
    ARR(position, "position", ST_T_VEC3S,
        "Vertices coordinates (a mapping whose output is this model writes them after each "
        "step: RigidMapping, SubsetMapping, IdentityMapping, BarycentricMapping)"),
    ARR(rest_position, "restPosition", ST_T_VEC3S, "Vertices rest coordinates"),
    ARR(normal, "normal", ST_T_VEC3S,
        "Normals of the model (computed from the faces when not given or updateNormals)"),
    ST_BOOL(S, init_rest_positions, "initRestPositions", "false",
            "Apply the initial transformation to restPosition as well"),
    IGN_BOOL(S, use_normals, "useNormals", "true",
             "Read normal smoothing groups from the mesh file"),
    ST_BOOL(S, update_normals, "updateNormals", "true", "Recompute the normals after each step"),
    IGN_BOOL(S, compute_tangents, "computeTangents", "false", "Compute tangents at startup"),
    IGN_BOOL(S, update_tangents, "updateTangents", "true", "Recompute tangents at each step"),
    IGN_BOOL(S, compute_texcoords, "computeTextureCoordinates", "false",
             "Compute texture coordinates at startup by a UV sphere projection"),
    IGN_BOOL(S, handle_dynamic_topology, "handleDynamicTopology", "true",
             "Follow topological changes"),
    IGN_BOOL(S, fix_merged_uv_seams, "fixMergedUVSeams", "true",
             "Handle UV seams even when duplicate UVs are merged"),
    IGN_BOOL(S, keep_lines, "keepLines", "false", "Keep and draw the lines of the mesh file"),
    ST_VEC3S(S, vertices, "vertices", NULL,
             "Vertices when they carry several normals or texture coordinates: with "
             "vertPosIdx, vertex i is position vertPosIdx[i], updated after each step"),
    ARR(texcoords, "texcoords", ST_T_REALS,
        "Texture coordinates, two reals per point (scaleTex and translationTex apply when a "
        "texture is given)"),
    IGN_VEC3S(S, tangents, "tangents", NULL, "Tangents for normal mapping"),
    IGN_VEC3S(S, bitangents, "bitangents", NULL, "Bitangents for normal mapping"),
    ST_FIELD_EX(S, edges, "edges", ST_T_EDGES, st_array, NULL,
                "Edges of the model (not linked by another component's src, as in SOFA)",
                ST_F_NOAUTOLINK, NULL, 0.0, 0.0),
    ARR(triangles, "triangles", ST_T_TRIANGLES, "Triangles of the model"),
    ARR(quads, "quads", ST_T_QUADS, "Quads of the model"),
    ST_UINTS(S, vert_pos_idx, "vertPosIdx", NULL,
             "Position index of each vertex when vertices carry several normals or texture "
             "coordinates (a loader's handleSeams): given with positions and no vertices, "
             "the positions are the vertices and are merged by these indices at init"),
    IGN_UINTS(S, vert_norm_idx, "vertNormIdx", NULL,
              "Normal index of each vertex when vertices carry several normals"),
    ST_FIELD_EX(S, filename, "filename", ST_T_STRING, char *, NULL,
                "Mesh file of the model (not read headless: use src=\"@loader\")", 0, "fileMesh",
                0.0, 0.0),
    ST_STRING(S, texturename, "texturename", NULL,
              "Texture file; looked up in the data paths, a missing file is a warning headless"),
    ST_VEC3(S, translation, "translation", "0 0 0", "Initial translation of the positions"),
    ST_VEC3(S, rotation, "rotation", "0 0 0",
            "Initial rotation of the positions: Euler angles in degrees (SOFA's ZYX quaternion)"),
    ST_VEC3(S, scale3d, "scale3d", "1 1 1", "Initial scale of the positions, per axis"),
    ST_VEC2(S, scale_tex, "scaleTex", "1 1", "Scale of the texture coordinates"),
    ST_VEC2(S, translation_tex, "translationTex", "0 0", "Translation of the texture coordinates"),
    IGN_STRING(S, material, "material", NULL,
               "Material: \"name Diffuse 1 r g b a Ambient 1 r g b a Specular ... Shininess 1 s\""),
    IGN_BOOL(S, put_only_tex_coords, "putOnlyTexCoords", "false",
             "Give texture coordinates without binding the texture"),
    IGN_BOOL(S, srgb_texturing, "srgbTexturing", "false", "The texture is in sRGB colour space"),
    IGN_STRING(S, materials, "materials", NULL, "List of materials"),
    IGN_STRING(S, groups, "groups", NULL, "Groups of triangles and quads using a given material"),
    {"topology", ST_T_LINK, offsetof(S, topology) + ST_FIELD_CHECK_(S, topology, st_component *),
     NULL, "Topology container (used by SOFA when no mesh is given)", ST_F_IGNORED, NULL,
     ST_LINK_TOPOLOGY, 0.0, 0.0},
    ST_REAL(S, dx, "dx", "0", "Translation along x; replaces translation (SOFA parse attribute)"),
    ST_REAL(S, dy, "dy", "0", "Translation along y; replaces translation (SOFA parse attribute)"),
    ST_REAL(S, dz, "dz", "0", "Translation along z; replaces translation (SOFA parse attribute)"),
    ST_REAL(S, rx, "rx", "0", "Rotation about x in degrees; replaces rotation (parse attribute)"),
    ST_REAL(S, ry, "ry", "0", "Rotation about y in degrees; replaces rotation (parse attribute)"),
    ST_REAL(S, rz, "rz", "0", "Rotation about z in degrees; replaces rotation (parse attribute)"),
    ST_REAL(S, sx, "sx", "1", "Scale along x; replaces scale3d (SOFA parse attribute)"),
    ST_REAL(S, sy, "sy", "1", "Scale along y; replaces scale3d (SOFA parse attribute)"),
    ST_REAL(S, sz, "sz", "1", "Scale along z; replaces scale3d (SOFA parse attribute)"),
    ST_STRING(S, scale, "scale", NULL,
              "Uniform scale (SOFA parse attribute, read as ONE float): replaces scale3d and wins "
              "over sx sy sz. SOFA's VisualModelImpl::parse reads it with getAttributeAsFloat, so "
              "\"2\" gives scale3d 2 2 2 while \"2 2 2\" is not one number and gives 1 1 1 "
              "(settee warns); scale3d is the per-axis Vec3"),
    ST_REAL(S, su, "su", "1", "Texture scale along u; replaces scaleTex (parse attribute)"),
    ST_REAL(S, sv, "sv", "1", "Texture scale along v; replaces scaleTex (parse attribute)"),
    ST_REAL(S, du, "du", "0", "Texture translation along u; replaces translationTex"),
    ST_REAL(S, dv, "dv", "0", "Texture translation along v; replaces translationTex"),
    IGN_RGBA(S, color, "color", NULL,
             "Colour of the material: \"r g b [a]\", [r, g, b, a], #rrggbb[aa] or a name (parse "
             "attribute)"),
    ST_FIELD_EX(S, normals_attr, "normals", ST_T_INT, int, "1",
                "0 sets useNormals to false (SOFA parse attribute)", ST_F_IGNORED, NULL, 0.0, 0.0),
    IGN_INT(S, castshadow, "castshadow", "1", "Cast shadows (SOFA parse attribute)"),
    ST_BOOL(S, flip, "flip", "false",
            "Reverse the orientation of the edges, triangles and quads and negate the normals "
            "(SOFA parse attribute: present means flip)"),
    ST_FIELD_EX(S, is_enabled, "isEnabled", ST_T_BOOL, bool, "true",
                "Old name of enable (renamed in SOFA v23.12)", ST_F_IGNORED, NULL, 0.0, 0.0),
    IGN_ENABLE(S),
    IGN_BOOL(S, blend_translucency, "blendTranslucency", "true", "Blend transparent parts"),
    IGN_BOOL(S, premultiplied_alpha, "premultipliedAlpha", "false", "Alpha is premultiplied"),
    IGN_BOOL(S, write_z_transparent, "writeZTransparent", "false",
             "Write transparent objects into the depth buffer"),
    IGN_BOOL(S, alpha_blend, "alphaBlend", "false", "Enable alpha blending"),
    IGN_BOOL(S, depth_test, "depthTest", "true", "Enable depth testing"),
    ST_FIELD_EX(S, cull_face, "cullFace", ST_T_INT, int, "0",
                "Face culling: 0 none, 1 back faces, 2 front faces", ST_F_IGNORED, NULL, 0.0, 2.0),
    IGN_REAL(S, line_width, "lineWidth", "1", "Line width (lines rendering)"),
    IGN_REAL(S, point_size, "pointSize", "1", "Point size (points rendering)"),
    IGN_BOOL(S, line_smooth, "lineSmooth", "false", "Smooth line rendering"),
    IGN_BOOL(S, point_smooth, "pointSmooth", "false", "Smooth point rendering"),
    IGN_STRING(S, primitive_type, "primitiveType", "DEFAULT",
               "Primitives sent to the shaders: DEFAULT, LINES_ADJACENCY, PATCHES or POINTS"),
    IGN_STRING(S, blend_equation, "blendEquation", "GL_FUNC_ADD",
               "Blend equation: GL_FUNC_ADD, GL_FUNC_SUBTRACT, GL_MIN or GL_MAX"),
    IGN_STRING(S, sfactor, "sfactor", "GL_SRC_ALPHA",
               "Source blend factor: GL_ZERO, GL_ONE, GL_SRC_ALPHA or GL_ONE_MINUS_SRC_ALPHA"),
    IGN_STRING(S, dfactor, "dfactor", "GL_ONE_MINUS_SRC_ALPHA",
               "Destination blend factor: GL_ZERO, GL_ONE, GL_SRC_ALPHA or "
               "GL_ONE_MINUS_SRC_ALPHA"),
    ST_FIELD_END};

#undef ARR
#undef S

static const char *const primitive_types[] = {"DEFAULT", "LINES_ADJACENCY", "PATCHES", "POINTS",
                                              NULL};
static const char *const blend_equations[] = {"GL_FUNC_ADD", "GL_FUNC_SUBTRACT", "GL_MIN",
                                              "GL_MAX", NULL};
static const char *const blend_factors[] = {"GL_ZERO", "GL_ONE", "GL_SRC_ALPHA",
                                            "GL_ONE_MINUS_SRC_ALPHA", NULL};
static const st_option_field ogl_options[] = {{"primitiveType", primitive_types},
                                              {"blendEquation", blend_equations},
                                              {"sfactor", blend_factors},
                                              {"dfactor", blend_factors},
                                              {NULL, NULL}};

/* The rotation matrix of SOFA's Quat::createQuaterFromEuler (ZYX order) for
 * Euler angles in degrees. */
static void euler_matrix(const double deg[3], double R[3][3])
{
    double a = deg[0] * M_PI / 360, b = deg[1] * M_PI / 360, c = deg[2] * M_PI / 360;
    double sa = sin(a), ca = cos(a), sb = sin(b), cb = cos(b), sc = sin(c), cc = cos(c);
    double x = sa * cb * cc - ca * sb * sc, y = ca * sb * cc + sa * cb * sc,
           z = ca * cb * sc - sa * sb * cc, w = ca * cb * cc + sa * sb * sc;
    double M[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (z * x + y * w)},
                      {2 * (x * y + z * w), 1 - 2 * (z * z + x * x), 2 * (y * z - x * w)},
                      {2 * (z * x - y * w), 2 * (y * z + x * w), 1 - 2 * (y * y + x * x)}};
    memcpy(R, M, sizeof M);
}

/* Scale, then rotation, then translation (VisualModelImpl::init). */
static void transform(st_array *p, const double s[3], const double deg[3], const double t[3])
{
    double R[3][3];
    euler_matrix(deg, R);
    for (size_t i = 0; i < p->n; i++) {
        double *v = p->r + 3 * i, q[3];
        for (int a = 0; a < 3; a++)
            v[a] *= s[a];
        for (int r = 0; r < 3; r++)
            q[r] = R[r][0] * v[0] + R[r][1] * v[1] + R[r][2] * v[2];
        for (int a = 0; a < 3; a++)
            v[a] = q[a] + t[a];
    }
}

/* SOFA's parse attributes replace the transformation fields they stand for.
 * SOFA reads each with BaseObjectDescription::getAttributeAsFloat: strtof,
 * so the value is rounded to float, and a text that strtof does not consume
 * entirely gives the default (1 for scale). */
static double as_float(double x) { return st_float_round(x); }

static void apply_parse_attributes(ogl_model *m)
{
    st_component *self = &m->base;
#define ANY3(a, b, c)                                                                             \
    (st_component_is_set(self, a) || st_component_is_set(self, b) || st_component_is_set(self, c))
    if (ANY3("dx", "dy", "dz"))
        m->translation[0] = as_float(m->dx), m->translation[1] = as_float(m->dy),
        m->translation[2] = as_float(m->dz);
    if (ANY3("rx", "ry", "rz"))
        m->rotation[0] = as_float(m->rx), m->rotation[1] = as_float(m->ry),
        m->rotation[2] = as_float(m->rz);
    if (st_component_is_set(self, "scale")) {
        /* One float, as SOFA's parse: "2 2 2" is not consumed whole, so SOFA
         * records a parse error (shown only when the object cannot be
         * created) and scales by 1, overriding scale3d. */
        const char *text = m->scale ? m->scale : "";
        char *end = NULL;
        float s = strtof(text, &end);
        if (end != text + strlen(text)) {
            st_component_warn(self,
                              "scale '%s' is not one number: SOFA reads scale as a single float "
                              "and, for this text, scales by 1 (ignoring scale3d); write "
                              "scale3d=\"%s\" for a per-axis scale",
                              text, text);
            s = 1;
        }
        m->scale3d[0] = m->scale3d[1] = m->scale3d[2] = s;
    } else if (ANY3("sx", "sy", "sz")) {
        m->scale3d[0] = as_float(m->sx), m->scale3d[1] = as_float(m->sy),
        m->scale3d[2] = as_float(m->sz);
    }
#undef ANY3
    if (st_component_is_set(self, "su") || st_component_is_set(self, "sv"))
        m->scale_tex[0] = as_float(m->su), m->scale_tex[1] = as_float(m->sv);
    if (st_component_is_set(self, "du") || st_component_is_set(self, "dv"))
        m->translation_tex[0] = as_float(m->du), m->translation_tex[1] = as_float(m->dv);
    if (st_component_is_set(self, "isEnabled")) {
        st_component_warn(self, "isEnabled was renamed 'enable' in SOFA v23.12");
        m->enable = m->is_enabled;
    }
    if (st_component_is_set(self, "normals"))
        m->use_normals = m->normals_attr != 0;
}

static void flip_faces(ogl_model *m)
{
    unsigned t;
    for (size_t i = 0; i < m->edges.n; i++)
        t = m->edges.u[2 * i], m->edges.u[2 * i] = m->edges.u[2 * i + 1], m->edges.u[2 * i + 1] = t;
    for (size_t i = 0; i < m->triangles.n; i++) {
        unsigned *f = m->triangles.u + 3 * i;
        t = f[1], f[1] = f[2], f[2] = t;
    }
    for (size_t i = 0; i < m->quads.n; i++) {
        unsigned *f = m->quads.u + 4 * i;
        t = f[1], f[1] = f[3], f[3] = t;
    }
    for (size_t i = 0; i < 3 * m->normal.n; i++)
        m->normal.r[i] = -m->normal.r[i];
}

/* Applies scaleTex then translationTex to the texture coordinates, as SOFA
 * does when a texture is loaded; both are then reset. */
static void transform_texcoords(ogl_model *m)
{
    for (size_t i = 0; i + 1 < m->texcoords.n; i += 2)
        for (int a = 0; a < 2; a++)
            m->texcoords.r[i + a] =
                m->texcoords.r[i + a] * m->scale_tex[a] + m->translation_tex[a];
    m->scale_tex[0] = m->scale_tex[1] = 1;
    m->translation_tex[0] = m->translation_tex[1] = 0;
}

/* Whether the faces index `vertices` (positions duplicated at texture or
 * normal seams, vertex i being position vertPosIdx[i]), SOFA's
 * m_vertices2, rather than the positions. */
static bool uses_vertices(const ogl_model *m)
{
    return m->vert_pos_idx.n && m->vertices.n == m->vert_pos_idx.n;
}

/* The points the faces index. */
static const st_array *face_points(const ogl_model *m)
{
    return uses_vertices(m) ? &m->vertices : &m->position;
}

/* SOFA's initPositionFromVertices: positions given with vertPosIdx and no
 * vertices (a loader that split vertices at seams, src="@loader") are the
 * vertices; the positions become one per index, so that a mapping writes
 * each once. */
static st_status positions_from_vertices(ogl_model *m, st_error *err)
{
    size_t nv = m->position.n < m->vert_pos_idx.n ? m->position.n : m->vert_pos_idx.n, np = 0;
    for (size_t i = 0; i < m->vert_pos_idx.n; i++)
        if (m->vert_pos_idx.u[i] >= np)
            np = (size_t)m->vert_pos_idx.u[i] + 1;
    ST_TRY(st_array_resize(&m->vertices, ST_T_VEC3S, m->vert_pos_idx.n, err));
    memset(m->vertices.r, 0, 3 * m->vertices.n * sizeof(double));
    if (nv)
        memcpy(m->vertices.r, m->position.r, 3 * nv * sizeof(double));
    ST_TRY(st_array_resize(&m->position, ST_T_VEC3S, np, err));
    memset(m->position.r, 0, 3 * np * sizeof(double));
    for (size_t i = 0; i < m->vertices.n; i++)
        memcpy(m->position.r + 3 * (size_t)m->vert_pos_idx.u[i], m->vertices.r + 3 * i,
               3 * sizeof(double));
    st_component_touch(&m->base, st_component_field(&m->base, "position"));
    return ST_OK;
}

/* SOFA's computePositions: vertex i takes position vertPosIdx[i]. */
static void update_vertices(ogl_model *m)
{
    if (!uses_vertices(m))
        return;
    for (size_t i = 0; i < m->vertices.n; i++) {
        unsigned k = m->vert_pos_idx.u[i];
        if (k < m->position.n)
            memcpy(m->vertices.r + 3 * i, m->position.r + 3 * (size_t)k, 3 * sizeof(double));
    }
    st_component_touch(&m->base, st_component_field(&m->base, "vertices"));
}

static bool elements_in_range(const st_array *a, unsigned w, size_t n)
{
    for (size_t i = 0; i < a->n * w; i++)
        if (a->u[i] >= n)
            return false;
    return true;
}

static void add_cross(double *n, const double *o, const double *a, const double *b)
{
    double u[3] = {a[0] - o[0], a[1] - o[1], a[2] - o[2]};
    double v[3] = {b[0] - o[0], b[1] - o[1], b[2] - o[2]};
    n[0] += u[1] * v[2] - u[2] * v[1];
    n[1] += u[2] * v[0] - u[0] * v[2];
    n[2] += u[0] * v[1] - u[1] * v[0];
}

/* SOFA's computeNormals: the sum of the faces' cross products at each point
 * (area-weighted for triangles, per corner for quads), then normalized. The
 * normal array already has one entry per point. */
static void compute_normals(ogl_model *m)
{
    const double *x = face_points(m)->r;
    double *n = m->normal.r;
    memset(n, 0, 3 * m->normal.n * sizeof(double));
    for (size_t i = 0; i < m->triangles.n; i++) {
        const unsigned *f = m->triangles.u + 3 * i;
        double c[3] = {0, 0, 0};
        add_cross(c, x + 3 * f[0], x + 3 * f[1], x + 3 * f[2]);
        for (int k = 0; k < 3; k++)
            for (int a = 0; a < 3; a++)
                n[3 * f[k] + a] += c[a];
    }
    for (size_t i = 0; i < m->quads.n; i++) {
        const unsigned *f = m->quads.u + 4 * i;
        for (int k = 0; k < 4; k++)
            add_cross(n + 3 * f[k], x + 3 * f[k], x + 3 * f[(k + 1) % 4], x + 3 * f[(k + 3) % 4]);
    }
    for (size_t i = 0; i < m->normal.n; i++) {
        double *v = n + 3 * i, l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (l > 2.220446049250313e-16)
            v[0] /= l, v[1] /= l, v[2] /= l;
    }
    st_component_touch(&m->base, st_component_field(&m->base, "normal"));
}

/* Sizes the normals to the positions (outside the step: may allocate) and
 * computes them, unless the scene gave normals that fit and updateNormals
 * is false. Faces indexing past the positions are said only when say is
 * true: a mapped model's positions are only meaningful once its mapping
 * applied (after every init, or after the step that follows a topological
 * change); till then the check waits (recheck). */
static st_status prepare_normals(ogl_model *m, bool say, st_error *err)
{
    size_t n = face_points(m)->n;
    m->normals_ok = elements_in_range(&m->triangles, 3, n) && elements_in_range(&m->quads, 4, n);
    m->recheck = !m->normals_ok && !say;
    if (!m->normals_ok) {
        if (say)
            st_component_warn(&m->base, "triangles or quads index points beyond the %zu "
                                        "positions: normals are not computed",
                              n);
        return ST_OK;
    }
    if (m->normal.n == n && !m->update_normals)
        return ST_OK;
    if (!m->triangles.n && !m->quads.n && m->normal.n == n)
        return ST_OK;
    ST_TRY(st_array_resize(&m->normal, ST_T_VEC3S, n, err));
    compute_normals(m);
    return ST_OK;
}

/* SOFA's TopologyData creation callback: a copy of the topology's element. */
static void copy_created(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i;
    unsigned w = st_elem_vertices(ev->elem);
    if (ev->vertices)
        memcpy(item, ev->vertices + (size_t)w * k, w * sizeof(unsigned));
}

static const st_topo_follow_ops copy_ops = {.struct_size = sizeof(st_topo_follow_ops),
                                            .create = copy_created};

static st_status ogl_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                             size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    ogl_model *m = (ogl_model *)self;
    if (self->state != ST_CSTATE_VALID)
        return ST_OK;
    return prepare_normals(m, !m->mapped, err);
}

/* Whether a mapping of n's subtree writes into self (its output link). */
static bool mapped_below(const st_node *n, const st_component *self)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        const st_field *f = c->cls->mapping ? st_component_field(c, "output") : NULL;
        if (f && f->type == ST_T_LINK &&
            *(st_component *const *)st_component_field_ptr(c, f) == self)
            return true;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        if (mapped_below(st_node_child(n, i), self))
            return true;
    return false;
}

/* SOFA's initFromTopology for a topology that can change: the faces are
 * the topology's and follow it. */
static st_status follow_topology(ogl_model *m, st_error *err)
{
    st_component *self = &m->base;
    st_component *topo = m->topology ? m->topology
                                     : st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    const st_topology_ops *ops = topo ? topo->cls->topology : NULL;
    bool dynamic = ops && ops->struct_size >= offsetof(st_topology_ops, remove) + sizeof ops->remove &&
                   ops->remove && ops->elements;
    bool from_topology = !m->position.n || (!st_component_is_set(self, "triangles") &&
                                             !st_component_is_set(self, "quads"));
    if (!dynamic || !from_topology || m->triangles.n || m->quads.n)
        return ST_OK;
    const st_array *tri = ops->elements(topo, ST_T_TRIANGLES);
    const st_array *quad = ops->elements(topo, ST_T_QUADS);
    if (tri && tri->n) {
        ST_TRY(st_array_resize(&m->triangles, ST_T_TRIANGLES, tri->n, err));
        memcpy(m->triangles.u, tri->u, 3 * tri->n * sizeof(unsigned));
    } else if (quad && quad->n) {
        ST_TRY(st_array_resize(&m->quads, ST_T_QUADS, quad->n, err));
        memcpy(m->quads.u, quad->u, 4 * quad->n * sizeof(unsigned));
    } else {
        return ST_OK;
    }
    if (!m->handle_dynamic_topology)
        return ST_OK;
    const char *field = m->triangles.n ? "triangles" : "quads";
    ST_TRY(st_topology_follow_field(self, field, topo,
                                    m->triangles.n ? ST_ELEM_TRIANGLE : ST_ELEM_QUAD, &copy_ops, m,
                                    err));
    return st_topology_follow_vertices(self, field, topo, err);
}

st_status ogl_model_init(st_component *self, st_error *err)
{
    ogl_model *m = (ogl_model *)self;
    static const st_value_check checks[] = {{"texcoords", 2, 0, ST_CHECK_REAL},
                                            {NULL, 0, 0, 0}};
    ST_TRY(st_options_check(self, ogl_options, err));
    ST_TRY(st_options_check_values(self, checks, err));
    apply_parse_attributes(m);
    if (m->vert_pos_idx.n && !m->vertices.n)
        ST_TRY(positions_from_vertices(m, err));
    if (m->filename && m->filename[0])
        st_component_warn(self, "filename '%s' is not read headless (use src=\"@loader\")",
                          m->filename);
    if (!m->listening) {
        ST_TRY(follow_topology(m, err));
        ST_TRY(st_listen_topologies_above(self, ogl_changed, err));
        m->listening = true;
    }
    if (m->flip)
        flip_faces(m);
    if (m->texturename && m->texturename[0]) {
        char path[4096];
        st_error ferr = {0};
        if (st_component_find_file(self, "texturename", m->texturename, path, sizeof path,
                                   &ferr) != ST_OK)
            st_component_warn(self, "texture not found (nothing is drawn headless): %s",
                              ferr.msg);
        transform_texcoords(m);
    }
    if (m->init_rest_positions) {
        ST_TRY(st_array_resize(&m->rest_position, ST_T_VEC3S, m->position.n, err));
        if (m->position.n)
            memcpy(m->rest_position.r, m->position.r, 3 * m->position.n * sizeof(double));
        transform(&m->rest_position, m->scale3d, m->rotation, m->translation);
    }
    transform(&m->position, m->scale3d, m->rotation, m->translation);
    if (m->rest_position.n != m->position.n) {
        ST_TRY(st_array_resize(&m->rest_position, ST_T_VEC3S, m->position.n, err));
        if (m->position.n)
            memcpy(m->rest_position.r, m->position.r, 3 * m->position.n * sizeof(double));
    }
    /* As SOFA, the transformation is consumed: init applies it once. */
    memset(m->translation, 0, sizeof m->translation);
    memset(m->rotation, 0, sizeof m->rotation);
    m->scale3d[0] = m->scale3d[1] = m->scale3d[2] = 1;
    update_vertices(m);
    /* a mapping initialised after this model fills its positions: the
     * faces are checked at INIT_DONE */
    ST_TRY(prepare_normals(m, false, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

void ogl_model_on_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    ogl_model *m = (ogl_model *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    if (ev == ST_EVENT_INIT_DONE) {
        /* Every component initialised and the mappings applied once: a
         * mapping may have resized the positions after our init. A mapped
         * model still without positions (its mapping's input is not
         * integrated yet) waits for the first step. */
        update_vertices(m);
        m->mapped = mapped_below(st_node_root(self->node), self);
        st_error err = {0};
        if (prepare_normals(m, !m->mapped || face_points(m)->n > 0, &err) != ST_OK)
            st_component_warn(self, "normals: %s", err.msg);
    } else if (ev == ST_EVENT_ANIMATE_END) {
        update_vertices(m); /* the mappings wrote the positions (SOFA's updateVisual) */
        if (m->recheck) {
            st_error err = {0};
            if (prepare_normals(m, true, &err) != ST_OK)
                st_component_warn(self, "normals: %s", err.msg);
        } else if (m->update_normals && m->normals_ok && m->normal.n == face_points(m)->n &&
                   (m->triangles.n || m->quads.n)) {
            compute_normals(m);
        }
    }
}

/* VisualModelImpl is SOFA's base of OglModel (Sofa.Component.Visual): the
 * same visual state headless, OglModel's GL-only fields aside. */
static const char *const ogl_aliases[] = {"VisualModel", "VisualModelImpl", NULL};

const st_class ogl_model_class = {
    .struct_size = sizeof(st_class),
    .name = "OglModel",
    .category = "Visual",
    .description = "Generic visual model for OpenGL display (headless: the mesh is kept, "
                   "transformed and mapped: a Vec3 visual state that mappings write after each "
                   "step; nothing is drawn)",
    .aliases = ogl_aliases,
    .instance_size = sizeof(ogl_model),
    .fields = ogl_model_fields,
    .init = ogl_model_init,
    .on_event = ogl_model_on_event,
};

/* SOFA's OglShaderVisualModel (Sofa.GL.Component.Shader) is an OglModel
 * drawn with the scene's OglShader: headless the same model. The GL.Shader
 * plugin compiles this file and registers this class. */
const st_class ogl_shader_visual_model_class = {
    .struct_size = sizeof(st_class),
    .name = "OglShaderVisualModel",
    .category = "Visual",
    .description = "Visual model drawn with a custom shader (headless: an OglModel; the mesh is "
                   "kept, transformed and mapped; nothing is drawn)",
    .instance_size = sizeof(ogl_model),
    .fields = ogl_model_fields,
    .init = ogl_model_init,
    .on_event = ogl_model_on_event,
};
