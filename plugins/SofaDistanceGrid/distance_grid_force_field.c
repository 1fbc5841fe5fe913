/* distance_grid_force_field.c - DistanceGridForceField: a penalty force
 * pushing points out of (stiffnessIn) or into (stiffnessOut) the object a
 * distance grid describes, as SOFA's (SofaDistanceGrid plugin).
 *
 * For each point i (of localRange; with triangles in the topology, only the
 * vertices of a triangle) at distance d = eval(x_i) with |d| < maxdist:
 *   f_i += g k_d (-d) - v_i damping k_d (-d),  g = grad(x_i) (unnormalised,
 *   per cell), k_d = stiffnessIn inside (d < 0), stiffnessOut outside.
 * Triangles whose area seen along the grid's (normalised) gradient at their
 * centre is below minArea are pushed back (stiffnessArea), tetrahedra whose
 * volume is below minVolume too (stiffnessVolume). The derivative is SOFA's:
 * df_i = g (g . dx_i) k_d (-d) kFactor for the points (the sign of the
 * force's factor, not of its derivative), and the exact one of the area and
 * volume terms; the assembled matrix has SOFA's opposite sign on the point
 * blocks (its addKToMatrix) and no area or volume blocks. As SOFA's init,
 * the orientation test of the surface keeps only the last triangle's
 * product (flipNormals). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/options.h"
#include "../shared/topology_link.h"
#include "distance_grid.h"

typedef struct dg_contact {
    unsigned index;
    double normal[3];
    double fact;
} dg_contact;

typedef struct dg_tcontact {
    unsigned index[3];
    double normal[3], b[3], c[3];
    double fact;
} dg_tcontact;

typedef struct dg_vcontact {
    unsigned index[4];
    double a[3], b[3], c[3];
    double fact;
} dg_vcontact;

typedef struct dgff {
    st_component base;
    char *filename;            /* "filename" */
    double scale;              /* "scale" */
    st_array box;              /* "box": xmin ymin zmin xmax ymax zmax */
    int nx, ny, nz;            /* "nx", "ny", "nz" */
    double stiffness_in;       /* "stiffnessIn" */
    double stiffness_out;      /* "stiffnessOut" */
    double damping;            /* "damping" */
    double max_dist;           /* "maxdist" */
    double min_area;           /* "minArea" */
    double stiffness_area;     /* "stiffnessArea" */
    double min_volume;         /* "minVolume" */
    double stiffness_volume;   /* "stiffnessVolume" */
    st_vec4 color;             /* "color" (drawing) */
    bool draw;                 /* "draw" (drawing) */
    bool draw_points;          /* "drawPoints" (drawing) */
    double draw_size;          /* "drawSize" (drawing) */
    st_int2 local_range;       /* "localRange" */
    double rayleigh_stiffness; /* "rayleighStiffness" */
    st_component *mstate;      /* "mstate" link */
    /* Set at init. */
    st_mstate *ms;
    dgrid *grid;               /* owned */
    st_component *topology;    /* the context's topology, or NULL */
    unsigned char *on_border;  /* per point: a vertex of a triangle (SOFA's pOnBorder); owned */
    size_t nborder;
    bool flip_normals;
    /* What the last add_force pushed, sized at init (one entry per point,
     * triangle and tetrahedron at most); owned. */
    dg_contact *c;
    size_t nc;
    dg_tcontact *tc;
    size_t ntc;
    dg_vcontact *vc;
    size_t nvc;
} dgff;

static void cross(const double *a, const double *b, double *r)
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double *a, const double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static const st_array *topo_elems(const dgff *p, st_type kind)
{
    if (!p->topology)
        return NULL;
    const st_array *a = p->topology->cls->topology->elements(p->topology, kind);
    return a && a->n ? a : NULL;
}

