/* articulated_hierarchy_container.c - ArticulatedHierarchyContainer: marks
 * the subtree whose ArticulationCenters (scene order) make an articulated
 * system; ArticulatedSystemMapping finds it below its input1's node (or
 * through its "container" link) and reads the centers from there.
 *
 * With "filename", a BVH motion file (bvh.h), it builds the centers itself,
 * as SOFA does: a child node "ArticulationCenters" holds, for each joint
 * that has children (end sites and childless joints place no body), a node
 * named after the joint with an ArticulationCenter (posOnParent = the
 * joint's OFFSET, posOnChild = 0, parentIndex = the parent joint's body,
 * childIndex = the joint's body: its place in the file, end sites counted,
 * plus one) and a node "articulations" with one Articulation per channel
 * (axis x, y or z; translation for a position channel, rotation else;
 * articulationIndex numbered in file order). Then it sizes its node's Vec1d
 * state to the articulation count and the Rigid3d state of its node's
 * first child node to the joint count (end sites included) plus one.
 * ArticulatedHierarchyBVHController plays the frames. SOFA names the
 * joint nodes "Parent/Joint"; settee names them after the joint ("/"
 * separates node paths, so it becomes "_"; a second joint of the same name
 * under one parent gets "_<its index in the file>"). The centers are built while the scene is read
 * (so they are in the graph before init), or at init for a scene built in
 * code. */
#include <stdio.h>
#include <string.h>

#include "../shared/mapping_common.h"
#include "articulated.h"
#include "bvh.h"

static const st_field container_fields[] = {
    ST_STRING(articulated_hierarchy_container, filename, "filename", "",
              "BVH File to load the articulation"),
    ST_FIELD_END};

#define CENTERS_NODE "ArticulationCenters"

