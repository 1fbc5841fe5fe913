/* test_vertex2frame.c - the Vertex2Frame engine (Engine.Transform): frames
 * from normals (z along the normal, SOFA's choice of x and y), from the next
 * vertex (useNormals false, the last vertex copying the previous
 * orientation), the extra rotation about a frame axis, and a Rigid3d
 * MechanicalObject taking its positions from the engine's frames. */
#include <math.h>
#include <stdio.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(vertex2frame, .init = setup, .fini = teardown);

static st_scene *scene(const char *v2f)
{
    static char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\n"
             "root:\n"
             "  name: root\n"
             "  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform]}\n"
             "    - Vertex2Frame: {name: v, template: Rigid3d, %s}\n"
             "    - MechanicalObject: {name: dofs, template: Rigid3d, position: \"@v.frames\"}\n",
             v2f);
    return topo_scene(&T, yaml);
}

static void expect(const double *got, const double *want, size_t n, const char *what)
{
    for (size_t k = 0; k < n; k++)
        cr_assert_leq(fabs(got[k] - want[k]), 1e-15, "%s: value %zu is %.17g, expected %.17g",
                      what, k, got[k], want[k]);
}

Test(vertex2frame, frames_from_normals)
{
    st_scene *s = scene("position: [1,2,3, 0,0,0], normals: [0,0,2, 1,0,0]");
    const st_array *f = topo_arr(topo_get(s, "/v"), "frames");
    cr_assert_eq(f->n, 2u);
    const double r = sqrt(0.5);
    const double want[14] = {1, 2, 3, 0, 0, 0, 1, /* z = normal, x = y0 x z: the identity */
                             0, 0, 0, 0, r, 0, r}; /* normal along x: 90 degrees about y */
    expect(f->r, want, 14, "frames");
    /* The Rigid3d state linked to the frames. */
    const st_mstate *ms = (const st_mstate *)topo_get(s, "/dofs");
    cr_assert_eq(ms->position.n, 2u);
    expect(ms->position.r, want, 14, "linked MechanicalObject");
    st_scene_destroy(&s);
}

Test(vertex2frame, frames_along_the_vertices_and_rotated)
{
    st_scene *s = scene("position: [0,0,0, 0,1,0], useNormals: false");
    const st_array *f = topo_arr(topo_get(s, "/v"), "frames");
    /* x to the next vertex (0,1,0), y = x0 x x = (0,0,1), z = (1,0,0): a
     * third of a turn about (1,1,1); the last vertex copies it. */
    const double want[14] = {0, 0, 0, 0.5, 0.5, 0.5, 0.5, 0, 1, 0, 0.5, 0.5, 0.5, 0.5};
    expect(f->r, want, 14, "frames");
    st_scene_destroy(&s);
    s = scene("position: [1,2,3], normals: [0,0,1], rotation: 2, rotationAngle: 90");
    f = topo_arr(topo_get(s, "/v"), "frames");
    const double r = sqrt(0.5);
    const double rot[7] = {1, 2, 3, 0, 0, r, r};
    expect(f->r, rot, 7, "rotated 90 degrees about the frame's z");
    st_scene_destroy(&s);
}

Test(vertex2frame, missing_normals_are_an_error)
{
    st_error err = {0};
    cr_assert_neq(topo_scene_fails(&T,
                                   "format: settee/1\n"
                                   "root:\n"
                                   "  name: root\n"
                                   "  objects:\n"
                                   "    - RequiredPlugin: {pluginName: [Engine.Transform]}\n"
                                   "    - Vertex2Frame: {name: v, template: Rigid3d, position: "
                                   "[1,2,3]}\n"
                                   "    - MechanicalObject: {template: Rigid3d, position: "
                                   "\"@v.frames\"}\n",
                                   &err),
                  ST_OK);
    cr_assert(strstr(err.msg, "normals"), "%s", err.msg);
}

/* Without a template beside a Vec3d state: SOFA instantiates Vertex2Frame
 * for Rigid3d only, so it is one (its data are not the node's state); an
 * explicit other template is still refused. */
Test(vertex2frame, rigid_beside_a_vec3d_state)
{
    static char yaml[1024];
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform]}\n"
             "    - MechanicalObject: {name: dofs, position: [0, 0, 0]}\n"
             "    - Vertex2Frame: {name: v, position: [1,2,3, 0,0,0], normals: [0,0,2, 1,0,0]}\n");
    st_scene *s = topo_scene(&T, yaml);
    cr_assert_eq(topo_arr(topo_get(s, "/v"), "frames")->n, 2u);
    cr_assert_eq(topo_arr(topo_get(s, "/v"), "frames")->r[6], 1.0, "7 values per frame");
    st_scene_destroy(&s);
    st_error err = {0};
    snprintf(yaml, sizeof yaml,
             "format: settee/1\nroot:\n  objects:\n"
             "    - RequiredPlugin: {pluginName: [Sofa.Component.Engine.Transform]}\n"
             "    - Vertex2Frame: {template: Vec3d, position: [1,2,3]}\n");
    cr_assert_neq(topo_scene_fails(&T, yaml, &err), ST_OK);
    cr_assert(strstr(err.msg, "does not support template Vec3d"), "%s", err.msg);
}
