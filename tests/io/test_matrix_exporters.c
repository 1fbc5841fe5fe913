/* test_matrix_exporters.c - SofaMatrix's GlobalSystemMatrixExporter and
 * ComplianceMatrixExporter: the exact text SOFA writes (the BaseMatrix
 * stream for txt, comma-separated rows for csv) of matrices worked out by
 * hand, the images (black where an entry is not zero, row 0 at the top),
 * SOFA's file names (step / exportEveryNumberOfSteps in 5 digits), the
 * JPEG's structure, the matrix-free warning.
 *
 * The spring system: three particles of mass m, p0 = (0,0,0) fixed,
 * p1 = (2,0,0), p2 = (2,1,0); a spring 0-1 (ks 100, rest length 1, so
 * stretched to 2) and a spring 1-2 (ks 200, rest length 1, at rest). A
 * spring's block is m_s = (ks - t) u u^T + t I with t = ks (l - L) / l:
 * spring 0-1 diag(100, 50, 50), spring 1-2 diag(0, 200, 0). EulerImplicit
 * without Rayleigh damping solves A = M - h^2 K, K = df/dx (-m_s on the
 * diagonal blocks, +m_s off them), h = 0.1, and the fixed point's rows and
 * columns are cleared with 1 on the diagonal:
 *   A(p1,p1) = m I + h^2 (m01 + m12) = diag(m + 1, m + 2.5, m + 0.5)
 *   A(p2,p2) = m I + h^2 m12         = diag(m, m + 2, m)
 *   A(p1,p2) = A(p2,p1) = -h^2 m12   = diag(0, -2, 0)
 * The first step's matrix is taken at these positions. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "support.h"

static test_rt T;
static char dir[600];
static void setup(void)
{
    test_rt_open(&T);
    test_make_dir(dir, sizeof dir, "matrix_exporters");
}
static void teardown(void)
{
    test_rt_close(&T);
    test_remove_dir(dir);
}
TestSuite(matrix_exporters, .init = setup, .fini = teardown);

#define PLUGINS                                                                                   \
    "<RequiredPlugin name='Sofa.Component.ODESolver.Backward'/>"                                  \
    "<RequiredPlugin name='Sofa.Component.LinearSolver.Direct'/>"                                 \
    "<RequiredPlugin name='Sofa.Component.LinearSolver.Iterative'/>"                              \
    "<RequiredPlugin name='Sofa.Component.LinearSystem'/>"                                        \
    "<RequiredPlugin name='Sofa.Component.Mass'/>"                                                \
    "<RequiredPlugin name='Sofa.Component.StateContainer'/>"                                      \
    "<RequiredPlugin name='Sofa.Component.SolidMechanics.Spring'/>"                               \
    "<RequiredPlugin name='Sofa.Component.Constraint.Projective'/>"                               \
    "<RequiredPlugin name='SofaMatrix'/>"

/* The spring system with vertex mass `mass`, the linear solver line and
 * the exporter's attributes (filename relative to the test folder). */
static st_scene *springs(const char *mass, const char *solver, const char *exporter)
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.1' gravity='0 0 0'>" PLUGINS
             "<DefaultAnimationLoop/>"
             "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>"
             "%s"
             "<GlobalSystemMatrixExporter name='exporter' %s/>"
             "<MechanicalObject position='0 0 0  2 0 0  2 1 0'/>"
             "<UniformMass vertexMass='%s'/>"
             "<FixedProjectiveConstraint indices='0'/>"
             "<SpringForceField spring='0 1 100 0 1  1 2 200 0 1'/>"
             "</Node>",
             solver, exporter, mass);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "springs.scn", &s, &err), ST_OK,
                 "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    return s;
}

#define LDL "<SparseLDLSolver template='CompressedRowSparseMatrixMat3x3d'/>"

static void steps(st_scene *s, int n)
{
    st_error err = {0};
    for (int i = 0; i < n; i++)
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
}

static char *read_out(const char *name)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *text = test_read_file(path);
    cr_assert_not_null(text, "%s was not written", path);
    return text;
}

static bool exists(const char *name)
{
    char path[800];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (f)
        fclose(f);
    return f != NULL;
}

