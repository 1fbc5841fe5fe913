/* test_mesh_loaders.c - the IO.Mesh loaders against files of our own
 * writing: one tetrahedral cube in legacy VTK (ASCII and big-endian
 * binary), XML VTU (ascii, base64, zlib) and Gmsh 2.2 / 4.1 gives the same
 * positions and tetrahedra; SOFA's cell mappings (polygons, pixel, voxel,
 * strips, quadratic cells); STL merging; OBJ seams as SOFA duplicates
 * them; SphereLoader; lookup through SOFA_DATA_PATH; and malformed files,
 * each an error that names the file and its line or byte offset. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topo_support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(mesh_loaders, .init = setup, .fini = teardown);

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [Sofa.Component.IO.Mesh]}\n"

static const char *tmpdir(void) { return getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp"; }

/* Writes bytes to the test's temporary file NAME; returns its bare name. */
static const char *write_bytes(const char *name, const void *data, size_t len)
{
    static char rel[8][256];
    static int slot;
    char *r = rel[slot++ % 8], path[512];
    snprintf(r, 256, "settee-test-%d-%s", (int)getpid(), name);
    snprintf(path, sizeof path, "%s/%s", tmpdir(), r);
    FILE *f = fopen(path, "wb");
    cr_assert(f);
    cr_assert_eq(fwrite(data, 1, len, f), len);
    fclose(f);
    return r;
}

/* Loads a scene with one loader reading file `rel` (a name relative to the
 * scene's folder); returns the status, *out the scene on success. */
static st_status load(const char *cls, const char *rel, const char *extra, st_scene **out,
                      st_error *err)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, HEAD "    - %s: {name: loader, filename: \"%s\"%s}\n", cls, rel,
             extra);
    const char *scene = test_write_temp("mscene.yaml", yaml);
    *out = NULL;
    st_status s = st_scene_load(T.rt, scene, out, err);
    if (s == ST_OK) {
        s = st_scene_init(*out, err);
        if (s != ST_OK)
            st_scene_destroy(out);
    }
    return s;
}

static st_status load_text(const char *cls, const char *name, const char *text, const char *extra,
                           st_scene **out, st_error *err)
{
    return load(cls, write_bytes(name, text, strlen(text)), extra, out, err);
}

/* Loads a file that must fail; checks the message holds every needle. */
static void expect_error(const char *cls, const char *name, const void *data, size_t len,
                         const char *needle1, const char *needle2)
{
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = load(cls, write_bytes(name, data, len), "", &s, &err);
    cr_assert_neq(st, ST_OK, "%s: loaded, expected an error", name);
    cr_assert(strstr(err.msg, needle1), "%s: '%s' not in: %s", name, needle1, err.msg);
    if (needle2)
        cr_assert(strstr(err.msg, needle2), "%s: '%s' not in: %s", name, needle2, err.msg);
    if (s)
        st_scene_destroy(&s);
}
#define EXPECT_TEXT_ERROR(cls, name, text, n1, n2) expect_error(cls, name, text, strlen(text), n1, n2)

/* ---- The cube: 8 corners, 5 tetrahedra ---- */

static const double CUBE_P[24] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0,
                                  0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
static const unsigned CUBE_T[20] = {0, 1, 3, 4, 1, 2, 3, 6, 1, 4, 5, 6, 3, 4, 6, 7, 1, 3, 4, 6};

static void assert_cube(st_scene *s, const char *what)
{
    st_component *l = topo_get(s, "loader");
    const st_array *p = topo_arr(l, "position");
    cr_assert_eq(p->n, 8, "%s: %zu positions", what, p->n);
    for (int i = 0; i < 24; i++)
        cr_assert_eq(p->r[i], CUBE_P[i], "%s: coordinate %d is %g", what, i, p->r[i]);
    topo_assert_tuples(topo_arr(l, "tetrahedra"), 4, CUBE_T, 5, what);
}

static const char *VTK_ASCII = "# vtk DataFile Version 3.0\n"
                               "cube\n"
                               "ASCII\n"
                               "DATASET UNSTRUCTURED_GRID\n"
                               "POINTS 8 double\n"
                               "0 0 0  1 0 0  1 1 0  0 1 0\n"
                               "0 0 1  1 0 1  1 1 1  0 1 1\n"
                               "CELLS 5 25\n"
                               "4 0 1 3 4\n"
                               "4 1 2 3 6\n"
                               "4 1 4 5 6\n"
                               "4 3 4 6 7\n"
                               "4 1 3 4 6\n"
                               "CELL_TYPES 5\n"
                               "10 10 10 10 10\n"
                               "POINT_DATA 8\n"
                               "SCALARS temperature float 1\n"
                               "LOOKUP_TABLE default\n"
                               "0 1 2 3 4 5 6 7\n"
                               "CELL_DATA 5\n"
                               "VECTORS v double\n"
                               "1 0 0 1 0 0 1 0 0 1 0 0 1 0 0\n";

typedef struct buf {
    unsigned char d[4096];
    size_t n;
} buf;

