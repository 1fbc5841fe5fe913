/* triangular_fem_force_field.c - TriangularFEMForceField: SOFA's linear
 * membrane triangle (plane stress, no thickness), small displacements or
 * corotational large; and TriangularFEMForceFieldOptim, SOFA's optimised
 * corotational triangle.
 *
 * Per element (vertices a, b, c; SOFA's TriangleFEMUtils conventions):
 *   K = E / (1 - nu^2) * area * [1 nu 0; nu 1 0; 0 0 (1 - nu) / 2];
 *   large: R from the current triangle (x along ab, z normal, y
 *      completing), b and c in that frame with a at the origin, D = rest -
 *      current in the frame with the components the frame makes zero left
 *      out, J the 6x3 strain-displacement matrix of the *current* local
 *      shape (area from the rest shape), strain J^T D, stress K strain,
 *      f = R^T J stress;
 *   small: D from the global x and y of b - a and c - a, J from the same
 *      (SOFA's computeStrainDisplacementGlobal: x and y only, divided by
 *      the 3D norm of ab x ac), forces on x and y only.
 * add_dforce and the matrix use the J and R of the last add_force (SOFA's
 * tangent, without the derivatives of J and R): exact at a rest state
 * rotated and translated (large) or unmoved (small).
 * Deviation: SOFA's small method assembles its matrix with a rotation it
 * never sets (zero), so its assembled K is zero; settee uses the identity,
 * the matrix add_dforce applies.
 * Potential energy: SOFA has none (it reports an error and returns 0);
 * settee returns the strain energy 1/2 (J^T D)^T K (J^T D) of the D and J
 * add_force uses (J of the current shape: the force is -dE/dx up to a
 * relative error of the order of the strain).
 * computePrincipalStress fills two settee outputs: the largest principal
 * stress per element (SOFA's triangleInfo maxStress) and its area-weighted
 * average per vertex (vertexInfo stress, when showStressValue).
 *
 * TriangularFEMForceFieldOptim is the large element with J kept from the
 * rest shape (SOFA writes it with the unnormalised factors bx, cx, cy and
 * ss_factor = 1 / (2 bx cy), the same J K J^T), the frame of the current
 * positions at init, restScale applied to the rest edges, and its stress
 * SOFA's way: the material matrix times the unnormalised strain of
 * rest - current times ss_factor (minus half the physical stress);
 * stressMaxValue is the largest principal value of that (and 0). Its
 * potential energy: SOFA has none (warns, 0); settee returns the same
 * strain energy (J of the rest shape).
 *
 * TriangularAnisotropicFEMForceField is TriangularFEMForceField with SOFA's
 * orthotropic material (see anisotropic_material). */
#include <math.h>
#include <string.h>

#include "../shared/topology_link.h"
#include "triangular_fem.h"

static const char *const method_names[] = {"large", "small"};

/* SOFA's computeStrainDisplacementGlobal with a at the origin. */
static bool strain_global(double J[6][3], const double *b, const double *c)
{
    double n[3];
    fem_cross(n, b, c);
    double det = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (fabs(det) < 2.220446049250313e-16)
        return false;
    double inv = 1 / det;
    double x13 = -c[0] * inv, x21 = b[0] * inv, x32 = (c[0] - b[0]) * inv;
    double y12 = -b[1] * inv, y23 = (b[1] - c[1]) * inv, y31 = c[1] * inv;
    double j[6][3] = {{y23, 0, x32}, {0, x32, y23}, {y31, 0, x13},
                      {0, x13, y31}, {y12, 0, x21}, {0, x21, y12}};
    memcpy(J, j, sizeof j);
    return true;
}

/* strain = J^T D, stress = K strain (scaled by fact), F = J stress. */
static void element_force(trf_elem *t, const double J[6][3], const double D[6], double fact,
                          double F[6], bool keep)
{
    double e[3], s[3];
    for (int c = 0; c < 3; c++) {
        double a = 0;
        for (int r = 0; r < 6; r++)
            a += J[r][c] * D[r];
        e[c] = a;
    }
    fem_mulv3(s, t->K, e);
    for (int c = 0; c < 3; c++)
        s[c] *= fact;
    for (int r = 0; r < 6; r++)
        F[r] = J[r][0] * s[0] + J[r][1] * s[1] + J[r][2] * s[2];
    if (keep) {
        memcpy(t->strain, e, sizeof e);
        memcpy(t->stress, s, sizeof s);
    }
}

/* ---- Init ---- */

/* Coordinates of g in the basis (u, v, n) (columns), third one dropped and
 * the result normalised (SOFA: Tinv g, [2] = 0, normalize). */
static void in_basis(double r[3], const double u[3], const double v[3], const double n[3],
                     const double g[3])
{
    double T[9] = {u[0], v[0], n[0], u[1], v[1], n[1], u[2], v[2], n[2]}, Ti[9];
    if (!fem_invert3(Ti, T)) {
        r[0] = r[1] = r[2] = 0;
        return;
    }
    fem_mulv3(r, Ti, g);
    r[2] = 0;
    fem_normalize(r);
}

