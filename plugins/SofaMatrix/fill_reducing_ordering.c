/* fill_reducing_ordering.c - FillReducingOrdering (SOFA's SofaMatrix
 * plugin), Vec3d: renumbers the points of a volume mesh so that the
 * factor of a matrix on it fills in less, by one of two methods:
 *   nestedDissection (default): as SOFA, the nodal graph of the hexahedra
 *     then the tetrahedra of `topology` (METIS_MeshToNodal, 0-based) over
 *     the points of `mstate` is ordered by METIS_NodeND with METIS's default
 *     options;
 *   approximateMinimumDegree: as SOFA (Eigen's AMDOrdering), the pattern of
 *     the matrix coupling the two ends of each edge of `topology` (the
 *     diagonal of every point on an edge included, none for a point on no
 *     edge) over the points of `mstate` is ordered by approximate minimum
 *     degree (amd_order below);
 * and the outputs are
 *   permutation[i]     the old index of new point i
 *   invPermutation[j]  the new index of old point j
 *   position[i]        = the state's position[permutation[i]]
 *   hexahedra, tetrahedra  the topology's, each index j replaced by
 *                      invPermutation[j]
 * computed once, when an output is first read (SOFA's engine has no input);
 * when the state or the topology comes after it in its node (not yet
 * initialised then), at the end of the scene's init.
 *
 * settee differs from SOFA where SOFA would compute nothing: SOFA's init
 * marks the component invalid whenever mstate or topology is not linked,
 * even after finding one in the context; settee uses the context's (its
 * evident intent). orderingMethod is an item's name or its index (0, 1); a
 * value that is neither is SOFA's OptionsGroup warning, and
 * nestedDissection stays selected (SOFA's own example says "AMD").
 *
 * The nested dissection is that of the METIS library settee links (Debian's
 * 5.1.0, as a SOFA built against the system's METIS uses); SOFA's fetched
 * METIS fork draws its random numbers from GKlib's own generator instead of
 * the C library's, which can give another, equally valid, nested
 * dissection. The minimum degree ordering is exact: Eigen's is CSparse's
 * cs_amd (Davis, Direct Methods for Sparse Linear Systems, 2006, ch. 7)
 * with two changes, which is why CXSparse's cs_amd itself gives another
 * order: the diagonal stays in the quotient graph (a point's first degree
 * counts itself), and a point without a diagonal entry is set aside as
 * dense (ordered last). amd_order is written from that description. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <metis.h>

#include "../shared/options.h"
#include "../shared/output_file.h"

typedef struct fro_engine {
    st_component base;
    st_component *mstate;   /* "mstate" */
    st_component *topology; /* "topology" */
    char *method;           /* "orderingMethod" */
    st_array perm, iperm;   /* "permutation", "invPermutation" (uint[]) */
    st_array position;      /* "position" (vec3[]) */
    st_array hexahedra, tetrahedra;
    bool amd;     /* approximateMinimumDegree selected */
    bool pending; /* computed at the end of the scene's init */
} fro_engine;

static const st_field fields[] = {
    ST_LINK(fro_engine, mstate, "mstate", ST_LINK_STATE, "Mechanical state to reorder"),
    ST_LINK(fro_engine, topology, "topology", ST_LINK_TOPOLOGY, "Topology to reorder"),
    ST_STRING(fro_engine, method, "orderingMethod", "nestedDissection",
              "Ordering method.\nnestedDissection is the multilevel nested dissection "
              "algorithm implemented in the METIS library.\napproximateMinimumDegree is the "
              "approximate minimum degree algorithm implemented in the Eigen library."),
    ST_OUTPUT(fro_engine, perm, "permutation", ST_T_UINTS, st_array,
              "Output vector of indices mapping the reordered vertices to the initial list"),
    ST_OUTPUT(fro_engine, iperm, "invPermutation", ST_T_UINTS, st_array,
              "Output vector of indices mapping the initial vertices to the reordered list"),
    ST_OUTPUT(fro_engine, position, "position", ST_T_VEC3S, st_array,
              "Reordered position vector"),
    ST_OUTPUT(fro_engine, hexahedra, "hexahedra", ST_T_HEXAS, st_array, "Reordered hexahedra"),
    ST_OUTPUT(fro_engine, tetrahedra, "tetrahedra", ST_T_TETRAS, st_array,
              "Reordered tetrahedra"),
    ST_FIELD_END};

