/* test_sofa_fields.c - SOFA's data fields on every component of the mechanics
 * plugins and the kernel built-ins (issue 10): a scene that sets each newly
 * accepted field to a SOFA-style value loads and runs; a field settee
 * ignores says so once (an information message) and leaves the result
 * bit-identical; a value settee cannot honour is refused with a clear
 * error; the new fields settee implements act. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static const char *const PLUGINS =
    "format: settee/1\n"
    "root:\n"
    "  gravity: [0, -9.81, 0]\n"
    "  dt: 0.01\n"
    "  objects:\n"
    "    - RequiredPlugin: {pluginName: [Mass, SolidMechanics.Spring, Constraint.Projective,\n"
    "        ODESolver.Forward, ODESolver.Backward, LinearSolver.Direct, LinearSolver.Iterative,\n"
    "        LinearSolver.Ordering, Topology, Engine.Select, Mapping.Linear]";

/* The scene body. Text between backquotes is the SOFA data under test: the
 * "with" scene keeps it, the "without" scene drops it. */
static const char *const BODY =
    "`, suffixMap: [_d, _debug], stopAfterFirstSuffixFound: false`}\n"
    "    - DefaultAnimationLoop: {`parallelODESolving: true, computeBoundingBox: false`}\n"
    "  children:\n"
    "    - name: Implicit\n"
    "      objects:\n"
    "        - EulerImplicitSolver: {rayleighStiffness: 0.1`, threadSafeVisitor: true,\n"
    "            solveConstraint: true`}\n"
    "        - SparseLDLSolver: {`parallelInverseProduct: true`}\n"
    "        - MechanicalObject: {name: dofs`, showObject: true, showObjectScale: 2,\n"
    "            showIndices: true, showIndicesScale: 0.5, showVectors: true,\n"
    "            showVectorsScale: 0.1, drawMode: 1, showColor: \"1 0 0 1\", reserve: 100,\n"
    "            constraint: [], mappingJacobian: []`}\n"
    "        - RegularGridTopology: {name: grid, n: [2, 2, 3], min: [0, 0, 0], max: [1, 1, 2]`,\n"
    "            computeAllBuffers: true, drawEdges: true, drawTriangles: true, drawQuads: true,\n"
    "            drawTetrahedra: true, drawHexahedra: true, createTexCoords: true`}\n"
    "        - HexahedronSetGeometryAlgorithms: {`showIndicesScale: 0.02, showPointIndices: true,\n"
    "            tagMechanics: mech, showEdgeIndices: true, drawEdges: true,\n"
    "            drawColorEdges: \"0 0 1 1\", showQuadIndices: true, drawQuads: true,\n"
    "            drawColorQuads: \"1 0 0 1\", showHexaIndices: true, drawHexa: true,\n"
    "            drawScaleHexahedra: 0.8, drawColorHexahedra: \"1 0 1 1\"`}\n"
    "        - MeshMatrixMass: {massDensity: 2`, showGravityCenter: true, showAxisSizeFactor: 2,\n"
    "            rayleighStiffness: 0.1, mstate: \"@dofs\"`}\n"
    "        - BoxROI: {name: box, box: [-0.1, -0.1, -0.1, 1.1, 1.1, 0.1]`, drawBoxes: true,\n"
    "            drawPoints: true, drawEdges: true, drawTriangles: true, drawQuads: true,\n"
    "            drawTetrahedra: true, drawHexahedra: true, drawSize: 3`}\n"
    "        - FixedProjectiveConstraint: {indices: \"@box.indices\"`, showObject: false,\n"
    "            drawSize: 2, group: 1, mstate: \"@dofs\"`}\n"
    "        - MeshSpringForceField: {stiffness: 100`, drawMinElongationRange: 1,\n"
    "            drawMaxElongationRange: 2, drawSpringSize: 3`}\n"
    "        - RestShapeSpringsForceField: {points: [11], stiffness: [10]`, drawSpring: true,\n"
    "            springColor: \"0 0 1 1\", angularStiffness: [1], pivot_points: [0, 0, 0],\n"
    "            recompute_indices: false, mstate: \"@dofs\"`}\n"
    "      children:\n"
    "        - name: Mapped\n"
    "          objects:\n"
    "            - MechanicalObject: {name: copy}\n"
    "            - IdentityMapping: {input: \"@../dofs\", output: \"@copy\"`, mapConstraints: false,\n"
    "                mapMatrices: true`}\n"
    "    - name: Explicit\n"
    "      objects:\n"
    "        - EulerExplicitSolver: {`threadSafeVisitor: true`}\n"
    "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]}\n"
    "        - TetrahedronSetTopologyContainer: {tetrahedra: [0, 1, 2, 3]`, checkTopology: true,\n"
    "            checkConnexity: true, createTriangleArray: true`}\n"
    "        - TetrahedronSetTopologyModifier: {`propagateToDOF: false, removeIsolated: false`}\n"
    "        - TetrahedronSetGeometryAlgorithms: {`showTriangleIndices: true, drawTriangles: true,\n"
    "            drawColorTriangles: \"0 1 0 1\", drawNormals: true, drawNormalLength: 2,\n"
    "            showTetrasIndices: true, drawTetrahedron: true, drawScaleTetrahedra: 0.5,\n"
    "            drawColorTetrahedra: \"0.5 0.5 0.5 1\"`}\n"
    "        - DiagonalMass: {massDensity: 10`, showGravityCenter: true, rayleighStiffness: 0.2`}\n"
    "        - SpringForceField: {springsIndices1: [0, 1], springsIndices2: [2, 3],\n"
    "            stiffness: [50], damping: [1]`, showArrowSize: 0.1, drawMode: 2`}\n"
    "        - PartialFixedProjectiveConstraint: {indices: [0]`, activate_projectVelocity: true,\n"
    "            showObject: false, drawSize: 1, group: 2`}\n"
    "        - FixedPlaneProjectiveConstraint: {direction: [0, 0, 1], indices: [1]`, group: 3,\n"
    "            mstate: \"@dofs\"`}\n"
    "        - SphereROI: {centers: [0, 0, 0], radii: [0.5]`, isVisible: true, drawPoints: true,\n"
    "            drawSize: 2`}\n"
    "    - name: Central\n"
    "      objects:\n"
    "        - CentralDifferenceSolver: {`threadSafeVisitor: true`}\n"
    "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0, 2, 0, 0]}\n"
    "        - EdgeSetTopologyContainer: {edges: [0, 1, 1, 2]`, checkConnexity: true`}\n"
    "        - EdgeSetTopologyModifier: {`propagateToDOF: false`}\n"
    "        - EdgeSetGeometryAlgorithms: {`drawEdges: true, drawColorEdges: \"1 0 0 1\"`}\n"
    "        - UniformMass: {totalMass: 3`, showGravityCenter: true, showAxisSizeFactor: 2,\n"
    "            compute_mapping_inertia: true, showInitialCenterOfGravity: true, showX0: true,\n"
    "            preserveTotalMass: true, rayleighStiffness: 0.3`}\n"
    "        - MeshSpringForceField: {stiffness: 20}\n"
    "        - FixedProjectiveConstraint: {indices: [0]}\n"
    "    - name: Newmark\n"
    "      objects:\n"
    "        - NewmarkImplicitSolver: {`threadSafeVisitor: true`}\n"
    "        - CGLinearSolver: {iterations: 100, tolerance: 1e-12, threshold: 1e-20`,\n"
    "            parallelInverseProduct: true`}\n"
    "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]}\n"
    "        - QuadSetTopologyContainer: {quads: [0, 1, 2, 3]`, checkTopology: true`}\n"
    "        - QuadSetTopologyModifier: {`propagateToDOF: false`}\n"
    "        - QuadSetGeometryAlgorithms: {`showQuadIndices: true, drawColorQuads: \"0 0 0 1\"`}\n"
    "        - UniformMass: {totalMass: 1}\n"
    "        - MeshSpringForceField: {stiffness: 50}\n"
    "        - FixedProjectiveConstraint: {indices: [0, 1]}\n"
    "    - name: Preconditioned\n"
    "      objects:\n"
    "        - EulerImplicitSolver: {}\n"
    "        - PCGLinearSolver: {iterations: 100, tolerance: 1e-12, preconditioner: \"@jacobi\"`,\n"
    "            parallelInverseProduct: true`}\n"
    "        - JacobiPreconditioner: {name: jacobi`, parallelInverseProduct: true`}\n"
    "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0, 0, 1, 0]}\n"
    "        - TriangleSetTopologyContainer: {triangles: [0, 1, 2]`, checkTopology: true`}\n"
    "        - TriangleSetTopologyModifier: {`propagateToDOF: false`}\n"
    "        - TriangleSetGeometryAlgorithms: {`drawTriangles: true, drawNormalLength: 1`}\n"
    "        - UniformMass: {totalMass: 1}\n"
    "        - MeshSpringForceField: {stiffness: 50}\n"
    "        - FixedProjectiveConstraint: {indices: [0]}\n"
    "    - name: LU\n"
    "      objects:\n"
    "        - EulerImplicitSolver: {}\n"
    "        - SparseLUSolver: {`verbose: true, parallelInverseProduct: true`}\n"
    "        - AMDOrderingMethod: {}\n"
    "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0]}\n"
    "        - PointSetTopologyContainer: {`checkTopology: true`}\n"
    "        - PointSetTopologyModifier: {`propagateToDOF: false`}\n"
    "        - PointSetGeometryAlgorithms: {`showPointIndices: true, tagMechanics: x`}\n"
    "        - MeshTopology: {edges: [0, 1]`, drawEdges: true, computeAllBuffers: true`}\n"
    "        - UniformMass: {totalMass: 1}\n"
    "        - MeshSpringForceField: {stiffness: 50}\n"
    "        - FixedProjectiveConstraint: {indices: [0]}\n"
    "    - name: Cholesky\n"
    "      objects:\n"
    "        - EulerImplicitSolver: {}\n"
    "        - SparseCholeskySolver: {`verbose: true, parallelInverseProduct: true`}\n"
    "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0,\n"
    "            0, 0, 1, 1, 0, 1, 0, 1, 1, 1, 1, 1]}\n"
    "        - GridTopology: {n: [2, 2, 2]`, drawHexahedra: true, computeAllBuffers: true,\n"
    "            createTexCoords: true`}\n"
    "        - UniformMass: {totalMass: 1}\n"
    "        - MeshSpringForceField: {stiffness: 50}\n"
    "        - FixedProjectiveConstraint: {indices: [0, 1, 2, 3]}\n";

