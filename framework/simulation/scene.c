/* scene.c - a scene: its root node, initialisation (links, init, mechanical
 * systems), stepping through the animation loop, reset and destruction. It
 * and failure.c call each other by design (simulation.h says why). */
#include <stdio.h>
#include <string.h>

#include "simulation/simulation.h"

st_status st__scene_new(st_runtime *rt, const char *file, st_scene **out, st_error *err)
{
    *out = NULL;
    st_scene *s = st_calloc(1, sizeof *s);
    if (!s)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    s->rt = rt;
    s->file = st_strdup(file ? file : "");
    if (!s->file) {
        st_free(s);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    *out = s;
    return ST_OK;
}

const char *st__scene_intern(st_scene *s, const char *file)
{
    for (size_t i = 0; i < s->nstrings; i++)
        if (!strcmp(s->strings[i], file))
            return s->strings[i];
    char **l = st_realloc(s->strings, (s->nstrings + 1) * sizeof *l);
    if (!l)
        return NULL;
    s->strings = l;
    l[s->nstrings] = st_strdup(file);
    return l[s->nstrings] ? l[s->nstrings++] : NULL;
}

st_status st_scene_create(st_runtime *rt, st_scene **out, st_error *err)
{
    st_scene *s;
    ST_TRY(st__scene_new(rt, "", &s, err));
    st_node *root;
    st_status st = st__node_create(s, NULL, "root", ST_NO_MARK, &root, err);
    if (st != ST_OK) {
        st_scene_destroy(&s);
        return st;
    }
    *out = s;
    return ST_OK;
}

void st_scene_destroy(st_scene **ps)
{
    if (!ps || !*ps)
        return;
    st_scene *s = *ps;
    st__scene_hooks_run_destroy(s);
    s->destroying = true;
    for (size_t i = 0; i < s->nsystems; i++)
        st__system_unbind(s->systems[i]);
    st__node_destroy(s->root);
    st_free(s->topo_links);
    st_free(s->resize_links);
    for (size_t i = 0; i < s->nsystems; i++)
        st__system_destroy(&s->systems[i]);
    st_free(s->systems);
    for (size_t i = 0; i < s->nstrings; i++)
        st_free(s->strings[i]);
    st_free(s->strings);
    for (size_t i = 0; i < s->ndata_paths; i++)
        st_free(s->data_paths[i]);
    st_free(s->data_paths);
    st_free(s->file);
    st_free(s);
    *ps = NULL;
}

st_node *st_scene_root(st_scene *s) { return s ? s->root : NULL; }
st_runtime *st_scene_runtime(st_scene *s) { return s ? s->rt : NULL; }
double st_scene_time(const st_scene *s) { return s && s->root ? s->root->time : 0.0; }
const char *st_scene_file(const st_scene *s) { return s ? s->file : NULL; }

static size_t collect_states(st_node *n, st_mstate **out, size_t max, size_t k)
{
    for (size_t i = 0; i < n->nobjects; i++)
        if (st__is_mstate(n->objects[i])) {
            if (out && k < max)
                out[k] = (st_mstate *)n->objects[i];
            k++;
        }
    for (size_t i = 0; i < n->nchildren; i++)
        k = collect_states(n->children[i], out, max, k);
    return k;
}

size_t st_scene_states(st_scene *s, st_mstate **out, size_t max)
{
    return s && s->root ? collect_states(s->root, out, max, 0) : 0;
}

size_t st_scene_visual_models(st_scene *s, st_component **out, size_t max)
{
    return s && s->root ? st__visual_models(s->root, out, max) : 0;
}

/* ---- init ---- */

#define INIT_FAILED_NODES_MAX 64

typedef struct init_ctx {
    st_scene *s;
    st_error *err;
    st_status first;
    int nerrors;
    /* nodes holding a component whose init failed (init_node); past the
     * maximum, init stops at the next component */
    const st_node *failed_nodes[INIT_FAILED_NODES_MAX];
    size_t nfailed;
} init_ctx;

static void record(init_ctx *x, st_error *e)
{
    st__log_error(x->s->rt, e);
    if (x->first == ST_OK) {
        *x->err = *e;
        x->first = e->code;
    }
    x->nerrors++;
}

static st_status ensure_loop(st_scene *s, st_error *err)
{
    st_node *root = s->root;
    s->loop = NULL;
    for (size_t i = 0; i < root->nobjects; i++)
        if (st__class_has_role(root->objects[i]->cls, ST_ROLE_ANIMLOOP)) {
            s->loop = root->objects[i];
            return ST_OK;
        }
    if (!s->rt->default_loop)
        return st_error_set(err, ST_ESCENE, "the root node has no animation loop, and the "
                            "runtime has no DefaultAnimationLoop to add");
    st_component *c;
    ST_TRY(st__component_create(root, s->rt->default_loop, "DefaultAnimationLoop", ST_NO_MARK,
                                &c, err));
    ST_TRY(st__node_prepend_object(root, c, err));
    st__log(s->rt, ST_LOG_INFO, root->mark, "/",
            "the root node has no animation loop: a DefaultAnimationLoop was added");
    s->loop = c;
    return ST_OK;
}

/* Duplicate names among a node's objects or among its children make paths
 * ambiguous: refused at the later one's line. In SOFA's format (.scn,
 * .xml) two objects of a node may share a name, as SOFA keeps both (an
 * <include> that adds a component named like one of the including file's,
 * Demos/include_test.scn): a warning, and a path naming them reaches the
 * first in scene order, as SOFA's Node::getObject (--strict: an error). */
static void on_duplicate(void *ud, st_node *n, st_component *obj, st_component *first,
                         st_node *child, st_node *first_child)
{
    init_ctx *x = ud;
    st_error e = {0};
    char path[ST_ERROR_PATH_MAX], at[32] = "";
    st_mark fm = obj ? st__cinfo(first)->mark : first_child->mark;
    (void)n;
    if (fm.line)
        snprintf(at, sizeof at, " at line %d", fm.line);
    if (obj && st__mark_is_xml(st__cinfo(obj)->mark) && !x->s->rt->strict) {
        st_component_path(obj, path, sizeof path);
        st__log(x->s->rt, ST_LOG_WARNING, st__cinfo(obj)->mark, path,
                "%s: an object named '%s' already exists in this node (a %s%s): both are kept, "
                "as SOFA does, and a link to '%s' reaches the first (an error with --strict)",
                obj->cls->name, obj->name, first->cls->name, at, obj->name);
        return;
    }
    if (obj) {
        st__error_at(&e, ST_ESCENE, st__cinfo(obj)->mark,
                     "%s: an object named '%s' already exists in this node (a %s%s)",
                     obj->cls->name, obj->name, first->cls->name, at);
        st_error_set_path(&e, st_component_path(obj, path, sizeof path));
    } else {
        st__error_at(&e, ST_ESCENE, child->mark,
                     "a node named '%s' already exists under this parent%s: sibling nodes need "
                     "different names, or paths to them are ambiguous",
                     child->name, at);
        st_error_set_path(&e, st_node_path(child, path, sizeof path));
    }
    record(x, &e);
}

static void check_names(init_ctx *x, st_node *n)
{
    st_error e = {0};
    if (st__node_index(n, on_duplicate, x, &e) != ST_OK)
        record(x, &e);
    for (size_t i = 0; i < n->nchildren; i++)
        check_names(x, n->children[i]);
}

/* The link fields of c that point at target. */
static bool links_to(const st_component *c, const st_component *target)
{
    const st_cinfo *ci = st__cinfo(c);
    for (size_t i = 0; i < ci->nfields; i++)
        if (ci->fields[i]->type == ST_T_LINK &&
            *(st_component *const *)((const char *)c + ci->fields[i]->offset) == target)
            return true;
    return false;
}

/* What one node may hold (docs/scene-format.md, "One of a kind"): several
 * masses, as SOFA allows (each adds its gravity and its M; the last is the
 * node's mass for a = M^-1 f and the kinetic energy); several ODE
 * solvers run as SOFA's SolveVisitor runs them, every one in scene order
 * over the same subtree (a warning says so); and a warning when an
 * ODE solver that names no linearSolver picks the first of several linear
 * solvers that nothing links to (SOFA takes the first too). */
/* Whether an ODE solver moves positions with velocities (its x-from-v
 * integration factor is not 0); a velocity filter does not. */
static bool advances_positions(const st_component *c)
{
    const st_odesolver_ops *o = c->cls->odesolver;
    return !o->integration_factor || o->integration_factor(c, 1, 0, 1.0) != 0.0;
}

static void check_roles(init_ctx *x, st_node *n)
{
    st_component *ode = NULL, *ls = NULL;
    char path[ST_ERROR_PATH_MAX];
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        const st_field *fin = c->cls->mapping ? st_component_field(c, "input") : NULL;
        const st_field *fout = c->cls->mapping ? st_component_field(c, "output") : NULL;
        if (fin && fout && fin->type == ST_T_LINK && fout->type == ST_T_LINK) {
            st_component *in = *(st_component **)st_component_field_ptr(c, fin);
            if (in && in == *(st_component **)st_component_field_ptr(c, fout)) {
                st_error e = {0};
                st_cinfo *ci = st__cinfo(c);
                int k = st__component_field_index(c, "output");
                st__error_at(&e, ST_ESCENE, k >= 0 && ci->fs[k].mark.line ? ci->fs[k].mark : ci->mark,
                             "%s: input and output are the same state '%s': a mapping computes "
                             "one state from another",
                             c->cls->name, in->name);
                st_error_set_path(&e, st_component_path(c, path, sizeof path));
                record(x, &e);
            }
        }
        if (!c->cls->odesolver)
            continue;
        if (!ode) {
            ode = c;
            continue;
        }
        /* A velocity filter (DampVelocitySolver) next to an integrator
         * is SOFA's intended use: no advance twice, no warning. */
        if (!advances_positions(c) || !advances_positions(ode))
            continue;
        st__log(x->s->rt, ST_LOG_WARNING, st__cinfo(c)->mark,
                st_component_path(c, path, sizeof path),
                "%s '%s': this node already has the ODE solver %s '%s' (line %d): both are "
                "used, as SOFA's SolveVisitor does: each step '%s' integrates the node's "
                "subtree over dt, then '%s' integrates it again from there (the states "
                "advance twice per step); move one to its own node or remove it if that is "
                "not meant",
                c->cls->name, c->name, ode->cls->name, ode->name, st__cinfo(ode)->mark.line,
                ode->name, c->name);
    }
    const st_field *lf = ode ? st_component_field(ode, "linearSolver") : NULL;
    bool linked = lf && *(st_component **)st_component_field_ptr(ode, lf);
    for (size_t i = 0; ode && !linked && i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (!c->cls->linsolver)
            continue;
        if (!ls) {
            ls = c;
            continue;
        }
        bool used = false; /* a preconditioner linked by another solver */
        for (size_t k = 0; k < n->nobjects && !used; k++)
            used = n->objects[k] != c && links_to(n->objects[k], c);
        if (!used)
            st__log(x->s->rt, ST_LOG_WARNING, st__cinfo(c)->mark,
                    st_component_path(c, path, sizeof path),
                    "%s '%s' is ignored: %s '%s' uses the first linear solver of its node, %s "
                    "'%s' (as SOFA does); link the one you mean with linearSolver: \"@name\"",
                    c->cls->name, c->name, ode->cls->name, ode->name, ls->cls->name, ls->name);
    }
    for (size_t i = 0; i < n->nchildren; i++)
        check_roles(x, n->children[i]);
}

