/* test_periodic_mac.c: periodic axes on the MAC grid and in FLIP/PIC
 * (grid/mac.h and grid/pcg.h, "Periodic axes"; solvers/flip.c). The world
 * structs are built in C with periodic[] set directly.
 *
 * `test_periodic_mac` (label unit), the grid:
 *  - Poisson: on a fully periodic grid (3D: n^3 cells; 2D: n^2) with every
 *    cell FLUID, b = dx^2 (-lap p) of p = exp(sin kx) cos(ky) [cos(kz)],
 *    k = 2 pi / L (mean-free; A has the constant null space, which the
 *    solve must report and fix), solved to 1e-10: the max error against p
 *    is the stencils' O(dx^2), below POISSON_C (k dx)^2 (measured 0.28 to
 *    0.31 (k dx)^2), and it falls 4x (3.6 to 4.4) when dx halves; MIC(0)
 *    and CG each, Jacobi once. Then the mixed case: periodic in x, SOLID
 *    walls in y (Neumann), cos(pi y' / H) for cos(ky), y' from the wall:
 *    the same bound. Fails when the stencil does not wrap (the error is
 *    then O(1)), when the null space is not handled (breakdown, or a
 *    constant offset), or when MIC(0)'s factor breaks down on the singular
 *    matrix.
 *  - symmetry: the wrapped Laplacian with random labels is symmetric and
 *    positive semidefinite (symmetry()).
 *  - transfers: on a fully periodic grid with a smooth periodic face field,
 *    G2P just inside one face equals G2P just inside the opposite one
 *    within 1e-3 (the field's change over 2e-4 cells; a clamped stencil
 *    differs by O(1)) and the field itself within the trilinear error
 *    (k dx)^2 / 8 per axis; P2G of one uniform velocity from jittered
 *    particles is that velocity on every face, faces n and 0 equal.
 *  - viscosity: one explicit step of the face Laplacian on a periodic
 *    Fourier mode multiplies it by the discrete factor (viscosity()).
 *  - refusals: a periodic axis that is not a whole number of cells, FLIP
 *    with the multigrid preconditioner on a periodic world.
 * `test_periodic_mac flip` (label physics), FLIP and PIC:
 *  - at rest: a fully periodic box of jittered particles, no gravity:
 *    after 20 steps the largest speed is below 1e-6 m/s (nothing drives
 *    it; a wrong wrap makes weights and divergence at the faces, and
 *    motion);
 *  - uniform flow: every particle at (0.73, 0.31, 0.13) m/s in a fully
 *    periodic box, unjittered: after 10 steps of 0.01 s each particle
 *    still moves at that velocity (within 1e-4 m/s: PIC and FLIP both
 *    reproduce a uniform field, the faces across the periodic ones
 *    included) and lies on the lattice shifted by v t modulo the box
 *    (within 1e-3 d): those that crossed a face re-entered at the other,
 *    none lost;
 *  - a column under a body force: periodic x, walls in y (the fluid in the
 *    lower half, AIR above), gravity (0.5, -9.81) m/s^2 in 2D and 3D: the
 *    mean vx after 0.5 s is gx t within 1 % (nothing resists the flow
 *    along a periodic axis with free-slip walls: the pressure's x-force
 *    sums to 0 around a periodic row), every particle inside the domain,
 *    the count kept. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "mac.h"
#include "solver.h"
#include "transfer.h"

static const double PI = 3.14159265358979323846;

/* The Poisson error bound over (k dx)^2, for p = exp(sin kx) cos(ky) [cos(kz)]
 * (a mean-free field of many Fourier modes, so that no solver finishes in a
 * few iterations): measured 0.28 to 0.31 at the resolutions below. */
#define POISSON_C 0.4

/* A world over the box [0, L]^dims with spacing d (the grid's dx is 2 d)
 * and the given axes periodic; no particles. */
static void periodic_world(fl_world *w, const double hi[3], double d, int dims, const int periodic[3],
                           const double gravity[3])
{
    fl_box dom = {{0, 0, 0}, {hi[0], hi[1], hi[2]}};
    fl_world_init(w, &dom, gravity, 1000.0, d, dims);
    for (int a = 0; a < 3; a++)
        w->periodic[a] = periodic[a];
}

