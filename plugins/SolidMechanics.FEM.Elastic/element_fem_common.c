/* element_fem_common.c - what LinearSmallStrainFEMForceField and
 * CorotationalFEMForceField share (SOFA's FEMForceField and
 * BaseElementLinearFEMForceField).
 *
 * The element type is the template's (SOFA's "Vec3d,Triangle", ...), read
 * from the state's dimension d and the element name; elements are the
 * topology's list of that kind (a force field acts on one kind: a mesh of
 * tetrahedra and triangles needs one force field per kind, as in SOFA).
 * Without a template SOFA's factory takes the first registered template of
 * the state's type in name order, VecNd,Edge, and warns; settee does the
 * same.
 *
 * Per element e with nodes x_j (rest x0_j), K_e integrated at init from
 * the rest positions of the state (fe_stiffness: sum over the quadrature
 * points of w |det J| B^T C B, C isotropic in d dimensions from
 * youngModulus and poissonRatio of element e):
 *   small strain: f = -K_e (x - x0);
 *   corotational: u_j = R^T (x_j - c) - (x0_j - c0) with c, c0 the
 *     centroids, f = -R K_e u (R block-diagonal, d x d);
 *   df = -kfactor R K_e R^T dx, the matrix -kfactor R K_e R^T (R = I for
 *     small strain): SOFA's tangent, without the derivative of R.
 * Potential energy: 0 for both, as SOFA returns. Element data are
 * allocated at init; no step allocates.
 *
 * Topological changes (edges, triangles, quads, tetrahedra, hexahedra):
 * K, the rotations and the initial frames follow their elements through
 * the kernel's records (a removed element's place takes the last one's
 * data, as the topology's list does); an added element gets K and its
 * frame from the rest positions, as at init, and the vertex lists are
 * read again from the topology (points renumbered). SOFA's classes read
 * the topology's current elements at each step but keep their stiffness
 * list by element index, computed at init: settee keeps each element's
 * own stiffness, so a run equals one built directly with the remaining
 * elements. Prisms and pyramids (no dynamic container) are not followed:
 * a change of their topology is refused, naming the force field. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "element_fem.h"

void efem_cleanup(st_component *self)
{
    element_fem *s = (element_fem *)self;
    st_free(s->v), st_free(s->K), st_free(s->R), st_free(s->R0), st_free(s->fresh);
    s->v = NULL, s->K = s->R = s->R0 = NULL, s->fresh = NULL;
    s->ne = s->nK = s->nR = s->nR0 = s->nfresh = 0;
}

/* x (nn x d, flat) = the element's nodes in p (d per vertex). */
static void gather(const element_fem *s, size_t e, const double *p, double *x)
{
    const unsigned *v = s->v + (size_t)s->nn * e;
    const int d = s->d;
    for (int j = 0; j < s->nn; j++)
        for (int c = 0; c < d; c++)
            x[d * j + c] = p[(size_t)d * v[j] + c];
}

static void centroid(const double *x, int n, int d, double c[3])
{
    c[0] = c[1] = c[2] = 0;
    for (int j = 0; j < n; j++)
        for (int k = 0; k < d; k++)
            c[k] += x[d * j + k];
    for (int k = 0; k < d; k++)
        c[k] /= n;
}

/* The name of the fourth rotation method (SOFA's frame rotation) of the
 * element, or NULL when it has only stable_polar, polar and identity. */
static const char *frame_method(int d, fe_kind k)
{
    if (d != 3)
        return NULL;
    if (k == FE_TETRAHEDRON || k == FE_TRIANGLE)
        return "triangle";
    return k == FE_HEXAHEDRON ? "hexahedron" : NULL;
}

/* SOFA's TriangleRotation / HexahedronRotation frame of the nodes x (3D):
 * rows are the axes. */
static void element_frame(fe_kind kind, const double *xf, double r[9])
{
    const double (*x)[3] = (const double (*)[3])xf;
    double ax[3], ay[3];
    if (kind != FE_HEXAHEDRON) {
        for (int k = 0; k < 3; k++)
            ax[k] = x[1][k] - x[0][k], ay[k] = x[2][k] - x[0][k];
    } else {
        for (int k = 0; k < 3; k++) {
            ax[k] = (x[1][k] - x[0][k] + x[2][k] - x[3][k] + x[5][k] - x[4][k] + x[6][k] -
                     x[7][k]) * 0.25;
            ay[k] = (x[3][k] - x[0][k] + x[2][k] - x[1][k] + x[7][k] - x[4][k] + x[6][k] -
                     x[5][k]) * 0.25;
        }
    }
    fem_frame(r, ax, ay);
}

