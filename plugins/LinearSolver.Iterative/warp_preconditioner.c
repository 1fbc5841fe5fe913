/* warp_preconditioner.c - WarpPreconditioner: SOFA's preconditioner for
 * corotational FEM. It wraps another linear solver (link "linearSolver", a
 * direct solver such as SparseLDLSolver), whose matrix A0 is built and
 * factored at the first system and then every update_step-th one; in
 * between it preconditions the current matrix with the stale factor turned
 * by the per-vertex rotations R that a rotation finder (a corotational
 * force field of its node: TetrahedronFEMForceField,
 * HexahedronFEMForceField, TetrahedralCorotationalFEMForceField) reports:
 *
 *   x = R A0^-1 R^T b,   R = blockdiag(R_now(i) R_ref(i)^T)
 *
 * with R_ref the rotations when A0 was built (so R = I right after a
 * refresh). The rotations come through the finder's "rotations" output
 * (../shared/rotation_finder.h). Meant as the preconditioner of
 * PCGLinearSolver / ShewchukPCGLinearSolver. Its fields are SOFA's before
 * v25.12 (useRotationFinder, update_step); a RotationMatrixSystem (SOFA
 * v25.12: linearSystem link, or the one in the node) sets the schedule
 * (assemblingRate) and the finder (rotationFinder) instead. The schedule is
 * the RotationMatrixSystem's: built when a counter starting at the rate
 * reaches it. */
#include "iterative_common.h"
#include "rotation_matrix_system.h"

#include "../shared/rotation_finder.h"

typedef struct warp_pre {
    st_component base;
    bool parallel_inverse;         /* "parallelInverseProduct" (ignored) */
    st_component *linear_system;   /* "linearSystem": a RotationMatrixSystem */
    st_component *linear_solver;   /* "linearSolver" */
    unsigned use_rotation_finder;  /* "useRotationFinder" */
    unsigned update_step;          /* "update_step" */
    unsigned nbuilds;              /* "linearSolverBuilds" (output) */
    /* Runtime. */
    rotation_matrix_system *rms;   /* the RotationMatrixSystem, if any */
    unsigned rate;                 /* the schedule: update_step or its assemblingRate */
    st_system *sys;
    st_component *finder;
    st_array *rot;                 /* the finder's rotations, 9 per vertex */
    size_t off, np;                /* the finder's state: first scalar, vertices */
    double *rref;                  /* 9 per vertex: rotations at the last build (owned) */
    double *rcur;                  /* 9 per vertex: R_now R_ref^T (owned) */
    double *t, *z;                 /* scratch (system vectors) */
    bool identity;                 /* R = I: the inner matrix was just built */
    unsigned counter;              /* systems since the last build */
} warp_pre;

static const st_field warp_fields[] = {
    ST_LINK(warp_pre, linear_solver, "linearSolver", ST_LINK_LINEAR_SOLVER,
            "Link towards the linear solver used to build the warp conditioner (default: the "
            "first other linear solver of this node)"),
    ST_UINT(warp_pre, use_rotation_finder, "useRotationFinder", "0",
            "Which rotation Finder to use: index among the rotation finders of this node, in "
            "scene order"),
    ST_UINT(warp_pre, update_step, "update_step", "1",
            "Number of steps before the next refresh of the system matrix in the main solver "
            "(0 or 1: every system)"),
    ST_OUTPUT(warp_pre, nbuilds, "linearSolverBuilds", ST_T_UINT, unsigned,
              "Number of times the wrapped solver's matrix was built (and factored) so far "
              "(settee)"),
    ST_IGNORED(warp_pre, parallel_inverse, "parallelInverseProduct", ST_T_BOOL, bool, "false",
               "Parallelize the computation of the product J*M^{-1}*J^T where M is the matrix "
               "of the linear system and J is any matrix with compatible dimensions"),
    ST_LINK(warp_pre, linear_system, "linearSystem", ST_LINK_ANY,
            "The linear system to solve: a RotationMatrixSystem (SOFA v25.12: its "
            "assemblingRate and rotationFinder replace update_step and useRotationFinder); "
            "when unset, the one in this node if any"),
    ST_FIELD_END};

/* True when a linear solver works matrix-free (SOFA: templated on
 * GraphScattered), which cannot be wrapped. */
static bool matrix_free(st_component *c)
{
    const st_field *f = st_component_field(c, "template");
    if (!f || f->type != ST_T_STRING)
        return false;
    const char *t = *(char **)st_component_field_ptr(c, f);
    return t && strcmp(t, "GraphScattered") == 0;
}

/* The RotationMatrixSystem of the warp: its linearSystem link (an error
 * when it names another kind of component, as in SOFA), else the first one
 * in its node, else none. */
