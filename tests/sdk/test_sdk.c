/* test_sdk.c - the plugin ABI, pinned: the size and every member offset of
 * each public struct, the values of the public enums and flags, and the
 * descriptor's fixed head. A failure here means a change to the public
 * headers breaks plugins built against ABI 2.x: either undo it, or append
 * instead (see docs/writing-a-plugin.md, "ABI versioning"), or bump
 * ST_ABI_MAJOR and update these tables. The layout values are those of
 * LP64 Linux (x86_64, aarch64); elsewhere only the platform-independent
 * checks run. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "settee/settee.h"

typedef struct layout {
    const char *type, *member; /* member NULL: the struct's size */
    size_t actual, expected;
} layout;

#define S(T, size) {#T, NULL, sizeof(T), (size)}
#define M(T, m, off) {#T, #m, offsetof(T, m), (off)}

static const layout abi_2_layout[] = {
    S(st_jacobian_check, 72),
    M(st_jacobian_check, struct_size, 0),
    M(st_jacobian_check, h, 8),
    M(st_jacobian_check, dforce_error, 16),
    M(st_jacobian_check, matrix_error, 24),
    M(st_jacobian_check, energy_error, 32),
    M(st_jacobian_check, scale, 40),
    M(st_jacobian_check, worst_row, 48),
    M(st_jacobian_check, worst_col, 56),
    M(st_jacobian_check, size, 64),
    S(st_error, 3080),
    M(st_error, code, 0),
    M(st_error, where, 4),
    M(st_error, path, 516),
    M(st_error, msg, 1028),
    M(st_error, reported, 3076),
    S(st_array, 24),
    M(st_array, p, 0),
    M(st_array, n, 8),
    M(st_array, cap, 16),
    S(st_field, 80),
    M(st_field, name, 0),
    M(st_field, type, 8),
    M(st_field, offset, 16),
    M(st_field, def, 24),
    M(st_field, help, 32),
    M(st_field, flags, 40),
    M(st_field, alias, 48),
    M(st_field, link_kind, 56),
    M(st_field, min, 64),
    M(st_field, max, 72),
    S(st_component, 40),
    M(st_component, cls, 0),
    M(st_component, node, 8),
    M(st_component, name, 16),
    M(st_component, state, 24),
    M(st_component, print_log, 28),
    M(st_component, kernel, 32),
    S(st_class, 248),
    M(st_class, struct_size, 0),
    M(st_class, name, 8),
    M(st_class, category, 16),
    M(st_class, description, 24),
    M(st_class, aliases, 32),
    M(st_class, instance_size, 40),
    M(st_class, fields, 48),
    M(st_class, create, 56),
    M(st_class, init, 64),
    M(st_class, reinit, 72),
    M(st_class, reset, 80),
    M(st_class, cleanup, 88),
    M(st_class, on_event, 96),
    M(st_class, forcefield, 104),
    M(st_class, mass, 112),
    M(st_class, projective, 120),
    M(st_class, mapping, 128),
    M(st_class, odesolver, 136),
    M(st_class, linsolver, 144),
    M(st_class, topology, 152),
    M(st_class, engine, 160),
    M(st_class, animloop, 168),
    M(st_class, parsed, 176), /* ABI 1.2 */
    M(st_class, state, 184),
    M(st_class, templates, 192),
    M(st_class, checkpoint, 200), /* ABI 2.2 */
    M(st_class, collision, 208),  /* ABI 2.2 */
    M(st_class, constraint, 216), /* ABI 2.2 */
    M(st_class, constraint_correction, 224),
    M(st_class, constraint_solver, 232),
    M(st_class, on_input, 240), /* ABI 2.10 */
    S(st_input_event, 24),      /* ABI 2.10 */
    M(st_input_event, struct_size, 0),
    M(st_input_event, kind, 8),
    M(st_input_event, x, 12),
    M(st_input_event, y, 16),
    M(st_input_event, key, 20),
    S(st_plugin_desc, 64),
    M(st_plugin_desc, abi_major, 0),
    M(st_plugin_desc, abi_minor, 4),
    M(st_plugin_desc, struct_size, 8),
    M(st_plugin_desc, name, 16),
    M(st_plugin_desc, version, 24),
    M(st_plugin_desc, description, 32),
    M(st_plugin_desc, license, 40),
    M(st_plugin_desc, provides, 48),
    M(st_plugin_desc, register_classes, 56),
    S(st_plugin_info, 56),
    M(st_plugin_info, name, 0),
    M(st_plugin_info, file, 8),
    M(st_plugin_info, version, 16),
    M(st_plugin_info, description, 24),
    M(st_plugin_info, license, 32),
    M(st_plugin_info, abi_major, 40),
    M(st_plugin_info, abi_minor, 44),
    M(st_plugin_info, provides, 48),
    S(st_mparams, 56),
    M(st_mparams, struct_size, 0),
    M(st_mparams, dt, 8),
    M(st_mparams, time, 16),
    M(st_mparams, gravity, 24),
    M(st_mparams, implicit, 48),
    M(st_mparams, constraint_jt, 49), /* ABI 2.8, in 2.6's padding */
    M(st_mparams, dforce_calls, 52), /* ABI 2.7, in 2.6's padding */
    S(st_forcefield_ops, 64),
    M(st_forcefield_ops, struct_size, 0),
    M(st_forcefield_ops, add_force, 8),
    M(st_forcefield_ops, add_dforce, 16),
    M(st_forcefield_ops, add_k_to_matrix, 24),
    M(st_forcefield_ops, add_b_to_matrix, 32),
    M(st_forcefield_ops, potential_energy, 40),
    M(st_forcefield_ops, rayleigh_stiffness, 48),
    M(st_forcefield_ops, reserve_pattern, 56),
    S(st_mass_ops, 80),
    M(st_mass_ops, struct_size, 0),
    M(st_mass_ops, add_m_dx, 8),
    M(st_mass_ops, acc_from_f, 16),
    M(st_mass_ops, add_m_to_matrix, 24),
    M(st_mass_ops, add_gravity_to_force, 32),
    M(st_mass_ops, add_gravity_to_v, 40),
    M(st_mass_ops, kinetic_energy, 48),
    M(st_mass_ops, potential_energy, 56),
    M(st_mass_ops, is_diagonal, 64),
    M(st_mass_ops, rayleigh_mass, 72),
    S(st_projective_ops, 40),
    M(st_projective_ops, struct_size, 0),
    M(st_projective_ops, project_response, 8),
    M(st_projective_ops, project_velocity, 16),
    M(st_projective_ops, project_position, 24),
    M(st_projective_ops, apply_to_matrix, 32),
    S(st_mapping_ops, 96),
    M(st_mapping_ops, struct_size, 0),
    M(st_mapping_ops, input, 8),
    M(st_mapping_ops, output, 16),
    M(st_mapping_ops, apply, 24),
    M(st_mapping_ops, apply_j, 32),
    M(st_mapping_ops, apply_jt, 40),
    M(st_mapping_ops, get_j, 48),
    M(st_mapping_ops, update_k, 56),
    M(st_mapping_ops, apply_djt, 64),
    M(st_mapping_ops, get_k, 72),
    M(st_mapping_ops, flags, 80),
    M(st_mapping_ops, inputs, 88),
    S(st_odesolver_ops, 56),
    M(st_odesolver_ops, struct_size, 0),
    M(st_odesolver_ops, bind, 8),
    M(st_odesolver_ops, solve, 16),
    M(st_odesolver_ops, integration_factor, 24),
    M(st_odesolver_ops, solution_integration_factor, 32),
    M(st_odesolver_ops, velocity_integration_factor, 40),
    M(st_odesolver_ops, position_integration_factor, 48),
    S(st_linsolver_ops, 32),
    M(st_linsolver_ops, struct_size, 0),
    M(st_linsolver_ops, bind, 8),
    M(st_linsolver_ops, set_system, 16),
    M(st_linsolver_ops, solve, 24),
    S(st_topology_ops, 64),
    M(st_topology_ops, struct_size, 0),
    M(st_topology_ops, nb_points, 8),
    M(st_topology_ops, get_point, 16),
    M(st_topology_ops, elements, 24),
    M(st_topology_ops, remove, 32), /* ABI 2.4 */
    M(st_topology_ops, add, 40),    /* ABI 2.5 */
    M(st_topology_ops, add_points, 48), /* ABI 2.6 */
    M(st_topology_ops, can_change, 56), /* ABI 2.11 */
    S(st_topo_event, 64),
    M(st_topo_event, change, 0),
    M(st_topo_event, elem, 4),
    M(st_topo_event, n, 8),
    M(st_topo_event, before, 16),
    M(st_topo_event, index, 24),
    M(st_topo_event, vertices, 32),
    M(st_topo_event, ancestor_start, 40),
    M(st_topo_event, ancestors, 48),
    M(st_topo_event, coefs, 56),
    S(st_topo_follow_ops, 24),
    M(st_topo_follow_ops, struct_size, 0),
    M(st_topo_follow_ops, destroy, 8),
    M(st_topo_follow_ops, create, 16),
    S(st_engine_ops, 16),
    M(st_engine_ops, struct_size, 0),
    M(st_engine_ops, update, 8),
    S(st_checkpoint_ops, 16), /* ABI 2.2 */
    M(st_checkpoint_ops, struct_size, 0),
    M(st_checkpoint_ops, transfer, 8),
    S(st_animloop_ops, 16),
    M(st_animloop_ops, struct_size, 0),
    M(st_animloop_ops, step, 8),
    S(st_constraint_ops, 64),
    M(st_constraint_ops, struct_size, 0),
    M(st_constraint_ops, size, 8),
    M(st_constraint_ops, build, 16),
    M(st_constraint_ops, init_resolution, 24),
    M(st_constraint_ops, block_rows, 32),
    M(st_constraint_ops, resolution, 40),
    M(st_constraint_ops, store, 48),
    M(st_constraint_ops, velocity_order, 56), /* ABI 2.5 */
    S(st_ccorrection_ops, 32),
    M(st_ccorrection_ops, struct_size, 0),
    M(st_ccorrection_ops, add_compliance, 8),
    M(st_ccorrection_ops, apply_correction, 16),
    M(st_ccorrection_ops, velocity_order, 24), /* ABI 2.5 */
    S(st_csolver_ops, 32),
    M(st_csolver_ops, struct_size, 0),
    M(st_csolver_ops, solve_constraint, 8),
    M(st_csolver_ops, solve_constraint_order, 16), /* ABI 2.5 */
    M(st_csolver_ops, problem, 24),                /* ABI 2.6 */
    S(st_cproblem, 56),                            /* ABI 2.6 */
    M(st_cproblem, dim, 8),
    M(st_cproblem, W, 16),
    M(st_cproblem, dfree, 24),
    M(st_cproblem, lambda, 32),
    M(st_cproblem, J, 40),
    M(st_cproblem, Jind, 48),
    S(st_linsolve_record, 64),                     /* ABI 2.6 */
    M(st_linsolve_record, assembled, 8),
    M(st_linsolve_record, solved, 9),
    M(st_linsolve_record, mf, 16),
    M(st_linsolve_record, n, 40),
    M(st_linsolve_record, b, 48),
    M(st_linsolve_record, x, 56),
    S(st_cterm, 64),
    M(st_cterm, ms, 0),
    M(st_cterm, point, 8),
    M(st_cterm, d, 16),
    S(st_cjacobian, 56),
    M(st_cjacobian, nrows, 0),
    M(st_cjacobian, nterms, 8),
    M(st_cjacobian, row_end, 16),
    M(st_cjacobian, terms, 24),
    M(st_cjacobian, caprows, 32),
    M(st_cjacobian, capterms, 40),
    M(st_cjacobian, order, 48), /* ABI 2.5 */
    S(st_mstate, 440),
    M(st_mstate, base, 0),
    M(st_mstate, position, 40),
    M(st_mstate, velocity, 64),
    M(st_mstate, force, 88),
    M(st_mstate, rest_position, 112),
    M(st_mstate, external_force, 136),
    M(st_mstate, derivx, 160),
    M(st_mstate, reset_position, 184),
    M(st_mstate, reset_velocity, 208),
    M(st_mstate, rest_scale, 232),
    M(st_mstate, use_topology, 240),
    M(st_mstate, translation, 248),
    M(st_mstate, rotation, 272),
    M(st_mstate, scale3d, 296),
    M(st_mstate, translation2, 320),
    M(st_mstate, rotation2, 344),
    M(st_mstate, topology, 368),
    M(st_mstate, size, 376),
    M(st_mstate, template_name, 384),
    M(st_mstate, n, 392),
    M(st_mstate, xoffset, 400),
    M(st_mstate, system, 408),
    M(st_mstate, mapped, 416),
    M(st_mstate, has_external_force, 417),
    M(st_mstate, type, 424),
    M(st_mstate, doffset, 432),
    S(st_system, 256),
    M(st_system, struct_size, 0),
    M(st_system, solver, 8),
    M(st_system, node, 16),
    M(st_system, nstates, 24),
    M(st_system, states, 32),
    M(st_system, nindep, 40),
    M(st_system, ndof, 48),
    M(st_system, nall, 56),
    M(st_system, size, 64),
    M(st_system, x, 72),
    M(st_system, v, 80),
    M(st_system, f, 88),
    M(st_system, x0, 96),
    M(st_system, fext, 104),
    M(st_system, dx, 112),
    M(st_system, df, 120),
    M(st_system, mp, 128),
    M(st_system, size_all, 184),
    M(st_system, xsize, 192),
    M(st_system, xsize_all, 200),
    M(st_system, time_step, 208), /* ABI 2.2 */
    M(st_system, time_force, 216),
    M(st_system, time_products, 224),
    M(st_system, time_assembly, 232),
    M(st_system, time_factor, 240),
    M(st_system, time_linsolve, 248),
    S(st_collision_ops, 56), /* 40 before ABI 2.11, 48 before ABI 2.12 */
    M(st_collision_ops, struct_size, 0),
    M(st_collision_ops, bind, 8),
    M(st_collision_ops, compute, 16),
    M(st_collision_ops, solver_groups, 24), /* ABI 2.3 */
    M(st_collision_ops, integrate_begin, 32), /* ABI 2.6 */
    M(st_collision_ops, detections, 40), /* ABI 2.11 */
    M(st_collision_ops, request_detections, 48), /* ABI 2.12 */
    S(st_detection, 104), /* ABI 2.11 */
    M(st_detection, model, 0),
    M(st_detection, elem, 16),
    M(st_detection, point, 24),
    M(st_detection, normal, 72),
    M(st_detection, value, 96),
    S(st_state_ops, 32),
    M(st_state_ops, struct_size, 0),
    M(st_state_ops, resolve_type, 8),
    M(st_state_ops, resize, 16),        /* ABI 2.11 */
    M(st_state_ops, replace_value, 24), /* ABI 2.11 */
    S(st_state_type, 64),
    M(st_state_type, struct_size, 0),
    M(st_state_type, name, 8),
    M(st_state_type, aliases, 16),
    M(st_state_type, coord_size, 24),
    M(st_state_type, deriv_size, 28),
    M(st_state_type, spatial_size, 32),
    M(st_state_type, rigid, 36),
    M(st_state_type, identity, 40),
    M(st_state_type, add_deriv, 48),
    M(st_state_type, diff, 56),
    S(st_csr, 48),
    M(st_csr, n, 0),
    M(st_csr, nnz, 8),
    M(st_csr, rowptr, 16),
    M(st_csr, colind, 24),
    M(st_csr, values, 32),
    M(st_csr, pattern_version, 40),
    S(st_scene_reader, 32), /* ABI 2.4 */
    M(st_scene_reader, struct_size, 0),
    M(st_scene_reader, extension, 8),
    M(st_scene_reader, description, 16),
    M(st_scene_reader, read, 24),
    S(st_visitor, 24),
    M(st_visitor, top_down, 0),
    M(st_visitor, bottom_up, 8),
    M(st_visitor, ud, 16),
};

