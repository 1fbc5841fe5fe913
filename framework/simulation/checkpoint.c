/* checkpoint.c - a scene's run state saved and restored bit-exact
 * (st_scene_checkpoint_write / _read; format in docs/results.md).
 *
 * A text header (format, versions, the scene's hash, steps, time) ends with
 * the line "end-header"; binary records follow, each
 *   u32 label length, label, u64 size, size bytes      (host byte order)
 * written and read in the same walk of the scene: the scene's counters,
 * every node's time and dt, the topologies that components follow (their
 * lists and every followed array, sized as the run left them), every
 * state's number of points (format 5), every system's vectors and scratch
 * vectors, every state's vectors, then the items of components with a
 * checkpoint role, then the array fields that read another component's
 * through a data link (format 4). Reading checks each label and size
 * against this scene, so a scene whose layout differs is refused naming
 * the first item that differs; after a topological change the followed
 * arrays take the saved sizes first, the states that follow no topology
 * take theirs (resized, or sized again by their mapping), and the systems
 * are rebuilt before their vectors are read. After reading, the mappings
 * are applied again at the restored state. Since format 2 a
 * checkpoint ends with the line "crc32c XXXXXXXX": the CRC-32C of every
 * byte before it, verified before anything is restored. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simulation/simulation.h"
#include "common/regular_file.h"

#define CK_MAGIC "settee checkpoint"
#define CK_FORMAT 5
#define CK_LABEL_MAX 4096

/* CRC-32C (Castagnoli, reflected polynomial 0x82f63b78) of n bytes, going
 * on from crc (0 to start). */
static uint32_t crc32c(uint32_t crc, const unsigned char *p, size_t n)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
            table[i] = c;
        }
    crc = ~crc;
    while (n--)
        crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return ~crc;
}

struct st_checkpoint {
    FILE *f;
    bool reading;
    const char *path;
    char prefix[ST_ERROR_PATH_MAX]; /* the component whose items are transferred */
    unsigned item;
};

bool st_checkpoint_reading(const st_checkpoint *ck)
{
    return ck && ck->reading;
}

/* One record: written, or read and checked against label and size. */
static st_status record(st_checkpoint *ck, const char *label, void *data, size_t size,
                        st_error *err)
{
    uint32_t len = (uint32_t)strlen(label);
    uint64_t n = size;
    if (!ck->reading) {
        fwrite(&len, sizeof len, 1, ck->f);
        fwrite(label, 1, len, ck->f);
        fwrite(&n, sizeof n, 1, ck->f);
        if (size)
            fwrite(data, 1, size, ck->f);
        return ST_OK;
    }
    char got[CK_LABEL_MAX + 1];
    uint32_t glen = 0;
    uint64_t gn = 0;
    if (fread(&glen, sizeof glen, 1, ck->f) != 1 || glen > CK_LABEL_MAX ||
        fread(got, 1, glen, ck->f) != glen)
        return st_error_set(err, ST_EINVAL,
                            "checkpoint '%s' is truncated or damaged before '%s'", ck->path,
                            label);
    got[glen] = 0;
    if (strcmp(got, label) != 0)
        return st_error_set(err, ST_EINVAL,
                            "checkpoint '%s' does not match this scene: it holds '%s' where this "
                            "scene has '%s'",
                            ck->path, got, label);
    if (fread(&gn, sizeof gn, 1, ck->f) != 1)
        return st_error_set(err, ST_EINVAL, "checkpoint '%s' is truncated at '%s'", ck->path,
                            label);
    if (gn != n)
        return st_error_set(err, ST_EINVAL,
                            "checkpoint '%s' does not match this scene: '%s' holds %" PRIu64
                            " bytes there, %zu here",
                            ck->path, label, gn, size);
    if (size && fread(data, 1, size, ck->f) != size)
        return st_error_set(err, ST_EINVAL, "checkpoint '%s' is truncated in '%s'", ck->path,
                            label);
    return ST_OK;
}

st_status st_checkpoint_data(st_checkpoint *ck, void *data, size_t size, st_error *err)
{
    if (!ck || (size && !data))
        return st_error_set(err, ST_EINVAL, "st_checkpoint_data: no checkpoint or no data");
    char label[ST_ERROR_PATH_MAX + 16];
    snprintf(label, sizeof label, "%s#%u", ck->prefix, ck->item++);
    return record(ck, label, data, size, err);
}

