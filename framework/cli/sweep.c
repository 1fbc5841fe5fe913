/* sweep.c - `settee sweep`: a parameter study over one scene (docs/sweeps.md).
 *
 * Each case runs as `settee sweep PLAN --case K`, a process of its own that
 * forks a worker running `settee run` in-process and records the outcome
 * (exit status, signal, timeout, wall time, collected fields, first error
 * line) in DIR/cases/NNNN/result.json. The local driver starts these
 * processes -j at a time; `--list` prints them for GNU parallel or xargs;
 * `--slurm` writes them into a job array. `--collect` builds the tables
 * from whatever records exist, whoever ran them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"

extern char **environ;

void cli_help_sweep(FILE *f)
{
    fputs("usage: settee sweep PLAN [options]\n"
          "\n"
          "Runs the cases of a parameter study: PLAN (YAML, 'sweep: settee/1') names a scene,\n"
          "the parameters to vary (lists, ranges, seeded random draws; product or zip), the\n"
          "steps and the data fields to collect (see docs/sweeps.md). Each case runs in a\n"
          "process of its own; a crash, a NaN or a timeout is recorded and the others go on.\n"
          "Results: DIR/results.csv and DIR/results.json (one row per case: case, the\n"
          "parameters, status (ok, failed, diverged, crashed, timeout, missing), wall_s, the\n"
          "collected\n"
          "values, error) and DIR/cases/NNNN/ (result.json, log.txt). A second call skips the\n"
          "cases already done (same scene, parameters, steps and fields) and redoes the others;\n"
          "Ctrl-C stops cleanly and the next call resumes.\n"
          "\n"
          "Modes (default: run the cases here):\n"
          "  --list                  print one self-contained shell command per case (for GNU\n"
          "                          parallel, xargs -P or any scheduler), then build the tables\n"
          "                          with --collect\n"
          "  --pending               with --list or --slurm: only the cases without an ok result\n"
          "  --case K                run case K (0-based) and record it, nothing else\n"
          "  --collect               build the tables from the case folders\n"
          "  --slurm                 write DIR/sweep.sbatch, a job array of the pending cases\n"
          "                          (one task per case, logs in DIR/logs/), and submit it with\n"
          "                          sbatch; then run --collect once it is done\n"
          "\n"
          "Options:\n"
          "  -j, --jobs N            cases run at the same time (default: the number of cores)\n"
          "  -o, --out DIR           results folder (default: PLAN's name with '-results', in\n"
          "                          the current folder)\n"
          "  --timeout S             seconds per case before it is killed (overrides the plan's\n"
          "                          timeout; 0: none)\n"
          "  --plugin-path DIR       search DIR for plugins (repeatable; passed to every case)\n"
          "  --partition P           with --slurm: the partition (#SBATCH --partition)\n"
          "  --time T                with --slurm: the time limit of one task (e.g. 00:10:00)\n"
          "  --max-parallel M        with --slurm: at most M tasks at once (--array=...%M)\n"
          "  --sbatch-option OPT     with --slurm: one more #SBATCH line (repeatable)\n"
          "  --dry-run               with --slurm: write the script, do not submit it\n"
          "  -q, --quiet             no summary line\n"
          "  --no-progress           never draw the progress bar\n"
          "  -h, --help              show this help\n"
          "\n"
          "Exit status: 0 when every case is ok; 1 when a case failed, crashed, timed out or\n"
          "has no result (the tables are written all the same), or the plan is invalid; 2 on a\n"
          "usage error; 130 when interrupted by Ctrl-C.\n",
          f);
}

typedef enum mode { MODE_RUN, MODE_LIST, MODE_CASE, MODE_COLLECT, MODE_SLURM } mode;

typedef struct sweep_opts {
    const char *plan;
    mode mode;
    bool pending;
    unsigned long case_k;
    long jobs;
    const char *out;
    double timeout; /* < 0: the plan's */
    const char **plugin_paths;
    size_t npaths;
    const char *partition, *time_limit;
    unsigned long max_parallel;
    const char **sbatch_opts;
    size_t nsbatch;
    bool dry_run, quiet, progress;
} sweep_opts;

/* Whether s holds a control character (a newline above all): such text
 * cannot go on one line of a --list command or an #SBATCH line. */
static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

static bool parse_ulong(const char *s, unsigned long *out)
{
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return false;
    errno = 0;
    *out = strtoul(s, NULL, 10);
    return errno == 0;
}

/* Sets the mode once; a second, different one is a usage error. */
static int set_mode(sweep_opts *o, mode m, const char *opt)
{
    if (o->mode != MODE_RUN && o->mode != m)
        return cli_usage_error("sweep", "%s cannot be combined with another mode (--list, "
                               "--case, --collect, --slurm)", opt);
    o->mode = m;
    return -1;
}

