/* test_conformance.c - every registered component class, with its defaults,
 * in a minimal scene: created, initialised, stepped and destroyed, under
 * AddressSanitizer (the test build), with no leak and no crash.
 *
 * Every plugin of the build tree is loaded, then the registry is iterated (a
 * class added later is exercised without being named here). Each class goes
 * into a fresh scene: a root with gravity, a node "Body" holding an ODE
 * solver, a linear solver, a MechanicalObject with the 8 corners of a unit
 * cube, a 2x2x2 RegularGridTopology, a UniformMass (totalMass 1), a
 * MeshSpringForceField (stiffness 100) and a FixedProjectiveConstraint on the
 * bottom face, and the class under test with its defaults. A class that
 * plays one of those roles itself takes the place of the stock component of
 * that role. Classes whose
 * defaults legitimately refuse to initialise are listed in `refusals` with
 * the reason; each of them must fail with a clean error naming the class.
 * Every other class must initialise, step and leave finite positions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* Criterion runs tests in worker processes whose exit-time leak report does
 * not fail the test: leaks are checked explicitly after each class. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#define LEAK_CHECK() __lsan_do_recoverable_leak_check()
#define LEAK_CHECKED 1
#else
#define LEAK_CHECK() 0
#define LEAK_CHECKED 0
#endif

/* Classes whose defaults are refused by design, and why. */
static const struct refusal {
    const char *cls;
    const char *why;
} refusals[] = {
    {"UniformMass", "no vertexMass nor totalMass given is an error (issue 3)"},
    {"ConstantForceField", "no forces nor totalForce given: SOFA's 'No input force has been set'"},
    {"ParticleSink", "removes particles through a *SetTopologyContainer: refused beside a grid"},
    {"ParticleSource", "adds particles through a *SetTopologyContainer: refused beside a grid"},
    {"SPHFluidSurfaceMapping", "input must link particles and output a visual model; SOFA's "
                               "mappings have no default"},
    {"MeshOBJLoader", "no filename: a loader without a file has nothing to load"},
    {"TopologicalChangeProcessor", "no filename and no useDataInputs: SOFA's 'empty filename'"},
    {"PythonController", "made from Python only: it wraps a Python object"},
    {"PythonForceField", "made from Python only: it wraps a Python object"},
    {"PythonDataEngine", "made from Python only: it wraps a Python object"},
    {"PythonMapping", "made from Python only: it wraps a Python object"},
    {"PythonScriptController", "no filename and classname: SofaPython3's controller needs both"},
    {"MeshGmshLoader", "no filename: a loader without a file has nothing to load"},
    {"MeshVTKLoader", "no filename: a loader without a file has nothing to load"},
    {"MeshSTLLoader", "no filename: a loader without a file has nothing to load"},
    {"MeshOffLoader", "no filename: a loader without a file has nothing to load"},
    {"MeshXspLoader", "no filename: a loader without a file has nothing to load"},
    {"OffSequenceLoader", "no filename: a loader without a file has nothing to load"},
    {"MeshTrianLoader", "no filename: a loader without a file has nothing to load"},
    {"GIDMeshLoader", "no filename: a loader without a file has nothing to load"},
    {"SphereLoader", "no filename: a loader without a file has nothing to load"},
    {"VoxelGridLoader", "no filename: a loader without a file has nothing to load"},
    {"IdentityMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"BarycentricMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"SubsetMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"HexahedronCompositeFEMMapping",
     "input and output must link two states, beside a HexahedronCompositeFEMForceFieldAndMass"},
    {"SubsetMultiMapping", "input and output must link states; SOFA's mappings have no default"},
    {"SkinningMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"LineSetSkinningMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"CenterOfMassMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"BeamFEMForceField", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"BeamInterpolation", "Rigid3d only (BeamAdapter's one instantiation): refused beside the Vec3d state"},
    {"RodStraightSection", "Rigid3d only (BeamAdapter's one instantiation): refused beside the Vec3d state"},
    {"RodSpireSection", "Rigid3d only (BeamAdapter's one instantiation): refused beside the Vec3d state"},
    {"WireRestShape", "Rigid3d only (BeamAdapter's one instantiation); needs its rod sections"},
    {"RodMeshSection", "needs a mesh loader whose edges make an open chain"},
    {"WireBeamInterpolation", "Rigid3d only (BeamAdapter's one instantiation); needs a WireRestShape"},
    {"InterventionalRadiologyController", "Rigid3d only (BeamAdapter's one instantiation); needs its instruments"},
    {"AdaptiveBeamController", "Rigid3d only (BeamAdapter's one instantiation); needs a BeamInterpolation"},
    {"BeamAdapterActionController", "Rigid3d only (BeamAdapter's one instantiation); needs an InterventionalRadiologyController"},
    {"AdaptiveBeamForceFieldAndMass", "Rigid3d only (BeamAdapter's one instantiation): refused beside the Vec3d state"},
    {"MechanicalStateController",
     "Vec1d and Rigid3d only (SOFA's instantiations): refused beside the Vec3d state"},
    {"CylinderCollisionModel", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"OBBCollisionModel", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"RigidCapsuleCollisionModel", "Rigid3d only (SOFA's CapsuleCollisionModel<Rigid3d>): refused beside the Vec3d state"},
    {"FixedRotationProjectiveConstraint", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"SkeletalMotionProjectiveConstraint", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"JointSpringForceField", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"GearSpringForceField", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"AngularSpringForceField", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"FrameSpringForceField", "Rigid3d only (SOFA's one instantiation): refused beside the Vec3d state"},
    {"PolynomialSpringsForceField", "with its defaults every spring joins a point to itself: rest "
                                    "length 0, by which SOFA divides (NaN)"},
    {"FixedTranslationProjectiveConstraint", "Rigid3d only in settee (SOFA's Rigid2d and Vec6d are not states here)"},
    {"InteractionEllipsoidForceField", "Vec3d,Rigid3d: object2 must be a rigid frame, not the node's state"},
    {"RigidMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"DistanceMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"DistanceFromTargetMapping",
     "input and output must link two states; SOFA's mappings have no default"},
    {"SquareDistanceMapping",
     "input and output must link two states; SOFA's mappings have no default"},
    {"IdentityMultiMapping", "input and output must link states; SOFA's mappings have no default"},
    {"CenterOfMassMultiMapping", "input must link states with a mass; SOFA's have no default"},
    {"CenterOfMassMulti2Mapping", "input1, input2 must link states; SOFA's have no default"},
    {"SquareMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"AreaMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"VolumeMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"DistanceMultiMapping", "input and output must link states; SOFA's mappings have no default"},
    {"DeformableOnRigidFrameMapping",
     "input1 and output must link states; SOFA's mappings have no default"},
    {"CarvingManager", "needs a tool collision model (toolModel or the tag CarvingTool), "
                       "surfaces tagged CarvingSurface and a narrow phase: SOFA's errors"},
    {"ContactListener", "collisionModel1 and collisionModel2 must link collision models (SOFA's "
                        "message)"},
    {"ArticulatedSystemMapping",
     "Rigid3d output and a Vec1d input1 only (SOFA's one instantiation); no default input"},
    {"Hexa2QuadTopologicalMapping", "input and output must link two topologies (no default)"},
    {"Edge2QuadTopologicalMapping", "SOFA's 'No radius (neither radius nor radiusFocal) "
                                    "defined', then input and output must link two topologies"},
    {"TubularMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"BeamLinearMapping", "input and output must link two states; SOFA's mappings have no default"},
    {"BeamLinearMapping_mt", "input and output must link two states; SOFA's mappings have no default"},
    {"AdaptiveBeamMapping", "input and output must link two states; needs a beam interpolation"},
    {"MultiAdaptiveBeamMapping", "input and output must link two states; needs an "
                                 "InterventionalRadiologyController"},
    {"BeamLengthMapping", "input and output must link two states; needs a BeamInterpolation"},
    {"DistanceToPlaneMapping", "planeNormal has no default (SOFA: 'planeNormal data has null "
                               "norm'), and input and output must link two states"},
    {"Hexa2TetraTopologicalMapping", "input and output must link two topologies (no default)"},
    {"Tetra2TriangleTopologicalMapping", "input and output must link two topologies (no default)"},
    {"Triangle2EdgeTopologicalMapping", "input and output must link two topologies (no default)"},
    {"Quad2TriangleTopologicalMapping", "input and output must link two topologies (no default)"},
    {"Hexa2PrismTopologicalMapping", "input and output must link two topologies (no default)"},
    {"Mesh2PointTopologicalMapping", "input and output must link two topologies (no default)"},
    {"SubsetTopologicalMapping", "input and output must link two topologies (no default)"},
    {"IdentityTopologicalMapping", "input and output must link two topologies (no default)"},
    {"CenterPointTopologicalMapping", "input and output must link two topologies (no default)"},
    {"SimpleTesselatedHexaTopologicalMapping",
     "input and output must link two topologies (no default)"},
    {"SimpleTesselatedTetraTopologicalMapping",
     "input and output must link two topologies (no default)"},
    {"SimpleTesselatedTetraMechanicalMapping",
     "needs a SimpleTesselatedTetraTopologicalMapping in its context (none in the stock scene)"},
    {"Mesh2PointMechanicalMapping",
     "needs a Mesh2PointTopologicalMapping in its context (none in the stock scene)"},
    {"SparseGridTopology", "no surface (fileTopology or position with triangles) to voxelise"},
    {"SparseGridRamificationTopology",
     "no surface (fileTopology or position with triangles) to voxelise"},
    {"SparseGridMultipleTopology", "no fileTopologies: SOFA's msg_error 'No file topology provided'"},
    {"WriteState", "no filename: a state writer needs the file to write"},
    {"ReadState", "no filename: a state reader without a file has nothing to read"},
    {"CompareState", "no filename: a comparison needs the reference file"},
    {"RigidDistanceGridCollisionModel", "Rigid3d only, and a distance grid file (SOFA's error without one)"},
    {"FFDDistanceGridCollisionModel", "no filename and no grid topology: SOFA's errors without them"},
    {"DistanceGridForceField", "no filename: SOFA's 'requires an input filename'"},
    {"FastTetrahedralCorotationalForceField",
     "the stock grid has no tetrahedra: SOFA's msg_error 'No tetrahedra found in linked Topology.'"},
    {"CompareTopology", "no filename: a comparison needs the reference file"},
    {"ReadTopology", "no filename: SOFA says \"Empty filename\" and reads nothing; settee refuses"},
    {"TetrahedronHyperelasticityFEMForceField",
     "no ParameterSet: every material reads its parameters from it (SOFA reads past the end)"},
    {"StandardTetrahedralFEMForceField",
     "no ParameterSet: every material reads its parameters from it (SOFA reads past the end)"},
    {"BDFOdeSolver", "SOFA's BDFOdeSolver needs a NewtonRaphsonSolver (Invalid without one)"},
    {"FEMMass", "no NodalMassDensity: SOFA's msg_error 'No nodal mass density component found'"},
    {"WarpPreconditioner",
     "it wraps another linear solver and needs a rotation finder (SOFA's error without them)"},
    {"RotationMatrixSystem",
     "no rotation finder (corotational FEM) in the node: SOFA's 'A RotationFinder is required'"},
    {"Distances", "needs a DynamicSparseGridTopologyContainer at hexaContainerPath (SOFA refuses "
                  "to create it otherwise)"},
    {"NonUniformHexahedralFEMForceFieldAndMass", "needs a MultilevelHexahedronSetTopologyContainer "
                                                 "(SOFA's 'Object must have' one)"},
    {"StopperLagrangianConstraint", "Vec1d only (SOFA's one instantiation): refused beside the "
                                    "Vec3d state"},
    {"ArticulatedHierarchyBVHController", "plays a BVH file: needs an ArticulatedHierarchyContainer "
                                          "with a filename (SOFA dereferences a null container)"},
    {"LCPForceFeedback", "answers from an LCPConstraintSolver's last problem: SOFA's 'no binding "
                         "ConstraintSolver' without one"},
};

/* The plugins bundled in plugins/: all of them must load. */
static const char *const bundled[] = {
    "ODESolver.Forward", "ODESolver.Backward", "LinearSolver.Direct", "LinearSolver.Iterative",
    "LinearSolver.Ordering", "Mass",              "SolidMechanics.Spring", "Constraint.Projective", "Topology",
    "Engine.Select",     "IO.Mesh",            "Mapping.Linear",      "Visual",
    "GL.Rendering3D",    "GL.Rendering2D",     "GL.Shader",           "SceneUtility",
    "Setting",           "MechanicalLoad",     "SolidMechanics.FEM.Elastic", "Playback",
    "Mapping.NonLinear", "Engine.Transform",  "LinearSystem", "Collision", "Topology.Utility",
    "Engine.Generate"};

/* The 8 vertices of the 2x2x2 grid over the unit cube, in grid order. */
#define CUBE "0 0 0  1 0 0  0 1 0  1 1 0  0 0 1  1 0 1  0 1 1  1 1 1"

static const char *refusal_of(const char *cls)
{
    for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
        if (strcmp(refusals[i].cls, cls) == 0)
            return refusals[i].why;
    return NULL;
}

/* Failures of all classes, reported together at the end. */
static char report[32768];
static size_t report_len;
static int nfailed;

static void failf(const char *cls, const char *what, const char *detail)
{
    int k = snprintf(report + report_len, sizeof report - report_len, "\n  %s: %s%s", cls, what,
                     detail ? detail : "");
    if (k > 0 && report_len + (size_t)k < sizeof report)
        report_len += (size_t)k;
    nfailed++;
}

typedef struct ctx {
    st_scene *s;
    st_error err;
    st_status st;   /* first failure of building or init */
    const char *at; /* where it failed */
} ctx;

static bool try(ctx *c, st_status st, const char *at)
{
    if (st != ST_OK && c->st == ST_OK) {
        c->st = st;
        c->at = at;
    }
    return st == ST_OK;
}

/* The node's state and topology (the class under test when it plays one
 * of those roles). */
static bool add_state_and_topology(const st_class *cls, ctx *c, st_node *body)
{
    st_error *e = &c->err;
    st_component *x = NULL;
    /* A state class under test is the node's state, with its defaults: it
     * takes its positions from the grid. */
    bool state = cls->state != NULL; /* the state role (a MappedObject is not one) */
    if (state) {
        if (!try(c, st_node_add_object(body, cls->name, "dofs", &x, e), "create"))
            return false;
    } else if (!try(c, st_node_add_object(body, "MechanicalObject", "dofs", &x, e), "dofs") ||
               !try(c, st_component_set(x, "position", CUBE, e), "dofs.position")) {
        return false;
    }
    if (cls->topology) {
        if (!try(c, st_node_add_object(body, cls->name, NULL, &x, e), "create"))
            return false;
    } else if (!try(c, st_node_add_object(body, "RegularGridTopology", "grid", &x, e), "grid") ||
               !try(c, st_component_set(x, "n", "2 2 2", e), "grid.n") ||
               !try(c, st_component_set(x, "min", "0 0 0", e), "grid.min") ||
               !try(c, st_component_set(x, "max", "1 1 1", e), "grid.max")) {
        return false;
    }
    return true;
}

/* Builds the minimal scene around cls, then initialises it. With
 * state_last, the MechanicalObject and the topology come after every other
 * component of the node (SOFA does not depend on that order, nor may we). */
static void build_ordered(test_rt *t, const st_class *cls, ctx *c, bool state_last)
{
    st_error *e = &c->err;
    memset(c, 0, sizeof *c);
    if (!try(c, st_scene_create(t->rt, &c->s, e), "st_scene_create"))
        return;
    st_node *root = st_scene_root(c->s), *body = NULL;
    st_component *x = NULL;
    if (!try(c, st_node_set(root, "gravity", "0 -9.81 0", e), "gravity") ||
        !try(c, st_node_set(root, "dt", "0.01", e), "dt"))
        return;
    if (cls->animloop && !try(c, st_node_add_object(root, cls->name, NULL, &x, e), "create"))
        return;
    if (!try(c, st_node_add_child(root, "Body", &body, e), "add_child"))
        return;
    /* The ODE solver first, then the linear solver, as scenes write them. */
    const char *ode = cls->odesolver ? cls->name : "EulerImplicitSolver";
    /* COLAMD orders LU factorizations only: it sits beside SparseLUSolver. */
    const char *lin = cls->linsolver                                ? cls->name
                      : strcmp(cls->name, "COLAMDOrderingMethod") == 0 ? "SparseLUSolver"
                                                                      : "SparseLDLSolver";
    if (!try(c, st_node_add_object(body, ode, NULL, &x, e), cls->odesolver ? "create" : ode) ||
        !try(c, st_node_add_object(body, lin, NULL, &x, e), cls->linsolver ? "create" : lin))
        return;
    bool state = cls->state != NULL; /* the state role (a MappedObject is not one) */
    if (!state_last && !add_state_and_topology(cls, c, body))
        return;
    if (cls->mass) {
        if (!try(c, st_node_add_object(body, cls->name, NULL, &x, e), "create"))
            return;
    } else if (!try(c, st_node_add_object(body, "UniformMass", "mass", &x, e), "mass") ||
               !try(c, st_component_set(x, "totalMass", "1", e), "mass.totalMass")) {
        return;
    }
    /* Springs and a fixed face give every solver a regular system (the
     * static and implicit ones factorise K or M - h^2 K). */
    if (!try(c, st_node_add_object(body, "MeshSpringForceField", "springs", &x, e), "springs") ||
        !try(c, st_component_set(x, "stiffness", "100", e), "springs.stiffness") ||
        !try(c, st_node_add_object(body, "FixedProjectiveConstraint", "fixed", &x, e), "fixed") ||
        !try(c, st_component_set(x, "indices", "0 1 2 3", e), "fixed.indices"))
        return;
    bool placed =
        state || cls->animloop || cls->odesolver || cls->linsolver || cls->topology || cls->mass;
    if (!placed && !try(c, st_node_add_object(body, cls->name, NULL, &x, e), "create"))
        return;
    if (state_last && !add_state_and_topology(cls, c, body))
        return;
    try(c, st_scene_init(c->s, e), "init");
}

static void build(test_rt *t, const st_class *cls, ctx *c) { build_ordered(t, cls, c, false); }

static bool positions_finite(st_scene *s, size_t *nvert)
{
    st_mstate *ms[64];
    size_t n = st_scene_states(s, ms, 64);
    *nvert = 0;
    for (size_t i = 0; i < n && i < 64; i++) {
        *nvert += ms[i]->n;
        for (size_t k = 0; k < 3 * ms[i]->n; k++)
            if (!isfinite(ms[i]->position.r[k]) || !isfinite(ms[i]->velocity.r[k]))
                return false;
    }
    return true;
}

static void exercise(test_rt *t, const st_class *cls, int *nrun, int *nrefused)
{
    ctx c;
    build(t, cls, &c);
    const char *why = refusal_of(cls->name);
    char msg[ST_ERROR_MSG_MAX + 1024];
    st_error_format(&c.err, msg, sizeof msg);
    if (why) {
        if (c.st == ST_OK)
            failf(cls->name, "initialised with its defaults but is listed as refusing them: ",
                  why);
        else if (strcmp(c.at, "create") != 0 && strcmp(c.at, "init") != 0)
            failf(cls->name, "the stock scene around it failed: ", msg);
        else if (c.err.msg[0] == 0 || !strstr(msg, cls->name))
            failf(cls->name, "refused its defaults without a message naming the class: ", msg);
        else
            (*nrefused)++;
        st_scene_destroy(&c.s);
        return;
    }
    if (c.st != ST_OK) {
        char buf[sizeof msg + 64];
        snprintf(buf, sizeof buf, "%s (%s) %s", c.at, st_status_name(c.st), msg);
        failf(cls->name, "failed with its defaults at ", buf);
        st_scene_destroy(&c.s);
        return;
    }
    for (int k = 0; k < 5; k++) {
        if (st_scene_step(c.s, 0, &c.err) != ST_OK) {
            failf(cls->name, "step failed: ", st_error_format(&c.err, msg, sizeof msg));
            st_scene_destroy(&c.s);
            return;
        }
    }
    size_t nvert = 0;
    if (!positions_finite(c.s, &nvert))
        failf(cls->name, "positions or velocities not finite after 5 steps", NULL);
    else if (nvert < 8)
        failf(cls->name, "the scene lost its 8 vertices", NULL);
    else if (!(st_scene_time(c.s) > 0.049 && st_scene_time(c.s) < 0.051))
        failf(cls->name, "time did not advance by 5 dt", NULL);
    else
        (*nrun)++;
    st_scene_destroy(&c.s);
}

static test_rt T;

static void setup(void)
{
    test_rt_open(&T);
    st_error err = {0};
    /* Default search path: tests run from the build tree, whose plugin
     * folder comes after SETTEE_PLUGIN_PATH (empty under ctest). */
    cr_assert_eq(st_runtime_load_all_plugins(T.rt, &err), ST_OK, "%s", err.msg);
    /* Classes that write cache files in the working directory
     * (PrecomputedLinearSolver, PrecomputedConstraintCorrection) write
     * them in the test's TMPDIR, never in the source tree. */
    const char *tmp = getenv("TMPDIR");
    cr_assert(tmp && chdir(tmp) == 0, "TMPDIR %s", tmp ? tmp : "(unset)");
}

static void teardown(void) { test_rt_close(&T); }

TestSuite(conformance, .init = setup, .fini = teardown, .timeout = 300);

Test(conformance, every_bundled_plugin_is_loaded)
{
    for (size_t i = 0; i < sizeof bundled / sizeof *bundled; i++)
        cr_expect_not_null(st_runtime_find_plugin(T.rt, bundled[i]), "plugin %s not loaded:\n%s",
                           bundled[i], T.log);
    /* The refusal table names registered classes only. */
    st_registry *reg = st_runtime_registry(T.rt);
    for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
        cr_expect_not_null(st_registry_find(reg, refusals[i].cls),
                           "refusal table names %s, which no plugin registers", refusals[i].cls);
}

Test(conformance, every_class_with_defaults_inits_steps_and_is_destroyed)
{
    st_registry *reg = st_runtime_registry(T.rt);
    size_t n = st_registry_count(reg);
    cr_assert_gt(n, 30, "only %zu classes registered:\n%s", n, T.log);
    int nrun = 0, nrefused = 0;
    bool leaked = false;
    cr_log_info("leak check after each class: %s", LEAK_CHECKED ? "on" : "off (no ASan)");
    for (size_t i = 0; i < n; i++) {
        const st_class *cls = st_registry_class(reg, i);
        cr_assert_not_null(cls);
        exercise(&T, cls, &nrun, &nrefused);
        /* Each scene is destroyed: whatever it left unreachable leaked.
         * The first class after which a leak shows is the one to blame. */
        if (!leaked && LEAK_CHECK()) {
            leaked = true;
            failf(cls->name, "leaked memory (see LeakSanitizer's report above)", NULL);
        }
    }
    cr_log_info("conformance: %zu classes, %d ran, %d refused their defaults as expected", n,
                nrun, nrefused);
    cr_assert_eq(nfailed, 0, "%d of %zu classes failed:%s", nfailed, n, report);
    cr_assert_eq((size_t)(nrun + nrefused), n);
    cr_assert_eq((size_t)nrefused, sizeof refusals / sizeof *refusals);
}

/* The harness itself: a class that refuses its defaults is caught, with a
 * message naming it, and the stock scene runs finite when the class under
 * test is the stock one. */
Test(conformance, harness_detects_refusal_and_runs_stock_scene)
{
    st_registry *reg = st_runtime_registry(T.rt);
    const st_class *um = st_registry_find(reg, "UniformMass");
    cr_assert_not_null(um);
    ctx c;
    build(&T, um, &c);
    cr_assert_neq(c.st, ST_OK);
    cr_assert_str_eq(c.at, "init");
    char msg[ST_ERROR_MSG_MAX + 1024];
    cr_assert(strstr(st_error_format(&c.err, msg, sizeof msg), "UniformMass"), "%s", msg);
    st_scene_destroy(&c.s);

    const st_class *mo = st_registry_find(reg, "MechanicalObject");
    cr_assert_not_null(mo);
    build(&T, mo, &c);
    cr_assert_eq(c.st, ST_OK, "%s: %s", c.at, c.err.msg);
    st_mstate *ms = st_node_mstate(st_node_child(st_scene_root(c.s), 0));
    cr_assert_eq(ms->n, 8, "the MechanicalObject took %zu vertices from the grid", ms->n);
    double y0 = ms->position.r[3 * 7 + 1], x0[3];
    memcpy(x0, ms->position.r, sizeof x0);
    for (int k = 0; k < 5; k++)
        cr_assert_eq(st_scene_step(c.s, 0, &c.err), ST_OK, "%s", c.err.msg);
    size_t nv = 0;
    cr_assert(positions_finite(c.s, &nv));
    /* The bottom face is fixed, the top corner sags. */
    cr_assert_lt(ms->position.r[3 * 7 + 1], y0);
    cr_assert_eq(memcmp(x0, ms->position.r, sizeof x0), 0);
    st_scene_destroy(&c.s);
}

/* Every class, in the stock scene with the MechanicalObject and the
 * topology written after every other component of their node, behaves as
 * in the usual order: same refusal, or the same positions after 5 steps
 * (the components' own relative order is unchanged, so to the last bit). */
Test(conformance, every_class_gives_the_same_result_written_before_its_state)
{
    st_registry *reg = st_runtime_registry(T.rt);
    size_t n = st_registry_count(reg);
    int compared = 0;
    for (size_t i = 0; i < n; i++) {
        const st_class *cls = st_registry_class(reg, i);
        ctx a, b;
        build_ordered(&T, cls, &a, false);
        build_ordered(&T, cls, &b, true);
        if ((a.st == ST_OK) != (b.st == ST_OK)) {
            char msg[ST_ERROR_MSG_MAX + 1024];
            st_error_format(a.st == ST_OK ? &b.err : &a.err, msg, sizeof msg);
            failf(cls->name, a.st == ST_OK ? "fails only when written before its state: "
                                           : "fails only in the usual order: ", msg);
        } else if (a.st == ST_OK) {
            bool ok = true;
            for (int k = 0; k < 5 && ok; k++)
                ok = st_scene_step(a.s, 0, &a.err) == ST_OK && st_scene_step(b.s, 0, &b.err) == ST_OK;
            st_mstate *ma[64], *mb[64];
            size_t na = st_scene_states(a.s, ma, 64), nb = st_scene_states(b.s, mb, 64);
            if (!ok || na != nb) {
                failf(cls->name, "steps or states differ between the two orders", NULL);
            } else {
                for (size_t k = 0; k < na && k < 64; k++) {
                    size_t len = ma[k]->n * ma[k]->type->coord_size;
                    if (mb[k]->n != ma[k]->n ||
                        memcmp(ma[k]->position.r, mb[k]->position.r, len * sizeof(double))) {
                        failf(cls->name, "positions differ when written before its state", NULL);
                        break;
                    }
                }
                compared++;
            }
        }
        st_scene_destroy(&a.s);
        st_scene_destroy(&b.s);
    }
    cr_log_info("order independence: %d classes compared step by step", compared);
    cr_assert_eq(nfailed, 0, "%d classes depend on the order:%s", nfailed, report);
    cr_assert_gt(compared, 100);
}
