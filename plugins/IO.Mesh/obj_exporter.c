/* obj_exporter.c - SOFA's VisualModelOBJExporter: the visual models (OglModel)
 * of the exporter's node and of the nodes below it, in SOFA's visiting
 * order, written into one Wavefront OBJ file with a material file beside
 * it, on SOFA's BaseSimulationExporter events (sim_exporter.h): FILENAME
 * [NNNNN].obj and .mtl (a filename ending in .obj keeps it and the
 * material file takes .mtl instead). As SOFA's VisualModelImpl::exportOBJ,
 * each model is a group "g K_NAME" (K counting the models from 1) using
 * material "matC" (C counting the models of its node from 1), then its
 * positions "v", its normals "vn" and its texture coordinates "vt" (6
 * decimals), then its edges, triangles and quads as "f p//n" faces (or
 * "f p/t/n" with texture coordinates), indices 1-based and offset by the
 * models written before; a vertex of a model with vertPosIdx takes that
 * position. The material file has SOFA's default material (settee's
 * OglModel keeps no material): "newmtl matC", "illum 4", "Ka 0.2 0.2 0.2",
 * "Kd 0.75 0.75 0.75", "Tf 1.00 1.00 1.00", "Ni 1.00". */
#include <string.h>

#include "../shared/sim_exporter.h"

typedef struct obj_exporter {
    st_component base;
    sim_exporter ex;
} obj_exporter;

static const st_field obj_exporter_fields[] = {SIM_EXPORTER_FIELDS(obj_exporter), ST_FIELD_END};

static bool is_visual_model(const st_component *c)
{
    return c->cls->category && !strcmp(c->cls->category, "Visual") &&
           st_component_field(c, "position") && st_component_field(c, "normal") &&
           st_component_field(c, "triangles");
}

static const st_array *arr(st_component *c, const char *name)
{
    const st_field *f = st_component_field(c, name);
    return f ? st_component_field_ptr(c, f) : NULL;
}

typedef struct obj_ctx {
    FILE *out, *mtl;
    unsigned id;                   /* models written */
    size_t vindex, nindex, tindex; /* offsets */
    st_status st;
    st_error *err;
    st_component *self;
} obj_ctx;

static void put_faces(obj_ctx *k, const st_array *el, unsigned w, const st_array *pidx,
                      bool tex, size_t np)
{
    for (size_t i = 0; el && i < el->n; i++) {
        fputc('f', k->out);
        for (unsigned j = 0; j < w; j++) {
            unsigned i0 = el->u[(size_t)w * i + j];
            size_t ip = pidx && pidx->n && i0 < pidx->n ? pidx->u[i0] : i0;
            if (ip >= np && k->st == ST_OK)
                k->st = st_component_error(k->self, NULL, k->err, ST_EINVAL,
                                           "a face names position %zu of %zu", ip, np);
            if (tex)
                fprintf(k->out, " %zu/%zu/%zu", ip + k->vindex + 1, i0 + k->tindex + 1,
                        i0 + k->nindex + 1);
            else
                fprintf(k->out, " %zu//%zu", ip + k->vindex + 1, i0 + k->nindex + 1);
        }
        fputc('\n', k->out);
    }
}

static void export_model(obj_ctx *k, st_component *vm, unsigned count)
{
    fprintf(k->out, "g %u_%s\n", ++k->id, vm->name);
    fprintf(k->mtl, "newmtl mat%u\nillum 4\nKa 0.2 0.2 0.2\nKd 0.75 0.75 0.75\nTf 1.00 1.00 1.00\n"
                    "Ni 1.00\n",
            count);
    fprintf(k->out, "usemtl mat%u\n", count);
    const st_array *x = arr(vm, "position"), *nrm = arr(vm, "normal"), *tc = arr(vm, "texcoords");
    const size_t nv = x ? x->n : 0, nn = nrm ? nrm->n : 0, nt = tc ? tc->n / 2 : 0;
    for (size_t i = 0; i < nv; i++)
        fprintf(k->out, "v %f %f %f\n", x->r[3 * i], x->r[3 * i + 1], x->r[3 * i + 2]);
    for (size_t i = 0; i < nn; i++)
        fprintf(k->out, "vn %f %f %f\n", nrm->r[3 * i], nrm->r[3 * i + 1], nrm->r[3 * i + 2]);
    for (size_t i = 0; i < nt; i++)
        fprintf(k->out, "vt %f %f\n", tc->r[2 * i], tc->r[2 * i + 1]);
    const st_array *pidx = arr(vm, "vertPosIdx");
    put_faces(k, arr(vm, "edges"), 2, pidx, nt > 0, nv);
    put_faces(k, arr(vm, "triangles"), 3, pidx, nt > 0, nv);
    put_faces(k, arr(vm, "quads"), 4, pidx, nt > 0, nv);
    fputc('\n', k->out);
    k->vindex += nv, k->nindex += nn, k->tindex += nt;
}

