/* parallel_hexahedron_fem_force_field.c - ParallelHexahedronFEMForceField:
 * HexahedronFEMForceField (plugins/SolidMechanics.FEM.Elastic, compiled
 * into this plugin) with addForce and addDForce parallel over the elements
 * (mt_elements.c). */
#include "hexahedron_fem.h"
#include "mt_pool.h"

static void hex_elements(st_component *self, const unsigned **verts, size_t *stride, size_t *ne,
                         size_t *np)
{
    hexa_fem *s = (hexa_fem *)self;
    *verts = s->ne ? s->e[0].v : NULL;
    *stride = sizeof(hexa) / sizeof(unsigned);
    *ne = s->ne;
    *np = s->ms->n;
}

static unsigned long hex_revision(st_component *self)
{
    const hexa_fem *s = (const hexa_fem *)self;
    return s->topology ? st_topology_revision(s->topology) : 0;
}

static st_mstate *hex_mstate(st_component *self) { return ((hexa_fem *)self)->ms; }

static void hex_forces(st_component *self, const double *p, const double *v, size_t b, size_t e,
                       double *g)
{
    (void)v;
    hfem_forces_range((hexa_fem *)self, p, b, e, g);
}

static void hex_dforces(st_component *self, const double *d, double kfactor, size_t b, size_t e,
                        double *g)
{
    hfem_dforces_range((hexa_fem *)self, d, kfactor, b, e, g);
}

static void hex_finish(st_component *self) { hfem_add_force_finish((hexa_fem *)self); }

static size_t hex_assembled(st_component *self, const st_mparams *mp, mt_pool *pool)
{
    const fem_bsr_pool par = {mt_pool_run_any, pool};
    const fem_bsr *K = hfem_assembled((hexa_fem *)self, mp, &par);
    return K ? K->n : 0;
}

static void hex_assembled_rows(st_component *self, double *df, const double *dx, double kfactor,
                               size_t b, size_t e)
{
    fem_bsr_mul_sub(&((hexa_fem *)self)->Kg, df, dx, kfactor, b, e);
}

static const mt_elem_ops hex_ops = {
    .base = &hexahedron_fem_force_field_class,
    .name = "ParallelHexahedronFEMForceField",
    .description = "HexahedronFEMForceField with addForce and addDForce parallel over the "
                   "elements (the same forces to the bit at any thread count)",
    .nv = 8,
    .elements = hex_elements,
    .mstate = hex_mstate,
    .revision = hex_revision,
    .forces = hex_forces,
    .dforces = hex_dforces,
    .finish = hex_finish,
    .assembled = hex_assembled,
    .assembled_rows = hex_assembled_rows,
};

const st_class *parallel_hexahedron_fem_class(void) { return mt_elem_class(&hex_ops); }
