/* mesh_exporter.c - SOFA's MeshExporter: the points (`position`, linked to
 * the context's MechanicalObject when the scene leaves it unset) and the
 * elements of the context's topology (the node's or an ancestor's), each
 * kind when its flag (edges, triangles, quads, tetras, hexas) is set,
 * written in `format`: vtkxml (.vtu, ASCII), vtk (legacy .vtk), netgen
 * (.mesh), tetgen (.node, .ele, .face), gmsh (.gmsh, format 2.1) or obj
 * (.obj), ALL (SOFA's default) writing every one. Numbers as SOFA writes
 * them: 9 significant digits, indices 1-based where the format says so.
 * Triggers and file names are SOFA's BaseSimulationExporter's (see
 * sim_exporter.h); in `filename`, %n is the step counter, %p the number of
 * points, %E the number of cells written, %e the number of elements of the
 * highest dimension written (the points when none).
 *
 * Where SOFA writes a broken file settee writes a valid one and says so
 * here: the .vtu offsets of a hexahedron advance by 8 (SOFA: 6); the netgen
 * and tetgen surface sections of a mesh with tetrahedra list only the
 * border triangles they count (SOFA counts those and lists all). No
 * topology in the context: SOFA's error, as a warning, and nothing is
 * written (the component is invalid, as in SOFA). */
#include <stdlib.h>
#include <string.h>

#include "../shared/engine_util.h"
#include "../shared/options.h"
#include "../shared/sim_exporter.h"

typedef struct mesh_exporter {
    st_component base;
    sim_exporter ex;
    char *format;
    st_array position; /* vec3[] */
    bool edges, triangles, quads, tetras, hexas;
    st_component *topo; /* set at init */
    bool linked;        /* position linked to the state (at the first write) */
} mesh_exporter;

static const st_field mesh_exporter_fields[] = {
    SIM_EXPORTER_FIELDS(mesh_exporter),
    ST_STRING(mesh_exporter, format, "format", "ALL", "File format to use"),
    ST_VEC3S(mesh_exporter, position, "position", NULL,
             "points position (will use points from topology or mechanical state if this is "
             "empty)"),
    ST_BOOL(mesh_exporter, edges, "edges", "true", "write edge topology"),
    ST_BOOL(mesh_exporter, triangles, "triangles", "true", "write triangle topology"),
    ST_BOOL(mesh_exporter, quads, "quads", "true", "write quad topology"),
    ST_BOOL(mesh_exporter, tetras, "tetras", "true", "write tetra topology"),
    ST_BOOL(mesh_exporter, hexas, "hexas", "true", "write hexa topology"),
    ST_FIELD_END};

static const char *const me_formats[] = {"ALL",    "vtkxml", "vtk", "netgen",
                                         "tetgen", "gmsh",   "obj", NULL};
static const st_option_field me_options[] = {{"format", me_formats}, {NULL, NULL}};

/* The element lists of the topology, each empty when its flag is off. */
typedef struct mesh_lists {
    const st_array *l[5]; /* edges, triangles, quads, tetras, hexas */
    size_t n[5];
} mesh_lists;

static const st_array empty_list;

static void get_lists(mesh_exporter *m, mesh_lists *ml)
{
    static const st_type types[5] = {ST_T_EDGES, ST_T_TRIANGLES, ST_T_QUADS, ST_T_TETRAS,
                                     ST_T_HEXAS};
    const bool on[5] = {m->edges, m->triangles, m->quads, m->tetras, m->hexas};
    for (int k = 0; k < 5; k++) {
        const st_array *a = m->topo->cls->topology->elements(m->topo, types[k]);
        ml->l[k] = a ? a : &empty_list;
        ml->n[k] = on[k] ? ml->l[k]->n : 0;
    }
}

static const unsigned widths[5] = {2, 3, 4, 4, 8};

/* The border triangles netgen writes (the context of write_one). */
typedef struct border {
    const bool *keep;
    size_t nkeep;
} border;

static void put_point(FILE *f, const double *p)
{
    fprintf(f, "%.9g %.9g %.9g", p[0], p[1], p[2]);
}

static void put_elem(FILE *f, const st_array *a, unsigned w, size_t i, unsigned base)
{
    for (unsigned j = 0; j < w; j++)
        fprintf(f, j ? " %u" : "%u", a->u[(size_t)w * i + j] + base);
}

