/* vtk_exporter.c - SOFA's VTKExporter: a mesh (its points, its topology's
 * elements as cells, and any per-point or per-cell data field of the scene)
 * written as VTK files while the scene runs.
 *
 * XMLformat (the default): one VTU file per export, FILENAME<k>.vtu as SOFA
 * numbers them (k = 0, 1, ...; FILENAME.vtu with overwrite), data as raw
 * binary appended to the file (binary: false writes ASCII inside it), and a
 * collection FILENAME.pvd listing the files with their times, rewritten
 * after each export, so that ParaView opens the whole animation at once.
 * XMLformat false: SOFA's legacy ASCII files FILENAME_<k>.vtk. Values are
 * written as Float64 with 17 significant digits (SOFA writes Float32): a
 * reader gets the run's numbers exactly. Every file is written under a
 * temporary name and renamed once complete.
 *
 * Triggers are SOFA's (BaseSimulationExporter): exportAtBegin after init,
 * every exportEveryNumberOfSteps steps at the end of the step, exportAtEnd
 * when the scene is destroyed. A write that fails is logged as an error
 * (events cannot return one) and counted in the output `failures`.
 *
 * `visualModel` (settee's own) exports a visual model (an OglModel, SOFA's
 * VisualModelImpl): its `position` as points, its edges, triangles and
 * quads as cells; `settee run --output` uses it for the visual models that
 * mappings move. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <settee/settee.h>

#include "../shared/output_file.h"
#include "../shared/state_view.h"

/* One data field written as point or cell data. */
typedef struct vtk_data {
    char name[128];       /* array name in the file */
    st_component *obj;    /* borrowed */
    const st_field *field;
} vtk_data;

typedef struct vtk_exporter {
    st_component base;
    char *filename;            /* "filename" */
    bool xml_format;           /* "XMLformat" */
    bool binary;               /* "binary" (settee) */
    st_array position;         /* "position" */
    bool edges, triangles, quads, tetras, hexas;
    st_array points_data;      /* "pointsDataFields" */
    st_array cells_data;       /* "cellsDataFields" */
    unsigned every;            /* "exportEveryNumberOfSteps" */
    bool at_begin, at_end;     /* "exportAtBegin", "exportAtEnd" */
    bool enable;               /* "enable" */
    bool overwrite;            /* "overwrite" */
    bool top_only;             /* "topDimensionOnly" (settee) */
    st_component *topology_link, *mstate_link; /* "topology", "mstate" */
    st_component *visual_link;                 /* "visualModel" (settee) */
    unsigned files_written;    /* "filesWritten" (output) */
    unsigned failures;         /* "failures" (output) */
    /* Set at init. */
    char base_path[OUT_PATH_MAX]; /* resolved filename without its extension */
    char ext[8];                  /* ".vtu" or ".vtk" (legacy) */
    st_component *topo;
    st_mstate *ms;
    vtk_data *pdata, *cdata;
    size_t npdata, ncdata;
    unsigned long step_counter;
    /* Collection: the time of each file written (grows by doubling). */
    double *times;
    size_t ntimes, cap_times;
    double *topo_points;          /* positions copied from a topology without a state */
    size_t ntopo_points;
} vtk_exporter;

