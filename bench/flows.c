/* flows.c: the measurements of flows.h (Taylor-Green energy decay,
 * Poiseuille profiles). */
#include "flows.h"

#include <math.h>
#include <string.h>

#include "analytic.h"
#include "kernels.h"

double fl_flow_kinetic_energy(const fl_particles *f, double mass)
{
    double sum = 0.0;
    for (int i = 0; i < f->count; i++)
        sum += (double)f->vx[i] * f->vx[i] + (double)f->vy[i] * f->vy[i] + (double)f->vz[i] * f->vz[i];
    return 0.5 * mass * sum;
}

int fl_taylor_green_fit(const double *t, const double *E, int n, double nu, double L, fl_tg_fit *out)
{
    out->rate = out->nu_eff = out->error = out->worst = NAN;
    out->exact = fl_taylor_green_energy_rate(nu, L);
    if (n < 2)
        return -1;
    double st = 0.0, sy = 0.0, stt = 0.0, sty = 0.0;
    for (int q = 0; q < n; q++) {
        if (!(E[q] > 0.0) || !isfinite(E[q]))
            return -1;
        const double y = log(E[q]);
        st += t[q], sy += y, stt += t[q] * t[q], sty += t[q] * y;
    }
    const double k = 2.0 * FL_PI / L;
    out->rate = -(n * sty - st * sy) / (n * stt - st * st);
    out->nu_eff = out->rate / (4.0 * k * k);
    out->error = out->rate / out->exact - 1.0;
    out->worst = 0.0;
    for (int q = 0; q < n; q++)
        out->worst = fmax(out->worst, fabs(E[q] / (E[0] * exp(-out->exact * (t[q] - t[0]))) - 1.0));
    return 0;
}

void fl_flow_profile(const fl_particles *f, double y0, double H, int bins, fl_profile *p)
{
    memset(p, 0, sizeof *p);
    p->bins = bins < 1 ? 1 : bins > FL_PROFILE_MAX_BINS ? FL_PROFILE_MAX_BINS : bins;
    for (int i = 0; i < f->count; i++) {
        const double y = f->y[i] - y0;
        const int b = (int)floor(y / H * p->bins);
        if (y < 0.0 || b < 0 || b >= p->bins)
            continue;
        p->y[b] += y, p->u[b] += f->vx[i], p->count[b]++;
    }
    for (int b = 0; b < p->bins; b++)
        if (p->count[b] > 0)
            p->y[b] /= p->count[b], p->u[b] /= p->count[b];
}

double fl_poiseuille_error(const fl_profile *p, double g, double nu, double H, double t)
{
    double sum = 0.0;
    int used = 0;
    for (int b = 0; b < p->bins; b++) {
        if (p->count[b] == 0)
            continue;
        const double exact = t < 0.0 ? fl_poiseuille_steady(g, nu, H, p->y[b])
                                     : fl_poiseuille_transient(g, nu, H, p->y[b], t);
        sum += (p->u[b] - exact) * (p->u[b] - exact), used++;
    }
    return used > 0 ? sqrt(sum / used) / (g * H * H / (8.0 * nu)) : NAN;
}
