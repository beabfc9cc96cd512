/* front.c: Martin & Moyce's (1952) surge front and the comparison of a
 * run's front history with it (front.h). */
#include "front.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MM_FILE FL_SOURCE_DIR "/reference/martin_moyce_1952_n2.csv"
#define MM_ROW "front_Z_vs_T,"
#define MM_MAX 64

int fl_martin_moyce_file(const char *path, double *T, double *Z, int max, fl_error *err)
{
    FILE *csv = fopen(path, "r");
    if (!csv) {
        fl_fail(err, FL_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
        return -1;
    }
    char line[512];
    int n = 0, lineno = 0, bad = 0;
    while (!bad && fgets(line, sizeof line, csv)) {
        lineno++;
        if (strncmp(line, MM_ROW, strlen(MM_ROW)) != 0)
            continue;
        char *p = line + strlen(MM_ROW), *end;
        double t = strtod(p, &end), z = NAN;
        int ok = end != p && *end == ',';
        if (ok) {
            p = end + 1;
            z = strtod(p, &end);
            ok = end != p && strspn(end, " \r\n") == strlen(end) && isfinite(t) && isfinite(z);
        }
        if (!ok)
            bad = fl_fail(err, FL_ERR_IO, "%s:%d: expected " MM_ROW "T,Z with two numbers", path, lineno);
        else if (n > 0 && !(t > T[n - 1]))
            bad = fl_fail(err, FL_ERR_IO, "%s:%d: T = %g does not increase (previous %g)", path, lineno, t, T[n - 1]);
        else if (n == max)
            bad = fl_fail(err, FL_ERR_IO, "%s: more than %d front points", path, max);
        else
            T[n] = t, Z[n] = z, n++;
    }
    fclose(csv);
    if (!bad && n == 0)
        bad = fl_fail(err, FL_ERR_IO, "%s: no front_Z_vs_T rows (the surge front)", path);
    return bad ? -1 : n;
}

int fl_martin_moyce(double *T, double *Z, int max, fl_error *err)
{
    return fl_martin_moyce_file(MM_FILE, T, Z, max, err);
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

int fl_front_compare(const double *t, const double *x, int n, double a, double x0, double g,
                     double T_lo, double T_hi, fl_front_point *out, int max, double *worst)
{
    *worst = 0.0;
    double T_mm[MM_MAX], Z_mm[MM_MAX];
    fl_error err;
    int n_mm = fl_martin_moyce(T_mm, Z_mm, MM_MAX, &err);
    if (!(a > 0.0) || !(g > 0.0) || n_mm < 0)
        return -1;
    const double t_of_T = sqrt(a / (2.0 * g)); /* T = t sqrt(2 g / a) */
    int count = 0;
    for (int p = 0; p < n_mm && count < max && n > 0; p++) {
        double tp = T_mm[p] * t_of_T;
        if (T_mm[p] < T_lo || T_mm[p] > T_hi || tp < t[0] || tp > t[n - 1])
            continue;
        fl_front_point *q = &out[count++];
        q->T = T_mm[p];
        q->Z_mm = Z_mm[p];
        q->Z = (front_at(t, x, n, tp) - x0) / a;
        q->err = q->Z / q->Z_mm - 1.0;
        *worst = fmax(*worst, fabs(q->err));
    }
    return count;
}