/* ---- Poisson ------------------------------------------------------------ */

/* The max error of the solve of A p = dx^2 (-lap p_exact) on grid g (all its
 * non-SOLID cells FLUID), p_exact(x, y, z) = cos(kx x) fy(y) cos(kz z)
 * with fy = cos(ky y) (periodic y) or cos(pi y' / H) (walls in y, y' from
 * the low wall); over the max of p_exact (1). */
static double poisson_error(fl_mac_grid *g, int dims, fl_precond pre, int *iterations)
{
    const double L = g->nx * g->dx, k = 2.0 * PI / L;
    const int wall_y = !g->periodic[1];
    const double H = (wall_y ? g->ny - 2 : g->ny) * g->dx, ky = wall_y ? PI / H : k;
    const double kz = dims == 3 ? k : 0.0;
    double *b = calloc((size_t)g->ncells, sizeof(double)), *exact = calloc((size_t)g->ncells, sizeof(double));
    for (int kk = 0; kk < g->nz; kk++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                const long c = fl_mac_cell(g, i, j, kk);
                if (g->label[c] == FL_CELL_SOLID)
                    continue;
                g->label[c] = FL_CELL_FLUID;
                const double x = (i + 0.5) * g->dx, y = (wall_y ? j - 0.5 : j + 0.5) * g->dx,
                             z = (kk + 0.5) * g->dx;
                const double sx = sin(k * x), cx = cos(k * x);
                exact[c] = exp(sx) * cos(ky * y) * cos(kz * z);
                b[c] = g->dx * g->dx * (k * k * (sx - cx * cx) + ky * ky + kz * kz) * exact[c];
            }
    fl_pcg_options opt = fl_default_pcg_options();
    opt.precond = pre;
    opt.tol = 1e-10;
    opt.max_iter = 5000;
    fl_pcg_result res;
    fl_error err;
    ENSURE(fl_pcg_solve(g->pcg, g->label, b, g->p, &opt, &res, &err) == FL_OK);
    ENSURE(res.reason > 0);
    ENSURE(res.null_space == 1);
    double e = 0.0;
    for (long c = 0; c < g->ncells; c++)
        if (g->label[c] == FL_CELL_FLUID)
            e = fmax(e, fabs(g->p[c] - exact[c]));
    *iterations = res.iterations;
    free(b);
    free(exact);
    return e;
}

static fl_mac_grid *grid_for(int n, int dims, int wall_y)
{
    fl_world w;
    const double hi[3] = {1.0, wall_y ? 0.5 : 1.0, 1.0}, g0[3] = {0, 0, 0};
    const int periodic[3] = {1, !wall_y, dims == 3};
    periodic_world(&w, hi, 0.5 / n, dims, periodic, g0);
    fl_mac_config cfg = fl_default_mac_config();
    fl_mac_grid *g = NULL;
    fl_error err;
    ENSURE(fl_mac_grid_create(&w, &cfg, &g, &err) == FL_OK);
    fl_world_free(&w);
    return g;
}

static void poisson(int dims, int wall_y)
{
    const fl_precond pres[3] = {FL_PRECOND_MIC0, FL_PRECOND_NONE, FL_PRECOND_JACOBI};
    const char *names[3] = {"MIC(0)", "CG", "Jacobi"};
    for (int q = 0; q < 3; q++) {
        double e[2];
        int it[2];
        const int n0 = dims == 3 ? 16 : 32;
        for (int r = 0; r < 2; r++) {
            const int n = n0 << r;
            fl_mac_grid *g = grid_for(n, dims, wall_y);
            if (!g)
                return;
            e[r] = poisson_error(g, dims, pres[q], &it[r]);
            const double kdx = 2.0 * PI / n, bound = POISSON_C * kdx * kdx;
            printf("periodic Poisson %dD%s %s n = %d: max error %.3e (bound %.3e), %d iterations\n", dims,
                   wall_y ? " (walls in y)" : "", names[q], n, e[r], bound, it[r]);
            ENSURE(e[r] < bound);
            fl_mac_grid_destroy(&g);
            if (q == 2)
                break;
        }
        if (q < 2) {
            printf("  error ratio %.3f\n", e[0] / e[1]);
            ENSURE(e[0] / e[1] > 3.6 && e[0] / e[1] < 4.4);
        }
    }
}

