/* distance_common.h - what DistanceMapping and SquareDistanceMapping share:
 * the edges they map, the per-edge Jacobian row, the geometric stiffness
 * and the mapping role functions. Internal to the plugin. */
#ifndef DISTANCE_COMMON_H
#define DISTANCE_COMMON_H

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef enum dist_kind { DIST_LENGTH, DIST_SQUARE } dist_kind;

/* The instance of both classes (a map_head first). */
typedef struct dist_map {
    map_head h;
    bool compute_distance;     /* "computeDistance" (DistanceMapping) */
    st_array rest_lengths;     /* "restLengths" (DistanceMapping) */
    double show_scale;         /* "showObjectScale" */
    st_vec4 show_color;        /* "showColor" */
    st_component *topology;    /* "topology" */
    char *geometric_stiffness; /* "geometricStiffness": None, Exact, Stabilized */
    /* Set at init. */
    dist_kind kind;
    int gs;                    /* 0 None, 1 Exact, 2 Stabilized */
    size_t ne, nin;            /* edges (outputs), input points */
    unsigned *edges;           /* ne x 2, copied from the topology at init */
    double *g;                 /* ne x 3: the Jacobian row of each edge at the last apply */
    double *invlen;            /* ne: 1 / length (0 for a null length; DistanceMapping) */
    double *coef;              /* ne: the child force's factor of K (update_k), 0: none */
} dist_map;

/* The init of both classes: options, input (Vec3d or Rigid3d) and output
 * (Vec1d), the topology's edges, the rest lengths (DistanceMapping), the
 * output resized and mapped. */
st_status dist_init(st_component *self, dist_kind kind, st_error *err);
void dist_cleanup(st_component *self);
extern const st_mapping_ops dist_ops;
extern const char *const dist_templates[];

/* SOFA's geometricStiffness data of the non-linear mappings (default
 * Stabilized). */
#define DIST_GS_FIELD                                                                             \
    ST_STRING(dist_map, geometric_stiffness, "geometricStiffness", "Stabilized",                  \
              "Method used to compute the geometric stiffness:\n-None: geometric stiffness is "   \
              "not computed\n-Exact: the exact geometric stiffness is computed\n-Stabilized: "    \
              "the exact geometric stiffness is approximated in order to improve stability")

#endif
