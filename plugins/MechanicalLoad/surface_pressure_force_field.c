/* surface_pressure_force_field.c - SurfacePressureForceField: a scalar
 * pressure on the triangles and quads of a surface, following the surface
 * as it moves, as SOFA's.
 *
 * Which elements: triangleIndices when not empty, else every triangle of
 * the topology whose three vertices are inside the box [min, max] at the
 * current positions (a zero box: all); quads likewise (quadIndices, else
 * the box). With pressure p and the current positions:
 *   triangle (a, b, c): each vertex gets (b - a) x (c - a) p / 6 (the
 *     total is p times the area vector), times |n . mainDirection| when
 *     mainDirection is not zero (n the unit normal);
 *   quad (a, b, c, d): p1 = (b-a) x (c-a) p/6, p2 = (c-a) x (d-a) p/6;
 *     a and c get p1 + p2, b gets p1, d gets p2.
 * pulseMode: p goes from 0 up to the pressure (or pressureLowerBound) and
 * back at pressureSpeed (default |pressure|) per second, one move per time
 * step (SOFA moves it at each addForce: once a step under the usual
 * solvers). volumeConservationMode: p is multiplied by defaultVolume / V
 * (V = sum over the selected lists, or all elements, of (a x b) . c / 6;
 * defaultVolume -1 takes the first V).
 * Stiffness (useTangentStiffness, SOFA's default): the exact derivative of
 * the triangles' force with p held fixed and no mainDirection factor (as
 * SOFA: not symmetric); the quads have none. The matrix writes the 9
 * blocks of every candidate triangle each time (zero when outside the box),
 * so its pattern never changes. Energy (SOFA: 0 with a warning): -p times
 * the volume under the pressed elements, which is the force's potential
 * when they close a surface and p is constant. */
#include <math.h>
#include <string.h>

#include "mechanical_load.h"

typedef struct surface_pressure {
    st_component base;
    double pressure;            /* "pressure" */
    st_vec3 min, max;           /* "min", "max": selection box */
    st_array tri_idx;           /* "triangleIndices" */
    st_array quad_idx;          /* "quadIndices" */
    bool pulse_mode;            /* "pulseMode" */
    double p_lower;             /* "pressureLowerBound" */
    double p_speed;             /* "pressureSpeed" */
    bool volume_conservation;   /* "volumeConservationMode" */
    bool tangent;               /* "useTangentStiffness" */
    double default_volume;      /* "defaultVolume" */
    st_vec3 main_dir;           /* "mainDirection" */
    double draw_scale;          /* "drawForceScale" */
    double rayleigh_stiffness;  /* "rayleighStiffness" */
    st_component *topology;     /* "topology" */
    st_component *followed;     /* the topology whose changes it listens to */
    st_component *mstate;       /* "mstate" */
    st_mstate *ms;
    /* Candidate elements (vertex indices), fixed at init. */
    unsigned *tri;              /* ntri * 3 */
    unsigned *quad;             /* nquad * 4 */
    size_t ntri, nquad;
    bool tri_box, quad_box;     /* selected by the box at each step */
    /* The last add_force: per candidate triangle, whether pressed and its
     * edge vectors ab, ac, bc; the pressure used. */
    unsigned char *tri_on;
    double (*tri_edges)[9];
    double p_last;
    /* pulseMode */
    double pulse_p;
    bool increasing;
} surface_pressure;

static void sp_free(surface_pressure *s)
{
    st_free(s->tri), st_free(s->quad), st_free(s->tri_on), st_free(s->tri_edges);
    s->tri = s->quad = NULL, s->tri_on = NULL, s->tri_edges = NULL;
    s->ntri = s->nquad = 0;
}

static bool in_box(const surface_pressure *s, const double *p)
{
    if (s->min[0] == 0 && s->min[1] == 0 && s->min[2] == 0 && s->max[0] == 0 && s->max[1] == 0 &&
        s->max[2] == 0)
        return true;
    for (int k = 0; k < 3; k++)
        if (!(p[k] >= s->min[k] && p[k] <= s->max[k]))
            return false;
    return true;
}