/* SOFA's visitor: a node's visual models, then its children's. */
static void visit(obj_ctx *k, st_node *n)
{
    unsigned count = 0;
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (is_visual_model(c))
            export_model(k, c, ++count);
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        visit(k, st_node_child(n, i));
}

static st_status obj_exporter_write(st_component *self, st_error *err)
{
    obj_exporter *e = (obj_exporter *)self;
    char base[OUT_PATH_MAX], obj[OUT_PATH_MAX], mtl[OUT_PATH_MAX];
    ST_TRY(sim_exporter_path(self, &e->ex, true, base, sizeof base - 4, err));
    size_t n = strlen(base);
    if (n > 4 && !strcmp(base + n - 4, ".obj")) {
        snprintf(obj, sizeof obj, "%s", base);
        snprintf(mtl, sizeof mtl, "%.*s.mtl", (int)(n - 4), base);
    } else {
        snprintf(obj, sizeof obj, "%s.obj", base);
        snprintf(mtl, sizeof mtl, "%s.mtl", base);
    }
    out_file fo, fm;
    ST_TRY(out_open(&fo, obj, err));
    if (out_open(&fm, mtl, err) != ST_OK) {
        out_abort(&fo);
        return err->code;
    }
    obj_ctx k = {.out = fo.f, .mtl = fm.f, .st = ST_OK, .err = err, .self = self};
    visit(&k, self->node);
    if (k.st != ST_OK) {
        out_abort(&fo);
        out_abort(&fm);
        return k.st;
    }
    st_status st = out_commit(&fo, err);
    if (st != ST_OK) {
        out_abort(&fm);
        return st;
    }
    ST_TRY(out_commit(&fm, err));
    if (self->print_log)
        st_component_info(self, "Exporting OBJ in: %s with MTL in: %s", obj, mtl);
    return ST_OK;
}

/* True when every visual model from n down outlives self. */
static bool models_outlive(const st_component *self, st_node *n)
{
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        const st_component *c = st_node_object(n, i);
        if (is_visual_model(c) && !sim_exporter_outlives(c, self))
            return false;
    }
    for (size_t i = 0; i < st_node_child_count(n); i++)
        if (!models_outlive(self, st_node_child(n, i)))
            return false;
    return true;
}

static st_status obj_exporter_init(st_component *self, st_error *err)
{
    obj_exporter *e = (obj_exporter *)self;
    self->state = ST_CSTATE_INVALID;
    if (e->ex.at_end && !models_outlive(self, self->node))
        return st_component_error(self, "exportAtEnd", err, ST_EINVAL,
                                  "exportAtEnd writes while the scene is destroyed, when the "
                                  "visual models of child nodes and later ones in this node are "
                                  "already gone: place the exporter after the visual models, "
                                  "below the nodes that hold them");
    e->ex.step = 0;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void obj_exporter_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    sim_exporter_event(self, &((obj_exporter *)self)->ex, ev, obj_exporter_write);
}

static void obj_exporter_cleanup(st_component *self)
{
    sim_exporter_cleanup(self, &((obj_exporter *)self)->ex, obj_exporter_write);
}

const st_class visual_model_obj_exporter_class = {
    .struct_size = sizeof(st_class),
    .name = "VisualModelOBJExporter",
    .category = "Exporter",
    .description = "Export the scene under the Wavefront OBJ format.When several frames are "
                   "exported the file name have the following pattern: outfile000.obj "
                   "outfile001.obj.",
    .instance_size = sizeof(obj_exporter),
    .fields = obj_exporter_fields,
    .init = obj_exporter_init,
    .reinit = obj_exporter_init,
    .on_event = obj_exporter_event,
    .cleanup = obj_exporter_cleanup,
};
