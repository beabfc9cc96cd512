/* live.c: the live plot of `--plot live` (live.h): the samples are kept
 * here, thinned when they grow, and sent whole to gnuplot as a datablock at
 * each redraw. A text redraw is waited for: gnuplot writes a line on a pipe
 * of ours once the plot is out, so that the progress line on stderr is not
 * written into the middle of the plot on the same console. */
#define _POSIX_C_SOURCE 200809L
#include "live.h"

#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plot.h"

#define LIVE_POINTS 2048           /* kept at most; even, halved when full */
#define LIVE_WINDOW_PERIOD_S 0.25  /* a window: at most 4 redraws a second */
#define LIVE_TEXT_PERIOD_S 2.0     /* the console: one redraw every 2 s */
#define LIVE_TEXT_WAIT_MS 5000     /* the longest wait for a text redraw */

struct fl_live_plot {
    FILE *gp;
    int text;                      /* dumb terminal on stdout */
    int drawn_fd;                  /* text: the pipe gnuplot says "drawn" on; -1 when none */
    int drawn_child_fd;            /* its write end, as gnuplot holds it */
    double period_s, last_draw_s;
    char title[256];
    struct sigaction old_pipe;     /* SIGPIPE's handler before the open */
    int failed;                    /* gnuplot stopped reading, or is gone */
    /* point k < n is complete; point n holds `pending` of `stride` steps */
    int n, stride, pending;
    double t[LIVE_POINTS], avg[LIVE_POINTS], max[LIVE_POINTS], speed[LIVE_POINTS];
    double top_err, top_speed;     /* largest values so far: the axes' ranges */
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The window terminal gnuplot offers ("qt", then "x11"), or NULL: asks
 * gnuplot for its list of terminals. */
static const char *window_terminal(void)
{
    FILE *p = popen("gnuplot -e \"set print '-'; print GPVAL_TERMINALS\" 2>/dev/null", "r");
    if (!p)
        return NULL;
    char list[4096] = " ";
    size_t len = fread(list + 1, 1, sizeof list - 3, p);
    pclose(p);
    list[len + 1] = '\0';
    for (char *c = list; *c; c++)
        if (*c == '\n')
            *c = ' ';
    strcat(list, " ");
    return strstr(list, " qt ") ? "qt" : strstr(list, " x11 ") ? "x11" : NULL;
}

/* The console's size for the dumb terminal: stdout's when it is a
 * terminal (less a line for the progress), else 100 x 30. */
static void console_size(int *cols, int *rows)
{
    struct winsize ws;
    *cols = 100, *rows = 30;
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
        *cols = ws.ws_col < 60 ? 60 : ws.ws_col > 240 ? 240 : ws.ws_col;
        *rows = ws.ws_row < 21 ? 20 : ws.ws_row > 81 ? 80 : ws.ws_row - 1;
    }
}

fl_live_plot *fl_live_open(const char *title, char *msg, int len)
{
    if (!fl_plot_available()) {
        snprintf(msg, (size_t)len, "live plotting skipped: gnuplot not found (install it: apt-get install gnuplot-qt "
                                   "for a window, or gnuplot-nox for the console); the run goes on");
        return NULL;
    }
    fl_live_plot *lp = calloc(1, sizeof *lp);
    if (!lp) {
        snprintf(msg, (size_t)len, "live plotting skipped: out of memory");
        return NULL;
    }
    const char *display = getenv("DISPLAY");
    const char *window = display && display[0] ? window_terminal() : NULL;
    /* the title goes into a double-quoted gnuplot string: no quotes, no
     * backslash escapes, no backquotes (gnuplot runs them as commands) */
    snprintf(lp->title, sizeof lp->title, "%s", title);
    for (char *c = lp->title; *c; c++)
        if (*c == '"' || *c == '\\' || *c == '`')
            *c = '\'';
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGPIPE, &ignore, &lp->old_pipe);
    lp->text = window == NULL;
    lp->drawn_fd = lp->drawn_child_fd = -1;
    int fd[2];
    if (lp->text && pipe(fd) == 0) { /* gnuplot inherits the write end */
        fcntl(fd[0], F_SETFD, FD_CLOEXEC);
        lp->drawn_fd = fd[0], lp->drawn_child_fd = fd[1];
    }
    lp->gp = popen("exec gnuplot", "w");
    if (lp->drawn_child_fd >= 0)
        close(lp->drawn_child_fd);
    if (!lp->gp) {
        if (lp->drawn_fd >= 0)
            close(lp->drawn_fd);
        sigaction(SIGPIPE, &lp->old_pipe, NULL);
        free(lp);
        snprintf(msg, (size_t)len, "live plotting skipped: cannot start gnuplot");
        return NULL;
    }
    lp->period_s = lp->text ? LIVE_TEXT_PERIOD_S : LIVE_WINDOW_PERIOD_S;
    lp->last_draw_s = now_s();
    lp->stride = 1;
    if (lp->text) {
        int cols, rows;
        console_size(&cols, &rows);
        fprintf(lp->gp, "set terminal dumb size %d,%d\n", cols, rows);
    } else {
        fprintf(lp->gp, "set terminal %s title \"%s\" noraise persist\n", window, lp->title);
    }
    fputs("set termoption noenhanced\n"
          "set xlabel \"simulated time (s)\"\n"
          "set ytics nomirror\n"
          "set y2tics\n"
          "set key top left\n",
          lp->gp);
    fflush(lp->gp);
    return lp;
}

