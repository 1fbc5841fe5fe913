/* element_search.c - the candidate element pairs of two collision models
 * (see element_search.h): a uniform grid for BVHNarrowPhase, a sorted
 * sweep for DirectSAP, an insertion-sorted sweep kept across steps for
 * IncrSAP; each gives the pairs whose boxes meet within the alarm
 * distance, by first element, then second, ascending. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "element_search.h"

/* ---- arrays that grow to their largest size, then stay ---- */

static size_t new_cap(size_t cap, size_t need)
{
    if (need <= cap)
        return cap;
    size_t c = cap ? cap : 64;
    while (c < need)
        c *= 2;
    return c;
}

static st_status resize(void *pp, size_t n, size_t size, st_error *err)
{
    void **p = pp;
    void *q = st_realloc(*p, (n ? n : 1) * size);
    if (!q)
        return st_error_set(err, ST_ENOMEM, "out of memory in the collision search (%zu entries)",
                            n);
    *p = q;
    return ST_OK;
}

/* ---- the output, by first element then second ---- */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void sort_u32(uint32_t *v, size_t n)
{
    if (n > 32) {
        qsort(v, n, sizeof *v, cmp_u32);
        return;
    }
    for (size_t a = 1; a < n; a++) {
        uint32_t x = v[a];
        size_t b = a;
        for (; b > 0 && v[b - 1] > x; b--)
            v[b] = v[b - 1];
        v[b] = x;
    }
}

static st_status reserve_start(csearch *s, size_t n0, st_error *err)
{
    size_t c = new_cap(s->nstart, n0 + 1);
    if (c != s->nstart) {
        ST_TRY(resize(&s->ostart, c, sizeof *s->ostart, err));
        s->nstart = c;
    }
    return ST_OK;
}

static st_status reserve_out(csearch *s, size_t need, st_error *err)
{
    size_t c = new_cap(s->capj, need);
    if (c != s->capj) {
        ST_TRY(resize(&s->oj, c, sizeof *s->oj, err));
        s->capj = c;
    }
    return ST_OK;
}

/* Orders the raw candidates (ci, cj) by ci then cj into ostart/oj:
 * a counting sort by first element, then each one's short list sorted. */
static st_status order_candidates(csearch *s, size_t n0, st_error *err)
{
    ST_TRY(reserve_start(s, n0, err));
    ST_TRY(reserve_out(s, s->ncand, err));
    uint32_t *st = s->ostart;
    memset(st, 0, (n0 + 1) * sizeof *st);
    for (size_t c = 0; c < s->ncand; c++)
        st[s->ci[c] + 1]++;
    for (size_t i = 0; i < n0; i++)
        st[i + 1] += st[i];
    for (size_t c = 0; c < s->ncand; c++) /* st[i] moves to the end of i */
        s->oj[st[s->ci[c]]++] = s->cj[c];
    for (size_t i = n0; i > 0; i--)
        st[i] = st[i - 1];
    st[0] = 0;
    for (size_t i = 0; i < n0; i++)
        if (st[i + 1] > st[i])
            sort_u32(s->oj + st[i], st[i + 1] - st[i]);
    return ST_OK;
}

static st_status emit(csearch *s, uint32_t i, uint32_t j, st_error *err)
{
    if (s->ncand == s->capc) {
        size_t c = new_cap(s->capc, s->ncand + 1);
        ST_TRY(resize(&s->ci, c, sizeof *s->ci, err));
        ST_TRY(resize(&s->cj, c, sizeof *s->cj, err));
        s->capc = c;
    }
    s->ci[s->ncand] = i;
    s->cj[s->ncand] = j;
    s->ncand++;
    return ST_OK;
}

/* ---- BVHNarrowPhase: a uniform grid ---- */

static size_t cell_hash(const int32_t h[3])
{
    return (size_t)((uint32_t)h[0] * 73856093u ^ (uint32_t)h[1] * 19349663u ^
                    (uint32_t)h[2] * 83492791u);
}

static int32_t cell_of(double x, double o, double c)
{
    double v = (x - o) / c; /* a non-finite box: cell 0, never met */
    return v >= 0.0 && v <= 1048577.0 ? (int32_t)v : 0;
}

/* Each element of m1 lives in the cell of its box's lower corner (cells
 * of size c, at least the widest element of either model plus the alarm
 * margins); element i of m0 visits the cells its box, widened by the
 * margins and by m1's widest element, covers. The cells are numbered
 * densely (x fastest) when the grid has at most about two cells per
 * element, else hashed into a power of two of buckets; the elements are
 * stored bucket after bucket with their boxes, so that a visit reads
 * contiguous memory. */