static bool elem_in_box(const surface_pressure *s, const double *x, const unsigned *v, int w)
{
    for (int j = 0; j < w; j++)
        if (!in_box(s, x + 3 * v[j]))
            return false;
    return true;
}

/* Copies the chosen elements (all when idx is empty) of list into *out. */
static st_status pick(st_component *self, const char *field, const st_array *idx,
                      const st_array *list, unsigned w, unsigned **out, size_t *n, st_error *err)
{
    size_t nl = list ? list->n : 0, m = idx->n > 0 ? idx->n : nl;
    *out = st_calloc(m * w + 1, sizeof **out);
    if (!*out)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu elements", m);
    for (size_t i = 0; i < m; i++) {
        size_t id = idx->n > 0 ? idx->u[i] : i;
        if (id >= nl)
            return st_component_error(self, field, err, ST_EINVAL,
                                      "element %zu does not exist: the topology has %zu", id, nl);
        memcpy(*out + w * i, list->u + w * id, w * sizeof **out);
    }
    *n = m;
    return ST_OK;
}

/* The triangles and quads it presses, read from the topology (all of them,
 * or those triangleIndices and quadIndices name), with their buffers. */
static st_status sp_read_elements(st_component *self, st_error *err)
{
    surface_pressure *s = (surface_pressure *)self;
    sp_free(s);
    const st_topology_ops *t = s->topology->cls->topology;
    ST_TRY(pick(self, "triangleIndices", &s->tri_idx, t->elements(s->topology, ST_T_TRIANGLES), 3,
                &s->tri, &s->ntri, err));
    ST_TRY(pick(self, "quadIndices", &s->quad_idx, t->elements(s->topology, ST_T_QUADS), 4,
                &s->quad, &s->nquad, err));
    ST_TRY(ml_check_elements(self, "triangle", s->tri, s->ntri, 3, s->ms, err));
    ST_TRY(ml_check_elements(self, "quad", s->quad, s->nquad, 4, s->ms, err));
    s->tri_box = s->tri_idx.n == 0;
    s->quad_box = s->quad_idx.n == 0;
    s->tri_on = st_calloc(s->ntri + 1, 1);
    s->tri_edges = st_calloc(s->ntri + 1, sizeof *s->tri_edges);
    if (!s->tri_on || !s->tri_edges)
        return st_error_set(err, ST_ENOMEM, "out of memory for %zu triangles", s->ntri);
    return ST_OK;
}

/* SOFA reads the topology's triangles and quads at every addForce: after a
 * change, the current lists (triangleIndices and quadIndices, plain index
 * lists in SOFA, are not renumbered: they name the elements now at those
 * places). */
static st_status sp_topology_changed(st_component *self, st_component *topology,
                                     const st_topo_event *ev, size_t nev, st_error *err)
{
    (void)topology, (void)ev, (void)nev;
    return sp_read_elements(self, err);
}

static st_status sp_init(st_component *self, st_error *err)
{
    surface_pressure *s = (surface_pressure *)self;
    sp_free(s);
    ST_TRY(ml_find_state(self, &s->ms, err));
    ST_TRY(st_find_topology(self, &s->topology, err));
    ST_TRY(sp_read_elements(self, err));
    /* SOFA gives its quads no tangent stiffness: under an implicit solver
     * their pressure is explicit, and a pressed quad surface can diverge
     * where the same surface in triangles is stable (SOFA's
     * SurfacePressureForceField.scn frog). Same numbers, and said. */
    if (s->tangent && s->nquad)
        st_component_warn(self, "%zu quads are pressed, and as in SOFA quads get no tangent "
                                "stiffness (triangles do): under an implicit solver their "
                                "pressure acts explicitly and can make the run diverge; a "
                                "triangulated surface (Quad2TriangleTopologicalMapping) gets "
                                "the stiffness",
                          s->nquad);
    if (s->topology != s->followed) {
        ST_TRY(st_topology_listen(self, s->topology, sp_topology_changed, err));
        s->followed = s->topology;
    }
    s->increasing = s->pressure > 0;
    if (s->pulse_mode && s->p_speed == 0.0) {
        st_component_warn(self, "Default pressure speed value has been set in "
                                "SurfacePressureForceField");
        s->p_speed = fabs(s->pressure);
        st_component_touch(self, st_component_field(self, "pressureSpeed"));
    }
    s->pulse_p = 0.0;
    s->p_last = s->pressure;
    return ST_OK;
}

