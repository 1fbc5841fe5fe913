/* system.c - the mechanical system of one ODE solver: its subtree compiled
 * into flat global vectors and ordered component lists, and the operations
 * solvers run on it (forces, M/B/K products, projections, mappings, vector
 * algebra). Everything is allocated at compile or bind time; the operations
 * called during a step never allocate. It, matrix.c and mapping.c call
 * each other by design (mechanics.h says why). */
#include <math.h>
#include <string.h>

#include "mechanics/mechanics.h"

/* A component that contributes to the force: a mass (gravity) or a force
 * field (add_force), in scene order. */
typedef struct sys_contrib {
    st_component *c;
    bool is_mass;
    bool active;                  /* not below a mapping that does not map forces */
} sys_contrib;

/* Per-state bookkeeping of the binding. */
typedef struct sys_state {
    st_mstate *ms;
    const st_field *f_position, *f_velocity;
    int ext_index;                /* field index of externalForce, or -1 */
    unsigned long ext_counter;    /* its write counter when last looked at */
} sys_state;

/* The system with its private lists; the public part comes first. */
typedef struct sys_impl {
    st_system pub;
    sys_state *st;                /* pub.nstates */
    sys_contrib *contrib;
    size_t ncontrib;
    st_component **masses, **ffs, **projs, **maps;
    size_t nmasses, nffs, nprojs, nmaps;
    double **scratch;
    size_t *scratch_n;            /* nscratch: the length of each scratch vector */
    size_t nscratch;
    bool bound;
    bool mass_on_mapped;          /* some mass acts on a mapped state */
    /* nmasses each. SOFA's node keeps its last mass as "the" mass
     * (node->mass): only that one answers the visitors that ask the node's
     * mass (a = M^-1 f, separate gravity, kinetic energy, M dx, whether the
     * masses are diagonal); every mass is also a force field (gravity,
     * potential energy, M in M dx + B dx + K dx and in the matrix). */
    bool *node_mass;              /* the last mass of its node */
    bool *mdx_mass;               /* node mass reached by SOFA's M dx visitor */
    bool *proj_mapped;            /* nprojs: the constraint acts on a mapped state */
    st_mapgraph *graph;           /* the mappings' Jacobians (NULL without mappings) */
    bool *map_active;             /* nmaps: the mapping maps forces up */
    long *map_out;                /* nmaps: state index of the output (-1: none) */
    bool *fed;                    /* nstates: a force field or mass acts on the state or on a
                                     state mapped from it (fixed at compile) */
    bool *fed_now;                /* nstates: the same with this step's externalForce */
    /* The last linear system handed to a linear solver (st_system_last_linsolve). */
    bool ls_assembled, ls_solved;
    double ls_mf, ls_bf, ls_kf;
    double *ls_b, *ls_x;          /* ls_n doubles each, copies */
    size_t ls_n;
} sys_impl;

/* The parameters a mass or force field sees: the system's, with the gravity
 * of the component's own node, which differs from the system's where a
 * Gravity context object sits below the solver (SOFA's masses read their
 * context's gravity). */
static const st_mparams *context_params(const st_component *c, const st_mparams *mp,
                                        st_mparams *own)
{
    const double *g = c->node ? c->node->gravity : mp->gravity;
    if (g[0] == mp->gravity[0] && g[1] == mp->gravity[1] && g[2] == mp->gravity[2])
        return mp;
    *own = *mp;
    memcpy(own->gravity, g, sizeof own->gravity);
    return own;
}

static sys_impl *impl(st_system *s) { return (sys_impl *)s; }
static const sys_impl *cimpl(const st_system *s) { return (const sys_impl *)s; }

/* ---- compilation ---- */

/* Growable list of component pointers used while collecting. */
typedef struct comp_list {
    st_component **p;
    size_t n, cap;
} comp_list;

static st_status list_push(comp_list *l, st_component *c, st_error *err)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        st_component **p = st_realloc(l->p, cap * sizeof *p);
        if (!p)
            return st_error_set(err, ST_ENOMEM, "out of memory while compiling the mechanical system");
        l->p = p;
        l->cap = cap;
    }
    l->p[l->n++] = c;
    return ST_OK;
}

typedef struct collect {
    comp_list states, masses, ffs, projs, maps, contrib;
} collect;

/* Scene order: a node's objects, then its children depth-first. */
static st_status collect_node(st_node *n, collect *cl, st_error *err)
{
    if (!n->activated)
        return ST_OK;
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        const st_class *k = c->cls;
        if (st__is_mstate(c))
            ST_TRY(list_push(&cl->states, c, err));
        /* A class may be a mass and a force field at once (SOFA's
         * HexahedronFEMForceFieldAndMass): it is listed, and called, as both. */
        if (k->mass)
            ST_TRY(list_push(&cl->masses, c, err));
        if (k->forcefield)
            ST_TRY(list_push(&cl->ffs, c, err));
        if (k->mass || k->forcefield)
            ST_TRY(list_push(&cl->contrib, c, err));
        if (k->projective)
            ST_TRY(list_push(&cl->projs, c, err));
        /* A visual mapping is no part of the mechanics (st__visual_update). */
        if (k->mapping && !st__mapping_is_visual(c))
            ST_TRY(list_push(&cl->maps, c, err));
    }
    for (size_t i = 0; i < n->nchildren; i++)
        ST_TRY(collect_node(n->children[i], cl, err));
    return ST_OK;
}

static void collect_free(collect *cl)
{
    st_free(cl->states.p);
    st_free(cl->masses.p);
    st_free(cl->ffs.p);
    st_free(cl->projs.p);
    st_free(cl->maps.p);
    st_free(cl->contrib.p);
}

/* Moves a collected list into an exactly-sized array owned by the system. */
static st_status take_list(comp_list *l, st_component ***out, size_t *n, st_error *err)
{
    *out = NULL;
    *n = l->n;
    if (l->n == 0)
        return ST_OK;
    *out = st_malloc(l->n * sizeof **out);
    if (!*out)
        return st_error_set(err, ST_ENOMEM, "out of memory while compiling the mechanical system");
    memcpy(*out, l->p, l->n * sizeof **out);
    return ST_OK;
}

