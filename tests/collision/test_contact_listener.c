/* test_contact_listener.c - ContactListener: the contacts of one pair of
 * collision models (or of every pair of one model), one collision late as
 * SOFA's getters read its buffer. Two unit-diameter spheres 0.9 apart
 * (MinProximityIntersection, contactDistance 0.1): one contact, value
 * 0.9 - 0.5 - 0.5 - 0.1 = -0.2, points at the spheres' centres; a ball falling onto them: after step k the listener gives the
 * pipeline's contacts of step k - 1. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

static test_rt T;
static void setup(void) { test_rt_open(&T); }
static void teardown(void) { test_rt_close(&T); }
TestSuite(contact_listener, .init = setup, .fini = teardown);

static st_scene *load(const char *yaml)
{
    st_scene *s = NULL;
    st_error err = {0};
    cr_assert_eq(test_load_string(&T, yaml, &s, &err), ST_OK, "load: %s\n%s", err.msg, T.log);
    cr_assert_eq(st_scene_init(s, &err), ST_OK, "init: %s %s\n%s", err.path, err.msg, T.log);
    return s;
}

static void *field(st_scene *s, const char *obj, const char *name)
{
    st_component *c = test_find_object(s, obj);
    cr_assert(c, "no %s", obj);
    const st_field *f = st_component_field(c, name);
    cr_assert(f, "%s has no %s", obj, name);
    return st_component_field_ptr(c, f);
}

#define HEAD                                                                                      \
    "format: settee/1\n"                                                                          \
    "root:\n"                                                                                     \
    "  name: root\n"                                                                              \
    "  gravity: [0, %g, 0]\n"                                                                     \
    "  dt: 0.01\n"                                                                                \
    "  objects:\n"                                                                                \
    "    - RequiredPlugin: {pluginName: [ODESolver.Backward, LinearSolver.Iterative, Mass,\n"     \
    "        Constraint.Projective, Collision]}\n"                                                \
    "    - DefaultAnimationLoop: {}\n"                                                            \
    "    - CollisionPipeline: {name: pipeline}\n"                                                 \
    "    - BruteForceBroadPhase: {}\n"                                                            \
    "    - BVHNarrowPhase: {}\n"                                                                  \
    "    - MinProximityIntersection: {alarmDistance: 0.3, contactDistance: 0.1}\n"                \
    "    - CollisionResponse: {}\n"                                                               \
    "%s"                                                                                          \
    "  children:\n"                                                                               \
    "    - name: A\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - EulerImplicitSolver: {}\n"                                                         \
    "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"           \
    "        - MechanicalObject: {position: [[0, 0, 0]]}\n"                                       \
    "        - UniformMass: {totalMass: 1}\n"                                                     \
    "        - FixedProjectiveConstraint: {indices: [0]}\n"                                       \
    "        - SphereCollisionModel: {name: sa, radius: 0.5}\n"                                   \
    "    - name: B\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - MechanicalObject: {position: [[0.9, 0, 0]]}\n"                                     \
    "        - SphereCollisionModel: {name: sb, radius: 0.5, simulated: false, moving: false}\n" \
    "    - name: C\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - EulerImplicitSolver: {}\n"                                                         \
    "        - CGLinearSolver: {iterations: 100, tolerance: 1e-20, threshold: 1e-30}\n"           \
    "        - MechanicalObject: {name: ball, position: [[0.45, %g, 0]]}\n"                       \
    "        - UniformMass: {totalMass: 1}\n"                                                     \
    "        - SphereCollisionModel: {name: sc, radius: 0.1, contactStiffness: 50}\n"

static char yaml[8192];

static st_scene *spheres(double gy, double ball_y, const char *listeners)
{
    snprintf(yaml, sizeof yaml, HEAD, gy, listeners, ball_y);
    return load(yaml);
}

Test(contact_listener, one_pair_one_collision_late)
{
    st_scene *s = spheres(0, 5,
                          "    - ContactListener: {name: lab, collisionModel1: '@A/sa', "
                          "collisionModel2: '@B/sb'}\n"
                          "    - ContactListener: {name: lba, collisionModel1: '@B/sb', "
                          "collisionModel2: '@A/sa'}\n"
                          "    - ContactListener: {name: lac, collisionModel1: '@A/sa', "
                          "collisionModel2: '@C/sc'}\n");
    st_error err = {0};
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    /* Step 1: the pipeline has the contact, the listener's buffer is empty. */
    cr_assert_eq(((st_array *)field(s, "pipeline", "contactDistances"))->n, 1);
    cr_assert_eq(*(unsigned *)field(s, "lab", "listenerNumberOfContacts"), 0);
    cr_assert_eq(*(unsigned *)field(s, "lab", "listenerVectors"), 1);
    cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
    const char *names[2] = {"lab", "lba"};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(*(unsigned *)field(s, names[k], "listenerNumberOfContacts"), 1, "%s",
                     names[k]);
        const st_array *d = field(s, names[k], "listenerDistances");
        cr_assert(fabs(d->r[0] + 0.2) < 1e-12, "%s: value %.17g", names[k], d->r[0]);
        const st_array *p = field(s, names[k], "listenerPoints");
        const st_array *e = field(s, names[k], "listenerElements");
        cr_assert_eq(p->n, 8);
        cr_assert_eq(e->n, 4);
        /* The detection's first element is on the pair's first model (the
         * pipeline's first path: sb, the later model): not lab's
         * collisionModel1 (id 1), lba's (id 0). */
        const st_array *pairs = field(s, "pipeline", "contactPairs");
        cr_assert_str_eq(pairs->s[0], "/B/sb");
        unsigned first = (unsigned)p->r[0];
        cr_assert_eq(first, (unsigned)(1 - k), "%s: first model id %u", names[k], first);
        cr_assert_eq((unsigned)p->r[4], 1u - first);
        cr_assert_eq(e->u[0], first);
        cr_assert_eq(e->u[1], 0);
        cr_assert_eq(e->u[2], 1u - first);
        cr_assert_eq(e->u[3], 0);
        /* The detection's points of two spheres: their centres (SOFA's
         * sphere-sphere output), sb's first. */
        const double want[2][3] = {{0.9, 0, 0}, {0, 0, 0}};
        for (int c = 0; c < 3; c++) {
            cr_assert(fabs(p->r[1 + c] - want[0][c]) < 1e-12, "%s p0[%d] %.17g", names[k], c,
                      p->r[1 + c]);
            cr_assert(fabs(p->r[5 + c] - want[1][c]) < 1e-12, "%s p1[%d] %.17g", names[k], c,
                      p->r[5 + c]);
        }
    }
    cr_assert_eq(*(unsigned *)field(s, "lac", "listenerNumberOfContacts"), 0);
    cr_assert_eq(*(unsigned *)field(s, "lac", "listenerVectors"), 0);
    st_scene_destroy(&s);
}

