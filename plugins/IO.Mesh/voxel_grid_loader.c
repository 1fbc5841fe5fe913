/* voxel_grid_loader.c - SOFA's VoxelGridLoader: a binary .raw voxel file
 * (one byte per voxel, x fastest, then y, then z, after `header` bytes
 * ignored) of `resolution` voxels, as hexahedra (generateHexa, the
 * default) or points.
 *
 * A voxel is active when dataValue lists its byte; else, when bgValue is
 * given, when bgValue does not list it; with neither list, every voxel is
 * active. Only the voxels in the region of interest ROI (xmin ymin zmin
 * xmax ymax zmax, clamped to the resolution as SOFA's init does) count.
 * Hexahedra: each active voxel (i, j, k) in the order z, then y, then x
 * slowest to fastest gives a hexahedron of its 8 grid corners in SOFA's
 * order; the corners used are the points, in the same order over the
 * grid's points, point (i, j, k) at (i, j, k) * voxelSize. Points
 * (generateHexa false): one point per active voxel at its lower corner.
 * idxInRegularGrid: each hexahedron's (or point's) voxel index
 * i + nx (j + ny k).
 *
 * segmentationHeader, and the segmentation image SOFA's isActive would
 * read instead of the data, are not used: SOFA never loads a segmentation
 * file, so its isActive always reads the data (segmentationFile is an
 * alias of filename). A file shorter than header + nx ny nz bytes is an
 * error (SOFA: "Unable to load file", then an empty mesh). */
#include <math.h>
#include <string.h>

#include "mesh_loader.h"

typedef struct voxel_grid_loader {
    st_component base;
    char *filename;          /* "filename" (alias segmentationFile) */
    st_array position;       /* output, vec3[] */
    st_array hexahedra;      /* output */
    st_vec3 voxel_size;      /* "voxelSize" */
    st_vec3 resolution;      /* "resolution" (integers) */
    st_array roi;            /* "ROI": 6 integers */
    int header;              /* "header" (bytes) */
    int seg_header;          /* "segmentationHeader" (unused, as in SOFA) */
    st_array idx_in_grid;    /* "idxInRegularGrid" output */
    st_array bg_value;       /* "bgValue" (integers) */
    st_array active_value;   /* "dataValue" (integers) */
    bool generate_hexa;      /* "generateHexa" */
} voxel_grid_loader;

#define T voxel_grid_loader
static const st_field voxel_grid_fields[] = {
    ST_FIELD_EX(T, filename, "filename", ST_T_STRING, char *, NULL,
                "Filename of the object (a .raw voxel file: the scene's folder, then "
                "SETTEE_DATA_PATH and SOFA_DATA_PATH)",
                ST_F_REQUIRED, "segmentationFile", 0.0, 0.0),
    ST_OUTPUT(T, position, "position", ST_T_VEC3S, st_array, "Coordinates of the nodes loaded"),
    ST_OUTPUT(T, hexahedra, "hexahedra", ST_T_HEXAS, st_array, "Hexahedra loaded"),
    ST_VEC3(T, voxel_size, "voxelSize", "1 1 1", "Dimension of one voxel"),
    ST_VEC3(T, resolution, "resolution", "0 0 0", "Resolution of the voxel file"),
    ST_REALS(T, roi, "ROI", "0 0 0 65535 65535 65535",
             "Region of interest (xmin, ymin, zmin, xmax, ymax, zmax)"),
    ST_INT(T, header, "header", "0", "Header size in bytes"),
    ST_INT(T, seg_header, "segmentationHeader", "0",
           "Header size in bytes (unused: SOFA reads no segmentation file)"),
    ST_OUTPUT(T, idx_in_grid, "idxInRegularGrid", ST_T_UINTS, st_array,
              "indices of the hexa in the grid."),
    ST_REALS(T, bg_value, "bgValue", NULL, "Background values (to be ignored)"),
    ST_REALS(T, active_value, "dataValue", NULL, "Active data values"),
    ST_BOOL(T, generate_hexa, "generateHexa", "true", "Interpret voxel as either hexa or points"),
    ST_FIELD_END};
#undef T

static bool listed(const st_array *a, unsigned char v)
{
    for (size_t i = 0; i < a->n; i++)
        if (a->r[i] == (double)v)
            return true;
    return false;
}

static bool is_active(const voxel_grid_loader *o, unsigned char v)
{
    if (o->active_value.n)
        return listed(&o->active_value, v);
    if (o->bg_value.n)
        return !listed(&o->bg_value, v);
    return true;
}