static bool is_mapped_output(const collect *cl, const st_mstate *ms)
{
    for (size_t i = 0; i < cl->maps.n; i++) {
        st_component *m = cl->maps.p[i];
        if (m->cls->mapping->output && m->cls->mapping->output(m) == ms)
            return true;
    }
    return false;
}

/* Points one of the state's arrays at its slice of a global vector, after
 * copying what the array held (w scalars per point; zero-padding,
 * truncating to n points). */
static void bind_array(st_array *a, double *slice, size_t n, unsigned w)
{
    size_t keep = a->n < n ? a->n : n;
    if (keep && a->p && a->p != (void *)slice)
        memcpy(slice, a->r, w * keep * sizeof(double));
    if (a->p != (void *)slice)
        st_array_free(a, ST_T_REALS);
    a->p = slice;
    a->n = n;
    a->cap = 0;
}

/* Gives a state its own copy of an array that points into a global vector. */
static void unbind_array(st_array *a, const double *slice, size_t n, unsigned w)
{
    if (a->cap != 0 || a->p != (const void *)slice)
        return; /* replaced by the owner meanwhile: already owned */
    st_array own = {{NULL}, 0, 0};
    st_error e = {0};
    if (n && st_array_resize_width(&own, w, n, &e) == ST_OK)
        memcpy(own.r, slice, w * n * sizeof(double));
    else
        own = (st_array){{NULL}, 0, 0};
    *a = own;
}

static void set_mparams(st_system *sys)
{
    st_node *n = sys->node;
    sys->mp.struct_size = sizeof(st_mparams);
    sys->mp.dt = n->dt;
    sys->mp.time = n->time;
    memcpy(sys->mp.gravity, n->gravity, sizeof n->gravity);
    sys->mp.implicit = false;
}

static double *vec_new(size_t scalars)
{
    return st_calloc(scalars ? scalars : 1, sizeof(double));
}

static unsigned cw(const st_mstate *ms) { return ms->type->coord_size; }
static unsigned dw(const st_mstate *ms) { return ms->type->deriv_size; }

static long state_index(const st_system *sys, const st_mstate *ms)
{
    for (size_t k = 0; ms && k < sys->nstates; k++)
        if (sys->states[k] == ms)
            return (long)k;
    return -1;
}

/* Whether c may add forces or products to ms: its own state, or a state
 * one of its links names (an interaction force field). */
static bool acts_on(st_component *c, const st_mstate *ms)
{
    if (st_component_mstate(c) == ms)
        return true;
    const st_cinfo *ci = st__cinfo(c);
    for (size_t i = 0; ci && i < ci->nfields; i++) {
        const st_field *f = ci->fields[i];
        if (f->type == ST_T_LINK &&
            *(st_component *const *)((const char *)c + f->offset) == &ms->base)
            return true;
    }
    return false;
}

/* Which states receive forces: those a force field or mass acts on, and
 * the inputs of mappings whose outputs do (bottom-up). A mapping whose
 * output receives none has nothing to map back: its apply_jt adds zeros,
 * and its apply_j feeds nobody in M/B/K products. */
static void feed_inputs(sys_impl *s, size_t i, bool *fed);

static void find_fed_states(sys_impl *s)
{
    st_system *sys = &s->pub;
    for (size_t i = 0; i < s->nmaps; i++) {
        const st_mapping_ops *ops = s->maps[i]->cls->mapping;
        s->map_out[i] = state_index(sys, ops->output ? ops->output(s->maps[i]) : NULL);
    }
    for (size_t k = sys->nindep; k < sys->nstates; k++)
        for (size_t i = 0; i < s->ncontrib && !s->fed[k]; i++)
            s->fed[k] = s->contrib[i].active && acts_on(s->contrib[i].c, sys->states[k]);
    for (size_t i = s->nmaps; i-- > 0;)
        if (s->map_out[i] >= 0 && s->fed[s->map_out[i]])
            feed_inputs(s, i, s->fed);
    for (size_t k = 0; k < sys->nindep; k++)
        s->fed[k] = true;
}

/* Marks the inputs of mapping i as receiving forces. */
static void feed_inputs(sys_impl *s, size_t i, bool *fed)
{
    st_mstate *ins[ST_MAP_MAX_INPUTS];
    size_t n = st__mapping_inputs(s->maps[i], ins, ST_MAP_MAX_INPUTS);
    for (size_t k = 0; k < n && k < ST_MAP_MAX_INPUTS; k++) {
        long in = state_index(&s->pub, ins[k]);
        if (in >= 0)
            fed[in] = true;
    }
}

/* A mapping's output has no force to send back (this step's externalForce
 * counted): its J^T and geometric stiffness would add exact zeros. Outputs
 * outside the system (visual models) count as fed, the mapping decides. */
static bool output_idle(const sys_impl *s, size_t i, const bool *fed)
{
    return s->map_out[i] >= 0 && !fed[s->map_out[i]];
}

/* SOFA's node->mass: the last mass added to the node. */
static st_component *last_mass(const st_node *n)
{
    for (size_t i = n->nobjects; i-- > 0;)
        if (n->objects[i]->cls->mass)
            return n->objects[i];
    return NULL;
}

static bool has_mechanical_mapping(const st_node *n)
{
    for (size_t i = 0; i < n->nobjects; i++)
        if (n->objects[i]->cls->mapping && !st__mapping_is_visual(n->objects[i]))
            return true;
    return false;
}

/* Whether SOFA's M dx visitor, walking down from the solver's node, reaches
 * the mass of node n: it stops at a node holding a mechanical mapping and
 * below a node whose mass it used. */
static bool reached_by_mdx(const st_node *n, const st_node *top)
{
    if (has_mechanical_mapping(n))
        return false;
    for (const st_node *p = n; p != top && p->parent;) {
        p = p->parent;
        if (has_mechanical_mapping(p) || last_mass(p))
            return false;
    }
    return true;
}

st_status st__system_compile(st_component *solver, st_system **out, st_error *err)
{
    return st__system_compile_group(&solver, 1, out, err);
}

