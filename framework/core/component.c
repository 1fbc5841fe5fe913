/* component.c - component instances: creation from a class, fields set from
 * scene values, object and data links, lazy engine updates. It and node.c,
 * and it and field.c, call each other by design (core.h says why). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

static const st_state_type *provisional_type(const st_component *c);
static bool is_typed(const st_class *k);
static st_status template_changed(st_component *c, const st_state_type *old, st_error *err);

static size_t count_fields(const st_field *t)
{
    size_t n = 0;
    for (; t && t->name; t++)
        n++;
    return n;
}

bool st_component_has_role(const st_component *c, st_role role)
{
    return c && st__class_has_role(c->cls, role);
}

bool st__is_mstate(const st_component *c)
{
    return c && st__class_has_role(c->cls, ST_ROLE_STATE);
}


static st_status create(st_node *n, const st_class *cls, const char *name, st_mark mark,
                        bool attach, st_component **out, st_error *err)
{
    *out = NULL;
    ST_TRY(st__name_check("a component", name, mark, err));
    size_t nb = count_fields(st__base_fields), nc = count_fields(cls->fields);
    st_component *c = st_calloc(1, cls->instance_size);
    st_cinfo *ci = st_calloc(1, sizeof *ci);
    const st_field **fields = st_calloc(nb + nc, sizeof *fields);
    st_fstate *fs = st_calloc(nb + nc, sizeof *fs);
    unsigned long *snap = st_calloc(nb + nc, sizeof *snap);
    if (!c || !ci || !fields || !fs || !snap) {
        st_free(c);
        st_free(ci);
        st_free(fields);
        st_free(fs);
        st_free(snap);
        return st_error_set(err, ST_ENOMEM, "out of memory creating %s", cls->name);
    }
    c->cls = cls;
    c->node = n;
    c->kernel = ci;
    ci->rt = n->scene ? n->scene->rt : NULL;
    ci->fields = fields;
    ci->fs = fs;
    ci->snap = snap;
    ci->nfields = nb + nc;
    ci->mark = mark;
    /* Class fields first, so that a class may shadow a base field. */
    for (size_t i = 0; i < nc; i++)
        fields[i] = &cls->fields[i];
    for (size_t i = 0; i < nb; i++)
        fields[nc + i] = &st__base_fields[i];

    st_status s = ST_OK;
    for (size_t i = 0; i < ci->nfields && s == ST_OK; i++) {
        s = st__field_set_default(fields[i], (char *)c + fields[i]->offset, err);
        if (s != ST_OK)
            st_error_prefix(err, "%s.%s: ", cls->name, fields[i]->name);
    }
    if (s == ST_OK) {
        char buf[256];
        if (name) { /* an explicit name counts as set by the scene */
            ci->fs[nc].set = true;
            ci->fs[nc].mark = mark;
        }
        if (!name) {
            snprintf(buf, sizeof buf, "%s%zu", cls->name, st__node_class_count(n, cls) + 1);
            name = buf;
        }
        st_free(c->name);
        c->name = st_strdup(name);
        if (!c->name)
            s = st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (s == ST_OK && attach && n->nobjects == n->capobjects) {
        size_t cap = n->capobjects ? 2 * n->capobjects : 8;
        st_component **o = st_realloc(n->objects, cap * sizeof *o);
        if (!o)
            s = st_error_set(err, ST_ENOMEM, "out of memory");
        else {
            n->objects = o;
            n->capobjects = cap;
        }
    }
    if (s == ST_OK && cls->create) {
        s = cls->create(c, err);
        if (s != ST_OK) {
            char path[256];
            st__error_at(err, s, mark, "%s", err->msg);
            st_error_set_path(err, st_component_path(c, path, sizeof path));
        }
    }
    if (s != ST_OK) {
        c->node = NULL;
        st__component_destroy(c);
        return s;
    }
    if (attach) {
        n->objects[n->nobjects++] = c;
        st__scene_touch(n->scene);
    }
    *out = c;
    return ST_OK;
}

st_status st__component_create(st_node *n, const st_class *cls, const char *name, st_mark mark,
                               st_component **out, st_error *err)
{
    return create(n, cls, name, mark, true, out, err);
}

st_status st__component_create_detached(st_node *n, const st_class *cls, const char *name,
                                        st_component **out, st_error *err)
{
    return create(n, cls, name, ST_NO_MARK, false, out, err);
}

void st__component_destroy(st_component *c)
{
    if (!c)
        return;
    st_cinfo *ci = st__cinfo(c);
    st__topology_forget(c);
    if (c->cls->cleanup)
        c->cls->cleanup(c);
    if (ci) {
        for (size_t i = 0; i < ci->nfields; i++) {
            st__field_free(ci->fields[i], (char *)c + ci->fields[i]->offset);
            st_free(ci->fs[i].link);
        }
        st_free(ci->fields);
        st_free(ci->fs);
        st_free(ci->snap);
        st_free(ci->template_name);
        st_free(ci->tags);
        st_free(ci->src);
        st_free(ci);
    }
    st_free(c->name);
    st_free(c);
}

int st__component_field_index(const st_component *c, const char *name)
{
    const st_cinfo *ci = st__cinfo(c);
    for (size_t i = 0; i < ci->nfields; i++)
        if (!strcmp(ci->fields[i]->name, name))
            return (int)i;
    for (size_t i = 0; i < ci->nfields; i++)
        if (ci->fields[i]->alias && !strcmp(ci->fields[i]->alias, name))
            return (int)i;
    return -1;
}

const st_field *st_component_field(const st_component *c, const char *name)
{
    int i = c ? st__component_field_index(c, name) : -1;
    return i < 0 ? NULL : st__cinfo(c)->fields[i];
}

unsigned st_component_field_width(const st_component *c, const st_field *f)
{
    if (f->type == ST_T_COORDS || f->type == ST_T_DERIVS)
        return st__state_width(c, f->type);
    return st_type_width(f->type);
}

void *st_component_field_ptr(st_component *c, const st_field *f) { return (char *)c + f->offset; }

const char *st_component_path(const st_component *c, char *buf, size_t size)
{
    if (!buf || !size)
        return buf;
    if (!c) {
        buf[0] = 0;
        return buf;
    }
    if (!c->node) {
        snprintf(buf, size, "%s", c->name ? c->name : "?");
        return buf;
    }
    char np[ST_ERROR_PATH_MAX];
    st_node_path(c->node, np, sizeof np);
    snprintf(buf, size, "%s%s%s", np, strcmp(np, "/") ? "/" : "", c->name ? c->name : "?");
    return buf;
}

const char *st_component_plugin(const st_component *c)
{
    st_cinfo *ci = st__cinfo(c);
    const char *p = ci && ci->rt ? st_registry_class_plugin(ci->rt->reg, c->cls) : NULL;
    return p ? p : "(unknown)";
}

