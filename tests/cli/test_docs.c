/* test_docs.c - the documentation tells the truth: the README's usage block
 * names every option of every command (and none that does not exist), its
 * sample error is what settee prints for its own example, each plugin's
 * description names either none of its components or all of them (and no
 * other) and declares the README's license, docs/from-sofa.md lists as missing only what no plugin has, the
 * docs cite nothing a reader does not have, and every snippet of
 * docs/tutorial.md runs (files written, commands run, outputs compared). */
#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

#define CLI SETTEE_CLI
#define SRC SETTEE_SOURCE_DIR

static char out[1 << 20];

static char *read_doc(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", SRC, rel);
    char *text = test_read_file(path);
    cr_assert_not_null(text, "cannot read %s", path);
    return text;
}

/* The body of the fenced block whose info string is exactly info, as a
 * new string (free it), or NULL. */
static char *doc_block(const char *text, const char *info)
{
    char fence[256];
    snprintf(fence, sizeof fence, "```%s\n", info);
    const char *p = strstr(text, fence);
    if (!p)
        return NULL;
    p += strlen(fence);
    const char *end = strstr(p, "```");
    if (!end)
        return NULL;
    return strndup(p, (size_t)(end - p));
}

/* ---- README ---- */

Test(docs, readme_sample_error_is_what_settee_prints)
{
    char *readme = read_doc("README.md");
    char *yaml = doc_block(readme, "yaml");
    char *want = doc_block(readme, "text check-error");
    cr_assert(yaml && want, "README needs its ```yaml scene and its ```text check-error block");
    /* the README's scene runs as it is */
    const char *good = test_write_temp("readme.yaml", yaml);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' run '%s' -n 10", CLI, good);
    cr_assert_eq(test_run(cmd, out, sizeof out), 0, "%s", out);
    /* and misspelt, gives the README's error */
    char *p = strstr(yaml, "position:");
    cr_assert_not_null(p);
    memcpy(p, "positon: ", 9);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/readme", getenv("TMPDIR"));
    mkdir(dir, 0777);
    char path[1100];
    snprintf(path, sizeof path, "%s/scene.yaml", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(yaml, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "cd '%s' && NO_COLOR=1 '%s' check scene.yaml", dir, CLI);
    cr_assert_eq(test_run(cmd, out, sizeof out), 1, "%s", out);
    cr_assert_str_eq(out, want, "README's sample error is stale; settee prints:\n%s", out);
    free(readme), free(yaml), free(want);
}

/* The README's test command is the one CI runs, and the README and
 * docs/writing-a-plugin.md build the install the same way. */
Test(docs, readme_commands_agree_with_ci_and_the_plugin_guide)
{
    char *readme = read_doc("README.md");
    char *ci = read_doc(".ci/run");
    const char *cmd = strstr(readme, "bash scripts/deps.sh && cmake -S . -B build-test");
    cr_assert_not_null(cmd, "README has no test command");
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)strcspn(cmd, "\n"), cmd);
    cr_assert(strstr(ci, line), ".ci/run does not run the README's test command:\n%s", line);
    char *guide = read_doc("docs/writing-a-plugin.md");
    char *a = doc_block(readme, "sh install"), *b = doc_block(guide, "sh install");
    cr_assert(a && b, "README and docs/writing-a-plugin.md need a ```sh install block");
    cr_assert_str_eq(a, b, "README and docs/writing-a-plugin.md install settee differently");
    char *embedding = read_doc("docs/embedding.md"), *c = doc_block(embedding, "sh install");
    cr_assert(c, "docs/embedding.md needs a ```sh install block");
    cr_assert_str_eq(a, c, "README and docs/embedding.md install settee differently");
    free(c), free(embedding);
    free(a), free(b), free(guide), free(ci), free(readme);
}

/* The options of a command's help: "  -x, --long ARG   text" lines. */
static size_t help_options(const char *cmd, char opts[][64], size_t max)
{
    char line[4096];
    snprintf(line, sizeof line, "'%s' help %s", CLI, cmd);
    cr_assert_eq(test_run(line, out, sizeof out), 0, "%s", out);
    size_t n = 0;
    for (const char *p = out; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (strncmp(p, "  -", 3))
            continue;
        const char *q = p + 2;
        while (*q == '-' && n < max) {
            size_t k = strcspn(q, " ,=\n");
            snprintf(opts[n++], 64, "%.*s", (int)k, q);
            q += k;
            if (*q == ',')
                q += 2;
            else
                break;
        }
    }
    return n;
}

