/* export.c - writes a scene's mechanical state as JSON (st_scene_export_state).
 *
 * The file holds the simulated time, the number of steps and, for every
 * MechanicalObject in scene order, its path, positions and velocities,
 * then the same for every non-mechanical state (MappedObject), in scene
 * order, in its template's widths.
 * When mappings write visual models (OglModel), a "visual" list follows:
 * per model (in the order of the mappings) its path and positions.
 * Numbers are printed with 17 significant digits so that strtod reads them
 * back bit-exact. When the scene has topologies, a "topologies" list
 * follows: per topology component (scene order) its path and its element
 * lists (edges, triangles, quads, tetrahedra, hexahedra; lists of index
 * lists), for comparisons as SOFA's CompareTopology. When the root has a
 * collision pipeline with contact outputs, a "contacts" list follows: this
 * step's contact pairs, counts, points, normals and distances. JSON has no NaN or infinity: such values are written as
 * null and the export fails with ST_ESOLVER once the file is complete.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "simulation/simulation.h"

/* Writes one double; returns false when it is not finite (null written). */
static bool put_number(FILE *f, double x)
{
    if (!isfinite(x)) {
        fputs("null", f);
        return false;
    }
    fprintf(f, "%.17g", x);
    return true;
}

/* Writes s as a JSON string literal. */
static void put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* Writes an array of n tuples of w values (a state's coordinates or
 * derivatives), one per line; returns false when one of the values is not
 * finite. */
static bool put_tuples(FILE *f, const double *v, size_t n, unsigned w)
{
    bool finite = true;
    fputc('[', f);
    for (size_t i = 0; i < n; i++) {
        fputs(i ? ",\n    [" : "\n    [", f);
        for (unsigned k = 0; k < w; k++) {
            if (k)
                fputs(", ", f);
            finite &= put_number(f, v[w * i + k]);
        }
        fputc(']', f);
    }
    fputs(n ? "\n  ]" : "]", f);
    return finite;
}

/* Writes the "topologies" list (nothing when the scene has none). */
static void put_topologies(FILE *f, st_scene *s)
{
    st_node *root = st_scene_root(s);
    size_t n = root ? st_node_find_all(root, ST_ROLE_TOPOLOGY, ST_SEARCH_DOWN, NULL, 0) : 0;
    st_component **topos = n ? st_calloc(n, sizeof *topos) : NULL;
    if (!topos)
        return;
    n = st_node_find_all(root, ST_ROLE_TOPOLOGY, ST_SEARCH_DOWN, topos, n);
    static const char *const names[5] = {"edges", "triangles", "quads", "tetrahedra",
                                         "hexahedra"};
    static const st_type kinds[5] = {ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                     ST_T_HEXAS};
    static const unsigned width[5] = {2, 3, 4, 4, 8};
    fputs(", \"topologies\": [", f);
    for (size_t i = 0; i < n; i++) {
        char path[ST_ERROR_PATH_MAX];
        st_component_path(topos[i], path, sizeof path);
        fputs(i ? ",\n {\"path\": " : "\n {\"path\": ", f);
        put_string(f, path);
        const st_topology_ops *ops = topos[i]->cls->topology;
        for (int k = 0; k < 5; k++) {
            const st_array *el = ops->elements ? ops->elements(topos[i], kinds[k]) : NULL;
            size_t ne = el ? el->n : 0;
            fprintf(f, ",\n  \"%s\": [", names[k]);
            for (size_t e = 0; e < ne; e++) {
                fputs(e ? ", [" : "[", f);
                for (unsigned c = 0; c < width[k]; c++)
                    fprintf(f, c ? ", %u" : "%u", el->u[width[k] * e + c]);
                fputc(']', f);
            }
            fputc(']', f);
        }
        fputc('}', f);
    }
    fputs("\n]", f);
    st_free(topos);
}

