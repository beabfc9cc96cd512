/* test_shifting.c: particle shifting (fl_shift_compute, fl_shift_pair,
 * fl_shift_displacement; docs/methods/shifting.md).
 *
 *  lattice   a periodic box of fluid on its lattice (2D 20 x 20, 3D 10^3)
 *            moving at a uniform 1 m/s: every particle's neighborhood is
 *            the same and symmetric, so grad C = 0 and no particle is
 *            shifted farther than rounding, 1e-4 of the step's cap (U dt /
 *            2; measured 3.5e-5 in 2D, 1.7e-5 in 3D, a position's ulp); at
 *            rest (U = 0) not at all. Fails on a missing or one-sided
 *            neighbor term, a wrong image across a face.
 *  disorder  the 2D box (32 x 32) with every particle moved off its site by
 *            up to 0.3 d along each axis (a fixed pseudo-random sequence),
 *            moving at 1 m/s, 400 steps of dt = d / (4 m/s) with shifting
 *            A = 4 and the step's own transport (fl_step_finish, no
 *            force): the spread of the density estimate (RMS of rho_i /
 *            rho0 - 1) at least halves (measured: 0.102 to 0.026, 3.9x;
 *            shifting evens out the gaps but leaves a disordered, not a
 *            lattice, arrangement), does not grow again from step 100 to
 *            400 by more than 3 % (measured: it falls), every step's shift
 *            is within the cap (U dt / 2) and no particle is lost. Fails on
 *            a shift of the wrong sign (towards the crowd: the spread
 *            grows), on pairs that clump (with poly6's gradient, which
 *            vanishes at r = 0, the spread fell to 0.051 by step 50 and
 *            rose to 0.062 by step 400), on a cap not applied (without
 *            it the spread went from 0.10 to 0.48).
 *  surface   a 2D block of fluid on the floor of a larger box, at 1 m/s:
 *            the particles of its free surface (kernel sum under
 *            FL_SHIFT_SURFACE) are not shifted, exactly; the top row and the
 *            free side columns are among them. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "particle_common.h"
#include "validation.h"

static const char *const box_2d =
    "{\"dimensions\": 2, \"time\": {\"duration\": 1}, \"domain\": {\"min\": [0, 0], \"max\": [%g, %g]},"
    " \"periodic\": [true, true], \"gravity\": [0, 0],"
    " \"fluid\": {\"spacing\": %g, \"blocks\": [{\"min\": [0, 0], \"max\": [%g, %g]}]}}";
static const char *const box_3d =
    "{\"dimensions\": 3, \"time\": {\"duration\": 1}, \"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
    " \"periodic\": [true, true, true], \"gravity\": [0, 0, 0],"
    " \"fluid\": {\"spacing\": 0.02, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]}]}}";

/* A periodic box of side L at spacing d (2D), or the 3D one. */
static int make_box(int dims, double L, double d, fl_scene *s, fl_world *w)
{
    char text[1024];
    if (dims == 2)
        snprintf(text, sizeof text, box_2d, L, L, d, L, L);
    else
        snprintf(text, sizeof text, "%s", box_3d);
    return world_from_text(text, "shifting.json", s, w);
}

static void set_velocity(fl_particles *f, float u)
{
    for (int i = 0; i < f->count; i++)
        f->vx[i] = u, f->vy[i] = 0.0f, f->vz[i] = 0.0f;
}

/* The largest |dr| of the shift for a step of dt at the particles' places
 * (the grid searched and the density evaluated first). */
static double largest_shift(fl_shift *sh, fl_world *w, fl_nbgrid *g, double dt, fl_step_stats *st)
{
    ENSURE(fl_step_begin(w, g, 1, 0, NULL, st) == FL_OK);
    fl_shift_compute(sh, w, g, dt);
    double top = 0.0;
    for (int i = 0; i < w->fluid.count; i++)
        top = fmax(top, sqrt((double)sh->dx[i] * sh->dx[i] + (double)sh->dy[i] * sh->dy[i] +
                             (double)sh->dz[i] * sh->dz[i]));
    return top;
}

static void lattice_case(int dims)
{
    fl_scene s;
    fl_world w;
    fl_error err;
    fl_nbgrid g;
    fl_shift sh;
    fl_step_stats *st = calloc(1, sizeof *st);
    if (make_box(dims, 0.2, 0.01, &s, &w) || fl_nbgrid_init(&g, &w, &err) ||
        fl_shift_init(&sh, 4.0, w.fluid.count, &err)) {
        ENSURE(0);
        return;
    }
    const double dt = 1e-3, cap = FL_SHIFT_MAX * 1.0 * dt;
    set_velocity(&w.fluid, 1.0f);
    double moving = largest_shift(&sh, &w, &g, dt, st);
    set_velocity(&w.fluid, 0.0f);
    double still = largest_shift(&sh, &w, &g, dt, st);
    printf("lattice %dD: %d particles, largest shift %.3g of the cap at 1 m/s, %.3g m at rest\n", dims, w.fluid.count,
           moving / cap, still);
    ENSURE(moving < 1e-4 * cap);
    ENSURE(still == 0.0);
    fl_shift_free(&sh);
    fl_nbgrid_free(&g);
    free(st);
    fl_world_free(&w);
    fl_scene_free(&s);
}

