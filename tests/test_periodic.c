/* test_periodic.c: periodic boundaries (docs/design.md, "Periodic boundaries").
 *
 *  grid    random points in a 3D box periodic along 1, 2 and 3 axes and in
 *          a 2D box periodic along x and along x and y, some of them up to
 *          h beyond a periodic face (particles that left through it): the
 *          grid's fluid and boundary lists equal a brute-force
 *          minimum-image search as sets, and the lists of 1 and 2 threads
 *          are the same arrays. The grid compares the distance of the
 *          image next to the particle, the brute force the minimum image
 *          of the difference: the two round differently, so a pair may
 *          differ only where r^2 is within 1e-5 of h^2 (none did). Fails
 *          on a missed cell across a face, a wrong image, a duplicate.
 *  wrap    the clamp of every particle solver (fl_clamp_particle,
 *          fl_pbf_collide, fl_predict_clamped) wraps a point that left
 *          through hi (lo) to the same point one period back (on) into
 *          [lo, hi), to rounding (1e-6 m on a 1 m period), and keeps its
 *          velocity; a non-periodic axis still clamps; a NaN coordinate
 *          stays NaN in all three, along either kind of axis.
 *  walls   a 2D channel periodic in x: the wall particles lie on two lines
 *          (none beyond the domain in x), as many as fl_world_count_boundary
 *          says, round(L/d) a line at lo + (i + 1/2) L/n; every wall
 *          particle's volume equals every other's within 1e-5 (relative):
 *          the walls see across the period, so none is an end. In 3D
 *          periodic in x and z the same for the floor and ceiling.
 *  rest S  a box of fluid on its lattice, periodic on every axis, no
 *          gravity (2D: 20 x 20 particles; 3D: 10^3), solver S at dt = 1e-3
 *          s (SPH: 2e-4 s): every particle has a full neighborhood through
 *          the faces, reads rho0 and feels no force, so the highest speed
 *          stays below 1e-4 m/s and no particle moves more than 1e-3 d. A
 *          missing image across a face leaves the particles next to it 25 to
 *          40 % under rho0 and moves them by tenths of d in a few steps; a
 *          wrap to the wrong side moves one by L. What moves is rounding:
 *          PBF's velocity (x* - x)/dt is a multiple of a position's ulp over
 *          dt, 7.5e-6 m/s. SPH and WCSPH run 200 steps (measured: 4e-5 and
 *          6e-12 m/s). For PCISPH and PBF the lattice at rest is an
 *          unstable equilibrium: every particle of a periodic lattice is
 *          like every other, so what differs is rounding (the first step's
 *          speeds are at the floor above, also next to the faces), and it
 *          grows by 20 to 35 % a step once it sets in (PBF 3D 1.8e-5 m/s at
 *          step 10, 8e-5 at 20, 3.5e-2 at 40, with or without s_corr; PBF
 *          2D 8.5e-5 at 29; PCISPH 3D 6e-6 at 10, 2.2e-5 at 49, 3e-3 at 99),
 *          so they run 10 steps, which a wrong image fails in the first.
 *  channel S  a 2D channel periodic in x (0.1 m x 0.1 m, d = 0.005 m),
 *          no-slip walls (Morris's viscosity, nu = 1e-3 m^2/s), gravity
 *          0.1 m/s^2 along x, 0.5 s of solver S: no particle lost or NaN,
 *          every particle inside the domain (x in [lo, hi)) after every
 *          step, some particles wrapped (measured 32 to 35), and the mean
 *          x velocity positive and at most g t (the walls can only slow the
 *          fluid down; 1 % for rounding). Not tuned: the bounds are
 *          physical. Measured mean u: sph 0.0371, wcsph 0.0360, pcisph
 *          0.0362, pbf 0.0233 m/s (g t = 0.05). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "particle_common.h"
#include "pbf_physics.h"
#include "validation.h"

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Sorted copy of the n ints at list. */
static void sorted(const int *list, int n, int *out)
{
    memcpy(out, list, (size_t)n * sizeof(int));
    qsort(out, (size_t)n, sizeof(int), cmp_int);
}

