/* spring_force_field.c - SpringForceField (formerly StiffSpringForceField):
 * linear springs between vertices of object1 and object2 (both default to
 * the MechanicalObject of the node, else of its nearest ancestor).
 *
 * Springs come either from `spring` (SOFA's LinearSpring text: "i j ks kd
 * L0" repeated, 5 numbers per spring) or, when `spring` is not set, from
 * the lists indices1/indices2 with stiffness (default [100]), damping
 * (default [5]), lengths (default: empty = rest length 0), elongationOnly
 * and enabled (0 or 1 per spring): lists shorter than indices1 are padded
 * with their last value, as SOFA does. */
#include <math.h>
#include <string.h>

#include "springs.h"


/* Resizes a list to n entries, padding with its last value (or def when
 * empty), with SOFA's warning when the scene gave a list of another size. */
static st_status pad_list(spring_ff *s, st_array *a, st_type t, const char *name, size_t n,
                          double def, st_error *err)
{
    size_t old = a->n;
    if (old == n)
        return ST_OK;
    if (old > 0 && st_component_is_set(&s->base, name))
        st_component_warn(&s->base,
                          "%s list has a different size than indices1. The list will be resized "
                          "to %zu elements.",
                          name, n);
    ST_TRY(st_array_resize(a, t, n, err));
    for (size_t i = old; i < n; i++) {
        if (t == ST_T_REALS)
            a->r[i] = old ? a->r[old - 1] : def;
        else
            a->u[i] = old ? a->u[old - 1] : (unsigned)def;
    }
    return ST_OK;
}

static st_status check_index(spring_ff *s, unsigned idx, const st_mstate *ms, const char *field,
                             size_t k, st_error *err)
{
    if (idx >= ms->n)
        return st_component_error(&s->base, field, err, ST_EINVAL,
                                  "spring %zu: index %u is out of range, the state '%s' has %zu "
                                  "points",
                                  k, idx, ms->base.name, ms->n);
    return ST_OK;
}

/* SOFA's ENDING_EVENT callback, updateTopologyIndicesFromSprings: the
 * lists (and `spring` when the scene gave it) rewritten from the springs. */
static st_status sff_lists_from_springs(spring_ff *s, st_error *err)
{
    return spring_ff_lists(s, st_component_is_set(&s->base, "spring"), err);
}

