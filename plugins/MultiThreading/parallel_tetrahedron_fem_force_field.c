/* parallel_tetrahedron_fem_force_field.c - ParallelTetrahedronFEMForceField:
 * TetrahedronFEMForceField (plugins/SolidMechanics.FEM.Elastic, compiled
 * into this plugin) with addForce and addDForce parallel over the elements
 * (mt_elements.c). */
#include "mt_pool.h"
#include "tetrahedron_fem.h"

static void tet_elements(st_component *self, const unsigned **verts, size_t *stride, size_t *ne,
                         size_t *np)
{
    tetra_fem *s = (tetra_fem *)self;
    *verts = s->ne ? s->e[0].v : NULL;
    *stride = sizeof(tet) / sizeof(unsigned);
    *ne = s->ne;
    *np = s->ms->n;
}

static unsigned long tet_revision(st_component *self)
{
    const tetra_fem *s = (const tetra_fem *)self;
    return s->topology ? st_topology_revision(s->topology) : 0;
}

static st_mstate *tet_mstate(st_component *self) { return ((tetra_fem *)self)->ms; }
static bool tet_has_force(st_component *self) { return tfem_has_force((tetra_fem *)self); }

static void tet_forces(st_component *self, const double *p, const double *v, size_t b, size_t e,
                       double *g)
{
    (void)v;
    tfem_forces_range((tetra_fem *)self, p, b, e, g);
}

static void tet_dforces(st_component *self, const double *d, double kfactor, size_t b, size_t e,
                        double *g)
{
    tfem_dforces_range((tetra_fem *)self, d, kfactor, b, e, g);
}

static void tet_finish(st_component *self) { tfem_add_force_finish((tetra_fem *)self); }

static size_t tet_assembled(st_component *self, const st_mparams *mp, mt_pool *pool)
{
    const fem_bsr_pool par = {mt_pool_run_any, pool};
    const fem_bsr *K = tfem_assembled((tetra_fem *)self, mp, &par);
    return K ? K->n : 0;
}

static void tet_assembled_rows(st_component *self, double *df, const double *dx, double kfactor,
                               size_t b, size_t e)
{
    fem_bsr_mul_sub(&((tetra_fem *)self)->K, df, dx, kfactor, b, e);
}

static const mt_elem_ops tet_ops = {
    .base = &tetrahedron_fem_force_field_class,
    .name = "ParallelTetrahedronFEMForceField",
    .description = "TetrahedronFEMForceField with addForce and addDForce parallel over the "
                   "elements (the same forces to the bit at any thread count)",
    .nv = 4,
    .elements = tet_elements,
    .mstate = tet_mstate,
    .revision = tet_revision,
    .has_force = tet_has_force,
    .forces = tet_forces,
    .dforces = tet_dforces,
    .finish = tet_finish,
    .assembled = tet_assembled,
    .assembled_rows = tet_assembled_rows,
};

const st_class *parallel_tetrahedron_fem_class(void) { return mt_elem_class(&tet_ops); }
