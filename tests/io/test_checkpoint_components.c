/* test_checkpoint_components.c - `settee run --checkpoint / --resume` on
 * components that keep run state beyond the states' and systems' vectors,
 * or whose inputs engines recompute during the run: 30 steps at once and
 * 12 + resume to 30 export byte-identical states (positions and velocities
 * with 17 digits). Each scene is our own, small, and failed before the
 * component (or the kernel) saved what it keeps:
 *  - LinearVelocityProjectiveConstraint: the positions it imposed last and
 *    the key interval it found (finished with continueAfterEnd);
 *  - TaitSurfacePressureForceField: the volume injected so far;
 *  - VariationalSymplecticSolver: whether its momentum was set (a resume
 *    took p = M v again);
 *  - PrecomputedLinearSolver: the inverse of the first step's matrix (a
 *    resume inverted the restored state's);
 *  - InterventionalRadiologyController: the tips' abscissae and the last
 *    step's nodes; AdaptiveBeamController: the beam lengths it rewrote;
 *  - the kernel: a state resized by a restored topology tells its resize
 *    followers (SPHFluidForceField, PlaneForceField);
 *  - CollisionPipeline and TriangleOctreeCollisionModel: the pipeline's
 *    step count and the octree model's normals (a resume cast no ray);
 *  - the kernel: restored positions marked changed, so that a BoxROI
 *    reading them refreshes at the next step (FixedProjectiveConstraint
 *    indices="@box.indices"); and array fields read through data links
 *    restored (a SubsetMultiMapping's indexPairs from a NearestPointROI
 *    that re-paired a moving point: the mapping applied at the restored
 *    state used the init pairs). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static char dir[512];

static void make_dir(void) { test_make_dir(dir, sizeof dir, "ckc"); }
static void remove_dir(void) { test_remove_dir(dir); }

TestSuite(checkpoint_components, .init = make_dir, .fini = remove_dir, .timeout = 300);

static char out[65536];


static char *read_in_dir(const char *name)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return test_read_file(path);
}

/* The scene text written to name, then 30 steps at once against 12, a
 * checkpoint and a resume to 30: byte-identical exports, and the resumed
 * run went on from the checkpoint. */
static void check_resume(const char *name, const char *text)
{
    cr_assert(test_write_in_dir(dir, name, text), "cannot write %s/%s", dir, name);
    const char *why = test_resume_failure(dir, name, 30, 12, out, sizeof out);
    cr_assert_null(why, "%s\n%s", why, out);
}

/* A Rigid3d frame driven by LinearVelocityProjectiveConstraint, past its
 * last key time at the checkpoint (continueAfterEnd), pulling a second
 * frame through a joint spring. */
Test(checkpoint_components, linear_velocity_continue_after_end)
{
    check_resume("lv.scn",
        "<Node name=\"root\" gravity=\"0 0 0\" dt=\"0.05\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Body\">\n"
        "    <EulerImplicitSolver/>\n"
        "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
        "    <MechanicalObject name=\"dofs\" template=\"Rigid3\" position=\"0 0 0 0 0 0 1  1 "
        "0 0 0 0 0 1\"/>\n"
        "    <UniformMass totalMass=\"2\"/>\n"
        "    <LinearVelocityProjectiveConstraint template=\"Rigid3\" indices=\"0\" "
        "keyTimes=\"0 0.3\" velocities=\"0 0 0 0 0 0  0.5 0 0 0 0 1.5\" "
        "continueAfterEnd=\"true\"/>\n"
        "    <JointSpringForceField template=\"Rigid3\" spring=\"BEGIN_SPRING 0 1 KS_T 100 10 "
        "KS_R 50 5 END_SPRING\"/>\n"
        "  </Node>\n"
        "</Node>\n");
}

/* A closed unit cube of springs under implicit Euler, with `load` (one
 * element) pressing its surface. */
