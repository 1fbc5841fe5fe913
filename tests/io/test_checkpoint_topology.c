/* test_checkpoint_topology.c - `settee run --checkpoint / --resume` across
 * topological changes (issue 27): a run of 30 steps and the same run
 * stopped at step 12, after elements were removed at t = 0.05 (step 5), and
 * resumed to 30 export byte-identical states. One scene per thing a resume
 * must restore beyond the followed arrays:
 *   - what components derive from the topology as the change left it
 *     (TriangularBendingSprings builds its springs from the edges again;
 *     the kernel lets listeners hear of the restored topology);
 *   - a transfer whose size follows the topology (the biquadratic springs'
 *     last normals, one per triangle: its count first);
 *   - state a component edits at a change itself (BilateralLagrangian-
 *     Constraint erases the pair of a removed point, the spring force
 *     fields their springs, ConstantForceField its indices and forces);
 *   - a followed index list restored empty (an engine's output, BoxROI's
 *     triangles, empty at the checkpoint and filled again later), and an
 *     engine computing again from the restored positions at the first
 *     step;
 *   - a state that follows no topology but is an IdentityMapping's output
 *     below the changed one: the mapping sizes it again at the restore (a
 *     checkpoint holding another size is refused naming that state).
 * Each scene failed on the code before (a crash, a refusal or other
 * numbers). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[512];

static void make_dir(void) { test_make_dir(dir, sizeof dir, "cktopo"); }
static void remove_dir(void) { test_remove_dir(dir); }

TestSuite(checkpoint_topology, .init = make_dir, .fini = remove_dir, .timeout = 300);

static char out[65536];

static void write_in_dir(const char *name, const char *text)
{
    cr_assert(test_write_in_dir(dir, name, text), "cannot write %s/%s", dir, name);
}

/* The number of entries of the JSON list that follows key in file (the
 * first occurrence), counted by its inner lists: the points of a state. */
static int points_after(const char *file, const char *key)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    char *text = test_read_file(path);
    cr_assert_not_null(text, "%s", path);
    const char *p = strstr(text, key);
    cr_assert_not_null(p, "no %s in %s", key, text);
    p = strchr(p, '[');
    cr_assert_not_null(p);
    int depth = 0, n = 0;
    for (; *p; p++) {
        if (*p == '[' && ++depth == 2)
            n++;
        if (*p == ']' && --depth == 0)
            break;
    }
    free(text);
    return n;
}

/* 30 steps at once, and `at` + resume to 30: byte-identical exports, and
 * the resumed run went on from the checkpoint. */
static void check_resume_at(const char *scene, int at)
{
    const char *why = test_resume_failure(dir, scene, 30, at, out, sizeof out);
    cr_assert_null(why, "%s\n%s", why, out);
}

/* The same from a checkpoint at step 12, after the removals at t = 0.05. */
static void check_resume(const char *scene) { check_resume_at(scene, 12); }

/* A 4 x 3 sheet of 12 triangles (2 per cell, 3 x 2 cells) in the plane
 * z = 0, its row y = 0 fixed, sagging under gravity along -z. At t = 0.05
 * the two triangles of the far corner cell (10 and 11) go; point 11 is
 * left isolated and goes too: 11 points. */
#define SHEET_HEAD                                                                                \
    "<Node name='root' gravity='0 0 -9.81' dt='0.01'>\n"                                        \
    "  <RequiredPlugin pluginName='SolidMechanics.FEM.Elastic SolidMechanics.Spring "            \
    "Topology.Utility'/>\n"                                                                      \
    "  <DefaultAnimationLoop/>\n"                                                                \
    "  <Node name='Sheet'>\n"                                                                    \
    "    <EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>\n"                    \
    "    <CGLinearSolver iterations='100' tolerance='1e-12' threshold='1e-20'/>\n"               \
    "    <MechanicalObject name='dofs' position='0 0 0 1 0 0 2 0 0 3 0 0  0 1 0 1 1 0 2 1 0 "    \
    "3 1 0  0 2 0 1 2 0 2 2 0 3 2 0'/>\n"                                                        \
    "    <TriangleSetTopologyContainer name='topo' triangles='0 1 5 0 5 4 1 2 6 1 6 5 2 3 7 "    \
    "2 7 6 4 5 9 4 9 8 5 6 10 5 10 9 6 7 11 6 11 10'/>\n"                                        \
    "    <TriangleSetTopologyModifier/>\n"                                                       \
    "    <DiagonalMass massDensity='1'/>\n"                                                      \
    "    <FixedProjectiveConstraint indices='0 1 2 3'/>\n"
