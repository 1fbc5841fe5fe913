/* matrix_export.c - SOFA's matrix writers (see matrix_export.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "../shared/options.h"
#include "matrix_export.h"

/* SOFA's order: MatrixExporter's txt and csv, then SofaMatrix's images. */
static const char *const formats[] = {"txt", "csv", "png", "jpg", "jpeg", "bmp", "tga", NULL};
static const st_option_field format_table[] = {{"format", formats}, {NULL, NULL}};

st_status mx_check_format(st_component *c, st_error *err)
{
    ST_TRY(st_options_check(c, format_table, err));
    const char *f = *(char **)st_component_field_ptr(c, st_component_field(c, "format"));
    if (!strcmp(f, "jpg") || !strcmp(f, "jpeg"))
        return st_component_error(c, "format", err, ST_EINVAL,
                                  "format '%s': settee does not write JPEG images (SOFA writes "
                                  "them lossy, at stb's quality 1); use png, bmp or tga for the "
                                  "same image, lossless",
                                  f);
    return ST_OK;
}

/* Row r of m into row (cols doubles). */
static void get_row(const mx_matrix *m, size_t r, double *row)
{
    if (m->dense) {
        memcpy(row, m->dense + r * m->cols, m->cols * sizeof *row);
        return;
    }
    memset(row, 0, m->cols * sizeof *row);
    for (int k = m->csr->rowptr[r]; k < m->csr->rowptr[r + 1]; k++)
        row[m->csr->colind[k]] = m->csr->values[k];
}

static void write_txt(FILE *f, const mx_matrix *m, double *row, int precision)
{
    fputc('[', f);
    for (size_t r = 0; r < m->rows; r++) {
        get_row(m, r, row);
        fputs("\n[", f);
        for (size_t c = 0; c < m->cols; c++)
            fprintf(f, " %.*g", precision, row[c]);
        fputs(" ]", f);
    }
    fputs(" ]", f);
}

static void write_csv(FILE *f, const mx_matrix *m, double *row, int precision)
{
    if (!m->cols)
        return;
    for (size_t r = 0; r < m->rows; r++) {
        get_row(m, r, row);
        for (size_t c = 0; c < m->cols; c++)
            fprintf(f, "%.*g%c", precision, row[c], c + 1 < m->cols ? ',' : '\n');
    }
}

/* Grey pixels, row 0 at the top: 0 where the entry is not zero, 255 where
 * it is (a NaN is not zero). */
static void pixel_row(const mx_matrix *m, size_t r, double *row, uint8_t *out)
{
    get_row(m, r, row);
    for (size_t c = 0; c < m->cols; c++)
        out[c] = row[c] != 0.0 ? 0 : 255;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8),
    p[3] = (uint8_t)v;
}

static void put_le(uint8_t *p, uint32_t v, int bytes)
{
    for (int k = 0; k < bytes; k++)
        p[k] = (uint8_t)(v >> (8 * k));
}

static void png_chunk(FILE *f, const char *type, const uint8_t *data, size_t n)
{
    uint8_t b[4];
    put_be32(b, (uint32_t)n);
    fwrite(b, 1, 4, f);
    fwrite(type, 1, 4, f);
    if (n)
        fwrite(data, 1, n, f);
    uLong crc = crc32(0L, (const Bytef *)type, 4);
    if (n)
        crc = crc32(crc, data, (uInt)n);
    put_be32(b, (uint32_t)crc);
    fwrite(b, 1, 4, f);
}

/* 8-bit greyscale PNG: each row filter 0, the whole image deflated. */
static st_status write_png(FILE *f, const mx_matrix *m, double *row, st_error *err)
{
    const size_t stride = m->cols + 1, raw_n = stride * m->rows;
    uint8_t *raw = st_malloc(raw_n);
    uLongf z_n = compressBound((uLong)raw_n);
    uint8_t *z = st_malloc(z_n);
    if (!raw || !z) {
        st_free(raw), st_free(z);
        return st_error_set(err, ST_ENOMEM, "out of memory for a %zu x %zu image", m->cols,
                            m->rows);
    }
    for (size_t r = 0; r < m->rows; r++) {
        raw[r * stride] = 0;
        pixel_row(m, r, row, raw + r * stride + 1);
    }
    int zs = compress2(z, &z_n, raw, (uLong)raw_n, Z_DEFAULT_COMPRESSION);
    st_free(raw);
    if (zs != Z_OK) {
        st_free(z);
        return st_error_set(err, ST_EIO, "zlib could not compress the image (%d)", zs);
    }
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    fwrite(sig, 1, 8, f);
    uint8_t ihdr[13];
    put_be32(ihdr, (uint32_t)m->cols);
    put_be32(ihdr + 4, (uint32_t)m->rows);
    ihdr[8] = 8;  /* bits per sample */
    ihdr[9] = 0;  /* greyscale */
    ihdr[10] = 0; /* deflate */
    ihdr[11] = 0; /* adaptive filtering, filter 0 used */
    ihdr[12] = 0; /* no interlace */
    png_chunk(f, "IHDR", ihdr, sizeof ihdr);
    png_chunk(f, "IDAT", z, z_n);
    png_chunk(f, "IEND", NULL, 0);
    st_free(z);
    return ST_OK;
}