static void resolve_all(init_ctx *x, st_node *n)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        st_error e = {0};
        if (st__component_resolve_links(n->objects[i], &e) != ST_OK)
            record(x, &e);
    }
    for (size_t i = 0; i < n->nchildren; i++)
        resolve_all(x, n->children[i]);
}

/* Every component's state type, before any init: states first reshape
 * their vectors into points, then the components acting on them check that
 * they support the type. */
static void resolve_types(init_ctx *x, st_node *n)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        st_error e = {0};
        if (st__component_resolve_type(n->objects[i], &e) != ST_OK)
            record(x, &e);
    }
    for (size_t i = 0; i < n->nchildren; i++)
        resolve_types(x, n->children[i]);
}

/* Components other components read at init: states, topologies, loaders,
 * engines and topological mappings (which fill their output container at
 * init). They initialise first (in scene order), so that a force field,
 * mass or constraint written before its MechanicalObject, or in a parent
 * node (SOFA's interaction force fields), sees it sized; SOFA's own
 * components tolerate either order. A container whose src is a container a
 * topological mapping fills (SOFA's lazy data links read it when the
 * container initialises, after the mapping in scene order) sees it filled. */
static bool is_provider(const st_component *c)
{
    return st__class_has_role(c->cls, ST_ROLE_STATE) || c->cls->topology || c->cls->engine ||
           (c->cls->category && (!strcmp(c->cls->category, "Loader") ||
                                 !strcmp(c->cls->category, "TopologicalMapping")));
}

