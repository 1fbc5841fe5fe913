/* collision.h - what the components of the Collision plugin share: the
 * collision models' common head, the detection output of an intersection
 * test, the contacts of a pair of models and the penalty response.
 *
 * SOFA's pipeline in one picture: each step the CollisionPipeline computes
 * every active model's bounding boxes, the broad phase keeps the pairs of
 * models whose boxes meet (within the intersection method's alarm
 * distance), the narrow phase tests their elements with the intersection
 * method, and the response turns each detection output into a penalty
 * contact (SOFA's BarycentricPenalityContact and PenalityContactForceField).
 * Here a pair's contacts live in a cpair that the pipeline builds once at
 * init and refills each step; the forces act through the collision model
 * that owns the pair (it plays the force field role on its node's state),
 * so the ODE solver that integrates that state sees them in every path. */
#ifndef COLLISION_H
#define COLLISION_H

#include <settee/settee.h>

/* Element kinds, in the order MinProximityIntersection pairs them: the
 * model of lower kind is SOFA's first model of the pair. */
typedef enum cm_kind {
    CM_TRIANGLE = 0,
    CM_LINE,
    CM_SPHERE,      /* SphereCollisionModel on a Vec3d state */
    CM_RIGIDSPHERE, /* SphereCollisionModel on a Rigid3d state */
    CM_TETRA,       /* TetrahedronCollisionModel */
    CM_POINT,
    CM_CUBE,
    CM_CYLINDER,    /* CylinderCollisionModel (Rigid3d; no intersection test, as SOFA's methods) */
    CM_OBB,         /* OBBCollisionModel (Rigid3d: one box per frame; obb_capsule.c) */
    CM_CAPSULE,     /* CapsuleCollisionModel (Vec3d: one capsule per edge of the topology) */
    CM_RIGIDCAPSULE, /* RigidCapsuleCollisionModel (Rigid3d: one capsule per frame) */
    CM_RIGIDDGRID,  /* RigidDistanceGridCollisionModel (Rigid3d: one distance grid on frame 0) */
    CM_FFDDGRID,    /* FFDDistanceGridCollisionModel (Vec3d: a distance grid deformed by a grid's cubes) */
    CM_RAY,         /* RayCollisionModel (Vec3d: one ray per point; no test without picking) */
    CM_KIND_COUNT
} cm_kind;

typedef struct cpair cpair;
struct dgrid;
struct ffd_cube;