Test(contact_listener, lags_the_pipeline_by_one_collision)
{
    /* The ball falls onto sa and sb (contact from about step 5); the
     * listener on sc alone hears both of its pairs. */
    st_scene *s = spheres(-9.81, 0.75,
                          "    - ContactListener: {name: l, collisionModel1: '@C/sc'}\n");
    st_error err = {0};
    double prev_d[8];
    size_t prev_n = 0;
    bool seen = false;
    for (int i = 0; i < 40; i++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        unsigned n = *(unsigned *)field(s, "l", "listenerNumberOfContacts");
        cr_assert_eq(n, prev_n, "step %d: %u contacts, the pipeline had %zu", i, n, prev_n);
        const st_array *d = field(s, "l", "listenerDistances");
        for (unsigned c = 0; c < n; c++)
            cr_assert(fabs(d->r[c] - prev_d[c]) < 1e-12, "step %d: %.17g, the pipeline had %.17g",
                      i, d->r[c], prev_d[c]);
        seen |= n > 0;
        /* The pipeline's contacts of this step: its first pair of sc with
         * any, pairs in the order of contactCounts. */
        const st_array *counts = field(s, "pipeline", "contactCounts");
        const st_array *dist = field(s, "pipeline", "contactDistances");
        const st_array *pairs = field(s, "pipeline", "contactPairs");
        size_t off = 0;
        prev_n = 0;
        for (size_t k = 0; k < counts->n; k++) {
            bool sc = !strcmp(pairs->s[2 * k], "/C/sc") || !strcmp(pairs->s[2 * k + 1], "/C/sc");
            if (counts->u[k] && sc) {
                prev_n = counts->u[k];
                break;
            }
            off += counts->u[k];
        }
        cr_assert_leq(prev_n, 8);
        for (size_t c = 0; c < prev_n; c++)
            prev_d[c] = dist->r[off + c];
    }
    cr_assert(seen, "the ball never touched");
    st_scene_destroy(&s);
}