/* Writes an array field of c (REALS, VEC3S, UINTS, STRINGS) as a JSON list. */
static bool put_field(FILE *f, const st_component *c, const char *name)
{
    const st_field *fd = st_component_field(c, name);
    const st_array *a = fd ? (const st_array *)((const char *)c + fd->offset) : NULL;
    fprintf(f, ",\n  \"%s\": ", name);
    if (!a) {
        fputs("[]", f);
        return true;
    }
    if (fd->type == ST_T_VEC3S || fd->type == ST_T_REALS)
        return put_tuples(f, a->r, a->n, fd->type == ST_T_VEC3S ? 3 : 1);
    fputc('[', f);
    for (size_t i = 0; i < a->n; i++) {
        if (i)
            fputs(", ", f);
        if (fd->type == ST_T_STRINGS)
            put_string(f, a->s[i] ? a->s[i] : "");
        else
            fprintf(f, "%u", a->u[i]);
    }
    fputc(']', f);
    return true;
}

/* Writes the "contacts" list: per collision pipeline of the root node that
 * has settee's contact outputs (the Collision plugin's CollisionPipeline),
 * this step's contact pairs, counts, points, normals and distances. */
static bool put_contacts(FILE *f, st_scene *s)
{
    static const char *const names[] = {"contactPairs", "contactCounts", "contactPoints",
                                        "contactNormals", "contactDistances"};
    st_node *root = s->root;
    bool any = false, finite = true;
    for (size_t i = 0; i < root->nobjects; i++) {
        const st_component *c = root->objects[i];
        if (!ST_CLASS_HAS(c->cls, collision) || !c->cls->collision ||
            !st_component_field(c, "contactPoints"))
            continue;
        char path[ST_ERROR_PATH_MAX];
        fputs(any ? ",\n {\"path\": " : ", \"contacts\": [\n {\"path\": ", f);
        put_string(f, st_component_path(c, path, sizeof path));
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            finite &= put_field(f, c, names[k]);
        fputc('}', f);
        any = true;
    }
    if (any)
        fputs("\n]", f);
    return finite;
}

/* Writes the "visual" list: the visual models (OglModel) that mappings
 * write, SOFA's VisualModelImpl positions (nothing when there are none).
 * Returns false when a value is not finite (its path into bad_path). */
static bool put_visual(FILE *f, st_scene *s, char *bad_path, size_t bad_size)
{
    size_t n = st_scene_visual_models(s, NULL, 0);
    st_component **models = n ? st_calloc(n, sizeof *models) : NULL;
    if (!models)
        return true;
    n = st_scene_visual_models(s, models, n);
    bool finite = true;
    fputs(", \"visual\": [", f);
    for (size_t i = 0; i < n; i++) {
        char path[ST_ERROR_PATH_MAX];
        st_component_path(models[i], path, sizeof path);
        fputs(i ? ",\n {\"path\": " : "\n {\"path\": ", f);
        put_string(f, path);
        bool ok = put_field(f, models[i], "position");
        fputc('}', f);
        if (!ok && finite)
            snprintf(bad_path, bad_size, "%s", path);
        finite &= ok;
    }
    fputs("\n]", f);
    st_free(models);
    return finite;
}

/* A state that is not mechanical (the built-in MappedObject, SOFA's State
 * that is no MechanicalState): a component of the State category without
 * the state role, whose "template" names a state type and whose "position"
 * and "velocity" hold that type's coordinates and derivatives as flat
 * reals. Its type, or NULL for any other component. */
static const st_state_type *plain_state_type(const st_component *c)
{
    if (!c->cls->category || strcmp(c->cls->category, "State") != 0 ||
        st_component_has_role(c, ST_ROLE_STATE))
        return NULL;
    const st_field *t = st_component_field(c, "template");
    const st_field *x = st_component_field(c, "position");
    const st_field *v = st_component_field(c, "velocity");
    if (!t || t->type != ST_T_STRING || !x || x->type != ST_T_REALS || !v ||
        v->type != ST_T_REALS)
        return NULL;
    const char *name = *(char *const *)((const char *)c + t->offset);
    return st_state_type_find(name && name[0] ? name : "Vec3d");
}

