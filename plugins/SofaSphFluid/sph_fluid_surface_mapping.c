/* sph_fluid_surface_mapping.c - SPHFluidSurfaceMapping (SofaSphFluid): the
 * surface of a particle fluid, drawn by marching cubes through a colour
 * field sampled on a grid, written into a visual model (OglModel) after each
 * step.
 *
 * The grid's nodes are the multiples of `step` on each axis. With h =
 * radius, the field at a node y is, as SOFA's SPHFluidSurfaceMapping,
 *   F(y) = sum over particles i with r = |y - x_i| < h of (1 - r^2/h^2)^3 s_i
 * where s_i = 1 / rho_i (rho_i: the density the SPHFluidForceField of the
 * input's node computed at its last force evaluation) when that node has
 * one, else s_i = 1. With such a force field and isoValue left at 0.5, init
 * divides isoValue by C m (C = 315 / (64 pi h^3), m its particle mass), as
 * SOFA does: the surface is then where sum m/rho_i W(r) = 0.5, W the poly6
 * kernel of radius h. A node is inside when F > isoValue.
 *
 * A vertex lies on each grid edge whose two nodes are on either side, at the
 * linear interpolation of F; its normal is minus the interpolated central
 * difference gradient of F, normalized (pointing out of the fluid). Each
 * grid cube gives the triangles of the marching-cubes table for its corner
 * signs. The table is settee's, built at init (SOFA's has the same
 * vertices; its triangles may differ): on a cube face whose inside corners
 * are opposite, the inside corners are cut apart, and the loops this gives
 * are cut into triangles whose sides never lie in a cube face. Both cubes
 * sharing a face follow the rules, so the mesh is closed: every edge is
 * shared by two triangles, oriented counter-clockwise seen from outside.
 *
 * The grid is sparse: blocks of 8^3 nodes in a hash table, made where a
 * particle reaches (SOFA: the same 8^3 blocks around each particle). SOFA
 * gives no surface when radius / step > 7 (its blocks are too small for
 * the particles' reach); settee samples the field whatever the ratio, up to
 * 64 (a larger one is refused at init: too many nodes per particle).
 *
 * The output must be a visual model: its position, normal and triangles are
 * replaced at init and after each step (SOFA's mapping is a MeshTopology
 * the model reads its triangles from; settee writes them into the model,
 * and empties the quads the model may have taken from a grid above).
 * The mapping is visual: no forces go back (SOFA's applyJ and applyJT are
 * empty). Particles may come and go (ParticleSource, ParticleSink): the
 * surface is made again from the state at each apply. Template: Vec3d to
 * Vec3d, SOFA's one instance. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/mapping_common.h"
#include "../shared/topology_link.h"
#include "sph_fluid.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

enum { SFS_B = 8, SFS_BN = SFS_B * SFS_B * SFS_B, SFS_MAX_TRI = 10 };

/* A block of grid nodes: key * 8 + (0..7) on each axis. */
typedef struct sfs_block {
    int key[3];
    double val[SFS_BN];    /* the field F at the nodes, index (z * 8 + y) * 8 + x */
    int vtx[SFS_BN][3];    /* vertex on the node's +x, +y, +z edge, or -1 */
    bool inside;           /* a node has F > isoValue */
} sfs_block;

typedef struct sfs_mapping {
    map_head h; /* input: the particles (Vec3d); output: a visual model */
    double step, radius, iso_value;
    /* Set at init. */
    st_component *sph;                     /* SPHFluidForceField of the input's node, or NULL */
    int8_t table[256][3 * SFS_MAX_TRI + 1]; /* cube edges, three per triangle, -1 ends */
    st_array *tris, *normals;              /* the visual model's triangles and normal */
    const st_field *f_tris, *f_normals;
    /* Scratch, kept across steps (grown, never shrunk). */
    sfs_block *blocks;
    size_t nblocks, cap_blocks;
    int *hash; /* block index + 1, 0: empty */
    size_t hash_size;
    double *pos, *nrm; /* 3 x nv */
    size_t nv, cap_v, cap_n;
    unsigned *tri; /* 3 x nt */
    size_t nt, cap_t;
    bool failed, warned_far, warned_open;
    bool listening; /* registered for topological changes */
} sfs_mapping;