static const double axes[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* The center of joint j (when it has children) below parent, then those
 * of its children. parent_body: the body of the parent joint (0 for the
 * root's). */
static st_status build_center(articulated_hierarchy_container *c, size_t j, int parent_body,
                              st_node *parent, st_error *err)
{
    const bvh *b = c->motion;
    const bvh_joint *jt = &b->joints[j];
    if (jt->nchildren == 0)
        return ST_OK;
    char name[128];
    size_t k = 0;
    for (; jt->name[k] && k + 1 < sizeof name; k++)
        name[k] = jt->name[k] == '/' ? '_' : jt->name[k];
    name[k] = '\0';
    /* two joints of one name under one parent: the second gets its index */
    for (size_t i = 0; i < st_node_child_count(parent); i++)
        if (!strcmp(st_node_name(st_node_child(parent, i)), name)) {
            snprintf(name + (k < sizeof name - 24 ? k : sizeof name - 24), 24, "_%zu", j);
            break;
        }
    st_node *n, *an;
    st_component *comp;
    ST_TRY(st_node_add_child(parent, name, &n, err));
    ST_TRY(st_node_add_object(n, "ArticulationCenter", NULL, &comp, err));
    articulation_center *ac = (articulation_center *)comp;
    memcpy(ac->pos_on_parent, jt->offset, sizeof ac->pos_on_parent);
    memset(ac->pos_on_child, 0, sizeof ac->pos_on_child);
    ac->parent_index = parent_body;
    ac->child_index = (int)j + 1;
    ST_TRY(st_node_add_child(n, "articulations", &an, err));
    for (size_t ch = 0; ch < jt->nchannels; ch++) {
        ST_TRY(st_node_add_object(an, "Articulation", NULL, &comp, err));
        articulation *a = (articulation *)comp;
        bvh_channel kind = jt->channels[ch];
        memcpy(a->axis, axes[kind % 3], sizeof a->axis);
        a->translation = bvh_channel_is_position(kind);
        a->rotation = !a->translation;
        a->articulation_index = (int)c->narticulations++;
        a->has_motion = true;
        a->motion_column = jt->column + ch;
    }
    for (size_t i = j + 1; i < b->njoints; i++)
        if (b->joints[i].parent == (int)j)
            ST_TRY(build_center(c, i, (int)j + 1, n, err));
    return ST_OK;
}

/* Reads the BVH file and builds the centers (once). */
static st_status load(articulated_hierarchy_container *c, st_error *err)
{
    st_component *self = &c->base;
    if (c->motion || !c->filename || !c->filename[0])
        return ST_OK;
    char path[4096];
    ST_TRY(st_component_find_file(self, "filename", c->filename, path, sizeof path, err));
    ST_TRY(bvh_read(path, &c->motion, err));
    c->narticulations = 0;
    st_status st = st_node_add_child(self->node, CENTERS_NODE, &c->built, err);
    if (st == ST_OK)
        st = build_center(c, 0, 0, c->built, err);
    if (st != ST_OK)
        st_error_prefix(err, "building the articulations of '%s': ", c->filename);
    return st;
}

static st_status container_parsed(st_component *self, st_error *err)
{
    return load((articulated_hierarchy_container *)self, err);
}

/* Resizes a state to n points (new rigid points: identity). */
static st_status size_state(st_mstate *ms, size_t n, st_error *err)
{
    size_t old = ms->position.n;
    if (old == n && ms->n == n)
        return ST_OK;
    ST_TRY(map_resize_output(ms, n, err));
    unsigned w = ms->type->coord_size;
    for (size_t i = old; i < n; i++)
        memcpy(ms->position.r + (size_t)w * i, ms->type->identity, w * sizeof(double));
    memcpy(ms->rest_position.r, ms->position.r, (size_t)w * n * sizeof(double));
    return ST_OK;
}

static st_status container_init(st_component *self, st_error *err)
{
    articulated_hierarchy_container *c = (articulated_hierarchy_container *)self;
    ST_TRY(load(c, err));
    if (!c->motion)
        return ST_OK;
    st_mstate *values = st_node_mstate(self->node);
    if (!values || values->type != &st_vec1d_type)
        return st_component_error(self, "filename", err, ST_ESCENE,
                                  "the articulations read from '%s' need a Vec1d "
                                  "MechanicalObject in node '%s' (it has %s)",
                                  c->filename, st_node_name(self->node),
                                  values ? values->type->name : "none");
    /* The bodies: the state of the first child node (not the centers'). */
    st_node *bodies = NULL;
    for (size_t i = 0; i < st_node_child_count(self->node) && !bodies; i++)
        if (st_node_child(self->node, i) != c->built)
            bodies = st_node_child(self->node, i);
    st_mstate *rigid = bodies ? st_node_mstate(bodies) : NULL;
    if (!rigid || rigid->type != &st_rigid3d_type)
        return st_component_error(self, "filename", err, ST_ESCENE,
                                  "the bodies of '%s' (%zu joints plus the base) go to a Rigid3d "
                                  "MechanicalObject in the first child node of '%s'%s%s%s",
                                  c->filename, c->motion->njoints, st_node_name(self->node),
                                  bodies ? " ('" : ": it has no child node",
                                  bodies ? st_node_name(bodies) : "",
                                  bodies ? (rigid ? "' holds another type)" : "' has none)") : "");
    ST_TRY(size_state(values, c->narticulations, err));
    return size_state(rigid, c->motion->njoints + 1, err);
}

static void container_cleanup(st_component *self)
{
    articulated_hierarchy_container *c = (articulated_hierarchy_container *)self;
    bvh_destroy(&c->motion);
    c->built = NULL;
}

const st_class articulated_hierarchy_container_class = {
    .struct_size = sizeof(st_class),
    .name = "ArticulatedHierarchyContainer",
    .category = "Misc",
    .description = "This class allow to store and retrieve all the articulation centers from an "
                   "articulated rigid object.",
    .instance_size = sizeof(articulated_hierarchy_container),
    .fields = container_fields,
    .init = container_init,
    .reinit = container_init,
    .cleanup = container_cleanup,
    .parsed = container_parsed,
};