/* SOFA's TriangularAnisotropicFEMForceField computeMaterialStiffness: the
 * orthotropic plane-stress matrix (E along the fiber, transverse E2,
 * nu2 = nu E2 / E) turned into the element's orthonormal frame; no area
 * factor (unlike the isotropic element). Also the fiber direction in the
 * (ab, ac) basis (localFiberDirection). */
static st_status anisotropic_material(trf_fem *s, size_t i, const double *a, const double *b,
                                      const double *c, double E, double nu, st_error *err)
{
    trf_elem *t = &s->e[i];
    double E2 = fem_value_in_element(&s->young2, i, 1000.0);
    double nu2 = nu * (E2 / E);
    double q11 = E / (1 - nu * nu2), q12 = nu * E2 / (1 - nu * nu2);
    double q22 = E2 / (1 - nu * nu2), q66 = E / (2.0 * (1 + nu));
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]}, n[3], g[3];
    fem_cross(n, ab, ac);
    if (n[0] == 0 && n[1] == 0 && n[2] == 0)
        return st_component_error(&s->base, "topology", err, ST_EINVAL,
                                  "Cannot compute material stiffness for a flat triangle "
                                  "(triangle %zu)",
                                  i);
    if (s->fiber_center.n > 0) { /* concentric fibers */
        const double *fc = s->fiber_center.r;
        double d[3];
        for (int k = 0; k < 3; k++)
            d[k] = fc[k] - (a[k] + b[k] + c[k]) * (1.0 / 3.0);
        fem_cross(g, n, d);
    } else {
        double th = s->fiber_angle * 3.14159265358979323846 / 180.0;
        g[0] = cos(th), g[1] = sin(th), g[2] = 0;
    }
    in_basis(s->local_fiber.r + 3 * i, ab, ac, n, g);
    double ex[3], ey[3], ez[3], o[3];
    memcpy(ex, ab, sizeof ex);
    memcpy(ez, n, sizeof ez);
    fem_cross(ey, n, ab);
    fem_normalize(ex), fem_normalize(ey), fem_normalize(ez);
    in_basis(o, ex, ey, ez, g);
    double cs = o[0], sn = o[1], c2 = cs * cs, s2 = sn * sn, c3 = c2 * cs, s3 = s2 * sn;
    double c4 = c2 * c2, s4 = s2 * s2;
    double k11 = c4 * q11 + 2 * c2 * s2 * (q12 + 2 * q66) + s4 * q22;
    double k12 = c2 * s2 * (q11 + q22 - 4 * q66) + (c4 + s4) * q12;
    double k22 = s4 * q11 + 2 * c2 * s2 * (q12 + 2 * q66) + c4 * q22;
    double k16 = sn * c3 * (q11 - q12 - 2 * q66) + s3 * cs * (q12 - q22 + 2 * q66);
    double k26 = s3 * cs * (q11 - q12 - 2 * q66) + sn * c3 * (q12 - q22 + 2 * q66);
    double k66 = c2 * s2 * (q11 + q22 - 2 * q12 - 2 * q66) + (c4 + s4) * q66;
    double K[9] = {k11, k12, k16, k12, k22, k26, k16, k26, k66};
    memcpy(t->K, K, sizeof K);
    return ST_OK;
}

/* ---- TriangularFEMForceFieldOptim's kernels, in SOFA's order of operations ---- */

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/* SOFA's computeTriangleRotation: f0 = ab, f1 = (ab x ac) x ab, each
 * divided by its norm (left as it is when the norm is below epsilon). */
static void optim_frame(double f[2][3], const double ab[3], const double ac[3])
{
    double n[3];
    fem_cross(n, ab, ac);
    memcpy(f[0], ab, sizeof f[0]);
    fem_cross(f[1], n, ab);
    for (int k = 0; k < 2; k++) {
        double m = sqrt(dot3(f[k], f[k]));
        if (m > 2.220446049250313e-16)
            for (int c = 0; c < 3; c++)
                f[k][c] /= m;
    }
}

static void optim_mu_gamma(const trf_fem *s, size_t i, double *mu, double *gamma)
{
    double E = fem_value_in_element(&s->young_modulus, i, FEM_DEFAULT_YOUNG);
    double nu = fem_value_in_element(&s->poisson_ratio, i, FEM_DEFAULT_POISSON);
    *mu = E / (1 + nu);
    *gamma = E * nu / (1 - nu * nu);
}

/* out_a (+)= f0 u_a + f1 w_a for b and c, a = -b - c; sign -1 subtracts. */
static void optim_scatter(double *out, const trf_elem *t, const double f[2][3], double ub,
                          double wb, double uc, double wc, double sign)
{
    double fb[3], fc[3], fa[3];
    for (int c = 0; c < 3; c++) {
        fb[c] = f[0][c] * ub + f[1][c] * wb;
        fc[c] = f[0][c] * uc + f[1][c] * wc;
        fa[c] = -fb[c] - fc[c];
    }
    double *pa = out + 3 * t->v[0], *pb = out + 3 * t->v[1], *pc = out + 3 * t->v[2];
    for (int c = 0; c < 3; c++) {
        if (sign > 0)
            pa[c] += fa[c], pb[c] += fb[c], pc[c] += fc[c];
        else
            pa[c] -= fa[c], pb[c] -= fb[c], pc[c] -= fc[c];
    }
}