static const st_field sfs_fields[] = {
    MAP_HEAD_FIELDS(sfs_mapping),
    ST_REAL(sfs_mapping, step, "step", "0.5", "Step (spacing of the grid's nodes)"),
    ST_REAL(sfs_mapping, radius, "radius", "2",
            "Radius (of each particle's contribution (1 - r^2/radius^2)^3 to the field)"),
    ST_REAL(sfs_mapping, iso_value, "isoValue", "0.5",
            "Iso Value (of the field at the surface; 0.5 with an SPHFluidForceField in the "
            "input's node is divided at init by 315 / (64 pi radius^3) times its particle mass)"),
    ST_FIELD_END};

/* ---- the marching-cubes table ----
 * Corner c of a cube sits at offset (c & 1, c >> 1 & 1, c >> 2 & 1). Edge e
 * (0..11) runs along axis e / 4 from corner edge_from[e]. */
static const int8_t edge_from[12] = {0, 2, 4, 6, 0, 1, 4, 5, 0, 1, 2, 3};

static int edge_of(int a, int b)
{
    int lo = a < b ? a : b, axis = (a ^ b) == 1 ? 0 : (a ^ b) == 2 ? 1 : 2;
    for (int e = 4 * axis; e < 4 * axis + 4; e++)
        if (edge_from[e] == lo)
            return e;
    return -1;
}

/* Whether edges a and b lie on a common face of the cube. */
static bool share_face(int a, int b, const int faces[6][4])
{
    for (int f = 0; f < 6; f++) {
        int in = 0;
        for (int k = 0; k < 4; k++) {
            int e = edge_of(faces[f][k], faces[f][(k + 1) % 4]);
            in += (e == a) + (e == b);
        }
        if (in == 2)
            return true;
    }
    return false;
}

/* Fills the table. On each face (corners counter-clockwise seen from
 * outside the cube), every run of consecutive inside corners gives a
 * segment from the edge where the run starts to the edge where it ends; the
 * segments chain into loops, each cut in a fan of triangles. Returns false
 * when a mask does not close (not expected: a bug). */
static bool build_table(int8_t table[256][3 * SFS_MAX_TRI + 1])
{
    int faces[6][4];
    for (int d = 0; d < 3; d++) {
        int u = (d + 1) % 3, v = (d + 2) % 3; /* u x v = +d */
        static const int cu[4] = {0, 1, 1, 0}, cv[4] = {0, 0, 1, 1};
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 4; k++) {
                int kk = s ? k : 3 - k; /* the face at 0 looks along -d: reversed */
                faces[2 * d + s][k] = s << d | cu[kk] << u | cv[kk] << v;
            }
    }
    for (int mask = 0; mask < 256; mask++) {
        int next[12];
        for (int e = 0; e < 12; e++)
            next[e] = -1;
        for (int f = 0; f < 6; f++) {
            const int *c = faces[f];
            for (int k = 0; k < 4; k++) {
                int prev = c[(k + 3) % 4];
                if (!(mask >> c[k] & 1) || (mask >> prev & 1))
                    continue; /* c[k] does not start a run */
                int j = k;
                while (mask >> c[(j + 1) % 4] & 1)
                    j = (j + 1) % 4;
                int from = edge_of(prev, c[k]), to = edge_of(c[j], c[(j + 1) % 4]);
                if (next[from] >= 0)
                    return false;
                next[from] = to;
            }
        }
        int n = 0;
        bool seen[12] = {false};
        for (int e0 = 0; e0 < 12; e0++) {
            if (next[e0] < 0 || seen[e0])
                continue;
            int loop[12], len = 0;
            for (int e = e0; !seen[e]; e = next[e]) {
                if (next[e] < 0 || len == 12)
                    return false;
                seen[e] = true;
                loop[len++] = e;
            }
            if (len < 3)
                return false;
            /* Cut ears whose new side crosses the cube: a side between two
             * points of one face would lie in that face, where the
             * neighbouring cube may draw it too. */
            while (len >= 3) {
                int k = 0;
                while (k < len && len > 3 &&
                       share_face(loop[(k + len - 1) % len], loop[(k + 1) % len], faces))
                    k++;
                if (k == len || n + 3 > 3 * SFS_MAX_TRI)
                    return false;
                table[mask][n++] = (int8_t)loop[(k + len - 1) % len];
                table[mask][n++] = (int8_t)loop[k];
                table[mask][n++] = (int8_t)loop[(k + 1) % len];
                memmove(loop + k, loop + k + 1, (size_t)(len - k - 1) * sizeof *loop);
                len--;
                if (len < 3)
                    break;
            }
        }
        table[mask][n] = -1;
    }
    return true;
}

