/* inspect.c - `settee inspect`: the reference of plugins and components,
 * read from the registry (field tables, links, roles), as text or JSON.
 * The JSON form is stable (plugins and components sorted by name, fields in
 * table order, every key always present) so docs can be generated from it. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

void cli_help_inspect(FILE *f)
{
    fputs("usage: settee inspect [NAME] [options]\n"
          "\n"
          "Loads every plugin found in the plugin search path, then:\n"
          "  without NAME   lists the plugins (name, version, ABI, file, the SOFA modules they\n"
          "                 provide) and their components\n"
          "  with NAME      describes a component (by name or alias): plugin, category,\n"
          "                 description, aliases, roles, every field with its type, default,\n"
          "                 flags and help, and its links with their kind; or a plugin: its\n"
          "                 information and its components\n"
          "\n"
          "Options:\n"
          "  --json              print JSON instead of text: {\"plugins\": [...]},\n"
          "                      {\"component\": {...}} or {\"plugin\": {...}}\n"
          "  --plugin-path DIR   search DIR for plugins before SETTEE_PLUGIN_PATH (repeatable)\n"
          "  -h, --help          show this help\n"
          "\n"
          "Exit status: 0 on success; 1 when NAME is unknown (closest names are suggested) or a\n"
          "plugin in the search path failed to load; 2 on a usage error.\n",
          f);
}

/* ---- helpers ---- */

static int cmp_class(const void *a, const void *b)
{
    const st_class *x = *(const st_class *const *)a, *y = *(const st_class *const *)b;
    return strcmp(x->name, y->name);
}

static int cmp_plugin(const void *a, const void *b)
{
    const st_plugin_info *x = *(const st_plugin_info *const *)a;
    const st_plugin_info *y = *(const st_plugin_info *const *)b;
    return strcmp(x->name, y->name);
}

/* The classes of a plugin, sorted by name; *n set. Caller frees. NULL with
 * *n == 0 when there are none (or out of memory). */
static const st_class **plugin_classes(st_runtime *rt, const char *plugin, size_t *n)
{
    *n = st_runtime_plugin_classes(rt, plugin, NULL, 0);
    if (*n == 0)
        return NULL;
    const st_class **cls = calloc(*n, sizeof *cls);
    if (!cls) {
        *n = 0;
        return NULL;
    }
    *n = st_runtime_plugin_classes(rt, plugin, cls, *n);
    qsort(cls, *n, sizeof *cls, cmp_class);
    return cls;
}

/* The loaded plugins, sorted by name. Caller frees. */
static const st_plugin_info **sorted_plugins(st_runtime *rt, size_t *n)
{
    *n = st_runtime_plugin_count(rt);
    const st_plugin_info **p = calloc(*n ? *n : 1, sizeof *p);
    if (!p) {
        *n = 0;
        return NULL;
    }
    for (size_t i = 0; i < *n; i++)
        p[i] = st_runtime_plugin(rt, i);
    qsort(p, *n, sizeof *p, cmp_plugin);
    return p;
}

/* A role interface pointer, read only when the plugin's st_class has it. */
#define CLASS_HAS(cls, member)                                                                     \
    ((cls)->struct_size >= offsetof(st_class, member) + sizeof((cls)->member) && (cls)->member)

/* The state types a class works on (its "template"s): st_class.templates,
 * or Vec3d alone for a class acting on states that lists none; none for a
 * class that acts on no state. Returns the count. */
static size_t class_templates(const st_class *c, const char **out, size_t max)
{
    static const char *const vec3_only[] = {"Vec3d", NULL};
    const char *const *t = ST_CLASS_HAS(c, templates) ? c->templates : NULL;
    bool on_states = (ST_CLASS_HAS(c, state) && c->state) || c->forcefield || c->mass ||
                     c->projective || c->mapping;
    if (!t && on_states)
        t = vec3_only;
    size_t n = 0;
    for (; t && t[n] && n < max; n++)
        out[n] = t[n];
    return n;
}

/* The roles a class plays, as SOFA's category names; returns the count. */
static size_t class_roles(const st_class *c, const char **out)
{
    size_t n = 0;
    if (CLASS_HAS(c, forcefield))
        out[n++] = "ForceField";
    if (CLASS_HAS(c, mass))
        out[n++] = "Mass";
    if (CLASS_HAS(c, projective))
        out[n++] = "ProjectiveConstraint";
    if (CLASS_HAS(c, mapping))
        out[n++] = "Mapping";
    if (CLASS_HAS(c, odesolver))
        out[n++] = "OdeSolver";
    if (CLASS_HAS(c, linsolver))
        out[n++] = "LinearSolver";
    if (CLASS_HAS(c, topology))
        out[n++] = "Topology";
    if (CLASS_HAS(c, engine))
        out[n++] = "Engine";
    if (CLASS_HAS(c, animloop))
        out[n++] = "AnimationLoop";
    return n;
}

