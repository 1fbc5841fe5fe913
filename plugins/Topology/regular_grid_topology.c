/* regular_grid_topology.c - RegularGridTopology: a regular 3D grid of points
 * between min and max (or xmin..zmax), with hexahedra, quads, triangles and
 * edges in SOFA's orderings. Positions are computed from the parameters, so
 * a MechanicalObject may ask for them before the grid's init. */
#include "topology_fields.h"

static const st_field regular_grid_fields[] = {
    TOPO_MESH_COMMON(ST_F_OUTPUT),
    TOPO_GRID_COMMON,
    ST_VEC3(topo, min, "min", "0 0 0", "Min end of the diagonal"),
    ST_VEC3(topo, max, "max", "1 1 1", "Max end of the diagonal"),
    ST_VEC3(topo, p0, "p0", "0 0 0",
            "Offset all the grid points (when not set: min, or the centre on a flat axis)"),
    ST_REAL(topo, cell_width, "cellWidth", "0",
            "if > 0 : dimension of each cell in the created grid. Otherwise, the cell size is "
            "computed based on min, max, and resolution n."),
    ST_REAL(topo, xmin, "xmin", "0", "Min x (used with ymin zmin xmax ymax zmax; read as float)"),
    ST_REAL(topo, ymin, "ymin", "0", "Min y (used with the five others; read as float)"),
    ST_REAL(topo, zmin, "zmin", "0", "Min z (used with the five others; read as float)"),
    ST_REAL(topo, xmax, "xmax", "1", "Max x (used with the five others; read as float)"),
    ST_REAL(topo, ymax, "ymax", "1", "Max y (used with the five others; read as float)"),
    ST_REAL(topo, zmax, "zmax", "1", "Max z (used with the five others; read as float)"),
    ST_REAL(topo, scale, "scale", "1", "Factor applied to xmin..zmax (read as float)"),
    ST_FIELD_END};

static st_status regular_grid_create(st_component *self, st_error *err)
{
    (void)err;
    ((topo *)self)->kind = TOPO_REGULAR_GRID;
    return ST_OK;
}

static const char *const regular_grid_aliases[] = {"RegularGrid", NULL};

const st_class regular_grid_topology_class = {
    .struct_size = sizeof(st_class),
    .name = "RegularGridTopology",
    .category = "Topology",
    .description = "Regular grid in 3D",
    .aliases = regular_grid_aliases,
    .instance_size = sizeof(topo),
    .fields = regular_grid_fields,
    .create = regular_grid_create,
    .init = topo_init,
    .reinit = topo_reinit,
    .topology = &topo_ops,
};