static void sp_cleanup(st_component *self) { sp_free((surface_pressure *)self); }

/* SOFA's computePulseModePressure, once per time step. */
static void sp_on_event(st_component *self, st_event ev, double dt)
{
    surface_pressure *s = (surface_pressure *)self;
    if (ev != ST_EVENT_ANIMATE_BEGIN || !s->pulse_mode)
        return;
    if (s->increasing) {
        double hi = s->pressure > 0 ? s->pressure : s->p_lower;
        s->pulse_p += s->p_speed * dt;
        if (s->pulse_p >= hi) {
            s->pulse_p = hi;
            s->increasing = false;
        }
    } else {
        double lo = s->pressure > 0 ? s->p_lower : s->pressure;
        s->pulse_p -= s->p_speed * dt;
        if (s->pulse_p <= lo) {
            s->pulse_p = lo;
            s->increasing = true;
        }
    }
}

static double triple(const double *a, const double *b, const double *c)
{
    double n[3];
    ml_cross(a, b, n);
    return ml_dot(n, c);
}

/* Volume under the elements (pressed only: box test at x when `pressed`,
 * else all candidates), SOFA's computeMeshVolume. */
static double sp_volume(const surface_pressure *s, const double *x, bool pressed)
{
    double v = 0.0;
    for (size_t i = 0; i < s->ntri; i++) {
        const unsigned *t = s->tri + 3 * i;
        if (pressed && s->tri_box && !elem_in_box(s, x, t, 3))
            continue;
        v += triple(x + 3 * t[0], x + 3 * t[1], x + 3 * t[2]);
    }
    for (size_t i = 0; i < s->nquad; i++) {
        const unsigned *q = s->quad + 4 * i;
        if (pressed && s->quad_box && !elem_in_box(s, x, q, 4))
            continue;
        v += triple(x + 3 * q[0], x + 3 * q[1], x + 3 * q[2]);
        v += triple(x + 3 * q[0], x + 3 * q[2], x + 3 * q[3]);
    }
    return v / 6.0;
}

/* The pressure for positions x (pulse, volume conservation); may set
 * defaultVolume on its first call, as SOFA's addForce. */
static double sp_pressure(surface_pressure *s, const double *x, bool update)
{
    double p = s->pulse_mode ? s->pulse_p : s->pressure;
    if (s->volume_conservation) {
        if (s->default_volume == -1) {
            if (update) {
                s->default_volume = sp_volume(s, x, false);
                st_component_touch(&s->base, st_component_field(&s->base, "defaultVolume"));
            }
        } else if (s->default_volume != 0) {
            p *= s->default_volume / sp_volume(s, x, false);
        }
    }
    return p;
}

