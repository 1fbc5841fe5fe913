/* wire_rest_shape.c - WireRestShape and its rod sections RodStraightSection,
 * RodSpireSection and RodMeshSection (SOFA's BeamAdapter plugin,
 * BaseRodSectionMaterial for what the sections share; RodMeshSection's
 * chain of edges is described at rod_mesh_init).
 *
 * A rod section has a length, a number of beams, of visual and of collision
 * edges, a circular section (radius r, inner radius ri: A = pi (r^2 - ri^2),
 * Iy = Iz = pi (r^4 - ri^4) / 4, J = Iy + Iz, no shear areas) and Young's
 * modulus, Poisson's ratio and mass density. When nbBeams is not set it
 * takes nbEdgesCollis (SOFA's compatibility rule, with its deprecation
 * warning). A length <= 0, no beam or no collision edge is an error.
 *
 * WireRestShape links its sections in wireMaterials (handle to tip) and
 * computes keyPoints (0 then the running sum of the lengths) and
 * densityOfBeams (each section's nbBeams); both are outputs (a warning
 * when the scene sets them). The rest frame at abscissa x: x - 1e-10,
 * clamped to [0, total length], falls in the first section whose end key
 * point is >= it; a straight section gives the frame at (x, 0, 0) with the
 * identity rotation; a spire section starting at x0, with diameter D and
 * height h between spires: the projected length pi D, a spire's length
 * ls = sqrt(h^2 + (pi D)^2), phi = atan(h / (pi D)), n = (x - x0) / ls
 * spires, theta = 2 pi n; the rotation is (y axis, theta) times (z axis,
 * phi) and the origin (x0 + (D/2) sin theta, n h, (D/2)(cos theta - 1)).
 *
 * Init also fills the linked topology container (else the first one found
 * from its node upwards; none is an error, as SOFA's) with points along x
 * and edges, nbEdgesVisu per section (SOFA's initTopology); a container
 * already initialised is reinitialised with them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "beam_adapter.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

#define WRS_EPS 1e-10

/* ---- Rod sections ---- */

/* ---- RodMeshSection: the rest shape of a chain of edges ---- */

static void rod_mesh_free(rod_section *r)
{
    free(r->mesh_xf);
    free(r->mesh_abs);
    r->mesh_xf = NULL;
    r->mesh_abs = NULL;
    r->nmesh = 0;
}

static void rod_cleanup(st_component *self)
{
    rod_mesh_free((rod_section *)self);
}

/* Turns q about the shortest arc so that its x axis lies along v
 * (RodMeshSection's own version: no turn within 1e-4 of aligned). */
static void mesh_align_x(const double q[4], const double v[3], double out[4])
{
    double x[3] = {v[0], v[1], v[2]}, x0[3];
    st_v3_normalize(x);
    const double c[4] = {-q[0], -q[1], -q[2], q[3]};
    st_quat_rotate(x0, c, x);
    if (x0[0] > 1.0 - 1e-4) {
        memcpy(out, q, 4 * sizeof(double));
        return;
    }
    const double th = acos(x0[0] < -1.0 ? -1.0 : x0[0]);
    double dw[3] = {0.0, -x0[2], x0[1]};
    if (st_v3_normalize(dw) == 0.0)
        dw[2] = 1.0; /* reversed: any axis normal to x */
    const double r[4] = {dw[0] * sin(th / 2), dw[1] * sin(th / 2), dw[2] * sin(th / 2),
                         cos(th / 2)};
    st_quat_mul(out, q, r);
}

static const st_array *loader_array(st_component *l, const char *name)
{
    const st_field *f = st_component_field(l, name);
    return f ? st_component_field_ptr(l, f) : NULL;
}

/* SOFA's initFromLoader and initRestConfig: the loader's edges must make an
 * open chain; it is walked from its first end (the first point on one
 * edge), each point's frame turned from the previous one onto the edge
 * before it, and the section's length becomes the chain's. */
