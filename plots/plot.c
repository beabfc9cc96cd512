/* plot.c: runs gnuplot on a script of plots/ (plot.h). */
#define _POSIX_C_SOURCE 200809L
#include "plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int fl_plot_available(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *save = NULL, *p = strtok_r(buf, ":", &save); p; p = strtok_r(NULL, ":", &save)) {
        char exe[4200];
        snprintf(exe, sizeof exe, "%s/gnuplot", p);
        if (access(exe, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* The scripts of plots/ check their input and print one line that starts
 * with their own name ("run_summary.gp: ...") before they stop: that line,
 * the last of its kind in the log, is the reason to give. Returns 1 when
 * one was found. */
static int script_diagnostic(const char *script, const char *log, char *msg, int len)
{
    const char *base = strrchr(script, '/');
    base = base ? base + 1 : script;
    size_t blen = strlen(base);
    FILE *f = fopen(log, "r");
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, base, blen) == 0 && line[blen] == ':') {
            line[strcspn(line, "\r\n")] = '\0';
            snprintf(msg, (size_t)len, "%s", line);
            found = 1;
        }
    fclose(f);
    return found;
}

int fl_plot_run(const char *script, const char *const *vars, const char *log, char *msg, int len)
{
    enum { MAX_VARS = 32 };
    char *argv[2 * MAX_VARS + 3], args[MAX_VARS][1400];
    int n = 0, k = 0;
    argv[n++] = "gnuplot";
    for (; vars[k]; k++) {
        const char *eq = strchr(vars[k], '=');
        if (k == MAX_VARS || !eq || strchr(eq + 1, '\'') || strlen(vars[k]) + 3 > sizeof args[k]) {
            snprintf(msg, (size_t)len, "%.200s: cannot be passed to gnuplot (a quote, or too long)", vars[k]);
            return 1;
        }
        snprintf(args[k], sizeof args[k], "%.*s='%s'", (int)(eq - vars[k]), vars[k], eq + 1);
        argv[n++] = "-e";
        argv[n++] = args[k];
    }
    argv[n++] = (char *)script;
    argv[n] = NULL;
    /* gnuplot's own messages go to the log, not to the terminal */
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
    /* in a process group of its own, so that a Ctrl-C at the terminal
     * reaches fluidlab alone, which stops at the end of its step with the
     * picture drawn, rather than gnuplot dying half-way through it */
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, "gnuplot", &fa, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        snprintf(msg, (size_t)len, "cannot start gnuplot: %s", strerror(rc));
        return 1;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        if (!script_diagnostic(script, log, msg, len))
            snprintf(msg, (size_t)len, "gnuplot failed on %s (see %s)", script, log);
        return 1;
    }
    unlink(log);
    return 0;
}

int fl_plot_written(const char *path, char *msg, int len)
{
    static const unsigned char png_end[8] = {'I', 'E', 'N', 'D', 0xae, 0x42, 0x60, 0x82};
    /* the extension, before a trailing .tmp (a picture drawn aside first) */
    char name[1024];
    snprintf(name, sizeof name, "%s", path);
    char *ext = strrchr(name, '.');
    if (ext && strcmp(ext, ".tmp") == 0) {
        *ext = '\0';
        ext = strrchr(name, '.');
    }
    struct stat sb;
    unsigned char tail[64];
    size_t got = 0;
    FILE *f = NULL;
    if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size >= 8 && (f = fopen(path, "rb"))) {
        const long back = sb.st_size < (off_t)sizeof tail ? (long)sb.st_size : (long)sizeof tail;
        if (fseek(f, -back, SEEK_END) == 0)
            got = fread(tail, 1, (size_t)back, f);
        fclose(f);
    }
    int whole = 0;
    if (got >= 8 && ext && strcmp(ext, ".png") == 0)
        whole = memcmp(tail + got - 8, png_end, 8) == 0;
    else if (got >= 8 && ext && strcmp(ext, ".gif") == 0)
        whole = tail[got - 1] == 0x3b;
    else if (got >= 8 && ext && strcmp(ext, ".svg") == 0) {
        while (got > 0 && (tail[got - 1] == '\n' || tail[got - 1] == '\r' || tail[got - 1] == ' '))
            got--;
        whole = got >= 6 && memcmp(tail + got - 6, "</svg>", 6) == 0;
    }
    if (!whole)
        snprintf(msg, (size_t)len, "%.900s: not written whole (a full disk, or not a regular file)", path);
    return whole;
}

int fl_plot_render_pair(const char *script, const char *dir, const char *name, char *msg, int len)
{
    char png[1200], svg[1200];
    snprintf(png, sizeof png, "%.900s/%s.png", dir, name);
    snprintf(svg, sizeof svg, "%.900s/%s.svg", dir, name);
    if (fl_plot_render(script, dir, "png", msg, len) || fl_plot_render(script, dir, "svg", msg, len))
        return 1;
    if (fl_plot_written(png, msg, len) && fl_plot_written(svg, msg, len))
        return 0;
    remove(png), remove(svg); /* no picture cut short is left to look whole */
    return 2;
}

int fl_plot_render(const char *script, const char *dir, const char *fmt, char *msg, int len)
{
    if (strchr(dir, '\'')) {
        snprintf(msg, (size_t)len, "%s: a folder name with a quote cannot be passed to gnuplot", dir);
        return 1;
    }
    char dir_arg[1200], fmt_arg[64], log[1200];
    snprintf(dir_arg, sizeof dir_arg, "dir=%s", dir);
    snprintf(fmt_arg, sizeof fmt_arg, "fmt=%s", fmt);
    snprintf(log, sizeof log, "%s/gnuplot.log", dir);
    const char *const vars[] = {dir_arg, fmt_arg, NULL};
    return fl_plot_run(script, vars, log, msg, len);
}
