/* plugin.c - the SofaMatrix plugin: SOFA's components that show or export
 * the global matrices and reorder a mesh. GlobalSystemMatrixImage and
 * ComplianceMatrixImage are headless (the scenes that name it load and run; Python reads the
 * matrices); GlobalSystemMatrixExporter and ComplianceMatrixExporter write
 * them in SOFA's formats; FillReducingOrdering renumbers a mesh with METIS.
 * It answers to SofaMatrix.Qt too, the GUI extension SOFA scenes require. */
#include <settee/settee.h>

extern const st_class global_system_matrix_image_class;
extern const st_class global_system_matrix_exporter_class;
extern const st_class compliance_matrix_exporter_class;
extern const st_class fill_reducing_ordering_class;
extern const st_class compliance_matrix_image_class;

static st_status register_classes(st_registry *r, st_error *err)
{
    const st_class *const classes[] = {
        &global_system_matrix_image_class, &global_system_matrix_exporter_class,
        &compliance_matrix_exporter_class, &fill_reducing_ordering_class,
        &compliance_matrix_image_class};
    for (size_t i = 0; i < sizeof classes / sizeof *classes; i++)
        ST_TRY(st_registry_add(r, classes[i], err));
    return ST_OK;
}

static const char *const provides[] = {"SofaMatrix.Qt", "SofaMatrix.imgui", NULL};

ST_PLUGIN_DEFINE("SofaMatrix", "0.2.0",
                 "SOFA's SofaMatrix plugin: GlobalSystemMatrixImage, ComplianceMatrixImage (headless), "
                 "GlobalSystemMatrixExporter, ComplianceMatrixExporter, FillReducingOrdering",
                 "LGPL-2.1-or-later", provides, register_classes)