static st_status init_one(st_component *c, st_error *err)
{
    char path[ST_ERROR_PATH_MAX];
    st_cinfo *ci = st__cinfo(c);
    st_status st = st_component_update_inputs(c, err);
    if (st == ST_OK && c->cls->init)
        st = c->cls->init(c, err);
    if (st != ST_OK) {
        c->state = ST_CSTATE_INVALID;
        if (!err->where[0] && ci->mark.file)
            snprintf(err->where, sizeof err->where, "%s:%d:%d", ci->mark.file, ci->mark.line,
                     ci->mark.col);
        st_error_set_path(err, st_component_path(c, path, sizeof path));
        if (!strstr(err->msg, c->cls->name))
            st_error_prefix(err, "%s: ", c->cls->name);
        return st;
    }
    ci->initialised = true;
    if (c->state == ST_CSTATE_UNDEFINED)
        c->state = ST_CSTATE_VALID;
    if (c->cls->engine)
        return st__engine_refresh(c, err);
    return ST_OK;
}

/* True when c failed its init, or was skipped because of such a failure. */
static bool failed(const st_component *c)
{
    return c && !st__cinfo(c)->initialised && c->state == ST_CSTATE_INVALID;
}

/* True when n or one of its ancestors holds a failed component (or too
 * many failed to keep track): what comes after it there, and below, may
 * read it (its node's state, topology, loader), so it is not initialised. */