/* The wrapped Laplacian (fl_mac_laplacian, -A / dx^2) on a periodic grid in
 * x and z, walls in y, with random labels: x.(A y) = y.(A x) within 1e-12
 * of their size (A symmetric: each wrapped coupling counted from both
 * ends) and x.(A x) >= 0 (positive semidefinite); fails when a coupling
 * across a periodic face is seen from one end only. */
static void symmetry(void)
{
    fl_mac_grid *g = grid_for(12, 3, 1);
    if (!g)
        return;
    uint64_t state = 11;
    double *x = calloc((size_t)g->ncells, sizeof(double)), *y = calloc((size_t)g->ncells, sizeof(double));
    double *ax = calloc((size_t)g->ncells, sizeof(double)), *ay = calloc((size_t)g->ncells, sizeof(double));
    for (long c = 0; c < g->ncells; c++) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        const int r = (int)(state >> 61); /* 0..7: mostly FLUID, some AIR and SOLID */
        if (g->label[c] != FL_CELL_SOLID)
            g->label[c] = r < 5 ? FL_CELL_FLUID : r < 7 ? FL_CELL_AIR : FL_CELL_SOLID;
        if (g->label[c] == FL_CELL_FLUID) {
            x[c] = (double)((state >> 20) & 1023) / 512.0 - 1.0;
            y[c] = (double)((state >> 30) & 1023) / 512.0 - 1.0;
        }
    }
    fl_mac_laplacian(g, x, ax);
    fl_mac_laplacian(g, y, ay);
    double xay = 0.0, yax = 0.0, xax = 0.0, size = 0.0;
    for (long c = 0; c < g->ncells; c++) {
        xay += x[c] * ay[c];
        yax += y[c] * ax[c];
        xax -= x[c] * ax[c];
        size += fabs(x[c] * ay[c]);
    }
    printf("periodic Laplacian: x.Ay - y.Ax = %.2e (of %.2e), x.(-lap x) = %.3e\n", xay - yax, size, xax);
    ENSURE(fabs(xay - yax) <= 1e-12 * size);
    ENSURE(xax >= 0.0);
    free(x), free(y), free(ax), free(ay);
    fl_mac_grid_destroy(&g);
}

/* ---- transfers ---------------------------------------------------------- */

/* The smooth periodic field of component a at (x, y, z) in the box [0, L]^3. */
static double field(int a, double x, double y, double z, double L)
{
    const double k = 2.0 * PI / L;
    return a == 0 ? cos(k * x) * sin(k * y) + 0.5 : a == 1 ? sin(k * z) * cos(k * x) : cos(k * y) + sin(k * x);
}