/* SOFA's addForce of one element: frame of the current triangle, local
 * displacement rest - current, strain and stress with the rest factors
 * (stress scaled by ss_factor), forces on b and c, a = -b - c. Keeps the
 * frame (t->R, element to world) and the stress (as settee's, K e). */
static void optim_force(const trf_fem *s, size_t i, trf_elem *t, const double *p, double *f)
{
    const double *pa = p + 3 * t->v[0], *pb = p + 3 * t->v[1], *pc = p + 3 * t->v[2];
    double ab[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    double ac[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
    double mu, gamma, fr[2][3];
    optim_mu_gamma(s, i, &mu, &gamma);
    optim_frame(fr, ab, ac);
    const double bx = t->opt[0], cx = t->opt[1], cy = t->opt[2], ss = t->opt[3];
    double dbx = bx - dot3(fr[0], ab), dcx = cx - dot3(fr[0], ac), dcy = cy - dot3(fr[1], ac);
    double e0 = cy * dbx, e1 = bx * dcy, e2 = bx * dcx - cx * dbx;
    double gxy = gamma * (e0 + e1);
    double s0 = mu * e0 + gxy, s1 = mu * e1 + gxy, s2 = 0.5 * mu * e2;
    s0 *= ss, s1 *= ss, s2 *= ss;
    optim_scatter(f, t, fr, cy * s0 - cx * s2, cy * s2 - cx * s1, bx * s2, bx * s1, 1.0);
    double z[3];
    fem_cross(z, fr[0], fr[1]);
    for (int c = 0; c < 3; c++)
        t->R[3 * c] = fr[0][c], t->R[3 * c + 1] = fr[1][c], t->R[3 * c + 2] = z[c];
    double two_area = 2 * t->area;
    t->stress[0] = s0 * two_area, t->stress[1] = s1 * two_area, t->stress[2] = s2 * two_area;
}

/* SOFA's addDForce of one element, with the frame of the last add_force. */
static void optim_dforce(const trf_fem *s, size_t i, const trf_elem *t, const double *d,
                         double *df, double kfactor)
{
    const double *da = d + 3 * t->v[0], *db = d + 3 * t->v[1], *dc = d + 3 * t->v[2];
    double dab[3] = {db[0] - da[0], db[1] - da[1], db[2] - da[2]};
    double dac[3] = {dc[0] - da[0], dc[1] - da[1], dc[2] - da[2]};
    double mu, gamma, fr[2][3];
    optim_mu_gamma(s, i, &mu, &gamma);
    for (int c = 0; c < 3; c++)
        fr[0][c] = t->R[3 * c], fr[1][c] = t->R[3 * c + 1];
    const double bx = t->opt[0], cx = t->opt[1], cy = t->opt[2], ss = t->opt[3];
    double dbx = dot3(fr[0], dab), dby = dot3(fr[1], dab);
    double dcx = dot3(fr[0], dac), dcy = dot3(fr[1], dac);
    double e0 = cy * dbx, e1 = bx * dcy - cx * dby, e2 = bx * dcx - cx * dbx + cy * dby;
    double gxy = gamma * (e0 + e1);
    double s0 = mu * e0 + gxy, s1 = mu * e1 + gxy, s2 = 0.5 * mu * e2;
    double k = ss * kfactor;
    s0 *= k, s1 *= k, s2 *= k;
    optim_scatter(df, t, fr, cy * s0 - cx * s2, cy * s2 - cx * s1, bx * s2, bx * s1, -1.0);
}

static st_status init_element(trf_fem *s, size_t i, const double *x0, st_error *err)
{
    trf_elem *t = &s->e[i];
    const double *a = x0 + 3 * t->v[0], *b = x0 + 3 * t->v[1], *c = x0 + 3 * t->v[2];
    double ab[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
    double ac[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    bool given = s->rotated_initial.n >= 3 * s->ne;
    memset(t->rest, 0, sizeof t->rest);
    bool ok;
    if (s->meth == TRF_SMALL) {
        for (int k = 0; k < 9; k++)
            t->R[k] = k % 4 == 0 ? 1.0 : 0.0;
        if (given)
            memcpy(t->rest, s->rotated_initial.r + 9 * i, sizeof t->rest);
        else
            memcpy(t->rest[1], ab, sizeof ab), memcpy(t->rest[2], ac, sizeof ac);
        ok = strain_global(t->J, t->rest[1], t->rest[2]);
        double n[3];
        fem_cross(n, t->rest[1], t->rest[2]);
        t->area = 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    } else {
        if (given && s->initial_transform.n >= 9 * s->ne) {
            fem_transpose3(t->R, s->initial_transform.r + 9 * i);
            memcpy(t->rest, s->rotated_initial.r + 9 * i, sizeof t->rest);
        } else {
            double r[9];
            if (s->optim && s->rest_scale != 1.0)
                for (int k = 0; k < 3; k++)
                    ab[k] *= s->rest_scale, ac[k] *= s->rest_scale;
            fem_rotation_large(r, a, b, c);
            fem_transpose3(t->R, r);
            fem_mulv3(t->rest[1], r, ab);
            fem_mulv3(t->rest[2], r, ac);
        }
        ok = fem_tri_strain_local(t->J, t->rest[1], t->rest[2]);
        t->area = t->rest[1][0] * t->rest[2][1] * 0.5;
        if (s->optim) {
            double f[2][3];
            optim_frame(f, ab, ac);
            t->opt[0] = dot3(f[0], ab);
            t->opt[1] = dot3(f[0], ac);
            t->opt[2] = dot3(f[1], ac);
            t->opt[3] = 0.5 / (t->opt[0] * t->opt[2]);
        }
    }
    if (!ok)
        return st_component_error(&s->base, "topology", err, ST_EINVAL,
                                  "triangle %zu (vertices %u %u %u) is flat: null determinant "
                                  "in its strain-displacement matrix",
                                  i, t->v[0], t->v[1], t->v[2]);
    double E = fem_value_in_element(&s->young_modulus, i, FEM_DEFAULT_YOUNG);
    double nu = fem_value_in_element(&s->poisson_ratio, i, FEM_DEFAULT_POISSON);
    if (s->aniso)
        return anisotropic_material(s, i, a, b, c, E, nu, err);
    double k = E / (1.0 - nu * nu) * t->area;
    double m[9] = {1, nu, 0, nu, 1, 0, 0, 0, (1.0 - nu) * 0.5};
    for (int j = 0; j < 9; j++)
        t->K[j] = m[j] * k;
    return ST_OK;
}

static void trf_free(trf_fem *s)
{
    st_free(s->e);
    st_free(s->tri_area_sum);
    s->e = NULL;
    s->tri_area_sum = NULL;
    s->ne = 0;
}

/* The area around each vertex (for the vertex stress average) and the
 * stress outputs, from the elements as they are. */
static st_status per_vertex(trf_fem *s, size_t np, st_error *err)
{
    st_free(s->tri_area_sum);
    s->tri_area_sum = st_calloc(np ? np : 1, sizeof *s->tri_area_sum);
    if (!s->tri_area_sum)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu points)", np);
    for (size_t i = 0; i < s->ne; i++)
        for (int k = 0; k < 3; k++)
            s->tri_area_sum[s->e[i].v[k]] += s->e[i].area != 0 ? s->e[i].area : 0;
    if (s->compute_principal && !s->optim) {
        ST_TRY(st_array_resize(&s->max_stress, ST_T_REALS, s->ne, err));
        ST_TRY(st_array_resize(&s->vertex_stress, ST_T_REALS, np, err));
    }
    return ST_OK;
}

/* ---- Topological changes ---- */

/* SOFA's createTriangleInformation (and the Optim's createTriangleInfo,
 * createTriangleState): computed by the listener, once the rest positions
 * of the triangle's points are there. */
static void trf_create(void *ud, size_t i, void *item, const st_topo_event *ev, size_t k)
{
    (void)ud, (void)i;
    trf_elem *t = item;
    if (ev->vertices)
        memcpy(t->v, ev->vertices + 3 * k, sizeof t->v);
    t->fresh = true;
}

static const st_topo_follow_ops trf_follow_ops = {
    .struct_size = sizeof(st_topo_follow_ops),
    .create = trf_create,
};

/* After a change: the kept triangles keep their data (SOFA's
 * triangleInfo, a TopologyData); their vertex indices are re-read; the
 * per-triangle lists given to the component follow them; added triangles
 * are computed from the rest positions; the per-vertex sums and outputs
 * are rebuilt. */
static st_status trf_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology;
    trf_fem *s = (trf_fem *)self;
    const st_elem T3 = ST_ELEM_TRIANGLE;
    fem_follow_list(self, "youngModulus", &s->young_modulus, 1, 1, T3, ev, nev);
    fem_follow_list(self, "poissonRatio", &s->poisson_ratio, 1, 1, T3, ev, nev);
    fem_follow_list(self, "rotatedInitialElements", &s->rotated_initial, 3, 3, T3, ev, nev);
    fem_follow_list(self, "initialTransformation", &s->initial_transform, 9, 1, T3, ev, nev);
    if (s->aniso) {
        fem_follow_list(self, "transverseYoungModulus", &s->young2, 1, 1, T3, ev, nev);
        fem_follow_list(self, "localFiberDirection", &s->local_fiber, 1, 3, T3, ev, nev);
        ST_TRY(st_array_resize(&s->local_fiber, ST_T_VEC3S, s->ne, err));
        st_component_touch(self, st_component_field(self, "localFiberDirection"));
    }
    ST_TRY(fem_reread_vertices(self, s->e, s->ne, sizeof *s->e,
                               fem_elements(s->topology, ST_T_TRIANGLES), 3, err));
    size_t np = s->ms->rest_position.n;
    if (st_topology_state_ahead(s->topology, np))
        return ST_OK;
    const double *x0 = s->ms->rest_position.r;
    for (size_t i = 0; i < s->ne; i++) {
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 3, np, "triangle", err));
        if (!s->e[i].fresh)
            continue;
        s->e[i].fresh = false;
        ST_TRY(init_element(s, i, x0, err));
        if (s->optim) {
            const double *x = s->ms->position.r;
            double r[9];
            fem_rotation_large(r, x + 3 * s->e[i].v[0], x + 3 * s->e[i].v[1],
                               x + 3 * s->e[i].v[2]);
            fem_transpose3(s->e[i].R, r);
        }
    }
    return per_vertex(s, np, err);
}

