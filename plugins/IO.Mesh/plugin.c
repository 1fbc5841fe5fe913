/* plugin.c - the IO.Mesh plugin: mesh loaders (OBJ, Gmsh, VTK, STL, OFF, trian,
 * GiD, Xsp, OFF sequences),
 * SOFA's sphere files, the procedural grid and string creators and the
 * exporters (VTK, Mesh, STL, VisualModelOBJ). */
#include <settee/settee.h>

extern const st_class mesh_obj_loader_class, mesh_gmsh_loader_class, mesh_vtk_loader_class,
    mesh_stl_loader_class, sphere_loader_class, mesh_grid_creator_class,
    mesh_string_creator_class, vtk_exporter_class, mesh_exporter_class, stl_exporter_class,
    visual_model_obj_exporter_class, mesh_off_loader_class, mesh_trian_loader_class,
    gid_mesh_loader_class, blender_exporter_class, voxel_grid_loader_class,
    mesh_xsp_loader_class, off_sequence_loader_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &mesh_obj_loader_class, err));
    ST_TRY(st_registry_add(r, &mesh_gmsh_loader_class, err));
    ST_TRY(st_registry_add(r, &mesh_vtk_loader_class, err));
    ST_TRY(st_registry_add(r, &mesh_stl_loader_class, err));
    ST_TRY(st_registry_add(r, &mesh_off_loader_class, err));
    ST_TRY(st_registry_add(r, &mesh_trian_loader_class, err));
    ST_TRY(st_registry_add(r, &gid_mesh_loader_class, err));
    ST_TRY(st_registry_add(r, &mesh_xsp_loader_class, err));
    ST_TRY(st_registry_add(r, &off_sequence_loader_class, err));
    ST_TRY(st_registry_add(r, &sphere_loader_class, err));
    ST_TRY(st_registry_add(r, &mesh_grid_creator_class, err));
    ST_TRY(st_registry_add(r, &mesh_string_creator_class, err));
    ST_TRY(st_registry_add(r, &vtk_exporter_class, err));
    ST_TRY(st_registry_add(r, &mesh_exporter_class, err));
    ST_TRY(st_registry_add(r, &stl_exporter_class, err));
    ST_TRY(st_registry_add(r, &visual_model_obj_exporter_class, err));
    ST_TRY(st_registry_add(r, &blender_exporter_class, err));
    ST_TRY(st_registry_add(r, &voxel_grid_loader_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.IO.Mesh", NULL};

ST_PLUGIN_DEFINE("IO.Mesh", "0.2.0",
                 "Mesh files: loaders (OBJ, Gmsh MSH, VTK, STL, OFF, trian, GiD, sphere lists), procedural grid and "
                 "string meshes, and exporters (VTK, Mesh, STL, visual models as OBJ)",
                 "LGPL-2.1-or-later", provides, register_classes)
