/* distance_grid_collision.c - SOFA's distance grid collision models
 * (SofaDistanceGrid plugin) in the collision pipeline: their grids and
 * boxes, and the tests SOFA's RigidDistanceGridDiscreteIntersection
 * registers in DiscreteIntersection (so in every proximity method, which
 * derive from it).
 *
 * RigidDistanceGridCollisionModel: one element, the grid (plugins/
 * SofaDistanceGrid/distance_grid.c) placed by frame 0 of its Rigid3d state
 * (with the "rotation" field set, that rotation replaces the frame's; the
 * "translation" field is added in the frame). Against a point p (a Point's
 * vertex, a Line's owned ends, a Triangle's owned corners and the middles
 * of its border edges, a Vec3d sphere's centre): p in the grid's frame is
 * q = R^T (p - t); with q inside the object's box widened by margin =
 * 0.001 + d0 (d0: the contact distances of the method and both models,
 * plus a sphere's radius) and the interpolated distance d(q) < margin, a
 * contact from q - g d (g the normalised gradient at q, brought back to the
 * world) to p, normal R g, value d - d0. flipNormals negates d and g (the
 * object is the grid's outside). Output ids are SOFA's (a point's index,
 * 6 t + corner or 3 + edge for triangles, 2 l + end for lines). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../SofaDistanceGrid/distance_grid.h"
#include "collision.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

bool dgrid_has_test(cm_kind a, cm_kind b)
{
    if (obbcap_order(b) < obbcap_order(a)) {
        cm_kind t = a;
        a = b;
        b = t;
    }
    if (a != CM_RIGIDDGRID)
        return false; /* FFD grids: see dgrid_model_init */
    return b == CM_POINT || b == CM_SPHERE || b == CM_LINE || b == CM_TRIANGLE;
}

/* SOFA's getInitRotation: X(rx) Y(ry) Z(rz), angles in degrees. */
static void init_rotation(const double deg[3], double r[9])
{
    double x = deg[0] * M_PI / 180, y = deg[1] * M_PI / 180, z = deg[2] * M_PI / 180;
    const double X[9] = {1, 0, 0, 0, cos(x), -sin(x), 0, sin(x), cos(x)};
    const double Y[9] = {cos(y), 0, sin(y), 0, 1, 0, -sin(y), 0, cos(y)};
    const double Z[9] = {cos(z), -sin(z), 0, sin(z), cos(z), 0, 0, 0, 1};
    double XY[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            XY[3 * i + j] = 0;
            for (int k = 0; k < 3; k++)
                XY[3 * i + j] += X[3 * i + k] * Y[3 * k + j];
        }
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            r[3 * i + j] = 0;
            for (int k = 0; k < 3; k++)
                r[3 * i + j] += XY[3 * i + k] * Z[3 * k + j];
        }
}

/* SOFA's Quat::toMatrix for q = (x, y, z, w). */
static void quat_matrix(const double q[4], double m[9])
{
    m[0] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
    m[1] = 2 * (q[0] * q[1] - q[2] * q[3]);
    m[2] = 2 * (q[2] * q[0] + q[1] * q[3]);
    m[3] = 2 * (q[0] * q[1] + q[2] * q[3]);
    m[4] = 1 - 2 * (q[2] * q[2] + q[0] * q[0]);
    m[5] = 2 * (q[1] * q[2] - q[0] * q[3]);
    m[6] = 2 * (q[2] * q[0] - q[1] * q[3]);
    m[7] = 2 * (q[1] * q[2] + q[0] * q[3]);
    m[8] = 1 - 2 * (q[1] * q[1] + q[0] * q[0]);
}