/* SOFA's getMeshFilename: the % patterns, then the numbered target path. */
static st_status mesh_path(mesh_exporter *m, const mesh_lists *ml, const char *ext, char *out,
                           size_t size, st_error *err)
{
    st_component *self = &m->base;
    const size_t np = m->position.n;
    size_t ncells = 0;
    for (int k = 0; k < 5; k++)
        ncells += ml->n[k];
    size_t ntop = ml->n[3] + ml->n[4];
    if (!ntop)
        ntop = ml->n[1] + ml->n[2];
    if (!ntop)
        ntop = ml->n[0];
    if (!ntop)
        ntop = np;
    const char *name = m->ex.filename && *m->ex.filename ? m->ex.filename : self->name;
    char expanded[OUT_PATH_MAX];
    size_t o = 0;
    for (const char *c = name; *c && o + 32 < sizeof expanded; c++) {
        if (*c != '%') {
            expanded[o++] = *c;
            continue;
        }
        char k = *++c;
        if (!k)
            break;
        switch (k) {
        case 'n': o += (size_t)snprintf(expanded + o, 32, "%lu", m->ex.step); break;
        case 'p': o += (size_t)snprintf(expanded + o, 32, "%zu", np); break;
        case 'E': o += (size_t)snprintf(expanded + o, 32, "%zu", ncells); break;
        case 'e': o += (size_t)snprintf(expanded + o, 32, "%zu", ntop); break;
        case '%':
            expanded[o++] = '%';
            st_component_warn_field(self, "filename",
                                    "Invalid special character %%: %% in filename.");
            break;
        default:
            st_component_warn_field(self, "filename", "Invalid character: %c in filename.", k);
            break;
        }
    }
    expanded[o] = 0;
    char *saved = m->ex.filename;
    m->ex.filename = expanded;
    char path[OUT_PATH_MAX];
    st_status st = sim_exporter_path(self, &m->ex, true, path, sizeof path, err);
    m->ex.filename = saved;
    ST_TRY(st);
    if ((size_t)snprintf(out, size, "%s%s", path, ext) >= size)
        return st_component_error(self, "filename", err, ST_EINVAL, "the path is too long");
    return ST_OK;
}

static int cmp3(const void *a, const void *b)
{
    const unsigned *x = a, *y = b;
    for (int k = 0; k < 3; k++)
        if (x[k] != y[k])
            return x[k] < y[k] ? -1 : 1;
    return 0;
}

static void sort3(unsigned *v)
{
    unsigned t;
    if (v[0] > v[1])
        t = v[0], v[0] = v[1], v[1] = t;
    if (v[1] > v[2])
        t = v[1], v[1] = v[2], v[2] = t;
    if (v[0] > v[1])
        t = v[0], v[0] = v[1], v[1] = t;
}

/* keep[i]: triangle i is held by fewer than 2 tetrahedra (all when there
 * are none). Returns the count; *keep owned by the caller. */
