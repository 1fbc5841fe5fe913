/* default_visual_manager_loop.c - DefaultVisualManagerLoop: SOFA's manager
 * of the visual loop (Sofa.Simulation.Core). settee runs headless, so it
 * draws nothing; it exists so that SOFA scenes naming it load. Visual
 * models that follow a mapping are updated by the animation loop. */
#include "builtin/builtin.h"

const st_class st__default_visual_manager_loop_class = {
    .struct_size = sizeof(st_class),
    .name = "DefaultVisualManagerLoop",
    .category = "VisualLoop",
    .description = "Manager of the visual loop (headless in settee: nothing is drawn)",
    .instance_size = sizeof(st_component),
};