static const char *const methods[] = {"nestedDissection", "approximateMinimumDegree", NULL};

static st_status fro_init(st_component *self, st_error *err)
{
    fro_engine *e = (fro_engine *)self;
    const char *m = e->method ? e->method : "";
    e->amd = !strcmp(m, "1") || !strcmp(m, methods[1]);
    if (!e->amd && strcmp(m, methods[0]) && strcmp(m, "0")) {
        st_component_warn(self, "\"%s\" is not a parameter in button list: nestedDissection, "
                                "approximateMinimumDegree (SOFA keeps nestedDissection)",
                          m);
    }
    ST_TRY(st_component_set(self, "orderingMethod", methods[e->amd ? 1 : 0], err));
    if (!e->mstate)
        e->mstate = (st_component *)st_component_mstate(self);
    if (!e->mstate)
        return st_component_error(self, "mstate", err, ST_ELINK,
                                  "No compatible MechanicalState found in the current context. "
                                  "This may be because there is no MechanicalState in the local "
                                  "context, or because the type is not compatible.");
    if (!e->mstate->cls->state)
        return st_component_error(self, "mstate", err, ST_ELINK, "%s is a %s, not a mechanical "
                                  "state", e->mstate->name, e->mstate->cls->name);
    if (!e->topology)
        e->topology = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (!e->topology || !e->topology->cls->topology)
        return st_component_error(self, "topology", err, ST_ELINK,
                                  "No mesh topology found in the current context.");
    return ST_OK;
}

/* ---- approximate minimum degree ------------------------------------------
 * The quotient graph lives in one array `adj` (the pattern's, with room to
 * grow): the list of live object v (a variable or an element) starts at
 * start[v], holds len[v] entries, of a variable its nelem[v] elements
 * first. A negative start[] is a flipped parent in the assembly tree. */

#define AMD_FLIP(i) (-(i)-2)

/* Resets the marks of the live objects when tag would pass its range;
 * returns the tag to use next. */
static int amd_reset_marks(int tag, int maxdeg, int *mk, int n)
{
    if (tag < 2 || tag + maxdeg < 0) {
        for (int v = 0; v < n; v++)
            if (mk[v] != 0)
                mk[v] = 1;
        tag = 2;
    }
    return tag;
}

/* Depth-first postorder of the tree under root (children in lists
 * first/sib), appended to out from position k; returns the new k. */
static int amd_postorder(int root, int k, int *first, const int *sib, int *out, int *stack)
{
    int top = 0;
    stack[0] = root;
    while (top >= 0) {
        const int v = stack[top], c = first[v];
        if (c == -1) {
            top--;
            out[k++] = v;
        } else {
            first[v] = sib[c];
            stack[++top] = c;
        }
    }
    return k;
}

/* Orders the n variables of the symmetric pattern (start[0..n], adj; each
 * column's rows ascending, the diagonal included where it is stored) by
 * approximate minimum degree: order[k] is the variable eliminated k-th.
 * start is n+1 entries and adj cap entries (cap >= start[n] + start[n]/5 +
 * 2n), both overwritten. */