static bool node_failed(const init_ctx *x, const st_node *n)
{
    if (x->nfailed > INIT_FAILED_NODES_MAX)
        return true;
    for (; n && x->nfailed; n = n->parent)
        for (size_t i = 0; i < x->nfailed && i < INIT_FAILED_NODES_MAX; i++)
            if (x->failed_nodes[i] == n)
                return true;
    return false;
}

/* True when c links (a link or a data link) to a failed or skipped
 * component. Sources met earlier in the init order were skipped, and so
 * marked failed, when they depended on a failure themselves. */
static bool links_failed(st_component *c)
{
    st_cinfo *ci = st__cinfo(c);
    for (size_t k = 0; k < ci->nfields; k++) {
        const st_component *to = ci->fs[k].parent;
        if (!to && ci->fields[k]->type == ST_T_LINK)
            to = *(st_component **)st_component_field_ptr(c, ci->fields[k]);
        if (to && to != c && failed(to))
            return true;
    }
    return false;
}

/* Top-down, objects in scene order: providers (pass 0), then the rest. A
 * component whose init fails is reported and the others go on, except
 * those that depend on it (see node_failed and links_failed): they are
 * skipped without a message of their own, so that one run reports every
 * independent failure and no consequence of one. */
static void init_node(init_ctx *x, st_node *n, int pass)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (st__cinfo(c)->initialised || failed(c) || (pass == 0 && !is_provider(c)))
            continue;
        if (node_failed(x, n) || links_failed(c)) {
            c->state = ST_CSTATE_INVALID;
            continue;
        }
        st_error e = {0};
        if (init_one(c, &e) != ST_OK) {
            /* also an engine whose first update failed after its init */
            st__cinfo(c)->initialised = false;
            c->state = ST_CSTATE_INVALID;
            record(x, &e);
            if (x->nfailed < INIT_FAILED_NODES_MAX)
                x->failed_nodes[x->nfailed] = n;
            x->nfailed++;
        }
    }
    for (size_t i = 0; i < n->nchildren; i++)
        init_node(x, n->children[i], pass);
}

/* The solvers the animation loop drives: the first node(s) with ODE solvers
 * met going down from the root; deeper ones are pruned (SOFA's SolveVisitor).
 * A node's first ODE solver stands for the node: the others integrate the
 * same system after it (bind_systems, st__loop_solve_node). */