/* The common head of every collision model (SOFA's CollisionModel data). */
typedef struct cmodel {
    st_component base;
    bool active;               /* "active" */
    bool moving;               /* "moving" */
    bool simulated;            /* "simulated" */
    bool self_collision;       /* "selfCollision" */
    double contact_distance;   /* "contactDistance" (alias "proximity") */
    double contact_stiffness;  /* "contactStiffness" */
    double contact_friction;   /* "contactFriction" */
    double contact_restitution; /* "contactRestitution" */
    char *contact_response;    /* "contactResponse" */
    st_vec4 color;             /* "color" */
    st_array group;            /* "group", uint[] */
    unsigned number_of_contacts; /* "numberOfContacts" (output) */
    bool both_side;            /* "bothSide" */
    bool compute_normals;      /* "computeNormals" */
    bool display_free_position; /* "displayFreePosition" */
    bool use_curvature;        /* "useCurvature" */
    st_array list_radius;      /* "listRadius" (spheres) */
    double radius;             /* "radius" (spheres) */
    bool show_impostors;       /* "showImpostors" (spheres) */
    st_component *topology;    /* "topology" link (lines, triangles) */
    st_array radii, heights;   /* cylinders: "radii", "heights" */
    double default_radius;     /* cylinders: "defaultRadius" */
    double default_height;     /* cylinders: "defaultHeight" */
    double default_length;     /* rays: "defaultLength" */
    int leaf_scale;            /* SpatialGridPointModel: "leafScale" (its tree only) */
    st_vec3 default_axis;      /* cylinders: "defaultLocalAxis" */
    st_array extents;          /* OBBs: "extents", half-widths, 3 per box */
    double default_extent;     /* OBBs: "defaultExtent" */
    /* Distance grids (distance_grid_collision.c): SOFA's data. */
    char *dg_filename;         /* "filename" (alias fileRigidDistanceGrid / fileFFDDistanceGrid) */
    double dg_scale;           /* "scale" */
    st_vec3 dg_translation;    /* "translation" (rigid) */
    st_vec3 dg_rotation;       /* "rotation" (rigid, degrees) */
    double dg_sampling;        /* "sampling" */
    st_array dg_box;           /* "box": xmin ymin zmin xmax ymax zmax */
    int dg_nx, dg_ny, dg_nz;   /* "nx", "ny", "nz" */
    char *dg_dumpfilename;     /* "dumpfilename" */
    bool dg_use_points;        /* "usePoints" */
    bool dg_flip_normals;      /* "flipNormals" (rigid) */
    bool dg_single_contact;    /* "singleContact" (FFD) */
    bool dg_show_mesh_points, dg_show_grid_points; /* drawing */
    double dg_show_min_dist, dg_show_max_dist;     /* drawing */
    /* Set at init. */
    struct dgrid *grid;        /* owned */
    double dg_rot[9];          /* rigid: the grid's rotation (row-major) this step */
    double dg_trans[3];        /* rigid: its translation */
    bool dg_transformed;       /* rigid: SOFA's isTransformed */
    bool dg_warned;            /* the cube-cube note was given */
    struct ffd_cube *ffd;      /* FFD: one per element (a cube of the grid topology); owned */
    size_t nffd;               /* FFD: the cubes allocated */

    /* Set at init. */
    cm_kind kind;
    st_mstate *ms;             /* the node's state */
    size_t nelem;              /* elements: points, lines, triangles, tetrahedra, spheres */
    unsigned *elems;           /* vertex indices, 2 per line, 3 per triangle, 4 per tetrahedron; owned */
    double *pnormals;          /* points with computeNormals: 3 per point (SOFA's updateNormals); owned */
    const st_array *topo_tet, *topo_quad; /* points: the topology's tetrahedra and quads (normals) */
    double *box;               /* 6 per element: min xyz, max xyz (this step) */
    double mbox[6];            /* the model's box */
    double ext[3];             /* the largest element box width along each axis */
    unsigned char *tflags;     /* triangles: the vertices and edges each owns (TF_*); owned */
    unsigned char *tbedges;    /* triangles: bit j, the edge opposite vertex j is on the border; owned */
    const st_array *topo_tri;  /* the topology's triangles (LocalMinDistance's filters) */
    /* Points and lines: the topology's triangles around each vertex (vt),
     * lines: the model's edges around each vertex (ve); CSR, ascending. */
    unsigned *vt_start, *vt_items, *ve_start, *ve_items; /* owned */
    const struct cmodel *lines; /* a LineCollisionModel of the same node (set at bind) */
    /* Pairs whose force this model adds (it is their owner). */
    cpair **owned;
    size_t nowned;
    /* Topological changes: registered for them; a change happened since
     * the elements were read (they are read again before the next
     * detection, as SOFA's models do at their next update). */
    bool listening;
    bool stale;
    /* TriangleOctreeCollisionModel (raytrace.c): SOFA's per-step state. */
    bool octree;
    bool draw_octree;          /* "drawOctree" */
    double *oct_tnorm;         /* triangle normals, 3 per triangle (one step behind); owned */
    double *oct_vnorm;         /* vertex normals, 3 per vertex; owned */
    double oct_box[6];         /* SOFA's model box (triangles 1.., and vertex 0) */
    unsigned long oct_step;    /* the step they were last updated for (0: never) */
    /* TriangleModelInRegularGrid (triangle_collision_model.c): the state of
     * the topology its triangles come from through topological mappings;
     * its points' box is the model's one bounding cube (gbox). */
    const st_mstate *grid_state;
    double gbox[6];
} cmodel;

/* One detection output (SOFA's DetectionOutput): closest points p[0] on
 * element e[0] of the first model and p[1] on e[1] of the second, normal
 * from p[0] to p[1] (unit), value = their distance minus the contact
 * distance, and the barycentric weights of each point in its element. */