#define BALLOON(load)                                                                              \
    "<Node name=\"root\" gravity=\"0 0 0\" dt=\"0.01\">\n"                                           \
    "  <DefaultAnimationLoop/>\n"                                                                    \
    "  <Node name=\"Balloon\">\n"                                                                    \
    "    <EulerImplicitSolver rayleighMass=\"0.1\"/>\n"                                              \
    "    <CGLinearSolver iterations=\"100\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"             \
    "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  1 1 0  0 1 0  0 0 1  1 0 1  1 1 "  \
    "1  0 1 1\"/>\n"                                                                                \
    "    <MeshTopology triangles=\"0 2 1  0 3 2  4 5 6  4 6 7  0 1 5  0 5 4  1 2 6  1 6 5  2 3 7 " \
    " 2 7 6  3 0 4  3 4 7\"/>\n"                                                                     \
    "    <UniformMass totalMass=\"1\"/>\n"                                                           \
    "    <MeshSpringForceField stiffness=\"50\"/>\n"                                                 \
    "    " load "\n"                                                                               \
    "  </Node>\n"                                                                                    \
    "</Node>\n"

/* A closed cube inflated by TaitSurfacePressureForceField: 1 injected at
 * 2 per second, 0.02 a step, under way at the checkpoint (0.24). */
Test(checkpoint_components, tait_injection_under_way)
{
    check_resume("tait.scn",
        BALLOON("<TaitSurfacePressureForceField p0=\"0\" B=\"100\" gamma=\"5\" "
                "injectedVolume=\"1\" maxInjectionRate=\"2\"/>"));
}

/* The same cube pressed by SurfacePressureForceField in pulseMode: the
 * pressure rises by 5 a step (pressureSpeed 500, dt 0.01) from 0 to 100,
 * then falls; at the checkpoint it is 60 and rising, not 0. */
Test(checkpoint_components, surface_pressure_pulse_under_way)
{
    check_resume("pulse.scn",
        BALLOON("<SurfacePressureForceField pressure=\"100\" pulseMode=\"true\" "
                "pressureSpeed=\"500\"/>"));
}

/* PrecomputedConstraintCorrection (recompute) computes its compliance at
 * the first constraint, from that step's state, with vectors of its own: a
 * resumed run keeps that compliance (not one from the state it resumes
 * at) and its systems hold the same scratch vectors as the checkpoint's. */
Test(checkpoint_components, precomputed_compliance_of_first_constraint)
{
    check_resume("pcc.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.01\">\n"
        "  <RequiredPlugin name=\"SolidMechanics.Spring\"/>\n"
        "  <RequiredPlugin name=\"Constraint.Lagrangian.Model\"/>\n"
        "  <RequiredPlugin name=\"Constraint.Lagrangian.Correction\"/>\n"
        "  <FreeMotionAnimationLoop/>\n"
        "  <GenericConstraintSolver maxIterations=\"100\" tolerance=\"1e-10\"/>\n"
        "  <Node name=\"Rope\">\n"
        "    <EulerImplicitSolver rayleighMass=\"0.1\"/>\n"
        "    <CGLinearSolver iterations=\"100\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
        "    <MechanicalObject name=\"dofs\" position=\"0 0 0  1 0 0  2 0 0  3 0 0\"/>\n"
        "    <MeshTopology edges=\"0 1  1 2  2 3\"/>\n"
        "    <UniformMass totalMass=\"1\"/>\n"
        "    <MeshSpringForceField stiffness=\"50\"/>\n"
        "    <FixedLagrangianConstraint indices=\"0\"/>\n"
        "    <PrecomputedConstraintCorrection recompute=\"true\"/>\n"
        "  </Node>\n"
        "</Node>\n");
}

/* A spring beam integrated by VariationalSymplecticSolver: its momentum
 * is not M v (the scheme's own), and a resume must not take it again. */
Test(checkpoint_components, variational_symplectic_momentum)
{
    check_resume("vss.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.02\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Beam\">\n"
        "    <VariationalSymplecticSolver newtonError=\"1e-10\" steps=\"5\" "
        "rayleighStiffness=\"0\" rayleighMass=\"0\"/>\n"
        "    <CGLinearSolver iterations=\"100\" tolerance=\"1e-14\" threshold=\"1e-14\"/>\n"
        "    <MechanicalObject name=\"dofs\"/>\n"
        "    <RegularGridTopology n=\"2 2 4\" min=\"0 0 0\" max=\"1 1 3\"/>\n"
        "    <UniformMass totalMass=\"2\"/>\n"
        "    <FixedProjectiveConstraint indices=\"0 1 2 3\"/>\n"
        "    <MeshSpringForceField stiffness=\"300\" damping=\"0\"/>\n"
        "  </Node>\n"
        "</Node>\n");
}

