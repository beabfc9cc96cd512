/* mac.c: the MAC grid (mac.h): construction from a world (its solid
 * meshes voxelised, scenes/voxelize.h), the report's
 * discrete gradient, divergence and Laplacian (equations 6, 7, 8) with
 * Bridson's free-surface and solid-wall conditions, and the pressure
 * projection that makes the FLUID cells divergence-free. */
#include "mac.h"

#include "voxelize.h"

#include <limits.h>
#include <omp.h>
#include <math.h>
#include <string.h>

/* Memory per cell, bytes, for the check before allocating: the grid's
 * face velocities and weights, their per-thread sums, pressure and
 * right-hand side (14 doubles and a label, ~113), the PCG's vectors and
 * runs (~68), and a solver's own cell arrays (FLIP: ~54). Rough, like the
 * scene loader's particle estimate: it only has to catch a cell size typed
 * in the wrong unit before the allocation is tried. */
#define MAC_CELL_BYTES 240.0

/* Marks SOLID the cells whose centre lies inside one of the world's solid
 * meshes (docs/methods/voxelize.md, "Solid meshes"). */
static int mark_solid_meshes(fl_mac_grid *g, const fl_world *w, fl_error *err)
{
    if (w->solid_mesh_count == 0)
        return FL_OK;
    unsigned char *in = fl_alloc((size_t)g->ncells);
    if (!in)
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: out of memory for the solid meshes' cells");
    fl_voxel_grid vg = {{g->lo[0], g->lo[1], g->lo[2]}, g->dx, {g->nx, g->ny, g->nz}};
    int rc = FL_OK;
    for (int m = 0; m < w->solid_mesh_count && rc == FL_OK; m++) {
        rc = fl_voxelize(&w->solid_meshes[m], &vg, in, err);
        for (long c = 0; c < g->ncells && rc == FL_OK; c++)
            if (in[c])
                g->label[c] = FL_CELL_SOLID;
    }
    fl_free(in);
    return rc;
}

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

/* 1 when every axis of w's domain (2D: x and y) is a whole number of cells
 * of dx, to 1e-6 of a cell; else 0 with the first axis that is not in *axis. */
static int tiles_domain(const fl_world *w, double dx, int *axis)
{
    for (int a = 0; a < (w->dims == 2 ? 2 : 3); a++) {
        const double r = (w->domain.hi[a] - w->domain.lo[a]) / dx;
        if (!(fabs(r - round(r)) <= 1e-6 * fmax(1.0, r)) || round(r) < 1.0) {
            *axis = a;
            return 0;
        }
    }
    return 1;
}

/* The largest cell size at most dx and at least dx / 2 that tiles w's
 * domain (tiles_domain): dx itself when it does, else x's extent over the
 * fewest cells that also tile the other axes; 0 when there is none. */
static double tiling_dx(const fl_world *w, double dx)
{
    int axis;
    if (tiles_domain(w, dx, &axis))
        return dx;
    const double lx = w->domain.hi[0] - w->domain.lo[0];
    const double first = ceil(lx / dx - 1e-9);
    for (double n = first; n <= 2.0 * first && n < 1e7; n++)
        if (tiles_domain(w, lx / n, &axis))
            return lx / n;
    return 0.0;
}

