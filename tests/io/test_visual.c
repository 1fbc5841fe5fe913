/* test_visual.c - SOFA's visual components headless: every field with
 * SOFA's values and defaults, colours in every notation, options groups
 * with did-you-mean, OglModel's init transformation (SOFA's numbers), and
 * an OglModel that follows its parent through an IdentityMapping. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(visual, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  dt: 0.01\n"                                                                                \
    "  gravity: [0, -10, 0]\n"                                                                    \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.Visual, Sofa.GL.Component.Rendering3D,"   \
    " Sofa.Component.Mapping.Linear, Sofa.Component.ODESolver.Forward, Sofa.Component.Mass]}\n"

/* One unit square in the z = 0 plane, as two triangles. */
#define SQUARE "position: [[0,0,0],[1,0,0],[1,1,0],[0,1,0]], triangles: [[0,1,2],[0,2,3]]"

static st_status fails(const char *objects, st_error *err)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "%s", objects);
    memset(err, 0, sizeof *err);
    return topo_scene_fails(&T, yaml, err);
}

static st_scene *loads(const char *objects)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "%s", objects);
    return topo_scene(&T, yaml);
}

/* Every component loading with its defaults: test_headless.c. */

Test(visual, sofa_values_are_accepted)
{
    st_scene *s = loads(
        "    - VisualGrid: {name: g, plane: y, size: 20, nbSubdiv: 8, color: \"#808080\"}\n"
        "    - LineAxis: {axis: xz, size: 2, infinite: true}\n"
        "    - Visual3DText: {text: hello, position: [1, 2, 3], color: red}\n"
        "    - InteractiveCamera: {name: cam, position: [0, 0, 10], orientation: [0, 0, 0, 1],"
        " projectionType: Orthographic, zoomSpeed: 100}\n"
        "    - OglSceneFrame: {style: Arrows, alignment: TopLeft}\n"
        "    - OglModel: {name: m, " SQUARE ", color: \"1 0 0\", alphaBlend: true,"
        " primitiveType: PATCHES, blendEquation: GL_MAX, sfactor: GL_ONE, dfactor: GL_ZERO,"
        " lineWidth: 2, cullFace: 1, material: \"Default Diffuse 1 1 0 0 1 Ambient 0 1 1 1 1"
        " Specular 0 1 0 0 1 Emissive 0 1 0 0 1 Shininess 0 45\"}\n");
    st_component *cam = topo_get(s, "cam");
    cr_assert_str_eq(*(char **)st_component_field_ptr(cam, st_component_field(cam, "projectionType")),
                     "Orthographic");
    cr_assert_eq(T.nerrors, 0, "%s", T.log);
    st_scene_destroy(&s);
}

/* An options group given by index is rewritten to the item's name. */
Test(visual, options_group_by_index)
{
    st_scene *s = loads("    - OglModel: {name: m, primitiveType: 3}\n"
                        "    - OglSceneFrame: {name: f, alignment: 0}\n");
    st_component *m = topo_get(s, "m");
    cr_assert_str_eq(*(char **)st_component_field_ptr(m, st_component_field(m, "primitiveType")),
                     "POINTS");
    st_component *f = topo_get(s, "f");
    cr_assert_str_eq(*(char **)st_component_field_ptr(f, st_component_field(f, "alignment")),
                     "BottomLeft");
    st_scene_destroy(&s);
}

