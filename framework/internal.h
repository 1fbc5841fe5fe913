/* internal.h - every kernel-internal header, for the test suites, which
 * reach the kernel's internals (test builds export them). Kernel files
 * include only their own layer's header, which includes the layers below:
 * core/core.h < plugin/loader.h, mechanics/mechanics.h <
 * simulation/simulation.h < scenefile/scene_desc.h, builtin/builtin.h
 * (docs/architecture.md). */
#ifndef SETTEE_INTERNAL_H
#define SETTEE_INTERNAL_H

#include "builtin/builtin.h"
#include "scenefile/scene_desc.h"

#endif