static void put(buf *b, const char *s)
{
    memcpy(b->d + b->n, s, strlen(s));
    b->n += strlen(s);
}

static void put_be32(buf *b, uint32_t u)
{
    for (int k = 3; k >= 0; k--)
        b->d[b->n++] = (unsigned char)(u >> (8 * k));
}

static void put_le32(buf *b, uint32_t u)
{
    for (int k = 0; k < 4; k++)
        b->d[b->n++] = (unsigned char)(u >> (8 * k));
}

static uint32_t fbits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

/* The cube as a big-endian BINARY legacy file (float points). */
static void vtk_binary_cube(buf *b, size_t truncate_points_at)
{
    b->n = 0;
    put(b, "# vtk DataFile Version 3.0\ncube\nBINARY\nDATASET UNSTRUCTURED_GRID\nPOINTS 8 "
           "float\n");
    for (int i = 0; i < 24; i++) {
        if (truncate_points_at && (size_t)i == truncate_points_at)
            return;
        put_be32(b, fbits((float)CUBE_P[i]));
    }
    put(b, "\nCELLS 5 25\n");
    for (int c = 0; c < 5; c++) {
        put_be32(b, 4);
        for (int k = 0; k < 4; k++)
            put_be32(b, CUBE_T[4 * c + k]);
    }
    put(b, "\nCELL_TYPES 5\n");
    for (int c = 0; c < 5; c++)
        put_be32(b, 10);
    put(b, "\n");
}

#define VTU_HEAD(compressor)                                                                      \
    "<?xml version=\"1.0\"?>\n"                                                                   \
    "<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" "             \
    "header_type=\"UInt32\"" compressor ">\n"                                                     \
    "  <UnstructuredGrid>\n"                                                                      \
    "    <Piece NumberOfPoints=\"8\" NumberOfCells=\"5\">\n"

static const char *VTU_ASCII =
    VTU_HEAD("") "      <PointData Scalars=\"t\">\n"
                 "        <DataArray type=\"Float32\" Name=\"t\" format=\"ascii\">0 1 2 3 4 5 6 "
                 "7</DataArray>\n"
                 "      </PointData>\n"
                 "      <Points>\n"
                 "        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n"
                 "          0 0 0  1 0 0  1 1 0  0 1 0  0 0 1  1 0 1  1 1 1  0 1 1\n"
                 "        </DataArray>\n"
                 "      </Points>\n"
                 "      <Cells>\n"
                 "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n"
                 "          0 1 3 4  1 2 3 6  1 4 5 6  3 4 6 7  1 3 4 6\n"
                 "        </DataArray>\n"
                 "        <DataArray type=\"Int32\" Name=\"offsets\" format=\"ascii\">4 8 12 16 "
                 "20</DataArray>\n"
                 "        <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">10 10 10 10 "
                 "10</DataArray>\n"
                 "      </Cells>\n"
                 "    </Piece>\n"
                 "  </UnstructuredGrid>\n"
                 "</VTKFile>\n";

/* Base64 of [UInt32 byte count][little-endian data]; the points and the
 * offsets encode the header apart (as VTK writes), the connectivity with
 * the data (as some writers do). */
static const char *VTU_BASE64 =
    VTU_HEAD("") "      <Points>\n"
                 "        <DataArray type=\"Float64\" NumberOfComponents=\"3\" "
                 "format=\"binary\">\n"
                 "wAAAAA==AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA8D8AAAAAAAAAAAAAAAAAAAAAAAAAAAAA8D8"
                 "AAAAAAADwPwAAAAAAAAAAAAAAAAAAAAAAAAAAAADwPwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAPA"
                 "/AAAAAAAA8D8AAAAAAAAAAAAAAAAAAPA/AAAAAAAA8D8AAAAAAADwPwAAAAAAAPA/AAAAAAAAAAAAAAAAAAD"
                 "wPwAAAAAAAPA/\n"
                 "        </DataArray>\n"
                 "      </Points>\n"
                 "      <Cells>\n"
                 "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"binary\">"
                 "UAAAAAAAAAABAAAAAwAAAAQAAAABAAAAAgAAAAMAAAAGAAAAAQAAAAQAAAAFAAAABgAAAAMAAAAEAAAABgA"
                 "AAAcAAAABAAAAAwAAAAQAAAAGAAAA</DataArray>\n"
                 "        <DataArray type=\"Int32\" Name=\"offsets\" format=\"binary\">"
                 "FAAAAA==BAAAAAgAAAAMAAAAEAAAABQAAAA=</DataArray>\n"
                 "        <DataArray type=\"UInt8\" Name=\"types\" format=\"binary\">"
                 "BQAAAA==CgoKCgo=</DataArray>\n"
                 "      </Cells>\n"
                 "    </Piece>\n"
                 "  </UnstructuredGrid>\n"
                 "</VTKFile>\n";