typedef struct cdetect {
    double p[2][3];
    double normal[3];
    double value;
    unsigned e[2];
    unsigned id;               /* SOFA's detection id, for duplicates */
    double w[2][4];            /* weights of the element's vertices (lines: 2, triangles: 3, tetrahedra: 4) */
} cdetect;

/* One side of a contact: where its point sits. Vec3d models: a barycentric
 * combination of up to three vertices (a sphere's centre, a point's vertex,
 * a point on a line or a triangle); Rigid3d spheres: a point fixed in the
 * body frame of frame idx[0]. */
typedef struct cside {
    unsigned idx[8];           /* 8: an FFD grid's cube corners */
    double w[8];
    unsigned n;
    double local[3];           /* rigid: the point in the body frame */
    double arm[3];             /* rigid: R local at the last add_force */
} cside;

/* A penalty contact (SOFA's PenalityContactForceField::Contact). */
typedef struct ccontact {
    cside s[2];
    double norm[3];
    double dist;               /* rest distance: contact distances and radii */
    double ks;                 /* stiffness */
    double pen;                /* penetration at the last add_force */
    unsigned elem[2];
    double pt[2][3];           /* the two points where detection found them */
    double rest[3];            /* StickContactForceField: the detection vector pt[1] - pt[0] */
    double kd;                 /* StickContactForceField: damping (both contactFriction) */
} ccontact;

/* A Lagrangian contact (SOFA's FrictionContactConstraint and
 * StickContactConstraint responses: BaseContactLagrangianConstraint's
 * Contact, or a BilateralLagrangianConstraint row triple). Side 0 is SOFA's
 * m1 (point Q), side 1 its m2 (point P); rows go along n, t, s (friction)
 * or x, y, z (stick) with J = -dir on side 0, +dir on side 1. */
typedef struct ucontact {
    cside s[2];
    double n[3], t[3], sv[3];  /* normal (first to second) and SOFA's tangents */
    double q[3], p[3];         /* the mapped points at detection (positions x_t) */
    double dist;               /* contact distance: d0 + radii */
    double rest[3];            /* stick: p - q at detection */
    double w[9];               /* friction: W's 6 block values; stick: W_bb^-1 */
    double lambda[3];          /* the multipliers of the last solve */
    double pt[2][3];           /* the detection points */
} ucontact;

/* The contacts of one pair of models, refilled each step. */
struct cpair {
    cmodel *m[2];
    const struct cintersect *method;
    st_system *sys;            /* the system the forces act in */
    bool in_sys[2];            /* the side's state belongs to sys */
    bool isolated;             /* penalty outside every ODE solver's subtree: explicit, through
                                  externalForce (SOFA's isolated interaction force field) */
    int geometric_stiffness;   /* rigid sides: the lever arm's rotation in K (1) or not (0) */
    int kind;                  /* its response (cresp_kind): penalty or Lagrangian */
    ccontact *c;
    size_t n, cap;
    cdetect *det;              /* this step's detection outputs */
    size_t ndet, capdet;
    int *by_id;                /* per id: detection index + 1 while deduplicating */
    size_t nid;
    /* The candidate element pairs' search (element_search.h); owned. */
    struct csearch *search;
    ucontact *u;               /* Lagrangian contacts (constraint responses) */
    size_t nu, capu;
    bool told_unseen;          /* the "penetration without contact" note was given */
    bool keep_alive;           /* StickContactForceField: springs kept while nothing is detected */
    st_status narrow_rc;       /* the narrow phase of this step, when run on a thread */
    st_error *narrow_err;      /* its error (allocated with the pair's first parallel run) */
    size_t seq;                /* its place in the broad phase's order (detections()) */
};

/* Which response a SOFA response string names: PenalityContactForceField
 * (or default), the Lagrangian FrictionContactConstraint and
 * StickContactConstraint, or nullptr (no response). */
