/* test_headless.c - SOFA's drawing-only modules headless (Sofa.GL.Component.
 * Shader, Rendering2D, Sofa.Component.SceneUtility, Setting and the rest of
 * Sofa.Component.Visual): every class loads with its defaults and with
 * SOFA-style values, RequiredPlugin resolves SOFA's module names, bad
 * options give did-you-mean errors, SOFA's integer and matrix types are
 * checked, colours parse in every notation (YAML lists included), and an
 * OglModel fed by src="@loader" gets the loader's mesh. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(headless, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.GL.Component.Shader, Sofa.GL.Component.Rendering2D," \
    " Sofa.GL.Component.Rendering3D, Sofa.Component.SceneUtility, Sofa.Component.Setting,"      \
    " Sofa.Component.Visual, Sofa.Component.IO.Mesh]}\n"

static st_scene *loads(const char *objects)
{
    static char yaml[16384];
    snprintf(yaml, sizeof yaml, HEAD "%s", objects);
    return topo_scene(&T, yaml);
}

static st_status fails(const char *objects, st_error *err)
{
    static char yaml[16384];
    snprintf(yaml, sizeof yaml, HEAD "%s", objects);
    memset(err, 0, sizeof *err);
    return topo_scene_fails(&T, yaml, err);
}

static const double *reals(st_component *c, const char *field)
{
    const st_field *f = st_component_field(c, field);
    cr_assert(f, "%s has no field %s", c->cls->name, field);
    return st_component_field_ptr(c, f);
}

static const char *text(st_component *c, const char *field)
{
    return *(char **)st_component_field_ptr(c, st_component_field(c, field));
}

static const char *const added[] = {
    /* Earlier components of Sofa.Component.Visual and Sofa.GL.Component.Rendering3D */
    "VisualStyle", "VisualGrid", "LineAxis", "Visual3DText", "Camera", "InteractiveCamera",
    "OglModel", "OglSceneFrame", "ClipPlane", "PointSplatModel", "SlicedVolumetricModel",
    "DataDisplay",
    /* Sofa.GL.Component.Shader */
    "OglShader", "OglShadowShader", "OglOITShader", "OglShaderDefineMacro",
    "OglShaderVisualModel", "OglIntVariable", "OglInt2Variable", "OglInt3Variable",
    "OglInt4Variable", "OglFloatVariable", "OglFloat2Variable", "OglFloat3Variable",
    "OglFloat4Variable", "OglIntVectorVariable", "OglIntVector2Variable", "OglIntVector3Variable",
    "OglIntVector4Variable", "OglFloatVectorVariable", "OglFloatVector2Variable",
    "OglFloatVector3Variable", "OglFloatVector4Variable", "OglMatrix2Variable",
    "OglMatrix3Variable", "OglMatrix4Variable", "OglMatrix2x3Variable", "OglMatrix3x2Variable",
    "OglMatrix2x4Variable", "OglMatrix4x2Variable", "OglMatrix3x4Variable",
    "OglMatrix4x3Variable", "OglMatrix4VectorVariable", "OglFloatAttribute", "OglFloat2Attribute",
    "OglFloat3Attribute", "OglFloat4Attribute", "OglIntAttribute", "OglInt2Attribute",
    "OglInt3Attribute", "OglInt4Attribute", "OglUIntAttribute", "OglUInt2Attribute",
    "OglUInt3Attribute", "OglUInt4Attribute", "LightManager", "DirectionalLight",
    "PositionalLight", "SpotLight", "OglTexture", "OglTexture2D", "OglTexturePointer",
    "OrderIndependentTransparencyManager", "PostProcessManager", "CompositingVisualLoop",
    "VisualManagerPass", "VisualManagerSecondaryPass", "OglRenderingSRGB",
    /* Sofa.GL.Component.Rendering2D */
    "OglLabel", "OglColorMap", "OglViewport",
    /* Sofa.Component.SceneUtility */
    "InfoComponent", "APIVersion", "MessageHandlerComponent", "FileMessageHandlerComponent",
    "PauseAnimationOnEvent", "AddDataRepository", "AddPluginRepository",
    /* Sofa.Component.Setting */
    "BackgroundSetting", "StatsSetting", "ViewerSetting", "SofaDefaultPathSetting",
    /* Sofa.Component.Visual */
    "RecordedCamera", "VisualTransform", "TrailRenderer", "VisualBoundingBox",
    "CylinderVisualModel", "VisualPointCloud", "VisualVectorField", "VisualMesh"};