Test(sdk, public_struct_layout_is_abi_2)
{
#if defined(__LP64__) && (defined(__x86_64__) || defined(__aarch64__))
    size_t bad = 0;
    for (size_t i = 0; i < sizeof abi_2_layout / sizeof *abi_2_layout; i++) {
        const layout *l = &abi_2_layout[i];
        if (l->actual == l->expected)
            continue;
        bad++;
        if (l->member)
            cr_log_error("offsetof(%s, %s) is %zu, ABI 2 has %zu", l->type, l->member, l->actual,
                         l->expected);
        else
            cr_log_error("sizeof(%s) is %zu, ABI 2 has %zu", l->type, l->actual, l->expected);
    }
    cr_assert_eq(bad, 0, "%zu layout differences with ABI 2 (see the messages above)", bad);
#else
    cr_skip_test("the pinned layout is that of LP64 Linux");
#endif
}

/* Every member listed is a distinct, increasing offset within its struct:
 * the table above covers each struct member by member, in order. */
Test(sdk, layout_table_lists_members_in_order)
{
    size_t n = sizeof abi_2_layout / sizeof *abi_2_layout;
    for (size_t i = 0; i < n; i++) {
        const layout *l = &abi_2_layout[i];
        if (!l->member)
            continue;
        const layout *prev = &abi_2_layout[i - 1];
        cr_assert_str_eq(prev->type, l->type);
        if (prev->member)
            cr_assert_gt(l->actual, prev->actual, "%s.%s", l->type, l->member);
        /* The struct's size, the row that opened its block, bounds it. */
        size_t k = i;
        while (abi_2_layout[k].member)
            k--;
        cr_assert_lt(l->actual, abi_2_layout[k].actual, "%s.%s", l->type, l->member);
    }
}

