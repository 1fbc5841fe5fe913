/* center_of_mass_multi2_mapping.c - CenterOfMassMulti2Mapping: the
 * output's one point is the centre of mass of the points of two lists of
 * inputs of two types (SOFA's one instance: Vec3d states in "input1",
 * Rigid3d frames in "input2", a Vec3d output), each point weighed with the
 * mass of its node; a frame counts with its centre. The equations and the
 * masses read are in com_multi.h (SOFA sums the two lists' centres, each
 * divided by the total mass of both: the same point). The output is
 * resized to one point at init, as SOFA does.
 *
 * Deviations from SOFA, on purpose: as CenterOfMassMultiMapping's (an
 * input without a UniformMass or DiagonalMass is refused at init, masses
 * summing to 0 leave the output unmapped with a warning). */
#include <settee/settee.h>

#include "com_multi.h"

typedef struct com_multi2_mapping {
    com_multi c;            /* first: its map_head is the instance's head */
    st_array input1, input2; /* "input1", "input2": links to the input states */
} com_multi2_mapping;

static const char *const commm2_templates[] = {"Vec3d", NULL};

static const st_field commm2_fields[] = {
    ST_FIELD_EX(com_multi2_mapping, input1, "input1", ST_T_STRINGS, st_array, NULL,
                "Input Object(s) (1st Data type): links to Vec3d states",
                ST_F_REQUIRED | ST_F_NOLINK, NULL, 0.0, 0.0),
    ST_FIELD_EX(com_multi2_mapping, input2, "input2", ST_T_STRINGS, st_array, NULL,
                "Input Object(s) (2nd Data type): links to Rigid3d states",
                ST_F_REQUIRED | ST_F_NOLINK, NULL, 0.0, 0.0),
    MAP_OUTPUT_FIELDS(com_multi), /* at offset 0 of the instance */
    ST_FIELD_END};

/* Resolves one list and checks its states' type. */
static st_status commm2_list(st_component *self, const st_array *paths, const char *field,
                             const st_state_type *want, com_multi *c, size_t max, st_error *err)
{
    st_mstate *ins[COM_MAX_INPUTS];
    size_t n = 0;
    ST_TRY(map_resolve_inputs(self, paths, ins, max, &n, err));
    for (size_t k = 0; k < n; k++) {
        if (ins[k]->type != want)
            return st_component_error(self, field, err, ST_ESCENE,
                                      "'%s' is %s: the states of %s are %s (SOFA's "
                                      "CenterOfMassMulti2Mapping<Vec3d, Rigid3d, Vec3d>)",
                                      ins[k]->base.name, ins[k]->type->name, field, want->name);
        c->ins[c->nins++].ms = ins[k];
    }
    return ST_OK;
}

static st_status commm2_init(st_component *self, st_error *err)
{
    com_multi2_mapping *m = (com_multi2_mapping *)self;
    com_multi *c = &m->c;
    self->state = ST_CSTATE_INVALID;
    com_multi_free(c);
    ST_TRY(commm2_list(self, &m->input1, "input1", &st_vec3d_type, c, COM_MAX_INPUTS / 2, err));
    ST_TRY(commm2_list(self, &m->input2, "input2", &st_rigid3d_type, c, COM_MAX_INPUTS / 2, err));
    c->h.input = &c->ins[0].ms->base;
    ST_TRY(map_head_bind(&c->h, NULL, &st_vec3d_type, err));
    return com_multi_finish_init(c, err);
}

const st_class center_of_mass_multi2_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "CenterOfMassMulti2Mapping",
    .category = "Mapping",
    .description = "Set the point to the center of mass of the DOFs it is attached to",
    .instance_size = sizeof(com_multi2_mapping),
    .fields = commm2_fields,
    .init = commm2_init,
    .reinit = commm2_init,
    .cleanup = com_multi_cleanup,
    .mapping = &com_multi_ops,
    .templates = commm2_templates,
};