static st_status driven_solvers(st_node *n, st_component ***l, size_t *nl, st_error *err)
{
    if (!n->activated)
        return ST_OK;
    bool has = false;
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (!c->cls->odesolver)
            continue;
        if (has)
            continue;
        has = true;
        st_component **g = st_realloc(*l, (*nl + 1) * sizeof *g);
        if (!g)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        *l = g;
        g[(*nl)++] = c;
    }
    if (has)
        return ST_OK;
    for (size_t i = 0; i < n->nchildren; i++)
        ST_TRY(driven_solvers(n->children[i], l, nl, err));
    return ST_OK;
}

/* Collision groups: the root's collision pipelines say which solvers'
 * subtrees their contacts couple (st_collision_ops.solver_groups). */
static st_status solver_groups(st_scene *s, st_component *const *sv, size_t n, size_t *group,
                               st_error *err)
{
    char path[ST_ERROR_PATH_MAX];
    for (size_t i = 0; i < n; i++)
        group[i] = i;
    st_node *root = s->root;
    for (size_t i = 0; i < root->nobjects; i++) {
        st_component *c = root->objects[i];
        if (!ST_CLASS_HAS(c->cls, collision) || !c->cls->collision)
            continue;
        const st_collision_ops *ops = c->cls->collision;
        if (ops->struct_size < offsetof(st_collision_ops, solver_groups) +
                                   sizeof ops->solver_groups ||
            !ops->solver_groups)
            continue;
        st_status st = ops->solver_groups(c, root, sv, n, group, err);
        if (st != ST_OK) {
            if (!err->path[0])
                st_error_set_path(err, st_component_path(c, path, sizeof path));
            return st;
        }
    }
    for (size_t i = 0; i < n; i++) /* to the first of the group, whatever the plugin wrote */
        group[i] = group[i] <= i ? group[group[i]] : i;
    return ST_OK;
}

/* One mechanical system per group of driven solvers (one solver each,
 * unless a collision group manager merged them). */
static st_status compile_systems(st_scene *s, st_error *err)
{
    st_component **sv = NULL, **members = NULL;
    size_t n = 0, *group = NULL;
    st_status rc = driven_solvers(s->root, &sv, &n, err);
    if (rc == ST_OK && n) {
        group = st_malloc(n * sizeof *group);
        members = st_malloc(n * sizeof *members);
        rc = group && members ? solver_groups(s, sv, n, group, err)
                              : st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t i = 0; rc == ST_OK && i < n; i++) {
        if (group[i] != i)
            continue;
        size_t nm = 0;
        for (size_t j = i; j < n; j++)
            if (group[j] == i)
                members[nm++] = sv[j];
        st_system *sys = NULL;
        rc = st__system_compile_group(members, nm, &sys, err);
        if (rc != ST_OK)
            break;
        st_system **l = st_realloc(s->systems, (s->nsystems + 1) * sizeof *l);
        if (!l) {
            st__system_unbind(sys);
            st__system_destroy(&sys);
            rc = st_error_set(err, ST_ENOMEM, "out of memory");
            break;
        }
        s->systems = l;
        s->systems[s->nsystems++] = sys;
    }
    st_free(sv);
    st_free(members);
    st_free(group);
    return rc;
}

static st_status bind_systems(st_scene *s, st_error *err)
{
    char path[ST_ERROR_PATH_MAX];
    for (size_t k = 0; k < s->nsystems; k++) {
        st_system *sys = s->systems[k];
        st_component *ls[64];
        size_t nls = st_node_find_all(sys->node, ST_ROLE_LINSOLVER, ST_SEARCH_DOWN, ls, 64);
        for (size_t i = 0; i < nls && i < 64; i++)
            if (ls[i]->cls->linsolver->bind) {
                st_status st = ls[i]->cls->linsolver->bind(ls[i], sys, err);
                if (st != ST_OK) {
                    st_error_set_path(err, st_component_path(ls[i], path, sizeof path));
                    return st;
                }
            }
        /* The node's first ODE solver, then its other ones on the same system. */
        for (size_t i = 0; i < sys->node->nobjects; i++) {
            st_component *o = sys->node->objects[i];
            if (!o->cls->odesolver || (o != sys->solver && o->node != sys->solver->node))
                continue;
            const st_odesolver_ops *ops = o->cls->odesolver;
            if (!ops->bind)
                continue;
            st_status st = ops->bind(o, sys, err);
            if (st != ST_OK) {
                st_cinfo *ci = st__cinfo(o);
                if (!err->where[0] && ci->mark.file)
                    snprintf(err->where, sizeof err->where, "%s:%d:%d", ci->mark.file,
                             ci->mark.line, ci->mark.col);
                st_error_set_path(err, st_component_path(o, path, sizeof path));
                return st;
            }
        }
        st_system_project_position(sys, sys->x);
        st_system_project_velocity(sys, sys->v);
        st_system_propagate_x(sys, sys->x);
        st_system_propagate_v(sys, sys->v);
    }
    return ST_OK;
}