/* FNV-1a (64 bits) of n bytes: whether a restored array changed. */
static uint64_t bytes_hash(const void *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    const unsigned char *b = p;
    for (size_t i = 0; b && i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

static st_status vec(st_checkpoint *ck, const char *owner, const char *what, double *v,
                     size_t n, st_error *err)
{
    char label[ST_ERROR_PATH_MAX + 64];
    snprintf(label, sizeof label, "%s.%s", owner, what);
    return record(ck, label, v, v ? n * sizeof *v : 0, err);
}

static st_status walk_nodes(st_checkpoint *ck, st_node *n, st_error *err)
{
    char path[ST_ERROR_PATH_MAX + 8];
    st_node_path(n, path, sizeof path);
    double td[2] = {n->time, n->dt};
    ST_TRY(record(ck, path, td, sizeof td, err));
    n->time = td[0];
    n->dt = td[1];
    for (size_t i = 0; i < n->nchildren; i++)
        ST_TRY(walk_nodes(ck, n->children[i], err));
    return ST_OK;
}

static st_status walk_components(st_checkpoint *ck, st_node *n, st_error *err)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        const st_class *cls = c->cls;
        if (!ST_CLASS_HAS(cls, checkpoint) || !cls->checkpoint || !cls->checkpoint->transfer)
            continue;
        st_component_path(c, ck->prefix, sizeof ck->prefix);
        ck->item = 0;
        ST_TRY(cls->checkpoint->transfer(c, ck, err));
    }
    for (size_t i = 0; i < n->nchildren; i++)
        ST_TRY(walk_components(ck, n->children[i], err));
    return ST_OK;
}

/* A variable-length array: its count, then its bytes. Reading gives it the
 * saved count first (reallocated: the arrays are the owners' own memory). */
static st_status var_array(st_checkpoint *ck, const char *label, void **p, size_t *n,
                           size_t size, st_array *arr, st_error *err)
{
    char l[ST_ERROR_PATH_MAX + 96];
    uint64_t cnt = *n;
    snprintf(l, sizeof l, "%s.count", label);
    ST_TRY(record(ck, l, &cnt, sizeof cnt, err));
    if (ck->reading && cnt != *n) {
        /* Only arrays of the owners' own memory change size: a state's
         * vectors, borrowed by its system, are their own once a change
         * unbound the systems (walk_topologies). */
        if (cnt > SIZE_MAX / (size ? size : 1) || (arr && !arr->cap && arr->p))
            return st_error_set(err, ST_EINVAL,
                                "checkpoint '%s' does not match this scene: '%s' holds %" PRIu64
                                " items, %zu here",
                                ck->path, label, cnt, *n);
        if (cnt > SIZE_MAX / (size ? size : 1))
            return st_error_set(err, ST_EINVAL, "checkpoint '%s' is damaged at '%s'", ck->path,
                                label);
        void *q = st_realloc(*p, (cnt ? cnt : 1) * size);
        if (!q)
            return st_error_set(err, ST_ENOMEM, "checkpoint: out of memory");
        *p = q;
        *n = (size_t)cnt;
        if (arr)
            arr->cap = cnt ? (size_t)cnt : 1; /* owned: never taken for a borrowed array */
    }
    return record(ck, label, *p, (size_t)cnt * size, err);
}

/* Reading, a field restored to other values than init's (a topology the
 * saved run changed, or an array that follows it) is marked changed, as
 * the change marked it during the run: what copies it through a link (an
 * engine's input: BoxROI's triangles) takes the restored value, not the
 * scene's. */
static st_status field_array(st_checkpoint *ck, st_component *c, int k, st_error *err)
{
    const st_field *f = st__cinfo(c)->fields[k];
    size_t size = st__field_tuple_bytes(c, f);
    if (!size)
        return ST_OK;
    st_array *a = (st_array *)((char *)c + f->offset);
    char label[ST_ERROR_PATH_MAX + 64], path[ST_ERROR_PATH_MAX];
    snprintf(label, sizeof label, "%s.%s", st_component_path(c, path, sizeof path), f->name);
    size_t n0 = a->n;
    uint64_t h0 = ck->reading ? bytes_hash(a->p, a->n * size) : 0;
    ST_TRY(var_array(ck, label, &a->p, &a->n, size, a, err));
    /* Restored to other values than init's: its readers refresh. */
    if (ck->reading && (a->n != n0 || bytes_hash(a->p, a->n * size) != h0))
        st_component_touch(c, f);
    return ST_OK;
}

st_status st_checkpoint_field(st_checkpoint *ck, st_component *self, const char *field,
                              st_error *err)
{
    int k = ck && self && field ? st__component_field_index(self, field) : -1;
    if (k < 0)
        return st_error_set(err, ST_EINVAL, "st_checkpoint_field: no checkpoint, or %s has no "
                                            "field '%s'",
                            self ? self->cls->name : "(no component)", field ? field : "");
    const st_field *f = st__cinfo(self)->fields[k];
    size_t size = f->type == ST_T_STRINGS ? 0 : st__field_tuple_bytes(self, f);
    if (!size)
        return st_component_error(self, field, err, ST_EINVAL,
                                  "st_checkpoint_field: not an array of numbers");
    st_array *a = (st_array *)((char *)self + f->offset);
    if (ck->reading && !a->cap && a->p) { /* borrowed: made its own first */
        void *q = st_malloc((a->n ? a->n : 1) * size);
        if (!q)
            return st_error_set(err, ST_ENOMEM, "checkpoint: out of memory");
        memcpy(q, a->p, a->n * size);
        a->p = q;
        a->cap = a->n ? a->n : 1;
    }
    char label[ST_ERROR_PATH_MAX + 96];
    snprintf(label, sizeof label, "%s#%u.%s", ck->prefix, ck->item++, field);
    ST_TRY(var_array(ck, label, &a->p, &a->n, size, a, err));
    if (ck->reading)
        st_component_touch(self, f);
    return ST_OK;
}