static st_status rod_mesh_init(rod_section *r, st_error *err)
{
    st_component *self = &r->base, *l = r->loader;
    for (st_node *n = self->node; n && !l; n = st_node_parent(n))
        for (size_t i = 0; i < st_node_object_count(n) && !l; i++) {
            st_component *o = st_node_object(n, i);
            if (o->cls->category && !strcmp(o->cls->category, "Loader") &&
                loader_array(o, "edges"))
                l = o;
        }
    if (!l)
        return st_component_error(self, "loader", err, ST_ESCENE,
                                  "Cannot find a mesh loader. Please insert a MeshOBJLoader in "
                                  "the same node or use loader to specify the path in the scene "
                                  "graph.");
    const st_array *pos = loader_array(l, "position"), *edges = loader_array(l, "edges");
    if (!pos || !edges || edges->n == 0)
        return st_component_error(self, "loader", err, ST_ESCENE,
                                  "There is no edges in the topology loaded by %s", l->name);
    static const char *const faces[] = {"triangles", "quads", "polygons"};
    for (size_t k = 0; k < 3; k++) {
        const st_array *a = loader_array(l, faces[k]);
        if (a && a->n)
            return st_component_error(self, "loader", err, ST_ESCENE,
                                      "There are %s in the topology loaded by %s", faces[k],
                                      l->name);
    }
    const size_t np = pos->n, ne = edges->n;
    for (size_t e = 0; e < 2 * ne; e++)
        if (edges->u[e] >= np)
            return st_component_error(self, "loader", err, ST_ESCENE,
                                      "edge %zu of %s names point %u; it has %zu points", e / 2,
                                      l->name, edges->u[e], np);
    int *links = calloc(np, sizeof *links);
    bool *used = calloc(ne, sizeof *used);
    unsigned *chain = malloc((ne + 1) * sizeof *chain);
    st_status st = ST_OK;
    if (!links || !used || !chain) {
        st = st_error_set(err, ST_ENOMEM, "RodMeshSection: out of memory");
        goto done;
    }
    for (size_t e = 0; e < 2 * ne; e++)
        links[edges->u[e]]++;
    size_t first = 0;
    while (first < np && links[first] != 1)
        first++;
    if (first == np) {
        st = st_component_error(self, "loader", err, ST_ESCENE,
                                "The first vertex of the beam structure is not found, probably "
                                "because of a closed structure");
        goto done;
    }
    /* walk the chain: each time the first unused edge touching the point */
    size_t nc = 0, at = first;
    chain[nc++] = (unsigned)at;
    for (bool more = true; more;) {
        more = false;
        for (size_t e = 0; e < ne; e++) {
            if (used[e])
                continue;
            const unsigned a = edges->u[2 * e], b = edges->u[2 * e + 1];
            if (a == at || b == at) {
                used[e] = true;
                at = a == at ? b : a;
                chain[nc++] = (unsigned)at;
                more = true;
                break;
            }
        }
    }
    if (nc != ne + 1) {
        st = st_component_error(self, "loader", err, ST_ESCENE,
                                "the edges of %s do not make one open chain (%zu of %zu edges "
                                "from its first end)",
                                l->name, nc - 1, ne);
        goto done;
    }
    rod_mesh_free(r);
    r->mesh_xf = calloc(nc, sizeof *r->mesh_xf);
    r->mesh_abs = calloc(nc, sizeof *r->mesh_abs);
    if (!r->mesh_xf || !r->mesh_abs) {
        st = st_error_set(err, ST_ENOMEM, "RodMeshSection: out of memory");
        goto done;
    }
    r->nmesh = nc;
    ba_xf_identity(&r->mesh_xf[0]);
    const double *p0 = pos->r + 3 * (size_t)chain[0];
    for (size_t i = 0; i + 1 < nc; i++) {
        const double *a = pos->r + 3 * (size_t)chain[i], *b = pos->r + 3 * (size_t)chain[i + 1];
        double d[3];
        st_v3_sub(d, b, a);
        r->mesh_abs[i + 1] = r->mesh_abs[i] + st_v3_norm(d);
        mesh_align_x(r->mesh_xf[i].q, d, r->mesh_xf[i + 1].q);
        st_v3_sub(r->mesh_xf[i + 1].t, b, p0);
    }
    r->length = r->mesh_abs[nc - 1];
done:
    free(links);
    free(used);
    free(chain);
    return st;
}

