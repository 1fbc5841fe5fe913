/* builtins.c - the classes the kernel provides without any plugin, and the
 * built-in plugin records that answer RequiredPlugin for them. */
#include <string.h>

#include "builtin/builtin.h"

static const char *const core_provides[] = {"Sofa.Simulation.Core", "Sofa.Simulation",
                                            "Sofa.Component.AnimationLoop", "Sofa.Core", NULL};
static const char *const state_provides[] = {"Sofa.Component.StateContainer", NULL};

static st_status add_record(st_runtime *rt, const char *name, const char *desc,
                            const char *const *provides, st_error *err)
{
    st_plugin_rec *r = st_calloc(1, sizeof *r);
    st_plugin_rec **list = st_realloc(rt->plugins, (rt->nplugins + 1) * sizeof *list);
    if (!r || !list) {
        st_free(r);
        if (list)
            rt->plugins = list;
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    rt->plugins = list;
    r->file = st_strdup("(built in)");
    if (!r->file) {
        st_free(r);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    r->info.name = name;
    r->info.file = r->file;
    r->info.version = ST_VERSION_STRING;
    r->info.description = desc;
    r->info.license = "LGPL-2.1-or-later";
    r->info.abi_major = ST_ABI_MAJOR;
    r->info.abi_minor = ST_ABI_MINOR;
    r->info.provides = provides;
    rt->plugins[rt->nplugins++] = r;
    return ST_OK;
}

st_status st__builtins_register(st_runtime *rt, st_error *err)
{
    ST_TRY(add_record(rt, "Core",
                      "Kernel components: DefaultAnimationLoop, FreeMotionAnimationLoop, "
                      "ConstraintAnimationLoop, MultiStepAnimationLoop, MultiTagAnimationLoop, "
                      "DefaultVisualManagerLoop, RequiredPlugin; and, from SOFA's "
                      "MultiThreading plugin, AnimationLoopParallelScheduler with its "
                      "DataExchange and MeanComputation",
                      core_provides, err));
    ST_TRY(add_record(rt, "StateContainer",
                      "MechanicalObject, the mechanical state, and MappedObject, a mapped state "
                      "with no mechanics",
                      state_provides, err));
    st__registry_set_current(rt->reg, "Core", "(built in)");
    st_status s = st_registry_add(rt->reg, &st__default_animation_loop_class, err);
    rt->default_loop = &st__default_animation_loop_class;
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__free_motion_animation_loop_class, err);
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__multi_step_animation_loop_class, err);
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__constraint_animation_loop_class, err);
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__multi_tag_animation_loop_class, err);
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__animation_loop_parallel_scheduler_class, err);
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__data_exchange_class, err);
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__mean_computation_class, err);
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__required_plugin_class, err);
    if (s == ST_OK)
        s = st_registry_add(rt->reg, &st__default_visual_manager_loop_class, err);
    if (s == ST_OK) {
        st__registry_set_current(rt->reg, "StateContainer", "(built in)");
        s = st_registry_add(rt->reg, &st__mechanical_object_class, err);
        if (s == ST_OK)
            s = st_registry_add(rt->reg, &st__mapped_object_class, err);
    }
    st__registry_set_current(rt->reg, NULL, NULL);
    return s;
}