static st_status grid_find(csearch *s, const cmodel *m0, const cmodel *m1, double alarm,
                           st_error *err)
{
    bool self = m0 == m1;
    size_t n0 = m0->nelem, n1 = m1->nelem;
    ST_TRY(reserve_start(s, n0, err));
    s->ostart[0] = 0;
    s->ncand = 0;
    double c = 0.0;
    for (int k = 0; k < 3; k++) {
        c = c > m1->ext[k] ? c : m1->ext[k];
        c = c > m0->ext[k] + 2 * alarm ? c : m0->ext[k] + 2 * alarm;
    }
    for (int k = 0; k < 3; k++) /* at most 2^20 cells along an axis */
        if ((m1->mbox[k + 3] - m1->mbox[k]) / c > 1048576.0)
            c = (m1->mbox[k + 3] - m1->mbox[k]) / 1048576.0;
    if (!(c > 0.0))
        c = 1.0;
    const double *o = m1->mbox;
    int32_t top[3];
    double cells = 1.0;
    for (int k = 0; k < 3; k++) {
        top[k] = cell_of(m1->mbox[k + 3], o[k], c);
        cells *= (double)top[k] + 1.0;
    }
    bool dense = cells <= 2.0 * (double)n1 + 64.0;
    size_t nb = 16;
    if (dense)
        nb = (size_t)cells;
    else
        while (nb < 2 * n1)
            nb *= 2;
    size_t mask = nb - 1, d0 = (size_t)top[0] + 1, d1 = (size_t)top[1] + 1;
    size_t cg = new_cap(s->capg, nb + 1);
    if (cg != s->capg) {
        ST_TRY(resize(&s->gstart, cg, sizeof *s->gstart, err));
        s->capg = cg;
    }
    size_t cn = new_cap(s->capn, n1);
    if (cn != s->capn) {
        ST_TRY(resize(&s->gelem, cn, sizeof *s->gelem, err));
        ST_TRY(resize(&s->gcell, 3 * cn, sizeof *s->gcell, err));
        ST_TRY(resize(&s->home, 3 * cn, sizeof *s->home, err));
        ST_TRY(resize(&s->gbox, 6 * cn, sizeof *s->gbox, err));
        ST_TRY(resize(&s->gbkt, cn, sizeof *s->gbkt, err));
        s->capn = cn;
    }
    /* Counting sort of m1's elements by bucket (stable: ascending j). */
    uint32_t *gs = s->gstart, *bucket = s->gbkt;
    memset(gs, 0, (nb + 1) * sizeof *gs);
    for (size_t j = 0; j < n1; j++) {
        int32_t *h = s->home + 3 * j;
        for (int k = 0; k < 3; k++)
            h[k] = cell_of(m1->box[6 * j + k], o[k], c);
        size_t b = dense ? ((size_t)h[2] * d1 + (size_t)h[1]) * d0 + (size_t)h[0]
                         : cell_hash(h) & mask;
        bucket[j] = (uint32_t)b;
        gs[b + 1]++;
    }
    for (size_t b = 0; b < nb; b++)
        gs[b + 1] += gs[b];
    for (size_t j = 0; j < n1; j++) {
        size_t t = gs[bucket[j]]++;
        s->gelem[t] = (uint32_t)j;
        memcpy(s->gcell + 3 * t, s->home + 3 * j, 3 * sizeof *s->gcell);
        memcpy(s->gbox + 6 * t, m1->box + 6 * j, 6 * sizeof *s->gbox);
    }
    for (size_t b = nb; b > 0; b--)
        gs[b] = gs[b - 1];
    gs[0] = 0;
    for (size_t i = 0; i < n0; i++) {
        const double *bi = m0->box + 6 * i;
        size_t from_i = s->ncand;
        if (cs_boxes_meet(bi, m1->mbox, alarm)) {
            int32_t lo[3], hi[3];
            for (int k = 0; k < 3; k++) {
                /* bi meets the model's box: l and h lie within its cells,
                 * give or take the margins. Widened by a millionth of a
                 * cell: the rounding of these sums must not drop an
                 * element whose corner sits on a cell's face (the exact
                 * test follows). */
                double l = (bi[k] - alarm - m1->ext[k] - o[k]) / c - 1e-6,
                       h = (bi[k + 3] + alarm - o[k]) / c + 1e-6;
                lo[k] = l < 0 ? 0 : l >= top[k] + 1.0 ? top[k] + 1 : (int32_t)l;
                hi[k] = h > top[k] ? top[k] : h < 0 ? -1 : (int32_t)h;
            }
            int32_t cell[3];
            for (cell[2] = lo[2]; cell[2] <= hi[2]; cell[2]++)
                for (cell[1] = lo[1]; cell[1] <= hi[1]; cell[1]++)
                    for (cell[0] = lo[0]; cell[0] <= hi[0]; cell[0]++) {
                        size_t b = dense ? ((size_t)cell[2] * d1 + (size_t)cell[1]) * d0 +
                                               (size_t)cell[0]
                                         : cell_hash(cell) & mask;
                        for (uint32_t t = gs[b], end = gs[b + 1]; t < end; t++) {
                            const int32_t *h = s->gcell + 3 * t;
                            if (!dense && (h[0] != cell[0] || h[1] != cell[1] || h[2] != cell[2]))
                                continue;
                            uint32_t j = s->gelem[t];
                            if ((self && j <= i) || !cs_boxes_meet(bi, s->gbox + 6 * t, alarm))
                                continue;
                            if (s->ncand == s->capj)
                                ST_TRY(reserve_out(s, s->ncand + 1, err));
                            s->oj[s->ncand++] = j;
                        }
                    }
        }
        if (s->ncand > from_i) /* (oj is still NULL before the first candidate) */
            sort_u32(s->oj + from_i, s->ncand - from_i);
        s->ostart[i + 1] = (uint32_t)s->ncand;
    }
    return ST_OK;
}