/* The lines of the README's usage block that describe cmd. */
static char *usage_of(const char *usage, const char *cmd)
{
    char head[64];
    snprintf(head, sizeof head, "settee %s", cmd);
    const char *p = strstr(usage, head);
    cr_assert_not_null(p, "README's usage block has no '%s'", head);
    const char *end = strstr(p + 1, "\nsettee ");
    return strndup(p, end ? (size_t)(end - p) : strlen(p));
}

Test(docs, readme_usage_names_every_option)
{
    char *readme = read_doc("README.md");
    char *usage = doc_block(readme, "text usage");
    cr_assert_not_null(usage, "README needs a ```text usage block");
    const char *cmds[] = {"run", "check", "inspect", "convert", "sweep"};
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        char opts[64][64];
        size_t n = help_options(cmds[i], opts, 64);
        cr_assert(n >= 2, "settee help %s lists no options", cmds[i]);
        char *u = usage_of(usage, cmds[i]);
        /* every option of the help is in the README ... */
        for (size_t k = 0; k < n; k++) {
            if (!strcmp(opts[k], "-h") || !strcmp(opts[k], "--help"))
                continue;
            char word[80];
            snprintf(word, sizeof word, "%s", opts[k]);
            const char *hit = u;
            bool found = false;
            while (!found && (hit = strstr(hit, word))) {
                char c = hit[strlen(word)];
                found = !isalnum((unsigned char)c) && c != '-';
                hit++;
            }
            /* a long option may stand for its short form and vice versa */
            bool pair = false;
            if (!found && k + 1 < n && opts[k][1] != '-' && opts[k + 1][1] == '-')
                pair = strstr(u, opts[k + 1]) != NULL;
            if (!found && k > 0 && opts[k][1] == '-' && opts[k - 1][1] != '-')
                pair = strstr(u, opts[k - 1]) != NULL;
            cr_assert(found || pair, "README's usage of '%s' lacks %s:\n%s", cmds[i], opts[k], u);
        }
        /* ... and every option of the README is in the help */
        for (const char *p = u; *p;) {
            size_t k = strcspn(p, " []|=\n");
            if (k > 1 && p[0] == '-' && (isalpha((unsigned char)p[1]) || p[1] == '-')) {
                char word[80];
                snprintf(word, sizeof word, "%.*s", (int)k, p);
                bool known = false;
                for (size_t j = 0; j < n && !known; j++)
                    known = !strcmp(opts[j], word);
                cr_assert(known, "README's usage of '%s' names %s, which settee help %s does "
                          "not know", cmds[i], word, cmds[i]);
            }
            p += k ? k : 1;
        }
        free(u);
    }
    free(readme), free(usage);
}

/* ---- plugin descriptions ---- */

/* A runtime with every plugin of the build loaded. */
static void open_all_plugins(test_rt *t)
{
    test_rt_open(t);
    st_error err = {0};
    cr_assert_eq(st_runtime_add_plugin_path(t->rt, SETTEE_BUILD_PLUGIN_DIR, &err), ST_OK, "%s",
                 err.msg);
    cr_assert_eq(st_runtime_load_all_plugins(t->rt, &err), ST_OK, "%s", err.msg);
}

/* True when word occurs in text as a whole word (or a '*' pattern of the
 * description matches it: "Ogl*Variable"). */
static bool names(const char *desc, const char *cls)
{
    size_t n = strlen(cls);
    for (const char *p = desc; (p = strstr(p, cls)); p++) {
        /* a class name is a C-like identifier: BeamLinearMapping does not
         * name BeamLinearMapping_mt */
        bool left = p == desc || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool right = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (left && right)
            return true;
    }
    return false;
}

