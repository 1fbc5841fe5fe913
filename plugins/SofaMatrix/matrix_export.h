/* matrix_export.h - what SofaMatrix's two exporters share
 * (GlobalSystemMatrixExporter, ComplianceMatrixExporter): SOFA's
 * BaseSimulationExporter fields and events (plugins/shared/sim_exporter.h),
 * the fields "format" and "precision", and SOFA's matrix writers:
 *   txt   the BaseMatrix stream: "[", then each row as "\n[" and " v" per
 *         entry and " ]", then " ]" (no final newline); entries as C++
 *         streams print them with setprecision(precision) (printf's %.*g)
 *   csv   each row's entries joined by ',', each row ended by '\n'
 *   png, bmp, tga  a grey image as wide as the matrix has columns and as
 *         tall as it has rows, row 0 at the top: black where the entry is
 *         not zero, white where it is (precision unused)
 *   jpg, jpeg  the same image as a baseline greyscale JPEG at quality 1, the
 *         quality SOFA's stb writer ends up with (lossy: the file decodes
 *         to SOFA's within the JPEG's rounding, not byte for byte: stb
 *         writes three subsampled YCbCr components)
 * The file is the target path (SOFA's getOrCreateTargetPath: filename, the
 * step number / exportEveryNumberOfSteps in 5 digits when that is not 0)
 * and "." format. */
#ifndef SETTEE_SOFAMATRIX_MATRIX_EXPORT_H
#define SETTEE_SOFAMATRIX_MATRIX_EXPORT_H

#include <settee/settee.h>

#include "../shared/sim_exporter.h"

/* A matrix to write: rows x cols, either dense (row-major) or csr (square,
 * csr->n rows). */
typedef struct mx_matrix {
    size_t rows, cols;
    const double *dense;
    const st_csr *csr;
} mx_matrix;

/* The exporter part of a component S whose members are `ex` (sim_exporter),
 * `format` (char *) and `precision` (int). */
#define MX_EXPORTER_FIELDS(S)                                                                     \
    SIM_EXPORTER_FIELDS(S),                                                                       \
        ST_STRING(S, format, "format", "txt",                                                     \
                  "File format (txt, csv, png, jpg, jpeg, bmp, tga)"),                            \
        ST_INT(S, precision, "precision", "6",                                                    \
               "Number of digits used to write an entry of the matrix, default is 6")

/* Checks "format" (an item's name or its index, as SOFA's OptionsGroup). */
st_status mx_check_format(st_component *c, st_error *err);

/* Writes m in c's format to the exporter's next target path; logs the
 * file's name with printLog ("Writing <what> in <file>"). */
st_status mx_export(st_component *c, sim_exporter *ex, const char *format, int precision,
                    const mx_matrix *m, const char *what, st_error *err);

/* The events of an exporter that keeps its matrix (snapshot) for
 * exportAtEnd: at the end of each step with exportAtEnd, snapshot (fresh
 * is then true during the write that may follow), then SOFA's exporter
 * events with write. */
void mx_event(st_component *c, sim_exporter *ex, bool *fresh, st_event ev, sim_write_fn snapshot,
              sim_write_fn write);

/* The writers, for a given file name. */
st_status mx_write_file(const char *path, const char *format, const mx_matrix *m, int precision,
                        st_error *err);

#endif