/* |r^2 / h^2 - 1| of the minimum image of p - q. */
static float tie(const fl_period *per, const float p[3], const float q[3], float h)
{
    float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    fl_min_image3(per, &dx, &dy, &dz);
    return fabsf((dx * dx + dy * dy + dz * dz) / (h * h) - 1.0f);
}

/* The brute-force minimum-image neighbors of p among the n points (x, y,
 * z), self excluded, ascending. */
static int brute(const fl_period *per, const float *x, const float *y, const float *z, int n, const float p[3],
                 int self, float h, int *out)
{
    int m = 0;
    for (int j = 0; j < n; j++) {
        float dx = p[0] - x[j], dy = p[1] - y[j], dz = p[2] - z[j];
        fl_min_image3(per, &dx, &dy, &dz);
        if (j != self && dx * dx + dy * dy + dz * dz < h * h)
            out[m++] = j;
    }
    return m;
}

/* Set equality of two ascending lists, but for pairs with r^2 within 1e-5
 * of h^2 (the two searches round differently there). Counts such ties. */
static int same_set(const int *a, int na, const int *b, int nb, const fl_period *per, const float p[3],
                    const float *x, const float *y, const float *z, float h, int *ties)
{
    int i = 0, k = 0, ok = 1;
    while (i < na || k < nb) {
        int j;
        if (k >= nb || (i < na && a[i] < b[k]))
            j = a[i++];
        else if (i >= na || b[k] < a[i])
            j = b[k++];
        else {
            i++, k++;
            continue;
        }
        const float q[3] = {x[j], y[j], z[j]};
        if (tie(per, p, q, h) < 1e-5f)
            ++*ties;
        else
            ok = 0;
    }
    return ok;
}

/* The grid against brute force in a box periodic along the axes `axes`
 * (dims 2 or 3), len long in x (h = 0.1 m), with walls where an axis does
 * not wrap. */