/* ---- DirectSAP and IncrSAP: sweep and prune ---- */

/* Order of end points: by value, a box's min before another's max at the
 * same value (touching boxes meet). */
static bool end_less(const cs_end *a, const cs_end *b)
{
    return a->key < b->key || (a->key == b->key && !(a->id & 1) && (b->id & 1));
}

/* Stable LSD radix sort of s->ends by key (11-bit digits, a digit all
 * keys share skipped). The list holds every min before every max, so
 * equal keys keep mins first. */
static void radix_sort_ends(csearch *s)
{
    enum { BITS = 11, NB = 1 << BITS };
    uint32_t count[NB];
    cs_end *a = s->ends, *b = s->tmp;
    size_t n = s->nends;
    for (int shift = 0; shift < 32; shift += BITS) {
        memset(count, 0, sizeof count);
        for (size_t k = 0; k < n; k++)
            count[(a[k].key >> shift) & (NB - 1)]++;
        if (n == 0 || count[(a[0].key >> shift) & (NB - 1)] == n)
            continue;
        uint32_t run = 0;
        for (int d = 0; d < NB; d++) {
            uint32_t c = count[d];
            count[d] = run;
            run += c;
        }
        for (size_t k = 0; k < n; k++)
            b[count[(a[k].key >> shift) & (NB - 1)]++] = a[k];
        cs_end *t = a;
        a = b;
        b = t;
    }
    if (a != s->ends) {
        s->tmp = s->ends;
        s->ends = a;
    }
}

/* Insertion sort of a nearly sorted list; false (the list partly sorted)
 * when it would move entries more than budget places in all: the bodies
 * jumped, a radix sort is cheaper. */
static bool insertion_sort_ends(cs_end *e, size_t n, size_t budget)
{
    size_t moves = 0;
    for (size_t a = 1; a < n; a++) {
        if (!end_less(&e[a], &e[a - 1]))
            continue;
        cs_end x = e[a];
        size_t b = a;
        for (; b > 0 && end_less(&x, &e[b - 1]); b--)
            e[b] = e[b - 1];
        e[b] = x;
        moves += a - b;
        if (moves > budget)
            return false;
    }
    return true;
}

static bool has_nan(const double *b)
{
    for (int k = 0; k < 6; k++)
        if (b[k] != b[k])
            return true;
    return false;
}

/* The box of flattened element x (side 0: m0's elements, then m1's). */
static const double *box_of(const cmodel *m0, const cmodel *m1, size_t n0, size_t x)
{
    return x < n0 ? m0->box + 6 * x : m1->box + 6 * (x - n0);
}

