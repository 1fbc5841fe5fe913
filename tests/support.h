/* support.h - helpers shared by the test suites. */
#ifndef SETTEE_TEST_SUPPORT_H
#define SETTEE_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "settee/settee.h"

/* A runtime whose log sink collects messages into a buffer. */
typedef struct test_rt {
    st_runtime *rt;
    char log[65536]; /* every message, one per line: "LEVEL|where|path|msg" */
    size_t len;
    int nerrors;
} test_rt;

void test_rt_open(test_rt *t);
/* Empties the log (its text and its length: messages then start over). */
void test_log_clear(test_rt *t);
void test_rt_close(test_rt *t);
/* Loads a scene from text; returns the status, err filled. */
st_status test_load_string(test_rt *t, const char *yaml, st_scene **out, st_error *err);
/* Loads a scene from text (file names it: its extension says the format)
 * and initialises it; on failure destroys it (*out NULL) and returns the
 * status, err filled. */
st_status test_load_init(test_rt *t, const char *text, const char *file, st_scene **out,
                         st_error *err);
/* Writes text to a fresh temporary file; returns its path (static buffer per call slot). */
const char *test_write_temp(const char *name, const char *text);
/* The whole file, NUL-terminated, in memory owned by the caller (free);
 * NULL when it cannot be read. */
char *test_read_file(const char *path);
/* The component named name anywhere in the scene, or NULL. */
st_component *test_find_object(st_scene *s, const char *name);
/* Solves the dense n x n system a x = b in place with LAPACK's dgesv (a is
 * column-major and overwritten; b receives x). Returns LAPACK's info. */
int test_dense_solve(int n, double *a, double *b);
/* Creates a fresh folder $TMPDIR/PREFIX-XXXXXX (TMPDIR: /tmp when unset)
 * into dir (at least 512 bytes); asserts it was made. */
void test_make_dir(char *dir, size_t size, const char *prefix);
/* Removes a folder made by test_make_dir and everything in it. */
void test_remove_dir(const char *dir);
/* The seeds' 4x4x11 spring beam as YAML (node Beam: RegularGridTopology
 * 4x4x11 over [-1.5,1.5]^2 x [0,10], UniformMass 15, BoxROI "box" + fixed
 * base "fixed", MeshSpringForceField "springs" stiffness 300, state "dofs"),
 * gravity -9.81 y, dt 0.01, with the given ODE solver line and linear solver
 * line(s) (several separated by "\n        - "), and extra plugins (", A, B"
 * or ""). Returns a static buffer. */
const char *test_beam_yaml(const char *extra_plugins, const char *ode, const char *solver);
/* Runs a shell command, captures stdout+stderr into out; returns the exit status. */
int test_run(const char *cmd, char *out, size_t size);
/* Runs `settee run SCENE --no-progress -q ARGS` from folder dir, with the
 * build's plugins; output (stdout+stderr) into out; returns the exit status. */
int test_settee_run_in(const char *dir, const char *scene, const char *args, char *out,
                       size_t size);
/* Whether files a and b of folder dir both exist and hold the same bytes. */
bool test_same_files_in(const char *dir, const char *a, const char *b);
/* In folder dir: SCENE run `total` steps at once (full.json), `at` steps
 * with a checkpoint (atcheckpoint.json, run.ck), and resumed to `total`
 * (resumed.json). NULL when the resumed export is byte-identical to the
 * uninterrupted one and differs from the checkpoint's (the run went on);
 * else what failed, with settee's output (in out). */
const char *test_resume_failure(const char *dir, const char *scene, int total, int at, char *out,
                                size_t size);
/* Writes text to the file name of folder dir; false when it cannot. */
bool test_write_in_dir(const char *dir, const char *name, const char *text);
/* The points of the first object's position list in a state export
 * (`settee run --export-state`), or -1 when text holds none. */
int test_exported_points(const char *text);

#endif
