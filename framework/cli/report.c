/* report.c - what an initialised scene is: per mechanical system its ODE
 * solver, linear solver, states (type, points), masses (total), force
 * fields (element counts), projective constraints (points they constrain),
 * and the scene's ROIs (points selected). Printed by `settee check` as text
 * or JSON, and written into `settee run --summary-json`.
 *
 * Everything is read through the public API: the systems are found from
 * the states (st_mstate.system), the numbers from the components' own
 * fields and role functions, so the report holds for any plugin. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "settee/mechanics.h"

#define REPORT_PATH_MAX 1024

/* ---- the numbers ---- */

/* The systems of the scene in the order of their first state. */
static size_t scene_systems(st_scene *s, st_system **out, size_t max)
{
    size_t n = st_scene_states(s, NULL, 0), count = 0;
    st_mstate **states = calloc(n ? n : 1, sizeof *states);
    if (!states)
        return 0;
    n = st_scene_states(s, states, n);
    for (size_t i = 0; i < n; i++) {
        st_system *sys = states[i]->system;
        bool seen = !sys;
        for (size_t k = 0; k < count && !seen; k++)
            seen = out[k] == sys;
        if (!seen && count < max)
            out[count++] = sys;
    }
    free(states);
    return count;
}

/* The components of sys playing role: those below the solver's node whose
 * state the system integrates. Writes up to max into out; returns the count. */
/* Whether c acts in sys: its context state is one of sys's, or (an
 * interaction, possibly in a node with no state: SpringForceField's
 * object1, object2) a state link of its names one. */
static bool acts_in(st_component *c, const st_system *sys)
{
    st_mstate *ms = st_component_mstate(c);
    if (ms && ms->system == sys)
        return true;
    for (const st_field *f = c->cls->fields; f && f->name; f++) {
        if (f->type != ST_T_LINK || f->link_kind != ST_LINK_STATE)
            continue;
        st_component *t = *(st_component **)st_component_field_ptr(c, f);
        if (t && st_component_has_role(t, ST_ROLE_STATE) && ((st_mstate *)t)->system == sys)
            return true;
    }
    return false;
}

static size_t system_components(st_system *sys, st_role role, st_component **out, size_t max)
{
    st_node *root = st_node_root(sys->node);
    size_t n = st_node_find_all(root, role, ST_SEARCH_DOWN, NULL, 0);
    st_component **all = calloc(n ? n : 1, sizeof *all);
    if (!all)
        return 0;
    n = st_node_find_all(root, role, ST_SEARCH_DOWN, all, n);
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        if (acts_in(all[i], sys) && count < max)
            out[count++] = all[i];
    free(all);
    return count;
}

/* The linear solver an ODE solver uses: its "linearSolver" link when set,
 * else the first one at or below its node. NULL when there is none. */
static st_component *system_linear_solver(st_system *sys)
{
    st_component *solver = sys->solver;
    const st_field *f = st_component_field(solver, "linearSolver");
    if (f && f->type == ST_T_LINK) {
        st_component *link = *(st_component **)st_component_field_ptr(solver, f);
        if (link)
            return link;
    }
    return st_node_find(sys->node, ST_ROLE_LINSOLVER, ST_SEARCH_DOWN);
}

/* The mass a mass component gives its state: the sum over the points of
 * (M e_x)_x, e_x the unit vector along the first axis of every point (the
 * total of the translational mass, lumped or consistent). */
static double mass_total(st_component *c, st_system *sys, double *dx, double *res)
{
    st_mstate *ms = st_component_mstate(c);
    if (!ms || !ms->type || !c->cls->mass || !c->cls->mass->add_m_dx)
        return 0;
    unsigned d = ms->type->deriv_size;
    memset(dx, 0, sys->size_all * sizeof *dx);
    memset(res, 0, sys->size_all * sizeof *res);
    for (size_t i = 0; i < ms->n; i++)
        st_slice(dx, ms)[d * i] = 1;
    c->cls->mass->add_m_dx(c, &sys->mp, res, dx, 1.0);
    double total = 0;
    for (size_t i = 0; i < ms->n; i++)
        total += st_slice(res, ms)[d * i];
    return total;
}

