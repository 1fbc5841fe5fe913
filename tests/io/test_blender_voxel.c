/* test_blender_voxel.c - BlenderExporter (SOFA's .bphys point caches: the
 * header, the points last to first with float positions and velocities,
 * hair's extra root points, rest positions and information frame, the file
 * names on SOFA's exporter events) and VoxelGridLoader (a .raw grid as
 * hexahedra or points: the points used, SOFA's corner order, bgValue,
 * dataValue, ROI, header bytes, idxInRegularGrid). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

static test_rt T;
static char dir[1024];
static void setup(void)
{
    test_rt_open(&T);
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/blender_voxel-%ld", tmp ? tmp : ".", (long)getpid());
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    cr_assert_eq(system(cmd), 0);
}
static void teardown(void) { test_rt_close(&T); }
TestSuite(blender_voxel, .init = setup, .fini = teardown);

static st_scene *load_xml(const char *body)
{
    char xml[8192];
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.1' gravity='0 0 0'>"
             "<RequiredPlugin pluginName='Sofa.Component.IO.Mesh'/>"
             "<DefaultAnimationLoop/>%s</Node>",
             body);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "bv.scn", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s: %s", err.path, err.msg);
    return s;
}

static unsigned char *slurp(const char *name, size_t *len)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "%s was not written", path);
    static unsigned char buf[65536];
    *len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

static bool exists(const char *name)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

static uint32_t u32_at(const unsigned char *b, size_t off)
{
    return (uint32_t)b[off] | (uint32_t)b[off + 1] << 8 | (uint32_t)b[off + 2] << 16 |
           (uint32_t)b[off + 3] << 24;
}

static float f32_at(const unsigned char *b, size_t off)
{
    uint32_t u = u32_at(b, off);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* Checks 3 floats at off. */
static void expect3(const unsigned char *b, size_t off, double x, double y, double z)
{
    cr_assert_float_eq(f32_at(b, off), (float)x, 0, "at %zu: %g vs %g", off, f32_at(b, off), x);
    cr_assert_float_eq(f32_at(b, off + 4), (float)y, 0, "at %zu", off + 4);
    cr_assert_float_eq(f32_at(b, off + 8), (float)z, 0, "at %zu", off + 8);
}

