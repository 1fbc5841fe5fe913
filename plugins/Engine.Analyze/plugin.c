/* plugin.c - the Engine.Analyze plugin (SOFA's
 * Sofa.Component.Engine.Analyze): engines that measure data (AverageCoord,
 * HausdorffDistance, ClusteringEngine, ShapeMatching, SumEngine). */
#include <settee/settee.h>

extern const st_class average_coord_class, hausdorff_distance_class, clustering_engine_class,
    shape_matching_class, sum_engine_class, distances_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &average_coord_class, err));
    ST_TRY(st_registry_add(r, &hausdorff_distance_class, err));
    ST_TRY(st_registry_add(r, &clustering_engine_class, err));
    ST_TRY(st_registry_add(r, &shape_matching_class, err));
    ST_TRY(st_registry_add(r, &sum_engine_class, err));
    ST_TRY(st_registry_add(r, &distances_class, err));
    return ST_OK;
}

static const char *const provides[] = {"Sofa.Component.Engine.Analyze", NULL};

ST_PLUGIN_DEFINE("Engine.Analyze", "0.1.0",
                 "Engines measuring data: AverageCoord, HausdorffDistance, ...",
                 "LGPL-2.1-or-later", provides, register_classes)