static st_status check_integers(st_component *self, const char *field, const double *v, size_t n,
                                st_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] != floor(v[i]) || !(fabs(v[i]) < 2147483648.0))
            return st_component_error(self, field, err, ST_EINVAL,
                                      "%s must hold integers, got %g", field, v[i]);
    return ST_OK;
}

static st_status vgl_init(st_component *self, st_error *err)
{
    voxel_grid_loader *o = (voxel_grid_loader *)self;
    if (!o->filename || !o->filename[0])
        return st_component_error(self, "filename", err, ST_ESCENE,
                                  "no filename: give the .raw voxel file to load");
    ST_TRY(check_integers(self, "resolution", o->resolution, 3, err));
    if (o->roi.n != 6)
        return st_component_error(self, "ROI", err, ST_EINVAL,
                                  "ROI needs 6 integers (xmin ymin zmin xmax ymax zmax), got %zu",
                                  o->roi.n);
    ST_TRY(check_integers(self, "ROI", o->roi.r, 6, err));
    ST_TRY(check_integers(self, "bgValue", o->bg_value.r, o->bg_value.n, err));
    ST_TRY(check_integers(self, "dataValue", o->active_value.r, o->active_value.n, err));
    if (o->header < 0)
        return st_component_error(self, "header", err, ST_EINVAL, "header must be >= 0, got %d",
                                  o->header);
    long res[3];
    for (int a = 0; a < 3; a++) {
        res[a] = (long)o->resolution[a];
        if (res[a] <= 0 || res[a] > 65536)
            return st_component_error(self, "resolution", err, ST_EINVAL,
                                      "resolution must hold three integers in 1..65536, got %g "
                                      "%g %g",
                                      o->resolution[0], o->resolution[1], o->resolution[2]);
    }
    size_t nvox = (size_t)res[0] * (size_t)res[1] * (size_t)res[2];
    size_t nlen = strlen(o->filename);
    if (nlen <= 4 || strcmp(o->filename + nlen - 4, ".raw") != 0)
        return st_component_error(self, "filename", err, ST_EINVAL,
                                  "'%s': VoxelGridLoader reads .raw files only", o->filename);
    mesh_file f;
    ST_TRY(mesh_file_read(self, o->filename, &f, err));
    if (f.size < (size_t)o->header + nvox) {
        st_status st = st_component_error(self, "filename", err, ST_EIO,
                                          "Unable to load file %s: %zu bytes, %d of header and "
                                          "%ldx%ldx%ld voxels expected",
                                          f.path, f.size, o->header, res[0], res[1], res[2]);
        mesh_file_free(&f);
        return st;
    }
    const unsigned char *vox = (const unsigned char *)f.data + o->header;
    /* SOFA's init clamps the region to the grid. */
    long R[6];
    for (int a = 0; a < 6; a++)
        R[a] = (long)o->roi.r[a];
    for (int a = 0; a < 3; a++) {
        if (R[a] < 0)
            R[a] = 0;
        if (R[3 + a] >= res[a])
            R[3 + a] = res[a] - 1;
        if (R[a] > R[3 + a])
            R[3 + a] = R[a];
        o->roi.r[a] = (double)R[a];
        o->roi.r[3 + a] = (double)R[3 + a];
    }
    st_status st = ST_OK;
    const size_t nx = (size_t)res[0], ny = (size_t)res[1];
    size_t nact = 0;
    /* A region starting beyond the grid holds no voxel (SOFA reads past
     * its image). */
    if (R[0] < res[0] && R[1] < res[1] && R[2] < res[2])
        for (long k = R[2]; k <= R[5]; k++)
            for (long j = R[1]; j <= R[4]; j++)
                for (long i = R[0]; i <= R[3]; i++)
                    nact += is_active(o, vox[(size_t)i + nx * ((size_t)j + ny * (size_t)k)]);
    unsigned *renum = NULL;
    size_t np = 0;
    if (o->generate_hexa && nact) {
        /* The region's corner points, those used by an active voxel. */
        size_t rx = (size_t)(R[3] - R[0] + 2), ry = (size_t)(R[4] - R[1] + 2),
               rz = (size_t)(R[5] - R[2] + 2);
        renum = st_malloc(rx * ry * rz * sizeof *renum);
        if (!renum)
            st = st_error_set(err, ST_ENOMEM, "out of memory (%zu grid points)", rx * ry * rz);
        for (size_t q = 0; st == ST_OK && q < rx * ry * rz; q++)
            renum[q] = 0;
#define RP(i, j, k) (((size_t)((k) - R[2]) * ry + (size_t)((j) - R[1])) * rx + (size_t)((i) - R[0]))
        for (long k = R[2]; st == ST_OK && k <= R[5]; k++)
            for (long j = R[1]; j <= R[4]; j++)
                for (long i = R[0]; i <= R[3]; i++)
                    if (is_active(o, vox[(size_t)i + nx * ((size_t)j + ny * (size_t)k)]))
                        for (int q = 0; q < 8; q++)
                            renum[RP(i + (q & 1), j + (q >> 1 & 1), k + (q >> 2))] = 1;
        for (long k = R[2]; st == ST_OK && k <= R[5] + 1; k++)
            for (long j = R[1]; j <= R[4] + 1; j++)
                for (long i = R[0]; i <= R[3] + 1; i++)
                    if (renum[RP(i, j, k)])
                        renum[RP(i, j, k)] = (unsigned)++np; /* 1-based while counting */
        if (st == ST_OK)
            st = st_array_resize(&o->position, ST_T_VEC3S, np, err);
        if (st == ST_OK)
            st = st_array_resize(&o->hexahedra, ST_T_HEXAS, nact, err);
        if (st == ST_OK)
            st = st_array_resize(&o->idx_in_grid, ST_T_UINTS, nact, err);
        for (long k = R[2]; st == ST_OK && k <= R[5] + 1; k++)
            for (long j = R[1]; j <= R[4] + 1; j++)
                for (long i = R[0]; i <= R[3] + 1; i++) {
                    unsigned p = renum[RP(i, j, k)];
                    if (!p)
                        continue;
                    double *x = o->position.r + 3 * (p - 1);
                    x[0] = (double)i * o->voxel_size[0];
                    x[1] = (double)j * o->voxel_size[1];
                    x[2] = (double)k * o->voxel_size[2];
                }
        /* SOFA's corner order: (0,0,0) (1,0,0) (1,1,0) (0,1,0), then z + 1. */
        static const int cx[8] = {0, 1, 1, 0, 0, 1, 1, 0}, cy[8] = {0, 0, 1, 1, 0, 0, 1, 1};
        size_t h = 0;
        for (long k = R[2]; st == ST_OK && k <= R[5]; k++)
            for (long j = R[1]; j <= R[4]; j++)
                for (long i = R[0]; i <= R[3]; i++) {
                    size_t idx = (size_t)i + nx * ((size_t)j + ny * (size_t)k);
                    if (!is_active(o, vox[idx]))
                        continue;
                    for (int q = 0; q < 8; q++)
                        o->hexahedra.u[8 * h + (size_t)q] =
                            renum[RP(i + cx[q], j + cy[q], k + (q >> 2))] - 1;
                    o->idx_in_grid.u[h++] = (unsigned)idx;
                }
#undef RP
    } else if (nact) {
        st = st_array_resize(&o->position, ST_T_VEC3S, nact, err);
        if (st == ST_OK)
            st = st_array_resize(&o->idx_in_grid, ST_T_UINTS, nact, err);
        if (st == ST_OK)
            st_array_free(&o->hexahedra, ST_T_HEXAS);
        size_t p = 0;
        for (long k = R[2]; st == ST_OK && k <= R[5]; k++)
            for (long j = R[1]; j <= R[4]; j++)
                for (long i = R[0]; i <= R[3]; i++) {
                    size_t idx = (size_t)i + nx * ((size_t)j + ny * (size_t)k);
                    if (!is_active(o, vox[idx]))
                        continue;
                    double *x = o->position.r + 3 * p;
                    x[0] = (double)i * o->voxel_size[0];
                    x[1] = (double)j * o->voxel_size[1];
                    x[2] = (double)k * o->voxel_size[2];
                    o->idx_in_grid.u[p++] = (unsigned)idx;
                }
    } else {
        st_array_free(&o->position, ST_T_VEC3S);
        st_array_free(&o->hexahedra, ST_T_HEXAS);
        st_array_free(&o->idx_in_grid, ST_T_UINTS);
    }
    st_free(renum);
    mesh_file_free(&f);
    ST_TRY(st);
    if (self->print_log)
        st_component_info(self, "inserting (%zu) %s done.", o->generate_hexa ? o->hexahedra.n
                                                                              : o->position.n,
                          o->generate_hexa ? "hexahedras" : "points");
    st_component_touch(self, st_component_field(self, "position"));
    st_component_touch(self, st_component_field(self, "hexahedra"));
    st_component_touch(self, st_component_field(self, "idxInRegularGrid"));
    st_component_touch(self, st_component_field(self, "ROI"));
    return ST_OK;
}

const st_class voxel_grid_loader_class = {
    .struct_size = sizeof(st_class),
    .name = "VoxelGridLoader",
    .category = "Loader",
    .description = "Voxel loader based on RAW files.",
    .instance_size = sizeof(voxel_grid_loader),
    .fields = voxel_grid_fields,
    .init = vgl_init,
    .reinit = vgl_init,
};