/* Every ignored field the body sets, as "Class: field". */
static const char *const IGNORED[] = {
    "RequiredPlugin: suffixMap", "RequiredPlugin: stopAfterFirstSuffixFound",
    "DefaultAnimationLoop: parallelODESolving", "DefaultAnimationLoop: computeBoundingBox",
    "EulerImplicitSolver: threadSafeVisitor", "EulerImplicitSolver: solveConstraint",
    "SparseLDLSolver: parallelInverseProduct", "MechanicalObject: showObject",
    "MechanicalObject: showObjectScale", "MechanicalObject: showIndices",
    "MechanicalObject: showIndicesScale", "MechanicalObject: showVectors",
    "MechanicalObject: showVectorsScale", "MechanicalObject: drawMode",
    "MechanicalObject: showColor", "MechanicalObject: reserve", "MechanicalObject: constraint",
    "MechanicalObject: mappingJacobian", "RegularGridTopology: computeAllBuffers",
    "RegularGridTopology: drawEdges", "RegularGridTopology: drawTriangles",
    "RegularGridTopology: drawQuads", "RegularGridTopology: drawTetrahedra",
    "RegularGridTopology: drawHexahedra", "RegularGridTopology: createTexCoords",
    "HexahedronSetGeometryAlgorithms: showIndicesScale",
    "HexahedronSetGeometryAlgorithms: showPointIndices",
    "HexahedronSetGeometryAlgorithms: tagMechanics",
    "HexahedronSetGeometryAlgorithms: showEdgeIndices",
    "HexahedronSetGeometryAlgorithms: drawEdges", "HexahedronSetGeometryAlgorithms: drawColorEdges",
    "HexahedronSetGeometryAlgorithms: showQuadIndices",
    "HexahedronSetGeometryAlgorithms: drawQuads", "HexahedronSetGeometryAlgorithms: drawColorQuads",
    "HexahedronSetGeometryAlgorithms: showHexaIndices",
    "HexahedronSetGeometryAlgorithms: drawHexahedra",
    "HexahedronSetGeometryAlgorithms: drawScaleHexahedra",
    "HexahedronSetGeometryAlgorithms: drawColorHexahedra", "MeshMatrixMass: showGravityCenter",
    "MeshMatrixMass: showAxisSizeFactor", "MeshMatrixMass: rayleighStiffness", "BoxROI: drawROI",
    "BoxROI: drawPoints", "BoxROI: drawEdges", "BoxROI: drawTriangles", "BoxROI: drawQuads",
    "BoxROI: drawTetrahedra", "BoxROI: drawHexahedra", "BoxROI: drawSize",
    "FixedProjectiveConstraint: showObject", "FixedProjectiveConstraint: drawSize",
    "FixedProjectiveConstraint: group", "MeshSpringForceField: drawMinElongationRange",
    "MeshSpringForceField: drawMaxElongationRange", "MeshSpringForceField: drawSpringSize",
    "RestShapeSpringsForceField: drawSpring", "RestShapeSpringsForceField: springColor",
    "RestShapeSpringsForceField: pivot_points",
    "RestShapeSpringsForceField: recompute_indices", "IdentityMapping: mapConstraints",
    "IdentityMapping: mapMatrices", "EulerExplicitSolver: threadSafeVisitor",
    "TetrahedronSetTopologyContainer: checkTopology",
    "TetrahedronSetTopologyContainer: checkConnexity",
    "TetrahedronSetTopologyContainer: createTriangleArray",
    "TetrahedronSetTopologyModifier: propagateToDOF",
    "TetrahedronSetTopologyModifier: removeIsolated",
    "TetrahedronSetGeometryAlgorithms: showTriangleIndices",
    "TetrahedronSetGeometryAlgorithms: drawTriangles",
    "TetrahedronSetGeometryAlgorithms: drawColorTriangles",
    "TetrahedronSetGeometryAlgorithms: drawNormals",
    "TetrahedronSetGeometryAlgorithms: drawNormalLength",
    "TetrahedronSetGeometryAlgorithms: showTetrahedraIndices",
    "TetrahedronSetGeometryAlgorithms: drawTetrahedron",
    "TetrahedronSetGeometryAlgorithms: drawScaleTetrahedra",
    "TetrahedronSetGeometryAlgorithms: drawColorTetrahedra", "DiagonalMass: showGravityCenter",
    "DiagonalMass: rayleighStiffness", "SpringForceField: showArrowSize",
    "SpringForceField: drawMode", "PartialFixedProjectiveConstraint: activate_projectVelocity",
    "PartialFixedProjectiveConstraint: showObject", "PartialFixedProjectiveConstraint: drawSize",
    "PartialFixedProjectiveConstraint: group", "FixedPlaneProjectiveConstraint: group",
    "SphereROI: isVisible", "SphereROI: drawPoints", "SphereROI: drawSize",
    "CentralDifferenceSolver: threadSafeVisitor", "EdgeSetTopologyContainer: checkConnexity",
    "EdgeSetTopologyModifier: propagateToDOF", "EdgeSetGeometryAlgorithms: drawEdges",
    "EdgeSetGeometryAlgorithms: drawColorEdges", "UniformMass: showGravityCenter",
    "UniformMass: showAxisSizeFactor", "UniformMass: compute_mapping_inertia",
    "UniformMass: showInitialCenterOfGravity", "UniformMass: showX0",
    "UniformMass: rayleighStiffness",
    "NewmarkImplicitSolver: threadSafeVisitor", "CGLinearSolver: parallelInverseProduct",
    "QuadSetTopologyContainer: checkTopology", "QuadSetTopologyModifier: propagateToDOF",
    "QuadSetGeometryAlgorithms: showQuadIndices", "QuadSetGeometryAlgorithms: drawColorQuads",
    "PCGLinearSolver: parallelInverseProduct", "JacobiPreconditioner: parallelInverseProduct",
    "TriangleSetTopologyContainer: checkTopology", "TriangleSetTopologyModifier: propagateToDOF",
    "TriangleSetGeometryAlgorithms: drawTriangles",
    "TriangleSetGeometryAlgorithms: drawNormalLength", "SparseLUSolver: verbose",
    "SparseLUSolver: parallelInverseProduct", "PointSetTopologyContainer: checkTopology",
    "PointSetTopologyModifier: propagateToDOF", "PointSetGeometryAlgorithms: showPointIndices",
    "PointSetGeometryAlgorithms: tagMechanics", "MeshTopology: drawEdges",
    "MeshTopology: computeAllBuffers", "SparseCholeskySolver: verbose",
    "SparseCholeskySolver: parallelInverseProduct", "GridTopology: drawHexahedra",
    "GridTopology: computeAllBuffers", "GridTopology: createTexCoords"};
