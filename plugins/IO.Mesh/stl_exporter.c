/* stl_exporter.c - SOFA's STLExporter: the triangles (else the quads, each
 * split (0 1 2) (0 2 3)) of `position` written as an STL file, with zero
 * normals, on SOFA's BaseSimulationExporter events (sim_exporter.h; the
 * file is FILENAME[NNNNN].stl). When the scene leaves `position` unset,
 * position, triangle and quad are linked to the visual model of the node
 * (an OglModel), else to its topology; with neither, SOFA's error as a
 * warning and nothing is written.
 *
 * SOFA's event writer swaps its two writers: binaryformat true (the
 * default) writes the ASCII file ("vertex x y z", 6 decimals) and false the
 * binary one. settee keeps that swap, so a scene writes the file SOFA
 * writes, but its binary file starts with the 80-byte header the format
 * requires (SOFA leaves it out, and readers then misread the file): header
 * "Exported from Sofa", the triangle count, then per triangle 12 float32
 * (normal 0 0 0 and the three corners) and a 2-byte zero. No positions, or
 * neither triangles nor quads: SOFA's error, and the export fails. */
#include <stdint.h>
#include <string.h>

#include "../shared/engine_util.h"
#include "../shared/sim_exporter.h"

typedef struct stl_exporter {
    st_component base;
    sim_exporter ex;
    bool binary;
    st_array position; /* vec3[] */
    st_array triangle, quad;
    st_component *src; /* the visual model or topology linked from (set at init) */
} stl_exporter;

static const st_field stl_exporter_fields[] = {
    SIM_EXPORTER_FIELDS(stl_exporter),
    ST_BOOL(stl_exporter, binary, "binaryformat", "true",
            "if true, save in binary format, otherwise in ascii"),
    ST_VEC3S(stl_exporter, position, "position", NULL, "points coordinates"),
    ST_FIELD_EX(stl_exporter, triangle, "triangle", ST_T_TRIANGLES, st_array, NULL,
                "triangles indices", 0, "triangles", 0.0, 0.0),
    ST_FIELD_EX(stl_exporter, quad, "quad", ST_T_QUADS, st_array, NULL, "quads indices", 0,
                "quads", 0.0, 0.0),
    ST_FIELD_END};

static void put_f32(FILE *f, float v)
{
    uint8_t b[4];
    uint32_t u;
    memcpy(&u, &v, 4);
    for (int k = 0; k < 4; k++)
        b[k] = (uint8_t)(u >> (8 * k)); /* little-endian, as the format says */
    fwrite(b, 1, 4, f);
}

