/* random_point_distribution.c - RandomPointDistributionInSurface: draws
 * points uniformly in the box of a closed triangle surface until
 * numberOfInPoints of them are inside and at least minDistanceBetweenPoints
 * from the ones kept (inPoints); the others go to outPoints. A point is
 * inside when, along each of numberOfTests random directions (drawn once,
 * each coordinate in [-1, 1]), the nearest triangle the ray meets faces
 * away from it (its normal (b - a) x (c - a) along the direction); as in
 * SOFA, a direction that meets nothing repeats the previous direction's
 * answer for that point. An even numberOfTests is raised by one with SOFA's
 * warning. The draws are SOFA's: its RandomGenerator (rand48, see
 * shared/sofa_random.h) seeded with randomSeed, the directions first, then
 * three coordinates per point, so a scene with a nonzero randomSeed gives
 * SOFA's points (SOFA finds the nearest triangle with an octree, settee by
 * testing each triangle: the same triangle but for exact ties). randomSeed 0
 * seeds with the time, as SOFA, and the seed used is written back to
 * randomSeed. The drawing stops after numberOfInPoints^4 tries with SOFA's
 * error (SOFA computes that bound in 32 bits, where it wraps to 0 from 256
 * points on; settee does not wrap). Fewer than two triangles or vertices:
 * SOFA's error, as a warning, and no points. */
#include <float.h>
#include <math.h>
#include <time.h>

#include "../shared/ray_triangle.h"
#include "../shared/engine_util.h"
#include "../shared/sofa_random.h"

typedef struct random_points {
    st_component base;
    unsigned seed;         /* "randomSeed" */
    bool visible, draw_out;
    double min_distance;
    unsigned n_in, n_tests;
    st_array vertices;     /* vec3[] */
    st_array triangles;
    st_array in_points, out_points; /* outputs, vec3[] */
    sofa_rng rng;
    double *dirs;          /* 3 x n_tests */
    bool seeded;
} random_points;

static const st_field random_points_fields[] = {
    ST_UINT(random_points, seed, "randomSeed", "0",
            "Set a specified seed for random generation (0 for \"true pseudo-randomness\" "),
    ST_IGNORED(random_points, visible, "isVisible", ST_T_BOOL, bool, "true", "is Visible ?"),
    ST_IGNORED(random_points, draw_out, "drawOutputPoints", ST_T_BOOL, bool, "false",
               "Output points visible ?"),
    ST_REAL(random_points, min_distance, "minDistanceBetweenPoints", "0.1",
            "Min Distance between 2 points (-1 for true randomness)"),
    ST_UINT(random_points, n_in, "numberOfInPoints", "10", "Number of points inside"),
    ST_UINT(random_points, n_tests, "numberOfTests", "5",
            "Number of tests to find if the point is inside or not (odd number)"),
    ST_VEC3S(random_points, vertices, "vertices", NULL, "Vertices"),
    ST_TRIANGLES(random_points, triangles, "triangles", NULL, "Triangles indices"),
    ST_OUTPUT(random_points, in_points, "inPoints", ST_T_VEC3S, st_array,
              "Points inside the surface"),
    ST_OUTPUT(random_points, out_points, "outPoints", ST_T_VEC3S, st_array,
              "Points outside the surface"),
    ST_FIELD_END};