Test(visual, bad_options_are_rejected_with_the_list)
{
    st_error err;
    cr_assert_eq(fails("    - OglModel: {primitiveType: PATCH}\n", &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "DEFAULT, LINES_ADJACENCY, PATCHES, POINTS"), "%s", err.msg);
    cr_assert(strstr(err.msg, "did you mean 'PATCHES'"), "%s", err.msg);
    cr_assert(strstr(err.where, "test.yaml:"), "%s", err.where);
    cr_assert_eq(fails("    - OglModel: {blendEquation: GL_FUNC_ADDD}\n", &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "did you mean 'GL_FUNC_ADD'"), "%s", err.msg);
    cr_assert_eq(fails("    - OglModel: {sfactor: 7}\n", &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "index 0..3"), "%s", err.msg);
    cr_assert_eq(fails("    - VisualGrid: {plane: w}\n", &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "x, y, z"), "%s", err.msg);
    cr_assert_eq(fails("    - Camera: {projectionType: Orthographics}\n", &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "did you mean 'Orthographic'"), "%s", err.msg);
    cr_assert_eq(fails("    - OglSceneFrame: {style: Cylinder}\n", &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "did you mean 'Cylinders'"), "%s", err.msg);
    cr_assert_eq(fails("    - Camera: {modelViewMatrix: [1, 0, 0]}\n", &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "16 reals"), "%s", err.msg);
}

/* Colours are the kernel's RGBA fields (SOFA's RGBAColor); every notation
 * is covered in test_headless.c. */
Test(visual, colours_in_every_notation)
{
    const char *good[] = {"red", "yellow", "\"#ff0000\"", "\"#f00\"", "\"#ff000080\"",
                          "\"1 0 0\"", "\"1 0 0 0.5\"", "azure", "[1, 0, 0, 0.5]"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char obj[256];
        snprintf(obj, sizeof obj, "    - VisualGrid: {color: %s}\n    - OglModel: {color: %s}\n",
                 good[i], good[i]);
        st_scene *s = loads(obj);
        st_scene_destroy(&s);
    }
    const char *bad[] = {"reddish", "\"#ff00f\"", "\"#gg0000\"", "\"1 0\"", "\"1 0 0 1 1\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char obj[256];
        st_error err;
        snprintf(obj, sizeof obj, "    - OglModel: {color: %s}\n", bad[i]);
        cr_assert_neq(fails(obj, &err), ST_OK, "%s", bad[i]);
        cr_assert(strstr(err.msg, "expects a colour"), "%s: %s", bad[i], err.msg);
    }
}

static const double *pos(st_scene *s, const char *name)
{
    return topo_arr(topo_get(s, name), "position")->r;
}

/* SOFA's VisualModelImpl::init: scale, then rotation (Euler angles in
 * degrees, quaternion ZYX), then translation; then the fields are reset. */
Test(visual, transformation_gives_sofas_positions)
{
    st_scene *s = loads("    - OglModel: {name: m, " SQUARE ", scale3d: [2, 3, 4],"
                        " rotation: [0, 0, 90], translation: [10, 20, 30]}\n");
    const double *p = pos(s, "m");
    /* (1, 0, 0) -> scaled (2, 0, 0) -> rotated 90 deg about z (0, 2, 0) -> (10, 22, 30). */
    cr_assert_float_eq(p[3], 10.0, 1e-12);
    cr_assert_float_eq(p[4], 22.0, 1e-12);
    cr_assert_float_eq(p[5], 30.0, 1e-12);
    /* (1, 1, 0) -> (2, 3, 0) -> (-3, 2, 0) -> (7, 22, 30). */
    cr_assert_float_eq(p[6], 7.0, 1e-12);
    cr_assert_float_eq(p[7], 22.0, 1e-12);
    st_component *m = topo_get(s, "m");
    const double *sc = st_component_field_ptr(m, st_component_field(m, "scale3d"));
    cr_assert_eq(sc[0], 1.0, "the transformation is consumed at init, as SOFA's");
    st_scene_destroy(&s);

    /* Rotation about x then y: SOFA's ZYX quaternion of (90, 90, 0). */
    s = loads("    - OglModel: {name: m, position: [[0, 0, 1]], rotation: [90, 90, 0]}\n");
    p = pos(s, "m");
    /* q = qz * qy * qx applied to (0,0,1): rotate x by 90 -> (0,-1,0), then y by 90 -> (0,-1,0). */
    cr_assert_float_eq(p[0], 0.0, 1e-12);
    cr_assert_float_eq(p[1], -1.0, 1e-12);
    cr_assert_float_eq(p[2], 0.0, 1e-12);
    st_scene_destroy(&s);
}

