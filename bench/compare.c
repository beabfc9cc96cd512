/* compare.c: the files of `fluidlab compare` and `fluidlab sweep`
 * (compare.h). */
#include "compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The 0-based index of column name in a CSV header line, or -1. */
static int column_of(const char *header, const char *name)
{
    size_t len = strlen(name);
    int col = 0;
    for (const char *p = header; *p; col++) {
        const char *end = strpbrk(p, ",\r\n");
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, name, len) == 0)
            return col;
        if (!end || *end != ',')
            break;
        p = end + 1;
    }
    return -1;
}

/* Field col of a CSV line as a number; 0 when it is missing. */
static double field(const char *line, int col, int *ok)
{
    const char *p = line;
    for (int c = 0; c < col && p; c++) {
        p = strchr(p, ',');
        if (p)
            p++;
    }
    char *end;
    double v = p ? strtod(p, &end) : 0.0;
    *ok &= p != NULL && end != p;
    return v;
}

/* Appends the time and compression columns of dir/folder/stats.csv to out
 * as one block headed by label. */
static int append_block(FILE *out, const char *dir, const char *folder, const char *label, fl_error *err)
{
    char path[1200], line[8192];
    snprintf(path, sizeof path, "%s/%s/stats.csv", dir, folder);
    FILE *in = fopen(path, "r");
    if (!in)
        return fl_fail(err, FL_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    int rc = FL_OK, t = -1, a = -1, m = -1;
    if (fgets(line, sizeof line, in))
        t = column_of(line, "time"), a = column_of(line, "density_err_avg"), m = column_of(line, "density_err_max");
    if (t < 0 || a < 0 || m < 0)
        rc = fl_fail(err, FL_ERR_IO, "%s: expected the columns time, density_err_avg and density_err_max", path);
    fprintf(out, "time,%s,%s\n", label, label);
    while (rc == FL_OK && fgets(line, sizeof line, in)) {
        int ok = 1;
        double tv = field(line, t, &ok), av = field(line, a, &ok), mv = field(line, m, &ok);
        if (!ok)
            rc = fl_fail(err, FL_ERR_IO, "%s: a row without the time or compression values", path);
        else
            fprintf(out, "%.9g,%.9g,%.9g\n", tv, av, mv);
    }
    fputs("\n\n", out);
    fclose(in);
    return rc;
}

/* stable, unstable, interrupted, incomplete; unsupported (the solver has
 * no version on the device); failed (did not run: bad input for this
 * solver); not run (the command was interrupted first) */
static const char *status_of(int ran, int unsupported, const fl_run_result *r, const char *error)
{
    return ran ? fl_run_status_name(r->status) : unsupported ? "unsupported" : error[0] ? "failed" : "not run";
}

/* why a row is not simply stable */
static const char *reason_of(int ran, const fl_run_result *r, const char *error)
{
    return ran ? r->reason : error[0] ? error : "the command was interrupted before this run";
}

/* text for a double-quoted CSV field: its double quotes become single */
static void csv_text(const char *text, char *out, size_t len)
{
    size_t q = 0;
    for (const char *p = text; *p && q + 1 < len; p++)
        out[q++] = *p == '"' ? '\'' : *p;
    out[q] = '\0';
}

static double ms_per_step(const fl_run_result *r)
{
    return r->steps > 0 ? 1e3 * r->wall_s / (double)r->steps : 0.0;
}

int fl_compare_write(const char *dir, const fl_compare_entry *e, int n, fl_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/compare.csv", dir);
    FILE *csv = fl_open_written(path, err);
    if (!csv)
        return FL_ERR_IO;
    fputs("solver,device,status,reason,steps,simulated_s,wall_s,ms_per_step,mean_compression_percent\n", csv);
    for (int k = 0; k < n; k++) {
        const fl_run_result *r = &e[k].result;
        char quoted[640];
        csv_text(reason_of(e[k].ran, r, e[k].error), quoted, sizeof quoted);
        fprintf(csv, "%s,%s,%s,\"%s\",%lld,%.6g,%.6g,%.6g,%.6g\n", e[k].solver, e[k].device,
                status_of(e[k].ran, e[k].unsupported, r, e[k].error), quoted, r->steps, r->sim_time, r->wall_s,
                ms_per_step(r), 100.0 * r->mean_err_avg);
    }
    int rc = fl_close_written(csv, path, err);
    if (rc)
        return rc;

    snprintf(path, sizeof path, "%s/compare.md", dir);
    FILE *md = fl_open_written(path, err);
    if (!md)
        return FL_ERR_IO;
    fputs("| solver | device | status | steps | simulated, s | wall, s | ms per step | mean compression |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- |\n",
          md);
    for (int k = 0; k < n; k++) {
        const fl_run_result *r = &e[k].result;
        const int plain = e[k].ran && r->status == FL_RUN_STABLE;
        fprintf(md, "| %s | %s | %s%s%s | %lld | %.3f | %.1f | %.3f | %.3f %% |\n", e[k].solver, e[k].device,
                status_of(e[k].ran, e[k].unsupported, r, e[k].error), plain ? "" : ": ",
                plain ? "" : reason_of(e[k].ran, r, e[k].error),
                r->steps, r->sim_time, r->wall_s, ms_per_step(r), 100.0 * r->mean_err_avg);
    }
    if ((rc = fl_close_written(md, path, err)))
        return rc;

    snprintf(path, sizeof path, "%s/density.csv", dir);
    FILE *dens = fl_open_written(path, err);
    if (!dens)
        return FL_ERR_IO;
    for (int k = 0; k < n && rc == FL_OK; k++)
        if (e[k].ran)
            rc = append_block(dens, dir, e[k].folder, e[k].label, err);
    if (rc) {
        fclose(dens);
        return rc;
    }
    return fl_close_written(dens, path, err);
}

/* A case's step: its dt, or a substeps case's as it ran (simulated time
 * over steps; 0 before it ran). */
static double case_dt(const fl_sweep_case *c)
{
    if (c->dt > 0.0)
        return c->dt;
    return c->ran && c->result.steps > 0 ? c->result.sim_time / (double)c->result.steps : 0.0;
}

int fl_sweep_write(const char *dir, const fl_sweep_case *c, int n, fl_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/sweep.csv", dir);
    FILE *csv = fl_open_written(path, err);
    if (!csv)
        return FL_ERR_IO;
    fputs("case,folder,dt,substeps,iterations,status,failed_at_s,reason,steps,simulated_s,wall_s,ms_per_step,"
          "mean_compression_percent\n",
          csv);
    for (int k = 0; k < n; k++) {
        const fl_run_result *r = &c[k].result;
        const int broke = c[k].ran && r->status == FL_RUN_UNSTABLE;
        char quoted[640];
        csv_text(reason_of(c[k].ran, r, c[k].error), quoted, sizeof quoted);
        fprintf(csv, "%d,%s,%.6g,%d,%d,%s,%.6g,\"%s\",%lld,%.6g,%.6g,%.6g,%.6g\n", k + 1, c[k].dir, case_dt(&c[k]),
                c[k].substeps, c[k].iterations, status_of(c[k].ran, 0, r, c[k].error), broke ? r->sim_time : -1.0,
                quoted, r->steps, r->sim_time, r->wall_s, ms_per_step(r), 100.0 * r->mean_err_avg);
    }
    int rc = fl_close_written(csv, path, err);
    if (rc)
        return rc;
    snprintf(path, sizeof path, "%s/sweep.md", dir);
    FILE *md = fl_open_written(path, err);
    if (!md)
        return FL_ERR_IO;
    fputs("| case | dt, s | substeps | iterations | status | broke at, s | steps | wall, s | mean compression |\n"
          "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
          md);
    for (int k = 0; k < n; k++) {
        const fl_run_result *r = &c[k].result;
        const int broke = c[k].ran && r->status == FL_RUN_UNSTABLE;
        const int plain = c[k].ran && r->status == FL_RUN_STABLE;
        char at[32] = "-";
        if (broke)
            snprintf(at, sizeof at, "%.4f", r->sim_time);
        fprintf(md, "| %d | %.6g | %d | %d | %s%s%s | %s | %lld | %.1f | %.3f %% |\n", k + 1,
                case_dt(&c[k]), c[k].substeps, c[k].iterations,
                status_of(c[k].ran, 0, r, c[k].error), plain ? "" : ": ",
                plain ? "" : reason_of(c[k].ran, r, c[k].error),
                at, r->steps, r->wall_s, 100.0 * r->mean_err_avg);
    }
    return fl_close_written(md, path, err);
}
