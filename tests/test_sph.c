/* test_sph.c: standard SPH.
 *  1. Hydrostatic tank (scenes/hydrostatic.json, 1 m deep, d = 0.05 m):
 *     after 2 s the mean compression error lies between a quarter and twice
 *     the EOS's prediction, no particle is outside the domain, the mean
 *     speed is under 0.05 m/s, and the pressure grows with depth at the rate
 *     that balances gravity through the discrete gradient, within 10 %.
 *  2. Momentum: the symmetric pressure and viscosity forces conserve the
 *     total momentum of a free, compressed blob without gravity. */
#include <math.h>
#include <stdlib.h>

#include "ensure.h"
#include "validation.h"

static void hydrostatic(void)
{
    fl_scene s;
    fl_world w;
    fl_error err;
    fl_params prm;
    ENSURE(fl_scene_load(FL_SOURCE_DIR "/scenes/hydrostatic.json", NULL, 0, &s, &err) == FL_OK);
    ENSURE(fl_build_world(&s, &w, &err) == FL_OK);
    fl_scene_solver_params(&s, "sph", &prm);
    const fl_solver_ops *ops = fl_solver_find("sph");
    void *sph = ops->create(&w, &prm, &err);
    ENSURE(sph != NULL);
    fl_step_stats *st = calloc(1, sizeof *st);
    double dt = fl_scene_dt(&s), k_eos = 0.0;
    fl_params_get(&prm, "stiffness", 0.0, 0.0, 1e12, &k_eos, &err);
    long long steps = (long long)ceil(2.0 / dt - 1e-9);
    /* the slope is averaged over every step of the last 0.5 s, so that the
     * remaining acoustic ringing averages out */
    double slope_sum = 0.0;
    int samples = 0, rc = FL_OK;
    for (long long k = 1; k <= steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(sph, &w, dt, st);
        if (k * dt > 1.5 + 1e-9)
            slope_sum += pressure_slope(&w), samples++;
    }
    ENSURE(rc == FL_OK);
    fl_nbgrid g;
    float *rho = malloc(sizeof(float) * (size_t)w.fluid.count);
    ENSURE(fl_nbgrid_init(&g, &w, &err) == FL_OK);
    ENSURE(fl_measure_density(&w, &g, rho, st, &err) == FL_OK);

    const fl_particles *f = &w.fluid;
    int outside = 0;
    double speed = 0.0;
    for (int i = 0; i < f->count; i++) {
        float x[3] = {f->x[i], f->y[i], f->z[i]};
        for (int a = 0; a < 3; a++)
            outside += !(x[a] >= w.domain.lo[a] && x[a] <= w.domain.hi[a]);
        speed += sqrt((double)f->vx[i] * f->vx[i] + (double)f->vy[i] * f->vy[i] + (double)f->vz[i] * f->vz[i]);
    }
    speed /= f->count;
    double slope = slope_sum / samples;
    double kappa = lattice_gradient_factor(w.spacing, w.h, w.mass, w.rho0);
    double expect = w.rho0 * 9.81 / kappa;
    /* p = k (rho - rho0) and dp/dy = -rho0 g: the compression grows linearly
     * from 0 at the surface to g H / k at the floor; its mean is g H / (2k) */
    double depth = s.blocks[0].hi[1] - s.blocks[0].lo[1];
    double eos_mean = 9.81 * depth / (2.0 * k_eos);
    printf("hydrostatic SPH after 2 s: compression avg %.4f %% (EOS: %.4f %%), max %.4f %%, mean speed %.4f m/s, "
           "dp/depth %.1f Pa/m (rho0 g / kappa = %.1f, kappa = %.4f, %d samples), outside %d\n",
           100 * st->density_err_avg, 100 * eos_mean, 100 * st->density_err_max, speed, slope, expect, kappa,
           samples, outside);
    ENSURE(samples == (int)floor(0.5 / dt + 0.5));
    ENSURE(kappa > 0.9 && kappa < 1.0);
    ENSURE(st->density_err_avg < 2.0 * eos_mean);
    ENSURE(st->density_err_avg > 0.25 * eos_mean);
    ENSURE(outside == 0);
    ENSURE(speed < 0.05);
    ENSURE(fabs(slope / expect - 1.0) < 0.10);
    free(rho), free(st);
    fl_nbgrid_free(&g);
    ops->destroy(sph);
    fl_world_free(&w);
    fl_scene_free(&s);
}

static void momentum(void)
{
    fl_world w;
    fl_error err;
    fl_box dom = {{0, 0, 0}, {1, 1, 1}}, blob = {{0.4, 0.4, 0.4}, {0.6, 0.6, 0.6}};
    double zero[3] = {0, 0, 0};
    fl_world_init(&w, &dom, zero, 1000.0, 0.02);
    ENSURE(fl_world_fill_box(&w, &blob, 0.3, 42, &err) == FL_OK); /* jittered: uneven pressure */
    ENSURE(fl_world_sample_boundary(&w, &err) == FL_OK);
    ENSURE(fl_boundary_compute_volumes(&w, &err) == FL_OK);
    fl_params prm;
    fl_params_init(&prm, "test");
    fl_params_set(&prm, "clamp_negative", 0, &err);
    const fl_solver_ops *ops = fl_solver_find("sph");
    void *sph = ops->create(&w, &prm, &err);
    fl_step_stats *st = calloc(1, sizeof *st);
    for (int k = 0; k < 50; k++)
        ops->step(sph, &w, 2e-4, st);
    double p[3] = {0, 0, 0}, vmax = 0;
    const fl_particles *f = &w.fluid;
    for (int i = 0; i < f->count; i++) {
        p[0] += f->vx[i], p[1] += f->vy[i], p[2] += f->vz[i];
        vmax = fmax(vmax, fabs(f->vx[i]) + fabs(f->vy[i]) + fabs(f->vz[i]));
    }
    double pn = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    printf("momentum after 50 steps: |sum v| = %.3g, N vmax = %.3g\n", pn, f->count * vmax);
    ENSURE(vmax > 0.01);                    /* the jitter did set the blob in motion */
    ENSURE(pn < 1e-4 * f->count * vmax);    /* ... without net momentum */
    free(st);
    ops->destroy(sph);
    fl_world_free(&w);
}

int main(void)
{
    hydrostatic();
    momentum();
    return fl_test_report("test_sph");
}
