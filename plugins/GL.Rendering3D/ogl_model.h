/* ogl_model.h - OglModel and the classes that are an OglModel with another
 * name: GL.Rendering3D registers OglModel, GL.Shader compiles ogl_model.c
 * too and registers OglShaderVisualModel (plugins are loaded RTLD_LOCAL). */
#ifndef SETTEE_PLUGIN_OGL_MODEL_H
#define SETTEE_PLUGIN_OGL_MODEL_H

#include <settee/settee.h>

typedef struct ogl_model ogl_model;

/* OglModel's fields (VisualState, VisualModelImpl, OglModel). */
extern const st_field ogl_model_fields[];
/* Checks the options, applies the parse attributes and the initial
 * transformation, computes the normals. */
st_status ogl_model_init(st_component *self, st_error *err);
/* Resizes the normals after the scene's init; recomputes them after a step. */
void ogl_model_on_event(st_component *self, st_event ev, double dt);
/* The classes of ogl_model.c; each plugin registers its own. */
extern const st_class ogl_model_class, ogl_shader_visual_model_class;
/* MergeVisualModels (merge_visual_models.c): OglModel's class with its own
 * fields appended, built once; NULL when the field table does not fit. */
const st_class *merge_visual_models_class(void);

#endif