/* A spring beam sagging under gravity: PrecomputedLinearSolver keeps the
 * inverse of the first step's matrix, not of the restored state's. */
Test(checkpoint_components, precomputed_inverse_of_first_step)
{
    check_resume("pre.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.02\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Beam\">\n"
        "    <EulerImplicitSolver/>\n"
        "    <PrecomputedLinearSolver use_file=\"false\"/>\n"
        "    <MechanicalObject name=\"dofs\"/>\n"
        "    <RegularGridTopology n=\"2 2 4\" min=\"0 0 0\" max=\"1 1 3\"/>\n"
        "    <UniformMass totalMass=\"2\"/>\n"
        "    <FixedProjectiveConstraint indices=\"0 1 2 3\"/>\n"
        "    <MeshSpringForceField stiffness=\"300\" damping=\"1\"/>\n"
        "  </Node>\n"
        "</Node>\n");
}

/* A cube of springs resting in a fixed box, contacts by RayTraceNarrowPhase
 * between TriangleOctreeCollisionModels (triangle normals one step
 * behind; the moving model's first step casts no ray). */
Test(checkpoint_components, raytrace_octree_normals)
{
    check_resume("ray.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.01\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <CollisionPipeline/>\n"
        "  <BruteForceBroadPhase/>\n"
        "  <RayTraceNarrowPhase/>\n"
        "  <NewProximityIntersection alarmDistance=\"0.2\" contactDistance=\"0.05\"/>\n"
        "  <CollisionResponse response=\"PenalityContactForceField\"/>\n"
        "  <Node name=\"Floor\">\n"
        "    <MechanicalObject name=\"dofs\" position=\"-2 -1 -2  2 -1 -2  2 -1 2  -2 -1 2  "
        "-2 0 -2  2 0 -2  2 0 2  -2 0 2\"/>\n"
        "    <MeshTopology triangles=\"0 1 2  0 2 3  4 6 5  4 7 6  0 5 1  0 4 5  1 6 2  1 5 6 "
        " 2 7 3  2 6 7  3 4 0  3 7 4\"/>\n"
        "    <TriangleOctreeCollisionModel simulated=\"0\" moving=\"0\"/>\n"
        "  </Node>\n"
        "  <Node name=\"Cube\">\n"
        "    <EulerImplicitSolver rayleighMass=\"0.1\" rayleighStiffness=\"0.1\"/>\n"
        "    <CGLinearSolver iterations=\"100\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
        "    <MechanicalObject name=\"dofs\" position=\"0 0.02 0  1 0.02 0  1 0.02 1  0 0.02 "
        "1  0 1.02 0  1 1.02 0  1 1.02 1  0 1.02 1\"/>\n"
        "    <MeshTopology triangles=\"0 1 2  0 2 3  4 6 5  4 7 6  0 5 1  0 4 5  1 6 2  1 5 6 "
        " 2 7 3  2 6 7  3 4 0  3 7 4\"/>\n"
        "    <UniformMass totalMass=\"1\"/>\n"
        "    <MeshSpringForceField stiffness=\"500\" damping=\"1\"/>\n"
        "    <TriangleOctreeCollisionModel/>\n"
        "  </Node>\n"
        "</Node>\n");
    char *text = read_in_dir("resumed.json");
    cr_assert(text && strstr(text, "\"contactPairs\""), "no contact at the end: %s",
              text ? text : "(none)");
    free(text);
}

/* Points falling into a BoxROI that reads their positions: its indices fix
 * the points that entered it. The second point enters during step 12
 * (found in the box at step 13's start). */