/* 24-bit BMP, rows bottom-up and padded to 4 bytes, as stb writes a grey
 * image. */
static st_status write_bmp(FILE *f, const mx_matrix *m, double *row, st_error *err)
{
    const size_t pad = (4 - (m->cols * 3) % 4) % 4, line = m->cols * 3 + pad;
    uint8_t *px = st_malloc(m->cols + 1), *out = st_calloc(line + 1, 1);
    if (!px || !out) {
        st_free(px), st_free(out);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    uint8_t h[54] = {'B', 'M'};
    put_le(h + 2, (uint32_t)(54 + line * m->rows), 4);
    put_le(h + 10, 54, 4);
    put_le(h + 14, 40, 4);
    put_le(h + 18, (uint32_t)m->cols, 4);
    put_le(h + 22, (uint32_t)m->rows, 4);
    put_le(h + 26, 1, 2);
    put_le(h + 28, 24, 2);
    fwrite(h, 1, sizeof h, f);
    for (size_t k = m->rows; k-- > 0;) {
        pixel_row(m, k, row, px);
        for (size_t c = 0; c < m->cols; c++)
            out[3 * c] = out[3 * c + 1] = out[3 * c + 2] = px[c];
        fwrite(out, 1, line, f);
    }
    st_free(px), st_free(out);
    return ST_OK;
}

/* Uncompressed 8-bit greyscale TGA (type 3), origin at the top left. */
static st_status write_tga(FILE *f, const mx_matrix *m, double *row, st_error *err)
{
    uint8_t *px = st_malloc(m->cols + 1);
    if (!px)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    uint8_t h[18] = {0};
    h[2] = 3;
    put_le(h + 12, (uint32_t)m->cols, 2);
    put_le(h + 14, (uint32_t)m->rows, 2);
    h[16] = 8;
    h[17] = 0x20;
    fwrite(h, 1, sizeof h, f);
    for (size_t r = 0; r < m->rows; r++) {
        pixel_row(m, r, row, px);
        fwrite(px, 1, m->cols, f);
    }
    st_free(px);
    return ST_OK;
}

static bool is_image(const char *format)
{
    return !strcmp(format, "png") || !strcmp(format, "bmp") || !strcmp(format, "tga");
}

st_status mx_write_file(const char *path, const char *format, const mx_matrix *m, int precision,
                        st_error *err)
{
    if (is_image(format)) {
        if (!m->rows || !m->cols)
            return st_error_set(err, ST_EINVAL, "%s: the matrix is empty (%zu x %zu): no "
                                                "image to write",
                                path, m->rows, m->cols);
        const size_t limit = !strcmp(format, "tga") ? 65535u : 0x7fffffffu;
        if (m->rows > limit || m->cols > limit)
            return st_error_set(err, ST_EINVAL, "%s: a %zu x %zu matrix is too large for a %s "
                                                "image",
                                path, m->rows, m->cols, format);
    }
    double *row = st_malloc((m->cols + 1) * sizeof *row);
    if (!row)
        return st_error_set(err, ST_ENOMEM, "out of memory");
    out_file o;
    st_status s = out_open(&o, path, err);
    if (s == ST_OK) {
        if (!strcmp(format, "txt"))
            write_txt(o.f, m, row, precision);
        else if (!strcmp(format, "csv"))
            write_csv(o.f, m, row, precision);
        else if (!strcmp(format, "png"))
            s = write_png(o.f, m, row, err);
        else if (!strcmp(format, "bmp"))
            s = write_bmp(o.f, m, row, err);
        else if (!strcmp(format, "tga"))
            s = write_tga(o.f, m, row, err);
        else
            s = st_error_set(err, ST_EINVAL, "%s: no writer for format '%s'", path, format);
        if (s == ST_OK)
            s = out_commit(&o, err);
        else
            out_abort(&o);
    }
    st_free(row);
    return s;
}

st_status mx_export(st_component *c, sim_exporter *ex, const char *format, int precision,
                    const mx_matrix *m, const char *what, st_error *err)
{
    char path[OUT_PATH_MAX];
    const size_t ext = strlen(format) + 2;
    ST_TRY(sim_exporter_path(c, ex, true, path, sizeof path - ext, err));
    strcat(path, ".");
    strcat(path, format);
    if (c->print_log)
        st_component_info(c, "Writing %s in %s", what, path);
    st_status s = mx_write_file(path, format, m, precision, err);
    if (s != ST_OK && err) {
        char cpath[ST_ERROR_PATH_MAX];
        st_error_set_path(err, st_component_path(c, cpath, sizeof cpath));
    }
    return s;
}