/* The collision pipelines of the root node (st_collision_ops.bind), once the
 * systems are bound: they find which states their contacts act on. */
static st_status bind_collision(st_scene *s, st_error *err)
{
    char path[ST_ERROR_PATH_MAX];
    st_node *root = s->root;
    for (size_t i = 0; i < root->nobjects; i++) {
        st_component *c = root->objects[i];
        if (!ST_CLASS_HAS(c->cls, collision) || !c->cls->collision || !c->cls->collision->bind)
            continue;
        st_status st = c->cls->collision->bind(c, root, err);
        if (st != ST_OK) {
            if (!err->path[0])
                st_error_set_path(err, st_component_path(c, path, sizeof path));
            return st;
        }
    }
    return ST_OK;
}

st_status st__scene_refresh_systems(st_scene *s, st_error *err)
{
    if (s && s->change_error.code != ST_OK) {
        *err = s->change_error;
        return err->code;
    }
    if (!s || !s->systems_stale)
        return ST_OK;
    s->systems_stale = false;
    for (size_t i = 0; i < s->nsystems; i++)
        st__system_destroy(&s->systems[i]);
    s->nsystems = 0;
    st_status st = compile_systems(s, err);
    if (st == ST_OK)
        st = bind_systems(s, err);
    if (st == ST_OK)
        st = bind_collision(s, err);
    if (st != ST_OK)
        st_error_prefix(err, "after a topological change: ");
    return st;
}

/* Whether a system of the scene lists c among its components of role. */
static bool in_a_system(const st_scene *s, const st_component *c, st_role role)
{
    st_component *buf[256];
    for (size_t k = 0; k < s->nsystems; k++) {
        size_t n = st__system_components(s->systems[k], role, NULL, 0);
        st_component **list = n <= 256 ? buf : st_malloc(n * sizeof *list);
        if (!list)
            return true; /* no memory to tell: say nothing */
        n = st__system_components(s->systems[k], role, list, n);
        bool found = false;
        for (size_t i = 0; i < n && !found; i++)
            found = list[i] == c;
        if (list != buf)
            st_free(list);
        if (found)
            return true;
    }
    return false;
}

/* Components that act on nothing (issue 31): a force field, mass or
 * projective constraint that no mechanical system reaches is a warning
 * naming it (no ODE solver above it: it is never applied); a force field
 * of a system that links a state no system integrates (an interaction with
 * a static state) is an error, before the run would fail on it. Only in
 * scenes with systems: a scene without solvers simulates nothing. */
static st_status check_reach(st_scene *s, st_node *n, st_error *err)
{
    char path[ST_ERROR_PATH_MAX], other[ST_ERROR_PATH_MAX];
    static const struct {
        st_role role;
        const char *what;
    } roles[] = {{ST_ROLE_FORCEFIELD, "force field"},
                 {ST_ROLE_MASS, "mass"},
                 {ST_ROLE_PROJECTIVE, "projective constraint"}};
    for (size_t i = 0; s->nsystems && i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        /* A collision model adds its contacts' forces, but a static one
         * (a floor under no solver) is how SOFA's scenes are written. */
        if (c->cls->category && !strcmp(c->cls->category, "CollisionModel"))
            continue;
        for (size_t r = 0; r < sizeof roles / sizeof *roles; r++) {
            if (!st__class_has_role(c->cls, roles[r].role))
                continue;
            if (!in_a_system(s, c, roles[r].role)) {
                st_component_warn(c, "this %s acts on nothing: no ODE solver above it "
                                     "integrates its state, so it is never applied; move it "
                                     "below the ODE solver of the object it should act on",
                                  roles[r].what);
                break;
            }
            if (roles[r].role != ST_ROLE_FORCEFIELD)
                break;
            /* The two states of an interaction (SOFA's PairInteractionForceField
             * links object1 and object2): each must be integrated by a system.
             * Other state links are read only (a reference rest shape). */
            const st_cinfo *ci = st__cinfo(c);
            for (size_t k = 0; k < ci->nfields; k++) {
                const st_field *f = ci->fields[k];
                if (f->type != ST_T_LINK || f->link_kind != ST_LINK_STATE ||
                    (strcmp(f->name, "object1") && strcmp(f->name, "object2")))
                    continue;
                st_component *t = *(st_component **)((char *)c + f->offset);
                if (!t || !st__is_mstate(t))
                    continue;
                const st_mstate *ms = (const st_mstate *)t;
                if (ms->system || ms->mapped)
                    continue;
                return st_component_error(
                    c, f->name, err, ST_ESCENE,
                    "links the state %s, which no ODE solver integrates: this interaction "
                    "cannot act on it. Put that state below the same ODE solver as the other "
                    "(or below one that integrates both), or fix its points with a "
                    "FixedProjectiveConstraint under that solver",
                    st_component_path(t, other, sizeof other));
            }
            break;
        }
    }
    (void)path;
    for (size_t i = 0; i < n->nchildren; i++)
        ST_TRY(check_reach(s, n->children[i], err));
    return ST_OK;
}

