/* plugin.c - the Engine.Transform plugin (SOFA's
 * Sofa.Component.Engine.Transform): engines that transform data
 * (Vertex2Frame, TransformEngine, DifferenceEngine, TransformPosition, SmoothMeshEngine,
 * DisplacementTransformEngine, the TransformMatrixEngines, IndexValueMapper, DisplacementMatrixEngine, MathOp, ROIValueMapper,
 * Indices2ValuesMapper, MapIndices, DilateEngine, ProjectiveTransformEngine, QuatToRigidEngine,
 * RigidToQuatEngine). */
#include <settee/settee.h>

extern const st_class vertex2frame_class, transform_engine_class, difference_engine_class,
    transform_position_class, smooth_mesh_engine_class, displacement_transform_engine_class,
    translate_transform_matrix_engine_class, rotate_transform_matrix_engine_class,
    scale_transform_matrix_engine_class, invert_transform_matrix_engine_class,
    index_value_mapper_class;
extern const st_class displacement_matrix_engine_class, math_op_class, roi_value_mapper_class,
    indices2values_mapper_class, map_indices_class, dilate_engine_class,
    projective_transform_engine_class;
extern const st_class quat_to_rigid_engine_class, rigid_to_quat_engine_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &vertex2frame_class, err));
    ST_TRY(st_registry_add(r, &transform_engine_class, err));
    ST_TRY(st_registry_add(r, &difference_engine_class, err));
    ST_TRY(st_registry_add(r, &transform_position_class, err));
    ST_TRY(st_registry_add(r, &smooth_mesh_engine_class, err));
    ST_TRY(st_registry_add(r, &displacement_transform_engine_class, err));
    ST_TRY(st_registry_add(r, &translate_transform_matrix_engine_class, err));
    ST_TRY(st_registry_add(r, &rotate_transform_matrix_engine_class, err));
    ST_TRY(st_registry_add(r, &scale_transform_matrix_engine_class, err));
    ST_TRY(st_registry_add(r, &invert_transform_matrix_engine_class, err));
    ST_TRY(st_registry_add(r, &index_value_mapper_class, err));
    ST_TRY(st_registry_add(r, &displacement_matrix_engine_class, err));
    ST_TRY(st_registry_add(r, &math_op_class, err));
    ST_TRY(st_registry_add(r, &roi_value_mapper_class, err));
    ST_TRY(st_registry_add(r, &indices2values_mapper_class, err));
    ST_TRY(st_registry_add(r, &map_indices_class, err));
    ST_TRY(st_registry_add(r, &dilate_engine_class, err));
    ST_TRY(st_registry_add(r, &projective_transform_engine_class, err));
    ST_TRY(st_registry_add(r, &quat_to_rigid_engine_class, err));
    ST_TRY(st_registry_add(r, &rigid_to_quat_engine_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Engine.Transform", NULL};

ST_PLUGIN_DEFINE("Engine.Transform", "0.1.0",
                 "Engines transforming data: TransformEngine, TransformPosition, Vertex2Frame, ...",
                 "LGPL-2.1-or-later", provides, register_classes)
