/* model_common.c - what every collision model does: find its state and
 * elements at init, bounding boxes each step, SOFA's canCollideWith, and
 * the force field role through which the contacts of the pairs it owns
 * act (penalty.c computes them). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision.h"
#include "penalty.h"
#include "../shared/topology_link.h"

const char *const cmodel_sphere_templates[] = {"Vec3d", "Rigid3d", NULL};

const double *cmodel_x(const cmodel *m) { return m->ms->position.r; }

double cmodel_radius(const cmodel *m, size_t i)
{
    return i < m->list_radius.n ? m->list_radius.r[i] : m->radius;
}

/* The topology serving the model: its "topology" link, else one in its
 * node or above (SOFA's getMeshTopology). */
static st_component *find_topology(cmodel *m)
{
    if (m->topology)
        return m->topology;
    return st_node_find(m->base.node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
}

static st_status alloc_elems(cmodel *m, size_t n, unsigned width, st_error *err)
{
    m->nelem = n;
    m->elems = n && width ? st_malloc(n * width * sizeof *m->elems) : NULL;
    m->box = st_malloc((n ? n : 1) * 6 * sizeof *m->box);
    if ((n && width && !m->elems) || !m->box)
        return st_error_set(err, ST_ENOMEM, "out of memory listing the collision elements");
    return ST_OK;
}

/* An edge of a triangle list: its sorted vertices and where it was met. */
typedef struct edge_key {
    unsigned lo, hi;
    size_t at;
} edge_key;

static int edge_cmp(const void *pa, const void *pb)
{
    const edge_key *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

/* Edges of a triangle list, each once, in order of first appearance, as
 * first met (sorted once, so that large meshes do not pay n^2). */
static st_status edges_of_triangles(cmodel *m, const st_array *tri, st_error *err)
{
    size_t nt = tri->n, ne = 3 * nt, n = 0;
    edge_key *k = st_malloc((ne ? ne : 1) * sizeof *k);
    bool *first = st_calloc(ne ? ne : 1, sizeof *first);
    if (!k || !first) {
        st_free(k);
        st_free(first);
        return st_error_set(err, ST_ENOMEM, "out of memory listing the edges");
    }
    for (size_t t = 0; t < nt; t++)
        for (int j = 0; j < 3; j++) {
            unsigned a = tri->u[3 * t + j], b = tri->u[3 * t + (j + 1) % 3];
            k[3 * t + j] = (edge_key){a < b ? a : b, a < b ? b : a, 3 * t + j};
        }
    qsort(k, ne, sizeof *k, edge_cmp);
    for (size_t i = 0; i < ne; i++)
        if (i == 0 || k[i].lo != k[i - 1].lo || k[i].hi != k[i - 1].hi) {
            first[k[i].at] = true;
            n++;
        }
    st_free(k);
    st_status rc = alloc_elems(m, n, 2, err);
    size_t e = 0;
    for (size_t i = 0; rc == ST_OK && i < ne; i++)
        if (first[i]) {
            m->elems[2 * e] = tri->u[3 * (i / 3) + i % 3];
            m->elems[2 * e + 1] = tri->u[3 * (i / 3) + (i % 3 + 1) % 3];
            e++;
        }
    st_free(first);
    return rc;
}

/* Whether vertex k of element e is the first of its value in e (a
 * degenerate element names a vertex twice; it is listed once). */
static bool first_in(const unsigned *el, unsigned w, size_t e, unsigned k)
{
    for (unsigned j = 0; j < k; j++)
        if (el[w * e + j] == el[w * e + k])
            return false;
    return true;
}

/* The elements (w vertices each) around each of nv vertices, as CSR
 * lists in ascending element order. */
static st_status around(size_t nv, const unsigned *el, unsigned w, size_t n, unsigned **start,
                        unsigned **items, st_error *err)
{
    *start = st_calloc(nv + 2, sizeof **start);
    *items = st_malloc((n * w + 1) * sizeof **items);
    if (!*start || !*items)
        return st_error_set(err, ST_ENOMEM, "out of memory listing the elements around vertices");
    for (size_t e = 0; e < n; e++)
        for (unsigned k = 0; k < w; k++)
            if (first_in(el, w, e, k))
                (*start)[el[w * e + k] + 2]++;
    for (size_t v = 0; v < nv; v++)
        (*start)[v + 2] += (*start)[v + 1];
    /* start[v + 1] is where v's list begins; filling advances it to the
     * end of v's list, which is where v + 1's begins. */
    for (size_t e = 0; e < n; e++)
        for (unsigned k = 0; k < w; k++)
            if (first_in(el, w, e, k))
                (*items)[(*start)[el[w * e + k] + 1]++] = (unsigned)e;
    return ST_OK;
}

/* SOFA's getTriangleFlags for the first nt triangles (those of the
 * topology; triangles split from quads own nothing, as in SOFA). */
static st_status triangle_flags(cmodel *m, size_t nt, st_error *err)
{
    size_t nv = m->ms->position.n, ne = 3 * nt;
    m->tflags = st_calloc(m->nelem ? m->nelem : 1, 1);
    m->tbedges = st_calloc(m->nelem ? m->nelem : 1, 1);
    unsigned *first = st_malloc((nv ? nv : 1) * sizeof *first);
    edge_key *k = st_malloc((ne ? ne : 1) * sizeof *k);
    if (!m->tflags || !m->tbedges || !first || !k) {
        st_free(first);
        st_free(k);
        return st_error_set(err, ST_ENOMEM, "out of memory computing the triangle flags");
    }
    for (size_t v = 0; v < nv; v++)
        first[v] = UINT_MAX;
    for (size_t t = nt; t-- > 0;)
        for (int j = 0; j < 3; j++)
            first[m->elems[3 * t + j]] = (unsigned)t;
    for (size_t t = 0; t < nt; t++)
        for (int j = 0; j < 3; j++) {
            if (first[m->elems[3 * t + j]] == t)
                m->tflags[t] |= (unsigned char)(TF_P1 << j);
            /* the edge opposite vertex j */
            unsigned a = m->elems[3 * t + (j + 1) % 3], b = m->elems[3 * t + (j + 2) % 3];
            k[3 * t + j] = (edge_key){a < b ? a : b, a < b ? b : a, 3 * t + j};
        }
    qsort(k, ne, sizeof *k, edge_cmp);
    for (size_t i = 0; i < ne; i++)
        if (i == 0 || k[i].lo != k[i - 1].lo || k[i].hi != k[i - 1].hi)
            m->tflags[k[i].at / 3] |= (unsigned char)(TF_E23 << (k[i].at % 3));
    /* SOFA's FLAG_BE23 << j: the edge opposite vertex j is on one triangle only */
    for (size_t i = 0, j; i < ne; i = j) {
        for (j = i + 1; j < ne && k[j].lo == k[i].lo && k[j].hi == k[i].hi; j++)
            ;
        if (j == i + 1)
            m->tbedges[k[i].at / 3] |= (unsigned char)(1u << (k[i].at % 3));
    }
    st_free(first);
    st_free(k);
    return ST_OK;
}

static st_status mesh_elements(cmodel *m, st_error *err)
{
    st_component *topo = find_topology(m);
    bool edges = m->kind == CM_LINE || m->kind == CM_CAPSULE;
    const char *what = edges ? "edges" : "triangles";
    if (!topo || !topo->cls->topology || !topo->cls->topology->elements)
        return st_component_error(&m->base, "topology", err, ST_ESCENE,
                                  "no topology found for its %s (its node and above): add a "
                                  "MeshTopology or a mesh loader's topology",
                                  what);
    const st_topology_ops *ops = topo->cls->topology;
    const st_array *tri = ops->elements(topo, ST_T_TRIANGLES);
    if (edges) {
        const st_array *ed = ops->elements(topo, ST_T_EDGES);
        if (ed && ed->n) {
            ST_TRY(alloc_elems(m, ed->n, 2, err));
            memcpy(m->elems, ed->u, ed->n * 2 * sizeof *m->elems);
        } else if (tri && tri->n) {
            ST_TRY(edges_of_triangles(m, tri, err));
        } else {
            ST_TRY(alloc_elems(m, 0, 2, err));
        }
    } else {
        const st_array *qd = ops->elements(topo, ST_T_QUADS);
        size_t nt = tri ? tri->n : 0, nq = qd ? qd->n : 0;
        ST_TRY(alloc_elems(m, nt + 2 * nq, 3, err));
        if (nt)
            memcpy(m->elems, tri->u, nt * 3 * sizeof *m->elems);
        /* SOFA's TriangleCollisionModel: quad q gives (q0 q1 q2), (q0 q2 q3). */
        for (size_t q = 0; q < nq; q++) {
            const unsigned *v = qd->u + 4 * q;
            unsigned *o = m->elems + 3 * (nt + 2 * q);
            o[0] = v[0], o[1] = v[1], o[2] = v[2];
            o[3] = v[0], o[4] = v[2], o[5] = v[3];
        }
    }
    unsigned w = edges ? 2 : 3;
    for (size_t i = 0; i < w * m->nelem; i++)
        if (m->elems[i] >= m->ms->position.n)
            return st_component_error(&m->base, "topology", err, ST_ESCENE,
                                      "the topology's %s name vertex %u; the state '%s' has %zu "
                                      "points",
                                      what, m->elems[i], m->ms->base.name, m->ms->position.n);
    for (size_t i = 0; tri && i < 3 * tri->n; i++)
        if (tri->u[i] >= m->ms->position.n)
            return st_component_error(&m->base, "topology", err, ST_ESCENE,
                                      "the topology's triangles name vertex %u; the state '%s' "
                                      "has %zu points",
                                      tri->u[i], m->ms->base.name, m->ms->position.n);
    m->topo_tri = tri;
    if (m->kind == CM_TRIANGLE)
        return triangle_flags(m, tri ? tri->n : 0, err);
    ST_TRY(around(m->ms->position.n, m->elems, 2, m->nelem, &m->ve_start, &m->ve_items, err));
    return around(m->ms->position.n, tri ? tri->u : NULL, 3, tri ? tri->n : 0, &m->vt_start,
                  &m->vt_items, err);
}

/* TetrahedronCollisionModel: the topology's tetrahedra. */
static st_status tetra_elements(cmodel *m, st_error *err)
{
    st_component *topo = find_topology(m);
    if (!topo || !topo->cls->topology || !topo->cls->topology->elements)
        return st_component_error(&m->base, "topology", err, ST_ESCENE,
                                  "no topology found for its tetrahedra (its node and above): add "
                                  "a TetrahedronSetTopologyContainer or a MeshTopology");
    const st_array *tet = topo->cls->topology->elements(topo, ST_T_TETRAS);
    size_t n = tet ? tet->n : 0;
    ST_TRY(alloc_elems(m, n, 4, err));
    for (size_t i = 0; i < 4 * n; i++) {
        if (tet->u[i] >= m->ms->position.n)
            return st_component_error(&m->base, "topology", err, ST_ESCENE,
                                      "the topology's tetrahedra name vertex %u; the state '%s' "
                                      "has %zu points",
                                      tet->u[i], m->ms->base.name, m->ms->position.n);
        m->elems[i] = tet->u[i];
    }
    return ST_OK;
}

/* An element list of the topology if every index is a point of the state. */
static const st_array *checked(const cmodel *m, st_component *topo, st_type t, unsigned w)
{
    const st_array *a = topo->cls->topology->elements(topo, t);
    for (size_t i = 0; a && i < w * a->n; i++)
        if (a->u[i] >= m->ms->position.n)
            return NULL;
    return a;
}

static st_status cmodel_changed(st_component *self, st_component *topology,
                                const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev, (void)err;
    ((cmodel *)self)->stale = true;
    return ST_OK;
}

/* The element data read from the topology and the state (not the pairs). */
static void free_elements(cmodel *m)
{
    st_free(m->elems);
    st_free(m->box);
    st_free(m->pnormals);
    st_free(m->tflags);
    st_free(m->tbedges);
    st_free(m->oct_tnorm);
    st_free(m->oct_vnorm);
    m->oct_tnorm = m->oct_vnorm = NULL;
    m->oct_step = 0;
    m->elems = NULL;
    m->box = NULL;
    m->pnormals = NULL;
    m->tflags = NULL;
    m->tbedges = NULL;
    m->nelem = 0;
    unsigned **csr[] = {&m->vt_start, &m->vt_items, &m->ve_start, &m->ve_items};
    for (int i = 0; i < 4; i++) {
        st_free(*csr[i]);
        *csr[i] = NULL;
    }
    m->topo_tri = m->topo_tet = m->topo_quad = NULL;
}

st_status cmodel_refresh(cmodel *m, st_error *err)
{
    /* A model of one element per point follows its state's size, as SOFA's
     * Point and Sphere models resize in computeBoundingTree: a state sized
     * by its mapping after the model's init (a MechanicalObject before its
     * IdentityMapping in the node) sends no topology event. */
    bool per_point = m->kind == CM_POINT || m->kind == CM_SPHERE || m->kind == CM_RIGIDSPHERE;
    if (per_point && m->ms && m->nelem != m->ms->position.n)
        m->stale = true;
    if (!m->stale)
        return ST_OK;
    m->stale = false;
    free_elements(m);
    return cmodel_init(m, m->kind == CM_RIGIDSPHERE ? CM_SPHERE : m->kind, err);
}

st_status cmodel_init(cmodel *m, cm_kind kind, st_error *err)
{
    st_component *self = &m->base;
    if (!m->listening) {
        ST_TRY(st_listen_topologies_above(self, cmodel_changed, err));
        st_component *topo = find_topology(m);
        bool above = false;
        for (st_node *n = self->node; topo && n && !above; n = st_node_parent(n))
            above = topo->node == n;
        if (topo && !above && topo->cls->topology)
            ST_TRY(st_topology_listen(self, topo, cmodel_changed, err));
        m->listening = true;
    }
    m->ms = st_component_mstate(self); /* SOFA's context state */
    if (!m->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "no MechanicalObject in its node or its ancestors: a collision "
                                  "model works on the state of its node (else of the nearest "
                                  "ancestor)");
    const st_state_type *t = m->ms->type;
    bool rigid = t && t->rigid && t->deriv_size == 6;
    if (kind == CM_SPHERE && rigid)
        kind = CM_RIGIDSPHERE;
    else if (kind == CM_CAPSULE && rigid) /* SOFA's CapsuleCollisionModel<Rigid3d> */
        kind = CM_RIGIDCAPSULE;
    else if ((kind == CM_CYLINDER || kind == CM_OBB || kind == CM_RIGIDCAPSULE ||
              kind == CM_RIGIDDGRID) && !rigid)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "requires a Rigid3d state; the state '%s' is %s",
                                  m->ms->base.name, t ? t->name : "untyped");
    else if (t && t->coord_size != 3 && kind != CM_CUBE && kind != CM_CYLINDER &&
             kind != CM_OBB && kind != CM_RIGIDCAPSULE && kind != CM_RIGIDDGRID)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "works on Vec3d states; the state '%s' is %s", m->ms->base.name,
                                  t->name);
    m->kind = kind;
    if (kind == CM_RAY)
        st_component_warn(self,
                          "its rays make no contact in this run: a ray gets its direction only "
                          "from interactive picking (SOFA's mouse), which a headless run does "
                          "not have, so each ray is its origin point and no intersection tests "
                          "it (SOFA without picking does the same)");
    cresp resp;
    if (m->contact_response && m->contact_response[0])
        ST_TRY(cresponse_parse(self, "contactResponse", m->contact_response, &resp, err));
    switch (kind) {
    case CM_LINE:
    case CM_CAPSULE:
    case CM_TRIANGLE:
        return mesh_elements(m, err);
    case CM_CUBE:
        return alloc_elems(m, 0, 0, err);
    case CM_TETRA:
        return tetra_elements(m, err);
    case CM_RIGIDDGRID:
    case CM_FFDDGRID:
        return dgrid_model_init(m, err);
    default:
        break;
    }
    /* SOFA's resize pads listRadius with radius (getRadius reads radius
     * past its end, as cmodel_radius does) and drops radii past the state's
     * points. */
    if ((kind == CM_SPHERE || kind == CM_RIGIDSPHERE) && m->list_radius.n &&
        m->list_radius.n != m->ms->position.n) {
        if (m->list_radius.n < m->ms->position.n)
            st_component_warn_field(self, "listRadius",
                                    "listRadius has %zu radii for %zu spheres (the state's "
                                    "points): spheres %zu to %zu take the default radius %g "
                                    "(`radius`), as SOFA does",
                                    m->list_radius.n, m->ms->position.n, m->list_radius.n,
                                    m->ms->position.n - 1, m->radius);
        else
            st_component_warn_field(self, "listRadius",
                                    "listRadius has %zu radii for %zu spheres (the state's "
                                    "points): the extra radii are not used, as SOFA does",
                                    m->list_radius.n, m->ms->position.n);
    }
    if (kind == CM_POINT) { /* LocalMinDistance's filters read the triangles */
        st_component *topo = find_topology(m);
        if (topo && topo->cls->topology && topo->cls->topology->elements) {
            m->topo_tri = checked(m, topo, ST_T_TRIANGLES, 3);
            m->topo_tet = checked(m, topo, ST_T_TETRAS, 4);
            m->topo_quad = checked(m, topo, ST_T_QUADS, 4);
        }
        if (m->compute_normals &&
            !(m->pnormals = st_calloc(m->ms->position.n ? 3 * m->ms->position.n : 1, sizeof(double))))
            return st_error_set(err, ST_ENOMEM, "out of memory for the points' normals");
        const st_array *tri = m->topo_tri;
        ST_TRY(around(m->ms->position.n, tri ? tri->u : NULL, 3, tri ? tri->n : 0, &m->vt_start,
                      &m->vt_items, err));
    }
    return alloc_elems(m, m->ms->position.n, 0, err);
}