/* SOFA's RodMeshSection::getRestTransformOnX: the chain's frame at the
 * abscissa x - x0 scaled to the chain's length, between the two points
 * around it (origins linearly, rotations by slerp), shifted by x0 along x. */
static void rod_mesh_transform(const rod_section *r, double x, double x0, ba_xf *out)
{
    const double total = r->mesh_abs[r->nmesh - 1];
    const double a = (x - x0) / r->length * total;
    size_t i = 1;
    while (i + 1 < r->nmesh && r->mesh_abs[i] < a)
        i++;
    const double span = r->mesh_abs[i] - r->mesh_abs[i - 1];
    double t = span > 0 ? (a - r->mesh_abs[i - 1]) / span : 0.0;
    t = t < 0 ? 0 : t > 1 ? 1 : t; /* SOFA reads outside its lists there */
    const ba_xf *f0 = &r->mesh_xf[i - 1], *f1 = &r->mesh_xf[i];
    for (int c = 0; c < 3; c++)
        out->t[c] = f0->t[c] * (1 - t) + f1->t[c] * t;
    out->t[0] += x0;
    ba_slerp(out->q, f0->q, f1->q, t);
    st_quat_normalize(out->q);
}

static st_status rod_init(st_component *self, st_error *err)
{
    rod_section *r = (rod_section *)self;
    r->spire = strcmp(self->cls->name, "RodSpireSection") == 0;
    r->mesh = strcmp(self->cls->name, "RodMeshSection") == 0;
    if (r->mesh)
        ST_TRY(rod_mesh_init(r, err));
    if (!st_component_is_set(self, "nbBeams")) {
        st_component_warn(self, "nbBeams is now required but it was not set: it takes "
                                "nbEdgesCollis (%u), as SOFA's compatibility rule",
                          r->nb_edges_collis);
        r->nb_beams = r->nb_edges_collis;
    }
    const double ro = r->radius, ri = r->inner_radius;
    memset(&r->section, 0, sizeof r->section);
    r->section.r = ro;
    r->section.r_inner = ri;
    r->section.Iz = M_PI * (ro * ro * ro * ro - ri * ri * ri * ri) / 4.0;
    r->section.Iy = r->section.Iz;
    r->section.J = r->section.Iy + r->section.Iz;
    r->section.A = M_PI * (ro * ro - ri * ri);
    if (!(r->length > 0.0))
        return st_component_error(self, "length", err, ST_EINVAL,
                                  "length is %g: a rod section needs a length > 0", r->length);
    if (r->nb_beams == 0 || r->nb_edges_collis == 0)
        return st_component_error(self, "nbBeams", err, ST_EINVAL,
                                  "nbBeams or nbEdgesCollis is 0: a rod section needs at least "
                                  "one beam and one collision edge");
    return ST_OK;
}

#define T rod_section
#define ROD_COMMON_FIELDS                                                                         \
    ST_REAL(T, poisson, "poissonRatio", "0.49", "Poisson Ratio of this section"),                 \
        ST_REAL(T, young, "youngModulus", "5000", "Young Modulus of this section"),               \
        ST_REAL(T, mass_density, "massDensity", "1",                                              \
                "Density of the mass (usually in kg/m^3)"),                                       \
        ST_REAL(T, radius, "radius", "1", "Full radius of this section"),                         \
        ST_REAL(T, inner_radius, "innerRadius", "0", "Inner radius of this section if hollow"),   \
        ST_REAL(T, length, "length", "1", "Total length of this section"),                        \
        ST_UINT(T, nb_beams, "nbBeams", "5", "Number of Beams for the mechanical model"),         \
        ST_UINT(T, nb_edges_visu, "nbEdgesVisu", "10", "Number of Edges for the visual model"),   \
        ST_UINT(T, nb_edges_collis, "nbEdgesCollis", "20",                                        \
                "Number of Edges for the collision model")

