/* ffd_distance_grid_collision_model.c - FFDDistanceGridCollisionModel
 * (SOFA's SofaDistanceGrid plugin): a distance grid deformed by the cubes
 * of a RegularGridTopology or SparseGridTopology on its Vec3d state (free
 * form deformation): one element per cube. The cubes, boxes and tests:
 * distance_grid_collision.c. */
#include "../shared/options.h"
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_FIELD_EX(cmodel, dg_filename, "filename", ST_T_STRING, char *, NULL,
                "Load distance grid from specified file (.obj surface, .raw values or #cube)", 0,
                "fileFFDDistanceGrid", 0.0, 0.0),
    ST_REAL(cmodel, dg_scale, "scale", "1", "scaling factor for input file"),
    ST_REAL(cmodel, dg_sampling, "sampling", "0",
            "if not zero: sample the surface with points approximately separated by the given "
            "sampling distance (expressed in voxels if the value is negative)"),
    ST_REALS_N(cmodel, dg_box, "box", "0 0 0 0 0 0",
               "Field bounding box defined by xmin,ymin,zmin, xmax,ymax,zmax", 6),
    ST_INT(cmodel, dg_nx, "nx", "64", "number of values on X axis"),
    ST_INT(cmodel, dg_ny, "ny", "64", "number of values on Y axis"),
    ST_INT(cmodel, dg_nz, "nz", "64", "number of values on Z axis"),
    ST_STRING(cmodel, dg_dumpfilename, "dumpfilename", NULL,
              "write distance grid to specified file (.raw)"),
    ST_BOOL(cmodel, dg_use_points, "usePoints", "true",
            "use mesh vertices for collision detection"),
    ST_BOOL(cmodel, dg_single_contact, "singleContact", "false",
            "keep only the deepest contact in each cell"),
    ST_LINK(cmodel, topology, "topology",
            ST_LINK_TOPOLOGY, "link to the topological mesh associated with this collision model"),
    ST_FIELD_END};

static const char *const aliases[] = {NULL};

static const char *const templates[] = {"Vec3d", NULL};

CMODEL_CLASS(ffd_distance_grid_collision_model_class, "FFDDistanceGridCollisionModel", CM_FFDDGRID,
             "Grid-based deformable distance field", templates);