/* ---- the sparse grid ---- */

static int floor_div(int x) { return x >= 0 ? x / SFS_B : -((-x - 1) / SFS_B) - 1; }

static size_t key_hash(int x, int y, int z, size_t size)
{
    uint64_t h = (uint64_t)(uint32_t)x * 73856093u ^ (uint64_t)(uint32_t)y * 19349663u ^
                 (uint64_t)(uint32_t)z * 83492791u;
    h ^= h >> 17;
    h *= 0xed5a2c3b9f1e7d45ull;
    h ^= h >> 29;
    return (size_t)h & (size - 1);
}

/* The block at key (x, y, z), or NULL. */
static sfs_block *block_find(const sfs_mapping *m, int x, int y, int z)
{
    if (!m->hash_size)
        return NULL;
    for (size_t i = key_hash(x, y, z, m->hash_size);; i = (i + 1) & (m->hash_size - 1)) {
        int b = m->hash[i];
        if (!b)
            return NULL;
        sfs_block *k = &m->blocks[b - 1];
        if (k->key[0] == x && k->key[1] == y && k->key[2] == z)
            return k;
    }
}

static bool hash_grow(sfs_mapping *m)
{
    size_t size = m->hash_size ? 2 * m->hash_size : 64;
    int *h = st_calloc(size, sizeof *h);
    if (!h)
        return false;
    st_free(m->hash);
    m->hash = h;
    m->hash_size = size;
    for (size_t b = 0; b < m->nblocks; b++) {
        const int *k = m->blocks[b].key;
        size_t i = key_hash(k[0], k[1], k[2], size);
        while (h[i])
            i = (i + 1) & (size - 1);
        h[i] = (int)b + 1;
    }
    return true;
}

/* The block at key (x, y, z), made (field 0, no vertex) when missing; NULL
 * when out of memory. */
static sfs_block *block_get(sfs_mapping *m, int x, int y, int z)
{
    sfs_block *b = block_find(m, x, y, z);
    if (b)
        return b;
    if (2 * (m->nblocks + 1) > m->hash_size && !hash_grow(m))
        return NULL;
    if (m->nblocks == m->cap_blocks) {
        size_t cap = m->cap_blocks ? 2 * m->cap_blocks : 16;
        if (cap > (size_t)INT32_MAX / 2)
            return NULL;
        sfs_block *nb = st_realloc(m->blocks, cap * sizeof *nb);
        if (!nb)
            return NULL;
        m->blocks = nb;
        m->cap_blocks = cap;
    }
    b = &m->blocks[m->nblocks++];
    b->key[0] = x, b->key[1] = y, b->key[2] = z;
    memset(b->val, 0, sizeof b->val);
    memset(b->vtx, 0xff, sizeof b->vtx);
    size_t i = key_hash(x, y, z, m->hash_size);
    while (m->hash[i])
        i = (i + 1) & (m->hash_size - 1);
    m->hash[i] = (int)m->nblocks;
    return b;
}

