/* dynamic_sparse_grid_container.c - SOFA's DynamicSparseGridTopologyContainer:
 * a HexahedronSetTopologyContainer whose hexahedra are the occupied voxels
 * of a regular grid. idxInRegularGrid gives, per hexahedron, its voxel's
 * index in the grid (x fastest); init builds the reverse map
 * idInRegularGrid2IndexInTopo (pairs: voxel index, hexahedron) and the dense
 * occupancy valuesIndexedInRegularGrid (255 on occupied voxels, 0 elsewhere).
 * SOFA takes valuesIndexedInTopology from a VoxelLoader's data; settee has no
 * voxel loader, so it keeps the values the scene gives, or 255 per
 * hexahedron (every hexahedron is an occupied voxel). */
#include "topology_fields.h"

#include <math.h>
#include <stdlib.h>

#define DSG_ALIAS(m, key, T, CT, def, help, flags)                                                \
    ST_FIELD_EX(topo, m, key, T, CT, def, help, flags, NULL, 0.0, 0.0)

static const st_field dsg_fields[] = {
    DYN_HEXA_FIELDS,
    ST_VEC3(topo, dsg_resolution, "resolution", "0 0 0", "voxel grid resolution"),
    DSG_ALIAS(dsg_grid_values, "valuesIndexedInRegularGrid", ST_T_UINTS, st_array, NULL,
              "values indexed in the Regular Grid (255 on the voxels that are hexahedra, 0 "
              "elsewhere; set at init)",
              ST_F_HIDDEN),
    DSG_ALIAS(dsg_topo_values, "valuesIndexedInTopology", ST_T_UINTS, st_array, NULL,
              "values indexed in the topology (SOFA reads them from a VoxelLoader; settee "
              "keeps the given ones, or 255 per hexahedron)",
              ST_F_HIDDEN),
    ST_UINTS(topo, dsg_idx_in_grid, "idxInRegularGrid", NULL, "indices in the Regular Grid"),
    DSG_ALIAS(dsg_grid2topo, "idInRegularGrid2IndexInTopo", ST_T_UINTS, st_array, NULL,
              "map between id in the Regular Grid and index in the topology (pairs: grid id, "
              "hexahedron index, in increasing grid id; set at init)",
              ST_F_HIDDEN),
    ST_VEC3(topo, voxel_size, "voxelSize", "1 1 1", "Size of the Voxels"),
    ST_FIELD_END};

static st_status dsg_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_DYNAMIC;
    return ST_OK;
}

static int pair_cmp(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return (x > y) - (x < y);
}

/* The voxels of `resolution` (three non-negative integers, else an error). */
static st_status resolution_cells(topo *t, double *cells, st_error *err)
{
    *cells = 1.0;
    for (int k = 0; k < 3; k++) {
        double r = t->dsg_resolution[k];
        if (r < 0 || r != floor(r))
            return st_component_error(&t->base, "resolution", err, ST_EINVAL,
                                      "resolution must be three non-negative integers (got "
                                      "%g %g %g)",
                                      t->dsg_resolution[0], t->dsg_resolution[1],
                                      t->dsg_resolution[2]);
        *cells *= r;
    }
    return ST_OK;
}

static st_status dsg_init(st_component *self, st_error *err)
{
    topo *t = (topo *)self;
    ST_TRY(topo_init(self, err));
    double cells;
    ST_TRY(resolution_cells(t, &cells, err));
    if (cells > 1e9)
        return st_component_error(self, "resolution", err, ST_EINVAL,
                                  "resolution %g x %g x %g is too large", t->dsg_resolution[0],
                                  t->dsg_resolution[1], t->dsg_resolution[2]);
    const size_t ncell = (size_t)cells, nid = t->dsg_idx_in_grid.n;
    const unsigned *id = t->dsg_idx_in_grid.u;
    for (size_t i = 0; i < nid; i++)
        if (id[i] >= ncell)
            return st_component_error(self, "idxInRegularGrid", err, ST_EINVAL,
                                      "entry %zu (%u) is outside the %zu voxels of the "
                                      "resolution",
                                      i, id[i], ncell);
    ST_TRY(st_array_resize(&t->dsg_grid2topo, ST_T_UINTS, 2 * nid, err));
    for (size_t i = 0; i < nid; i++) {
        t->dsg_grid2topo.u[2 * i] = id[i];
        t->dsg_grid2topo.u[2 * i + 1] = (unsigned)i;
    }
    if (nid)
        qsort(t->dsg_grid2topo.u, nid, 2 * sizeof(unsigned), pair_cmp);
    for (size_t i = 1; i < nid; i++)
        if (t->dsg_grid2topo.u[2 * i] == t->dsg_grid2topo.u[2 * i - 2])
            return st_component_error(self, "idxInRegularGrid", err, ST_EINVAL,
                                      "voxel %u is given for two hexahedra",
                                      t->dsg_grid2topo.u[2 * i]);
    ST_TRY(st_array_resize(&t->dsg_grid_values, ST_T_UINTS, ncell, err));
    for (size_t i = 0; i < ncell; i++)
        t->dsg_grid_values.u[i] = 0;
    for (size_t i = 0; i < nid; i++)
        t->dsg_grid_values.u[id[i]] = 255;
    if (t->dsg_topo_values.n != nid) {
        if (t->dsg_topo_values.n)
            st_component_warn_field(self, "valuesIndexedInTopology",
                                    "%zu values for %zu hexahedra: replaced by 255 each",
                                    t->dsg_topo_values.n, nid);
        ST_TRY(st_array_resize(&t->dsg_topo_values, ST_T_UINTS, nid, err));
        for (size_t i = 0; i < nid; i++)
            t->dsg_topo_values.u[i] = 255;
    }
    return ST_OK;
}