void cmodel_cleanup(st_component *self)
{
    cmodel *m = (cmodel *)self;
    free_elements(m);
    dgrid_model_free(m);
    st_free(m->owned);
    m->owned = NULL;
    m->nowned = 0;
}

bool st_is_collision_model(const st_component *c)
{
    return c->cls->forcefield == &cmodel_forcefield_ops;
}

/* The position of vertex i (coordinates; the centre for Rigid3d). */
static const double *vertex(const cmodel *m, const double *x, unsigned i)
{
    return x + (size_t)m->ms->type->coord_size * i;
}

/* n += the unit normal of (p2 - p1) x (p3 - p1) at each of the k vertices in v. */
static void add_face_normal(double *nrm, const double *x, unsigned i1, unsigned i2, unsigned i3,
                            const unsigned *v, int k)
{
    const double *p1 = x + 3 * (size_t)i1, *p2 = x + 3 * (size_t)i2, *p3 = x + 3 * (size_t)i3;
    double u[3] = {p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]};
    double w[3] = {p3[0] - p1[0], p3[1] - p1[1], p3[2] - p1[2]};
    double c[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    double l = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    if (l == 0.0)
        return;
    for (int j = 0; j < k; j++)
        for (int a = 0; a < 3; a++)
            nrm[3 * (size_t)v[j] + a] += c[a] / l;
}

