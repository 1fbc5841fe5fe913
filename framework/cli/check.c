/* check.c - `settee check`: load and initialise a scene without running it,
 * report every error, warning and information message, and say what the
 * scene is (report.c): as text, or as JSON with --json. */
#include <stdlib.h>

#include "cli.h"

void cli_help_check(FILE *f)
{
    fputs("usage: settee check SCENE [options]\n"
          "\n"
          "Loads SCENE and initialises it (plugins, fields, links, solvers) without running it.\n"
          "Every error found is printed as FILE:LINE:COL: error: PATH: MESSAGE, together with\n"
          "warnings and information messages (for instance when a DefaultAnimationLoop is added\n"
          "because the root has no animation loop). On success prints\n"
          "  SCENE: ok (N nodes, M objects)\n"
          "then what the scene is: per mechanical system its ODE solver and linear solver,\n"
          "its states (type, points), masses (total), force fields (elements), collision\n"
          "models and constraints (points they constrain); then every ROI (points it\n"
          "selects).\n"
          "\n"
          "Options:\n"
          "  --json              print the report as JSON on stdout instead (\"ok\", \"nodes\",\n"
          "                      \"objects\", \"systems\", \"rois\"); errors still go to stderr\n"
          "  --plugin-path DIR   search DIR for plugins before SETTEE_PLUGIN_PATH (repeatable)\n"
          "  -q, --quiet         no information messages, no 'ok' line and no report\n"
          "  --strict            an unknown attribute in a SOFA scene (.scn/.xml) is an error,\n"
          "                      as in YAML scenes (by default it is a warning, as in SOFA,\n"
          "                      and the ignored attributes are listed again at the end)\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 when the scene is valid, 1 when it is not, 2 on a usage error.\n",
          f);
}

static void count_graph(const st_node *n, size_t *nodes, size_t *objects)
{
    (*nodes)++;
    *objects += st_node_object_count(n);
    for (size_t i = 0; i < st_node_child_count(n); i++)
        count_graph(st_node_child(n, i), nodes, objects);
}

static void print_json(const char *file, st_scene *s, size_t nodes, size_t objects,
                       bool added_loop, const cli_log *log)
{
    jw w = {.f = stdout};
    jw_object(&w, NULL);
    jw_string(&w, "scene", file);
    jw_bool(&w, "ok", s != NULL);
    jw_uint(&w, "errors", (unsigned long)log->nerrors);
    jw_uint(&w, "warnings", (unsigned long)log->nwarnings);
    if (s) {
        jw_uint(&w, "nodes", nodes);
        jw_uint(&w, "objects", objects);
        jw_bool(&w, "animation_loop_added", added_loop);
        cli_scene_report(s, NULL, &w);
    }
    jw_end_object(&w);
}

static int check_scene(const char *file, st_runtime *rt, cli_log *log, bool quiet, bool json)
{
    st_error err = {0};
    st_scene *s = NULL;
    st_status st = st_scene_load(rt, file, &s, &err);
    bool added_loop = false;
    if (st == ST_OK) {
        st_node *root = st_scene_root(s);
        bool had_loop = st_node_find(root, ST_ROLE_ANIMLOOP, ST_SEARCH_LOCAL) != NULL;
        st = st_scene_init(s, &err);
        added_loop = !had_loop && st_node_find(root, ST_ROLE_ANIMLOOP, ST_SEARCH_LOCAL) != NULL;
    }
    if (st != ST_OK) {
        cli_report(log, &err);
        cli_log_list_ignored(log);
        fprintf(stderr, "%s: %d error%s, %d warning%s\n", file, log->nerrors,
                log->nerrors == 1 ? "" : "s", log->nwarnings, log->nwarnings == 1 ? "" : "s");
        if (json)
            print_json(file, NULL, 0, 0, false, log);
        st_scene_destroy(&s);
        return CLI_EXIT_ERROR;
    }
    size_t nodes = 0, objects = 0;
    count_graph(st_scene_root(s), &nodes, &objects);
    if (json) {
        print_json(file, s, nodes, objects, added_loop, log);
    } else if (!quiet) {
        printf("%s: ok (%zu node%s, %zu object%s", file, nodes, nodes == 1 ? "" : "s", objects,
               objects == 1 ? "" : "s");
        if (added_loop)
            printf(", DefaultAnimationLoop added");
        if (log->nwarnings)
            printf(", %d warning%s", log->nwarnings, log->nwarnings == 1 ? "" : "s");
        printf(")\n");
        cli_scene_report(s, stdout, NULL);
    }
    if (!json)
        cli_log_list_ignored(log);
    st_scene_destroy(&s);
    return CLI_EXIT_OK;
}

int cli_check(int argc, char **argv)
{
    cli_one_arg o;
    int rc = cli_parse_one_arg(argc, argv, "check", "scene", "-q", "--quiet", "--json", &o);
    if (rc < 0 && !o.arg)
        rc = cli_usage_error("check", "missing the scene file");
    if (rc < 0) {
        cli_log log = {.show_info = !o.flag, .show_warnings = true};
        st_runtime *rt = NULL;
        if (!cli_runtime_open(&rt, &log, o.paths, o.npaths)) {
            rc = CLI_EXIT_ERROR;
        } else {
            st_runtime_set_strict(rt, o.strict);
            rc = check_scene(o.arg, rt, &log, o.flag, o.flag2);
        }
        st_runtime_destroy(&rt);
        cli_log_free(&log);
    }
    free(o.paths);
    return rc;
}