static const char *attrs(const char *fmt, ...)
{
    static char buf[1024];
    char tmp[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    snprintf(buf, sizeof buf, "filename='%s/gm' %s", dir, tmp);
    return buf;
}

/* m = 2: the txt layout, entries at precision 12. */
static const char *const A2_TXT = "[\n"
                                  "[ 1 0 0 0 0 0 0 0 0 ]\n"
                                  "[ 0 1 0 0 0 0 0 0 0 ]\n"
                                  "[ 0 0 1 0 0 0 0 0 0 ]\n"
                                  "[ 0 0 0 3 0 0 0 0 0 ]\n"
                                  "[ 0 0 0 0 4.5 0 0 -2 0 ]\n"
                                  "[ 0 0 0 0 0 2.5 0 0 0 ]\n"
                                  "[ 0 0 0 0 0 0 2 0 0 ]\n"
                                  "[ 0 0 0 0 -2 0 0 4 0 ]\n"
                                  "[ 0 0 0 0 0 0 0 0 2 ] ]";

Test(matrix_exporters, txt_is_the_hand_computed_system)
{
    st_scene *s = springs("2", LDL, attrs("exportEveryNumberOfSteps='1' precision='12'"));
    steps(s, 1);
    char *t = read_out("gm00001.txt");
    cr_assert_str_eq(t, A2_TXT);
    free(t);
    st_scene_destroy(&s);
}

Test(matrix_exporters, csv_rows_and_precision)
{
    /* m = 1/3 at precision 3: 0.333, 1.33, 2.83, 0.833, 2.33 */
    st_scene *s = springs("0.333333333333", LDL,
                          attrs("exportEveryNumberOfSteps='1' precision='3' format='csv'"));
    steps(s, 1);
    char *t = read_out("gm00001.csv");
    cr_assert_str_eq(t, "1,0,0,0,0,0,0,0,0\n"
                        "0,1,0,0,0,0,0,0,0\n"
                        "0,0,1,0,0,0,0,0,0\n"
                        "0,0,0,1.33,0,0,0,0,0\n"
                        "0,0,0,0,2.83,0,0,-2,0\n"
                        "0,0,0,0,0,0.833,0,0,0\n"
                        "0,0,0,0,0,0,0.333,0,0\n"
                        "0,0,0,0,-2,0,0,2.33,0\n"
                        "0,0,0,0,0,0,0,0,0.333\n");
    free(t);
    st_scene_destroy(&s);
}

Test(matrix_exporters, default_format_and_precision)
{
    /* txt at 6 digits: m = 1/3 gives 0.333333 and 1.33333 */
    st_scene *s = springs("0.333333333333", LDL, attrs("exportEveryNumberOfSteps='1'"));
    steps(s, 1);
    char *t = read_out("gm00001.txt");
    cr_assert(strncmp(t, "[\n[ 1 0 0 0 0 0 0 0 0 ]", 23) == 0, "%s", t);
    cr_assert_not_null(strstr(t, "\n[ 0 0 0 1.33333 0 0 0 0 0 ]\n"), "%s", t);
    cr_assert_not_null(strstr(t, "\n[ 0 0 0 0 0 0 0 0 0.333333 ] ]"), "%s", t);
    free(t);
    st_scene_destroy(&s);
}

Test(matrix_exporters, file_numbers_follow_sofa)
{
    /* every 2 steps over 5 steps: gm00001 (step 2), gm00002 (step 4);
     * exportAtBegin writes the empty matrix before any solve as gm00000;
     * exportAtEnd writes the last step's matrix once more, numbered with
     * the step counter (5 / 2 = 2). */
    st_scene *s = springs("2", LDL,
                          attrs("exportEveryNumberOfSteps='2' exportAtBegin='true' "
                                "exportAtEnd='true' precision='12'"));
    char *t = read_out("gm00000.txt");
    cr_assert_str_eq(t, "[ ]");
    free(t);
    steps(s, 1);
    cr_assert(!exists("gm00001.txt"));
    steps(s, 1);
    cr_assert(exists("gm00001.txt"));
    steps(s, 3);
    cr_assert(exists("gm00002.txt"));
    cr_assert(!exists("gm00003.txt"));
    /* the springs moved: the matrix of step 5 is no longer the first one */
    t = read_out("gm00002.txt");
    cr_assert_str_neq(t, A2_TXT);
    free(t);
    st_scene_destroy(&s);
    t = read_out("gm00002.txt");
    cr_assert_str_neq(t, A2_TXT);
    cr_assert(strncmp(t, "[\n[ 1 0 0 0 0 0 0 0 0 ]", 23) == 0, "%s", t);
    free(t);
}

Test(matrix_exporters, disabled_writes_nothing)
{
    st_scene *s = springs("2", LDL, attrs("exportEveryNumberOfSteps='1' enable='false'"));
    steps(s, 2);
    cr_assert(!exists("gm00001.txt"));
    st_scene_destroy(&s);
}

Test(matrix_exporters, matrix_linear_system_is_found)
{
    st_scene *s = springs("2",
                          "<MatrixLinearSystem name='system' "
                          "template='CompressedRowSparseMatrixMat3x3d'/>" LDL,
                          attrs("exportEveryNumberOfSteps='1' precision='12' "
                                "linearSystem='@system'"));
    steps(s, 1);
    char *t = read_out("gm00001.txt");
    cr_assert_str_eq(t, A2_TXT);
    free(t);
    st_scene_destroy(&s);
}

Test(matrix_exporters, matrix_free_solver_warns_and_writes_nothing)
{
    st_scene *s = springs("2",
                          "<CGLinearSolver template='GraphScattered' iterations='25' "
                          "tolerance='1e-9' threshold='1e-9'/>",
                          attrs("exportEveryNumberOfSteps='1'"));
    steps(s, 2);
    cr_assert(!exists("gm00001.txt"));
    cr_assert_not_null(strstr(T.log, "does not assemble explicitly the system matrix"), "%s",
                       T.log);
    st_scene_destroy(&s);
}

Test(matrix_exporters, assembled_cg_exports)
{
    st_scene *s = springs("2",
                          "<CGLinearSolver template='CompressedRowSparseMatrixMat3x3d' "
                          "iterations='25' tolerance='1e-9' threshold='1e-9'/>",
                          attrs("exportEveryNumberOfSteps='1' precision='12'"));
    steps(s, 1);
    char *t = read_out("gm00001.txt");
    cr_assert_str_eq(t, A2_TXT);
    free(t);
    st_scene_destroy(&s);
}

/* Nonzero pattern of A2_TXT, row-major 9 x 9. */
static bool nonzero(int r, int c)
{
    if (r == c)
        return true;
    return (r == 4 && c == 7) || (r == 7 && c == 4);
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Runs one step of the spring system exporting in format, and reads the
 * file gm00001.FORMAT (at most 64 KiB) into a static buffer. */
static const unsigned char *export_one(const char *format, size_t *n)
{
    char a[100];
    snprintf(a, sizeof a, "exportEveryNumberOfSteps='1' format='%s'", format);
    st_scene *s = springs("2", LDL, attrs("%s", a));
    steps(s, 1);
    st_scene_destroy(&s);
    char path[800];
    snprintf(path, sizeof path, "%s/gm00001.%s", dir, format);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s was not written", path);
    static unsigned char d[65536];
    *n = fread(d, 1, sizeof d, f);
    fclose(f);
    return d;
}

Test(matrix_exporters, png_shows_the_pattern)
{
    size_t n;
    const unsigned char *d = export_one("png", &n);
    cr_assert(n > 8 && memcmp(d, "\x89PNG\r\n\x1a\n", 8) == 0);
    size_t i = 8;
    unsigned char idat[4096];
    size_t idat_n = 0;
    uint32_t w = 0, h = 0;
    while (i + 12 <= n) {
        uint32_t len = be32(d + i);
        const unsigned char *type = d + i + 4;
        cr_assert_eq((uint32_t)crc32(crc32(0, type, 4), type + 4, len), be32(d + i + 8 + len),
                     "bad CRC");
        if (!memcmp(type, "IHDR", 4)) {
            w = be32(type + 4), h = be32(type + 8);
            cr_assert_eq(type[12], 8);
            cr_assert_eq(type[13], 0); /* greyscale */
        } else if (!memcmp(type, "IDAT", 4)) {
            memcpy(idat + idat_n, type + 4, len);
            idat_n += len;
        }
        i += 12 + len;
    }
    cr_assert_eq(w, 9);
    cr_assert_eq(h, 9);
    unsigned char raw[100];
    uLongf raw_n = sizeof raw;
    cr_assert_eq(uncompress(raw, &raw_n, idat, (uLong)idat_n), Z_OK);
    cr_assert_eq(raw_n, 90);
    for (int r = 0; r < 9; r++) {
        cr_assert_eq(raw[r * 10], 0); /* filter none */
        for (int c = 0; c < 9; c++)
            cr_assert_eq(raw[r * 10 + 1 + c], nonzero(r, c) ? 0 : 255, "pixel (%d, %d)", r, c);
    }
}

Test(matrix_exporters, bmp_and_tga_show_the_pattern)
{
    size_t n;
    const unsigned char *u = export_one("bmp", &n);
    cr_assert(u[0] == 'B' && u[1] == 'M');
    cr_assert_eq(u[18], 9);  /* width */
    cr_assert_eq(u[22], 9);  /* height, rows bottom-up */
    cr_assert_eq(u[28], 24); /* bits per pixel */
    const int line = 9 * 3 + 1; /* padded to 28 */
    cr_assert_eq(n, 54 + 9 * (size_t)line);
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 9; c++)
            cr_assert_eq(u[54 + (8 - r) * line + 3 * c], nonzero(r, c) ? 0 : 255,
                         "bmp pixel (%d, %d)", r, c);

    u = export_one("tga", &n);
    cr_assert_eq(n, 18 + 81);
    cr_assert_eq(u[2], 3); /* greyscale */
    cr_assert_eq(u[12], 9);
    cr_assert_eq(u[14], 9);
    cr_assert_eq(u[16], 8);
    cr_assert_eq(u[17], 0x20); /* top-left origin */
    for (int r = 0; r < 9; r++)
        for (int c = 0; c < 9; c++)
            cr_assert_eq(u[18 + 9 * r + c], nonzero(r, c) ? 0 : 255, "tga pixel (%d, %d)", r, c);
}

/* The JPEG: baseline, one 9 x 9 grey component, every quantiser 255 (the
 * standard table times 50, SOFA's quality 1), the standard Huffman tables,
 * one scan ended by EOI. */
Test(matrix_exporters, jpeg_structure)
{
    size_t n;
    const unsigned char *d = export_one("jpeg", &n);
    cr_assert(n > 4 && d[0] == 0xff && d[1] == 0xd8, "no SOI");
    cr_assert(d[n - 2] == 0xff && d[n - 1] == 0xd9, "no EOI");
    size_t i = 2;
    bool sof = false, dqt = false, sos = false;
    int dht = 0;
    while (i + 4 <= n && !sos) {
        cr_assert_eq(d[i], 0xff);
        const int marker = d[i + 1], len = d[i + 2] << 8 | d[i + 3];
        const unsigned char *p = d + i + 4;
        if (marker == 0xdb) {
            cr_assert_eq(len, 67);
            cr_assert_eq(p[0], 0); /* 8-bit table 0 */
            for (int k = 0; k < 64; k++)
                cr_assert_eq(p[1 + k], 255, "quantiser %d", k);
            dqt = true;
        } else if (marker == 0xc0) {
            cr_assert_eq(p[0], 8);
            cr_assert_eq(p[1] << 8 | p[2], 9); /* height */
            cr_assert_eq(p[3] << 8 | p[4], 9); /* width */
            cr_assert_eq(p[5], 1);             /* one component */
            sof = true;
        } else if (marker == 0xc4) {
            dht++;
        } else if (marker == 0xda) {
            sos = true;
        }
        i += 2 + (size_t)len;
    }
    cr_assert(dqt && sof && sos);
    cr_assert_eq(dht, 1); /* both tables in one segment */
    cr_assert_gt(n - i, 2, "no entropy-coded data");
}

static void expect_init_error(const char *xml, const char *what)
{
    st_scene *s;
    st_error err = {0};
    cr_assert_neq(test_load_init(&T, xml, "bad.scn", &s, &err), ST_OK, "%s: initialised", what);
    cr_assert_not_null(strstr(err.msg, what), "message: %s", err.msg);
}

Test(matrix_exporters, bad_input_is_an_error)
{
    expect_init_error("<Node name='root'>" PLUGINS
                      "<EulerImplicitSolver/>" LDL
                      "<GlobalSystemMatrixExporter format='pdf'/>"
                      "<MechanicalObject position='0 0 0'/><UniformMass/></Node>",
                      "'pdf' is not one of txt, csv, png, jpg, jpeg, bmp, tga");
    expect_init_error("<Node name='root'>" PLUGINS "<GlobalSystemMatrixExporter/></Node>",
                      "No linear system found in the current context");
}

/* ComplianceMatrixExporter: three free particles of mass 0.5 at x = 0, 1, 2
 * held by two bilateral distance constraints (DistanceMapping onto a Vec1d
 * state, UniformLagrangianConstraint). The rows of J are (-u, u, 0) and
 * (0, -u, u), u = x: J M^-1 J^T = [[4, -2], [-2, 4]], and the position
 * solve's compliance is dt times it (EulerImplicit's position integration
 * factor, A = M): with dt = 0.01, W = [[0.04, -0.02], [-0.02, 0.04]]. */
static st_scene *chain(const char *exporter)
{
    char xml[4096];
    snprintf(xml, sizeof xml,
             "<Node name='root' dt='0.01' gravity='0 0 0'>" PLUGINS
             "<RequiredPlugin name='Sofa.Component.AnimationLoop'/>"
             "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Correction'/>"
             "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Model'/>"
             "<RequiredPlugin name='Sofa.Component.Constraint.Lagrangian.Solver'/>"
             "<RequiredPlugin name='Sofa.Component.Mapping.NonLinear'/>"
             "<RequiredPlugin name='Sofa.Component.Topology.Container.Dynamic'/>"
             "<FreeMotionAnimationLoop/>"
             "<GenericConstraintSolver name='cs' tolerance='1e-12' maxIterations='1000'/>"
             "<ComplianceMatrixExporter name='cexp' filename='%s/w' %s/>"
             "<EulerImplicitSolver rayleighStiffness='0' rayleighMass='0'/>" LDL
             "<GenericConstraintCorrection/>"
             "<EdgeSetTopologyContainer position='0 0 0  1 0 0  2 0 0' edges='0 1  1 2'/>"
             "<MechanicalObject name='dofs'/>"
             "<UniformMass vertexMass='0.5'/>"
             "<Node name='ext'>"
             "<MechanicalObject template='Vec1d'/>"
             "<DistanceMapping/>"
             "<UniformLagrangianConstraint template='Vec1d' iterative='false'/>"
             "</Node></Node>",
             dir, exporter);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(st_scene_load_string(T.rt, xml, strlen(xml), "chain.scn", &s, &err), ST_OK,
                 "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    return s;
}

Test(matrix_exporters, compliance_of_a_known_system)
{
    st_scene *s = chain("exportEveryNumberOfSteps='1' exportAtBegin='true' precision='10'");
    char *t = read_out("w00000.txt");
    cr_assert_str_eq(t, "[ ]");
    free(t);
    steps(s, 1);
    t = read_out("w00001.txt");
    cr_assert_str_eq(t, "[\n[ 0.04 -0.02 ]\n[ -0.02 0.04 ] ]");
    free(t);
    st_scene_destroy(&s);

    s = chain("exportEveryNumberOfSteps='1' format='csv' constraintSolver='@cs'");
    steps(s, 1);
    t = read_out("w00001.csv");
    cr_assert_str_eq(t, "0.04,-0.02\n-0.02,0.04\n");
    free(t);
    st_scene_destroy(&s);
}

Test(matrix_exporters, compliance_needs_a_constraint_solver)
{
    expect_init_error("<Node name='root'>" PLUGINS "<ComplianceMatrixExporter/></Node>",
                      "No constraint solver found in the current context");
}