static bool topology_seen(const st_scene *s, size_t upto, const st_component *t)
{
    for (size_t i = 0; i < upto; i++)
        if (s->topo_links[i].topology == t)
            return true;
    return false;
}

/* The scene's states, in scene order (free it), or NULL with err set. */
static st_mstate **all_states(st_scene *s, size_t *n, st_error *err)
{
    *n = st_scene_states(s, NULL, 0);
    st_mstate **states = st_calloc(*n ? *n : 1, sizeof *states);
    if (!states) {
        st_error_set(err, ST_ENOMEM, "checkpoint: out of memory");
        return NULL;
    }
    *n = st_scene_states(s, states, *n);
    return states;
}

/* The topologies components follow, and the followed arrays. */
static st_status walk_topologies(st_checkpoint *ck, st_scene *s, st_error *err)
{
    char path[ST_ERROR_PATH_MAX], label[ST_ERROR_PATH_MAX + 64];
    /* Revisions first: reading, a topology that changed during the saved
     * run means the systems are rebuilt around the restored sizes. */
    bool changed = false;
    for (size_t i = 0; i < s->ntopo_links; i++) {
        st_component *t = s->topo_links[i].topology;
        if (topology_seen(s, i, t))
            continue;
        st_cinfo *ci = st__cinfo(t);
        unsigned long rev = ci->topo_revision;
        snprintf(label, sizeof label, "%s.revision", st_component_path(t, path, sizeof path));
        ST_TRY(record(ck, label, &rev, sizeof rev, err));
        changed |= rev != ci->topo_revision;
        ci->topo_revision = rev;
    }
    if (ck->reading && changed && s->nsystems) {
        for (size_t i = 0; i < s->nsystems; i++)
            st__system_unbind(s->systems[i]);
        s->systems_stale = true;
    }
    for (size_t i = 0; i < s->ntopo_links; i++) {
        st_component *t = s->topo_links[i].topology;
        if (topology_seen(s, i, t))
            continue;
        const st_cinfo *ci = st__cinfo(t);
        for (size_t k = 0; k < ci->nfields; k++)
            ST_TRY(field_array(ck, t, (int)k, err));
        int nb = st__component_field_index(t, "nbPoints");
        if (nb >= 0 && ci->fields[nb]->type == ST_T_UINT) {
            unsigned *np = (unsigned *)((char *)t + ci->fields[nb]->offset), np0 = *np;
            snprintf(label, sizeof label, "%s.nbPoints", st_component_path(t, path, sizeof path));
            ST_TRY(record(ck, label, np, sizeof *np, err));
            if (ck->reading && *np != np0)
                st_component_touch(t, ci->fields[nb]);
        }
    }
    for (size_t i = 0; i < s->ntopo_links; i++) {
        st__topo_link *r = &s->topo_links[i];
        if (r->kind == ST__TOPO_ITEMS) {
            snprintf(label, sizeof label, "%s.items%zu",
                     st_component_path(r->owner, path, sizeof path), i);
            ST_TRY(var_array(ck, label, r->items, r->n, r->item_size, NULL, err));
        } else if (r->kind == ST__TOPO_FIELD || r->kind == ST__TOPO_SUBSET ||
                   r->kind == ST__TOPO_VERTICES) {
            ST_TRY(field_array(ck, r->owner, r->field, err));
        }
    }
    if (ck->reading && changed) {
        size_t n;
        st_mstate **states = all_states(s, &n, err);
        if (!states)
            return ST_ENOMEM;
        st_status st = ST_OK;
        for (size_t i = 0; i < n && st == ST_OK; i++) {
            st_mstate *ms = states[i];
            size_t before = ms->n;
            ms->n = ms->position.n;
            /* The components that size scratch by the state's points
             * (SPHFluidForceField, PlaneForceField's contacts) hear of it,
             * as of a resize: the restore sends no topology events. */
            if (ms->n != before)
                st = st__mstate_tell_resized(s, ms, before, err);
        }
        st_free(states);
        ST_TRY(st); /* the systems are rebuilt after the states' sizes (walk_points) */
    }
    return ST_OK;
}