static const st_field straight_fields[] = {ROD_COMMON_FIELDS, ST_FIELD_END};
static const st_field mesh_fields[] = {
    ROD_COMMON_FIELDS,
    ST_LINK(T, loader, "loader", ST_LINK_ANY,
            "link to the MeshLoader (its edges: one open chain, the section's rest shape; the "
            "section's length becomes the chain's)"),
    ST_FIELD_END};
static const st_field spire_fields[] = {
    ROD_COMMON_FIELDS,
    ST_REAL(T, spire_diameter, "spireDiameter", "0.1", "diameter of the spire"),
    ST_REAL(T, spire_height, "spireHeight", "0.01", "height between each spire"),
    ST_FIELD_END};
#undef T

static const char *const rigid_only[] = {"Rigid3d", NULL};

const st_class rod_straight_section_class = {
    .struct_size = sizeof(st_class),
    .name = "RodStraightSection",
    .category = "Misc",
    .description = "A straight section of a wire: its length, beams, circular section and "
                   "material, for WireRestShape (BeamAdapter)",
    .instance_size = sizeof(rod_section),
    .fields = straight_fields,
    .init = rod_init,
    .reinit = rod_init,
    .templates = rigid_only,
};

const st_class rod_spire_section_class = {
    .struct_size = sizeof(st_class),
    .name = "RodSpireSection",
    .category = "Misc",
    .description = "A helical (spire) section of a wire: spire diameter and height, length, "
                   "beams, circular section and material, for WireRestShape (BeamAdapter)",
    .instance_size = sizeof(rod_section),
    .fields = spire_fields,
    .init = rod_init,
    .reinit = rod_init,
    .templates = rigid_only,
};

const st_class rod_mesh_section_class = {
    .struct_size = sizeof(st_class),
    .name = "RodMeshSection",
    .category = "Misc",
    .description = "A section of a wire shaped as a loaded chain of edges (a mesh loader's "
                   "lines): length, beams, circular section and material, for WireRestShape "
                   "(BeamAdapter)",
    .instance_size = sizeof(rod_section),
    .fields = mesh_fields,
    .init = rod_init,
    .reinit = rod_init,
    .cleanup = rod_cleanup,
    .templates = rigid_only,
};

/* Rest frame of section r (starting at x0) at abscissa x. */
static void rod_rest_transform(const rod_section *r, double x, double x0, ba_xf *out)
{
    ba_xf_identity(out);
    if (r->mesh) {
        rod_mesh_transform(r, x, x0, out);
        return;
    }
    if (!r->spire) {
        out->t[0] = x;
        return;
    }
    const double D = r->spire_diameter, h = r->spire_height;
    const double proj = D * M_PI;
    const double ls = sqrt(h * h + proj * proj);
    const double phi = atan(h / proj);
    const double n = (x - x0) / ls;
    const double theta = 2.0 * M_PI * n;
    const double qphi[4] = {0.0, 0.0, sin(phi / 2), cos(phi / 2)};
    const double qth[4] = {0.0, sin(theta / 2), 0.0, cos(theta / 2)};
    st_quat_mul(out->q, qth, qphi);
    const double rad = D / 2.0;
    out->t[0] = x0 + rad * sin(theta);
    out->t[1] = n * h;
    out->t[2] = rad * (cos(theta) - 1.0);
}

/* ---- WireRestShape ---- */

double wrs_length(const wire_rest_shape *w)
{
    return w->key_points.n ? w->key_points.r[w->key_points.n - 1] : 0.0;
}

static size_t section_index(const wire_rest_shape *w, double x_used)
{
    for (size_t i = 1; i < w->key_points.n; i++)
        if (x_used <= w->key_points.r[i])
            return i - 1;
    return w->nsec;
}

const rod_section *wrs_section_at(const wire_rest_shape *w, double x)
{
    const size_t i = section_index(w, x - WRS_EPS);
    return i < w->nsec ? w->sec[i] : NULL;
}