static void mat_vec(const double m[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = m[3 * i] * v[0] + m[3 * i + 1] * v[1] + m[3 * i + 2] * v[2];
}

static void mat_tvec(const double m[9], const double v[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = m[i] * v[0] + m[3 + i] * v[1] + m[6 + i] * v[2];
}

/* SOFA's updateState: the grid's placement from frame 0 and the fields. */
static void rigid_update_state(cmodel *m)
{
    const double *x = cmodel_x(m);
    const double *tr = m->dg_translation, *rot = m->dg_rotation;
    bool use_t = tr[0] != 0 || tr[1] != 0 || tr[2] != 0;
    bool use_r = rot[0] != 0 || rot[1] != 0 || rot[2] != 0;
    memcpy(m->dg_trans, x, 3 * sizeof *x);
    quat_matrix(x + 3, m->dg_rot);
    if (use_r)
        init_rotation(rot, m->dg_rot);
    if (use_t) {
        double rt[3];
        mat_vec(m->dg_rot, tr, rt);
        for (int c = 0; c < 3; c++)
            m->dg_trans[c] += rt[c];
    }
    m->dg_transformed = true;
}

void dgrid_update_boxes(cmodel *m)
{
    if (m->kind != CM_RIGIDDGRID || !m->grid || !m->nelem)
        return;
    rigid_update_state(m);
    const dgrid *g = m->grid;
    const double *lo = m->dg_flip_normals ? g->pmin : g->bbmin;
    const double *hi = m->dg_flip_normals ? g->pmax : g->bbmax;
    double *b = m->box;
    for (int j = 0; j < 8; j++) {
        double c[3] = {(j & 1) ? hi[0] : lo[0], (j & 2) ? hi[1] : lo[1], (j & 4) ? hi[2] : lo[2]};
        double w[3];
        mat_vec(m->dg_rot, c, w);
        for (int k = 0; k < 3; k++)
            w[k] += m->dg_trans[k];
        for (int k = 0; k < 3; k++) {
            if (j == 0)
                b[k] = b[k + 3] = w[k];
            else if (w[k] < b[k])
                b[k] = w[k];
            else if (w[k] > b[k + 3])
                b[k + 3] = w[k];
        }
    }
    memcpy(m->mbox, b, sizeof m->mbox);
    for (int k = 0; k < 3; k++)
        m->ext[k] = b[k + 3] - b[k];
}

void dgrid_model_free(cmodel *m)
{
    dgrid_free(m->grid);
    m->grid = NULL;
}

/* SOFA's DistanceGrid::save (".raw": the values as doubles). */
static st_status dump_grid(cmodel *m, st_error *err)
{
    const char *name = m->dg_dumpfilename;
    size_t n = strlen(name);
    if (n <= 4 || strcmp(name + n - 4, ".raw") != 0)
        return st_component_error(&m->base, "dumpfilename", err, ST_EINVAL,
                                  "save(): Unsupported extension: %s (only .raw)", name);
    FILE *fp = fopen(name, "wb");
    if (!fp || fwrite(m->grid->dists, sizeof *m->grid->dists, (size_t)m->grid->n, fp) !=
                   (size_t)m->grid->n) {
        if (fp)
            fclose(fp);
        return st_component_error(&m->base, "dumpfilename", err, ST_EIO,
                                  "cannot write the distance grid to %s", name);
    }
    if (fclose(fp) != 0)
        return st_component_error(&m->base, "dumpfilename", err, ST_EIO,
                                  "cannot write the distance grid to %s", name);
    return ST_OK;
}

st_status dgrid_model_init(cmodel *m, st_error *err)
{
    st_component *self = &m->base;
    if (m->kind == CM_FFDDGRID)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "FFDDistanceGridCollisionModel is not implemented yet");
    if (!m->dg_filename || !*m->dg_filename)
        return st_component_error(self, "filename", err, ST_ESCENE,
                                  "An input filename is required.");
    char path[4096];
    if (strcmp(m->dg_filename, "#cube") == 0)
        snprintf(path, sizeof path, "%s", m->dg_filename);
    else
        ST_TRY(st_component_find_file(self, "filename", m->dg_filename, path, sizeof path, err));
    dgrid_model_free(m);
    st_status st = dgrid_load(path, m->dg_scale, m->dg_sampling, m->dg_nx, m->dg_ny, m->dg_nz,
                              m->dg_box.r, m->dg_box.r + 3, &m->grid, err);
    if (st != ST_OK)
        return st_component_error(self, "filename", err, st, "%s", err->msg);
    if (m->dg_dumpfilename && *m->dg_dumpfilename)
        ST_TRY(dump_grid(m, err));
    if (m->ms->position.n == 0)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "the Rigid3d state '%s' has no frame to place the grid with",
                                  m->ms->base.name);
    m->nelem = 1;
    m->box = st_malloc(6 * sizeof *m->box);
    if (!m->box)
        return st_error_set(err, ST_ENOMEM, "out of memory for the grid's box");
    return ST_OK;
}

/* ---- tests ---- */

static const double *vtx(const cmodel *m, unsigned i) { return cmodel_x(m) + 3 * (size_t)i; }

/* The contact of world point p2 with the rigid grid, d0 the contact
 * distance; 1 and d filled (p, normal, value) when there is one. check:
 * the box test (else, flipped grids, the grid test only). */