int fl_live_text(const fl_live_plot *lp)
{
    return lp->text;
}

/* Waits (LIVE_TEXT_WAIT_MS at most) for gnuplot's "drawn": the text plot
 * is then all on stdout. End of file: gnuplot is gone. */
static void wait_drawn(fl_live_plot *lp)
{
    struct pollfd p = {.fd = lp->drawn_fd, .events = POLLIN};
    char buf[64];
    if (poll(&p, 1, LIVE_TEXT_WAIT_MS) == 1 && read(lp->drawn_fd, buf, sizeof buf) <= 0)
        lp->failed = 1;
}

static int points(const fl_live_plot *lp)
{
    return lp->n + (lp->pending > 0);
}

int fl_live_due(const fl_live_plot *lp)
{
    return !lp->failed && points(lp) >= 2 && now_s() - lp->last_draw_s >= lp->period_s;
}

/* Sends every point as the datablock $live and plots it (it needs two). */
void fl_live_draw(fl_live_plot *lp)
{
    int n = points(lp);
    if (n < 2 || lp->failed)
        return;
    FILE *gp = lp->gp;
    fputs("$live << EOD\n", gp);
    for (int k = 0; k < n; k++)
        fprintf(gp, "%.9g %.6g %.6g %.6g\n", lp->t[k], 100.0 * lp->avg[k], 100.0 * lp->max[k], lp->speed[k]);
    /* fixed ranges: gnuplot's autoscale warns on stderr about a flat curve */
    fprintf(gp,
            "EOD\n"
            "set title \"%s, t = %.3f s\"\n"
            "set xrange [%.9g:%.9g]\n"
            "set yrange [0:%.6g]\n"
            "set y2range [0:%.6g]\n"
            "plot $live using 1:2 with lines title \"avg compression (%%)\", "
            "$live using 1:3 with lines title \"max compression (%%)\", "
            "$live using 1:4 axes x1y2 with lines title \"max speed (m/s, right axis)\"\n",
            lp->title, lp->t[n - 1], lp->t[0], lp->t[n - 1], fmax(1.05 * 100.0 * lp->top_err, 1e-3),
            fmax(1.05 * lp->top_speed, 1e-3));
    if (lp->drawn_fd >= 0)
        fprintf(gp, "set print \"/dev/fd/%d\"\nprint \"drawn\"\nunset print\n", lp->drawn_child_fd);
    if (fflush(gp) != 0 || ferror(gp))
        lp->failed = 1;
    if (lp->drawn_fd >= 0 && !lp->failed)
        wait_drawn(lp);
    lp->last_draw_s = now_s();
}

/* Merges neighbouring points pairwise: half the points, each twice the steps. */
static void thin(fl_live_plot *lp)
{
    for (int k = 0; k < LIVE_POINTS / 2; k++) {
        int a = 2 * k, b = 2 * k + 1;
        lp->t[k] = lp->t[b];
        lp->avg[k] = 0.5 * (lp->avg[a] + lp->avg[b]);
        lp->max[k] = fmax(lp->max[a], lp->max[b]);
        lp->speed[k] = fmax(lp->speed[a], lp->speed[b]);
    }
    lp->n = LIVE_POINTS / 2;
    lp->stride *= 2;
}

void fl_live_add(fl_live_plot *lp, double t, double err_avg, double err_max, double max_speed)
{
    int k = lp->n;
    if (lp->pending == 0) {
        lp->avg[k] = err_avg, lp->max[k] = err_max, lp->speed[k] = max_speed;
    } else {
        lp->avg[k] += (err_avg - lp->avg[k]) / (lp->pending + 1);
        lp->max[k] = fmax(lp->max[k], err_max);
        lp->speed[k] = fmax(lp->speed[k], max_speed);
    }
    lp->t[k] = t;
    lp->top_err = fmax(lp->top_err, err_max);
    lp->top_speed = fmax(lp->top_speed, max_speed);
    if (++lp->pending == lp->stride) {
        lp->pending = 0;
        if (++lp->n == LIVE_POINTS)
            thin(lp);
    }
}

int fl_live_close(fl_live_plot **lpp, char *msg, int len)
{
    fl_live_plot *lp = *lpp;
    if (!lp)
        return 0;
    fl_live_draw(lp);
    int status = pclose(lp->gp);
    if (lp->drawn_fd >= 0)
        close(lp->drawn_fd);
    sigaction(SIGPIPE, &lp->old_pipe, NULL);
    int rc = lp->failed || status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    if (rc)
        snprintf(msg, (size_t)len, "the live plot stopped: gnuplot %s",
                 lp->failed ? "stopped reading" : "failed (see its messages above)");
    free(lp);
    *lpp = NULL;
    return rc;
}
