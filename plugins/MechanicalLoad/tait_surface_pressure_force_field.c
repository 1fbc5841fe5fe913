/* tait_surface_pressure_force_field.c - TaitSurfacePressureForceField: the
 * pressure of a fluid enclosed by a surface, from Tait's equation
 *   P = p0 - B ((V / v0)^gamma - 1),   dP/dV = -B gamma (V / v0)^gamma / V
 * (B = 0, gamma = 0 or v0 = 0: P = p0, no stiffness; gamma = 1:
 * P = p0 - B (V / v0 - 1), dP/dV = -B / v0), as SOFA's.
 *
 * The surface: the topology's triangles, then two per quad, (q0, q1, q2)
 * and (q2, q3, q0) (output pressureTriangles). V is the volume it encloses,
 * sum of (a - o) x (b - o) . (c - o) / 6 with o the centroid of all the
 * state's points. v0 = initialVolume (V at the rest positions) +
 * currentInjectedVolume, which follows injectedVolume at most
 * maxInjectionRate per second, updated at the start of each time step.
 * Force: f_i = P gradV_i, gradV_i = sum over the triangles at i of
 * (b - a) x (c - a) / 6. Stiffness: dP/dV gradV gradV^T (dense over the
 * surface points) + P d(gradV)/dx; add_dforce and the matrix agree (SOFA's
 * matrix leaves out the blocks of a vertex with itself, which cancel on a
 * closed surface; they are kept here so that both agree on any surface).
 * Energy (SOFA: 0 with a warning): -integral of P dV from v0, i.e.
 * -(p0 + B)(V - v0) + B v0 ((V/v0)^(gamma+1) - 1) / (gamma + 1), the
 * force's potential on a closed surface. */
#include <math.h>
#include <string.h>

#include "mechanical_load.h"

typedef struct tait {
    st_component base;
    double p0, B, gamma;        /* "p0", "B", "gamma" */
    double injected;            /* "injectedVolume" */
    double max_rate;            /* "maxInjectionRate" */
    double initial_volume;      /* "initialVolume" (output) */
    double cur_injected;        /* "currentInjectedVolume" */
    double v0;                  /* "v0" (output) */
    double cur_volume;          /* "currentVolume" (output) */
    double cur_pressure;        /* "currentPressure" (output) */
    double cur_stiffness;       /* "currentStiffness" (output) */
    st_array triangles;         /* "pressureTriangles" (output) */
    double initial_area;        /* "initialSurfaceArea" (output) */
    double cur_area;            /* "currentSurfaceArea" (output) */
    double draw_scale;          /* "drawForceScale" */
    st_vec4 draw_color;         /* "drawForceColor" */
    double volume_after_tc;     /* "volumeAfterTC" (output) */
    double area_after_tc;       /* "surfaceAreaAfterTC" (output) */
    double rayleigh_stiffness;  /* "rayleighStiffness" */
    st_component *topology;     /* "topology" */
    st_component *mstate;       /* "mstate" */
    st_mstate *ms;
    double *grad;               /* gradV, 3 per point of the state */
    double (*edges)[6];         /* per triangle, b - a and c - a at the last add_force */
    unsigned *surface;          /* the surface's points, ascending */
    size_t nsurface;
    bool dense;                 /* B, gamma != 0: the gradV gradV^T blocks exist */
    double reset_injected, reset_cur_injected;
    bool warned;
} tait;

/* SOFA's computePressureAndStiffness. */
static void tait_law(tait *t, double V, double *p, double *k)
{
    if ((V > 10 * t->v0 || 10 * V < t->v0) && !t->warned) {
        t->warned = true;
        st_component_warn(&t->base, "TOO MUCH VOLUME VARIATION (V = %g, v0 = %g).", V, t->v0);
    }
    if (t->B == 0 || t->gamma == 0 || t->v0 == 0) {
        *k = 0;
        *p = t->p0;
    } else if (t->gamma == 1) {
        *k = -t->B / t->v0;
        *p = t->p0 - t->B * (V / t->v0 - 1);
    } else {
        double r = pow(V / t->v0, t->gamma);
        *k = V == 0 ? 0 : -t->B * t->gamma * r / V;
        *p = t->p0 - t->B * (r - 1);
    }
}

