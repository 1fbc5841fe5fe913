/* plugin.c - the BeamAdapter plugin: SOFA's BeamAdapter (a separate SOFA
 * repository): adaptive 6D beams, their interpolation and their force
 * field and mass. */
#include <settee/settee.h>

#include "beam_adapter.h"


static st_status register_classes(st_registry *r, st_error *err)
{
    ST_TRY(st_registry_add(r, &beam_interpolation_class, err));
    ST_TRY(st_registry_add(r, &adaptive_beam_force_field_and_mass_class, err));
    ST_TRY(st_registry_add(r, &rod_straight_section_class, err));
    ST_TRY(st_registry_add(r, &rod_spire_section_class, err));
    ST_TRY(st_registry_add(r, &rod_mesh_section_class, err));
    ST_TRY(st_registry_add(r, &wire_rest_shape_class, err));
    ST_TRY(st_registry_add(r, &wire_beam_interpolation_class, err));
    ST_TRY(st_registry_add(r, &adaptive_beam_mapping_class, err));
    ST_TRY(st_registry_add(r, &multi_adaptive_beam_mapping_class, err));
    ST_TRY(st_registry_add(r, &beam_length_mapping_class, err));
    ST_TRY(st_registry_add(r, &interventional_radiology_controller_class, err));
    ST_TRY(st_registry_add(r, &beam_adapter_action_controller_class, err));
    ST_TRY(st_registry_add(r, &adaptive_beam_controller_class, err));
    return ST_OK;
}

static const char *const provides[] = {"BeamAdapter", NULL};

ST_PLUGIN_DEFINE("BeamAdapter", "0.1.0",
                 "SOFA's BeamAdapter plugin: BeamInterpolation (beams on edges between Rigid3d "
                 "frames, spline interpolation) and AdaptiveBeamForceFieldAndMass (their "
                 "stiffness, consistent mass and gravity), WireRestShape with "
                 "RodStraightSection, RodSpireSection and RodMeshSection (a wire's rest shape "
                 "by curvilinear abscissa), WireBeamInterpolation (beams whose sections and rest "
                 "shape come from a WireRestShape), AdaptiveBeamMapping (points on the beams' "
                 "splines), MultiAdaptiveBeamMapping (one collision model along several "
                 "instruments), BeamLengthMapping (the beams' lengths as a Vec1d state), "
                 "InterventionalRadiologyController (wires pushed in by their tips) "
                 "with BeamAdapterActionController (its scripted actions), and "
                 "AdaptiveBeamController (frames redistributed along a BeamInterpolation)",
                 "LGPL-2.1-or-later", provides, register_classes)