Test(contact_listener, needs_a_collision_model)
{
    snprintf(yaml, sizeof yaml, HEAD, 0.0,
             "    - ContactListener: {name: l, collisionModel1: '@pipeline'}\n", 5.0);
    st_scene *s = NULL;
    st_error err = {0};
    st_status st = test_load_string(&T, yaml, &s, &err);
    if (st == ST_OK) {
        st = st_scene_init(s, &err);
        st_scene_destroy(&s);
    }
    cr_assert_neq(st, ST_OK);
    cr_assert(strstr(err.msg, "'collisionModel1' and 'collisionModel2' are not pointing to "
                              "valid collision models"),
              "%s", err.msg);
    /* collisionModel2 alone stands for the first model. */
    st_scene *t = spheres(0, 5, "    - ContactListener: {name: l, collisionModel2: '@A/sa'}\n");
    for (int i = 0; i < 2; i++)
        cr_assert_eq(st_scene_step(t, 0, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(*(unsigned *)field(t, "l", "listenerNumberOfContacts"), 1);
    st_scene_destroy(&t);
}

Test(contact_listener, hears_pairs_without_response)
{
    /* SOFA's listener reads the narrow phase's outputs, which hold the
     * pairs whose response is "nullptr" too: no contact is made (the
     * pipeline's contact outputs stay empty), yet the listener gives the
     * pair's detection, value -0.2, one collision late; the pipeline
     * detects that pair for it (and for no other reader). */
    snprintf(yaml, sizeof yaml, HEAD, 0.0,
             "    - ContactListener: {name: lab, collisionModel1: '@A/sa', "
             "collisionModel2: '@B/sb'}\n",
             5.0);
    char *r = strstr(yaml, "CollisionResponse: {}");
    cr_assert(r);
    static char with_null[8400];
    snprintf(with_null, sizeof with_null, "%.*sCollisionResponse: {response: nullptr}%s",
             (int)(r - yaml), yaml, r + strlen("CollisionResponse: {}"));
    st_scene *s = load(with_null);
    st_error err = {0};
    for (int k = 0; k < 2; k++) {
        cr_assert_eq(st_scene_step(s, 0, &err), ST_OK, "%s", err.msg);
        cr_assert_eq(((st_array *)field(s, "pipeline", "contactDistances"))->n, 0, "a contact");
        cr_assert_eq(*(unsigned *)field(s, "lab", "listenerVectors"), 1, "step %d", k + 1);
    }
    cr_assert_eq(*(unsigned *)field(s, "lab", "listenerNumberOfContacts"), 1);
    const st_array *d = field(s, "lab", "listenerDistances");
    cr_assert(fabs(d->r[0] + 0.2) < 1e-12, "value %.17g", d->r[0]);
    st_scene_destroy(&s);
}