static void grid_case(int dims, const int axes[3], double len, int count, unsigned seed)
{
    fl_world w;
    fl_error err;
    const fl_box dom = {{0.1, -0.2, 0.0}, {0.1 + len, 0.6, 0.6}};
    const double g[3] = {0, 0, 0};
    fl_world_init(&w, &dom, g, 1000.0, 0.05, dims);
    memcpy(w.periodic, axes, sizeof w.periodic);
    ENSURE(fl_world_sample_boundary(&w, &err) == FL_OK);
    ENSURE(fl_world_count_boundary(&w) == w.boundary.count);
    srand(seed);
    for (int i = 0; i < count; i++) {
        float p[3];
        for (int a = 0; a < 3; a++) {
            double u = (double)rand() / RAND_MAX, lo = w.domain.lo[a], len = w.domain.hi[a] - lo;
            /* along a periodic axis, one point in five up to h beyond a face */
            double reach = w.periodic[a] && i % 5 == 0 ? w.h : 0.0;
            p[a] = (float)(lo - reach + u * (len + 2.0 * reach));
        }
        if (dims == 2)
            p[2] = 0.0f;
        fl_particles_add(&w.fluid, p[0], p[1], p[2], &err);
    }
    const fl_particles *f = &w.fluid;
    const fl_boundary *b = &w.boundary;
    const fl_period per = fl_period_of(&w);
    const float h = (float)w.h;
    fl_nbgrid g1, g2;
    omp_set_num_threads(1);
    int rc1 = fl_nbgrid_init(&g1, &w, &err);
    if (rc1 == FL_OK)
        rc1 = fl_nbgrid_build(&g1, f->x, f->y, f->z, f->count, &err);
    if (rc1 == FL_OK)
        rc1 = fl_nbgrid_search(&g1, f->x, f->y, f->z, &err);
    omp_set_num_threads(2);
    int rc2 = fl_nbgrid_init(&g2, &w, &err);
    if (rc2 == FL_OK)
        rc2 = fl_nbgrid_build(&g2, f->x, f->y, f->z, f->count, &err);
    if (rc2 == FL_OK)
        rc2 = fl_nbgrid_search(&g2, f->x, f->y, f->z, &err);
    ENSURE(rc1 == FL_OK && rc2 == FL_OK);
    if (rc1 != FL_OK || rc2 != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return;
    }
    int *got = malloc((size_t)(f->count + b->count) * sizeof(int));
    int *want = malloc((size_t)(f->count + b->count) * sizeof(int));
    int bad = 0, ties = 0;
    long long pairs = 0, across = 0;
    for (int i = 0; i < f->count; i++) {
        const float p[3] = {f->x[i], f->y[i], f->z[i]};
        int n = g1.nb_start[i + 1] - g1.nb_start[i];
        sorted(g1.nb + g1.nb_start[i], n, got);
        int m = brute(&per, f->x, f->y, f->z, f->count, p, i, h, want);
        bad += !same_set(got, n, want, m, &per, p, f->x, f->y, f->z, h, &ties);
        pairs += n;
        for (int k = 0; k < n; k++) {
            int j = got[k];
            float dx = p[0] - f->x[j], dy = p[1] - f->y[j], dz = p[2] - f->z[j];
            across += dx * dx + dy * dy + dz * dz >= h * h; /* found through a face */
        }
        n = g1.bnb_start[i + 1] - g1.bnb_start[i];
        sorted(g1.bnb + g1.bnb_start[i], n, got);
        m = brute(&per, b->x, b->y, b->z, b->count, p, -1, h, want);
        bad += !same_set(got, n, want, m, &per, p, b->x, b->y, b->z, h, &ties);
    }
    const int n = f->count;
    int same_threads = g1.nb_start[n] == g2.nb_start[n] && g1.bnb_start[n] == g2.bnb_start[n] &&
                       memcmp(g1.nb_start, g2.nb_start, (size_t)(n + 1) * sizeof(int)) == 0 &&
                       memcmp(g1.nb, g2.nb, (size_t)g1.nb_start[n] * sizeof(int)) == 0 &&
                       memcmp(g1.bnb, g2.bnb, (size_t)g1.bnb_start[n] * sizeof(int)) == 0;
    printf("grid %dD periodic %d%d%d, %d cells in x: %d points, %d walls, %lld pairs (%lld through a face), %d lists differ, "
           "%d ties\n", dims, axes[0], axes[1], axes[2], g1.dim[0], count, b->count, pairs, across, bad, ties);
    ENSURE(bad == 0);
    ENSURE(across > 0);
    ENSURE(same_threads);
    free(got);
    free(want);
    fl_nbgrid_free(&g1);
    fl_nbgrid_free(&g2);
    fl_world_free(&w);
}

static void grid(void)
{
    const int x[3] = {1, 0, 0}, xz[3] = {1, 0, 1}, xyz[3] = {1, 1, 1}, y[3] = {0, 1, 0}, xy[3] = {1, 1, 0};
    grid_case(3, x, 1.0, 3000, 1);
    grid_case(3, xz, 1.0, 3000, 2);
    grid_case(3, xyz, 1.0, 3000, 3);
    grid_case(3, y, 1.0, 3000, 4);
    grid_case(2, x, 1.0, 1500, 5);
    grid_case(2, xy, 1.0, 1500, 6);
    /* periods of 2h and 2.5h (two cells: the other one searched at both
     * images) and 3.3h (three cells of 1.1 h) */
    grid_case(3, xyz, 0.2, 800, 7);
    grid_case(3, x, 0.25, 800, 8);
    grid_case(2, xy, 0.33, 400, 9);
    /* the shortest period the grid takes, 2h: two cells, the other one searched at both images */
    fl_world w;
    fl_error err;
    const fl_box dom = {{0, 0, 0}, {0.2, 0.2, 0.2}};
    const double g[3] = {0, 0, 0};
    fl_world_init(&w, &dom, g, 1000.0, 0.05, 3);
    w.periodic[0] = 1;
    fl_nbgrid ng;
    ENSURE(fl_nbgrid_init(&ng, &w, &err) == FL_OK && ng.dim[0] == 2);
    fl_nbgrid_free(&ng);
    const fl_box short_dom = {{0, 0, 0}, {0.19, 0.2, 0.2}};
    fl_world_init(&w, &short_dom, g, 1000.0, 0.05, 3);
    w.periodic[0] = 1;
    ENSURE(fl_nbgrid_init(&ng, &w, &err) == FL_ERR_INPUT);
    printf("grid: a period under 2h: %s\n", err.msg);
    fl_nbgrid_free(&ng);
}

