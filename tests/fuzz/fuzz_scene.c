/* fuzz_scene.c - libFuzzer target: a scene read from memory is loaded,
 * initialised and stepped a few times (issue 18). Any outcome but a crash,
 * a sanitizer report, a leak or a hang is fine: errors are values.
 *
 * The input is SOFA XML when its first non-blank byte is '<', settee YAML
 * otherwise; st_scene_load_string picks the front-end from the name it is
 * given. The name places the scene in scenes/ (YAML) or scenes/sofa/ (XML)
 * so that the seed scenes find their meshes and includes.
 *
 * Build and run: see docs/testing.md ("Fuzzing"). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "settee/settee.h"

/* Steps run after a successful init: enough to reach every force field,
 * solver and the per-step checks, few enough to keep an input cheap. */
#define FUZZ_STEPS 3

static st_runtime *runtime;

static void quiet(st_log_level level, const char *where, const char *path, const char *msg,
                  void *ud)
{
    (void)level, (void)where, (void)path, (void)msg, (void)ud;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    setenv("SETTEE_DATA_PATH", SETTEE_SOURCE_DIR "/scenes", 0);
    st_error err = {0};
    if (st_runtime_create(&runtime, &err) != ST_OK) {
        fprintf(stderr, "fuzz_scene: runtime: %s\n", err.msg);
        return 1;
    }
    st_runtime_set_log(runtime, quiet, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t i = 0;
    while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    const char *name = i < size && data[i] == '<' ? SETTEE_SOURCE_DIR "/scenes/sofa/fuzz.scn"
                                                  : SETTEE_SOURCE_DIR "/scenes/fuzz.yaml";
    st_scene *s = NULL;
    st_error err = {0};
    if (st_scene_load_string(runtime, (const char *)data, size, name, &s, &err) == ST_OK &&
        st_scene_init(s, &err) == ST_OK)
        for (int k = 0; k < FUZZ_STEPS && st_scene_step(s, 0.0, &err) == ST_OK; k++)
            ;
    st_scene_destroy(&s);
    return 0;
}