typedef enum cresp_kind {
    CR_PENALTY = 0,
    CR_FRICTION,
    CR_STICK,
    CR_NONE,
    CR_STICKFF, /* StickContactForceField: SOFA's BarycentricStickContact springs (penalty.c) */
    CR_AUGLAG   /* AugmentedLagrangianResponseConstraint (contact_constraint.c) */
} cresp_kind;

/* A response with its parameters ("Type?name=value&..."). */
typedef struct cresp {
    cresp_kind kind;
    int geometric_stiffness; /* penalty: "geometricStiffness", 0 none, 1 exact */
    double mu;               /* friction: "mu" (SOFA's default 0.8) */
    double tol;              /* friction: "tol" (0 only) */
    bool keep_alive;         /* stick (both kinds): "keepAlive" (default true) */
    double epsilon;          /* augmented Lagrangian: "epsilon" (default 0) */
} cresp;

/* One rule of RuleBasedContactManager: a model name ("*": any) or a group
 * number on each side, and the response. */
typedef struct crule {
    char name[2][128]; /* empty: a group number */
    int group[2];
    char response[256];
} crule;

/* CollisionResponse and RuleBasedContactManager (collision_response.c).
 * With a Lagrangian response the manager plays the constraint model role
 * (roles.h st_constraint_ops) over the contacts of the pairs its pipeline
 * gives it at bind. */
typedef struct cresponse {
    st_component base;
    char *response;            /* "response" */
    char *response_params;     /* "responseParams" */
    char *variables;           /* RuleBasedContactManager: "variables" */
    char *rules_text;          /* RuleBasedContactManager: "rules" */
    crule *rules;
    size_t nrules;
    /* Parsed at init from response and responseParams. */
    cresp_kind kind;
    double mu;                 /* FrictionContactConstraint's "mu" */
    double tol;                /* "tol" (0 only) */
    bool keep_alive;           /* StickContactConstraint's "keepAlive" */
    double epsilon;            /* AugmentedLagrangianResponseConstraint's "epsilon" */
    /* Set by the pipeline at bind. */
    cpair *pairs;
    size_t npairs;
    size_t first;              /* first row of this solve */
    unsigned active;           /* "numberOfActiveContacts" (output): contacts with lambda_n > 0 */
} cresponse;

/* ---- Lagrangian contacts (contact_constraint.c) ---- */
/* Turns this step's detection outputs of p into Lagrangian contacts at the
 * current positions (x_t): duplicates removed as SOFA's
 * BaseUnilateralContactResponse (both points within 1e-4 of a kept
 * contact's), contact distance d0 + radii. keep: StickContactConstraint's
 * keepAlive, a pair with no detection keeps its last contacts. */
st_status contact_constraint_fill(const cresponse *r, cpair *p, double d0, st_error *err);
extern const st_constraint_ops contact_constraint_ops;

/* SOFA's TriangleCollisionModel flags: the first triangle (lowest index)
 * around a vertex owns it, the first around an edge owns the edge; edge j
 * is the edge opposite vertex j. */
enum { TF_P1 = 1, TF_P2 = 2, TF_P3 = 4, TF_E23 = 8, TF_E31 = 16, TF_E12 = 32 };

/* Which intersection method (the primitive tests differ). */
typedef enum cmethod { CI_MIN = 0, CI_DISCRETE, CI_NEW, CI_LMD, CI_CCD } cmethod;

/* The intersection method's parameters (SOFA's Intersection). */
typedef struct cintersect {
    st_component base;
    double alarm_distance;     /* "alarmDistance" */
    double contact_distance;   /* "contactDistance" */
    bool use_sphere_triangle, use_point_point, use_surface_normals, use_line_point, use_line_line;
    bool proximity;            /* false: DiscreteIntersection (distances 0) */
    cmethod method;
    /* LocalMinDistance */
    bool filter_intersection;  /* "filterIntersection" */
    double angle_cone;         /* "angleCone" */
    double cone_factor;        /* "coneFactor" */
    bool use_lmd_filters;      /* "useLMDFilters" */
    /* CCDTightInclusionIntersection (ccd.c) */
    char *ccd_type;            /* "continuousCollisionType": None, Inertia, FreeMotion */
    double ccd_tolerance;      /* "tolerance" */
    int ccd_max_iterations;    /* "maxIterations" */
    bool ccd_swept;            /* the type is not None: boxes cover the motion */
} cintersect;