/* Volume and area about the centroid of all n points of x. */
static void volume_area(const tait *t, const double *x, size_t n, double *vol, double *area)
{
    *vol = *area = 0;
    if (n == 0)
        return;
    double o[3] = {0, 0, 0};
    for (size_t i = 0; i < n; i++)
        ml_axpy(o, 1.0, x + 3 * i);
    for (int k = 0; k < 3; k++)
        o[k] /= (double)n;
    double v6 = 0, a2 = 0;
    for (size_t i = 0; i < t->triangles.n; i++) {
        const unsigned *tr = t->triangles.u + 3 * i;
        double a[3], b[3], c[3], ab[3], ac[3], cr[3];
        for (int k = 0; k < 3; k++) {
            a[k] = x[3 * tr[0] + (size_t)k] - o[k];
            b[k] = x[3 * tr[1] + (size_t)k] - o[k];
            c[k] = x[3 * tr[2] + (size_t)k] - o[k];
            ab[k] = b[k] - a[k], ac[k] = c[k] - a[k];
        }
        ml_cross(a, b, cr);
        v6 += ml_dot(cr, c);
        ml_cross(ab, ac, cr);
        a2 += sqrt(ml_dot(cr, cr));
    }
    *vol = v6 / 6.0;
    *area = a2 / 2.0;
}

static void tait_touch(tait *t, const char *const *names)
{
    for (size_t i = 0; names[i]; i++)
        st_component_touch(&t->base, st_component_field(&t->base, names[i]));
}

static void tait_free(tait *t)
{
    st_free(t->grad), st_free(t->edges), st_free(t->surface);
    t->grad = NULL, t->edges = NULL, t->surface = NULL;
    t->nsurface = 0;
}

static st_status tait_init(st_component *self, st_error *err)
{
    tait *t = (tait *)self;
    tait_free(t);
    ST_TRY(ml_find_state(self, &t->ms, err));
    ST_TRY(st_find_topology(self, &t->topology, err));
    const st_topology_ops *ops = t->topology->cls->topology;
    const st_array *tris = ops->elements(t->topology, ST_T_TRIANGLES);
    const st_array *quads = ops->elements(t->topology, ST_T_QUADS);
    size_t nt = tris ? tris->n : 0, nq = quads ? quads->n : 0;
    ST_TRY(st_array_resize(&t->triangles, ST_T_TRIANGLES, nt + 2 * nq, err));
    if (nt)
        memcpy(t->triangles.u, tris->u, 3 * nt * sizeof *t->triangles.u);
    for (size_t i = 0; i < nq; i++) {
        const unsigned *q = quads->u + 4 * i;
        unsigned *o = t->triangles.u + 3 * (nt + 2 * i);
        o[0] = q[0], o[1] = q[1], o[2] = q[2];
        o[3] = q[2], o[4] = q[3], o[5] = q[0];
    }
    ST_TRY(ml_check_elements(self, "pressure triangle", t->triangles.u, t->triangles.n, 3, t->ms,
                             err));
    size_t n = t->ms->n;
    t->grad = st_calloc(3 * n + 1, sizeof *t->grad);
    t->edges = st_calloc(t->triangles.n + 1, sizeof *t->edges);
    unsigned char *on = st_calloc(n + 1, 1);
    t->surface = st_calloc(n + 1, sizeof *t->surface);
    if (!t->grad || !t->edges || !on || !t->surface) {
        st_free(on);
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu points", n);
    }
    for (size_t i = 0; i < 3 * t->triangles.n; i++)
        on[t->triangles.u[i]] = 1;
    for (size_t i = 0; i < n; i++)
        if (on[i])
            t->surface[t->nsurface++] = (unsigned)i;
    st_free(on);
    t->dense = t->B != 0 && t->gamma != 0;
    t->warned = false;

    volume_area(t, t->ms->rest_position.r, n, &t->volume_after_tc, &t->area_after_tc);
    t->initial_volume = t->volume_after_tc;
    t->initial_area = t->area_after_tc;
    t->v0 = t->initial_volume + t->cur_injected;
    volume_area(t, t->ms->position.r, n, &t->cur_volume, &t->cur_area);
    tait_law(t, t->cur_volume, &t->cur_pressure, &t->cur_stiffness);
    t->reset_injected = t->injected;
    t->reset_cur_injected = t->cur_injected;
    static const char *const outs[] = {"pressureTriangles", "volumeAfterTC", "surfaceAreaAfterTC",
                                       "initialVolume",     "initialSurfaceArea", "v0",
                                       "currentVolume",     "currentSurfaceArea", "currentPressure",
                                       "currentStiffness",  NULL};
    tait_touch(t, outs);
    return ST_OK;
}

static void tait_cleanup(st_component *self) { tait_free((tait *)self); }

static void tait_reset(st_component *self)
{
    tait *t = (tait *)self;
    t->injected = t->reset_injected;
    t->cur_injected = t->reset_cur_injected;
    t->v0 = t->initial_volume + t->cur_injected;
}