static int node_index(int lx, int ly, int lz) { return (lz * SFS_B + ly) * SFS_B + lx; }

/* The block holding node (x, y, z) and the node's index in it, or NULL. */
static sfs_block *node_block(const sfs_mapping *m, int x, int y, int z, int *at)
{
    int bx = floor_div(x), by = floor_div(y), bz = floor_div(z);
    sfs_block *b = block_find(m, bx, by, bz);
    if (b)
        *at = node_index(x - bx * SFS_B, y - by * SFS_B, z - bz * SFS_B);
    return b;
}

/* F at node (x, y, z): 0 where no particle reaches. */
static double node_value(const sfs_mapping *m, int x, int y, int z)
{
    int at;
    const sfs_block *b = node_block(m, x, y, z, &at);
    return b ? b->val[at] : 0.0;
}

/* ---- building the surface ---- */

/* Adds particle p's contribution scale (1 - r^2/h^2)^3 to the nodes within
 * h, making the blocks of the nodes from one below the reach on each axis
 * (so that every cube and edge that crosses the surface starts in a block).
 * False when out of memory. */
static bool splat(sfs_mapping *m, const double *p, double scale)
{
    const double h = m->radius, h2 = h * h, step = m->step;
    int lo[3], hi[3];
    for (int d = 0; d < 3; d++) {
        lo[d] = (int)ceil((p[d] - h) / step) - 1;
        hi[d] = (int)floor((p[d] + h) / step);
    }
    for (int bz = floor_div(lo[2]); bz <= floor_div(hi[2]); bz++)
        for (int by = floor_div(lo[1]); by <= floor_div(hi[1]); by++)
            for (int bx = floor_div(lo[0]); bx <= floor_div(hi[0]); bx++) {
                sfs_block *b = block_get(m, bx, by, bz);
                if (!b)
                    return false;
                int o[3] = {bx * SFS_B, by * SFS_B, bz * SFS_B}, a[3], e[3];
                for (int d = 0; d < 3; d++) {
                    a[d] = lo[d] + 1 > o[d] ? lo[d] + 1 - o[d] : 0;
                    e[d] = hi[d] < o[d] + SFS_B - 1 ? hi[d] - o[d] : SFS_B - 1;
                }
                for (int z = a[2]; z <= e[2]; z++) {
                    double dz = (o[2] + z) * step - p[2];
                    for (int y = a[1]; y <= e[1]; y++) {
                        double dy = (o[1] + y) * step - p[1];
                        double rest = h2 - dy * dy - dz * dz;
                        if (rest <= 0)
                            continue;
                        /* the row's nodes within h, give or take one */
                        double reach = sqrt(rest);
                        int x0 = (int)ceil((p[0] - reach) / step) - 1 - o[0];
                        int x1 = (int)floor((p[0] + reach) / step) + 1 - o[0];
                        x0 = x0 > a[0] ? x0 : a[0];
                        x1 = x1 < e[0] ? x1 : e[0];
                        double *v = b->val + node_index(0, y, z);
                        for (int x = x0; x <= x1; x++) {
                            double dx = (o[0] + x) * step - p[0];
                            double r2 = dx * dx + dy * dy + dz * dz;
                            if (r2 < h2) {
                                double w = 1 - r2 / h2;
                                v[x] += w * w * w * scale;
                            }
                        }
                    }
                }
            }
    return true;
}

static bool reserve(void **p, size_t *cap, size_t need, size_t width)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? *cap : 1024;
    while (c < need)
        c *= 2;
    void *q = st_realloc(*p, c * width);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

