#include "scene_desc.h"
void st__xml_read(st_scene *s, const char *file, const char *text, size_t len, st_desc *d,
                  st_report *r)
{
    (void)s; (void)text; (void)len; (void)d;
    st__report_at(r, ST_ESCENE, (st_mark){file, 1, 1}, NULL, "XML: not yet");
}