#define NIGNORED (sizeof IGNORED / sizeof IGNORED[0])

/* PLUGINS + BODY, keeping (with) or dropping the backquoted text. */
static char *scene_text(bool with)
{
    size_t n = strlen(PLUGINS) + strlen(BODY) + 1;
    char *s = malloc(n);
    cr_assert_not_null(s);
    strcpy(s, PLUGINS);
    char *o = s + strlen(s);
    bool in = false;
    for (const char *p = BODY; *p; p++) {
        if (*p == '`')
            in = !in;
        else if (with || !in)
            *o++ = *p;
    }
    *o = '\0';
    return s;
}

static void open_rt(test_rt *t)
{
    st_error err = {0};
    test_rt_open(t);
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK, "%s",
                 err.msg);
}

/* Loads and runs the scene for steps steps; copies every state's positions
 * into pos (size max) and returns their count. */
static size_t run_scene(test_rt *t, const char *yaml, int steps, double *pos, size_t max)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, t->log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s\n%s", err.msg, t->log);
    for (int i = 0; i < steps; i++)
        cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "step %d: %s", i, err.msg);
    st_mstate *ms[32];
    size_t nms = st_scene_states(s, ms, 32), k = 0;
    for (size_t i = 0; i < nms; i++)
        for (size_t j = 0; j < 3 * ms[i]->position.n && k < max; j++)
            pos[k++] = ms[i]->position.r[j];
    st_scene_destroy(&s);
    return k;
}

