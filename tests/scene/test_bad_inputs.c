/* test_bad_inputs.c - the catalogue of bad inputs (issue 18): every line of
 * tests/bad/catalogue.tsv runs `settee` on files of tests/bad/ and checks
 * the exit code and a text the output must contain. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#define BAD SETTEE_SOURCE_DIR "/tests/bad"
#define TDIR SETTEE_TEST_PLUGIN_DIR

static char tmp[512];

/* Copies the first `limit` bytes of src (all when 0) to dst. */
static void copy_file(const char *src, const char *dst, size_t limit)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    cr_assert(in && out, "%s -> %s", src, dst);
    char buf[65536];
    size_t n, total = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0 && (!limit || total < limit)) {
        if (limit && total + n > limit)
            n = limit - total;
        fwrite(buf, 1, n, out);
        total += n;
    }
    fclose(in);
    fclose(out);
}

/* {tmp}: the plugin folders the catalogue's plugin cases use. */
static void prepare(void)
{
    snprintf(tmp, sizeof tmp, "%s/settee-bad-%d", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid());
    char p[700];
    static const char *const dirs[] = {"", "/damaged", "/liar", "/second"};
    for (size_t i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s%s", tmp, dirs[i]);
        mkdir(p, 0700);
    }
    snprintf(p, sizeof p, "%s/damaged/libTestBroken.so", tmp);
    copy_file(TDIR "/libTestGood.so", p, 9000);
    snprintf(p, sizeof p, "%s/liar/libMass.so", tmp);
    copy_file(TDIR "/libTestGood.so", p, 0);
    snprintf(p, sizeof p, "%s/second/libTestGood.so", tmp);
    copy_file(TDIR "/libTestGood.so", p, 0);
}

/* Replaces {bad}, {tmp} and {plugins} in s. */
static void expand(const char *s, char *out, size_t size)
{
    static const struct {
        const char *key, *value;
    } subs[] = {{"{bad}", BAD}, {"{tmp}", tmp}, {"{plugins}", TDIR}};
    size_t n = 0;
    while (*s && n + 1 < size) {
        size_t k = 0;
        while (k < 3 && strncmp(s, subs[k].key, strlen(subs[k].key)))
            k++;
        if (k < 3) {
            n += (size_t)snprintf(out + n, size - n, "%s", subs[k].value);
            s += strlen(subs[k].key);
        } else {
            out[n++] = *s++;
        }
    }
    out[n < size ? n : size - 1] = 0;
}

Test(bad_inputs, catalogue, .timeout = 300)
{
    prepare();
    char *table = test_read_file(BAD "/catalogue.tsv");
    cr_assert_not_null(table);
    int cases = 0;
    for (char *line = strtok(table, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || !line[0])
            continue;
        char *msg = strchr(line, '\t'), *args = msg ? strchr(msg + 1, '\t') : NULL;
        cr_assert(msg && args, "catalogue line without three fields: %s", line);
        *msg++ = 0;
        *args++ = 0;
        char want[2048], cmd[8192];
        static char out[1 << 16];
        expand(msg, want, sizeof want);
        char expanded[4096];
        expand(args, expanded, sizeof expanded);
        snprintf(cmd, sizeof cmd, "'%s' %s", SETTEE_CLI, expanded);
        int code = test_run(cmd, out, sizeof out);
        cr_expect_eq(code, atoi(line), "settee %s: exit %d, expected %s\n%s", expanded, code, line,
                     out);
        cr_expect(strstr(out, want), "settee %s: the output lacks\n  %s\n%s", expanded, want, out);
        cases++;
    }
    cr_assert_gt(cases, 25);
    free(table);
    char rm[700];
    snprintf(rm, sizeof rm, "rm -rf '%s'", tmp);
    cr_expect_eq(system(rm), 0);
}