static const st_field vtk_exporter_fields[] = {
    ST_STRING(vtk_exporter, filename, "filename",
              NULL, "Path or filename where to export the data (relative to the scene's folder). "
                    "If missing the name of the component is used"),
    ST_BOOL(vtk_exporter, xml_format, "XMLformat", "true",
            "Set to true to use XML format (VTU files and a PVD collection), false for "
            "legacy .vtk files"),
    ST_BOOL(vtk_exporter, binary, "binary", "true",
            "XML files: data as raw binary appended to the file (true) or as ASCII text "
            "(false, as SOFA writes) (settee)"),
    ST_VEC3S(vtk_exporter, position, "position", NULL,
             "points position (will use points from topology or mechanical state if this is "
             "empty)"),
    ST_BOOL(vtk_exporter, edges, "edges", "true", "write edge topology"),
    ST_BOOL(vtk_exporter, triangles, "triangles", "false", "write triangle topology"),
    ST_BOOL(vtk_exporter, quads, "quads", "false", "write quad topology"),
    ST_BOOL(vtk_exporter, tetras, "tetras", "false", "write tetra topology"),
    ST_BOOL(vtk_exporter, hexas, "hexas", "false", "write hexa topology"),
    ST_STRINGS(vtk_exporter, points_data, "pointsDataFields", NULL,
               "Data to visualize (on points): [NAME=][@]component.field, one value per point"),
    ST_STRINGS(vtk_exporter, cells_data, "cellsDataFields", NULL,
               "Data to visualize (on cells): [NAME=][@]component.field, one value per cell"),
    ST_UINT(vtk_exporter, every, "exportEveryNumberOfSteps", "0",
            "export file only at specified number of steps (0=disable, default=0)"),
    ST_BOOL(vtk_exporter, at_begin, "exportAtBegin", "false",
            "export file before the simulation starts, once the simulation is initialized "
            "(default=false)"),
    ST_BOOL(vtk_exporter, at_end, "exportAtEnd", "false",
            "export file when the simulation is over and cleanup is called, i.e. just before "
            "deleting the simulation (default=false)"),
    ST_BOOL(vtk_exporter, enable, "enable", "true",
            "Enable or disable the component. (default=true)"),
    ST_BOOL(vtk_exporter, overwrite, "overwrite", "false",
            "overwrite the file, otherwise create a new file at each export, with suffix in the "
            "filename"),
    ST_BOOL(vtk_exporter, top_only, "topDimensionOnly", "false",
            "Of the element kinds enabled, write only those of the highest dimension the "
            "topology has (hexas and tetras, else quads and triangles, else edges) (settee; "
            "what `settee run --output` uses)"),
    {"topology", ST_T_LINK, offsetof(vtk_exporter, topology_link), NULL, "topology to export", 0,
     NULL, ST_LINK_TOPOLOGY, 0.0, 0.0},
    {"mstate", ST_T_LINK, offsetof(vtk_exporter, mstate_link), NULL,
     "mechanical state to export", 0, NULL, ST_LINK_STATE, 0.0, 0.0},
    {"visualModel", ST_T_LINK, offsetof(vtk_exporter, visual_link), NULL,
     "visual model to export (an OglModel: its position as points, its edges, triangles and "
     "quads as cells; replaces mstate and topology) (settee)",
     0, NULL, ST_LINK_ANY, 0.0, 0.0},
    ST_OUTPUT(vtk_exporter, files_written, "filesWritten", ST_T_UINT, unsigned,
              "Number of VTU/VTK files written so far (settee)"),
    ST_OUTPUT(vtk_exporter, failures, "failures", ST_T_UINT, unsigned,
              "Number of exports that could not be written (settee)"),
    ST_FIELD_END};

/* ---- data sources ---- */

/* Cell kinds, in SOFA's order, with their VTK type ids. */
static const struct cell_kind {
    st_type type;
    size_t flag_offset;
    unsigned vtk;
    int dim;
    const char *visual_field; /* the visual model's field of these elements, or NULL */
} cell_kinds[] = {
    {ST_T_EDGES, offsetof(vtk_exporter, edges), 3, 1, "edges"},
    {ST_T_TRIANGLES, offsetof(vtk_exporter, triangles), 5, 2, "triangles"},
    {ST_T_QUADS, offsetof(vtk_exporter, quads), 9, 2, "quads"},
    {ST_T_TETRAS, offsetof(vtk_exporter, tetras), 10, 3, NULL},
    {ST_T_HEXAS, offsetof(vtk_exporter, hexas), 12, 3, NULL},
};
#define NKINDS (sizeof cell_kinds / sizeof *cell_kinds)
#define VTK_VERTEX 1u

/* What one export writes: points, the element lists and their counts. */
typedef struct vtk_mesh {
    const double *x;  /* 3 x np */
    size_t np;
    const st_array *lists[NKINDS]; /* NULL for kinds not written */
    size_t ncells, nconn;
    bool vertices;    /* no element: one VTK_VERTEX cell per point */
} vtk_mesh;

static bool is_real_type(st_type t)
{
    return t == ST_T_REALS || t == ST_T_VEC3S || t == ST_T_COORDS || t == ST_T_DERIVS;
}

static bool is_array_type(st_type t)
{
    return (t >= ST_T_REALS && t <= ST_T_HEXAS && t != ST_T_STRINGS) || t == ST_T_COORDS ||
           t == ST_T_DERIVS;
}

/* Values per tuple of a data field (a state's vectors: its type's sizes). */
static unsigned data_width(const vtk_data *d)
{
    return st_component_field_width(d->obj, d->field);
}

/* The visual model's array field name when it has the expected type
 * (position: Vec3; edges, triangles, quads: their element type), or NULL. */
static const st_array *visual_array(const vtk_exporter *e, const char *name)
{
    if (!name)
        return NULL;
    const st_field *f = st_component_field(e->visual_link, name);
    if (!f)
        return NULL;
    bool ok = !strcmp(name, "position")    ? f->type == ST_T_VEC3S
              : !strcmp(name, "edges")     ? f->type == ST_T_EDGES
              : !strcmp(name, "triangles") ? f->type == ST_T_TRIANGLES
                                           : f->type == ST_T_QUADS;
    return ok ? st_component_field_ptr(e->visual_link, f) : NULL;
}

