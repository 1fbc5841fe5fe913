/* beam_adapter.h - what the components of SOFA's BeamAdapter plugin share:
 * rigid transforms, the beams (edges of a topology between Rigid3d frames)
 * with their sections, the DOF-to-node transforms and the cubic spline
 * (Bezier) interpolation of a frame along a beam (BeamInterpolation), the
 * per-beam hooks of WireBeamInterpolation, the wire's rest shape and rod
 * sections, and the instrument controller's state and actions. Internal to
 * the plugin; its tests include it. */
#ifndef SETTEE_PLUGIN_BEAM_ADAPTER_H
#define SETTEE_PLUGIN_BEAM_ADAPTER_H

#include <settee/settee.h>

/* A rigid transform "parent_H_child" in standard form: q is the child's
 * orientation in the parent (x y z w), t the child's origin in the parent.
 * (SOFA's Transform stores the parent's origin in the child; the algebra is
 * the same.) */
typedef struct ba_xf {
    double q[4];
    double t[3];
} ba_xf;

void ba_xf_identity(ba_xf *h);
/* out = a b (out may alias a or b). */
void ba_xf_mul(ba_xf *out, const ba_xf *a, const ba_xf *b);
/* out = h^-1 (out may alias h). */
void ba_xf_inv(ba_xf *out, const ba_xf *h);
/* The 6x6 adjoint of h (row-major) acting on (linear, angular) twists:
 * [R, [t]x R; 0, R] (SOFA's Transform::getAdjointMatrix). */
void ba_xf_adjoint(const ba_xf *h, double A[36]);

/* One beam's section (SOFA's BeamSection). */
typedef struct ba_section {
    double A, Iy, Iz, J, Asy, Asz, r, r_inner;
} ba_section;

struct beam_interpolation;

/* What an interpolation built on BeamInterpolation's base gives per beam in
 * its own way (SOFA's virtual getBeamSection, getMechanicalParameters,
 * getSplineRestTransform and getRestTotalLength): WireBeamInterpolation
 * reads them from its WireRestShape. NULL hooks: BeamInterpolation's. */
typedef struct ba_beam_hooks {
    const ba_section *(*section)(const struct beam_interpolation *bi, size_t b);
    /* E, nu and (rho in: the force field's massDensity; out: the density used). */
    void (*mechanical)(const struct beam_interpolation *bi, size_t b, double *E, double *nu,
                       double *rho);
    void (*spline_rest)(const struct beam_interpolation *bi, size_t b, ba_xf *l0, ba_xf *l1);
    double (*rest_total_length)(const struct beam_interpolation *bi);
} ba_beam_hooks;

/* BeamInterpolation (SOFA's BaseBeamInterpolation and BeamInterpolation). */
typedef struct beam_interpolation {
    st_component base;
    /* BaseBeamInterpolation's data. */
    st_array edge_list;      /* "edgeList": uints, edges of the topology */
    st_array length_list;    /* "lengthList": reals, rest length per beam */
    st_array dof0_node0;     /* "DOF0TransformNode0": 7 per beam (x y z qx qy qz qw) */
    st_array dof1_node1;     /* "DOF1TransformNode1": 7 per beam */
    st_array curv_abs_list;  /* "curvAbsList": pairs (x0 x1) */
    st_array beam_collision; /* "beamCollision": uints */
    bool dofs_aligned;       /* "dofsAndBeamsAligned" */
    st_component *topology;  /* "topology" */
    /* BeamInterpolation's data. */
    char *cross_section_shape; /* "crossSectionShape" */
    st_array radius, inner_radius, length_y, length_z, young, poisson; /* per beam */
    double side_length, small_radius, large_radius;
    bool straight;           /* "straight" */
    char *vec_id;            /* "vecID" */
    st_array interpolation_inputs; /* "InterpolationInputs": pairs (beam, bary) */
    st_array interpolated_pos;     /* "InterpolatedPos": output, Rigid3d coordinates */
    st_array interpolated_vel;     /* "InterpolatedVel": output, Rigid3d derivatives */
    /* Set by init. */
    st_mstate *ms;
    const st_array *edges;   /* the topology's edges (pairs) */
    size_t nedges;
    bool constant;           /* one section for all beams (SOFA's m_constantBeam) */
    ba_section constant_section;
    ba_section *section;     /* nedges, owned, when !constant */
    double def_young, def_poisson;
    const ba_beam_hooks *hooks; /* NULL for BeamInterpolation itself */
} beam_interpolation;