static st_status dsg_reinit(st_component *self, st_error *err)
{
    return topo_reinit_with(self, err, dsg_init);
}

const st_class dynamic_sparse_grid_container_class = {
    .struct_size = sizeof(st_class),
    .name = "DynamicSparseGridTopologyContainer",
    .category = "Topology",
    .description = "Dynamic sparse grid geometry container.",
    .instance_size = sizeof(topo),
    .fields = dsg_fields,
    .create = dsg_create,
    .init = dsg_init,
    .reinit = dsg_reinit,
    .topology = &topo_ops,
    .parsed = topo_parsed,
};

/* SOFA's MultilevelHexahedronSetTopologyContainer: hexahedra that are voxels
 * of a fine regular grid, grouped in components per level. At init every
 * hexahedron is its own component on both levels (SOFA coarsens only through
 * its topology modifier's multilevel events, which settee does not send), so
 * coarseComponents and fineComponents both give, per hexahedron, the fine
 * voxel index of its one-voxel component. */
static const st_field multilevel_fields[] = {
    DYN_HEXA_FIELDS,
    ST_INT(topo, ml_level, "level", "0",
           "Number of resolution levels between the fine and coarse mesh"),
    ST_VEC3(topo, dsg_resolution, "resolution", "0 0 0", "fine resolution"),
    ST_UINTS(topo, dsg_idx_in_grid, "idxInRegularGrid", NULL, "indices of the hexa in the grid."),
    ST_OUTPUT(topo, ml_coarse, "coarseComponents", ST_T_UINTS, st_array,
              "map between hexahedra and components - coarse (per hexahedron, the fine voxel "
              "index of its component)"),
    ST_OUTPUT(topo, ml_fine, "fineComponents", ST_T_UINTS, st_array,
              "map between hexahedra and components - fine (per hexahedron, the fine voxel "
              "index of its component)"),
    ST_FIELD_END};

static st_status multilevel_init(st_component *self, st_error *err)
{
    topo *t = (topo *)self;
    ST_TRY(topo_init(self, err));
    double cells;
    ST_TRY(resolution_cells(t, &cells, err));
    const size_t nh = t->hexahedra.n, nid = t->dsg_idx_in_grid.n;
    if (nid != nh)
        return st_component_error(self, "idxInRegularGrid", err, ST_EINVAL,
                                  "%zu indices for %zu hexahedra: give one voxel index per "
                                  "hexahedron",
                                  nid, nh);
    for (size_t i = 0; i < nid; i++)
        if ((double)t->dsg_idx_in_grid.u[i] >= cells)
            return st_component_error(self, "idxInRegularGrid", err, ST_EINVAL,
                                      "entry %zu (%u) is outside the %g voxels of the "
                                      "resolution",
                                      i, t->dsg_idx_in_grid.u[i], cells);
    ST_TRY(st_array_resize(&t->ml_fine, ST_T_UINTS, nh, err));
    ST_TRY(st_array_resize(&t->ml_coarse, ST_T_UINTS, nh, err));
    for (size_t i = 0; i < nh; i++)
        t->ml_fine.u[i] = t->ml_coarse.u[i] = t->dsg_idx_in_grid.u[i];
    return ST_OK;
}

static st_status multilevel_reinit(st_component *self, st_error *err)
{
    return topo_reinit_with(self, err, multilevel_init);
}

const st_class multilevel_hexa_container_class = {
    .struct_size = sizeof(st_class),
    .name = "MultilevelHexahedronSetTopologyContainer",
    .category = "Topology",
    .description = "Multilevel Hexahedron set topology container.",
    .instance_size = sizeof(topo),
    .fields = multilevel_fields,
    .create = dsg_create,
    .init = multilevel_init,
    .reinit = multilevel_reinit,
    .topology = &topo_ops,
    .parsed = topo_parsed,
};
