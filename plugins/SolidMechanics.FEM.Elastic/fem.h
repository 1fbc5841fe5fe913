/* fem.h - what the elastic FEM force fields share: access to the state
 * vectors and the matrix (the only places that know the kernel's vector
 * and block layout), small dense 3x3 algebra, SOFA's polar decomposition,
 * material checks and the topology lookup. Internal to the plugin. */
#ifndef SETTEE_PLUGIN_FEM_H
#define SETTEE_PLUGIN_FEM_H

#include <settee/settee.h>

/* ---- State vectors and matrix blocks (adapt here when the ABI changes) ---- */

/* The state's coordinates (x) or derivatives (v, f, dx, df) inside a global
 * vector, 3 doubles per vertex (the class is Vec3d only). */
static inline const double *fem_coords(const double *vec, const st_mstate *ms)
{
    return st_slice_x(vec, ms);
}
static inline double *fem_derivs(double *vec, const st_mstate *ms)
{
    return st_slice(vec, ms);
}
/* A derivative vector read only (dx): its offset is the derivatives', which
 * differs from the coordinates' when a Rigid3d state comes first. */
static inline const double *fem_dx(const double *vec, const st_mstate *ms)
{
    return st_slice(vec, ms);
}
/* m(row vertex a, column vertex b) += b3 (3x3, row-major); a, b local to ms. */
static inline void fem_add_block(st_matrix *m, const st_mstate *ms, unsigned a, unsigned b,
                                 const double b3[9])
{
    st_matrix_add_block(m, ms, a, ms, b, b3);
}

/* ---- 3x3 algebra, row-major double[9] ---- */