/* BaseBeamInterpolation's fields, for T's member P (empty, or "bi." in a
 * struct that embeds beam_interpolation as bi). */
#define BA_BASE_FIELDS(T, P)                                                                      \
    ST_UINTS(T, P edge_list, "edgeList", "",                                                      \
             "list of the edge in the topology that are concerned by the Interpolation"),         \
    ST_REALS(T, P length_list, "lengthList", "", "list of the length of each beam"),              \
    ST_COORDS(T, P dof0_node0, "DOF0TransformNode0", "",                                          \
              "Optional rigid transformation between the degree of Freedom and the first node of "\
              "the beam (settee: x y z qx qy qz qw per beam)"),                                   \
    ST_COORDS(T, P dof1_node1, "DOF1TransformNode1", "",                                          \
              "Optional rigid transformation between the degree of Freedom and the second node "  \
              "of the beam (settee: x y z qx qy qz qw per beam)"),                                \
    ST_REALS(T, P curv_abs_list, "curvAbsList", "",                                               \
             "curvilinear abscissa of the two ends of each beam (pairs)"),                        \
    ST_UINTS(T, P beam_collision, "beamCollision", "",                                            \
             "list of beam (in edgeList) that needs to be considered for collision"),             \
    ST_BOOL(T, P dofs_aligned, "dofsAndBeamsAligned", "true",                                     \
            "if false, a transformation for each beam is computed between the DOF and the beam "  \
            "nodes"),                                                                             \
    ST_LINK(T, P topology, "topology", ST_LINK_TOPOLOGY,                                          \
            "link to the topology (must contain edges)")

extern const st_class beam_interpolation_class;

/* Initialises bi (its init; the force field calls it when it comes first). */
st_status ba_interpolation_prepare(beam_interpolation *bi, st_error *err);
/* SOFA's Quat::slerp(a, b, t, allowFlip = true) (out may not alias a or b). */
void ba_slerp(double out[4], const double a[4], const double b[4], double t);
/* The Rigid3d state of bi's context and the edges of its topology (each
 * naming a point of the state): SOFA's messages when either is missing. */
st_status ba_bind_frames_and_edges(beam_interpolation *bi, st_error *err);
/* Number of beams (edgeList). */
size_t ba_num_beams(const beam_interpolation *bi);
/* The two points of beam b. */
void ba_node_indices(const beam_interpolation *bi, size_t b, unsigned *n0, unsigned *n1);
/* The DOF-to-node transforms of beam b (identity when dofsAndBeamsAligned). */
void ba_dof_to_local(const beam_interpolation *bi, size_t b, ba_xf *d0, ba_xf *d1);
/* global_H_local0 and global_H_local1 of beam b at coordinates x (the state's
 * own slice, 7 per point). */
void ba_compute_transform(const beam_interpolation *bi, size_t b, const double *x, ba_xf *g0,
                          ba_xf *g1);
/* The Bezier control points of two node frames and a length. */
void ba_control_points(const ba_xf *g0, const ba_xf *g1, double L, double P[4][3]);
/* The spline's length (4-point Gauss quadrature of |P'|). */
double ba_spline_length(const double P[4][3]);
/* The frame at barycentric coordinate bary along the spline of g0, g1. */
void ba_interpolate_transform(ba_xf *out, double bary, const ba_xf *g0, const ba_xf *g1,
                              double L);