static const char *link_kind_name(st_link_kind k)
{
    switch (k) {
    case ST_LINK_STATE: return "state";
    case ST_LINK_TOPOLOGY: return "topology";
    case ST_LINK_LINEAR_SOLVER: return "linear_solver";
    case ST_LINK_ODE_SOLVER: return "ode_solver";
    case ST_LINK_LOADER: return "loader";
    default: return "any";
    }
}

/* Field flags as words; returns the count. */
static size_t field_flags(const st_field *f, const char **out)
{
    size_t n = 0;
    if (f->flags & ST_F_OUTPUT)
        out[n++] = "output";
    if (f->flags & ST_F_REQUIRED)
        out[n++] = "required";
    if (f->flags & ST_F_NOLINK)
        out[n++] = "nolink";
    if (f->flags & ST_F_IGNORED)
        out[n++] = "ignored";
    return n;
}

static bool field_listed(const st_field *f) { return !(f->flags & ST_F_HIDDEN); }

/* ---- JSON ---- */

static void json_strings(jw *w, const char *key, const char *const *s, size_t n)
{
    jw_array(w, key);
    for (size_t i = 0; i < n; i++)
        jw_string(w, NULL, s[i]);
    jw_end_array(w);
}

static void json_component(jw *w, const char *key, st_runtime *rt, const st_class *c)
{
    st_registry *reg = st_runtime_registry(rt);
    jw_object(w, key);
    jw_string(w, "name", c->name);
    jw_string(w, "plugin", st_registry_class_plugin(reg, c));
    jw_string(w, "category", c->category);
    jw_string(w, "description", c->description);
    jw_array(w, "aliases");
    for (const char *const *a = c->aliases; a && *a; a++)
        jw_string(w, NULL, *a);
    jw_end_array(w);
    const char *roles[16];
    json_strings(w, "roles", roles, class_roles(c, roles));
    const char *types[16];
    json_strings(w, "templates", types, class_templates(c, types, 16));

    jw_array(w, "fields");
    for (const st_field *f = c->fields; f && f->name; f++) {
        if (f->type == ST_T_LINK || !field_listed(f))
            continue;
        jw_object(w, NULL);
        jw_string(w, "name", f->name);
        jw_string(w, "type", st_type_name(f->type));
        jw_string(w, "default", f->def);
        const char *flags[5];
        json_strings(w, "flags", flags, field_flags(f, flags));
        jw_string(w, "alias", f->alias);
        if (f->min < f->max) {
            jw_object(w, "range");
            jw_real(w, "min", f->min);
            jw_real(w, "max", f->max);
            jw_end_object(w);
        } else {
            jw_null(w, "range");
        }
        jw_string(w, "help", f->help);
        jw_end_object(w);
    }
    jw_end_array(w);

    jw_array(w, "links");
    for (const st_field *f = c->fields; f && f->name; f++) {
        if (f->type != ST_T_LINK || !field_listed(f))
            continue;
        jw_object(w, NULL);
        jw_string(w, "name", f->name);
        jw_string(w, "kind", link_kind_name(f->link_kind));
        const char *flags[5];
        json_strings(w, "flags", flags, field_flags(f, flags));
        jw_string(w, "alias", f->alias);
        jw_string(w, "help", f->help);
        jw_end_object(w);
    }
    jw_end_array(w);
    jw_end_object(w);
}

static void json_plugin(jw *w, const char *key, st_runtime *rt, const st_plugin_info *p)
{
    jw_object(w, key);
    jw_string(w, "name", p->name);
    jw_string(w, "version", p->version);
    jw_string(w, "description", p->description);
    jw_string(w, "license", p->license);
    char abi[32];
    snprintf(abi, sizeof abi, "%u.%u", p->abi_major, p->abi_minor);
    jw_string(w, "abi", abi);
    jw_string(w, "file", p->file);
    jw_array(w, "provides");
    for (const char *const *m = p->provides; m && *m; m++)
        jw_string(w, NULL, *m);
    jw_end_array(w);
    size_t n;
    const st_class **cls = plugin_classes(rt, p->name, &n);
    jw_array(w, "components");
    for (size_t i = 0; i < n; i++)
        json_component(w, NULL, rt, cls[i]);
    jw_end_array(w);
    free(cls);
    jw_end_object(w);
}