static const char *VTU_ZLIB =
    VTU_HEAD(" compressor=\"vtkZLibDataCompressor\"")
    "      <Points>\n"
    "        <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"binary\">"
    "AQAAAMAAAADAAAAAGwAAAA==eJxjYMAHPtjjFyckT8hcdHXo4oTVAQDgMQ41</DataArray>\n"
    "      </Points>\n"
    "      <Cells>\n"
    "        <DataArray type=\"Int32\" Name=\"connectivity\" format=\"binary\">"
    "AQAAAFAAAABQAAAAJgAAAA==eJxjYGBgYARiZiBmgbKZoHw2KB8kzgrlw9SB2OxoekFiAAn0AEc=</DataArray>\n"
    "        <DataArray type=\"Int32\" Name=\"offsets\" format=\"binary\">"
    "AQAAABQAAAAUAAAAFgAAAA==eJxjYWBg4ABiHiAWAGIRIAYAAkQAPQ==</DataArray>\n"
    "        <DataArray type=\"UInt8\" Name=\"types\" format=\"binary\">"
    "AQAAAAUAAAAFAAAACwAAAA==eJzj4gICAACbADM=</DataArray>\n"
    "      </Cells>\n"
    "    </Piece>\n"
    "  </UnstructuredGrid>\n"
    "</VTKFile>\n";

/* Gmsh 2.2 with node numbers 10..17 (mapped to positions 0..7). */
static const char *MSH22 = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
                           "$Nodes\n8\n"
                           "10 0 0 0\n11 1 0 0\n12 1 1 0\n13 0 1 0\n"
                           "14 0 0 1\n15 1 0 1\n16 1 1 1\n17 0 1 1\n"
                           "$EndNodes\n$Elements\n5\n"
                           "1 4 2 1 1 10 11 13 14\n"
                           "2 4 2 1 1 11 12 13 16\n"
                           "3 4 2 1 1 11 14 15 16\n"
                           "4 4 2 1 1 13 14 16 17\n"
                           "5 4 2 1 1 11 13 14 16\n"
                           "$EndElements\n";

/* Gmsh 4.1 in two node blocks, nodes listed out of tag order in the
 * second (tags map to positions in file order). */
static const char *MSH41 = "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n"
                           "$PhysicalNames\n1\n3 1 \"cube\"\n$EndPhysicalNames\n"
                           "$Nodes\n2 8 1 8\n"
                           "2 1 0 4\n1\n2\n3\n4\n0 0 0\n1 0 0\n1 1 0\n0 1 0\n"
                           "2 2 0 4\n5\n6\n7\n8\n0 0 1\n1 0 1\n1 1 1\n0 1 1\n"
                           "$EndNodes\n"
                           "$Elements\n2 6 1 6\n"
                           "3 1 4 5\n1 1 2 4 5\n2 2 3 4 7\n3 2 5 6 7\n4 4 5 7 8\n5 2 4 5 7\n"
                           "0 1 15 1\n6 1\n"
                           "$EndElements\n";

Test(mesh_loaders, the_cube_in_seven_encodings_gives_one_mesh)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text("MeshVTKLoader", "cube.vtk", VTK_ASCII, "", &s, &err), ST_OK, "%s",
                 err.msg);
    assert_cube(s, "legacy ASCII");
    st_scene_destroy(&s);
    buf b;
    vtk_binary_cube(&b, 0);
    cr_assert_eq(load("MeshVTKLoader", write_bytes("cubeb.vtk", b.d, b.n), "", &s, &err), ST_OK,
                 "%s", err.msg);
    assert_cube(s, "legacy BINARY");
    st_scene_destroy(&s);
    const char *vtu[] = {VTU_ASCII, VTU_BASE64, VTU_ZLIB};
    const char *vtu_name[] = {"vtu ascii", "vtu base64", "vtu zlib"};
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(load_text("MeshVTKLoader", "cube.vtu", vtu[i], "", &s, &err), ST_OK,
                     "%s: %s", vtu_name[i], err.msg);
        assert_cube(s, vtu_name[i]);
        st_scene_destroy(&s);
    }
    cr_assert_eq(load_text("MeshGmshLoader", "cube22.msh", MSH22, ", createSubelements: false", &s,
                           &err),
                 ST_OK, "%s", err.msg);
    assert_cube(s, "msh 2.2");
    st_scene_destroy(&s);
    cr_assert_eq(load_text("MeshGmshLoader", "cube41.msh", MSH41, ", createSubelements: false", &s,
                           &err),
                 ST_OK, "%s", err.msg);
    assert_cube(s, "msh 4.1");
    st_scene_destroy(&s);
    /* Gmsh's default createSubelements adds the 4 x 5 faces, shared ones once:
     * 6 boundary faces x 2 + 4 inner faces of the middle tetrahedron = 16. */
    cr_assert_eq(load_text("MeshGmshLoader", "cube41s.msh", MSH41, "", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(topo_arr(topo_get(s, "loader"), "triangles")->n, 16);
    cr_assert_eq(topo_arr(topo_get(s, "loader"), "edges")->n, 18);
    st_scene_destroy(&s);
}

Test(mesh_loaders, vtk_polydata_polygons_lines_and_normals)
{
    /* A quad, a pentagon (a fan of 3 triangles), a triangle and a line of
     * 3 points (2 edges), with point normals. */
    const char *vtk = "# vtk DataFile Version 2.0\n"
                      "polys\n"
                      "ASCII\n"
                      "\n"
                      "DATASET POLYDATA\n"
                      "POINTS 6 float\n"
                      "0 0 0 1 0 0 1 1 0 0 1 0 0.5 2 0 2 0.5 0\n"
                      "POLYGONS 3 15\n"
                      "4 0 1 2 3\n"
                      "5 0 1 5 2 4\n"
                      "3 3 2 4\n"
                      "LINES 1 4\n"
                      "3 0 4 5\n"
                      "POINT_DATA 6\n"
                      "NORMALS n float\n"
                      "0 0 1 0 0 1 0 0 1 0 0 1 0 0 1 0 0 -1\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text("MeshVTKLoader", "poly.vtk", vtk, "", &s, &err), ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    const unsigned q[] = {0, 1, 2, 3};
    topo_assert_tuples(topo_arr(l, "quads"), 4, q, 1, "quads");
    const unsigned t[] = {0, 1, 5, 0, 5, 2, 0, 2, 4, 3, 2, 4};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, t, 4, "triangles");
    const unsigned e[] = {0, 4, 4, 5};
    topo_assert_tuples(topo_arr(l, "edges"), 2, e, 2, "edges");
    /* One normal per point in the file: kept as they are (SOFA). */
    const st_array *n = topo_arr(l, "normals");
    cr_assert_eq(n->n, 6);
    cr_assert_eq(n->r[3 * 5 + 2], -1.0);
    st_scene_destroy(&s);
}