/* The node frames at rest in the beam's middle frame. */
void ba_spline_rest_transform(const beam_interpolation *bi, size_t b, ba_xf *l0, ba_xf *l1);
/* Rest length, section, Young's modulus, Poisson's ratio and mass density
 * of beam b (*rho comes in as the force field's value; BeamInterpolation
 * keeps it, WireBeamInterpolation takes its rod section's). */
double ba_length(const beam_interpolation *bi, size_t b);
const ba_section *ba_beam_section(const beam_interpolation *bi, size_t b);
void ba_mechanical_parameters(const beam_interpolation *bi, size_t b, double *E, double *nu,
                              double *rho);
/* The rest length of the whole instrument (BeamInterpolation: the sum of
 * lengthList; WireBeamInterpolation: its rest shape's length). */
double ba_rest_total_length(const beam_interpolation *bi);
/* SOFA's getBeamAtCurvAbs: the beam and barycentric coordinate at abscissa
 * x, counted so that the last beam ends at the rest total length. */
void ba_beam_at_curv_abs(const beam_interpolation *bi, double x, size_t *beam, double *bary);
/* What a controller does to the beams (SOFA's clear and addBeam with an
 * angle): empties edgeList, lengthList, curvAbsList and both transform
 * lists; appends a beam on edge `edge` of the topology covering (x0, x1)
 * of the instrument, its nodes turned by `angle` about x from the DOFs
 * (dofsAndBeamsAligned becomes false). The force field picks the new beams
 * up at its next add_force. */
st_status ba_clear_beams(beam_interpolation *bi, st_error *err);
st_status ba_add_beam(beam_interpolation *bi, unsigned edge, double length, double x0, double x1,
                      double angle, st_error *err);
/* True for the classes an AdaptiveBeamForceFieldAndMass or an
 * AdaptiveBeamMapping can use (BeamInterpolation, WireBeamInterpolation). */
bool ba_is_interpolation(const st_component *c);
/* The interpolation a component of self's node uses: link when set, else the
 * node's first one; initialised now when it is not yet (SOFA's init order
 * does not matter then). */
st_status ba_find_interpolation(st_component *self, st_component *link, beam_interpolation **out,
                                st_error *err);
/* SOFA's computeStrechAndTwist: half-lengths along the spline and half the
 * twist angle at each node ((length, 0, theta / 2)). */
void ba_stretch_and_twist(const beam_interpolation *bi, size_t b, const double *x, double r0[3],
                          double r1[3]);

/* One beam of AdaptiveBeamForceFieldAndMass, as of its last add_force. */
typedef struct ab_beam {
    unsigned n0, n1;
    double K[12][12]; /* local stiffness */
    double M[12][12]; /* local mass */
    double A[2][36];  /* adjoints, DOF (global) to beam frame at each node */
} ab_beam;

/* AdaptiveBeamForceFieldAndMass. */
typedef struct ab_ffm {
    st_component base;
    bool compute_mass;          /* "computeMass" */
    st_array mass_density;      /* "massDensity" */
    bool shear;                 /* "shearStressComputation" */
    bool reinforce;             /* "reinforceLength" */
    st_component *interpolation; /* "interpolation" */
    double rayleigh_stiffness, rayleigh_mass;
    bool separate_gravity;
    /* Set by init. */
    beam_interpolation *bi;
    st_mstate *ms;
    size_t nb;
    ab_beam *beam;   /* nb, owned */
    double def_density;
} ab_ffm;

extern const st_class adaptive_beam_force_field_and_mass_class;

/* A rod section (SOFA's BaseRodSectionMaterial with RodStraightSection or
 * RodSpireSection): a piece of a wire, from handle to tip. */
