/* square_mapping.c - SquareMapping (Vec1d to Vec1d): y_i = x_i^2, one output
 * per input value, so J = diag(2 x_i) and the geometric stiffness
 * K = d(J^T f)/dx = diag(2 f_i) for the child force f. SOFA offers only
 * "None" and "Exact" here (no "Stabilized"), default Exact. The output is
 * sized to the input at init. */
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/options.h"

typedef struct square_map {
    map_head h;
    char *geometric_stiffness; /* "geometricStiffness": None, Exact */
    /* Set at init. */
    bool gs;                   /* Exact */
    size_t n;                  /* input (and output) values */
    double *x2;                /* n: 2 x_i at the last apply (J's diagonal) */
    double *f2;                /* n: 2 f_i at the last update_k (K's diagonal) */
} square_map;

static const char *const gs_names[] = {"None", "Exact", NULL};
static const st_option_field square_options[] = {{"geometricStiffness", gs_names}, {NULL, NULL}};
static const char *const square_templates[] = {"Vec1d", NULL};

static void square_free(square_map *m)
{
    st_free(m->x2);
    st_free(m->f2);
    m->x2 = m->f2 = NULL;
    m->n = 0;
}

static void square_cleanup(st_component *self)
{
    square_free((square_map *)self);
    map_head_release(&((square_map *)self)->h);
}

static void square_apply_x(square_map *m, const double *xin, double *xout)
{
    for (size_t i = 0; i < m->n; i++) {
        xout[i] = xin[i] * xin[i];
        m->x2[i] = 2 * xin[i];
    }
}

static void square_apply_v(const square_map *m, const double *vin, double *vout)
{
    for (size_t i = 0; i < m->n; i++)
        vout[i] = m->x2[i] * vin[i];
}

static void init_apply(st_component *self, const double *xin, double *xout)
{
    square_apply_x((square_map *)self, xin, xout);
}

static void init_apply_j(st_component *self, const double *vin, double *vout)
{
    square_apply_v((square_map *)self, vin, vout);
}

static st_status square_init(st_component *self, st_error *err)
{
    square_map *m = (square_map *)self;
    self->state = ST_CSTATE_INVALID;
    square_free(m);
    ST_TRY(st_options_check(self, square_options, err));
    m->gs = strcmp(m->geometric_stiffness, "Exact") == 0;
    ST_TRY(map_head_bind(&m->h, &st_vec1d_type, &st_vec1d_type, err));
    const size_t n = m->h.in->position.n;
    m->x2 = st_calloc(n ? n : 1, sizeof *m->x2);
    m->f2 = st_calloc(n ? n : 1, sizeof *m->f2);
    if (!m->x2 || !m->f2) {
        square_free(m);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu values)", n);
    }
    m->n = n;
    if (m->h.out->position.n != n)
        ST_TRY(map_resize_output(m->h.out, n, err));
    ST_TRY(map_init_outputs(&m->h, init_apply, init_apply_j, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static bool ready(const square_map *m)
{
    return m->h.base.state == ST_CSTATE_VALID && m->h.out && m->h.out->n == m->n &&
           m->h.in->n == m->n;
}

static void square_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    square_map *m = (square_map *)self;
    if (ready(m)) {
        square_apply_x(m, st_slice_x(x, m->h.in), map_head_xout(&m->h, x));
        map_head_touch_visual(&m->h);
    }
}

static void square_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    square_map *m = (square_map *)self;
    if (ready(m))
        square_apply_v(m, st_slice(v, m->h.in), st_slice(v, m->h.out));
}

static void square_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    square_map *m = (square_map *)self;
    if (!ready(m))
        return;
    double *fin = st_slice(f, m->h.in);
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->n; i++)
        fin[i] += m->x2[i] * fout[i];
}

static void square_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    square_map *m = (square_map *)self;
    if (!ready(m))
        return;
    for (size_t i = 0; i < m->n; i++)
        st_jbuilder_add(jb, i, m->h.in, i, &m->x2[i]);
}

static void square_update_k(st_component *self, const st_mparams *mp, const double *f)
{
    (void)mp;
    square_map *m = (square_map *)self;
    if (!ready(m))
        return;
    const double *fout = st_slice(f, m->h.out);
    for (size_t i = 0; i < m->n; i++)
        m->f2[i] = m->gs ? 2 * fout[i] : 0.0;
}

static void square_apply_djt(st_component *self, const st_mparams *mp, double *df,
                             const double *dx, double kfactor)
{
    (void)mp;
    square_map *m = (square_map *)self;
    if (!ready(m) || !m->gs)
        return;
    double *dfi = st_slice(df, m->h.in);
    const double *dxi = st_slice(dx, m->h.in);
    for (size_t i = 0; i < m->n; i++)
        dfi[i] += kfactor * m->f2[i] * dxi[i];
}

static void square_get_k(st_component *self, const st_mparams *mp, st_matrix *mat, double kfactor)
{
    (void)mp;
    square_map *m = (square_map *)self;
    if (!ready(m) || !m->gs)
        return;
    for (size_t i = 0; i < m->n; i++)
        st_matrix_add_diag(mat, m->h.in, i, kfactor * m->f2[i]);
}

static const st_mapping_ops square_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = square_apply,
    .apply_j = square_apply_j,
    .apply_jt = square_apply_jt,
    .get_j = square_get_j,
    .update_k = square_update_k,
    .apply_djt = square_apply_djt,
    .get_k = square_get_k,
    .flags = map_head_flags,
};

static const st_field square_fields[] = {
    MAP_HEAD_FIELDS(square_map),
    ST_STRING(square_map, geometric_stiffness, "geometricStiffness", "Exact",
              "Method used to compute the geometric stiffness:\n-None: geometric stiffness is "
              "not computed\n-Exact: the exact geometric stiffness is computed"),
    ST_FIELD_END};

const st_class square_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SquareMapping",
    .category = "Mapping",
    .description = "Compute the square value from the inputs",
    .instance_size = sizeof(square_map),
    .fields = square_fields,
    .init = square_init,
    .reinit = square_init,
    .cleanup = square_cleanup,
    .mapping = &square_ops,
    .templates = square_templates,
};
