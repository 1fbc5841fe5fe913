/* merge_visual_models.c - SOFA's MergeVisualModels: an OglModel (all its
 * fields) holding the union of `nb` visual models input1..inputN, made at
 * init (and reinit) only, as SOFA: positions, vertices and texture
 * coordinates one model after the other; vertPosIdx and vertNormIdx
 * shifted by the positions of the models before; edges, triangles and
 * quads shifted by the points the faces of the models before index.
 *
 * SOFA shifts the faces by the models' `vertices` (its vertices2, only
 * filled at texture or normal seams), so a model without seams shifts
 * nothing and the faces after it index the wrong points. Here a model
 * without seams counts its positions, which is SOFA's result whenever
 * every input has seams (the example scene's OBJ loaders with
 * handleSeams) and the right mesh otherwise; when some inputs have seams
 * and others not, those others enter with vertices equal to their
 * positions and vertPosIdx the identity, so the merged model stays one
 * consistent mesh. An unset input is skipped, as SOFA. settee's field
 * tables are static: at most 8 inputs (a larger nb is an error). The
 * merged model's own transformation (translation, rotation, scale3d),
 * flip and texture transformation apply to nothing: SOFA's OglModel init
 * runs before the merge. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ogl_model.h"

enum { MVM_MAX = 8, MVM_MAX_FIELDS = 128 };

/* Appended after the OglModel instance. */
typedef struct mvm_extra {
    unsigned nb;                     /* "nb" */
    st_component *input[MVM_MAX];    /* "input1".."input8" */
} mvm_extra;

static size_t extra_offset;          /* of the mvm_extra in the instance */
static st_field fields[MVM_MAX_FIELDS];
static st_class cls;
static char input_keys[MVM_MAX][8];
static char input_help[MVM_MAX][40];

static mvm_extra *extra(st_component *self)
{
    return (mvm_extra *)((char *)self + extra_offset);
}

static st_array *arr(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    return f ? st_component_field_ptr(c, f) : NULL;
}

/* Whether model c's faces index its vertices (seams) rather than its
 * positions. */
static bool seams(st_component *c)
{
    const st_array *v = arr(c, "vertices"), *idx = arr(c, "vertPosIdx");
    return idx->n && v->n == idx->n;
}

/* Real lists one after the other (width reals per tuple of type t). */
static st_status concat_reals(st_array *out, st_type t, unsigned width, st_component *const *in,
                              unsigned n, const char *name, st_error *err)
{
    size_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += arr(in[i], name)->n;
    ST_TRY(st_array_resize(out, t, total, err));
    size_t at = 0;
    for (unsigned i = 0; i < n; i++) {
        const st_array *a = arr(in[i], name);
        if (a->n)
            memcpy(out->r + at * width, a->r, a->n * width * sizeof(double));
        at += a->n;
    }
    return ST_OK;
}

/* Element lists shifted by shift[i] for input i. */
static st_status concat_elements(st_array *out, st_type t, st_component *const *in, unsigned n,
                                 const char *name, const size_t *shift, st_error *err)
{
    unsigned w = st_type_width(t);
    size_t total = 0;
    for (unsigned i = 0; i < n; i++)
        total += arr(in[i], name)->n;
    ST_TRY(st_array_resize(out, t, total, err));
    size_t at = 0;
    for (unsigned i = 0; i < n; i++) {
        const st_array *a = arr(in[i], name);
        for (size_t k = 0; k < a->n * w; k++)
            out->u[at * w + k] = a->u[k] + (unsigned)shift[i];
        at += a->n;
    }
    return ST_OK;
}