/* CCDTightInclusionIntersection (ccd.c): the continuous test of element i
 * of q->m[0] against element j of q->m[1] (triangle-point, line-line)
 * between the positions x and the free positions x + dt v; fills d and
 * returns 1 on a contact. */
int ccd_test(const cpair *q, size_t i, size_t j, double max_separation, cdetect *d);
/* Grows the element boxes of m to cover the free positions too. */
void ccd_sweep_boxes(cmodel *m);

/* The distances of every proximity method (SOFA's BaseProximityIntersection). */
#define CINTERSECT_DISTANCE_FIELDS                                                                \
    ST_REAL(cintersect, alarm_distance, "alarmDistance", "1",                                    \
            "Distance above which the intersection computations ignores the proximity pair. "    \
            "This distance can also be used in some broad phase algorithms to reduce the search " \
            "area"),                                                                              \
        ST_REAL(cintersect, contact_distance, "contactDistance", "0.5",                          \
                "Distance below which a contact is created")

/* ---- geometry (intersect.c): SOFA's MinProximityIntersection tests ----
 * Each returns 1 and fills d when the two primitives are closer than
 * alarm, 0 otherwise; contact is subtracted from the distance in d->value.
 * Arguments are in SOFA's order (the first primitive is the first model). */
int st_coll_point_point(const double p[3], const double q[3], double alarm, double contact,
                        cdetect *d);
int st_coll_line_point(const double a[3], const double b[3], const double p[3], double alarm,
                       double contact, cdetect *d);
int st_coll_line_line(const double a[3], const double b[3], const double c[3], const double e[3],
                      double alarm, double contact, cdetect *d);
int st_coll_triangle_point(const double a[3], const double b[3], const double c[3],
                           const double p[3], double alarm, double contact, cdetect *d);
/* Spheres: centres and radii; alarm and contact exclude the radii, which
 * the test adds. rigid2: the second sphere is a Rigid3d one (its contact
 * point is on its surface, as SOFA's TSphere<Rigid3d>). */
int st_coll_sphere_sphere(const double c1[3], double r1, bool rigid1, const double c2[3],
                          double r2, bool rigid2, double alarm, double contact, cdetect *d);
/* SOFA's RayDiscreteIntersection tests (ray o + t d, 0 <= t <= len); 0 or 1 output. */
int st_coll_ray_triangle(const double o[3], const double d[3], double len, const double a[3],
                         const double b[3], const double c[3], cdetect *out);
int st_coll_ray_sphere(const double o[3], const double d[3], double len, const double ctr[3],
                       double rad, cdetect *out);
int st_coll_sphere_point(const double c[3], double r, bool rigid, const double p[3],
                         double alarm, double contact, cdetect *d);
int st_coll_line_sphere(const double a[3], const double b[3], const double c[3], double r,
                        bool rigid, double alarm, double contact, cdetect *d);
int st_coll_triangle_sphere(const double a[3], const double b[3], const double c[3],
                            const double s[3], double r, bool rigid, double alarm,
                            double contact, cdetect *d);

/* ---- NewProximityIntersection's and LocalMinDistance's tests
 * (intersect.c); same conventions. flags: the triangle's TF_* ---- */
int st_coll_new_line_line(const double a[3], const double b[3], const double c[3],
                          const double e[3], double alarm, double contact, cdetect *d);
int st_coll_new_triangle_point(const double a[3], const double b[3], const double c[3],
                               unsigned flags, const double p[3], double alarm, double contact,
                               cdetect *d);
int st_coll_new_triangle_sphere(const double a[3], const double b[3], const double c[3],
                                unsigned flags, const double s[3], double r, bool rigid,
                                double alarm, double contact, cdetect *d);