/* ---- text ---- */

static void text_plugin_head(const st_plugin_info *p)
{
    printf("%s %s  (ABI %u.%u%s%s)\n", p->name, p->version ? p->version : "?", p->abi_major,
           p->abi_minor, p->license ? ", " : "", p->license ? p->license : "");
    if (p->description && *p->description)
        printf("  %s\n", p->description);
    printf("  file: %s\n", p->file ? p->file : "?");
    if (p->provides && *p->provides) {
        printf("  provides:");
        for (const char *const *m = p->provides; *m; m++)
            printf(" %s", *m);
        printf("\n");
    }
}

static void text_plugin(st_runtime *rt, const st_plugin_info *p)
{
    text_plugin_head(p);
    size_t n;
    const st_class **cls = plugin_classes(rt, p->name, &n);
    int width = 0;
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(cls[i]->name) > width)
            width = (int)strlen(cls[i]->name);
    printf("  components (%zu):\n", n);
    for (size_t i = 0; i < n; i++)
        printf("    %-*s  %-20s %s\n", width, cls[i]->name,
               cls[i]->category ? cls[i]->category : "",
               cls[i]->description ? cls[i]->description : "");
    free(cls);
}

static void text_component(st_runtime *rt, const st_class *c)
{
    st_registry *reg = st_runtime_registry(rt);
    printf("%s  (plugin %s, category %s)\n", c->name, st_registry_class_plugin(reg, c),
           c->category ? c->category : "?");
    if (c->description && *c->description)
        printf("  %s\n", c->description);
    if (c->aliases && *c->aliases) {
        printf("  aliases:");
        for (const char *const *a = c->aliases; *a; a++)
            printf(" %s", *a);
        printf("\n");
    }
    const char *roles[16];
    size_t nroles = class_roles(c, roles);
    if (nroles) {
        printf("  roles:");
        for (size_t i = 0; i < nroles; i++)
            printf(" %s", roles[i]);
        printf("\n");
    }
    const char *types[16];
    size_t ntypes = class_templates(c, types, 16);
    if (ntypes) {
        printf("  templates (state types):");
        for (size_t i = 0; i < ntypes; i++)
            printf(" %s", types[i]);
        printf("\n");
    }

    int width = 4;
    for (const st_field *f = c->fields; f && f->name; f++)
        if ((int)strlen(f->name) > width)
            width = (int)strlen(f->name);

    printf("\nFields (besides name and printLog, which every component has):\n");
    size_t nfields = 0;
    for (const st_field *f = c->fields; f && f->name; f++) {
        if (f->type == ST_T_LINK || !field_listed(f))
            continue;
        nfields++;
        char line[1024];
        int k = snprintf(line, sizeof line, "  %-*s  %-10s", width, f->name,
                         st_type_name(f->type));
        if (f->def)
            k += snprintf(line + k, sizeof line - (size_t)k, "  default: %s",
                          *f->def ? f->def : "\"\"");
        const char *flags[5];
        size_t nflags = field_flags(f, flags);
        for (size_t i = 0; i < nflags && (size_t)k < sizeof line; i++)
            k += snprintf(line + k, sizeof line - (size_t)k, "  [%s]", flags[i]);
        if (f->min < f->max && (size_t)k < sizeof line)
            k += snprintf(line + k, sizeof line - (size_t)k, "  range: [%.17g, %.17g]", f->min,
                          f->max);
        if (f->alias && (size_t)k < sizeof line)
            snprintf(line + k, sizeof line - (size_t)k, "  alias: %s", f->alias);
        /* no trailing blanks when the type is the last thing on the line */
        size_t len = strlen(line);
        while (len && line[len - 1] == ' ')
            line[--len] = 0;
        printf("%s\n", line);
        if (f->help && *f->help)
            printf("  %*s  %s\n", width, "", f->help);
    }
    if (!nfields)
        printf("  (none)\n");

    size_t nlinks = 0;
    for (const st_field *f = c->fields; f && f->name; f++) {
        if (f->type != ST_T_LINK || !field_listed(f))
            continue;
        if (!nlinks++)
            printf("\nLinks:\n");
        printf("  %-*s  link to %s", width, f->name, link_kind_name(f->link_kind));
        const char *flags[5];
        size_t nflags = field_flags(f, flags);
        for (size_t i = 0; i < nflags; i++)
            printf("  [%s]", flags[i]);
        printf("\n");
        if (f->help && *f->help)
            printf("  %*s  %s\n", width, "", f->help);
    }
}