/* Minus the central-difference gradient of F at node n (not normalized). */
static void outward(const sfs_mapping *m, const int n[3], double g[3])
{
    for (int d = 0; d < 3; d++) {
        int a[3] = {n[0], n[1], n[2]}, b[3] = {n[0], n[1], n[2]};
        a[d]++, b[d]--;
        g[d] = node_value(m, b[0], b[1], b[2]) - node_value(m, a[0], a[1], a[2]);
    }
}

/* The vertex on the edge from node n along axis d (F: v0 at n, v1 at the
 * other end). False when out of memory. */
static bool add_vertex(sfs_mapping *m, const int n[3], int d, double v0, double v1, int *out)
{
    if (m->nv >= (size_t)INT32_MAX ||
        !reserve((void **)&m->pos, &m->cap_v, m->nv + 1, 3 * sizeof(double)) ||
        !reserve((void **)&m->nrm, &m->cap_n, m->nv + 1, 3 * sizeof(double)))
        return false;
    double t = (m->iso_value - v0) / (v1 - v0);
    double *x = m->pos + 3 * m->nv, *g = m->nrm + 3 * m->nv;
    for (int k = 0; k < 3; k++)
        x[k] = (n[k] + (k == d ? t : 0.0)) * m->step;
    int n1[3] = {n[0], n[1], n[2]};
    n1[d]++;
    double g0[3], g1[3];
    outward(m, n, g0);
    outward(m, n1, g1);
    double l = 0;
    for (int k = 0; k < 3; k++) {
        g[k] = g0[k] + (g1[k] - g0[k]) * t;
        l += g[k] * g[k];
    }
    l = sqrt(l);
    if (l > 0)
        for (int k = 0; k < 3; k++)
            g[k] /= l;
    *out = (int)m->nv++;
    return true;
}

/* The block and its neighbours one key up along x, y, z and their
 * combinations: nb[bits], bit d set for +1 along axis d (NULL: none).
 * Returns whether one of them has a node inside. */
static bool neighbourhood(const sfs_mapping *m, sfs_block *b, sfs_block *nb[8])
{
    bool inside = false;
    for (int c = 0; c < 8; c++) {
        nb[c] = c ? block_find(m, b->key[0] + (c & 1), b->key[1] + (c >> 1 & 1),
                               b->key[2] + (c >> 2 & 1))
                  : b;
        inside = inside || (nb[c] && nb[c]->inside);
    }
    return inside;
}

/* Node (x, y, z) of block nb[0], each coordinate in 0..8 (8: the next
 * block's first): its block, and its index there in *at. */
static sfs_block *near_node(sfs_block *const nb[8], int x, int y, int z, int *at)
{
    *at = node_index(x & (SFS_B - 1), y & (SFS_B - 1), z & (SFS_B - 1));
    return nb[(x >> 3) | (y >> 3) << 1 | (z >> 3) << 2];
}

/* Vertices: one on each edge whose ends are on either side. */
static bool make_vertices(sfs_mapping *m)
{
    const double iso = m->iso_value;
    sfs_block *nb[8];
    for (size_t bi = 0; bi < m->nblocks; bi++) {
        if (!neighbourhood(m, &m->blocks[bi], nb))
            continue; /* no node inside: no edge crosses */
        for (int z = 0; z < SFS_B; z++)
            for (int y = 0; y < SFS_B; y++)
                for (int x = 0; x < SFS_B; x++) {
                    sfs_block *b = nb[0];
                    int at = node_index(x, y, z);
                    int n[3] = {b->key[0] * SFS_B + x, b->key[1] * SFS_B + y,
                                b->key[2] * SFS_B + z};
                    double v0 = b->val[at];
                    for (int d = 0; d < 3; d++) {
                        int at1;
                        const sfs_block *b1 =
                            near_node(nb, x + (d == 0), y + (d == 1), z + (d == 2), &at1);
                        double v1 = b1 ? b1->val[at1] : 0.0;
                        if ((v0 > iso) != (v1 > iso)) {
                            int v;
                            if (!add_vertex(m, n, d, v0, v1, &v))
                                return false;
                            b->vtx[at][d] = v; /* no block is made here: b stays */
                        }
                    }
                }
    }
    return true;
}