Test(blender_voxel, soft_body_files_on_sofa_events)
{
    char body[2048];
    snprintf(body, sizeof body,
             "<MechanicalObject name='dofs' position='0 0 0  1 2 3  -1.5 0.25 7' "
             "velocity='0.5 0 0  0 1 0  0 0 -2'/>"
             "<BlenderExporter name='bl' filename='%s/out' exportAtBegin='1' "
             "exportEveryNumberOfSteps='2'/>",
             dir);
    st_scene *s = load_xml(body);
    st_error err = {0};
    for (int i = 0; i < 5; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    cr_assert(exists("out00000_00.bphys") && exists("out00001_00.bphys") &&
              exists("out00002_00.bphys"));
    cr_assert(!exists("out00003_00.bphys"));
    size_t n;
    const unsigned char *b = slurp("out00001_00.bphys", &n);
    cr_assert_eq(n, 8 + 12 + 3 * 24);
    cr_assert_eq(memcmp(b, "BPHYSICS", 8), 0);
    cr_assert_eq(u32_at(b, 8), 0u);  /* soft body */
    cr_assert_eq(u32_at(b, 12), 3u); /* points */
    cr_assert_eq(u32_at(b, 16), 6u); /* data type */
    /* Last point first: position, velocity. */
    expect3(b, 20, -1.5, 0.25, 7), expect3(b, 32, 0, 0, -2);
    expect3(b, 44, 1, 2, 3), expect3(b, 56, 0, 1, 0);
    expect3(b, 68, 0, 0, 0), expect3(b, 80, 0.5, 0, 0);
    st_scene_destroy(&s);
}

/* Hair (simulationType 3), strands of 2: an information frame at init;
 * type 2 (cloth), data type 22, 4 + 4/2 points; before each root (indices
 * 2 and 0), a point one unit from the root towards the next one, zero
 * velocity, its own position as rest; each point then position, velocity,
 * rest position. */
Test(blender_voxel, hair_adds_root_points_and_an_information_frame)
{
    char body[2048];
    snprintf(body, sizeof body,
             "<MechanicalObject name='dofs' position='0 0 0  0 0 4  1 1 1  1 3 1' "
             "rest_position='0 0 0  0 0 4  1 1 1  1 3 1'/>"
             "<BlenderExporter name='bl' filename='%s/hair' simulationType='3' nbPtsByHair='2' "
             "exportAtBegin='true'/>",
             dir);
    st_scene *s = load_xml(body);
    size_t n;
    const unsigned char *b = slurp("hair", &n);
    cr_assert_eq(n, 8 + 12 + 12);
    cr_assert_eq(memcmp(b, "BPHYSICS", 8), 0);
    cr_assert_eq(u32_at(b, 8), 1u);
    cr_assert_eq(u32_at(b, 12), 1u);
    cr_assert_eq(u32_at(b, 16), 64u);
    expect3(b, 20, 0, 100, 100);
    b = slurp("hair_00.bphys", &n);
    cr_assert_eq(n, 20 + 6 * 36);
    cr_assert_eq(u32_at(b, 8), 2u);
    cr_assert_eq(u32_at(b, 12), 6u);
    cr_assert_eq(u32_at(b, 16), 22u);
    size_t o = 20;
    expect3(b, o, 1, 3, 1), expect3(b, o + 12, 0, 0, 0), expect3(b, o + 24, 1, 3, 1); /* 3 */
    o += 36;
    expect3(b, o, 1, 2, 1), expect3(b, o + 12, 0, 0, 0), expect3(b, o + 24, 1, 2, 1); /* root */
    o += 36;
    expect3(b, o, 1, 1, 1), expect3(b, o + 24, 1, 1, 1); /* 2 */
    o += 36;
    expect3(b, o, 0, 0, 4); /* 1 */
    o += 36;
    expect3(b, o, 0, 0, 1), expect3(b, o + 24, 0, 0, 1); /* 0's root: towards (0 0 4) */
    o += 36;
    expect3(b, o, 0, 0, 0), expect3(b, o + 24, 0, 0, 0); /* 0 */
    st_scene_destroy(&s);
}

Test(blender_voxel, rigid_states_write_the_centres)
{
    char body[2048];
    snprintf(body, sizeof body,
             "<MechanicalObject template='Rigid3d' name='dofs' position='1 2 3 0 0 0 1' "
             "velocity='4 5 6 7 8 9'/>"
             "<BlenderExporter name='bl' filename='%s/rigid' exportAtBegin='true'/>",
             dir);
    st_scene *s = load_xml(body);
    size_t n;
    const unsigned char *b = slurp("rigid_00.bphys", &n);
    cr_assert_eq(n, 20 + 24);
    expect3(b, 20, 1, 2, 3), expect3(b, 32, 4, 5, 6);
    st_scene_destroy(&s);
}

Test(blender_voxel, exporter_without_a_state_is_an_error)
{
    const char *xml = "<Node name='root'><RequiredPlugin pluginName='Sofa.Component.IO.Mesh'/>"
                      "<BlenderExporter name='bl'/></Node>";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "bv.scn", &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "No mechanical state"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* A 3 x 2 x 2 grid after a 2-byte header; voxel values 0 (background), 1
 * and 2. */
static const char *raw_file(void)
{
    static char path[1200];
    snprintf(path, sizeof path, "%s/grid.raw", dir);
    const unsigned char data[2 + 12] = {9, 9, /* header */
                                        1, 0, 2, /* j 0 k 0 */
                                        0, 0, 0, /* j 1 k 0 */
                                        0, 0, 2, /* j 0 k 1 */
                                        0, 0, 0};
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(data, 1, sizeof data, f), sizeof data);
    fclose(f);
    return path;
}

static st_component *voxel_loader(const char *attrs)
{
    char body[2048];
    snprintf(body, sizeof body,
             "<VoxelGridLoader name='vox' filename='%s' resolution='3 2 2' header='2' "
             "voxelSize='0.5 1 2' %s/>",
             raw_file(), attrs);
    st_scene *s = load_xml(body);
    static st_scene *last;
    if (last)
        st_scene_destroy(&last);
    last = s;
    return test_find_object(s, "vox");
}

static const st_array *fld(st_component *c, const char *name)
{
    return st_component_field_ptr(c, st_component_field(c, name));
}

Test(blender_voxel, voxel_grid_hexahedra_from_active_voxels)
{
    st_component *v = voxel_loader("bgValue='0'");
    const st_array *p = fld(v, "position"), *h = fld(v, "hexahedra"),
                   *idx = fld(v, "idxInRegularGrid");
    /* Active: (0,0,0) value 1, (2,0,0) and (2,0,1) value 2. */
    cr_assert_eq(h->n, 3);
    cr_assert_eq(idx->n, 3);
    cr_assert_eq(idx->u[0], 0u);
    cr_assert_eq(idx->u[1], 2u);
    cr_assert_eq(idx->u[2], 8u);
    /* Points used: x in {0,1} and {2,3} at y 0..1, z 0..1 (voxel 0 and 2),
     * and z 2 for voxel 8: 8 + 8 + 4 = 20, ordered z, y, x slowest to
     * fastest. */
    cr_assert_eq(p->n, 20);
    /* First z = 0 row: x 0, 1, 2, 3 at y 0. */
    const double first[4][3] = {{0, 0, 0}, {0.5, 0, 0}, {1, 0, 0}, {1.5, 0, 0}};
    for (int i = 0; i < 4; i++)
        for (int a = 0; a < 3; a++)
            cr_assert_float_eq(p->r[3 * i + a], first[i][a], 1e-15);
    /* The last point: (3, 1, 2). */
    cr_assert_float_eq(p->r[3 * 19], 1.5, 1e-15);
    cr_assert_float_eq(p->r[3 * 19 + 1], 1, 1e-15);
    cr_assert_float_eq(p->r[3 * 19 + 2], 4, 1e-15);
    /* Each hexahedron's corners in SOFA's order: corner q at the voxel's
     * origin + (dx, dy, dz) of that order. */
    static const int c[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};
    const int origin[3][3] = {{0, 0, 0}, {2, 0, 0}, {2, 0, 1}};
    const double vs[3] = {0.5, 1, 2};
    for (int e = 0; e < 3; e++)
        for (int q = 0; q < 8; q++) {
            unsigned k = h->u[8 * e + q];
            cr_assert(k < p->n);
            for (int a = 0; a < 3; a++)
                cr_assert_float_eq(p->r[3 * k + a], (origin[e][a] + c[q][a]) * vs[a], 1e-15,
                                   "hexa %d corner %d axis %d", e, q, a);
        }
}

Test(blender_voxel, voxel_grid_data_values_roi_and_points)
{
    st_component *v = voxel_loader("dataValue='2'");
    cr_assert_eq(fld(v, "hexahedra")->n, 2);
    cr_assert_eq(fld(v, "position")->n, 12);
    /* No list: every voxel of the region; the ROI clamped to the grid. */
    v = voxel_loader("ROI='1 0 0 99 0 0'");
    const st_array *roi = fld(v, "ROI");
    cr_assert_float_eq(roi->r[3], 2, 0);
    cr_assert_float_eq(roi->r[4], 0, 0);
    cr_assert_eq(fld(v, "hexahedra")->n, 2);
    /* Points: one per active voxel, at its lower corner. */
    v = voxel_loader("bgValue='0' generateHexa='false'");
    const st_array *p = fld(v, "position");
    cr_assert_eq(p->n, 3);
    cr_assert_eq(fld(v, "hexahedra")->n, 0);
    cr_assert_float_eq(p->r[6], 1.0, 1e-15);
    cr_assert_float_eq(p->r[8], 2.0, 1e-15);
}

Test(blender_voxel, voxel_grid_short_file_is_an_error)
{
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name='root'><RequiredPlugin pluginName='Sofa.Component.IO.Mesh'/>"
             "<VoxelGridLoader name='vox' filename='%s' resolution='3 2 3'/></Node>",
             raw_file());
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "bv.scn", &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "Unable to load file"), "%s", err.msg);
    st_scene_destroy(&s);
}