static st_status dgff_init(st_component *self, st_error *err)
{
    dgff *p = (dgff *)self;
    p->ms = st_component_mstate(self);
    if (!p->ms)
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "Missing mechanical object: add a MechanicalObject before "
                                  "DistanceGridForceField in this node, or set mstate");
    if (p->ms->type->coord_size != 3 || p->ms->type->rigid)
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "DistanceGridForceField acts on a Vec3d state (SOFA's only "
                                  "template), not on this one");
    if (!p->filename || !*p->filename)
        return st_component_error(self, "filename", err, ST_ESCENE,
                                  "DistanceGridForceField requires an input filename.");
    char path[4096];
    if (strcmp(p->filename, "#cube") == 0)
        snprintf(path, sizeof path, "%s", p->filename);
    else
        ST_TRY(st_component_find_file(self, "filename", p->filename, path, sizeof path, err));
    dgrid_free(p->grid);
    p->grid = NULL;
    st_status st = dgrid_load(path, p->scale, 0.0, p->nx, p->ny, p->nz, p->box.r, p->box.r + 3,
                              &p->grid, err);
    if (st != ST_OK)
        return st_component_error(self, "filename", err, st, "Failed to initialize: %s",
                                  err->msg);
    /* the context's topology (SOFA's getMeshTopology), when there is one */
    p->topology = NULL;
    for (st_node *n = self->node; n && !p->topology; n = st_node_parent(n))
        for (size_t i = st_node_object_count(n); i-- > 0 && !p->topology;) {
            st_component *c = st_node_object(n, i);
            if (c->cls->topology && st_component_has_role(c, ST_ROLE_TOPOLOGY))
                p->topology = c;
        }
    if (p->topology)
        ST_TRY(st_topology_use(self, p->topology, err));
    st_free(p->on_border);
    p->on_border = NULL, p->nborder = 0;
    const double *x0 = p->ms->rest_position.n ? p->ms->rest_position.r : p->ms->position.r;
    if (p->stiffness_area != 0) {
        const st_array *tri = topo_elems(p, ST_T_TRIANGLES);
        if (tri) {
            p->on_border = st_calloc(p->ms->n + 1, 1);
            if (!p->on_border)
                return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", p->ms->n);
            p->nborder = p->ms->n;
            double ssarea = 0;
            for (size_t t = 0; t < tri->n; t++) {
                const unsigned *v = tri->u + 3 * t;
                for (int k = 0; k < 3; k++)
                    if (v[k] >= p->ms->n)
                        return st_component_error(self, NULL, err, ST_ESCENE,
                                                  "triangle %zu of the topology uses point %u "
                                                  "but the state has %zu points",
                                                  t, v[k], p->ms->n);
                const double *a = x0 + 3 * v[0], *b = x0 + 3 * v[1], *c = x0 + 3 * v[2];
                double B[3], C[3], tn[3], ctr[3], sn[3];
                for (int k = 0; k < 3; k++)
                    B[k] = b[k] - a[k], C[k] = c[k] - a[k], ctr[k] = (a[k] + b[k] + c[k]) * (1.0 / 3.0);
                cross(B, C, tn);
                dgrid_grad(p->grid, ctr, sn);
                ssarea = dot(sn, tn) * 0.5; /* SOFA assigns, it does not sum */
                p->on_border[v[0]] = p->on_border[v[1]] = p->on_border[v[2]] = 1;
            }
            p->flip_normals = ssarea < 0;
        } else
            st_component_warn(self, "No triangles found in topology");
    }
    if (p->stiffness_volume != 0 && !topo_elems(p, ST_T_TETRAS))
        st_component_warn(self, "No tetrahedra found in topology");
    const st_array *tri = topo_elems(p, ST_T_TRIANGLES), *tet = topo_elems(p, ST_T_TETRAS);
    st_free(p->c), st_free(p->tc), st_free(p->vc);
    p->c = st_calloc(p->ms->n + 1, sizeof *p->c);
    p->tc = st_calloc((tri ? tri->n : 0) + 1, sizeof *p->tc);
    p->vc = st_calloc((tet ? tet->n : 0) + 1, sizeof *p->vc);
    if (!p->c || !p->tc || !p->vc)
        return st_error_set(err, ST_ENOMEM, "out of memory for the contacts of %zu points",
                            p->ms->n);
    return ST_OK;
}

static void dgff_cleanup(st_component *self)
{
    dgff *p = (dgff *)self;
    dgrid_free(p->grid);
    st_free(p->on_border);
    st_free(p->c), st_free(p->tc), st_free(p->vc);
    p->grid = NULL, p->on_border = NULL, p->c = NULL, p->tc = NULL, p->vc = NULL;
}