/* The loader reads these three before anything else, on every platform. */
Test(sdk, descriptor_head_never_moves)
{
    cr_assert_eq(offsetof(st_plugin_desc, abi_major), 0);
    cr_assert_eq(offsetof(st_plugin_desc, abi_minor), 4);
    cr_assert_eq(offsetof(st_plugin_desc, struct_size), 8);
    cr_assert_eq(sizeof(((st_plugin_desc *)0)->abi_major), 4);
    cr_assert_eq(sizeof(((st_plugin_desc *)0)->struct_size), 4);
    cr_assert_str_eq(ST_PLUGIN_SYMBOL, "st_plugin_descriptor");
    cr_assert_eq(ST_ABI_MAJOR, 2);
}

/* A descriptor made by ST_PLUGIN_DEFINE carries the headers' ABI. */
static st_status dummy_register(st_registry *r, st_error *err) { return ST_OK; }
static const char *const dummy_provides[] = {"Sofa.Component.Dummy", NULL};
#define st_plugin_descriptor test_sdk_descriptor /* keep the symbol out of this program */
ST_PLUGIN_DEFINE("Dummy", "1.2.3", "A descriptor", "MIT", dummy_provides, dummy_register)
#undef st_plugin_descriptor

Test(sdk, plugin_define_fills_the_descriptor)
{
    const st_plugin_desc *d = &test_sdk_descriptor;
    cr_assert_eq(d->abi_major, ST_ABI_MAJOR);
    cr_assert_eq(d->abi_minor, ST_ABI_MINOR);
    cr_assert_eq(d->struct_size, sizeof(st_plugin_desc));
    cr_assert_str_eq(d->name, "Dummy");
    cr_assert_str_eq(d->version, "1.2.3");
    cr_assert_eq(d->provides, dummy_provides);
    cr_assert_eq(d->register_classes, dummy_register);
}