/* SOFA's 2D polar decomposition: Q = M + sign(det M) adj(M)^T, columns
 * normalized (a reflection when det M < 0). */
static void polar2(const double h[4], double q[4])
{
    double det = h[0] * h[3] - h[1] * h[2], sg = det < 0 ? -1.0 : 1.0;
    q[0] = h[0] + sg * h[3], q[1] = h[1] - sg * h[2];
    q[2] = h[2] - sg * h[1], q[3] = h[3] + sg * h[0];
    for (int i = 0; i < 2; i++) {
        double n = sqrt(q[i] * q[i] + q[2 + i] * q[2 + i]);
        q[i] /= n, q[2 + i] /= n;
    }
}

/* The proper rotation closest to h (2x2): SOFA's stable polar
 * decomposition (U V^T of the SVD with the smallest singular value
 * flipped when det h < 0); the identity when h is null. */
static void polar2_stable(const double h[4], double q[4])
{
    double c = h[0] + h[3], sn = h[2] - h[1], n = hypot(c, sn);
    if (n == 0.0)
        c = 1.0, sn = 0.0;
    else
        c /= n, sn /= n;
    q[0] = c, q[1] = -sn, q[2] = sn, q[3] = c;
}

/* The rotation R (element frame to world; d x d in the first rows and
 * columns of 9, row stride 3) of element e at nodes x (rest x0), by SOFA's
 * rotationMethod. */
static void rotation(const element_fem *s, size_t e, const double *x, const double *x0,
                     double R[9])
{
    const int d = s->d;
    for (int k = 0; k < 9; k++)
        R[k] = k % 4 == 0 ? 1.0 : 0.0;
    if (s->rot == ROT_IDENTITY)
        return;
    if (s->rot == ROT_FRAME) { /* R = frame(x)^T frame(x0), 3D only */
        double r[9], rt[9];
        element_frame(s->kind, x, r);
        fem_transpose3(rt, r);
        fem_mul3(R, rt, s->R0 + 9 * e);
        return;
    }
    /* H = sum_j (x_j - c)(x0_j - c0)^T, R its orthogonal factor */
    double c[3], c0[3], H[9] = {0};
    centroid(x, s->nn, d, c);
    centroid(x0, s->nn, d, c0);
    for (int j = 0; j < s->nn; j++)
        for (int a = 0; a < d; a++)
            for (int b = 0; b < d; b++)
                H[3 * a + b] += (x[d * j + a] - c[a]) * (x0[d * j + b] - c0[b]);
    if (d == 3) {
        if (s->rot == ROT_POLAR)
            fem_polar(H, R);
        else
            fem_polar_stable(H, R);
        return;
    }
    double h[4] = {H[0], H[1], H[3], H[4]}, q[4];
    if (s->rot == ROT_POLAR)
        polar2(h, q);
    else
        polar2_stable(h, q);
    R[0] = q[0], R[1] = q[1], R[3] = q[2], R[4] = q[3];
}

/* The state's dimension (1, 2, 3 for Vec1d, Vec2d, Vec3d; 0 otherwise). */
static int state_dim(const st_mstate *ms)
{
    return ms->type->rigid ? 0 : (int)ms->type->coord_size;
}

static st_status parse_template(element_fem *s, st_error *err)
{
    const char *t = s->template_name ? s->template_name : "";
    const int sd = state_dim(s->ms);
    if (!sd)
        return st_component_error(&s->base, "template", err, ST_ESCENE,
                                  "%s acts on Vec1d, Vec2d or Vec3d states, not on the %s state",
                                  s->base.cls->name, s->ms->type->name);
    if (!t[0]) {
        /* SOFA's factory: the first template of the state's type, by name */
        s->d = sd, s->kind = FE_EDGE;
        if (!(s->corot && sd == 1))
            st_component_warn(&s->base,
                              "no template given: SOFA's choice for a Vec%dd state is "
                              "Vec%dd,Edge (the topology's edges); set template to the element "
                              "type wanted (Vec3d,Tetrahedron, ...)",
                              sd, sd);
    } else if (!fe_parse_template(t, &s->d, &s->kind)) {
        return st_component_error(&s->base, "template", err, ST_ESCENE,
                                  "%s: template '%s' is not of the form Vec<N>d,<Element> with "
                                  "Element Edge, Triangle, Quad, Tetrahedron, Hexahedron, Prism "
                                  "or Pyramid",
                                  s->base.cls->name, t);
    }
    if (!fe_registered(s->d, s->kind) || (s->corot && s->d == 1))
        return st_component_error(&s->base, "template", err, ST_ESCENE,
                                  "%s has no template Vec%dd,%s (SOFA registers %s)",
                                  s->base.cls->name, s->d, fe_kind_name(s->kind),
                                  s->corot ? "Vec2d and Vec3d edges, triangles and quads, Vec3d "
                                             "volume elements"
                                           : "Vec1d, Vec2d and Vec3d edges, Vec2d and Vec3d "
                                             "triangles and quads, Vec3d volume elements");
    if (s->d != sd)
        return st_component_error(&s->base, "template", err, ST_ESCENE,
                                  "template %s does not match the %s state the force field "
                                  "acts on",
                                  t, s->ms->type->name);
    s->nn = fe_nodes(s->kind);
    return ST_OK;
}

