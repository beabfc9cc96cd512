/* front.c: Martin & Moyce's (1952) surge front and the comparison of a
 * run's front history with it (front.h). */
#include "front.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MM_FILE FL_SOURCE_DIR "/reference/martin_moyce_1952_n2.csv"
#define MM_FRONT "front_Z_vs_T"
#define MM_HEIGHT "height_H_vs_tau"
#define MM_MAX 64

/* The rows "<row>,time,value" of the file at path (what: their quantity,
 * in messages): at most max, time increasing; -1 with err set. */
static int mm_read(const char *path, const char *row, const char *what, double *T, double *Z, int max, fl_error *err)
{
    FILE *csv = fopen(path, "r");
    if (!csv) {
        fl_fail(err, FL_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    const size_t len = strlen(row);
    int n = 0, lineno = 0, bad = 0;
    while (!bad && fgets(line, sizeof line, csv)) {
        lineno++;
        if (strncmp(line, row, len) != 0 || line[len] != ',')
            continue;
        char *p = line + len + 1, *end;
        double t = strtod(p, &end), z = NAN;
        int ok = end != p && *end == ',';
        if (ok) {
            p = end + 1;
            z = strtod(p, &end);
            ok = end != p && strspn(end, " \r\n") == strlen(end) && isfinite(t) && isfinite(z);
        }
        if (!ok)
            bad = fl_fail(err, FL_ERR_IO, "%s:%d: expected %s,T,Z with two numbers", path, lineno, row);
        else if (n > 0 && !(t > T[n - 1]))
            bad = fl_fail(err, FL_ERR_IO, "%s:%d: T = %g does not increase (previous %g)", path, lineno, t, T[n - 1]);
        else if (n == max)
            bad = fl_fail(err, FL_ERR_IO, "%s: more than %d %s points", path, max, what);
        else
            T[n] = t, Z[n] = z, n++;
    }
    fclose(csv);
    if (!bad && n == 0)
        bad = fl_fail(err, FL_ERR_IO, "%s: no %s rows (%s)", path, row, what);
    return bad ? -1 : n;
}

int fl_martin_moyce_file(const char *path, double *T, double *Z, int max, fl_error *err)
{
    return mm_read(path, MM_FRONT, "the surge front", T, Z, max, err);
}

int fl_martin_moyce(double *T, double *Z, int max, fl_error *err)
{
    return fl_martin_moyce_file(MM_FILE, T, Z, max, err);
}

int fl_martin_moyce_height(double *tau, double *H, int max, fl_error *err)
{
    return mm_read(MM_FILE, MM_HEIGHT, "the residual column height", tau, H, max, err);
}

/* x at time tp by linear interpolation in the history; tp within [t[0], t[n-1]]. */
static double front_at(const double *t, const double *x, int n, double tp)
{
    int lo = 0, hi = n - 1; /* the segment [t[lo], t[lo + 1]] holding tp */
    while (hi - lo > 1) {
        int mid = lo + (hi - lo) / 2;
        if (t[mid] <= tp)
            lo = mid;
        else
            hi = mid;
    }
    if (n == 1 || t[lo] == tp)
        return x[lo];
    return x[lo] + (x[hi] - x[lo]) * (tp - t[lo]) / (t[hi] - t[lo]);
}

/* A history (t, x) against the reference rows `row` (what: their
 * quantity) of Martin & Moyce's file, in non-dimensional time, the
 * reference's time over t_unit = sqrt(a / (g_scale g)), and length
 * (x - x0) / len: one fl_front_point per reference time in [T_lo, T_hi]
 * inside the history; -1 when a or g is not positive or the file cannot
 * be read. */
static int compare(const char *row, const char *what, const double *t, const double *x, int n, double a, double g,
                   double g_scale, double x0, double len, double T_lo, double T_hi, fl_front_point *out, int max,
                   double *worst)
{
    *worst = 0.0;
    double Tr[MM_MAX], Zr[MM_MAX];
    fl_error err;
    const int nr = mm_read(MM_FILE, row, what, Tr, Zr, MM_MAX, &err);
    if (!(a > 0.0) || !(g > 0.0) || nr < 0)
        return -1;
    const double t_unit = sqrt(a / (g_scale * g));
    int count = 0;
    for (int p = 0; p < nr && count < max && n > 0; p++) {
        double tp = Tr[p] * t_unit;
        if (Tr[p] < T_lo || Tr[p] > T_hi || tp < t[0] || tp > t[n - 1])
            continue;
        fl_front_point *q = &out[count++];
        q->T = Tr[p];
        q->Z_mm = Zr[p];
        q->Z = (front_at(t, x, n, tp) - x0) / len;
        q->err = q->Z / q->Z_mm - 1.0;
        *worst = fmax(*worst, fabs(q->err));
    }
    return count;
}

int fl_front_compare(const double *t, const double *x, int n, double a, double x0, double g,
                     double T_lo, double T_hi, fl_front_point *out, int max, double *worst)
{
    /* T = t sqrt(2 g / a), Z = x / a */
    return compare(MM_FRONT, "the surge front", t, x, n, a, g, 2.0, x0, a, T_lo, T_hi, out, max, worst);
}

int fl_height_compare(const double *t, const double *y, int n, double a, double y0, double g,
                      double tau_lo, double tau_hi, fl_front_point *out, int max, double *worst)
{
    /* tau = t sqrt(g / a), H = eta / (2 a) */
    return compare(MM_HEIGHT, "the residual column height", t, y, n, a, g, 1.0, y0, 2.0 * a, tau_lo, tau_hi, out,
                   max, worst);
}
