/* components.c - the Python component classes and the ".py" reader. Each
 * role function forwards to settee._settee (stpy_api), which calls the
 * Python object's methods:
 *   PythonController        a Sofa.Core.Controller subclass added from Python
 *   PythonForceField        a Sofa.Core.ForceField subclass (ForceFieldVec3d, ...)
 *   PythonDataEngine        a Sofa.Core.DataEngine subclass (update() runs in
 *                           Python when an output is read: nothing to do here)
 *   PythonMapping           a Sofa.Core.Mapping_* subclass (apply, applyJ, applyJT)
 *   PythonScriptController  SOFA's SofaPython component for XML and YAML
 *                           scenes: the class `classname` of `filename`. */
#include <stddef.h>

#include "sofapython3.h"

#define API_OR(ret)                                                                                \
    const stpy_api *api = sp3_api(NULL);                                                           \
    if (!api)                                                                                      \
        return ret;

static st_status create_py(st_component *self, st_error *err)
{
    /* Start Python (or find it) when the first Python component appears,
     * so that a missing interpreter is an error at the scene's line. */
    return sp3_api(err) ? ST_OK : ST_EPLUGIN;
}

static st_status init_py(st_component *self, st_error *err)
{
    const stpy_api *api = sp3_api(err);
    return api ? api->init((stpy_component *)self, err) : ST_EPLUGIN;
}

static st_status reinit_py(st_component *self, st_error *err)
{
    const stpy_api *api = sp3_api(err);
    return api ? api->reinit((stpy_component *)self, err) : ST_EPLUGIN;
}

static void reset_py(st_component *self)
{
    API_OR();
    api->reset((stpy_component *)self);
}

static void cleanup_py(st_component *self)
{
    /* Nothing to release when Python never ran for this component. */
    if (!((stpy_component *)self)->py)
        return;
    API_OR();
    api->cleanup((stpy_component *)self);
}

static void event_py(st_component *self, st_event ev, double dt)
{
    API_OR();
    api->on_event((stpy_component *)self, ev, dt);
}

static void ff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    API_OR();
    api->add_force((stpy_component *)self, mp, f, x, v);
}

static void ff_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    API_OR();
    api->add_dforce((stpy_component *)self, mp, df, dx, kfactor, bfactor);
}

static void ff_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    API_OR();
    api->add_k_to_matrix((stpy_component *)self, mp, m, kfactor);
}

static double ff_energy(st_component *self, const st_mparams *mp, const double *x)
{
    API_OR(0.0);
    return api->potential_energy((stpy_component *)self, mp, x);
}

static const st_forcefield_ops ff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = ff_add_force,
    .add_dforce = ff_add_dforce,
    .add_k_to_matrix = ff_add_k,
    .potential_energy = ff_energy,
};

static const st_field controller_fields[] = {
    ST_BOOL(stpy_component, listening, "listening", "true",
            "Receive the animation events (onAnimateBeginEvent, onAnimateEndEvent)"),
    ST_FIELD_END};

const st_class sp3_controller_class = {
    .struct_size = sizeof(st_class),
    .name = STPY_CLASS_CONTROLLER,
    .category = "Controller",
    .description = "A Sofa.Core.Controller written in Python (added with node.addObject(obj))",
    .instance_size = sizeof(stpy_component),
    .fields = controller_fields,
    .create = create_py,
    .init = init_py,
    .reinit = reinit_py,
    .reset = reset_py,
    .cleanup = cleanup_py,
    .on_event = event_py,
};

static const char *const ff_templates[] = {"Vec3d", "Vec1d", "Vec2d", "Rigid3d", NULL};

const st_class sp3_forcefield_class = {
    .struct_size = sizeof(st_class),
    .name = STPY_CLASS_FORCEFIELD,
    .category = "ForceField",
    .description = "A Sofa.Core.ForceField written in Python (addForce, addDForce, addKToMatrix)",
    .instance_size = sizeof(stpy_component),
    .fields = controller_fields,
    .create = create_py,
    .init = init_py,
    .reinit = reinit_py,
    .reset = reset_py,
    .cleanup = cleanup_py,
    .on_event = event_py,
    .forcefield = &ff_ops,
    .templates = ff_templates,
};