static void transfers(void)
{
    const int n = 16;
    fl_mac_grid *g = grid_for(n, 3, 0);
    if (!g)
        return;
    const double L = 1.0, dx = g->dx;
    double *vel[3] = {g->u, g->v, g->w};
    for (int a = 0; a < 3; a++) {
        int dim[3] = {g->nx, g->ny, g->nz};
        dim[a] += 1;
        for (int k = 0; k < dim[2]; k++)
            for (int j = 0; j < dim[1]; j++)
                for (int i = 0; i < dim[0]; i++) {
                    const double q[3] = {(i + (a == 0 ? 0.0 : 0.5)) * dx, (j + (a == 1 ? 0.0 : 0.5)) * dx,
                                         (k + (a == 2 ? 0.0 : 0.5)) * dx};
                    vel[a][i + (long)dim[0] * (j + (long)dim[1] * k)] = field(a, q[0], q[1], q[2], L);
                }
    }
    /* pairs of points 1e-4 cells inside opposite faces, on each axis and at a corner */
    const double e = 1e-4 * dx, m = 0.37 * L;
    const float pts[8][3] = {{(float)e, (float)m, (float)m}, {(float)(L - e), (float)m, (float)m},
                             {(float)m, (float)e, (float)m}, {(float)m, (float)(L - e), (float)m},
                             {(float)m, (float)m, (float)e}, {(float)m, (float)m, (float)(L - e)},
                             {(float)e, (float)e, (float)e}, {(float)(L - e), (float)(L - e), (float)(L - e)}};
    float x[8], y[8], z[8], out[3][8];
    for (int p = 0; p < 8; p++)
        x[p] = pts[p][0], y[p] = pts[p][1], z[p] = pts[p][2];
    fl_error err;
    ENSURE(fl_transfer_g2p(g, g->u, g->v, g->w, x, y, z, 8, out[0], out[1], out[2], &err) == FL_OK);
    const double kdx = 2.0 * PI / n, interp_bound = 3.0 * kdx * kdx / 8.0 * 2.0;
    double jump = 0.0, off = 0.0;
    for (int p = 0; p < 8; p += 2)
        for (int a = 0; a < 3; a++) {
            jump = fmax(jump, fabs(out[a][p] - out[a][p + 1]));
            off = fmax(off, fabs(out[a][p] - field(a, x[p], y[p], z[p], L)));
        }
    printf("periodic G2P: largest jump across a periodic face %.2e, largest error %.2e (bound %.2e)\n", jump, off,
           interp_bound);
    ENSURE(jump < 1e-3);
    ENSURE(off < interp_bound);

    /* P2G of a uniform velocity from jittered particles, 2 per cell per axis */
    const int np = 8 * n * n * n;
    float *px = malloc(np * sizeof(float)), *py = malloc(np * sizeof(float)), *pz = malloc(np * sizeof(float));
    float *vx = malloc(np * sizeof(float)), *vy = malloc(np * sizeof(float)), *vz = malloc(np * sizeof(float));
    uint64_t state = 7;
    for (int p = 0; p < np; p++) {
        const int i = p % (2 * n), j = (p / (2 * n)) % (2 * n), k = p / (4 * n * n);
        float *pos[3] = {&px[p], &py[p], &pz[p]};
        const int idx[3] = {i, j, k};
        for (int a = 0; a < 3; a++) {
            state = state * 6364136223846793005ULL + 1442695040888963407ULL;
            const double r = (double)(state >> 11) / 9007199254740992.0 - 0.5;
            *pos[a] = (float)((idx[a] + 0.5 + 0.9 * r) * 0.5 * dx);
        }
        vx[p] = 0.7f, vy[p] = -0.3f, vz[p] = 0.2f;
    }
    ENSURE(fl_transfer_p2g(g, px, py, pz, vx, vy, vz, np, &err) == FL_OK);
    const float want[3] = {0.7f, -0.3f, 0.2f};
    double worst = 0.0, wmin = INFINITY;
    const double *ws[3] = {g->wu, g->wv, g->ww};
    for (int a = 0; a < 3; a++) {
        const long faces = (long)(g->nx + (a == 0)) * (g->ny + (a == 1)) * (g->nz + (a == 2));
        for (long f = 0; f < faces; f++) {
            worst = fmax(worst, fabs(vel[a][f] - want[a]));
            wmin = fmin(wmin, ws[a][f]);
        }
    }
    /* faces n and 0 of each lattice along its own axis */
    double dup = 0.0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            dup = fmax(dup, fabs(g->u[fl_mac_u(g, g->nx, j, k)] - g->u[fl_mac_u(g, 0, j, k)]) +
                                fabs(g->wu[fl_mac_u(g, g->nx, j, k)] - g->wu[fl_mac_u(g, 0, j, k)]));
    printf("periodic P2G of a uniform velocity: largest error %.2e m/s, smallest face weight %.3f, faces n - 0 %.1e\n",
           worst, wmin, dup);
    ENSURE(worst < 1e-6);
    ENSURE(wmin > 0.5);
    ENSURE(dup == 0.0);
    free(px), free(py), free(pz), free(vx), free(vy), free(vz);
    fl_mac_grid_destroy(&g);
}

/* One explicit viscosity step on a fully periodic grid of FLUID cells:
 * u = sin(kx) + cos(ky) + sin(kz) on the x-faces is an eigenvector of the
 * wrapped 7-point face Laplacian with eigenvalue -lambda_h,
 * lambda_h = (2 - 2 cos(k dx)) / dx^2 per axis, so the step multiplies it
 * by exactly 1 - dt nu lambda_h (to rounding, 1e-12); a face next to the
 * periodic faces that saw a wall instead differs by O(dt nu / dx^2). */