static st_status gather_mesh(vtk_exporter *e, vtk_mesh *m, st_error *err)
{
    memset(m, 0, sizeof *m);
    ST_TRY(st_component_update_inputs(&e->base, err));
    if (e->visual_link) {
        const st_array *p = visual_array(e, "position");
        m->x = p ? p->r : NULL;
        m->np = p ? p->n : 0;
    } else if (e->position.n) {
        m->x = e->position.r;
        m->np = e->position.n;
    } else if (e->ms) {
        state_view v;
        state_view_of(e->ms, &v);
        m->x = v.x;
        m->np = v.n;
    } else if (e->topo && e->topo->cls->topology->nb_points) {
        const st_topology_ops *ops = e->topo->cls->topology;
        size_t n = ops->nb_points(e->topo);
        if (n > e->ntopo_points) {
            double *p = st_realloc(e->topo_points, 3 * n * sizeof *p);
            if (!p)
                return st_error_set(err, ST_ENOMEM, "out of memory (%zu points)", n);
            e->topo_points = p;
            e->ntopo_points = n;
        }
        for (size_t i = 0; ops->get_point && i < n; i++)
            ops->get_point(e->topo, i, e->topo_points + 3 * i);
        m->x = e->topo_points;
        m->np = n;
    }
    if (e->visual_link || (e->topo && e->topo->cls->topology->elements)) {
        for (size_t k = 0; k < NKINDS; k++) {
            if (!*(bool *)((char *)e + cell_kinds[k].flag_offset))
                continue;
            const st_array *a =
                e->visual_link
                    ? visual_array(e, cell_kinds[k].visual_field)
                    : e->topo->cls->topology->elements(e->topo, cell_kinds[k].type);
            if (!a || !a->n)
                continue;
            unsigned w = st_type_width(cell_kinds[k].type);
            for (size_t i = 0; i < w * a->n; i++)
                if (a->u[i] >= m->np)
                    return st_error_set(err, ST_EINVAL,
                                        "%s element %zu uses point %u but there are %zu points",
                                        st_type_name(cell_kinds[k].type), i / w, a->u[i], m->np);
            m->lists[k] = a;
        }
        /* topDimensionOnly: keep the kinds of the highest dimension present. */
        int top = 0;
        for (size_t k = 0; k < NKINDS; k++)
            if (m->lists[k] && cell_kinds[k].dim > top)
                top = cell_kinds[k].dim;
        for (size_t k = 0; k < NKINDS; k++) {
            if (m->lists[k] && e->top_only && cell_kinds[k].dim < top)
                m->lists[k] = NULL;
            if (m->lists[k]) {
                m->ncells += m->lists[k]->n;
                m->nconn += st_type_width(cell_kinds[k].type) * m->lists[k]->n;
            }
        }
    }
    if (!m->ncells) {
        m->vertices = true;
        m->ncells = m->nconn = m->np;
    }
    return ST_OK;
}

/* The array of a data field, checked against the number of tuples expected. */
static st_status data_array(const vtk_exporter *e, const vtk_data *d, size_t expect,
                            const char *where, const st_array **out, st_error *err)
{
    const st_array *a = st_component_field_ptr(d->obj, d->field);
    if (a->n != expect) {
        char path[ST_ERROR_PATH_MAX];
        return st_error_set(err, ST_EINVAL,
                            "%s '%s' (%s.%s) holds %zu values but the mesh has %zu %s",
                            where, d->name, st_component_path(d->obj, path, sizeof path),
                            d->field->name, a->n, expect, where[0] == 'p' ? "points" : "cells");
    }
    (void)e;
    *out = a;
    return ST_OK;
}

/* ---- XML (VTU) ---- */

static const char *byte_order(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one ? "LittleEndian" : "BigEndian";
}

/* Writes n scalars of a typed source as ASCII, one tuple per line. */
static void put_ascii_reals(FILE *f, const double *r, size_t n, unsigned w)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.17g%c", r[i], (i + 1) % w ? ' ' : '\n');
}

static void put_ascii_uints(FILE *f, const unsigned *u, size_t n, unsigned w)
{
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%u%c", u[i], (i + 1) % w ? ' ' : '\n');
}

/* Binary blocks of appended data: a UInt64 byte count, then the values. */
static void put_block_header(FILE *f, uint64_t nbytes)
{
    fwrite(&nbytes, sizeof nbytes, 1, f);
}

/* The connectivity, offsets or types of the cells, as Int64 (or UInt8 for
 * types), streamed through a fixed buffer (no allocation per export). */