static st_status stl_exporter_write(st_component *self, st_error *err)
{
    stl_exporter *e = (stl_exporter *)self;
    /* Links made during init resolve only after it: made at the first write. */
    if (e->src) {
        st_component *src = e->src;
        e->src = NULL;
        ST_TRY(eng_link(self, "position", src, "position", err));
        if (!st_component_is_set(self, "triangle"))
            ST_TRY(eng_link(self, "triangle", src, "triangles", err));
        if (!st_component_is_set(self, "quad"))
            ST_TRY(eng_link(self, "quad", src, "quads", err));
    }
    ST_TRY(st_component_update_inputs(self, err));
    const st_array *x = &e->position;
    if (x->n == 0)
        return st_component_error(self, "position", err, ST_EINVAL, "No positions in topology.");
    const bool use_tri = e->triangle.n > 0;
    if (!use_tri && e->quad.n == 0)
        return st_component_error(self, "triangle", err, ST_EINVAL,
                                  "No triangles nor quads in topology.");
    const size_t nt = use_tri ? e->triangle.n : 2 * e->quad.n;
    const st_array *el = use_tri ? &e->triangle : &e->quad;
    for (size_t i = 0; i < el->n * (use_tri ? 3 : 4); i++)
        if (el->u[i] >= x->n)
            return st_component_error(self, use_tri ? "triangle" : "quad", err, ST_EINVAL,
                                      "index %u beyond the %zu points", el->u[i], x->n);
    char path[OUT_PATH_MAX];
    ST_TRY(sim_exporter_path(self, &e->ex, true, path, sizeof path - 4, err));
    strcat(path, ".stl");
    out_file o;
    ST_TRY(out_open(&o, path, err));
    const bool ascii = e->binary; /* SOFA's swap, see the top of this file */
    if (ascii)
        fprintf(o.f, "solid Exported from Sofa\n");
    else {
        char header[80] = "Exported from Sofa";
        fwrite(header, 1, 80, o.f);
        const uint32_t n32 = (uint32_t)nt;
        const uint8_t c[4] = {(uint8_t)n32, (uint8_t)(n32 >> 8), (uint8_t)(n32 >> 16),
                              (uint8_t)(n32 >> 24)};
        fwrite(c, 1, 4, o.f);
    }
    for (size_t t = 0; t < nt; t++) {
        unsigned v[3];
        if (use_tri)
            memcpy(v, e->triangle.u + 3 * t, sizeof v);
        else {
            const unsigned *q = e->quad.u + 4 * (t / 2);
            v[0] = q[0], v[1] = q[t % 2 ? 2 : 1], v[2] = q[t % 2 ? 3 : 2];
        }
        if (ascii) {
            fprintf(o.f, "facet normal 0 0 0\nouter loop\n");
            for (int j = 0; j < 3; j++) {
                const double *p = x->r + 3 * v[j];
                fprintf(o.f, "vertex %f %f %f\n", p[0], p[1], p[2]);
            }
            fprintf(o.f, "endloop\nendfacet\n");
        } else {
            for (int k = 0; k < 3; k++)
                put_f32(o.f, 0.0f);
            for (int j = 0; j < 3; j++)
                for (int k = 0; k < 3; k++)
                    put_f32(o.f, (float)x->r[3 * v[j] + k]);
            fputc(0, o.f);
            fputc(0, o.f);
        }
    }
    if (ascii)
        fprintf(o.f, "endsolid Exported from Sofa\n");
    ST_TRY(out_commit(&o, err));
    if (self->print_log)
        st_component_info(self, "File '%s' written", path);
    return ST_OK;
}

/* The node's first visual model with positions (an OglModel), or NULL. */
static st_component *local_visual(st_component *self)
{
    st_node *n = self->node;
    for (size_t i = 0; i < st_node_object_count(n); i++) {
        st_component *c = st_node_object(n, i);
        if (c->cls->category && !strcmp(c->cls->category, "Visual") &&
            st_component_field(c, "position") && st_component_field(c, "triangles"))
            return c;
    }
    return NULL;
}

static st_status stl_exporter_init(st_component *self, st_error *err)
{
    stl_exporter *e = (stl_exporter *)self;
    self->state = ST_CSTATE_INVALID;
    e->src = NULL;
    if (!st_component_is_set(self, "position")) {
        st_component *src = local_visual(self);
        if (!src) {
            st_component *t = eng_local(self, ST_ROLE_TOPOLOGY);
            src = t && t->cls->topology ? t : NULL;
        }
        if (!src) {
            st_component_warn(self, "STLExporter needs VisualModel or Topology. (SOFA's error: "
                                    "nothing will be written)");
            return ST_OK;
        }
        e->src = src;
    }
    e->ex.step = 0;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void stl_exporter_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    sim_exporter_event(self, &((stl_exporter *)self)->ex, ev, stl_exporter_write);
}

static void stl_exporter_cleanup(st_component *self)
{
    sim_exporter_cleanup(self, &((stl_exporter *)self)->ex, stl_exporter_write);
}

const st_class stl_exporter_class = {
    .struct_size = sizeof(st_class),
    .name = "STLExporter",
    .category = "Exporter",
    .description = "Save a topology in file.",
    .instance_size = sizeof(stl_exporter),
    .fields = stl_exporter_fields,
    .init = stl_exporter_init,
    .reinit = stl_exporter_init,
    .on_event = stl_exporter_event,
    .cleanup = stl_exporter_cleanup,
};