/* Reading, after the states: the components that listen to a topology the
 * saved run changed hear of it once more, with no events (nev 0), so that
 * what they derive from the topology as it now is (bending springs built
 * from the edges, element lists read again, a collision model's elements,
 * sums over the elements) is what the interrupted run's last change left:
 * the followed arrays alone do not hold it. Listeners take the change as
 * the restored lists show it, as after a change during the run. */
static st_status relisten(st_scene *s, st_error *err)
{
    for (size_t i = 0; i < s->ntopo_links; i++) {
        st__topo_link r = s->topo_links[i];
        if (r.kind != ST__TOPO_LISTEN || !st__cinfo(r.topology)->topo_revision)
            continue;
        ST_TRY(r.fn(r.owner, r.topology, NULL, 0, err));
    }
    return ST_OK;
}

static st_status walk_states(st_checkpoint *ck, st_scene *s, st_error *err)
{
    size_t n;
    st_mstate **states = all_states(s, &n, err);
    if (!states)
        return ST_ENOMEM;
    st_status st = ST_OK;
    for (size_t i = 0; i < n && st == ST_OK; i++) {
        st_mstate *ms = states[i];
        const st_state_type *t = ms->type ? ms->type : &st_vec3d_type;
        char path[ST_ERROR_PATH_MAX];
        st_component_path(&ms->base, path, sizeof path);
        struct {
            const char *name;
            st_array *a;
            unsigned w;
        } items[] = {{"position", &ms->position, t->coord_size},
                     {"velocity", &ms->velocity, t->deriv_size},
                     {"force", &ms->force, t->deriv_size},
                     {"rest_position", &ms->rest_position, t->coord_size},
                     {"externalForce", &ms->external_force, t->deriv_size},
                     {"derivX", &ms->derivx, t->deriv_size}};
        for (size_t k = 0; k < sizeof items / sizeof *items && st == ST_OK; k++) {
            size_t bytes = items[k].a->n * items[k].w * sizeof(double);
            uint64_t h0 = ck->reading ? bytes_hash(items[k].a->r, bytes) : 0;
            st = vec(ck, path, items[k].name, items[k].a->r, items[k].a->n * items[k].w, err);
            /* The engines and links that read them refresh at the next
             * step: a system's positions and velocities as every step
             * leaves them marked (st__system_end_step; their memory may be
             * the system's, restored above), the others when restored to
             * other values than init's. A state outside the systems left
             * as init made it is not marked: a MechanicalObject whose
             * position reads it (position="@../grid.position") would take
             * it again. */
            const st_field *f = st_component_field(&ms->base, items[k].name);
            if (st == ST_OK && ck->reading && f &&
                ((k < 2 && ms->system) || bytes_hash(items[k].a->r, bytes) != h0))
                st_component_touch(&ms->base, f);
        }
        if (st == ST_OK) {
            char label[ST_ERROR_PATH_MAX + 32];
            snprintf(label, sizeof label, "%s.has_external_force", path);
            st = record(ck, label, &ms->has_external_force, sizeof ms->has_external_force, err);
        }
    }
    st_free(states);
    return st;
}

/* The mapping listeners of ms (a mechanical mapping whose output it is,
 * listening to a topology the saved run changed) hear of the change once
 * more, with no events: an IdentityMapping takes its input's restored size
 * again, as the change's events made it during the run. *mapping is the
 * last mapping that heard, or stays NULL. */
static st_status resize_mapped(st_scene *s, const st_mstate *ms, const st_component **mapping,
                               st_error *err)
{
    /* Listeners may register more links: iterate by index. */
    for (size_t i = 0; i < s->ntopo_links; i++) {
        st__topo_link r = s->topo_links[i];
        const st_class *cls = r.owner->cls;
        if (r.kind != ST__TOPO_LISTEN || !st__cinfo(r.topology)->topo_revision ||
            !st__class_has_role(cls, ST_ROLE_MAPPING) || !CLASS_HAS(cls, mapping) ||
            !cls->mapping->output || cls->mapping->output(r.owner) != ms)
            continue;
        *mapping = r.owner;
        ST_TRY(r.fn(r.owner, r.topology, NULL, 0, err));
    }
    return ST_OK;
}

/* Reading, a state that has not the saved number of points: resized (one
 * that can be resized without a topology: ParticleSource, ParticleSink),
 * or sized again by its mapping (the output of a mapping, which the saved
 * run's topological changes resized through it: the restore sends no
 * events). A state whose points follow a topology has its vectors, and
 * so its size, from the followed arrays (walk_topologies). A size that
 * still differs is refused naming the state. Its followers hear of a new
 * size, as of a resize. */