int fl_mac_grid_create(const fl_world *w, const fl_mac_config *cfg, fl_mac_grid **out, fl_error *err)
{
    *out = NULL;
    double dx = cfg->dx > 0.0 ? cfg->dx : 2.0 * w->spacing;
    if (!(dx > 0.0) || !isfinite(dx))
        return fl_fail(err, FL_ERR_INPUT, "MAC grid: expected a positive cell size, got %g m", dx);
    /* the walls are the faces of the outer cells: each axis a whole number
     * of cells, else the last, partial cell lies across the wall and is
     * taken as SOLID, and the fluid in it is pushed out (a tank at rest
     * rose by a third). The default (2 x the spacing) gives way to the
     * largest size that tiles; a given dx must tile. */
    int axis;
    if (!tiles_domain(w, dx, &axis) && !(cfg->dx > 0.0 && w->periodic[axis])) { /* periodic: refused below */
        const double fit = tiling_dx(w, dx), extent = w->domain.hi[axis] - w->domain.lo[axis];
        if (cfg->dx > 0.0 && fit > 0.0)
            return fl_fail(err, FL_ERR_INPUT,
                           "MAC grid: dx = %g m: the %c axis, %g m long, is %.6g cells; the walls must fall on "
                           "cell faces (a dx that divides every axis, e.g. %.6g m)",
                           dx, "xyz"[axis], extent, extent / dx, fit);
        if (cfg->dx > 0.0 || fit == 0.0)
            return fl_fail(err, FL_ERR_INPUT,
                           "MAC grid: no cell size from %g to %g m divides every axis of the domain (the %c axis, "
                           "%g m long, is %.6g cells of %g m): give a dx that does (solvers.<solver>.dx)",
                           0.5 * dx, dx, "xyz"[axis], extent, extent / dx, dx);
        dx = fit;
    }
    int n[3], periodic[3];
    double cells = 1.0;
    for (int a = 0; a < 3; a++) {
        double extent = w->domain.hi[a] - w->domain.lo[a];
        if (!(extent > 0.0))
            return fl_fail(err, FL_ERR_INPUT, "MAC grid: empty domain along axis %c", "xyz"[a]);
        periodic[a] = w->periodic[a] && !(a == 2 && w->dims == 2);
        /* a whole number of cells (tiles_domain) */
        double inner = a == 2 && w->dims == 2 ? 1.0 : round(extent / dx);
        if (periodic[a] && (fabs(extent / dx - round(extent / dx)) > 1e-9 * fmax(1.0, extent / dx) ||
                            round(extent / dx) < 3.0))
            return fl_fail(err, FL_ERR_INPUT,
                           "MAC grid: the periodic %c axis, %g m long, is %.6g cells of dx = %g m: it must be a whole "
                           "number of cells, at least 3 (choose dx = %g m / n)",
                           "xyz"[a], extent, extent / dx, dx, extent);
        if (periodic[a])
            inner = round(extent / dx);
        if (inner > INT_MAX / 4)
            return fl_fail(err, FL_ERR_MEMORY, "a MAC grid of %g cells along axis %c at dx = %g m is too large",
                           inner, "xyz"[a], dx);
        n[a] = (int)inner + (periodic[a] ? 0 : 2);
        cells *= n[a];
    }
    if (cells > INT_MAX / 2)
        return fl_fail(err, FL_ERR_MEMORY, "a MAC grid of %dx%dx%d cells at dx = %g m is more than %d cells", n[0],
                       n[1], n[2], dx, INT_MAX / 2);
    double mem = fl_physical_memory();
    if (mem > 0.0 && cells * MAC_CELL_BYTES > mem)
        return fl_fail(err, FL_ERR_MEMORY,
                       "a MAC grid of %dx%dx%d cells at dx = %g m needs about %.3g GiB, more than this "
                       "machine's %.3g GiB of memory",
                       n[0], n[1], n[2], dx, cells * MAC_CELL_BYTES / 1073741824.0, mem / 1073741824.0);

    fl_mac_grid *g = fl_alloc(sizeof *g);
    if (!g)
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: out of memory");
    memset(g, 0, sizeof *g);
    g->nx = n[0];
    g->ny = n[1];
    g->nz = n[2];
    g->ncells = (long)n[0] * n[1] * n[2];
    g->dx = dx;
    g->inv_dx = 1.0 / dx;
    for (int a = 0; a < 3; a++) {
        g->periodic[a] = periodic[a];
        g->wrap |= periodic[a];
        g->lo[a] = w->domain.lo[a] - (periodic[a] ? 0.0 : dx);
    }
    if (w->dims == 2) /* one layer of cells between two SOLID ones, its centres on the plane z = 0 */
        g->lo[2] = -1.5 * dx;
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
    g->sums = fl_alloc(2 * (nu + nv + nw) * sizeof(double));
    g->p2g_threads = omp_get_max_threads();
    size_t frows = (size_t)(n[1] + 1) * (n[2] + 1), rows = (size_t)n[1] * n[2];
    g->p2g_rows = fl_alloc(4 * frows * sizeof(int));
    g->p2g_cells = fl_alloc((size_t)g->p2g_threads * (2 * rows + (size_t)n[2]) * sizeof(int));
    g->p2g_blocks = fl_alloc(2 * FL_PARTICLE_BLOCKS * sizeof(int));
    if (!g->u || !g->v || !g->w || !g->wu || !g->wv || !g->ww || !g->p || !g->rhs || !g->label || !g->slab ||
        !g->sums || !g->p2g_rows || !g->p2g_cells || !g->p2g_blocks) {
        fl_mac_grid_destroy(&g);
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: out of memory for %dx%dx%d cells", n[0], n[1], n[2]);
    }
    int status = fl_pcg_create(n[0], n[1], n[2], &g->pcg, err);
    if (status != FL_OK) {
        fl_mac_grid_destroy(&g);
        return status;
    }
    fl_pcg_set_periodic(g->pcg, g->periodic);
    memset(g->u, 0, nu * sizeof(double));
    memset(g->v, 0, nv * sizeof(double));
    memset(g->w, 0, nw * sizeof(double));
    memset(g->wu, 0, nu * sizeof(double));
    memset(g->wv, 0, nv * sizeof(double));
    memset(g->ww, 0, nw * sizeof(double));
    memset(g->p, 0, nc * sizeof(double));
    memset(g->rhs, 0, nc * sizeof(double));
    memset(g->p2g_rows, 0, 4 * frows * sizeof(int));

    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                double x[3] = {fl_mac_centre(g, 0, i), fl_mac_centre(g, 1, j), fl_mac_centre(g, 2, k)};
                int solid = !inside(&w->domain, x);
                for (int o = 0; o < w->obstacle_count && !solid; o++)
                    solid = inside(&w->obstacles[o], x);
                g->label[fl_mac_cell(g, i, j, k)] = solid ? FL_CELL_SOLID : FL_CELL_AIR;
            }
    status = mark_solid_meshes(g, w, err);
    if (status != FL_OK) {
        fl_mac_grid_destroy(&g);
        return status;
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
    fl_free(g->div_before);
    fl_free(g->div_after);
    fl_free(g->sys_label);
    fl_free(g->sys_rhs);
    fl_free(g->sys_p);
    fl_free(g->solid_u);
    fl_free(g->solid_v);
    fl_free(g->solid_w);
    fl_free(g->slab);
    fl_free(g->sums);
    fl_free(g->p2g_rows);
    fl_free(g->p2g_cells);
    fl_free(g->p2g_blocks);
    fl_pcg_destroy(&g->pcg);
    fl_free(g);
    *gp = NULL;
}