static size_t count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

Test(sofa_fields, every_field_loads_runs_and_changes_nothing)
{
    char *with = scene_text(true), *without = scene_text(false);
    static test_rt a, b;
    open_rt(&a);
    open_rt(&b);
    static double pa[4096], pb[4096];
    size_t na = run_scene(&a, with, 20, pa, 4096);
    size_t nb = run_scene(&b, without, 20, pb, 4096);
    cr_assert_eq(na, nb);
    cr_assert_gt(na, 30);
    /* The scene moved (gravity acts) and the ignored fields changed nothing. */
    bool moved = false;
    for (size_t i = 0; i < na; i++) {
        cr_assert_eq(pa[i], pb[i], "coordinate %zu: %.17g with the SOFA fields, %.17g without",
                     i, pa[i], pb[i]);
        moved = moved || pa[i] < -1e-6;
    }
    cr_assert(moved);
    /* Each ignored field set says so exactly once; the scene without them
     * says nothing of the kind. */
    for (size_t i = 0; i < NIGNORED; i++) {
        char msg[256];
        const char *colon = strchr(IGNORED[i], ':');
        snprintf(msg, sizeof msg, "%.*s: field '%s' is accepted for SOFA compatibility",
                 (int)(colon - IGNORED[i]), IGNORED[i], colon + 2);
        size_t c = count(a.log, msg);
        cr_assert(c >= 1, "no message for %s", IGNORED[i]);
    }
    cr_assert_eq(count(a.log, "is accepted for SOFA compatibility"), NIGNORED, "%s", a.log);
    cr_assert_eq(count(b.log, "is accepted for SOFA compatibility"), 0);
    cr_assert(strstr(a.log, "info|"), "the message is an information: %s", a.log);
    test_rt_close(&a);
    test_rt_close(&b);
    free(with);
    free(without);
}