static st_status restore_points(st_checkpoint *ck, st_scene *s, st_mstate *ms, uint64_t np,
                                st_error *err)
{
    char path[ST_ERROR_PATH_MAX], mpath[ST_ERROR_PATH_MAX], why[ST_ERROR_PATH_MAX + 64];
    st_component_path(&ms->base, path, sizeof path);
    if (np > SIZE_MAX / 64)
        return st_error_set(err, ST_EINVAL, "checkpoint '%s': %s.points holds %llu points",
                            ck->path, path, (unsigned long long)np);
    if (st_mstate_can_resize(ms))
        return st_mstate_resize(ms, (size_t)np, err);
    size_t before = ms->n;
    const st_component *mapping = NULL;
    st__scene_unbind_systems(s);
    ST_TRY(resize_mapped(s, ms, &mapping, err));
    if (ms->position.n != np) {
        if (mapping)
            snprintf(why, sizeof why, "its mapping %s did not give it the saved size",
                     st_component_path(mapping, mpath, sizeof mpath));
        else
            snprintf(why, sizeof why, "no restored topology or mapping sizes it");
        return st_error_set(err, ST_EINVAL,
                            "checkpoint '%s' does not match this scene: state %s (%s) has "
                            "%" PRIu64 " points there, %zu here after the restore (%s)",
                            ck->path, path, ms->base.cls->name, np, ms->position.n, why);
    }
    ms->n = ms->position.n;
    return ms->n != before ? st__mstate_tell_resized(s, ms, before, err) : ST_OK;
}

/* The number of points of each state, before the systems: reading, a state
 * of another size takes the saved one (restore_points) and the systems are
 * rebuilt around the restored sizes before their vectors are read. */
static st_status walk_points(st_checkpoint *ck, st_scene *s, st_error *err)
{
    size_t n;
    st_mstate **states = all_states(s, &n, err);
    if (!states)
        return ST_ENOMEM;
    st_status st = ST_OK;
    for (size_t i = 0; i < n && st == ST_OK; i++) {
        st_mstate *ms = states[i];
        char path[ST_ERROR_PATH_MAX], label[ST_ERROR_PATH_MAX + 32];
        snprintf(label, sizeof label, "%s.points", st_component_path(&ms->base, path, sizeof path));
        uint64_t np = ms->position.n;
        st = record(ck, label, &np, sizeof np, err);
        if (st == ST_OK && ck->reading && np != ms->position.n)
            st = restore_points(ck, s, ms, np, err);
    }
    st_free(states);
    if (st == ST_OK && ck->reading && s->systems_stale)
        st = st__scene_refresh_systems(s, err);
    return st;
}

static st_status walk_systems(st_checkpoint *ck, st_scene *s, st_error *err)
{
    for (size_t k = 0; k < s->nsystems; k++) {
        st_system *sys = s->systems[k];
        char owner[ST_ERROR_PATH_MAX + 32], solver[ST_ERROR_PATH_MAX];
        snprintf(owner, sizeof owner, "system %zu (%s)", k,
                 sys->solver ? st_component_path(sys->solver, solver, sizeof solver) : "-");
        ST_TRY(vec(ck, owner, "x", sys->x, sys->xsize_all, err));
        ST_TRY(vec(ck, owner, "x0", sys->x0, sys->xsize_all, err));
        ST_TRY(vec(ck, owner, "v", sys->v, sys->size_all, err));
        ST_TRY(vec(ck, owner, "f", sys->f, sys->size_all, err));
        ST_TRY(vec(ck, owner, "fext", sys->fext, sys->size_all, err));
        ST_TRY(vec(ck, owner, "dx", sys->dx, sys->size_all, err));
        ST_TRY(vec(ck, owner, "df", sys->df, sys->size_all, err));
        size_t ns = st__system_nscratch(sys);
        for (size_t i = 0; i < ns; i++) {
            double *v = NULL;
            size_t len = st__system_scratch(sys, i, &v);
            char what[32];
            snprintf(what, sizeof what, "scratch%zu", i);
            ST_TRY(vec(ck, owner, what, v, len, err));
        }
    }
    return ST_OK;
}

/* The numeric array fields that read another component's through a data
 * link (indexPairs="@np.indexPairs"): the values their readers held, which
 * the engines upstream computed during the run from what the state was
 * then. Restored as they were, a mapping applied at the restored state
 * uses the list it used in the interrupted run, not the one its engine
 * computed at init; the engines refresh at the next step as they would
 * have. After the components' own items, whose sizes follow init's. */
static st_status walk_links(st_checkpoint *ck, st_node *n, st_error *err)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        const st_cinfo *ci = st__cinfo(c);
        if (!ci->has_links)
            continue;
        for (size_t k = 0; k < ci->nfields; k++)
            if (ci->fs[k].parent)
                ST_TRY(field_array(ck, c, (int)k, err));
    }
    for (size_t i = 0; i < n->nchildren; i++)
        ST_TRY(walk_links(ck, n->children[i], err));
    return ST_OK;
}