static void dgff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp;
    dgff *p = (dgff *)self;
    double *fs = st_slice(f, p->ms);
    const double *xs = st_slice_x(x, p->ms), *vs = st_slice(v, p->ms);
    const size_t n = p->ms->n;
    size_t begin = p->local_range[0] >= 0 ? (size_t)p->local_range[0] : 0, end = n;
    if (p->local_range[1] >= 0 && (size_t)p->local_range[1] + 1 < end)
        end = (size_t)p->local_range[1] + 1;
    p->nc = p->ntc = p->nvc = 0;
    for (size_t i = begin; i < end; i++) {
        if (i < p->nborder && !p->on_border[i])
            continue;
        const double *xi = xs + 3 * i, *vi = vs + 3 * i;
        double d = dgrid_eval(p->grid, xi);
        double k;
        if (d > 0) {
            if (d >= p->max_dist || p->stiffness_out == 0)
                continue;
            k = p->stiffness_out;
        } else if (d < 0) {
            if (-d >= p->max_dist || p->stiffness_in == 0)
                continue;
            k = p->stiffness_in;
        } else
            continue;
        double g[3];
        dgrid_grad(p->grid, xi, g);
        double intensity = -k * d, damp = intensity * p->damping;
        for (int c = 0; c < 3; c++)
            fs[3 * i + c] += g[c] * intensity - vi[c] * damp;
        dg_contact *c = &p->c[p->nc++];
        c->index = (unsigned)i;
        memcpy(c->normal, g, sizeof g);
        c->fact = intensity;
    }
    const st_array *tri = p->stiffness_area != 0 ? topo_elems(p, ST_T_TRIANGLES) : NULL;
    for (size_t t = 0; tri && t < tri->n; t++) {
        const unsigned *iv = tri->u + 3 * t;
        if (iv[0] >= n || iv[1] >= n || iv[2] >= n)
            continue;
        const double *a = xs + 3 * iv[0], *b = xs + 3 * iv[1], *cc = xs + 3 * iv[2];
        double B[3], C[3], tn[3], ctr[3], sn[3];
        for (int k = 0; k < 3; k++)
            B[k] = b[k] - a[k], C[k] = cc[k] - a[k], ctr[k] = (a[k] + b[k] + cc[k]) * (1.0 / 3.0);
        cross(B, C, tn);
        dgrid_grad(p->grid, ctr, sn);
        if (p->flip_normals)
            sn[0] = -sn[0], sn[1] = -sn[1], sn[2] = -sn[2];
        double len = sqrt(dot(sn, sn));
        if (len > 2.220446049250313e-16)
            sn[0] /= len, sn[1] /= len, sn[2] /= len;
        double area = dot(tn, sn) * 0.5;
        if (!(area < p->min_area))
            continue;
        double intensity = p->stiffness_area * (p->min_area - area), fB[3], fC[3];
        cross(C, sn, fB);
        cross(sn, B, fC);
        for (int k = 0; k < 3; k++) {
            fB[k] *= intensity, fC[k] *= intensity;
            fs[3 * iv[1] + k] += fB[k];
            fs[3 * iv[2] + k] += fC[k];
            fs[3 * iv[0] + k] += -(fB[k] + fC[k]);
        }
        dg_tcontact *c = &p->tc[p->ntc++];
        memcpy(c->index, iv, sizeof c->index);
        c->fact = p->min_area - area;
        memcpy(c->normal, sn, sizeof sn);
        memcpy(c->b, B, sizeof B);
        memcpy(c->c, C, sizeof C);
    }
    const st_array *tet = p->stiffness_volume != 0 ? topo_elems(p, ST_T_TETRAS) : NULL;
    const double v16 = 1.0 / 6.0;
    for (size_t t = 0; tet && t < tet->n; t++) {
        const unsigned *iv = tet->u + 4 * t;
        if (iv[0] >= n || iv[1] >= n || iv[2] >= n || iv[3] >= n)
            continue;
        double A[3], B[3], C[3], bc[3], ca[3], ab[3];
        for (int k = 0; k < 3; k++) {
            A[k] = xs[3 * iv[1] + k] - xs[3 * iv[0] + k];
            B[k] = xs[3 * iv[2] + k] - xs[3 * iv[0] + k];
            C[k] = xs[3 * iv[3] + k] - xs[3 * iv[0] + k];
        }
        cross(B, C, bc);
        double volume = dot(A, bc) * v16;
        if (!(volume < p->min_volume))
            continue;
        double intensity = v16 * (p->stiffness_volume * (p->min_volume - volume));
        cross(C, A, ca);
        cross(A, B, ab);
        for (int k = 0; k < 3; k++) {
            double fa = bc[k] * intensity, fb = ca[k] * intensity, fc = ab[k] * intensity;
            fs[3 * iv[1] + k] += fa;
            fs[3 * iv[2] + k] += fb;
            fs[3 * iv[3] + k] += fc;
            fs[3 * iv[0] + k] += -(fa + fb + fc);
        }
        dg_vcontact *c = &p->vc[p->nvc++];
        memcpy(c->index, iv, sizeof c->index);
        c->fact = p->min_volume - volume;
        memcpy(c->a, A, sizeof A);
        memcpy(c->b, B, sizeof B);
        memcpy(c->c, C, sizeof C);
    }
}

