/* rigid_distance_grid_collision_model.c - RigidDistanceGridCollisionModel
 * (SOFA's SofaDistanceGrid plugin): a rigid object described by a distance
 * grid, placed by frame 0 of its Rigid3d state. The grid, the boxes and
 * the tests: distance_grid_collision.c. */
#include "../shared/options.h"
#include "collision.h"

static const st_field fields[] = {
    CMODEL_COMMON_FIELDS,
    ST_FIELD_EX(cmodel, dg_filename, "filename", ST_T_STRING, char *, NULL,
                "Load distance grid from specified file (.obj surface, .raw values or #cube)", 0,
                "fileRigidDistanceGrid", 0.0, 0.0),
    ST_REAL(cmodel, dg_scale, "scale", "1", "scaling factor for input file"),
    ST_VEC3(cmodel, dg_translation, "translation", "0 0 0", "translation to apply to input file"),
    ST_VEC3(cmodel, dg_rotation, "rotation", "0 0 0", "rotation to apply to input file"),
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
    ST_BOOL(cmodel, dg_flip_normals, "flipNormals", "false",
            "reverse surface direction, i.e. points are considered in collision if they move "
            "outside of the object instead of inside"),
    IGN_BOOL(cmodel, dg_show_mesh_points, "showMeshPoints", "true", "Enable rendering of mesh points"),
    IGN_BOOL(cmodel, dg_show_grid_points, "showGridPoints", "false",
             "Enable rendering of grid points"),
    IGN_REAL(cmodel, dg_show_min_dist, "showMinDist", "0", "Min distance to render gradients"),
    IGN_REAL(cmodel, dg_show_max_dist, "showMaxDist", "0", "Max distance to render gradients"),
    ST_FIELD_END};

static const char *const aliases[] = {NULL};

static const char *const templates[] = {"Rigid3d", NULL};

CMODEL_CLASS(rigid_distance_grid_collision_model_class, "RigidDistanceGridCollisionModel",
             CM_RIGIDDGRID,
             "Grid-based distance field (attached to frame 0 of its Rigid3d state)",
             templates);