/* A one-node scene around one object line; expect init or load to fail
 * with an error naming field and containing what. */
static void refused(const char *objects, const char *field, const char *what)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "%s}\n"
             "  children:\n"
             "    - name: N\n"
             "      objects:\n"
             "        - EulerImplicitSolver: {}\n"
             "        - CGLinearSolver: {}\n"
             "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0, 0, 1, 0,\n"
             "            0, 0, 1]}\n"
             "%s",
             PLUGINS, objects);
    test_rt t;
    open_rt(&t);
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = test_load_string(&t, yaml, &s, &err);
    if (st == ST_OK)
        st = st_scene_init(s, &err);
    cr_assert_neq(st, ST_OK, "%s was accepted", objects);
    cr_assert(strstr(err.msg, field), "error does not name %s: %s", field, err.msg);
    cr_assert(strstr(err.msg, what), "error does not say '%s': %s", what, err.msg);
    st_scene_destroy(&s);
    test_rt_close(&t);
}

Test(sofa_fields, unsupported_values_are_refused)
{
    refused("        - SpringForceField: {fileSprings: springs.xs3}\n", "fileSprings",
            "not supported");
    /* containers read .obj, .msh and .vtk files (tests/scene/test_scn_links.c) */
    refused("        - MeshTopology: {filename: mesh/cube.stl}\n", "filename",
            ".obj, .msh and .vtk");
    refused("        - TetrahedronSetTopologyContainer: {fileTopology: no/such/cube.msh}\n",
            "filename", "cannot find file");
    refused("        - RegularGridTopology: {filename: mesh/cube.obj}\n", "filename",
            "not supported");
    refused("        - MeshTopology: {prisms: [0, 1, 2, 3, 0]}\n", "prisms", "whole number");
    refused("        - MeshTopology: {pyramids: [0, 1, 2, 3]}\n", "pyramids", "whole number");
    refused("        - TriangleSetTopologyContainer: {triangles: [0, 1, 2]}\n"
            "        - TriangleSetGeometryAlgorithms: {recomputeTrianglesOrientation: true}\n",
            "recomputeTrianglesOrientation", "not supported");
    refused("        - TetrahedronSetTopologyContainer: {tetrahedra: [0, 1, 2, 3]}\n"
            "        - TetrahedronSetGeometryAlgorithms: {flipNormals: true}\n",
            "flipNormals", "not supported");
    refused("        - SphereROI: {centers: [0, 0, 0], radii: [1], edgeAngle: 30}\n", "edgeAngle",
            "not supported");
    refused("        - SphereROI: {centers: [0, 0, 0], radii: [1], angle: 30}\n", "triAngle",
            "not supported");
    refused("        - DiagonalMass: {fileMass: m.xs3}\n", "filename", "not supported");
}

