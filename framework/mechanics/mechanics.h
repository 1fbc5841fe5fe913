/* mechanics.h - the mechanical layer, above the object model: the systems
 * ODE solvers integrate (flat state vectors, component lists), the block
 * sparse matrices assembled from them, and the mapping graph that carries
 * mapped states' forces and matrix blocks to the independent ones.
 *
 * Its three files call each other, by design: a system (system.c) owns its
 * component lists and its mapping graph (mapping.c); a matrix (matrix.c) is
 * assembled from a system's components; and a block on mapped states goes
 * through the mapping graph (J^T K J), which adds it back into the matrix
 * (st_matrix_add_block). check.c uses the other three. */
#ifndef SETTEE_KERNEL_MECHANICS_H
#define SETTEE_KERNEL_MECHANICS_H

#include "core/core.h"

/* Test builds (SETTEE_EXPORT_INTERNALS) export these internals so that the
 * test suites can reach them; other builds export only the public API. */
#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility push(default)
#endif

/* ---- mechanical systems ---- */
st_status st__system_compile(st_component *solver, st_system **out, st_error *err);
/* One system for several driven solvers whose subtrees a collision
 * pipeline couples (st_collision_ops.solver_groups); solvers[0] drives it. */
st_status st__system_compile_group(st_component *const *solvers, size_t nsolvers, st_system **out,
                                   st_error *err);
/* Frees the system and its vectors. It must not touch the states: scene.c
 * calls st__system_unbind on every system first, then destroys the nodes
 * (and with them the states), then the systems. */
void st__system_destroy(st_system **sys);
/* Copies global vectors back so that states own their arrays again, and
 * detaches the states (ms->system = NULL). */
void st__system_unbind(st_system *sys);
/* After a step: externalForce cleared, field counters touched. */
void st__system_end_step(st_system *sys);
/* Whether c is a visual mapping (st_mapping_ops.flags has ST_MAP_VISUAL):
 * its output is a visual model, it is no part of any mechanical system. */
bool st__mapping_is_visual(const st_component *c);
/* The visual model a visual mapping writes (its "output" link), or NULL. */
st_component *st__visual_output(const st_component *map);
/* Writes up to max of the visual models that visual mappings below root
 * write (scene order of the mappings, each model once) into out (may be
 * NULL); returns how many there are. Before init, from the mappings'
 * output links (the components they name that are visual models). */
size_t st__visual_models(st_node *root, st_component **out, size_t max);
/* SOFA's UpdateMappingVisitor for visual mappings: every active visual
 * mapping below root, in scene order, applied once on its input's
 * positions (its input's system's x). Allocates nothing. */
void st__visual_update(st_node *root);

/* The system's scratch vectors (st_system_vec_alloc, st_system_xvec_alloc),
 * for checkpoints: how many, and the i-th with its length in doubles. */
size_t st__system_nscratch(const st_system *sys);
size_t st__system_scratch(st_system *sys, size_t i, double **v);
/* The components of a system playing role (ST_ROLE_MASS, ST_ROLE_FORCEFIELD,
 * ST_ROLE_PROJECTIVE), in scene order: returns the count and writes up to
 * max of them into out (out may be NULL). */
size_t st__system_components(const st_system *sys, st_role role, st_component **out, size_t max);

/* ---- matrix assembly (matrix.c) ---- */
/* A matrix assembling one force field alone (st_check_forcefield). */
st_status st__matrix_create_single(st_system *sys, st_component *ff, st_matrix **out,
                                   st_error *err);

/* ---- mapping graph (mapping.c) ---- */
/* The mechanical mappings of a system: Jacobians, total Jacobians of the
 * mapped states with respect to the independent ones, mapForces. */
typedef struct st_mapgraph st_mapgraph;
/* A mapping role function is present when the plugin's ops struct holds it
 * (plugins built for ABI 2.0 have the shorter struct) and it is set. */
#define HAS_MOP(ops, member)                                                                       \
    ((ops) && (ops)->struct_size >= offsetof(st_mapping_ops, member) + sizeof((ops)->member) &&   \
     (ops)->member)
/* Inputs of a mapping (its inputs() or its one input()): up to max written
 * into out; returns how many there are. The kernel looks at the first
 * ST_MAP_MAX_INPUTS. */
#define ST_MAP_MAX_INPUTS 16
size_t st__mapping_inputs(const st_component *map, st_mstate **out, size_t max);
st_status st__mapgraph_create(st_system *sys, st_component *const *maps, size_t nmaps,
                              st_mapgraph **out, st_error *err);
void st__mapgraph_destroy(st_mapgraph **g);
/* The system's graph (NULL when it has no mapping). */
st_mapgraph *st__system_mapgraph(const st_system *sys);
/* False when the component sits below a mapping that does not map forces. */
bool st__mapgraph_active(const st_mapgraph *g, const st_component *c);
/* False when the mapping's output is cut off from the parent's dynamics. */
bool st__mapgraph_maps_forces(const st_mapgraph *g, const st_component *map);
/* Runs every mapping's get_j and updates the total Jacobians (allocates
 * only when a Jacobian's pattern changed). */
st_status st__mapgraph_update(st_mapgraph *g, st_error *err);
/* Adds T_a^T blk T_b to m on the independent points (a or b mapped); false
 * when a state has no total Jacobian (a mapping without get_j). */
bool st__mapgraph_add_block(st_mapgraph *g, st_matrix *m, const st_mstate *a, size_t i,
                            const st_mstate *b, size_t j, const double *blk);
/* Every mapping's geometric stiffness, kf K, into m. */
void st__mapgraph_add_k(st_mapgraph *g, st_matrix *m, double kf);
/* Tests: the mapping's own Jacobian as a dense rows x cols matrix (rows:
 * its output's derivative scalars; columns: the system's derivative
 * vectors, size_all). */
st_status st__mapgraph_dense_j(st_system *sys, const st_component *map, double *J, size_t rows,
                               size_t cols, st_error *err);

#ifdef SETTEE_EXPORT_INTERNALS
#pragma GCC visibility pop
#endif

#endif