static int rigid_point(const cmodel *g, const double p2[3], double d0, bool flipped, cdetect *d)
{
    const dgrid *grid = g->grid;
    const double margin = 0.001 + d0;
    double rel[3] = {p2[0] - g->dg_trans[0], p2[1] - g->dg_trans[1], p2[2] - g->dg_trans[2]};
    double q[3];
    mat_tvec(g->dg_rot, rel, q);
    if (flipped) {
        if (!dgrid_in_grid(grid, q))
            return 0;
    } else {
        if (!dgrid_in_bbox(grid, q, margin))
            return 0;
        if (!dgrid_in_grid(grid, q))
            return 0; /* SOFA: "Margin less than ... in DistanceGrid" */
    }
    double dist = dgrid_interp(grid, q);
    if (flipped)
        dist = -dist;
    if (dist >= margin)
        return 0;
    double gr[3];
    dgrid_grad(grid, q, gr);
    if (flipped)
        gr[0] = -gr[0], gr[1] = -gr[1], gr[2] = -gr[2];
    double len = sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
    if (len > 2.220446049250313e-16)
        gr[0] /= len, gr[1] /= len, gr[2] /= len;
    double local[3] = {q[0] - gr[0] * dist, q[1] - gr[1] * dist, q[2] - gr[2] * dist};
    mat_vec(g->dg_rot, local, d->p[0]);
    for (int c = 0; c < 3; c++)
        d->p[0][c] += g->dg_trans[c];
    memcpy(d->p[1], p2, sizeof d->p[1]);
    mat_vec(g->dg_rot, gr, d->normal);
    d->value = dist - d0;
    memset(d->w, 0, sizeof d->w);
    d->w[0][0] = 1.0;
    return 1;
}

int dgrid_test(const cpair *q, size_t i, size_t j, double contact, cdetect *d)
{
    const cmodel *g = q->m[0], *o = q->m[1];
    int n = 0;
    if (g->kind != CM_RIGIDDGRID || !g->grid)
        return 0;
    switch (o->kind) {
    case CM_POINT:
        if ((n = rigid_point(g, vtx(o, (unsigned)j), contact, g->dg_flip_normals, d))) {
            d->w[1][0] = 1.0;
            d->id = (unsigned)j;
        }
        break;
    case CM_SPHERE: {
        double r = cmodel_radius(o, j);
        const double *c = vtx(o, (unsigned)j);
        if ((n = rigid_point(g, c, contact + r, false, d))) {
            /* the sphere's point along the normal (SOFA's getContactPointByNormal) */
            for (int k = 0; k < 3; k++)
                d->p[1][k] = c[k] - d->normal[k] * r;
            d->w[1][0] = 1.0;
            d->id = (unsigned)j;
        }
        break;
    }
    case CM_LINE: {
        const unsigned *e = o->elems + 2 * j;
        /* SOFA's line flags: the ends the line owns (the first line around each vertex) */
        for (unsigned k = 0; k < 2; k++) {
            unsigned v = e[k];
            bool owns = !o->ve_start || o->ve_start[v] == o->ve_start[v + 1] ||
                        o->ve_items[o->ve_start[v]] == (unsigned)j;
            if (!owns)
                continue;
            if (rigid_point(g, vtx(o, v), contact, false, &d[n])) {
                d[n].w[1][k] = 1.0;
                d[n].id = 2 * (unsigned)j + k;
                d[n].e[0] = (unsigned)i, d[n].e[1] = (unsigned)j;
                n++;
            }
        }
        return n;
    }
    case CM_TRIANGLE: {
        const unsigned *t = o->elems + 3 * j;
        unsigned f = o->tflags ? o->tflags[j] : 0, be = o->tbedges ? o->tbedges[j] : 0;
        for (unsigned k = 0; k < 3; k++) {
            if (!(f & (TF_P1 << k)))
                continue;
            if (rigid_point(g, vtx(o, t[k]), contact, false, &d[n])) {
                d[n].w[1][k] = 1.0;
                d[n].id = 6 * (unsigned)j + k;
                d[n].e[0] = (unsigned)i, d[n].e[1] = (unsigned)j;
                n++;
            }
        }
        for (unsigned k = 0; k < 3; k++) {
            if (!(be & (1u << k)))
                continue;
            unsigned a = (k + 1) % 3, b = (k + 2) % 3;
            const double *pa = vtx(o, t[a]), *pb = vtx(o, t[b]);
            double mid[3] = {(pa[0] + pb[0]) * 0.5, (pa[1] + pb[1]) * 0.5, (pa[2] + pb[2]) * 0.5};
            if (rigid_point(g, mid, contact, false, &d[n])) {
                d[n].w[1][a] = d[n].w[1][b] = 0.5;
                d[n].id = 6 * (unsigned)j + 3 + k;
                d[n].e[0] = (unsigned)i, d[n].e[1] = (unsigned)j;
                n++;
            }
        }
        return n;
    }
    default:
        return 0;
    }
    d->e[0] = (unsigned)i;
    d->e[1] = (unsigned)j;
    return n;
}