Test(headless, every_component_loads_with_defaults)
{
    for (size_t i = 0; i < sizeof added / sizeof added[0]; i++) {
        char obj[256];
        snprintf(obj, sizeof obj, "    - %s: {name: c}\n", added[i]);
        st_scene *s = loads(obj);
        cr_assert_eq(topo_get(s, "c")->state, ST_CSTATE_VALID, "%s", added[i]);
        st_scene_destroy(&s);
    }
    cr_assert_eq(T.nerrors, 0, "%s", T.log);
}

Test(headless, shader_components_with_sofa_values)
{
    st_scene *s = loads(
        "    - LightManager: {name: lm, shadows: true, softShadows: 1, ambient: \"0.1 0.1 0.1 1\"}\n"
        "    - SpotLight: {name: spot, position: [0, 10, 0], direction: [0, -1, 0], cutoff: 25,"
        " color: white, shadowTextureSize: 1024, lookat: true}\n"
        "    - DirectionalLight: {direction: [1, -1, 0]}\n"
        "    - OglShader: {name: sh, fileVertexShaders: \"a.vert b.vert\","
        " fileFragmentShaders: \"a.frag\", tessellationLevel: 4}\n"
        "    - OglShaderDefineMacro: {id: USE_TEX, value: 1}\n"
        "    - OglFloat3Variable: {name: f3, id: lightPos, value: [1, 2, 3]}\n"
        "    - OglIntVariable: {id: mode, value: 2}\n"
        "    - OglInt2Variable: {name: i2, id: size, values: \"4 5\"}\n"
        "    - OglFloatVector2Variable: {id: pts, value: \"0 0 1 1\"}\n"
        "    - OglMatrix4Variable: {name: m4, id: mat, transpose: true,"
        " value: \"1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1\"}\n"
        "    - OglUInt3Attribute: {id: tri, value: \"0 1 2 2 3 0\"}\n"
        "    - OglTexture: {name: tex, id: colorTex, textureUnit: 2, repeat: true,"
        " textureFilename: no/such/texture.png}\n"
        "    - VisualManagerSecondaryPass: {input_tags: \"a b\", output_tags: c, factor: 0.5}\n"
        "    - PostProcessManager: {zNear: 0.1, zFar: 50}\n");
    st_component *sh = topo_get(s, "sh");
    cr_assert_eq(reals(sh, "tessellationOuterLevel")[0], 4.0, "tessellationLevel sets both");
    cr_assert_eq(reals(sh, "tessellationInnerLevel")[0], 4.0);
    cr_assert_eq(topo_arr(sh, "fileVertexShaders")->n, 2);
    const double *f3 = reals(topo_get(s, "f3"), "value");
    cr_assert(f3[0] == 1 && f3[1] == 2 && f3[2] == 3);
    cr_assert_eq(reals(topo_get(s, "i2"), "value")[1], 5.0, "values is value's alias");
    cr_assert_eq(topo_arr(topo_get(s, "m4"), "value")->n, 16);
    cr_assert_float_eq(reals(topo_get(s, "lm"), "ambient")[0], (float)0.1, 1e-12);
    cr_assert_str_eq(text(topo_get(s, "tex"), "filename"), "no/such/texture.png",
                     "textureFilename is filename's alias");
    /* A file the scene names that cannot be found is a warning headless. */
    cr_assert(strstr(T.log, "file not found"), "%s", T.log);
    cr_assert(strstr(T.log, "no/such/texture.png"), "%s", T.log);
    cr_assert_eq(T.nerrors, 0, "%s", T.log);
    st_scene_destroy(&s);
}