Test(checkpoint_components, engine_reads_restored_positions)
{
    check_resume("box.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.02\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Drops\">\n"
        "    <EulerImplicitSolver/>\n"
        "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
        "    <MechanicalObject name=\"dofs\" position=\"0 0.3 0  1 0.45 0  2 0.6 0  3 0.9 "
        "0\"/>\n"
        "    <UniformMass totalMass=\"4\"/>\n"
        "    <BoxROI name=\"box\" position=\"@dofs.position\" box=\"-1 -1 -1  4 0 1\"/>\n"
        "    <FixedProjectiveConstraint indices=\"@box.indices\"/>\n"
        "  </Node>\n"
        "</Node>\n");
    /* Every point entered the box and kept the velocity it had there (the
     * constraint zeroes the response, not the velocity): slower than the
     * free fall of 30 steps, g t = 9.81 * 0.6 = 5.886, and the highest
     * point, entering last, fastest. */
    char *text = read_in_dir("resumed.json");
    const char *v = text ? strstr(text, "\"velocity\"") : NULL;
    cr_assert_not_null(v, "%s", text ? text : "(none)");
    double vy[4];
    for (int i = 0; i < 4; i++) {
        double c[3];
        for (int k = 0; k < 3; k++) {
            v += strcspn(v, "-0123456789");
            char *end;
            c[k] = strtod(v, &end);
            v = end;
        }
        vy[i] = c[1];
        cr_assert(vy[i] < 0 && vy[i] > -5.8, "point %d: vy %g", i, vy[i]);
    }
    cr_assert(vy[3] < vy[2] && vy[2] < vy[0], "%g %g %g", vy[0], vy[2], vy[3]);
    free(text);
}

/* A point passing two fixed anchors, tied by a spring to the nearest one:
 * NearestPointROI (on the current positions) pairs it, a SubsetMultiMapping
 * maps the pair (indexPairs="@np.indexPairs"). It passes x = 1 before the
 * checkpoint, so that the pairs then are not the init's. */
Test(checkpoint_components, linked_array_restored)
{
    check_resume("np.scn",
        "<Node name=\"root\" gravity=\"0 0 0\" dt=\"0.02\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Scene\">\n"
        "    <EulerImplicitSolver/>\n"
        "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
        "    <Node name=\"Anchors\">\n"
        "      <MechanicalObject name=\"dofs\" position=\"0 0 0  2 0 0\"/>\n"
        "      <UniformMass totalMass=\"2\"/>\n"
        "      <FixedProjectiveConstraint indices=\"0 1\"/>\n"
        "    </Node>\n"
        "    <Node name=\"Ball\">\n"
        "      <MechanicalObject name=\"dofs\" position=\"-0.5 0.5 0\" velocity=\"8 0 0\"/>\n"
        "      <UniformMass totalMass=\"1\"/>\n"
        "    </Node>\n"
        "    <Node name=\"Pairs\">\n"
        "      <NearestPointROI name=\"np\" object1=\"@../Anchors/dofs\" "
        "object2=\"@../Ball/dofs\" radius=\"100\" useRestPosition=\"false\"/>\n"
        "      <MechanicalObject name=\"dofs\"/>\n"
        "      <SubsetMultiMapping input=\"@../Anchors/dofs @../Ball/dofs\" output=\"@dofs\" "
        "indexPairs=\"@np.indexPairs\"/>\n"
        "      <SpringForceField spring=\"0 1 20 0 0.5\"/>\n"
        "    </Node>\n"
        "  </Node>\n"
        "</Node>\n");
    /* paired with the anchor at x = 2 at the end (the first at init) */
    char *text = read_in_dir("resumed.json");
    const char *m = text ? strstr(text, "\"/Scene/Pairs/dofs\"") : NULL;
    cr_assert(m && strstr(m, "[2, 0, 0]"), "%s", text ? text : "(none)");
    free(text);
}

/* A fluid poured by a ParticleSource through a PointSetTopologyContainer
 * onto a PlaneForceField: the restored topology holds the particles of the
 * checkpoint, and SPHFluidForceField (its scratch) and PlaneForceField
 * (its contacts) follow the restored size as they follow a resize. Before,
 * the fluid had no pressure after a resume and the plane's contacts
 * overran their room (a crash). */
