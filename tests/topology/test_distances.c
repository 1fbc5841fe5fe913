/* test_distances.c - Distances (Engine.Analyze) on a 4 x 2 x 1 voxel grid
 * read by a VoxelGridLoader into a DynamicSparseGridTopologyContainer:
 * initTarget puts the target's points at the voxel centres (plus offset)
 * whose voxel coordinates are multiples of initTargetStep; SOFA's
 * object-factory paths (a first ".." is the object's own node, a node
 * stands for its mechanical state, absent ones are "../.." and ".."); the
 * refusals of a missing or wrong container or target; and SOFA's inert
 * object without geometry algorithms or voxel loader. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(distances, .init = setup, .fini = teardown);

/* The 8 voxels, every one active (no dataValue, no bgValue), in a file of
 * this test's own (Criterion runs the tests in parallel processes). */
static const char *raw_file(void)
{
    static char path[512];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/distances_grid_%ld.raw",
             dir && *dir ? dir : SETTEE_BINARY_DIR "/tests/tmp", (long)getpid());
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    const unsigned char v[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    cr_assert_eq(fwrite(v, 1, 8, f), 8u);
    fclose(f);
    return path;
}

/* The grid node G (loader, dofs, container, geometry algorithms unless
 * no_geo), and in its child T the target and the Distances `dist`. */
static st_scene *load(const char *dist_attrs, bool no_geo, bool no_loader, st_status *rc,
                      st_error *err)
{
    char xml[4096], loader[1024];
    snprintf(loader, sizeof loader,
             "<VoxelGridLoader name='loader' filename='%s' resolution='4 2 1' "
             "voxelSize='1 1 1'/>",
             raw_file());
    snprintf(xml, sizeof xml,
             "<Node name='root'><RequiredPlugin pluginName='Sofa.Component.IO.Mesh "
             "Sofa.Component.Topology.Container.Dynamic "
             "Sofa.Component.Topology.Container.Constant "
             "Sofa.Component.Engine.Analyze Sofa.Component.StateContainer'/>"
             "<DefaultAnimationLoop/>"
             "<Node name='G'>%s"
             "<MechanicalObject name='dofs' position='%s'/>"
             "<DynamicSparseGridTopologyContainer name='grid' hexahedra='%s' "
             "idxInRegularGrid='%s' resolution='4 2 1' voxelSize='1 1 1'/>%s"
             "<MeshTopology name='mesh'/>"
             "<Node name='T'><MechanicalObject name='target' position='9 9 9'/>"
             "<Distances name='dist' %s/></Node></Node></Node>",
             no_loader ? "" : loader,
             no_loader ? "0 0 0 1 0 0 1 1 0 0 1 0 0 0 1 1 0 1 1 1 1 0 1 1" : "@loader.position",
             no_loader ? "0 1 2 3 4 5 6 7" : "@loader.hexahedra",
             no_loader ? "0" : "@loader.idxInRegularGrid",
             no_geo ? "" : "<DynamicSparseGridGeometryAlgorithms name='geo'/>", dist_attrs);
    st_scene *s = NULL;
    *rc = st_scene_load_string(T.rt, xml, strlen(xml), "d.scn", &s, err);
    if (*rc == ST_OK)
        *rc = st_scene_init(s, err);
    return s;
}

static st_scene *load_ok(const char *dist_attrs, bool no_geo, bool no_loader)
{
    st_error err = {0};
    st_status rc;
    st_scene *s = load(dist_attrs, no_geo, no_loader, &rc, &err);
    cr_assert_eq(rc, ST_OK, "%s: %s\n%s", err.path, err.msg, T.log);
    return s;
}

static const st_array *target(st_scene *s)
{
    return topo_arr(test_find_object(s, "target"), "position");
}

/* Step 1: the 8 voxel centres in the container's order (x fastest), with
 * the offset, as position and rest position. */