Test(mesh_loaders, vtk_cell_types_map_as_sofa_maps_them)
{
    /* pixel (8), voxel (11), triangle strip (6), polygon (7), quadratic
     * tetrahedron (24), vertex (1), quadratic triangle (22). */
    const char *vtk = "# vtk DataFile Version 3.0\n"
                      "types\n"
                      "ASCII\n"
                      "DATASET UNSTRUCTURED_GRID\n"
                      "POINTS 10 double\n"
                      "0 0 0 1 0 0 0 1 0 1 1 0 0 0 1 1 0 1 0 1 1 1 1 1 2 0 0 2 1 0\n"
                      "CELLS 7 45\n"
                      "4 0 1 2 3\n"
                      "8 0 1 2 3 4 5 6 7\n"
                      "5 0 1 2 3 8\n"
                      "4 0 1 3 2\n"
                      "10 0 1 2 4 3 5 6 7 8 9\n"
                      "1 9\n"
                      "6 0 1 2 3 4 5\n"
                      "CELL_TYPES 7\n"
                      "8 11 6 7 24 1 22\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text("MeshVTKLoader", "types.vtk", vtk, "", &s, &err), ST_OK, "%s",
                 err.msg);
    st_component *l = topo_get(s, "loader");
    const unsigned q[] = {0, 1, 3, 2};
    topo_assert_tuples(topo_arr(l, "quads"), 4, q, 1, "pixel");
    const unsigned h[] = {0, 1, 3, 2, 4, 5, 7, 6};
    topo_assert_tuples(topo_arr(l, "hexahedra"), 8, h, 1, "voxel");
    const unsigned tet[] = {0, 1, 2, 4};
    topo_assert_tuples(topo_arr(l, "tetrahedra"), 4, tet, 1, "quadratic tetra");
    /* strip 0 1 2 3 8: (0 2 1) (1 2 3) (2 8 3); polygon 0 1 3 2: (0 1 3) (0 3 2);
     * quadratic triangle: (0 1 2). */
    const unsigned t[] = {0, 2, 1, 1, 2, 3, 2, 8, 3, 0, 1, 3, 0, 3, 2, 0, 1, 2};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, t, 6, "triangles");
    /* The tetrahedron's 6 corner edges, then none new from the triangle. */
    const unsigned e[] = {0, 1, 1, 2, 0, 2, 0, 4, 1, 4, 2, 4};
    topo_assert_tuples(topo_arr(l, "edges"), 2, e, 6, "edges");
    st_scene_destroy(&s);
}

/* A cube surface as 12 STL facets. */
static const int STL_TRI[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7},
                                   {0, 1, 5}, {0, 5, 4}, {1, 2, 6}, {1, 6, 5},
                                   {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};