static int parse_sweep_args(int argc, char **argv, sweep_opts *o)
{
    cli_args a = {.argc = argc, .argv = argv, .i = 1, .cmd = "sweep"};
    o->timeout = -1;
    o->progress = true;
    const char *opt, *pos, *v = NULL;
    int rc = -1;
    unsigned long u;
    while (rc < 0) {
        if (!cli_next(&a, &opt, &pos)) {
            if (!pos)
                break;
            if (o->plan)
                return cli_usage_error("sweep", "one plan at a time ('%s' and '%s' given)",
                                       o->plan, pos);
            o->plan = pos;
            continue;
        }
        bool flag = cli_is(opt, NULL, "--list") || cli_is(opt, NULL, "--collect") ||
                    cli_is(opt, NULL, "--slurm") || cli_is(opt, NULL, "--dry-run") ||
                    cli_is(opt, NULL, "--pending") || cli_is(opt, "-q", "--quiet") ||
                    cli_is(opt, NULL, "--no-progress");
        if (flag && !cli_flag(&a))
            return CLI_EXIT_USAGE;
        if (!flag && !cli_is(opt, NULL, "--sbatch-option") &&
            !(cli_is(opt, "-j", "--jobs") || cli_is(opt, "-o", "--out") ||
              cli_is(opt, NULL, "--case") || cli_is(opt, NULL, "--timeout") ||
              cli_is(opt, NULL, "--plugin-path") || cli_is(opt, NULL, "--partition") ||
              cli_is(opt, NULL, "--time") || cli_is(opt, NULL, "--max-parallel")))
            return cli_unknown_option(&a);
        if (!flag && !(v = cli_value(&a)))
            return CLI_EXIT_USAGE;
        if (cli_is(opt, NULL, "--list")) {
            rc = set_mode(o, MODE_LIST, opt);
        } else if (cli_is(opt, NULL, "--collect")) {
            rc = set_mode(o, MODE_COLLECT, opt);
        } else if (cli_is(opt, NULL, "--slurm")) {
            rc = set_mode(o, MODE_SLURM, opt);
        } else if (cli_is(opt, NULL, "--case")) {
            if (!parse_ulong(v, &o->case_k))
                return cli_usage_error("sweep", "--case expects a case number >= 0, not '%s'", v);
            rc = set_mode(o, MODE_CASE, opt);
        } else if (cli_is(opt, NULL, "--dry-run")) {
            o->dry_run = true;
        } else if (cli_is(opt, NULL, "--pending")) {
            o->pending = true;
        } else if (cli_is(opt, "-q", "--quiet")) {
            o->quiet = true;
        } else if (cli_is(opt, NULL, "--no-progress")) {
            o->progress = false;
        } else if (cli_is(opt, "-j", "--jobs")) {
            if (!parse_ulong(v, &u) || u < 1 || u > 4096)
                return cli_usage_error("sweep", "-j expects a number of processes from 1 to "
                                       "4096, not '%s'", v);
            o->jobs = (long)u;
        } else if (cli_is(opt, "-o", "--out")) {
            if (!*v)
                return cli_usage_error("sweep", "--out expects a folder");
            o->out = v;
        } else if (cli_is(opt, NULL, "--timeout")) {
            char *end;
            errno = 0;
            o->timeout = strtod(v, &end);
            if (end == v || *end || errno || !(o->timeout >= 0) || o->timeout > 1e9)
                return cli_usage_error("sweep", "--timeout expects seconds >= 0, not '%s'", v);
        } else if (cli_is(opt, NULL, "--plugin-path")) {
            if (!*v)
                return cli_usage_error("sweep", "--plugin-path expects a directory, not ''");
            o->plugin_paths[o->npaths++] = v;
        } else if (has_control(v) && (cli_is(opt, NULL, "--partition") ||
                                      cli_is(opt, NULL, "--time") ||
                                      cli_is(opt, NULL, "--sbatch-option"))) {
            return cli_usage_error("sweep", "%s: the value holds a line break or another "
                                   "control character, which an #SBATCH line cannot hold", opt);
        } else if (cli_is(opt, NULL, "--partition")) {
            o->partition = v;
        } else if (cli_is(opt, NULL, "--time")) {
            o->time_limit = v;
        } else if (cli_is(opt, NULL, "--max-parallel")) {
            if (!parse_ulong(v, &o->max_parallel) || o->max_parallel < 1)
                return cli_usage_error("sweep", "--max-parallel expects a number >= 1, not '%s'",
                                       v);
        } else {
            o->sbatch_opts[o->nsbatch++] = v;
        }
    }
    if (rc >= 0)
        return rc;
    if (!o->plan)
        return cli_usage_error("sweep", "missing the plan file");
    if (o->mode != MODE_SLURM &&
        (o->partition || o->time_limit || o->max_parallel || o->nsbatch || o->dry_run))
        return cli_usage_error("sweep", "--partition, --time, --max-parallel, --sbatch-option "
                               "and --dry-run go with --slurm");
    if (o->pending && o->mode != MODE_LIST && o->mode != MODE_SLURM)
        return cli_usage_error("sweep", "--pending goes with --list or --slurm");
    return -1;
}