Test(docs, plugin_descriptions_match_what_they_register)
{
    test_rt t;
    open_all_plugins(&t);
    st_registry *reg = st_runtime_registry(t.rt);
    size_t np = st_runtime_plugin_count(t.rt);
    cr_assert(np > 10);
    for (size_t i = 0; i < np; i++) {
        const st_plugin_info *pi = st_runtime_plugin(t.rt, i);
        const st_class *cls[512];
        size_t nc = st_runtime_plugin_classes(t.rt, pi->name, cls, 512);
        cr_assert(nc > 0 && nc <= 512, "%s", pi->name);
        /* classes of any plugin it names */
        size_t named_own = 0;
        for (size_t k = 0; k < st_registry_count(reg); k++) {
            const st_class *c = st_registry_class(reg, k);
            if (!names(pi->description, c->name))
                continue;
            const char *owner = st_registry_class_plugin(reg, c);
            cr_assert(owner && !strcmp(owner, pi->name),
                      "plugin %s's description names %s, which %s registers: \"%s\"", pi->name,
                      c->name, owner ? owner : "(none)", pi->description);
            named_own++;
        }
        cr_assert_str_eq(pi->license, "LGPL-2.1-or-later",
                         "plugin %s declares '%s', not the README's license", pi->name, pi->license);
        if (!named_own || strstr(pi->description, "...") || strstr(pi->description, "e.g."))
            continue; /* names none, or says its list is partial */
        for (size_t k = 0; k < nc; k++)
            cr_assert(names(pi->description, cls[k]->name),
                      "plugin %s's description names some of its components but not %s: \"%s\" "
                      "(name all, none, or end the list with '...')",
                      pi->name, cls[k]->name, pi->description);
    }
    test_rt_close(&t);
}

/* ---- citations ---- */

Test(docs, docs_cite_only_what_readers_have)
{
    const char *files[] = {"README.md", "docs/architecture.md", "docs/performance.md",
                           "docs/plugins.md", "docs/results.md", "docs/scene-format.md",
                           "docs/solvers.md", "docs/sweeps.md", "docs/testing.md",
                           "docs/writing-a-plugin.md", "docs/tutorial.md", "docs/from-sofa.md",
                           "docs/embedding.md"};
    const char *banned[] = {"sofa-notes", "../shared/", "seed 0", "/work/"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *text = read_doc(files[i]);
        for (size_t k = 0; k < sizeof banned / sizeof banned[0]; k++)
            cr_assert(!strstr(text, banned[k]), "%s cites '%s', which readers do not have",
                      files[i], banned[k]);
        free(text);
    }
}

/* ---- docs/tutorial.md: every snippet runs ---- */

/* True when line matches pattern, where "..." in pattern stands for any text. */
static bool line_matches(const char *line, size_t len, const char *pat, size_t plen)
{
    const char *dots = NULL;
    for (size_t i = 0; i + 3 <= plen; i++)
        if (!memcmp(pat + i, "...", 3)) {
            dots = pat + i;
            break;
        }
    if (!dots)
        return len == plen && !memcmp(line, pat, len);
    size_t head = (size_t)(dots - pat);
    if (len < head || memcmp(line, pat, head))
        return false;
    const char *rest = dots + 3;
    size_t rlen = plen - head - 3;
    for (size_t k = head; k <= len; k++)
        if (line_matches(line + k, len - k, rest, rlen))
            return true;
    return false;
}

/* The expected block against the output: without "..." they are equal; with
 * it, the expected lines match the output lines one for one, in order, where
 * "..." inside a line stands for any text and a line "..." alone for any
 * number of lines. A printed line that the block leaves out without a "..."
 * line in its place fails, so a block cannot silently drop output. */
static bool block_matches(const char *g, const char *w)
{
    for (;;) {
        size_t wl = strcspn(w, "\n");
        if (!*w)
            return !*g;
        const char *wn = w + wl + (w[wl] == '\n');
        if (wl == 3 && !memcmp(w, "...", 3)) {
            for (const char *t = g;;) {
                if (block_matches(t, wn))
                    return true;
                if (!*t)
                    return false;
                size_t tl = strcspn(t, "\n");
                t += tl + (t[tl] == '\n');
            }
        }
        if (!*g)
            return false;
        size_t gl = strcspn(g, "\n");
        if (!line_matches(g, gl, w, wl))
            return false;
        g += gl + (g[gl] == '\n');
        w = wn;
    }
}

static void check_output(const char *got, const char *want, const char *cmd)
{
    if (!strstr(want, "...")) {
        cr_assert_str_eq(got, want, "docs/tutorial.md: '%s' printed:\n%s\nthe tutorial says:\n%s",
                         cmd, got, want);
        return;
    }
    cr_assert(block_matches(got, want),
              "docs: '%s' printed:\n%s\nthe page says (a line '...' alone stands for lines left "
              "out):\n%s",
              cmd, got, want);
}

/* Runs the snippets of a page in TMPDIR/NAME: blocks "```LANG file=PATH"
 * are written, "```sh" commands must succeed and "```sh fails" ones fail
 * (exit 1), and a "```text" block after a command block is what its last
 * command printed (see check_output). Returns the counts. */