Test(mesh_loaders, stl_ascii_and_binary_merge_to_eight_vertices)
{
    char text[8192];
    size_t n = (size_t)snprintf(text, sizeof text, "solid cube\n");
    buf b = {.n = 0};
    memset(b.d, ' ', 80);
    memcpy(b.d, "binary cube", 11);
    b.n = 80;
    put_le32(&b, 13);
    for (int f = 0; f < 12; f++) {
        n += (size_t)snprintf(text + n, sizeof text - n, " facet normal 0 0 1\n  outer loop\n");
        for (int k = 0; k < 3; k++)
            put_le32(&b, fbits(k == 2 ? 1.0f : 0.0f));
        for (int v = 0; v < 3; v++) {
            const double *p = CUBE_P + 3 * STL_TRI[f][v];
            n += (size_t)snprintf(text + n, sizeof text - n, "   vertex %g %g %g\n", p[0], p[1],
                                  p[2]);
        }
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++)
                put_le32(&b, fbits((float)CUBE_P[3 * STL_TRI[f][v] + a]));
        b.d[b.n++] = 0;
        b.d[b.n++] = 0;
        n += (size_t)snprintf(text + n, sizeof text - n, "  endloop\n endfacet\n");
    }
    /* A 13th binary facet with two equal corners: dropped, as SOFA does. */
    for (int k = 0; k < 3; k++)
        put_le32(&b, 0);
    for (int v = 0; v < 3; v++)
        for (int a = 0; a < 3; a++)
            put_le32(&b, fbits((float)CUBE_P[3 * (v == 2 ? 6 : 0) + a]));
    b.d[b.n++] = 0;
    b.d[b.n++] = 0;
    snprintf(text + n, sizeof text - n, "endsolid cube\n");
    /* Positions in order of first appearance: 0 2 1 3 4 5 6 7. */
    const double want[24] = {0, 0, 0, 1, 1, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1};
    const unsigned tri0[] = {0, 1, 2, 0, 3, 1};
    const char *names[] = {"cube_ascii.stl", "cube_bin.stl"};
    for (int i = 0; i < 2; i++) {
        st_scene *s = NULL;
        st_error err = {0};
        const char *rel = i ? write_bytes(names[i], b.d, b.n) : write_bytes(names[i], text, strlen(text));
        cr_assert_eq(load("MeshSTLLoader", rel, "", &s, &err), ST_OK, "%s: %s", names[i], err.msg);
        st_component *l = topo_get(s, "loader");
        const st_array *p = topo_arr(l, "position");
        cr_assert_eq(p->n, 8, "%s: %zu positions", names[i], p->n);
        for (int k = 0; k < 24; k++)
            cr_assert_eq(p->r[k], want[k], "%s: coordinate %d", names[i], k);
        const st_array *t = topo_arr(l, "triangles");
        cr_assert_eq(t->n, 12, "%s: %zu triangles", names[i], t->n);
        for (int k = 0; k < 6; k++)
            cr_assert_eq(t->u[k], tri0[k]);
        st_scene_destroy(&s);
    }
    /* A binary file whose size disagrees with its facet count. */
    expect_error("MeshSTLLoader", "short.stl", b.d, b.n - 7, "short.stl: byte 80:",
                 "declares 13 facets");
}

/* A square of 4 positions in 2 triangles; position 1 is used with two
 * texture coordinates (a seam). */
static const char *SEAM_OBJ = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                              "vt 0 0\nvt 1 0\nvt 1 1\nvt 0.5 0.5\nvt 0 1\n"
                              "vn 0 0 1\n"
                              "f 1/1/1 2/2/1 3/3/1\n"
                              "f 1/4/1 3/3/1 4/5/1\n";

Test(mesh_loaders, obj_handle_seams_duplicates_vertices_as_sofa)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text("MeshOBJLoader", "seam.obj", SEAM_OBJ, ", handleSeams: true", &s, &err),
                 ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "position")->n, 5);
    const unsigned t[] = {0, 2, 3, 1, 3, 4};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, t, 2, "triangles");
    const st_array *vp = topo_arr(l, "vertPosIdx");
    const unsigned wantp[] = {0, 0, 1, 2, 3};
    topo_assert_tuples(vp, 1, wantp, 5, "vertPosIdx");
    /* One normal index per (position, normal): 4 < 5 vertices, so kept. */
    const unsigned wantn[] = {0, 0, 1, 2, 3};
    topo_assert_tuples(topo_arr(l, "vertNormIdx"), 1, wantn, 5, "vertNormIdx");
    const st_array *tc = topo_arr(l, "texcoords");
    const double wantt[] = {0, 0, 0.5, 0.5, 1, 0, 1, 1, 0, 1};
    cr_assert_eq(tc->n, 10);
    for (int i = 0; i < 10; i++)
        cr_assert_eq(tc->r[i], wantt[i], "texcoord %d", i);
    const st_array *n = topo_arr(l, "normals");
    cr_assert_eq(n->n, 5);
    cr_assert_eq(n->r[3 * 4 + 2], 1.0);
    st_scene_destroy(&s);
    /* Without seams: one vertex per position; position 0 keeps the texcoord
     * with the larger v - u (SOFA's rule): (0.5, 0.5) over (0, 0). */
    cr_assert_eq(load_text("MeshOBJLoader", "seam0.obj", SEAM_OBJ, "", &s, &err), ST_OK, "%s",
                 err.msg);
    l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "position")->n, 4);
    cr_assert_eq(topo_arr(l, "vertPosIdx")->n, 0);
    tc = topo_arr(l, "texcoords");
    cr_assert_eq(tc->n, 8);
    cr_assert_eq(tc->r[0], 0.5);
    cr_assert_eq(topo_arr(l, "texcoordsDefinition")->n, 10);
    cr_assert_eq(topo_arr(l, "normalsDefinition")->n, 1);
    st_scene_destroy(&s);
}