int fl_mac_grid_moving_solids(fl_mac_grid *g, fl_error *err)
{
    if (g->solid_u)
        return FL_OK;
    size_t nu = (size_t)(g->nx + 1) * g->ny * g->nz, nv = (size_t)g->nx * (g->ny + 1) * g->nz,
           nw = (size_t)g->nx * g->ny * (g->nz + 1);
    double *u = fl_alloc(nu * sizeof(double)), *v = fl_alloc(nv * sizeof(double)),
           *w = fl_alloc(nw * sizeof(double));
    if (!u || !v || !w) {
        fl_free(u);
        fl_free(v);
        fl_free(w);
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: out of memory for the solid velocities of %dx%dx%d cells",
                       g->nx, g->ny, g->nz);
    }
    memset(u, 0, nu * sizeof(double));
    memset(v, 0, nv * sizeof(double));
    memset(w, 0, nw * sizeof(double));
    g->solid_u = u, g->solid_v = v, g->solid_w = w;
    return FL_OK;
}

/* The index strides along x, y and z of lattice a (the faces of velocity
 * component a), for the periodic fix-ups below. */
static void lattice_strides(const fl_mac_grid *g, int a, long stride[3])
{
    int dim[3] = {g->nx, g->ny, g->nz};
    dim[a] += 1;
    stride[0] = 1, stride[1] = dim[0], stride[2] = (long)dim[0] * dim[1];
}