/* Triangles: each cube whose corners are not all on one side. */
static bool make_triangles(sfs_mapping *m)
{
    const double iso = m->iso_value;
    bool open = false;
    sfs_block *nb[8];
    uint8_t in[SFS_B + 1][SFS_B + 1][SFS_B + 1];
    for (size_t bi = 0; bi < m->nblocks; bi++) {
        if (!neighbourhood(m, &m->blocks[bi], nb))
            continue;
        /* the nodes' sides, read once: the block's and the next layer */
        for (int z = 0; z <= SFS_B; z++)
            for (int y = 0; y <= SFS_B; y++)
                for (int x = 0; x <= SFS_B; x++) {
                    int at;
                    const sfs_block *cb = near_node(nb, x, y, z, &at);
                    in[z][y][x] = cb && cb->val[at] > iso;
                }
        for (int z = 0; z < SFS_B; z++)
            for (int y = 0; y < SFS_B; y++)
                for (int x = 0; x < SFS_B; x++) {
                    int mask = 0;
                    for (int c = 0; c < 8; c++)
                        mask |= in[z + (c >> 2 & 1)][y + (c >> 1 & 1)][x + (c & 1)] << c;
                    if (mask == 0 || mask == 255)
                        continue;
                    for (const int8_t *t = m->table[mask]; t[0] >= 0; t += 3) {
                        unsigned f[3];
                        bool ok = true;
                        for (int k = 0; k < 3; k++) {
                            int e = t[k], c = edge_from[e], at;
                            const sfs_block *eb = near_node(nb, x + (c & 1), y + (c >> 1 & 1),
                                                            z + (c >> 2 & 1), &at);
                            int v = eb ? eb->vtx[at][e / 4] : -1;
                            ok = ok && v >= 0;
                            f[k] = (unsigned)v;
                        }
                        if (!ok) {
                            open = true;
                            continue;
                        }
                        if (!reserve((void **)&m->tri, &m->cap_t, m->nt + 1, 3 * sizeof(unsigned)))
                            return false;
                        memcpy(m->tri + 3 * m->nt++, f, sizeof f);
                    }
                }
    }
    if (open && !m->warned_open) {
        m->warned_open = true;
        st_component_warn(&m->h.base, "a cube of the grid had no vertex on a crossing edge: "
                                      "the surface has a hole (a bug; please report)");
    }
    return true;
}

/* The field's scale of particle i: 1 / rho_i with the force field. */
static double particle_scale(const sfs_mapping *m, const double *rho, size_t nrho, size_t i)
{
    if (!m->sph)
        return 1.0;
    return i < nrho && rho[i] != 0 ? 1.0 / rho[i] : 0.0;
}

/* Rebuilds the surface of the n particles at x (3 x n) into pos, nrm and
 * tri. False when out of memory. */
static bool build_surface(sfs_mapping *m, const double *x, size_t n)
{
    m->nblocks = m->nv = m->nt = 0;
    if (m->hash)
        memset(m->hash, 0, m->hash_size * sizeof *m->hash);
    size_t nrho = 0;
    const double *rho = m->sph ? sph_fluid_densities(m->sph, &nrho) : NULL;
    /* nodes beyond int range: such a particle is left out (with a warning) */
    const double limit = (double)INT32_MAX / 2;
    for (size_t i = 0; i < n; i++) {
        const double *p = x + 3 * i;
        bool far = false;
        for (int d = 0; d < 3; d++)
            far = far || !(fabs(p[d] / m->step) + m->radius / m->step < limit);
        if (far) {
            if (!m->warned_far) {
                m->warned_far = true;
                st_component_warn(&m->h.base,
                                  "particle %zu at (%g %g %g) is too far from the origin for a "
                                  "grid of step %g (or not finite): left out of the surface",
                                  i, p[0], p[1], p[2], m->step);
            }
            continue;
        }
        if (!splat(m, p, particle_scale(m, rho, nrho, i)))
            return false;
    }
    for (size_t bi = 0; bi < m->nblocks; bi++) {
        sfs_block *b = &m->blocks[bi];
        b->inside = false;
        for (int k = 0; k < SFS_BN && !b->inside; k++)
            b->inside = b->val[k] > m->iso_value;
    }
    return make_vertices(m) && make_triangles(m);
}