/* ---- helpers ---- */

/* The running program, to start the cases with. */
static bool self_exe(char *buf, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", buf, size - 1);
    if (n <= 0 || (size_t)n >= size - 1)
        return false;
    buf[n] = 0;
    return true;
}

/* Writes s as one shell word ('...' with embedded quotes escaped). */
static void shell_word(FILE *f, const char *s)
{
    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") ==
                  strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* Writes s for a comment line of a script: control characters as \ooo, so
 * that nothing in s can end the comment. */
static void comment_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || *s == 0x7f || *s == '\\')
            fprintf(f, "\\%03o", (unsigned char)*s);
        else
            fputc(*s, f);
    }
}

/* Writes s as one word of an #SBATCH line, as sbatch reads it: bare when it
 * is made of safe characters, else in double quotes with '\\' and '"'
 * escaped by a backslash. s has no control character (has_control). */
static void sbatch_word(FILE *f, const char *s)
{
    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@%") ==
                  strlen(s)) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

/* The command line of one case, without the case number (NULL-terminated
 * argv; strings borrowed from o, plan and the buffers given). */
typedef struct case_cmd {
    const char *argv[32 + 2 * 64];
    int argc;
    char timeout[32];
} case_cmd;

static void case_cmd_init(case_cmd *c, const sweep_opts *o, const char *exe, const char *plan,
                          const char *out)
{
    c->argc = 0;
    c->argv[c->argc++] = exe;
    c->argv[c->argc++] = "sweep";
    c->argv[c->argc++] = plan;
    c->argv[c->argc++] = "--out";
    c->argv[c->argc++] = out;
    for (size_t i = 0; i < o->npaths && i < 64; i++) {
        c->argv[c->argc++] = "--plugin-path";
        c->argv[c->argc++] = o->plugin_paths[i];
    }
    if (o->timeout >= 0) {
        snprintf(c->timeout, sizeof c->timeout, "%.17g", o->timeout);
        c->argv[c->argc++] = "--timeout";
        c->argv[c->argc++] = c->timeout;
    }
    c->argv[c->argc++] = "-q";
    c->argv[c->argc] = NULL;
}

static void print_case_cmd(FILE *f, const case_cmd *c, const char *k)
{
    for (int i = 0; i < c->argc; i++) {
        shell_word(f, c->argv[i]);
        fputc(' ', f);
    }
    fprintf(f, "--case %s\n", k);
}

/* ---- one case: --case K ---- */

/* The first line of the log that reports an error, without its colours. */
static void first_error_line(const char *log_path, char *buf, size_t size)
{
    buf[0] = 0;
    FILE *f = fopen(log_path, "r");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        if (!strstr(line, "error:") && !strstr(line, "ERROR:"))
            continue;
        line[strcspn(line, "\r\n")] = 0;
        snprintf(buf, size, "%s", line);
        break;
    }
    fclose(f);
}

/* The worker: `settee run` on the case, stdout and stderr in the log. */
static void run_worker(const sweep_plan *p, size_t k, const sweep_opts *o, const char *values,
                       int log_fd)
{
    signal(SIGINT, SIG_DFL);
    dup2(log_fd, 1);
    dup2(log_fd, 2);
    close(log_fd);
    size_t max = 16 + 2 * (p->nsets + p->nparams + p->ncollect + o->npaths);
    char **argv = calloc(max, sizeof *argv);
    char **owned = calloc(p->nparams + 1, sizeof *owned);
    char steps[32];
    if (!argv || !owned) {
        fputs("settee: error: out of memory\n", stderr);
        _exit(CLI_EXIT_ERROR);
    }
    snprintf(steps, sizeof steps, "%lu", p->steps);
    int n = 0;
    argv[n++] = "run";
    argv[n++] = p->scene;
    argv[n++] = "-n";
    argv[n++] = steps;
    argv[n++] = "--no-progress";
    for (size_t i = 0; i < o->npaths; i++) {
        argv[n++] = "--plugin-path";
        argv[n++] = (char *)o->plugin_paths[i];
    }
    for (size_t i = 0; i < p->nsets; i++) {
        argv[n++] = "--set";
        argv[n++] = p->sets[i];
    }
    for (size_t i = 0; i < p->nparams; i++) {
        bool is_steps = !strcmp(p->params[i].key, "steps");
        if (is_steps) {
            argv[3] = (char *)sweep_case_value(p, k, i); /* the case's own step count */
            continue;
        }
        if (asprintf(&owned[i], "%s=%s", p->params[i].key, sweep_case_value(p, k, i)) < 0)
            _exit(CLI_EXIT_ERROR);
        argv[n++] = "--set";
        argv[n++] = owned[i];
    }
    for (size_t i = 0; i < p->ncollect; i++) {
        argv[n++] = "--collect";
        argv[n++] = p->collect[i];
    }
    if (p->ncollect) {
        argv[n++] = "--collect-json";
        argv[n++] = (char *)values;
    }
    int rc = cli_run(n, argv);
    for (size_t i = 0; i < p->nparams; i++)
        free(owned[i]);
    free(owned);
    free(argv);
    fflush(NULL);
    _exit(rc);
}