/* SOFA's PointCollisionModel::updateNormals: the sum of the unit normals
 * of the tetrahedra's faces (or, without tetrahedra, of the triangles and
 * quads) around each point, normalised (zero when shorter than 1e-3). */
static void update_point_normals(cmodel *m)
{
    const double *x = cmodel_x(m);
    size_t n = m->ms->position.n;
    double *nrm = m->pnormals;
    memset(nrm, 0, 3 * n * sizeof *nrm);
    const st_array *tet = m->topo_tet, *tri = m->topo_tri, *qd = m->topo_quad;
    if (tet && tet->n) {
        for (size_t i = 0; i < tet->n; i++) {
            const unsigned *e = tet->u + 4 * i;
            /* SOFA's faces: cross(p3-p1, p2-p1) at 1 2 3, cross(p4-p1, p3-p1) at 1 3 4,
             * cross(p2-p1, p4-p1) at 1 4 2, cross(p3-p2, p4-p2) at 2 4 3 */
            const unsigned f0[3] = {e[0], e[1], e[2]}, f1[3] = {e[0], e[2], e[3]},
                           f2[3] = {e[0], e[3], e[1]}, f3[3] = {e[1], e[3], e[2]};
            add_face_normal(nrm, x, e[0], e[2], e[1], f0, 3);
            add_face_normal(nrm, x, e[0], e[3], e[2], f1, 3);
            add_face_normal(nrm, x, e[0], e[1], e[3], f2, 3);
            add_face_normal(nrm, x, e[1], e[2], e[3], f3, 3);
        }
    } else {
        for (size_t i = 0; tri && i < tri->n; i++)
            add_face_normal(nrm, x, tri->u[3 * i], tri->u[3 * i + 1], tri->u[3 * i + 2],
                            tri->u + 3 * i, 3);
        for (size_t i = 0; qd && i < qd->n; i++) {
            /* SOFA: cross(p3 - p1, p4 - p2) */
            const unsigned *q = qd->u + 4 * i;
            const double *p1 = x + 3 * (size_t)q[0], *p2 = x + 3 * (size_t)q[1],
                         *p3 = x + 3 * (size_t)q[2], *p4 = x + 3 * (size_t)q[3];
            double u[3] = {p3[0] - p1[0], p3[1] - p1[1], p3[2] - p1[2]};
            double w[3] = {p4[0] - p2[0], p4[1] - p2[1], p4[2] - p2[2]};
            double c[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2],
                           u[0] * w[1] - u[1] * w[0]};
            double l = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            for (int j = 0; j < 4 && l > 0; j++)
                for (int a = 0; a < 3; a++)
                    nrm[3 * (size_t)q[j] + a] += c[a] / l;
        }
    }
    for (size_t i = 0; i < n; i++) {
        double *v = nrm + 3 * i, l = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        for (int a = 0; a < 3; a++)
            v[a] = l > 1.0e-3 ? v[a] / l : 0.0;
    }
}