/* The sweep axis and its keys: an end point's value v maps to the
 * integer floor((v - lo) scale), which never decreases when v grows, so
 * boxes that overlap along the axis still overlap in keys (the sweep may
 * pair a few more, which the exact test drops). */
typedef struct cs_axis {
    int axis;
    double alarm, lo, scale;
} cs_axis;

#define KEY_MAX 4294967040.0 /* below 2^32, exact in a double */

/* The key of end point id of box b (NaN boxes: the last key, never
 * activated). */
static uint32_t end_key(const double *b, uint32_t id, const cs_axis *ax)
{
    if (has_nan(b))
        return UINT32_MAX;
    double v = (id & 1) ? b[ax->axis + 3] + ax->alarm : b[ax->axis];
    double t = floor((v - ax->lo) * ax->scale);
    return !(t > 0.0) ? 0u : t >= KEY_MAX ? (uint32_t)KEY_MAX : (uint32_t)t;
}

/* The variance of the boxes' end points along each axis, and their range
 * (lo: the lowest min, hi: the highest max). */
static void variances(const cmodel *m0, const cmodel *m1, size_t n0, size_t nx, double var[3],
                      double lo[3], double hi[3])
{
    double sum[3] = {0, 0, 0}, sq[3] = {0, 0, 0}, ref[3] = {0, 0, 0};
    size_t n = 0;
    for (int k = 0; k < 3; k++) {
        lo[k] = INFINITY;
        hi[k] = -INFINITY;
    }
    for (size_t x = 0; x < nx; x++) {
        const double *b = box_of(m0, m1, n0, x);
        if (has_nan(b))
            continue;
        if (!n)
            for (int k = 0; k < 3; k++)
                ref[k] = b[k];
        for (int k = 0; k < 3; k++) {
            double u = b[k] - ref[k], v = b[k + 3] - ref[k];
            sum[k] += u + v;
            sq[k] += u * u + v * v;
            lo[k] = b[k] < lo[k] ? b[k] : lo[k];
            hi[k] = b[k + 3] > hi[k] ? b[k + 3] : hi[k];
        }
        n += 2;
    }
    for (int k = 0; k < 3; k++)
        var[k] = n ? sq[k] / (double)n - (sum[k] / (double)n) * (sum[k] / (double)n) : 0.0;
}

static st_status build_ends(csearch *s, const cmodel *m0, const cmodel *m1, size_t n0,
                            size_t nx, const cs_axis *ax, st_error *err)
{
    size_t c = new_cap(s->cape, 2 * nx);
    if (c != s->cape) {
        ST_TRY(resize(&s->ends, c, sizeof *s->ends, err));
        ST_TRY(resize(&s->tmp, c, sizeof *s->tmp, err));
        s->cape = c;
    }
    s->nends = 2 * nx;
    for (size_t x = 0; x < nx; x++) /* mins first, then maxes (ties) */
        for (uint32_t mx = 0; mx < 2; mx++) {
            cs_end *e = &s->ends[mx * nx + x];
            e->id = (uint32_t)x << 1 | mx;
            e->key = end_key(box_of(m0, m1, n0, x), e->id, ax);
        }
    radix_sort_ends(s);
    return ST_OK;
}

/* The stripe of value v: floor((v - lo) inv), within [0, ns); it never
 * decreases when v grows. */
static int32_t stripe_of(double v, double lo, double inv, size_t ns)
{
    double t = floor((v - lo) * inv);
    if (!(t > 0.0)) /* also NaN (inv 0, v infinite) */
        return 0;
    return t >= (double)(ns - 1) ? (int32_t)(ns - 1) : (int32_t)t;
}

/* The sweep along axis a1, the active boxes in stripes along a2: a box is
 * listed in every stripe its (alarm-widened) extent along a2 covers, and
 * a pair is reported only in the stripe of the larger of the two lower
 * bounds, which both cover when the boxes meet along a2. */