static void dgff_add_dforce(st_component *self, const st_mparams *mp, double *df,
                            const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    dgff *p = (dgff *)self;
    double *dfs = st_slice(df, p->ms);
    const double *dxs = st_slice(dx, p->ms);
    for (size_t k = 0; k < p->nc; k++) {
        const dg_contact *c = &p->c[k];
        double dd = dot(dxs + 3 * c->index, c->normal);
        for (int j = 0; j < 3; j++)
            dfs[3 * c->index + j] += c->normal[j] * (dd * c->fact * kfactor);
    }
    const double fa = -p->stiffness_area * kfactor;
    for (size_t k = 0; k < p->ntc; k++) {
        const dg_tcontact *c = &p->tc[k];
        const unsigned *t = c->index;
        double dB[3], dC[3], cn[3], nb[3], dcn[3], ndb[3];
        for (int j = 0; j < 3; j++)
            dB[j] = dxs[3 * t[1] + j] - dxs[3 * t[0] + j], dC[j] = dxs[3 * t[2] + j] - dxs[3 * t[0] + j];
        cross(c->c, c->normal, cn);
        cross(c->normal, c->b, nb);
        double darea = 0.5 * (dot(cn, dB) + dot(nb, dC));
        cross(dC, c->normal, dcn);
        cross(c->normal, dB, ndb);
        for (int j = 0; j < 3; j++) {
            double fb = cn[j] * (fa * darea) - dcn[j] * (fa * c->fact);
            double fc = nb[j] * (fa * darea) - ndb[j] * (fa * c->fact);
            dfs[3 * t[0] + j] += -(fb + fc);
            dfs[3 * t[1] + j] += fb;
            dfs[3 * t[2] + j] += fc;
        }
    }
    const double fv = -p->stiffness_volume * (1.0 / 6.0) * kfactor, v16 = 1.0 / 6.0;
    for (size_t k = 0; k < p->nvc; k++) {
        const dg_vcontact *c = &p->vc[k];
        const unsigned *t = c->index;
        double dA[3], dB[3], dC[3], bc[3], ca[3], ab[3], x1[3], x2[3], x3[3], x4[3], x5[3], x6[3];
        for (int j = 0; j < 3; j++) {
            dA[j] = dxs[3 * t[1] + j] - dxs[3 * t[0] + j];
            dB[j] = dxs[3 * t[2] + j] - dxs[3 * t[0] + j];
            dC[j] = dxs[3 * t[3] + j] - dxs[3 * t[0] + j];
        }
        cross(c->b, c->c, bc);
        cross(c->c, c->a, ca);
        cross(c->a, c->b, ab);
        double dvol = v16 * (dot(dA, bc) + dot(dB, ca) + dot(dC, ab));
        cross(dB, c->c, x1), cross(c->b, dC, x2);
        cross(dC, c->a, x3), cross(c->c, dA, x4);
        cross(dA, c->b, x5), cross(c->a, dB, x6);
        for (int j = 0; j < 3; j++) {
            double fA = bc[j] * (fv * dvol) - (x1[j] + x2[j]) * (fv * c->fact);
            double fB = ca[j] * (fv * dvol) - (x3[j] + x4[j]) * (fv * c->fact);
            double fC = ab[j] * (fv * dvol) - (x5[j] + x6[j]) * (fv * c->fact);
            dfs[3 * t[1] + j] += fA;
            dfs[3 * t[2] + j] += fB;
            dfs[3 * t[3] + j] += fC;
            dfs[3 * t[0] + j] += -(fA + fB + fC);
        }
    }
}

/* SOFA's addKToMatrix: the point blocks only, with the factor -fact kFactor;
 * a zero block on the other points of the range, so that the sequence of
 * matrix calls (the pattern a direct solver analyses once) does not change
 * while contacts come and go. Contacts are in ascending point order. */