/* One system over the subtrees of several driven solvers (a collision
 * group): their states and components one subtree after another, in the
 * order given; the first solver integrates it. */
st_status st__system_compile_group(st_component *const *solvers, size_t nsolvers, st_system **out,
                                   st_error *err)
{
    st_component *solver = solvers[0];
    *out = NULL;
    collect cl;
    memset(&cl, 0, sizeof cl);
    sys_impl *s = st_calloc(1, sizeof *s);
    if (!s)
        return st_error_set(err, ST_ENOMEM, "out of memory while compiling the mechanical system");
    st_system *sys = &s->pub;
    sys->struct_size = sizeof(st_system);
    sys->solver = solver;
    sys->node = solver->node;

    st_status rc = ST_OK;
    for (size_t g = 0; g < nsolvers && rc == ST_OK; g++)
        rc = collect_node(solvers[g]->node, &cl, err);
    if (rc != ST_OK)
        goto fail;
    /* a solver with nothing to integrate ran silently */
    if (cl.states.n == 0)
        st_component_warn(solver, "%s has no MechanicalObject in its node or below: it "
                                  "integrates nothing",
                          solver->cls->name);

    /* Independent states first, mapped ones after, each group in scene order. */
    sys->nstates = cl.states.n;
    if (sys->nstates) {
        sys->states = st_calloc(sys->nstates, sizeof *sys->states);
        s->st = st_calloc(sys->nstates, sizeof *s->st);
        if (!sys->states || !s->st) {
            rc = st_error_set(err, ST_ENOMEM, "out of memory while compiling the mechanical system");
            goto fail;
        }
    }
    size_t k = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < cl.states.n; i++) {
            st_mstate *ms = (st_mstate *)cl.states.p[i];
            bool mapped = is_mapped_output(&cl, ms);
            if (mapped != (pass == 1))
                continue;
            ms->mapped = mapped;
            sys->states[k++] = ms;
        }
        if (pass == 0)
            sys->nindep = k;
    }

    /* Each state's coordinates and derivatives follow the previous
     * state's, in the coordinate and derivative vectors respectively. */
    size_t off = 0, xoff = 0, doff = 0;
    for (size_t i = 0; i < sys->nstates; i++) {
        st_mstate *ms = sys->states[i];
        if (!ms->type) {
            rc = st_component_error(&ms->base, NULL, err, ST_ESTATE, "state without a type");
            goto fail;
        }
        ms->n = ms->position.n;
        ms->xoffset = xoff;
        ms->doffset = doff;
        off += ms->n;
        xoff += cw(ms) * ms->n;
        doff += dw(ms) * ms->n;
        if (i + 1 == sys->nindep) {
            sys->ndof = off;
            sys->xsize = xoff;
            sys->size = doff;
        }
    }
    sys->nall = off;
    sys->xsize_all = xoff;
    sys->size_all = doff;

    double **vecs[7] = {&sys->x, &sys->v, &sys->f, &sys->x0, &sys->fext, &sys->dx, &sys->df};
    for (int i = 0; i < 7; i++) {
        bool coord = vecs[i] == &sys->x || vecs[i] == &sys->x0;
        *vecs[i] = vec_new(coord ? sys->xsize_all : sys->size_all);
        if (!*vecs[i]) {
            rc = st_error_set(err, ST_ENOMEM, "out of memory allocating the global vectors (%zu points)",
                              sys->nall);
            goto fail;
        }
    }

    if ((rc = take_list(&cl.masses, &s->masses, &s->nmasses, err)) != ST_OK ||
        (rc = take_list(&cl.ffs, &s->ffs, &s->nffs, err)) != ST_OK ||
        (rc = take_list(&cl.projs, &s->projs, &s->nprojs, err)) != ST_OK ||
        (rc = take_list(&cl.maps, &s->maps, &s->nmaps, err)) != ST_OK)
        goto fail;
    if (s->nmaps) {
        if ((rc = st__mapgraph_create(sys, s->maps, s->nmaps, &s->graph, err)) != ST_OK)
            goto fail;
        s->map_active = st_calloc(s->nmaps, sizeof *s->map_active);
        s->map_out = st_calloc(s->nmaps, sizeof *s->map_out);
        s->fed = st_calloc(sys->nstates ? sys->nstates : 1, sizeof *s->fed);
        s->fed_now = st_calloc(sys->nstates ? sys->nstates : 1, sizeof *s->fed_now);
        if (!s->map_active || !s->map_out || !s->fed || !s->fed_now) {
            rc = st_error_set(err, ST_ENOMEM, "out of memory while compiling the mechanical system");
            goto fail;
        }
        for (size_t i = 0; i < s->nmaps; i++)
            s->map_active[i] = st__mapgraph_maps_forces(s->graph, s->maps[i]);
    }
    if (cl.contrib.n) {
        s->contrib = st_malloc(cl.contrib.n * sizeof *s->contrib);
        if (!s->contrib) {
            rc = st_error_set(err, ST_ENOMEM, "out of memory while compiling the mechanical system");
            goto fail;
        }
        for (size_t i = 0; i < cl.contrib.n; i++) {
            s->contrib[i].c = cl.contrib.p[i];
            s->contrib[i].is_mass = cl.contrib.p[i]->cls->mass != NULL;
            s->contrib[i].active = st__mapgraph_active(s->graph, cl.contrib.p[i]);
        }
        s->ncontrib = cl.contrib.n;
    }

    if (s->nmaps)
        find_fed_states(s);
    if (s->nprojs) {
        s->proj_mapped = st_calloc(s->nprojs, sizeof *s->proj_mapped);
        if (!s->proj_mapped) {
            rc = st_error_set(err, ST_ENOMEM, "out of memory while compiling the mechanical system");
            goto fail;
        }
    }
    for (size_t i = 0; i < s->nprojs; i++) {
        st_mstate *ms = st_component_mstate(s->projs[i]);
        s->proj_mapped[i] = ms && ms->mapped;
    }
    for (size_t i = 0; i < s->nmasses; i++) {
        st_mstate *ms = st_component_mstate(s->masses[i]);
        if (ms && ms->mapped)
            s->mass_on_mapped = true;
    }
    if (s->nmasses) {
        s->node_mass = st_calloc(s->nmasses, sizeof *s->node_mass);
        s->mdx_mass = st_calloc(s->nmasses, sizeof *s->mdx_mass);
        if (!s->node_mass || !s->mdx_mass) {
            rc = st_error_set(err, ST_ENOMEM, "out of memory while compiling the mechanical system");
            goto fail;
        }
        for (size_t i = 0; i < s->nmasses; i++) {
            s->node_mass[i] = last_mass(s->masses[i]->node) == s->masses[i];
            s->mdx_mass[i] = s->node_mass[i] && reached_by_mdx(s->masses[i]->node, sys->node);
        }
    }

    /* Bind the states' arrays to their slices of the global vectors. */
    for (size_t i = 0; i < sys->nstates; i++) {
        st_mstate *ms = sys->states[i];
        sys_state *ss = &s->st[i];
        ss->ms = ms;
        ss->f_position = st_component_field(&ms->base, "position");
        ss->f_velocity = st_component_field(&ms->base, "velocity");
        ss->ext_index = st__component_field_index(&ms->base, "externalForce");
        if (ss->ext_index >= 0 && st__cinfo(&ms->base))
            ss->ext_counter = st__cinfo(&ms->base)->fs[ss->ext_index].counter;
        bind_array(&ms->position, st_slice_x(sys->x, ms), ms->n, cw(ms));
        bind_array(&ms->velocity, st_slice(sys->v, ms), ms->n, dw(ms));
        bind_array(&ms->force, st_slice(sys->f, ms), ms->n, dw(ms));
        bind_array(&ms->rest_position, st_slice_x(sys->x0, ms), ms->n, cw(ms));
        bind_array(&ms->external_force, st_slice(sys->fext, ms), ms->n, dw(ms));
        bind_array(&ms->derivx, st_slice(sys->dx, ms), ms->n, dw(ms));
        ms->system = sys;
    }
    s->bound = true;
    set_mparams(sys);
    collect_free(&cl);
    *out = sys;
    return ST_OK;