static void viscosity(void)
{
    const int n = 16;
    fl_mac_grid *g = grid_for(n, 3, 0);
    if (!g)
        return;
    memset(g->label, FL_CELL_FLUID, (size_t)g->ncells);
    const double dx = g->dx, k = 2.0 * PI, nu = 1e-3, dt = 0.5 * dx * dx / (6.0 * nu);
    const double lam = (2.0 - 2.0 * cos(k * dx)) / (dx * dx), factor = 1.0 - dt * nu * lam;
    for (int kk = 0; kk < g->nz; kk++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i <= g->nx; i++)
                g->u[fl_mac_u(g, i, j, kk)] = sin(k * i * dx) + cos(k * (j + 0.5) * dx) + sin(k * (kk + 0.5) * dx);
    double *old = malloc((size_t)fl_mac_max_faces(g) * sizeof(double));
    fl_mac_apply_viscosity(g, dt, nu, 3, 1, old);
    double worst = 0.0;
    for (int kk = 0; kk < g->nz; kk++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i <= g->nx; i++) {
                const double want =
                    factor * (sin(k * i * dx) + cos(k * (j + 0.5) * dx) + sin(k * (kk + 0.5) * dx));
                worst = fmax(worst, fabs(g->u[fl_mac_u(g, i, j, kk)] - want));
            }
    printf("periodic viscosity step: largest error %.2e against the factor %.6f\n", worst, factor);
    ENSURE(worst < 1e-12);
    free(old);
    fl_mac_grid_destroy(&g);
}

static void refusals(void)
{
    fl_world w;
    const double hi[3] = {1.0, 1.0, 1.0}, g0[3] = {0, 0, 0};
    const int periodic[3] = {1, 0, 0}, walls[3] = {0, 0, 0};
    /* 1 m at a given dx = 0.3 m: 3.33 cells */
    periodic_world(&w, hi, 0.15, 3, periodic, g0);
    fl_mac_config cfg = fl_default_mac_config();
    cfg.dx = 0.3;
    fl_mac_grid *g = NULL;
    fl_error err;
    ENSURE(fl_mac_grid_create(&w, &cfg, &g, &err) == FL_ERR_INPUT && g == NULL);
    printf("refused: %s\n", err.msg);
    ENSURE(strstr(err.msg, "periodic x axis") != NULL);
    /* the default (2 d = 0.3 m) gives way to the largest size that tiles:
     * 1 m / 4 cells */
    cfg.dx = 0.0;
    ENSURE(fl_mac_grid_create(&w, &cfg, &g, &err) == FL_OK && g != NULL);
    if (g)
        ENSURE(fabs(g->dx - 0.25) < 1e-12 && g->nx == 4);
    fl_mac_grid_destroy(&g);
    fl_world_free(&w);

    /* walls: a domain of 0.3 m at the default 2 d = 0.04 m is 7.5 cells; the
     * last, partial cell lay across the wall and was taken as SOLID (a
     * tank at rest rose by a third): the default becomes 0.3 m / 8 =
     * 0.0375 m, and a given 0.04 m is refused */
    const double box[3] = {0.3, 0.3, 0.3};
    periodic_world(&w, box, 0.02, 3, walls, g0);
    ENSURE(fl_mac_grid_create(&w, &cfg, &g, &err) == FL_OK && g != NULL);
    if (g)
        ENSURE(fabs(g->dx - 0.0375) < 1e-12 && g->nx == 10 && g->ny == 10 && g->nz == 10);
    fl_mac_grid_destroy(&g);
    cfg.dx = 0.04;
    ENSURE(fl_mac_grid_create(&w, &cfg, &g, &err) == FL_ERR_INPUT && g == NULL);
    printf("refused: %s\n", err.msg);
    ENSURE(strstr(err.msg, "is 7.5 cells; the walls must fall on cell faces") != NULL &&
           strstr(err.msg, "0.0375") != NULL);
    cfg.dx = 0.0;
    fl_world_free(&w);
    /* extents with no common cell size from d to 2 d: refused, naming the key */
    const double odd[3] = {0.43, 1.1, 0.43};
    periodic_world(&w, odd, 0.05, 3, walls, g0);
    ENSURE(fl_mac_grid_create(&w, &cfg, &g, &err) == FL_ERR_INPUT && g == NULL);
    printf("refused: %s\n", err.msg);
    ENSURE(strstr(err.msg, "no cell size from 0.05 to 0.1 m divides every axis") != NULL);
    fl_world_free(&w);

    periodic_world(&w, hi, 0.05, 3, periodic, g0);
    fl_box all = {{0, 0, 0}, {1, 0.5, 1}};
    ENSURE(fl_world_fill_box(&w, &all, 0.0, 1, &err) == FL_OK);
    fl_params prm;
    fl_params_init(&prm, "solvers.flip");
    ENSURE(fl_params_set(&prm, "preconditioner", 3, &err) == FL_OK);
    void *solver = fl_solver_create(fl_solver_find("flip"), &w, &prm, &err);
    ENSURE(solver == NULL);
    if (!solver)
        printf("refused: %s\n", err.msg);
    ENSURE(strstr(err.msg, "multigrid") != NULL);
    fl_world_free(&w);
}

