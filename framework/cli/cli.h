/* cli.h - declarations shared by the files of the `settee` program.
 *
 * The program is the only part of settee that prints. Each subcommand lives
 * in its own file (run.c, check.c, inspect.c); main.c dispatches, and this
 * header holds the few helpers they share: the log sink, option parsing,
 * JSON output and the progress bar.
 */
#ifndef SETTEE_CLI_H
#define SETTEE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "settee/settee.h"

/* Exit codes, documented in `settee --help`. */
enum {
    CLI_EXIT_OK = 0,      /* success */
    CLI_EXIT_ERROR = 1,   /* the scene, a plugin or the run failed */
    CLI_EXIT_USAGE = 2,   /* bad command line */
    CLI_EXIT_SIGINT = 130 /* interrupted by Ctrl-C */
};

/* ---- messages (main.c) ---- */

/* What the log sink shows and what it has counted. */
typedef struct cli_log {
    bool show_info;     /* print info messages */
    bool show_warnings; /* print warnings */
    int nerrors, nwarnings;
} cli_log;

/* The sink passed to st_runtime_set_log; ud is a cli_log. Messages go to
 * stderr as "WHERE: error: PATH: MSG" (clang style). */
void cli_log_sink(st_log_level level, const char *where, const char *path, const char *msg,
                  void *ud);
/* Prints an error that the library returned, unless it was already sent to
 * the log sink (err->reported). Counts it in log when log is not NULL. */
void cli_report(cli_log *log, const st_error *err);
/* Prints "settee: error: MSG" to stderr (errors of the program itself). */
void cli_error(const char *fmt, ...) ST_PRINTF(1, 2);
/* Prints "settee: MSG" and a hint to try --help; returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) ST_PRINTF(2, 3);

/* Creates a runtime with the sink and the --plugin-path directories.
 * Prints what failed and returns false on failure. */
bool cli_runtime_open(st_runtime **rt, cli_log *log, const char **plugin_paths, size_t npaths);

/* ---- command-line options (main.c) ---- */

/* A small option scanner: options may come before or after positional
 * arguments; "--name=value", "--name value", "-n value" and "-nvalue" are
 * accepted; "--" ends the options. */
typedef struct cli_args {
    int argc;
    char **argv;
    int i;                  /* next argument */
    bool no_more;           /* after "--" */
    const char *cmd;        /* subcommand name, for messages */
    const char *inline_val; /* value attached with '=' or to a short option */
    char opt[64];           /* the current option's name */
} cli_args;

/* True and *opt set when the next argument is an option; false and *pos set
 * when it is a positional argument; false with both NULL at the end. */
bool cli_next(cli_args *a, const char **opt, const char **pos);
/* True if opt is short_name or long_name (either may be NULL). */
bool cli_is(const char *opt, const char *short_name, const char *long_name);
/* The value of the current option; NULL (and a usage message printed) when
 * it is missing. */
const char *cli_value(cli_args *a);
/* For an option without a value: false (and a usage message printed) when
 * one was attached ("--quiet=yes"). */
bool cli_flag(cli_args *a);
/* The usage message for an unknown option; returns CLI_EXIT_USAGE. */
int cli_unknown_option(cli_args *a);

/* The command line of check and inspect: at most one positional argument,
 * --plugin-path DIR (repeatable) and one flag without a value. */
typedef struct cli_one_arg {
    const char *arg;    /* the positional argument, or NULL */
    const char **paths; /* the --plugin-path values (owned; free() it) */
    size_t npaths;
    bool flag;          /* the flag was given */
} cli_one_arg;
/* Parses argv into out for the subcommand cmd; `what` names the positional
 * argument in messages ("scene", "name"); flag_short may be NULL. Returns -1
 * when the command line is valid, else the exit status (the message was
 * printed). out->paths is to be freed in both cases. */
int cli_parse_one_arg(int argc, char **argv, const char *cmd, const char *what,
                      const char *flag_short, const char *flag_long, cli_one_arg *out);

/* ---- JSON output (json.c) ---- */

/* A streaming writer: values are indented two spaces per level, one per
 * line, keys in the order they are written. */
#define JW_MAX_DEPTH 32
typedef struct jw {
    FILE *f;
    int depth;
    unsigned count[JW_MAX_DEPTH]; /* values written at each depth */
} jw;

/* key is NULL inside arrays and for the top-level value. */
void jw_object(jw *w, const char *key);
void jw_array(jw *w, const char *key);
void jw_end_object(jw *w);
void jw_end_array(jw *w);
void jw_string(jw *w, const char *key, const char *value); /* NULL value: null */
void jw_uint(jw *w, const char *key, unsigned long value);
void jw_real(jw *w, const char *key, double value);       /* non-finite: null */
void jw_bool(jw *w, const char *key, bool value);
void jw_null(jw *w, const char *key);
/* A JSON string literal (null for NULL). */
void jw_write_string(FILE *f, const char *s);

/* ---- subcommands ---- */
int cli_run(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_inspect(int argc, char **argv);
void cli_help_run(FILE *f);
void cli_help_check(FILE *f);
void cli_help_convert(FILE *f);
void cli_help_inspect(FILE *f);

/* ---- run --output (output.c) ---- */
typedef struct output_frame {
    unsigned long step;
    double time, kinetic, potential; /* s, J, J */
} output_frame;
typedef struct cli_output {
    const char *dir;          /* as given on the command line */
    unsigned long every;      /* steps between frames */
    char absdir[4096];
    st_component **exporters; /* borrowed: the VTKExporters added to the scene */
    size_t nexporters;
    char **stems;             /* file stem of each exporter (owned) */
    size_t nstems;
    output_frame *frames;     /* time and energies of each frame written */
    size_t nframes, capframes;
} cli_output;
/* Before init: creates the folder and adds a VTKExporter to the node of each
 * MechanicalObject (loads IO.Mesh). */
st_status cli_output_prepare(cli_output *o, st_runtime *rt, st_scene *s, st_error *err);
/* After init, and after each step: records the frames' times and energies. */
void cli_output_begin(cli_output *o, st_scene *s);
void cli_output_step(cli_output *o, st_scene *s, unsigned long done);
/* VTU files written so far. */
unsigned long cli_output_files(const cli_output *o);
/* Writes DIR/summary.json (temporary file, then rename). */
st_status cli_output_finish(cli_output *o, st_scene *s, const char *scene_file,
                            unsigned long done, double wall, st_error *err);
void cli_output_free(cli_output *o);

/* ---- Ctrl-C (main.c) ---- */
/* Installs a SIGINT handler that sets a flag (the first Ctrl-C only). */
void cli_catch_sigint(void);
bool cli_interrupted(void);

/* ---- progress bar on stderr (progress.c) ---- */
typedef struct cli_progress {
    bool enabled;        /* stderr is a terminal and the bar was asked for */
    bool drawn;          /* a bar is on screen now */
    double start;        /* wall clock at start, s */
    double last;         /* wall clock at the last draw, s */
    unsigned long total; /* steps planned */
} cli_progress;

/* Monotonic wall clock in seconds. */
double cli_now(void);
void cli_progress_start(cli_progress *p, unsigned long total, bool enabled);
/* Draws the bar when more than a second has passed since start and the
 * last draw is older than 1/20 s. Cheap when it does nothing. */
void cli_progress_update(cli_progress *p, unsigned long done, double sim_time);
/* Erases the bar (before other output and at the end). */
void cli_progress_clear(cli_progress *p);
/* The bar currently on screen, cleared by the log sink before a message. */
extern cli_progress *cli_active_progress;

#endif
