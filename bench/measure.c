/* measure.c: measurements shared by the tests and the course (measure.h). */
#include "measure.h"

#include <math.h>

#include "kernels.h"

double fl_lattice_gradient_factor(double d, double h, double mass, double rho0, int dims)
{
    double sum = 0.0;
    const int kr = dims == 2 ? 0 : 2;
    for (int i = -2; i <= 2; i++)
        for (int j = -2; j <= 2; j++)
            for (int k = -kr; k <= kr; k++) {
                double y = j * d, r = sqrt((double)(i * i + j * j + k * k)) * d;
                sum += mass / rho0 * y * (-y) * fl_spiky_grad_factor((float)r, (float)h, dims);
            }
    return sum;
}

double fl_pressure_slope(const fl_world *w)
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
