/* analytic.c: the analytic flows of analytic.h (Taylor-Green, Poiseuille). */
#include "analytic.h"

#include <math.h>

#include "kernels.h"

void fl_taylor_green_velocity(double U, double L, double x0, double y0, double x, double y, double v[2])
{
    const double k = 2.0 * FL_PI / L;
    const double kx = k * (x - x0), ky = k * (y - y0);
    v[0] = U * sin(kx) * cos(ky);
    v[1] = -U * cos(kx) * sin(ky);
}

double fl_taylor_green_energy_rate(double nu, double L)
{
    const double k = 2.0 * FL_PI / L;
    return 4.0 * nu * k * k;
}

double fl_poiseuille_steady(double g, double nu, double H, double y)
{
    return y <= 0.0 || y >= H ? 0.0 : g * y * (H - y) / (2.0 * nu);
}

double fl_poiseuille_transient(double g, double nu, double H, double y, double t)
{
    if (y <= 0.0 || y >= H)
        return 0.0;
    const double peak = g * H * H / (8.0 * nu);
    double u = fl_poiseuille_steady(g, nu, H, y);
    for (int n = 0; n < 2000; n++) {
        const double m = 2.0 * n + 1.0;
        const double amp = 4.0 * g * H * H / (nu * FL_PI * FL_PI * FL_PI * m * m * m) *
                           exp(-m * m * FL_PI * FL_PI * nu * t / (H * H));
        if (amp < 1e-12 * peak)
            break;
        u -= amp * sin(m * FL_PI * y / H);
    }
    return u;
}