fail:
    collect_free(&cl);
    st__system_destroy(&sys);
    return rc;
}

void st__system_unbind(st_system *sys)
{
    if (!sys)
        return;
    sys_impl *s = impl(sys);
    if (!s->bound)
        return;
    for (size_t i = 0; i < sys->nstates; i++) {
        st_mstate *ms = sys->states[i];
        unbind_array(&ms->position, st_slice_x(sys->x, ms), ms->n, cw(ms));
        unbind_array(&ms->velocity, st_slice(sys->v, ms), ms->n, dw(ms));
        unbind_array(&ms->force, st_slice(sys->f, ms), ms->n, dw(ms));
        unbind_array(&ms->rest_position, st_slice_x(sys->x0, ms), ms->n, cw(ms));
        unbind_array(&ms->external_force, st_slice(sys->fext, ms), ms->n, dw(ms));
        unbind_array(&ms->derivx, st_slice(sys->dx, ms), ms->n, dw(ms));
        ms->system = NULL;
        ms->xoffset = ms->doffset = 0;
    }
    s->bound = false;
}

void st__system_destroy(st_system **psys)
{
    if (!psys || !*psys)
        return;
    st_system *sys = *psys;
    sys_impl *s = impl(sys);
    st__system_unbind(sys);
    st_free(sys->x);
    st_free(sys->v);
    st_free(sys->f);
    st_free(sys->x0);
    st_free(sys->fext);
    st_free(sys->dx);
    st_free(sys->df);
    for (size_t i = 0; i < s->nscratch; i++)
        st_free(s->scratch[i]);
    st_free(s->scratch);
    st_free(s->scratch_n);
    st_free(s->ls_b);
    st_free(s->ls_x);
    st_free(sys->states);
    st_free(s->st);
    st_free(s->contrib);
    st_free(s->masses);
    st_free(s->node_mass);
    st_free(s->mdx_mass);
    st_free(s->ffs);
    st_free(s->projs);
    st_free(s->proj_mapped);
    st_free(s->maps);
    st_free(s->map_active);
    st_free(s->map_out);
    st_free(s->fed);
    st_free(s->fed_now);
    st__mapgraph_destroy(&s->graph);
    st_free(s);
    *psys = NULL;
}

bool st__mapping_is_visual(const st_component *c)
{
    const st_mapping_ops *ops = c->cls->mapping;
    return ops && HAS_MOP(ops, flags) && (ops->flags(c) & ST_MAP_VISUAL);
}

st_component *st__visual_output(const st_component *map)
{
    const st_field *f = st_component_field(map, "output");
    if (!f || f->type != ST_T_LINK)
        return NULL;
    return *(st_component *const *)((const char *)map + f->offset);
}

/* A visual model: Vec3 position and restPosition, neither a state nor a
 * topology (SOFA's VisualState; a MappedObject output is none). */
static bool is_visual_model(const st_component *c)
{
    if (!c || st__is_mstate(c) || c->cls->topology)
        return false;
    const st_field *p = st_component_field(c, "position");
    const st_field *r = st_component_field(c, "restPosition");
    return p && r && p->type == ST_T_VEC3S && r->type == ST_T_VEC3S;
}

/* Before init: the component the mapping's "output" link text names, when
 * it looks like a visual model (Vec3 position and restPosition, neither a
 * state nor a topology: SOFA's VisualState); NULL otherwise. */
static st_component *visual_output_before_init(const st_component *map)
{
    int k = st__component_field_index(map, "output");
    const st_cinfo *ci = st__cinfo(map);
    if (k < 0 || !ci)
        return NULL;
    const st_field *f = ci->fields[k];
    const char *link = ci->fs[k].link;
    if (!link && !ci->fs[k].set && f->def && f->def[0] == '@')
        link = f->def + 1;
    st_component *c = NULL;
    st_error e = {0};
    if (!link || st_node_resolve(map->node, link, ST_LINK_ANY, &c, &e) != ST_OK)
        return NULL;
    return is_visual_model(c) ? c : NULL;
}