/* The whole walk, the same for writing and reading. */
static st_status transfer_all(st_checkpoint *ck, st_scene *s, st_error *err)
{
    ST_TRY(record(ck, "scene.steps", &s->steps, sizeof s->steps, err));
    ST_TRY(record(ck, "scene.step_dt", &s->step_dt, sizeof s->step_dt, err));
    ST_TRY(record(ck, "scene.dt_varied", &s->dt_varied, sizeof s->dt_varied, err));
    ST_TRY(walk_nodes(ck, s->root, err));
    ST_TRY(walk_topologies(ck, s, err));
    ST_TRY(walk_points(ck, s, err));
    ST_TRY(walk_systems(ck, s, err));
    ST_TRY(walk_states(ck, s, err));
    if (ck->reading)
        ST_TRY(relisten(s, err));
    ST_TRY(walk_components(ck, s->root, err));
    ST_TRY(walk_links(ck, s->root, err));
    return record(ck, "end", NULL, 0, err);
}

/* FNV-1a (64 bits) of the scene file's bytes, a NUL and tag. */
static uint64_t scene_hash(const st_scene *s, const char *tag)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    FILE *f = s->file && *s->file ? fopen(s->file, "rb") : NULL;
    if (f) {
        unsigned char buf[8192];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, f)) > 0)
            for (size_t i = 0; i < k; i++)
                h = (h ^ buf[i]) * 0x100000001b3ULL;
        fclose(f);
    }
    h = (h ^ 0) * 0x100000001b3ULL;
    for (const unsigned char *p = (const unsigned char *)(tag ? tag : ""); *p; p++)
        h = (h ^ *p) * 0x100000001b3ULL;
    return h;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "name=version,..." of the loaded plugins, sorted by name. */
static void plugin_list(const st_runtime *rt, char *out, size_t size)
{
    size_t n = st_runtime_plugin_count(rt);
    const char **names = st_calloc(n ? n : 1, sizeof *names);
    char *buf = st_calloc(n ? n : 1, 256);
    out[0] = 0;
    if (!names || !buf) {
        st_free(names);
        st_free(buf);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const st_plugin_info *pi = st_runtime_plugin(rt, i);
        snprintf(buf + 256 * i, 256, "%s=%s", pi->name, pi->version ? pi->version : "?");
        names[i] = buf + 256 * i;
    }
    qsort(names, n, sizeof *names, cmp_str);
    size_t len = 0;
    for (size_t i = 0; i < n && len < size; i++) {
        int k = snprintf(out + len, size - len, "%s%s", i ? "," : "", names[i]);
        if (k < 0)
            break;
        len += (size_t)k;
    }
    st_free(names);
    st_free(buf);
}

#define CK_LIST_MAX 8192

/* The options a run was made with (the tag: "dt=HEX;set=PATH=VALUE;...")
 * on one header line: backslashes and line breaks escaped. */
static void escape_options(const char *tag, char *out, size_t size)
{
    size_t k = 0;
    for (const char *p = tag ? tag : ""; *p && k + 3 < size; p++) {
        if (*p == '\\' || *p == '\n' || *p == '\r') {
            out[k++] = '\\';
            out[k++] = *p == '\n' ? 'n' : *p == '\r' ? 'r' : '\\';
        } else {
            out[k++] = *p;
        }
    }
    out[k] = 0;
}

/* The escaped options as a user wrote them: "--dt 0.01 --set A=1", or
 * "no --set and no --dt". */
static void render_options(const char *opts, char *out, size_t size)
{
    size_t k = 0;
    out[0] = 0;
    for (const char *p = opts; *p && k + 1 < size;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int w = 0;
        if (!strncmp(p, "dt=", 3)) {
            char num[64];
            snprintf(num, sizeof num, "%.*s", (int)(len - 3 < 63 ? len - 3 : 63), p + 3);
            w = snprintf(out + k, size - k, "%s--dt %.17g", k ? " " : "", strtod(num, NULL));
        } else if (!strncmp(p, "set=", 4)) {
            w = snprintf(out + k, size - k, "%s--set %.*s", k ? " " : "", (int)(len - 4), p + 4);
        }
        if (w < 0)
            break;
        k += (size_t)w < size - k ? (size_t)w : size - k - 1;
        p = end ? end + 1 : p + len;
    }
    if (!k)
        snprintf(out, size, "no --set and no --dt");
}

