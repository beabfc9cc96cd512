/* hydrostatics.h: what the tank-at-rest tests of the particle solvers
 * measure: the pressure slope against depth, and the slope at which the
 * discrete SPH gradient balances gravity. */
#ifndef FL_TEST_HYDROSTATICS_H
#define FL_TEST_HYDROSTATICS_H

#include <math.h>

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

#endif