/* Points of its state whose displacement a projective constraint changes
 * (all of it for a fixed point, some directions for a partial one). */
static size_t constraint_points(st_component *c, st_system *sys, double *dx)
{
    st_mstate *ms = st_component_mstate(c);
    if (!ms || !ms->type || !c->cls->projective || !c->cls->projective->project_response)
        return 0;
    unsigned d = ms->type->deriv_size;
    for (size_t k = 0; k < sys->size_all; k++)
        dx[k] = 1;
    c->cls->projective->project_response(c, &sys->mp, dx);
    size_t count = 0;
    for (size_t i = 0; i < ms->n; i++) {
        bool changed = false;
        for (unsigned k = 0; k < d; k++)
            changed |= st_slice(dx, ms)[d * i + k] != 1;
        count += changed;
    }
    return count;
}

/* Entries of an index-list field of c, or -1 when c has no such field. */
static long field_count(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    if (!f || f->type != ST_T_UINTS)
        return -1;
    return (long)((st_array *)st_component_field_ptr(c, f))->n;
}

static const struct {
    st_type kind;
    const char *name;    /* in the report */
    const char *marker;  /* in class names of force fields acting on them */
} ELEMENT_KINDS[] = {
    {ST_T_HEXAS, "hexahedra", "Hexahedr"}, {ST_T_TETRAS, "tetrahedra", "Tetrahedr"},
    {ST_T_QUADS, "quads", "Quad"},         {ST_T_TRIANGLES, "triangles", "Triang"},
    {ST_T_EDGES, "edges", "Edge"},
};
#define NKINDS (sizeof ELEMENT_KINDS / sizeof ELEMENT_KINDS[0])

static bool is_collision_model(const st_component *c)
{
    return c->cls->category && !strcmp(c->cls->category, "CollisionModel");
}

/* The elements a force field acts on: its springs when it has a spring
 * list (springsIndices1, else SOFA's `spring`, 5 numbers a spring), else the elements of its topology (its "topology"
 * link, else the nearest topology at or above its node) of the kind its
 * class names (TetrahedronFEMForceField: tetrahedra). *kind is NULL when
 * neither applies (the count is not known, rather than guessed). */