typedef enum cell_part { PART_CONN, PART_OFFSETS, PART_TYPES } cell_part;

static size_t part_count(const vtk_mesh *m, cell_part p)
{
    return p == PART_CONN ? m->nconn : m->ncells;
}

static void put_cells(FILE *f, const vtk_mesh *m, cell_part part, bool binary)
{
    int64_t buf[512];
    uint8_t tbuf[512];
    size_t nb = 0;
    int64_t off = 0;
#define EMIT(v)                                                                                   \
    do {                                                                                          \
        if (!binary)                                                                              \
            fprintf(f, "%lld\n", (long long)(v));                                                 \
        else if (part == PART_TYPES) {                                                            \
            tbuf[nb++] = (uint8_t)(v);                                                            \
            if (nb == 512) {                                                                      \
                fwrite(tbuf, 1, nb, f);                                                           \
                nb = 0;                                                                           \
            }                                                                                     \
        } else {                                                                                  \
            buf[nb++] = (int64_t)(v);                                                             \
            if (nb == 512) {                                                                      \
                fwrite(buf, sizeof *buf, nb, f);                                                  \
                nb = 0;                                                                           \
            }                                                                                     \
        }                                                                                         \
    } while (0)
    if (m->vertices) {
        for (size_t i = 0; i < m->np; i++)
            EMIT(part == PART_CONN ? (int64_t)i : part == PART_OFFSETS ? (int64_t)i + 1 : VTK_VERTEX);
    } else {
        for (size_t k = 0; k < NKINDS; k++) {
            const st_array *a = m->lists[k];
            if (!a)
                continue;
            unsigned w = st_type_width(cell_kinds[k].type);
            for (size_t i = 0; i < a->n; i++) {
                if (part == PART_CONN) {
                    for (unsigned j = 0; j < w; j++)
                        EMIT(a->u[w * i + j]);
                } else if (part == PART_OFFSETS) {
                    off += w;
                    EMIT(off);
                } else {
                    EMIT(cell_kinds[k].vtk);
                }
            }
        }
    }
#undef EMIT
    if (binary && nb)
        fwrite(part == PART_TYPES ? (const void *)tbuf : (const void *)buf,
               part == PART_TYPES ? 1 : sizeof *buf, nb, f);
}

/* The header of one DataArray; in binary mode it points at *offset in the
 * appended data and advances it by the block's size. */
static void put_array_head(FILE *f, const char *type, const char *name, unsigned ncomp,
                           bool binary, uint64_t *offset, uint64_t nbytes, bool close)
{
    fprintf(f, "        <DataArray type=\"%s\"", type);
    if (name)
        fprintf(f, " Name=\"%s\"", name);
    if (ncomp > 1)
        fprintf(f, " NumberOfComponents=\"%u\"", ncomp);
    if (binary) {
        fprintf(f, " format=\"appended\" offset=\"%llu\"/>\n", (unsigned long long)*offset);
        *offset += sizeof(uint64_t) + nbytes;
    } else {
        fprintf(f, " format=\"ascii\">%s", close ? "\n" : "");
    }
}

/* The value type of a data array in a VTU file. */
static const char *vtu_type(st_type t)
{
    return is_real_type(t) ? "Float64" : "UInt32";
}

static size_t elem_size(st_type t)
{
    return is_real_type(t) ? sizeof(double) : sizeof(unsigned);
}

/* Point or cell data headers (and ASCII bodies). */
static st_status put_data_section(FILE *f, const vtk_exporter *e, const vtk_data *d, size_t nd,
                                  size_t expect, const char *tag, bool binary, uint64_t *offset,
                                  st_error *err)
{
    if (!nd)
        return ST_OK;
    fprintf(f, "      <%s>\n", tag);
    for (size_t i = 0; i < nd; i++) {
        const st_array *a;
        ST_TRY(data_array(e, &d[i], expect, tag[0] == 'P' ? "point data" : "cell data", &a,
                          err));
        unsigned w = data_width(&d[i]);
        put_array_head(f, vtu_type(d[i].field->type), d[i].name, w, binary, offset,
                       (uint64_t)a->n * w * elem_size(d[i].field->type), true);
        if (!binary) {
            if (is_real_type(d[i].field->type))
                put_ascii_reals(f, a->r, a->n * w, w);
            else
                put_ascii_uints(f, a->u, a->n * w, w);
            fprintf(f, "        </DataArray>\n");
        }
    }
    fprintf(f, "      </%s>\n", tag);
    return ST_OK;
}