static st_status border_triangles(const mesh_lists *ml, bool **keep, size_t *count, st_error *err)
{
    const st_array *tri = ml->l[1], *tet = ml->l[3];
    *keep = st_calloc(tri->n ? tri->n : 1, sizeof **keep);
    unsigned *faces = st_malloc((tet->n ? tet->n : 1) * 12 * sizeof *faces);
    if (!*keep || !faces) {
        st_free(faces);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    static const int fv[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};
    for (size_t t = 0; t < tet->n; t++)
        for (int f = 0; f < 4; f++) {
            unsigned *o = faces + 12 * t + 3 * f;
            for (int k = 0; k < 3; k++)
                o[k] = tet->u[4 * t + fv[f][k]];
            sort3(o);
        }
    qsort(faces, 4 * tet->n, 3 * sizeof *faces, cmp3);
    *count = 0;
    for (size_t i = 0; i < tri->n; i++) {
        unsigned key[3] = {tri->u[3 * i], tri->u[3 * i + 1], tri->u[3 * i + 2]};
        sort3(key);
        size_t lo = 0, hi = 4 * tet->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (cmp3(faces + 3 * mid, key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        size_t owners = 0;
        while (lo + owners < 4 * tet->n && !cmp3(faces + 3 * (lo + owners), key))
            owners++;
        (*keep)[i] = tet->n == 0 || owners < 2;
        *count += (*keep)[i];
    }
    st_free(faces);
    return ST_OK;
}

static const int vtk_types[5] = {3, 5, 9, 10, 12};

static void write_vtu(FILE *f, const mesh_exporter *m, const mesh_lists *ml,
                      const border *b)
{
    (void)b;
    size_t ncells = 0;
    for (int k = 0; k < 5; k++)
        ncells += ml->n[k];
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"0.1\" "
               "byte_order=\"BigEndian\">\n  <UnstructuredGrid>\n");
    fprintf(f, "    <Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n", m->position.n,
            ncells);
    fprintf(f, "      <Points>\n        <DataArray type=\"Float32\" NumberOfComponents=\"3\" "
               "format=\"ascii\">\n");
    for (size_t i = 0; i < m->position.n; i++) {
        fputs("          ", f);
        put_point(f, m->position.r + 3 * i);
        fputc('\n', f);
    }
    fprintf(f, "        </DataArray>\n      </Points>\n      <Cells>\n        <DataArray "
               "type=\"Int32\" Name=\"connectivity\" format=\"ascii\">\n");
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < ml->n[k]; i++) {
            fputs("          ", f);
            put_elem(f, ml->l[k], widths[k], i, 0);
            fputc('\n', f);
        }
    fprintf(f, "        </DataArray>\n        <DataArray type=\"Int32\" Name=\"offsets\" "
               "format=\"ascii\">\n          ");
    unsigned long off = 0;
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < ml->n[k]; i++)
            fprintf(f, "%lu ", off += widths[k]);
    fprintf(f, "\n        </DataArray>\n        <DataArray type=\"UInt8\" Name=\"types\" "
               "format=\"ascii\">\n          ");
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < ml->n[k]; i++)
            fprintf(f, "%d ", vtk_types[k]);
    fprintf(f, "\n        </DataArray>\n      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n"
               "</VTKFile>\n");
}

static void write_vtk(FILE *f, const mesh_exporter *m, const mesh_lists *ml,
                      const border *b)
{
    (void)b;
    fprintf(f, "# vtk DataFile Version 2.0\nSOFA Exported Mesh file\nASCII\nDATASET "
               "UNSTRUCTURED_GRID\nPOINTS %zu float\n",
            m->position.n);
    for (size_t i = 0; i < m->position.n; i++) {
        put_point(f, m->position.r + 3 * i);
        fputc('\n', f);
    }
    size_t ncells = 0, total = 0;
    for (int k = 0; k < 5; k++)
        ncells += ml->n[k], total += ml->n[k] * (widths[k] + 1);
    fprintf(f, "CELLS %zu %zu\n", ncells, total);
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < ml->n[k]; i++) {
            fprintf(f, "%u ", widths[k]);
            put_elem(f, ml->l[k], widths[k], i, 0);
            fputc('\n', f);
        }
    fprintf(f, "CELL_TYPES %zu\n", ncells);
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < ml->n[k]; i++)
            fprintf(f, "%d\n", vtk_types[k]);
}

static void write_gmsh(FILE *f, const mesh_exporter *m, const mesh_lists *ml,
                       const border *b)
{
    (void)b;
    fprintf(f, "$MeshFormat\n2.1 0 8\n$EndMeshFormat\n$Nodes\n%zu\n", m->position.n);
    for (size_t i = 0; i < m->position.n; i++) {
        fprintf(f, "%zu ", i + 1);
        put_point(f, m->position.r + 3 * i);
        fputc('\n', f);
    }
    size_t ncells = 0;
    for (int k = 0; k < 5; k++)
        ncells += ml->n[k];
    fprintf(f, "$EndNodes\n$Elements\n%zu\n", ncells);
    unsigned long elem = 0;
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < ml->n[k]; i++) {
            fprintf(f, "%lu %d 0 ", ++elem, k + 1);
            put_elem(f, ml->l[k], widths[k], i, 1);
            fputc('\n', f);
        }
    fprintf(f, "$EndElements\n");
}

static void write_netgen(FILE *f, const mesh_exporter *m, const mesh_lists *ml, const border *b)
{
    const bool *keep = b->keep;
    const size_t nkeep = b->nkeep;
    fprintf(f, "%zu\n", m->position.n);
    for (size_t i = 0; i < m->position.n; i++) {
        put_point(f, m->position.r + 3 * i);
        fputc('\n', f);
    }
    fprintf(f, "%zu\n", ml->n[3]);
    for (size_t i = 0; i < ml->n[3]; i++) {
        fputs("0 ", f);
        put_elem(f, ml->l[3], 4, i, 1);
        fputc('\n', f);
    }
    fprintf(f, "%zu\n", m->triangles ? nkeep : 0);
    for (size_t i = 0; m->triangles && i < ml->l[1]->n; i++)
        if (keep[i]) {
            fputs("0 ", f);
            put_elem(f, ml->l[1], 3, i, 1);
            fputc('\n', f);
        }
}