static void send_event(st_node *n, st_event ev, double dt)
{
    for (size_t i = 0; i < n->nobjects; i++)
        if (n->objects[i]->cls->on_event)
            n->objects[i]->cls->on_event(n->objects[i], ev, dt);
    for (size_t i = 0; i < n->nchildren; i++)
        send_event(n->children[i], ev, dt);
}

st_status st_scene_init(st_scene *s, st_error *err)
{
    if (!s || !s->root)
        return st_error_set(err, ST_EINVAL, "st_scene_init: no scene");
    if (s->initialised)
        return st_error_set(err, ST_ESTATE, "the scene is already initialised");
    init_ctx x = {s, err, ST_OK, 0};
    st_error e = {0};
    if (ensure_loop(s, &e) != ST_OK) {
        record(&x, &e);
        return x.first;
    }
    check_names(&x, s->root);
    resolve_all(&x, s->root);
    if (x.first == ST_OK)
        check_roles(&x, s->root);
    if (x.first != ST_OK) {
        st__node_unindex(s->root);
        return x.first;
    }
    resolve_types(&x, s->root);
    if (x.first != ST_OK) {
        st__node_unindex(s->root);
        return x.first;
    }
    st__node_propagate_context(s->root);
    init_node(&x, s->root, 0);
    init_node(&x, s->root, 1);
    st__node_unindex(s->root);
    if (x.first != ST_OK)
        return x.first;
    st_status st = ST_OK;
    if (st == ST_OK)
        st = compile_systems(s, err);
    if (st == ST_OK)
        st = bind_systems(s, err);
    if (st == ST_OK)
        st = bind_collision(s, err);
    if (st == ST_OK)
        st = check_reach(s, s->root, err);
    if (st == ST_OK) /* visual models from the bound positions (projected at bind) */
        st__visual_update(s->root);
    if (st != ST_OK) {
        st__log_error(s->rt, err);
        return st;
    }
    s->initialised = true;
    st__scene_note_extent(s);
    const st_field *cf = st_component_field(s->loop, "continueOnSolverFailure");
    s->continue_on_failure =
        cf && cf->type == ST_T_BOOL && *(bool *)st_component_field_ptr(s->loop, cf);
    send_event(s->root, ST_EVENT_INIT_DONE, s->root->dt);
    return st__scene_take_failure(s, err);
}

st_status st_scene_step(st_scene *s, double dt, st_error *err)
{
    if (!s || !s->initialised)
        return st_error_set(err, ST_ESTATE, "the scene must be initialised before it steps");
    if (!(dt > 0))
        dt = s->root->dt;
    if (s->steps == 0)
        s->step_dt = dt;
    else
        s->dt_varied |= dt != s->step_dt;
    const st_animloop_ops *ops = s->loop->cls->animloop;
    s->stepping = true;
    st_status st = ops->step(s->loop, s->root, dt, err);
    s->stepping = false;
    if (st == ST_OK) /* a change at the end of the step: systems whole again */
        st = st__scene_refresh_systems(s, err);
    if (st == ST_OK)
        st = st__scene_take_failure(s, err);
    if (st == ST_OK)
        st = st__scene_check_finite(s, err);
    if (st != ST_OK) {
        if (!strstr(err->msg, "step "))
            st_error_prefix(err, "step %lu (t = %g): ", s->steps + 1, s->root->time);
        return st;
    }
    s->steps++;
    return ST_OK;
}

