/* data_exchange.c - the built-in DataExchange (SOFA's MultiThreading
 * plugin): copies one data to another when AnimationLoopParallelScheduler
 * has stepped every child scene (SOFA's DataExchangeEvent), so that child
 * scenes that step in parallel can read each other's results one step
 * later without sharing anything during a step.
 *
 * `from="@scene1/liver/dofs.position"` names the source and
 * `to="@result/dofs1.position"` the destination. As in SOFA, the
 * destination then reads this component's `to` (its data parent is
 * changed), which the exchange overwrites with the source's value: once at
 * init, then after each step of the scheduler. Neither link is followed
 * during a step: the source is read only at the exchange. Without both
 * links nothing is exchanged (SOFA's, silently; settee says so).
 *
 * Templates: SOFA's default, vector<Vec3d> (and vector<Vec3f>, read as
 * doubles). SOFA's other instances (vector<Vec2d>, vector<double>, Vec3d,
 * double, vector<int>, vector<unsigned int>, bool) are refused by name. */
#include <string.h>

#include "builtin/builtin.h"

typedef struct data_exchange {
    st_component base;
    char *template_name; /* "template" */
    st_array from, to;   /* "from", "to" */
    st_component *src;   /* the source, its field (NULL: nothing to exchange) */
    const st_field *src_field;
    st_component *dst;   /* the destination, which reads `to` */
} data_exchange;

static const st_field exchange_fields[] = {
    ST_STRING(data_exchange, template_name, "template", "vector<Vec3d>",
              "The type of the data exchanged: vector<Vec3d> (SOFA's default) or vector<Vec3f>"),
    ST_FIELD_EX(data_exchange, from, "from", ST_T_VEC3S, st_array, NULL,
                "source object to copy", 0, NULL, 0, 0),
    ST_FIELD_EX(data_exchange, to, "to", ST_T_VEC3S, st_array, NULL,
                "destination object to copy", 0, NULL, 0, 0),
    ST_FIELD_END};

/* The link of field name of c, taken off it: its source and the source's
 * field (NULL when the field is not linked). */
static st_component *take_link(st_component *c, const char *name, const st_field **field)
{
    st_cinfo *ci = st__cinfo(c);
    int i = st__component_field_index(c, name);
    *field = NULL;
    if (i < 0 || !ci->fs[i].parent)
        return NULL;
    st_fstate *fs = &ci->fs[i];
    st_component *p = fs->parent;
    *field = fs->parent_field;
    st_free(fs->link);
    fs->link = NULL;
    fs->parent = NULL;
    fs->parent_field = NULL;
    return p;
}

/* A source or destination field that holds 3-vectors. */
static bool holds_vec3s(st_component *c, const st_field *f)
{
    return (f->type == ST_T_VEC3S || f->type == ST_T_COORDS || f->type == ST_T_DERIVS) &&
           st_component_field_width(c, f) == 3;
}

/* to := the source's value, and the destination will read it. */
static st_status exchange(data_exchange *d, st_error *err)
{
    if (!d->src)
        return ST_OK;
    const st_array *a = (const st_array *)((const char *)d->src + d->src_field->offset);
    ST_TRY(st_array_resize(&d->to, ST_T_VEC3S, a->n, err));
    if (a->n)
        memcpy(d->to.r, a->r, 3 * a->n * sizeof *a->r);
    st_component_touch(&d->base, st_component_field(&d->base, "to"));
    /* read now, as SOFA's destination data would be on its next read */
    return d->dst ? st_component_update_inputs(d->dst, err) : ST_OK;
}

static st_status exchange_init(st_component *self, st_error *err)
{
    data_exchange *d = (data_exchange *)self;
    const char *t = d->template_name ? d->template_name : "";
    if (strcmp(t, "vector<Vec3d>") && strcmp(t, "vector<Vec3f>"))
        return st_component_error(self, "template", err, ST_ESCENE,
                                  "DataExchange<%s> is not in settee: it exchanges "
                                  "vector<Vec3d> (SOFA's default) and vector<Vec3f>",
                                  t);
    const st_field *sf, *df;
    st_component *src = take_link(self, "from", &sf);
    st_component *dst = take_link(self, "to", &df);
    st__cinfo(self)->has_links = false;
    d->src = NULL;
    if (!src || !dst) {
        st_component_warn(self, "'from' and 'to' must both link a data (from=\"@path.position\"): "
                                "nothing is exchanged");
        return ST_OK;
    }
    char path[ST_ERROR_PATH_MAX];
    if (!holds_vec3s(src, sf))
        return st_component_error(self, "from", err, ST_ESCENE,
                                  "'%s' of %s does not hold 3-vectors (template %s)", sf->name,
                                  st_component_path(src, path, sizeof path), t);
    if (!holds_vec3s(dst, df))
        return st_component_error(self, "to", err, ST_ESCENE,
                                  "'%s' of %s does not hold 3-vectors (template %s)", df->name,
                                  st_component_path(dst, path, sizeof path), t);
    d->src = src;
    d->src_field = sf;
    d->dst = NULL;
    ST_TRY(exchange(d, err));
    d->dst = dst;
    /* The destination reads `to` from now on (SOFA: setParent). */
    return st__component_link_field(dst, df, self, st_component_field(self, "to"), err);
}

void st__data_exchange_all(st_node *n)
{
    for (size_t i = 0; i < n->nobjects; i++) {
        st_component *c = n->objects[i];
        if (c->cls == &st__data_exchange_class && c->state != ST_CSTATE_INVALID) {
            st_error e = {0};
            if (exchange((data_exchange *)c, &e) != ST_OK)
                st_component_warn(c, "%s", e.msg);
        }
    }
    for (size_t i = 0; i < n->nchildren; i++)
        st__data_exchange_all(n->children[i]);
}

const st_class st__data_exchange_class = {
    .struct_size = sizeof(st_class),
    .name = "DataExchange",
    .category = "Engine",
    .description = "Copies a data to another after each step of AnimationLoopParallelScheduler "
                   "(the destination reads this component's 'to')",
    .instance_size = sizeof(data_exchange),
    .fields = exchange_fields,
    .init = exchange_init,
};