static void put_data_blocks(FILE *f, const vtk_data *d, size_t nd)
{
    for (size_t i = 0; i < nd; i++) {
        const st_array *a = st_component_field_ptr(d[i].obj, d[i].field);
        size_t n = a->n * data_width(&d[i]);
        size_t es = elem_size(d[i].field->type);
        put_block_header(f, (uint64_t)(n * es));
        fwrite(a->p, es, n, f);
    }
}

static st_status write_vtu(vtk_exporter *e, const vtk_mesh *m, FILE *f, st_error *err)
{
    bool bin = e->binary;
    uint64_t off = 0;
    fprintf(f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" "
               "byte_order=\"%s\" header_type=\"UInt64\">\n  <UnstructuredGrid>\n"
               "    <Piece NumberOfPoints=\"%zu\" NumberOfCells=\"%zu\">\n",
            byte_order(), m->np, m->ncells);
    ST_TRY(put_data_section(f, e, e->pdata, e->npdata, m->np, "PointData", bin, &off, err));
    ST_TRY(put_data_section(f, e, e->cdata, e->ncdata, m->ncells, "CellData", bin, &off, err));
    fprintf(f, "      <Points>\n");
    put_array_head(f, "Float64", NULL, 3, bin, &off, 3 * m->np * sizeof(double), true);
    if (!bin) {
        put_ascii_reals(f, m->x, 3 * m->np, 3);
        fprintf(f, "        </DataArray>\n");
    }
    fprintf(f, "      </Points>\n      <Cells>\n");
    static const char *const part_names[] = {"connectivity", "offsets", "types"};
    for (int p = PART_CONN; p <= PART_TYPES; p++) {
        size_t n = part_count(m, (cell_part)p);
        put_array_head(f, p == PART_TYPES ? "UInt8" : "Int64", part_names[p], 1, bin, &off,
                       n * (p == PART_TYPES ? 1 : sizeof(int64_t)), true);
        if (!bin) {
            put_cells(f, m, (cell_part)p, false);
            fprintf(f, "        </DataArray>\n");
        }
    }
    fprintf(f, "      </Cells>\n    </Piece>\n  </UnstructuredGrid>\n");
    if (bin) {
        fprintf(f, "  <AppendedData encoding=\"raw\">\n   _");
        put_data_blocks(f, e->pdata, e->npdata);
        put_data_blocks(f, e->cdata, e->ncdata);
        put_block_header(f, 3 * m->np * sizeof(double));
        fwrite(m->x, sizeof(double), 3 * m->np, f);
        for (int p = PART_CONN; p <= PART_TYPES; p++) {
            size_t n = part_count(m, (cell_part)p);
            put_block_header(f, n * (p == PART_TYPES ? 1 : sizeof(int64_t)));
            put_cells(f, m, (cell_part)p, true);
        }
        fprintf(f, "\n  </AppendedData>\n");
    }
    fprintf(f, "</VTKFile>\n");
    return ST_OK;
}

/* The collection: every file written, with its time. */
static st_status write_pvd(vtk_exporter *e, st_error *err)
{
    char path[OUT_PATH_MAX + 8];
    snprintf(path, sizeof path, "%s.pvd", e->base_path);
    const char *slash = strrchr(e->base_path, '/');
    const char *stem = slash ? slash + 1 : e->base_path;
    out_file o;
    ST_TRY(out_open(&o, path, err));
    fprintf(o.f, "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\" "
                 "byte_order=\"%s\">\n  <Collection>\n",
            byte_order());
    size_t first = e->overwrite && e->ntimes ? e->ntimes - 1 : 0;
    for (size_t i = first; i < e->ntimes; i++) {
        fprintf(o.f, "    <DataSet timestep=\"%.17g\" group=\"\" part=\"0\" file=\"%s", e->times[i],
                stem);
        if (!e->overwrite)
            fprintf(o.f, "%zu", i);
        fprintf(o.f, "%s\"/>\n", e->ext);
    }
    fprintf(o.f, "  </Collection>\n</VTKFile>\n");
    return out_commit(&o, err);
}

/* ---- legacy VTK ---- */

static st_status put_legacy_data(FILE *f, const vtk_exporter *e, const vtk_data *d, size_t nd,
                                 size_t expect, bool cells, st_error *err)
{
    if (!nd)
        return ST_OK;
    fprintf(f, "%s %zu\n", cells ? "CELL_DATA" : "POINT_DATA", expect);
    for (size_t i = 0; i < nd; i++) {
        const st_array *a;
        ST_TRY(data_array(e, &d[i], expect, cells ? "cell data" : "point data", &a, err));
        unsigned w = data_width(&d[i]);
        bool real = is_real_type(d[i].field->type);
        const char *ty = real ? "double" : "unsigned_int";
        if (w == 3)
            fprintf(f, "VECTORS %s %s\n", d[i].name, ty);
        else
            fprintf(f, "SCALARS %s %s %u\nLOOKUP_TABLE default\n", d[i].name, ty, w);
        if (real)
            put_ascii_reals(f, a->r, a->n * w, w);
        else
            put_ascii_uints(f, a->u, a->n * w, w);
        fprintf(f, "\n");
    }
    return ST_OK;
}

