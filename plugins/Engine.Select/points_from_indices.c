/* points_from_indices.c - PointsFromIndices: the positions of the given
 * indices, each distinct coordinate once, in the order of first appearance
 * (SOFA drops a point equal to one already listed). An empty position
 * links to the context's MechanicalObject position at init. */
#include "../shared/engine_util.h"

typedef struct points_from_indices {
    st_component base;
    st_array position;         /* coord[] */
    st_array indices;          /* uint[] */
    st_array indices_position; /* output, coord[] */
    bool linked; /* default links made (at the first update) */
} points_from_indices;

static const st_field pfi_fields[] = {
    ST_COORDS(points_from_indices, position, "position", NULL,
              "Position coordinates of the degrees of freedom (default: the MechanicalObject's "
              "position)"),
    ST_UINTS(points_from_indices, indices, "indices", NULL, "Indices of the points"),
    ST_OUTPUT(points_from_indices, indices_position, "indices_position", ST_T_COORDS, st_array,
              "Coordinates of the points contained in indices"),
    ST_FIELD_END};

/* SOFA's init: links the inputs the scene left unset. Links made during
 * init resolve only after it, so this runs at the first update. */
static st_status pfi_init_links(st_component *self, st_error *err)
{
    points_from_indices *e = (points_from_indices *)self;
    if (e->position.n == 0 && !st_component_is_set(self, "position"))
        return eng_link_state(self, "position", "position", err);
    return ST_OK;
}

static st_status pfi_update(st_component *self, st_error *err)
{
    if (!((points_from_indices *)self)->linked) {
        ((points_from_indices *)self)->linked = true;
        ST_TRY(pfi_init_links(self, err));
        ST_TRY(st_component_update_inputs(self, err));
    }
    points_from_indices *e = (points_from_indices *)self;
    if (e->position.n == 0)
        return ST_OK;
    unsigned cw = eng_coord_size(self);
    eng_clear(&e->indices_position);
    for (size_t i = 0; i < e->indices.n; i++) {
        unsigned id = e->indices.u[i];
        if (id >= e->position.n)
            return st_component_error(self, "indices", err, ST_EINVAL,
                                      "index %u (entry %zu) is beyond the %zu positions", id, i,
                                      e->position.n);
        const double *p = e->position.r + (size_t)cw * id;
        bool seen = false;
        for (size_t j = 0; j < e->indices_position.n && !seen; j++)
            seen = !memcmp(e->indices_position.r + (size_t)cw * j, p, cw * sizeof(double));
        if (!seen)
            ST_TRY(eng_push_r(&e->indices_position, cw, p, err));
    }
    return ST_OK;
}

static const st_engine_ops pfi_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = pfi_update,
};

const st_class points_from_indices_class = {
    .struct_size = sizeof(st_class),
    .name = "PointsFromIndices",
    .category = "Engine",
    .description = "Find the points given a list of indices.",
    .instance_size = sizeof(points_from_indices),
    .fields = pfi_fields,
    .engine = &pfi_engine,
};