/* Appends n's non-mechanical states (plain_state_type) and its subtree's,
 * in scene order, to the "objects" list; *count counts the entries. */
static bool put_plain_states(FILE *f, const st_node *n, size_t *count, char *bad_path,
                             size_t bad_size)
{
    bool finite = true;
    for (size_t i = 0; i < n->nobjects; i++) {
        const st_component *c = n->objects[i];
        const st_state_type *t = plain_state_type(c);
        if (!t)
            continue;
        const st_field *fx = st_component_field(c, "position"), *fv = st_component_field(c, "velocity");
        const st_array *x = (const st_array *)((const char *)c + fx->offset);
        const st_array *v = (const st_array *)((const char *)c + fv->offset);
        char path[ST_ERROR_PATH_MAX];
        st_component_path(c, path, sizeof path);
        fputs((*count)++ ? ",\n {\"path\": " : "\n {\"path\": ", f);
        put_string(f, path);
        fputs(",\n  \"position\": ", f);
        bool ok = put_tuples(f, x->r, x->n / t->coord_size, t->coord_size);
        fputs(",\n  \"velocity\": ", f);
        ok &= put_tuples(f, v->r, v->n / t->deriv_size, t->deriv_size);
        fputc('}', f);
        if (!ok && finite)
            snprintf(bad_path, bad_size, "%s", path);
        finite &= ok;
    }
    for (size_t i = 0; i < n->nchildren; i++)
        finite &= put_plain_states(f, n->children[i], count, bad_path, bad_size);
    return finite;
}

/* Writes the whole document; returns false when a value is not finite. */
static bool put_state(FILE *f, st_scene *s, st_mstate **states, size_t nstates,
                      unsigned long steps, char *bad_path, size_t bad_size)
{
    bool finite = true;
    fputs("{\"time\": ", f);
    if (!put_number(f, st_scene_time(s))) {
        finite = false;
        snprintf(bad_path, bad_size, "time");
    }
    fprintf(f, ", \"steps\": %lu, \"objects\": [", steps);
    for (size_t i = 0; i < nstates; i++) {
        const st_mstate *ms = states[i];
        char path[ST_ERROR_PATH_MAX];
        st_component_path(&ms->base, path, sizeof path);
        fputs(i ? ",\n {\"path\": " : "\n {\"path\": ", f);
        put_string(f, path);
        fputs(",\n  \"position\": ", f);
        const st_state_type *t = ms->type ? ms->type : &st_vec3d_type;
        bool ok = put_tuples(f, ms->position.r, ms->position.n, t->coord_size);
        fputs(",\n  \"velocity\": ", f);
        ok &= put_tuples(f, ms->velocity.r, ms->velocity.n, t->deriv_size);
        fputc('}', f);
        if (!ok && finite)
            snprintf(bad_path, bad_size, "%s", path);
        finite &= ok;
    }
    size_t count = nstates;
    char bad[ST_ERROR_PATH_MAX] = "";
    if (!put_plain_states(f, s->root, &count, bad, sizeof bad)) {
        if (finite)
            snprintf(bad_path, bad_size, "%s", bad);
        finite = false;
    }
    fputs(count ? "\n]" : "]", f);
    if (!put_visual(f, s, bad_path, bad_size))
        finite = false;
    put_topologies(f, s);
    if (!put_contacts(f, s) && finite) {
        finite = false;
        snprintf(bad_path, bad_size, "contacts");
    }
    fputs("}\n", f);
    return finite;
}

/* Opens a fresh temporary file next to path ("path.tmp-XXXXXX"), its name
 * written into tmp (also used by checkpoint.c); what names the file in the
 * messages ("cannot write WHAT 'path': reason"). */