static void sp_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                         const double *v)
{
    (void)mp, (void)v;
    surface_pressure *s = (surface_pressure *)self;
    double *fs = st_slice(f, s->ms);
    const double *xs = st_slice_x(x, s->ms);
    double p = sp_pressure(s, xs, true);
    s->p_last = p;
    bool dir = s->main_dir[0] != 0 || s->main_dir[1] != 0 || s->main_dir[2] != 0;
    for (size_t i = 0; i < s->ntri; i++) {
        const unsigned *t = s->tri + 3 * i;
        s->tri_on[i] = !s->tri_box || elem_in_box(s, xs, t, 3);
        if (!s->tri_on[i])
            continue;
        double *e = s->tri_edges[i]; /* ab, ac, bc */
        for (int k = 0; k < 3; k++) {
            e[k] = xs[3 * t[1] + (size_t)k] - xs[3 * t[0] + (size_t)k];
            e[3 + k] = xs[3 * t[2] + (size_t)k] - xs[3 * t[0] + (size_t)k];
            e[6 + k] = xs[3 * t[2] + (size_t)k] - xs[3 * t[1] + (size_t)k];
        }
        double n[3], fo[3];
        ml_cross(e, e + 3, n);
        for (int k = 0; k < 3; k++)
            fo[k] = n[k] * (p / 6.0);
        if (dir) {
            double len = sqrt(ml_dot(n, n));
            double u[3] = {n[0] / len, n[1] / len, n[2] / len};
            double scal = fabs(ml_dot(u, s->main_dir));
            for (int k = 0; k < 3; k++)
                fo[k] *= scal;
        }
        for (int j = 0; j < 3; j++)
            ml_axpy(fs + 3 * (size_t)t[j], 1.0, fo);
    }
    for (size_t i = 0; i < s->nquad; i++) {
        const unsigned *q = s->quad + 4 * i;
        if (s->quad_box && !elem_in_box(s, xs, q, 4))
            continue;
        double ab[3], ac[3], ad[3], p1[3], p2[3], p12[3];
        for (int k = 0; k < 3; k++) {
            ab[k] = xs[3 * q[1] + (size_t)k] - xs[3 * q[0] + (size_t)k];
            ac[k] = xs[3 * q[2] + (size_t)k] - xs[3 * q[0] + (size_t)k];
            ad[k] = xs[3 * q[3] + (size_t)k] - xs[3 * q[0] + (size_t)k];
        }
        ml_cross(ab, ac, p1);
        ml_cross(ac, ad, p2);
        for (int k = 0; k < 3; k++) {
            p1[k] *= p / 6.0;
            p2[k] *= p / 6.0;
            p12[k] = p1[k] + p2[k];
        }
        ml_axpy(fs + 3 * (size_t)q[0], 1.0, p12);
        ml_axpy(fs + 3 * (size_t)q[1], 1.0, p1);
        ml_axpy(fs + 3 * (size_t)q[2], 1.0, p12);
        ml_axpy(fs + 3 * (size_t)q[3], 1.0, p2);
    }
}

/* The derivative blocks of a pressed triangle: d(force on any vertex) /
 * d(vertex k) = s M_k, M_0 = [bc]x, M_1 = -[ac]x, M_2 = [ab]x. */
static void tri_blocks(const double e[9], double sc, double m[3][9])
{
    ml_cross_matrix(e + 6, sc, m[0]);
    ml_cross_matrix(e + 3, -sc, m[1]);
    ml_cross_matrix(e, sc, m[2]);
}

static void sp_add_dforce(st_component *self, const st_mparams *mp, double *df,
                          const double *dx, double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    surface_pressure *s = (surface_pressure *)self;
    if (!s->tangent)
        return;
    double *dfs = st_slice(df, s->ms);
    const double *dxs = st_slice(dx, s->ms);
    double sc = s->p_last / 6.0 * kfactor;
    for (size_t i = 0; i < s->ntri; i++) {
        if (!s->tri_on[i])
            continue;
        const unsigned *t = s->tri + 3 * i;
        const double *e = s->tri_edges[i];
        double a[3], b[3], c[3], d[3];
        ml_cross(e + 6, dxs + 3 * t[0], a);
        ml_cross(e + 3, dxs + 3 * t[1], b);
        ml_cross(e, dxs + 3 * t[2], c);
        for (int k = 0; k < 3; k++)
            d[k] = (a[k] - b[k] + c[k]) * sc;
        for (int j = 0; j < 3; j++)
            ml_axpy(dfs + 3 * (size_t)t[j], 1.0, d);
    }
}