static st_status write_legacy(vtk_exporter *e, const vtk_mesh *m, FILE *f, st_error *err)
{
    fprintf(f, "# vtk DataFile Version 2.0\nExported VTK file\nASCII\n\n"
               "DATASET UNSTRUCTURED_GRID\nPOINTS %zu double\n",
            m->np);
    put_ascii_reals(f, m->x, 3 * m->np, 3);
    fprintf(f, "\nCELLS %zu %zu\n", m->ncells, m->ncells + m->nconn);
    if (m->vertices) {
        for (size_t i = 0; i < m->np; i++)
            fprintf(f, "1 %zu\n", i);
    }
    for (size_t k = 0; k < NKINDS; k++) {
        const st_array *a = m->lists[k];
        unsigned w = st_type_width(cell_kinds[k].type);
        for (size_t i = 0; a && i < a->n; i++) {
            fprintf(f, "%u", w);
            for (unsigned j = 0; j < w; j++)
                fprintf(f, " %u", a->u[w * i + j]);
            fprintf(f, "\n");
        }
    }
    fprintf(f, "\nCELL_TYPES %zu\n", m->ncells);
    put_cells(f, m, PART_TYPES, false);
    fprintf(f, "\n");
    ST_TRY(put_legacy_data(f, e, e->pdata, e->npdata, m->np, false, err));
    ST_TRY(put_legacy_data(f, e, e->cdata, e->ncdata, m->ncells, true, err));
    return ST_OK;
}

/* ---- one export ---- */

static st_status export_once(vtk_exporter *e, st_error *err)
{
    vtk_mesh m;
    ST_TRY(gather_mesh(e, &m, err));
    char path[OUT_PATH_MAX + 32];
    unsigned k = e->files_written;
    if (e->overwrite)
        snprintf(path, sizeof path, "%s%s", e->base_path, e->ext);
    else
        snprintf(path, sizeof path, e->xml_format ? "%s%u%s" : "%s_%u%s", e->base_path, k, e->ext);
    if (e->xml_format && e->ntimes == e->cap_times) {
        size_t cap = e->cap_times ? 2 * e->cap_times : 64;
        double *t = st_realloc(e->times, cap * sizeof *t);
        if (!t)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        e->times = t;
        e->cap_times = cap;
    }
    out_file o;
    ST_TRY(out_open(&o, path, err));
    st_status s = e->xml_format ? write_vtu(e, &m, o.f, err) : write_legacy(e, &m, o.f, err);
    if (s != ST_OK) {
        out_abort(&o);
        return s;
    }
    ST_TRY(out_commit(&o, err));
    e->files_written++;
    if (e->xml_format) {
        e->times[e->ntimes++] = st_node_time(e->base.node);
        ST_TRY(write_pvd(e, err));
    }
    if (e->base.print_log)
        st_component_info(&e->base, "Export VTK%s in file %s done", e->xml_format ? " XML" : "",
                          path);
    return ST_OK;
}

/* Exports, logging a failure as an error of the component. */
static void export_logged(vtk_exporter *e)
{
    if (e->base.state != ST_CSTATE_VALID)
        return;
    st_error err = {0};
    if (export_once(e, &err) != ST_OK) {
        e->failures++;
        out_log_error(&e->base, &err);
    }
}

/* ---- lifecycle ---- */