/* The RMS of rho_i / rho0 - 1 of the density the last fl_step_begin evaluated. */
static double density_spread(const fl_world *w)
{
    double sum = 0.0;
    for (int i = 0; i < w->fluid.count; i++) {
        double e = w->fluid.rho[i] / w->rho0 - 1.0;
        sum += e * e;
    }
    return sqrt(sum / w->fluid.count);
}

static void disorder(void)
{
    fl_scene s;
    fl_world w;
    fl_error err;
    fl_nbgrid g;
    fl_shift sh;
    const double d = 1.0 / 32.0;
    fl_step_stats *st = calloc(1, sizeof *st);
    if (make_box(2, 1.0, d, &s, &w) || fl_nbgrid_init(&g, &w, &err) || fl_shift_init(&sh, 4.0, w.fluid.count, &err)) {
        ENSURE(0);
        return;
    }
    fl_particles *f = &w.fluid;
    const int n = f->count;
    unsigned state = 12345u;
    for (int i = 0; i < n; i++)
        for (int a = 0; a < 2; a++) {
            state = state * 1664525u + 1013904223u; /* Numerical Recipes' LCG */
            float off = (float)(0.3 * d * ((state >> 8) / 8388608.0 - 1.0));
            float *p = a == 0 ? &f->x[i] : &f->y[i];
            *p = fl_wrap_coord(*p + off, 0.0f, 1.0f, 1.0f, 1.0f);
        }
    set_velocity(f, 1.0f);
    float *zero = calloc((size_t)n, sizeof *zero);
    const double dt = d / 4.0, cap = FL_SHIFT_MAX * 1.0 * dt;
    double before = 0.0, middle = 0.0, top = 0.0;
    int rc = FL_OK;
    for (int k = 0; k < 400 && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = fl_step_begin(&w, &g, 1, 0, NULL, st);
        if (k == 0)
            before = density_spread(&w);
        if (k == 100)
            middle = density_spread(&w);
        fl_shift_compute(&sh, &w, &g, dt);
        for (int i = 0; i < n; i++)
            top = fmax(top, sqrt((double)sh.dx[i] * sh.dx[i] + (double)sh.dy[i] * sh.dy[i]));
        fl_step_finish(&w, zero, zero, zero, &sh, dt, 0.0, 0.0, st);
    }
    fl_step_stats_reset(st);
    ENSURE(rc == FL_OK && fl_step_begin(&w, &g, 1, 0, NULL, st) == FL_OK);
    const double after = density_spread(&w);
    printf("disorder: %d particles, density spread %.4f before, %.4f after 100 steps, %.4f after 400 (%.1fx); largest "
           "shift %.4f of the cap\n", n, before, middle, after, before / after, top / cap);
    ENSURE(after < 0.5 * before);
    ENSURE(after < 1.03 * middle);
    ENSURE(top <= cap * (1.0 + 1e-5));
    ENSURE(st->nan_count == 0 && f->count == n);
    free(zero);
    fl_shift_free(&sh);
    fl_nbgrid_free(&g);
    free(st);
    fl_world_free(&w);
    fl_scene_free(&s);
}

static const char *const block_scene =
    "{\"dimensions\": 2, \"time\": {\"duration\": 1}, \"domain\": {\"min\": [0, 0], \"max\": [1, 1]},"
    " \"gravity\": [0, 0], \"fluid\": {\"spacing\": 0.02, \"blocks\": [{\"min\": [0.2, 0], \"max\": [0.6, 0.4]}]}}";

static void surface(void)
{
    fl_scene s;
    fl_world w;
    fl_error err;
    fl_nbgrid g;
    fl_shift sh;
    fl_step_stats *st = calloc(1, sizeof *st);
    if (world_from_text(block_scene, "shifting.json", &s, &w) || fl_nbgrid_init(&g, &w, &err) ||
        fl_shift_init(&sh, 4.0, w.fluid.count, &err)) {
        ENSURE(0);
        return;
    }
    const fl_particles *f = &w.fluid;
    set_velocity(&w.fluid, 1.0f);
    largest_shift(&sh, &w, &g, 1e-3, st);
    const float d = (float)w.spacing;
    int edge = 0, still = 0, moved = 0;
    for (int i = 0; i < f->count; i++) {
        const int on_edge = f->y[i] > 0.4f - d || (f->y[i] > 0.1f && (f->x[i] < 0.2f + d || f->x[i] > 0.6f - d));
        const int zero = sh.dx[i] == 0.0f && sh.dy[i] == 0.0f;
        edge += on_edge, still += on_edge && zero, moved += !zero;
    }
    printf("surface: %d particles, %d on the free surface (the top row and the side columns), %d of them not "
           "shifted; %d shifted in all\n", f->count, edge, still, moved);
    ENSURE(edge > 0 && still == edge);
    ENSURE(moved > 0);
    fl_shift_free(&sh);
    fl_nbgrid_free(&g);
    free(st);
    fl_world_free(&w);
    fl_scene_free(&s);
}

int main(void)
{
    lattice_case(2);
    lattice_case(3);
    disorder();
    surface();
    return fl_test_report("test_shifting");
}
