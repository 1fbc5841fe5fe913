/* math_op.c - MathOp: output[i] = input1[i] op input2[i] op ... for i up to
 * the shortest input, as SOFA's MathOp<vector<SReal>> (its default
 * template): op is one of "+", "-", "*", "/", "<" (minimum), ">" (maximum),
 * applied from the left; with one input, "-" negates and "/" inverts.
 * SOFA creates input1..input<nbInputs> when it reads nbInputs; settee's
 * field table is static, so a MathOp takes at most 8 inputs (more is an
 * error). SOFA's other templates (vector<int>, vector<bool>, Vec2/Vec3 and
 * Rigid vectors) are refused by name: their operations differ. */
#include <stdio.h>
#include <string.h>

#include "../shared/engine_util.h"

#define MO_MAX 8

typedef struct math_op {
    st_component base;
    char *template_name; /* "template" */
    unsigned nb_inputs;
    char *op;
    st_array input[MO_MAX]; /* real[] each */
    st_array output;        /* real[] */
} math_op;

#define MO_IN(i) ST_REALS(math_op, input[i - 1], "input" #i, NULL, "input" #i)

static const st_field math_op_fields[] = {
    ST_STRING(math_op, template_name, "template", "vector<double>",
              "The type of the values: vector<double> (also vector<float>, vector<SReal>); "
              "settee has no int, bool or tuple variants"),
    ST_FIELD_EX(math_op, nb_inputs, "nbInputs", ST_T_UINT, unsigned, "2",
                "Number of input values (at most 8 in settee)", 0, NULL, 0, MO_MAX),
    ST_STRING(math_op, op, "op", "+",
              "Selected operation to apply: + - * / < (minimum) > (maximum)"),
    MO_IN(1), MO_IN(2), MO_IN(3), MO_IN(4), MO_IN(5), MO_IN(6), MO_IN(7), MO_IN(8),
    ST_OUTPUT(math_op, output, "output", ST_T_REALS, st_array, "Output values"),
    ST_FIELD_END};

static const char *const math_op_names[] = {"+", "-", "*", "/", "<", ">", NULL};

static int op_index(const char *op)
{
    for (int i = 0; math_op_names[i]; i++)
        if (!strcmp(op, math_op_names[i]))
            return i;
    return -1;
}

static st_status math_op_init(st_component *self, st_error *err)
{
    math_op *m = (math_op *)self;
    static const char *const reals[] = {"vector<double>", "vector<float>", "vector<SReal>",
                                        "double", "float", "SReal", NULL};
    bool ok = !m->template_name || !m->template_name[0];
    for (const char *const *t = reals; !ok && *t; t++)
        ok = !strcmp(m->template_name, *t);
    if (!ok)
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "template '%s' is not supported: settee's MathOp combines "
                                  "real values (vector<double>)",
                                  m->template_name);
    if (op_index(m->op ? m->op : "") < 0)
        return st_component_error(self, "op", err, ST_ESCENE,
                                  "unknown operation '%s': expected one of + - * / < >",
                                  m->op ? m->op : "");
    eng_warn_unused_inputs(self, "input", m->nb_inputs, MO_MAX, "nbInputs");
    return ST_OK;
}

static double apply(int op, const math_op *m, size_t i)
{
    double o = m->input[0].r[i];
    if (m->nb_inputs == 1 && op == 1)
        return -o;
    if (m->nb_inputs == 1 && op == 3)
        return 1.0 / o;
    for (unsigned k = 1; k < m->nb_inputs; k++) {
        double v = m->input[k].r[i];
        switch (op) {
        case 0: o += v; break;
        case 1: o -= v; break;
        case 2: o *= v; break;
        case 3: o /= v; break;
        case 4: o = v < o ? v : o; break;
        default: o = v > o ? v : o; break;
        }
    }
    return o;
}

static st_status math_op_update(st_component *self, st_error *err)
{
    math_op *m = (math_op *)self;
    size_t n = 0;
    if (m->nb_inputs > 0) {
        n = m->input[0].n;
        for (unsigned k = 1; k < m->nb_inputs; k++)
            if (m->input[k].n < n)
                n = m->input[k].n;
    }
    int op = op_index(m->op ? m->op : "");
    if (op < 0)
        return st_component_error(self, "op", err, ST_ESCENE, "unknown operation '%s'", m->op);
    ST_TRY(st_array_resize(&m->output, ST_T_REALS, n, err));
    for (size_t i = 0; i < n; i++)
        m->output.r[i] = apply(op, m, i);
    return ST_OK;
}

static const st_engine_ops math_op_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = math_op_update,
};

const st_class math_op_class = {
    .struct_size = sizeof(st_class),
    .name = "MathOp",
    .category = "Engine",
    .description = "Apply a math operation to combine several inputs.",
    .instance_size = sizeof(math_op),
    .fields = math_op_fields,
    .init = math_op_init,
    .reinit = math_op_init,
    .engine = &math_op_engine,
};