/* Writes pos, nrm and tri into the visual model. */
static bool commit(sfs_mapping *m)
{
    st_error err = {0};
    if (st_array_resize(m->h.visual_pos, ST_T_VEC3S, m->nv, &err) != ST_OK ||
        st_array_resize(m->normals, ST_T_VEC3S, m->nv, &err) != ST_OK ||
        st_array_resize(m->tris, ST_T_TRIANGLES, m->nt, &err) != ST_OK)
        return false;
    if (m->nv) {
        memcpy(m->h.visual_pos->r, m->pos, 3 * m->nv * sizeof(double));
        memcpy(m->normals->r, m->nrm, 3 * m->nv * sizeof(double));
    }
    if (m->nt)
        memcpy(m->tris->u, m->tri, 3 * m->nt * sizeof(unsigned));
    map_head_touch_visual(&m->h);
    st_component_touch(m->h.output, m->f_normals);
    st_component_touch(m->h.output, m->f_tris);
    return true;
}

static bool update(sfs_mapping *m, const double *x, size_t n)
{
    if (build_surface(m, x, n) && commit(m))
        return true;
    m->nv = m->nt = 0;
    (void)commit(m); /* shrinking does not allocate */
    return false;
}

/* Particles added or removed (ParticleSource, ParticleSink): nothing is
 * indexed by them between steps, the next apply reads the new state. */
static st_status sfs_changed(st_component *self, st_component *topology, const st_topo_event *ev,
                             size_t nev, st_error *err)
{
    (void)self, (void)topology, (void)ev, (void)nev, (void)err;
    return ST_OK;
}