/* Texture coordinate and normal indices past the file's vt and vn lines:
 * SOFA keeps the faces and gives those corners no texture coordinate or
 * normal; settee does the same, with one warning naming the first. */
Test(mesh_loaders, obj_out_of_range_texcoords_and_normals_are_ignored)
{
    static const char *OBJ = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0.25 0.75\n"
                             "vn 0 0 1\nf 1/1/1 2/5/1 3/1/4\nf 1/9 3/1 4/-7\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text("MeshOBJLoader", "tc.obj", OBJ, "", &s, &err), ST_OK, "%s", err.msg);
    cr_assert(strstr(T.log, "tc.obj:7: texture coordinate index 5 is out of range (1 defined"),
              "%s", T.log);
    st_component *l = topo_get(s, "loader");
    const unsigned t[] = {0, 1, 2, 0, 2, 3};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, t, 2, "triangles");
    /* Vertices 1 and 3 (0-based) were only used with bad indices: no
     * texcoord; the others have the one defined. */
    const st_array *tc = topo_arr(l, "texcoords");
    cr_assert_eq(tc->n, 8);
    const double want[] = {0.25, 0.75, 0, 0, 0.25, 0.75, 0, 0};
    for (int i = 0; i < 8; i++)
        cr_assert_eq(tc->r[i], want[i], "texcoord %d: %g", i, tc->r[i]);
    st_scene_destroy(&s);
}

Test(mesh_loaders, sphere_loader_positions_radii_and_transform)
{
    const char *sph = "sph 1.0\n"
                      "nums 2\n"
                      "# two spheres\n"
                      "sphe 0 1 2 3 0.5\n"
                      "sphe 1 0 0 0 1.5\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text("SphereLoader", "two.sph", sph,
                           ", translation: [1, 0, 0], scale3d: [2, 2, 2]", &s, &err),
                 ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    const st_array *p = topo_arr(l, "position");
    cr_assert_eq(p->n, 2);
    const double want[] = {3, 4, 6, 1, 0, 0};
    for (int i = 0; i < 6; i++)
        cr_assert_float_eq(p->r[i], want[i], 1e-15);
    const st_array *r = topo_arr(l, "listRadius");
    cr_assert_eq(r->n, 2);
    cr_assert_eq(r->r[0], 0.5); /* radii are not scaled (SOFA) */
    cr_assert_eq(r->r[1], 1.5);
    st_scene_destroy(&s);
    EXPECT_TEXT_ERROR("SphereLoader", "bad.sph", "sph 1.0\nsphe 0 1 2 nan 1\n", "bad.sph:2:",
                      "5 finite numbers");
    EXPECT_TEXT_ERROR("SphereLoader", "notsph.sph", "hello\n", "notsph.sph:1:", "sph 1.0");
}

Test(mesh_loaders, files_are_found_through_sofa_data_path)
{
    char dir[512], sub[600], path[700];
    snprintf(dir, sizeof dir, "%s/settee-test-%d-data", tmpdir(), (int)getpid());
    snprintf(sub, sizeof sub, "%s/mesh", dir);
    mkdir(dir, 0700);
    mkdir(sub, 0700);
    snprintf(path, sizeof path, "%s/cube.vtk", sub);
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(VTK_ASCII, f);
    fclose(f);
    setenv("SOFA_DATA_PATH", dir, 1);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load("MeshVTKLoader", "mesh/cube.vtk", "", &s, &err), ST_OK, "%s", err.msg);
    assert_cube(s, "through SOFA_DATA_PATH");
    st_scene_destroy(&s);
    unsetenv("SOFA_DATA_PATH");
    cr_assert_eq(load("MeshVTKLoader", "mesh/cube.vtk", "", &s, &err), ST_ENOTFOUND);
    cr_assert(strstr(err.msg, "mesh/cube.vtk"), "%s", err.msg);
    /* A directory is not a mesh file. */
    memset(&err, 0, sizeof err);
    char rel[256];
    snprintf(rel, sizeof rel, "settee-test-%d-data", (int)getpid());
    cr_assert_neq(load("MeshSTLLoader", rel, "", &s, &err), ST_OK);
    cr_assert(strstr(err.msg, "not a regular file"), "%s", err.msg);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
}

