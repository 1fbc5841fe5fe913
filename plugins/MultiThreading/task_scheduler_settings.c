/* task_scheduler_settings.c - TaskSchedulerSettings (SOFA's
 * Sofa.Simulation.Core): the thread count of the scene's parallel
 * components. settee keeps one pool per parallel component; this component
 * only decides their count (mt_thread_count), so it holds no threads. */
#include "mt_pool.h"

static st_status tss_init(st_component *self, st_error *err)
{
    mt_settings *s = (mt_settings *)self;
    unsigned n;
    /* checks taskSchedulerType */
    return mt_thread_count(self, &s->u, &n, NULL, err);
}

static const st_field tss_fields[] = {MT_USER_FIELDS(mt_settings, u), ST_FIELD_END};

const st_class task_scheduler_settings_class = {
    .struct_size = sizeof(st_class),
    .name = "TaskSchedulerSettings",
    .category = "Settings",
    .description = "Number of threads of the task scheduler that the parallel components "
                   "(MultiThreading) use",
    .instance_size = sizeof(mt_settings),
    .fields = tss_fields,
    .init = tss_init,
    .reinit = tss_init,
};
