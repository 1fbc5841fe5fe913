/* main.c - the `settee` program: dispatch of subcommands, help, messages,
 * option scanning and Ctrl-C handling shared by the subcommands. */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void print_help(FILE *f)
{
    fputs("usage: settee <command> [options] [arguments]\n"
          "\n"
          "A plugin-based physics simulation framework modelled on SOFA.\n"
          "\n"
          "Commands:\n"
          "  run SCENE        load, initialise and step a scene (default 100 steps)\n"
          "  check SCENE      load and initialise a scene without running it, report every error\n"
          "  inspect [NAME]   list plugins and their components, or describe one of them\n"
          "  convert SCENE    convert between settee YAML and SOFA XML (.scn)\n"
          "  sweep PLAN       run a parameter study: one process per case, locally, through\n"
          "                   GNU parallel or as a Slurm job array\n"
          "  help [COMMAND]   show this help, or the help of a command\n"
          "\n"
          "Options:\n"
          "  -h, --help       show this help\n"
          "  --version        show the version of settee and of its plugin ABI\n"
          "\n"
          "Exit status:\n"
          "  0    success\n"
          "  1    the scene, a plugin or the run failed (every error is printed on stderr)\n"
          "  2    bad command line (usage error)\n"
          "  130  interrupted by Ctrl-C\n"
          "\n"
          "Messages go to stderr as FILE:LINE:COL: error: PATH: MESSAGE.\n"
          "An unknown attribute in a SOFA scene (.scn/.xml) is a warning, as in SOFA (YAML\n"
          "scenes refuse it); `settee run --strict` and `settee check --strict` refuse it too.\n"
          "\n"
          "Environment:\n"
          "  SETTEE_PLUGIN_PATH  colon-separated plugin directories, searched after --plugin-path\n"
          "  SETTEE_PLUGIN_CACHE the plugin index's cache file (default\n"
          "                      $XDG_CACHE_HOME/settee/plugin-index or\n"
          "                      ~/.cache/settee/plugin-index; 0 for none)\n"
          "  SETTEE_THREADS      threads of OpenBLAS, CHOLMOD's OpenMP and the Parallel*\n"
          "                      components (default 1; `run --threads N` overrides it)\n"
          "  SETTEE_DATA_PATH    colon-separated folders where file names written in scenes\n"
          "                      are looked up, after the scene's own folder\n"
          "  SOFA_DATA_PATH      the same, searched after SETTEE_DATA_PATH (SOFA's variable:\n"
          "                      point it at SOFA's share/ and examples/)\n"
          "  NO_COLOR            when set, messages are never coloured\n"
          "\n"
          "Run 'settee help COMMAND' for the options of a command.\n",
          f);
}

static void print_version(void)
{
    printf("settee %s (plugin ABI %d.%d)\n", ST_VERSION_STRING, ST_ABI_MAJOR, ST_ABI_MINOR);
}

/* ---- messages ---- */

/* Colour escapes when stderr is a terminal and NO_COLOR is unset. */
static bool use_color(void)
{
    static int cached = -1;
    if (cached < 0) {
        const char *nc = getenv("NO_COLOR");
        cached = isatty(2) && !(nc && *nc);
    }
    return cached == 1;
}

static void print_diag(st_log_level level, const char *where, const char *path, const char *msg)
{
    static const char *names[] = {"error", "warning", "info"};
    static const char *colors[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};
    if (level > ST_LOG_INFO)
        level = ST_LOG_INFO;
    if (cli_active_progress)
        cli_progress_clear(cli_active_progress);
    bool c = use_color();
    fprintf(stderr, "%s%s:%s %s%s:%s ", c ? "\033[1m" : "", where && *where ? where : "settee",
            c ? "\033[0m" : "", c ? colors[level] : "", names[level], c ? "\033[0m" : "");
    if (path && *path)
        fprintf(stderr, "%s: ", path);
    fprintf(stderr, "%s\n", msg ? msg : "");
}

