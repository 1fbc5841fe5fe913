/* settee.h - everything a plugin or a program needs. */
#ifndef SETTEE_SETTEE_H
#define SETTEE_SETTEE_H

#include "settee/alloc.h"
#include "settee/check.h"
#include "settee/component.h"
#include "settee/export.h"
#include "settee/field.h"
#include "settee/log.h"
#include "settee/mechanics.h"
#include "settee/node.h"
#include "settee/plugin.h"
#include "settee/reader.h"
#include "settee/registry.h"
#include "settee/roles.h"
#include "settee/runtime.h"
#include "settee/scene.h"
#include "settee/state.h"
#include "settee/status.h"
#include "settee/threads.h"
#include "settee/timer.h"
#include "settee/topology.h"
#include "settee/vec.h"

#endif
