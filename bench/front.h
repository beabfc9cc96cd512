/* front.h: the dam break against Martin & Moyce (1952): their measured
 * surge front and residual column height (reference/martin_moyce_1952_n2.csv)
 * and the comparison of a run's history with them, non-dimensionalised as
 * they did: the front Z = x / a against T = t sqrt(2 g / a), the height
 * H = eta / (2 a) against tau = t sqrt(g / a), for a column of width a and
 * height 2 a. One implementation for the tests, the figures and validate. */
#ifndef FL_FRONT_H
#define FL_FRONT_H

#include "fl_common.h"

/* A point of the comparison; for the column height (fl_height_compare) T
 * is tau and Z is H. */
typedef struct fl_front_point {
    double T;      /* Martin & Moyce's non-dimensional time, t sqrt(2 g / a) */
    double Z_mm;   /* their front, x / a */
    double Z;      /* the run's front at that T, interpolated linearly between samples */
    double err;    /* Z / Z_mm - 1 */
} fl_front_point;

/* Reads Martin & Moyce's surge front (T, Z) from FL_SOURCE_DIR "/reference/martin_moyce_1952_n2.csv";
 * returns the number of points (15) or -1 with err set (file, what was wrong). */
int fl_martin_moyce(double *T, double *Z, int max, fl_error *err);

/* The same from the file at path (the front_Z_vs_T rows of a file laid out
 * as reference/martin_moyce_1952_n2.csv): at most max points, T increasing;
 * -1 with err set when the file cannot be read, a front row does not parse,
 * T does not increase, there are more than max points or none. */
int fl_martin_moyce_file(const char *path, double *T, double *Z, int max, fl_error *err);

/* Compares a front history (t[k], x[k]), k < n, t increasing, of a column of width a whose wall is
 * at x = x0 under gravity g (m/s^2, positive) with Martin & Moyce over T_lo <= T <= T_hi: writes one
 * fl_front_point per Martin & Moyce time inside both that range and the history, returns their count
 * (at most max) and the largest |err| in *worst (0 when none).
 * When more than max points qualify, the first max (in T) are written and
 * *worst is over them. t in s; x, x0 and a in m. A point exactly at a
 * sample takes that sample's x. Returns -1 (and *worst = 0) when a or g is
 * not positive or Martin & Moyce's file cannot be read. */
int fl_front_compare(const double *t, const double *x, int n, double a, double x0, double g,
                     double T_lo, double T_hi, fl_front_point *out, int max, double *worst);

/* Reads their residual column height (tau, H), the height_H_vs_tau rows of
 * the same file: the number of points (17) or -1 with err set. */
int fl_martin_moyce_height(double *tau, double *H, int max, fl_error *err);

/* fl_front_compare for the residual column height: a history (t[k], y[k])
 * of the column's top (m) over a floor at y = y0, compared with their
 * H = (y - y0) / (2 a) at tau = t sqrt(g / a) over tau_lo <= tau <= tau_hi;
 * the same points, count, *worst and -1. */
int fl_height_compare(const double *t, const double *y, int n, double a, double y0, double g,
                      double tau_lo, double tau_hi, fl_front_point *out, int max, double *worst);

#endif