#define SHEET_TAIL                                                                                \
    "    <TopologicalChangeProcessor listening='1' filename='corner.txt'/>\n"                    \
    "  </Node>\n"                                                                                \
    "</Node>\n"

static void write_corner_removal(void)
{
    write_in_dir("corner.txt", "T= 0.05\n  REMOVE= 2\n10 11\n");
}

/* TriangularBendingSprings builds its springs from the edges again after a
 * change: a resumed run must have the springs of the 10 triangles left,
 * not those of the scene's 12 (whose point 11 no longer exists). */
Test(checkpoint_topology, springs_rebuilt_from_the_restored_topology)
{
    write_corner_removal();
    write_in_dir("bending.scn",
                 SHEET_HEAD
                 "    <TriangularFEMForceField youngModulus='200' poissonRatio='0.3' "
                 "method='large'/>\n"
                 "    <TriangularBendingSprings stiffness='50' damping='0.5'/>\n" SHEET_TAIL);
    check_resume("bending.scn");
    cr_assert_eq(points_after("atcheckpoint.json", "\"position\""), 11,
                 "the corner point was not removed before the checkpoint");
}

/* The biquadratic springs keep each triangle's last valid normal: 10
 * triangles' at the checkpoint, 12 in the freshly loaded scene. */
Test(checkpoint_topology, per_triangle_run_state_sized_by_the_topology)
{
    write_corner_removal();
    write_in_dir("biquadratic.scn",
                 SHEET_HEAD "    <TriangularBiquadraticSpringsForceField youngModulus='200' "
                            "poissonRatio='0.3' useAngularSprings='1' dampingRatio='0.1'/>\n"
                            SHEET_TAIL);
    check_resume("biquadratic.scn");
}

/* Two sheets of 4 triangles, B on top of A, their touching points paired by
 * a BilateralLagrangianConstraint (A's 4 and 5 with B's 0 and 1). At
 * t = 0.05 B's triangle 0 goes, and with it B's point 1: its pair is
 * erased and B's last point (5) takes index 1. A resumed run keeps the one
 * pair left, not the scene's two. */
Test(checkpoint_topology, constraint_pairs_erased_by_a_removal)
{
    write_in_dir("pair.txt", "T= 0.05\n  REMOVE= 1\n0\n");
    write_in_dir(
        "pair.scn",
        "<Node name='root' gravity='0 0 -9.81' dt='0.01'>\n"
        "  <RequiredPlugin pluginName='SolidMechanics.FEM.Elastic Topology.Utility "
        "Constraint.Lagrangian.Model Constraint.Lagrangian.Correction "
        "Constraint.Lagrangian.Solver'/>\n"
        "  <FreeMotionAnimationLoop/>\n"
        "  <UnbuiltGaussSeidelConstraintSolver tolerance='1e-10' maxIterations='500'/>\n"
        "  <Node name='Pair'>\n"
        "    <EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>\n"
        "    <CGLinearSolver iterations='100' tolerance='1e-12' threshold='1e-20'/>\n"
        "    <Node name='A'>\n"
        "      <MechanicalObject name='mo' position='0 0 0 1 0 0 0 1 0 1 1 0 0 2 0 1 2 0'/>\n"
        "      <TriangleSetTopologyContainer name='topo' triangles='0 1 3 0 3 2 2 3 5 2 5 4'/>\n"
        "      <TriangleSetTopologyModifier/>\n"
        "      <DiagonalMass massDensity='1'/>\n"
        "      <FixedProjectiveConstraint indices='0 1'/>\n"
        "      <TriangularFEMForceField youngModulus='300' poissonRatio='0.3' method='large'/>\n"
        "      <UncoupledConstraintCorrection defaultCompliance='0.01'/>\n"
        "    </Node>\n"
        "    <Node name='B'>\n"
        "      <MechanicalObject name='mo' position='0 2 0 1 2 0 0 3 0 1 3 0 0 4 0 1 4 0'/>\n"
        "      <TriangleSetTopologyContainer name='topo' triangles='0 1 3 0 3 2 2 3 5 2 5 4'/>\n"
        "      <TriangleSetTopologyModifier/>\n"
        "      <DiagonalMass massDensity='1'/>\n"
        "      <TriangularFEMForceField youngModulus='300' poissonRatio='0.3' method='large'/>\n"
        "      <TopologicalChangeProcessor listening='1' filename='pair.txt'/>\n"
        "      <UncoupledConstraintCorrection defaultCompliance='0.01'/>\n"
        "    </Node>\n"
        "    <BilateralLagrangianConstraint template='Vec3' object1='@A/mo' object2='@B/mo' "
        "topology1='@A/topo' topology2='@B/topo' first_point='4 5' second_point='0 1'/>\n"
        "  </Node>\n"
        "</Node>\n");
    check_resume("pair.scn");
}