static void tait_on_event(st_component *self, st_event ev, double dt)
{
    tait *t = (tait *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || t->injected == t->cur_injected)
        return;
    double max_inj = t->max_rate * dt;
    if (fabs(t->injected - t->cur_injected) <= max_inj)
        t->cur_injected = t->injected;
    else if (t->injected < t->cur_injected)
        t->cur_injected -= max_inj;
    else
        t->cur_injected += max_inj;
    t->v0 = t->initial_volume + t->cur_injected;
    static const char *const outs[] = {"currentInjectedVolume", "v0", NULL};
    tait_touch(t, outs);
}

static void tait_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                           const double *v)
{
    (void)mp, (void)v;
    tait *t = (tait *)self;
    double *fs = st_slice(f, t->ms);
    const double *xs = st_slice_x(x, t->ms);
    size_t n = t->ms->n;
    volume_area(t, xs, n, &t->cur_volume, &t->cur_area);
    double V = t->cur_volume - (t->volume_after_tc - t->initial_volume);
    tait_law(t, V, &t->cur_pressure, &t->cur_stiffness);
    memset(t->grad, 0, 3 * n * sizeof *t->grad);
    for (size_t i = 0; i < t->triangles.n; i++) {
        const unsigned *tr = t->triangles.u + 3 * i;
        double *e = t->edges[i], nrm[3];
        for (int k = 0; k < 3; k++) {
            e[k] = xs[3 * tr[1] + (size_t)k] - xs[3 * tr[0] + (size_t)k];
            e[3 + k] = xs[3 * tr[2] + (size_t)k] - xs[3 * tr[0] + (size_t)k];
        }
        ml_cross(e, e + 3, nrm);
        for (int j = 0; j < 3; j++)
            ml_axpy(t->grad + 3 * (size_t)tr[j], 1.0, nrm);
    }
    for (size_t i = 0; i < 3 * n; i++) {
        t->grad[i] /= 6.0;
        fs[i] += t->grad[i] * t->cur_pressure;
    }
}

static void tait_add_dforce(st_component *self, const st_mparams *mp, double *df,
                            const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    tait *t = (tait *)self;
    double *dfs = st_slice(df, t->ms);
    const double *dxs = st_slice(dx, t->ms);
    size_t n = t->ms->n;
    double dV = 0;
    for (size_t i = 0; i < 3 * n; i++)
        dV += t->grad[i] * dxs[i];
    double s1 = kfactor * t->cur_stiffness * dV;
    for (size_t i = 0; i < 3 * n; i++)
        dfs[i] += t->grad[i] * s1;
    double s2 = kfactor * t->cur_pressure / 6.0;
    for (size_t i = 0; i < t->triangles.n; i++) {
        const unsigned *tr = t->triangles.u + 3 * i;
        const double *e = t->edges[i];
        double d1[3], d2[3], a[3], b[3], o[3];
        for (int k = 0; k < 3; k++) {
            d1[k] = dxs[3 * tr[1] + (size_t)k] - dxs[3 * tr[0] + (size_t)k];
            d2[k] = dxs[3 * tr[2] + (size_t)k] - dxs[3 * tr[0] + (size_t)k];
        }
        ml_cross(d1, e + 3, a);
        ml_cross(e, d2, b);
        for (int k = 0; k < 3; k++)
            o[k] = (a[k] + b[k]) * s2;
        for (int j = 0; j < 3; j++)
            ml_axpy(dfs + 3 * (size_t)tr[j], 1.0, o);
    }
}

static void tait_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    tait *t = (tait *)self;
    if (t->dense) {
        double s1 = kfactor * t->cur_stiffness;
        for (size_t a = 0; a < t->nsurface; a++) {
            const double *gi = t->grad + 3 * (size_t)t->surface[a];
            for (size_t b = 0; b < t->nsurface; b++) {
                const double *gj = t->grad + 3 * (size_t)t->surface[b];
                double blk[9];
                for (int r = 0; r < 3; r++)
                    for (int c = 0; c < 3; c++)
                        blk[3 * r + c] = gi[r] * s1 * gj[c];
                st_matrix_add_block(m, t->ms, t->surface[a], t->ms, t->surface[b], blk);
            }
        }
    }
    double s2 = kfactor * t->cur_pressure / 6.0;
    for (size_t i = 0; i < t->triangles.n; i++) {
        const unsigned *tr = t->triangles.u + 3 * i;
        const double *e = t->edges[i];
        /* Columns: d/dx0 = [x2 - x1]x, d/dx1 = [x0 - x2]x, d/dx2 = [x1 - x0]x. */
        double bc[3], ca[3], M[3][9];
        for (int k = 0; k < 3; k++)
            bc[k] = e[3 + k] - e[k], ca[k] = -e[3 + k];
        ml_cross_matrix(bc, s2, M[0]);
        ml_cross_matrix(ca, s2, M[1]);
        ml_cross_matrix(e, s2, M[2]);
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                st_matrix_add_block(m, t->ms, tr[j], t->ms, tr[k], M[k]);
    }
}