/* Scene files, the loader and plugins agree on these numbers. */
Test(sdk, enum_values_are_abi_2)
{
    const int status[] = {ST_OK,      ST_ENOMEM, ST_EINVAL,   ST_ENOTFOUND, ST_EPARSE,
                          ST_ESCENE,  ST_ELINK,  ST_EPLUGIN,  ST_EABI,      ST_ESOLVER,
                          ST_EIO,     ST_ESTATE, ST_EINTERNAL};
    for (int i = 0; i < (int)(sizeof status / sizeof *status); i++)
        cr_assert_eq(status[i], i, "st_status value %d", i);

    const int types[] = {ST_T_BOOL,  ST_T_INT,     ST_T_UINT,      ST_T_REAL,   ST_T_STRING,
                         ST_T_VEC3,  ST_T_REALS,   ST_T_UINTS,     ST_T_VEC3S,  ST_T_EDGES,
                         ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,  ST_T_HEXAS,  ST_T_STRINGS,
                         ST_T_LINK,  ST_T_VEC2,    ST_T_VEC4,      ST_T_RGBA,   ST_T_COORDS,
                         ST_T_DERIVS, ST_T_MASS,   ST_T_INT2,      ST_T_RIGID3S, ST_T_QUATS,
                         ST_T_TYPE_COUNT};
    for (int i = 0; i < (int)(sizeof types / sizeof *types); i++)
        cr_assert_eq(types[i], i + 1, "st_type value %d", i + 1);

    cr_assert_eq(ST_F_OUTPUT, 1);
    cr_assert_eq(ST_F_REQUIRED, 2);
    cr_assert_eq(ST_F_HIDDEN, 4);
    cr_assert_eq(ST_F_NOLINK, 8);
    cr_assert_eq(ST_F_IGNORED, 16);
    cr_assert_eq(ST_F_NOAUTOLINK, 32);
    cr_assert_eq(ST_F_COUNT, 64);

    const int kinds[] = {ST_LINK_ANY,           ST_LINK_STATE,      ST_LINK_TOPOLOGY,
                         ST_LINK_LINEAR_SOLVER, ST_LINK_ODE_SOLVER, ST_LINK_LOADER,
                         ST_LINK_NODE_KINDS};
    for (int i = 0; i < (int)(sizeof kinds / sizeof *kinds); i++)
        cr_assert_eq(kinds[i], i, "st_link_kind value %d", i);

    const int cstates[] = {ST_CSTATE_UNDEFINED, ST_CSTATE_LOADING, ST_CSTATE_VALID,
                           ST_CSTATE_DIRTY,     ST_CSTATE_BUSY,    ST_CSTATE_INVALID};
    for (int i = 0; i < (int)(sizeof cstates / sizeof *cstates); i++)
        cr_assert_eq(cstates[i], i, "st_cstate value %d", i);

    cr_assert_eq(ST_EVENT_ANIMATE_BEGIN, 1);
    cr_assert_eq(ST_EVENT_ANIMATE_END, 2);
    cr_assert_eq(ST_EVENT_INIT_DONE, 3);
    cr_assert_eq(ST_EVENT_BUILD_CONSTRAINT_SYSTEM_END, 4); /* ABI 2.6 */
    cr_assert_eq(ST_EVENT_SOLVE_CONSTRAINT_SYSTEM_END, 5);
    cr_assert_eq(ST_INPUT_MOUSE_MOVE, 1); /* ABI 2.10 */
    cr_assert_eq(ST_INPUT_KEY_PRESSED, 2);
    cr_assert_eq(ST_INPUT_KEY_RELEASED, 3);
    cr_assert_eq(ST_MAP_VISUAL, 16);
    cr_assert_eq(ST_MAP_VISUAL_VELOCITY, 32); /* ABI 2.10 */
    cr_assert_eq(ST_LOG_ERROR, 0);
    cr_assert_eq(ST_LOG_WARNING, 1);
    cr_assert_eq(ST_LOG_INFO, 2);

    const int elems[] = {ST_ELEM_POINT,       ST_ELEM_EDGE,      ST_ELEM_TRIANGLE,
                         ST_ELEM_QUAD,        ST_ELEM_TETRAHEDRON, ST_ELEM_HEXAHEDRON,
                         ST_ELEM_COUNT};
    for (int i = 0; i < (int)(sizeof elems / sizeof *elems); i++)
        cr_assert_eq(elems[i], i, "st_elem value %d", i);
    cr_assert_eq(ST_TOPO_REMOVED, 1);
    cr_assert_eq(ST_TOPO_ADDED, 2);

    const int roles[] = {ST_ROLE_ANY,       ST_ROLE_STATE,     ST_ROLE_FORCEFIELD, ST_ROLE_MASS,
                         ST_ROLE_PROJECTIVE, ST_ROLE_MAPPING,  ST_ROLE_ODESOLVER,  ST_ROLE_LINSOLVER,
                         ST_ROLE_TOPOLOGY,  ST_ROLE_ENGINE,    ST_ROLE_ANIMLOOP};
    for (int i = 0; i < (int)(sizeof roles / sizeof *roles); i++)
        cr_assert_eq(roles[i], i, "st_role value %d", i);

    cr_assert_eq(ST_SEARCH_LOCAL, 0);
    cr_assert_eq(ST_SEARCH_UP, 1);
    cr_assert_eq(ST_SEARCH_DOWN, 2);
    cr_assert_eq(ST_SEARCH_ROOT, 3);
    cr_assert_eq(ST_VISIT_CONTINUE, 0);
    cr_assert_eq(ST_VISIT_PRUNE, 1);
}