static st_status find_system(warp_pre *s, st_error *err)
{
    st_component *self = &s->base, *c = s->linear_system;
    s->rms = NULL;
    if (c) {
        if (strcmp(c->cls->name, rotation_matrix_system_class.name) != 0)
            return st_component_error(self, "linearSystem", err, ST_ELINK,
                                      "This linear solver is designed to work with a "
                                      "RotationMatrixSystem linear system, but a %s was found",
                                      c->cls->name);
        s->rms = (rotation_matrix_system *)c;
    } else {
        st_component *local[64];
        size_t n = st_node_find_all(self->node, ST_ROLE_ANY, ST_SEARCH_LOCAL, local, 64);
        for (size_t i = 0; i < n && i < 64 && !s->rms; i++)
            if (strcmp(local[i]->cls->name, rotation_matrix_system_class.name) == 0)
                s->rms = (rotation_matrix_system *)local[i];
    }
    s->rate = s->update_step;
    if (!s->rms)
        return ST_OK;
    static const char *const replaced[] = {"update_step", "useRotationFinder"};
    for (int k = 0; k < 2; k++)
        if (st_component_is_set(self, replaced[k]))
            return st_component_error(self, replaced[k], err, ST_ESCENE,
                                      "both this field and RotationMatrixSystem '%s' (its "
                                      "assemblingRate and rotationFinder, SOFA v25.12) set the "
                                      "warp: keep one",
                                      s->rms->base.name);
    s->rate = s->rms->assembling_rate;
    return ST_OK;
}

static st_status warp_init(st_component *self, st_error *err)
{
    warp_pre *s = (warp_pre *)self;
    ST_TRY(find_system(s, err));
    if (!s->linear_solver) {
        st_component *local[64];
        size_t n = st_node_find_all(self->node, ST_ROLE_LINSOLVER, ST_SEARCH_LOCAL, local, 64);
        for (size_t i = 0; i < n && i < 64 && !s->linear_solver; i++)
            if (local[i] != self)
                s->linear_solver = local[i];
        if (!s->linear_solver)
            return st_component_error(self, "linearSolver", err, ST_ELINK,
                                      "No LinearSolver component found at path: (unset), "
                                      "nor in current context: %s",
                                      self->node ? st_node_name(self->node) : "");
        st_component_info(self, "Link \"linearSolver\" to the desired linear solver should be "
                                "set to ensure right behavior. First LinearSolver found in "
                                "current context will be used.");
    }
    if (s->linear_solver == self || !st_component_has_role(s->linear_solver, ST_ROLE_LINSOLVER))
        return st_component_error(self, "linearSolver", err, ST_ELINK,
                                  "the wrapped solver must be another linear solver");
    if (matrix_free(s->linear_solver))
        return st_component_error(self, "linearSolver", err, ST_ELINK,
                                  "Cannot use the solver %s because it is templated on "
                                  "GraphScatteredType",
                                  s->linear_solver->name);
    return ST_OK;
}

/* The useRotationFinder-th rotation finder of the node (SOFA's
 * rotationFinders[useRotationFinder]). */
static st_status find_finder(warp_pre *s, st_error *err)
{
    if (s->rms) {
        s->finder = s->rms->rotation_finder; /* checked by its init */
        return ST_OK;
    }
    st_component *local[256];
    size_t n = st_node_find_all(s->base.node, ST_ROLE_ANY, ST_SEARCH_LOCAL, local, 256);
    size_t k = 0;
    s->finder = NULL;
    for (size_t i = 0; i < n && i < 256; i++)
        if (rotfinder_field(local[i]) && k++ == s->use_rotation_finder) {
            s->finder = local[i];
            break;
        }
    if (!s->finder)
        return st_component_error(&s->base, "useRotationFinder", err, ST_ESCENE,
                                  "rotation finder %u requested, but this node has %zu (the "
                                  "corotational force fields TetrahedronFEMForceField, "
                                  "HexahedronFEMForceField, TetrahedralCorotationalFEMForceField)",
                                  s->use_rotation_finder, k);
    return ST_OK;
}

static void warp_free(warp_pre *s)
{
    st_free(s->rref);
    st_free(s->rcur);
    s->rref = s->rcur = NULL;
}

static st_status warp_bind(st_component *self, st_system *sys, st_error *err)
{
    warp_pre *s = (warp_pre *)self;
    warp_free(s);
    s->sys = sys;
    ST_TRY(find_finder(s, err));
    st_mstate *ms = st_component_mstate(s->finder);
    if (!ms || ms->system != sys || ms->mapped || ms->type->deriv_size != 3 ||
        ms->doffset + 3 * ms->n > sys->size)
        return st_component_error(self, "useRotationFinder", err, ST_ESCENE,
                                  "the rotation finder '%s' must act on an independent Vec3d "
                                  "state of this solver's system",
                                  s->finder->name);
    s->off = ms->doffset;
    s->np = ms->n;
    ST_TRY(rotfinder_request(s->finder, s->np, &s->rot, err));
    s->rref = st_malloc(9 * (s->np ? s->np : 1) * sizeof *s->rref);
    s->rcur = st_malloc(9 * (s->np ? s->np : 1) * sizeof *s->rcur);
    if (!s->rref || !s->rcur)
        return st_component_error(self, NULL, err, ST_ENOMEM, "out of memory");
    ST_TRY(st_system_vec_alloc(sys, &s->t, err));
    ST_TRY(st_system_vec_alloc(sys, &s->z, err));
    s->counter = s->rate; /* built at the first system */
    s->identity = true;
    s->nbuilds = 0;
    return ST_OK;
}