/* The mstate link chooses the state a constraint acts on; one outside the
 * constraint's node and its ancestors is refused. */
Test(sofa_fields, projective_mstate_link_acts)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "%s}\n"
             "  children:\n"
             "    - name: A\n"
             "      objects:\n"
             "        - EulerExplicitSolver: {}\n"
             "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0]}\n"
             "        - UniformMass: {totalMass: 2}\n"
             "      children:\n"
             "        - name: C\n"
             "          objects:\n"
             "            - FixedProjectiveConstraint: {indices: [1]%s}\n",
             PLUGINS, ", mstate: \"@../dofs\"");
    static test_rt t;
    open_rt(&t);
    double p[6];
    cr_assert_eq(run_scene(&t, yaml, 5, p, 6), 6);
    cr_assert_lt(p[1], -1e-4, "vertex 0 falls: %g", p[1]);
    cr_assert_eq(p[4], 0.0, "vertex 1 is held: %g", p[4]);
    test_rt_close(&t);
    /* Without the link the constraint acts on its context state, the
     * parent node's (SOFA's getContext()->getMechanicalState()). */
    snprintf(yaml + strlen(yaml) - strlen(", mstate: \"@../dofs\"}\n"), 8, "}\n");
    open_rt(&t);
    cr_assert_eq(run_scene(&t, yaml, 5, p, 6), 6);
    cr_assert_lt(p[1], -1e-4, "vertex 0 falls: %g", p[1]);
    cr_assert_eq(p[4], 0.0, "vertex 1 is held: %g", p[4]);
    test_rt_close(&t);
    refused("        - UniformMass: {totalMass: 1}\n"
            "    - name: B\n"
            "      objects:\n"
            "        - FixedProjectiveConstraint: {mstate: \"@/N/dofs\"}\n",
            "mstate", "not supported");
}