/* The faces across the seams: on every periodic axis a, for each row of
 * cells along it, face 0 of lattice a (between cell hi, the row's first,
 * and lo, its last) goes through fix(g, a, face, lo, hi, ctx), then face n
 * is set to face 0. */
typedef void (*seam_fix)(fl_mac_grid *g, int a, long face, long lo, long hi, const void *ctx);

static void wrap_seams(fl_mac_grid *g, seam_fix fix, const void *ctx)
{
    double *vel[3] = {g->u, g->v, g->w};
    const int n[3] = {g->nx, g->ny, g->nz};
    const long cstride[3] = {1, g->nx, (long)g->nx * g->ny};
    for (int a = 0; a < 3; a++) {
        if (!g->periodic[a])
            continue;
        long fs[3];
        lattice_strides(g, a, fs);
        const int b = (a + 1) % 3, c = (a + 2) % 3;
        for (int ic = 0; ic < n[c]; ic++)
            for (int ib = 0; ib < n[b]; ib++) {
                const long hi = ib * cstride[b] + ic * cstride[c], face = ib * fs[b] + ic * fs[c];
                fix(g, a, face, hi + (n[a] - 1) * cstride[a], hi, ctx);
                vel[a][face + n[a] * fs[a]] = vel[a][face];
            }
    }
}

/* A seam face gets the solid's velocity when either cell is SOLID (the
 * loop of fl_mac_enforce_solid only sees cell 0). */
static void seam_solid(fl_mac_grid *g, int a, long face, long lo, long hi, const void *ctx)
{
    (void)ctx;
    double *vel[3] = {g->u, g->v, g->w};
    const double *solid[3] = {g->solid_u, g->solid_v, g->solid_w};
    if (g->label[hi] == FL_CELL_SOLID || g->label[lo] == FL_CELL_SOLID)
        vel[a][face] = solid[a] ? solid[a][face] : 0.0;
}

/* face[i] = the solid's velocity (solid[i], or 0 without a moving solid)
 * on the n faces of a row whose cell on either side (label a[i] or b[i])
 * is SOLID: one vector loop each way. */
static void solid_faces(double *face, const double *solid, const unsigned char *a, const unsigned char *b, int n)
{
    if (solid) {
        for (int i = 0; i < n; i++)
            if (a[i] == FL_CELL_SOLID || b[i] == FL_CELL_SOLID)
                face[i] = solid[i];
    } else
        for (int i = 0; i < n; i++)
            if (a[i] == FL_CELL_SOLID || b[i] == FL_CELL_SOLID)
                face[i] = 0.0;
}

void fl_mac_enforce_solid(fl_mac_grid *g)
{
    const int nx = g->nx, ny = g->ny, nz = g->nz;
    const long sx = nx, sxy = (long)nx * ny;
    const double *su = g->solid_u, *sv = g->solid_v, *sw = g->solid_w;
    /* each cell sets its low faces that touch SOLID (its own label or the
     * neighbour's below) to the solid's velocity (a cell on the grid's low
     * faces has no neighbour below: a row there is given itself as the row
     * below, and a row's first cell is done apart); the far faces beyond
     * the grid are zeroed apart. Along an axis that wraps, the seams are
     * done after. */
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++) {
            const unsigned char *row = g->label + fl_mac_cell(g, 0, j, k);
            const long fu = fl_mac_u(g, 0, j, k), fv = fl_mac_v(g, 0, j, k), fw = fl_mac_w(g, 0, j, k);
            if (row[0] == FL_CELL_SOLID)
                g->u[fu] = su ? su[fu] : 0.0;
            solid_faces(g->u + fu + 1, su ? su + fu + 1 : NULL, row + 1, row, nx - 1);
            solid_faces(g->v + fv, sv ? sv + fv : NULL, row, j > 0 ? row - sx : row, nx);
            solid_faces(g->w + fw, sw ? sw + fw : NULL, row, k > 0 ? row - sxy : row, nx);
            g->u[fl_mac_u(g, nx, j, k)] = 0.0;
        }
#pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++)
        for (int i = 0; i < nx; i++)
            g->v[fl_mac_v(g, i, ny, k)] = 0.0;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < ny; j++)
        for (int i = 0; i < nx; i++)
            g->w[fl_mac_w(g, i, j, nz)] = 0.0;
    if (g->wrap)
        wrap_seams(g, seam_solid, NULL);
}

int fl_mac_grid_keep_divergence(fl_mac_grid *g, fl_error *err)
{
    if (g->div_before)
        return FL_OK;
    const size_t bytes = (size_t)g->ncells * sizeof(double);
    double *before = fl_alloc(bytes), *after = fl_alloc(bytes);
    if (!before || !after) {
        fl_free(before);
        fl_free(after);
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: out of memory for the divergences of %dx%dx%d cells", g->nx,
                       g->ny, g->nz);
    }
    for (long c = 0; c < g->ncells; c++)
        before[c] = after[c] = NAN;
    g->div_before = before, g->div_after = after;
    return FL_OK;
}

int fl_mac_grid_keep_system(fl_mac_grid *g, fl_error *err)
{
    if (g->sys_label)
        return FL_OK;
    const size_t n = (size_t)g->ncells;
    unsigned char *label = fl_alloc(n);
    double *rhs = fl_alloc(n * sizeof(double)), *p = fl_alloc(n * sizeof(double));
    if (!label || !rhs || !p) {
        fl_free(label);
        fl_free(rhs);
        fl_free(p);
        return fl_fail(err, FL_ERR_MEMORY, "mac grid: out of memory for a copy of the pressure system of %dx%dx%d "
                       "cells", g->nx, g->ny, g->nz);
    }
    g->sys_label = label, g->sys_rhs = rhs, g->sys_p = p;
    return FL_OK;
}

/* out[c] = scale times the divergence (eq. 7) on the FLUID cells, `other`
 * on the others, along each row in one vector loop. fluid_rows: only on
 * the rows that hold FLUID, from their first FLUID cell to their last
 * (fl_fluid_span), the other cells left as they are (the projection's
 * right-hand side, read on the FLUID cells only: a splash fills a few per
 * cent of the grid, and the whole grid's faces are 5 arrays of doubles to
 * read). */
static void divergence_scaled(const fl_mac_grid *g, double scale, double other, double *out, int fluid_rows)
{
    const int nx = g->nx;
    const double inv_dx = g->inv_dx;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++) {
            const long c0 = fl_mac_cell(g, 0, j, k);
            const unsigned char *label = g->label + c0;
            int i0 = 0, i1 = nx - 1;
            if (fluid_rows)
                fl_fluid_span(label, 0, nx, &i0, &i1);
            const double *u = g->u + fl_mac_u(g, 0, j, k), *v0 = g->v + fl_mac_v(g, 0, j, k),
                         *v1 = g->v + fl_mac_v(g, 0, j + 1, k), *w0 = g->w + fl_mac_w(g, 0, j, k),
                         *w1 = g->w + fl_mac_w(g, 0, j, k + 1);
            double *o = out + c0;
            for (int i = i0; i <= i1; i++)
                o[i] = label[i] != FL_CELL_FLUID
                           ? other
                           : inv_dx * (u[i + 1] - u[i] + v1[i] - v0[i] + w1[i] - w0[i]) * scale;
        }
}