/* SOFA's parse attributes: dx.. replace translation, sx.. replace scale3d,
 * scale (one number) wins over sx; "2 2 2" is not one number, SOFA reads 1. */
Test(visual, scale_has_sofas_semantics)
{
    st_scene *s = loads("    - OglModel: {name: a, position: [[1, 1, 1]], scale: 2}\n"
                        "    - OglModel: {name: b, position: [[1, 1, 1]], scale: \"2 2 2\"}\n"
                        "    - OglModel: {name: c, position: [[1, 1, 1]], sx: 2, sz: 3,"
                        " scale3d: [5, 5, 5]}\n"
                        "    - OglModel: {name: d, position: [[1, 1, 1]], scale: 2, sx: 5}\n"
                        "    - OglModel: {name: e, position: [[1, 1, 1]], dy: 4,"
                        " translation: [7, 7, 7]}\n"
                        "    - OglModel: {name: f, position: [[0, 0, 0]], dx: 0.3, dy: 0.1}\n");
    cr_assert_eq(pos(s, "a")[0], 2.0);
    cr_assert_eq(pos(s, "a")[2], 2.0);
    cr_assert_eq(pos(s, "b")[0], 1.0);
    cr_assert(strstr(T.log, "scale '2 2 2' is not one number"), "%s", T.log);
    cr_assert(strstr(T.log, "scale3d=\"2 2 2\""), "%s", T.log);
    const double *c = pos(s, "c");
    cr_assert(c[0] == 2.0 && c[1] == 1.0 && c[2] == 3.0, "%g %g %g", c[0], c[1], c[2]);
    cr_assert_eq(pos(s, "d")[0], 2.0);
    /* SOFA reads the parse attributes as float. */
    cr_assert_eq(pos(s, "f")[1], (double)0.1f, "%.17g", pos(s, "f")[1]);
    cr_assert_eq(pos(s, "f")[0], (double)0.3f);
    const double *e = pos(s, "e");
    cr_assert(e[0] == 1.0 && e[1] == 5.0 && e[2] == 1.0, "%g %g %g", e[0], e[1], e[2]);
    st_scene_destroy(&s);
}

Test(visual, normals_flip_and_texcoords)
{
    st_scene *s = loads("    - OglModel: {name: m, " SQUARE ", texcoords: [0, 0, 1, 0, 1, 1, 0, 1],"
                        " texturename: no/such/texture.png, scaleTex: [2, 2],"
                        " translationTex: [0.5, 0]}\n"
                        "    - OglModel: {name: f, " SQUARE ", flip: true}\n");
    st_component *m = topo_get(s, "m");
    const st_array *n = topo_arr(m, "normal");
    cr_assert_eq(n->n, 4);
    for (size_t i = 0; i < 4; i++)
        cr_assert(n->r[3 * i] == 0 && n->r[3 * i + 1] == 0 && n->r[3 * i + 2] == 1.0);
    /* A missing texture is a warning headless; the coordinates still move. */
    cr_assert(strstr(T.log, "texture not found"), "%s", T.log);
    cr_assert_eq(T.nerrors, 0, "%s", T.log);
    const st_array *tc = topo_arr(m, "texcoords");
    cr_assert_eq(tc->r[2], 2.5);
    cr_assert_eq(tc->r[5], 2.0);
    st_component *f = topo_get(s, "f");
    cr_assert_eq(topo_arr(f, "triangles")->u[1], 2);
    cr_assert_eq(topo_arr(f, "normal")->r[2], -1.0);
    st_scene_destroy(&s);
    st_error err;
    cr_assert_eq(fails("    - OglModel: {texcoords: [0, 0, 1]}\n", &err), ST_EINVAL);
    cr_assert(strstr(err.msg, "groups of 2"), "%s", err.msg);
}

