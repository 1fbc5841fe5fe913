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
    /* Unknown attributes of a SOFA scene, ignored with a warning (as SOFA
     * does): "WHERE: PATH: MESSAGE" lines, for a list at the end. */
    char **ignored;
    size_t nignored;
} cli_log;
/* Prints the ignored attributes again (with a header) to stderr. */
void cli_log_list_ignored(const cli_log *log);
/* Frees what the log keeps. */
void cli_log_free(cli_log *log);

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
 * --plugin-path DIR (repeatable) and up to two flags without a value. */
typedef struct cli_one_arg {
    const char *arg;    /* the positional argument, or NULL */
    const char **paths; /* the --plugin-path values (owned; free() it) */
    size_t npaths;
    bool flag;          /* the flag was given */
    bool flag2;         /* the second flag was given */
    bool strict;        /* --strict (accepted by `settee check` only) */
} cli_one_arg;
/* Parses argv into out for the subcommand cmd; `what` names the positional
 * argument in messages ("scene", "name"); flag_short and flag2_long (a second
 * flag, long form only) may be NULL. Returns -1
 * when the command line is valid, else the exit status (the message was
 * printed). out->paths is to be freed in both cases. */
int cli_parse_one_arg(int argc, char **argv, const char *cmd, const char *what,
                      const char *flag_short, const char *flag_long, const char *flag2_long,
                      cli_one_arg *out);

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
/* A value already written as JSON text (copied as it is). */
void jw_raw(jw *w, const char *key, const char *json);
/* A JSON string literal (null for NULL). */
void jw_write_string(FILE *f, const char *s);

/* ---- data fields collected at the end of a run (collect.c) ---- */

/* One --collect spec: [NAME=]PATH.FIELD[I][J] (see collect.c). */
typedef struct cli_collect_item {
    char name[256];            /* the key in the output: NAME, or the spec without it */
    char target[1024];         /* PATH.FIELD, or a root key (time, dt, gravity) */
    long index[2];             /* tuple, then scalar within it; negative from the end */
    int nindex;
    int root_key;              /* after resolve: 0 time, 1 dt, 2 gravity, -1 a field */
    st_component *comp;        /* after resolve: borrowed from the scene */
    const st_field *field;
} cli_collect_item;

/* Parses a spec into it; false with a message in msg on a syntax error. */
bool cli_collect_parse(const char *spec, cli_collect_item *it, char *msg, size_t size);
/* Finds each item's component and field in the initialised scene. */
st_status cli_collect_resolve(cli_collect_item *items, size_t n, st_scene *s, st_error *err);
/* Writes {"steps": N, "time": T, "values": {NAME: VALUE, ...}} to f: scalars
 * as numbers (non-finite: null), tuples as arrays, arrays of tuples as
 * arrays of arrays, 17 significant digits. */
st_status cli_collect_write(const cli_collect_item *items, size_t n, st_scene *s,
                            unsigned long steps, FILE *f, st_error *err);

/* ---- files (files.c); each returns false or NULL with errno set ---- */
/* Writes the bytes to path through a temporary file renamed over it, so that
 * readers never see half a file. */
bool cli_write_file_atomic(const char *path, const char *data, size_t len);
/* The whole file, NUL-terminated (owned by the caller: free() it); NULL with
 * errno set (CLI_ENOTREG: not a regular file) when it cannot be read. */
char *cli_read_file(const char *path, size_t *len);
#define CLI_ENOTREG 4096
/* strerror(e), and for CLI_ENOTREG "not a regular file (...)". */
const char *cli_strerror(int e);
/* Creates a directory and its parents (mkdir -p). */
bool cli_mkdirs(const char *path);