void fl_mac_divergence(const fl_mac_grid *g, double *div)
{
    divergence_scaled(g, 1.0, 0.0, div, 0);
}

/* fl_mac_laplacian on a periodic grid: the stencil wraps. */
static void wrap_laplacian(const fl_mac_grid *g, const double *p, double *lap)
{
    const double s = -1.0 / (g->dx * g->dx);
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                const long c = fl_mac_cell(g, i, j, k);
                double v = 0.0;
                if (g->label[c] == FL_CELL_FLUID)
                    for (int a = 0; a < 3; a++)
                        for (int side = -1; side <= 1; side += 2) {
                            const long o = fl_mac_cell_wrapped(g, i + (a == 0) * side, j + (a == 1) * side,
                                                               k + (a == 2) * side);
                            if (g->label[o] != FL_CELL_SOLID)
                                v += p[c] - p[o];
                        }
                lap[c] = s * v;
            }
}

void fl_mac_laplacian(const fl_mac_grid *g, const double *p, double *lap)
{
    if (g->wrap) {
        wrap_laplacian(g, p, lap);
        return;
    }
    long sx = g->nx, sxy = (long)g->nx * g->ny;
    double s = -1.0 / (g->dx * g->dx);
#pragma omp parallel for schedule(static)
    for (long c = 0; c < g->ncells; c++)
        lap[c] = g->label[c] == FL_CELL_FLUID ? s * fl_poisson_apply_cell(g->label, p, c, sx, sxy) : 0.0;
}

/* The gradient on a seam face (the loop of fl_mac_apply_gradient updates
 * faces with both cells inside the grid only); ctx: the scale, dt / (rho dx). */
static void seam_gradient(fl_mac_grid *g, int a, long face, long lo, long hi, const void *ctx)
{
    const double scale = *(const double *)ctx;
    double *vel[3] = {g->u, g->v, g->w};
    const int lh = g->label[hi], ll = g->label[lo];
    if (lh != FL_CELL_SOLID && ll != FL_CELL_SOLID && (lh == FL_CELL_FLUID || ll == FL_CELL_FLUID))
        vel[a][face] -= scale * (g->p[hi] - g->p[lo]);
}

/* The gradient's update of the faces with a FLUID cell on one side and no
 * SOLID cell on either (the faces touching SOLID keep the solid's velocity
 * from fl_mac_enforce_solid, which has run): each cell updates its low
 * faces. */
static void gradient_faces(fl_mac_grid *g, double scale)
{
    const long sx = g->nx, sxy = (long)g->nx * g->ny;
    const unsigned char *label = g->label;
    const double *p = g->p;
#pragma omp parallel for schedule(static)
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                long c = fl_mac_cell(g, i, j, k);
                int l = label[c];
                if (l == FL_CELL_SOLID)
                    continue;
                const long below[3] = {c - 1, c - sx, c - sxy};
                double *face[3] = {&g->u[fl_mac_u(g, i, j, k)], &g->v[fl_mac_v(g, i, j, k)],
                                   &g->w[fl_mac_w(g, i, j, k)]};
                const int inside[3] = {i > 0, j > 0, k > 0};
                for (int a = 0; a < 3; a++) {
                    if (!inside[a])
                        continue;
                    int lb = label[below[a]];
                    if (lb != FL_CELL_SOLID && (l == FL_CELL_FLUID || lb == FL_CELL_FLUID))
                        *face[a] -= scale * (p[c] - p[below[a]]);
                }
            }
    if (g->wrap)
        wrap_seams(g, seam_gradient, &scale);
}

/* The same faces found from the FLUID cells of the solve just made (its
 * runs along x, which the workspace keeps as the last solve's; a grid
 * without periodic axes, whose outer layer holds no FLUID): a FLUID cell
 * updates its low faces towards a cell that is not SOLID, and its high
 * faces towards an AIR cell (a FLUID one above updates that face as its
 * low one). Every face is updated once, by the same arithmetic as
 * gradient_faces, visiting the FLUID cells only. */