/* Cylinder i's radius, height and axis (SOFA: the lists, else the defaults). */
void cmodel_cylinder(const cmodel *m, size_t i, double *r, double *h, double axis[3])
{
    *r = i < m->radii.n ? m->radii.r[i] : m->default_radius;
    *h = i < m->heights.n ? m->heights.r[i] : m->default_height;
    const double *c = cmodel_x(m) + 7 * i;
    st_quat_rotate(axis, c + 3, m->default_axis);
}

static void update_grid_box(cmodel *m);

void cmodel_update_boxes(cmodel *m)
{
    const double *x = cmodel_x(m);
    if (m->pnormals)
        update_point_normals(m);
    if (m->kind == CM_RIGIDDGRID || m->kind == CM_FFDDGRID) {
        dgrid_update_boxes(m);
        return;
    }
    double *mb = m->mbox;
    mb[0] = mb[1] = mb[2] = 1e300;
    mb[3] = mb[4] = mb[5] = -1e300;
    m->ext[0] = m->ext[1] = m->ext[2] = 0.0;
    unsigned w = m->kind == CM_LINE || m->kind == CM_CAPSULE ? 2
                 : m->kind == CM_TRIANGLE                   ? 3
                 : m->kind == CM_TETRA                      ? 4
                 : m->kind == CM_CYLINDER || m->kind == CM_OBB || m->kind == CM_RIGIDCAPSULE ? 0
                                                            : 1;
    for (size_t e = 0; e < m->nelem; e++) {
        double *b = m->box + 6 * e;
        double r = (m->kind == CM_SPHERE || m->kind == CM_RIGIDSPHERE) ? cmodel_radius(m, e) : 0.0;
        if (m->kind == CM_CAPSULE)
            r = cmodel_capsule_radius(m, e);
        for (int k = 0; k < 3; k++) {
            b[k] = 1e300;
            b[k + 3] = -1e300;
        }
        for (unsigned v = 0; v < w; v++) {
            const double *p = vertex(m, x, w == 1 ? (unsigned)e : m->elems[w * e + v]);
            for (int k = 0; k < 3; k++) {
                if (p[k] - r < b[k])
                    b[k] = p[k] - r;
                if (p[k] + r > b[k + 3])
                    b[k + 3] = p[k] + r;
            }
        }
        if (m->kind == CM_CYLINDER) {
            double cr, ch, ax[3];
            cmodel_cylinder(m, e, &cr, &ch, ax);
            st_coll_cylinder_box(x + 7 * e, ax, cr, ch, b);
        } else if (m->kind == CM_RIGIDCAPSULE) {
            double p1[3], p2[3], cr;
            obbcap_capsule(m, e, p1, p2, &cr);
            for (int k = 0; k < 3; k++) {
                b[k] = (p1[k] < p2[k] ? p1[k] : p2[k]) - cr;
                b[k + 3] = (p1[k] > p2[k] ? p1[k] : p2[k]) + cr;
            }
        } else if (m->kind == CM_OBB) { /* the corners, widened by contactDistance */
            double c[3], ax[3][3], he[3];
            obbcap_box(m, e, c, ax, he);
            for (int k = 0; k < 3; k++) {
                double hw = fabs(ax[0][k]) * he[0] + fabs(ax[1][k]) * he[1] + fabs(ax[2][k]) * he[2];
                b[k] = c[k] - hw - m->contact_distance;
                b[k + 3] = c[k] + hw + m->contact_distance;
            }
        }
        for (int k = 0; k < 3; k++) {
            if (b[k] < mb[k])
                mb[k] = b[k];
            if (b[k + 3] > mb[k + 3])
                mb[k + 3] = b[k + 3];
        }
        for (int k = 0; k < 3; k++)
            if (b[k + 3] - b[k] > m->ext[k])
                m->ext[k] = b[k + 3] - b[k];
    }
    if (m->grid_state)
        update_grid_box(m);
}

