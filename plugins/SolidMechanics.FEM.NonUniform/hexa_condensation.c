/* hexa_condensation.c - the condensation of fine voxels onto a coarse
 * hexahedron (see hexa_condensation.h). The recursive variant walks the
 * voxels' octree indices (per level from the coarsest, 3 bits: x, y, z),
 * sorted, so each octant is a contiguous range. */
#include <settee/alloc.h>
#include <stdlib.h>
#include <string.h>

#include "hexa_condensation.h"

static const int corner[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                 {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

void hcond_interpolation(double w[8][8], const int o[3], int level)
{
    const double s = (double)(1 << level);
    for (int k = 0; k < 8; k++) {
        double t[3];
        for (int a = 0; a < 3; a++)
            t[a] = (o[a] + corner[k][a]) / s;
        for (int j = 0; j < 8; j++) {
            double p = 1.0;
            for (int a = 0; a < 3; a++)
                p *= corner[j][a] ? t[a] : 1.0 - t[a];
            w[k][j] = p;
        }
    }
}

void hcond_add(double coarse[24][24], const double fine[24][24], const double w[8][8])
{
    double FP[24][24]; /* fine P */
    for (int r = 0; r < 24; r++)
        for (int j = 0; j < 8; j++)
            for (int y = 0; y < 3; y++) {
                double acc = 0;
                for (int m = 0; m < 8; m++)
                    acc += fine[r][3 * m + y] * w[m][j];
                FP[r][3 * j + y] = acc;
            }
    for (int j = 0; j < 8; j++)
        for (int x = 0; x < 3; x++)
            for (int c = 0; c < 24; c++) {
                double acc = 0;
                for (int k = 0; k < 8; k++)
                    acc += w[k][j] * FP[3 * k + x][c];
                coarse[3 * j + x][c] += acc;
            }
}

void hcond_voxel_mass(double M[24][24], double m)
{
    memset(M, 0, 24 * 24 * sizeof(double));
    for (int u = 0; u < 8; u++)
        for (int v = 0; v < 8; v++) {
            double e = m / 216.0;
            for (int a = 0; a < 3; a++)
                if (corner[u][a] == corner[v][a])
                    e *= 2.0;
            for (int c = 0; c < 3; c++)
                M[3 * u + c][3 * v + c] = e;
        }
}

static void scaled(double out[24][24], const double in[24][24], double f)
{
    for (int i = 0; i < 24; i++)
        for (int j = 0; j < 24; j++)
            out[i][j] = in[i][j] * f;
}

static int cmp_u64(const void *a, const void *b)
{
    unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
    return (x > y) - (x < y);
}

/* First index of sorted idx[0..n) not below v. */
static size_t lower(const unsigned long long *idx, size_t n, unsigned long long v)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (idx[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct fine_set {
    const double (*K)[24], (*M)[24];
    double m;
} fine_set;

/* SOFA's recursive condensation of the octree range [start, start +
 * 8^level) holding idx[0..n) (all inside the range, n > 0). */
static bool recurse(double K[24][24], double M[24][24], double *mass, const fine_set *f,
                    int level, unsigned long long start, const unsigned long long *idx, size_t n)
{
    if (level == 0) {
        memcpy(K, f->K, 24 * 24 * sizeof(double));
        memcpy(M, f->M, 24 * 24 * sizeof(double));
        *mass = f->m;
        return true;
    }
    memset(K, 0, 24 * 24 * sizeof(double));
    memset(M, 0, 24 * 24 * sizeof(double));
    *mass = 0;
    const unsigned long long delta = 1ull << (3 * (level - 1));
    double (*tmp)[24][24] = st_malloc(2 * sizeof *tmp);
    if (!tmp)
        return false;
    for (int child = 0; child < 8; child++) {
        const unsigned long long lo = start + (unsigned long long)child * delta;
        const size_t b = lower(idx, n, lo), e = lower(idx, n, lo + delta);
        if (b == e)
            continue;
        double m = 0, w[8][8];
        if (!recurse(tmp[0], tmp[1], &m, f, level - 1, lo, idx + b, e - b)) {
            st_free(tmp);
            return false;
        }
        const int o[3] = {child & 1, (child >> 1) & 1, child >> 2};
        hcond_interpolation(w, o, 1);
        hcond_add(K, (const double(*)[24])tmp[0], (const double(*)[8])w);
        hcond_add(M, (const double(*)[24])tmp[1], (const double(*)[8])w);
        *mass += m;
    }
    st_free(tmp);
    return true;
}

bool hcond_condense(double K[24][24], double M[24][24], double *mass, const double K_fine[24][24],
                    const double M_fine[24][24], double m_fine, int level, const int (*vox)[3],
                    size_t nv, bool recursive)
{
    const int s = 1 << level;
    memset(K, 0, 24 * 24 * sizeof(double));
    memset(M, 0, 24 * 24 * sizeof(double));
    *mass = 0;
    if (nv == 0)
        return true;
    if (!recursive) {
        if (nv == 1ull << (3 * level)) {
            scaled(K, K_fine, (double)s);
            scaled(M, M_fine, (double)nv);
            *mass = (double)nv * m_fine;
            return true;
        }
        for (size_t v = 0; v < nv; v++) {
            int o[3];
            double w[8][8];
            for (int a = 0; a < 3; a++)
                o[a] = ((vox[v][a] % s) + s) % s;
            hcond_interpolation(w, o, level);
            hcond_add(K, K_fine, (const double(*)[8])w);
            hcond_add(M, M_fine, (const double(*)[8])w);
            *mass += m_fine;
        }
        return true;
    }
    unsigned long long *idx = st_malloc(nv * sizeof *idx);
    if (!idx)
        return false;
    for (size_t v = 0; v < nv; v++) {
        unsigned long long o = 0;
        for (int l = level - 1; l >= 0; l--)
            for (int a = 2; a >= 0; a--)
                o = (o << 1) | (unsigned long long)(((((vox[v][a] % s) + s) % s) >> l) & 1);
        idx[v] = o;
    }
    qsort(idx, nv, sizeof *idx, cmp_u64);
    const fine_set f = {K_fine, M_fine, m_fine};
    const bool ok = recurse(K, M, mass, &f, level, 0, idx, nv);
    st_free(idx);
    return ok;
}