static st_status commit_file(out_file *o, mesh_exporter *m, st_error *err)
{
    ST_TRY(out_commit(o, err));
    if (m->base.print_log)
        st_component_info(&m->base, "%s written", o->dst);
    return ST_OK;
}

static st_status write_tetgen(mesh_exporter *m, const mesh_lists *ml, const bool *keep,
                              size_t nkeep, st_error *err)
{
    char path[OUT_PATH_MAX];
    out_file o;
    ST_TRY(mesh_path(m, ml, ".node", path, sizeof path, err));
    ST_TRY(out_open(&o, path, err));
    fprintf(o.f, "%zu 3 0 0\n", m->position.n);
    for (size_t i = 0; i < m->position.n; i++) {
        fprintf(o.f, "%zu ", i + 1);
        put_point(o.f, m->position.r + 3 * i);
        fputc('\n', o.f);
    }
    ST_TRY(commit_file(&o, m, err));
    if (m->tetras) {
        ST_TRY(mesh_path(m, ml, ".ele", path, sizeof path, err));
        ST_TRY(out_open(&o, path, err));
        fprintf(o.f, "%zu 4 0\n", ml->n[3]);
        const double *x = m->position.r;
        for (size_t i = 0; i < ml->n[3]; i++) {
            unsigned t[4];
            memcpy(t, ml->l[3]->u + 4 * i, sizeof t);
            bool in = t[0] < m->position.n && t[1] < m->position.n && t[2] < m->position.n &&
                      t[3] < m->position.n;
            if (in) {
                const double *a = x + 3 * t[0], *b = x + 3 * t[1], *c = x + 3 * t[2],
                             *d = x + 3 * t[3];
                double u[3], v[3], w[3];
                for (int k = 0; k < 3; k++)
                    u[k] = b[k] - a[k], v[k] = c[k] - a[k], w[k] = d[k] - a[k];
                double det = u[0] * (v[1] * w[2] - v[2] * w[1]) +
                             u[1] * (v[2] * w[0] - v[0] * w[2]) +
                             u[2] * (v[0] * w[1] - v[1] * w[0]);
                /* SOFA turns the positively oriented ones. */
                if (det > 0) {
                    unsigned s = t[3];
                    t[3] = t[2], t[2] = s;
                }
            }
            fprintf(o.f, "%zu %u %u %u %u\n", i + 1, t[0] + 1, t[1] + 1, t[2] + 1, t[3] + 1);
        }
        ST_TRY(commit_file(&o, m, err));
    }
    if (m->triangles) {
        ST_TRY(mesh_path(m, ml, ".face", path, sizeof path, err));
        ST_TRY(out_open(&o, path, err));
        fprintf(o.f, "%zu 0\n", nkeep);
        for (size_t i = 0; i < ml->l[1]->n; i++)
            if (keep[i]) {
                fprintf(o.f, "%zu ", i + 1);
                put_elem(o.f, ml->l[1], 3, i, 1);
                fputc('\n', o.f);
            }
        ST_TRY(commit_file(&o, m, err));
    }
    return ST_OK;
}

static void write_obj(FILE *f, const mesh_exporter *m, const mesh_lists *ml,
                      const border *b)
{
    (void)b;
    const char *name = m->ex.filename && *m->ex.filename ? m->ex.filename : m->base.name;
    fprintf(f, "#Export in obj format from SOFA\n#\no %s\n\n#Points (total = %zu pts)\n", name,
            m->position.n);
    for (size_t i = 0; i < m->position.n; i++) {
        fputs("v ", f);
        put_point(f, m->position.r + 3 * i);
        fputc('\n', f);
    }
    fputc('\n', f);
    for (size_t i = 0; i < ml->n[0]; i++) {
        fputs("l ", f);
        put_elem(f, ml->l[0], 2, i, 1);
        fputc('\n', f);
    }
    /* Triangles, or else quads (SOFA writes one kind of face). */
    int k = m->triangles ? 1 : m->quads ? 2 : -1;
    for (size_t i = 0; k > 0 && i < ml->n[k]; i++) {
        fputs("f ", f);
        put_elem(f, ml->l[k], widths[k], i, 1);
        fputc('\n', f);
    }
}