/* Registers once per topology (reinit calls init again). */
static st_status follow_topology(trf_fem *s, st_error *err)
{
    if (s->followed == s->topology)
        return ST_OK;
    st_component *self = &s->base;
    ST_TRY(st_topology_follow(self, s->topology, ST_ELEM_TRIANGLE, (void **)&s->e, &s->ne,
                              sizeof *s->e, &trf_follow_ops, s, err));
    ST_TRY(st_topology_listen(self, s->topology, trf_topology_changed, err));
    s->followed = s->topology;
    return ST_OK;
}

static st_status trf_init(st_component *self, st_error *err)
{
    trf_fem *s = (trf_fem *)self;
    trf_free(s);
    self->state = ST_CSTATE_INVALID;
    ST_TRY(fem_bind(self, &s->young_modulus, &s->poisson_ratio, &s->ms, &s->topology, err));
    s->meth = fem_method_index(s->method, method_names, 2);
    if (s->optim) {
        if (s->meth != TRF_LARGE)
            st_component_warn(self, "Attribute method was specified as \"%s\" while this "
                                    "version only implements the \"large\" method. Ignoring...",
                              s->method ? s->method : "");
        s->meth = TRF_LARGE;
    } else if (s->meth < 0) {
        st_component_warn(self, "Input Method is not possible: %s, should be 0 (Large) or 1 "
                                "(Small). Setting default value: Large",
                          s->method ? s->method : "");
        s->meth = TRF_LARGE;
    }
    const st_array *tr = fem_elements(s->topology, ST_T_TRIANGLES);
    size_t np = s->ms->rest_position.n;
    if (!tr) {
        st_component_warn(self, "No triangles found in linked Topology.");
        if (s->optim && fem_elements(s->topology, ST_T_QUADS))
            st_component_warn(self, "The topology only contains quads while this forcefield "
                                    "only supports triangles.");
    }
    s->ne = tr ? tr->n : 0;
    s->e = st_calloc(s->ne ? s->ne : 1, sizeof *s->e);
    s->tri_area_sum = st_calloc(np ? np : 1, sizeof *s->tri_area_sum);
    if (!s->e || !s->tri_area_sum)
        return st_error_set(err, ST_ENOMEM, "out of memory (%zu triangles)", s->ne);
    if (s->aniso) {
        ST_TRY(st_array_resize(&s->local_fiber, ST_T_VEC3S, s->ne, err));
        st_component_touch(self, st_component_field(self, "localFiberDirection"));
    }
    if (s->rotated_initial.n && s->rotated_initial.n < 3 * s->ne)
        return st_component_error(self, "rotatedInitialElements", err, ST_EINVAL,
                                  "%zu points for %zu triangles (3 per triangle expected)",
                                  s->rotated_initial.n, s->ne);
    if (s->initial_transform.n && s->initial_transform.n < 9 * s->ne)
        return st_component_error(self, "initialTransformation", err, ST_EINVAL,
                                  "%zu values for %zu triangles (a 3x3 matrix per triangle "
                                  "expected)",
                                  s->initial_transform.n, s->ne);
    const double *x0 = s->ms->rest_position.r;
    for (size_t i = 0; i < s->ne; i++) {
        memcpy(s->e[i].v, tr->u + 3 * i, sizeof s->e[i].v);
        ST_TRY(fem_check_indices(self, s->e[i].v, 1, 3, np, "triangle", err));
        ST_TRY(init_element(s, i, x0, err));
        if (s->optim) { /* SOFA's triangleState: the frame of the current positions */
            const double *x = s->ms->position.r;
            double r[9];
            fem_rotation_large(r, x + 3 * s->e[i].v[0], x + 3 * s->e[i].v[1],
                               x + 3 * s->e[i].v[2]);
            fem_transpose3(s->e[i].R, r);
        }
    }
    s->stress_max_value = 0;
    ST_TRY(per_vertex(s, np, err));
    ST_TRY(follow_topology(s, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void trf_cleanup(st_component *self)
{
    trf_free((trf_fem *)self);
}

/* ---- Principal stress (SOFA's computePrincipalStress, computeStressPerVertex) ---- */

static void principal_stress(trf_fem *s)
{
    for (size_t i = 0; i < s->ne; i++) {
        const double *st = s->e[i].stress;
        /* singular values of [s0 s2; s2 s1]: absolute eigenvalues */
        double m = 0.5 * (st[0] + st[1]), d = 0.5 * (st[0] - st[1]);
        double r = sqrt(d * d + st[2] * st[2]);
        double l1 = fabs(m + r), l2 = fabs(m - r);
        s->max_stress.r[i] = l1 > l2 ? l1 : l2;
    }
    if (s->show_stress_value) {
        size_t np = s->vertex_stress.n;
        memset(s->vertex_stress.r, 0, np * sizeof(double));
        for (size_t i = 0; i < s->ne; i++)
            for (int k = 0; k < 3; k++)
                if (s->e[i].area != 0)
                    s->vertex_stress.r[s->e[i].v[k]] += s->max_stress.r[i] * s->e[i].area;
        for (size_t v = 0; v < np; v++)
            if (s->tri_area_sum[v] != 0)
                s->vertex_stress.r[v] /= s->tri_area_sum[v];
        st_component_touch(&s->base, st_component_field(&s->base, "stressPerVertex"));
    }
    st_component_touch(&s->base, st_component_field(&s->base, "maxStressPerElement"));
}

/* SOFA's TriangularFEMForceFieldOptim computePrincipalStress: the largest
 * eigenvalue (and 0) of its stress tensors, over the triangles. */
static void optim_stress_max(trf_fem *s)
{
    double smax = 0;
    for (size_t i = 0; i < s->ne; i++) {
        const trf_elem *t = &s->e[i];
        /* SOFA's stress: K_opt strain_opt = stress / (2 area) */
        double k = 1.0 / (2 * t->area);
        double s0 = t->stress[0] * k, s1 = t->stress[1] * k, s2 = t->stress[2] * k;
        double tr = s0 + s1, det = s0 * s1 - s2 * s2, dl = tr * tr - 4 * det;
        double dv = sqrt(dl > 0 ? dl : 0);
        double e1 = (tr + dv) / 2, e2 = (tr - dv) / 2;
        smax = smax > e1 ? smax : e1;
        smax = smax > e2 ? smax : e2;
    }
    s->stress_max_value = smax;
    st_component_touch(&s->base, st_component_field(&s->base, "stressMaxValue"));
}

/* ---- Forces ---- */

/* D (rest - current, element frame), J and the frame r (world to element;
 * untouched for small) of element t at positions p, as add_force uses
 * them; false when the element is degenerate. Writes nothing in t. */
static bool element_local(const trf_fem *s, const trf_elem *t, const double *p, double D[6],
                          double J[6][3], double r[9])
{
    const double *pa = p + 3 * t->v[0], *pb = p + 3 * t->v[1], *pc = p + 3 * t->v[2];
    double ab[3] = {pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]};
    double ac[3] = {pc[0] - pa[0], pc[1] - pa[1], pc[2] - pa[2]};
    if (s->meth == TRF_SMALL) {
        double d[6] = {0, 0, t->rest[1][0] - ab[0], t->rest[1][1] - ab[1],
                       t->rest[2][0] - ac[0], t->rest[2][1] - ac[1]};
        memcpy(D, d, sizeof d);
        return strain_global(J, ab, ac);
    }
    double db[3], dc[3];
    fem_rotation_large(r, pa, pb, pc);
    fem_mulv3(db, r, ab);
    fem_mulv3(dc, r, ac);
    double d[6] = {0, 0, t->rest[1][0] - db[0], 0, t->rest[2][0] - dc[0], t->rest[2][1] - dc[1]};
    memcpy(D, d, sizeof d);
    if (s->optim) {
        memcpy(J, t->J, 6 * sizeof *J); /* J of the rest shape */
        return true;
    }
    return fem_tri_strain_local(J, db, dc);
}

static void trf_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp, (void)v;
    trf_fem *s = (trf_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    double *fs = fem_derivs(f, s->ms);
    const double *p = fem_coords(x, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        trf_elem *t = &s->e[i];
        if (s->optim) {
            optim_force(s, i, t, p, fs);
            continue;
        }
        double D[6], F[6], J[6][3], r[9];
        if (!element_local(s, t, p, D, J, r))
            continue; /* degenerate now: SOFA stops with an error; no force from it */
        if (s->meth != TRF_SMALL)
            fem_transpose3(t->R, r);
        memcpy(t->J, J, sizeof J);
        element_force(t, J, D, 1.0, F, true);
        fem_tri_scatter(fs, t->R, F, t->v, 1.0);
    }
    if (s->optim && (s->compute_principal || s->show_stress_vector))
        optim_stress_max(s);
    else if (s->compute_principal && !s->optim)
        principal_stress(s);
}

static void trf_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    trf_fem *s = (trf_fem *)self;
    double *dfs = fem_derivs(df, s->ms);
    const double *d = fem_dx(dx, s->ms);
    for (size_t i = 0; i < s->ne; i++) {
        trf_elem *t = &s->e[i];
        if (s->optim) {
            optim_dforce(s, i, t, d, dfs, kfactor);
            continue;
        }
        double X[6], F[6];
        fem_tri_gather(X, t->R, d, t->v);
        element_force(t, t->J, X, kfactor, F, false);
        fem_tri_scatter(dfs, t->R, F, t->v, -1.0);
    }
}

static void trf_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    trf_fem *s = (trf_fem *)self;
    for (size_t i = 0; i < s->ne; i++) {
        const trf_elem *t = &s->e[i];
        double b[3][3][9];
        fem_tri_stiffness_blocks(t->J, t->K, t->R, -kfactor, b);
        for (int n1 = 0; n1 < 3; n1++)
            for (int n2 = 0; n2 < 3; n2++)
                fem_add_block(m, s->ms, t->v[n1], t->v[n2], b[n1][n2]);
    }
}