void cli_log_sink(st_log_level level, const char *where, const char *path, const char *msg,
                  void *ud)
{
    cli_log *log = ud;
    if (level == ST_LOG_ERROR) {
        log->nerrors++;
    } else if (level == ST_LOG_WARNING) {
        log->nwarnings++;
        if (msg && strstr(msg, "--strict makes it an error")) {
            char **l = realloc(log->ignored, (log->nignored + 1) * sizeof *l);
            size_t len = strlen(where ? where : "") + strlen(path ? path : "") + strlen(msg) + 8;
            char *line = l ? malloc(len) : NULL;
            if (l)
                log->ignored = l;
            if (line) {
                snprintf(line, len, "%s: %s%s%s", where ? where : "", path ? path : "",
                         path && *path ? ": " : "", msg);
                log->ignored[log->nignored++] = line;
            }
        }
        if (!log->show_warnings)
            return;
    } else if (!log->show_info) {
        return;
    }
    print_diag(level, where, path, msg);
}

void cli_log_list_ignored(const cli_log *log)
{
    if (!log->nignored)
        return;
    fprintf(stderr, "%zu unknown attribute%s ignored, as SOFA does (--strict makes %s an error):\n",
            log->nignored, log->nignored == 1 ? "" : "s", log->nignored == 1 ? "it" : "each");
    for (size_t i = 0; i < log->nignored; i++)
        fprintf(stderr, "  %s\n", log->ignored[i]);
}

void cli_log_free(cli_log *log)
{
    for (size_t i = 0; i < log->nignored; i++)
        free(log->ignored[i]);
    free(log->ignored);
    log->ignored = NULL;
    log->nignored = 0;
}

void cli_report(cli_log *log, const st_error *err)
{
    if (!err || err->code == ST_OK || err->reported)
        return;
    if (log)
        log->nerrors++;
    print_diag(ST_LOG_ERROR, err->where, err->path,
               err->msg[0] ? err->msg : st_status_name(err->code));
}

void cli_error(const char *fmt, ...)
{
    char msg[ST_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    print_diag(ST_LOG_ERROR, NULL, NULL, msg);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "settee%s%s: %s\n", cmd ? " " : "", cmd ? cmd : "", msg);
    fprintf(stderr, "Try 'settee %s%s--help' for more information.\n", cmd ? cmd : "",
            cmd ? " " : "");
    return CLI_EXIT_USAGE;
}

bool cli_runtime_open(st_runtime **rt, cli_log *log, const char **plugin_paths, size_t npaths)
{
    st_error err = {0};
    if (st_runtime_create(rt, &err) != ST_OK) {
        cli_report(log, &err);
        return false;
    }
    st_runtime_set_log(*rt, cli_log_sink, log);
    for (size_t i = 0; i < npaths; i++) {
        st_error_clear(&err);
        if (st_runtime_add_plugin_path(*rt, plugin_paths[i], &err) != ST_OK) {
            cli_report(log, &err);
            st_runtime_destroy(rt);
            return false;
        }
    }
    return true;
}

/* ---- options ---- */

bool cli_next(cli_args *a, const char **opt, const char **pos)
{
    *opt = *pos = NULL;
    a->inline_val = NULL;
    a->opt[0] = 0;
    if (a->i >= a->argc)
        return false;
    const char *s = a->argv[a->i++];
    if (!a->no_more && strcmp(s, "--") == 0) {
        a->no_more = true;
        return cli_next(a, opt, pos);
    }
    if (a->no_more || s[0] != '-' || s[1] == 0) {
        *pos = s;
        return false;
    }
    if (s[1] == '-') {
        const char *eq = strchr(s, '=');
        size_t n = eq ? (size_t)(eq - s) : strlen(s);
        if (n >= sizeof a->opt)
            n = sizeof a->opt - 1;
        memcpy(a->opt, s, n);
        a->opt[n] = 0;
        a->inline_val = eq ? eq + 1 : NULL;
    } else {
        a->opt[0] = '-';
        a->opt[1] = s[1];
        a->opt[2] = 0;
        a->inline_val = s[2] ? s + 2 : NULL;
    }
    *opt = a->opt;
    return true;
}

bool cli_is(const char *opt, const char *short_name, const char *long_name)
{
    return (short_name && strcmp(opt, short_name) == 0) ||
           (long_name && strcmp(opt, long_name) == 0);
}

