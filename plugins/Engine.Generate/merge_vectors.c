/* merge_vectors.c - MergeVectors: output = input1, then input2, ... up to
 * input<nbInputs>, one after the other. SOFA instantiates it for scalar and
 * tuple vectors; settee's holds scalars (SOFA's default, vector<SReal>, and
 * its int and bool variants): a link from a list of points or of elements
 * takes, as SOFA's data links do, the first value of each. SOFA creates the
 * inputs input1..inputN when it reads nbInputs; settee's field table is
 * static, so a MergeVectors takes at most 8 inputs (more is an error). */
#include <string.h>

#include "../shared/engine_util.h"

#define MV_MAX 8

typedef struct merge_vectors {
    st_component base;
    char *template_name; /* "template" */
    unsigned nb_inputs;
    st_array input[MV_MAX]; /* real[] each */
    st_array output;        /* real[] */
} merge_vectors;

#define MV_IN(i)                                                                                  \
    ST_REALS(merge_vectors, input[i - 1], "input" #i, NULL, "Input vector " #i)

static const st_field merge_vectors_fields[] = {
    ST_STRING(merge_vectors, template_name, "template", "Data<double>",
              "The type of the values: Data<double> (also Data<float>, Data<int>, Data<bool>, "
              "vector<...> of the same); settee has no tuple variants (Vec2, Vec3, Rigid)"),
    ST_FIELD_EX(merge_vectors, nb_inputs, "nbInputs", ST_T_UINT, unsigned, "2",
                "Number of input vectors (at most 8 in settee)", 0, NULL, 0, MV_MAX),
    MV_IN(1), MV_IN(2), MV_IN(3), MV_IN(4), MV_IN(5), MV_IN(6), MV_IN(7), MV_IN(8),
    ST_OUTPUT(merge_vectors, output, "output", ST_T_REALS, st_array, "Output vector"),
    ST_FIELD_END};

/* A scalar value type: "Data<double>", "vector<int>", "double"... */
static bool scalar_template(const char *t)
{
    static const char *const scalars[] = {"double", "float", "SReal", "int",
                                          "unsigned int", "bool", NULL};
    const char *lt = strchr(t, '<');
    const char *inner = lt ? lt + 1 : t;
    size_t len = lt ? strcspn(inner, ">") : strlen(t);
    if (lt && inner[len] != '>')
        return false;
    for (const char *const *s = scalars; *s; s++)
        if (strlen(*s) == len && !strncmp(inner, *s, len))
            return true;
    return false;
}

static st_status merge_vectors_init(st_component *self, st_error *err)
{
    merge_vectors *m = (merge_vectors *)self;
    if (m->template_name && m->template_name[0] && !scalar_template(m->template_name))
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "template '%s' is not supported: settee's MergeVectors merges "
                                  "scalar vectors (Data<double>, Data<int>, Data<bool>)",
                                  m->template_name);
    for (unsigned i = m->nb_inputs; i < MV_MAX; i++) {
        char name[16];
        snprintf(name, sizeof name, "input%u", i + 1);
        if (st_component_is_set(self, name))
            st_component_warn(self, "%s is set but nbInputs is %u: it is not merged", name,
                              m->nb_inputs);
    }
    return ST_OK;
}

static st_status merge_vectors_update(st_component *self, st_error *err)
{
    merge_vectors *m = (merge_vectors *)self;
    size_t total = 0;
    for (unsigned i = 0; i < m->nb_inputs; i++)
        total += m->input[i].n;
    ST_TRY(st_array_resize(&m->output, ST_T_REALS, total, err));
    size_t at = 0;
    for (unsigned i = 0; i < m->nb_inputs; i++) {
        if (m->input[i].n)
            memcpy(m->output.r + at, m->input[i].r, m->input[i].n * sizeof(double));
        at += m->input[i].n;
    }
    return ST_OK;
}

static const st_engine_ops merge_vectors_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = merge_vectors_update,
};

const st_class merge_vectors_class = {
    .struct_size = sizeof(st_class),
    .name = "MergeVectors",
    .category = "Engine",
    .description = "Apply a merge operation to combine several inputs",
    .instance_size = sizeof(merge_vectors),
    .fields = merge_vectors_fields,
    .init = merge_vectors_init,
    .reinit = merge_vectors_init,
    .engine = &merge_vectors_engine,
};
