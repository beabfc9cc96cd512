/* measure.c: measurements shared by the tests and the course (measure.h). */
#include "measure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "kernels.h"
#include "mac.h"

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

void *fl_solver_with(const fl_solver_ops *ops, fl_world *w, const char *section, const char *const *sets, int nsets,
                     fl_error *err)
{
    fl_params prm;
    fl_params_init(&prm, section);
    for (int k = 0; k < nsets; k++) {
        char key[64];
        const char *eq = strchr(sets[k], '=');
        if (!eq) {
            fl_fail(err, FL_ERR_INPUT, "%s: expected KEY=VALUE, got '%s'", section, sets[k]);
            return NULL;
        }
        snprintf(key, sizeof key, "%.*s", (int)(eq - sets[k]), sets[k]);
        double v = strcmp(eq + 1, "true") == 0 ? 1.0 : strcmp(eq + 1, "false") == 0 ? 0.0 : atof(eq + 1);
        if (fl_params_set(&prm, key, v, err))
            return NULL;
    }
    return fl_solver_create(ops, w, &prm, err);
}

int fl_steps(const fl_solver_ops *ops, void *solver, fl_world *w, double dt, int steps, fl_step_stats *st)
{
    int rc = FL_OK;
    for (int k = 0; k < steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(solver, w, dt, st);
        w->time += dt;
    }
    return rc;
}

int fl_open_scene(const char *name, const char *const *sets, int nsets, fl_scene *s, fl_world *w, fl_error *err)
{
    char path[1024];
    fl_resolve_scene(name, path, sizeof path);
    int rc = fl_scene_load(path, sets, nsets, s, err);
    if (rc == FL_OK && (rc = fl_build_world(s, w, err)) != FL_OK)
        fl_scene_free(s);
    return rc;
}

int fl_pbf_tank_history(const char *const *sets, int nsets, double *max, double *avg, fl_error *err)
{
    fl_scene s;
    fl_world w;
    if (fl_open_scene("hydrostatic_2d", NULL, 0, &s, &w, err))
        return 0;
    fl_step_stats *st = calloc(1, sizeof *st);
    const fl_solver_ops *ops = fl_solver_find("pbf");
    const double dt = 1.0 / 120.0;
    void *warm = st ? fl_solver_with(ops, &w, "solvers.pbf", NULL, 0, err) : NULL;
    int rc = warm ? fl_steps(ops, warm, &w, dt, 240, st) : FL_ERR_INPUT;
    if (warm)
        ops->destroy(warm);
    const char *all[8] = {"solver_iterations=20"};
    for (int k = 0; k < nsets && k < 7; k++)
        all[k + 1] = sets[k];
    void *solver = rc == FL_OK ? fl_solver_with(ops, &w, "solvers.pbf", all, (nsets < 7 ? nsets : 7) + 1, err) : NULL;
    int iterations = 0;
    if (solver && fl_steps(ops, solver, &w, dt, 1, st) == FL_OK) {
        iterations = st->iterations;
        for (int k = 0; k < iterations; k++)
            max[k] = st->residual_max[k], avg[k] = st->residual[k];
    } else if (solver) {
        fl_fail(err, FL_ERR_INPUT, "%s", st->failure);
    }
    if (solver)
        ops->destroy(solver);
    free(st);
    fl_world_free(&w);
    fl_scene_free(&s);
    return iterations;
}

double fl_pbf_surface_clumping(double scorr_k, int sparse, double *mean, fl_error *err)
{
    fl_scene s;
    fl_world w;
    fl_nbgrid g;
    *mean = NAN;
    if (fl_open_scene("dam_break_2d", NULL, 0, &s, &w, err))
        return NAN;
    char set[64];
    snprintf(set, sizeof set, "scorr_k=%g", scorr_k);
    const char *sets[] = {set};
    const fl_solver_ops *ops = fl_solver_find("pbf");
    void *solver = fl_solver_with(ops, &w, "solvers.pbf", sets, 1, err);
    fl_step_stats *st = calloc(1, sizeof *st);
    int rc = solver && st ? fl_nbgrid_init(&g, &w, err) : FL_ERR_INPUT;
    const int grid = rc == FL_OK;
    const fl_particles *f = &w.fluid;
    double least = INFINITY, sum = 0.0;
    int frames = 0;
    for (int k = 0; k <= 60 && rc == FL_OK; k++) {
        if ((rc = fl_steps(ops, solver, &w, 1.0 / 240.0, 4, st)) != FL_OK)
            fl_fail(err, rc, "pbf: %s", st->failure);
        if (rc == FL_OK && k >= 30) {
            rc = fl_nbgrid_build(&g, f->x, f->y, f->z, f->count, err);
            if (rc == FL_OK)
                rc = fl_nbgrid_search(&g, f->x, f->y, f->z, err);
            int near;
            double d = fl_surface_min_distance(&g, f->x, f->y, f->z, sparse, &near);
            least = fmin(least, d), sum += d, frames++;
        }
    }
    if (grid)
        fl_nbgrid_free(&g);
    if (solver)
        ops->destroy(solver);
    free(st);
    fl_world_free(&w);
    fl_scene_free(&s);
    if (rc != FL_OK)
        return NAN;
    *mean = sum / frames;
    return least;
}

/* Whether interior cell (i, j, k) of an n^3 grid holds water of that
 * shape (the drop's ball and pool by the cell's centre). */
static int projection_water(fl_projection_shape shape, int n, int i, int j, int k)
{
    if (shape == FL_PROJECTION_COLUMN)
        return i <= n / 4 && j <= n / 2;
    const double x = (i - 0.5) / n, y = (j - 0.5) / n, z = (k - 0.5) / n;
    const double a = x - 0.47, b = y - 0.41, c = z - 0.53;
    return a * a + b * b + c * c < 0.3 * 0.3 || y < 0.15;
}

int fl_dam_projection(int n, fl_projection_shape shape, fl_precond precond, double tol, double *p,
                      fl_pcg_result *res, fl_error *err)
{
    fl_world w;
    const fl_box dom = {{0, 0, 0}, {1, 1, 1}};
    const double g[3] = {0, -9.81, 0};
    fl_world_init(&w, &dom, g, 1000.0, 0.5 / n, 3);
    fl_mac_config cfg = fl_default_mac_config();
    fl_mac_grid *grid = NULL;
    int rc = fl_mac_grid_create(&w, &cfg, &grid, err);
    fl_world_free(&w);
    if (rc)
        return rc;
    for (int k = 1; k <= n; k++)
        for (int j = 1; j <= n; j++)
            for (int i = 1; i <= n; i++)
                grid->label[fl_mac_cell(grid, i, j, k)] = projection_water(shape, n, i, j, k) ? FL_CELL_FLUID : FL_CELL_AIR;
    for (long f = 0; f < (long)grid->nx * (grid->ny + 1) * grid->nz; f++)
        grid->v[f] = -9.81 * 0.01;
    fl_pcg_options opt = fl_default_pcg_options();
    opt.precond = precond;
    opt.tol = tol;
    rc = fl_mac_project(grid, 0.01, 1000.0, &opt, res, err);
    if (rc == FL_OK && p)
        memcpy(p, grid->p, sizeof(double) * (size_t)grid->ncells);
    fl_mac_grid_destroy(&grid);
    return rc;
}
