/* constant_force_field.c - ExampleConstantForceField, a copy of SOFA's
 * ConstantForceField (MechanicalLoad) under a name of its own, so that it
 * loads beside the bundled MechanicalLoad plugin:
 * a constant force on chosen vertices, given per vertex ("forces"), the
 * same for each ("force") or as a total spread evenly ("totalForce"), in
 * that order of precedence. Its derivatives are zero, so it has no
 * add_dforce and no matrix contribution. */
#include <settee/settee.h>

typedef struct constant_force_field {
    st_component base;
    st_array indices;       /* "indices", empty: every vertex */
    bool index_from_end;    /* "indexFromEnd" */
    st_array forces;        /* "forces", one vec3 per index */
    st_vec3 force;          /* "force" */
    st_vec3 total_force;    /* "totalForce" */
    double show_arrow_size; /* "showArrowSize" (no drawing here) */
    st_component *topology; /* "topology" link (accepted, unused) */
    st_mstate *ms;          /* set by init */
} constant_force_field;

static const st_field cff_fields[] = {
    ST_UINTS(constant_force_field, indices, "indices", NULL,
             "indices where the forces are applied"),
    ST_BOOL(constant_force_field, index_from_end, "indexFromEnd", "false",
            "Concerned DOFs indices are numbered from the end of the MState DOFs vector. "
            "(default=false)"),
    ST_VEC3S(constant_force_field, forces, "forces", NULL, "applied forces at each point"),
    ST_VEC3(constant_force_field, force, "force", "0 0 0",
            "applied force to all points if forces attribute is not specified"),
    ST_VEC3(constant_force_field, total_force, "totalForce", "0 0 0",
            "total force for all points, will be distributed uniformly over points"),
    ST_REAL(constant_force_field, show_arrow_size, "showArrowSize", "0",
            "Size of the drawn arrows (0->no arrows, sign->direction of drawing. (default=0)"),
    ST_LINK(constant_force_field, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container"),
    ST_FIELD_END};

/* Every index below the state's size; "indices" defaults to all vertices. */
static st_status cff_indices(constant_force_field *c, st_error *err)
{
    st_component *self = &c->base;
    size_t n = c->ms->position.n;
    if (c->indices.n == 0) {
        ST_TRY(st_array_resize(&c->indices, ST_T_UINTS, n, err));
        for (size_t i = 0; i < n; i++)
            c->indices.u[i] = (unsigned)i;
    }
    for (size_t i = 0; i < c->indices.n; i++)
        if (c->indices.u[i] >= n)
            return st_component_error(self, "indices", err, ST_ESCENE,
                                      "Indices incorrect: indice[%zu] = %u exceeds system size "
                                      "(%zu vertices)",
                                      i, c->indices.u[i], n);
    return ST_OK;
}

/* Sets forces[i] = f for every index and totalForce = n f. */
static st_status cff_spread(constant_force_field *c, const double f[3], st_error *err)
{
    size_t n = c->indices.n;
    ST_TRY(st_array_resize(&c->forces, ST_T_VEC3S, n, err));
    for (size_t i = 0; i < n; i++)
        for (int d = 0; d < 3; d++)
            c->forces.r[3 * i + d] = f[d];
    for (int d = 0; d < 3; d++)
        c->total_force[d] = f[d] * (double)n;
    return ST_OK;
}

static st_status cff_init(st_component *self, st_error *err)
{
    constant_force_field *c = (constant_force_field *)self;
    c->ms = st_component_mstate(self);
    if (!c->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject to act on: add one before "
                                  "ExampleConstantForceField in this node, or set mstate");
    ST_TRY(cff_indices(c, err));
    if (st_component_is_set(self, "forces")) {
        if (c->forces.n != c->indices.n)
            return st_component_error(self, "forces", err, ST_ESCENE,
                                      "Impossible to use the vector forces since its size (%zu) "
                                      "mismatches with indices size (%zu)",
                                      c->forces.n, c->indices.n);
        for (int d = 0; d < 3; d++) {
            c->total_force[d] = 0.0;
            for (size_t i = 0; i < c->forces.n; i++)
                c->total_force[d] += c->forces.r[3 * i + d];
        }
    } else if (st_component_is_set(self, "force")) {
        ST_TRY(cff_spread(c, c->force, err));
    } else if (st_component_is_set(self, "totalForce")) {
        if (c->indices.n == 0)
            return st_component_error(self, "totalForce", err, ST_ESCENE,
                                      "Impossible to compute force from totalForce since vector "
                                      "indices size is zero");
        for (int d = 0; d < 3; d++)
            c->force[d] = c->total_force[d] / (double)c->indices.n;
        ST_TRY(cff_spread(c, c->force, err));
    } else {
        st_component_warn(self, "Force has not been set. Define one of the following Data: "
                                "forces, force or totalForce");
        ST_TRY(cff_spread(c, c->force, err));
    }
    return ST_OK;
}

/* The vertex an index names (counted from the end with indexFromEnd). */
static size_t cff_vertex(const constant_force_field *c, size_t i)
{
    size_t k = c->indices.u[i];
    return c->index_from_end ? c->ms->n - k - 1 : k;
}

static void cff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    constant_force_field *c = (constant_force_field *)self;
    double *fs = st_slice(f, c->ms);
    for (size_t i = 0; i < c->indices.n; i++) {
        double *fi = fs + 3 * cff_vertex(c, i);
        fi[0] += c->forces.r[3 * i];
        fi[1] += c->forces.r[3 * i + 1];
        fi[2] += c->forces.r[3 * i + 2];
    }
}

static double cff_potential_energy(st_component *self, const st_mparams *mp, const double *x)
{
    constant_force_field *c = (constant_force_field *)self;
    const double *xs = st_slice_x(x, c->ms);
    double e = 0.0;
    for (size_t i = 0; i < c->indices.n; i++) {
        const double *xi = xs + 3 * cff_vertex(c, i);
        const double *fi = c->forces.r + 3 * i;
        e -= fi[0] * xi[0] + fi[1] * xi[1] + fi[2] * xi[2];
    }
    return e;
}

static const st_forcefield_ops cff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = cff_add_force,
    .potential_energy = cff_potential_energy,
};

const st_class constant_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "ExampleConstantForceField",
    .category = "ForceField",
    .description = "Constant forces applied to given degrees of freedom",
    .instance_size = sizeof(constant_force_field),
    .fields = cff_fields,
    .init = cff_init,
    .forcefield = &cff_ops,
};
