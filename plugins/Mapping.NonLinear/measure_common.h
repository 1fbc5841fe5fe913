/* measure_common.h - what AreaMapping and VolumeMapping share: the elements
 * they measure (triangles or tetrahedra of a topology, read once at init),
 * the gradient of each measure (J's row), its Hessian (the geometric
 * stiffness) and the mapping role functions. Internal to the plugin. */
#ifndef MEASURE_COMMON_H
#define MEASURE_COMMON_H

#include <settee/settee.h>

#include "../shared/mapping_common.h"

typedef enum measure_kind { MEASURE_AREA, MEASURE_VOLUME } measure_kind;

/* The instance of both classes (a map_head first). */
typedef struct measure_map {
    map_head h;
    st_component *topology;    /* "topology" */
    char *geometric_stiffness; /* "geometricStiffness": None, Exact, Stabilized */
    /* Set at init. */
    measure_kind kind;
    unsigned nv;               /* vertices per element: 3 or 4 */
    int gs;                    /* 0 None, 1 Exact, 2 Stabilized */
    size_t ne, nin;            /* elements (outputs), input points */
    unsigned *elems;           /* ne x nv, copied from the topology at init */
    double *pos;               /* ne x nv x 3: the vertices at the last apply */
    double *grad;              /* ne x nv x 3: d measure / d vertex at the last apply */
    double *coef;              /* ne: the child force kept by update_k (0: no K) */
} measure_map;

st_status measure_init(st_component *self, measure_kind kind, st_error *err);
void measure_cleanup(st_component *self);
extern const st_mapping_ops measure_ops;

/* The measure of one element (vertices v, nv x 3) and its gradient g
 * (nv x 3); H (nv x nv blocks of 3x3, row-major, block (a, b) at
 * H + 9 (nv a + b)) its Hessian. Exposed for the tests' closed forms. */
double measure_value(measure_kind kind, const double *v, double *g);
void measure_hessian(measure_kind kind, const double *v, double *H);

/* SOFA's geometricStiffness data of AreaMapping and VolumeMapping. */
#define MEASURE_GS_FIELD                                                                          \
    ST_STRING(measure_map, geometric_stiffness, "geometricStiffness", "Stabilized",               \
              "Method used to compute the geometric stiffness:\n-None: geometric stiffness is "   \
              "not computed\n-Exact: the exact geometric stiffness is computed\n-Stabilized: "    \
              "the exact geometric stiffness is approximated in order to improve stability")

#endif