static void amd_order(int n, int *start, int *adj, int cap, int *order)
{
    const int nz0 = start[n];
    int dense = (int)(10 * sqrt((double)n));
    if (dense < 16)
        dense = 16;
    if (dense > n - 2)
        dense = n - 2;
    /* the 9 work lists share one block; `last` is order's room */
    int *len = order + n + 1, *nv = len + n + 1, *next = nv + n + 1, *head = next + n + 1;
    int *nelem = head + n + 1, *deg = nelem + n + 1, *mk = deg + n + 1, *hhead = mk + n + 1;
    int *last = order;
    for (int v = 0; v < n; v++)
        len[v] = start[v + 1] - start[v];
    len[n] = 0;
    for (int v = 0; v <= n; v++) {
        head[v] = last[v] = next[v] = hhead[v] = -1;
        nv[v] = mk[v] = 1;
        nelem[v] = 0;
        deg[v] = len[v];
    }
    int tag = amd_reset_marks(0, 0, mk, n), maxdeg = 0, used = nz0, done = 0, mindeg = 0;
    for (int v = 0; v < n; v++) {
        bool diag = false;
        for (int p = start[v]; p < start[v + 1] && !diag; p++)
            diag = adj[p] == v;
        const int d = deg[v];
        if (diag && d == 1) { /* alone: an element already, a root */
            nelem[v] = -2;
            done++;
            start[v] = -1;
            mk[v] = 0;
        } else if (!diag || d > dense) { /* set aside under the last element */
            nv[v] = 0;
            nelem[v] = -1;
            done++;
            start[v] = AMD_FLIP(n);
            nv[n]++;
        } else {
            if (head[d] != -1)
                last[head[d]] = v;
            next[v] = head[d];
            head[d] = v;
        }
    }
    nelem[n] = -2;
    start[n] = -1;
    mk[n] = 0;

    while (done < n) {
        /* the pivot: a variable of least degree, the last one put on its list */
        int k = -1;
        while (mindeg < n && (k = head[mindeg]) == -1)
            mindeg++;
        if (next[k] != -1)
            last[next[k]] = -1;
        head[mindeg] = next[k];
        const int ek = nelem[k];
        int nvk = nv[k];
        done += nvk;

        /* compact adj when the new element might not fit */
        if (ek > 0 && used + mindeg >= cap) {
            for (int v = 0; v < n; v++) {
                const int p = start[v];
                if (p >= 0) { /* v's first entry now names v */
                    start[v] = adj[p];
                    adj[p] = AMD_FLIP(v);
                }
            }
            int q = 0;
            for (int p = 0; p < used;) {
                const int v = AMD_FLIP(adj[p++]);
                if (v < 0)
                    continue;
                adj[q] = start[v];
                start[v] = q++;
                for (int t = 1; t < len[v]; t++)
                    adj[q++] = adj[p++];
            }
            used = q;
        }

        /* the new element k: the live variables of k's elements and of k's own list */
        int dk = 0;
        nv[k] = -nvk;
        int p = start[k];
        const int lk0 = ek == 0 ? p : used; /* k's list is reused in place when it has no element */
        int lk1 = lk0;
        for (int t = 1; t <= ek + 1; t++) {
            int e, pj, ln;
            if (t > ek) {
                e = k, pj = p, ln = len[k] - ek;
            } else {
                e = adj[p++], pj = start[e], ln = len[e];
            }
            for (int s = 0; s < ln; s++) {
                const int v = adj[pj++], nvv = nv[v];
                if (nvv <= 0)
                    continue; /* dead, or in the element already */
                dk += nvv;
                nv[v] = -nvv;
                adj[lk1++] = v;
                /* off its degree list */
                if (next[v] != -1)
                    last[next[v]] = last[v];
                if (last[v] != -1)
                    next[last[v]] = next[v];
                else
                    head[deg[v]] = next[v];
            }
            if (e != k) { /* e is absorbed into k */
                start[e] = AMD_FLIP(k);
                mk[e] = 0;
            }
        }
        if (ek != 0)
            used = lk1;
        deg[k] = dk;
        start[k] = lk0;
        len[k] = lk1 - lk0;
        nelem[k] = -2;

        /* |e \ k| of every element e next to k, as mk[e] - tag */
        tag = amd_reset_marks(tag, maxdeg, mk, n);
        for (int q = lk0; q < lk1; q++) {
            const int v = adj[q], ev = nelem[v];
            if (ev <= 0)
                continue;
            const int nvv = -nv[v], base = tag - nvv;
            for (int r = start[v]; r < start[v] + ev; r++) {
                const int e = adj[r];
                if (mk[e] >= tag)
                    mk[e] -= nvv;
                else if (mk[e] != 0)
                    mk[e] = deg[e] + base;
            }
        }

        /* the approximate degree of each variable of k; prune its lists */
        for (int q = lk0; q < lk1; q++) {
            const int v = adj[q], p1 = start[v], p2 = p1 + nelem[v] - 1;
            int pn = p1, d = 0;
            uint32_t hash = 0; /* a 32-bit int sum, as Eigen's int indices wrap */
            for (int r = p1; r <= p2; r++) {
                const int e = adj[r];
                if (mk[e] == 0)
                    continue;
                const int ext = mk[e] - tag;
                if (ext > 0) {
                    d += ext;
                    adj[pn++] = e;
                    hash += (uint32_t)e;
                } else { /* e lies inside k: absorbed */
                    start[e] = AMD_FLIP(k);
                    mk[e] = 0;
                }
            }
            nelem[v] = pn - p1 + 1; /* k is added below */
            const int p3 = pn, p4 = p1 + len[v];
            for (int r = p2 + 1; r < p4; r++) {
                const int j = adj[r], nvj = nv[j];
                if (nvj <= 0)
                    continue;
                d += nvj;
                adj[pn++] = j;
                hash += (uint32_t)j;
            }
            if (d == 0) { /* v is indistinguishable from k: eliminated with it */
                start[v] = AMD_FLIP(k);
                const int nvv = -nv[v];
                dk -= nvv;
                nvk += nvv;
                done += nvv;
                nv[v] = 0;
                nelem[v] = -1;
            } else {
                if (d < deg[v])
                    deg[v] = d;
                /* k first in v's list: its first element moves to the end
                 * of the elements, their first variable to the end */
                adj[pn] = adj[p3];
                adj[p3] = adj[p1];
                adj[p1] = k;
                len[v] = pn - p1 + 1;
                const int h = (int)(((int32_t)hash < 0 ? 0u - hash : hash) % (uint32_t)n);
                next[v] = hhead[h];
                hhead[h] = v;
                last[v] = h; /* last holds the hash bucket for now */
            }
        }
        deg[k] = dk;
        if (dk > maxdeg)
            maxdeg = dk;
        tag = amd_reset_marks(tag + maxdeg, maxdeg, mk, n);

        /* supervariables: variables of k with the same lists merge */
        for (int q = lk0; q < lk1; q++) {
            int v = adj[q];
            if (nv[v] >= 0)
                continue;
            const int h = last[v];
            v = hhead[h];
            hhead[h] = -1;
            for (; v != -1 && next[v] != -1; v = next[v], tag++) {
                const int ln = len[v], ev = nelem[v];
                for (int r = start[v] + 1; r <= start[v] + ln - 1; r++)
                    mk[adj[r]] = tag;
                int prev = v;
                for (int j = next[v]; j != -1;) {
                    bool same = len[j] == ln && nelem[j] == ev;
                    for (int r = start[j] + 1; same && r <= start[j] + ln - 1; r++)
                        same = mk[adj[r]] == tag;
                    if (same) { /* j joins v */
                        start[j] = AMD_FLIP(v);
                        nv[v] += nv[j];
                        nv[j] = 0;
                        nelem[j] = -1;
                        j = next[j];
                        next[prev] = j;
                    } else {
                        prev = j;
                        j = next[j];
                    }
                }
            }
        }

        /* back onto the degree lists, k's list keeps the live variables */
        int w = lk0;
        for (int q = lk0; q < lk1; q++) {
            const int v = adj[q], nvv = -nv[v];
            if (nvv <= 0)
                continue;
            nv[v] = nvv;
            int d = deg[v] + dk - nvv;
            if (d > n - done - nvv)
                d = n - done - nvv;
            if (head[d] != -1)
                last[head[d]] = v;
            next[v] = head[d];
            last[v] = -1;
            head[d] = v;
            if (d < mindeg)
                mindeg = d;
            deg[v] = d;
            adj[w++] = v;
        }
        nv[k] = nvk;
        if ((len[k] = w - lk0) == 0) { /* k is a root */
            start[k] = -1;
            mk[k] = 0;
        }
        if (ek != 0)
            used = w;
    }

    /* the order: a postorder of the assembly tree (parents in start[]),
     * the set-aside variables under n, last */
    for (int v = 0; v < n; v++)
        start[v] = AMD_FLIP(start[v]);
    for (int v = 0; v <= n; v++)
        head[v] = -1;
    for (int v = n; v >= 0; v--) { /* variables merged into another */
        if (nv[v] > 0)
            continue;
        next[v] = head[start[v]];
        head[start[v]] = v;
    }
    for (int e = n; e >= 0; e--) { /* elements under their parent */
        if (nv[e] <= 0)
            continue;
        if (start[e] != -1) {
            next[e] = head[start[e]];
            head[start[e]] = e;
        }
    }
    for (int v = 0, k = 0; v <= n; v++)
        if (start[v] == -1)
            k = amd_postorder(v, k, head, next, order, mk);
}