Test(mesh_loaders, malformed_vtk_files_name_file_and_line_or_offset)
{
    /* Index out of range, on the cell's own line (10). */
    char bad[2048];
    snprintf(bad, sizeof bad, "%s", VTK_ASCII);
    char *p = strstr(bad, "4 1 4 5 6");
    p[8] = '9';
    EXPECT_TEXT_ERROR("MeshVTKLoader", "range.vtk", bad, "range.vtk:11:", "uses point 9");
    /* NaN coordinate, on its line (7). */
    snprintf(bad, sizeof bad, "%s", VTK_ASCII);
    memcpy(strstr(bad, "0 0 1  1 0 1"), "nan", 3);
    EXPECT_TEXT_ERROR("MeshVTKLoader", "nan.vtk", bad, "nan.vtk:7:", "finite");
    /* A huge declared count: refused before any allocation. */
    EXPECT_TEXT_ERROR("MeshVTKLoader", "huge.vtk",
                      "# vtk DataFile Version 3.0\nx\nASCII\nDATASET POLYDATA\nPOINTS "
                      "4000000000000 float\n0 0 0\n",
                      "huge.vtk:5:", "bytes left");
    /* Wrong counts. */
    snprintf(bad, sizeof bad, "%s", VTK_ASCII);
    memcpy(strstr(bad, "CELL_TYPES 5"), "CELL_TYPES 4", 12);
    EXPECT_TEXT_ERROR("MeshVTKLoader", "count.vtk", bad, "count.vtk:14:", "one type per cell");
    EXPECT_TEXT_ERROR("MeshVTKLoader", "trunc.vtk",
                      "# vtk DataFile Version 3.0\nx\nASCII\nDATASET POLYDATA\nPOINTS 3 "
                      "float\n0 0 0 1 0 0\n",
                      "trunc.vtk:5:", "bytes left");
    EXPECT_TEXT_ERROR("MeshVTKLoader", "trunc2.vtk",
                      "# vtk DataFile Version 3.0\nx\nASCII\nDATASET POLYDATA\nPOINTS 3 "
                      "float\n0 0 0\n1 0 0                      \n",
                      "trunc2.vtk:7:", "end of file after 6 of 9");
    /* Truncated binary data: a byte offset. */
    buf b;
    vtk_binary_cube(&b, 5);
    expect_error("MeshVTKLoader", "truncb.vtk", b.d, b.n, "truncb.vtk: byte 80:", "bytes left");
    /* Binary garbage. */
    unsigned char junk[256];
    for (int i = 0; i < 256; i++)
        junk[i] = (unsigned char)(i * 37 + 11);
    expect_error("MeshVTKLoader", "junk.vtk", junk, sizeof junk, "junk.vtk:1:",
                 "Header not recognized");
    /* XML: malformed, a DTD, a bad base64 payload, a zlib header that
     * promises more than zlib can give. */
    EXPECT_TEXT_ERROR("MeshVTKLoader", "bad.vtu",
                      "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\">\n"
                      "<UnstructuredGrid>\n<Piece>\n</UnstructuredGrid>\n",
                      "bad.vtu:5:", "malformed XML: Opening and ending tag mismatch");
    EXPECT_TEXT_ERROR("MeshVTKLoader", "xxe.vtu",
                      "<?xml version=\"1.0\"?>\n<!DOCTYPE VTKFile [<!ENTITY x SYSTEM "
                      "\"file:///etc/passwd\">]>\n<VTKFile type=\"UnstructuredGrid\">&x;"
                      "</VTKFile>\n",
                      "xxe.vtu:", "DTD");
    char vtu[4096];
    snprintf(vtu, sizeof vtu, "%s", VTU_BASE64);
    memcpy(strstr(vtu, "UAAAAAAA"), "UA!A", 4);
    EXPECT_TEXT_ERROR("MeshVTKLoader", "b64.vtu", vtu, "b64.vtu:11:", "base64");
    snprintf(vtu, sizeof vtu, "%s", VTU_ZLIB);
    memcpy(strstr(vtu, "AQAAAMAAAADAAAAAGwAAAA=="), "AQAAAP///3////9/GwAAAA==", 24);
    EXPECT_TEXT_ERROR("MeshVTKLoader", "zbomb.vtu", vtu, "zbomb.vtu:6:",
                      "2147483647 uncompressed");
}

Test(mesh_loaders, malformed_gmsh_stl_obj_files_name_file_and_line)
{
    char bad[2048];
    snprintf(bad, sizeof bad, "%s", MSH41);
    memcpy(strstr(bad, "2 8 1 8"), "2 9 1 8", 7);
    EXPECT_TEXT_ERROR("MeshGmshLoader", "count.msh", bad, "count.msh:", "declares 9 nodes");
    snprintf(bad, sizeof bad, "%s", MSH41);
    memcpy(strstr(bad, "4 5 7 8"), "4 5 7 9", 7);
    EXPECT_TEXT_ERROR("MeshGmshLoader", "node.msh", bad, "node.msh:35:", "node 9");
    snprintf(bad, sizeof bad, "%s", MSH22);
    memcpy(strstr(bad, "15 1 0 1"), "15 1 0 x", 8);
    EXPECT_TEXT_ERROR("MeshGmshLoader", "x.msh", bad, "x.msh:11:", "id x y z");
    EXPECT_TEXT_ERROR("MeshGmshLoader", "bin.msh", "$MeshFormat\n4.1 1 8\n$EndMeshFormat\n",
                      "bin.msh:2:", "binary");
    EXPECT_TEXT_ERROR("MeshSTLLoader", "facet.stl",
                      "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n"
                      "endloop\nendfacet\nendsolid\n",
                      "facet.stl:7:", "3 vertices");
    EXPECT_TEXT_ERROR("MeshSTLLoader", "nan.stl",
                      "solid x\nfacet normal 0 0 1\nouter loop\nvertex 0 nan 0\n", "nan.stl:4:",
                      "finite");
    EXPECT_TEXT_ERROR("MeshOBJLoader", "v.obj", "v 0 0 0\nv 1 0 0\nvt 0 0\nf 1/1 3/1\n",
                      "v.obj:4:", "vertex index 3 is out of range");
    EXPECT_TEXT_ERROR("MeshOBJLoader", "nan.obj", "v 0 0 0\nv inf 0 0\n", "nan.obj:2:",
                      "finite");
}

