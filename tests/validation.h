/* validation.h: what the physics tests of the particle solvers share:
 * starting a solver on a shipped scene, the pressure slope of a tank at
 * rest and the slope at which the discrete SPH gradient balances gravity,
 * and Martin & Moyce's dam-break front. */
#ifndef FL_TEST_VALIDATION_H
#define FL_TEST_VALIDATION_H

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "kernels.h"

/* kappa = sum_j V (y_j - y_i) [grad_i W_ij]_y over a full lattice
 * neighborhood: the symmetric pressure force reads a linear pressure field
 * p = c y as kappa c, so a column at rest has dp/depth = rho0 g / kappa
 * (kappa is 1 for an exact gradient; 0.95 for spiky at h = 2d). */
static inline double lattice_gradient_factor(double d, double h, double mass, double rho0)
{
    double sum = 0.0;
    for (int i = -2; i <= 2; i++)
        for (int j = -2; j <= 2; j++)
            for (int k = -2; k <= 2; k++) {
                double y = j * d, r = sqrt((double)(i * i + j * j + k * k)) * d;
                sum += mass / rho0 * y * (-y) * fl_spiky_grad_factor((float)r, (float)h);
            }
    return sum;
}

/* Least-squares slope of p against depth below the surface, away from the
 * surface and the floor (2h). */
static inline double pressure_slope(const fl_world *w)
{
    const fl_particles *f = &w->fluid;
    double top = -INFINITY, sx = 0, sy = 0, sxx = 0, sxy = 0;
    int n = 0;
    for (int i = 0; i < f->count; i++)
        top = fmax(top, f->y[i]);
    for (int i = 0; i < f->count; i++) {
        double depth = top - f->y[i];
        if (depth > 2 * w->h && f->y[i] > 2 * w->h) {
            sx += depth, sy += f->p[i], sxx += depth * depth, sxy += depth * f->p[i];
            n++;
        }
    }
    return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

/* Loads scene (with overrides), builds its world and creates the solver
 * called name on it with the scene's parameters; NULL (with the message on
 * stderr) on failure. */
static inline void *start_solver(const char *name, const char *scene, const char *const *sets, int nsets,
                                 fl_scene *s, fl_world *w)
{
    fl_error err;
    fl_params prm;
    if (fl_scene_load(scene, sets, nsets, s, &err) || fl_build_world(s, w, &err)) {
        fprintf(stderr, "%s\n", err.msg);
        return NULL;
    }
    fl_scene_solver_params(s, name, &prm);
    void *solver = fl_solver_find(name)->create(w, &prm, &err);
    if (!solver)
        fprintf(stderr, "%s\n", err.msg);
    return solver;
}

/* Martin & Moyce's (1952) surge front, Z = x / a against T = t sqrt(2 g / a),
 * copied from ../shared/reference/ with its source; returns the number of
 * points read (15), at most max. */
static inline int martin_moyce_front(double *T, double *Z, int max)
{
    int n = 0;
    FILE *csv = fopen(FL_SOURCE_DIR "/tests/data/martin_moyce_1952_n2.csv", "r");
    if (!csv)
        return 0;
    char line[256];
    while (fgets(line, sizeof line, csv) && n < max)
        if (strncmp(line, "front_Z_vs_T,", 13) == 0 && sscanf(line + 13, "%lf,%lf", &T[n], &Z[n]) == 2)
            n++;
    fclose(csv);
    return n;
}

#endif
