/* xml_prescan.c - one linear pass over XML text before parsing it
 * (xml_prescan.h). It only counts: '=' outside quotes inside a start tag
 * (one per attribute), and declarations that start with "<!DOCTYPE" or
 * "<!ENTITY"; comments, CDATA sections and processing instructions are
 * skipped whole. */
#include "xml_prescan.h"

#include <string.h>

/* Advances *i past the first occurrence of end (or to len). */
static void skip_past(const char *t, size_t len, size_t *i, const char *end, int *line,
                      size_t *line_start)
{
    size_t n = strlen(end);
    while (*i < len) {
        if (len - *i >= n && !memcmp(t + *i, end, n)) {
            *i += n;
            return;
        }
        if (t[*i] == '\n') {
            (*line)++;
            *line_start = *i + 1;
        }
        (*i)++;
    }
}

bool xml_prescan_text(const char *t, size_t len, size_t max_attrs, xml_prescan *out)
{
    memset(out, 0, sizeof *out);
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < len;) {
        if (t[i] == '\n') {
            line++;
            line_start = ++i;
            continue;
        }
        if (t[i] != '<') {
            i++;
            continue;
        }
        int tag_line = line, tag_col = (int)(i - line_start) + 1;
        const char *s = t + i;
        size_t left = len - i;
        if (left >= 4 && !memcmp(s, "<!--", 4)) {
            i += 4;
            skip_past(t, len, &i, "-->", &line, &line_start);
        } else if (left >= 9 && !memcmp(s, "<![CDATA[", 9)) {
            i += 9;
            skip_past(t, len, &i, "]]>", &line, &line_start);
        } else if (left >= 2 && s[1] == '?') {
            i += 2;
            skip_past(t, len, &i, "?>", &line, &line_start);
        } else if (left >= 2 && s[1] == '!') {
            if (!out->dtd_line && ((left >= 9 && !memcmp(s, "<!DOCTYPE", 9)) ||
                                   (left >= 8 && !memcmp(s, "<!ENTITY", 8)))) {
                out->dtd_line = tag_line;
                out->dtd_col = tag_col;
            }
            i += 2;
        } else {
            /* a start or end tag: '=' outside quotes, up to its '>' */
            size_t attrs = 0;
            char quote = 0;
            for (i++; i < len && (quote || t[i] != '>'); i++) {
                if (t[i] == '\n') {
                    line++;
                    line_start = i + 1;
                } else if (quote) {
                    quote = t[i] == quote ? 0 : quote;
                } else if (t[i] == '"' || t[i] == '\'') {
                    quote = t[i];
                } else if (t[i] == '=') {
                    attrs++;
                } else if (t[i] == '<') {
                    break; /* not well-formed: libxml2 says where */
                }
            }
            if (attrs > max_attrs && !out->attrs_line) {
                out->attrs_line = tag_line;
                out->attrs_col = tag_col;
            }
        }
    }
    return !out->attrs_line && !out->dtd_line;
}
