// run_scene: minimal SOFA driver used as a local reference oracle (NOT part of settee).
// Loads a scene, inits it like SOFA's BaseSimulationTest (node::load + node::initRoot),
// then calls sofa::simulation::node::animate(root, dt) N times (== SceneInstance::simulate(dt)).
// After init (step 0) and after each step prints one line:
//   STEP <k> TIME <t> TRIANGLES <nt> EDGES <ne> POINTS <np> [MSTATE <n>]
// for the mesh topology of node <node> (default SquareGravity).
// With --dump DIR, writes DIR/step_<kkkk>.txt with points, triangles and edges.
#include <sofa/simulation/graph/init.h>
#include <sofa/simulation/Simulation.h>
#include <sofa/simulation/Node.h>
#include <sofa/helper/system/FileRepository.h>
#include <sofa/helper/system/PluginManager.h>
#include <sofa/core/topology/BaseMeshTopology.h>
#include <sofa/core/behavior/BaseMechanicalState.h>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <sys/stat.h>
#include <unistd.h>
#include <sofa/helper/logging/MessageDispatcher.h>

using sofa::simulation::Node;

static void usage()
{
    std::fprintf(stderr,
        "usage: run_scene SCENE.scn [--steps N=50] [--dt DT=0.05] [--node NAME=SquareGravity]\n"
        "                 [--dump DIR] [--data-path DIR]... [--plugin-path DIR]... [--quiet]\n"
        "STEP lines go to stdout; all SOFA messages go to stderr (--quiet drops them).\n");
}

static void dump(const std::string& dir, int step, double t, sofa::core::topology::BaseMeshTopology* topo,
                 sofa::core::behavior::BaseMechanicalState* ms)
{
    char name[64];
    std::snprintf(name, sizeof name, "/step_%04d.txt", step);
    std::string path = dir + name;
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) { std::perror(path.c_str()); return; }
    std::fprintf(f, "step %d time %.17g\n", step, t);
    const auto n = ms ? ms->getSize() : 0;
    std::fprintf(f, "points %zu\n", (size_t)n);
    for (sofa::Size i = 0; i < n; ++i)
        std::fprintf(f, "%u %.17g %.17g %.17g\n", (unsigned)i, (double)ms->getPX(i), (double)ms->getPY(i), (double)ms->getPZ(i));
    const auto& tris = topo->getTriangles();
    std::fprintf(f, "triangles %zu\n", tris.size());
    for (size_t i = 0; i < tris.size(); ++i)
        std::fprintf(f, "%zu %u %u %u\n", i, (unsigned)tris[i][0], (unsigned)tris[i][1], (unsigned)tris[i][2]);
    const auto& edges = topo->getEdges();
    std::fprintf(f, "edges %zu\n", edges.size());
    for (size_t i = 0; i < edges.size(); ++i)
        std::fprintf(f, "%zu %u %u\n", i, (unsigned)edges[i][0], (unsigned)edges[i][1]);
    std::fclose(f);
}

int main(int argc, char** argv)
{
    if (argc < 2) { usage(); return 2; }
    std::string scene = argv[1];
    int steps = 50;
    double dt = 0.05;
    std::string nodeName = "SquareGravity";
    std::string dumpDir;
    bool quiet = false;
    std::vector<std::string> dataPaths = { "/work/sofa-data/share", "/work/sofa-data/examples" };
    std::vector<std::string> pluginPaths = { "/work/sofa-build/lib" };
    for (int i = 2; i < argc; ++i)
    {
        std::string a = argv[i];
        auto next = [&]() -> std::string { if (i + 1 >= argc) { usage(); std::exit(2); } return argv[++i]; };
        if (a == "--steps") steps = std::atoi(next().c_str());
        else if (a == "--dt") dt = std::atof(next().c_str());
        else if (a == "--node") nodeName = next();
        else if (a == "--dump") dumpDir = next();
        else if (a == "--data-path") dataPaths.insert(dataPaths.begin(), next());
        else if (a == "--plugin-path") pluginPaths.insert(pluginPaths.begin(), next());
        else if (a == "--quiet") quiet = true;
        else { usage(); return 2; }
    }
    if (!dumpDir.empty()) mkdir(dumpDir.c_str(), 0755);

    // SOFA's console handler writes to std::cout: keep the real stdout for our STEP lines
    // and send everything else written to fd 1 to stderr.
    std::fflush(stdout);
    const int outfd = dup(1);
    dup2(2, 1);
    FILE* out = fdopen(outfd, "w");

    sofa::simulation::graph::init();
    if (quiet) sofa::helper::logging::MessageDispatcher::clearHandlers();
    for (auto it = dataPaths.rbegin(); it != dataPaths.rend(); ++it)
        sofa::helper::system::DataRepository.addFirstPath(*it);
    for (auto it = pluginPaths.rbegin(); it != pluginPaths.rend(); ++it)
        sofa::helper::system::PluginRepository.addFirstPath(*it);

    Node::SPtr root = sofa::simulation::node::load(scene);
    if (!root) { std::fprintf(stderr, "ERROR: cannot load %s\n", scene.c_str()); return 1; }
    sofa::simulation::node::initRoot(root.get());

    Node* node = dynamic_cast<Node*>(root->getChild(nodeName));
    if (!node) { std::fprintf(stderr, "ERROR: node %s not found\n", nodeName.c_str()); return 1; }
    sofa::core::topology::BaseMeshTopology* topo = node->getMeshTopology();
    if (!topo) { std::fprintf(stderr, "ERROR: no mesh topology in %s\n", nodeName.c_str()); return 1; }
    auto* ms = dynamic_cast<sofa::core::behavior::BaseMechanicalState*>(node->getMechanicalState());
    std::fprintf(stderr, "topology: %s '%s'\n", topo->getClassName().c_str(), topo->getName().c_str());

    auto report = [&](int k) {
        const double t = root->getTime();
        std::fprintf(out, "STEP %d TIME %.6g TRIANGLES %zu EDGES %zu POINTS %zu MSTATE %zu\n", k, t,
                    (size_t)topo->getNbTriangles(), (size_t)topo->getNbEdges(), (size_t)topo->getNbPoints(),
                    (size_t)(ms ? ms->getSize() : 0));
        std::fflush(out);
        if (!dumpDir.empty()) dump(dumpDir, k, t, topo, ms);
    };
    report(0);
    for (int k = 1; k <= steps; ++k)
    {
        sofa::simulation::node::animate(root.get(), (SReal)dt);
        report(k);
    }
    sofa::simulation::node::unload(root);
    sofa::simulation::graph::cleanup();
    return 0;
}
