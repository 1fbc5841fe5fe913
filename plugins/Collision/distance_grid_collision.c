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
    if (a == CM_FFDDGRID) /* FFD - FFD: not implemented (docs/from-sofa.md) */
        return b == CM_POINT || b == CM_SPHERE || b == CM_TRIANGLE || b == CM_RIGIDDGRID;
    if (a != CM_RIGIDDGRID)
        return false;
    return b == CM_POINT || b == CM_SPHERE || b == CM_LINE || b == CM_TRIANGLE ||
           b == CM_RIGIDDGRID;
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

static void ffd_update_boxes(cmodel *m);

void dgrid_update_boxes(cmodel *m)
{
    if (m->kind == CM_FFDDGRID && m->ffd && m->nelem) {
        ffd_update_boxes(m);
        return;
    }
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

static void ffd_free(cmodel *m);

void dgrid_model_free(cmodel *m)
{
    dgrid_free(m->grid);
    m->grid = NULL;
    ffd_free(m);
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

static st_status ffd_init_cubes(cmodel *m, st_error *err);

st_status dgrid_model_init(cmodel *m, st_error *err)
{
    st_component *self = &m->base;
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
    if (m->kind == CM_FFDDGRID)
        return ffd_init_cubes(m, err);
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


static const double *vtx(const cmodel *m, unsigned i) { return cmodel_x(m) + 3 * (size_t)i; }

/* ---- FFD grids: SOFA's FFDDistanceGridCollisionModel::DeformedCube ---- */

/* One hexahedron of the grid topology, corners in SOFA's cube order (bit 0:
 * x, bit 1: y, bit 2: z; the topology's 2 <-> 3 and 6 <-> 7 swapped). */
struct ffd_cube {
    unsigned v[8];             /* the corners' points */
    double p0[3], dp[3], inv_dp[3]; /* rest corner 0, rest diagonal and its inverse */
    double c[8][3];            /* current corners */
    double dx[3], dy[3], dz[3], dxy[3], dxz[3], dyz[3], dxyz[3];
    double faces[6][4];        /* FX0 FX1 FY0 FY1 FZ0 FZ1: n . x + d */
    double center[3], radius;  /* the corners' centre and enclosing radius */
    unsigned *pts;             /* the grid's mesh points in this cube (rest space); owned */
    double *bary, *nrm;        /* their coordinates in the cube and unit gradients, 3 each; owned */
    size_t npts;
};

static void ffd_free(cmodel *m)
{
    for (size_t e = 0; m->ffd && e < m->nffd; e++)
        st_free(m->ffd[e].pts), st_free(m->ffd[e].bary), st_free(m->ffd[e].nrm);
    st_free(m->ffd);
    m->ffd = NULL;
    m->nffd = 0;
}

static void sub3(const double *a, const double *b, double *r)
{
    r[0] = a[0] - b[0], r[1] = a[1] - b[1], r[2] = a[2] - b[2];
}

static void face_plane(const struct ffd_cube *k, int c00, int c10, int c01, int c11, double pl[4])
{
    double c4[3], u[3], w[3], n[3];
    for (int i = 0; i < 3; i++)
        c4[i] = k->c[c00][i] + k->c[c10][i] + k->c[c01][i] + k->c[c11][i];
    sub3(k->c[c11], k->c[c00], u);
    sub3(k->c[c01], k->c[c10], w);
    n[0] = u[1] * w[2] - u[2] * w[1];
    n[1] = u[2] * w[0] - u[0] * w[2];
    n[2] = u[0] * w[1] - u[1] * w[0];
    double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (l > 2.220446049250313e-16)
        n[0] /= l, n[1] /= l, n[2] /= l;
    pl[0] = n[0], pl[1] = n[1], pl[2] = n[2];
    pl[3] = (n[0] * c4[0] + n[1] * c4[1] + n[2] * c4[2]) * (-0.25);
}

static void cube_update(struct ffd_cube *k, const double *x)
{
    for (int j = 0; j < 8; j++)
        memcpy(k->c[j], x + 3 * (size_t)k->v[j], 3 * sizeof(double));
    for (int i = 0; i < 3; i++) {
        k->dx[i] = k->c[1][i] - k->c[0][i];
        k->dy[i] = k->c[2][i] - k->c[0][i];
        k->dz[i] = k->c[4][i] - k->c[0][i];
        k->dxy[i] = k->c[3][i] - k->c[2][i] - k->dx[i];
        k->dxz[i] = k->c[5][i] - k->c[4][i] - k->dx[i];
        k->dyz[i] = k->c[6][i] - k->c[4][i] - k->dy[i];
        k->dxyz[i] = k->c[7][i] - k->c[5][i] - k->c[6][i] + k->c[4][i] - k->dxy[i];
    }
    double ctr[3] = {0, 0, 0}, r2 = 0;
    for (int j = 0; j < 8; j++)
        for (int i = 0; i < 3; i++)
            ctr[i] += k->c[j][i];
    for (int i = 0; i < 3; i++)
        k->center[i] = ctr[i] * 0.125;
    for (int j = 0; j < 8; j++) {
        double u[3];
        sub3(k->c[j], k->center, u);
        double q = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
        if (q > r2)
            r2 = q;
    }
    k->radius = sqrt(r2);
    face_plane(k, 0, 2, 4, 6, k->faces[0]);
    face_plane(k, 1, 5, 3, 7, k->faces[1]);
    face_plane(k, 0, 4, 1, 5, k->faces[2]);
    face_plane(k, 2, 3, 6, 7, k->faces[3]);
    face_plane(k, 0, 1, 2, 3, k->faces[4]);
    face_plane(k, 4, 6, 5, 7, k->faces[5]);
}

static void cube_deform(const struct ffd_cube *k, const double b[3], double out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = k->c[0][i] + k->dx[i] * b[0] + (k->dy[i] + k->dxy[i] * b[0]) * b[1] +
                 (k->dz[i] + k->dxz[i] * b[0] + (k->dyz[i] + k->dxyz[i] * b[0]) * b[1]) * b[2];
}

static void cube_jacobian(const struct ffd_cube *k, const double b[3], double J[9])
{
    for (int i = 0; i < 3; i++) {
        J[3 * i + 0] = k->dx[i] + k->dxy[i] * b[1] + (k->dxz[i] + k->dxyz[i] * b[1]) * b[2];
        J[3 * i + 1] = k->dy[i] + k->dxy[i] * b[0] + (k->dyz[i] + k->dxyz[i] * b[0]) * b[2];
        J[3 * i + 2] = k->dz[i] + k->dxz[i] * b[0] + (k->dyz[i] + k->dxyz[i] * b[0]) * b[1];
    }
}

static void cube_deform_dir(const struct ffd_cube *k, const double b[3], const double dir[3],
                            double out[3])
{
    double J[9];
    cube_jacobian(k, b, J);
    mat_vec(J, dir, out);
}

/* J^-1 dir; false when J is singular. */
static bool cube_undeform_dir(const struct ffd_cube *k, const double b[3], const double dir[3],
                              double out[3])
{
    double J[9], inv[9];
    cube_jacobian(k, b, J);
    inv[0] = J[4] * J[8] - J[5] * J[7];
    inv[1] = J[2] * J[7] - J[1] * J[8];
    inv[2] = J[1] * J[5] - J[2] * J[4];
    inv[3] = J[5] * J[6] - J[3] * J[8];
    inv[4] = J[0] * J[8] - J[2] * J[6];
    inv[5] = J[2] * J[3] - J[0] * J[5];
    inv[6] = J[3] * J[7] - J[4] * J[6];
    inv[7] = J[1] * J[6] - J[0] * J[7];
    inv[8] = J[0] * J[4] - J[1] * J[3];
    double det = J[0] * inv[0] + J[1] * inv[3] + J[2] * inv[6];
    if (det == 0.0)
        return false;
    for (int i = 0; i < 9; i++)
        inv[i] /= det;
    mat_vec(inv, dir, out);
    return true;
}

static void cube_bary(const struct ffd_cube *k, const double p[3], double b[3])
{
    for (int i = 0; i < 3; i++)
        b[i] = (p[i] - k->p0[i]) * k->inv_dp[i];
}

void dgrid_ffd_side(const cmodel *m, unsigned e, const double pt[3], cside *s)
{
    const struct ffd_cube *k = &m->ffd[e];
    double b[3];
    cube_bary(k, pt, b);
    s->n = 8;
    for (int j = 0; j < 8; j++) {
        s->idx[j] = k->v[j];
        s->w[j] = ((j & 1) ? b[0] : 1 - b[0]) * ((j & 2) ? b[1] : 1 - b[1]) *
                  ((j & 4) ? b[2] : 1 - b[2]);
    }
}

/* SOFA's FFD point test: p2 located in cube k by Newton steps from the
 * faces' estimate (at most 5), its rest position's distance d < margin
 * (0.001 + d0): a contact from the rest-space surface point (SOFA's
 * detection point, mapped into the cube) along the deformed gradient. */
static int ffd_point(const cmodel *g, const struct ffd_cube *k, const double p2[3], double d0,
                     cdetect *d)
{
    const dgrid *grid = g->grid;
    const double margin = (double)0.001f + d0;
    const double cubesize = sqrt(k->inv_dp[0] * k->inv_dp[0] + k->inv_dp[1] * k->inv_dp[1] +
                                 k->inv_dp[2] * k->inv_dp[2]);
    double b[3];
    for (int i = 0; i < 3; i++) {
        const double *f0 = k->faces[2 * i], *f1 = k->faces[2 * i + 1];
        double b0 = f0[0] * p2[0] + f0[1] * p2[1] + f0[2] * p2[2] + f0[3];
        double b1 = f1[0] * p2[0] + f1[1] * p2[1] + f1[2] * p2[2] + f1[3];
        b[i] = b0 / (b0 + b1);
    }
    const double lo = (double)0.001f, hi = (double)0.999f;
    for (int iter = 0; iter < 5; ++iter) {
        double pd[3], diff[3];
        cube_deform(k, b, pd);
        sub3(p2, pd, diff);
        double err = sqrt(diff[0] * diff[0] + diff[1] * diff[1] + diff[2] * diff[2]);
        double berr = err * cubesize;
        if (berr > 0.5)
            berr = 0.5;
        if (b[0] < -berr || b[0] > 1 + berr || b[1] < -berr || b[1] > 1 + berr ||
            b[2] < -berr || b[2] > 1 + berr)
            return 0; /* far from the cube */
        if (err < (double)0.005f) {
            if (!(b[0] > lo && b[0] < hi && b[1] > lo && b[1] < hi && b[2] > lo && b[2] < hi))
                return 0;
            double pinit[3];
            for (int c = 0; c < 3; c++)
                pinit[c] = k->p0[c] + k->dp[c] * b[c];
            double dist = dgrid_interp(grid, pinit);
            if (!(dist < margin))
                return 0;
            double gr[3], bb[3], n[3];
            dgrid_grad(grid, pinit, gr);
            double l = sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
            if (l > 2.220446049250313e-16)
                gr[0] /= l, gr[1] /= l, gr[2] /= l;
            for (int c = 0; c < 3; c++)
                pinit[c] -= gr[c] * dist;
            cube_bary(k, pinit, bb);
            cube_deform_dir(k, bb, gr, n);
            l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (l > 2.220446049250313e-16)
                n[0] /= l, n[1] /= l, n[2] /= l;
            memcpy(d->p[0], pinit, sizeof d->p[0]);
            memcpy(d->p[1], p2, sizeof d->p[1]);
            memcpy(d->normal, n, sizeof d->normal);
            d->value = dist - d0;
            memset(d->w, 0, sizeof d->w);
            return 1;
        }
        double pi[3];
        for (int c = 0; c < 3; c++)
            pi[c] = k->p0[c] + k->dp[c] * b[c];
        double dist = dgrid_interp(grid, pi);
        if (dist * 0.5 - err > margin)
            return 0; /* too far from the object */
        double db[3];
        if (!cube_undeform_dir(k, b, diff, db))
            return 0;
        for (int c = 0; c < 3; c++)
            b[c] += db[c];
    }
    return 0;
}

/* SOFA's FFD grid - rigid grid test: the cube's mesh points, deformed and
 * pushed out by the margin along their deformed normals, looked up in the
 * rigid grid (d < margin); then the rigid grid's mesh points within the
 * cube's sphere located in the cube (as ffd_point) with d < 2 margin.
 * singleContact keeps the deepest of each direction. */
static int ffd_rigid(const cpair *q, size_t ci, cdetect *d, size_t cap)
{
    const cmodel *f = q->m[0], *r = q->m[1];
    const struct ffd_cube *k = &f->ffd[ci];
    const dgrid *g1 = f->grid, *g2 = r->grid;
    const cintersect *mth = q->method;
    double alarm = mth->proximity ? mth->alarm_distance : 0.0;
    double mcd = mth->proximity ? mth->contact_distance : 0.0;
    const double d0 = f->contact_distance + r->contact_distance + (mcd == 0.0 ? 0.001 : mcd);
    const double margin =
        (f->contact_distance + r->contact_distance + (alarm == 0.0 ? 0.001 : alarm)) / 2;
    const bool single = f->dg_single_contact;
    size_t n = 0;
    /* world -> rigid frame: R^T (x - t) */
    double rel[3], c2[3];
    sub3(k->center, r->dg_trans, rel);
    mat_tvec(r->dg_rot, rel, c2);
    if (f->dg_use_points && dgrid_in_bbox(g2, c2, margin + k->radius)) {
        bool first = true;
        for (size_t i = 0; i < k->npts && n < cap; i++) {
            double pd[3], nd[3], p1[3], p2[3];
            cube_deform(k, k->bary + 3 * i, pd);
            cube_deform_dir(k, k->bary + 3 * i, k->nrm + 3 * i, nd);
            double l = sqrt(nd[0] * nd[0] + nd[1] * nd[1] + nd[2] * nd[2]);
            if (l > 2.220446049250313e-16)
                nd[0] /= l, nd[1] /= l, nd[2] /= l;
            for (int c = 0; c < 3; c++)
                p1[c] = pd[c] + nd[c] * margin - r->dg_trans[c];
            mat_tvec(r->dg_rot, p1, p2);
            if (!dgrid_in_bbox(g2, p2, margin) || !dgrid_in_grid(g2, p2))
                continue;
            double dist = dgrid_interp(g2, p2);
            if (dist >= margin)
                continue;
            double gr[3], sb[3];
            dgrid_grad(g2, p2, gr);
            l = sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
            if (l > 2.220446049250313e-16)
                gr[0] /= l, gr[1] /= l, gr[2] /= l;
            double value = dist + margin - d0;
            if (single && !first && !(value < d[n - 1].value))
                continue;
            cdetect *o = single && !first ? &d[n - 1] : &d[n++];
            first = false;
            memset(o, 0, sizeof *o);
            memcpy(o->p[0], g1->pts + 3 * (size_t)k->pts[i], sizeof o->p[0]);
            for (int c = 0; c < 3; c++)
                sb[c] = p2[c] - gr[c] * dist;
            mat_vec(r->dg_rot, sb, o->p[1]);
            mat_vec(r->dg_rot, gr, o->normal);
            for (int c = 0; c < 3; c++)
                o->p[1][c] += r->dg_trans[c], o->normal[c] = -o->normal[c];
            o->value = value;
            o->w[1][0] = 1.0;
            o->id = (unsigned)(g2->npts + k->pts[i]);
            o->e[0] = (unsigned)ci, o->e[1] = 0;
        }
    }
    if (r->dg_use_points) {
        bool first = true;
        const double r2 = k->radius * k->radius;
        for (size_t i = 0; i < g2->npts && n < cap; i++) {
            double pw[3];
            mat_vec(r->dg_rot, g2->pts + 3 * i, pw);
            for (int c = 0; c < 3; c++)
                pw[c] += r->dg_trans[c];
            double u[3];
            sub3(pw, k->center, u);
            if (u[0] * u[0] + u[1] * u[1] + u[2] * u[2] >= r2)
                continue;
            cdetect tmp;
            if (!ffd_point(f, k, pw, 2 * margin - (double)0.001f, &tmp))
                continue;
            /* ffd_point's value is d - (2 margin - 0.001); SOFA's is d - d0 */
            double value = tmp.value + (2 * margin - (double)0.001f) - d0;
            if (single && !first && !(value < d[n - 1].value))
                continue;
            cdetect *o = single && !first ? &d[n - 1] : &d[n++];
            first = false;
            *o = tmp;
            o->value = value;
            memcpy(o->p[1], pw, sizeof o->p[1]);
            o->w[1][0] = 1.0;
            o->id = (unsigned)i;
            o->e[0] = (unsigned)ci, o->e[1] = 0;
        }
    }
    return (int)n;
}

static int ffd_test(const cpair *q, size_t i, size_t j, double contact, cdetect *d)
{
    const cmodel *g = q->m[0], *o = q->m[1];
    const struct ffd_cube *k = &g->ffd[i];
    int n = 0;
    switch (o->kind) {
    case CM_RIGIDDGRID:
        return o->grid ? ffd_rigid(q, i, d, dgrid_max_outputs(q)) : 0;
    case CM_POINT:
        if ((n = ffd_point(g, k, vtx(o, (unsigned)j), contact, d))) {
            /* SOFA leaves the point side's detection point unset (zero);
             * here it is the point (the pipeline's outputs read it; only
             * the Lagrangian responses' duplicate test could differ) */
            d->w[1][0] = 1.0;
            d->id = (unsigned)j;
        }
        break;
    case CM_SPHERE: {
        double r = cmodel_radius(o, j);
        const double *c = vtx(o, (unsigned)j);
        if ((n = ffd_point(g, k, c, contact + r, d))) {
            /* SOFA's getContactPointWithSurfacePoint: towards the rest-space point */
            double u[3];
            sub3(d->p[0], c, u);
            double l = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
            for (int a = 0; a < 3; a++)
                d->p[1][a] = c[a] + (l > 0 ? u[a] / l * r : 0);
            d->w[1][0] = 1.0;
            d->id = (unsigned)j;
        }
        break;
    }
    case CM_TRIANGLE: {
        const unsigned *t = o->elems + 3 * j;
        unsigned f = o->tflags ? o->tflags[j] : 0;
        for (unsigned v = 0; v < 3; v++) {
            if (!(f & (TF_P1 << v)))
                continue;
            if (ffd_point(g, k, vtx(o, t[v]), contact, &d[n])) {
                d[n].w[1][v] = 1.0;
                d[n].id = 3 * (unsigned)j + v;
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

static void ffd_update_boxes(cmodel *m)
{
    const double *x = cmodel_x(m);
    double *mb = m->mbox;
    for (size_t e = 0; e < m->nelem; e++) {
        struct ffd_cube *k = &m->ffd[e];
        cube_update(k, x);
        double *b = m->box + 6 * e;
        for (int c = 0; c < 3; c++)
            b[c] = b[c + 3] = k->c[0][c];
        for (int j = 1; j < 8; j++)
            for (int c = 0; c < 3; c++) {
                if (k->c[j][c] < b[c])
                    b[c] = k->c[j][c];
                else if (k->c[j][c] > b[c + 3])
                    b[c + 3] = k->c[j][c];
            }
        for (int c = 0; c < 3; c++) {
            if (e == 0 || b[c] < mb[c])
                mb[c] = b[c];
            if (e == 0 || b[c + 3] > mb[c + 3])
                mb[c + 3] = b[c + 3];
            if (e == 0 || b[c + 3] - b[c] > m->ext[c])
                m->ext[c] = b[c + 3] - b[c];
        }
    }
}

/* The cubes from the topology's hexahedra and rest positions. */
static st_status ffd_init_cubes(cmodel *m, st_error *err)
{
    st_component *self = &m->base, *topo = m->topology;
    if (!topo) {
        st_component_warn(self, "Link to Topology should be set to a RegularGridTopology or "
                                "SparseGridTopology. First Topology found in context will be "
                                "used");
        for (st_node *n = self->node; n && !topo; n = st_node_parent(n))
            for (size_t i = st_node_object_count(n); i-- > 0 && !topo;) {
                st_component *c = st_node_object(n, i);
                if (c->cls->topology && st_component_has_role(c, ST_ROLE_TOPOLOGY))
                    topo = c;
            }
    }
    const st_array *hex = topo && topo->cls->topology && topo->cls->topology->elements
                              ? topo->cls->topology->elements(topo, ST_T_HEXAS)
                              : NULL;
    if (!hex || !hex->n)
        return st_component_error(self, "topology", err, ST_ESCENE,
                                  "Requires a Vec3-based deformable model with associated "
                                  "RegularGridTopology or SparseGridTopology (a topology with "
                                  "hexahedra)");
    ST_TRY(st_topology_use(self, topo, err));
    /* rest positions: the topology's points (SOFA's getPX), else the state's */
    const st_topology_ops *to = topo->cls->topology;
    const size_t tnp = to->nb_points ? to->nb_points(topo) : 0;
    const st_array *rest = m->ms->rest_position.n ? &m->ms->rest_position : &m->ms->position;
    const size_t np = m->ms->position.n;
    m->ffd = st_calloc(hex->n, sizeof *m->ffd);
    m->nffd = m->ffd ? hex->n : 0;
    m->box = st_malloc(6 * hex->n * sizeof *m->box);
    if (!m->ffd || !m->box)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu cubes", hex->n);
    for (size_t e = 0; e < hex->n; e++) {
        struct ffd_cube *k = &m->ffd[e];
        static const int order[8] = {0, 1, 3, 2, 4, 5, 7, 6};
        for (int j = 0; j < 8; j++) {
            k->v[j] = hex->u[8 * e + order[j]];
            if (k->v[j] >= np || (tnp ? k->v[j] >= tnp : k->v[j] >= rest->n))
                return st_component_error(self, "topology", err, ST_ESCENE,
                                          "hexahedron %zu uses point %u but the state has %zu "
                                          "points",
                                          e, k->v[j], np);
        }
        double a[3], b[3];
        if (tnp && to->get_point) {
            to->get_point(topo, k->v[0], a);
            to->get_point(topo, k->v[7], b);
        } else {
            memcpy(a, rest->r + 3 * (size_t)k->v[0], sizeof a);
            memcpy(b, rest->r + 3 * (size_t)k->v[7], sizeof b);
        }
        for (int c = 0; c < 3; c++) {
            k->p0[c] = a[c];
            k->dp[c] = b[c] - k->p0[c];
            if (k->dp[c] == 0)
                return st_component_error(self, "topology", err, ST_ESCENE,
                                          "hexahedron %zu is flat along axis %d", e, c);
            k->inv_dp[c] = 1 / k->dp[c];
        }
    }
    m->nelem = hex->n;
    /* the grid's mesh points in the cube holding them at rest (SOFA's
     * findCube: the first cube whose box holds the point) */
    const dgrid *g = m->grid;
    for (size_t i = 0; i < g->npts; i++) {
        const double *p = g->pts + 3 * i;
        for (size_t e = 0; e < hex->n; e++) {
            struct ffd_cube *k = &m->ffd[e];
            double b[3];
            cube_bary(k, p, b);
            if (b[0] < 0 || b[0] > 1 || b[1] < 0 || b[1] > 1 || b[2] < 0 || b[2] > 1)
                continue;
            if ((k->npts & (k->npts - 1)) == 0) { /* grow at powers of two */
                size_t cap = k->npts ? 2 * k->npts : 1;
                unsigned *nidx = st_realloc(k->pts, cap * sizeof *nidx);
                if (nidx)
                    k->pts = nidx;
                double *nb = nidx ? st_realloc(k->bary, 3 * cap * sizeof *nb) : NULL;
                if (nb)
                    k->bary = nb;
                double *nn = nb ? st_realloc(k->nrm, 3 * cap * sizeof *nn) : NULL;
                if (!nn)
                    return st_error_set(err, ST_ENOMEM, "out of memory placing the grid's points");
                k->nrm = nn;
            }
            k->pts[k->npts] = (unsigned)i;
            memcpy(k->bary + 3 * k->npts, b, sizeof b);
            double n[3];
            dgrid_grad(g, p, n);
            double l = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
            if (l > 2.220446049250313e-16)
                n[0] /= l, n[1] /= l, n[2] /= l;
            memcpy(k->nrm + 3 * k->npts, n, sizeof n);
            k->npts++;
            break;
        }
    }
    return ST_OK;
}

/* ---- tests ---- */


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


size_t dgrid_max_outputs(const cpair *q)
{
    const cmodel *a = q->m[0], *b = q->m[1];
    if ((a->kind == CM_RIGIDDGRID || a->kind == CM_FFDDGRID) && b->kind == CM_RIGIDDGRID &&
        a->grid && b->grid)
        return a->grid->npts + b->grid->npts + CDETECT_MAX;
    return CDETECT_MAX;
}

/* SOFA's rigid grid - rigid grid test (its path for grids that are not
 * both "#cube"s): each model's mesh points (with usePoints) pushed out by
 * the margin along their own grid's gradient and looked up in the other
 * grid; inside it (d < 0), a contact from the other grid's surface. The
 * margin is half the models' and the method's alarm distances (0.001 for
 * none); d0 their contact distances (0.001 for none). Points in the grids'
 * frames are given to the contact in the world. */
static int rigid_rigid(cpair *q, cdetect *d, size_t cap)
{
    cmodel *m1 = q->m[0], *m2 = q->m[1];
    const dgrid *g1 = m1->grid, *g2 = m2->grid;
    if (g1->cube_dim != 0 && g2->cube_dim != 0) {
        if (!m1->dg_warned)
            st_component_warn(&m1->base,
                              "two \"#cube\" grids: SOFA's cube-cube contacts (faces, edges) "
                              "are not implemented; these get the general grid-grid contacts");
        m1->dg_warned = true;
    }
    const cintersect *mth = q->method;
    double alarm = mth->proximity ? mth->alarm_distance : 0.0;
    double mcd = mth->proximity ? mth->contact_distance : 0.0;
    const double d0 = m1->contact_distance + m2->contact_distance + (mcd == 0.0 ? 0.001 : mcd);
    const double margin =
        (m1->contact_distance + m2->contact_distance + (alarm == 0.0 ? 0.001 : alarm)) / 2;
    /* grid 1 to grid 2: p2 = tr + rot p1 */
    double rel[3] = {m1->dg_trans[0] - m2->dg_trans[0], m1->dg_trans[1] - m2->dg_trans[1],
                     m1->dg_trans[2] - m2->dg_trans[2]};
    double tr[3], rot[9];
    mat_tvec(m2->dg_rot, rel, tr);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            rot[3 * i + j] = m2->dg_rot[i] * m1->dg_rot[j] + m2->dg_rot[3 + i] * m1->dg_rot[3 + j] +
                             m2->dg_rot[6 + i] * m1->dg_rot[6 + j];
    size_t n = 0;
    for (int side = 0; side < 2; side++) {
        cmodel *ma = q->m[side], *mb = q->m[1 - side];
        const dgrid *ga = side ? g2 : g1, *gb = side ? g1 : g2;
        if (!ma->dg_use_points)
            continue;
        for (size_t i = 0; i < ga->npts && n < cap; i++) {
            const double *pa = ga->pts + 3 * i;
            double na[3], pb[3], u[3];
            dgrid_grad(ga, pa, na);
            double l = sqrt(na[0] * na[0] + na[1] * na[1] + na[2] * na[2]);
            if (l > 2.220446049250313e-16)
                na[0] /= l, na[1] /= l, na[2] /= l;
            for (int c = 0; c < 3; c++)
                u[c] = pa[c] + na[c] * margin;
            if (side == 0) { /* into grid 2's frame */
                mat_vec(rot, u, pb);
                for (int c = 0; c < 3; c++)
                    pb[c] += tr[c];
            } else { /* into grid 1's frame */
                double w[3] = {u[0] - tr[0], u[1] - tr[1], u[2] - tr[2]};
                mat_tvec(rot, w, pb);
            }
            if (!dgrid_in_bbox(gb, pb, 0.0) || !dgrid_in_grid(gb, pb))
                continue;
            double dist = dgrid_interp(gb, pb);
            if (dist >= 0)
                continue;
            double gr[3], sb[3];
            dgrid_grad(gb, pb, gr);
            l = sqrt(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
            if (l > 2.220446049250313e-16)
                gr[0] /= l, gr[1] /= l, gr[2] /= l;
            for (int c = 0; c < 3; c++)
                sb[c] = pb[c] - gr[c] * dist;
            cdetect *o = &d[n++];
            memset(o, 0, sizeof *o);
            /* SOFA's point[0] is on grid 1, point[1] on grid 2 */
            const double *p_on1 = side == 0 ? pa : sb, *p_on2 = side == 0 ? sb : pa;
            mat_vec(m1->dg_rot, p_on1, o->p[0]);
            mat_vec(m2->dg_rot, p_on2, o->p[1]);
            for (int c = 0; c < 3; c++)
                o->p[0][c] += m1->dg_trans[c], o->p[1][c] += m2->dg_trans[c];
            if (side == 0) { /* from grid 1's point, against grid 2's gradient */
                mat_vec(m2->dg_rot, gr, o->normal);
                for (int c = 0; c < 3; c++)
                    o->normal[c] = -o->normal[c];
            } else
                mat_vec(m1->dg_rot, gr, o->normal);
            o->value = dist + margin - d0;
            o->w[0][0] = o->w[1][0] = 1.0;
            o->id = (unsigned)(side == 0 ? i : g1->npts + i);
            o->e[0] = o->e[1] = 0;
        }
        (void)mb;
    }
    return (int)n;
}

int dgrid_test(const cpair *q, size_t i, size_t j, double contact, cdetect *d)
{
    const cmodel *g = q->m[0], *o = q->m[1];
    int n = 0;
    if (!g->grid)
        return 0;
    if (g->kind == CM_FFDDGRID)
        return ffd_test(q, i, j, contact, d);
    if (g->kind != CM_RIGIDDGRID)
        return 0;
    switch (o->kind) {
    case CM_RIGIDDGRID:
        return o->grid ? rigid_rigid((cpair *)q, d, dgrid_max_outputs(q)) : 0;
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