static st_status sweep(csearch *s, bool self, size_t n0, size_t nx, int a2, double alarm,
                       st_error *err)
{
    /* Stripes: width about twice the mean extent along a2. */
    double lo = INFINITY, hi = -INFINITY, wsum = 0.0;
    size_t nfin = 0;
    for (size_t x = 0; x < nx; x++) {
        const double *b = s->sbox + 6 * x;
        if (has_nan(b))
            continue;
        lo = b[a2] < lo ? b[a2] : lo;
        hi = b[a2 + 3] + alarm > hi ? b[a2 + 3] + alarm : hi;
        wsum += b[a2 + 3] - b[a2] + alarm;
        nfin++;
    }
    size_t ns = 1;
    double inv = 0.0;
    if (nfin && isfinite(hi - lo) && hi > lo && isfinite(wsum)) {
        double w = 2.0 * wsum / (double)nfin, r = (hi - lo) / w;
        double cap = (double)nfin < 65536.0 ? (double)nfin : 65536.0;
        ns = r >= cap ? (size_t)cap : (size_t)r + 1;
        inv = (double)ns / (hi - lo);
    }
    size_t cs = new_cap(s->caps, 2 * ns);
    if (cs != s->caps) {
        ST_TRY(resize(&s->heads, cs, sizeof *s->heads, err));
        s->caps = cs;
    }
    for (size_t t = 0; t < 2 * ns; t++)
        s->heads[t] = -1;
#define STRIPE(v) stripe_of((v), lo, inv, ns)
    size_t total = 0;
    for (size_t x = 0; x < nx; x++) {
        const double *b = s->sbox + 6 * x;
        s->first[x] = (uint32_t)total;
        if (has_nan(b)) {
            s->ecount[x] = 0;
            continue;
        }
        int32_t l = STRIPE(b[a2]), h = STRIPE(b[a2 + 3] + alarm);
        s->estripe[x] = l;
        s->ecount[x] = (uint32_t)(h - l + 1);
        total += s->ecount[x];
    }
    size_t cl = new_cap(s->capl, total);
    if (cl != s->capl) {
        ST_TRY(resize(&s->enext, cl, sizeof *s->enext, err));
        ST_TRY(resize(&s->eprev, cl, sizeof *s->eprev, err));
        ST_TRY(resize(&s->eowner, cl, sizeof *s->eowner, err));
        s->capl = cl;
    }
    s->ncand = 0;
    for (size_t k = 0; k < s->nends; k++) {
        uint32_t id = s->ends[k].id;
        size_t x = id >> 1;
        uint32_t cnt = s->ecount[x];
        if (!cnt)
            continue;
        int side = self ? 0 : s->slot_elem[x] >= n0;
        int32_t l = s->estripe[x];
        int32_t *own = s->heads + (size_t)side * ns;
        if (id & 1) { /* max: leaves its stripes */
            for (uint32_t u = 0; u < cnt; u++) {
                int32_t e = (int32_t)(s->first[x] + u);
                if (s->eprev[e] >= 0)
                    s->enext[s->eprev[e]] = s->enext[e];
                else
                    own[l + (int32_t)u] = s->enext[e];
                if (s->enext[e] >= 0)
                    s->eprev[s->enext[e]] = s->eprev[e];
            }
            continue;
        }
        /* min: meets the other side's active boxes, then joins. */
        const double *bx = s->sbox + 6 * x;
        int32_t *other = s->heads + (size_t)(self ? 0 : 1 - side) * ns;
        for (uint32_t u = 0; u < cnt; u++) {
            int32_t t = l + (int32_t)u;
            for (int32_t e = other[t]; e >= 0; e = s->enext[e]) {
                size_t y = (size_t)s->eowner[e];
                /* The stripe of the larger lower bound (the stripes grow
                 * with the value): report the pair there only. */
                int32_t ly = s->estripe[y];
                if ((l > ly ? l : ly) != t)
                    continue;
                if (!cs_boxes_meet(bx, s->sbox + 6 * y, alarm))
                    continue;
                uint32_t ex = s->slot_elem[x], ey = s->slot_elem[y], i, j;
                if (self) {
                    i = ex < ey ? ex : ey;
                    j = ex < ey ? ey : ex;
                } else {
                    i = side == 0 ? ex : ey;
                    j = (side == 0 ? ey : ex) - (uint32_t)n0;
                }
                ST_TRY(emit(s, i, j, err));
            }
        }
        for (uint32_t u = 0; u < cnt; u++) {
            int32_t e = (int32_t)(s->first[x] + u), t = l + (int32_t)u;
            s->eowner[e] = (int32_t)x;
            s->eprev[e] = -1;
            s->enext[e] = own[t];
            if (own[t] >= 0)
                s->eprev[own[t]] = e;
            own[t] = e;
        }
    }
#undef STRIPE
    return ST_OK;
}

