/* xml_prescan.h - a linear pass over XML text before libxml2 reads it, for
 * what libxml2 would spend unbounded time on: an element with tens of
 * thousands of attributes (its duplicate check is quadratic) and document
 * type declarations (entity expansion: "billion laughs"). Compiled into
 * libsettee (the scene reader) and IO.Mesh (the .vtu reader); plugins/shared
 * is not a plugin itself. */
#ifndef SETTEE_SHARED_XML_PRESCAN_H
#define SETTEE_SHARED_XML_PRESCAN_H

#include <stdbool.h>
#include <stddef.h>

/* What the pass found first (line and column 1-based; 0 when nothing). */
typedef struct xml_prescan {
    int attrs_line, attrs_col; /* an element with more than max_attrs attributes */
    int dtd_line, dtd_col;     /* "<!DOCTYPE" or "<!ENTITY" outside comments */
} xml_prescan;

/* Scans text[0..len) once; returns true when nothing was found. */
bool xml_prescan_text(const char *text, size_t len, size_t max_attrs, xml_prescan *out);

#endif