const char *cli_value(cli_args *a)
{
    if (a->inline_val)
        return a->inline_val;
    if (a->i < a->argc)
        return a->argv[a->i++];
    cli_usage_error(a->cmd, "option '%s' needs a value", a->opt);
    return NULL;
}

bool cli_flag(cli_args *a)
{
    if (!a->inline_val)
        return true;
    if (a->opt[1] != '-')
        cli_usage_error(a->cmd, "unknown option '%s%s'", a->opt, a->inline_val);
    else
        cli_usage_error(a->cmd, "option '%s' takes no value", a->opt);
    return false;
}

int cli_unknown_option(cli_args *a)
{
    return cli_usage_error(a->cmd, "unknown option '%s'", a->argv[a->i - 1]);
}

int cli_parse_one_arg(int argc, char **argv, const char *cmd, const char *what,
                      const char *flag_short, const char *flag_long, const char *flag2_long,
                      cli_one_arg *out)
{
    memset(out, 0, sizeof *out);
    out->paths = calloc((size_t)argc + 1, sizeof *out->paths);
    if (!out->paths) {
        cli_error("out of memory");
        return CLI_EXIT_ERROR;
    }
    cli_args a = {.argc = argc, .argv = argv, .i = 1, .cmd = cmd};
    const char *opt, *pos, *v;
    int rc = -1;
    while (rc < 0) {
        if (!cli_next(&a, &opt, &pos)) {
            if (!pos)
                break;
            if (out->arg)
                rc = cli_usage_error(cmd, "one %s at a time ('%s' and '%s' given)", what,
                                     out->arg, pos);
            out->arg = pos;
        } else if (cli_is(opt, NULL, "--plugin-path")) {
            if (!(v = cli_value(&a)))
                rc = CLI_EXIT_USAGE;
            else if (!*v)
                rc = cli_usage_error(cmd, "--plugin-path expects a directory, not ''");
            else
                out->paths[out->npaths++] = v;
        } else if (cli_is(opt, flag_short, flag_long)) {
            if (!cli_flag(&a))
                rc = CLI_EXIT_USAGE;
            out->flag = true;
        } else if (!strcmp(cmd, "check") && cli_is(opt, NULL, "--strict")) {
            if (!cli_flag(&a))
                rc = CLI_EXIT_USAGE;
            out->strict = true;
        } else if (flag2_long && cli_is(opt, NULL, flag2_long)) {
            if (!cli_flag(&a))
                rc = CLI_EXIT_USAGE;
            out->flag2 = true;
        } else {
            rc = cli_unknown_option(&a);
        }
    }
    return rc;
}

/* ---- Ctrl-C ---- */

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
    /* a second Ctrl-C kills the program the usual way */
    signal(SIGINT, SIG_DFL);
}

void cli_catch_sigint(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
}

bool cli_interrupted(void) { return interrupted != 0; }

/* ---- dispatch ---- */

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    void (*help)(FILE *f);
} command;

static const command commands[] = {
    {"run", cli_run, cli_help_run},
    {"check", cli_check, cli_help_check},
    {"inspect", cli_inspect, cli_help_inspect},
    {"convert", cli_convert, cli_help_convert},
    {"sweep", cli_sweep, cli_help_sweep},
};

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "settee: unknown command '%s' (commands: run, check, inspect, convert, help)\n", name);
    fputs("Try 'settee --help' for more information.\n", stderr);
    return CLI_EXIT_USAGE;
}

static int help_command(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (argc > 2)
        return cli_usage_error("help", "takes at most one command name");
    if (strcmp(argv[1], "help") == 0) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    const command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    c->help(stdout);
    return CLI_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_help(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
        print_help(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "--version") == 0 || strcmp(name, "-V") == 0) {
        print_version();
        return CLI_EXIT_OK;
    }
    if (strcmp(name, "help") == 0)
        return help_command(argc - 1, argv + 1);
    if (name[0] == '-')
        return cli_usage_error(NULL, "unknown option '%s' (a command comes first)", name);
    const command *c = find_command(name);
    if (!c)
        return unknown_command(name);
    /* "settee run --help" anywhere before "--" */
    for (int i = 2; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            c->help(stdout);
            return CLI_EXIT_OK;
        }
    }
    return c->run(argc - 1, argv + 1);
}