/* ---- components added to an initialised scene ---- */

/* The components of n's subtree that were never initialised and did not
 * fail: the ones added since init. Counts them; fills out up to max. */
static size_t added_components(st_node *n, st_component **out, size_t max, size_t k)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (!st__cinfo(c)->initialised && c->state != ST_CSTATE_INVALID) {
            if (k < max)
                out[k] = c;
            k++;
        }
    }
    for (size_t i = 0; i < n->nchildren; i++)
        k = added_components(n->children[i], out, max, k);
    return k;
}

st_status st_scene_init_added(st_scene *s, st_error *err)
{
    if (!s || !s->initialised)
        return st_error_set(err, ST_ESTATE, "st_scene_init_added: the scene is not initialised "
                                            "(st_scene_init initialises everything)");
    if (s->stepping)
        return st_error_set(err, ST_ESTATE,
                            "components cannot be initialised during a step (the mechanical "
                            "systems are in use): add them between steps");
    size_t n = added_components(s->root, NULL, 0, 0);
    if (n == 0)
        return ST_OK;
    st_component **added = st_malloc(n * sizeof *added);
    if (!added)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    added_components(s->root, added, n, 0);
    init_ctx x = {s, err, ST_OK, 0};
    check_names(&x, s->root);
    for (size_t i = 0; i < n && x.first == ST_OK; i++) {
        st_error e = {0};
        if (st__component_resolve_links(added[i], &e) != ST_OK)
            record(&x, &e);
    }
    for (size_t i = 0; i < n && x.first == ST_OK; i++) {
        st_error e = {0};
        if (st__component_resolve_type(added[i], &e) != ST_OK)
            record(&x, &e);
    }
    if (x.first == ST_OK) {
        st__node_propagate_context(s->root);
        init_node(&x, s->root, 0);
        init_node(&x, s->root, 1);
    }
    st__node_unindex(s->root);
    st_status st = x.first;
    if (st == ST_OK) {
        /* The systems are compiled again with the new components, keeping
         * the states' positions and velocities (as after a topological
         * change). */
        for (size_t i = 0; i < s->nsystems; i++)
            st__system_destroy(&s->systems[i]);
        s->nsystems = 0;
        st = compile_systems(s, err);
        if (st == ST_OK)
            st = bind_systems(s, err);
        if (st == ST_OK)
            st = bind_collision(s, err);
        if (st != ST_OK) {
            /* The systems are gone: the scene cannot step any more. */
            st_error_prefix(err, "after components were added: ");
            s->change_error = *err;
        }
    }
    if (st == ST_OK)
        for (size_t i = 0; i < n; i++)
            if (added[i]->cls->on_event && st__cinfo(added[i])->initialised)
                added[i]->cls->on_event(added[i], ST_EVENT_INIT_DONE, s->root->dt);
    st_free(added);
    if (st == ST_OK)
        st = st__scene_take_failure(s, err);
    return st;
}

static void reset_node(st_node *n)
{
    for (size_t i = 0; i < n->nobjects; i++)
        if (n->objects[i]->cls->reset)
            n->objects[i]->cls->reset(n->objects[i]);
    for (size_t i = 0; i < n->nchildren; i++)
        reset_node(n->children[i]);
}

st_status st_scene_reset(st_scene *s, st_error *err)
{
    if (!s || !s->initialised)
        return st_error_set(err, ST_ESTATE, "the scene must be initialised before a reset");
    s->root->time = 0;
    st__node_propagate_context(s->root);
    reset_node(s->root);
    for (size_t k = 0; k < s->nsystems; k++) {
        st_system *sys = s->systems[k];
        st_system_project_position(sys, sys->x);
        st_system_project_velocity(sys, sys->v);
        st_system_propagate_x(sys, sys->x);
        st_system_propagate_v(sys, sys->v);
    }
    /* the non-mechanical outputs (visual models, MappedObjects) follow, as
     * SOFA's reset ends with an UpdateMappingVisitor */
    st__visual_update(s->root);
    s->steps = 0;
    s->dt_varied = false;
    return ST_OK;
}