/* Splits "[NAME=][@]object.field" and finds the field. */
static st_status resolve_data(vtk_exporter *e, const char *key, const char *spec, vtk_data *d,
                              st_error *err)
{
    const char *eq = strchr(spec, '=');
    const char *ref = eq ? eq + 1 : spec;
    if (*ref == '@')
        ref++;
    const char *dot = strrchr(ref, '.');
    const char *slash = strrchr(ref, '/');
    if (!dot || dot == ref || !dot[1] || (slash && slash > dot))
        return st_component_error(&e->base, key, err, ST_EINVAL,
                                  "'%s' is not component.field (\"@../dofs.velocity\", "
                                  "\"v=dofs.velocity\")",
                                  spec);
    char obj[ST_ERROR_PATH_MAX];
    snprintf(obj, sizeof obj, "%.*s", (int)(dot - ref), ref);
    st_component *c = NULL;
    st_error sub = {0};
    if (st_node_resolve(e->base.node, obj, ST_LINK_ANY, &c, &sub) != ST_OK)
        return st_component_error(&e->base, key, err, ST_ELINK, "'%s': %s", spec, sub.msg);
    const st_field *f = st_component_field(c, dot + 1);
    if (!f)
        return st_component_error(&e->base, key, err, ST_ELINK, "'%s': %s '%s' has no field '%s'",
                                  spec, c->cls->name, c->name, dot + 1);
    if (!is_array_type(f->type))
        return st_component_error(&e->base, key, err, ST_EINVAL,
                                  "'%s' is %s: only per-point or per-element arrays (real[], "
                                  "vec3[], uint[], element lists) can be written",
                                  spec, st_type_name(f->type));
    if (eq)
        snprintf(d->name, sizeof d->name, "%.*s", (int)(eq - spec), spec);
    else
        snprintf(d->name, sizeof d->name, "%s", dot + 1);
    if (!d->name[0] || strpbrk(d->name, "\"<>& "))
        return st_component_error(&e->base, key, err, ST_EINVAL,
                                  "'%s': the array name must be non-empty, without spaces, quotes, "
                                  "'<', '>' or '&'",
                                  spec);
    d->obj = c;
    d->field = f;
    return ST_OK;
}

static st_status resolve_data_list(vtk_exporter *e, const char *key, const st_array *specs,
                                   vtk_data **out, size_t *n, st_error *err)
{
    st_free(*out);
    *out = NULL;
    *n = 0;
    if (!specs->n)
        return ST_OK;
    *out = st_calloc(specs->n, sizeof **out);
    if (!*out)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    for (size_t i = 0; i < specs->n; i++)
        ST_TRY(resolve_data(e, key, specs->s[i], &(*out)[i], err));
    *n = specs->n;
    return ST_OK;
}

/* True when c is destroyed after e (exportAtEnd reads it from e's cleanup):
 * in an ancestor of e's node, or earlier in e's node. */
static bool outlives(const st_component *c, const vtk_exporter *e)
{
    if (!c)
        return true;
    st_node *n = e->base.node;
    if (c->node == n) {
        for (size_t i = 0; i < st_node_object_count(n); i++) {
            if (st_node_object(n, i) == c)
                return true;
            if (st_node_object(n, i) == &e->base)
                return false;
        }
        return false;
    }
    for (st_node *p = st_node_parent(n); p; p = st_node_parent(p))
        if (c->node == p)
            return true;
    return false;
}

static st_status check_at_end(vtk_exporter *e, st_error *err)
{
    const st_component *used[2] = {e->topo, e->ms ? &e->ms->base : NULL};
    for (size_t i = 0; i < 2; i++)
        if (!outlives(used[i], e))
            goto bad;
    for (size_t i = 0; i < e->npdata + e->ncdata; i++) {
        const vtk_data *d = i < e->npdata ? &e->pdata[i] : &e->cdata[i - e->npdata];
        if (!outlives(d->obj, e))
            goto bad;
    }
    return ST_OK;
bad:
    return st_component_error(&e->base, "exportAtEnd", err, ST_EINVAL,
                              "exportAtEnd writes while the scene is destroyed, when components "
                              "of child nodes and later ones in this node are already gone: "
                              "place the exporter after what it exports, in the same node or "
                              "below it");
}