/* Loads PLUGINS and one child node "A" holding objects, inits and steps once. */
static st_scene *one_node_step(test_rt *t, const char *objects)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%s}\n  children:\n    - name: A\n      objects:\n%s", PLUGINS,
             objects);
    open_rt(t);
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(t, yaml, &s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_scene_step(s, 0.01, &err), ST_OK, "%s", err.msg);
    return s;
}

/* SphereROI now has BaseROI's hexahedra, strict and doUpdate. */
Test(sofa_fields, sphere_roi_hexahedra_and_strict)
{
    test_rt t;
    st_scene *s = one_node_step(
        &t, "        - MechanicalObject: {name: dofs}\n"
            "        - RegularGridTopology: {n: [3, 2, 2], min: [0, 0, 0], max: [2, 1, 1]}\n"
            "        - SphereROI: {name: full, centers: [0.5, 0.5, 0.5], radii: [0.9]}\n"
            "        - SphereROI: {name: strict, centers: [0.5, 0.5, 0.5], radii: [0.6]}\n"
            "        - SphereROI: {name: loose, centers: [0.5, 0.5, 0.5], radii: [0.6],\n"
            "            strict: false}\n"
            "        - SphereROI: {name: off, centers: [0.5, 0.5, 0.5], radii: [0.9],\n"
            "            computeHexahedra: false}\n");
    /* The first cube's corners are 0.866 from its centre: inside 0.9, not
     * 0.6; strict false tests the centre only. */
    const char *names[] = {"full", "strict", "loose", "off"};
    size_t expect[] = {1, 0, 1, 0};
    for (int i = 0; i < 4; i++) {
        st_component *c = test_find_object(s, names[i]);
        cr_assert_not_null(c);
        const st_field *f = st_component_field(c, "hexahedronIndices");
        cr_assert_not_null(f);
        const st_array *a = st_component_field_ptr(c, f);
        cr_assert_eq(a->n, expect[i], "%s: %zu hexahedra", names[i], a->n);
        if (a->n)
            cr_assert_eq(a->u[0], 0u);
    }
    st_scene_destroy(&s);
    test_rt_close(&t);
}

/* SOFA's aliases reach the same data. */
Test(sofa_fields, aliases)
{
    test_rt t;
    st_scene *s = one_node_step(
        &t, "        - MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0]}\n"
            "        - SphereROI: {name: s, centers: [0, 0, 0], radii: [0.5],\n"
            "            rest_position: [0, 0, 0, 1, 0, 0], drawSphere: true}\n");
    st_component *c = test_find_object(s, "s");
    const st_array *idx = st_component_field_ptr(c, st_component_field(c, "pointIndices"));
    cr_assert_eq(idx->n, 1);
    cr_assert(st_component_is_set(c, "drawROI"));
    cr_assert(strstr(t.log, "SphereROI: field 'drawROI' is accepted"), "%s", t.log);
    st_scene_destroy(&s);
    test_rt_close(&t);
}