Test(distances, init_target_at_every_voxel_centre)
{
    st_scene *s = load_ok("hexaContainerPath='../../grid' initTarget='true' offset='10 0 0'",
                          false, false);
    const st_array *x = target(s);
    const st_array *x0 = topo_arr(test_find_object(s, "target"), "rest_position");
    cr_assert_eq(x->n, 8u);
    cr_assert_eq(x0->n, 8u);
    for (size_t i = 0; i < 8; i++) {
        const double want[3] = {10 + 0.5 + (double)(i % 4), 0.5 + (double)(i / 4), 0.5};
        for (int c = 0; c < 3; c++) {
            cr_assert_float_eq(x->r[3 * i + c], want[c], 1e-15, "point %zu axis %d: %g", i, c,
                               x->r[3 * i + c]);
            cr_assert_float_eq(x0->r[3 * i + c], want[c], 1e-15);
        }
    }
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    st_scene_destroy(&s);
}

/* Step 2: voxels (0, 0, 0) and (2, 0, 0) only; the container found by name
 * upwards (no leading ".."), the target by the default "..". */
Test(distances, init_target_step_and_paths)
{
    st_scene *s = load_ok("hexaContainerPath='grid' initTarget='true' initTargetStep='2'", false,
                          false);
    const st_array *x = target(s);
    cr_assert_eq(x->n, 2u);
    cr_assert(x->r[0] == 0.5 && x->r[1] == 0.5 && x->r[2] == 0.5);
    cr_assert(x->r[3] == 2.5 && x->r[4] == 0.5 && x->r[5] == 0.5);
    st_scene_destroy(&s);
    /* Without initTarget the target keeps its point. */
    s = load_ok("hexaContainerPath='../../grid'", false, false);
    cr_assert_eq(target(s)->n, 1u);
    cr_assert_eq(target(s)->r[0], 9.0);
    st_scene_destroy(&s);
}

/* SOFA's refusals: the default container path "../.." is the parent
 * node's mechanical state, not a grid; a MeshTopology is not one either; a
 * target path to the grid is not a state; a bad distance type or step. */
Test(distances, refusals)
{
    struct {
        const char *attrs, *want;
    } cases[] = {
        {"", "is not of type DynamicSparseGridTopologyContainer"},
        {"hexaContainerPath='../../mesh'", "is not of type DynamicSparseGridTopologyContainer"},
        {"hexaContainerPath='../../nowhere'", "the hexas container is missing"},
        {"hexaContainerPath='../../grid' targetPath='../../grid'",
         "does not point to a mechanical state of data type 'Vec3d'"},
        {"hexaContainerPath='../../grid' targetPath='../nowhere'",
         "the target point set is missing"},
        {"hexaContainerPath='../../grid' d_distanceType='Euclidean'", "d_distanceType"},
        {"hexaContainerPath='../../grid' initTarget='true' initTargetStep='0'", "initTargetStep"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        st_error err = {0};
        st_status rc;
        st_scene *s = load(cases[i].attrs, false, false, &rc, &err);
        cr_assert_neq(rc, ST_OK, "case %zu accepted", i);
        char msg[1024];
        st_error_format(&err, msg, sizeof msg);
        cr_assert(strstr(msg, cases[i].want), "case %zu: %s", i, msg);
        st_scene_destroy(&s);
    }
    /* An option's index is its name (SOFA's OptionsGroup). */
    st_scene *s = load_ok("hexaContainerPath='../../grid' d_distanceType='3'", false, false);
    st_component *d = test_find_object(s, "dist");
    cr_assert_str_eq(*(char **)st_component_field_ptr(d, st_component_field(d, "d_distanceType")),
                     "Voronoi");
    st_scene_destroy(&s);
}

/* Without geometry algorithms, or without a voxel loader, SOFA logs an
 * error and does nothing more: the target keeps its point. */
Test(distances, inert_without_geometry_or_loader)
{
    for (int k = 0; k < 2; k++) {
        st_scene *s = load_ok("hexaContainerPath='../../grid' initTarget='true'", k == 0, k == 1);
        cr_assert_eq(target(s)->n, 1u, "case %d", k);
        cr_assert(strstr(T.log, k == 0 ? "geometry algorithms" : "Voxel Grid Loader"), "%s",
                  T.log);
        st_scene_destroy(&s);
    }
}