static void wrap(void)
{
    fl_world w;
    const fl_box dom = {{-0.5, 0, 0}, {0.5, 1, 1}};
    const double g[3] = {0, -9.81, 0};
    fl_world_init(&w, &dom, g, 1000.0, 0.05, 3);
    w.periodic[0] = 1;
    fl_walls walls, rounded;
    fl_walls_make(&w, 0, &walls);
    fl_walls_make(&w, 1, &rounded);
    /* left through hi by 0.03 m, and below the floor */
    float x[3] = {0.53f, -0.01f, 0.5f}, v[3] = {2.0f, -1.0f, 0.0f};
    fl_clamp_particle(&walls, x, v);
    printf("wrap: (0.53, -0.01) -> (%.7g, %.7g), v (%g, %g)\n", x[0], x[1], v[0], v[1]);
    ENSURE_NEAR(x[0], -0.47, 1e-6);
    ENSURE(x[1] == 0.0f);
    ENSURE(v[0] == 2.0f && v[1] == 0.0f);
    float q[3] = {-0.52f, 0.5f, 0.5f};
    fl_pbf_collide(&rounded, q);
    ENSURE_NEAR(q[0], 0.48, 1e-6);
    const float zero[3] = {0, 0, 0}, at[3] = {0.5f, 0.5f, 0.5f}, fast[3] = {-38.0f, 0.0f, 0.0f};
    fl_predict_clamped(&walls, at, fast, zero, 0.1f, q); /* 3.8 m to the left: 0.2 m short of four periods */
    ENSURE_NEAR(q[0], -0.3, 1e-5);
    ENSURE(q[0] >= -0.5f && q[0] < 0.5f);
    /* exactly on hi wraps onto lo */
    float e[3] = {0.5f, 0.5f, 0.5f}, ve[3] = {0, 0, 0};
    fl_clamp_particle(&walls, e, ve);
    ENSURE(e[0] == -0.5f);
    /* NaN stays NaN, to be counted, along a periodic axis and a walled
     * one, in every particle solver's clamp */
    float nan_x[3] = {NAN, NAN, 0.5f};
    fl_clamp_particle(&walls, nan_x, ve);
    ENSURE(isnan(nan_x[0]) && isnan(nan_x[1]));
    float nan_q[3] = {NAN, NAN, 0.5f};
    fl_pbf_collide(&rounded, nan_q);
    ENSURE(isnan(nan_q[0]) && isnan(nan_q[1]));
    const float nan_at[3] = {0.0f, NAN, 0.5f};
    fl_predict_clamped(&walls, nan_at, zero, zero, 0.1f, q);
    ENSURE(isnan(q[1]) && q[0] == 0.0f);
    /* the walled axis still clamps: below the floor to the floor */
    const float low[3] = {0.0f, -0.2f, 0.5f};
    fl_predict_clamped(&walls, low, zero, zero, 0.1f, q);
    ENSURE(q[1] == walls.lo[1]);
}