st_status st_scene_checkpoint_write(st_scene *s, const char *path, const char *tag,
                                    st_error *err)
{
    if (!s || !s->initialised || !path || !*path)
        return st_error_set(err, ST_EINVAL,
                            "checkpoint: an initialised scene and a file path are needed");
    char tmp[PATH_MAX + 16];
    FILE *f = NULL;
    ST_TRY(st__open_temp(path, "the checkpoint", tmp, sizeof tmp, &f, err));
    char *plugins = st_malloc(CK_LIST_MAX);
    if (!plugins) {
        fclose(f);
        unlink(tmp);
        return st_error_set(err, ST_ENOMEM, "checkpoint: out of memory");
    }
    plugin_list(s->rt, plugins, CK_LIST_MAX);
    char *opts = st_malloc(CK_LIST_MAX);
    if (opts)
        escape_options(tag, opts, CK_LIST_MAX);
    fprintf(f,
            CK_MAGIC "\nformat: %d\nsettee: %s\nabi: %d.%d\nscene: %s\nhash: %016" PRIx64
                     "\noptions: %s\nplugins: %s\nsteps: %lu\ntime: %.17g\nend-header\n",
            CK_FORMAT, ST_VERSION_STRING, ST_ABI_MAJOR, ST_ABI_MINOR, s->file ? s->file : "",
            scene_hash(s, tag), opts ? opts : "", plugins, s->steps, s->root->time);
    st_free(opts);
    st_free(plugins);
    st_checkpoint ck = {.f = f, .reading = false, .path = path};
    st_status st = transfer_all(&ck, s, err);
    bool werr = ferror(f) != 0;
    int e = errno;
    /* the checksum of what was written, read back from the file */
    if (st == ST_OK && !werr && fflush(f) == 0) {
        FILE *back = fopen(tmp, "rb");
        uint32_t crc = 0;
        unsigned char buf[65536];
        size_t k;
        while (back && (k = fread(buf, 1, sizeof buf, back)) > 0)
            crc = crc32c(crc, buf, k);
        if (!back || ferror(back)) {
            werr = true;
            e = back ? EIO : errno;
        }
        if (back)
            fclose(back);
        fprintf(f, "crc32c %08" PRIx32 "\n", crc);
    }
    if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
        werr = true;
        e = errno;
    }
    if (fclose(f) != 0 && !werr) {
        werr = true;
        e = errno;
    }
    if (st == ST_OK && !werr && rename(tmp, path) != 0) {
        werr = true;
        e = errno;
    }
    if (st != ST_OK || werr) {
        unlink(tmp);
        if (st == ST_OK)
            st = st_error_set(err, ST_EIO, "cannot write the checkpoint '%s': %s", path,
                              strerror(e));
    }
    return st;
}

/* Reads one "key: value" line of the header into val; false at a mismatch. */
static bool header_line(FILE *f, const char *key, char *val, size_t size)
{
    char line[CK_LIST_MAX + 64];
    if (!fgets(line, sizeof line, f))
        return false;
    line[strcspn(line, "\n")] = 0;
    size_t k = strlen(key);
    if (strncmp(line, key, k) != 0 || line[k] != ':' || line[k + 1] != ' ')
        return false;
    snprintf(val, size, "%s", line + k + 2);
    return true;
}

