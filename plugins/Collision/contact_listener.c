/* contact_listener.c - ContactListener: SOFA's utility that records, at
 * each collision, the detection outputs of the pairs involving one
 * collision model (collisionModel1 alone), or of the pair of two models.
 *
 * SOFA's listener keeps two lists of detection-output vectors: at the
 * collision's beginning the current list becomes the buffer and the
 * current one is emptied; at its end the current one takes the outputs of
 * every matching pair. Its getters (the SofaPython3 methods
 * getNumberOfContacts, getDistances, getContactPoints, getContactElements,
 * getContactData) read the first vector of the buffer, that is the
 * previous collision's: after step k they describe step k - 1 (SOFA's
 * behaviour, kept). The number of contacts is that vector's size when it
 * does not exceed the size of both models, else 0. A contact's "first"
 * model id is 0 when the detection's first element belongs to
 * collisionModel1, else 1.
 *
 * The pipeline (collision_pipeline.c) finds at bind the listeners whose
 * nearest narrow phase (in their node, then above: SOFA's context search)
 * is its own, and calls contact_listener_collide after each narrow phase
 * with the pairs that have detection outputs, in the broad phase's order:
 * those without a contact response too (SOFA's "nullptr": SOFA's listener
 * reads the narrow phase's outputs, which hold them; the pipeline computes
 * them for the listeners' models, contact_listener_models). The getters' values are
 * hidden output fields, which the Python module's methods read. */
#include <string.h>

#include "collision.h"
#include "detection_phases.h"

/* One recorded contact: SOFA's DetectionOutput, as the getters read it. */
typedef struct lcontact {
    unsigned first_model; /* 0: the detection's first element is on collisionModel1 */
    unsigned e[2];
    double p[2][3];
    double value;
} lcontact;

typedef struct contact_listener {
    st_component base;
    st_component *l1, *l2; /* "collisionModel1", "collisionModel2" links */
    /* Set at init: SOFA's m_CollisionModel1, m_CollisionModel2. */
    const cmodel *m1, *m2;
    /* The first vector of the current list and of the buffer; whether
     * each list holds a vector at all. */
    lcontact *cur, *prev;
    size_t ncur, nprev, capcur, capprev;
    bool has_cur, has_prev;
    size_t nvectors;       /* vectors in the current list */
    /* The getters' values (hidden outputs). */
    unsigned n_contacts;   /* "listenerNumberOfContacts" */
    st_array distances;    /* "listenerDistances": real per contact */
    st_array points;       /* "listenerPoints": 8 reals per contact: id, point, id, point */
    st_array elements;     /* "listenerElements": 4 per contact: id, element, id, element */
    unsigned n_vectors;    /* "listenerVectors": vectors of this collision's list */
} contact_listener;

static const st_field fields[] = {
    ST_LINK(contact_listener, l1, "collisionModel1", ST_LINK_ANY,
            "The first collision model: with collisionModel2 unset, every pair it is in is "
            "recorded"),
    ST_LINK(contact_listener, l2, "collisionModel2", ST_LINK_ANY,
            "The second collision model: only the pair of the two models is recorded"),
    ST_FIELD_EX(contact_listener, n_contacts, "listenerNumberOfContacts", ST_T_UINT, unsigned,
                "0", "settee: getNumberOfContacts()", ST_F_OUTPUT | ST_F_HIDDEN, NULL, 0.0, 0.0),
    ST_FIELD_EX(contact_listener, distances, "listenerDistances", ST_T_REALS, st_array, NULL,
                "settee: getDistances()", ST_F_OUTPUT | ST_F_HIDDEN, NULL, 0.0, 0.0),
    ST_FIELD_EX(contact_listener, points, "listenerPoints", ST_T_REALS, st_array, NULL,
                "settee: getContactPoints(), 8 values per contact", ST_F_OUTPUT | ST_F_HIDDEN,
                NULL, 0.0, 0.0),
    ST_FIELD_EX(contact_listener, elements, "listenerElements", ST_T_UINTS, st_array, NULL,
                "settee: getContactElements(), 4 values per contact", ST_F_OUTPUT | ST_F_HIDDEN,
                NULL, 0.0, 0.0),
    ST_FIELD_EX(contact_listener, n_vectors, "listenerVectors", ST_T_UINT, unsigned, "0",
                "settee: the number of detection-output vectors of the last collision",
                ST_F_OUTPUT | ST_F_HIDDEN, NULL, 0.0, 0.0),
    ST_FIELD_END};

static const cmodel *as_model(contact_listener *l, const char *field, st_component *c)
{
    if (!c)
        return NULL;
    if (st_is_collision_model(c))
        return (const cmodel *)c;
    st_component_warn_field(&l->base, field,
                            "'%s' (%s) is not a collision model: taken as unset, as SOFA's link "
                            "gives none",
                            c->name, c->cls->name);
    return NULL;
}

