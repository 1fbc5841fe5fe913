/* matrix_export.c - SOFA's matrix writers (see matrix_export.h). */
#include <math.h>
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
    return st_options_check(c, format_table, err);
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

/* ---- JPEG: baseline, one grey component, the standard tables (ITU T.81
 * Annex K) scaled to quality 1 as SOFA's stb writer ends up with (SOFA
 * passes -1, which stb clamps to 1: every quantiser is 50 times the
 * table's, at most 255). The block edges repeat the last row and column. */

#define JPEG_QUALITY 1

/* Natural (row-major) index of the k-th coefficient in zig-zag order. */
static const uint8_t zz_natural[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63};
/* The luminance quantisation table, row-major. */
static const uint8_t luma_q[64] = {
    16, 11, 10, 16, 24,  40,  51,  61,  12, 12, 14, 19, 26,  58,  60,  55,
    14, 13, 16, 24, 40,  57,  69,  56,  14, 17, 22, 29, 51,  87,  80,  62,
    18, 22, 37, 56, 68,  109, 103, 77,  24, 35, 55, 64, 81,  104, 113, 92,
    49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99};
/* Huffman tables: number of codes of each length 1..16, then the symbols. */
static const uint8_t dc_bits[16] = {0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0};
static const uint8_t dc_vals[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
static const uint8_t ac_bits[16] = {0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d};
static const uint8_t ac_vals[162] = {
    0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61,
    0x07, 0x22, 0x71, 0x14, 0x32, 0x81, 0x91, 0xa1, 0x08, 0x23, 0x42, 0xb1, 0xc1, 0x15, 0x52,
    0xd1, 0xf0, 0x24, 0x33, 0x62, 0x72, 0x82, 0x09, 0x0a, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x25,
    0x26, 0x27, 0x28, 0x29, 0x2a, 0x34, 0x35, 0x36, 0x37, 0x38, 0x39, 0x3a, 0x43, 0x44, 0x45,
    0x46, 0x47, 0x48, 0x49, 0x4a, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59, 0x5a, 0x63, 0x64,
    0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7a, 0x83,
    0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8a, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99,
    0x9a, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6,
    0xb7, 0xb8, 0xb9, 0xba, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7, 0xc8, 0xc9, 0xca, 0xd2, 0xd3,
    0xd4, 0xd5, 0xd6, 0xd7, 0xd8, 0xd9, 0xda, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7, 0xe8,
    0xe9, 0xea, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7, 0xf8, 0xf9, 0xfa};

typedef struct huff {
    uint16_t code[256];
    uint8_t len[256];
} huff;

/* Canonical codes from the counts per length. */
static void huff_build(huff *h, const uint8_t bits[16], const uint8_t *vals)
{
    unsigned code = 0, k = 0;
    for (int l = 1; l <= 16; l++) {
        for (unsigned i = 0; i < bits[l - 1]; i++, k++) {
            h->code[vals[k]] = (uint16_t)code++;
            h->len[vals[k]] = (uint8_t)l;
        }
        code <<= 1;
    }
}

typedef struct bitw {
    FILE *f;
    uint32_t acc;
    int n;
} bitw;

static void put_bits(bitw *b, unsigned code, int len)
{
    b->acc = (b->acc << len) | (code & ((1u << len) - 1));
    b->n += len;
    while (b->n >= 8) {
        const int byte = (int)(b->acc >> (b->n - 8)) & 0xff;
        fputc(byte, b->f);
        if (byte == 0xff)
            fputc(0, b->f); /* stuffing */
        b->n -= 8;
    }
}

/* Category (bit count) and the value's bits as JPEG codes them. */
static int magnitude(int v, unsigned *bits)
{
    int a = v < 0 ? -v : v, n = 0;
    while (a >> n)
        n++;
    *bits = v < 0 ? (unsigned)(v - 1) : (unsigned)v;
    return n;
}

static void jpeg_block(bitw *b, const double in[64], const double *q, int *dc_prev,
                       const huff *dc, const huff *ac)
{
    static double cosines[8][8];
    static bool ready;
    if (!ready) {
        for (int x = 0; x < 8; x++)
            for (int u = 0; u < 8; u++)
                cosines[x][u] = cos((2 * x + 1) * u * 3.14159265358979323846 / 16.0);
        ready = true;
    }
    int coef[64];
    for (int v = 0; v < 8; v++)
        for (int u = 0; u < 8; u++) {
            double sum = 0;
            for (int y = 0; y < 8; y++)
                for (int x = 0; x < 8; x++)
                    sum += in[8 * y + x] * cosines[x][u] * cosines[y][v];
            const double cu = u ? 1.0 : 1.0 / sqrt(2.0), cv = v ? 1.0 : 1.0 / sqrt(2.0);
            coef[8 * v + u] = (int)lround(0.25 * cu * cv * sum / q[8 * v + u]);
        }
    unsigned bits;
    const int diff = coef[0] - *dc_prev;
    *dc_prev = coef[0];
    int n = magnitude(diff, &bits);
    put_bits(b, dc->code[n], dc->len[n]);
    if (n)
        put_bits(b, bits, n);
    int run = 0;
    for (int k = 1; k < 64; k++) {
        const int c = coef[zz_natural[k]];
        if (!c) {
            run++;
            continue;
        }
        for (; run >= 16; run -= 16)
            put_bits(b, ac->code[0xf0], ac->len[0xf0]);
        n = magnitude(c, &bits);
        const int sym = run << 4 | n;
        put_bits(b, ac->code[sym], ac->len[sym]);
        put_bits(b, bits, n);
        run = 0;
    }
    if (run)
        put_bits(b, ac->code[0], ac->len[0]);
}

static void put_marker(FILE *f, int marker, const uint8_t *data, size_t n)
{
    fputc(0xff, f);
    fputc(marker, f);
    fputc((int)((n + 2) >> 8), f);
    fputc((int)((n + 2) & 0xff), f);
    fwrite(data, 1, n, f);
}

static st_status write_jpeg(FILE *f, const mx_matrix *m, double *row, st_error *err)
{
    const size_t bw = (m->cols + 7) / 8, bh = (m->rows + 7) / 8;
    uint8_t *px = st_malloc(8 * bw * 8 + 1);
    huff *h = st_calloc(2, sizeof *h);
    if (!px || !h) {
        st_free(px), st_free(h);
        return st_error_set(err, ST_ENOMEM, "out of memory");
    }
    huff_build(&h[0], dc_bits, dc_vals);
    huff_build(&h[1], ac_bits, ac_vals);
    const int scale = JPEG_QUALITY < 50 ? 5000 / JPEG_QUALITY : 200 - 2 * JPEG_QUALITY;
    double q[64];
    uint8_t dqt[65] = {0};
    for (int i = 0; i < 64; i++) {
        int v = (luma_q[i] * scale + 50) / 100;
        v = v < 1 ? 1 : v > 255 ? 255 : v;
        q[i] = v;
    }
    for (int k = 0; k < 64; k++)
        dqt[1 + k] = (uint8_t)q[zz_natural[k]];
    fputc(0xff, f), fputc(0xd8, f); /* SOI */
    static const uint8_t jfif[14] = {'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0};
    put_marker(f, 0xe0, jfif, sizeof jfif);
    put_marker(f, 0xdb, dqt, sizeof dqt);
    const uint8_t sof[9] = {8, (uint8_t)(m->rows >> 8), (uint8_t)m->rows, (uint8_t)(m->cols >> 8),
                            (uint8_t)m->cols, 1, 1, 0x11, 0};
    put_marker(f, 0xc0, sof, sizeof sof);
    uint8_t dht[1 + 16 + 12 + 1 + 16 + 162];
    size_t n = 0;
    dht[n++] = 0x00;
    memcpy(dht + n, dc_bits, 16), n += 16;
    memcpy(dht + n, dc_vals, 12), n += 12;
    dht[n++] = 0x10;
    memcpy(dht + n, ac_bits, 16), n += 16;
    memcpy(dht + n, ac_vals, 162), n += 162;
    put_marker(f, 0xc4, dht, n);
    static const uint8_t sos[6] = {1, 1, 0x00, 0, 63, 0};
    put_marker(f, 0xda, sos, sizeof sos);
    bitw b = {.f = f};
    int dc_prev = 0;
    for (size_t by = 0; by < bh; by++) {
        /* eight rows of pixels, the last row and column repeated */
        for (size_t y = 0; y < 8; y++) {
            const size_t r = 8 * by + y < m->rows ? 8 * by + y : m->rows - 1;
            uint8_t *line = px + y * 8 * bw;
            pixel_row(m, r, row, line);
            for (size_t x = m->cols; x < 8 * bw; x++)
                line[x] = line[m->cols - 1];
        }
        for (size_t bx = 0; bx < bw; bx++) {
            double in[64];
            for (int y = 0; y < 8; y++)
                for (int x = 0; x < 8; x++)
                    in[8 * y + x] = px[(size_t)y * 8 * bw + 8 * bx + (size_t)x] - 128.0;
            jpeg_block(&b, in, q, &dc_prev, &h[0], &h[1]);
        }
    }
    if (b.n)
        put_bits(&b, 0x7f, 8 - b.n); /* pad with ones */
    fputc(0xff, f), fputc(0xd9, f); /* EOI */
    st_free(px), st_free(h);
    return ST_OK;
}

static bool is_image(const char *format)
{
    return !strcmp(format, "png") || !strcmp(format, "bmp") || !strcmp(format, "tga") ||
           !strcmp(format, "jpg") || !strcmp(format, "jpeg");
}

st_status mx_write_file(const char *path, const char *format, const mx_matrix *m, int precision,
                        st_error *err)
{
    if (is_image(format)) {
        if (!m->rows || !m->cols)
            return st_error_set(err, ST_EINVAL, "%s: the matrix is empty (%zu x %zu): no "
                                                "image to write",
                                path, m->rows, m->cols);
        const size_t limit = strcmp(format, "png") && strcmp(format, "bmp") ? 65535u : 0x7fffffffu;
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
        else if (!strcmp(format, "jpg") || !strcmp(format, "jpeg"))
            s = write_jpeg(o.f, m, row, err);
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

void mx_event(st_component *c, sim_exporter *ex, bool *fresh, st_event ev, sim_write_fn snapshot,
              sim_write_fn write)
{
    if (ev == ST_EVENT_ANIMATE_END && ex->enable && ex->at_end && c->state == ST_CSTATE_VALID) {
        st_error err = {0};
        if (snapshot(c, &err) != ST_OK)
            out_log_error(c, &err);
        else
            *fresh = true;
    }
    sim_exporter_event(c, ex, ev, write);
    *fresh = false;
}