static st_status parse_rotation(element_fem *s, st_error *err)
{
    s->rot = ROT_IDENTITY;
    if (!s->corot)
        return ST_OK;
    const char *frame = frame_method(s->d, s->kind);
    const char *const names[4] = {"stable_polar", "polar", "identity", frame};
    const int nm = frame ? 4 : 3;
    if (!s->rotation_method || !s->rotation_method[0]) {
        s->rot = frame ? ROT_FRAME : ROT_STABLE_POLAR; /* SOFA's defaults */
        return ST_OK;
    }
    s->rot = fem_method_index(s->rotation_method, names, nm);
    if (s->rot < 0)
        return st_component_error(&s->base, "rotationMethod", err, ST_ESCENE,
                                  "unknown rotationMethod '%s' for Vec%dd,%s: expected "
                                  "stable_polar, polar or identity%s%s",
                                  s->rotation_method, s->d, fe_kind_name(s->kind),
                                  frame ? " or " : "", frame ? frame : "");
    if (s->rot == ROT_POLAR && s->d == 3 && fe_topo_dim(s->kind) < 3)
        st_component_warn_field(&s->base, "rotationMethod",
                                "polar on Vec3d,%s: the matrix H = sum (x - c)(x0 - c0)^T of "
                                "an edge, triangle or quad is singular, and SOFA's polar "
                                "decomposition then stops at its first step (\"zero "
                                "determinant encountered\") and returns H itself, not a "
                                "rotation; settee does the same. Use stable_polar%s",
                                fe_kind_name(s->kind),
                                frame ? " or the default, triangle" : " (the default)");
    return ST_OK;
}

/* K and the initial frame of element e from the rest positions (SOFA's
 * precomputeElementStiffness and computeInitialRotations); R the
 * identity. */
static st_status element_data(element_fem *s, size_t e, st_error *err)
{
    const size_t nd = (size_t)s->d * (size_t)s->nn;
    double x[FE_MAX_DOFS], lambda, mu;
    gather(s, e, s->ms->rest_position.r, x);
    fe_lame(fem_value_in_element(&s->young_modulus, e, FEM_DEFAULT_YOUNG),
            fem_value_in_element(&s->poisson_ratio, e, FEM_DEFAULT_POISSON), s->d, &lambda, &mu);
    if (!fe_stiffness(s->kind, s->d, x, lambda, mu, s->K + e * nd * nd))
        return st_component_error(&s->base, "topology", err, ST_EINVAL,
                                  "element %zu is degenerate (null Jacobian determinant at "
                                  "a quadrature point)",
                                  e);
    if (s->rot == ROT_FRAME)
        element_frame(s->kind, x, s->R0 + 9 * e);
    for (int k = 0; k < 9; k++)
        s->R[9 * e + k] = k % 4 == 0 ? 1.0 : 0.0;
    return ST_OK;
}

/* The topology's current elements into v (ne x nn), checked against the
 * state's points. */
static st_status read_elements(element_fem *s, st_error *err)
{
    size_t ne = 0;
    const unsigned *el = fe_topology_elements(s->topology, s->kind, &ne);
    if (!el)
        ne = 0;
    const size_t nn = (size_t)s->nn;
    unsigned *v = st_realloc(s->v, (ne ? ne * nn : 1) * sizeof *v);
    if (!v)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu elements)", ne);
    s->v = v;
    s->ne = ne;
    if (!ne)
        return ST_OK;
    memcpy(s->v, el, ne * nn * sizeof *s->v);
    char what[32];
    snprintf(what, sizeof what, "%s", fe_kind_name(s->kind));
    what[0] = (char)(what[0] - 'A' + 'a');
    return fem_check_indices(&s->base, s->v, s->ne, (unsigned)nn, s->ms->rest_position.n, what,
                             err);
}