/* exportAtEnd writes when the scene is destroyed, which needs the state
 * destroyed after the exporter: an exporter written before its state is
 * an error with exportAtEnd. */
Test(blender_voxel, export_at_end_needs_the_state_first)
{
    char body[2048];
    snprintf(body, sizeof body,
             "<MechanicalObject name='dofs' position='1 2 3'/>"
             "<BlenderExporter name='bl' filename='%s/end' exportAtEnd='true'/>",
             dir);
    st_scene *s = load_xml(body);
    cr_assert(!exists("end_00.bphys"));
    st_scene_destroy(&s);
    size_t n;
    const unsigned char *b = slurp("end_00.bphys", &n);
    cr_assert_eq(n, 20 + 24);
    expect3(b, 20, 1, 2, 3);
    char xml[2048];
    snprintf(xml, sizeof xml,
             "<Node name='root'><RequiredPlugin pluginName='Sofa.Component.IO.Mesh'/>"
             "<BlenderExporter name='bl' filename='%s/end2' exportAtEnd='true'/>"
             "<MechanicalObject name='dofs' position='1 2 3'/></Node>",
             dir);
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "bv.scn", &s, &err), ST_OK);
    cr_assert_neq(st_scene_init(s, &err), ST_OK);
    cr_assert(strstr(err.msg, "exportAtEnd writes while the scene is destroyed"), "%s", err.msg);
    st_scene_destroy(&s);
}