static st_status merge(st_component *self, st_component *const *in, unsigned n, st_error *err)
{
    bool any_seams = false;
    for (unsigned i = 0; i < n; i++)
        any_seams |= seams(in[i]);
    size_t pos_shift[MVM_MAX], face_shift[MVM_MAX], np = 0, nf = 0;
    for (unsigned i = 0; i < n; i++) {
        pos_shift[i] = np, face_shift[i] = nf;
        np += arr(in[i], "position")->n;
        nf += seams(in[i]) ? arr(in[i], "vertices")->n : arr(in[i], "position")->n;
    }
    ST_TRY(concat_reals(arr(self, "position"), ST_T_VEC3S, 3, in, n, "position", err));
    ST_TRY(concat_reals(arr(self, "texcoords"), ST_T_REALS, 1, in, n, "texcoords", err));
    st_array *verts = arr(self, "vertices"), *vpi = arr(self, "vertPosIdx");
    if (any_seams) {
        /* Vertices and their position indices, positions standing for the
         * vertices of a model without seams. */
        ST_TRY(st_array_resize(verts, ST_T_VEC3S, nf, err));
        ST_TRY(st_array_resize(vpi, ST_T_UINTS, nf, err));
        for (unsigned i = 0; i < n; i++) {
            bool s = seams(in[i]);
            const st_array *v = arr(in[i], s ? "vertices" : "position");
            const st_array *idx = arr(in[i], "vertPosIdx");
            if (v->n)
                memcpy(verts->r + 3 * face_shift[i], v->r, 3 * v->n * sizeof(double));
            for (size_t k = 0; k < v->n; k++)
                vpi->u[face_shift[i] + k] = (unsigned)(pos_shift[i] + (s ? idx->u[k] : k));
        }
    } else {
        st_array_free(verts, ST_T_VEC3S);
        st_array_free(vpi, ST_T_UINTS);
    }
    ST_TRY(concat_elements(arr(self, "vertNormIdx"), ST_T_UINTS, in, n, "vertNormIdx", pos_shift,
                           err));
    ST_TRY(concat_elements(arr(self, "edges"), ST_T_EDGES, in, n, "edges", face_shift, err));
    ST_TRY(concat_elements(arr(self, "triangles"), ST_T_TRIANGLES, in, n, "triangles",
                           face_shift, err));
    ST_TRY(concat_elements(arr(self, "quads"), ST_T_QUADS, in, n, "quads", face_shift, err));
    st_array *rest = arr(self, "restPosition"), *pos = arr(self, "position");
    ST_TRY(st_array_resize(rest, ST_T_VEC3S, pos->n, err));
    if (pos->n)
        memcpy(rest->r, pos->r, 3 * pos->n * sizeof(double));
    static const char *const touched[] = {"position", "restPosition", "texcoords", "vertices",
                                          "vertPosIdx", "vertNormIdx", "edges", "triangles",
                                          "quads"};
    for (size_t k = 0; k < sizeof touched / sizeof *touched; k++)
        st_component_touch(self, st_component_field(self, touched[k]));
    return ST_OK;
}

static st_status mvm_init(st_component *self, st_error *err)
{
    mvm_extra *x = extra(self);
    if (x->nb > MVM_MAX)
        return st_component_error(self, "nb", err, ST_EINVAL,
                                  "nb is %u: settee merges at most %d visual models", x->nb,
                                  MVM_MAX);
    for (unsigned i = x->nb; i < MVM_MAX; i++)
        if (x->input[i])
            return st_component_error(self, input_keys[i], err, ST_ESCENE,
                                      "%s is set but nb is %u: raise nb to %u", input_keys[i],
                                      x->nb, i + 1);
    st_component *in[MVM_MAX];
    unsigned n = 0;
    for (unsigned i = 0; i < x->nb; i++) {
        st_component *c = x->input[i];
        if (!c)
            continue;
        if (!st_component_field(c, "vertPosIdx") || !st_component_field(c, "vertices") ||
            !st_component_field(c, "triangles") || c->cls->fields == NULL)
            return st_component_error(self, input_keys[i], err, ST_ESCENE,
                                      "'%s' is a %s, not a visual model (OglModel)", c->name,
                                      c->cls->name);
        if (c == self)
            return st_component_error(self, input_keys[i], err, ST_ESCENE,
                                      "a MergeVisualModels cannot merge itself");
        in[n++] = c;
    }
    /* SOFA's OglModel init runs on an empty model, which then takes its
     * topology's faces, and the merge replaces everything. Merging first
     * as well keeps that init from taking (and following) the topology's
     * faces; merging again afterwards undoes what the init applied to the
     * merged mesh (transformation, flip, texture transformation). */
    ST_TRY(merge(self, in, n, err));
    ST_TRY(ogl_model_init(self, err));
    self->state = ST_CSTATE_INVALID;
    ST_TRY(merge(self, in, n, err));
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

const st_class *merge_visual_models_class(void)
{
    const st_class *base = &ogl_model_class;
    extra_offset = (base->instance_size + 15) / 16 * 16;
    size_t nf = 0;
    for (const st_field *f = base->fields; f->name; f++) {
        if (nf + MVM_MAX + 2 >= MVM_MAX_FIELDS)
            return NULL;
        fields[nf++] = *f;
    }
    fields[nf++] = (st_field){.name = "nb",
                              .type = ST_T_UINT,
                              .offset = extra_offset + offsetof(mvm_extra, nb),
                              .def = "1",
                              .help = "number of input visual models to merge (at most 8 in "
                                      "settee)"};
    for (int i = 0; i < MVM_MAX; i++) {
        snprintf(input_keys[i], sizeof input_keys[i], "input%d", i + 1);
        snprintf(input_help[i], sizeof input_help[i], "input visual model %d", i + 1);
        fields[nf++] = (st_field){.name = input_keys[i],
                                  .type = ST_T_LINK,
                                  .offset = extra_offset + offsetof(mvm_extra, input) +
                                            (size_t)i * sizeof(st_component *),
                                  .help = input_help[i],
                                  .link_kind = ST_LINK_ANY};
    }
    fields[nf] = (st_field){0};
    cls = *base;
    cls.name = "MergeVisualModels";
    cls.description = "Merge several visual models.";
    cls.aliases = NULL;
    cls.instance_size = extra_offset + sizeof(mvm_extra);
    cls.fields = fields;
    cls.init = mvm_init;
    cls.reinit = mvm_init;
    return &cls;
}