/* The version macros agree with each other (the string is what inspect and
 * settee --version print, the numbers what find_package compares). */
Test(sdk, version_macros_agree)
{
    char v[32];
    snprintf(v, sizeof v, "%d.%d.%d", ST_VERSION_MAJOR, ST_VERSION_MINOR, ST_VERSION_PATCH);
    cr_assert_str_eq(v, ST_VERSION_STRING);
}

/* The vector helpers of settee/vec.h against values worked by hand. */
Test(sdk, vec_helpers)
{
    double a[3] = {1, 2, 3}, b[3] = {-2, 0.5, 4}, c[3];
    cr_assert_eq(st_v3_dot(a, b), -2 + 1 + 12);
    st_v3_cross(c, a, b); /* (2*4 - 3*0.5, 3*-2 - 1*4, 1*0.5 - 2*-2) */
    cr_assert(c[0] == 6.5 && c[1] == -10 && c[2] == 4.5);
    cr_assert_eq(st_v3_dot(c, a), 0.0);
    cr_assert_eq(st_v3_norm((double[3]){3, 4, 12}), 13.0);
    st_v3_sub(c, a, b);
    cr_assert(c[0] == 3 && c[1] == 1.5 && c[2] == -1);
    st_v3_peq(c, b, 2.0);
    cr_assert(c[0] == -1 && c[1] == 2.5 && c[2] == 7);
    double n[3] = {0, 3, 4};
    cr_assert_eq(st_v3_normalize(n), 5.0);
    cr_assert(fabs(n[1] - 0.6) < 1e-15 && fabs(n[2] - 0.8) < 1e-15);
    double m[9] = {2, 0, 1, 1, 3, 0, 0, 1, 4}, inv[9], p[9];
    cr_assert_eq(st_m3_det(m), 2 * 12 - 0 + 1 * 1);
    cr_assert_eq(st_m3_inverse(inv, m), 25.0);
    st_m3_mul(p, m, inv);
    for (int i = 0; i < 9; i++)
        cr_assert(fabs(p[i] - (i % 4 == 0)) < 1e-15, "m m^-1 [%d] = %g", i, p[i]);
    double v[3];
    st_m3_mulv(v, m, a);
    cr_assert(v[0] == 5 && v[1] == 7 && v[2] == 14);
    st_m3_tmulv(v, m, a);
    cr_assert(v[0] == 4 && v[1] == 9 && v[2] == 13);
    st_m3_outer(p, a, b, -1.0);
    cr_assert(p[0] == 2 && p[5] == -8 && p[7] == -1.5);
    st_m3_transpose(p, p);
    cr_assert(p[0] == 2 && p[7] == -8 && p[5] == -1.5);
}

