/* convert.c - `settee convert`: a scene from settee YAML to SOFA XML or
 * back. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_help_convert(FILE *f)
{
    fputs("usage: settee convert SCENE [-o OUTPUT]\n"
          "\n"
          "Converts SCENE between settee's YAML (format settee/1) and SOFA's XML (.scn, .xml).\n"
          "The output format follows OUTPUT's extension; without -o the other format is\n"
          "written to stdout. Includes are expanded. Values are written by their field's type\n"
          "(the plugins are opened to know it), and a RequiredPlugin the scene lacks is added.\n"
          "Both files build the same scene graph and give the same results.\n"
          "\n"
          "Options:\n"
          "  -o, --output FILE   write to FILE (replaced only when the conversion succeeds)\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 on success, 1 when SCENE cannot be read, 2 on a usage error.\n",
          f);
}

int cli_convert(int argc, char **argv)
{
    cli_args a = {.argc = argc, .argv = argv, .i = 1, .cmd = "convert"};
    const char *opt, *pos, *v, *in = NULL, *out = NULL;
    for (;;) {
        if (!cli_next(&a, &opt, &pos)) {
            if (!pos)
                break;
            if (in)
                return cli_usage_error("convert", "one scene at a time ('%s' and '%s' given)", in,
                                       pos);
            in = pos;
        } else if (cli_is(opt, "-o", "--output")) {
            if (!(v = cli_value(&a)))
                return CLI_EXIT_USAGE;
            if (!*v)
                return cli_usage_error("convert", "-o expects a file name");
            out = v;
        } else {
            return cli_unknown_option(&a);
        }
    }
    if (!in)
        return cli_usage_error("convert", "missing the scene file");
    cli_log log = {.show_info = false, .show_warnings = true};
    st_runtime *rt = NULL;
    if (!cli_runtime_open(&rt, &log, NULL, 0))
        return CLI_EXIT_ERROR;
    st_error err = {0};
    int rc = CLI_EXIT_OK;
    if (st_scene_convert(rt, in, out, &err) != ST_OK) {
        cli_report(&log, &err);
        rc = CLI_EXIT_ERROR;
    }
    st_runtime_destroy(&rt);
    return rc;
}