/* A visual model under an IdentityMapping follows its parent: positions
 * and normals after each step. */
Test(visual, mapped_model_follows_its_parent)
{
    st_scene *s = loads("  children:\n"
                        "    - name: body\n"
                        "      objects:\n"
                        "        - EulerExplicitSolver: {symplectic: true}\n"
                        "        - MechanicalObject: {name: dofs, position: [[0,0,0],[1,0,0],"
                        "[1,1,0],[0,1,0]]}\n"
                        "        - UniformMass: {totalMass: 1}\n"
                        "      children:\n"
                        "        - name: visual\n"
                        "          objects:\n"
                        "            - OglModel: {name: v, triangles: [[0,1,2],[0,2,3]],"
                        " translation: [5, 0, 0]}\n"
                        "            - IdentityMapping: {input: \"@../dofs\", output: \"@v\"}\n");
    st_mstate *in = (st_mstate *)topo_get(s, "/body/dofs");
    st_component *v = topo_get(s, "/body/visual/v");
    cr_assert_eq(topo_arr(v, "position")->n, 4);
    cr_assert_eq(topo_arr(v, "normal")->n, 4, "normals sized after the mapping's init");
    st_error err = {0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const st_array *vp = topo_arr(v, "position");
    cr_assert_lt(in->position.r[1], 0.0);
    for (int k = 0; k < 12; k++)
        cr_assert_eq(vp->r[k], in->position.r[k], "x[%d]", k);
    cr_assert_float_eq(topo_arr(v, "normal")->r[2], 1.0, 1e-12);
    st_scene_destroy(&s);
}

Test(visual, ignored_fields_say_so_at_verbose)
{
    st_scene *s = loads("    - OglModel: {alphaBlend: true}\n    - VisualGrid: {size: 3}\n");
    cr_assert(strstr(T.log, "'alphaBlend' is accepted for SOFA compatibility"), "%s", T.log);
    cr_assert(strstr(T.log, "'size' is accepted for SOFA compatibility"), "%s", T.log);
    st_scene_destroy(&s);
}

/* A BarycentricMapping into an OglModel maps its points (SOFA's visual
 * mapping): each point follows the cell it lies in, here a falling cube. */
Test(visual, barycentric_mapping_into_a_visual_model)
{
    const char *yaml =
        "format: settee/1\n"
        "root:\n"
        "  gravity: [0, -9.81, 0]\n"
        "  dt: 0.01\n"
        "  objects:\n"
        "    - RequiredPlugin: {pluginName: [ODESolver.Forward, Mass, Topology, Mapping.Linear,\n"
        "                                    Sofa.GL.Component.Rendering3D]}\n"
        "    - EulerExplicitSolver: {symplectic: true}\n"
        "    - MechanicalObject: {name: dofs}\n"
        "    - RegularGridTopology: {n: [2, 2, 2], min: [0, 0, 0], max: [1, 1, 1]}\n"
        "    - UniformMass: {totalMass: 1}\n"
        "  children:\n"
        "    - name: Visual\n"
        "      objects:\n"
        "        - OglModel: {name: vis, position: [[0.5, 0.5, 0.5], [0.25, 0.75, 0.1]]}\n"
        "        - BarycentricMapping: {input: \"@..\", output: \"@vis\"}\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    st_component *vis = test_find_object(s, "vis");
    cr_assert_not_null(vis);
    const double *p = ((const st_array *)st_component_field_ptr(
                           vis, st_component_field(vis, "position")))->r;
    double drop = 9.81 * 0.01 * 0.01 * 55; /* symplectic Euler, 10 steps from rest */
    cr_assert_float_eq(p[1], 0.5 - drop, 1e-12);
    cr_assert_float_eq(p[4], 0.75 - drop, 1e-12);
    cr_assert_eq(p[0], 0.5);
    cr_assert_eq(p[5], 0.1);
    st_scene_destroy(&s);
}