static void visual_models_node(st_node *n, st_component **out, size_t max, size_t *count)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (!c->cls->mapping)
            continue;
        st_component *m = NULL;
        if (c->state == ST_CSTATE_VALID)
            m = st__mapping_is_visual(c) && is_visual_model(st__visual_output(c))
                    ? st__visual_output(c)
                    : NULL;
        else if (c->state == ST_CSTATE_UNDEFINED)
            m = visual_output_before_init(c);
        bool seen = !m;
        for (size_t k = 0; k < *count && k < max && !seen; k++)
            seen = out[k] == m;
        if (seen)
            continue;
        if (out && *count < max)
            out[*count] = m;
        (*count)++;
    }
    for (size_t i = 0; i < n->nchildren; i++)
        visual_models_node(n->children[i], out, max, count);
}

size_t st__visual_models(st_node *root, st_component **out, size_t max)
{
    size_t count = 0;
    if (root)
        visual_models_node(root, out, out ? max : 0, &count);
    return count;
}

static void visual_update_node(st_node *n)
{
    if (!n->activated)
        return;
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (!c->cls->mapping || !c->cls->mapping->apply || c->state != ST_CSTATE_VALID ||
            !st__mapping_is_visual(c))
            continue;
        /* The input's slice of its system's x: the positions after the step
         * (an input outside any system does not move: init mapped it). */
        st_mstate *in = c->cls->mapping->input ? c->cls->mapping->input(c) : NULL;
        if (!in || !in->system)
            continue;
        c->cls->mapping->apply(c, &in->system->mp, in->system->x);
        /* an output with velocities (a MappedObject): applyJ too */
        if (c->cls->mapping->apply_j && (c->cls->mapping->flags(c) & ST_MAP_VISUAL_VELOCITY))
            c->cls->mapping->apply_j(c, &in->system->mp, in->system->v);
    }
    for (size_t i = 0; i < n->nchildren; i++)
        visual_update_node(n->children[i]);
}

void st__visual_update(st_node *root)
{
    if (root)
        visual_update_node(root);
}

void st__system_end_step(st_system *sys)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < sys->nstates; i++) {
        sys_state *ss = &s->st[i];
        st_mstate *ms = ss->ms;
        /* SOFA clears externalForce after every step: it acts once. */
        if (ms->has_external_force) {
            if (ms->external_force.p)
                memset(ms->external_force.p, 0, dw(ms) * ms->external_force.n * sizeof(double));
            ms->has_external_force = false;
        }
        if (ss->f_position)
            st_component_touch(&ms->base, ss->f_position);
        if (ss->f_velocity)
            st_component_touch(&ms->base, ss->f_velocity);
    }
}

static st_status scratch_alloc(st_system *sys, size_t scalars, double **out, st_error *err)
{
    sys_impl *s = impl(sys);
    *out = NULL;
    double **list = st_realloc(s->scratch, (s->nscratch + 1) * sizeof *list);
    if (!list)
        return st_error_set(err, ST_ENOMEM, "out of memory allocating a scratch vector");
    s->scratch = list;
    size_t *lens = st_realloc(s->scratch_n, (s->nscratch + 1) * sizeof *lens);
    if (!lens)
        return st_error_set(err, ST_ENOMEM, "out of memory allocating a scratch vector");
    s->scratch_n = lens;
    double *v = vec_new(scalars);
    if (!v)
        return st_error_set(err, ST_ENOMEM, "out of memory allocating a scratch vector (%zu values)",
                            scalars);
    s->scratch_n[s->nscratch] = scalars;
    s->scratch[s->nscratch++] = v;
    *out = v;
    return ST_OK;
}

size_t st__system_scratch(st_system *sys, size_t i, double **v)
{
    sys_impl *s = impl(sys);
    if (i >= s->nscratch)
        return 0;
    *v = s->scratch[i];
    return s->scratch_n[i];
}

size_t st__system_nscratch(const st_system *sys)
{
    return cimpl(sys)->nscratch;
}

st_status st_system_vec_alloc(st_system *sys, double **out, st_error *err)
{
    return scratch_alloc(sys, sys->size_all, out, err);
}

st_status st_system_xvec_alloc(st_system *sys, double **out, st_error *err)
{
    ST_TRY(scratch_alloc(sys, sys->xsize_all, out, err));
    memcpy(*out, sys->x, sys->xsize_all * sizeof(double));
    return ST_OK;
}

/* The system's own ordered lists (scene order, as compiled): masses, force
 * fields, projective constraints and mappings. Other roles give 0. */
size_t st__system_components(const st_system *sys, st_role role, st_component **out, size_t max)
{
    const sys_impl *s = cimpl(sys);
    st_component *const *list;
    size_t n;
    switch (role) {
    case ST_ROLE_MASS:
        list = s->masses;
        n = s->nmasses;
        break;
    case ST_ROLE_FORCEFIELD:
        list = s->ffs;
        n = s->nffs;
        break;
    case ST_ROLE_PROJECTIVE:
        list = s->projs;
        n = s->nprojs;
        break;
    case ST_ROLE_MAPPING:
        list = s->maps;
        n = s->nmaps;
        break;
    default:
        return 0;
    }
    if (out)
        for (size_t i = 0; i < n && i < max; i++)
            out[i] = list[i];
    return n;
}

st_mapgraph *st__system_mapgraph(const st_system *sys)
{
    return sys ? cimpl(sys)->graph : NULL;
}

/* ---- externalForce ---- */

/* Picks up a write to a state's externalForce made since the last look
 * (st_component_set or a data link may have replaced the bound array). */
static void sync_external_force(st_system *sys, sys_state *ss)
{
    st_mstate *ms = ss->ms;
    double *slice = st_slice(sys->fext, ms);
    st_cinfo *ci = st__cinfo(&ms->base);
    if (ss->ext_index < 0 || !ci)
        return;
    unsigned long cnt = ci->fs[ss->ext_index].counter;
    if (cnt == ss->ext_counter && ms->external_force.p == (void *)slice)
        return;
    ss->ext_counter = cnt;
    if (ms->external_force.p != (void *)slice) {
        memset(slice, 0, dw(ms) * ms->n * sizeof(double));
        bind_array(&ms->external_force, slice, ms->n, dw(ms));
    }
    bool any = false;
    for (size_t i = 0; i < dw(ms) * ms->n && !any; i++)
        any = slice[i] != 0.0;
    ms->has_external_force = any;
}