/* ---- did you mean ---- */

static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 255 || lb > 255)
        return (size_t)-1;
    size_t row[256];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t ca = (unsigned char)a[i - 1], cb = (unsigned char)b[j - 1];
            size_t sub = diag + (ca == cb ? 0 : (ca | 32) == (cb | 32) ? 0 : 1);
            size_t best = row[j - 1] + 1 < up + 1 ? row[j - 1] + 1 : up + 1;
            row[j] = sub < best ? sub : best;
            diag = up;
        }
    }
    return row[lb];
}

static void print_unknown(st_runtime *rt, const char *name)
{
    const char *sugg[4];
    size_t ns = st_registry_suggest(st_runtime_registry(rt), name, sugg, 3);
    /* plugin names too, when close enough */
    for (size_t i = 0; i < st_runtime_plugin_count(rt) && ns < 4; i++) {
        const char *pn = st_runtime_plugin(rt, i)->name;
        size_t d = edit_distance(name, pn);
        if (d != (size_t)-1 && d * 3 <= strlen(pn))
            sugg[ns++] = pn;
    }
    char msg[1024];
    int k = snprintf(msg, sizeof msg, "no component or plugin named '%s'", name);
    for (size_t i = 0; i < ns && k > 0 && (size_t)k < sizeof msg; i++)
        k += snprintf(msg + k, sizeof msg - (size_t)k, "%s'%s'",
                      i == 0 ? " (did you mean " : i + 1 == ns ? " or " : ", ", sugg[i]);
    if (ns && k > 0 && (size_t)k < sizeof msg)
        snprintf(msg + k, sizeof msg - (size_t)k, "?)");
    cli_error("%s", msg);
}

/* ---- command ---- */

static int inspect(st_runtime *rt, const char *name, bool json)
{
    jw w = {.f = stdout};
    if (name) {
        const st_class *c = st_registry_find(st_runtime_registry(rt), name);
        const st_plugin_info *p = c ? NULL : st_runtime_find_plugin(rt, name);
        if (c && json) {
            jw_object(&w, NULL);
            json_component(&w, "component", rt, c);
            jw_end_object(&w);
        } else if (c) {
            text_component(rt, c);
        } else if (p && json) {
            jw_object(&w, NULL);
            json_plugin(&w, "plugin", rt, p);
            jw_end_object(&w);
        } else if (p) {
            text_plugin(rt, p);
        } else {
            print_unknown(rt, name);
            return CLI_EXIT_ERROR;
        }
        return CLI_EXIT_OK;
    }

    size_t n;
    const st_plugin_info **plugins = sorted_plugins(rt, &n);
    if (json) {
        jw_object(&w, NULL);
        jw_array(&w, "plugins");
        for (size_t i = 0; i < n; i++)
            json_plugin(&w, NULL, rt, plugins[i]);
        jw_end_array(&w);
        jw_end_object(&w);
    } else {
        const char *dirs[64];
        size_t nd = st_runtime_plugin_dirs(rt, dirs, 64);
        printf("Plugin search path:\n");
        for (size_t i = 0; i < nd && i < 64; i++)
            printf("  %s\n", dirs[i]);
        for (size_t i = 0; i < n; i++) {
            printf("\n");
            text_plugin(rt, plugins[i]);
        }
        printf("\n%zu plugin%s, %zu component%s\n", n, n == 1 ? "" : "s",
               st_registry_count(st_runtime_registry(rt)),
               st_registry_count(st_runtime_registry(rt)) == 1 ? "" : "s");
    }
    free(plugins);
    return CLI_EXIT_OK;
}

int cli_inspect(int argc, char **argv)
{
    cli_one_arg o;
    int rc = cli_parse_one_arg(argc, argv, "inspect", "name", NULL, "--json", NULL, &o);
    if (rc < 0) {
        cli_log log = {.show_info = false, .show_warnings = true};
        st_runtime *rt = NULL;
        st_error err = {0};
        if (!cli_runtime_open(&rt, &log, o.paths, o.npaths)) {
            rc = CLI_EXIT_ERROR;
        } else if (st_runtime_load_all_plugins(rt, &err) != ST_OK) {
            cli_report(&log, &err);
            rc = CLI_EXIT_ERROR;
        } else {
            rc = inspect(rt, o.arg, o.flag);
            if (rc == CLI_EXIT_OK && log.nerrors)
                rc = CLI_EXIT_ERROR;
        }
        st_runtime_destroy(&rt);
    }
    free(o.paths);
    return rc;
}