static st_status sfs_init(st_component *self, st_error *err)
{
    sfs_mapping *m = (sfs_mapping *)self;
    map_head *h = &m->h;
    self->state = ST_CSTATE_INVALID;
    if (!m->listening) {
        ST_TRY(st_listen_topologies_above(self, sfs_changed, err));
        m->listening = true;
    }
    if (!(m->step > 0) || !isfinite(m->step))
        return st_component_error(self, "step", err, ST_ESCENE,
                                  "the grid step must be > 0 (got %g)", m->step);
    if (!(m->radius > 0) || !isfinite(m->radius))
        return st_component_error(self, "radius", err, ST_ESCENE,
                                  "the radius must be > 0 (got %g)", m->radius);
    if (m->radius / m->step > 64)
        return st_component_error(self, "radius", err, ST_ESCENE,
                                  "radius / step = %g: more than 64 grid steps per radius (each "
                                  "particle would reach over a million nodes); take a larger step",
                                  m->radius / m->step);
    ST_TRY(map_head_bind(h, &st_vec3d_type, NULL, err));
    if (!h->visual)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the surface's size changes at each step: output must be a "
                                  "visual model (an OglModel), not the MechanicalObject '%s'",
                                  h->output->name);
    if (!h->visual_pos)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the visual model '%s' has no position to write",
                                  h->output->name);
    m->f_tris = st_component_field(h->output, "triangles");
    m->f_normals = st_component_field(h->output, "normal");
    if (!m->f_tris || m->f_tris->type != ST_T_TRIANGLES || !m->f_normals ||
        m->f_normals->type != ST_T_VEC3S)
        return st_component_error(self, "output", err, ST_ESCENE,
                                  "the visual model '%s' (%s) has no triangles and normal to write",
                                  h->output->name, h->output->cls->name);
    m->tris = st_component_field_ptr(h->output, m->f_tris);
    m->normals = st_component_field_ptr(h->output, m->f_normals);
    /* The model's faces are the surface's triangles only (SOFA's model reads
     * them from the mapping, its topology): quads it took from a topology
     * above (a particle grid) go. */
    const st_field *fq = st_component_field(h->output, "quads");
    if (fq && fq->type == ST_T_QUADS) {
        st_array *q = st_component_field_ptr(h->output, fq);
        if (q->n) {
            ST_TRY(st_array_resize(q, ST_T_QUADS, 0, err));
            st_component_touch(h->output, fq);
        }
    }
    /* SOFA: the SPHFluidForceField of the input's node (not above it). */
    m->sph = NULL;
    st_node *in_node = h->in->base.node;
    for (size_t i = 0; in_node && i < st_node_object_count(in_node) && !m->sph; i++) {
        st_component *c = st_node_object(in_node, i);
        if (c->cls == &sph_fluid_force_field_class && sph_fluid_state(c) == h->in)
            m->sph = c;
    }
    if (m->sph && m->iso_value == 0.5) {
        double hh = m->radius, c = 315 / (64 * M_PI * hh * hh * hh);
        m->iso_value /= c * sph_fluid_particle_mass(m->sph);
        st_component_touch(self, st_component_field(self, "isoValue"));
    }
    if (!(m->iso_value > 0) || !isfinite(m->iso_value))
        return st_component_error(self, "isoValue", err, ST_ESCENE,
                                  "the iso value must be > 0 (got %g): the field is 0 away from "
                                  "the particles, so the surface would not close",
                                  m->iso_value);
    if (!build_table(m->table))
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "internal error: the marching-cubes table does not close");
    if (!update(m, h->in->position.r, h->in->position.n))
        return st_component_error(self, NULL, err, ST_ENOMEM,
                                  "out of memory building the surface of %zu particles",
                                  h->in->position.n);
    m->failed = false;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void sfs_apply(st_component *self, const st_mparams *mp, double *x)
{
    (void)mp;
    sfs_mapping *m = (sfs_mapping *)self;
    if (self->state != ST_CSTATE_VALID)
        return;
    if (!update(m, st_slice_x(x, m->h.in), m->h.in->n) && !m->failed) {
        m->failed = true;
        st_component_warn(self, "out of memory building the surface of %zu particles: the "
                                "visual model is left empty",
                          m->h.in->n);
    }
}

static void sfs_cleanup(st_component *self)
{
    sfs_mapping *m = (sfs_mapping *)self;
    st_free(m->blocks);
    st_free(m->hash);
    st_free(m->pos);
    st_free(m->nrm);
    st_free(m->tri);
    m->blocks = NULL;
    m->hash = NULL;
    m->pos = m->nrm = NULL;
    m->tri = NULL;
    m->nblocks = m->cap_blocks = m->hash_size = m->nv = m->cap_v = m->cap_n = m->nt = m->cap_t = 0;
    map_head_release(&m->h);
}

static const st_mapping_ops sfs_ops = {
    .struct_size = sizeof(st_mapping_ops),
    .input = map_head_input,
    .output = map_head_output,
    .apply = sfs_apply,
    .flags = map_head_flags,
};

static const char *const sfs_templates[] = {"Vec3d", NULL};

const st_class sph_fluid_surface_mapping_class = {
    .struct_size = sizeof(st_class),
    .name = "SPHFluidSurfaceMapping",
    .category = "Mapping",
    .description = "SPHFluidSurfaceMapping: the iso-surface of the particles' colour field "
                   "(marching cubes on a grid of the given step), written into a visual model "
                   "after each step",
    .instance_size = sizeof(sfs_mapping),
    .fields = sfs_fields,
    .init = sfs_init,
    .reinit = sfs_init,
    .cleanup = sfs_cleanup,
    .mapping = &sfs_ops,
    .templates = sfs_templates,
};