static void sp_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    surface_pressure *s = (surface_pressure *)self;
    if (!s->tangent)
        return;
    double sc = s->p_last / 6.0 * kfactor;
    for (size_t i = 0; i < s->ntri; i++) {
        const unsigned *t = s->tri + 3 * i;
        double blk[3][9] = {{0}};
        if (s->tri_on[i])
            tri_blocks(s->tri_edges[i], sc, blk);
        for (int j = 0; j < 3; j++)
            for (int k = 0; k < 3; k++)
                st_matrix_add_block(m, s->ms, t[j], s->ms, t[k], blk[k]);
    }
}

static double sp_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    surface_pressure *s = (surface_pressure *)self;
    const double *xs = st_slice_x(x, s->ms);
    return -sp_pressure(s, xs, false) * sp_volume(s, xs, true);
}

static double sp_rayleigh(const st_component *self)
{
    return ((const surface_pressure *)self)->rayleigh_stiffness;
}

static const st_forcefield_ops sp_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = sp_add_force,
    .add_dforce = sp_add_dforce,
    .add_k_to_matrix = sp_add_k,
    .potential_energy = sp_energy,
    .rayleigh_stiffness = sp_rayleigh,
};

static const st_field sp_fields[] = {
    ST_REAL(surface_pressure, pressure, "pressure", "0", "Pressure force per unit area"),
    ST_VEC3(surface_pressure, min, "min", "0 0 0", "Lower bound of the selection box"),
    ST_VEC3(surface_pressure, max, "max", "0 0 0", "Upper bound of the selection box"),
    ST_UINTS(surface_pressure, tri_idx, "triangleIndices", NULL, "Indices of affected triangles"),
    ST_UINTS(surface_pressure, quad_idx, "quadIndices", NULL, "Indices of affected quads"),
    ST_BOOL(surface_pressure, pulse_mode, "pulseMode", "false", "Cyclic pressure application"),
    ST_REAL(surface_pressure, p_lower, "pressureLowerBound", "0",
            "Pressure lower bound force per unit area (active in pulse mode)"),
    ST_REAL(surface_pressure, p_speed, "pressureSpeed", "0",
            "Continuous pressure application in Pascal per second. Only active in pulse mode"),
    ST_BOOL(surface_pressure, volume_conservation, "volumeConservationMode", "false",
            "Pressure variation follow the inverse of the volume variation"),
    ST_BOOL(surface_pressure, tangent, "useTangentStiffness", "true",
            "Whether (non-symmetric) stiffness matrix should be used (triangles only: quads "
            "get none, as in SOFA)"),
    ST_REAL(surface_pressure, default_volume, "defaultVolume", "-1", "Default Volume"),
    ST_VEC3(surface_pressure, main_dir, "mainDirection", "0 0 0",
            "Main direction for pressure application"),
    IGN_REAL(surface_pressure, draw_scale, "drawForceScale", "0",
             "DEBUG: scale used to render force vectors"),
    ST_LINK(surface_pressure, topology, "topology", ST_LINK_TOPOLOGY,
            "link to the topology container (default: the first topology found upward)"),
    ML_F_FORCEFIELD(surface_pressure),
    ST_FIELD_END};

/* pulseMode's pressure and direction: a resumed run goes on from them. */
static st_status sp_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    surface_pressure *s = (surface_pressure *)self;
    ST_TRY(st_checkpoint_data(ck, &s->pulse_p, sizeof s->pulse_p, err));
    return st_checkpoint_data(ck, &s->increasing, sizeof s->increasing, err);
}

static const st_checkpoint_ops sp_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = sp_checkpoint,
};

const st_class surface_pressure_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "SurfacePressureForceField",
    .category = "ForceField",
    .description = "Pressure on the triangles and quads of a moving surface",
    .instance_size = sizeof(surface_pressure),
    .fields = sp_fields,
    .init = sp_init,
    .reinit = sp_init,
    .cleanup = sp_cleanup,
    .on_event = sp_on_event,
    .forcefield = &sp_ops,
    .checkpoint = &sp_checkpoint_ops,
};