static bool is_inside(const random_points *r, const double *p)
{
    const double *x = r->vertices.r;
    unsigned inside = 0;
    long tid = -1; /* SOFA's trace result, kept from one direction to the next */
    for (unsigned i = 0; i < r->n_tests; i++) {
        const double *d = r->dirs + 3 * i;
        double best = 10e8;
        for (size_t t = 0; t < r->triangles.n; t++) {
            const unsigned *v = r->triangles.u + 3 * t;
            double h;
            if (ray_triangle(x + 3 * v[0], x + 3 * v[1], x + 3 * v[2], p, d, &h, NULL, NULL) && h < best)
                best = h, tid = (long)t;
        }
        if (tid < 0)
            continue;
        const unsigned *v = r->triangles.u + 3 * tid;
        const double *a = x + 3 * v[0], *b = x + 3 * v[1], *c = x + 3 * v[2];
        double u[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double w[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
        double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                       u[0] * w[1] - u[1] * w[0]};
        if (d[0] * n[0] + d[1] * n[1] + d[2] * n[2] > 0.0)
            inside++;
    }
    return inside == r->n_tests;
}

static bool far_enough(const random_points *r, const double *p)
{
    const double md2 = r->min_distance * r->min_distance;
    for (size_t i = 0; i < r->in_points.n; i++) {
        const double *q = r->in_points.r + 3 * i;
        double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
        if (dx * dx + dy * dy + dz * dz < md2)
            return false;
    }
    return true;
}

static st_status random_points_update(st_component *self, st_error *err)
{
    random_points *r = (random_points *)self;
    if (!r->seeded) {
        if (r->n_tests % 2 == 0) {
            st_component_warn_field(self, "numberOfTests",
                                    "even number of tests, adding an other ...");
            r->n_tests++;
        }
        if (r->seed == 0)
            r->seed = (unsigned)time(NULL);
        sofa_rng_seed(&r->rng, (long)r->seed);
        r->dirs = st_malloc(3 * (size_t)r->n_tests * sizeof *r->dirs);
        if (!r->dirs)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        for (size_t i = 0; i < 3 * (size_t)r->n_tests; i++)
            r->dirs[i] = sofa_rng_real(&r->rng, -1.0, 1.0);
        r->seeded = true;
    }
    const st_array *x = &r->vertices, *tr = &r->triangles;
    if (tr->n <= 1 || x->n <= 1) {
        st_component_warn(self, "In input data (number of vertices of triangles is less than 1): "
                                "no points drawn (SOFA's error)");
        return ST_OK;
    }
    for (size_t i = 0; i < 3 * tr->n; i++)
        if (tr->u[i] >= x->n)
            return st_component_error(self, "triangles", err, ST_EINVAL,
                                      "triangle %zu names point %u of %zu", i / 3, tr->u[i],
                                      x->n);
    eng_clear(&r->in_points);
    eng_clear(&r->out_points);
    double lo[3], hi[3];
    memcpy(lo, x->r, sizeof lo);
    memcpy(hi, x->r, sizeof hi);
    for (size_t i = 1; i < x->n; i++)
        for (int k = 0; k < 3; k++) {
            if (x->r[3 * i + k] < lo[k])
                lo[k] = x->r[3 * i + k];
            if (x->r[3 * i + k] > hi[k])
                hi[k] = x->r[3 * i + k];
        }
    const uint64_t n = r->n_in, limit = n * n * n * n;
    uint64_t tries = 0;
    unsigned kept = 0;
    while (kept < r->n_in && tries < limit) {
        double p[3];
        for (int k = 0; k < 3; k++)
            p[k] = sofa_rng_real(&r->rng, lo[k], hi[k]);
        if (is_inside(r, p) && far_enough(r, p)) {
            ST_TRY(eng_push_r(&r->in_points, 3, p, err));
            kept++;
        } else {
            ST_TRY(eng_push_r(&r->out_points, 3, p, err));
        }
        tries++;
    }
    if (kept < r->n_in)
        st_component_warn(self, "While generating point ; cancelling to break infinite loop "
                                "(%u of %u points inside after %llu tries; SOFA's error)",
                          kept, r->n_in, (unsigned long long)tries);
    return ST_OK;
}

static void random_points_cleanup(st_component *self)
{
    random_points *r = (random_points *)self;
    st_free(r->dirs);
    r->dirs = NULL;
}

static const st_engine_ops random_points_engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = random_points_update,
};

const st_class random_point_distribution_class = {
    .struct_size = sizeof(st_class),
    .name = "RandomPointDistributionInSurface",
    .category = "Engine",
    .description = "Engine distributing points over a surface randomly.",
    .instance_size = sizeof(random_points),
    .fields = random_points_fields,
    .engine = &random_points_engine,
    .cleanup = random_points_cleanup,
};