/* The dynamic topology's kind of the element, or -1 (prisms, pyramids). */
static int followed_elem(fe_kind k)
{
    switch (k) {
    case FE_EDGE: return ST_ELEM_EDGE;
    case FE_TRIANGLE: return ST_ELEM_TRIANGLE;
    case FE_QUAD: return ST_ELEM_QUAD;
    case FE_TETRAHEDRON: return ST_ELEM_TETRAHEDRON;
    case FE_HEXAHEDRON: return ST_ELEM_HEXAHEDRON;
    default: return -1;
    }
}

static void element_created(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i, (void)ev, (void)k;
    *(unsigned char *)item = 1;
}

static const st_topo_follow_ops fresh_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = element_created,
};

/* After a change: the kept elements kept their data (the records moved
 * them); per-element material lists follow; the vertex lists are read
 * again; the added elements get their data. */
static st_status efem_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                              size_t nev, st_error *err)
{
    (void)topology;
    element_fem *s = (element_fem *)self;
    st_elem elem = (st_elem)followed_elem(s->kind);
    fem_follow_list(self, "youngModulus", &s->young_modulus, 1, 1, elem, ev, nev);
    fem_follow_list(self, "poissonRatio", &s->poisson_ratio, 1, 1, elem, ev, nev);
    ST_TRY(read_elements(s, err));
    if (s->nK != s->ne || s->nR != s->ne || s->nR0 != s->ne || s->nfresh != s->ne)
        return st_component_error(self, "topology", err, ST_EINVAL,
                                  "%zu %s in the topology but %zu followed element data",
                                  s->ne, st_elem_name(elem), s->nK);
    for (size_t e = 0; e < s->ne; e++)
        if (s->fresh[e]) {
            ST_TRY(element_data(s, e, err));
            s->fresh[e] = 0;
        }
    return ST_OK;
}

/* Registers once per topology (reinit calls init again). */
static st_status follow_topology(element_fem *s, st_error *err)
{
    int elem = followed_elem(s->kind);
    if (elem < 0 || s->followed == s->topology)
        return ST_OK;
    st_component *self = &s->base;
    const size_t nd = (size_t)s->d * (size_t)s->nn;
    st_elem k = (st_elem)elem;
    ST_TRY(st_topology_follow(self, s->topology, k, (void **)&s->K, &s->nK,
                              nd * nd * sizeof *s->K, NULL, s, err));
    ST_TRY(st_topology_follow(self, s->topology, k, (void **)&s->R, &s->nR, 9 * sizeof *s->R,
                              NULL, s, err));
    ST_TRY(st_topology_follow(self, s->topology, k, (void **)&s->R0, &s->nR0,
                              9 * sizeof *s->R0, NULL, s, err));
    ST_TRY(st_topology_follow(self, s->topology, k, (void **)&s->fresh, &s->nfresh,
                              sizeof *s->fresh, &fresh_ops, s, err));
    ST_TRY(st_topology_listen(self, s->topology, efem_changed, err));
    s->followed = s->topology;
    return ST_OK;
}