static double sampling(const wire_rest_shape *w, double x, bool collision)
{
    const double L = wrs_length(w);
    double xu = x - WRS_EPS;
    xu = xu < 0.0 ? 0.0 : xu > L ? L : xu;
    const size_t i = section_index(w, xu);
    if (i >= w->nsec)
        return L / 20.0; /* SOFA's fallback */
    const unsigned n = collision ? w->sec[i]->nb_edges_collis : w->sec[i]->nb_beams;
    return fabs(w->key_points.r[i + 1] - w->key_points.r[i]) / n;
}

double wrs_mechanical_sampling(const wire_rest_shape *w, double x)
{
    return sampling(w, x, false);
}

double wrs_collision_sampling(const wire_rest_shape *w, double x)
{
    return sampling(w, x, true);
}

void wrs_rest_transform(const wire_rest_shape *w, double x, ba_xf *out)
{
    const double L = wrs_length(w);
    double xu = x - WRS_EPS;
    xu = xu > L ? L : xu < 0.0 ? 0.0 : xu;
    const size_t i = section_index(w, xu);
    if (i >= w->nsec) {
        ba_xf_identity(out);
        return;
    }
    rod_rest_transform(w->sec[i], xu, w->key_points.r[i], out);
}

static st_status wrs_fill_topology(wire_rest_shape *w, st_component *topo, st_error *err);

static void wrs_cleanup(st_component *self)
{
    wire_rest_shape *w = (wire_rest_shape *)self;
    free(w->sec);
    w->sec = NULL;
    w->nsec = 0;
}

static st_status wrs_init(st_component *self, st_error *err)
{
    wire_rest_shape *w = (wire_rest_shape *)self;
    wrs_cleanup(self);
    const size_t n = w->wire_materials.n;
    if (n == 0)
        return st_component_error(self, "wireMaterials", err, ST_EINVAL,
                                  "no rod section: link at least one RodStraightSection or "
                                  "RodSpireSection with wireMaterials (handle to tip)");
    if (st_component_is_set(self, "densityOfBeams"))
        st_component_warn_field(self, "densityOfBeams",
                                "the density field will be ignored (output only)");
    if (st_component_is_set(self, "keyPoints"))
        st_component_warn_field(self, "keyPoints", "the keyPoints field will be ignored "
                                                   "(output only)");
    w->sec = calloc(n, sizeof *w->sec);
    if (!w->sec)
        return st_error_set(err, ST_ENOMEM, "WireRestShape: out of memory");
    for (size_t i = 0; i < n; i++) {
        const char *p = w->wire_materials.s[i];
        if (p[0] == '@')
            p++;
        st_component *c = NULL;
        ST_TRY(st_node_resolve(self->node, p, ST_LINK_ANY, &c, err));
        if (strcmp(c->cls->name, "RodStraightSection") != 0 &&
            strcmp(c->cls->name, "RodSpireSection") != 0 &&
            strcmp(c->cls->name, "RodMeshSection") != 0)
            return st_component_error(self, "wireMaterials", err, ST_EINVAL,
                                      "'%s' is a %s, not a rod section (RodStraightSection, "
                                      "RodSpireSection, RodMeshSection)",
                                      w->wire_materials.s[i], c->cls->name);
        if (c->state != ST_CSTATE_VALID) {
            const st_status s = c->cls->init(c, err);
            if (s != ST_OK)
                return s;
        }
        w->sec[i] = (rod_section *)c;
    }
    w->nsec = n;
    ST_TRY(st_array_resize(&w->key_points, ST_T_REALS, n + 1, err));
    ST_TRY(st_array_resize(&w->density, ST_T_UINTS, n, err));
    w->key_points.r[0] = 0.0;
    for (size_t i = 0; i < n; i++) {
        w->key_points.r[i + 1] = w->key_points.r[i] + w->sec[i]->length;
        w->density.u[i] = w->sec[i]->nb_beams;
    }
    st_component *topo = w->topology;
    if (!topo)
        topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!topo)
        return st_component_error(self, "topology", err, ST_EINVAL,
                                  "no topology container: link one with topology or put one "
                                  "in the node (an EdgeSetTopologyContainer)");
    ST_TRY(wrs_fill_topology(w, topo, err));
    if (topo->state == ST_CSTATE_VALID && topo->cls->reinit)
        return topo->cls->reinit(topo, err); /* initialised before this: take the new lists */
    return ST_OK;
}