/* Strain energy 1/2 sum_e (J^T D)^T K (J^T D), the D and J add_force uses
 * (f_e = R J K J^T D): exact -dE/dx for method small; for large the frame
 * and J follow x, which SOFA's force leaves out of its derivative. */
static double trf_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    trf_fem *s = (trf_fem *)self;
    if (self->state != ST_CSTATE_VALID)
        return 0.0;
    const double *p = fem_coords(x, s->ms);
    double energy = 0;
    for (size_t i = 0; i < s->ne; i++) {
        trf_elem *t = &s->e[i];
        double D[6], J[6][3], r[9], F[6];
        if (!element_local(s, t, p, D, J, r))
            continue;
        element_force(t, J, D, 1.0, F, false); /* F = J K J^T D, t untouched */
        for (int k = 0; k < 6; k++)
            energy += D[k] * F[k];
    }
    return 0.5 * energy;
}

static double trf_rayleigh(const st_component *self)
{
    return ((const trf_fem *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops trf_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = trf_add_force,
    .add_dforce = trf_add_dforce,
    .add_k_to_matrix = trf_add_k,
    .potential_energy = trf_energy,
    .rayleigh_stiffness = trf_rayleigh,
};

#define T trf_fem
/* The fields of TriangularFEMForceField, shared by its anisotropic twin. */
#define TRF_FIELDS \
    FEM_F_RAYLEIGH(T), \
    FEM_F_MATERIAL(T), \
    FEM_F_TOPOLOGY(T), \
    ST_IGNORED(T, triangle_info, "triangleInfo", ST_T_STRING, char *, NULL, \
               "Internal triangle data (SOFA's serialized element data; not read by settee)"), \
    ST_IGNORED(T, vertex_info, "vertexInfo", ST_T_STRING, char *, NULL, \
               "Internal point data (SOFA's serialized vertex data; not read by settee)"), \
    ST_STRING(T, method, "method", "large", \
              "large: large displacements, small: small displacements"), \
    ST_VEC3S(T, rotated_initial, "rotatedInitialElements", NULL, \
             "Rest shape of each triangle in its own frame, 3 points per triangle (a at the " \
             "origin); computed from the rest positions when empty"), \
    ST_REALS(T, initial_transform, "initialTransformation", NULL, \
             "Initial rotation (world to element frame) of each triangle, 9 values per " \
             "triangle; used by method large together with rotatedInitialElements"), \
    ST_IGNORED(T, hosford, "hosfordExponant", ST_T_REAL, double, "1", \
               "Exponent in the Hosford yield criteria (fracture drawing only)"), \
    ST_IGNORED(T, criteria, "criteriaValue", ST_T_REAL, double, "1e+15", \
               "Fracturable threshold used to draw fracturable triangles"), \
    ST_BOOL(T, show_stress_value, "showStressValue", "true", \
            "Flag activating rendering of stress values as a color in each triangle; with " \
            "computePrincipalStress, fills stressPerVertex"), \
    ST_IGNORED(T, show_stress_vector, "showStressVector", ST_T_BOOL, bool, "false", \
               "Flag activating rendering of stress directions within each triangle"), \
    ST_IGNORED(T, show_fracturable, "showFracturableTriangles", ST_T_BOOL, bool, "false", \
               "Flag activating rendering of triangles to fracture"), \
    ST_BOOL(T, compute_principal, "computePrincipalStress", "false", \
            "Compute principal stress for each triangle"), \
    ST_OUTPUT(T, max_stress, "maxStressPerElement", ST_T_REALS, st_array, \
              "settee extension: largest absolute principal stress of each triangle at the last " \
              "addForce (SOFA's triangleInfo maxStress), with computePrincipalStress"), \
    ST_OUTPUT(T, vertex_stress, "stressPerVertex", ST_T_REALS, st_array, \
              "settee extension: area-weighted average of maxStressPerElement around each " \
              "vertex (SOFA's vertexInfo stress), with computePrincipalStress and " \
              "showStressValue")
static const st_field trf_fields[] = {TRF_FIELDS, ST_FIELD_END};
#undef T

const st_class triangular_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangularFEMForceField",
    .category = "ForceField",
    .description = "Triangular membrane finite elements (linear elasticity, plane stress; "
                   "small, or corotational large). Potential energy: SOFA has none; settee "
                   "returns the strain energy of the local displacement",
    .instance_size = sizeof(trf_fem),
    .fields = trf_fields,
    .init = trf_init,
    .reinit = trf_init,
    .cleanup = trf_cleanup,
    .forcefield = &trf_ops,
};

/* ---- TriangularAnisotropicFEMForceField ---- */

static st_status aniso_init(st_component *self, st_error *err)
{
    trf_fem *s = (trf_fem *)self;
    s->aniso = true;
    if (s->young2.n == 0) {
        ST_TRY(st_array_resize(&s->young2, ST_T_REALS, 1, err));
        s->young2.r[0] = 1000.0;
    }
    return trf_init(self, err);
}

#define T trf_fem
static const st_field aniso_fields[] = {
    TRF_FIELDS,
    ST_REALS(T, young2, "transverseYoungModulus", "1000",
             "Young modulus along transverse direction (one per triangle, or the first for "
             "all)"),
    ST_REAL(T, fiber_angle, "fiberAngle", "0",
            "Fiber angle in global reference frame (in degrees)"),
    ST_VEC3S(T, fiber_center, "fiberCenter", NULL,
             "Concentric fiber center in global reference frame"),
    ST_IGNORED(T, show_fiber, "showFiber", ST_T_BOOL, bool, "true",
               "Flag activating rendering of fiber directions within each triangle"),
    ST_OUTPUT(T, local_fiber, "localFiberDirection", ST_T_VEC3S, st_array,
              "Computed fibers direction within each triangle (coordinates in the basis of its "
              "edges ab, ac)"),
    ST_FIELD_END};
#undef T

const st_class triangular_anisotropic_fem_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangularAnisotropicFEMForceField",
    .category = "ForceField",
    .description = "TriangularFEMForceField with an orthotropic material (fiber direction by "
                   "angle or concentric about a center). As in SOFA, its material matrix is not "
                   "multiplied by the element area. Potential energy: SOFA has none; settee "
                   "returns the strain energy of the local displacement",
    .instance_size = sizeof(trf_fem),
    .fields = aniso_fields,
    .init = aniso_init,
    .reinit = aniso_init,
    .cleanup = trf_cleanup,
    .forcefield = &trf_ops,
};

