/* group_filter_young_modulus.c - GroupFilterYoungModulus: a Young modulus
 * per element from groups of elements, as SOFA's engine computes it.
 *
 * `groups` are a loader's PrimitiveGroup outputs (five strings per group:
 * groupName materialName materialId p0 nbp, e.g. "@loader.tetrahedraGroups").
 *   - groups given, groupModulus empty: mapGroupModulus is read as
 *     "name modulus;" items (only those ended by ';', as SOFA's tokenizer);
 *     youngModulus has max(#primitives, p0 + nbp of the named groups)
 *     values, defaultYoungModulus everywhere, then each named group's range
 *     [p0, p0 + nbp) its modulus (groups by increasing p0). An unknown name
 *     is SOFA's error "Group NAME not found", an item without a name or
 *     with a modulus <= 0 its "Error while parsing mapping" (both skipped).
 *   - groups given, groupModulus given: group i's nbp elements in turn get
 *     groupModulus[i] (defaultYoungModulus past its end); p0 is not read.
 *   - no groups, elementsGroup given: mapGroupModulus is read as
 *     "groupId modulus;" items, and element i gets the modulus of group
 *     elementsGroup[i] (0 for an id between listed ones, as SOFA's zeroed
 *     table; an id past the table, where SOFA reads out of bounds, gets
 *     defaultYoungModulus with a warning).
 *   - neither: youngModulus is left as it is. */
#include <stdlib.h>
#include <string.h>

#include "../shared/engine_util.h"

typedef struct group_filter_ym {
    st_component base;
    st_array groups;          /* "groups": 5 strings per group */
    st_array primitives;      /* "primitives" */
    st_array elements_group;  /* "elementsGroup" (ints stored as reals) */
    st_array young_modulus;   /* "youngModulus" (output) */
    char *map_group_modulus;  /* "mapGroupModulus" */
    double default_modulus;   /* "defaultYoungModulus" */
    st_array group_modulus;   /* "groupModulus" */
} group_filter_ym;

static const st_field gfym_fields[] = {
    ST_STRINGS(group_filter_ym, groups, "groups", NULL,
               "Groups (SOFA's PrimitiveGroup: groupName materialName materialId p0 nbp each, as "
               "a loader's trianglesGroups, tetrahedraGroups...)"),
    ST_UINTS(group_filter_ym, primitives, "primitives", NULL, "Vector of primitives (indices)"),
    ST_REALS(group_filter_ym, elements_group, "elementsGroup", NULL,
             "Vector of groups (each element gives its group"),
    ST_OUTPUT(group_filter_ym, young_modulus, "youngModulus", ST_T_REALS, st_array,
              "Vector of young modulus for each primitive"),
    ST_STRING(group_filter_ym, map_group_modulus, "mapGroupModulus", "",
              "Mapping between groups and modulus"),
    ST_REAL(group_filter_ym, default_modulus, "defaultYoungModulus", "10000",
            "Default value if the primitive is not in a group"),
    ST_REALS(group_filter_ym, group_modulus, "groupModulus", NULL,
             "list of young modulus for each group"),
    ST_FIELD_END};

/* One PrimitiveGroup read from the 5 strings at k. */
typedef struct pgroup {
    const char *name;
    long p0, nbp;
} pgroup;

static st_status read_group(group_filter_ym *e, size_t k, pgroup *g, st_error *err)
{
    char *const *s = e->groups.s + 5 * k;
    char *end0 = NULL, *end1 = NULL;
    g->name = s[0] ? s[0] : "";
    g->p0 = s[3] ? strtol(s[3], &end0, 10) : 0;
    g->nbp = s[4] ? strtol(s[4], &end1, 10) : 0;
    if (!s[3] || !s[4] || *end0 || *end1 || g->nbp < 0 || g->p0 < 0)
        return st_component_error(&e->base, "groups", err, ST_EINVAL,
                                  "group %zu: p0 and nbp must be integers >= 0, got '%s' '%s' "
                                  "(a group is 'groupName materialName materialId p0 nbp')",
                                  k, s[3] ? s[3] : "", s[4] ? s[4] : "");
    return ST_OK;
}

/* The next "a b;" item of the map: copies up to the ';' into item; false
 * when no ';' is left (SOFA's loop reads only items ended by one). */
static bool next_item(const char **p, char *item, size_t size)
{
    const char *semi = strchr(*p, ';');
    if (!semi)
        return false;
    size_t n = (size_t)(semi - *p);
    if (n >= size)
        n = size - 1;
    memcpy(item, *p, n);
    item[n] = 0;
    *p = semi + 1;
    return true;
}

static int cmp_p0(const void *a, const void *b)
{
    const long x = ((const pgroup *)a)->p0, y = ((const pgroup *)b)->p0;
    return (x > y) - (x < y);
}

