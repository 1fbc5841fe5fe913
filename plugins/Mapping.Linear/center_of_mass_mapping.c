/* center_of_mass_mapping.c - CenterOfMassMapping (Rigid3d to Vec3d): the
 * output's first point is the centre of mass of the input frames,
 *   x = sum_i m_i c_i / M,   v = sum_i m_i v_i / M,   f_i += (m_i / M) f
 * (J_i = [ (m_i / M) I  0 ]: the frames' rotations do not move it), with m_i
 * the mass of frame i given by the mass of the input's node (SOFA's
 * getContext()->getMass()) and M their sum. The masses are read from that
 * component's vertexMass after it initialised (UniformMass: the mass of
 * every point; DiagonalMass: each point's), at the first apply; another
 * mass class is refused at init. Only the first output point is mapped
 * (SOFA writes childPositions[0]); the others keep their values.
 *
 * Deviation from SOFA, on purpose: without a mass (or with a total of 0)
 * SOFA logs an error at every apply and maps nothing; settee refuses the
 * scene at init (no mass) or at the first step (a total of 0 cannot be
 * known before the mass initialised: the point then stays, with a warning). */
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef struct center_of_mass_mapping {
    map_head h;
    /* Set at init. */
    st_component *mass;  /* the input node's mass */
    bool diagonal;       /* a DiagonalMass (else UniformMass) */
    size_t nin;
    double *m;           /* nin masses, read at the first apply */
    double total;
    bool masses_read;
} com_mapping;

static const st_field com_fields[] = {MAP_HEAD_FIELDS(com_mapping), ST_FIELD_END};

/* The masses from the mass component's vertexMass (after its init). */
static void com_read_masses(com_mapping *c)
{
    c->masses_read = true;
    c->total = 0.0;
    const st_field *f = st_component_field(c->mass, "vertexMass");
    if (!f)
        return;
    const void *p = st_component_field_ptr(c->mass, f);
    for (size_t i = 0; i < c->nin; i++) {
        double mi = 0.0;
        if (c->diagonal) {
            const st_array *a = p;
            /* Rigid3d DiagonalMass: 11 values per point (mass first) */
            size_t given = a->n / 11;
            if (given)
                mi = a->r[11 * (i < given ? i : given - 1)];
        } else {
            mi = ((const st_mass_value *)p)->mass;
        }
        c->m[i] = mi;
        c->total += mi;
    }
    if (c->total == 0.0)
        st_component_warn(&c->h.base, "the masses of '%s' sum to 0: no centre of mass, the "
                                      "output is not mapped",
                          c->mass->name);
}

static bool com_ready(com_mapping *c)
{
    if (c->h.base.state != ST_CSTATE_VALID || !c->h.out || c->h.out->n == 0 ||
        c->h.in->n != c->nin)
        return false;
    if (!c->masses_read)
        com_read_masses(c);
    return c->total != 0.0;
}

static void com_apply_point(const com_mapping *c, const double *xin, double *xout)
{
    double s[3] = {0, 0, 0};
    for (size_t i = 0; i < c->nin; i++)
        for (int k = 0; k < 3; k++)
            s[k] += xin[7 * i + k] * c->m[i];
    for (int k = 0; k < 3; k++)
        xout[k] = s[k] / c->total;
}

static void com_apply_j_point(const com_mapping *c, const double *vin, double *vout)
{
    double s[3] = {0, 0, 0};
    for (size_t i = 0; i < c->nin; i++)
        for (int k = 0; k < 3; k++)
            s[k] += vin[6 * i + k] * c->m[i];
    for (int k = 0; k < 3; k++)
        vout[k] = s[k] / c->total;
}

static void com_init_apply(st_component *self, const double *xin, double *xout)
{
    com_apply_point((const com_mapping *)self, xin, xout);
}

static void com_init_apply_j(st_component *self, const double *vin, double *vout)
{
    com_apply_j_point((const com_mapping *)self, vin, vout);
}

static void com_free(com_mapping *c)
{
    st_free(c->m);
    c->m = NULL;
    c->nin = 0;
    c->masses_read = false;
}