/* rcur = R_now R_ref^T for each vertex. */
static void current_rotations(warp_pre *s)
{
    const double *rn = s->rot->r;
    for (size_t i = 0; i < s->np; i++) {
        const double *a = rn + 9 * i, *b = s->rref + 9 * i;
        double *r = s->rcur + 9 * i;
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++)
                r[3 * p + q] = a[3 * p] * b[3 * q] + a[3 * p + 1] * b[3 * q + 1] +
                               a[3 * p + 2] * b[3 * q + 2];
    }
}

static st_status warp_set_system(st_component *self, st_system *sys, double mf, double bf,
                                 double kf, st_error *err)
{
    warp_pre *s = (warp_pre *)self;
    if (s->sys != sys || !s->rref)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    if (s->rot->n != 9 * s->np)
        return st_component_error(self, "useRotationFinder", err, ST_ESTATE,
                                  "the rotations of '%s' are no longer published (was it "
                                  "re-initialized?)",
                                  s->finder->name);
    if (++s->counter >= s->rate) {
        s->counter = 0;
        ST_TRY(s->linear_solver->cls->linsolver->set_system(s->linear_solver, sys, mf, bf, kf,
                                                            err));
        s->nbuilds++;
        memcpy(s->rref, s->rot->r, 9 * s->np * sizeof *s->rref);
        s->identity = true;
    } else {
        current_rotations(s);
        s->identity = false;
    }
    return ST_OK;
}

/* y = R^T v (transpose) or R v on the finder's vertices; the other scalars
 * copied. */
static void rotate(const warp_pre *s, double *y, const double *v, bool transpose)
{
    if (y != v)
        memcpy(y, v, s->sys->size * sizeof *y);
    for (size_t i = 0; i < s->np; i++) {
        const double *r = s->rcur + 9 * i, *a = v + s->off + 3 * i;
        double *o = y + s->off + 3 * i;
        const double a0 = a[0], a1 = a[1], a2 = a[2];
        if (transpose) {
            o[0] = r[0] * a0 + r[3] * a1 + r[6] * a2;
            o[1] = r[1] * a0 + r[4] * a1 + r[7] * a2;
            o[2] = r[2] * a0 + r[5] * a1 + r[8] * a2;
        } else {
            o[0] = r[0] * a0 + r[1] * a1 + r[2] * a2;
            o[1] = r[3] * a0 + r[4] * a1 + r[5] * a2;
            o[2] = r[6] * a0 + r[7] * a1 + r[8] * a2;
        }
    }
}

static st_status warp_solve(st_component *self, st_system *sys, double *x, const double *b,
                            st_error *err)
{
    warp_pre *s = (warp_pre *)self;
    if (s->sys != sys || !s->rref)
        return st_component_error(self, NULL, err, ST_ESTATE, "not bound to this system");
    const st_linsolver_ops *ops = s->linear_solver->cls->linsolver;
    if (s->identity)
        return ops->solve(s->linear_solver, sys, x, b, err);
    rotate(s, s->t, b, true);
    ST_TRY(ops->solve(s->linear_solver, sys, s->z, s->t, err));
    rotate(s, x, s->z, false);
    return ST_OK;
}

static void warp_cleanup(st_component *self) { warp_free((warp_pre *)self); }

static const st_linsolver_ops warp_ops = {
    .struct_size = sizeof(st_linsolver_ops),
    .bind = warp_bind,
    .set_system = warp_set_system,
    .solve = warp_solve,
};

/* A resumed run would need the wrapped solver's factor at the state it was
 * built at, which PCGLinearSolver's checkpoint does not record for a
 * wrapped solver: refused rather than resumed with another preconditioner. */
static st_status warp_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    if (st_checkpoint_reading(ck))
        return st_component_error(self, NULL, err, ST_EINVAL,
                                  "resuming from a checkpoint is not supported: the stale "
                                  "factor of the wrapped solver is not saved");
    return ST_OK;
}

static const st_checkpoint_ops warp_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = warp_checkpoint,
};

const st_class warp_preconditioner_class = {
    .struct_size = sizeof(st_class),
    .name = "WarpPreconditioner",
    .category = "LinearSolver",
    .description = "Linear system solver wrapping another (precomputed) linear solver by a "
                   "per-node rotation matrix",
    .instance_size = sizeof(warp_pre),
    .fields = warp_fields,
    .init = warp_init,
    .cleanup = warp_cleanup,
    .linsolver = &warp_ops,
    .checkpoint = &warp_checkpoint_ops,
};
