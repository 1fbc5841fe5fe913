/* center_of_mass_multi_mapping.c - CenterOfMassMultiMapping: the output's
 * one point is the centre of mass of every point of its inputs, each
 * weighed with the mass of its node (SOFA's instances: Vec3d to Vec3d,
 * Rigid3d to Rigid3d, Rigid3d to Vec3d; all inputs of one type). The
 * equations and the masses read are in com_multi.h; the output is resized
 * to one point at init, as SOFA does.
 *
 * Deviation from SOFA, on purpose: an input without a mass (SOFA
 * dereferences a null mass) or with another mass class than UniformMass or
 * DiagonalMass is refused at init; masses summing to 0 (SOFA divides by 0)
 * leave the output unmapped, with a warning. */
#include <settee/settee.h>

#include "com_multi.h"

typedef struct com_multi_mapping {
    com_multi c;          /* first: its map_head is the instance's head */
    st_array input_paths; /* "input": links to the input states */
} com_multi_mapping;

static const char *const commm_templates[] = {"Vec3d", "Rigid3d", NULL};

static const st_field commm_fields[] = {
    ST_FIELD_EX(com_multi_mapping, input_paths, "input", ST_T_STRINGS, st_array, NULL,
                "Input Object(s): a list of links (\"@../a\", \"@../b\")",
                ST_F_REQUIRED | ST_F_NOLINK, NULL, 0.0, 0.0),
    MAP_OUTPUT_FIELDS(com_multi), /* at offset 0 of the instance */
    ST_FIELD_END};

static st_status commm_init(st_component *self, st_error *err)
{
    com_multi_mapping *m = (com_multi_mapping *)self;
    com_multi *c = &m->c;
    self->state = ST_CSTATE_INVALID;
    com_multi_free(c);
    st_mstate *ins[COM_MAX_INPUTS];
    ST_TRY(map_resolve_inputs(self, &m->input_paths, ins, COM_MAX_INPUTS, &c->nins, err));
    for (size_t k = 0; k < c->nins; k++)
        c->ins[k].ms = ins[k];
    const st_state_type *tin = ins[0]->type;
    for (size_t k = 0; k < c->nins; k++)
        if (ins[k]->type != tin)
            return st_component_error(self, "input", err, ST_ESCENE,
                                      "input '%s' is %s, input '%s' %s: the inputs of a "
                                      "CenterOfMassMultiMapping are of one type",
                                      ins[k]->base.name, ins[k]->type->name, ins[0]->base.name,
                                      tin->name);
    if (tin != &st_vec3d_type && tin != &st_rigid3d_type)
        return st_component_error(self, "input", err, ST_ESCENE,
                                  "input '%s' is %s: CenterOfMassMultiMapping maps Vec3d or "
                                  "Rigid3d states",
                                  ins[0]->base.name, tin->name);
    c->h.input = &ins[0]->base;
    ST_TRY(map_head_bind(&c->h, NULL, NULL, err));
    const st_state_type *tout = c->h.out->type;
    if (!(tout == &st_vec3d_type || (tout == &st_rigid3d_type && tin == &st_rigid3d_type)))
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the output '%s' is %s for %s inputs: SOFA's "
                                  "CenterOfMassMultiMapping maps Vec3d to Vec3d, Rigid3d to "
                                  "Rigid3d or Rigid3d to Vec3d",
                                  c->h.out->base.name, tout->name, tin->name);
    return com_multi_finish_init(c, err);
}

const st_class center_of_mass_multi_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "CenterOfMassMultiMapping",
    .category = "Mapping",
    .description = "Set the point to the center of mass of the DOFs it is attached to",
    .instance_size = sizeof(com_multi_mapping),
    .fields = commm_fields,
    .init = commm_init,
    .reinit = commm_init,
    .cleanup = com_multi_cleanup,
    .mapping = &com_multi_ops,
    .templates = commm_templates,
};