/* ---- FLIP and PIC ------------------------------------------------------- */

/* The solver `name` on world w with parameters (key, value) pairs. */
static void *make_solver(const char *name, fl_world *w, const char *key, double value)
{
    fl_params prm;
    fl_error err;
    fl_params_init(&prm, "solvers.flip");
    if (key)
        ENSURE(fl_params_set(&prm, key, value, &err) == FL_OK);
    void *solver = fl_solver_create(fl_solver_find(name), w, &prm, &err);
    if (!solver)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    ENSURE(solver != NULL);
    return solver;
}

/* steps steps of dt; returns the last one's status. */
static int run_steps(const char *name, void *solver, fl_world *w, double dt, int steps, fl_step_stats *st)
{
    const fl_solver_ops *ops = fl_solver_find(name);
    int rc = FL_OK;
    for (int k = 0; k < steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(solver, w, dt, st);
        if (rc)
            fprintf(stderr, "%s: %s\n", name, st->failure);
        w->time += dt;
    }
    return rc;
}

/* Particles outside the domain, or not finite. */
static int count_outside(const fl_world *w)
{
    int bad = 0;
    for (int i = 0; i < w->fluid.count; i++) {
        const float x[3] = {w->fluid.x[i], w->fluid.y[i], w->fluid.z[i]};
        for (int a = 0; a < w->dims; a++)
            bad += !(x[a] >= w->domain.lo[a] && x[a] <= w->domain.hi[a]);
    }
    return bad;
}

static void at_rest(const char *name)
{
    fl_world w;
    const double hi[3] = {0.2, 0.2, 0.2}, g0[3] = {0, 0, 0};
    const int periodic[3] = {1, 1, 1};
    periodic_world(&w, hi, 0.02, 3, periodic, g0);
    fl_box all = {{0, 0, 0}, {0.2, 0.2, 0.2}};
    fl_error err;
    ENSURE(fl_world_fill_box(&w, &all, 0.0, 1, &err) == FL_OK);
    void *solver = make_solver(name, &w, NULL, 0.0);
    if (!solver) {
        fl_world_free(&w);
        return;
    }
    const int count = w.fluid.count;
    fl_step_stats *st = calloc(1, sizeof *st);
    int rc = run_steps(name, solver, &w, 0.02, 20, st);
    printf("%s periodic box at rest (%d particles, 20 steps): max speed %.2e m/s, %d outside\n", name,
           w.fluid.count, st->max_speed, count_outside(&w));
    ENSURE(rc == FL_OK);
    ENSURE(st->max_speed < 1e-6);
    ENSURE(w.fluid.count == count && count_outside(&w) == 0);
    free(st);
    fl_solver_find(name)->destroy(solver);
    fl_world_free(&w);
}

