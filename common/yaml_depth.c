/* yaml_depth.c - YAML nesting checked on the event stream, before a
 * document is built (yaml_depth.h). */
#include "yaml_depth.h"

bool yaml_depth_ok(const char *text, size_t len, int max, yaml_mark_t *where, bool *oom)
{
    *oom = false;
    yaml_parser_t p;
    if (!yaml_parser_initialize(&p)) {
        *oom = true;
        return false;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
    int depth = 0;
    bool ok = true, done = false;
    while (ok && !done) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&p, &ev))
            break;
        switch (ev.type) {
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT:
            if (++depth > max) {
                *where = ev.start_mark;
                ok = false;
            }
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            depth--;
            break;
        case YAML_STREAM_END_EVENT:
            done = true;
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    return ok;
}