Test(headless, rendering2d_and_visual_values)
{
    st_scene *s = loads(
        "    - APIVersion: {name: api, level: \"17.06\"}\n"
        "    - MessageHandlerComponent: {handler: silent}\n"
        "    - BackgroundSetting: {name: bg, color: \"#336699\"}\n"
        "    - ViewerSetting: {name: vs, resolution: [1024, 768], cameraMode: 1,"
        " objectPickingMethod: \"Selection buffer\"}\n"
        "    - OglLabel: {name: lab, label: Time, x: 20, color: [1, 0, 0, 1]}\n"
        "    - OglColorMap: {name: cm, colorScheme: \"Blue to Red\", showLegend: true}\n"
        "    - OglViewport: {screenPosition: [0, 0], screenSize: [200, 200],"
        " cameraRigid: \"0 0 10 0 0 0 1\"}\n"
        "    - MechanicalObject: {name: dofs, position: [[0, 0, 0], [1, 0, 0]]}\n"
        "    - TrailRenderer: {name: trail, position: \"@dofs.position\", nbSteps: 10,"
        " color: \"1 0 0 1 0 0 1 1\"}\n"
        "    - TrailRenderer: {name: trail2, position: \"@dofs.position\","
        " color: \"#ffffff00 orange navy\"}\n"
        "    - VisualPointCloud: {position: \"@dofs.position\", drawMode: Sphere,"
        " sphereRadius: [0.1, 0.2]}\n"
        "    - VisualVectorField: {position: \"@dofs.position\", vector: [[0, 1, 0], [1, 0, 0]],"
        " drawMode: Arrow, vectorScale: 2}\n"
        "    - VisualMesh: {position: \"@dofs.position\", colorMap: \"Red to Blue\"}\n"
        "    - VisualBoundingBox: {color: blue, thickness: 2}\n"
        "    - CylinderVisualModel: {radius: 0.1, edges: [[0, 1]]}\n"
        "    - VisualTransform: {transform: \"1 2 3 0 0 0 1\", recursive: true}\n"
        "    - RecordedCamera: {position: [0, 0, 10], cameraPositions: [[0, 0, 10], [0, 0, 20]],"
        " cameraOrientations: \"0 0 0 1 0 0 0 1\", rotationMode: true}\n");
    cr_assert_str_eq(text(topo_get(s, "vs"), "cameraMode"), "Orthographic", "index -> name");
    cr_assert_str_eq(text(topo_get(s, "api"), "level"), "17.06");
    const double *bg = reals(topo_get(s, "bg"), "color");
    cr_assert_float_eq(bg[0], (float)(0x33 / 255.0f), 1e-12);
    cr_assert_float_eq(bg[2], (float)(0x99 / 255.0f), 1e-12);
    cr_assert_eq(reals(topo_get(s, "lab"), "color")[0], 1.0);
    cr_assert_eq(topo_arr(topo_get(s, "trail"), "position")->n, 2, "linked to the state");
    cr_assert_eq(T.nerrors, 0, "%s", T.log);
    st_scene_destroy(&s);
}

/* APIVersion as SOFA: the name stands for an unset level; unknown levels warn. */
/* VisualPointCloud follows its template as SOFA's: Rigid3d positions copied
 * from a rigid state, drawn as frames. */
Test(headless, visual_point_cloud_rigid_template)
{
    st_scene *s = loads(
        "    - MechanicalObject: {name: dofs, template: Rigid3d,"
        " position: \"0 0 1 0 0 0 1  1 0 1 0 0 0 1\"}\n"
        "    - VisualPointCloud: {name: pc, template: Rigid3, position: \"@dofs.position\","
        " drawMode: Frame}\n");
    st_component *pc = topo_get(s, "pc");
    cr_assert_eq(pc->state, ST_CSTATE_VALID);
    const st_array *p = st_component_field_ptr(pc, st_component_field(pc, "position"));
    cr_assert_eq(p->n, 2u);
    cr_assert_eq(p->r[7], 1.0);
    cr_assert_eq(p->r[13], 1.0);
    st_scene_destroy(&s);
}

/* A list of reals links to a Vec1d state's positions (SOFA's DataDisplay
 * pointData="@distances/dofs.position"); a Vec3d state's do not fit and the
 * copy says why. */
Test(headless, reals_link_to_vec1d_coordinates)
{
    st_scene *s = loads("    - MechanicalObject: {name: d1, template: Vec1d, position: [1.5, -2, 4]}\n"
                        "    - DataDisplay: {name: dd, pointData: \"@d1.position\"}\n");
    const st_array *p = st_component_field_ptr(topo_get(s, "dd"),
                                               st_component_field(topo_get(s, "dd"), "pointData"));
    cr_assert_eq(p->n, 3u);
    cr_assert_eq(p->r[1], -2.0);
    st_scene_destroy(&s);
    st_error err;
    cr_assert_neq(fails("    - MechanicalObject: {name: d3, position: [1, 2, 3]}\n"
                        "    - DataDisplay: {pointData: \"@d3.position\"}\n",
                        &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "values per point"), "%s", err.msg);
}

Test(headless, api_version_semantics)
{
    st_scene *s = loads("    - APIVersion: {name: \"18.06\"}\n"
                        "    - APIVersion: {name: b, level: \"15.00\"}\n");
    cr_assert_str_eq(text(topo_get(s, "18.06"), "level"), "18.06");
    cr_assert(strstr(T.log, "level '15.00' is not valid"), "%s", T.log);
    st_scene_destroy(&s);
}