st_status efem_init(st_component *self, st_error *err)
{
    element_fem *s = (element_fem *)self;
    efem_cleanup(self);
    self->state = ST_CSTATE_INVALID;
    s->corot = self->cls == &corotational_fem_force_field_class;
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    ST_TRY(parse_template(s, err));
    ST_TRY(parse_rotation(s, err));
    ST_TRY(read_elements(s, err));
    const size_t nd = (size_t)s->d * (size_t)s->nn, n = s->ne ? s->ne : 1;
    s->K = st_calloc(n * nd * nd, sizeof *s->K);
    s->R = st_calloc(n * 9, sizeof *s->R);
    s->R0 = st_calloc(n * 9, sizeof *s->R0);
    s->fresh = st_calloc(n, sizeof *s->fresh);
    if (!s->K || !s->R || !s->R0 || !s->fresh) {
        efem_cleanup(self);
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu elements)", s->ne);
    }
    s->nK = s->nR = s->nR0 = s->nfresh = s->ne;
    for (size_t e = 0; e < s->ne; e++)
        ST_TRY(element_data(s, e, err));
    ST_TRY(follow_topology(s, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

/* out -= scale R K R^T dv on the element's nodes (dv: nn x d; R NULL:
 * identity). */
static void apply(const element_fem *s, size_t e, const double *R, const double *dv,
                  double *out, double scale)
{
    const int nn = s->nn, d = s->d, nd = d * nn;
    double u[FE_MAX_DOFS], F[FE_MAX_DOFS];
    for (int j = 0; j < nn; j++)
        for (int c = 0; c < d; c++) {
            if (!R) {
                u[d * j + c] = dv[d * j + c];
                continue;
            }
            double a = 0; /* (R^T dv_j)_c */
            for (int r = 0; r < d; r++)
                a += R[3 * r + c] * dv[d * j + r];
            u[d * j + c] = a;
        }
    const double *K = s->K + (size_t)e * nd * nd;
    for (int r = 0; r < nd; r++) {
        double a = 0;
        for (int c = 0; c < nd; c++)
            a += K[r * nd + c] * u[c];
        F[r] = a;
    }
    const unsigned *v = s->v + (size_t)nn * e;
    for (int j = 0; j < nn; j++) {
        double *o = out + (size_t)d * v[j];
        const double *Fj = F + d * j;
        for (int c = 0; c < d; c++) {
            double a = Fj[c];
            if (R) {
                a = 0;
                for (int k = 0; k < d; k++)
                    a += R[3 * c + k] * Fj[k];
            }
            o[c] -= scale * a;
        }
    }
}

static void efem_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp, (void)v;
    element_fem *s = (element_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms), *p0 = s->ms->rest_position.r;
    const int d = s->d, nn = s->nn;
    for (size_t e = 0; e < s->ne; e++) {
        double xe[FE_MAX_DOFS], x0[FE_MAX_DOFS], dd[FE_MAX_DOFS];
        gather(s, e, p, xe);
        gather(s, e, p0, x0);
        if (!s->corot) {
            for (int k = 0; k < d * nn; k++)
                dd[k] = xe[k] - x0[k];
            apply(s, e, NULL, dd, fs, 1.0);
            continue;
        }
        double *R = s->R + 9 * e, c[3], c0[3];
        rotation(s, e, xe, x0, R);
        centroid(xe, nn, d, c);
        centroid(x0, nn, d, c0);
        /* dd_j = (x_j - c) - R (x0_j - c0), so that R^T dd_j is SOFA's u_j */
        for (int j = 0; j < nn; j++)
            for (int a = 0; a < d; a++) {
                double rr = 0;
                for (int b = 0; b < d; b++)
                    rr += R[3 * a + b] * (x0[d * j + b] - c0[b]);
                dd[d * j + a] = xe[d * j + a] - c[a] - rr;
            }
        apply(s, e, R, dd, fs, 1.0);
    }
}

static void efem_add_dforce(st_component *self, const st_mparams *mp, double *df,
                            const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    element_fem *s = (element_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *dfs = fem_derivs(df, s->ms);
    const double *dv = fem_dx(dx, s->ms);
    for (size_t e = 0; e < s->ne; e++) {
        double de[FE_MAX_DOFS];
        gather(s, e, dv, de);
        apply(s, e, s->corot ? s->R + 9 * e : NULL, de, dfs, kfactor);
    }
}

static void efem_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    element_fem *s = (element_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    const int nn = s->nn, d = s->d, nd = d * nn;
    for (size_t e = 0; e < s->ne; e++) {
        const double *K = s->K + e * (size_t)nd * nd, *R = s->R + 9 * e;
        const unsigned *v = s->v + (size_t)nn * e;
        for (int a = 0; a < nn; a++)
            for (int b = 0; b < nn; b++) {
                double k[9] = {0}, t[9], rt[9], blk[9];
                for (int r = 0; r < d; r++)
                    for (int c = 0; c < d; c++)
                        k[3 * r + c] = K[(d * a + r) * nd + d * b + c];
                if (s->corot) { /* R k R^T (zero beyond d x d) */
                    fem_transpose3(rt, R);
                    fem_mul3(t, R, k);
                    fem_mul3(k, t, rt);
                }
                for (int r = 0; r < d; r++)
                    for (int c = 0; c < d; c++)
                        blk[d * r + c] = -kfactor * k[3 * r + c];
                st_matrix_add_block(m, s->ms, v[a], s->ms, v[b], blk);
            }
    }
}

static double efem_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)self, (void)mp, (void)x;
    return 0.0; /* SOFA's getPotentialEnergy of both classes */
}

static double efem_rayleigh(const st_component *self)
{
    return ((const element_fem *)self)->rayleigh_stiffness;
}

const st_forcefield_ops efem_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = efem_add_force,
    .add_dforce = efem_add_dforce,
    .add_k_to_matrix = efem_add_k,
    .potential_energy = efem_energy,
    .rayleigh_stiffness = efem_rayleigh,
};