double *st_mstate_external_force(st_mstate *ms)
{
    if (!ms || !ms->system || !ms->external_force.p || ms->external_force.n < ms->n)
        return NULL;
    ms->has_external_force = true;
    return ms->external_force.r;
}

/* ---- operations ---- */

static void clear_all(const st_system *sys, double *v)
{
    memset(v, 0, sys->size_all * sizeof(double));
}

static void compute_force(st_system *sys, double *f, const double *x, const double *v)
{
    sys_impl *s = impl(sys);
    const st_mparams *mp = &sys->mp;
    clear_all(sys, f);
    /* externalForce of every state (mapped ones included). */
    for (size_t i = 0; i < sys->nstates; i++) {
        sync_external_force(sys, &s->st[i]);
        st_mstate *ms = s->st[i].ms;
        if (!ms->has_external_force)
            continue;
        const double *e = ms->external_force.r;
        double *fs = st_slice(f, ms);
        size_t n3 = dw(ms) * (ms->external_force.n < ms->n ? ms->external_force.n : ms->n);
        for (size_t j = 0; j < n3; j++)
            fs[j] += e[j];
    }
    /* Masses (gravity) and force fields, in scene order. */
    for (size_t i = 0; i < s->ncontrib; i++) {
        st_component *c = s->contrib[i].c;
        if (!s->contrib[i].active)
            continue;
        st_mparams own;
        const st_mparams *cmp = context_params(c, mp, &own);
        if (s->contrib[i].is_mass && c->cls->mass->add_gravity_to_force)
            c->cls->mass->add_gravity_to_force(c, cmp, f, x, v);
        if (c->cls->forcefield && c->cls->forcefield->add_force)
            c->cls->forcefield->add_force(c, cmp, f, x, v);
    }
    /* Mapped forces back to their inputs, bottom-up; a non-linear mapping
     * first keeps the child force for its geometric stiffness (SOFA's
     * updateK with the force just computed). Outputs that received no
     * force are skipped (their J^T f adds zeros). */
    if (s->nmaps) {
        for (size_t k = 0; k < sys->nstates; k++)
            s->fed_now[k] = s->fed[k] || sys->states[k]->has_external_force;
    }
    for (size_t i = s->nmaps; i-- > 0;) {
        st_component *c = s->maps[i];
        const st_mapping_ops *ops = c->cls->mapping;
        if (!s->map_active[i] || output_idle(s, i, s->fed_now))
            continue;
        if (s->map_out[i] >= 0 && !s->fed[s->map_out[i]])
            feed_inputs(s, i, s->fed_now); /* fed by this step's externalForce only */
        if (HAS_MOP(ops, update_k))
            ops->update_k(c, mp, f);
        if (ops->apply_jt)
            ops->apply_jt(c, mp, f);
    }
}

void st_system_compute_force(st_system *sys, double *f, const double *x, const double *v)
{
    st_timer_step_begin("ComputeForce"); /* SOFA's timer labels */
    double t0 = st_time_now();
    compute_force(sys, f, x, v);
    sys->time_force += st_time_now() - t0;
    st_timer_step_end("ComputeForce");
}

void st_system_apply_jt(st_system *sys, double *vec)
{
    sys_impl *s = impl(sys);
    st_mparams mp = sys->mp;
    mp.constraint_jt = true;
    for (size_t i = s->nmaps; i-- > 0;) {
        st_component *c = s->maps[i];
        const st_mapping_ops *ops = c->cls->mapping;
        if (s->map_active[i] && ops->apply_jt)
            ops->apply_jt(c, &mp, vec);
    }
}

static void add_mbkdx(st_system *sys, double *df, const double *dx, double mf, double bf,
                      double kf, bool clear)
{
    sys_impl *s = impl(sys);
    const st_mparams *mp = &sys->mp;
    if (clear)
        clear_all(sys, df);
    else if (sys->size_all > sys->size)
        memset(df + sys->size, 0, (sys->size_all - sys->size) * sizeof(double));
    /* dx of mapped states, top-down (the mapped part of dx is scratch),
     * where some component below will read it. */
    for (size_t i = 0; i < s->nmaps; i++) {
        st_component *c = s->maps[i];
        if (s->map_active[i] && !output_idle(s, i, s->fed) && c->cls->mapping->apply_j)
            c->cls->mapping->apply_j(c, mp, (double *)dx);
    }
    for (size_t i = 0; i < s->ncontrib; i++) {
        st_component *c = s->contrib[i].c;
        if (!s->contrib[i].active)
            continue;
        if (s->contrib[i].is_mass) {
            const st_mass_ops *m = c->cls->mass;
            double rm = m->rayleigh_mass ? m->rayleigh_mass(c) : 0.0;
            double mfi = mf - bf * rm;
            if (mfi != 0.0 && m->add_m_dx)
                m->add_m_dx(c, mp, df, dx, mfi);
        }
        if (c->cls->forcefield) {
            const st_forcefield_ops *ff = c->cls->forcefield;
            double rs = ff->rayleigh_stiffness ? ff->rayleigh_stiffness(c) : 0.0;
            double kfi = kf + bf * rs;
            if ((kfi != 0.0 || bf != 0.0) && ff->add_dforce)
                ff->add_dforce(c, mp, df, dx, kfi, bf);
        }
    }
    /* Back up, bottom-up, each mapping adding its geometric stiffness
     * after its J^T (SOFA's order). */
    for (size_t i = s->nmaps; i-- > 0;) {
        st_component *c = s->maps[i];
        const st_mapping_ops *ops = c->cls->mapping;
        if (!s->map_active[i])
            continue;
        if (ops->apply_jt && !output_idle(s, i, s->fed))
            ops->apply_jt(c, mp, df);
        if (kf != 0.0 && HAS_MOP(ops, apply_djt) && !output_idle(s, i, s->fed_now))
            ops->apply_djt(c, mp, df, dx, kf);
    }
}