typedef void (*one_file_fn)(FILE *f, const mesh_exporter *m, const mesh_lists *ml,
                            const border *b);

static st_status write_one(mesh_exporter *m, const mesh_lists *ml, const char *ext,
                           one_file_fn fn, const border *b, st_error *err)
{
    char path[OUT_PATH_MAX];
    out_file o;
    ST_TRY(mesh_path(m, ml, ext, path, sizeof path, err));
    ST_TRY(out_open(&o, path, err));
    fn(o.f, m, ml, b);
    return commit_file(&o, m, err);
}

static st_status mesh_exporter_write(st_component *self, st_error *err)
{
    mesh_exporter *m = (mesh_exporter *)self;
    /* SOFA's init links position to the state; links made during init
     * resolve only after it, so at the first write. */
    if (!m->linked) {
        m->linked = true;
        ST_TRY(eng_link_state(self, "position", "position", err));
    }
    ST_TRY(st_component_update_inputs(self, err));
    mesh_lists ml;
    get_lists(m, &ml);
    for (int k = 0; k < 5; k++)
        for (size_t i = 0; i < widths[k] * ml.n[k]; i++)
            if (ml.l[k]->u[i] >= m->position.n)
                return st_component_error(self, "position", err, ST_EINVAL,
                                          "the topology's elements name point %u, beyond the "
                                          "%zu points of position",
                                          ml.l[k]->u[i], m->position.n);
    int format = 0;
    while (me_formats[format] && strcmp(me_formats[format], m->format))
        format++;
    const bool all = format == 0;
    if (all || format == 1)
        ST_TRY(write_one(m, &ml, ".vtu", write_vtu, NULL, err));
    if (all || format == 2)
        ST_TRY(write_one(m, &ml, ".vtk", write_vtk, NULL, err));
    if (all || format == 3 || format == 4) {
        bool *keep = NULL;
        size_t nkeep = 0;
        st_status st = border_triangles(&ml, &keep, &nkeep, err);
        if (st == ST_OK && (all || format == 3)) {
            const border b = {keep, nkeep};
            st = write_one(m, &ml, ".mesh", write_netgen, &b, err);
        }
        if (st == ST_OK && (all || format == 4))
            st = write_tetgen(m, &ml, keep, nkeep, err);
        st_free(keep);
        ST_TRY(st);
    }
    if (all || format == 5)
        ST_TRY(write_one(m, &ml, ".gmsh", write_gmsh, NULL, err));
    if (all || format == 6)
        ST_TRY(write_one(m, &ml, ".obj", write_obj, NULL, err));
    return ST_OK;
}

static st_status mesh_exporter_init(st_component *self, st_error *err)
{
    mesh_exporter *m = (mesh_exporter *)self;
    self->state = ST_CSTATE_INVALID;
    ST_TRY(st_options_check(self, me_options, err));
    m->topo = st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (m->topo && !m->topo->cls->topology)
        m->topo = NULL;
    if (!m->topo) {
        st_component_warn(self, "Error, no topology. (SOFA's error: nothing will be written)");
        return ST_OK;
    }
    m->linked = false;
    if (m->ex.at_end && (!sim_exporter_outlives(m->topo, self) ||
                         !sim_exporter_outlives((st_component *)st_component_mstate(self), self)))
        return st_component_error(self, "exportAtEnd", err, ST_EINVAL,
                                  "exportAtEnd writes while the scene is destroyed, when "
                                  "components of child nodes and later ones in this node are "
                                  "already gone: place the exporter after what it exports");
    m->ex.step = 0;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void mesh_exporter_event(st_component *self, st_event ev, double dt)
{
    (void)dt;
    sim_exporter_event(self, &((mesh_exporter *)self)->ex, ev, mesh_exporter_write);
}

static void mesh_exporter_cleanup(st_component *self)
{
    sim_exporter_cleanup(self, &((mesh_exporter *)self)->ex, mesh_exporter_write);
}

const st_class mesh_exporter_class = {
    .struct_size = sizeof(st_class),
    .name = "MeshExporter",
    .category = "Exporter",
    .description = "Export topology and positions into file. Supported format are: vtkxml, vtk, "
                   "netgen, tetgen, gmsh, obj",
    .instance_size = sizeof(mesh_exporter),
    .fields = mesh_exporter_fields,
    .init = mesh_exporter_init,
    .reinit = mesh_exporter_init,
    .on_event = mesh_exporter_event,
    .cleanup = mesh_exporter_cleanup,
};