/* ---- TriangularFEMForceFieldOptim ---- */

static st_status optim_init(st_component *self, st_error *err)
{
    ((trf_fem *)self)->optim = true;
    return trf_init(self, err);
}

#define T trf_fem
static const st_field optim_fields[] = {
    FEM_F_RAYLEIGH(T),
    FEM_F_MATERIAL(T),
    FEM_F_TOPOLOGY(T),
    ST_IGNORED(T, triangle_info, "triangleInfo", ST_T_STRING, char *, NULL,
               "Internal triangle data (persistent; SOFA's serialized element data, not read by "
               "settee)"),
    ST_IGNORED(T, triangle_state, "triangleState", ST_T_STRING, char *, NULL,
               "Internal triangle data (time-dependent; not read by settee)"),
    ST_IGNORED(T, damping, "damping", ST_T_REAL, double, "0",
               "Ratio damping/stiffness (SOFA declares it and never reads it)"),
    ST_REAL(T, rest_scale, "restScale", "1",
            "Scale factor applied to rest positions (to simulate pre-stretched materials)"),
    ST_BOOL(T, compute_principal, "computePrincipalStress", "false",
            "Compute principal stress for each triangle (fills stressMaxValue)"),
    ST_OUTPUT(T, stress_max_value, "stressMaxValue", ST_T_REAL, double,
              "Max stress value computed over the triangulation (SOFA's stress: minus half the "
              "physical one, so compression counts positive)"),
    ST_BOOL(T, show_stress_vector, "showStressVector", "false",
            "Flag activating rendering of stress directions within each triangle (drawing; "
            "also fills stressMaxValue, as in SOFA)"),
    ST_IGNORED(T, show_stress_threshold, "showStressThreshold", ST_T_REAL, double, "0",
               "Threshold value to render only stress vectors higher to this threshold"),
    ST_STRING(T, method, "method", "large",
              "Not a SOFA data: SOFA's parser reads it to warn that only \"large\" is "
              "implemented; any other value warns and is ignored"),
    ST_FIELD_END};
#undef T

const st_class triangular_fem_force_field_optim_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangularFEMForceFieldOptim",
    .category = "ForceField",
    .description = "Corotational triangular membrane finite elements, optimised (strain-"
                   "displacement of the rest shape). Potential energy: SOFA has none; settee "
                   "returns the strain energy of the local displacement",
    .instance_size = sizeof(trf_fem),
    .fields = optim_fields,
    .init = optim_init,
    .reinit = optim_init,
    .cleanup = trf_cleanup,
    .forcefield = &trf_ops,
};