static void run_snippets(const char *rel, const char *name, int *files, int *cmds, int *outs)
{
    char *doc = read_doc(rel);
    char dir[1024], bindir[1024];
    snprintf(dir, sizeof dir, "%s/%s", getenv("TMPDIR"), name);
    mkdir(dir, 0777);
    snprintf(bindir, sizeof bindir, "%s", CLI);
    *strrchr(bindir, '/') = 0;
    static char last[1 << 16];
    char last_cmd[2048] = "";
    int nfiles = 0, ncmds = 0, nouts = 0;
    for (const char *p = doc; (p = strstr(p, "\n```")) != NULL;) {
        p += 4;
        size_t il = strcspn(p, "\n");
        char info[256];
        snprintf(info, sizeof info, "%.*s", (int)il, p);
        const char *body = p + il + 1;
        const char *end = strstr(body, "\n```");
        cr_assert_not_null(end, "unclosed block '%s'", info);
        size_t blen = (size_t)(end - body) + 1;
        p = end + 4;
        p += strcspn(p, "\n");
        const char *file = strstr(info, "file=");
        if (file) {
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", dir, file + 5);
            FILE *f = fopen(path, "w");
            cr_assert_not_null(f, "%s", path);
            fwrite(body, 1, blen, f);
            fclose(f);
            nfiles++;
        } else if (!strcmp(info, "sh") || !strcmp(info, "sh fails")) {
            bool fails = !strcmp(info, "sh fails");
            for (const char *c = body; c < body + blen;) {
                size_t cl = strcspn(c, "\n");
                if (cl && c[0] != '#') {
                    snprintf(last_cmd, sizeof last_cmd, "%.*s", (int)cl, c);
                    char cmd[4096];
                    snprintf(cmd, sizeof cmd, "cd '%s' && PATH='%s':\"$PATH\" NO_COLOR=1 %s", dir,
                             bindir, last_cmd);
                    int rc = test_run(cmd, last, sizeof last);
                    if (fails)
                        cr_assert(rc != 0 && rc != 2, "docs/tutorial.md: '%s' should fail "
                                  "(exit 1), got %d:\n%s", last_cmd, rc, last);
                    else
                        cr_assert_eq(rc, 0, "docs/tutorial.md: '%s' failed (%d):\n%s", last_cmd,
                                     rc, last);
                    ncmds++;
                }
                c += cl + 1;
            }
        } else if (!strcmp(info, "text") && last_cmd[0]) {
            char *want = strndup(body, blen);
            check_output(last, want, last_cmd);
            free(want);
            last_cmd[0] = 0; /* one output block per command block */
            nouts++;
        }
    }
    *files = nfiles, *cmds = ncmds, *outs = nouts;
    free(doc);
}

Test(docs, tutorial_snippets_run, .timeout = 300)
{
    int files, cmds, outs;
    run_snippets("docs/tutorial.md", "tutorial", &files, &cmds, &outs);
    cr_assert(files >= 7 && cmds >= 10 && outs >= 8, "files %d, commands %d, outputs %d", files,
              cmds, outs);
}

/* ---- docs/from-sofa.md ---- */

Test(docs, from_sofa_snippets_run)
{
    int files, cmds, outs;
    run_snippets("docs/from-sofa.md", "from-sofa", &files, &cmds, &outs);
    cr_assert(files >= 1 && cmds >= 5 && outs >= 2, "files %d, commands %d, outputs %d", files,
              cmds, outs);
}

/* What the page says settee does not have yet, no plugin registers. */
Test(docs, from_sofa_not_yet_list_is_true)
{
    char *doc = read_doc("docs/from-sofa.md");
    char *list = doc_block(doc, "text not-yet");
    cr_assert_not_null(list, "docs/from-sofa.md needs its ```text not-yet block");
    test_rt t;
    open_all_plugins(&t);
    st_registry *reg = st_runtime_registry(t.rt);
    int n = 0;
    for (const char *p = list; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] == '\n')) {
        char cls[128];
        if (sscanf(p, "%127s", cls) != 1)
            continue;
        cr_assert_null(st_registry_find(reg, cls),
                       "docs/from-sofa.md says settee has no %s, but plugin %s registers it: "
                       "update the page", cls,
                       st_registry_class_plugin(reg, st_registry_find(reg, cls)));
        n++;
    }
    /* the block was read (it shrinks as classes arrive: 11 on 2026-11-29) */
    cr_assert(n >= 5, "only %d classes read from the not-yet block", n);
    /* and the list is not vacuous: a class settee has would be caught */
    cr_assert_not_null(st_registry_find(reg, "EulerImplicitSolver"));
    test_rt_close(&t);
    free(list), free(doc);
}