/* Triangle-line (SOFA's MeshNewProximityIntersection): the triangle's
 * owned corners on the segment, the segment's ends on the triangle, and
 * with line_line its owned edges against the segment; all outputs get id
 * (SOFA: the line's index). Triangle-triangle: the first's corners on the
 * second (ids id1 + corner), the second's owned corners on the first
 * (id2 + corner), with line_line owned edge against owned edge (id2 + 3 +
 * 3 edge + edge). Return the number of outputs written to d (at most
 * CDETECT_MAX). */
enum { CDETECT_MAX = 15 };
int st_coll_new_triangle_line(const double a[3], const double b[3], const double c[3],
                              unsigned flags, const double q1[3], const double q2[3],
                              bool line_line, unsigned id, double alarm, double contact,
                              cdetect *d);
int st_coll_new_triangle_triangle(const double a[3], const double b[3], const double c[3],
                                  unsigned f1, const double p[3], const double q[3],
                                  const double r[3], unsigned f2, bool line_line, unsigned id1,
                                  unsigned id2, double alarm, double contact, cdetect *d);
int st_coll_lmd_line_line(const double a[3], const double b[3], const double c[3],
                          const double e[3], double alarm, double contact, cdetect *d);
/* Line-point and line-sphere (r = 0: a point): interior projections only. */
int st_coll_lmd_line_point(const double a[3], const double b[3], const double p[3], double r,
                           double alarm, double contact, cdetect *d);
/* ---- volumes (intersect_volume.c) ---- */
/* SOFA's TetrahedronDiscreteIntersection (every method has it, through
 * DiscreteIntersection): a point p of outward normal n (zero: no test)
 * inside tetrahedron a b c e gives a contact from the point of the
 * tetrahedron's surface met going from p along -n (d->p[0], weights
 * d->w[0] of a b c e) to p (d->p[1]), normal -n, value minus that length.
 * Returns 1 on a contact. */
int st_coll_tetra_point(const double a[3], const double b[3], const double c[3],
                        const double e[3], const double p[3], const double n[3], cdetect *d);
/* SOFA's CylinderCollisionModel box: the end discs' centres c +- h/2 axis
 * widened by r along every axis. */
void st_coll_cylinder_box(const double c[3], const double axis[3], double r, double h,
                          double box[6]);

/* LocalMinDistance's cone filters (testValidity): whether a contact of
 * element e of m along pq (from e's point towards the other side) is kept. */
bool st_coll_lmd_valid(const cintersect *mth, const cmodel *m, size_t e, const double pq[3]);

/* Grows *p (an array of size-byte entries, capacity *cap) to hold need
 * entries, doubling; ST_ENOMEM when it cannot (penalty.c). */
st_status cgrow(void **p, size_t *cap, size_t need, size_t size, st_error *err);

/* Where the contact point of element e sits on model m, for detection
 * point pt with barycentric weights w; *r the radius the mapper adds to the
 * contact distance (penalty.c). */
void cside_make(const cmodel *m, unsigned e, const double pt[3], const double w[4], cside *s,
                double *r);
/* The side's point for the model's coordinates xs; rigid sides keep their
 * lever arm (penalty.c). */
void cside_point(const cmodel *m, cside *s, const double *xs, double out[3]);

/* ---- OBBs and capsules (obb_capsule.c): SOFA's CollisionOBBCapsule ----
 * Every method (SOFA's DiscreteIntersection registrations): OBB-OBB,
 * sphere-OBB, capsule-capsule, capsule-sphere, capsule-OBB (capsules Vec3d
 * or Rigid3d, spheres Vec3d or Rigid3d); NewProximityIntersection also:
 * triangle-OBB, capsule-triangle, capsule-line. One detection per element
 * pair. */
/* Whether the method tests the pair of kinds (a, b), one of them an OBB or
 * a capsule; *first: which of the two is SOFA's first model (0: a). */
bool obbcap_has_test(const cintersect *m, cm_kind a, cm_kind b);
/* SOFA's order of the models in a pair: lower first. */
int obbcap_order(cm_kind k);
/* The element test of q's pair (i, j): fills d, returns 1 on a contact. */
int obbcap_test(const cpair *q, size_t i, size_t j, double alarm, double contact, cdetect *d);
/* OBB i of m: centre, axes (rows: the world directions of the local x y z)
 * and half-widths. */