/* Waits for the worker (its end of the pipe closes when it exits), at most
 * timeout s (0: no limit). Returns 1 on exit, 0 on timeout, -1 on Ctrl-C. */
static int wait_worker(pid_t pid, int rfd, double timeout, int *wstatus)
{
    double t0 = cli_now();
    for (;;) {
        int ms = -1;
        if (timeout > 0) {
            double left = timeout - (cli_now() - t0);
            if (left <= 0)
                break;
            ms = (int)(left * 1e3) + 1;
        }
        struct pollfd pfd = {.fd = rfd, .events = POLLIN};
        int r = poll(&pfd, 1, ms);
        if (r < 0 && errno == EINTR && cli_interrupted())
            break;
        if (r > 0) {
            char c;
            if (read(rfd, &c, 1) <= 0 || (pfd.revents & (POLLHUP | POLLERR)))
                break;
        }
    }
    int result = cli_interrupted() ? -1 : 1;
    if (result > 0 && waitpid(pid, wstatus, WNOHANG) == 0) {
        /* the pipe closed but the worker lingers, or the time is up */
        if (timeout > 0 && cli_now() - t0 >= timeout)
            result = 0;
        else if (waitpid(pid, wstatus, 0) == pid)
            return 1;
    } else if (result > 0) {
        return 1;
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
        ;
    return result;
}

static int run_case(const sweep_plan *p, const sweep_opts *o, const char *out)
{
    size_t k = o->case_k;
    if (k >= p->ncases) {
        cli_error("%s: there is no case %zu (the plan has %zu cases, 0 to %zu)", o->plan, k,
                  p->ncases, p->ncases - 1);
        return CLI_EXIT_USAGE;
    }
    char dir[4096], values[4200], log_path[4200], result[4200];
    sweep_case_dir(out, k, dir, sizeof dir);
    snprintf(values, sizeof values, "%s/values.json", dir);
    snprintf(log_path, sizeof log_path, "%s/log.txt", dir);
    snprintf(result, sizeof result, "%s/result.json", dir);
    if (!cli_mkdirs(dir)) {
        cli_error("cannot create %s: %s", dir, strerror(errno));
        return CLI_EXIT_ERROR;
    }
    unlink(result);
    unlink(values);
    /* the log is a new file renamed over log.txt: whatever is there (a
     * symlink planted to truncate another file) is replaced, not followed */
    char log_tmp[4300];
    snprintf(log_tmp, sizeof log_tmp, "%s.tmp%d", log_path, (int)getpid());
    unlink(log_tmp);
    int log_fd = open(log_tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (log_fd >= 0 && rename(log_tmp, log_path) != 0) {
        int e = errno;
        close(log_fd);
        unlink(log_tmp);
        errno = e;
        log_fd = -1;
    }
    int pfd[2];
    if (log_fd < 0 || pipe2(pfd, O_CLOEXEC) != 0) {
        cli_error("cannot write %s: %s", log_path, strerror(errno));
        if (log_fd >= 0)
            close(log_fd);
        return CLI_EXIT_ERROR;
    }
    double timeout = o->timeout >= 0 ? o->timeout : p->timeout;
    cli_catch_sigint();
    fflush(NULL);
    double t0 = cli_now();
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        run_worker(p, k, o, values, log_fd);
    }
    close(pfd[1]);
    close(log_fd);
    if (pid < 0) {
        close(pfd[0]);
        cli_error("cannot start case %zu: %s", k, strerror(errno));
        return CLI_EXIT_ERROR;
    }
    int ws = 0;
    int w = wait_worker(pid, pfd[0], timeout, &ws);
    double wall = cli_now() - t0;
    close(pfd[0]);
    if (w < 0) {
        unlink(values);
        return CLI_EXIT_SIGINT;
    }

    sweep_status st;
    char error[4096], line[3000];
    first_error_line(log_path, line, sizeof line);
    int code = -1, sig = 0;
    if (w == 0) {
        st = SWEEP_TIMEOUT;
        snprintf(error, sizeof error, "timeout: killed after %.6g s", timeout);
    } else if (WIFSIGNALED(ws)) {
        st = SWEEP_CRASHED;
        sig = WTERMSIG(ws);
        snprintf(error, sizeof error, "crashed: signal %d (%s)%s%s", sig, strsignal(sig),
                 line[0] ? "; " : "", line);
    } else {
        code = WEXITSTATUS(ws);
        st = code == 0 ? SWEEP_OK : SWEEP_FAILED;
        /* A run stopped by a diverging simulation (the kernel's message). */
        if (code != 0 && strstr(line, "the simulation diverged"))
            st = SWEEP_DIVERGED;
        if (code == 0)
            error[0] = 0;
        else
            snprintf(error, sizeof error, "%s", line[0] ? line : "exit status != 0, no message");
    }
    char *run_json = st == SWEEP_OK || st == SWEEP_FAILED || st == SWEEP_DIVERGED
                         ? cli_read_file(values, NULL)
                         : NULL;
    for (size_t n = run_json ? strlen(run_json) : 0; n > 0 && run_json[n - 1] == '\n'; n--)
        run_json[n - 1] = 0;

    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m) {
        jw j = {.f = m};
        char hash[32];
        snprintf(hash, sizeof hash, "%016" PRIx64, sweep_case_hash(p, k));
        jw_object(&j, NULL);
        jw_uint(&j, "case", k);
        jw_string(&j, "hash", hash);
        jw_object(&j, "parameters");
        for (size_t i = 0; i < p->nparams; i++)
            jw_string(&j, p->params[i].key, sweep_case_value(p, k, i));
        jw_end_object(&j);
        jw_string(&j, "status", sweep_status_name(st));
        if (code >= 0)
            jw_uint(&j, "exit", (unsigned long)code);
        else
            jw_null(&j, "exit");
        if (sig)
            jw_uint(&j, "signal", (unsigned long)sig);
        else
            jw_null(&j, "signal");
        jw_real(&j, "wall_s", wall);
        jw_string(&j, "error", error[0] ? error : NULL);
        if (run_json)
            jw_raw(&j, "run", run_json);
        else
            jw_null(&j, "run");
        jw_end_object(&j);
        fclose(m);
    }
    free(run_json);
    bool ok = m && cli_write_file_atomic(result, buf, len);
    free(buf);
    if (!ok) {
        cli_error("cannot write %s: %s", result, m ? strerror(errno) : "out of memory");
        return CLI_EXIT_ERROR;
    }
    if (!o->quiet)
        printf("case %zu: %s in %.3g s%s%s\n", k, sweep_status_name(st), wall,
               error[0] ? ": " : "", error);
    return st == SWEEP_OK ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

/* ---- the tables: --collect, and after a local run ---- */

static int finish_tables(const sweep_plan *p, const sweep_opts *o, const char *out,
                         double wall, bool ran)
{
    size_t counts[SWEEP_NSTATUS];
    if (!sweep_write_tables(p, out, counts))
        return CLI_EXIT_ERROR;
    if (!o->quiet) {
        printf("%zu cases: %zu ok, %zu failed, %zu crashed, %zu timeout", p->ncases,
               counts[SWEEP_OK], counts[SWEEP_FAILED], counts[SWEEP_CRASHED],
               counts[SWEEP_TIMEOUT]);
        if (counts[SWEEP_DIVERGED])
            printf(", %zu diverged", counts[SWEEP_DIVERGED]);
        if (counts[SWEEP_MISSING])
            printf(", %zu without a result", counts[SWEEP_MISSING]);
        if (ran)
            printf(" in %.2f s", wall);
        printf("; tables: %s/results.csv, %s/results.json\n", out, out);
    }
    return counts[SWEEP_OK] == p->ncases ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

/* ---- the local run ---- */

typedef struct running {
    pid_t pid;
    size_t k;
} running;

static int run_local(const sweep_plan *p, const sweep_opts *o, const char *out)
{
    char exe[PATH_MAX];
    if (!self_exe(exe, sizeof exe)) {
        cli_error("cannot find the settee program (/proc/self/exe): %s", strerror(errno));
        return CLI_EXIT_ERROR;
    }
    long jobs = o->jobs > 0 ? o->jobs : sysconf(_SC_NPROCESSORS_ONLN);
    if (jobs < 1)
        jobs = 1;
    size_t *todo = calloc(p->ncases, sizeof *todo);
    running *run = calloc((size_t)jobs, sizeof *run);
    if (!todo || !run) {
        free(todo);
        free(run);
        cli_error("out of memory");
        return CLI_EXIT_ERROR;
    }
    size_t ntodo = 0;
    for (size_t k = 0; k < p->ncases; k++)
        if (sweep_case_recorded(p, out, k) != SWEEP_OK)
            todo[ntodo++] = k;
    if (!o->quiet)
        printf("sweep: %zu cases, %zu done already, running %zu on %ld process%s in %s\n",
               p->ncases, p->ncases - ntodo, ntodo, jobs, jobs == 1 ? "" : "es", out);
    fflush(stdout);

    case_cmd cmd;
    case_cmd_init(&cmd, o, exe, p->file, out);
    char kbuf[32];
    cmd.argv[cmd.argc] = "--case";
    cmd.argv[cmd.argc + 1] = kbuf;
    cmd.argv[cmd.argc + 2] = NULL;

    /* Each case in a process group of its own: Ctrl-C on the terminal reaches
     * the driver alone, which passes it on to each case exactly once. */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    cli_catch_sigint();
    cli_progress bar;
    cli_progress_start(&bar, ntodo, o->progress);
    double t0 = cli_now();
    size_t next = 0, done = 0, nrun = 0, nbad = 0;
    bool spawn_failed = false, forwarded = false;
    while ((next < ntodo && !cli_interrupted() && !spawn_failed) || nrun > 0) {
        while (next < ntodo && nrun < (size_t)jobs && !cli_interrupted() && !spawn_failed) {
            snprintf(kbuf, sizeof kbuf, "%zu", todo[next]);
            pid_t pid;
            int e = posix_spawn(&pid, exe, NULL, &attr, (char **)cmd.argv, environ);
            if (e) {
                cli_error("cannot start case %zu: %s", todo[next], strerror(e));
                spawn_failed = true;
                break;
            }
            size_t slot = 0;
            while (run[slot].pid)
                slot++;
            run[slot] = (running){pid, todo[next++]};
            nrun++;
        }
        if (!nrun)
            break;
        if (cli_progress_due(&bar)) {
            char eta[32], text[160];
            cli_progress_eta(&bar, done, eta, sizeof eta);
            snprintf(text, sizeof text, " %zu/%zu cases  %zu running  %zu not ok  ETA %s", done,
                     ntodo, nrun, nbad, eta);
            cli_progress_draw(&bar, ntodo ? (double)done / (double)ntodo : 1.0, text);
        }
        int ws;
        pid_t pid = waitpid(-1, &ws, 0);
        if (pid < 0) {
            if (errno == EINTR && cli_interrupted() && !forwarded) {
                forwarded = true;
                for (long i = 0; i < jobs; i++)
                    if (run[i].pid)
                        kill(run[i].pid, SIGINT);
            }
            if (errno != EINTR)
                break;
            continue;
        }
        long slot = 0;
        while (slot < jobs && run[slot].pid != pid)
            slot++;
        if (slot == jobs)
            continue;
        size_t k = run[slot].k;
        run[slot].pid = 0;
        nrun--;
        if (cli_interrupted())
            continue;
        done++;
        sweep_status st = sweep_case_recorded(p, out, k);
        if (st != SWEEP_OK) {
            nbad++;
            cli_progress_clear(&bar);
            char dir[4096];
            sweep_case_dir(out, k, dir, sizeof dir);
            fprintf(stderr, "settee sweep: case %zu %s (see %s/log.txt)\n", k,
                    st == SWEEP_MISSING ? "left no result" : sweep_status_name(st), dir);
        }
    }
    cli_progress_clear(&bar);
    cli_active_progress = NULL;
    posix_spawnattr_destroy(&attr);
    double wall = cli_now() - t0;
    free(todo);
    free(run);
    int rc = finish_tables(p, o, out, wall, true);
    if (cli_interrupted()) {
        fprintf(stderr, "settee sweep: interrupted after %zu of %zu cases; run the same command "
                "again to resume\n", done, ntodo);
        return CLI_EXIT_SIGINT;
    }
    return spawn_failed ? CLI_EXIT_ERROR : rc;
}

/* ---- --list and --slurm ---- */

static bool wanted(const sweep_plan *p, const sweep_opts *o, const char *out, size_t k)
{
    return !o->pending || sweep_case_recorded(p, out, k) != SWEEP_OK;
}

static int list_cases(const sweep_plan *p, const sweep_opts *o, const char *out)
{
    char exe[PATH_MAX];
    if (!self_exe(exe, sizeof exe)) {
        cli_error("cannot find the settee program (/proc/self/exe): %s", strerror(errno));
        return CLI_EXIT_ERROR;
    }
    case_cmd cmd;
    case_cmd_init(&cmd, o, exe, p->file, out);
    /* one command a line: a line break in a word would end the command there
     * and make the rest of the word a command of its own */
    for (int i = 0; i < cmd.argc; i++) {
        if (!has_control(cmd.argv[i]))
            continue;
        char *shown = NULL;
        size_t n = 0;
        FILE *m = open_memstream(&shown, &n);
        if (m) {
            comment_text(m, cmd.argv[i]);
            fclose(m);
        }
        cli_error("cannot list the cases: '%s' holds a line break or another control "
                  "character, which would split the one-line command of each case; rename it",
                  m ? shown : "?");
        free(shown);
        return CLI_EXIT_ERROR;
    }
    for (size_t k = 0; k < p->ncases; k++) {
        char kbuf[32];
        snprintf(kbuf, sizeof kbuf, "%zu", k);
        if (wanted(p, o, out, k))
            print_case_cmd(stdout, &cmd, kbuf);
    }
    return CLI_EXIT_OK;
}

/* Writes the pending cases as Slurm's array ranges ("0-3,7,9-11"). */
static size_t array_ranges(const sweep_plan *p, const sweep_opts *o, const char *out, FILE *f)
{
    size_t n = 0, start = 0;
    bool open_range = false;
    for (size_t k = 0; k <= p->ncases; k++) {
        bool w = k < p->ncases && wanted(p, o, out, k);
        if (w && !open_range) {
            start = k;
            open_range = true;
        } else if (!w && open_range) {
            fprintf(f, "%s%zu", n ? "," : "", start);
            if (k - 1 > start)
                fprintf(f, "-%zu", k - 1);
            n += k - start;
            open_range = false;
        }
    }
    return n;
}

static int slurm(const sweep_plan *p, const sweep_opts *o, const char *out)
{
    char exe[PATH_MAX], logs[4200], script[4200];
    if (!self_exe(exe, sizeof exe)) {
        cli_error("cannot find the settee program (/proc/self/exe): %s", strerror(errno));
        return CLI_EXIT_ERROR;
    }
    /* an #SBATCH line ends at a line break: what would hold one is refused */
    if (has_control(out)) {
        cli_error("cannot write the job script: the results folder's name holds a line break "
                  "or another control character, which an #SBATCH --output line cannot hold; "
                  "choose another with --out");
        return CLI_EXIT_ERROR;
    }
    snprintf(logs, sizeof logs, "%s/logs", out);
    snprintf(script, sizeof script, "%s/sweep.sbatch", out);
    if (!cli_mkdirs(logs)) {
        cli_error("cannot create %s: %s", logs, strerror(errno));
        return CLI_EXIT_ERROR;
    }
    char *ranges = NULL, *buf = NULL;
    size_t rlen = 0, len = 0;
    FILE *r = open_memstream(&ranges, &rlen);
    size_t ntasks = r ? array_ranges(p, o, out, r) : 0;
    if (r)
        fclose(r);
    if (!r || !ntasks) {
        if (r && !o->quiet)
            printf("every case of %s has an ok result in %s: nothing to submit\n", o->plan, out);
        free(ranges);
        return r ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    }
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        /* comments hold the paths with control characters escaped; the job
         * name keeps the safe characters of the plan's name */
        const char *stem = strrchr(p->file, '/') + 1;
        fputs("#!/bin/bash\n# settee sweep job array: one task per case of ", f);
        comment_text(f, p->file);
        fputs("\n# (written by settee sweep --slurm; gather with: settee sweep ", f);
        char *word = NULL;
        size_t wlen = 0;
        FILE *w = open_memstream(&word, &wlen);
        if (w) {
            shell_word(w, p->file);
            fputs(" --collect --out ", w);
            shell_word(w, out);
            fclose(w);
            comment_text(f, word);
        }
        free(word);
        fputs(")\n#SBATCH --job-name=settee-", f);
        for (const char *c = stem; *c && *c != '.'; c++)
            fputc(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *c)
                      ? *c
                      : '_',
                  f);
        fprintf(f, "\n#SBATCH --array=%s", ranges);
        if (o->max_parallel)
            fprintf(f, "%%%lu", o->max_parallel);
        fputs("\n#SBATCH --output=", f);
        char log_pattern[4300];
        snprintf(log_pattern, sizeof log_pattern, "%s/task-%%a.log", logs);
        sbatch_word(f, log_pattern);
        fputs("\n#SBATCH --ntasks=1\n#SBATCH --cpus-per-task=1\n", f);
        if (o->partition) {
            fputs("#SBATCH --partition=", f);
            sbatch_word(f, o->partition);
            fputc('\n', f);
        }
        if (o->time_limit) {
            fputs("#SBATCH --time=", f);
            sbatch_word(f, o->time_limit);
            fputc('\n', f);
        }
        for (size_t i = 0; i < o->nsbatch; i++)
            fprintf(f, "#SBATCH %s\n", o->sbatch_opts[i]);
        fputs("exec ", f);
        case_cmd cmd;
        case_cmd_init(&cmd, o, exe, p->file, out);
        print_case_cmd(f, &cmd, "\"$SLURM_ARRAY_TASK_ID\"");
        fclose(f);
    }
    free(ranges);
    bool ok = f && cli_write_file_atomic(script, buf, len);
    free(buf);
    if (!ok || chmod(script, 0755) != 0) {
        cli_error("cannot write %s: %s", script, f ? strerror(errno) : "out of memory");
        return CLI_EXIT_ERROR;
    }
    if (o->dry_run) {
        if (!o->quiet)
            printf("wrote %s (%zu tasks); submit it with: sbatch %s\n", script, ntasks, script);
        return CLI_EXIT_OK;
    }
    /* sbatch --parsable prints the job id */
    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        cli_error("cannot run sbatch: %s", strerror(errno));
        return CLI_EXIT_ERROR;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    const char *argv[] = {"sbatch", "--parsable", script, NULL};
    pid_t pid;
    int e = posix_spawnp(&pid, "sbatch", &fa, NULL, (char **)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(pfd[1]);
    char id[256] = "";
    size_t n = 0;
    ssize_t got;
    while (!e && n < sizeof id - 1 && (got = read(pfd[0], id + n, sizeof id - 1 - n)) > 0)
        n += (size_t)got;
    id[n] = 0;
    id[strcspn(id, "\r\n;")] = 0;
    close(pfd[0]);
    int ws = 0;
    if (e) {
        cli_error("cannot run sbatch: %s (is Slurm installed? --dry-run writes the script only)",
                  strerror(e));
        return CLI_EXIT_ERROR;
    }
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0 || !id[0]) {
        cli_error("sbatch %s failed (see its message above)", script);
        return CLI_EXIT_ERROR;
    }
    if (!o->quiet) {
        printf("submitted job array %s: %zu tasks", id, ntasks);
        if (o->max_parallel)
            printf(", at most %lu at a time", o->max_parallel);
        printf("; logs in %s\nwhen it is done: settee sweep ", logs);
        shell_word(stdout, p->file);
        fputs(" --collect --out ", stdout);
        shell_word(stdout, out);
        fputc('\n', stdout);
    } else {
        printf("%s\n", id);
    }
    return CLI_EXIT_OK;
}

