/* solver_common.h - what GenericConstraintSolver and
 * BlockGaussSeidelConstraintSolver share: the instance, SOFA's fields, and
 * the build / projected block Gauss-Seidel / correction sequence. */
#ifndef LAGRANGIAN_SOLVER_COMMON_H
#define LAGRANGIAN_SOLVER_COMMON_H

#include <settee/settee.h>

typedef struct lagrange_block {
    st_component *owner; /* the constraint model */
    size_t row;          /* first row */
    unsigned nb;         /* rows */
} lagrange_block;

/* What a resolution method found, for the common end of every solve
 * (SOFA's result_output): the outputs, the warning when a run of
 * unconverged solves starts, the models' store of their multipliers. */
typedef struct lagrange_outcome {
    bool converged;
    int iterations;        /* currentIterations */
    int done;              /* the iterations the warning names */
    double error;          /* currentError */
    double tol;            /* the tolerance the warning names */
    const char *failure;   /* the warning's opening, NULL: "no convergence" */
    const char *max_field; /* the bound it names, NULL: "maxIterations" */
} lagrange_outcome;

typedef struct lagrange_solver {
    st_component base;
    int max_it;                    /* "maxIterations" (alias maxIt) */
    double tolerance;              /* "tolerance" */
    double sor;                    /* "sor" */
    double regularization;         /* "regularizationTerm" */
    bool scale_tolerance;          /* "scaleTolerance" */
    bool all_verified;             /* "allVerified" */
    bool compute_graphs;           /* "computeGraphs" (ignored) */
    int current_num_constraints;   /* "currentNumConstraints" (output) */
    int current_num_groups;        /* "currentNumConstraintGroups" (output) */
    int current_iterations;        /* "currentIterations" (output) */
    double current_error;          /* "currentError" (output) */
    st_array constraint_forces;    /* "constraintForces" (output) */
    bool compute_constraint_forces; /* "computeConstraintForces" */
    bool multithreading;           /* "multithreading" (ignored) */
    bool use_svd;                  /* "useSVDForRegularization" */
    double svd_value_factor;       /* "svdSingularValueNullSpaceCriteriaFactor" */
    double svd_vector_factor;      /* "svdSingularVectorNullSpaceCriteriaFactor" */
    char *resolution_method;       /* "resolutionMethod" (GenericConstraintSolver) */
    /* Runtime, grown when the problem grows, never shrunk. */
    st_component **cons, **corr;
    size_t ncons, ncorr, capcons, capcorr;
    size_t *first;                 /* first row of each constraint */
    size_t capfirst;
    lagrange_block *blocks;
    size_t nblocks;
    st_cjacobian J;                /* as the models wrote it */
    st_cjacobian Jm;               /* rows on mapped states taken to the independent ones */
    st_cjacobian *Jw;              /* the one in use: J, or Jm when a row was mapped */
    double *W, *dfree, *lambda, *d, *tmp;
    double *old;                   /* a block's multipliers before its resolution */
    size_t capdim;
    /* W's runs of non-zero entries, row by row, for the Gauss-Seidel sweeps
     * (a row's sum skips W's zeros: the other terms, in the same order): row
     * r's runs are [wrun[2 k], wrun[2 k + 1]) for k in [wrow[r], wrow[r + 1]).
     * Found at the first sweep after W is built; capacities only grow. */
    size_t *wrow, *wrun;
    size_t wrow_cap, wrun_cap;
    bool wruns_valid;
    /* One scratch derivative vector per system a row touches (zero between
     * uses), to project J's rows by the projective constraints. */
    st_system **psys;
    double **pvec;
    size_t npsys;
    bool failing;                  /* the last solve did not converge */
    /* J's rows are left unprojected (SOFA's LCPConstraintSolver never calls
     * applyProjectiveConstraintOnConstraintMatrix: only the solvers derived
     * from GenericConstraintSolver do); set by the class before solving. */
    bool keep_fixed_rows;
    /* useSVDForRegularization's scratch (LAPACK dgesvd), grown with W. */
    double *svd_a, *svd_s, *svd_vt, *svd_work;
    bool *svd_null;
    size_t svd_cap;
    int svd_lwork;
    /* The resolution method (solver_methods.c), or NULL for the projected
     * block Gauss-Seidel: solves for lambda and fills *out; returns false
     * when it solved nothing (out of memory, rows it refuses): outputs and
     * multipliers are then left as they are, the solve unconverged. */
    bool (*method)(struct lagrange_solver *s, size_t dim, lagrange_outcome *out);
    void *method_data;             /* the method's own settings (owned by the class) */
    /* settee's outputs: whether the last solve converged (settee run's
     * solver summary counts the steps of each value), and the seconds spent
     * since init building (J, dfree, W), solving and correcting. */
    bool converged;                /* "converged" */
    size_t last_dim;               /* rows of the last problem built (st_cproblem) */
    double time_build, time_solve, time_correction;
} lagrange_solver;

