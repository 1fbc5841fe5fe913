/* mass.h - the classes of the Mass plugin. */
#ifndef SETTEE_PLUGIN_MASS_H
#define SETTEE_PLUGIN_MASS_H

#include <settee/settee.h>

extern const st_class st_uniform_mass_class;
extern const st_class st_nodal_mass_density_class;
extern const st_class st_fem_mass_class;

/* NodalMassDensity (nodal_mass_density.c). */
typedef struct nodal_mass_density {
    st_component base;
    st_array property; /* reals, "property" */
} nodal_mass_density;

/* SOFA's getNodeProperty: vertex i's density, the last value when the list
 * is shorter, 1 when empty. */
double nodal_mass_density_at(const nodal_mass_density *d, size_t i);

/* Element measures (mass_geometry.c), in SOFA's arithmetic order. */
double mass_tri_area(const double *p0, const double *p1, const double *p2);
double mass_tet_volume(const double *p0, const double *p1, const double *p2, const double *p3);
/* Sum of the absolute volumes of SOFA's 6-tetrahedron split. */
double mass_hexa_volume(const double *const p[8]);
double mass_edge_length(const double *p0, const double *p1);

/* Finds a topology-based mass's state (its node's MechanicalObject), its
 * topology (the "topology" link, else the node's last one, else its parent's: SOFA's
 * getMeshTopology) and the
 * state holding the geometry (the "geometryState" link, else the
 * topology's node's MechanicalObject). Errors name the field at fault. */
st_status mass_bind_topology(st_component *self, st_mstate **ms, st_component **topology,
                             st_component **geometry_state, st_error *err);

/* SOFA's l_topology->getNbPoints(): the topology's point count, or its
 * nbPoints when larger (a dynamic container filled by a topological
 * mapping has nbPoints and no positions of its own). */
size_t mass_topology_nb_points(st_component *topology);

/* A Rigid3d point's mass, as SOFA's RigidMass: the mass, mass * inertia
 * (the inertia given per unit mass, constant in the world frame) and its
 * inverse. */
typedef struct mass_rigid {
    double m;
    double im[9];  /* m * inertia, row-major */
    double inv[9]; /* im^-1 */
} mass_rigid;

/* Sets r from a mass and an inertia per unit mass; false when m * inertia
 * is singular. */
bool mass_rigid_set(mass_rigid *r, double m, const double inertia[9]);
/* res += factor M dx on one point (6 values), SOFA's (m *= factor) then
 * dx * m. */
void mass_rigid_mdx(const mass_rigid *r, double *res, const double *dx, double factor);
/* a = M^-1 f on one point. */
void mass_rigid_acc(const mass_rigid *r, double *a, const double *f);
/* The 6x6 block factor M (SOFA's AddMToMatrixFunctor for rigid bodies). */
void mass_rigid_block(const mass_rigid *r, double b[36], double factor);
/* v . (M v) on one point (twice the kinetic energy). */
double mass_rigid_vmv(const mass_rigid *r, const double *v);

/* SOFA's separate gravity: v += g dt on every vertex of ms (Vec3d, or the
 * linear part of Rigid3d) (v is a global
 * vector; masses call it when their separateGravity field is true). */
/* Every one of the n vertex masses (mass[i] * scale) must be positive and
 * finite where accelerations divide by it (accFromF of a diagonal or lumped
 * mass): else an error at `field` naming the first bad vertex. */
st_status mass_check_vertex_masses(st_component *self, const char *field, const double *mass,
                                   size_t n, double scale, st_error *err);
void mass_add_gravity_to_v(const st_mstate *ms, const st_mparams *mp, double *v, double dt);

/* Field fragments every mass has (SOFA's BaseMass and ForceField data):
 * separateGravity and rayleighMass act; rayleighStiffness is accepted and
 * ignored, since a mass has no stiffness matrix for it to scale (as in
 * SOFA). S is the mass's struct, with members of these names. */
#define MASS_F_COMMON(S)                                                                          \
    ST_BOOL(S, separate_gravity, "separateGravity", "false",                                      \
            "add separately gravity to velocity computation"),                                    \
        ST_REAL(S, rayleigh_mass, "rayleighMass", "0",                                            \
                "Rayleigh damping - mass matrix coefficient"),                                    \
        ST_IGNORED(S, rayleigh_stiffness, "rayleighStiffness", ST_T_REAL, double, "0",            \
                   "Rayleigh damping - stiffness matrix coefficient (a mass has no stiffness "    \
                   "for it to scale)"),                                                           \
        ST_LINK(S, mstate, "mstate", ST_LINK_STATE, "MechanicalState used by this component")
/* The display fields of SOFA's masses (settee does not draw). */
#define MASS_F_SHOW(S)                                                                            \
    ST_IGNORED(S, show_gravity_center, "showGravityCenter", ST_T_BOOL, bool, "false",             \
               "display the center of gravity of the system"),                                    \
        ST_IGNORED(S, show_axis_size, "showAxisSizeFactor", ST_T_REAL, double, "1",               \
                   "factor length of the axis displayed (only used for rigids)")

#endif
