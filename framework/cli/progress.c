/* progress.c - the progress bar `settee run` and `settee sweep` draw on a
 * terminal.
 *
 * The bar appears only when stderr is a terminal and the run has lasted
 * more than a second, is redrawn at most 20 times a second, and is erased
 * before any message and at the end, so logs never interleave with it.
 */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define PROGRESS_DELAY 1.0     /* s before the first draw */
#define PROGRESS_PERIOD 0.05   /* s between draws */

cli_progress *cli_active_progress;

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

void cli_progress_start(cli_progress *p, unsigned long total, bool enabled)
{
    memset(p, 0, sizeof *p);
    p->enabled = enabled && isatty(2);
    p->total = total;
    p->start = p->last = cli_now();
    cli_active_progress = p->enabled ? p : NULL;
}

static int terminal_width(void)
{
    struct winsize ws;
    if (ioctl(2, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* "12m03s" or "4.2s". */
static void format_duration(char *buf, size_t size, double s)
{
    if (s < 60)
        snprintf(buf, size, "%.1fs", s);
    else if (s < 3600)
        snprintf(buf, size, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else
        snprintf(buf, size, "%dh%02dm", (int)(s / 3600), ((int)s / 60) % 60);
}

/* True when a redraw is due (enabled, past the delay, not drawn too recently). */
static bool progress_due(cli_progress *p, double *now)
{
    if (!p->enabled)
        return false;
    *now = cli_now();
    if (*now - p->start < PROGRESS_DELAY || *now - p->last < PROGRESS_PERIOD)
        return false;
    p->last = *now;
    return true;
}

void cli_progress_draw(cli_progress *p, double frac, const char *text)
{
    char tail[256];
    snprintf(tail, sizeof tail, "%s", text);
    int cols = terminal_width();
    if ((int)strlen(tail) > cols - 1)
        tail[cols - 1] = 0;
    int nbar = cols - 1 - (int)strlen(tail) - 2;
    if (nbar > 30)
        nbar = 30;
    if (nbar < 5)
        nbar = 0;
    char bar[32];
    int filled = (int)(frac * nbar);
    for (int i = 0; i < nbar; i++)
        bar[i] = i < filled ? '#' : '-';
    bar[nbar] = 0;
    if (nbar > 0)
        fprintf(stderr, "\r[%s]%s\033[K", bar, tail);
    else
        fprintf(stderr, "\r%s\033[K", tail);
    fflush(stderr);
    p->drawn = true;
}

void cli_progress_eta(const cli_progress *p, unsigned long done, char *buf, size_t size)
{
    snprintf(buf, size, "?");
    if (done > 0 && p->total >= done)
        format_duration(buf, size,
                        (cli_now() - p->start) * (double)(p->total - done) / (double)done);
}

void cli_progress_update(cli_progress *p, unsigned long done, double sim_time)
{
    double now;
    if (!progress_due(p, &now))
        return;
    double frac = p->total ? (double)done / (double)p->total : 0.0;
    double elapsed = now - p->start;
    char eta[32];
    cli_progress_eta(p, done, eta, sizeof eta);
    /* numbers padded so that the line keeps its length while it runs */
    char tail[160 + 96];
    int digits = snprintf(NULL, 0, "%lu", p->total);
    char t[40], rate[40];
    snprintf(t, sizeof t, "t=%.6g s", sim_time);
    snprintf(rate, sizeof rate, "%.0f steps/s", (double)done / elapsed);
    int k = snprintf(tail, sizeof tail, " %3d%% %*lu/%lu  %-13s %-15s ETA %-6s",
                     (int)(100.0 * frac), digits, done, p->total, t, rate, eta);
    if (p->files_dir && k > 0 && (size_t)k < sizeof tail)
        snprintf(tail + k, sizeof tail - (size_t)k, "  %lu files in %.64s", p->files,
                 p->files_dir);
    cli_progress_draw(p, frac, tail);
}

bool cli_progress_due(cli_progress *p)
{
    double now;
    return progress_due(p, &now);
}

void cli_progress_clear(cli_progress *p)
{
    if (!p->drawn)
        return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    p->drawn = false;
}