/* ---- subcommands ---- */
int cli_run(int argc, char **argv);
int cli_check(int argc, char **argv);
int cli_convert(int argc, char **argv);
int cli_inspect(int argc, char **argv);
int cli_sweep(int argc, char **argv);
void cli_help_sweep(FILE *f);
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
    unsigned long resumed_at; /* --resume: the checkpoint's step (its earlier frames are
                                 not in this run's summary) */
    bool resuming;            /* --resume: the earlier frames in dir are this run's */
    output_frame *frames;     /* time and energies of each frame written */
    st_component **solvers;   /* borrowed: the iterative solvers (an "nbIterations" output) */
    const unsigned **solver_its; /* their nbIterations */
    size_t nsolvers;
    unsigned long *its_acc;   /* nsolvers: iterations since the last frame */
    unsigned long *its_log;   /* nsolvers per frame: iterations of the steps up to it */
    size_t nframes, capframes;
} cli_output;
/* Before init: creates the folder and adds a VTKExporter to the node of each
 * MechanicalObject (loads IO.Mesh). */
st_status cli_output_prepare(cli_output *o, st_runtime *rt, st_scene *s, st_error *err);
/* After init (and after a --resume; first_frame: record the initial
 * frame), and after each step: records the frames' times, energies and the
 * iterative solvers' iteration counts. */
void cli_output_begin(cli_output *o, st_scene *s, bool first_frame);
void cli_output_step(cli_output *o, st_scene *s, unsigned long done);
/* VTU files written so far. */
unsigned long cli_output_files(const cli_output *o);
/* Writes DIR/summary.json (temporary file, then rename). */
st_status cli_output_finish(cli_output *o, st_scene *s, const char *scene_file,
                            unsigned long done, double wall, st_error *err);
void cli_output_free(cli_output *o);

/* ---- what a scene is (report.c) ---- */
/* Per mechanical system: ODE solver, linear solver, states, masses (with
 * totals), force fields (element counts), projective constraints (points
 * constrained); then the ROIs (points selected). Text to f when w is NULL,
 * else the JSON members "systems" and "rois" into the open object of w.
 * The scene must be initialised. */
void cli_scene_report(st_scene *s, FILE *f, jw *w);

/* ---- solver outcomes during a run (solver_stats.c) ---- */
/* Statistics of the scalar output fields (ST_F_OUTPUT) of every ODE and
 * linear solver: min, max, mean, last of numbers; counts of texts. */
typedef struct cli_solver_stats cli_solver_stats;
/* After init; NULL when out of memory (the run goes on without). */
cli_solver_stats *cli_solver_stats_create(st_scene *s);
/* After each step. */
void cli_solver_stats_record(cli_solver_stats *st);
/* One line per solver that reported something: "  CLASS PATH: FIELD ...". */
void cli_solver_stats_print(const cli_solver_stats *st, FILE *f);
/* The member "solvers": [{path, class, outputs: {FIELD: {...}}}]. */
void cli_solver_stats_json(const cli_solver_stats *st, jw *w);
/* Where the solvers' time went (forces, assembly, factorization, linear
 * solves, products, other), per system, as the kernel timed it. */
void cli_phases_print(st_scene *s, FILE *f);
void cli_phases_json(st_scene *s, jw *w);
void cli_solver_stats_free(cli_solver_stats *st);

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
    const char *files_dir; /* with --output: the folder, shown with files */
    unsigned long files;   /* files written there so far */
} cli_progress;

/* Monotonic wall clock in seconds. */
double cli_now(void);
void cli_progress_start(cli_progress *p, unsigned long total, bool enabled);
/* Draws the bar when more than a second has passed since start and the
 * last draw is older than 1/20 s. Cheap when it does nothing. */
void cli_progress_update(cli_progress *p, unsigned long done, double sim_time);
/* True when a redraw is due: cli_progress_update's timing, for callers that
 * draw their own text with cli_progress_draw. */
bool cli_progress_due(cli_progress *p);
/* Draws "[####------] TEXT" (frac in [0, 1]) fitted to the terminal. */
void cli_progress_draw(cli_progress *p, double frac, const char *text);
/* The remaining time ("12m03s", "4.2s", "?") from the rate so far. */
void cli_progress_eta(const cli_progress *p, unsigned long done, char *buf, size_t size);
/* Erases the bar (before other output and at the end). */
void cli_progress_clear(cli_progress *p);
/* The bar currently on screen, cleared by the log sink before a message. */
extern cli_progress *cli_active_progress;

#endif