Test(checkpoint_components, particles_added_through_a_topology)
{
    check_resume("sph.scn",
        "<Node name=\"root\" gravity=\"0 -10 0\" dt=\"0.01\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Fluid\">\n"
        "    <EulerExplicitSolver symplectic=\"1\"/>\n"
        "    <MechanicalObject name=\"dofs\"/>\n"
        "    <ParticleSource translation=\"0 0.5 0\" velocity=\"0 -5 0\" center=\"0 0 0  0.2 "
        "0 0  0 0 0.2  0.2 0 0.2\" radius=\"0.01 0.01 0.01\" delay=\"0.02\" start=\"-0.1\" "
        "stop=\"10\" addNoise=\"0\"/>\n"
        "    <PointSetTopologyContainer name=\"con\"/>\n"
        "    <PointSetTopologyModifier name=\"mod\"/>\n"
        "    <UniformMass vertexMass=\"1\"/>\n"
        "    <SPHFluidForceField radius=\"0.3\" density=\"25\" kernelType=\"1\" "
        "viscosityType=\"2\" viscosity=\"10\" pressure=\"1000\"/>\n"
        "    <PlaneForceField normal=\"0 1 0\" d=\"-0.2\" stiffness=\"5000\"/>\n"
        "  </Node>\n"
        "</Node>\n");
    /* a wave of 4 every 0.02 s from t = -0.1 (SOFA's first wave at the
     * first step): 14 waves by t = 0.3 */
    char *text = read_in_dir("resumed.json");
    int points = test_exported_points(text);
    cr_assert_eq(points, 56, "%d particles: %s", points, text ? text : "(none)");
    free(text);
}

/* A wire (a straight section and a curl) pushed out by an
 * InterventionalRadiologyController: the next step resamples its beams
 * from the tip's abscissa and the last step's nodes, which the checkpoint
 * holds (a resume started from the init's). */
Test(checkpoint_components, interventional_radiology_deployment)
{
    check_resume("irc.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.02\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Shape\">\n"
        "    <RodStraightSection name=\"straight\" youngModulus=\"5000\" radius=\"0.5\" "
        "massDensity=\"0.00001\" nbBeams=\"8\" nbEdgesCollis=\"8\" nbEdgesVisu=\"8\" "
        "length=\"100\"/>\n"
        "    <RodSpireSection name=\"curl\" youngModulus=\"5000\" radius=\"0.5\" "
        "massDensity=\"0.00001\" nbBeams=\"3\" nbEdgesCollis=\"3\" nbEdgesVisu=\"3\" "
        "length=\"10\" spireDiameter=\"8\" spireHeight=\"0\"/>\n"
        "    <WireRestShape template=\"Rigid3d\" name=\"rest\" wireMaterials=\"@straight "
        "@curl\"/>\n"
        "    <EdgeSetTopologyContainer name=\"edges\"/>\n"
        "    <EdgeSetTopologyModifier/>\n"
        "    <MechanicalObject template=\"Rigid3d\" name=\"shapeDofs\"/>\n"
        "  </Node>\n"
        "  <Node name=\"Wire\">\n"
        "    <EulerImplicitSolver rayleighStiffness=\"0.1\" rayleighMass=\"0.1\"/>\n"
        "    <BTDLinearSolver/>\n"
        "    <RegularGridTopology name=\"line\" nx=\"12\" ny=\"1\" nz=\"1\" xmin=\"0\" "
        "xmax=\"0\" ymin=\"0\" ymax=\"0\" zmin=\"0\" zmax=\"0\"/>\n"
        "    <MechanicalObject template=\"Rigid3d\" name=\"dofs\"/>\n"
        "    <WireBeamInterpolation name=\"interp\" WireRestShape=\"@../Shape/rest\"/>\n"
        "    <AdaptiveBeamForceFieldAndMass interpolation=\"@interp\"/>\n"
        "    <InterventionalRadiologyController name=\"deploy\" template=\"Rigid3d\" "
        "instruments=\"interp\" topology=\"@line\" startingPos=\"0 0 0 0 0 0 1\" xtip=\"0\" "
        "rotationInstrument=\"0\" step=\"1\" speed=\"40\" controlledInstrument=\"0\"/>\n"
        "    <FixedProjectiveConstraint name=\"fixed\" indices=\"0\"/>\n"
        "    <RestShapeSpringsForceField points=\"@deploy.indexFirstNode\" stiffness=\"1e8\" "
        "angularStiffness=\"1e8\"/>\n"
        "  </Node>\n"
        "</Node>\n");
}

/* A cantilever of 4 beams whose frames an AdaptiveBeamController
 * redistributes at each step: the beam lengths it rewrote (the
 * interpolation's lengthList) are the next step's start. */
