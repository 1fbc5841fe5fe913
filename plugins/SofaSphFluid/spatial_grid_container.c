/* spatial_grid_container.c - SpatialGridContainer: SOFA's grid of cells that
 * SPHFluidForceField asks for its neighbours. settee's SPHFluidForceField
 * builds its own hash grid (cell = its radius) at each force evaluation, so
 * this container only keeps SOFA's data (a cellWidth <= 0 is refused).
 * Template: Vec3d (SOFA's one). */
#include <settee/settee.h>

typedef struct spatial_grid {
    st_component base;
    double cell_width; /* "cellWidth" */
    bool show_grid;    /* "showGrid" */
    bool auto_update;  /* "autoUpdate" */
    bool sort_points;  /* "sortPoints" */
} spatial_grid;

static st_status sg_init(st_component *self, st_error *err)
{
    spatial_grid *g = (spatial_grid *)self;
    if (!(g->cell_width > 0))
        return st_component_error(self, "cellWidth", err, ST_ESCENE,
                                  "the cell width must be > 0 (got %g)", g->cell_width);
    return ST_OK;
}

static const st_field sg_fields[] = {
    ST_REAL(spatial_grid, cell_width, "cellWidth", "1",
            "Width each cell in the grid. If it is used to compute neighboors, it should be "
            "greater than the max radius considered. (settee's SPHFluidForceField uses its own "
            "grid of cell radius)"),
    ST_IGNORED(spatial_grid, show_grid, "showGrid", ST_T_BOOL, bool, "false",
               "activate rendering of the grid"),
    ST_BOOL(spatial_grid, auto_update, "autoUpdate", "false",
            "Automatically update the grid at each iteration. (kept; settee's fluid updates its "
            "own grid at each force evaluation)"),
    ST_BOOL(spatial_grid, sort_points, "sortPoints", "false",
            "Sort points depending on which cell they are in the grid. This is required for "
            "efficient collision detection. (kept; settee never reorders a state)"),
    ST_FIELD_END};

const st_class spatial_grid_container_class = {
    .struct_size = sizeof(st_class),
    .name = "SpatialGridContainer",
    .category = "Misc",
    .description = "Grid of cells for neighbour searches (kept for SOFA's scenes: settee's "
                   "SPHFluidForceField has its own)",
    .instance_size = sizeof(spatial_grid),
    .fields = sg_fields,
    .init = sg_init,
    .reinit = sg_init,
};
