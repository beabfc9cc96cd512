/* mac.c: the MAC grid (mac.h): construction from a world, the report's
 * discrete gradient, divergence and Laplacian (equations 6, 7, 8) with
 * Bridson's free-surface and solid-wall conditions, and the pressure
 * projection that makes the FLUID cells divergence-free. */
#include "mac.h"

#include <limits.h>
#include <math.h>
#include <string.h>

fl_mac_config fl_default_mac_config(void)
{
    fl_mac_config c = {.dx = 0.0};
    return c;
}

static int inside(const fl_box *b, const double x[3])
{
    return x[0] >= b->lo[0] && x[0] <= b->hi[0] && x[1] >= b->lo[1] && x[1] <= b->hi[1] &&
           x[2] >= b->lo[2] && x[2] <= b->hi[2];
}

int fl_mac_grid_create(const fl_world *w, const fl_mac_config *cfg, fl_mac_grid **out, fl_error *err)
{
    *out = NULL;
    double dx = cfg->dx > 0.0 ? cfg->dx : 2.0 * w->spacing;
    if (!(dx > 0.0) || !isfinite(dx))
        return fl_fail(err, FL_ERR_INPUT, "mac grid: cell size %g m must be positive", dx);
    int n[3];
    double cells = 1.0;
    for (int a = 0; a < 3; a++) {
        double extent = w->domain.hi[a] - w->domain.lo[a];
        if (!(extent > 0.0))
            return fl_fail(err, FL_ERR_INPUT, "mac grid: empty domain along axis %d", a);
        /* the 1e-9 keeps an extent that is a whole number of cells from
         * gaining a cell to rounding */
        double inner = ceil(extent / dx - 1e-9);
        if (inner > INT_MAX / 4)
            return fl_fail(err, FL_ERR_MEMORY, "mac grid: %g cells along axis %d", inner, a);
        n[a] = (int)inner + 2;
        cells *= n[a];
    }
    if (cells > INT_MAX / 2)
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: %dx%dx%d cells is too large", n[0], n[1], n[2]);

    fl_mac_grid *g = fl_alloc(sizeof *g);
    if (!g)
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: out of memory");
    memset(g, 0, sizeof *g);
    g->nx = n[0];
    g->ny = n[1];
    g->nz = n[2];
    g->ncells = (long)n[0] * n[1] * n[2];
    g->dx = dx;
    for (int a = 0; a < 3; a++)
        g->lo[a] = w->domain.lo[a] - dx;
    size_t nu = (size_t)(n[0] + 1) * n[1] * n[2], nv = (size_t)n[0] * (n[1] + 1) * n[2],
           nw = (size_t)n[0] * n[1] * (n[2] + 1), nc = (size_t)g->ncells;
    g->u = fl_alloc(nu * sizeof(double));
    g->v = fl_alloc(nv * sizeof(double));
    g->w = fl_alloc(nw * sizeof(double));
    g->wu = fl_alloc(nu * sizeof(double));
    g->wv = fl_alloc(nv * sizeof(double));
    g->ww = fl_alloc(nw * sizeof(double));
    g->p = fl_alloc(nc * sizeof(double));
    g->rhs = fl_alloc(nc * sizeof(double));
    g->label = fl_alloc(nc);
    g->slab = fl_alloc((size_t)(n[2] + 1) * sizeof(long));
    if (!g->u || !g->v || !g->w || !g->wu || !g->wv || !g->ww || !g->p || !g->rhs || !g->label || !g->slab) {
        fl_mac_grid_destroy(&g);
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: out of memory for %dx%dx%d cells", n[0], n[1], n[2]);
    }
    int status = fl_pcg_create(n[0], n[1], n[2], &g->pcg, err);
    if (status != FL_OK) {
        fl_mac_grid_destroy(&g);
        return status;
    }
    memset(g->u, 0, nu * sizeof(double));
    memset(g->v, 0, nv * sizeof(double));
    memset(g->w, 0, nw * sizeof(double));
    memset(g->wu, 0, nu * sizeof(double));
    memset(g->wv, 0, nv * sizeof(double));
    memset(g->ww, 0, nw * sizeof(double));
    memset(g->p, 0, nc * sizeof(double));
    memset(g->rhs, 0, nc * sizeof(double));

    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double x[3] = {g->lo[0] + (i + 0.5) * dx, g->lo[1] + (j + 0.5) * dx, g->lo[2] + (k + 0.5) * dx};
                int solid = !inside(&w->domain, x);
                for (int o = 0; o < w->obstacle_count && !solid; o++)
                    solid = inside(&w->obstacles[o], x);
                g->label[fl_mac_cell(g, i, j, k)] = solid ? FL_CELL_SOLID : FL_CELL_AIR;
            }
    *out = g;
    return FL_OK;
}