static inline double fem_det3(const double m[9]) { return st_m3_det(m); }
static inline void fem_transpose3(double t[9], const double m[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            t[3 * i + j] = m[3 * j + i];
}
/* r = a b */
static inline void fem_mul3(double r[9], const double a[9], const double b[9])
{
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            r[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}
/* y = m x */
static inline void fem_mulv3(double y[3], const double m[9], const double x[3])
{
    for (int i = 0; i < 3; i++)
        y[i] = m[3 * i] * x[0] + m[3 * i + 1] * x[1] + m[3 * i + 2] * x[2];
}
static inline void fem_cross(double r[3], const double a[3], const double b[3])
{
    r[0] = a[1] * b[2] - a[2] * b[1];
    r[1] = a[2] * b[0] - a[0] * b[2];
    r[2] = a[0] * b[1] - a[1] * b[0];
}
/* SOFA's Vec::normalize: divides by the norm when it exceeds DBL_EPSILON,
 * else leaves v unchanged. */
void fem_normalize(double v[3]);
/* Inverse of m; false when singular. */
bool fem_invert3(double inv[9], const double m[9]);
/* Inverse of a 4x4 matrix (row-major) by Gauss-Jordan with partial
 * pivoting; false when singular. */
bool fem_invert4(double inv[16], const double m[16]);

/* SOFA's polar decomposition (Higham's scaled Newton iteration on the
 * transpose, stopping at a relative one-norm step of 1e-8): q is the
 * orthogonal factor of m. Returns the last determinant. */
double fem_polar(const double m[9], double q[9]);
/* Orthogonal factor of m by singular value decomposition, a proper
 * rotation even when m is inverted or degenerate (U V^T with the smallest
 * singular direction flipped when det m < 0). Used where SOFA calls its
 * stable SVD polar decomposition. */
void fem_polar_stable(const double m[9], double q[9]);

/* SOFA's "large" frame of the points a, b, c (computeRotationLarge of its
 * tetrahedra and triangles): x along b - a, z normal to the plane, y
 * completing. Rows of r are the axes (r maps world to local). */
void fem_rotation_large(double r[9], const double *pa, const double *pb, const double *pc);
/* The same frame from the directions x (the x axis) and y (in the xy
 * plane). */
void fem_frame(double r[9], const double *x, const double *y);
/* SOFA's triangle computeStrainDisplacementLocal: the 6x3 strain-
 * displacement matrix (rows: a.x a.y b.x b.y c.x c.y; columns: xx yy xy) of
 * a triangle with a at the origin, b = (xb, *, *), c = (xc, yc, *); false,
 * J untouched, when xb yc is below DBL_EPSILON in magnitude. */
bool fem_tri_strain_local(double J[6][3], const double *b, const double *c);

/* The 3x3 blocks b[n1][n2] = scale R2 (J K J^T)(n1, n2) R2^T of a membrane
 * triangle: J 6x3 strain-displacement, K 3x3 material, R2 the first two
 * columns of R (element frame to world). */
void fem_tri_stiffness_blocks(const double J[6][3], const double K[9], const double R[9],
                              double scale, double b[3][3][9]);

/* In-plane components of R^T d at the three vertices v of a triangle
 * (X: a.x a.y b.x b.y c.x c.y), R element frame to world. */
static inline void fem_tri_gather(double X[6], const double R[9], const double *d,
                                  const unsigned v[3])
{
    for (int k = 0; k < 3; k++) {
        const double *dk = d + 3 * v[k];
        for (int c = 0; c < 2; c++)
            X[2 * k + c] = R[c] * dk[0] + R[3 + c] * dk[1] + R[6 + c] * dk[2];
    }
}
/* out[v[k]] += scale R (F[2k], F[2k+1], 0). */
static inline void fem_tri_scatter(double *out, const double R[9], const double F[6],
                                   const unsigned v[3], double scale)
{
    for (int k = 0; k < 3; k++) {
        double *o = out + 3 * v[k];
        for (int c = 0; c < 3; c++)
            o[c] += scale * (R[3 * c] * F[2 * k] + R[3 * c + 1] * F[2 * k + 1]);
    }
}

/* ---- Per-vertex rotations (SOFA's rotation finders, ../shared/rotation_finder.h) ---- */

/* acc[9 v[k] ..] += q for the nv vertices of an element: q is the element's
 * rotation from rest to current (world to world). Clear acc first. */
void fem_rotation_add(double *acc, const unsigned *v, int nv, const double q[9]);
/* Each vertex's sum of element rotations turned into a rotation, in place:
 * the orthogonal factor of the mean (SOFA's TetrahedronFEMForceField and
 * HexahedronFEMForceField getRotation: polar decomposition), or with
 * gram_schmidt the rows of the mean normalized, z = x cross y, y = z cross
 * x (TetrahedralCorotationalFEMForceField's). Both are unchanged by the
 * mean's scale, so the sum is used as it is. A vertex of no element gets
 * the identity. */
void fem_rotation_finish(double *acc, size_t np, bool gram_schmidt);
/* Every vertex's rotation the identity (method small). */
void fem_rotation_identity(double *acc, size_t np);
/* Starts the per-vertex rotations of np vertices: with method small every
 * one is the identity (as in SOFA) and the result is false (done);
 * otherwise acc is cleared for fem_rotation_add and the result is true. */
bool fem_rotation_begin(double *acc, size_t np, bool small);

/* ---- Materials and topology ---- */

/* SOFA's getYoungModulusInElement / getPoissonRatioInElement: element i's
 * value, the first one when the list is shorter, def when empty. */
double fem_value_in_element(const st_array *a, size_t i, double def);
/* SOFA's checks: a Poisson ratio outside [0, 0.5) becomes 0.45 and a
 * negative Young modulus 5000, with a warning. An empty list gets the
 * default value. */
st_status fem_check_material(st_component *self, st_array *young, st_array *poisson,
                             st_error *err);

/* The topology the force field reads: its "topology" link, else SOFA's
 * context topology, the last topology of its node (SOFA's node keeps one,
 * the last added), else of the nearest ancestor that has one. Error when
 * none. */
st_status fem_find_topology(st_component *self, st_component **topo, st_error *err);
/* The start of every FEM init: the material checked (fem_check_material),
 * the state the force field acts on (error when the node has none) and
 * its topology (fem_find_topology). */
st_status fem_bind(st_component *self, st_array *young, st_array *poisson, st_mstate **ms,
                   st_component **topo, st_error *err);
/* The index of method in names[0..n), or -1. */
int fem_method_index(const char *method, const char *const *names, int n);

/* The element list of a kind (NULL when absent or empty). */
const st_array *fem_elements(st_component *topo, st_type kind);
/* Resolution minus one along x and y of a grid topology (SOFA's
 * getNx() - 1, getNy() - 1); 2 and 1 when topo is not a grid. */
void fem_grid_cells(st_component *topo, int *nx, int *ny);
/* Checks that every vertex index of a list exists in the state. */
st_status fem_check_indices(st_component *self, const unsigned *idx, size_t n, unsigned width,
                            size_t npoints, const char *what, st_error *err);

/* ---- Topological changes (settee/topology.h) ---- */


/* After a change: the vertex indices of ne elements (items of size bytes,
 * nv unsigned vertex indices first) re-read from the topology's list, which
 * the followed array matches element by element; an error when the counts
 * differ. */
st_status fem_reread_vertices(st_component *self, void *elems, size_t ne, size_t size,
                              const st_array *list, unsigned nv, st_error *err);
/* A per-element list of the component (youngModulus, poissonRatio, ...: a,
 * tuples of width doubles per element) follows the removals of elements of kind elem
 * when it holds one tuple per element (two elements or more): the last
 * element's value moves into the hole, as the element's data do. A shorter
 * list (one value for all) is left alone. */
void fem_follow_list(st_component *self, const char *field, st_array *a, size_t tuples,
                     size_t width, st_elem elem, const st_topo_event *ev, size_t nev);
/* The rotation finder's output (9 per vertex, when requested) resized to
 * np vertices after points were removed (new ones the identity). */
void fem_follow_rotations(st_array *rot, size_t np);

/* ---- Data shared by the force fields ---- */

#define FEM_DEFAULT_YOUNG 5000.0
#define FEM_DEFAULT_POISSON 0.45

/* SOFA's ForceField data and BaseLinearElasticityFEMForceField data. */
#define FEM_F_RAYLEIGH(S)                                                                         \
    ST_REAL(S, rayleigh_stiffness, "rayleighStiffness", "0",                                      \
            "Rayleigh damping coefficient related to stiffness, > 0")
#define FEM_F_MATERIAL(S)                                                                         \
    ST_REALS(S, poisson_ratio, "poissonRatio", "0.45", "FEM Poisson Ratio in Hooke's law [0,0.5["), \
        ST_REALS(S, young_modulus, "youngModulus", "5000", "FEM Young's Modulus in Hooke's law")
/* SOFA's drawing and drawColor1..4 (ignored: no rendering here). */
#define FEM_F_DRAW_COLORS(S, drawing, colors)                                                     \
    ST_IGNORED(S, drawing, "drawing", ST_T_BOOL, bool, "true", " draw the forcefield if true"),   \
        ST_IGNORED(S, colors[0], "drawColor1", ST_T_RGBA, st_vec4, "0 0 1 1",                     \
                   " draw color for faces 1"),                                                    \
        ST_IGNORED(S, colors[1], "drawColor2", ST_T_RGBA, st_vec4, "0 0.5 1 1",                   \
                   " draw color for faces 2"),                                                    \
        ST_IGNORED(S, colors[2], "drawColor3", ST_T_RGBA, st_vec4, "0 1 1 1",                     \
                   " draw color for faces 3"),                                                    \
        ST_IGNORED(S, colors[3], "drawColor4", ST_T_RGBA, st_vec4, "0.5 1 1 1",                   \
                   " draw color for faces 4")
#define FEM_F_TOPOLOGY(S)                                                                         \
    ST_LINK(S, topology, "topology", ST_LINK_TOPOLOGY,                                            \
            "link to the topology container (default: the first topology found upward)")

/* ---- The assembled stiffness of an element force field ---- */

/* K (df/dx) of a force field as 3x3 blocks over its state's vertices, rows
 * in CSR order with each row's columns ascending, assembled from the
 * element blocks once per add_force, and then used by add_dforce in place of
 * the element loop. A product costs a fraction of the element loop's
 * (tetrahedra: about 3 blocks per element against the rotations and the
 * strain of every element; hexahedra: about 32 against a dense 24 x 24);
 * the assembly costs a few element loops, so it is made only when the
 * running linear solve announces at least FEM_BSR_MIN_CALLS products
 * (st_mparams.dforce_calls: CGLinearSolver's iteration cap). The products
 * then differ from the element loop's at round-off only. */
typedef struct fem_bsr {
    size_t n;        /* block rows: the state's vertices */
    size_t *row;     /* n + 1 */
    unsigned *col;   /* the blocks' columns */
    double *val;     /* 9 per block, row-major */
    unsigned *slot;  /* ne x nv x nv: the block of element e's vertex pair (i, j) */
    size_t ne;       /* elements the pattern was built for */
    unsigned nv;     /* vertices per element */
    bool pattern;    /* row, col and slot describe the current elements */
    bool valid;      /* val holds K at the last add_force */
    bool part;       /* a part of a parallel assembly: fem_bsr_add_part, not _add_pair */
    size_t lo, hi;   /* the blocks of the part's rows */
    bool eager;      /* assemble inside add_force's element loop (fem_bsr_eager_begin) */
    bool claimed;    /* an add_dforce took the values since they were assembled */
} fem_bsr;

enum { FEM_BSR_MIN_CALLS = 8 };

/* Whether add_dforce should use the assembled K: it is valid, or the solve
 * announces enough products to assemble it now. */
static inline bool fem_bsr_wanted(const fem_bsr *b, const st_mparams *mp)
{
    return b->valid || mp->dforce_calls >= FEM_BSR_MIN_CALLS;
}
/* The pattern of ne elements of nv vertices (vertex k of element e at
 * verts[e * stride + k], stride in unsigned) over n vertices, when it is not
 * built yet (once; again after fem_bsr_forget); then the values are zeroed
 * for fem_bsr_add_pair. On failure (out of memory)
 * b stays unusable and add_dforce keeps the element loop. */
st_status fem_bsr_begin(fem_bsr *b, size_t n, const unsigned *verts, size_t stride, size_t ne,
                        unsigned nv, st_error *err);
/* val(e's vertex pair i, j) += blk (3x3 row-major) and, when i != j,
 * val(j, i) += blk^T. */
static inline void fem_bsr_add_pair(fem_bsr *b, size_t e, unsigned i, unsigned j,
                                    const double blk[9])
{
    const size_t base = e * b->nv * b->nv;
    double *restrict v = b->val + 9 * (size_t)b->slot[base + i * b->nv + j];
    if (i == j) {
        for (int k = 0; k < 9; k++)
            v[k] += blk[k];
        return;
    }
    double *restrict w = b->val + 9 * (size_t)b->slot[base + j * b->nv + i];
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            v[3 * r + c] += blk[3 * r + c];
            w[3 * c + r] += blk[3 * r + c];
        }
}
/* fem_bsr_add_pair limited to the blocks [lo, hi) of a part (b->part); a
 * separate function so that the sequential assembly has no test. */
static inline void fem_bsr_add_part(fem_bsr *b, size_t e, unsigned i, unsigned j,
                                    const double blk[9])
{
    const size_t base = e * b->nv * b->nv, lo = b->lo, span = b->hi - b->lo;
    const size_t s = b->slot[base + i * b->nv + j], t = b->slot[base + j * b->nv + i];
    if (s - lo < span) {
        double *v = b->val + 9 * s;
        for (int k = 0; k < 9; k++)
            v[k] += blk[k];
    }
    if (i == j || t - lo >= span)
        return;
    double *w = b->val + 9 * t;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++)
            w[3 * c + r] += blk[3 * r + c];
}
/* Eager assembly: once a lazy assembly has been used, the next add_force
 * assembles each element's blocks right after its force, while the element
 * is in cache (the assembly re-read every element record: a third of its
 * time). True when add_force should do so (the values are zeroed); then
 * fem_bsr_eager_end marks them valid. add_dforce takes them exactly when it
 * would have assembled them (fem_bsr_assembled), so that the products, and
 * the results, are those of the lazy assembly; an eager assembly no
 * add_dforce took turns the mode off again. */