static st_status listener_init(st_component *self, st_error *err)
{
    contact_listener *l = (contact_listener *)self;
    const cmodel *a = as_model(l, "collisionModel1", l->l1);
    const cmodel *b = as_model(l, "collisionModel2", l->l2);
    if (!a && !b)
        return st_component_error(self, "collisionModel1", err, ST_ESCENE,
                                  "Data attributes 'collisionModel1' and 'collisionModel2' are "
                                  "not pointing to valid collision models.");
    /* SOFA: collisionModel2 alone stands for the first model. */
    if (!l->l1) {
        l->m1 = b;
        l->m2 = NULL;
    } else {
        l->m1 = a;
        l->m2 = l->l2 ? b : NULL;
    }
    return ST_OK;
}

static bool matches(const contact_listener *l, const cpair *q)
{
    if (!l->m2)
        return l->m1 == q->m[0] || l->m1 == q->m[1];
    return (l->m1 == q->m[0] && l->m2 == q->m[1]) || (l->m1 == q->m[1] && l->m2 == q->m[0]);
}

/* The getters' values from the buffer's first vector. */
static st_status publish(contact_listener *l, st_error *err)
{
    size_t n = 0;
    if (l->has_prev && l->nprev > 0 &&
        ((l->m1 && l->nprev <= l->m1->nelem) || (l->m2 && l->nprev <= l->m2->nelem)))
        n = l->nprev;
    l->n_contacts = (unsigned)n;
    ST_TRY(st_array_resize(&l->distances, ST_T_REALS, n, err));
    ST_TRY(st_array_resize_width(&l->points, 1, 8 * n, err));
    ST_TRY(st_array_resize(&l->elements, ST_T_UINTS, 4 * n, err));
    for (size_t i = 0; i < n; i++) {
        const lcontact *c = &l->prev[i];
        double *pt = l->points.r + 8 * i;
        unsigned *el = l->elements.u + 4 * i;
        l->distances.r[i] = c->value;
        pt[0] = c->first_model;
        pt[4] = !c->first_model;
        el[0] = c->first_model;
        el[1] = c->e[0];
        el[2] = !c->first_model;
        el[3] = c->e[1];
        for (int k = 0; k < 3; k++) {
            pt[1 + k] = c->p[0][k];
            pt[5 + k] = c->p[1][k];
        }
    }
    l->n_vectors = (unsigned)l->nvectors;
    static const char *const names[] = {"listenerNumberOfContacts", "listenerDistances",
                                        "listenerPoints", "listenerElements", "listenerVectors"};
    for (int k = 0; k < 5; k++)
        st_component_touch(&l->base, st_component_field(&l->base, names[k]));
    return ST_OK;
}

void contact_listener_models(const st_component *self, const cmodel **m1, const cmodel **m2)
{
    const contact_listener *l = (const contact_listener *)self;
    *m1 = l->m1;
    *m2 = l->m2;
}

st_status contact_listener_collide(st_component *self, const cpair *const *pairs, size_t npairs,
                                   st_error *err)
{
    contact_listener *l = (contact_listener *)self;
    /* Collision begin: the current list becomes the buffer, emptied. */
    lcontact *t = l->prev;
    size_t tc = l->capprev;
    l->prev = l->cur;
    l->capprev = l->capcur;
    l->nprev = l->ncur;
    l->has_prev = l->has_cur;
    l->cur = t;
    l->capcur = tc;
    l->ncur = 0;
    l->has_cur = false;
    l->nvectors = 0;
    /* Collision end: the vectors of the matching pairs that have outputs
     * (SOFA's map keeps those only), the first one kept. */
    for (size_t k = 0; k < npairs; k++) {
        const cpair *q = pairs[k];
        if (!q->ndet || !matches(l, q))
            continue;
        l->nvectors++;
        if (l->has_cur)
            continue;
        l->has_cur = true;
        if (q->ndet > l->capcur) {
            lcontact *c = st_realloc(l->cur, q->ndet * sizeof *c);
            if (!c)
                return st_error_set(err, ST_ENOMEM, "out of memory recording contacts");
            l->cur = c;
            l->capcur = q->ndet;
        }
        for (size_t i = 0; i < q->ndet; i++) {
            const cdetect *d = &q->det[i];
            lcontact *c = &l->cur[i];
            c->first_model = l->m1 != q->m[0];
            c->e[0] = d->e[0];
            c->e[1] = d->e[1];
            memcpy(c->p, d->p, sizeof c->p);
            c->value = d->value;
        }
        l->ncur = q->ndet;
    }
    return publish(l, err);
}

static void listener_reset(st_component *self)
{
    contact_listener *l = (contact_listener *)self;
    l->ncur = l->nprev = l->nvectors = 0;
    l->has_cur = l->has_prev = false;
    st_error e = {0};
    (void)publish(l, &e); /* shrinking allocates nothing */
}

static void listener_cleanup(st_component *self)
{
    contact_listener *l = (contact_listener *)self;
    st_free(l->cur);
    st_free(l->prev);
    l->cur = l->prev = NULL;
}

const st_class contact_listener_class = {
    .struct_size = sizeof(st_class),
    .name = "ContactListener",
    .category = "CollisionAlgorithm",
    .description = "Utility component to retrieve information about contacts (from Python: "
                   "getNumberOfContacts, getDistances, getContactPoints, getContactElements, "
                   "getContactData, of the previous collision as in SOFA)",
    .instance_size = sizeof(contact_listener),
    .fields = fields,
    .init = listener_init,
    .reset = listener_reset,
    .cleanup = listener_cleanup,
};