/* Field types of ABI 2.2: an integer pair (SOFA's Vec2i) and an array with
 * a fixed number of values, refused at the value's line and column. */
typedef struct typed_fields {
    st_component base;
    st_int2 range;
    st_array weights;
} typed_fields;

static const st_field typed_fields_fields[] = {
    ST_INT2(typed_fields, range, "localRange", "-1 -1", "first and last index"),
    ST_REALS_N(typed_fields, weights, "weights", "1 1 1", "three weights", 3),
    ST_FIELD_END};

static const st_class typed_fields_class = {
    .struct_size = sizeof(st_class),
    .name = "TestTypedFields",
    .category = "Misc",
    .description = "int2 and fixed-length fields",
    .instance_size = sizeof(typed_fields),
    .fields = typed_fields_fields,
};

static st_status load_typed(st_runtime *rt, const char *obj, st_scene **s, st_error *err)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, "format: settee/1\nroot:\n  objects:\n    - %s\n", obj);
    return st_scene_load_string(rt, yaml, strlen(yaml), "typed.yaml", s, err);
}

Test(sdk, int_pair_and_fixed_length_fields)
{
    st_runtime *rt = NULL;
    st_error err = {0};
    cr_assert_eq(st_runtime_create(&rt, &err), ST_OK, "%s", err.msg);
    cr_assert_eq(st_registry_add(st_runtime_registry(rt), &typed_fields_class, &err), ST_OK);
    st_scene *s = NULL;
    cr_assert_eq(load_typed(rt, "TestTypedFields: {name: t}", &s, &err), ST_OK, "%s", err.msg);
    typed_fields *t = (typed_fields *)st_node_object(st_scene_root(s), 0);
    cr_assert(t->range[0] == -1 && t->range[1] == -1);
    cr_assert(t->weights.n == 3 && t->weights.r[2] == 1.0);
    st_scene_destroy(&s);

    cr_assert_eq(load_typed(rt, "TestTypedFields: {localRange: [2, 7], weights: [0.5, 1, 2]}",
                            &s, &err),
                 ST_OK, "%s", err.msg);
    t = (typed_fields *)st_node_object(st_scene_root(s), 0);
    cr_assert(t->range[0] == 2 && t->range[1] == 7);
    cr_assert(t->weights.r[0] == 0.5 && t->weights.r[2] == 2.0);
    st_scene_destroy(&s);

    cr_assert_neq(load_typed(rt, "TestTypedFields: {weights: [1, 2]}", &s, &err), ST_OK);
    cr_assert(strstr(err.msg, "'weights' expects exactly 3 values, got 2"), "%s", err.msg);
    cr_assert_str_eq(err.where, "typed.yaml:4:34"); /* the list */
    st_scene_destroy(&s);
    cr_assert_neq(load_typed(rt, "TestTypedFields: {localRange: [1, 2, 3]}", &s, &err), ST_OK);
    cr_assert(strstr(err.msg, "'localRange' expects 2 integers"), "%s", err.msg);
    st_scene_destroy(&s);
    cr_assert_neq(load_typed(rt, "TestTypedFields: {localRange: [1, 2.5]}", &s, &err), ST_OK);
    cr_assert(strstr(err.msg, "not a whole number"), "%s", err.msg);
    st_scene_destroy(&s);
    st_runtime_destroy(&rt);
}
