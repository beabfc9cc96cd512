/* test_sph.c: standard SPH.
 *  1. Hydrostatic tank (scenes/hydrostatic.json, 1 m deep, d = 0.05 m):
 *     after 2 s the mean compression error lies between a quarter and twice
 *     the EOS's prediction, no particle is outside the domain, the mean
 *     speed is under 0.05 m/s, and the pressure grows with depth at the rate
 *     that balances gravity through the discrete gradient, rho0 g / kappa,
 *     within 3 % (the walls' hydrostatic pressure, fl_wall_pressure, is what
 *     brings it there), and within 10 % of rho0 g itself.
 *  2. Momentum: the symmetric pressure and viscosity forces conserve the
 *     total momentum of a free, compressed blob without gravity. */
#include <math.h>
#include <stdlib.h>

#include "ensure.h"
#include "validation.h"

static void hydrostatic(void)
{
    tank_result r = run_tank("sph", 0.0);
    ENSURE(r.ok);
    ENSURE(r.samples == 450); /* dt = 1/900 s */
    ENSURE(r.kappa > 0.9 && r.kappa < 1.0);
    /* p = k (rho - rho0) and dp/dy = -rho0 g: the compression grows linearly
     * from 0 at the surface to g H / k at the floor; its mean is g H / (2k) */
    ENSURE(r.eos_mean > 0.0);
    ENSURE(r.err_avg < 2.0 * r.eos_mean);
    ENSURE(r.err_avg > 0.25 * r.eos_mean);
    ENSURE(r.outside == 0);
    ENSURE(r.mean_speed < 0.05);
    ENSURE(fabs(r.slope / r.balance - 1.0) < 0.03);
    ENSURE(fabs(r.slope / r.rho0g - 1.0) < 0.10); /* the bound, against rho0 g itself */
}

static void momentum(void)
{
    fl_world w;
    fl_error err;
    fl_box dom = {{0, 0, 0}, {1, 1, 1}}, blob = {{0.4, 0.4, 0.4}, {0.6, 0.6, 0.6}};
    double zero[3] = {0, 0, 0};
    fl_world_init(&w, &dom, zero, 1000.0, 0.02, 3);
    ENSURE(fl_world_fill_box(&w, &blob, 0.3, 42, &err) == FL_OK); /* jittered: uneven pressure */
    ENSURE(fl_world_sample_boundary(&w, &err) == FL_OK);
    ENSURE(fl_boundary_compute_volumes(&w, &err) == FL_OK);
    fl_params prm;
    fl_params_init(&prm, "test");
    fl_params_set(&prm, "clamp_negative", 0, &err);
    const fl_solver_ops *ops = test_ops("sph");
    void *sph = fl_solver_create(ops, &w, &prm, &err);
    fl_step_stats *st = calloc(1, sizeof *st);
    for (int k = 0; k < 50; k++)
        ops->step(sph, &w, 2e-4, st);
    ENSURE(test_sync(ops, sph, &w) == FL_OK);
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

/* test_sph [DEVICE]: the solver on the CPU, or on DEVICE (cuda, emu). */
int main(int argc, char **argv)
{
    if (fl_test_pick_device(argc, argv, "test_sph"))
        return 77;
    hydrostatic();
    momentum();
    return fl_test_report("test_sph");
}