const st_class sp3_engine_class = {
    .struct_size = sizeof(st_class),
    .name = STPY_CLASS_ENGINE,
    .category = "Engine",
    .description = "A Sofa.Core.DataEngine written in Python (addInput, addOutput, update)",
    .instance_size = sizeof(stpy_component),
    .fields = controller_fields,
    .create = create_py,
    .init = init_py,
    .reinit = reinit_py,
    .reset = reset_py,
    .cleanup = cleanup_py,
    .on_event = event_py,
};

/* ---- PythonMapping ---- */

static st_mstate *map_in(const st_component *self)
{
    return (st_mstate *)((stpy_component *)self)->input;
}

static st_mstate *map_out(const st_component *self)
{
    return (st_mstate *)((stpy_component *)self)->output;
}

static bool map_ready(const st_component *self)
{
    const stpy_component *c = (const stpy_component *)self;
    return self->state == ST_CSTATE_VALID && c->input && c->output;
}

/* Checks the links, runs the Python init, then x_out = apply(x_in) and
 * v_out = applyJ(v_in) on the states' own arrays, as SOFA's Mapping::init. */
static st_status map_init(st_component *self, st_error *err)
{
    stpy_component *c = (stpy_component *)self;
    const stpy_api *api = sp3_api(err);
    if (!api)
        return ST_EPLUGIN;
    self->state = ST_CSTATE_INVALID;
    if (!c->input || !st_component_has_role(c->input, ST_ROLE_STATE))
        return st_component_error(self, "input", err, ST_ELINK,
                                  "input must link a MechanicalObject (\"@../dofs\"), got %s",
                                  c->input ? c->input->cls->name : "nothing");
    if (!c->output || !st_component_has_role(c->output, ST_ROLE_STATE))
        return st_component_error(self, "output", err, ST_ELINK,
                                  "output must link a MechanicalObject (\"@dofs\"), got %s",
                                  c->output ? c->output->cls->name : "nothing");
    if (c->input == c->output)
        return st_component_error(self, "output", err, ST_ELINK,
                                  "input and output are the same state");
    ST_TRY(api->init(c, err));
    self->state = ST_CSTATE_VALID;
    st_mstate *in = map_in(self), *out = map_out(self);
    st_mparams mp = {.struct_size = sizeof mp};
    api->map(c, STPY_APPLY, &mp, out->position.r, out->position.n, out->type->coord_size,
             in->position.r, in->position.n, in->type->coord_size);
    if (out->velocity.n == out->position.n && in->velocity.n == in->position.n)
        api->map(c, STPY_APPLY_J, &mp, out->velocity.r, out->velocity.n, out->type->deriv_size,
                 in->velocity.r, in->velocity.n, in->type->deriv_size);
    return ST_OK;
}

static void map_apply(st_component *self, const st_mparams *mp, double *x)
{
    if (!map_ready(self))
        return;
    API_OR();
    st_mstate *in = map_in(self), *out = map_out(self);
    api->map((stpy_component *)self, STPY_APPLY, mp, st_slice_x(x, out), out->n,
             out->type->coord_size, st_slice_x(x, in), in->n, in->type->coord_size);
}

static void map_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    if (!map_ready(self))
        return;
    API_OR();
    st_mstate *in = map_in(self), *out = map_out(self);
    api->map((stpy_component *)self, STPY_APPLY_J, mp, st_slice(v, out), out->n,
             out->type->deriv_size, st_slice(v, in), in->n, in->type->deriv_size);
}

static void map_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    if (!map_ready(self))
        return;
    API_OR();
    st_mstate *in = map_in(self), *out = map_out(self);
    api->map((stpy_component *)self, STPY_APPLY_JT, mp, st_slice(f, in), in->n,
             in->type->deriv_size, st_slice(f, out), out->n, out->type->deriv_size);
}

static unsigned map_flags(const st_component *self)
{
    const stpy_component *c = (const stpy_component *)self;
    return (c->map_forces ? ST_MAP_FORCES : 0u) | ST_MAP_CONSTRAINTS |
           (c->map_masses ? ST_MAP_MASSES : 0u) | ST_MAP_MATRICES;
}

static const st_mapping_ops map_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_in,
    .output = map_out,
    .apply = map_apply,
    .apply_j = map_apply_j,
    .apply_jt = map_apply_jt,
    .flags = map_flags,
};

