/* crash.c - test plugin "TestCrash": the component TestCrash misbehaves on
 * request, for the sweep tests (tests/cli/test_sweep.c): crashAtStep N raises
 * SIGABRT at the start of step N (a crash the process cannot survive), and
 * sleepPerStep S sleeps S seconds at the start of every step (a case that
 * runs into its timeout). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <time.h>

#include <settee/settee.h>

typedef struct test_crash {
    st_component base;
    unsigned crash_at_step; /* 1-based step that crashes; 0: never */
    double sleep_per_step;  /* s slept at the start of each step */
    unsigned steps;         /* steps begun so far */
} test_crash;

static const st_field test_crash_fields[] = {
    ST_UINT(test_crash, crash_at_step, "crashAtStep", "0",
            "Raise SIGABRT at the start of this step (1-based); 0: never"),
    ST_REAL(test_crash, sleep_per_step, "sleepPerStep", "0",
            "Seconds to sleep at the start of every step"),
    ST_FIELD_END};

static void test_crash_event(st_component *self, st_event ev, double dt)
{
    test_crash *c = (test_crash *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN)
        return;
    c->steps++;
    if (c->crash_at_step && c->steps == c->crash_at_step)
        raise(SIGABRT);
    if (c->sleep_per_step > 0) {
        struct timespec ts = {(time_t)c->sleep_per_step,
                              (long)((c->sleep_per_step - (double)(time_t)c->sleep_per_step) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

static const st_class test_crash_class = {
    .struct_size = sizeof(st_class),
    .name = "TestCrash",
    .category = "Misc",
    .description = "Crashes or sleeps on request (sweep tests)",
    .instance_size = sizeof(test_crash),
    .fields = test_crash_fields,
    .on_event = test_crash_event,
};

static st_status reg(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &test_crash_class, err));
    return ST_OK;
}

ST_PLUGIN_DEFINE("TestCrash", "1.0.0", "A component that crashes or sleeps on request",
                 "LGPL-2.1", NULL, reg)
