/* no_descriptor.c - test plugin "TestNoDescriptor": a valid shared object
 * that exports no st_plugin_descriptor. */
#include <settee/settee.h>

ST_API int test_no_descriptor_answer(void);
ST_API int test_no_descriptor_answer(void) { return 42; }