/* A square of 2 triangles falling freely along -z; a BoxROI with two boxes
 * (z in [-0.05, 0.05], and z in [-0.45, -0.2]) gives a TrianglePressureForceField
 * its triangles. The ROI computes at the start of each step from the
 * positions the last step left: z is -0.051 after step 10 and -0.194 after
 * step 20, -0.213 after step 21 (implicit Euler, dt 0.01), so both
 * triangles until step 10, none from step 11 to step 21, both from step
 * 22. A checkpoint at step 12 holds an empty list, and the resumed run
 * must take the ROI's 2 triangles at step 22 as the uninterrupted run does. */
Test(checkpoint_topology, followed_list_restored_empty_then_filled)
{
    write_in_dir(
        "falling.scn",
        "<Node name='root' gravity='0 0 -9.81' dt='0.01'>\n"
        "  <RequiredPlugin pluginName='SolidMechanics.FEM.Elastic Engine.Select "
        "MechanicalLoad'/>\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name='Falling'>\n"
        "    <EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>\n"
        "    <CGLinearSolver iterations='100' tolerance='1e-12' threshold='1e-20'/>\n"
        "    <MechanicalObject name='dofs' position='0 0 0 1 0 0 0 1 0 1 1 0'/>\n"
        "    <TriangleSetTopologyContainer name='topo' triangles='0 1 3 0 3 2'/>\n"
        "    <TriangleSetTopologyModifier/>\n"
        "    <DiagonalMass massDensity='1'/>\n"
        "    <TriangularFEMForceField youngModulus='300' poissonRatio='0.3' method='large'/>\n"
        "    <BoxROI name='roi' position='@dofs.position' triangles='@topo.triangles' "
        "box='-0.5 -0.5 -0.05 1.5 1.5 0.05  -0.5 -0.5 -0.45 1.5 1.5 -0.2'/>\n"
        "    <TrianglePressureForceField name='pressure' triangleList='@roi.triangleIndices' "
        "pressure='0 0 0.5'/>\n"
        "  </Node>\n"
        "</Node>\n");
    check_resume("falling.scn");
}

/* Triangles removed by what an engine selects: the sheet sags; a BoxROI
 * over the sagging part (z < -0.004, from the positions) gives
 * TopologicalChangeProcessor (useDataInputs) the triangles to remove at
 * t = 0.1, 0.15, ... A resume from step 10 must let the ROI compute again
 * at step 11 from the restored positions, as the uninterrupted run's ROI
 * does from the positions step 10 left; the processor removes what it
 * selected at the next step. */
Test(checkpoint_topology, engine_selects_from_the_restored_positions)
{
    write_in_dir("selected.scn",
                 SHEET_HEAD
                 "    <TriangularFEMForceField youngModulus='200' poissonRatio='0.3' "
                 "method='large'/>\n"
                 "    <BoxROI name='roi' position='@dofs.position' triangles='@topo.triangles' "
                 "box='-0.5 -0.5 -2 3.5 2.5 -0.004'/>\n"
                 "    <TopologicalChangeProcessor listening='1' useDataInputs='1' "
                 "trianglesToRemove='@roi.triangleIndices' timeToRemove='0.1' "
                 "interval='0.05'/>\n"
                 "  </Node>\n"
                 "</Node>\n");
    check_resume_at("selected.scn", 10);
}

/* Springs a change erases: SpringForceField, RegularGridSpringForceField
 * (springs given, no grid) and MeshSpringForceField drop
 * the springs on a removed point and renumber the point moved into its
 * place. A resumed run keeps the springs the removal left, not the
 * scene's (three of which end at the removed point 11). */