static st_mark field_mark(const st_component *c, const char *field)
{
    st_cinfo *ci = st__cinfo(c);
    if (field) {
        int i = st__component_field_index(c, field);
        if (i >= 0 && ci->fs[i].mark.file)
            return ci->fs[i].mark;
    }
    return ci->mark;
}

st_status st_component_error(const st_component *c, const char *field, st_error *err,
                             st_status code, const char *fmt, ...)
{
    if (!err)
        return code;
    char msg[ST_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    st__error_at(err, code, field_mark(c, field), "%s%s%s: ", c->cls->name, field ? "." : "",
                 field ? field : "");
    size_t len = strlen(err->msg);
    snprintf(err->msg + len, sizeof err->msg - len, "%s", msg);
    char path[ST_ERROR_PATH_MAX];
    st_error_set_path(err, st_component_path(c, path, sizeof path));
    return code;
}

/* Logs about c at the scene position of field (when the scene wrote it)
 * or of the component. */
static void component_log(const st_component *c, const char *field, st_log_level lv,
                          const char *fmt, va_list ap)
{
    st_cinfo *ci = st__cinfo(c);
    if (!ci || !ci->rt)
        return;
    char msg[ST_ERROR_MSG_MAX], path[ST_ERROR_PATH_MAX];
    vsnprintf(msg, sizeof msg, fmt, ap);
    st_mark m = ci->mark;
    int i = field ? st__component_field_index(c, field) : -1;
    if (i >= 0 && ci->fs[i].mark.file)
        m = ci->fs[i].mark;
    if (field)
        st__log(ci->rt, lv, m, st_component_path(c, path, sizeof path), "%s.%s: %s",
                c->cls->name, field, msg);
    else
        st__log(ci->rt, lv, m, st_component_path(c, path, sizeof path), "%s", msg);
}

void st_component_warn(const st_component *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    component_log(c, NULL, ST_LOG_WARNING, fmt, ap);
    va_end(ap);
}

void st_component_warn_field(const st_component *c, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    component_log(c, field, ST_LOG_WARNING, fmt, ap);
    va_end(ap);
}

void st_component_info(const st_component *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    component_log(c, NULL, ST_LOG_INFO, fmt, ap);
    va_end(ap);
}

/* Field names and aliases of a component, for suggestions. */
static size_t field_names(const st_component *c, const char **out, size_t max)
{
    const st_cinfo *ci = st__cinfo(c);
    size_t k = 0;
    for (size_t i = 0; i < ci->nfields && k < max; i++) {
        out[k++] = ci->fields[i]->name;
        if (ci->fields[i]->alias && k < max)
            out[k++] = ci->fields[i]->alias;
    }
    return k;
}

size_t st_component_suggest_field(const st_component *c, const char *name, const char **out,
                                  size_t max)
{
    if (!c || !name || !out)
        return 0;
    const char *names[256];
    return st__suggest(name, names, field_names(c, names, 256), out, max);
}

/* "Vec3d" or, for mappings, "Vec3d,Rigid3d": every part a known state type. */
static const char *unknown_template_part(const char *t, char *part, size_t size)
{
    const char *p = t;
    do {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        snprintf(part, size, "%.*s", (int)len, p);
        if (!st_state_type_find(part))
            return part;
        p = e ? e + 1 : NULL;
    } while (p);
    return NULL;
}

static st_status set_value_(st_component *c, const char *key, const st_value *v, bool from_scene,
                            st_error *err);

/* Sets a field; a change of "template" regroups the state vectors parsed
 * before it. */
static st_status set_value(st_component *c, const char *key, const st_value *v, bool from_scene,
                           st_error *err)
{
    if (strcmp(key, "template"))
        return set_value_(c, key, v, from_scene, err);
    const st_state_type *old = provisional_type(c);
    ST_TRY(set_value_(c, key, v, from_scene, err));
    return template_changed(c, old, err);
}

static st_status set_value_(st_component *c, const char *key, const st_value *v, bool from_scene,
                            st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    char path[ST_ERROR_PATH_MAX];
    int i = st__component_field_index(c, key);
    if (i < 0 && !strcmp(key, "template")) {
        char part[64];
        const char *bad = v->kind != ST_VAL_SCALAR ? "(list)" : !v->text[0] ? NULL
                          : unknown_template_part(v->text, part, sizeof part);
        if (bad) {
            const char *names[32], *sugg[1];
            size_t ns = st__suggest(bad, names, st__state_type_names(names, 32), sugg, 1);
            char list[256];
            st__error_at(err, ST_ESCENE, v->mark,
                         "%s: unknown template '%s'%s%s%s; state types are %s", c->cls->name, bad,
                         ns ? " (did you mean '" : "", ns ? sugg[0] : "", ns ? "'?)" : "",
                         st_state_type_list(list, sizeof list));
            st_error_set_path(err, st_component_path(c, path, sizeof path));
            return ST_ESCENE;
        }
        st_free(ci->template_name);
        ci->template_name = st_strdup(v->text);
        return ci->template_name ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (i < 0 && !strcmp(key, "tags") && v->kind == ST_VAL_SCALAR) {
        /* kept: MeanComputation reads its output's tag, MultiTagAnimationLoop
         * its own list and the solvers' and pipeline's tags; no other effect */
        char *t = st_strdup(v->text);
        if (!t)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        st_free(ci->tags);
        ci->tags = t;
        return ST_OK;
    }
    if (i < 0 && (!strcmp(key, "listening") || !strcmp(key, "tags") || !strcmp(key, "bbox"))) {
        /* SOFA's BaseObject data with no effect on settee's results. */
        st__log(ci->rt, ST_LOG_INFO, v->mark, st_component_path(c, path, sizeof path),
                "%s: field '%s' is accepted for SOFA compatibility and has no effect in settee",
                c->cls->name, key);
        return ST_OK;
    }
    if (i < 0 && !strcmp(key, "src")) {
        /* SOFA's src: link every same-named field of the source (at init). */
        if (v->kind == ST_VAL_SCALAR && !v->text[0])
            return ST_OK; /* src="": no source, as SOFA reads it */
        if (v->kind != ST_VAL_SCALAR || v->text[0] != '@' || !v->text[1]) {
            st__error_at(err, ST_ESCENE, v->mark,
                         "%s: 'src' expects a link to a component (src=\"@loader\"), got '%s'",
                         c->cls->name, v->kind == ST_VAL_SCALAR ? v->text : "(list)");
            st_error_set_path(err, st_component_path(c, path, sizeof path));
            return ST_ESCENE;
        }
        if (from_scene && ci->src && ci->src_mark.file)
            return st_component_error(c, NULL, err, ST_ESCENE, "'src' is set twice");
        st_free(ci->src);
        ci->src = st_strdup(v->text + 1);
        ci->src_mark = v->mark;
        ci->src_done = false;
        return ci->src ? ST_OK : st_error_set(err, ST_ENOMEM, "out of memory");
    }
    if (i < 0) {
        const char *names[256], *sugg[3];
        size_t nn = field_names(c, names, 256);
        size_t ns = st__suggest(key, names, nn, sugg, 3);
        char hint[512] = "";
        if (ns) {
            size_t len = (size_t)snprintf(hint, sizeof hint, " (did you mean ");
            for (size_t k = 0; k < ns; k++)
                len += (size_t)snprintf(hint + len, sizeof hint - len, "%s'%s'",
                                        k ? (k + 1 == ns ? " or " : ", ") : "", sugg[k]);
            snprintf(hint + len, sizeof hint - len, "?)");
        }
        st__error_at(err, ST_ESCENE, v->mark, "%s has no field '%s'%s; `settee inspect %s` lists its fields",
                     c->cls->name, key, hint, c->cls->name);
        st_error_set_path(err, st_component_path(c, path, sizeof path));
        return ST_ESCENE;
    }
    const st_field *f = ci->fields[i];
    st_fstate *fs = &ci->fs[i];
    st_status s = ST_OK;
    bool twice = from_scene && fs->set && fs->mark.file;
    if (twice && f->alias && st__mark_is_xml(v->mark) && st__mark_is_xml(fs->mark)) {
        /* A .scn element gives the field by its name and by its alias (an
         * element cannot repeat an attribute): SOFA sets its data attribute
         * by attribute in the order of their names (its attribute map is
         * sorted), so the name that sorts last wins: isMechanical="true"
         * mapForces="0" gives mapForces false. */
        const char *earlier = strcmp(key, f->name) == 0 ? f->alias : f->name;
        if (strcmp(key, earlier) < 0) {
            st__log(ci->rt, ST_LOG_INFO, v->mark, st_component_path(c, path, sizeof path),
                    "%s: '%s' and '%s' set the same field: '%s' wins, as in SOFA (attributes "
                    "apply in the order of their names)",
                    c->cls->name, key, earlier, earlier);
            return ST_OK;
        }
        twice = false; /* this value replaces the earlier one */
    }
    if (twice) {
        s = st__error_at(err, ST_ESCENE, v->mark, "%s: field '%s' is set twice (first at line %d)",
                         c->cls->name, f->name, fs->mark.line);
    } else if ((f->flags & ST_F_OUTPUT) && from_scene && st__mark_is_xml(v->mark) &&
               v->kind == ST_VAL_SCALAR && v->text[0] == '@') {
        /* SOFA links the output and the component writes it anyway: the
         * value is the component's. */
        st__log(ci->rt, ST_LOG_WARNING, v->mark, st_component_path(c, path, sizeof path),
                "%s: field '%s' is an output the component computes: the link '%s' is ignored "
                "(in SOFA the component's value wins as well)",
                c->cls->name, f->name, v->text);
        return ST_OK;
    } else if ((f->flags & ST_F_OUTPUT) && !(from_scene && st__mark_is_xml(v->mark))) {
        s = st__error_at(err, ST_ESCENE, v->mark,
                         "%s: field '%s' is a read-only output; it cannot be set%s", c->cls->name,
                         f->name,
                         from_scene ? " (a .scn scene may give it, as SOFA accepts it, and the "
                                      "component overwrites it)"
                                    : "");
    } else if (v->kind == ST_VAL_SCALAR && v->text[0] == '@' &&
               !((f->flags & ST_F_NOLINK) && f->type == ST_T_STRINGS)) {
        /* (a string list that cannot be linked holds link paths: SOFA's
         * multi-link, input="@../a @../b", is its items) */
        if (f->flags & ST_F_NOLINK)
            s = st__error_at(err, ST_ESCENE, v->mark, "%s: field '%s' cannot be linked",
                             c->cls->name, f->name);
        else if (!v->text[1] && f->type != ST_T_LINK)
            s = st__error_at(err, ST_ESCENE, v->mark,
                             "%s: field '%s': '@' must be followed by a path (\"@box.indices\")",
                             c->cls->name, f->name);
        else {
            char *l = st_strdup(v->text + 1);
            if (!l)
                return st_error_set(err, ST_ENOMEM, "out of memory");
            st_free(fs->link);
            fs->link = l;
            fs->parent = NULL;
        }
    } else if (f->type == ST_T_LINK && v->kind == ST_VAL_SCALAR && !v->text[0]) {
        /* an empty link is no link, as SOFA reads it (src="", input="") */
        st_free(fs->link);
        fs->link = NULL;
        fs->parent = NULL;
    } else if (f->type == ST_T_LINK) {
        s = st__error_at(err, ST_ESCENE, v->mark,
                         "%s: field '%s' expects a link such as \"@../dofs\" (a path starting with '@')",
                         c->cls->name, f->name);
    } else {
        st_field_note note;
        st_reading how = !from_scene                 ? ST_READ_API
                         : st__mark_is_xml(v->mark) ? ST_READ_SOFA
                                                    : ST_READ_SCENE;
        s = st__field_parse_sofa(f, v, (char *)c + f->offset, how, &note, err);
        if (s != ST_OK && (f->flags & ST_F_OUTPUT)) {
            /* A .scn value for an output that settee's type cannot hold
             * (SOFA's MeshOBJLoader trianglesGroups "Mesh1 -1 0 4384"):
             * the component computes the field anyway. */
            st__log(ci->rt, ST_LOG_WARNING, v->mark, st_component_path(c, path, sizeof path),
                    "%s: field '%s' is an output the component computes; the value given is "
                    "ignored (%s)",
                    c->cls->name, f->name, err->msg);
            st_error_clear(err);
            return ST_OK;
        }
        if (s == ST_OK && note.msg[0]) {
            /* A loader's scale is one real in SOFA; three go to scale3d. */
            bool scale3d = !strcmp(f->name, "scale") && f->type == ST_T_REAL &&
                           st__component_field_index(c, "scale3d") >= 0;
            st__log(ci->rt, ST_LOG_WARNING, note.mark, st_component_path(c, path, sizeof path),
                    "%s: %s%s", c->cls->name, note.msg,
                    scale3d ? "; a scale per axis is field 'scale3d'" : "");
        }
        if (s == ST_OK && (f->flags & ST_F_OUTPUT))
            st__log(ci->rt, ST_LOG_INFO, v->mark, st_component_path(c, path, sizeof path),
                    "%s: field '%s' is an output: the value given is kept until the component "
                    "computes it (at init), which overwrites it, as in SOFA",
                    c->cls->name, f->name);
        if (s == ST_OK) {
            st_free(fs->link);
            fs->link = NULL;
            fs->parent = NULL;
        }
    }
    if (s != ST_OK) {
        if (!strstr(err->msg, c->cls->name))
            st_error_prefix(err, "%s: ", c->cls->name);
        st_error_set_path(err, st_component_path(c, path, sizeof path));
        return s;
    }
    fs->set = true;
    fs->counter++;
    st__data_changed(ci->rt);
    /* the scene's position, or a label such as "--set PATH=VALUE" (line -1):
     * later errors on the field then name where its value came from */
    if (from_scene || (v->mark.file && v->mark.line < 0))
        fs->mark = v->mark;
    if ((f->flags & ST_F_IGNORED) && st__runtime_first_note(ci->rt, c->cls, f))
        st__log(ci->rt, ST_LOG_INFO, v->mark, st_component_path(c, path, sizeof path),
                "%s: field '%s' is accepted for SOFA compatibility and has no effect in settee "
                "(said once per class and field)",
                c->cls->name, f->name);
    return ST_OK;
}

st_status st__component_set_value(st_component *c, const char *key, const st_value *v,
                                  st_error *err)
{
    return set_value(c, key, v, true, err);
}

st_status st__component_set_labelled(st_component *c, const char *name, const char *text,
                                     const char *label, st_error *err)
{
    if (!strcmp(name, "name"))
        ST_TRY(st__name_check("a component", text, ST_NO_MARK, err));
    st_value v = {ST_VAL_SCALAR, text, false, NULL, 0, {label, -1, 0}};
    return set_value(c, name, &v, false, err);
}

st_status st_component_set(st_component *c, const char *name, const char *text, st_error *err)
{
    st_value v = {ST_VAL_SCALAR, text ? text : "", false, NULL, 0, ST_NO_MARK};
    if (c && name && !strcmp(name, "name"))
        ST_TRY(st__name_check("a component", text, ST_NO_MARK, err));
    ST_TRY(set_value(c, name, &v, false, err));
    /* Links set after init are resolved at once. */
    st_cinfo *ci = st__cinfo(c);
    if (ci->initialised && text && text[0] == '@')
        return st__component_resolve_links(c, err);
    return ST_OK;
}

bool st_component_is_set(const st_component *c, const char *name)
{
    int i = c ? st__component_field_index(c, name) : -1;
    return i >= 0 && st__cinfo(c)->fs[i].set;
}

void st_component_touch(st_component *c, const st_field *f)
{
    st_cinfo *ci = st__cinfo(c);
    for (size_t i = 0; i < ci->nfields; i++)
        if (ci->fields[i] == f) {
            ci->fs[i].counter++;
            st__data_changed(ci->rt);
            return;
        }
}

/* ---- links ---- */

static bool is_real_tuples(st_type t)
{
    return t == ST_T_VEC3S || t == ST_T_COORDS || t == ST_T_DERIVS || t == ST_T_RIGID3S ||
           t == ST_T_QUATS;
}

static bool types_compatible(st_type a, st_type b)
{
    if (a == b)
        return true;
    /* A string takes any data as its text (SOFA's BaseData::validParent:
     * a string on either side converts through getValueString). */
    if (b == ST_T_STRING && a != ST_T_LINK)
        return true;
    /* Point lists of reals: a vec3[] and a state's coord[] or deriv[] (the
     * copy checks that the scalars make whole points). */
    if (is_real_tuples(a) && is_real_tuples(b))
        return true;
    /* A list of reals and a state's coordinates or derivatives, which copy
     * when the state's points are one real each (Vec1d: SOFA's
     * "@distances.position" into DataDisplay's pointData). */
    if ((a == ST_T_REALS && (b == ST_T_COORDS || b == ST_T_DERIVS)) ||
        (b == ST_T_REALS && (a == ST_T_COORDS || a == ST_T_DERIVS)))
        return true;
    /* A list of reals from a vec3[] or an index list, and an index list
     * from reals (SOFA's genericCopyValueFrom: per element, the first value,
     * converted between integers and reals; MergeVectors<vector<SReal>> of
     * "@box.indices" or of a loader's "@mesh.position", and its output into
     * FixedProjectiveConstraint's indices). */
    if ((a == ST_T_REALS && b == ST_T_UINTS) ||
        (b == ST_T_REALS && (a == ST_T_VEC3S || a == ST_T_UINTS)))
        return true;
    /* One index into an index list: a list of it (SOFA goes through the
     * text; st__field_copy refuses a negative one). */
    if ((a == ST_T_UINT || a == ST_T_INT) && b == ST_T_UINTS)
        return true;
    /* Index and element lists link into each other (SOFA goes through their
     * text: "@roi.trianglesInROI" into an index list flattens the
     * triangles; the copy checks the count makes whole elements). */
    return st__type_is_index_list(a) && st__type_is_index_list(b);
}

/* A link path from c: SOFA's "[k]" names the object k places from c in
 * its node ("[-1]": the one just before); other paths go to
 * st_node_resolve. */
static st_status resolve_path(st_component *c, const char *path, st_link_kind kind,
                              st_component **out, st_error *err)
{
    if (path[0] != '[')
        return st_node_resolve(c->node, path, kind, out, err);
    char *end;
    errno = 0;
    long k = strtol(path + 1, &end, 10);
    bool out_of_range = errno == ERANGE;
    if (end == path + 1 || *end != ']' || end[1])
        return st_error_set(err, ST_ELINK,
                            "'@%s': a relative object is written [k] ('@[-1]': the object just "
                            "before this one in its node)",
                            path);
    st_node *n = c->node;
    size_t self = 0;
    while (self < n->nobjects && n->objects[self] != c)
        self++;
    /* k as written (strtol saturates), and no sum that could overflow */
    bool inside = !out_of_range && self < n->nobjects && k >= -(long)self &&
                  k < (long)(n->nobjects - self);
    if (!inside)
        return st_error_set(err, ST_ELINK, "'@%s': there is no object %.*s places from this one",
                            path, (int)(end - path - 1), path + 1);
    long idx = (long)self + k;
    *out = n->objects[idx];
    return ST_OK;
}

static st_status clamp_src_at_root(st_component *c, char **srcp, st_mark mark, st_error *err);

static st_status resolve_one(st_component *c, size_t i, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    const st_field *f = ci->fields[i];
    st_fstate *fs = &ci->fs[i];
    char path[ST_ERROR_PATH_MAX];
    st_status s;
    if (f->type == ST_T_LINK) {
        st_component *target = NULL;
        /* a class's own src link is found as SOFA finds src */
        if (!strcmp(f->name, "src") && fs->link[0] == 0) {
            /* src="@" (SOFA's Objects/TriangleSetTopology.xml, included
             * without overriding it): no loader; SOFA reports that it finds
             * none and the component keeps its own values */
            st__log(ci->rt, ST_LOG_WARNING, fs->mark.file ? fs->mark : ci->mark,
                    st_component_path(c, path, sizeof path),
                    "%s: src '@' names no loader (its node, not a component): ignored, the "
                    "fields keep their own values, as in SOFA",
                    c->cls->name);
            return ST_OK;
        }
        if (!strcmp(f->name, "src"))
            ST_TRY(clamp_src_at_root(c, &fs->link, fs->mark, err));
        s = resolve_path(c, fs->link, f->link_kind, &target, err);
        if (s == ST_OK) {
            *(st_component **)((char *)c + f->offset) = target;
            return ST_OK;
        }
    } else {
        /* Data link: the field name follows the last '.' after the last '/'. */
        const char *slash = strrchr(fs->link, '/');
        const char *dot = strrchr(slash ? slash : fs->link, '.');
        if (!dot || dot[1] == 0 || !strcmp(dot, ".") ||
            (dot > fs->link && dot[-1] == '.' && (dot - 1 == fs->link || dot[-2] == '/'))) {
            s = st_error_set(err, ST_ELINK,
                             "'@%s' names no field: a data link is \"@object.field\" (\"@box.indices\")",
                             fs->link);
        } else {
            char obj[ST_ERROR_PATH_MAX];
            size_t len = (size_t)(dot - fs->link);
            if (len >= sizeof obj)
                len = sizeof obj - 1;
            memcpy(obj, fs->link, len);
            obj[len] = 0;
            st_component *target = NULL;
            s = len ? resolve_path(c, obj, ST_LINK_ANY, &target, err) : ST_OK;
            if (!len)
                target = c;
            if (s == ST_OK) {
                const st_field *tf = st_component_field(target, dot + 1);
                if (!tf) {
                    const char *names[256], *sugg[1];
                    size_t nn = field_names(target, names, 256);
                    size_t ns = st__suggest(dot + 1, names, nn, sugg, 1);
                    s = st_error_set(err, ST_ELINK, "'@%s': %s '%s' has no field '%s'%s%s%s",
                                     fs->link, target->cls->name, target->name, dot + 1,
                                     ns ? " (did you mean '" : "", ns ? sugg[0] : "",
                                     ns ? "'?)" : "");
                } else if (tf->type == ST_T_LINK) {
                    s = st_error_set(err, ST_ELINK, "'@%s' is a link, not data", fs->link);
                } else if (!types_compatible(tf->type, f->type)) {
                    s = st_error_set(err, ST_ELINK,
                                     "'@%s' is %s but field '%s' expects %s", fs->link,
                                     st_type_name(tf->type), f->name, st_type_name(f->type));
                } else if (target == c && tf == f) {
                    s = st_error_set(err, ST_ELINK, "field '%s' links to itself", f->name);
                } else {
                    fs->parent = target;
                    fs->parent_field = tf;
                    fs->parent_counter = (unsigned long)-1;
                    return ST_OK;
                }
            }
        }
    }
    /* SOFA keeps a data link whose object or field it cannot find as a
     * path that never resolves (BaseData::setParent): the field keeps its
     * own value and the scene runs. A SOFA scene gets a warning here, and
     * the field its default; --strict and YAML scenes keep the error. */
    st_mark lm = fs->mark.file ? fs->mark : ci->mark;
    if (f->type != ST_T_LINK && st__mark_is_xml(lm) && ci->rt && !ci->rt->strict &&
        (strstr(err->msg, "does not resolve") || strstr(err->msg, " has no field '"))) {
        st__log(ci->rt, ST_LOG_WARNING, lm, st_component_path(c, path, sizeof path),
                "%s: field '%s': %s (the field keeps its value, as SOFA's unresolved data "
                "links do; --strict makes it an error)",
                c->cls->name, f->name, err->msg);
        st_free(fs->link);
        fs->link = NULL;
        st_error_clear(err);
        return ST_OK;
    }
    /* Put the link's position and the component in front of the message. */
    char msg[ST_ERROR_MSG_MAX];
    snprintf(msg, sizeof msg, "%s", err->msg);
    st__error_at(err, s, fs->mark.file ? fs->mark : ci->mark, "%s: field '%s': %s", c->cls->name,
                 f->name, msg);
    st_error_set_path(err, st_component_path(c, path, sizeof path));
    return s;
}

/* Fields a src link never takes (SOFA: the scene's own attributes, the
 * loader's type and filename, and data that do not auto-link). */
static bool src_excluded(const char *name)
{
    static const char *const ex[] = {"name",      "printLog",       "type", "filename",
                                     "tags",      "bbox",           "listening",
                                     "componentState"};
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++)
        if (!strcmp(name, ex[i]))
            return true;
    return false;
}

/* SOFA finds a src object with the context's path lookup
 * (Node::getObject), where "../" on the root node stays on the root: the
 * leading ".." segments that would go above the root are dropped, with a
 * warning (other links that go above the root do not resolve, in SOFA as
 * in settee). */
static st_status clamp_src_at_root(st_component *c, char **srcp, st_mark mark, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    const char *p = *srcp;
    if (*p == '/' || !c->node)
        return ST_OK;
    size_t depth = 0, excess = 0;
    for (const st_node *n = c->node; n->parent; n = n->parent)
        depth++;
    size_t keep = 0; /* bytes of the leading "../" run kept */
    const char *q = p;
    while (q[0] == '.' && q[1] == '.' && (q[2] == '/' || !q[2])) {
        if (depth) {
            depth--;
            keep = (size_t)(q + 2 - p);
        } else
            excess++;
        q += 2;
        while (*q == '/')
            q++;
    }
    if (!excess)
        return ST_OK;
    size_t rest = strlen(q);
    char *np = st_malloc(keep + 1 + rest + 2);
    if (!np)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    memcpy(np, p, keep);
    size_t k = keep;
    if (keep && rest)
        np[k++] = '/';
    memcpy(np + k, q, rest);
    k += rest;
    if (!k)
        np[k++] = '.';
    np[k] = 0;
    char where[ST_ERROR_PATH_MAX];
    st__log(ci->rt, ST_LOG_WARNING, mark.file ? mark : ci->mark,
            st_component_path(c, where, sizeof where),
            "%s: src '@%s' goes %zu level%s above the root node; SOFA stops at the root, so it "
            "is read as '@%s'",
            c->cls->name, p, excess, excess > 1 ? "s" : "", np);
    st_free(*srcp);
    *srcp = np;
    return ST_OK;
}

/* SOFA's src="@path": each field of c that the scene did not set and that
 * the source also has (by name or alias) is linked to the source's. */
static st_status resolve_src(st_component *c, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    st_component *srcc = NULL;
    char path[ST_ERROR_PATH_MAX];
    ST_TRY(clamp_src_at_root(c, &ci->src, ci->src_mark, err));
    if (st_node_resolve(c->node, ci->src, ST_LINK_ANY, &srcc, err) != ST_OK) {
        char msg[ST_ERROR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        st__error_at(err, ST_ELINK, ci->src_mark.file ? ci->src_mark : ci->mark,
                     "%s: src '@%s': %s", c->cls->name, ci->src, msg);
        st_error_set_path(err, st_component_path(c, path, sizeof path));
        return ST_ELINK;
    }
    if (srcc == c) {
        st__error_at(err, ST_ELINK, ci->src_mark, "%s: src '@%s' names the component itself",
                     c->cls->name, ci->src);
        st_error_set_path(err, st_component_path(c, path, sizeof path));
        return ST_ELINK;
    }
    for (size_t i = 0; i < ci->nfields; i++) {
        const st_field *f = ci->fields[i];
        st_fstate *fs = &ci->fs[i];
        if (fs->set || fs->link || f->type == ST_T_LINK || (f->flags & ST_F_OUTPUT) ||
            src_excluded(f->name))
            continue;
        const st_field *tf = st_component_field(srcc, f->name);
        if (!tf && f->alias)
            tf = st_component_field(srcc, f->alias);
        if (!tf || tf->type == ST_T_LINK || (tf->flags & ST_F_NOAUTOLINK) ||
            !types_compatible(tf->type, f->type))
            continue;
        char link[ST_ERROR_PATH_MAX + 128];
        snprintf(link, sizeof link, "%s.%s", ci->src, tf->name);
        fs->link = st_strdup(link);
        if (!fs->link)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        fs->parent = NULL;
        fs->mark = ci->src_mark;
    }
    ci->src_done = true;
    return ST_OK;
}

st_status st__component_resolve_links(st_component *c, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    if (ci->src && !ci->src_done)
        ST_TRY(resolve_src(c, err));
    /* A link field whose default is a path ("@../", SOFA's mapping input)
     * follows it when the scene leaves the field unset. */
    for (size_t i = 0; i < ci->nfields; i++) {
        const st_field *f = ci->fields[i];
        st_fstate *fs = &ci->fs[i];
        if (f->type == ST_T_LINK && !fs->link && !fs->set && f->def && f->def[0] == '@' &&
            !*(st_component **)((char *)c + f->offset)) {
            fs->link = st_strdup(f->def + 1);
            if (!fs->link)
                return st_error_set(err, ST_ENOMEM, "out of memory");
        }
    }
    for (size_t i = 0; i < ci->nfields; i++)
        if (ci->fs[i].link && !ci->fs[i].parent) {
            st__data_changed(ci->rt);
            ST_TRY(resolve_one(c, i, err));
        }
    ci->has_links = false;
    for (size_t i = 0; i < ci->nfields; i++)
        ci->has_links = ci->has_links || ci->fs[i].parent != NULL;
    if (c->node)
        st__scene_touch(c->node->scene);
    return ST_OK;
}

st_status st__component_link_field(st_component *dst, const st_field *df, st_component *src,
                                   const st_field *sf, st_error *err)
{
    st_cinfo *ci = st__cinfo(dst);
    int k = st__component_field_index(dst, df->name);
    if (k < 0)
        return st_error_set(err, ST_EINVAL, "no field '%s'", df->name);
    char path[ST_ERROR_PATH_MAX], text[ST_ERROR_PATH_MAX + 64];
    snprintf(text, sizeof text, "%s.%s", st_component_path(src, path, sizeof path), sf->name);
    char *link = st_strdup(text[0] == '/' ? text + 1 : text);
    if (!link)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    st_fstate *fs = &ci->fs[k];
    st_free(fs->link);
    fs->link = link;
    fs->parent = src;
    fs->parent_field = sf;
    fs->parent_counter = 0;
    ci->has_links = true;
    ci->inputs_gen = 0;
    if (dst->node && dst->node->scene)
        dst->node->scene->graph_version++;
    return st_component_update_inputs(dst, err);
}

bool st__component_has_tag(const st_component *c, const char *tag)
{
    const char *t = st__cinfo(c)->tags;
    size_t n = strlen(tag);
    for (const char *p = t; p && (p = strstr(p, tag)); p += n) {
        bool left = p == t || p[-1] == ' ' || p[-1] == ',' || p[-1] == '\t';
        bool right = !p[n] || p[n] == ' ' || p[n] == ',' || p[n] == '\t';
        if (left && right)
            return true;
    }
    return false;
}

bool st_component_has_tag(const st_component *c, const char *tag)
{
    return c && tag && tag[0] && st__component_has_tag(c, tag);
}

static st_status update_inputs(st_component *c, st_error *err);

/* The nesting of st_component_update_inputs on this thread (child scenes
 * may step on several threads: AnimationLoopParallelScheduler). */
static _Thread_local int update_depth;

st_status st_component_update_inputs(st_component *c, st_error *err)
{
    /* Nothing was written since c was last brought up to date: its inputs
     * cannot have changed (keeps a chain of n links O(n), not O(n^2)). */
    st_cinfo *ci = st__cinfo(c);
    st_runtime *rt = ci->rt;
    if (rt && ci->inputs_gen == rt->data_gen + 1)
        return ST_OK;
    if (update_depth >= ST__LINK_DEPTH_MAX)
        return st_component_error(c, NULL, err, ST_ELINK,
                                  "data links chain through more than %d components upstream of "
                                  "this one; settee follows at most %d",
                                  ST__LINK_DEPTH_MAX, ST__LINK_DEPTH_MAX);
    update_depth++;
    st_status s = update_inputs(c, err);
    update_depth--;
    if (rt && s == ST_OK)
        ci->inputs_gen = rt->data_gen + 1;
    return s;
}

static st_status update_inputs(st_component *c, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    if (!ci->has_links)
        return ST_OK;
    for (size_t i = 0; i < ci->nfields; i++) {
        st_fstate *fs = &ci->fs[i];
        if (!fs->parent)
            continue;
        st_component *p = fs->parent;
        st_cinfo *pi = st__cinfo(p);
        if (pi->updating) {
            /* A cycle through a component being updated (a BoxROI reading a
             * topology whose edges come from a NearestPointROI that reads the
             * BoxROI's indices, NearestPointROI.scn): SOFA's data and engines
             * mark themselves clean before pulling their parents, so the loop
             * closes on the current values, and a later pull updates again
             * when they change. Said once per reader. */
            if (!ci->cycle_noted) {
                char path[ST_ERROR_PATH_MAX];
                ci->cycle_noted = true;
                st_component_warn(c,
                                  "'%s' is read from %s while that one updates (their data "
                                  "links form a cycle): its current value is used, as SOFA's "
                                  "lazy links do",
                                  ci->fields[i]->name, st_component_path(p, path, sizeof path));
            }
        } else if (st__class_has_role(p->cls, ST_ROLE_ENGINE))
            ST_TRY(st__engine_refresh(p, err));
        else {
            pi->updating = true;
            st_status s = st_component_update_inputs(p, err);
            pi->updating = false;
            ST_TRY(s);
        }
        int pidx = -1;
        for (size_t k = 0; k < pi->nfields; k++)
            if (pi->fields[k] == fs->parent_field)
                pidx = (int)k;
        if (pidx < 0)
            continue;
        unsigned long pc = pi->fs[pidx].counter;
        if (pc == fs->parent_counter)
            continue;
        const st_field *f = ci->fields[i];
        st_status s = st__field_copy(f, (char *)c + f->offset, fs->parent_field,
                                     (char *)p + fs->parent_field->offset, err);
        if (s != ST_OK)
            return st_component_error(c, f->name, err, s, "cannot copy '@%s': %s", fs->link,
                                      err->msg);
        fs->parent_counter = pc;
        fs->counter++;
        st__data_changed(ci->rt);
    }
    return ST_OK;
}

/* An engine whose outputs are read before its turn in the scene's init
 * (a topology written after a BoxROI that reads it, with edges="@np.edges"
 * from a NearestPointROI written after the BoxROI): SOFA's data links are
 * lazy, so SOFA runs the engine's update on that read, before its init.
 * settee initialises it there (inputs, then init), once; its turn in the
 * scene's init then finds it done. A failure is the engine's error, met by
 * its reader. */
static st_status early_init(st_component *c, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    if (c->state == ST_CSTATE_INVALID) {
        char path[ST_ERROR_PATH_MAX];
        return st_component_error(c, NULL, err, ST_ESTATE,
                                  "its outputs are read but it failed to initialise (%s)",
                                  st_component_path(c, path, sizeof path));
    }
    ci->updating = true;
    st_status s = st_component_update_inputs(c, err);
    if (s == ST_OK && c->cls->init)
        s = c->cls->init(c, err);
    ci->updating = false;
    if (s != ST_OK) {
        c->state = ST_CSTATE_INVALID;
        return s;
    }
    ci->initialised = true;
    if (c->state == ST_CSTATE_UNDEFINED)
        c->state = ST_CSTATE_VALID;
    return ST_OK;
}

st_status st__engine_refresh(st_component *c, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    if (!c->cls->engine || !c->cls->engine->update)
        return ST_OK;
    if (ci->updating) {
        char path[ST_ERROR_PATH_MAX];
        return st_error_set(err, ST_ELINK, "data links form a cycle through engine %s",
                            st_component_path(c, path, sizeof path));
    }
    if (!ci->initialised)
        ST_TRY(early_init(c, err));
    ci->updating = true;
    st_status s = st_component_update_inputs(c, err);
    bool changed = !ci->updated_once;
    for (size_t i = 0; s == ST_OK && i < ci->nfields; i++)
        if (!(ci->fields[i]->flags & ST_F_OUTPUT) && ci->fs[i].counter != ci->snap[i])
            changed = true;
    if (s == ST_OK && changed) {
        s = c->cls->engine->update(c, err);
        if (s == ST_OK) {
            ci->updated_once = true;
            for (size_t i = 0; i < ci->nfields; i++) {
                if (ci->fields[i]->flags & ST_F_OUTPUT) {
                    ci->fs[i].counter++;
                    st__data_changed(ci->rt);
                } else
                    ci->snap[i] = ci->fs[i].counter;
            }
        }
    }
    ci->updating = false;
    return s;
}

st_status st_component_refresh(st_component *c, st_error *err)
{
    if (c->cls->engine && st__cinfo(c)->initialised)
        return st__engine_refresh(c, err);
    return st_component_update_inputs(c, err);
}

st_mstate *st_component_mstate(const st_component *c)
{
    if (!c)
        return NULL;
    const st_field *f = st_component_field(c, "mstate");
    if (f && f->type == ST_T_LINK) {
        st_component *t = *(st_component *const *)((const char *)c + f->offset);
        if (t && st__is_mstate(t))
            return (st_mstate *)t;
    }
    /* SOFA's context state: the node's, else the nearest ancestor's (a
     * force field in a child node that only holds a topology acts on the
     * parent's MechanicalObject). */
    for (const st_node *n = c->node; n; n = n->parent) {
        st_mstate *ms = st_node_mstate(n);
        if (ms)
            return ms;
    }
    return NULL;
}

/* ---- state types ---- */

const st_state_type *st_component_state_type(const st_component *c)
{
    return c ? st__cinfo(c)->stype : NULL;
}

/* The type a component's state vectors are parsed with before the kernel
 * resolves it: what a state says its type is now (st_state_ops), else the
 * scene's template, else Vec3d. */
static const st_state_type *provisional_type(const st_component *c)
{
    const st_cinfo *ci = st__cinfo(c);
    if (st__is_mstate(c)) { /* the type the state says it has now */
        const st_state_type *t = NULL;
        st_error e = {0};
        if (c->cls->state->resolve_type &&
            c->cls->state->resolve_type((st_component *)c, &t, &e) == ST_OK && t)
            return t;
        return &st_vec3d_type;
    }
    const char *name = ci->template_name;
    char part[64];
    if (name && strchr(name, ',')) {
        snprintf(part, sizeof part, "%.*s", (int)(strchr(name, ',') - name), name);
        name = part;
    }
    const st_state_type *t = name && name[0] ? st_state_type_find(name) : NULL;
    if (t)
        return t;
    if (name && name[0])
        return &st_vec3d_type;
    /* No template: SOFA deduces it from the context's state, as here. The
     * first answer is kept, so that values parsed with it keep their width
     * even if a state is added to the node afterwards. */
    if (!ci->ptype && c->node && is_typed(c->cls)) {
        const st_mstate *ms = st_component_mstate(c);
        ((st_cinfo *)ci)->ptype = ms ? provisional_type(&ms->base) : &st_vec3d_type;
    }
    return ci->ptype ? ci->ptype : &st_vec3d_type;
}

const st_state_type *st__component_parse_type(const st_component *c)
{
    const st_state_type *st = st__cinfo(c)->stype;
    return st ? st : provisional_type(c);
}

unsigned st__state_width(const st_component *c, st_type t)
{
    if (!c || !c->kernel)
        return 1;
    const st_state_type *st = st__component_parse_type(c);
    return t == ST_T_COORDS ? st->coord_size : st->deriv_size;
}

/* Components that work on a state type: states, classes that list their
 * templates, and the roles that act on a state. */
static bool is_typed(const st_class *k)
{
    return st__class_has_role(k, ST_ROLE_STATE) || CLASS_HAS(k, templates) || k->forcefield ||
           k->mass || k->projective;
}

/* The state a component acts on: its first set link to a state (a
 * geometry-only link excepted), else its node's state. */
static st_component *acted_state(const st_component *c)
{
    const st_cinfo *ci = st__cinfo(c);
    for (size_t i = 0; i < ci->nfields; i++) {
        const st_field *f = ci->fields[i];
        if (f->type == ST_T_LINK && f->link_kind == ST_LINK_STATE && !(f->flags & ST_F_GEOMETRY)) {
            st_component *t = *(st_component *const *)((const char *)c + f->offset);
            if (t && st__is_mstate(t))
                return t;
        }
    }
    return (st_component *)st_component_mstate(c);
}

static bool class_supports(const st_class *k, const st_state_type *t)
{
    if (!CLASS_HAS(k, templates))
        return t == &st_vec3d_type;
    for (const char *const *p = k->templates; *p; p++)
        if (st_state_type_find(*p) == t)
            return true;
    return false;
}

static void supported_list(const st_class *k, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = 0;
    if (!CLASS_HAS(k, templates)) {
        snprintf(buf, size, "Vec3d");
        return;
    }
    for (const char *const *p = k->templates; *p && len < size; p++) {
        int w = snprintf(buf + len, size - len, "%s%s", p == k->templates ? "" : ", ", *p);
        len += w > 0 ? (size_t)w : 0;
    }
}

/* Regroups c's state vectors, parsed as points of type from, into points
 * of type to: the scene's scalars must make whole points; vectors the scene
 * did not set hold one point (the type's identity, or zero) when they have
 * a default; linked ones are left empty for the link's copy. */
static st_status reshape_vectors(st_component *c, const st_state_type *from,
                                 const st_state_type *to, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    for (size_t i = 0; i < ci->nfields; i++) {
        const st_field *f = ci->fields[i];
        if (f->type != ST_T_COORDS && f->type != ST_T_DERIVS)
            continue;
        st_array *a = (st_array *)((char *)c + f->offset);
        bool coord = f->type == ST_T_COORDS;
        unsigned wf = coord ? from->coord_size : from->deriv_size;
        unsigned wt = coord ? to->coord_size : to->deriv_size;
        if (ci->fs[i].link) {
            ST_TRY(st_array_resize_width(a, wt, 0, err));
            continue;
        }
        if (!ci->fs[i].set) {
            ST_TRY(st_array_resize_width(a, wt, 0, err));
            if (f->def && f->def[0]) {
                ST_TRY(st_array_resize_width(a, wt, 1, err));
                if (coord)
                    memcpy(a->r, to->identity, wt * sizeof(double));
            }
            continue;
        }
        if (wf == wt)
            continue;
        size_t scalars = a->n * wf;
        if (scalars % wt)
            return st_component_error(c, f->name, err, ST_ESCENE,
                                      "%zu values are not a whole number of %s %s (%u values each)",
                                      scalars, to->name, coord ? "coordinates" : "derivatives", wt);
        a->n = scalars / wt;
        if (a->cap)
            a->cap = a->cap * wf / wt;
    }
    return ST_OK;
}

/* After "template" changed before init: regroup the vectors already parsed. */
static st_status template_changed(st_component *c, const st_state_type *old, st_error *err)
{
    const st_state_type *now = provisional_type(c);
    if (st__cinfo(c)->stype || now == old)
        return ST_OK;
    return reshape_vectors(c, old, now, err);
}

static st_status shape_vectors(st_component *c, const st_state_type *t, st_error *err)
{
    ST_TRY(reshape_vectors(c, provisional_type(c), t, err));
    st__cinfo(c)->stype = t;
    return ST_OK;
}

st_status st__component_resolve_type(st_component *c, st_error *err)
{
    st_cinfo *ci = st__cinfo(c);
    const st_class *k = c->cls;
    if (ci->stype || !is_typed(k))
        return ST_OK;
    const st_state_type *t = NULL;
    if (st__class_has_role(k, ST_ROLE_STATE)) {
        if (k->state->resolve_type)
            ST_TRY(k->state->resolve_type(c, &t, err));
        if (!t)
            t = &st_vec3d_type;
        ((st_mstate *)c)->type = t;
        return shape_vectors(c, t, err);
    }
    char list[256];
    st_component *ms = acted_state(c);
    if (ms && ms != c)
        ST_TRY(st__component_resolve_type(ms, err));
    const st_state_type *mt = ms ? st__cinfo(ms)->stype : NULL;
    /* An engine's template is its data's type, not its context's
     * (SOFA's TextureInterpolation<Vec1> in a node of Vec3d positions):
     * only components that act on the state are held to it. */
    const bool pure_engine = k->engine && !k->forcefield && !k->mass && !k->projective &&
                             !k->mapping;
    if (ci->template_name && ci->template_name[0]) {
        char part[64];
        const char *comma = strchr(ci->template_name, ',');
        snprintf(part, sizeof part, "%.*s",
                 comma ? (int)(comma - ci->template_name) : (int)strlen(ci->template_name),
                 ci->template_name);
        t = st_state_type_find(part);
        /* "In,Out" (or "In1,In2,Out") on a mapping whose only state link
         * is its output (a multi-mapping, whose inputs are a list of
         * paths): the output is checked against Out, the last part */
        const st_state_type *want = t;
        const st_field *of = k->mapping ? st_component_field(c, "output") : NULL;
        if (comma && of && of->type == ST_T_LINK && ms &&
            *(st_component *const *)st_component_field_ptr(c, of) == ms) {
            want = st_state_type_find(strrchr(ci->template_name, ',') + 1);
            if (!want)
                want = t;
        }
        if (want && mt && mt != want && !pure_engine) {
            char path[ST_ERROR_PATH_MAX];
            return st_component_error(c, "template", err, ST_ESCENE,
                                      "template %s does not match the %s state %s it acts on",
                                      want->name, mt->name,
                                      st_component_path(ms, path, sizeof path));
        }
    } else if (mt && !(pure_engine && CLASS_HAS(k, templates) && k->templates[0] &&
                         !k->templates[1] && !class_supports(k, mt))) {
        t = mt;
    } else {
        /* no state, or an engine SOFA instantiates for one type only
         * (Vertex2Frame<Rigid3d>) beside a state of another: its type */
        t = CLASS_HAS(k, templates) ? st_state_type_find(k->templates[0]) : &st_vec3d_type;
    }
    if (!t || !class_supports(k, t)) {
        supported_list(k, list, sizeof list);
        if (ms && !ci->template_name) {
            char path[ST_ERROR_PATH_MAX];
            return st_component_error(c, NULL, err, ST_ESCENE,
                                      "%s does not support %s states (the state %s); it supports %s",
                                      k->name, t ? t->name : "?",
                                      st_component_path(ms, path, sizeof path), list);
        }
        return st_component_error(c, "template", err, ST_ESCENE,
                                  "%s does not support template %s; it supports %s", k->name,
                                  t ? t->name : "?", list);
    }
    return shape_vectors(c, t, err);
}