static void dgff_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    dgff *p = (dgff *)self;
    const size_t n = p->ms->n;
    size_t begin = p->local_range[0] >= 0 ? (size_t)p->local_range[0] : 0, end = n, k = 0;
    if (p->local_range[1] >= 0 && (size_t)p->local_range[1] + 1 < end)
        end = (size_t)p->local_range[1] + 1;
    for (size_t i = begin; i < end; i++) {
        double b[9] = {0};
        if (k < p->nc && p->c[k].index == i) {
            const dg_contact *c = &p->c[k++];
            double fact = c->fact * -kfactor;
            for (int r = 0; r < 3; r++)
                for (int q = 0; q < 3; q++)
                    b[3 * r + q] = c->normal[r] * fact * c->normal[q];
        }
        st_matrix_add_block(m, p->ms, i, p->ms, i, b);
    }
}

static double dgff_rayleigh(const st_component *self)
{
    return ((const dgff *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops dgff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = dgff_add_force,
    .add_dforce = dgff_add_dforce,
    .add_k_to_matrix = dgff_add_k,
    .rayleigh_stiffness = dgff_rayleigh,
};

static const st_field dgff_fields[] = {
    ST_STRING(dgff, filename, "filename", NULL,
              "load distance grid from specified file (.obj surface, .raw values or #cube)"),
    ST_REAL(dgff, scale, "scale", "1", "scaling factor for input file"),
    ST_REALS_N(dgff, box, "box", "0 0 0 0 0 0",
               "Field bounding box defined by xmin,ymin,zmin, xmax,ymax,zmax", 6),
    ST_INT(dgff, nx, "nx", "64", "number of values on X axis"),
    ST_INT(dgff, ny, "ny", "64", "number of values on Y axis"),
    ST_INT(dgff, nz, "nz", "64", "number of values on Z axis"),
    ST_REAL(dgff, stiffness_in, "stiffnessIn", "500", "force stiffness when inside of the object"),
    ST_REAL(dgff, stiffness_out, "stiffnessOut", "0", "force stiffness when outside of the object"),
    ST_REAL(dgff, damping, "damping", "0.01", "force damping coefficient"),
    ST_REAL(dgff, max_dist, "maxdist", "1",
            "max distance of the surface after which no more force is applied"),
    ST_REAL(dgff, min_area, "minArea", "0",
            "minimal area for each triangle, as seen from the direction of the local surface "
            "(i.e. a flipped triangle will have a negative area)"),
    ST_REAL(dgff, stiffness_area, "stiffnessArea", "100",
            "force stiffness if a triangle have an area less than minArea"),
    ST_REAL(dgff, min_volume, "minVolume", "0",
            "minimal volume for each tetrahedron (a flipped triangle will have a negative volume)"),
    ST_REAL(dgff, stiffness_volume, "stiffnessVolume", "0",
            "force stiffness if a tetrahedron have an volume less than minVolume"),
    IGN_RGBA(dgff, color, "color", "0 0.5 0.2 1", "display color.(default=[0.0,0.5,0.2,1.0])"),
    IGN_BOOL(dgff, draw, "draw", "false", "enable/disable drawing of distancegrid"),
    IGN_BOOL(dgff, draw_points, "drawPoints", "false", "enable/disable drawing of distancegrid"),
    IGN_REAL(dgff, draw_size, "drawSize", "10", "display size if draw is enabled"),
    ST_INT2(dgff, local_range, "localRange", "-1 -1",
            "optional range of local DOF indices. Any computation involving only indices outside "
            "of this range are discarded (useful for parallelization using mesh partitioning)"),
    ST_REAL(dgff, rayleigh_stiffness, "rayleighStiffness", "0",
            "Rayleigh damping - stiffness matrix coefficient"),
    ST_LINK(dgff, mstate, "mstate", ST_LINK_STATE, "MechanicalState used by this component"),
    ST_FIELD_END};

static const char *const dgff_templates[] = {"Vec3d", NULL};

const st_class distance_grid_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "DistanceGridForceField",
    .category = "ForceField",
    .description = "Force applied by a distancegrid toward the exterior, the interior or the "
                   "surface",
    .instance_size = sizeof(dgff),
    .fields = dgff_fields,
    .init = dgff_init,
    .cleanup = dgff_cleanup,
    .forcefield = &dgff_ops,
    .templates = dgff_templates,
};