void obbcap_box(const cmodel *m, size_t i, double c[3], double ax[3][3], double e[3]);
/* Capsule i of m: its axis' ends and radius. */
void obbcap_capsule(const cmodel *m, size_t i, double p1[3], double p2[3], double *r);
/* Capsule i's radius (Vec3d: listCapsuleRadii, Rigid3d: radii, else defaultRadius). */
double cmodel_capsule_radius(const cmodel *m, size_t i);
/* Whether m's elements are rigid bodies (contact points fixed in a frame). */
bool cmodel_rigid(const cmodel *m);
/* Geometry, exposed for the tests: boxes (centre, axes, half-widths) and
 * triangles as convex polytopes; the closest features along the axis of
 * largest separation. Normal from the first to the second, value the
 * signed separation minus contact; 1 when it is below alarm. */
int st_coll_obb_obb(const double c0[3], const double a0[3][3], const double e0[3],
                    const double c1[3], const double a1[3][3], const double e1[3], double alarm,
                    double contact, cdetect *d);
int st_coll_triangle_obb(const double t0[3], const double t1[3], const double t2[3],
                         const double c[3], const double a[3][3], const double e[3], double alarm,
                         double contact, cdetect *d);
/* A segment (p1 p2, radius r; r = 0: a point when p1 == p2) against a box:
 * the point of the segment of least signed distance to the box (the middle
 * of the flat stretch when several), normal from it to the box. */
int st_coll_segment_obb(const double p1[3], const double p2[3], double r, const double c[3],
                        const double a[3][3], const double e[3], double alarm, double contact,
                        cdetect *d);

/* ---- distance grids (distance_grid_collision.c): SOFA's SofaDistanceGrid ---- */
/* Whether SOFA registers a test for kinds (a, b), one of them a grid (its
 * DiscreteIntersection intersectors, which every proximity method
 * inherits): rigid grid - point, sphere, line, triangle, rigid grid; FFD
 * grid - the same and FFD grid. */
bool dgrid_has_test(cm_kind a, cm_kind b);
/* The element test of q's pair (i, j), the grid first: fills d (at most
 * dgrid_max_outputs), returns their number. */
int dgrid_test(const cpair *q, size_t i, size_t j, double contact, cdetect *d);
/* The most outputs one element test of q can write (grid-grid: every mesh
 * point of both grids; else CDETECT_MAX). */
size_t dgrid_max_outputs(const cpair *q);
/* An FFD grid's contact point: rest-space point pt of cube e, as the
 * trilinear weights of the cube's 8 corners (SOFA's addPointInCube). */
void dgrid_ffd_side(const cmodel *m, unsigned e, const double pt[3], cside *s);
/* Loads the model's grid (and, FFD, its cubes) at init. */
st_status dgrid_model_init(cmodel *m, st_error *err);
/* The element boxes of a grid model for this step. */
void dgrid_update_boxes(cmodel *m);
void dgrid_model_free(cmodel *m);

/* ---- models (model_common.c) ---- */
st_status cmodel_init(cmodel *m, cm_kind kind, st_error *err);
void cmodel_cleanup(st_component *self);
/* Reads the model's elements again when a topology above it (or the one it
 * reads) changed since (SOFA's TriangleCollisionModel compares the
 * topology's revision at its next update; lines and points resize there
 * too). */
st_status cmodel_refresh(cmodel *m, st_error *err);
/* Positions of the model's state (its own array, bound to the system's x
 * when a solver integrates it). */
const double *cmodel_x(const cmodel *m);
/* The radius of sphere i. */
double cmodel_radius(const cmodel *m, size_t i);
/* Cylinder i's radius, height and axis in the world frame. */
void cmodel_cylinder(const cmodel *m, size_t i, double *r, double *h, double axis[3]);
/* Recomputes element and model boxes from the current positions. */
void cmodel_update_boxes(cmodel *m);
/* SOFA's canCollideWith (same node: selfCollision; else groups). */
bool cmodel_can_collide(const cmodel *a, const cmodel *b);
bool st_is_collision_model(const st_component *c);
/* ---- contact managers (collision_response.c) ---- */
/* CollisionResponse or RuleBasedContactManager. */
bool st_is_contact_manager(const st_component *c);
/* The response SOFA's string s names (field: where it was read, for
 * errors): PenalityContactForceField (or default), nullptr; else an error. */