static st_status com_init(st_component *self, st_error *err)
{
    com_mapping *c = (com_mapping *)self;
    self->state = ST_CSTATE_INVALID;
    com_free(c);
    ST_TRY(map_head_bind(&c->h, &st_rigid3d_type, &st_vec3d_type, err));
    c->mass = st_node_find(c->h.in->base.node, ST_ROLE_MASS, ST_SEARCH_LOCAL);
    if (!c->mass)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "no mass in the node of the input '%s': the centre of mass "
                                  "needs one (UniformMass or DiagonalMass)",
                                  c->h.in->base.name);
    const char *cls = c->mass->cls->name;
    c->diagonal = strcmp(cls, "DiagonalMass") == 0;
    if (!c->diagonal && strcmp(cls, "UniformMass") != 0)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "the mass of '%s' is a %s: CenterOfMassMapping reads the "
                                  "masses of a UniformMass or a DiagonalMass",
                                  c->h.in->base.name, cls);
    if (c->h.out->position.n == 0)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the output '%s' has no point: the centre of mass is written "
                                  "to its first point",
                                  c->h.out->base.name);
    c->nin = c->h.in->position.n;
    c->m = st_calloc(c->nin ? c->nin : 1, sizeof *c->m);
    if (!c->m)
        return st_error_set(err, ST_ENOMEM, "out of memory initialising a CenterOfMassMapping");
    self->state = ST_CSTATE_VALID;
    /* SOFA's Mapping::init applies the mapping: when the mass is ready */
    if (c->mass->state == ST_CSTATE_VALID && com_ready(c))
        ST_TRY(map_init_outputs(&c->h, com_init_apply, com_init_apply_j, err));
    return ST_OK;
}

static void com_cleanup(st_component *self)
{
    com_free((com_mapping *)self);
    map_head_release(&((com_mapping *)self)->h);
}

static void com_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    com_mapping *c = (com_mapping *)self;
    double *xout = com_ready(c) ? map_head_xout(&c->h, x) : NULL;
    if (!xout)
        return;
    com_apply_point(c, st_slice_x(x, c->h.in), xout);
    map_head_touch_visual(&c->h);
}

static void com_apply_j(st_component *self, const st_mparams *mp, double *v)
{
    (void)mp;
    com_mapping *c = (com_mapping *)self;
    if (com_ready(c) && !c->h.visual)
        com_apply_j_point(c, st_slice(v, c->h.in), st_slice(v, c->h.out));
}

static void com_apply_jt(st_component *self, const st_mparams *mp, double *f)
{
    (void)mp;
    com_mapping *c = (com_mapping *)self;
    if (!com_ready(c) || c->h.visual)
        return;
    double *fin = st_slice(f, c->h.in);
    const double *fo = st_slice(f, c->h.out);
    for (size_t i = 0; i < c->nin; i++)
        for (int k = 0; k < 3; k++)
            fin[6 * i + k] += fo[k] * (c->m[i] / c->total);
}

static void com_get_j(st_component *self, const st_mparams *mp, st_jbuilder *jb)
{
    (void)mp;
    com_mapping *c = (com_mapping *)self;
    if (!com_ready(c) || c->h.visual)
        return;
    for (size_t i = 0; i < c->nin; i++) {
        double w = c->m[i] / c->total;
        const double b[18] = {w, 0, 0, 0, 0, 0, 0, w, 0, 0, 0, 0, 0, 0, w, 0, 0, 0};
        st_jbuilder_add(jb, 0, c->h.in, i, b);
    }
}

static const st_mapping_ops com_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = com_apply,
    .apply_j = com_apply_j,
    .apply_jt = com_apply_jt,
    .get_j = com_get_j,
    .flags = map_head_flags,
};

static const char *const rigid_only[] = {"Rigid3d", NULL};

const st_class center_of_mass_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "CenterOfMassMapping",
    .category = "Mapping",
    .description = "Set the point to the center of mass of the DOFs it is attached to",
    .instance_size = sizeof(com_mapping),
    .fields = com_fields,
    .init = com_init,
    .reinit = com_init,
    .cleanup = com_cleanup,
    .mapping = &com_ops,
    .templates = rigid_only,
};