st_status st_scene_checkpoint_read(st_scene *s, const char *path, const char *tag,
                                   unsigned long *steps, st_error *err)
{
    if (!s || !s->initialised || !path || !*path)
        return st_error_set(err, ST_EINVAL,
                            "checkpoint: an initialised scene and a file path are needed");
    /* the whole file, a regular one, in memory: its checksum is verified
     * before anything is restored */
    bool not_regular;
    int fd = regular_open(path, &not_regular);
    if (fd >= 0)
        close(fd);
    if (not_regular)
        return st_error_set(err, ST_EINVAL, "'%s' is not a settee checkpoint: not a regular "
                                            "file (a directory, device or pipe)",
                            path);
    if (fd < 0)
        return st_error_set(err, ST_EIO, "cannot read the checkpoint '%s': %s", path,
                            strerror(errno));
    char *data = NULL;
    size_t size = 0;
    ST_TRY(st__read_file(path, &data, &size, err));
    FILE *f = fmemopen(data, size + 1, "rb"); /* + the NUL: fmemopen wants a size > 0 */
    if (!f) {
        st_free(data);
        return st_error_set(err, ST_ENOMEM, "checkpoint: out of memory");
    }
    char *val = st_malloc(CK_LIST_MAX + 64), *mine = st_malloc(CK_LIST_MAX);
    char line[64], scene[PATH_MAX + 64] = "";
    st_status st = ST_OK;
    if (!val || !mine) {
        st = st_error_set(err, ST_ENOMEM, "checkpoint: out of memory");
        goto done;
    }
    if (!fgets(line, sizeof line, f) || strcmp(line, CK_MAGIC "\n") != 0) {
        st = st_error_set(err, ST_EINVAL, "'%s' is not a settee checkpoint", path);
        goto done;
    }
    if (!header_line(f, "format", val, CK_LIST_MAX) || atoi(val) != CK_FORMAT) {
        st = st_error_set(err, ST_EINVAL,
                          "checkpoint '%s' has format %s; this settee reads format %d%s", path,
                          val, CK_FORMAT,
                          atoi(val) == 1 ? " (format 1 had no checksum): write it again with "
                                           "the settee that made it, or start the run afresh"
                                         : "");
        goto done;
    }
    {
        /* "crc32c XXXXXXXX\n" ends the file; nothing is read past it */
        const size_t tl = 16;
        unsigned long want = 0;
        char *end = NULL;
        bool have = size >= tl && !memcmp(data + size - tl, "crc32c ", 7) &&
                    data[size - 1] == '\n';
        if (have) {
            data[size - 1] = 0;
            want = strtoul(data + size - tl + 7, &end, 16);
            have = end == data + size - 1;
        }
        uint32_t got = have ? crc32c(0, (const unsigned char *)data, size - tl) : 0;
        if (!have || got != (uint32_t)want) {
            if (have)
                st = st_error_set(err, ST_EINVAL,
                                  "checkpoint '%s' is damaged: it records the CRC-32C %08lx, "
                                  "its bytes give %08lx; nothing was restored",
                                  path, want, (unsigned long)got);
            else
                st = st_error_set(err, ST_EINVAL,
                                  "checkpoint '%s' is damaged or cut short: it does not end "
                                  "with its checksum line; nothing was restored",
                                  path);
            goto done;
        }
    }
    if (!header_line(f, "settee", val, CK_LIST_MAX) || strcmp(val, ST_VERSION_STRING) != 0) {
        st = st_error_set(err, ST_EINVAL,
                          "checkpoint '%s' was written by settee %s; this is settee %s: "
                          "resuming could give other numbers",
                          path, val, ST_VERSION_STRING);
        goto done;
    }
    if (!header_line(f, "abi", val, CK_LIST_MAX) ||
        !header_line(f, "scene", scene, sizeof scene) ||
        !header_line(f, "hash", val, CK_LIST_MAX)) {
        st = st_error_set(err, ST_EINVAL, "checkpoint '%s': damaged header", path);
        goto done;
    }
    char want[32], hash[32];
    snprintf(want, sizeof want, "%016" PRIx64, scene_hash(s, tag));
    snprintf(hash, sizeof hash, "%s", val);
    if (!header_line(f, "options", val, CK_LIST_MAX)) {
        st = st_error_set(err, ST_EINVAL, "checkpoint '%s': damaged header", path);
        goto done;
    }
    if (strcmp(hash, want) != 0) {
        escape_options(tag, mine, CK_LIST_MAX);
        if (strcmp(val, mine) != 0) {
            char *had = st_malloc(CK_LIST_MAX), *now = st_malloc(CK_LIST_MAX);
            if (had && now) {
                render_options(val, had, CK_LIST_MAX);
                render_options(mine, now, CK_LIST_MAX);
            }
            st = st_error_set(err, ST_EINVAL,
                              "checkpoint '%s' was written with other options: %s; this run "
                              "has %s. Resume it with the options it was written with",
                              path, had ? had : val, now ? now : mine);
            st_free(had);
            st_free(now);
        } else {
            st = st_error_set(err, ST_EINVAL,
                              "checkpoint '%s' was written for another scene file: '%s' (hash "
                              "%s), not '%s' as it is now (hash %s); resume it with the scene "
                              "file it was written with",
                              path, scene, hash, s->file ? s->file : "", want);
        }
        goto done;
    }
    if (!header_line(f, "plugins", val, CK_LIST_MAX)) {
        st = st_error_set(err, ST_EINVAL, "checkpoint '%s': damaged header", path);
        goto done;
    }
    plugin_list(s->rt, mine, CK_LIST_MAX);
    if (strcmp(val, mine) != 0) {
        st = st_error_set(err, ST_EINVAL,
                          "checkpoint '%s' was written with other plugins or plugin versions "
                          "(%s); this run has %s",
                          path, val, mine);
        goto done;
    }
    if (!header_line(f, "steps", val, CK_LIST_MAX) ||
        !header_line(f, "time", val, CK_LIST_MAX) || !fgets(val, CK_LIST_MAX, f) ||
        strcmp(val, "end-header\n") != 0) {
        st = st_error_set(err, ST_EINVAL, "checkpoint '%s': damaged header", path);
        goto done;
    }
    st_checkpoint ck = {.f = f, .reading = true, .path = path};
    st = transfer_all(&ck, s, err);
    if (st == ST_OK)
        for (size_t i = 0; i < s->nsystems; i++) {
            st_system_propagate_x(s->systems[i], s->systems[i]->x);
            st_system_propagate_v(s->systems[i], s->systems[i]->v);
        }
    if (st == ST_OK && steps)
        *steps = s->steps;
done:
    st_free(val);
    st_free(mine);
    fclose(f);
    st_free(data);
    return st;
}
