/* mesh_string_creator.c - StringMeshCreator: SOFA's procedural
 * one-dimensional mesh: resolution vertices at (x / (resolution - 1), 0, 0)
 * joined by the edges (x - 1, x) in order. Then the MeshLoader steps apply
 * (T R S or transformation, onlyAttachedPoints, normals); filename is never
 * read. A resolution below 2 (SOFA divides by zero or makes nothing) is an
 * error. */
#include <limits.h>

#include "mesh_loader.h"

typedef struct string_creator {
    mesh_loader m;
    unsigned resolution;
} string_creator;

static const st_field string_fields[] = {
    LOADER_CREATOR_FILENAME,
    LOADER_BASE_FIELDS,
    LOADER_SUBELEMENTS("false"),
    ST_UINT(string_creator, resolution, "resolution", "2", "Number of vertices"),
    ST_FIELD_END};

static st_status string_build(mesh_loader *l, st_error *err)
{
    unsigned n = ((string_creator *)l)->resolution;
    for (unsigned x = 0; x < n; x++) {
        double p[3] = {x * 1.0 / (n - 1), 0.0, 0.0};
        ST_TRY(loader_push_point(&l->position, p, err));
    }
    for (unsigned e = 1; e < n; e++) {
        unsigned v[2] = {e - 1, e};
        ST_TRY(loader_push(l, &l->edges, ST_T_EDGES, v, false, err));
    }
    return ST_OK;
}

static st_status string_init(st_component *self, st_error *err)
{
    string_creator *c = (string_creator *)self;
    if (c->resolution < 2 || c->resolution > INT_MAX)
        return st_component_error(self, "resolution", err, ST_EINVAL,
                                  "resolution must be from 2 to %d vertices (vertices at "
                                  "x / (n - 1)), got %u",
                                  INT_MAX, c->resolution);
    return loader_generate(&c->m, string_build, err);
}

const st_class mesh_string_creator_class = {
    .struct_size = sizeof(st_class),
    .name = "StringMeshCreator",
    .category = "Loader",
    .description = "Procedural creation of a one-dimensional mesh.",
    .instance_size = sizeof(string_creator),
    .fields = string_fields,
    .init = string_init,
    .reinit = string_init,
    .cleanup = loader_cleanup,
};
