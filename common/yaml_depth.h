/* yaml_depth.h - a pass over a YAML event stream that refuses nesting deeper
 * than a limit before libyaml builds a document (building one of 10^5 nested
 * lists takes it minutes). Compiled into libsettee (scenes) and the settee
 * program (sweep plans); plugins/shared is not a plugin itself. */
#ifndef SETTEE_SHARED_YAML_DEPTH_H
#define SETTEE_SHARED_YAML_DEPTH_H

#include <stdbool.h>
#include <stddef.h>

#include <yaml.h>

/* Parses text[0..len) event by event. Returns false when a sequence or
 * mapping opens deeper than max (its position in *where) or libyaml cannot
 * start (*oom set). A syntax error ends the pass with true: the load that
 * follows reports it. */
bool yaml_depth_ok(const char *text, size_t len, int max, yaml_mark_t *where, bool *oom);

#endif
