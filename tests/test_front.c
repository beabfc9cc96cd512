/* test_front.c: the dam-break front against Martin & Moyce (bench/front.h)
 * on synthetic front histories whose answers are known.
 *  1. fl_martin_moyce reads the 15 front points of
 *     reference/martin_moyce_1952_n2.csv; a missing file, a row that does
 *     not parse, T not increasing, too many points and no points at all
 *     each give -1 and a message naming the file.
 *  2. A history that is Martin & Moyce's own curve, sampled at their times,
 *     compares with every err 0 (1e-12), whatever the wall x0, the width a
 *     and the gravity g; the same fronts 10 % further from the wall give
 *     every err = +0.10 (1e-9).
 *  3. A coarse history (three samples, one exactly at a Martin & Moyce
 *     time) gives the piecewise-linear front between its samples.
 *  4. Filters: T in [1, 3] keeps 11 of the 15 points; a history that ends
 *     at T = 2 keeps 7, one that starts at T = 1.43 keeps 12; max = 5 keeps
 *     the first 5; an empty history none; a or g not positive gives -1.
 *  5. The residual column height: fl_martin_moyce_height reads the 17
 *     height points; their own curve as a history of the column's top
 *     (tau sqrt(a / g), y0 + 2 a H) compares with every err 0 (1e-12) over
 *     0.5 <= tau <= 2.5 (11 points), and 5 % lower everywhere with -0.05. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ensure.h"
#include "front.h"

#define MM 15

static double T_mm[32], Z_mm[32];

/* Martin & Moyce's front as a history: (0, x0 + a), the column at rest, then
 * (T sqrt(a / 2g), x0 + scale a Z) at each of their points. Returns n. */