Test(checkpoint_topology, springs_erased_by_a_removal)
{
    write_corner_removal();
    write_in_dir("springs.scn",
                 SHEET_HEAD
                 "    <TriangularFEMForceField youngModulus='200' poissonRatio='0.3' "
                 "method='large'/>\n"
                 "    <SpringForceField spring='7 11 50 0.5 1  10 11 50 0.5 1  6 11 50 0.5 "
                 "1.41421356  4 9 50 0.5 1'/>\n" SHEET_TAIL);
    check_resume("springs.scn");
    write_in_dir("grid_springs.scn",
                 SHEET_HEAD
                 "    <TriangularFEMForceField youngModulus='200' poissonRatio='0.3' "
                 "method='large'/>\n"
                 "    <RegularGridSpringForceField spring='7 11 50 0.5 1  10 11 50 0.5 1  "
                 "6 11 50 0.5 1.41421356  4 9 50 0.5 1'/>\n" SHEET_TAIL);
    check_resume("grid_springs.scn");
    write_in_dir("mesh_springs.scn",
                 SHEET_HEAD "    <MeshSpringForceField stiffness='100' damping='0.5'/>\n"
                            SHEET_TAIL);
    check_resume("mesh_springs.scn");
}

/* A ConstantForceField spreading totalForce over its indices: point 11
 * goes, the force is shared by the 3 indices left (4/3 each, not 1). */
Test(checkpoint_topology, indices_and_forces_edited_by_a_removal)
{
    write_corner_removal();
    write_in_dir("constant.scn",
                 SHEET_HEAD
                 "    <TriangularFEMForceField youngModulus='200' poissonRatio='0.3' "
                 "method='large'/>\n"
                 "    <ConstantForceField indices='8 9 10 11' totalForce='0 0 4'/>\n" SHEET_TAIL);
    check_resume("constant.scn");
}

/* Two unit cubes stacked along z, 5 tetrahedra each, the bottom face
 * fixed; 4 points mapped by a BarycentricMapping. At t = 0.05 tetrahedron
 * 5 (the top cube's corner (4 5 6 8)) goes: the mapping locates its points
 * again at that moment's positions, as SOFA's does. A resumed run keeps
 * those weights; locating the points at the checkpoint's positions gives
 * other last bits. */
Test(checkpoint_topology, mapping_located_at_the_change)
{
    write_in_dir("tet.txt", "T= 0.05\n  REMOVE= 1\n5\n");
    write_in_dir(
        "mapped.scn",
        "<Node name='root' gravity='0 0 -9.81' dt='0.01'>\n"
        "  <RequiredPlugin pluginName='SolidMechanics.FEM.Elastic Topology.Utility "
        "Mapping.Linear'/>\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name='Cubes'>\n"
        "    <EulerImplicitSolver rayleighStiffness='0.1' rayleighMass='0.1'/>\n"
        "    <CGLinearSolver iterations='100' tolerance='1e-12' threshold='1e-20'/>\n"
        "    <MechanicalObject name='dofs' position='0 0 0 1 0 0 0 1 0 1 1 0  0 0 1 1 0 1 "
        "0 1 1 1 1 1  0 0 2 1 0 2 0 1 2 1 1 2'/>\n"
        "    <TetrahedronSetTopologyContainer name='topo' tetrahedra='0 1 2 4  3 2 1 7  "
        "5 1 4 7  6 2 7 4  1 2 4 7  4 5 6 8  7 6 5 11  9 5 8 11  10 6 11 8  5 6 8 11'/>\n"
        "    <TetrahedronSetTopologyModifier/>\n"
        "    <DiagonalMass massDensity='1'/>\n"
        "    <FixedProjectiveConstraint indices='0 1 2 3'/>\n"
        "    <TetrahedronFEMForceField youngModulus='300' poissonRatio='0.3' method='large'/>\n"
        "    <TopologicalChangeProcessor listening='1' filename='tet.txt'/>\n"
        "    <Node name='Mapped'>\n"
        "      <MechanicalObject name='points' position='0.3 0.4 1.7  0.6 0.2 1.9  "
        "0.9 0.2 0.5  0.1 0.7 1.3'/>\n"
        "      <BarycentricMapping input='@../dofs' output='@points'/>\n"
        "    </Node>\n"
        "  </Node>\n"
        "</Node>\n");
    check_resume("mapped.scn");
}