bool fem_bsr_eager_begin(fem_bsr *b, size_t n, const unsigned *verts, size_t stride, size_t ne,
                         unsigned nv);
static inline void fem_bsr_eager_end(fem_bsr *b)
{
    b->valid = true;
    b->claimed = false;
}
/* Runs task(ctx, part, nparts) for every part on a pool of threads and
 * returns when all are done (the MultiThreading twins' mt_pool_run). */
typedef struct fem_bsr_pool {
    void (*run)(void *pool, void (*task)(void *ctx, unsigned part, unsigned nparts), void *ctx);
    void *pool;
} fem_bsr_pool;

/* b when valid; else, when fem_bsr_wanted, b assembled now over the ne
 * elements (fem_bsr_begin's arguments) by element(b, e, ctx) for each e in
 * order, then valid; else NULL (the element loop). With a pool (else NULL)
 * the rows are split among its parts: each part zeroes its rows and adds
 * the blocks of its rows from every element that has a vertex among them,
 * in element order, so each block is the same sum as on one thread (the
 * elements across two parts are computed by both). */
const fem_bsr *fem_bsr_assembled(fem_bsr *b, const st_mparams *mp, size_t n,
                                 const unsigned *verts, size_t stride, size_t ne, unsigned nv,
                                 void (*element)(fem_bsr *b, size_t e, const void *ctx),
                                 const void *ctx, const fem_bsr_pool *pool);
/* df -= kfactor K dx over block rows [r0, r1) (each row a sum in column
 * order: the same bits whatever the split into row ranges). */
void fem_bsr_mul_sub(const fem_bsr *b, double *df, const double *dx, double kfactor, size_t r0,
                     size_t r1);
/* The elements changed: the pattern is rebuilt at the next assembly. */
void fem_bsr_forget(fem_bsr *b);
void fem_bsr_free(fem_bsr *b);

extern const st_class tetrahedron_fem_force_field_class;
extern const st_class hexahedron_fem_force_field_class;
extern const st_class hexahedron_fem_force_field_and_mass_class;
extern const st_class triangle_fem_force_field_class;
extern const st_class tetrahedral_corotational_fem_force_field_class;
extern const st_class triangular_fem_force_field_class;
extern const st_class triangular_fem_force_field_optim_class;
extern const st_class triangular_anisotropic_fem_force_field_class;
extern const st_class fast_tetrahedral_corotational_force_field_class;
extern const st_class quad_bending_fem_force_field_class;
extern const st_class beam_fem_force_field_class;

#endif