static int mm_history(double a, double x0, double g, double scale, double *t, double *x)
{
    t[0] = 0.0, x[0] = x0 + a;
    for (int p = 0; p < MM; p++)
        t[p + 1] = T_mm[p] * sqrt(a / (2.0 * g)), x[p + 1] = x0 + scale * a * Z_mm[p];
    return MM + 1;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ENSURE(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* fl_martin_moyce_file on text fails with a message holding want. */
static void bad_file(const char *text, int max, const char *want)
{
    const char *path = "test_front_bad.csv";
    write_file(path, text);
    double T[32], Z[32];
    fl_error err = {""};
    int n = fl_martin_moyce_file(path, T, Z, max, &err);
    printf("bad file (%s): %d, \"%s\"\n", want, n, err.msg);
    ENSURE(n == -1);
    ENSURE(strstr(err.msg, path) != NULL);
    ENSURE(strstr(err.msg, want) != NULL);
    remove(path);
}

static void reading(void)
{
    fl_error err = {""};
    int n = fl_martin_moyce(T_mm, Z_mm, 32, &err);
    ENSURE(n == MM);
    ENSURE(T_mm[0] == 0.41 && Z_mm[0] == 1.11);
    ENSURE(T_mm[MM - 1] == 3.33 && Z_mm[MM - 1] == 4.11);

    double T[32], Z[32];
    err.msg[0] = '\0';
    ENSURE(fl_martin_moyce_file("/nonexistent/mm.csv", T, Z, 32, &err) == -1);
    printf("missing file: \"%s\"\n", err.msg);
    ENSURE(strstr(err.msg, "/nonexistent/mm.csv: cannot read") != NULL);
    bad_file("# quantity,time,value\nfront_Z_vs_T,0.41,1.11\nfront_Z_vs_T,0.84,abc\n", 32, ":3: expected");
    bad_file("front_Z_vs_T,0.41,1.11,7\n", 32, ":1: expected");
    bad_file("front_Z_vs_T,0.84,1.22\nfront_Z_vs_T,0.41,1.11\n", 32, ":2: T = 0.41 does not increase");
    bad_file("front_Z_vs_T,0.41,1.11\nfront_Z_vs_T,0.84,1.22\nfront_Z_vs_T,1.19,1.44\n", 2, "more than 2");
    bad_file("# nothing\nheight_H_vs_tau,0.56,0.94\n", 32, "no front_Z_vs_T");
}

/* The history of Martin & Moyce's curve itself (scale 1) or 10 % further
 * (1.1), at the wall x0, width a, gravity g. */
static void own_curve(double a, double x0, double g, double scale)
{
    double t[MM + 1], x[MM + 1], worst = -1.0;
    int n = mm_history(a, x0, g, scale, t, x);
    fl_front_point pt[32];
    int c = fl_front_compare(t, x, n, a, x0, g, 0.0, 10.0, pt, 32, &worst);
    printf("a = %g m, x0 = %g m, g = %g m/s^2, scale %g: %d points, worst %.3g\n", a, x0, g, scale, c, worst);
    ENSURE(c == MM);
    for (int p = 0; p < c && p < MM; p++) {
        ENSURE(pt[p].T == T_mm[p] && pt[p].Z_mm == Z_mm[p]);
        ENSURE_NEAR(pt[p].Z, scale * Z_mm[p], 1e-9);
        ENSURE_NEAR(pt[p].err, scale - 1.0, scale == 1.0 ? 1e-12 : 1e-9);
    }
    ENSURE_NEAR(worst, scale - 1.0, 1e-9);
}

static void exact_curves(void)
{
    own_curve(0.2, 0.0, 9.81, 1.0);
    own_curve(0.2, 0.0, 9.81, 1.1);
    own_curve(0.05715, -0.35, 1.62, 1.0); /* Martin & Moyce's a, the Moon's g, the wall left of 0 */
    own_curve(1.5, 2.0, 25.0, 1.1);

    /* the Moon's history read with Earth's g lands on the wrong times */
    double t[MM + 1], x[MM + 1], worst;
    int n = mm_history(0.05715, -0.35, 1.62, 1.0, t, x);
    fl_front_point pt[32];
    ENSURE(fl_front_compare(t, x, n, 0.05715, -0.35, 9.81, 0.0, 10.0, pt, 32, &worst) == MM);
    ENSURE(worst > 0.3);
}

static void interpolation(void)
{
    const double a = 0.2, x0 = 0.05, g = 9.81, t_of_T = sqrt(a / (2.0 * g));
    const double tb = 2.2 * t_of_T; /* the middle sample sits on Martin & Moyce's T = 2.2 */
    double t[3] = {0.0, tb, 0.6}, x[3] = {x0 + 0.2, x0 + 0.5, x0 + 0.7}, worst;
    fl_front_point pt[32];
    int c = fl_front_compare(t, x, 3, a, x0, g, 0.0, 10.0, pt, 32, &worst);
    ENSURE(c == MM);
    double most = 0.0;
    for (int p = 0; p < c && p < MM; p++) {
        double tp = T_mm[p] * t_of_T;
        double xe = tp <= tb ? 0.2 + 0.3 * tp / tb : 0.5 + 0.2 * (tp - tb) / (0.6 - tb);
        printf("coarse T = %.2f: Z = %.6f, expected %.6f, err %+.6f\n", pt[p].T, pt[p].Z, xe / a, pt[p].err);
        ENSURE_NEAR(pt[p].Z, xe / a, 1e-12);
        ENSURE_NEAR(pt[p].err, xe / a / Z_mm[p] - 1.0, 1e-12);
        most = fmax(most, fabs(xe / a / Z_mm[p] - 1.0));
    }
    ENSURE(pt[7].T == 2.2);
    ENSURE_NEAR(pt[7].Z, 0.5 / a, 1e-15); /* exactly the sample */
    ENSURE_NEAR(worst, most, 1e-12);
}

static void filters(void)
{
    const double a = 0.2, x0 = 0.0, g = 9.81;
    double t[MM + 1], x[MM + 1], worst;
    int n = mm_history(a, x0, g, 1.1, t, x);
    fl_front_point pt[32];

    int c = fl_front_compare(t, x, n, a, x0, g, 1.0, 3.0, pt, 32, &worst);
    ENSURE(c == 11);
    ENSURE(pt[0].T == 1.19 && pt[c - 1].T == 2.98);
    ENSURE_NEAR(worst, 0.1, 1e-9);

    c = fl_front_compare(t, x, 8, a, x0, g, 0.0, 10.0, pt, 32, &worst); /* ends at T = 1.98 */
    ENSURE(c == 7);
    ENSURE(pt[c - 1].T == 1.98);
    c = fl_front_compare(t + 4, x + 4, n - 4, a, x0, g, 0.0, 10.0, pt, 32, &worst); /* starts at T = 1.43 */
    ENSURE(c == 12);
    ENSURE(pt[0].T == 1.43 && pt[c - 1].T == 3.33);
    c = fl_front_compare(t, x, n, a, x0, g, 1.0, 3.0, pt, 5, &worst);
    ENSURE(c == 5);
    ENSURE(pt[0].T == 1.19 && pt[4].T == 1.98);

    worst = -1.0;
    ENSURE(fl_front_compare(t, x, 0, a, x0, g, 0.0, 10.0, pt, 32, &worst) == 0);
    ENSURE(worst == 0.0);
    ENSURE(fl_front_compare(t, x, n, a, x0, g, 3.5, 10.0, pt, 32, &worst) == 0);
    ENSURE(worst == 0.0);
    ENSURE(fl_front_compare(t, x, n, 0.0, x0, g, 0.0, 10.0, pt, 32, &worst) == -1);
    ENSURE(fl_front_compare(t, x, n, a, x0, -9.81, 0.0, 10.0, pt, 32, &worst) == -1);
}

static void column_height(void)
{
    double tau[32], H[32], t[33], y[33];
    fl_error err = {""};
    const int n = fl_martin_moyce_height(tau, H, 32, &err);
    ENSURE(n == 17);
    ENSURE(n > 0 && tau[0] == 0.56 && H[0] == 0.94 && tau[n - 1] == 7.4 && H[n - 1] == 0.06);
    const double a = 0.2, y0 = -0.1, g = 9.81;
    static const double scales[2] = {1.0, 0.95};
    for (int q = 0; q < 2; q++) {
        const double scale = scales[q];
        t[0] = 0.0, y[0] = y0 + 2.0 * a;
        for (int p = 0; p < n && n <= 32; p++)
            t[p + 1] = tau[p] * sqrt(a / g), y[p + 1] = y0 + scale * 2.0 * a * H[p];
        fl_front_point pt[32];
        double worst;
        const int c = fl_height_compare(t, y, n + 1, a, y0, g, 0.5, 2.5, pt, 32, &worst);
        ENSURE(c == 11);
        for (int p = 0; p < c; p++)
            ENSURE_NEAR(pt[p].err, scale - 1.0, 1e-12);
        ENSURE_NEAR(worst, 1.0 - scale, 1e-12);
    }
}

int main(void)
{
    reading();
    exact_curves();
    interpolation();
    filters();
    column_height();
    return fl_test_report("test_front");
}
