/* fill_reducing_ordering.c - FillReducingOrdering (SOFA's SofaMatrix
 * plugin), Vec3d: renumbers the points of a volume mesh so that the
 * factor of a matrix on it fills in less. As SOFA, the nodal graph of the
 * hexahedra then the tetrahedra of `topology` (METIS_MeshToNodal, 0-based)
 * over the points of `mstate` is ordered by METIS_NodeND with METIS's
 * default options (nested dissection), and the outputs are
 *   permutation[i]     the old index of new point i (METIS's perm)
 *   invPermutation[j]  the new index of old point j (METIS's iperm)
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
 * evident intent). orderingMethod approximateMinimumDegree (Eigen's
 * AMDOrdering in SOFA) is an error: settee does not reproduce Eigen's
 * ordering. A value that is no item is SOFA's OptionsGroup warning, and
 * nestedDissection stays selected (SOFA's own example says "AMD").
 *
 * The numbers are those of the METIS library settee links (Debian's 5.1.0,
 * as a SOFA built against the system's METIS uses); SOFA's fetched METIS
 * fork draws its random numbers from GKlib's own generator instead of the C
 * library's, which can give another, equally valid, nested dissection. */
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
    bool pending; /* computed at the end of the scene's init */
} fro_engine;

static const st_field fields[] = {
    ST_LINK(fro_engine, mstate, "mstate", ST_LINK_STATE, "Mechanical state to reorder"),
    ST_LINK(fro_engine, topology, "topology", ST_LINK_TOPOLOGY, "Topology to reorder"),
    ST_STRING(fro_engine, method, "orderingMethod", "nestedDissection",
              "Ordering method.\nnestedDissection is the multilevel nested dissection "
              "algorithm implemented in the METIS library.\napproximateMinimumDegree is the "
              "approximate minimum degree algorithm implemented in the Eigen library (settee: "
              "not available, an error)."),
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
    if (!strcmp(m, "1") || !strcmp(m, methods[1]))
        return st_component_error(self, "orderingMethod", err, ST_EINVAL,
                                  "approximateMinimumDegree (Eigen's AMDOrdering in SOFA) is "
                                  "not available in settee; use nestedDissection (METIS)");
    if (strcmp(m, methods[0]) && strcmp(m, "0")) {
        st_component_warn(self, "\"%s\" is not a parameter in button list: nestedDissection, "
                                "approximateMinimumDegree (SOFA keeps nestedDissection)",
                          m);
    }
    ST_TRY(st_component_set(self, "orderingMethod", methods[0], err));
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

static size_t count(const st_array *a) { return a ? a->n : 0; }

/* The elements of one kind with each index j replaced by iperm[j]. */
static st_status renumber(st_array *out, st_type t, const st_array *in, unsigned width,
                          const idx_t *iperm, st_error *err)
{
    const size_t n = count(in);
    ST_TRY(st_array_resize(out, t, n, err));
    for (size_t k = 0; k < n * width; k++)
        out->u[k] = (unsigned)iperm[in->u[k]];
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
    const st_array *hexa = e->topology->cls->topology->elements(e->topology, ST_T_HEXAS);
    const st_array *tetra = e->topology->cls->topology->elements(e->topology, ST_T_TETRAS);
    const size_t nh = count(hexa), nt = count(tetra), nn = ms->position.n;
    const unsigned cw = ms->type ? ms->type->coord_size : 3;
    if (cw != 3)
        return st_component_error(self, "mstate", err, ST_EINVAL,
                                  "%s is not a Vec3d state (FillReducingOrdering is Vec3d)",
                                  e->mstate->name);
    if (nn > (size_t)IDX_MAX || 8 * nh + 4 * nt > (size_t)IDX_MAX)
        return st_component_error(self, "mstate", err, ST_EINVAL,
                                  "the mesh is too large for METIS's 32-bit indices");
    for (size_t k = 0; k < 8 * nh; k++)
        if (hexa->u[k] >= nn)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "hexahedron %zu names point %u of %zu", k / 8,
                                      hexa->u[k], nn);
    for (size_t k = 0; k < 4 * nt; k++)
        if (tetra->u[k] >= nn)
            return st_component_error(self, "topology", err, ST_EINVAL,
                                      "tetrahedron %zu names point %u of %zu", k / 4,
                                      tetra->u[k], nn);
    ST_TRY(st_array_resize(&e->perm, ST_T_UINTS, nn, err));
    ST_TRY(st_array_resize(&e->iperm, ST_T_UINTS, nn, err));
    ST_TRY(st_array_resize(&e->position, ST_T_VEC3S, nn, err));
    if (nn == 0) {
        ST_TRY(st_array_resize(&e->hexahedra, ST_T_HEXAS, 0, err));
        return st_array_resize(&e->tetrahedra, ST_T_TETRAS, 0, err);
    }
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
    if (rc != METIS_OK) {
        st_free(perm), st_free(iperm);
        return st_component_error(self, "topology", err, ST_EINVAL,
                                  "Generating the nodal graph of the mesh failed (METIS %d).",
                                  rc);
    }
    rc = METIS_NodeND(&n, xadj, adjncy, NULL, NULL, perm, iperm);
    METIS_Free(xadj);
    METIS_Free(adjncy);
    st_status s = ST_OK;
    if (rc != METIS_OK)
        s = st_component_error(self, NULL, err, ST_EINVAL,
                               "Computing fill reducing ordering failed (METIS %d).", rc);
    if (s == ST_OK) {
        for (size_t i = 0; i < nn; i++) {
            e->perm.u[i] = (unsigned)perm[i];
            e->iperm.u[i] = (unsigned)iperm[i];
            memcpy(e->position.r + 3 * i, ms->position.r + 3 * (size_t)perm[i],
                   3 * sizeof(double));
        }
        s = renumber(&e->hexahedra, ST_T_HEXAS, hexa, 8, iperm, err);
        if (s == ST_OK)
            s = renumber(&e->tetrahedra, ST_T_TETRAS, tetra, 4, iperm, err);
    }
    st_free(perm), st_free(iperm);
    return s;
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