/* TriangleModelInRegularGrid's bounding cube: its grid state's points'
 * box, accumulated as SOFA does (a coordinate above the maximum is not
 * tested against the minimum). */
static void update_grid_box(cmodel *m)
{
    const st_mstate *g = m->grid_state;
    double *b = m->gbox;
    if (!g->n) {
        for (int k = 0; k < 3; k++)
            b[k] = 1e300, b[k + 3] = -1e300;
        return;
    }
    const double *x = g->position.r;
    for (int k = 0; k < 3; k++)
        b[k] = b[k + 3] = x[k];
    for (size_t i = 1; i < g->n; i++)
        for (int k = 0; k < 3; k++) {
            double v = x[3 * i + k];
            if (v > b[k + 3])
                b[k + 3] = v;
            else if (v < b[k])
                b[k] = v;
        }
}

bool cmodel_can_collide(const cmodel *a, const cmodel *b)
{
    if (a->base.node == b->base.node)
        return a->self_collision;
    if (!a->group.n || !b->group.n)
        return true;
    for (size_t i = 0; i < a->group.n; i++)
        for (size_t j = 0; j < b->group.n; j++)
            if (a->group.u[i] == b->group.u[j])
                return false;
    return true;
}

/* ---- the force field role: the contacts of the pairs this model owns ---- */

static void cm_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp;
    cmodel *m = (cmodel *)self;
    for (size_t i = 0; i < m->nowned; i++)
        penalty_add_force(m->owned[i], f, x, v);
}

static void cm_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                          double kfactor, double bfactor)
{
    (void)mp;
    (void)bfactor;
    cmodel *m = (cmodel *)self;
    if (kfactor == 0.0)
        return;
    for (size_t i = 0; i < m->nowned; i++)
        penalty_add_dforce(m->owned[i], df, dx, kfactor);
}

static void cm_add_k(st_component *self, const st_mparams *mp, st_matrix *mat, double kfactor)
{
    (void)mp;
    cmodel *m = (cmodel *)self;
    for (size_t i = 0; i < m->nowned; i++)
        penalty_add_k(m->owned[i], mat, kfactor);
}

static double cm_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    (void)x;
    cmodel *m = (cmodel *)self;
    double e = 0.0;
    for (size_t i = 0; i < m->nowned; i++)
        e += penalty_energy(m->owned[i]);
    return e;
}

const st_forcefield_ops cmodel_forcefield_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = cm_add_force,
    .add_dforce = cm_add_dforce,
    .add_k_to_matrix = cm_add_k,
    .potential_energy = cm_energy,
};