void st_system_add_mbkdx(st_system *sys, double *df, const double *dx, double mf, double bf,
                         double kf, bool clear)
{
    double t0 = st_time_now();
    add_mbkdx(sys, df, dx, mf, bf, kf, clear);
    sys->time_products += st_time_now() - t0;
}

bool st_system_mass_is_diagonal(const st_system *sys)
{
    const sys_impl *s = cimpl(sys);
    for (size_t i = 0; i < s->nmasses; i++) {
        st_component *c = s->masses[i];
        const st_mass_ops *m = c->cls->mass;
        if (s->node_mass[i] && (!m->is_diagonal || !m->is_diagonal(c)))
            return false;
    }
    return !s->mass_on_mapped;
}

st_status st_system_acc_from_f(st_system *sys, double *a, const double *f, st_error *err)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < s->nmasses; i++) {
        st_component *c = s->masses[i];
        if (!s->node_mass[i])
            continue;
        if (!c->cls->mass->acc_from_f)
            return st_component_error(c, NULL, err, ST_ESTATE,
                                      "this mass cannot compute M^-1 f (its matrix is not diagonal); "
                                      "use a solver with a linear solver");
        c->cls->mass->acc_from_f(c, &sys->mp, a, f);
    }
    return ST_OK;
}

void st_system_project_response(st_system *sys, double *dx)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < s->nprojs; i++) {
        st_component *c = s->projs[i];
        if (c->cls->projective->project_response)
            c->cls->projective->project_response(c, &sys->mp, dx);
    }
}

/* Position and velocity projections skip constraints on mapped states, as
 * SOFA's projection visitor stops at mappings. */

void st_system_project_position(st_system *sys, double *x)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < s->nprojs; i++) {
        st_component *c = s->projs[i];
        if (c->cls->projective->project_position && !s->proj_mapped[i])
            c->cls->projective->project_position(c, &sys->mp, x);
    }
}

void st_system_project_velocity(st_system *sys, double *v)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < s->nprojs; i++) {
        st_component *c = s->projs[i];
        if (c->cls->projective->project_velocity && !s->proj_mapped[i])
            c->cls->projective->project_velocity(c, &sys->mp, v);
    }
}

void st_system_propagate_x(st_system *sys, double *x)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < s->nmaps; i++) {
        st_component *c = s->maps[i];
        if (c->cls->mapping->apply)
            c->cls->mapping->apply(c, &sys->mp, x);
    }
}

void st_system_propagate_v(st_system *sys, double *v)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < s->nmaps; i++) {
        st_component *c = s->maps[i];
        if (c->cls->mapping->apply_j)
            c->cls->mapping->apply_j(c, &sys->mp, v);
    }
}

void st_system_add_separate_gravity(st_system *sys, double *v, double dt)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < s->nmasses; i++) {
        st_component *c = s->masses[i];
        st_mparams own;
        if (s->node_mass[i] && c->cls->mass->add_gravity_to_v)
            c->cls->mass->add_gravity_to_v(c, context_params(c, &sys->mp, &own), v, dt);
    }
}

double st_system_kinetic_energy(st_system *sys)
{
    sys_impl *s = impl(sys);
    double e = 0.0;
    for (size_t i = 0; i < s->nmasses; i++) {
        st_component *c = s->masses[i];
        if (s->node_mass[i] && c->cls->mass->kinetic_energy)
            e += c->cls->mass->kinetic_energy(c, &sys->mp, sys->v);
    }
    return e;
}

void st_system_add_mdx(st_system *sys, double *res, const double *dx, double factor)
{
    sys_impl *s = impl(sys);
    for (size_t i = 0; i < s->nmasses; i++) {
        st_component *c = s->masses[i];
        if (s->mdx_mass[i] && c->cls->mass->add_m_dx)
            c->cls->mass->add_m_dx(c, &sys->mp, res, dx, factor);
    }
}

double st_system_potential_energy(st_system *sys)
{
    sys_impl *s = impl(sys);
    double e = 0.0;
    for (size_t i = 0; i < s->ncontrib; i++) {
        st_component *c = s->contrib[i].c;
        st_mparams own;
        const st_mparams *cmp = context_params(c, &sys->mp, &own);
        if (s->contrib[i].is_mass && c->cls->mass->potential_energy)
            e += c->cls->mass->potential_energy(c, cmp, sys->x);
        if (c->cls->forcefield && c->cls->forcefield->potential_energy)
            e += c->cls->forcefield->potential_energy(c, cmp, sys->x);
    }
    return e;
}

st_component *st_system_find_linear_solver(st_system *sys, st_component *link, bool down)
{
    if (link)
        return link;
    return st_node_find(sys->node, ST_ROLE_LINSOLVER, down ? ST_SEARCH_DOWN : ST_SEARCH_UP);
}

/* ---- vector operations over the independent part ---- */

void st_vec_clear(const st_system *sys, double *v)
{
    memset(v, 0, sys->size * sizeof(double));
}

void st_vec_eq(const st_system *sys, double *v, const double *a)
{
    if (v != a)
        memmove(v, a, sys->size * sizeof(double));
}

void st_vec_peq(const st_system *sys, double *v, const double *a, double f)
{
    size_t n = sys->size;
    for (size_t i = 0; i < n; i++)
        v[i] += a[i] * f;
}

void st_vec_teq(const st_system *sys, double *v, double f)
{
    size_t n = sys->size;
    for (size_t i = 0; i < n; i++)
        v[i] *= f;
}

void st_vec_op(const st_system *sys, double *v, const double *a, const double *b, double f)
{
    size_t n = sys->size;
    for (size_t i = 0; i < n; i++)
        v[i] = a[i] + b[i] * f;
}

/* Summed as SOFA does: per point (its components in order; Rigid3d: the
 * linear part, then the angular part), per state, then over the independent
 * states in scene order, so that iterative solvers give SOFA's numbers to
 * round-off. */
