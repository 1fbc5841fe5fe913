/* sweep.h - declarations shared by the files of `settee sweep`: the plan
 * (sweep_plan.c), the case records and result tables (sweep_table.c) and
 * the command itself (sweep.c). See docs/sweeps.md. */
#ifndef SETTEE_CLI_SWEEP_H
#define SETTEE_CLI_SWEEP_H

#include <stdint.h>

#include "cli.h"

/* One swept parameter: a field path and the texts it takes. */
typedef struct sweep_param {
    char *key;       /* PATH.FIELD, as for --set */
    char **values;   /* nvalues texts, each parsed by the field as a scene would */
    size_t nvalues;
    size_t factor;   /* the factor of the product it belongs to */
} sweep_param;

/* A parsed plan. Cases are the product of the factors (the last varies
 * fastest); the parameters of one factor are zipped (equal lengths). */
typedef struct sweep_plan {
    char *file;              /* the plan file, absolute */
    char *scene;             /* the base scene, absolute */
    unsigned long steps;     /* steps of each case */
    double timeout;          /* s per case; 0: none */
    char **sets;             /* fixed "PATH.FIELD=VALUE" of every case */
    size_t nsets;
    sweep_param *params;
    size_t nparams;
    size_t *factor_len;      /* length of each factor */
    size_t nfactors;
    size_t ncases;
    char **collect;          /* "[NAME=]PATH.FIELD[I][J]" */
    cli_collect_item *collect_items; /* the same, parsed (names) */
    size_t ncollect;
    uint64_t scene_hash;     /* FNV-1a of the scene file's bytes */
} sweep_plan;

/* Loads and checks a plan; errors carry PLAN:LINE:COL. */
st_status sweep_plan_load(const char *path, sweep_plan **out, st_error *err);
void sweep_plan_destroy(sweep_plan **p);
/* The text parameter i takes in case k. */
const char *sweep_case_value(const sweep_plan *p, size_t k, size_t i);
/* The case's identity: the scene's bytes, the steps, the fixed sets, the
 * case's parameter values and the collected fields. */
uint64_t sweep_case_hash(const sweep_plan *p, size_t k);

/* Case statuses, as written in the tables. */
typedef enum sweep_status {
    SWEEP_MISSING = 0, /* no record (not run yet, or stale) */
    SWEEP_OK,
    SWEEP_FAILED,      /* exit status != 0, or NaN/inf in the state */
    SWEEP_CRASHED,     /* killed by a signal */
    SWEEP_TIMEOUT,     /* killed after the plan's timeout */
    SWEEP_DIVERGED     /* the run stopped because the simulation diverged (NaN, inf or a
                          finite blow-up; docs/solvers.md) */
} sweep_status;
#define SWEEP_NSTATUS 6
const char *sweep_status_name(sweep_status s);

/* The folder of case k: DIR/cases/NNNN. */
void sweep_case_dir(const char *out_dir, size_t k, char *buf, size_t size);
/* The status recorded in the case's result.json when it exists and its hash
 * is the case's current one, else SWEEP_MISSING. */
sweep_status sweep_case_recorded(const sweep_plan *p, const char *out_dir, size_t k);
/* Writes DIR/results.csv and DIR/results.json from the case folders; counts
 * the cases by status (counts[SWEEP_*]). False with a message printed when
 * a table cannot be written. */
bool sweep_write_tables(const sweep_plan *p, const char *out_dir, size_t counts[SWEEP_NSTATUS]);

#endif
