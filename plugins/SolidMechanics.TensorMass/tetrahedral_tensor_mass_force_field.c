/* tetrahedral_tensor_mass_force_field.c - TetrahedralTensorMassForceField:
 * SOFA's tensor-mass linear elasticity on tetrahedra (Cotin, Delingette).
 * With
 *   lambda = E nu / ((1 - 2 nu)(1 + nu)),  mu = E / (2 (1 + nu)),
 * 6V = ((p1 - p0) x (p2 - p0)) . (p0 - p3) at rest and the shape vectors
 * s_j = (-1)^j ((p_{j+2} - p_{j+1}) x (p_{j+3} - p_{j+1})) / 6V (indices mod
 * 4), each tetrahedron adds to each of its edges (k, l) (SOFA's local edge
 * order: 01 02 03 12 13 23) the tensor
 *   D = L s_l s_k^T + M s_k s_l^T + M (s_k . s_l) I,  L = lambda |6V| / 6,
 *   M = mu |6V| / 6
 * with f_l += D (u_l - u_k), f_k += D^T (u_k - u_l) (tensor_mass.h). A
 * tetrahedron of zero rest volume is an error (SOFA divides by it). */
#include <math.h>

#include "tensor_mass.h"

static void tet_lame(tensor_mass_ff *t)
{
    double nu = t->poisson, e = t->young;
    t->lambda = e * nu / ((1 - 2 * nu) * (1 + nu));
    t->mu = e / (2 * (1 + nu));
}

static void sub3(double o[3], const double *a, const double *b)
{
    o[0] = a[0] - b[0], o[1] = a[1] - b[1], o[2] = a[2] - b[2];
}

static st_status tet_build(tensor_mass_ff *t, const st_array *el, tm_build *b, st_error *err)
{
    static const int local_edges[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    for (size_t i = 0; i < el->n; i++) {
        const unsigned *tv = el->u + 4 * i;
        const double *p[4];
        for (int j = 0; j < 4; j++)
            p[j] = t->x0 + 3 * tv[j];
        double a[3], c[3], d[3], n[3], s[4][3];
        sub3(a, p[1], p[0]);
        sub3(c, p[2], p[0]);
        sub3(d, p[0], p[3]);
        st_v3_cross(n, a, c);
        double vol = st_v3_dot(n, d);
        if (vol == 0 || !isfinite(vol))
            return st_component_error(&t->base, "topology", err, ST_ESCENE,
                                      "tetrahedron %zu (%u %u %u %u) has no rest volume: its "
                                      "tensors would divide by 0",
                                      i, tv[0], tv[1], tv[2], tv[3]);
        for (int j = 0; j < 4; j++) {
            sub3(a, p[(j + 2) % 4], p[(j + 1) % 4]);
            sub3(c, p[(j + 3) % 4], p[(j + 1) % 4]);
            st_v3_cross(n, a, c);
            double sign = (j % 2) == 0 ? 1.0 : -1.0;
            for (int q = 0; q < 3; q++)
                s[j][q] = sign * n[q] / vol;
        }
        double ls = t->lambda * fabs(vol) / 6, ms = t->mu * fabs(vol) / 6;
        for (int j = 0; j < 6; j++) {
            int k = local_edges[j][0], l = local_edges[j][1];
            double val = st_v3_dot(s[k], s[l]) * ms, m[9];
            t->obtuse += val < 0;
            for (int u = 0; u < 3; u++) {
                for (int v = 0; v < 3; v++)
                    m[3 * u + v] = ls * s[l][u] * s[k][v] + ms * s[k][u] * s[l][v];
                m[3 * u + u] += val;
            }
            ST_TRY(tm_add(b, tv[l], tv[k], m, err));
        }
    }
    return ST_OK;
}

static const tm_kind tet_kind = {
    .elements = ST_T_TETRAS,
    .width = 4,
    .name = "tetrahedra",
    .lame = tet_lame,
    .build = tet_build,
};

static st_status tet_init(st_component *self, st_error *err)
{
    return tm_init((tensor_mass_ff *)self, &tet_kind, err);
}

static const st_field tet_fields[] = {TM_FIELDS(""), ST_FIELD_END};

const st_class tetrahedral_tensor_mass_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TetrahedralTensorMassForceField",
    .category = "ForceField",
    .description = "Linear elasticity on tetrahedra, its stiffness stored per edge (tensor mass)",
    .instance_size = sizeof(tensor_mass_ff),
    .fields = tet_fields,
    .init = tet_init,
    .reinit = tet_init,
    .cleanup = tm_cleanup,
    .forcefield = &tm_ops,
};