void fl_mac_grid_destroy(fl_mac_grid **gp)
{
    fl_mac_grid *g = *gp;
    if (!g)
        return;
    fl_free(g->u);
    fl_free(g->v);
    fl_free(g->w);
    fl_free(g->wu);
    fl_free(g->wv);
    fl_free(g->ww);
    fl_free(g->p);
    fl_free(g->rhs);
    fl_free(g->label);
    fl_free(g->slab);
    fl_pcg_destroy(&g->pcg);
    fl_free(g);
    *gp = NULL;
}

/* Label of cell (i,j,k), SOLID beyond the grid (the outer faces). */
static inline int label_at(const fl_mac_grid *g, int i, int j, int k)
{
    if (i < 0 || j < 0 || k < 0 || i >= g->nx || j >= g->ny || k >= g->nz)
        return FL_CELL_SOLID;
    return g->label[fl_mac_cell(g, i, j, k)];
}

void fl_mac_enforce_solid(fl_mac_grid *g)
{
#pragma omp parallel for schedule(static)
    for (int k = 0; k <= g->nz; k++)
        for (int j = 0; j <= g->ny; j++)
            for (int i = 0; i <= g->nx; i++) {
                int here = label_at(g, i, j, k);
                if (j < g->ny && k < g->nz && (here == FL_CELL_SOLID || label_at(g, i - 1, j, k) == FL_CELL_SOLID))
                    g->u[fl_mac_u(g, i, j, k)] = 0.0;
                if (i < g->nx && k < g->nz && (here == FL_CELL_SOLID || label_at(g, i, j - 1, k) == FL_CELL_SOLID))
                    g->v[fl_mac_v(g, i, j, k)] = 0.0;
                if (i < g->nx && j < g->ny && (here == FL_CELL_SOLID || label_at(g, i, j, k - 1) == FL_CELL_SOLID))
                    g->w[fl_mac_w(g, i, j, k)] = 0.0;
            }
}

void fl_mac_divergence(const fl_mac_grid *g, double *div)
{
    double inv_dx = 1.0 / g->dx;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                long c = fl_mac_cell(g, i, j, k);
                div[c] = g->label[c] != FL_CELL_FLUID
                             ? 0.0
                             : inv_dx * (g->u[fl_mac_u(g, i + 1, j, k)] - g->u[fl_mac_u(g, i, j, k)] +
                                         g->v[fl_mac_v(g, i, j + 1, k)] - g->v[fl_mac_v(g, i, j, k)] +
                                         g->w[fl_mac_w(g, i, j, k + 1)] - g->w[fl_mac_w(g, i, j, k)]);
            }
}

void fl_mac_laplacian(const fl_mac_grid *g, const double *p, double *lap)
{
    long sx = g->nx, sxy = (long)g->nx * g->ny;
    double s = -1.0 / (g->dx * g->dx);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < g->ncells; c++)
        lap[c] = g->label[c] == FL_CELL_FLUID ? s * fl_poisson_apply_cell(g->label, p, c, sx, sxy) : 0.0;
}

/* The face between cells a and b (b on the + side) moves by
 * -scale (p_b - p_a) when one of them is FLUID and neither is SOLID. */
static inline void face_update(double *vel, int la, int lb, double pa, double pb, double scale)
{
    if (la == FL_CELL_SOLID || lb == FL_CELL_SOLID)
        *vel = 0.0;
    else if (la == FL_CELL_FLUID || lb == FL_CELL_FLUID)
        *vel -= scale * (pb - pa);
}

void fl_mac_apply_gradient(fl_mac_grid *g, double dt, double rho)
{
    double scale = dt / (rho * g->dx);
    fl_mac_enforce_solid(g);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                long c = fl_mac_cell(g, i, j, k);
                int l = g->label[c];
                double pc = g->p[c];
                if (i > 0)
                    face_update(&g->u[fl_mac_u(g, i, j, k)], g->label[c - 1], l, g->p[c - 1], pc, scale);
                if (j > 0)
                    face_update(&g->v[fl_mac_v(g, i, j, k)], g->label[c - g->nx], l, g->p[c - g->nx], pc, scale);
                if (k > 0) {
                    long b = c - (long)g->nx * g->ny;
                    face_update(&g->w[fl_mac_w(g, i, j, k)], g->label[b], l, g->p[b], pc, scale);
                }
            }
}

int fl_mac_project(fl_mac_grid *g, double dt, double rho, const fl_pcg_options *opt,
                   fl_pcg_result *res, fl_error *err)
{
    if (!(dt > 0.0) || !isfinite(dt) || !(rho > 0.0) || !isfinite(rho))
        return fl_fail(err, FL_ERR_INPUT, "mac projection: dt = %g s and rho = %g kg/m^3 must be positive",
                       dt, rho);
    fl_mac_enforce_solid(g);
    fl_mac_divergence(g, g->rhs);
    double scale = -rho * g->dx * g->dx / dt;
#pragma omp parallel for schedule(static)
    for (long c = 0; c < g->ncells; c++)
        g->rhs[c] *= scale;
    int status = fl_pcg_solve(g->pcg, g->label, g->rhs, g->p, opt, res, err);
    if (status != FL_OK)
        return status;
    fl_mac_apply_gradient(g, dt, rho);
    return FL_OK;
}