static void uniform_flow(const char *name)
{
    fl_world w;
    const double hi[3] = {0.2, 0.2, 0.2}, g0[3] = {0, 0, 0}, d = 0.02;
    const int periodic[3] = {1, 1, 1};
    periodic_world(&w, hi, d, 3, periodic, g0);
    fl_box all = {{0, 0, 0}, {0.2, 0.2, 0.2}};
    fl_error err;
    ENSURE(fl_world_fill_box(&w, &all, 0.0, 1, &err) == FL_OK);
    void *solver = make_solver(name, &w, "jitter", 0.0);
    if (!solver) {
        fl_world_free(&w);
        return;
    }
    const float v[3] = {0.73f, 0.31f, 0.13f};
    fl_particles *p = &w.fluid;
    for (int i = 0; i < p->count; i++)
        p->vx[i] = v[0], p->vy[i] = v[1], p->vz[i] = v[2];
    const int count = p->count, steps = 10;
    const double dt = 0.01;
    fl_step_stats *st = calloc(1, sizeof *st);
    int rc = run_steps(name, solver, &w, dt, steps, st);
    double verr = 0.0, perr = 0.0;
    const double t = steps * dt;
    float *pos[3] = {p->x, p->y, p->z};
    float *vel[3] = {p->vx, p->vy, p->vz};
    int wrapped = 0;
    for (int i = 0; i < p->count; i++)
        for (int a = 0; a < 3; a++) {
            verr = fmax(verr, fabs(vel[a][i] - v[a]));
            /* the start lattice is d/2 + m d: (x - v t) / d - 1/2 is whole */
            const double s = (pos[a][i] - v[a] * t) / d - 0.5;
            perr = fmax(perr, fabs(s - round(s)));
            wrapped += a == 0 && pos[a][i] < v[a] * t;
        }
    printf("%s uniform periodic flow after %.2f s: largest velocity error %.2e m/s, lattice offset %.2e d, "
           "%d of %d particles re-entered through x = 0, %d outside\n",
           name, t, verr, perr, wrapped, p->count, count_outside(&w));
    ENSURE(rc == FL_OK);
    ENSURE(verr < 1e-4);
    ENSURE(perr < 1e-3);
    ENSURE(wrapped > 0);
    ENSURE(p->count == count && count_outside(&w) == 0);
    free(st);
    fl_solver_find(name)->destroy(solver);
    fl_world_free(&w);
}

static void body_force(const char *name, int dims)
{
    fl_world w;
    const double hi[3] = {0.4, 0.2, 0.16}, gravity[3] = {0.5, -9.81, 0}, d = 0.01;
    const int periodic[3] = {1, 0, 0};
    periodic_world(&w, hi, d, dims, periodic, gravity);
    fl_box lower = {{0, 0, 0}, {0.4, 0.1, 0.16}};
    fl_error err;
    ENSURE(fl_world_fill_box(&w, &lower, 0.0, 1, &err) == FL_OK);
    void *solver = make_solver(name, &w, NULL, 0.0);
    if (!solver) {
        fl_world_free(&w);
        return;
    }
    const int count = w.fluid.count;
    const double dt = 0.01, t = 0.5;
    fl_step_stats *st = calloc(1, sizeof *st);
    int rc = run_steps(name, solver, &w, dt, (int)(t / dt + 0.5), st);
    double mean = 0.0;
    for (int i = 0; i < w.fluid.count; i++)
        mean += w.fluid.vx[i];
    mean /= w.fluid.count;
    printf("%s %dD periodic channel under gx = %.2f m/s^2 (%d particles): mean vx after %.2f s %.5f m/s "
           "(gx t = %.5f), %d outside, last step %d PCG iterations\n",
           name, dims, gravity[0], count, t, mean, gravity[0] * t, count_outside(&w), st->iterations);
    ENSURE(rc == FL_OK);
    ENSURE(fabs(mean / (gravity[0] * t) - 1.0) < 0.01);
    ENSURE(w.fluid.count == count && count_outside(&w) == 0);
    free(st);
    fl_solver_find(name)->destroy(solver);
    fl_world_free(&w);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "flip") == 0) {
        at_rest("flip");
        uniform_flow("flip");
        uniform_flow("pic");
        body_force("flip", 2);
        body_force("flip", 3);
        body_force("pic", 2);
        return fl_test_report("test_periodic_mac flip");
    }
    poisson(3, 0);
    poisson(2, 0);
    poisson(2, 1);
    poisson(3, 1);
    symmetry();
    transfers();
    viscosity();
    refusals();
    return fl_test_report("test_periodic_mac");
}