static st_status vtk_exporter_init(st_component *self, st_error *err)
{
    vtk_exporter *e = (vtk_exporter *)self;
    const char *name = e->filename && *e->filename ? e->filename : self->name;
    char full[OUT_PATH_MAX];
    ST_TRY(out_resolve(self, "filename", name, full, sizeof full, err));
    size_t len = strlen(full);
    bool has_vtu = len > 4 && !strcmp(full + len - 4, ".vtu");
    bool has_vtk = len > 4 && !strcmp(full + len - 4, ".vtk");
    if (has_vtu || has_vtk)
        full[len - 4] = 0;
    snprintf(e->base_path, sizeof e->base_path, "%s", full);
    /* SOFA's legacy writer names a file without extension ".vtu"; settee
     * uses ".vtk", the extension readers expect of the legacy format. */
    snprintf(e->ext, sizeof e->ext, "%s",
             e->xml_format ? ".vtu" : (has_vtu ? ".vtu" : ".vtk"));

    if (e->visual_link) {
        /* A visual model: its own positions and faces, no state, no topology. */
        if (!visual_array(e, "position"))
            return st_component_error(self, "visualModel", err, ST_ELINK,
                                      "visualModel must link a visual model with Vec3 positions "
                                      "(an OglModel), got %s '%s'",
                                      e->visual_link->cls->name, e->visual_link->name);
        e->ms = NULL;
        e->topo = NULL;
        ST_TRY(resolve_data_list(e, "pointsDataFields", &e->points_data, &e->pdata, &e->npdata,
                                 err));
        ST_TRY(resolve_data_list(e, "cellsDataFields", &e->cells_data, &e->cdata, &e->ncdata,
                                 err));
        if (e->at_end && !outlives(e->visual_link, e))
            return st_component_error(self, "exportAtEnd", err, ST_EINVAL,
                                      "exportAtEnd writes while the scene is destroyed: the "
                                      "visual model must be in this node before the exporter, "
                                      "or above it");
        e->step_counter = 0;
        self->state = ST_CSTATE_VALID;
        return ST_OK;
    }
    e->ms = e->mstate_link ? (st_mstate *)e->mstate_link : st_component_mstate(self);
    ST_TRY(state_view_check(self, e->ms, err));
    e->topo = e->topology_link ? e->topology_link
                               : st_node_find(self->node, ST_ROLE_TOPOLOGY, ST_SEARCH_UP);
    if (e->topo && !e->topo->cls->topology)
        e->topo = NULL;
    if (!e->position.n && !st_component_is_set(self, "position") && !e->ms &&
        !(e->topo && e->topo->cls->topology->nb_points &&
          e->topo->cls->topology->nb_points(e->topo)))
        return st_component_error(self, NULL, err, ST_ESCENE,
                                  "nothing to export: no position, no MechanicalObject and no "
                                  "topology with points in this node or above");
    ST_TRY(resolve_data_list(e, "pointsDataFields", &e->points_data, &e->pdata, &e->npdata, err));
    ST_TRY(resolve_data_list(e, "cellsDataFields", &e->cells_data, &e->cdata, &e->ncdata, err));
    if (e->at_end)
        ST_TRY(check_at_end(e, err));
    e->step_counter = 0;
    self->state = ST_CSTATE_VALID;
    return ST_OK;
}

static void vtk_exporter_on_event(st_component *self, st_event ev, double dt)
{
    vtk_exporter *e = (vtk_exporter *)self;
    (void)dt;
    if (!e->enable)
        return;
    if (ev == ST_EVENT_INIT_DONE && e->at_begin) {
        export_logged(e);
    } else if (ev == ST_EVENT_ANIMATE_END && e->every) {
        e->step_counter++;
        if (e->step_counter % e->every == 0)
            export_logged(e);
    }
}

static void vtk_exporter_cleanup(st_component *self)
{
    vtk_exporter *e = (vtk_exporter *)self;
    if (e->enable && e->at_end)
        export_logged(e);
    st_free(e->pdata);
    st_free(e->cdata);
    st_free(e->times);
    st_free(e->topo_points);
    e->pdata = e->cdata = NULL;
    e->times = e->topo_points = NULL;
}

/* Checkpoints: the counts, the step counter and the collection's times,
 * so a resumed run numbers its files on and lists every file in the PVD. */
static st_status vtk_exporter_checkpoint(st_component *self, st_checkpoint *ck, st_error *err)
{
    vtk_exporter *e = (vtk_exporter *)self;
    ST_TRY(st_checkpoint_data(ck, &e->files_written, sizeof e->files_written, err));
    ST_TRY(st_checkpoint_data(ck, &e->failures, sizeof e->failures, err));
    ST_TRY(st_checkpoint_data(ck, &e->step_counter, sizeof e->step_counter, err));
    size_t n = e->ntimes;
    ST_TRY(st_checkpoint_data(ck, &n, sizeof n, err));
    if (st_checkpoint_reading(ck) && n > e->cap_times) {
        double *t = st_realloc(e->times, n * sizeof *t);
        if (!t)
            return st_error_set(err, ST_ENOMEM, "out of memory");
        e->times = t;
        e->cap_times = n;
    }
    e->ntimes = n;
    return st_checkpoint_data(ck, e->times, n * sizeof *e->times, err);
}

static const st_checkpoint_ops vtk_exporter_checkpoint_ops = {
    .struct_size = sizeof(st_checkpoint_ops),
    .transfer = vtk_exporter_checkpoint,
};

const st_class vtk_exporter_class = {
    .struct_size = sizeof(st_class),
    .name = "VTKExporter",
    .category = "Exporter",
    .description = "Export a given mesh in a VTK file (VTU files and a PVD collection, or legacy "
                   "VTK)",
    .instance_size = sizeof(vtk_exporter),
    .fields = vtk_exporter_fields,
    .init = vtk_exporter_init,
    .on_event = vtk_exporter_on_event,
    .reinit = vtk_exporter_init,
    .cleanup = vtk_exporter_cleanup,
    .checkpoint = &vtk_exporter_checkpoint_ops,
};
