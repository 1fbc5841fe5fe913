/* plugin.c - the MultiThreading plugin (SOFA's MultiThreading): parallel
 * twins of sequential components, built from their classes (the sequential
 * sources are compiled in), a pool of threads each, and
 * TaskSchedulerSettings. */
#include <pthread.h>

#include "mt_pool.h"

enum { MT_NCLASSES = 6 };
static const st_class *twins[MT_NCLASSES];
static pthread_once_t twins_once = PTHREAD_ONCE_INIT;

static void make_twins(void)
{
    twins[0] = parallel_tetrahedron_fem_class();
    twins[1] = parallel_hexahedron_fem_class();
    twins[2] = parallel_spring_force_field_class();
    twins[3] = parallel_mesh_spring_force_field_class();
    twins[4] = parallel_cg_linear_solver_class();
    twins[5] = beam_linear_mapping_mt_class();
}

static st_status register_classes(st_registry *r, st_error *err)
{
    pthread_once(&twins_once, make_twins);
    for (int i = 0; i < MT_NCLASSES; i++) {
        if (!twins[i])
            return st_error_set(err, ST_EPLUGIN, "MultiThreading: parallel class %d does not fit "
                                                 "its tables", i);
        ST_TRY(st_registry_add(r, twins[i], err));
    }
    ST_TRY(st_registry_add(r, &task_scheduler_settings_class, err));
    return ST_OK;
}

static const char *const provides[] = {"MultiThreading", NULL};

ST_PLUGIN_DEFINE("MultiThreading", "0.1.0",
                 "Parallel twins, on a pool of threads, of sequential components: "
                 "ParallelTetrahedronFEMForceField, ParallelHexahedronFEMForceField, "
                 "ParallelSpringForceField, ParallelMeshSpringForceField, ParallelCGLinearSolver, "
                 "BeamLinearMapping_mt; "
                 "and TaskSchedulerSettings, their thread count",
                 "LGPL-2.1-or-later", provides, register_classes)