/* ---- dispatch ---- */

/* The results folder, absolute (created when create is set). */
static bool out_dir(const sweep_opts *o, bool create, char *buf, size_t size)
{
    char def[PATH_MAX];
    const char *out = o->out;
    if (!out) {
        const char *base = strrchr(o->plan, '/') ? strrchr(o->plan, '/') + 1 : o->plan;
        int stem = (int)strcspn(base, ".");
        snprintf(def, sizeof def, "%.*s-results", stem ? stem : (int)strlen(base), base);
        out = def;
    }
    if (create && !cli_mkdirs(out)) {
        cli_error("cannot create the results folder %s: %s", out, strerror(errno));
        return false;
    }
    char cwd[PATH_MAX];
    if (out[0] == '/')
        snprintf(buf, size, "%s", out);
    else if (getcwd(cwd, sizeof cwd))
        snprintf(buf, size, "%s/%s", cwd, out);
    else
        return false;
    char real[PATH_MAX];
    if (realpath(buf, real))
        snprintf(buf, size, "%s", real);
    return true;
}

int cli_sweep(int argc, char **argv)
{
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    const char **sbatch = calloc((size_t)argc + 1, sizeof *sbatch);
    sweep_opts o = {.plugin_paths = paths, .sbatch_opts = sbatch};
    int rc = paths && sbatch ? parse_sweep_args(argc, argv, &o) : CLI_EXIT_ERROR;
    sweep_plan *p = NULL;
    st_error err = {0};
    if (rc < 0 && sweep_plan_load(o.plan, &p, &err) != ST_OK) {
        cli_report(NULL, &err);
        rc = CLI_EXIT_ERROR;
    }
    char out[PATH_MAX];
    if (rc < 0 && !out_dir(&o, o.mode != MODE_LIST, out, sizeof out))
        rc = CLI_EXIT_ERROR;
    if (rc < 0) {
        switch (o.mode) {
        case MODE_RUN: rc = run_local(p, &o, out); break;
        case MODE_LIST: rc = list_cases(p, &o, out); break;
        case MODE_CASE: rc = run_case(p, &o, out); break;
        case MODE_COLLECT: rc = finish_tables(p, &o, out, 0, false); break;
        case MODE_SLURM: rc = slurm(p, &o, out); break;
        }
    }
    sweep_plan_destroy(&p);
    free(paths);
    free(sbatch);
    return rc;
}
