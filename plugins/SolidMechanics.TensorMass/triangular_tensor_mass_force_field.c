/* triangular_tensor_mass_force_field.c - TriangularTensorMassForceField:
 * SOFA's tensor-mass membrane on triangles. With Lame coefficients (as
 * SOFA's updateLameCoefficients writes them)
 *   lambda = E nu / (1 - nu^2),  mu = E (1 - nu) / (1 - nu^2),
 * each triangle of rest area A (Heron's formula on the squared edge
 * lengths) adds, for each vertex j with k = j+1, l = j+2 (mod 3),
 * dl = p_j - p_k, dk = p_j - p_l and cot_j = (|e_k|^2 + |e_l|^2 - |e_j|^2)
 * / (4A), the tensor
 *   D = lambda/(4A) dl dk^T + mu/(8A) dk dl^T - cot_j (lambda + mu)/2 I
 * to the edge (k, l) opposite j: f_k += D (u_k - u_l), f_l += D^T (u_l - u_k)
 * (tensor_mass.h). A triangle of zero rest area is an error (SOFA divides
 * by it). */
#include <math.h>

#include "tensor_mass.h"

static void tri_lame(tensor_mass_ff *t)
{
    double nu = t->poisson, e = t->young;
    t->lambda = e * nu / (1 - nu * nu);
    t->mu = e * (1 - nu) / (1 - nu * nu);
}

static st_status tri_build(tensor_mass_ff *t, const st_array *el, tm_build *b, st_error *err)
{
    const double lambda = t->lambda, mu = t->mu;
    for (size_t i = 0; i < el->n; i++) {
        const unsigned *tv = el->u + 3 * i;
        const double *p[3] = {t->x0 + 3 * tv[0], t->x0 + 3 * tv[1], t->x0 + 3 * tv[2]};
        double sq[3], area = 0, cot[3];
        for (int j = 0; j < 3; j++) {
            const double *a = p[(j + 1) % 3], *c = p[(j + 2) % 3];
            double d[3] = {a[0] - c[0], a[1] - c[1], a[2] - c[2]};
            sq[j] = st_v3_dot(d, d);
        }
        for (int j = 0; j < 3; j++)
            area += sq[j] * (sq[(j + 1) % 3] + sq[(j + 2) % 3] - sq[j]);
        area = sqrt(area) / 4;
        if (!(area > 0))
            return st_component_error(&t->base, "topology", err, ST_ESCENE,
                                      "triangle %zu (%u %u %u) has no rest area: its tensors "
                                      "would divide by 0",
                                      i, tv[0], tv[1], tv[2]);
        double ls = lambda / (4 * area), ms = mu / (8 * area);
        for (int j = 0; j < 3; j++) {
            cot[j] = (sq[(j + 1) % 3] + sq[(j + 2) % 3] - sq[j]) / (4 * area);
            t->obtuse += cot[j] < 0;
        }
        for (int j = 0; j < 3; j++) {
            int k = (j + 1) % 3, l = (j + 2) % 3;
            double dl[3], dk[3], m[9];
            for (int q = 0; q < 3; q++) {
                dl[q] = p[j][q] - p[k][q];
                dk[q] = p[j][q] - p[l][q];
            }
            double val = -cot[j] * (lambda + mu) / 2;
            for (int u = 0; u < 3; u++) {
                for (int v = 0; v < 3; v++)
                    m[3 * u + v] = ls * dl[u] * dk[v] + ms * dk[u] * dl[v];
                m[3 * u + u] += val;
            }
            ST_TRY(tm_add(b, tv[k], tv[l], m, err));
        }
    }
    return ST_OK;
}

static const tm_kind tri_kind = {
    .elements = ST_T_TRIANGLES,
    .width = 3,
    .name = "triangles",
    .lame = tri_lame,
    .build = tri_build,
};

static st_status tri_init(st_component *self, st_error *err)
{
    return tm_init((tensor_mass_ff *)self, &tri_kind, err);
}

static const st_field tri_fields[] = {TM_FIELDS(""), ST_FIELD_END};

const st_class triangular_tensor_mass_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TriangularTensorMassForceField",
    .category = "ForceField",
    .description = "Linear elastic membrane on triangles, its stiffness stored per edge (tensor "
                   "mass)",
    .instance_size = sizeof(tensor_mass_ff),
    .fields = tri_fields,
    .init = tri_init,
    .reinit = tri_init,
    .cleanup = tm_cleanup,
    .forcefield = &tm_ops,
};