double st_vec_dot(const st_system *sys, const double *a, const double *b)
{
    double r = 0.0;
    for (size_t s = 0; s < sys->nindep; s++) {
        const st_mstate *ms = sys->states[s];
        const double *pa = st_slice(a, ms), *pb = st_slice(b, ms);
        double rs = 0.0;
        switch (dw(ms)) {
        case 1:
            for (size_t i = 0; i < ms->n; i++)
                rs += pa[i] * pb[i];
            break;
        case 2:
            for (size_t i = 0; i < ms->n; i++) {
                const double *u = pa + 2 * i, *w = pb + 2 * i;
                rs += u[0] * w[0] + u[1] * w[1];
            }
            break;
        case 3:
            for (size_t i = 0; i < ms->n; i++) {
                const double *u = pa + 3 * i, *w = pb + 3 * i;
                rs += u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
            }
            break;
        case 6:
            for (size_t i = 0; i < ms->n; i++) {
                const double *u = pa + 6 * i, *w = pb + 6 * i;
                rs += (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) +
                      (u[3] * w[3] + u[4] * w[4] + u[5] * w[5]);
            }
            break;
        default:
            for (size_t i = 0; i < dw(ms) * ms->n; i++)
                rs += pa[i] * pb[i];
        }
        r += rs;
    }
    return r;
}

double st_vec_norm(const st_system *sys, const double *a)
{
    return sqrt(st_vec_dot(sys, a, a));
}

/* ---- coordinate operations over the independent states ---- */

void st_vec_x_op(const st_system *sys, double *xo, const double *x, const double *v, double f)
{
    for (size_t s = 0; s < sys->nindep; s++) {
        const st_mstate *ms = sys->states[s];
        ms->type->add_deriv(st_slice_x(xo, ms), st_slice_x(x, ms), st_slice(v, ms), f, ms->n);
    }
}

void st_vec_x_peq(const st_system *sys, double *x, const double *v, double f)
{
    st_vec_x_op(sys, x, x, v, f);
}

void st_vec_x_eq(const st_system *sys, double *xo, const double *x)
{
    if (xo != x)
        memmove(xo, x, sys->xsize * sizeof(double));
}

void st_vec_x_diff(const st_system *sys, double *d, const double *a, const double *b)
{
    for (size_t s = 0; s < sys->nindep; s++) {
        const st_mstate *ms = sys->states[s];
        ms->type->diff(st_slice(d, ms), st_slice_x(a, ms), st_slice_x(b, ms), ms->n);
    }
}

/* ---- linear solver calls, timed ---- */

st_status st_linsolver_set_system(st_component *ls, st_system *sys, double mf, double bf,
                                  double kf, st_error *err)
{
    if (!ls || !ls->cls->linsolver || !ls->cls->linsolver->set_system)
        return st_error_set(err, ST_EINVAL, "st_linsolver_set_system: not a linear solver");
    double t0 = st_time_now(), a0 = sys->time_assembly;
    sys_impl *s = impl(sys);
    s->ls_assembled = true;
    s->ls_mf = mf;
    s->ls_bf = bf;
    s->ls_kf = kf;
    st_timer_step_begin("MBKBuild");
    st_status st = ls->cls->linsolver->set_system(ls, sys, mf, bf, kf, err);
    st_timer_step_end("MBKBuild");
    /* Assembly is counted apart (st_matrix_assemble). */
    sys->time_factor += st_time_now() - t0 - (sys->time_assembly - a0);
    return st;
}

st_status st_linsolver_solve(st_component *ls, st_system *sys, double *x, const double *b,
                             st_error *err)
{
    if (!ls || !ls->cls->linsolver || !ls->cls->linsolver->solve)
        return st_error_set(err, ST_EINVAL, "st_linsolver_solve: not a linear solver");
    /* Copies of b and x for st_system_last_linsolve: two copies of sys->size
     * doubles beside a solve that costs at least a product with the matrix;
     * grown once, never during later steps of the same size. */
    sys_impl *s = impl(sys);
    size_t n = sys->size;
    if (s->ls_n != n) {
        double *nb = st_realloc(s->ls_b, (n ? n : 1) * sizeof *nb);
        if (nb)
            s->ls_b = nb;
        double *nx = nb ? st_realloc(s->ls_x, (n ? n : 1) * sizeof *nx) : NULL;
        if (nx)
            s->ls_x = nx;
        s->ls_n = nb && nx ? n : 0;
    }
    bool keep = s->ls_n == n && n > 0;
    if (keep)
        memcpy(s->ls_b, b, n * sizeof *b);
    st_timer_step_begin("MBKSolve");
    double t0 = st_time_now();
    st_status st = ls->cls->linsolver->solve(ls, sys, x, b, err);
    sys->time_linsolve += st_time_now() - t0;
    st_timer_step_end("MBKSolve");
    if (keep)
        memcpy(s->ls_x, x, n * sizeof *x);
    s->ls_solved = keep && st == ST_OK;
    return st;
}

void st_system_last_linsolve(const st_system *sys, st_linsolve_record *out)
{
    const sys_impl *s = cimpl(sys);
    *out = (st_linsolve_record){.struct_size = sizeof *out};
    if (!sys)
        return;
    out->assembled = s->ls_assembled;
    out->mf = s->ls_mf;
    out->bf = s->ls_bf;
    out->kf = s->ls_kf;
    if (s->ls_solved && s->ls_n == sys->size) {
        out->solved = true;
        out->n = s->ls_n;
        out->b = s->ls_b;
        out->x = s->ls_x;
    }
}

static st_system *system_in_subtree(st_node *n)
{
    st_mstate *ms = st_node_mstate(n);
    if (ms && ms->system)
        return ms->system;
    for (size_t i = 0; i < st_node_child_count(n); i++) {
        st_system *s = system_in_subtree(st_node_child(n, i));
        if (s)
            return s;
    }
    return NULL;
}

st_system *st_node_system(st_node *n)
{
    for (; n; n = st_node_parent(n)) {
        st_system *s = system_in_subtree(n);
        if (s)
            return s;
    }
    return NULL;
}