st_status st__open_temp(const char *path, const char *what, char *tmp, size_t size, FILE **out,
                        st_error *err)
{
    *out = NULL;
    int k = snprintf(tmp, size, "%s.tmp-XXXXXX", path);
    if (k < 0 || (size_t)k >= size)
        return st_error_set(err, ST_EIO, "cannot write %s '%.300s%s': %s", what, path,
                            strlen(path) > 300 ? "..." : "", strerror(ENAMETOOLONG));
    int fd = mkstemp(tmp);
    if (fd >= 0) { /* mkstemp makes 0600: give the file an ordinary file's mode */
        mode_t mask = umask(0);
        umask(mask);
        (void)fchmod(fd, 0666 & ~mask);
    }
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        int e = errno;
        if (fd >= 0) {
            close(fd);
            unlink(tmp);
        }
        return st_error_set(err, ST_EIO, "cannot write %s '%s': %s", what, path, strerror(e));
    }
    *out = f;
    return ST_OK;
}

/* Whether path names something other than a regular file (a device such
 * as /dev/stdout, a FIFO): written in place, never replaced by a rename. */
static bool is_special(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && !S_ISREG(sb.st_mode);
}

st_status st_scene_export_prepare(const char *path, st_error *err)
{
    if (!path || !*path)
        return st_error_set(err, ST_EINVAL, "export: a file path is needed");
    struct stat sb;
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
        return st_error_set(err, ST_EIO, "cannot write state to '%s': it is a directory", path);
    if (is_special(path)) {
        if (access(path, W_OK) != 0)
            return st_error_set(err, ST_EIO, "cannot write state to '%s': %s", path,
                                strerror(errno));
        return ST_OK;
    }
    char tmp[PATH_MAX + 16];
    FILE *f;
    ST_TRY(st__open_temp(path, "state to", tmp, sizeof tmp, &f, err));
    fclose(f);
    unlink(tmp);
    if (unlink(path) != 0 && errno != ENOENT)
        return st_error_set(err, ST_EIO, "cannot remove the earlier export '%s': %s", path,
                            strerror(errno));
    return ST_OK;
}

st_status st_scene_export_state(st_scene *s, const char *path, unsigned long steps,
                                st_error *err)
{
    if (!s || !path || !*path)
        return st_error_set(err, ST_EINVAL, "export: a scene and a file path are needed");

    size_t nstates = st_scene_states(s, NULL, 0);
    st_mstate **states = NULL;
    if (nstates) {
        states = st_calloc(nstates, sizeof *states);
        if (!states)
            return st_error_set(err, ST_ENOMEM, "export: out of memory");
        nstates = st_scene_states(s, states, nstates);
    }

    /* Written to a temporary file renamed over path once complete: a
     * reader never sees half a file, and a failure leaves no new file. */
    char tmp[PATH_MAX + 16] = "";
    FILE *f = NULL;
    bool special = is_special(path);
    st_status st = ST_OK;
    if (special && !(f = fopen(path, "w")))
        st = st_error_set(err, ST_EIO, "cannot write state to '%s': %s", path, strerror(errno));
    else if (!special)
        st = st__open_temp(path, "state to", tmp, sizeof tmp, &f, err);
    if (st != ST_OK) {
        st_free(states);
        return st;
    }
    char bad[ST_ERROR_PATH_MAX] = "";
    bool finite = put_state(f, s, states, nstates, steps, bad, sizeof bad);
    st_free(states);

    bool werr = ferror(f) != 0;
    int e = errno;
    if (fclose(f) != 0 && !werr) {
        werr = true;
        e = errno;
    }
    if (!werr && !special && rename(tmp, path) != 0) {
        werr = true;
        e = errno;
    }
    if (werr) {
        if (!special)
            unlink(tmp);
        return st_error_set(err, ST_EIO, "cannot write state to '%s': %s", path, strerror(e));
    }
    if (!finite) {
        st_error_set(err, ST_ESOLVER,
                     "state contains non-finite values (NaN or infinity), written as null to '%s'",
                     path);
        if (strcmp(bad, "time") != 0)
            st_error_set_path(err, bad);
        return ST_ESOLVER;
    }
    return ST_OK;
}