Test(headless, bad_values_are_errors_with_the_expected_form)
{
    static const struct {
        const char *obj, *want;
    } bad[] = {
        {"OglColorMap: {colorScheme: \"Blue to Redd\"}", "did you mean 'Blue to Red'"},
        {"ViewerSetting: {cameraMode: Orthographc}", "did you mean 'Orthographic'"},
        {"VisualVectorField: {drawMode: Arow}", "did you mean 'Arrow'"},
        {"VisualPointCloud: {drawMode: Sphre}", "did you mean 'Sphere'"},
        {"VisualPointCloud: {drawMode: Frame}", "drawMode Frame needs a rigid template"},
        {"VisualMesh: {colorMap: HSVV}", "did you mean 'HSV'"},
        {"TrailRenderer: {color: \"1 0 0\"}", "r g b a"},
        {"TrailRenderer: {color: \"#ffffff00 ornage\"}", "is not one of"},
        {"TrailRenderer: {color: \"#fffff orange\"}", "is not a colour"},
        {"OglInt2Variable: {value: [1.5, 2]}", "expects integers"},
        {"OglUIntAttribute: {value: [1, -2]}", "unsigned"},
        {"OglMatrix3Variable: {value: [1, 2, 3, 4, 5, 6, 7, 8]}", "groups of 9"},
        {"OglFloatVector3Variable: {value: [1, 2]}", "groups of 3"},
        {"SpotLight: {modelViewMatrix: [1, 0, 0]}", "expects 16 values"},
        {"VisualTransform: {transform: [1, 2, 3]}", "expects 7 values"},
        {"OglViewport: {screenSize: [-1, 2]}", "unsigned"},
        {"RecordedCamera: {cameraOrientations: [0, 0, 1]}", "groups of 4"},
        {"OglShader: {fileVertexShader: a.vert}", "fileVertexShaders"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char obj[512];
        st_error err;
        snprintf(obj, sizeof obj, "    - %s\n", bad[i].obj);
        cr_assert_neq(fails(obj, &err), ST_OK, "%s", bad[i].obj);
        cr_assert(strstr(err.msg, bad[i].want), "%s: %s", bad[i].obj, err.msg);
        cr_assert(strstr(err.where, "test.yaml:"), "%s: %s", bad[i].obj, err.where);
    }
}

/* SOFA's RGBAColor: names (case-sensitive, as SOFA's table), #rgb[a],
 * #rrggbb[aa], 3 or 4 reals, and YAML lists of 3 or 4 reals. */
Test(headless, colours_in_every_notation)
{
    static const struct {
        const char *text;
        double r, g, b, a;
    } good[] = {
        {"red", 1, 0, 0, 1},           {"\"#00ff00\"", 0, 1, 0, 1},
        {"\"#f00\"", 1, 0, 0, 1},      {"\"#ff000080\"", 1, 0, 0, (float)(128 / 255.0f)},
        {"\"1 0 0\"", 1, 0, 0, 1},     {"\"1 0 0 0.5\"", 1, 0, 0, 0.5},
        {"[0, 0, 1, 0.25]", 0, 0, 1, 0.25}, {"[0, 1, 1]", 0, 1, 1, 1},
        {"gray", 0.5, 0.5, 0.5, 1},
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char obj[512];
        snprintf(obj, sizeof obj,
                 "    - VisualBoundingBox: {name: a, color: %s}\n"
                 "    - OglLabel: {name: b, color: %s}\n"
                 "    - LightManager: {name: c, ambient: %s}\n",
                 good[i].text, good[i].text, good[i].text);
        st_scene *s = loads(obj);
        const char *names[] = {"a", "b", "c"}, *fields[] = {"color", "color", "ambient"};
        for (int k = 0; k < 3; k++) {
            const double *c = reals(topo_get(s, names[k]), fields[k]);
            cr_assert(c[0] == good[i].r && c[1] == good[i].g && c[2] == good[i].b &&
                          c[3] == good[i].a,
                      "%s: %g %g %g %g", good[i].text, c[0], c[1], c[2], c[3]);
        }
        st_scene_destroy(&s);
    }
    const char *bad[] = {"reddish", "Yellow", "\"#ff00f\"", "\"#gg0000\"", "\"1 0\"",
                         "\"1 0 0 1 1\"", "[1, 0]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char obj[256];
        st_error err;
        snprintf(obj, sizeof obj, "    - VisualBoundingBox: {color: %s}\n", bad[i]);
        cr_assert_neq(fails(obj, &err), ST_OK, "%s", bad[i]);
        cr_assert(strstr(err.msg, "expects a colour"), "%s: %s", bad[i], err.msg);
    }
    st_error err;
    cr_assert_neq(fails("    - VisualBoundingBox: {color: Yellow}\n", &err), ST_OK);
    cr_assert(strstr(err.msg, "did you mean 'yellow'"), "%s", err.msg);
}

/* An OBJ with texture coordinates: a unit square as two triangles. */
static const char *SQUARE_OBJ = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                                "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                                "f 1/1 2/2 3/3\nf 1/1 3/3 4/4\n";

/* SOFA's setSrc, from the kernel: OglModel src="@loader" links position,
 * triangles (and texcoords when the loader has them) by name; the normals
 * are computed from the faces (SOFA's `normal` is not the loader's
 * `normals`). OglShaderVisualModel is the same model. */
Test(headless, ogl_model_src_from_a_loader)
{
    const char *mesh = test_write_temp("square.obj", SQUARE_OBJ);
    char obj[2048];
    snprintf(obj, sizeof obj,
             "    - MeshOBJLoader: {name: loader, filename: \"%s\"}\n"
             "    - OglModel: {name: m, src: \"@loader\"}\n"
             "    - OglShaderVisualModel: {name: sm, src: \"@loader\", translation: [1, 0, 0]}\n"
             "    - OglModel: {name: t, src: \"@loader\", triangles: [[0, 1, 2]]}\n",
             mesh);
    st_scene *s = loads(obj);
    st_component *l = topo_get(s, "loader"), *m = topo_get(s, "m"), *sm = topo_get(s, "sm");
    const st_array *lp = topo_arr(l, "position"), *mp = topo_arr(m, "position");
    cr_assert_eq(lp->n, 4);
    cr_assert_eq(mp->n, 4);
    for (size_t k = 0; k < 12; k++)
        cr_assert_eq(mp->r[k], lp->r[k]);
    const unsigned tris[] = {0, 1, 2, 0, 2, 3};
    topo_assert_tuples(topo_arr(m, "triangles"), 3, tris, 2, "OglModel triangles");
    const st_array *n = topo_arr(m, "normal");
    cr_assert_eq(n->n, 4, "normals computed, one per point");
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq(n->r[3 * i + 2], 1.0);
    if (st_component_field(l, "texcoords")) {
        const st_array *lt = topo_arr(l, "texcoords"), *mt = topo_arr(m, "texcoords");
        cr_assert_eq(mt->n, lt->n, "texcoords linked");
        for (size_t k = 0; k < lt->n; k++)
            cr_assert_eq(mt->r[k], lt->r[k]);
    }
    /* Its own transformation applies to the copy; the loader is unchanged. */
    cr_assert_eq(topo_arr(sm, "position")->r[3], 2.0);
    cr_assert_eq(lp->r[3], 1.0);
    /* A field the scene sets is not linked. */
    cr_assert_eq(topo_arr(topo_get(s, "t"), "triangles")->n, 1);
    cr_assert_eq(T.nerrors, 0, "%s", T.log);
    st_scene_destroy(&s);
}

/* SOFA's VisualModelImpl: d_edges.setAutoLink(false). A component whose
 * src is an OglModel gets its positions, texcoords and triangles, not its
 * edges. */
Test(headless, ogl_model_edges_are_not_autolinked)
{
    st_scene *s = loads("    - OglModel: {name: a, position: [[0,0,0],[1,0,0],[1,1,0]],"
                        " triangles: [[0,1,2]], edges: [[0,1],[1,2]], texcoords: [0,0,1,0,1,1]}\n"
                        "    - OglModel: {name: b, src: \"@a\"}\n");
    st_component *b = topo_get(s, "b");
    cr_assert_eq(topo_arr(b, "position")->n, 3);
    cr_assert_eq(topo_arr(b, "triangles")->n, 1);
    cr_assert_eq(topo_arr(b, "texcoords")->n, 6);
    cr_assert_eq(topo_arr(b, "edges")->n, 0, "edges are not autolinked");
    const st_field *f = st_component_field(b, "edges");
    cr_assert(f->flags & ST_F_NOAUTOLINK);
    st_scene_destroy(&s);
}
