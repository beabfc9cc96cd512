/* test_wcsph.c: weakly compressible SPH (Becker & Teschner 2007).
 *  1. Hydrostatic tank (scenes/hydrostatic.json, 1 m deep, d = 0.05 m,
 *     dt = 0.5 ms): after 2 s the pressure, regressed against depth and
 *     averaged over the last 0.5 s (a stiff EOS keeps ringing), rises at
 *     rho0 g / kappa within 3 %, the rate at which the discrete gradient
 *     balances gravity (tests/validation.h; kappa = 0.947 puts it 5.6 %
 *     above rho0 g), and within 10 % of rho0 g itself, the bound;
 *     the Tait EOS keeps the mean compression under
 *     1 %; no particle is outside the domain.
 *  2. Dam break (scenes/dam_break.json: a = 0.2 m, d = 0.01 m, a / d = 20,
 *     dt = 1/4800 s): the surge front, non-dimensionalised as Martin & Moyce
 *     (1952), Z = x / a against T = t sqrt(2 g / a), stays within 15 % of
 *     their measurements over 1.0 <= T <= 3.0.
 *  3. Momentum: pressure and artificial viscosity act in antisymmetric
 *     pairs, so a free blob keeps zero total momentum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "validation.h"

static void hydrostatic(void)
{
    tank_result r = run_tank("wcsph", 5e-4);
    ENSURE(r.ok);
    ENSURE(r.samples == 1000);
    ENSURE(fabs(r.slope / r.balance - 1.0) < 0.03);
    ENSURE(fabs(r.slope / r.rho0g - 1.0) < 0.10); /* the bound, against rho0 g itself */
    ENSURE(r.err_avg < 0.01);
    ENSURE(r.outside == 0);
}

static void dam_break_front(void)
{
    double worst;
    int compared = dam_front("wcsph", FL_SOURCE_DIR "/scenes/dam_break.json", "", &worst, NULL);
    ENSURE(compared == 11);
    ENSURE(worst < 0.15);
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
    fl_params_set(&prm, "speed_of_sound", 20.0, &err);
    fl_params_set(&prm, "alpha", 0.5, &err);
    fl_params_set(&prm, "clamp_negative", 0, &err);
    const fl_solver_ops *ops = test_ops("wcsph");
    void *solver = fl_solver_create(ops, &w, &prm, &err);
    fl_step_stats *st = calloc(1, sizeof *st);
    for (int k = 0; k < 50; k++)
        ops->step(solver, &w, 2e-4, st);
    ENSURE(test_sync(ops, solver, &w) == FL_OK);
    double p[3] = {0, 0, 0}, vmax = 0;
    const fl_particles *f = &w.fluid;
    for (int i = 0; i < f->count; i++) {
        p[0] += f->vx[i], p[1] += f->vy[i], p[2] += f->vz[i];
        vmax = fmax(vmax, fabs(f->vx[i]) + fabs(f->vy[i]) + fabs(f->vz[i]));
    }
    double pn = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    printf("momentum after 50 steps: |sum v| = %.3g, N vmax = %.3g\n", pn, f->count * vmax);
    ENSURE(vmax > 0.01);
    ENSURE(pn < 1e-4 * f->count * vmax);
    free(st);
    ops->destroy(solver);
    fl_world_free(&w);
}

/* test_wcsph [DEVICE]: the solver on the CPU, or on DEVICE (cuda, emu). */
int main(int argc, char **argv)
{
    if (fl_test_pick_device(argc, argv, "test_wcsph"))
        return 77;
    hydrostatic();
    dam_break_front();
    momentum();
    return fl_test_report("test_wcsph");
}