static st_status by_group_names(group_filter_ym *e, size_t ng, st_error *err)
{
    pgroup *mapped = st_calloc(ng ? ng : 1, sizeof *mapped);
    double *ym = st_calloc(ng ? ng : 1, sizeof *ym);
    if (!mapped || !ym) {
        st_free(mapped), st_free(ym);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    size_t nm = 0;
    long max_size = (long)e->primitives.n;
    const char *p = e->map_group_modulus ? e->map_group_modulus : "";
    char item[1024];
    st_status st = ST_OK;
    while (st == ST_OK && next_item(&p, item, sizeof item)) {
        char name[512] = "";
        double y = 0.0;
        int got = sscanf(item, "%511s %lf", name, &y);
        if (got < 2 || !name[0] || !(y > 0)) {
            st_component_warn(&e->base, "Error while parsing mapping ('%s')", item);
            continue;
        }
        size_t k = 0;
        pgroup g = {0};
        for (; k < ng; k++) {
            st = read_group(e, k, &g, err);
            if (st != ST_OK || !strcmp(g.name, name))
                break;
        }
        if (st != ST_OK)
            break;
        if (k == ng) {
            st_component_warn(&e->base, "Group %s not found", name);
            continue;
        }
        /* SOFA's map keyed by group: one modulus per group, the last given */
        size_t j = 0;
        while (j < nm && strcmp(mapped[j].name, g.name))
            j++;
        mapped[j] = g;
        ym[j] = y;
        if (j == nm)
            nm++;
        if (max_size < g.p0 + g.nbp)
            max_size = g.p0 + g.nbp;
    }
    if (st == ST_OK)
        st = st_array_resize(&e->young_modulus, ST_T_REALS, (size_t)max_size, err);
    if (st == ST_OK) {
        for (long i = 0; i < max_size; i++)
            e->young_modulus.r[i] = e->default_modulus;
        /* in increasing p0, as SOFA's std::map<PrimitiveGroup, Real> */
        typedef struct pair { pgroup g; double y; } pair;
        pair *pr = st_calloc(nm ? nm : 1, sizeof *pr);
        if (!pr) {
            st = st_error_set(err, ST_ENOMEM, "out of memory");
        } else {
            for (size_t a = 0; a < nm; a++)
                pr[a].g = mapped[a], pr[a].y = ym[a];
            qsort(pr, nm, sizeof *pr, cmp_p0);
            for (size_t a = 0; a < nm; a++)
                for (long i = pr[a].g.p0; i < pr[a].g.p0 + pr[a].g.nbp; i++)
                    e->young_modulus.r[i] = pr[a].y;
            st_free(pr);
        }
    }
    st_free(mapped);
    st_free(ym);
    return st;
}

static st_status by_group_list(group_filter_ym *e, size_t ng, st_error *err)
{
    size_t total = 0;
    pgroup g;
    for (size_t k = 0; k < ng; k++) {
        ST_TRY(read_group(e, k, &g, err));
        total += (size_t)g.nbp;
    }
    ST_TRY(st_array_resize(&e->young_modulus, ST_T_REALS, total, err));
    size_t o = 0;
    for (size_t k = 0; k < ng; k++) {
        ST_TRY(read_group(e, k, &g, err));
        double y = k < e->group_modulus.n ? e->group_modulus.r[k] : e->default_modulus;
        for (long j = 0; j < g.nbp; j++)
            e->young_modulus.r[o++] = y;
    }
    return ST_OK;
}

static st_status by_element_groups(group_filter_ym *e, st_error *err)
{
    double *table = NULL;
    size_t nt = 0;
    const char *p = e->map_group_modulus ? e->map_group_modulus : "";
    char item[1024];
    while (next_item(&p, item, sizeof item)) {
        int gid = 0;
        double y = 0.0;
        if (sscanf(item, "%d %lf", &gid, &y) < 2 || gid < 0) {
            st_component_warn(&e->base, "Error while parsing mapping ('%s')", item);
            continue;
        }
        if ((size_t)gid >= nt) {
            double *t = st_realloc(table, ((size_t)gid + 1) * sizeof *t);
            if (!t) {
                st_free(table);
                return st_error_set(err, ST_ENOMEM, "out of memory");
            }
            for (size_t i = nt; i <= (size_t)gid; i++)
                t[i] = 0.0;
            table = t;
            nt = (size_t)gid + 1;
        }
        table[gid] = y;
    }
    st_status st = st_array_resize(&e->young_modulus, ST_T_REALS, e->elements_group.n, err);
    bool warned = false;
    for (size_t i = 0; st == ST_OK && i < e->elements_group.n; i++) {
        double g = e->elements_group.r[i];
        if (g >= 0 && g < (double)nt && g == (double)(size_t)g) {
            e->young_modulus.r[i] = table[(size_t)g];
        } else {
            if (!warned)
                st_component_warn(&e->base, "element %zu is in group %g, which mapGroupModulus "
                                            "does not list: defaultYoungModulus given",
                                  i, g);
            warned = true;
            e->young_modulus.r[i] = e->default_modulus;
        }
    }
    st_free(table);
    return st;
}

static st_status gfym_update(st_component *self, st_error *err)
{
    group_filter_ym *e = (group_filter_ym *)self;
    if (e->groups.n % 5)
        return st_component_error(self, "groups", err, ST_EINVAL,
                                  "%zu strings: a group is five (groupName materialName "
                                  "materialId p0 nbp)",
                                  e->groups.n);
    size_t ng = e->groups.n / 5;
    if (ng)
        return e->group_modulus.n ? by_group_list(e, ng, err) : by_group_names(e, ng, err);
    if (e->elements_group.n)
        return by_element_groups(e, err);
    return ST_OK;
}

static const st_engine_ops gfym_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = gfym_update,
};

static const char *const gfym_templates[] = {"Vec3d", NULL};

const st_class group_filter_young_modulus_class = {
    .struct_size = sizeof(st_class),
    .name = "GroupFilterYoungModulus",
    .category = "Engine",
    .description = "Engine defining a vector of young modulus according of a list of defined "
                   "groups.",
    .instance_size = sizeof(group_filter_ym),
    .fields = gfym_fields,
    .engine = &gfym_engine,
    .templates = gfym_templates,
};