Test(checkpoint_components, adaptive_beam_redistribution)
{
    check_resume("abc.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.02\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Beam\">\n"
        "    <EulerImplicitSolver rayleighStiffness=\"0\" rayleighMass=\"0\"/>\n"
        "    <EigenSparseLU template=\"CompressedRowSparseMatrixMat3x3d\"/>\n"
        "    <MeshTopology name=\"lines\" lines=\"0 1  1 2  2 3  3 4\"/>\n"
        "    <MechanicalObject template=\"Rigid3d\" name=\"dofs\" position=\"0 0 0 0 0 0 1  "
        "0.8 0 0 0 0 0 1  1.6 0 0 0 0 0 1  2.4 0 0 0 0 0 1  3.2 0 0 0 0 0 1\"/>\n"
        "    <BeamInterpolation name=\"interp\" radius=\"0.08\"/>\n"
        "    <FixedProjectiveConstraint indices=\"0\"/>\n"
        "    <AdaptiveBeamController template=\"Rigid3d\" name=\"redistribute\"/>\n"
        "    <AdaptiveBeamForceFieldAndMass computeMass=\"1\" massDensity=\"40\"/>\n"
        "  </Node>\n"
        "</Node>\n");
}

/* A sheet thrown up out of a BoxROI and falling back into it: the
 * pressure's triangleList (read from the box's triangleIndices) holds the
 * 2 triangles at init, none at the checkpoint, 2 again from step 19. The
 * list restored empty must take the box's again (it was taken for an
 * array borrowed from a system: the resumed run stopped at step 19). */
Test(checkpoint_components, linked_list_restored_empty)
{
    check_resume("roi0.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.02\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Sheet\">\n"
        "    <EulerImplicitSolver/>\n"
        "    <CGLinearSolver iterations=\"50\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
        "    <MechanicalObject name=\"dofs\" position=\"0 0.2 0  1 0.2 0  0 0.2 1  1 0.2 1\" "
        "velocity=\"0 2 0  0 2 0  0 2 0  0 2 0\"/>\n"
        "    <UniformMass totalMass=\"1\"/>\n"
        "    <BoxROI name=\"roi\" position=\"@dofs.position\" box=\"-1 -0.5 -1  2 0.25 2\"/>\n"
        "    <TrianglePressureForceField name=\"wind\" pressure=\"0 0 0.5\" "
        "triangleList=\"@roi.triangleIndices\" topology=\"@mesh\"/>\n"
        "    <MeshTopology name=\"mesh\" triangles=\"0 1 3  0 3 2\"/>\n"
        "  </Node>\n"
        "</Node>\n");
}

/* A body whose MechanicalObject reads its positions from an unmoving one
 * (position="@../grid.position"): the restore marks the systems' states
 * changed, not the grid left as init made it, or the body would take the
 * grid's positions again at the first resumed step. */
Test(checkpoint_components, state_reading_an_unmoving_state)
{
    check_resume("grid.scn",
        "<Node name=\"root\" gravity=\"0 -9.81 0\" dt=\"0.02\">\n"
        "  <DefaultAnimationLoop/>\n"
        "  <Node name=\"Cube\">\n"
        "    <MechanicalObject name=\"grid\" position=\"0 0 0  1 0 0  0 1 0  1 1 0  0 0 1  1 "
        "0 1  0 1 1  1 1 1\"/>\n"
        "    <Node name=\"Body\">\n"
        "      <EulerImplicitSolver/>\n"
        "      <CGLinearSolver iterations=\"50\" tolerance=\"1e-12\" threshold=\"1e-12\"/>\n"
        "      <MechanicalObject name=\"dofs\" position=\"@../grid.position\"/>\n"
        "      <UniformMass totalMass=\"1\"/>\n"
        "      <FixedProjectiveConstraint indices=\"0 1\"/>\n"
        "      <SpringForceField spring=\"0 2 100 0.5 1  1 3 100 0.5 1  2 3 100 0.5 1  0 4 "
        "100 0.5 1  1 5 100 0.5 1  4 5 100 0.5 1  2 6 100 0.5 1  3 7 100 0.5 1  6 7 100 0.5 1 "
        " 4 6 100 0.5 1  5 7 100 0.5 1\"/>\n"
        "    </Node>\n"
        "  </Node>\n"
        "</Node>\n");
}