static void walls_case(int dims)
{
    fl_world w;
    fl_error err;
    const fl_box dom = {{0, 0, 0}, {0.2, 0.1, 0.15}};
    const double g[3] = {0, 0, 0};
    const double d = 0.005;
    fl_world_init(&w, &dom, g, 1000.0, d, dims);
    w.periodic[0] = 1;
    w.periodic[2] = dims == 3;
    ENSURE(fl_world_sample_boundary(&w, &err) == FL_OK);
    ENSURE(fl_world_count_boundary(&w) == w.boundary.count);
    ENSURE(fl_boundary_compute_volumes(&w, &err) == FL_OK);
    const fl_boundary *b = &w.boundary;
    const int nx = 40, nz = dims == 3 ? 30 : 1;
    ENSURE(b->count == 2 * nx * nz);
    double vmin = INFINITY, vmax = 0.0;
    int off_line = 0, beyond = 0;
    const double off = (dims == 2 ? FL_BOUNDARY_OFFSET_2D : FL_BOUNDARY_OFFSET) * d;
    for (int i = 0; i < b->count; i++) {
        vmin = fmin(vmin, b->volume[i]), vmax = fmax(vmax, b->volume[i]);
        off_line += fabs(b->y[i] - (-off)) > 1e-7 && fabs(b->y[i] - (0.1 + off)) > 1e-7;
        double u = b->x[i] / (0.2 / nx) - 0.5; /* a whole number on the lattice */
        beyond += b->x[i] < 0.0f || b->x[i] >= 0.2f || fabs(u - floor(u + 0.5)) > 1e-4;
        if (dims == 3) {
            double s = b->z[i] / (0.15 / nz) - 0.5;
            beyond += b->z[i] < 0.0f || b->z[i] >= 0.15f || fabs(s - floor(s + 0.5)) > 1e-4;
        }
    }
    printf("walls %dD: %d wall particles, volumes %.6g .. %.6g (spread %.2g)\n", dims, b->count, vmin, vmax,
           (vmax - vmin) / vmax);
    ENSURE(off_line == 0);
    ENSURE(beyond == 0);
    ENSURE(vmin > 0.0 && (vmax - vmin) / vmax < 1e-5);
    fl_world_free(&w);
}

static const char *const rest_2d =
    "{\"dimensions\": 2, \"time\": {\"duration\": 1}, \"domain\": {\"min\": [0, 0], \"max\": [0.2, 0.2]},"
    " \"periodic\": [true, true], \"gravity\": [0, 0],"
    " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0], \"max\": [0.2, 0.2]}]}}";
static const char *const rest_3d =
    "{\"time\": {\"duration\": 1}, \"domain\": {\"min\": [0, 0, 0], \"max\": [0.1, 0.1, 0.1]},"
    " \"periodic\": [true, true, true], \"gravity\": [0, 0, 0],"
    " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.1, 0.1, 0.1]}]}}";

static void rest_case(const char *name, const char *text)
{
    fl_scene s;
    fl_world w;
    if (world_from_text(text, "periodic.json", &s, &w)) {
        ENSURE(0);
        return;
    }
    ENSURE(w.boundary.count == 0);
    const fl_solver_ops *ops = test_ops(name);
    void *solver = create_solver(name, &s, &w);
    if (!solver) {
        ENSURE(0);
        return;
    }
    const fl_particles *f = &w.fluid;
    const int n = f->count;
    /* the store is reordered as it runs: each particle's move is measured
     * from its nearest lattice site */
    fl_step_stats *st = calloc(1, sizeof *st);
    const double dt = strcmp(name, "sph") == 0 ? 2e-4 : 1e-3;
    const int steps = strcmp(name, "sph") == 0 || strcmp(name, "wcsph") == 0 ? 200 : 10;
    int rc = FL_OK;
    for (int k = 0; k < steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(solver, &w, dt, st);
    }
    const fl_period per = fl_period_of(&w);
    double vmax = 0.0, dmax = 0.0;
    const double d = w.spacing;
    for (int i = 0; i < n; i++) {
        vmax = fmax(vmax, sqrt((double)f->vx[i] * f->vx[i] + (double)f->vy[i] * f->vy[i] + (double)f->vz[i] * f->vz[i]));
        for (int a = 0; a < w.dims; a++) {
            const float p = a == 0 ? f->x[i] : a == 1 ? f->y[i] : f->z[i];
            const double u = (p - w.domain.lo[a]) / d - 0.5; /* the lattice site's index */
            float off = (float)((u - floor(u + 0.5)) * d);
            dmax = fmax(dmax, fabs(fl_min_image(off, per.len[a], per.inv[a])));
        }
    }
    printf("rest %s %dD: %d particles, %d steps of %g s: max speed %.3g m/s, max move %.3g d\n", name, w.dims, n,
           steps, dt, vmax, dmax / d);
    ENSURE(rc == FL_OK);
    ENSURE(vmax < 1e-4);
    ENSURE(dmax < 1e-3 * d);
    free(st);
    ops->destroy(solver);
    fl_world_free(&w);
    fl_scene_free(&s);
}

