/* fuzz_reader.c - libFuzzer targets for the file readers (issue 32): the
 * input is written to a file that one component of a small scene reads at
 * init. Compiled once per reader, the reader chosen by FUZZ_READER:
 *   1 fuzz_vtu       MeshVTKLoader on a .vtu (VTK XML, libxml2, base64, zlib)
 *   2 fuzz_gmsh      MeshGmshLoader on a .msh (formats 1, 2 and 4.1)
 *   3 fuzz_readstate ReadState on a plain state file, then 3 steps
 *   4 fuzz_gzip      CompareState on a .gz state file (zlib's gzip reader)
 *   5 fuzz_bvh       ArticulatedHierarchyContainer on a .bvh motion file, played
 *                    by ArticulatedHierarchyBVHController onto a mapped body chain
 * Any outcome but a crash, a sanitizer report, a leak or a hang is fine.
 * Build and run: see docs/testing.md ("Fuzzing"). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "settee/settee.h"

#if FUZZ_READER == 1
#define FUZZ_EXT ".vtu"
#define FUZZ_OBJECT "MeshVTKLoader: {name: r, filename: '%s'}"
#elif FUZZ_READER == 2
#define FUZZ_EXT ".msh"
#define FUZZ_OBJECT "MeshGmshLoader: {name: r, filename: '%s'}"
#elif FUZZ_READER == 3
#define FUZZ_EXT ".txt"
#define FUZZ_OBJECT "ReadState: {name: r, filename: '%s'}"
#elif FUZZ_READER == 4
#define FUZZ_EXT ".txt.gz"
#define FUZZ_OBJECT "CompareState: {name: r, filename: '%s'}"
#elif FUZZ_READER == 5
#define FUZZ_EXT ".bvh"
#define FUZZ_STATE "MechanicalObject: {name: dofs, template: Vec1d}"
#define FUZZ_OBJECT                                                                               \
    "ArticulatedHierarchyContainer: {name: r, filename: '%s'}\n"                                  \
    "    - ArticulatedHierarchyBVHController: {}\n"                                               \
    "  children:\n"                                                                               \
    "    - name: B\n"                                                                             \
    "      objects:\n"                                                                            \
    "        - MechanicalObject: {name: bodies, template: Rigid3d}\n"                             \
    "        - ArticulatedSystemMapping: {input1: '@../dofs', output: '@bodies'}"
#else
#error "FUZZ_READER must be 1 to 5"
#endif
#ifndef FUZZ_STATE
#define FUZZ_STATE "MechanicalObject: {name: dofs, position: [0, 0, 0, 1, 0, 0, 0, 1, 0]}"
#endif

static st_runtime *runtime;
static char file[512];   /* the input, rewritten for each run */
static char scene[2048]; /* the scene that reads it */

static void quiet(st_log_level level, const char *where, const char *path, const char *msg,
                  void *ud)
{
    (void)level, (void)where, (void)path, (void)msg, (void)ud;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void remove_file(void) { unlink(file); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    atexit(remove_file);
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(file, sizeof file, "%s/settee-fuzz-%d" FUZZ_EXT, tmp, (int)getpid());
    snprintf(scene, sizeof scene,
             "format: settee/1\nroot:\n  name: root\n  dt: 0.01\n  objects:\n"
             "    - RequiredPlugin: {pluginName: [IO.Mesh, Playback, ArticulatedSystemPlugin]}\n"
             "    - " FUZZ_STATE "\n"
             "    - " FUZZ_OBJECT "\n",
             file);
    st_error err = {0};
    if (st_runtime_create(&runtime, &err) != ST_OK) {
        fprintf(stderr, "fuzz_reader: runtime: %s\n", err.msg);
        return 1;
    }
    st_runtime_set_log(runtime, quiet, NULL);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(file, "wb");
    if (!f)
        return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    st_scene *s = NULL;
    st_error err = {0};
    if (st_scene_load_string(runtime, scene, strlen(scene), "fuzz.yaml", &s, &err) == ST_OK &&
        st_scene_init(s, &err) == ST_OK)
        for (int k = 0; k < 3 && st_scene_step(s, 0.0, &err) == ST_OK; k++)
            ;
    st_scene_destroy(&s);
    return 0;
}