static const st_field mapping_fields[] = {
    {"input", ST_T_LINK,
     offsetof(stpy_component, input) + ST_FIELD_CHECK_(stpy_component, input, st_component *),
     "@../", "Input object to map (default: the parent node's MechanicalObject)", 0, NULL,
     ST_LINK_STATE, 0.0, 0.0},
    {"output", ST_T_LINK,
     offsetof(stpy_component, output) + ST_FIELD_CHECK_(stpy_component, output, st_component *),
     "@./", "Output object to map (default: this node's MechanicalObject)", 0, NULL,
     ST_LINK_STATE, 0.0, 0.0},
    ST_BOOL(stpy_component, map_forces, "mapForces", "true",
            "Are forces mapped ? (false: the output's forces and masses do not act on the input)"),
    ST_BOOL(stpy_component, map_masses, "mapMasses", "true",
            "Are masses mapped ? (as in SOFA, no effect on the dynamics)"),
    ST_BOOL(stpy_component, listening, "listening", "true",
            "Receive the animation events (onAnimateBeginEvent, onAnimateEndEvent)"),
    ST_FIELD_END};

const st_class sp3_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = STPY_CLASS_MAPPING,
    .category = "Mapping",
    .description = "A Sofa.Core.Mapping written in Python (apply, applyJ, applyJT; matrix-free: "
                   "no assembled Jacobian)",
    .instance_size = sizeof(stpy_component),
    .fields = mapping_fields,
    .create = create_py,
    .init = map_init,
    .reinit = reinit_py,
    .reset = reset_py,
    .cleanup = cleanup_py,
    .on_event = event_py,
    .mapping = &map_ops,
};

static st_status script_init(st_component *self, st_error *err)
{
    const stpy_api *api = sp3_api(err);
    if (!api)
        return ST_EPLUGIN;
    stpy_component *c = (stpy_component *)self;
    if (!c->py)
        ST_TRY(api->script_load(c, err));
    return api->init(c, err);
}

/* Right after the scene set the fields (SOFA's parse): the script loads and
 * its createGraph(node) may add to the graph while the scene is read. */
static st_status script_parsed(st_component *self, st_error *err)
{
    const stpy_api *api = sp3_api(err);
    return api ? api->script_load((stpy_component *)self, err) : ST_EPLUGIN;
}

static const st_field script_fields[] = {
    ST_FIELD_EX(stpy_component, filename, "filename", ST_T_STRING, char *, NULL,
                "Python script file (found as mesh files are: scene folder, data paths)",
                ST_F_REQUIRED, NULL, 0.0, 0.0),
    ST_FIELD_EX(stpy_component, classname, "classname", ST_T_STRING, char *, NULL,
                "The class of the script to instantiate (a Sofa.Core.Controller, or SofaPython's "
                "Sofa.PythonScriptController with onBeginAnimationStep(dt) ...)",
                ST_F_REQUIRED, NULL, 0.0, 0.0),
    ST_STRINGS(stpy_component, variables, "variables", NULL,
               "Strings given to the script (SofaPython's command line arguments: "
               "self.variables, and sys.argv[1:] while the script loads)"),
    ST_BOOL(stpy_component, listening, "listening", "true", "Receive the animation events"),
    ST_IGNORED(stpy_component, timing, "timingEnabled", ST_T_BOOL, bool, "true",
               "Gather timing statistics of the Python calls (no effect in settee)"),
    ST_IGNORED(stpy_component, autoreload, "autoreload", ST_T_BOOL, bool, "false",
               "Reload the script when its file changes (no effect in settee)"),
    ST_FIELD_END};

const st_class sp3_script_class = {
    .struct_size = sizeof(st_class),
    .name = STPY_CLASS_SCRIPT,
    .category = "Controller",
    .description = "SofaPython's script controller: an instance of `classname` from `filename`",
    .instance_size = sizeof(stpy_component),
    .fields = script_fields,
    .create = create_py,
    .init = script_init,
    .parsed = script_parsed,
    .reinit = reinit_py,
    .reset = reset_py,
    .cleanup = cleanup_py,
    .on_event = event_py,
};

static st_status read_py(st_scene *s, const char *path, st_error *err)
{
    const stpy_api *api = sp3_api(err);
    return api ? api->read_scene(s, path, err) : ST_EPLUGIN;
}

const st_scene_reader sp3_py_reader = {sizeof(st_scene_reader), ".py",
                                       "Python scene: the file's createScene(root), as runSofa",
                                       read_py};