st_status ba_buf_add(char **buf, size_t *len, size_t *cap, st_error *err, const char *fmt,
                     double a, double b)
{
    char tmp[96];
    const int k = snprintf(tmp, sizeof tmp, fmt, a, b);
    if (*len + (size_t)k + 1 > *cap) {
        size_t nc = *cap ? *cap * 2 : 1024;
        while (nc < *len + (size_t)k + 1)
            nc *= 2;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return st_error_set(err, ST_ENOMEM, "BeamAdapter: out of memory writing a topology");
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, tmp, (size_t)k + 1);
    *len += (size_t)k;
    return ST_OK;
}

/* SOFA's initTopology: the topology becomes points along x and edges, each
 * section's length cut into nbEdgesVisu edges (SOFA's loop, kept as it is:
 * a section's points start at the previous section's length, not its key
 * point, which is the same for two sections). */
static st_status wrs_fill_topology(wire_rest_shape *w, st_component *topo, st_error *err)
{
    char *pos = NULL, *edg = NULL;
    size_t pl = 0, pc = 0, el = 0, ec = 0;
    double prev_length = 0.0;
    unsigned prev_edges = 0, start = 0;
    st_status st = ST_OK;
    for (size_t i = 0; i < w->nsec && st == ST_OK; i++) {
        const unsigned nv = w->sec[i]->nb_edges_visu;
        const double length = fabs(w->key_points.r[i + 1] - w->key_points.r[i]);
        const double dx = nv ? length / nv : 0.0;
        for (unsigned k = start; k < nv + 1 && st == ST_OK; k++)
            st = ba_buf_add(&pos, &pl, &pc, err, "%.17g %.17g 0 ", prev_length + k * dx, 0.0);
        for (unsigned k = prev_edges; k < prev_edges + nv && st == ST_OK; k++)
            st = ba_buf_add(&edg, &el, &ec, err, "%.0f %.0f ", k, k + 1.0);
        prev_length = length;
        prev_edges = nv;
        start = 1;
    }
    if (st == ST_OK)
        st = st_component_set(topo, "position", pos ? pos : "", err);
    if (st == ST_OK)
        st = st_component_set(topo, "edges", edg ? edg : "", err);
    free(pos);
    free(edg);
    return st;
}

#define T wire_rest_shape
static const st_field wrs_fields[] = {
    ST_FIELD_EX(T, density, "densityOfBeams", ST_T_UINTS, st_array, "",
                "density of beams between key points (output: each section's nbBeams)", 0,
                NULL, 0.0, 0.0),
    ST_FIELD_EX(T, key_points, "keyPoints", ST_T_REALS, st_array, "",
                "key points of the shape (curv absc; output: the sections' ends)", 0, NULL, 0.0,
                0.0),
    ST_FIELD_EX(T, wire_materials, "wireMaterials", ST_T_STRINGS, st_array, "",
                "link to Wire Section Materials (to be ordered according to the instrument, "
                "from handle to tip)",
                ST_F_NOLINK, NULL, 0.0, 0.0),
    ST_LINK(T, topology, "topology", ST_LINK_TOPOLOGY, "link to the topology container"),
    ST_FIELD_END};
#undef T

const st_class wire_rest_shape_class = {
    .struct_size = sizeof(st_class),
    .name = "WireRestShape",
    .category = "Misc",
    .description = "Rest shape of a wire by curvilinear abscissa from its rod sections "
                   "(straight, spire): key points, beams per section, rest frames (BeamAdapter)",
    .instance_size = sizeof(wire_rest_shape),
    .fields = wrs_fields,
    .init = wrs_init,
    .reinit = wrs_init,
    .cleanup = wrs_cleanup,
    .templates = rigid_only,
};