static void gradient_faces_on_runs(fl_mac_grid *g, double scale)
{
    const fl_pcg *s = g->pcg;
    const long sx = g->nx, sxy = (long)g->nx * g->ny;
    const unsigned char *label = g->label;
    const double *p = g->p;
    double *vel[3] = {g->u, g->v, g->w};
#pragma omp parallel for schedule(static)
    for (long r = 0; r < s->nold; r++) {
        const long c0 = s->old_start[r];
        const int i0 = (int)(c0 % sx), j = (int)((c0 / sx) % g->ny), k = (int)(c0 / sxy);
        const long f0[3] = {fl_mac_u(g, i0, j, k), fl_mac_v(g, i0, j, k), fl_mac_w(g, i0, j, k)};
        const long up[3] = {1, g->nx, (long)g->nx * g->ny}, step[3] = {1, sx, sxy};
        const int n = s->old_len[r];
        const unsigned char *lc = label + c0;
        const double *pc = p + c0;
        /* per axis, the low faces, then the high ones: vector loops */
        for (int a = 0; a < 3; a++) {
            const unsigned char *ll = lc - step[a], *lh = lc + step[a];
            const double *pl = pc - step[a], *ph = pc + step[a];
            double *lo = vel[a] + f0[a], *hi = lo + up[a];
            for (int i = 0; i < n; i++)
                if (lc[i] == FL_CELL_FLUID && ll[i] != FL_CELL_SOLID)
                    lo[i] -= scale * (pc[i] - pl[i]);
            for (int i = 0; i < n; i++)
                if (lc[i] == FL_CELL_FLUID && lh[i] == FL_CELL_AIR)
                    hi[i] -= scale * (ph[i] - pc[i]);
        }
    }
}

void fl_mac_apply_gradient(fl_mac_grid *g, double dt, double rho)
{
    fl_mac_enforce_solid(g);
    gradient_faces(g, dt / (rho * g->dx));
}

int fl_mac_project(fl_mac_grid *g, double dt, double rho, const fl_pcg_options *opt,
                   fl_pcg_result *res, fl_error *err)
{
    if (!(dt > 0.0) || !isfinite(dt) || !(rho > 0.0) || !isfinite(rho))
        return fl_fail(err, FL_ERR_INPUT, "mac projection: dt = %g s and rho = %g kg/m^3 must be positive",
                       dt, rho);
    fl_mac_enforce_solid(g);
    divergence_scaled(g, -rho * g->dx * g->dx / dt, 0.0, g->rhs, 1);
    /* the divergences kept for the run's diagnostics: NaN off the FLUID cells */
    if (g->div_before)
        divergence_scaled(g, 1.0, NAN, g->div_before, 0);
    if (g->sys_label) {
        memcpy(g->sys_label, g->label, (size_t)g->ncells);
        memcpy(g->sys_rhs, g->rhs, (size_t)g->ncells * sizeof(double));
        memcpy(g->sys_p, g->p, (size_t)g->ncells * sizeof(double));
    }
    int status = fl_pcg_solve(g->pcg, g->label, g->rhs, g->p, opt, res, err);
    if (status != FL_OK)
        return status;
    /* the faces touching SOLID were set above, and nothing since changed
     * them */
    if (g->wrap)
        gradient_faces(g, dt / (rho * g->dx));
    else
        gradient_faces_on_runs(g, dt / (rho * g->dx));
    if (g->div_after)
        divergence_scaled(g, 1.0, NAN, g->div_after, 0);
    return FL_OK;
}

void fl_mac_wrap_faces(const fl_mac_grid *g, int a, double *u)
{
    if (!g->periodic[a])
        return;
    long fs[3];
    lattice_strides(g, a, fs);
    const int n[3] = {g->nx, g->ny, g->nz}, b = (a + 1) % 3, c = (a + 2) % 3;
    for (int ic = 0; ic < n[c]; ic++)
        for (int ib = 0; ib < n[b]; ib++) {
            const long face = ib * fs[b] + ic * fs[c];
            u[face + n[a] * fs[a]] = u[face];
        }
}