static size_t forcefield_elements(st_component *c, const char **kind)
{
    long springs = field_count(c, "springsIndices1");
    const st_field *sf = st_component_field(c, "spring");
    if (springs <= 0 && sf && sf->type == ST_T_REALS) /* SOFA's spring list: 5 reals each */
        springs = (long)(((st_array *)st_component_field_ptr(c, sf))->n / 5);
    if (springs > 0) {
        *kind = "springs";
        return (size_t)springs;
    }
    st_component *topo = NULL;
    const st_field *f = st_component_field(c, "topology");
    if (f && f->type == ST_T_LINK)
        topo = *(st_component **)st_component_field_ptr(c, f);
    if (!topo)
        topo = st_node_find(c->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    *kind = NULL;
    if (!topo || !topo->cls->topology || !topo->cls->topology->elements)
        return 0;
    for (size_t k = 0; k < NKINDS; k++)
        if (strstr(c->cls->name, ELEMENT_KINDS[k].marker)) {
            const st_array *a = topo->cls->topology->elements(topo, ELEMENT_KINDS[k].kind);
            *kind = ELEMENT_KINDS[k].name;
            return a ? a->n : 0;
        }
    return 0;
}

/* ---- output: one walker, two writers ---- */

typedef struct report_out {
    FILE *f;  /* text, or NULL */
    jw *w;    /* JSON, or NULL */
} report_out;

/* JSON: the members path and class; text: "  WHAT PATH: CLASS" (a "roi"
 * line is not indented: ROIs belong to the scene, not to a system). */
static void put_component(report_out *o, const char *what, st_component *c)
{
    char path[REPORT_PATH_MAX];
    st_component_path(c, path, sizeof path);
    if (o->w) {
        jw_string(o->w, "path", path);
        jw_string(o->w, "class", c->cls->name);
    } else {
        fprintf(o->f, "%s%s %s: %s", strcmp(what, "roi") ? "  " : "", what, path, c->cls->name);
    }
}

/* A component and a count of points: {path, class, points}, or the line
 * "  WHAT PATH: CLASS, VERB N point(s)". */
static void put_points(report_out *o, const char *what, const char *verb, st_component *c,
                       size_t pts)
{
    if (o->w)
        jw_object(o->w, NULL);
    put_component(o, what, c);
    if (o->w) {
        jw_uint(o->w, "points", pts);
        jw_end_object(o->w);
    } else {
        fprintf(o->f, ", %s %zu point%s\n", verb, pts, pts == 1 ? "" : "s");
    }
}

static void report_system(report_out *o, st_system *sys)
{
    char path[REPORT_PATH_MAX];
    st_component *ls = system_linear_solver(sys);
    size_t max = st_node_find_all(sys->node, ST_ROLE_ANY, ST_SEARCH_DOWN, NULL, 0);
    st_component **list = calloc(max ? max : 1, sizeof *list);
    double *dx = calloc(sys->size_all ? sys->size_all : 1, sizeof *dx);
    double *res = calloc(sys->size_all ? sys->size_all : 1, sizeof *res);
    if (!list || !dx || !res) {
        free(list), free(dx), free(res);
        return;
    }
    st_node_path(sys->node, path, sizeof path);
    if (o->w) {
        jw_object(o->w, NULL);
        jw_string(o->w, "node", path);
        jw_object(o->w, "ode_solver");
        put_component(o, "", sys->solver);
        jw_end_object(o->w);
        if (ls) {
            jw_object(o->w, "linear_solver");
            put_component(o, "", ls);
            jw_end_object(o->w);
        } else {
            jw_null(o->w, "linear_solver");
        }
        jw_uint(o->w, "dofs", sys->size);
        jw_array(o->w, "states");
    } else {
        fprintf(o->f, "system %s: %s", path, sys->solver->cls->name);
        fprintf(o->f, " (%s)", st_component_path(sys->solver, path, sizeof path));
        if (ls)
            fprintf(o->f, ", linear solver %s (%s)", ls->cls->name,
                    st_component_path(ls, path, sizeof path));
        else
            fprintf(o->f, ", no linear solver");
        fprintf(o->f, "; %zu degrees of freedom\n", sys->size);
    }
    for (size_t i = 0; i < sys->nstates; i++) {
        st_mstate *ms = sys->states[i];
        const char *type = ms->type ? ms->type->name : "?";
        if (o->w) {
            jw_object(o->w, NULL);
            put_component(o, "", &ms->base);
            jw_string(o->w, "type", type);
            jw_uint(o->w, "points", ms->n);
            jw_bool(o->w, "mapped", ms->mapped);
            jw_end_object(o->w);
        } else {
            put_component(o, "state", &ms->base);
            fprintf(o->f, ", %s, %zu point%s%s\n", type, ms->n, ms->n == 1 ? "" : "s",
                    ms->mapped ? " (mapped)" : "");
        }
    }
    if (o->w) {
        jw_end_array(o->w);
        jw_array(o->w, "masses");
    }
    size_t n = system_components(sys, ST_ROLE_MASS, list, max);
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        double m = mass_total(list[i], sys, dx, res);
        total += m;
        if (o->w) {
            jw_object(o->w, NULL);
            put_component(o, "", list[i]);
            jw_real(o->w, "total", m);
            jw_end_object(o->w);
        } else {
            put_component(o, "mass", list[i]);
            fprintf(o->f, ", total %.6g\n", m);
        }
    }
    if (o->w) {
        jw_end_array(o->w);
        jw_real(o->w, "total_mass", total);
        jw_array(o->w, "force_fields");
    } else if (n > 1) {
        fprintf(o->f, "  total mass %.6g\n", total);
    }
    n = system_components(sys, ST_ROLE_FORCEFIELD, list, max);
    /* Collision models add their contacts' forces, but they are listed as
     * what they are, after the force fields. */
    size_t ncm = 0;
    for (size_t i = 0; i < n; i++) {
        st_component *c = list[i];
        if (is_collision_model(c)) {
            memmove(list + i, list + i + 1, (n - i - 1) * sizeof *list);
            list[n - 1] = c;
            n--, i--, ncm++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        const char *kind;
        size_t count = forcefield_elements(list[i], &kind);
        if (o->w) {
            jw_object(o->w, NULL);
            put_component(o, "", list[i]);
            if (kind) {
                jw_uint(o->w, "elements", count);
                jw_string(o->w, "element_type", kind);
            } else {
                jw_null(o->w, "elements");
                jw_null(o->w, "element_type");
            }
            jw_end_object(o->w);
        } else {
            put_component(o, "force field", list[i]);
            if (kind)
                fprintf(o->f, ", %zu %s", count, kind);
            fputc('\n', o->f);
        }
    }
    if (o->w) {
        jw_end_array(o->w);
        jw_array(o->w, "collision_models");
    }
    for (size_t i = n; i < n + ncm; i++) {
        if (o->w) {
            jw_object(o->w, NULL);
            put_component(o, "", list[i]);
            jw_end_object(o->w);
        } else {
            put_component(o, "collision model", list[i]);
            fputc('\n', o->f);
        }
    }
    if (o->w) {
        jw_end_array(o->w);
        jw_array(o->w, "constraints");
    }
    n = system_components(sys, ST_ROLE_PROJECTIVE, list, max);
    for (size_t i = 0; i < n; i++) {
        put_points(o, "constraint", "constrains", list[i], constraint_points(list[i], sys, dx));
    }
    if (o->w) {
        jw_end_array(o->w);
        jw_end_object(o->w);
    }
    free(list), free(dx), free(res);
}

/* ROIs: engines with an "indices" output (SOFA's BaseROI and the like), as
 * the kernel last refreshed them (at init, then whenever a reader needed). */
static void report_rois(report_out *o, st_scene *s)
{
    st_node *root = st_scene_root(s);
    size_t n = st_node_find_all(root, ST_ROLE_ENGINE, ST_SEARCH_DOWN, NULL, 0);
    st_component **list = calloc(n ? n : 1, sizeof *list);
    if (!list)
        return;
    n = st_node_find_all(root, ST_ROLE_ENGINE, ST_SEARCH_DOWN, list, n);
    if (o->w)
        jw_array(o->w, "rois");
    for (size_t i = 0; i < n; i++) {
        const st_field *f = st_component_field(list[i], "indices");
        if (!f || f->type != ST_T_UINTS || !(f->flags & ST_F_OUTPUT))
            continue;
        put_points(o, "roi", "selects", list[i],
                   ((st_array *)st_component_field_ptr(list[i], f))->n);
    }
    if (o->w)
        jw_end_array(o->w);
    free(list);
}

void cli_scene_report(st_scene *s, FILE *f, jw *w)
{
    report_out o = {.f = f, .w = w};
    size_t max = st_scene_states(s, NULL, 0);
    st_system **systems = calloc(max ? max : 1, sizeof *systems);
    if (!systems)
        return;
    size_t n = scene_systems(s, systems, max);
    if (w)
        jw_array(w, "systems");
    for (size_t i = 0; i < n; i++)
        report_system(&o, systems[i]);
    if (w)
        jw_end_array(w);
    report_rois(&o, s);
    free(systems);
}