/* CRC-32C (Castagnoli, reflected 0x82f63b78), bit by bit: the trailer of
 * a checkpoint (docs/results.md). */
static uint32_t crc32c_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    }
    return ~c;
}

/* Copies the checkpoint `from` to `to` with the u64 record `label` set to
 * value, and the checksum line made again: a checkpoint that passes the
 * checksum but holds another size than this scene reaches. */
static void patch_record(const char *from, const char *to, const char *label, uint64_t value)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, from);
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static unsigned char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    cr_assert(n > 16 && n < sizeof buf, "%s: %zu bytes", path, n);
    size_t len = strlen(label);
    unsigned char *hit = NULL;
    for (size_t i = 4; i + len + 8 <= n - 16 && !hit; i++) {
        uint32_t l;
        memcpy(&l, buf + i - 4, sizeof l);
        if (l == len && !memcmp(buf + i, label, len))
            hit = buf + i + len;
    }
    cr_assert_not_null(hit, "no record '%s' in %s", label, path);
    uint64_t size = 0;
    memcpy(&size, hit, sizeof size);
    cr_assert_eq(size, sizeof value, "'%s' holds %llu bytes", label, (unsigned long long)size);
    memcpy(hit + 8, &value, sizeof value);
    snprintf((char *)buf + n - 16, 17, "crc32c %08x\n", (unsigned)crc32c_of(buf, n - 16));
    snprintf(path, sizeof path, "%s/%s", dir, to);
    f = fopen(path, "wb");
    cr_assert_not_null(f, "%s", path);
    cr_assert_eq(fwrite(buf, 1, n, f), n);
    cr_assert_eq(fclose(f), 0);
}

/* The sheet's points copied by an IdentityMapping into a state of a child
 * node that follows no topology: the removal reaches it through the
 * mapping only (SOFA's IdentityMapping::handleTopologyChange initialises
 * it again at the input's size). The checkpoint restores the sheet's
 * topology and states, but sends no event: the mapped state must take
 * the sheet's 11 points again, not keep the 12 of the scene's init. */
Test(checkpoint_topology, state_mapped_from_a_changed_topology)
{
    write_corner_removal();
    write_in_dir("identity.scn",
                 SHEET_HEAD
                 "    <TriangularFEMForceField youngModulus='200' poissonRatio='0.3' "
                 "method='large'/>\n"
                 "    <Node name='Copy'>\n"
                 "      <RequiredPlugin pluginName='Mapping.Linear'/>\n"
                 "      <MechanicalObject name='copy'/>\n"
                 "      <IdentityMapping/>\n"
                 "    </Node>\n" SHEET_TAIL);
    check_resume("identity.scn");
    cr_assert_eq(points_after("atcheckpoint.json", "\"/Sheet/Copy/copy\""), 11,
                 "the mapped state did not lose the corner point before the checkpoint");
}

/* A checkpoint that holds another size for the mapped state than the
 * mapping gives it at the restore (patched: 10 points, where the sheet has
 * 11) is refused naming the state and its mapping, not only the system
 * whose vectors would differ. */
Test(checkpoint_topology, mapped_size_that_differs_names_the_state)
{
    write_corner_removal();
    write_in_dir("identity.scn",
                 SHEET_HEAD
                 "    <Node name='Copy'>\n"
                 "      <RequiredPlugin pluginName='Mapping.Linear'/>\n"
                 "      <MechanicalObject name='copy'/>\n"
                 "      <IdentityMapping name='same'/>\n"
                 "    </Node>\n" SHEET_TAIL);
    cr_assert_eq(test_settee_run_in(dir, "identity.scn", "-n 12 --checkpoint run.ck", out,
                                    sizeof out),
                 0, "%s", out);
    patch_record("run.ck", "bad.ck", "/Sheet/Copy/copy.points", 10);
    cr_assert_eq(test_settee_run_in(dir, "identity.scn", "-n 30 --resume bad.ck", out, sizeof out),
                 1, "%s", out);
    cr_assert(strstr(out, "checkpoint 'bad.ck' does not match this scene: state /Sheet/Copy/copy "
                          "(MechanicalObject) has 10 points there, 11 here after the restore "
                          "(its mapping /Sheet/Copy/same did not give it the saved size)"),
              "%s", out);
}