/* The fields every solver of the plugin has, SOFA's defaults. */
#define LAGRANGE_SOLVER_FIELDS                                                                   \
    ST_FIELD_EX(lagrange_solver, max_it, "maxIterations", ST_T_INT, int, "1000",                 \
                "maximal number of iterations of iterative algorithm", 0, "maxIt", 1.0,         \
                2147483647.0),                                                                   \
    ST_REAL(lagrange_solver, tolerance, "tolerance", "0.001",                                    \
            "residual error threshold for termination of the Gauss-Seidel algorithm"),          \
    ST_REAL_RANGE(lagrange_solver, sor, "sor", "1", "Successive Over Relaxation parameter (0-2)", \
                  0.0, 2.0),                                                                     \
    ST_REAL(lagrange_solver, regularization, "regularizationTerm", "0",                          \
            "Add regularization factor times the identity matrix to the compliance W when "     \
            "solving constraints"),                                                              \
    ST_BOOL(lagrange_solver, scale_tolerance, "scaleTolerance", "true",                          \
            "Scale the error tolerance with the number of constraints"),                        \
    ST_BOOL(lagrange_solver, all_verified, "allVerified", "false",                               \
            "All constraints must be verified (each constraint's error < tolerance)"),          \
    ST_IGNORED(lagrange_solver, compute_graphs, "computeGraphs", ST_T_BOOL, bool, "false",       \
               "Compute graphs of errors and forces during resolution (settee: no GUI graphs; " \
               "currentError and constraintForces are the outputs)"),                          \
    ST_OUTPUT(lagrange_solver, current_num_constraints, "currentNumConstraints", ST_T_INT, int,  \
              "OUTPUT: current number of constraints"),                                         \
    ST_OUTPUT(lagrange_solver, current_num_groups, "currentNumConstraintGroups", ST_T_INT, int,  \
              "OUTPUT: current number of constraint groups"),                                   \
    ST_OUTPUT(lagrange_solver, current_iterations, "currentIterations", ST_T_INT, int,           \
              "OUTPUT: current number of iterations (SOFA's count: iterations done + 1)"),      \
    ST_OUTPUT(lagrange_solver, current_error, "currentError", ST_T_REAL, double,                 \
              "OUTPUT: current error"),                                                          \
    ST_OUTPUT(lagrange_solver, constraint_forces, "constraintForces", ST_T_REALS, st_array,      \
              "OUTPUT: constraint forces (stored only if computeConstraintForces=True)"),       \
    ST_BOOL(lagrange_solver, compute_constraint_forces, "computeConstraintForces", "false",      \
            "enable the storage of the constraintForces."),                                     \
    ST_IGNORED(lagrange_solver, multithreading, "multithreading", ST_T_BOOL, bool, "false",      \
               "Build compliances concurrently (settee builds them in sequence, same result)"), \
    ST_BOOL(lagrange_solver, use_svd, "useSVDForRegularization", "false",                        \
            "Use SVD decomposition of the compliance matrix to project singular values "        \
            "smaller than regularization to the regularization term. Only works with built"),   \
    ST_REAL(lagrange_solver, svd_value_factor, "svdSingularValueNullSpaceCriteriaFactor",        \
            "0.01",                                                                              \
            "Fraction of the highest singular value below which a singular value will be "      \
            "supposed to belong to the nullspace (used with useSVDForRegularization only)"),    \
    ST_REAL(lagrange_solver, svd_vector_factor, "svdSingularVectorNullSpaceCriteriaFactor",      \
            "0.001",                                                                             \
            "Absolute value below which a component of a normalized base vector will be "       \
            "considered null (used with useSVDForRegularization only)"),                        \
    ST_OUTPUT(lagrange_solver, converged, "converged", ST_T_BOOL, bool,                          \
              "settee: OUTPUT: the last solve met the tolerance within maxIterations (false is "  \
              "also warned when a run of unconverged solves starts)"),                           \
    ST_OUTPUT(lagrange_solver, time_build, "timeBuild", ST_T_REAL, double,                       \
              "settee: OUTPUT: seconds the last solve spent building J, the violations and W"),      \
    ST_OUTPUT(lagrange_solver, time_solve, "timeSolve", ST_T_REAL, double,                       \
              "settee: OUTPUT: seconds the last solve spent in the Gauss-Seidel iterations"),        \
    ST_OUTPUT(lagrange_solver, time_correction, "timeCorrection", ST_T_REAL, double,             \
              "settee: OUTPUT: seconds the last solve spent applying the corrections")

st_status lagrange_solver_init(st_component *self, st_error *err);
/* The tolerance of a solve of dim rows (scaleTolerance multiplies it by
 * dim unless allVerified). */
double lagrange_solver_tolerance(const lagrange_solver *s, size_t dim);
/* lambda cleared, then the models prepare their blocks and write their
 * warm starts. */
void lagrange_solver_init_resolutions(lagrange_solver *s, size_t dim);
/* The projected block Gauss-Seidel from lambda: sweeps (with SOR) until
 * the error is below tol (every block verified with allVerified) or
 * maxIterations; returns the sweeps done, *error the last one's. */
int lagrange_solver_iterate(lagrange_solver *s, size_t dim, double tol, double *error,
                            bool *converged);
/* One sweep of the projected block Gauss-Seidel over every block (SOFA's
 * gaussSeidel_increment): adds the blocks' errors to *error, clears
 * *verified when a block's error exceeds tol. */
void lagrange_solver_sweep(lagrange_solver *s, size_t dim, double tol, bool *verified,
                           double *error);
/* solver_methods.c: the other resolution methods on the built W. */
bool lagrange_unbuilt_gauss_seidel(lagrange_solver *s, size_t dim, lagrange_outcome *out);
bool lagrange_nncg(lagrange_solver *s, size_t dim, lagrange_outcome *out);
/* NNCG's work vectors: attach at init (sets method; iterations bounds the
 * iterations, maxIterations when 0), detach at cleanup before
 * lagrange_solver_cleanup. */
st_status lagrange_nncg_attach(lagrange_solver *s, int iterations, st_error *err);
void lagrange_nncg_detach(lagrange_solver *s);
void lagrange_solver_cleanup(st_component *self);
extern const st_csolver_ops lagrange_solver_ops;
/* The last step's problem (st_csolver_ops.problem), for the solvers that
 * build it with the sequence above. */
void lagrange_solver_problem(const st_component *self, st_cproblem *out);

#endif