static void rest(const char *name)
{
    rest_case(name, rest_2d);
    rest_case(name, rest_3d);
}

static const char *const channel_scene =
    "{\"dimensions\": 2, \"time\": {\"duration\": 1}, \"domain\": {\"min\": [0, 0], \"max\": [0.1, 0.1]},"
    " \"periodic\": [true, false], \"gravity\": [0.1, 0],"
    " \"fluid\": {\"spacing\": 0.005, \"nu\": 1e-3, \"blocks\": [{\"min\": [0, 0], \"max\": [0.1, 0.1]}]},"
    " \"solvers\": {\"%s\": {\"viscosity_model\": 1%s}}}";

static void channel(const char *name)
{
    char text[1024];
    snprintf(text, sizeof text, channel_scene, name, strcmp(name, "wcsph") == 0 ? ", \"speed_of_sound\": 2" : "");
    fl_scene s;
    fl_world w;
    if (world_from_text(text, "periodic.json", &s, &w)) {
        ENSURE(0);
        return;
    }
    const fl_solver_ops *ops = test_ops(name);
    void *solver = create_solver(name, &s, &w);
    if (!solver) {
        ENSURE(0);
        return;
    }
    fl_particles *f = &w.fluid;
    const int n0 = f->count;
    const double dt = strcmp(name, "sph") == 0 ? 2e-4 : 1e-3, t_end = 0.5;
    const int steps = (int)(t_end / dt + 0.5);
    fl_step_stats *st = calloc(1, sizeof *st);
    int rc = FL_OK, nan = 0, outside = 0;
    long long wrapped = 0;
    float *last = malloc((size_t)n0 * sizeof *last);
    for (int k = 0; k < steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(solver, &w, dt, st);
        nan += st->nan_count;
        for (int i = 0; i < f->count; i++) {
            outside += !(f->x[i] >= 0.0f && f->x[i] < 0.1f && f->y[i] >= 0.0f && f->y[i] <= 0.1f);
            /* a wrap is a particle that jumped by more than half the period in x since the last step (the
             * store is reordered by cell every 16 steps: only steps that kept the order are compared) */
            if (k % 16 != 0 && k > 0)
                wrapped += fabsf(f->x[i] - last[i]) > 0.05f;
            last[i] = f->x[i];
        }
    }
    double mean = 0.0;
    for (int i = 0; i < f->count; i++)
        mean += f->vx[i];
    mean /= f->count;
    printf("channel %s: %d particles (%d at the start), %g s: mean u %.4g m/s (g t = %.4g), %lld wraps, %d outside, "
           "%d NaN\n", name, f->count, n0, t_end, mean, 0.1 * t_end, wrapped, outside, nan);
    if (rc != FL_OK)
        fprintf(stderr, "channel %s: step failed (%d): %s\n", name, rc, st->failure);
    ENSURE(rc == FL_OK);
    ENSURE(f->count == n0);
    ENSURE(nan == 0);
    ENSURE(outside == 0);
    ENSURE(wrapped > 0); /* the fluid near hi moves 1 cm in 0.5 s: some of it crosses */
    ENSURE(mean > 0.0 && mean <= 1.01 * 0.1 * t_end);
    free(last);
    free(st);
    ops->destroy(solver);
    fl_world_free(&w);
    fl_scene_free(&s);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "all";
    const int all = strcmp(what, "all") == 0;
    if (all || strcmp(what, "grid") == 0)
        grid();
    if (all || strcmp(what, "wrap") == 0)
        wrap();
    if (all || strcmp(what, "walls") == 0)
        walls_case(2), walls_case(3);
    if (strcmp(what, "rest") == 0)
        rest(argc > 2 ? argv[2] : "wcsph");
    if (strcmp(what, "channel") == 0)
        channel(argc > 2 ? argv[2] : "wcsph");
    return fl_test_report("test_periodic");
}