Test(mesh_loaders, loaders_accept_sofa_fields_and_transformation)
{
    /* SOFA's transformation matrix replaces T R S: a translation by (1 2 3). */
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text("MeshVTKLoader", "tr.vtk", VTK_ASCII,
                           ", transformation: [1, 0, 0, 1, 0, 1, 0, 2, 0, 0, 1, 3, 0, 0, 0, 1], "
                           "scale3d: [5, 5, 5]",
                           &s, &err),
                 ST_OK, "%s", err.msg);
    const st_array *p = topo_arr(topo_get(s, "loader"), "position");
    cr_assert_eq(p->r[3 * 6 + 0], 2.0);
    cr_assert_eq(p->r[3 * 6 + 1], 3.0);
    cr_assert_eq(p->r[3 * 6 + 2], 4.0);
    st_scene_destroy(&s);
    /* onlyAttachedPoints drops the unused position 2 and renumbers. */
    cr_assert_eq(load_text("MeshOBJLoader", "att.obj", "v 0 0 0\nv 1 0 0\nv 9 9 9\nv 0 1 0\nf 1 2 4\n",
                           ", onlyAttachedPoints: true", &s, &err),
                 ST_OK, "%s", err.msg);
    st_component *l = topo_get(s, "loader");
    cr_assert_eq(topo_arr(l, "position")->n, 3);
    const unsigned t[] = {0, 1, 2};
    topo_assert_tuples(topo_arr(l, "triangles"), 3, t, 1, "triangles");
    st_scene_destroy(&s);
    /* SOFA's fields settee accepts without using them. */
    buf b;
    vtk_binary_cube(&b, 0);
    cr_assert_eq(load("MeshSTLLoader", write_bytes("m.stl", "solid a\nendsolid a\n", 20),
                      ", headerSize: 80, forceBinary: false, mergePositionUsingMap: false", &s,
                      &err),
                 ST_OK, "%s", err.msg);
    st_scene_destroy(&s);
}

/* SOFA's own OBJ files have "\r\r\n" line ends and, in two cases, a last line
 * of NUL bytes; SOFA reads both. A NUL inside a real line stays an error. */
Test(mesh_loaders, obj_reads_what_sofas_share_folder_holds)
{
    static const char crcr[] = "v 0 0 0\r\r\nv 1 0 0\r\r\nv 0 1 0\r\r\nf 1 2 3\r\r\n\0\0\0\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load("MeshOBJLoader", write_bytes("crcr.obj", crcr, sizeof crcr - 1), "", &s,
                      &err),
                 ST_OK, "%s", err.msg);
    st_component *l = test_find_object(s, "loader");
    const st_array *p = st_component_field_ptr(l, st_component_field(l, "position"));
    const st_array *t = st_component_field_ptr(l, st_component_field(l, "triangles"));
    cr_assert_eq(p->n, 3);
    cr_assert_eq(p->r[3], 1.0);
    cr_assert_eq(t->n, 1);
    cr_assert(strstr(T.log, "a line of NUL bytes, skipped"), "%s", T.log);
    st_scene_destroy(&s);
    static const char nul_in_line[] = "v 0 0 0\nv 1 \0 0 0\n";
    expect_error("MeshOBJLoader", "nul.obj", nul_in_line, sizeof nul_in_line - 1,
                 "binary data (a NUL byte)", NULL);
}

Test(mesh_loaders, obj_short_vertex_lines_keep_the_previous_coordinates)
{
    /* SOFA's scalar fields (raptorTemperature.obj) write "v t": the missing
     * coordinates keep the previous vertex's values (0 for the first). */
    static const char *OBJ = "v 0.5\nv 1 2 3\nv 7\nv 8 9\n";
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(load_text("MeshOBJLoader", "short.obj", OBJ, "", &s, &err), ST_OK, "%s",
                 err.msg);
    cr_assert(strstr(T.log, "short.obj:1: a vertex line 'v' with 1 coordinate"), "%s", T.log);
    st_component *l = test_find_object(s, "loader");
    const st_array *p = st_component_field_ptr(l, st_component_field(l, "position"));
    cr_assert_eq(p->n, 4);
    const double want[] = {0.5, 0, 0, 1, 2, 3, 7, 2, 3, 8, 9, 3};
    for (int i = 0; i < 12; i++)
        cr_expect_eq(p->r[i], want[i], "coordinate %d: %g", i, p->r[i]);
    st_scene_destroy(&s);
    expect_error("MeshOBJLoader", "empty_v.obj", "v\n", 2, "needs 3 coordinates", NULL);
}