static double tait_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    tait *t = (tait *)self;
    double V, area;
    volume_area(t, st_slice_x(x, t->ms), t->ms->n, &V, &area);
    V -= t->volume_after_tc - t->initial_volume;
    if (t->B == 0 || t->gamma == 0 || t->v0 == 0)
        return -t->p0 * (V - t->v0);
    double g1 = t->gamma + 1;
    return -(t->p0 + t->B) * (V - t->v0) + t->B * t->v0 * (pow(V / t->v0, g1) - 1) / g1;
}

static double tait_rayleigh(const st_component *self)
{
    return ((const tait *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops tait_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = tait_add_force,
    .add_dforce = tait_add_dforce,
    .add_k_to_matrix = tait_add_k,
    .potential_energy = tait_energy,
    .rayleigh_stiffness = tait_rayleigh,
};

#define TAIT_OUT(m, key, help) ST_OUTPUT(tait, m, key, ST_T_REAL, double, help)

/* The volume injected so far grows by at most maxInjectionRate per step
 * from 0 at init: a resume goes on from the saved amount. */
static st_status tait_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    tait *t = (tait *)self;
    ST_TRY(st_checkpoint_data(ck, &t->cur_injected, sizeof t->cur_injected, err));
    if (st_checkpoint_reading(ck))
        t->v0 = t->initial_volume + t->cur_injected;
    return ST_OK;
}

static const st_checkpoint_ops tait_checkpoint_ops = {.struct_size = sizeof(st_checkpoint_ops),
                                                      .transfer = tait_checkpoint};

static const st_field tait_fields[] = {
    ST_REAL(tait, p0, "p0", "0", "IN: Rest pressure when V = V0"),
    ST_REAL(tait, B, "B", "0", "IN: Bulk modulus (resistance to uniform compression)"),
    ST_REAL(tait, gamma, "gamma", "0", "IN: Bulk modulus (resistance to uniform compression)"),
    ST_REAL(tait, injected, "injectedVolume", "0",
            "IN: Injected (or extracted) volume since the start of the simulation"),
    ST_REAL(tait, max_rate, "maxInjectionRate", "1000",
            "IN: Maximum injection rate (volume per second)"),
    TAIT_OUT(initial_volume, "initialVolume",
             "OUT: Initial volume, as computed from the surface rest position"),
    ST_REAL(tait, cur_injected, "currentInjectedVolume", "0",
            "OUT: Current injected (or extracted) volume (taking into account maxInjectionRate)"),
    TAIT_OUT(v0, "v0", "OUT: Rest volume (as computed from initialVolume + injectedVolume)"),
    TAIT_OUT(cur_volume, "currentVolume",
             "OUT: Current volume, as computed from the last surface position"),
    TAIT_OUT(cur_pressure, "currentPressure",
             "OUT: Current pressure, as computed from the last surface position"),
    TAIT_OUT(cur_stiffness, "currentStiffness", "OUT: dP/dV at current volume and pressure"),
    ST_OUTPUT(tait, triangles, "pressureTriangles", ST_T_TRIANGLES, st_array,
              "OUT: list of triangles where a pressure is applied (mesh triangles + tessellated "
              "quads)"),
    TAIT_OUT(initial_area, "initialSurfaceArea",
             "OUT: Initial surface area, as computed from the surface rest position"),
    TAIT_OUT(cur_area, "currentSurfaceArea",
             "OUT: Current surface area, as computed from the last surface position"),
    IGN_REAL(tait, draw_scale, "drawForceScale", "0.001",
             "DEBUG: scale used to render force vectors"),
    IGN_RGBA(tait, draw_color, "drawForceColor", "0 1 1 1",
             "DEBUG: color used to render force vectors"),
    TAIT_OUT(volume_after_tc, "volumeAfterTC", "OUT: Volume after a topology change"),
    TAIT_OUT(area_after_tc, "surfaceAreaAfterTC", "OUT: Surface area after a topology change"),
    ST_LINK(tait, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ML_F_FORCEFIELD(tait),
    ST_FIELD_END};

const st_class tait_surface_pressure_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "TaitSurfacePressureForceField",
    .category = "ForceField",
    .description = "Pressure of a fluid enclosed by a surface, from Tait's equation of state",
    .instance_size = sizeof(tait),
    .fields = tait_fields,
    .init = tait_init,
    .reinit = tait_init,
    .reset = tait_reset,
    .cleanup = tait_cleanup,
    .on_event = tait_on_event,
    .checkpoint = &tait_checkpoint_ops,
    .forcefield = &tait_ops,
};