st_status spring_ff_lists(spring_ff *s, bool list, st_error *err)
{
    st_component *self = &s->base;
    size_t n = s->set.n;
    ST_TRY(st_array_resize(&s->indices1, ST_T_UINTS, n, err));
    ST_TRY(st_array_resize(&s->indices2, ST_T_UINTS, n, err));
    ST_TRY(st_array_resize(&s->stiffness, ST_T_REALS, n, err));
    ST_TRY(st_array_resize(&s->damping, ST_T_REALS, n, err));
    ST_TRY(st_array_resize(&s->lengths, ST_T_REALS, n, err));
    ST_TRY(st_array_resize(&s->elongation_only, ST_T_UINTS, n, err));
    ST_TRY(st_array_resize(&s->enabled, ST_T_UINTS, n, err));
    if (list)
        ST_TRY(st_array_resize(&s->spring_list, ST_T_REALS, 5 * n, err));
    for (size_t k = 0; k < n; k++) {
        const spring *sp = &s->set.s[k];
        s->indices1.u[k] = sp->m1;
        s->indices2.u[k] = sp->m2;
        s->stiffness.r[k] = sp->ks;
        s->damping.r[k] = sp->kd;
        s->lengths.r[k] = sp->l0;
        s->elongation_only.u[k] = sp->elongation_only;
        s->enabled.u[k] = sp->enabled;
        if (list) {
            double *r = s->spring_list.r + 5 * k;
            r[0] = sp->m1, r[1] = sp->m2, r[2] = sp->ks, r[3] = sp->kd, r[4] = sp->l0;
        }
    }
    static const char *const names[] = {"springsIndices1", "springsIndices2", "stiffness",
                                        "damping",         "lengths",         "elongationOnly",
                                        "enabled",         "spring"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        st_component_touch(self, st_component_field(self, names[i]));
    return ST_OK;
}

static st_status sff_topology_changed(st_component *self, st_component *topology,
                                      const st_topo_event *ev, size_t nev, st_error *err)
{
    spring_ff *s = (spring_ff *)self;
    unsigned sides = (s->topo[0] == topology ? 1u : 0u) | (s->topo[1] == topology ? 2u : 0u);
    bool changed;
    ST_TRY(springs_topology_changed(&s->set, sides, springs_edge_topology(topology), ev, nev,
                                    &changed, err));
    return sff_lists_from_springs(s, err);
}

/* SOFA's initializeTopologyHandler for each state's topology (the first
 * one found from the state's node upward). */
static st_status sff_follow(spring_ff *s, st_error *err)
{
    for (int k = 0; k < 2; k++) {
        st_mstate *ms = k ? s->set.ms2 : s->set.ms1;
        st_component *t = st_node_find(ms->base.node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
        s->topo[k] = t && t->cls->topology ? t : NULL;
    }
    if (s->topo[0])
        ST_TRY(st_topology_listen(&s->base, s->topo[0], sff_topology_changed, err));
    if (s->topo[1] && s->topo[1] != s->topo[0])
        ST_TRY(st_topology_listen(&s->base, s->topo[1], sff_topology_changed, err));
    return ST_OK;
}

st_status spring_ff_bind(spring_ff *s, st_error *err)
{
    st_component *self = &s->base;
    springs_free(&s->set);
    if (s->file_springs && s->file_springs[0])
        return st_component_error(self, "fileSprings", err, ST_EINVAL,
                                  "loading springs from a file ('%s') is not supported by settee "
                                  "yet: give them with spring, or springsIndices1/2 with "
                                  "stiffness, damping and lengths",
                                  s->file_springs);
    ST_TRY(springs_link_state(self, s->object1, "object1", &s->set.ms1, err));
    ST_TRY(springs_link_state(self, s->object2, "object2", &s->set.ms2, err));
    /* Both states have the spring's type (SOFA's SpringForceField<T>). */
    const st_state_type *t = st_component_state_type(self);
    const st_mstate *both[2] = {s->set.ms1, s->set.ms2};
    for (int k = 0; k < 2; k++)
        if (both[k]->type != t)
            return st_component_error(self, k ? "object2" : "object1", err, ST_ESCENE,
                                      "the state '%s' is %s, the springs are %s: both states of "
                                      "a SpringForceField have its type",
                                      both[k]->base.name, both[k]->type->name, t ? t->name : "?");
    return ST_OK;
}

st_status spring_ff_read(spring_ff *s, st_error *err)
{
    st_component *self = &s->base;
    if (st_component_is_set(self, "spring")) {
        /* a value given to a list that 'spring' rewrites (in the scene or
         * by --set) would be silently lost */
        static const char *const rewritten[] = {"stiffness",       "damping",
                                                "lengths",         "springsIndices1",
                                                "springsIndices2", "elongationOnly",
                                                "enabled"};
        for (size_t i = 0; i < sizeof rewritten / sizeof *rewritten; i++)
            if (st_component_is_set(self, rewritten[i]))
                st_component_warn_field(self, rewritten[i],
                                        "the value set for '%s' is not used: field 'spring' is "
                                        "set too, and its springs ('i j ks kd restLength') "
                                        "rewrite '%s'",
                                        rewritten[i], rewritten[i]);
        if (s->spring_list.n % 5 != 0)
            return st_component_error(self, "spring", err, ST_EINVAL,
                                      "'spring' takes 5 numbers per spring (i j ks kd restLength), "
                                      "got %zu numbers",
                                      s->spring_list.n);
        size_t n = s->spring_list.n / 5;
        for (size_t k = 0; k < n; k++) {
            const double *r = s->spring_list.r + 5 * k;
            for (int j = 0; j < 2; j++)
                if (!(r[j] >= 0) || r[j] != floor(r[j]) || r[j] > 4294967295.0)
                    return st_component_error(self, "spring", err, ST_EINVAL,
                                              "spring %zu: vertex index %g is not a "
                                              "non-negative integer",
                                              k, r[j]);
            spring sp = {(unsigned)r[0], (unsigned)r[1], r[2], r[3], r[4], false, true};
            ST_TRY(check_index(s, sp.m1, s->set.ms1, "spring", k, err));
            ST_TRY(check_index(s, sp.m2, s->set.ms2, "spring", k, err));
            ST_TRY(springs_push(&s->set, sp, err));
        }
        /* The lists are rewritten from the springs, as SOFA does. */
        ST_TRY(st_array_resize(&s->indices1, ST_T_UINTS, n, err));
        ST_TRY(st_array_resize(&s->indices2, ST_T_UINTS, n, err));
        ST_TRY(st_array_resize(&s->stiffness, ST_T_REALS, n, err));
        ST_TRY(st_array_resize(&s->damping, ST_T_REALS, n, err));
        ST_TRY(st_array_resize(&s->lengths, ST_T_REALS, n, err));
        ST_TRY(st_array_resize(&s->elongation_only, ST_T_UINTS, n, err));
        ST_TRY(st_array_resize(&s->enabled, ST_T_UINTS, n, err));
        for (size_t k = 0; k < n; k++) {
            const spring *sp = &s->set.s[k];
            s->indices1.u[k] = sp->m1;
            s->indices2.u[k] = sp->m2;
            s->stiffness.r[k] = sp->ks;
            s->damping.r[k] = sp->kd;
            s->lengths.r[k] = sp->l0;
            s->elongation_only.u[k] = 0;
            s->enabled.u[k] = 1;
        }
    } else {
        size_t n = s->indices1.n;
        if (n != s->indices2.n)
            return st_component_error(self, "springsIndices2", err, ST_EINVAL,
                                      "Inputs indices sets sizes are different: %zu indices1 and "
                                      "%zu indices2. No springs will be created",
                                      n, s->indices2.n);
        if (n > 0) {
            ST_TRY(pad_list(s, &s->lengths, ST_T_REALS, "lengths", n, 0.0, err));
            ST_TRY(pad_list(s, &s->stiffness, ST_T_REALS, "stiffness", n, 100.0, err));
            ST_TRY(pad_list(s, &s->damping, ST_T_REALS, "damping", n, 5.0, err));
            ST_TRY(pad_list(s, &s->elongation_only, ST_T_UINTS, "elongationOnly", n, 0, err));
            ST_TRY(pad_list(s, &s->enabled, ST_T_UINTS, "enabled", n, 1, err));
        }
        for (size_t k = 0; k < n; k++) {
            spring sp = {s->indices1.u[k], s->indices2.u[k], s->stiffness.r[k], s->damping.r[k],
                         s->lengths.r[k], s->elongation_only.u[k] != 0, s->enabled.u[k] != 0};
            ST_TRY(check_index(s, sp.m1, s->set.ms1, "springsIndices1", k, err));
            ST_TRY(check_index(s, sp.m2, s->set.ms2, "springsIndices2", k, err));
            ST_TRY(springs_push(&s->set, sp, err));
        }
    }
    return ST_OK;
}

st_status spring_ff_done(spring_ff *s, st_error *err)
{
    ST_TRY(springs_finish(&s->set, err));
    return sff_follow(s, err);
}

static st_status sff_init(st_component *self, st_error *err)
{
    spring_ff *s = (spring_ff *)self;
    ST_TRY(spring_ff_bind(s, err));
    ST_TRY(spring_ff_read(s, err));
    return spring_ff_done(s, err);
}

void spring_ff_cleanup(st_component *self) { springs_free(&((spring_ff *)self)->set); }

spring_set *spring_force_field_set(st_component *self) { return &((spring_ff *)self)->set; }

static void sff_add_force(st_component *self, const st_mparams *mp, double *f, const double *x,
                          const double *v)
{
    (void)mp;
    springs_add_force(&((spring_ff *)self)->set, f, x, v);
}

static void sff_add_dforce(st_component *self, const st_mparams *mp, double *df, const double *dx,
                           double kfactor, double bfactor)
{
    (void)mp, (void)bfactor;
    springs_add_dforce(&((spring_ff *)self)->set, df, dx, kfactor);
}

static void sff_add_k(st_component *self, const st_mparams *mp, st_matrix *m, double kfactor)
{
    (void)mp;
    springs_add_k(&((spring_ff *)self)->set, m, kfactor);
}

static double sff_energy(st_component *self, const st_mparams *mp, const double *x)
{
    (void)mp;
    return springs_energy(&((spring_ff *)self)->set, x);
}

static double sff_rayleigh(const st_component *self)
{
    return ((const spring_ff *)self)->rayleigh_stiffness;
}

const st_forcefield_ops spring_ff_ops = {
    .struct_size = sizeof(st_forcefield_ops),
    .add_force = sff_add_force,
    .add_dforce = sff_add_dforce,
    .add_k_to_matrix = sff_add_k,
    .potential_energy = sff_energy,
    .rayleigh_stiffness = sff_rayleigh,
};

static const st_field sff_fields[] = {SPRING_FF_FIELDS, ST_FIELD_END};

/* Checkpoints: the springs a topological change left, and the lists made
 * from them. */
static st_status sff_transfer(st_component *self, st_checkpoint *ck, st_error *err)
{
    spring_ff *s = (spring_ff *)self;
    ST_TRY(springs_transfer(&s->set, ck, err));
    bool changed = false;
    for (int k = 0; k < 2; k++)
        changed |= s->topo[k] && st_topology_revision(s->topo[k]) != 0;
    return st_checkpoint_reading(ck) && changed ? sff_lists_from_springs(s, err) : ST_OK;
}

static const st_checkpoint_ops sff_ck = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = sff_transfer,
};

static const char *const sff_aliases[] = {"StiffSpringForceField", NULL};

static const char *const sff_templates[] = {"Vec1d", "Vec2d", "Vec3d", "Rigid3d", NULL};

const st_class spring_force_field_class = {
    .struct_size = sizeof(st_class),
    .name = "SpringForceField",
    .category = "ForceField",
    .description = "Springs between the vertices of one or two MechanicalObjects",
    .aliases = sff_aliases,
    .instance_size = sizeof(spring_ff),
    .fields = sff_fields,
    .init = sff_init,
    .reinit = sff_init, /* SOFA's reinit reads the springs again (SofaPython3's removeSpring) */
    .cleanup = spring_ff_cleanup,
    .forcefield = &spring_ff_ops,
    .templates = sff_templates,
    .checkpoint = &sff_ck,
};