typedef struct rod_section {
    st_component base;
    double poisson, young, mass_density, radius, inner_radius, length; /* SOFA's data */
    unsigned nb_beams, nb_edges_visu, nb_edges_collis;
    double spire_diameter, spire_height; /* RodSpireSection only */
    st_component *loader;                /* RodMeshSection only: "loader" */
    bool spire, mesh;                    /* set by init: which class */
    ba_section section;                  /* set by init */
    /* RodMeshSection, set by init: the mesh's chain of points as frames
     * (origins from the first point, x along each edge) and their
     * abscissae along the chain. */
    ba_xf *mesh_xf;
    double *mesh_abs;
    size_t nmesh;
} rod_section;

extern const st_class rod_straight_section_class;
extern const st_class rod_spire_section_class;
extern const st_class rod_mesh_section_class;

/* One beam's section, material and rest spline as WireRestShape says
 * (WireBeamInterpolation; also the settee-side view of a wire's beams). */
typedef struct wire_beam_interpolation {
    beam_interpolation bi;      /* first: BaseBeamInterpolation's data and state */
    st_component *rest_shape;   /* "WireRestShape" */
    /* Set by init. */
    struct wire_rest_shape *wrs;
    bool controlled;            /* set by a controller: rest splines from the rest shape */
} wire_beam_interpolation;

extern const st_class wire_beam_interpolation_class;

/* Initialises a WireBeamInterpolation (its init; a force field or mapping
 * calls it when it comes first). */
st_status wbi_prepare(wire_beam_interpolation *w, st_error *err);

extern const st_class adaptive_beam_mapping_class;
extern const st_class multi_adaptive_beam_mapping_class;
extern const st_class beam_length_mapping_class;

/* A point mapped on a beam: the beam, its barycentric coordinate along the
 * spline and the offset (0, y, z) in the interpolated frame. */
typedef struct ba_point {
    size_t beam;
    double bary, y, z;
} ba_point;

/* AdaptiveBeamMapping's map of one point at input coordinates x (7 a
 * frame): its position, its velocity from the nodes' (v, w) v0 and v1, and
 * the nodes' (force, torque) from its force f (the transpose). */
void ba_point_position(const beam_interpolation *bi, const ba_point *p, const double *x,
                       double out[3]);
void ba_point_velocity(const beam_interpolation *bi, const ba_point *p, const double *x,
                       const double *v0, const double *v1, double out[3]);
void ba_point_force(const beam_interpolation *bi, const ba_point *p, const double *x,
                    const double f[3], double F0[6], double F1[6]);
/* Beam b's Bezier control points: their velocities from the nodes' (v, w)
 * v0 and v1, and the nodes' (force, torque) from forces F on them (the
 * transpose). */
void ba_control_velocities(const beam_interpolation *bi, size_t b, const double *x,
                           const double *v0, const double *v1, double V[4][3]);
void ba_control_forces(const beam_interpolation *bi, size_t b, const double *x,
                       const double F[4][3], double F0[6], double F1[6]);
/* The levers l_k of beam b's control points (dP_k = dx_node + l_k x w_node,
 * BeamAdapter's Lev00, Lev01, Lev12, Lev13): -r0, R0 (-L/3, 0, 0) - r0,
 * R1 (L/3, 0, 0) - r1, -r1 (r the DOF-to-node offsets in global axes). */
void ba_node_levers(const beam_interpolation *bi, size_t b, const double *x, double lev[4][3]);


#define IRC_MAX_INSTRUMENTS 32

