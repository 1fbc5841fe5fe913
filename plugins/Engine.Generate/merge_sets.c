/* merge_sets.c - MergeSets: out = in1 op in2 as sets (sorted, without
 * repeats), as SOFA's: op is read by its first letter, u (union, also when
 * empty), i (intersection), d (difference in1 \ in2), s (symmetric
 * difference); any other letter gives an empty set (SOFA's switch). SOFA's
 * templates int (the default) and unsigned int hold indices here. */
#include <stdlib.h>
#include <string.h>

#include <settee/settee.h>

typedef struct merge_sets {
    st_component base;
    char *template_name; /* "template" */
    st_array in1, in2;   /* uint[] */
    st_array out;        /* output uint[] */
    char *op;
} merge_sets;

static const st_field merge_sets_fields[] = {
    ST_STRING(merge_sets, template_name, "template", "int",
              "The index type: int or unsigned int (both indices here)"),
    ST_UINTS(merge_sets, in1, "in1", NULL, "first set of indices"),
    ST_UINTS(merge_sets, in2, "in2", NULL, "second set of indices"),
    ST_OUTPUT(merge_sets, out, "out", ST_T_UINTS, st_array, "merged set of indices"),
    ST_STRING(merge_sets, op, "op", "union",
              "name of operation to compute (union, intersection, difference, "
              "symmetric_difference)"),
    ST_FIELD_END};

static int cmp_uint(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* Sorts a copy of a and drops repeats; *n is the set's size. */
static unsigned *as_set(const st_array *a, size_t *n)
{
    unsigned *s = malloc((a->n + 1) * sizeof *s);
    if (!s)
        return NULL;
    if (a->n)
        memcpy(s, a->u, a->n * sizeof *s);
    qsort(s, a->n, sizeof *s, cmp_uint);
    size_t m = 0;
    for (size_t i = 0; i < a->n; i++)
        if (m == 0 || s[m - 1] != s[i])
            s[m++] = s[i];
    *n = m;
    return s;
}

static st_status merge_sets_update(st_component *self, st_error *err)
{
    merge_sets *e = (merge_sets *)self;
    char op = e->op && e->op[0] ? e->op[0] : 'u';
    size_t n1, n2;
    unsigned *a = as_set(&e->in1, &n1), *b = as_set(&e->in2, &n2);
    st_status s = a && b ? st_array_resize(&e->out, ST_T_UINTS, n1 + n2, err)
                         : st_error_set(err, ST_ENOMEM, "out of memory for the sets");
    size_t i = 0, j = 0, m = 0;
    /* Keep a's elements (in_a), b's (in_b) and the common ones (both)
     * according to op, walking the two sorted sets together. */
    bool in_a = false, in_b = false, both = false;
    switch (op) {
    case 'u': case 'U': in_a = in_b = both = true; break;
    case 'i': case 'I': both = true; break;
    case 'd': case 'D': in_a = true; break;
    case 's': case 'S': in_a = in_b = true; break;
    default: break;
    }
    while (s == ST_OK && (i < n1 || j < n2)) {
        if (j >= n2 || (i < n1 && a[i] < b[j])) {
            if (in_a)
                e->out.u[m++] = a[i];
            i++;
        } else if (i >= n1 || b[j] < a[i]) {
            if (in_b)
                e->out.u[m++] = b[j];
            j++;
        } else {
            if (both)
                e->out.u[m++] = a[i];
            i++, j++;
        }
    }
    free(a), free(b);
    ST_TRY(s);
    return st_array_resize(&e->out, ST_T_UINTS, m, err);
}

static const st_engine_ops merge_sets_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = merge_sets_update,
};

const st_class merge_sets_class = {
    .struct_size = sizeof(st_class),
    .name = "MergeSets",
    .category = "Engine",
    .description = "Merge two sets of indices using specified boolean operation.",
    .instance_size = sizeof(merge_sets),
    .fields = merge_sets_fields,
    .engine = &merge_sets_engine,
};