static size_t count(const st_array *a) { return a ? a->n : 0; }

/* The elements of one kind with each index j replaced by iperm[j]. */
static st_status renumber(st_array *out, st_type t, const st_array *in, unsigned width,
                          const unsigned *iperm, st_error *err)
{
    const size_t n = count(in);
    ST_TRY(st_array_resize(out, t, n, err));
    for (size_t k = 0; k < n * width; k++)
        out->u[k] = iperm[in->u[k]];
    return ST_OK;
}

/* permutation and invPermutation by METIS_NodeND on the nodal graph of the
 * hexahedra then the tetrahedra. */
static st_status order_metis(fro_engine *e, const st_array *hexa, const st_array *tetra,
                             size_t nn, st_error *err)
{
    const size_t nh = count(hexa), nt = count(tetra);
    if (nn > (size_t)IDX_MAX || 8 * nh + 4 * nt > (size_t)IDX_MAX)
        return st_component_error(&e->base, "mstate", err, ST_EINVAL,
                                  "the mesh is too large for METIS's 32-bit indices");
    idx_t ne = (idx_t)(nh + nt), n = (idx_t)nn, numflag = 0;
    idx_t *eptr = st_malloc(((size_t)ne + 1) * sizeof *eptr);
    idx_t *eind = st_malloc((8 * nh + 4 * nt + 1) * sizeof *eind);
    idx_t *perm = st_malloc(nn * sizeof *perm), *iperm = st_malloc(nn * sizeof *iperm);
    if (!eptr || !eind || !perm || !iperm) {
        st_free(eptr), st_free(eind), st_free(perm), st_free(iperm);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    size_t p = 0;
    eptr[0] = 0;
    for (size_t k = 0; k < nh; k++) {
        for (int j = 0; j < 8; j++)
            eind[p++] = (idx_t)hexa->u[8 * k + (size_t)j];
        eptr[k + 1] = (idx_t)p;
    }
    for (size_t k = 0; k < nt; k++) {
        for (int j = 0; j < 4; j++)
            eind[p++] = (idx_t)tetra->u[4 * k + (size_t)j];
        eptr[nh + k + 1] = (idx_t)p;
    }
    idx_t *xadj = NULL, *adjncy = NULL;
    int rc = METIS_MeshToNodal(&ne, &n, eptr, eind, &numflag, &xadj, &adjncy);
    st_free(eptr), st_free(eind);
    st_status s = ST_OK;
    if (rc != METIS_OK) {
        s = st_component_error(&e->base, "topology", err, ST_EINVAL,
                               "Generating the nodal graph of the mesh failed (METIS %d).", rc);
    } else {
        rc = METIS_NodeND(&n, xadj, adjncy, NULL, NULL, perm, iperm);
        METIS_Free(xadj);
        METIS_Free(adjncy);
        if (rc != METIS_OK)
            s = st_component_error(&e->base, NULL, err, ST_EINVAL,
                                   "Computing fill reducing ordering failed (METIS %d).", rc);
    }
    for (size_t i = 0; s == ST_OK && i < nn; i++) {
        e->perm.u[i] = (unsigned)perm[i];
        e->iperm.u[i] = (unsigned)iperm[i];
    }
    st_free(perm), st_free(iperm);
    return s;
}

static int cmp_int(const void *a, const void *b)
{
    const int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* permutation and invPermutation by amd_order on the pattern of the matrix
 * coupling the ends of each edge (each column's rows ascending, duplicates
 * merged: the pattern of SOFA's Eigen matrix built from triplets). */
static st_status order_amd(fro_engine *e, const st_array *edges, size_t nn, st_error *err)
{
    const size_t ne = count(edges);
    if (nn >= (size_t)INT32_MAX / 16 || ne >= (size_t)INT32_MAX / 16)
        return st_component_error(&e->base, "topology", err, ST_EINVAL,
                                  "the mesh is too large for 32-bit indices");
    const int n = (int)nn;
    int *start = st_calloc(nn + 1, sizeof *start);
    int *work = st_malloc(9 * (nn + 1) * sizeof *work);
    if (!start || !work) {
        st_free(start), st_free(work);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    for (size_t k = 0; k < 2 * ne; k++)
        start[edges->u[k] + 1] += 2;
    for (int v = 0; v < n; v++)
        start[v + 1] += start[v];
    const int nz = start[n];
    int *adj = st_malloc(((size_t)nz + 1) * sizeof *adj);
    if (!adj) {
        st_free(start), st_free(work);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    int *fill = work; /* the next free entry of each column */
    memcpy(fill, start, nn * sizeof *fill);
    for (size_t k = 0; k < ne; k++) {
        const int a = (int)edges->u[2 * k], b = (int)edges->u[2 * k + 1];
        adj[fill[a]++] = a, adj[fill[a]++] = b;
        adj[fill[b]++] = a, adj[fill[b]++] = b;
    }
    int q = 0; /* sort each column, drop the repeats */
    for (int v = 0; v < n; v++) {
        const int p0 = start[v], p1 = start[v + 1];
        qsort(adj + p0, (size_t)(p1 - p0), sizeof *adj, cmp_int);
        start[v] = q;
        for (int p = p0; p < p1; p++)
            if (p == p0 || adj[p] != adj[p - 1])
                adj[q++] = adj[p];
    }
    start[n] = q;
    const int cap = q + q / 5 + 2 * n;
    int *grown = st_realloc(adj, ((size_t)cap + 1) * sizeof *adj);
    if (!grown) {
        st_free(start), st_free(work), st_free(adj);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    adj = grown;
    amd_order(n, start, adj, cap, work);
    for (int i = 0; i < n; i++) {
        e->perm.u[i] = (unsigned)work[i];
        e->iperm.u[work[i]] = (unsigned)i;
    }
    st_free(start), st_free(work), st_free(adj);
    return ST_OK;
}

/* Every index of the elements of one kind names a point of the state. */
static st_status check_indices(fro_engine *e, const st_array *a, unsigned width,
                               const char *what, size_t nn, st_error *err)
{
    for (size_t k = 0; k < count(a) * width; k++)
        if (a->u[k] >= nn)
            return st_component_error(&e->base, "topology", err, ST_EINVAL,
                                      "%s %zu names point %u of %zu", what, k / width, a->u[k],
                                      nn);
    return ST_OK;
}

static st_status fro_update(st_component *self, st_error *err)
{
    fro_engine *e = (fro_engine *)self;
    st_mstate *ms = (st_mstate *)e->mstate;
    /* The kernel computes an engine right after its init, before the state
     * and topology written after it in its node: then it waits for the end
     * of the scene's init. */
    e->pending = e->mstate->state != ST_CSTATE_VALID || e->topology->state != ST_CSTATE_VALID;
    if (e->pending) {
        e->perm.n = e->iperm.n = e->position.n = e->hexahedra.n = e->tetrahedra.n = 0;
        return ST_OK;
    }
    ST_TRY(st_component_refresh(e->mstate, err));
    ST_TRY(st_component_refresh(e->topology, err));
    const st_topology_ops *topo = e->topology->cls->topology;
    const st_array *hexa = topo->elements(e->topology, ST_T_HEXAS);
    const st_array *tetra = topo->elements(e->topology, ST_T_TETRAS);
    const st_array *edges = e->amd ? topo->elements(e->topology, ST_T_EDGES) : NULL;
    const size_t nn = ms->position.n;
    const unsigned cw = ms->type ? ms->type->coord_size : 3;
    if (cw != 3)
        return st_component_error(self, "mstate", err, ST_EINVAL,
                                  "%s is not a Vec3d state (FillReducingOrdering is Vec3d)",
                                  e->mstate->name);
    ST_TRY(check_indices(e, hexa, 8, "hexahedron", nn, err));
    ST_TRY(check_indices(e, tetra, 4, "tetrahedron", nn, err));
    ST_TRY(check_indices(e, edges, 2, "edge", nn, err));
    ST_TRY(st_array_resize(&e->perm, ST_T_UINTS, nn, err));
    ST_TRY(st_array_resize(&e->iperm, ST_T_UINTS, nn, err));
    ST_TRY(st_array_resize(&e->position, ST_T_VEC3S, nn, err));
    if (nn == 0) {
        ST_TRY(st_array_resize(&e->hexahedra, ST_T_HEXAS, 0, err));
        return st_array_resize(&e->tetrahedra, ST_T_TETRAS, 0, err);
    }
    if (e->amd)
        ST_TRY(order_amd(e, edges, nn, err));
    else
        ST_TRY(order_metis(e, hexa, tetra, nn, err));
    for (size_t i = 0; i < nn; i++)
        memcpy(e->position.r + 3 * i, ms->position.r + 3 * (size_t)e->perm.u[i],
               3 * sizeof(double));
    ST_TRY(renumber(&e->hexahedra, ST_T_HEXAS, hexa, 8, e->iperm.u, err));
    return renumber(&e->tetrahedra, ST_T_TETRAS, tetra, 4, e->iperm.u, err);
}

static void fro_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    fro_engine *e = (fro_engine *)self;
    if (ev != ST_EVENT_INIT_DONE || !e->pending || self->state != ST_CSTATE_VALID)
        return;
    st_error err = {0};
    if (fro_update(self, &err) != ST_OK) {
        out_log_error(self, &err);
        return;
    }
    static const char *const outputs[] = {"permutation", "invPermutation", "position",
                                          "hexahedra", "tetrahedra"};
    for (size_t i = 0; i < sizeof outputs / sizeof *outputs; i++)
        st_component_touch(self, st_component_field(self, outputs[i]));
}

static const st_engine_ops engine = {
    .struct_size = sizeof(st_engine_ops),
    .update = fro_update,
};

const st_class fill_reducing_ordering_class = {
    .struct_size = sizeof(st_class),
    .name = "FillReducingOrdering",
    .category = "Engine",
    .description = "Reorder the degrees of freedom to reduce fill-in",
    .instance_size = sizeof(fro_engine),
    .fields = fields,
    .init = fro_init,
    .engine = &engine,
    .on_event = fro_event,
};
