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

/* The scene text of a periodic box of side L at spacing d (2D), or the 3D one. */
static void box_text(int dims, double L, double d, char *text, size_t size)
{
    if (dims == 2)
        snprintf(text, size, box_2d, L, L, d, L, L);
    else
        snprintf(text, size, "%s", box_3d);
}

/* A world from a scene text, with its neighbor grid and a shift of A = 4. */
typedef struct shift_case {
    fl_scene s;
    fl_world w;
    fl_nbgrid g;
    fl_shift sh;
    fl_step_stats *st;
} shift_case;

static int case_start(shift_case *c, const char *text)
{
    fl_error err;
    memset(c, 0, sizeof *c);
    c->st = calloc(1, sizeof *c->st);
    if (!c->st || world_from_text(text, "shifting.json", &c->s, &c->w) || fl_nbgrid_init(&c->g, &c->w, &err) ||
        fl_shift_init(&c->sh, 4.0, c->w.fluid.count, &err)) {
        ENSURE(0);
        return -1;
    }
    return 0;
}

static void case_end(shift_case *c)
{
    fl_shift_free(&c->sh);
    fl_nbgrid_free(&c->g);
    free(c->st);
    fl_world_free(&c->w);
    fl_scene_free(&c->s);
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
    char text[1024];
    shift_case c;
    box_text(dims, 0.2, 0.01, text, sizeof text);
    if (case_start(&c, text))
        return;
    const double dt = 1e-3, cap = FL_SHIFT_MAX * 1.0 * dt;
    set_velocity(&c.w.fluid, 1.0f);
    double moving = largest_shift(&c.sh, &c.w, &c.g, dt, c.st);
    set_velocity(&c.w.fluid, 0.0f);
    double still = largest_shift(&c.sh, &c.w, &c.g, dt, c.st);
    printf("lattice %dD: %d particles, largest shift %.3g of the cap at 1 m/s, %.3g m at rest\n", dims,
           c.w.fluid.count, moving / cap, still);
    ENSURE(moving < 1e-4 * cap);
    ENSURE(still == 0.0);
    case_end(&c);
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
    char text[1024];
    shift_case c;
    const double d = 1.0 / 32.0;
    box_text(2, 1.0, d, text, sizeof text);
    if (case_start(&c, text))
        return;
    fl_particles *f = &c.w.fluid;
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
        fl_step_stats_reset(c.st);
        rc = fl_step_begin(&c.w, &c.g, 1, 0, NULL, c.st);
        if (k == 0)
            before = density_spread(&c.w);
        if (k == 100)
            middle = density_spread(&c.w);
        fl_step_finish(&c.w, &c.g, zero, zero, zero, &c.sh, dt, 0.0, 0.0, c.st);
        for (int i = 0; i < n; i++)
            top = fmax(top, sqrt((double)c.sh.dx[i] * c.sh.dx[i] + (double)c.sh.dy[i] * c.sh.dy[i]));
    }
    fl_step_stats_reset(c.st);
    ENSURE(rc == FL_OK && fl_step_begin(&c.w, &c.g, 1, 0, NULL, c.st) == FL_OK);
    const double after = density_spread(&c.w);
    printf("disorder: %d particles, density spread %.4f before, %.4f after 100 steps, %.4f after 400 (%.1fx); largest "
           "shift %.4f of the cap\n", n, before, middle, after, before / after, top / cap);
    ENSURE(after < 0.5 * before);
    ENSURE(after < 1.03 * middle);
    ENSURE(top <= cap * (1.0 + 1e-5));
    ENSURE(c.st->nan_count == 0 && f->count == n);
    free(zero);
    case_end(&c);
}

static const char *const block_scene =
    "{\"dimensions\": 2, \"time\": {\"duration\": 1}, \"domain\": {\"min\": [0, 0], \"max\": [1, 1]},"
    " \"gravity\": [0, 0], \"fluid\": {\"spacing\": 0.02, \"blocks\": [{\"min\": [0.2, 0], \"max\": [0.6, 0.4]}]}}";

static void surface(void)
{
    shift_case c;
    if (case_start(&c, block_scene))
        return;
    const fl_particles *f = &c.w.fluid;
    set_velocity(&c.w.fluid, 1.0f);
    largest_shift(&c.sh, &c.w, &c.g, 1e-3, c.st);
    const float d = (float)c.w.spacing;
    int edge = 0, still = 0, moved = 0;
    for (int i = 0; i < f->count; i++) {
        const int on_edge = f->y[i] > 0.4f - d || (f->y[i] > 0.1f && (f->x[i] < 0.2f + d || f->x[i] > 0.6f - d));
        const int zero = c.sh.dx[i] == 0.0f && c.sh.dy[i] == 0.0f;
        edge += on_edge, still += on_edge && zero, moved += !zero;
    }
    printf("surface: %d particles, %d on the free surface (the top row and the side columns), %d of them not "
           "shifted; %d shifted in all\n", f->count, edge, still, moved);
    ENSURE(edge > 0 && still == edge);
    ENSURE(moved > 0);
    case_end(&c);
}

int main(void)
{
    lattice_case(2);
    lattice_case(3);
    disorder();
    surface();
    return fl_test_report("test_shifting");
}