long fl_mac_max_faces(const fl_mac_grid *g)
{
    long nu = (long)(g->nx + 1) * g->ny * g->nz, nv = (long)g->nx * (g->ny + 1) * g->nz,
         nw = (long)g->nx * g->ny * (g->nz + 1);
    return nu > nv ? (nu > nw ? nu : nw) : (nv > nw ? nv : nw);
}

double fl_mac_viscosity_substeps(const fl_mac_grid *g, double dt, double nu, int dims)
{
    return fmax(1.0, ceil(2.0 * dims * dt * nu * g->inv_dx * g->inv_dx - 1e-9));
}

/* The label of cell (i, j, k), SOLID beyond the grid (one cell beyond a
 * periodic axis: the wrapped cell's). */
static inline int label_at(const fl_mac_grid *g, int i, int j, int k)
{
    if (i < 0 || j < 0 || k < 0 || i >= g->nx || j >= g->ny || k >= g->nz) {
        const long c = g->wrap ? fl_mac_cell_wrapped(g, i, j, k) : -1;
        return c < 0 ? FL_CELL_SOLID : g->label[c];
    }
    return g->label[fl_mac_cell(g, i, j, k)];
}

void fl_mac_apply_viscosity(fl_mac_grid *g, double dt, double nu, int dims, int substeps, double *old)
{
    fl_mac_enforce_solid(g);
    double *vel[3] = {g->u, g->v, g->w};
    const double inv_dx2 = g->inv_dx * g->inv_dx, dt_nu = dt / substeps * nu;
    for (int step = 0; step < substeps; step++)
        for (int a = 0; a < dims; a++) {
            int dim[3] = {g->nx, g->ny, g->nz};
            dim[a] += 1;
            const long stride[3] = {1, dim[0], (long)dim[0] * dim[1]};
            double *u = vel[a];
            memcpy(old, u, (size_t)(stride[2] * dim[2]) * sizeof(double));
            /* a face updated has non-SOLID cells on both sides, inside the
             * grid's SOLID layer: its neighbours are all on the lattice,
             * but for those across a periodic axis's faces (wrapped: face
             * -1 is face n-1, face n + 1 face 1) */
            const int ncell[3] = {g->nx, g->ny, g->nz};
#pragma omp parallel for collapse(2) schedule(static)
            for (int k = 0; k < dim[2]; k++)
                for (int j = 0; j < dim[1]; j++)
                    for (int i = 0; i < dim[0]; i++) {
                        int c[3] = {i, j, k};
                        const int hi = label_at(g, i, j, k);
                        c[a] -= 1;
                        const int lo = label_at(g, c[0], c[1], c[2]);
                        if (hi == FL_CELL_SOLID || lo == FL_CELL_SOLID || (hi != FL_CELL_FLUID && lo != FL_CELL_FLUID))
                            continue;
                        const long q = i + stride[1] * j + stride[2] * k;
                        double nb[6];
                        int kind[6];
                        for (int b = 0; b < dims; b++)
                            for (int side = 0; side < 2; side++) {
                                /* the neighbour face and its two cells */
                                int f[3] = {i, j, k};
                                f[b] += side ? 1 : -1;
                                int e[3] = {f[0], f[1], f[2]};
                                e[a] -= 1;
                                long off = side ? stride[b] : -stride[b];
                                if (f[b] < 0 || f[b] >= dim[b])
                                    off += (f[b] < 0 ? ncell[b] : -ncell[b]) * stride[b];
                                nb[2 * b + side] = old[q + off];
                                kind[2 * b + side] = fl_mac_face_kind(label_at(g, f[0], f[1], f[2]),
                                                                      label_at(g, e[0], e[1], e[2]), b != a);
                            }
                        u[q] = old[q] + dt_nu * fl_mac_face_laplacian(old[q], nb, kind, dims, inv_dx2);
                    }
        }
}