st_status cresponse_parse(const st_component *self, const char *field, const char *s,
                          cresp *out, st_error *err);
/* The response of the pair (a, b) by SOFA's rules (mgr NULL: the default). */
st_status st_contact_response(const st_component *mgr, const cmodel *a, const cmodel *b,
                              cresp *out, st_error *err);
extern const st_forcefield_ops cmodel_forcefield_ops;
extern const char *const cmodel_sphere_templates[];

/* The field table entries every collision model has. */
#define CMODEL_COMMON_FIELDS                                                                      \
    ST_BOOL(cmodel, active, "active", "true",                                                    \
            "flag indicating if this collision model is active and should be included in "       \
            "default collision detections"),                                                      \
        ST_BOOL(cmodel, moving, "moving", "true",                                                \
                "flag indicating if this object is changing position between iterations"),       \
        ST_BOOL(cmodel, simulated, "simulated", "true",                                          \
                "flag indicating if this object is controlled by a simulation"),                 \
        ST_BOOL(cmodel, self_collision, "selfCollision", "false",                                \
                "flag indication if the object can self collide"),                               \
        ST_FIELD_EX(cmodel, contact_distance, "contactDistance", ST_T_REAL, double, "0",         \
                    "This distance is added along the normal of the collision element to apply " \
                    "'skinning' effect for collision. The contact arise at this distance of the " \
                    "element.",                                                                   \
                    0, "proximity", 0.0, 0.0),                                                    \
        ST_REAL(cmodel, contact_stiffness, "contactStiffness", "10", "Contact stiffness"),      \
        ST_IGNORED(cmodel, contact_friction, "contactFriction", ST_T_REAL, double, "0",         \
                   "Contact friction coefficient (dry or viscous or unused depending on the "    \
                   "contact method; PenalityContactForceField, as in SOFA, does not use it)"),   \
        ST_IGNORED(cmodel, contact_restitution, "contactRestitution", ST_T_REAL, double, "0",   \
                   "Contact coefficient of restitution (unused by penalty contacts)"),           \
        ST_STRING(cmodel, contact_response, "contactResponse", NULL,                             \
                  "if set, indicate to the ContactManager that this model should use the given " \
                  "class of contacts (settee: the CollisionResponse's response only)"),                 \
        ST_IGNORED(cmodel, color, "color", ST_T_RGBA, st_vec4, "1 0 0 1",                       \
                   "color used to display the collision model if requested (no display)"),      \
        ST_UINTS(cmodel, group, "group", NULL,                                                   \
                 "IDs of the groups containing this model. No collision can occur between "      \
                 "collision models included in a common group (e.g. allowing the same object to " \
                 "have multiple collision models)"),                                              \
        ST_OUTPUT(cmodel, number_of_contacts, "numberOfContacts", ST_T_UINT, unsigned,           \
                  "Number of collision models this collision model is currently attached to")

/* Defines a collision model class: its init (cmodel_init with the kind)
 * and its st_class, from the file's static `fields` and `aliases`. */
#define CMODEL_CLASS(var, cname, ckind, desc, templ)                                           \
    static st_status var##_init(st_component *self, st_error *err)                              \
    {                                                                                            \
        return cmodel_init((cmodel *)self, (ckind), err);                                       \
    }                                                                                            \
    const st_class var = {                                                                       \
        .struct_size = sizeof(st_class),                                                         \
        .name = (cname),                                                                         \
        .category = "CollisionModel",                                                            \
        .description = (desc),                                                                   \
        .aliases = aliases,                                                                      \
        .instance_size = sizeof(cmodel),                                                         \
        .fields = fields,                                                                        \
        .init = var##_init,                                                                      \
        .cleanup = cmodel_cleanup,                                                               \
        .forcefield = &cmodel_forcefield_ops,                                                    \
        .templates = (templ),                                                                    \
    }

#endif