/* InterventionalRadiologyController. */
typedef struct ir_controller {
    st_component base;
    st_array instruments;     /* "instruments": paths */
    int controlled;           /* "controlledInstrument" */
    st_array xtip;            /* "xtip" */
    st_array rotation;        /* "rotationInstrument" */
    double step;              /* "step" */
    double angular_step;      /* "angularStep" */
    double speed;             /* "speed" */
    st_array starting_pos;    /* "startingPos": x y z qx qy qz qw */
    double threshold;         /* "threshold" */
    st_array rigid_curv_abs;  /* "rigidCurvAbs" */
    unsigned index_first_node; /* "indexFirstNode": output */
    st_component *fixed;      /* "fixedConstraint" */
    st_component *topology;   /* "topology" */
    /* Set by init. */
    st_mstate *ms;
    size_t ninst;
    wire_beam_interpolation *inst[IRC_MAX_INSTRUMENTS];
    bool forward, backward;   /* SOFA's m_FF, m_RW */
    double *node_abs;         /* abscissae of the last step's nodes */
    size_t nnode;
    bool use_actions;         /* a BeamAdapterActionController drives it */
    double start[7];
    /* The instruments on each of the last step's nodes (bit i: instrument
     * i; SOFA's m_idInstrumentCurvAbsTable), nnode entries. */
    uint32_t *node_inst;
} ir_controller;

extern const st_class interventional_radiology_controller_class;

/* BeamAdapter's actions (BeamAdapterAction), by their numbers. */
enum {
    BA_NO_ACTION = 0, BA_MOVE_FORWARD, BA_MOVE_BACKWARD, BA_SPIN_RIGHT, BA_SPIN_LEFT,
    BA_SWITCH_NEXT_TOOL, BA_SWITCH_PREVIOUS_TOOL, BA_DROP_TOOL, BA_USE_TOOL_0, BA_USE_TOOL_1,
    BA_USE_TOOL_2
};
/* SOFA's applyAction: one action on the controlled instrument (a step of
 * xtip or of rotationInstrument, another instrument controlled). */
void irc_apply_action(ir_controller *c, int action);
/* SOFA's interventionalRadiologyCollisionControls: the points of a
 * collision model along the combined instrument, from the tip back, each
 * given its instrument (inst) and its abscissa on it (x), sampled with
 * each instrument's collision edges (n points, updated in place from their
 * previous values); remove[] receives, per instrument, the last point past
 * its length (SOFA's edges to remove), *nremove how many. */
void irc_collision_controls(const ir_controller *c, double *x, int *inst, size_t n,
                            int *remove, size_t *nremove);

/* SOFA's applyInterventionalRadiologyController: the beams, frames and
 * fixed frames for the current xtip and rotationInstrument. */
st_status irc_update(ir_controller *c, st_error *err);

extern const st_class beam_adapter_action_controller_class;
extern const st_class adaptive_beam_controller_class;

/* WireRestShape: the rest shape of a wire along its curvilinear abscissa. */
typedef struct wire_rest_shape {
    st_component base;
    st_array density;          /* "densityOfBeams": output, uints, beams per section */
    st_array key_points;       /* "keyPoints": output, reals, section ends */
    st_array wire_materials;   /* "wireMaterials": strings, links to the sections */
    st_component *topology;    /* "topology" */
    /* Set by init. */
    size_t nsec;
    rod_section **sec;         /* nsec, owned array of borrowed pointers */
} wire_rest_shape;

extern const st_class wire_rest_shape_class;

/* Appends printf(fmt, a, b) to a growing text (*buf, *len of *cap;
 * free() it): the lists written to a topology's fields. */
st_status ba_buf_add(char **buf, size_t *len, size_t *cap, st_error *err, const char *fmt,
                     double a, double b);

/* The rest frame at curvilinear abscissa x (SOFA's getRestTransformOnX). */
void wrs_rest_transform(const wire_rest_shape *w, double x, ba_xf *out);
/* Total length (last key point). */
double wrs_length(const wire_rest_shape *w);
/* The section holding abscissa x (NULL when none); SOFA's lookups by x. */
const rod_section *wrs_section_at(const wire_rest_shape *w, double x);
/* Beam length of the section holding x (SOFA's getMechanicalSampling). */
double wrs_mechanical_sampling(const wire_rest_shape *w, double x);
/* Collision edge length there (SOFA's getCollisionSampling, nbEdgesCollis). */
double wrs_collision_sampling(const wire_rest_shape *w, double x);

#endif