static st_status sap_find(csearch *s, bool incremental, const cmodel *m0, const cmodel *m1,
                          double alarm, st_error *err)
{
    bool self = m0 == m1;
    size_t n0 = m0->nelem, n1 = self ? 0 : m1->nelem, nx = n0 + n1;
    double var[3], lo[3], hi[3];
    variances(m0, m1, n0, nx, var, lo, hi);
    int a1 = var[0] >= var[1] && var[0] >= var[2] ? 0 : var[1] >= var[2] ? 1 : 2;
    bool rebuild = !incremental || !s->kept || s->n0 != n0 || s->n1 != n1;
    /* IncrSAP keeps its axis until another spreads the boxes clearly more. */
    if (!rebuild && a1 != s->axis && !(var[a1] > 1.5 * var[s->axis]))
        a1 = s->axis;
    rebuild = rebuild || a1 != s->axis;
    int a2 = -1;
    for (int k = 0; k < 3; k++)
        if (k != a1 && (a2 < 0 || var[k] > var[a2]))
            a2 = k;
    cs_axis ax = {a1, alarm, lo[a1], 0.0};
    double range = hi[a1] + alarm - lo[a1];
    if (isfinite(range) && range > 0.0)
        ax.scale = KEY_MAX / range;
    size_t cb = new_cap(s->capb, nx);
    if (cb != s->capb) {
        ST_TRY(resize(&s->first, cb, sizeof *s->first, err));
        ST_TRY(resize(&s->ecount, cb, sizeof *s->ecount, err));
        ST_TRY(resize(&s->estripe, cb, sizeof *s->estripe, err));
        ST_TRY(resize(&s->slot_elem, cb, sizeof *s->slot_elem, err));
        ST_TRY(resize(&s->sbox, 6 * cb, sizeof *s->sbox, err));
        s->capb = cb;
    }
    if (!rebuild) { /* IncrSAP: new values, nearly sorted: insertion sort */
        for (size_t x = 0; x < nx; x++)
            memcpy(s->sbox + 6 * x, box_of(m0, m1, n0, s->slot_elem[x]), 6 * sizeof *s->sbox);
        for (size_t k = 0; k < s->nends; k++)
            s->ends[k].key = end_key(s->sbox + 6 * (s->ends[k].id >> 1), s->ends[k].id, &ax);
        rebuild = !insertion_sort_ends(s->ends, s->nends, 8 * s->nends + 1024);
    }
    if (rebuild) {
        /* Sorted end points; then the boxes numbered in the order of
         * their lower end points (slots), so that the sweep, whose
         * active boxes are near each other in that order, reads nearby
         * memory; the end points name slots from now on. */
        ST_TRY(build_ends(s, m0, m1, n0, nx, &ax, err));
        uint32_t *slot_of = (uint32_t *)s->estripe, next = 0; /* scratch here */
        for (size_t k = 0; k < s->nends; k++)
            if (!(s->ends[k].id & 1)) {
                s->slot_elem[next] = s->ends[k].id >> 1;
                slot_of[s->ends[k].id >> 1] = next++;
            }
        for (size_t k = 0; k < s->nends; k++)
            s->ends[k].id = slot_of[s->ends[k].id >> 1] << 1 | (s->ends[k].id & 1);
        for (size_t x = 0; x < nx; x++)
            memcpy(s->sbox + 6 * x, box_of(m0, m1, n0, s->slot_elem[x]), 6 * sizeof *s->sbox);
    }
    s->n0 = n0;
    s->n1 = n1;
    s->axis = a1;
    s->kept = incremental;
    ST_TRY(sweep(s, self, n0, nx, a2, alarm, err));
    return order_candidates(s, n0, err);
}

st_status cs_find(csearch *s, cs_kind kind, const cmodel *m0, const cmodel *m1, double alarm,
                  st_error *err)
{
    s->ncand = 0;
    if (kind == CS_GRID)
        return grid_find(s, m0, m1, alarm, err);
    return sap_find(s, kind == CS_INCR_SAP, m0, m1, alarm, err);
}

void cs_free(csearch *s)
{
    void *all[] = {s->ostart, s->oj,    s->ci,     s->cj,      s->gstart,    s->gelem,
                   s->gcell,  s->home,  s->gbox,   s->gbkt,    s->ends,      s->tmp,
                   s->first,  s->ecount, s->enext, s->eprev,   s->eowner,    s->estripe,
                   s->heads,  s->slot_elem, s->sbox};
    for (size_t k = 0; k < sizeof all / sizeof *all; k++)
        st_free(all[k]);
    memset(s, 0, sizeof *s);
}
