/* dev_bodies.h: the device kernels' bodies, one FL_HD function per
 * kernel of FL_DEV_KERNEL_LIST (dev.h): fl_dev_<name>(i, v) does the work
 * of particle i (slot i in cell order) over the view v. Each is an index,
 * a neighbor walk and calls to the physics of sph_physics.h and
 * pbf_physics.h, the functions the CPU solvers call: no equation is
 * written here. The CUDA backend runs them one GPU thread per particle;
 * the emulator in an OpenMP loop.
 *
 * The neighbor walk visits the 27 cells around a particle's cell row by
 * row (z, then y; the three cells of an x row are contiguous in cell
 * order), as the CPU grid's search does, and keeps the points within the
 * support radius at the positions of the sort: the CPU's neighbor lists,
 * in the CPU's order. A rigid tool's particles are walked the same way on
 * the tool's own grid (dev.h, fl_dev_tool), around the point's cell there.
 *
 * The kernels that walk the boundary come in two versions: fl_dev_<name>
 * over the walls alone, and fl_dev_<name>_tool, whose walks visit a rigid
 * tool's particles after the walls' and whose body adds what the CPU
 * solver adds for them. Both are one body, fl_dev_<name>_walks(i, v,
 * tool), inlined with tool a constant (FL_DEV_WALKS), so that without a
 * tool the kernels compile as they did before there was one. */
#ifndef FL_DEV_BODIES_H
#define FL_DEV_BODIES_H

#include "dev.h"
#include "nbgrid.h"

/* ---- the neighbor walk -------------------------------------------------- */

typedef struct fl_dev_walk {
    int c[3];                  /* the particle's cell */
    const int *dim;            /* the cells of the grid walked */
    int row;                   /* next of the 9 rows */
    int k, k1;                 /* slots left in the current row */
    float x, y, z;             /* the particle, at the positions of the sort */
    int self;                  /* its slot, skipped (-1: none) */
    const int *start;          /* the cell start table walked */
    const float *px, *py, *pz; /* the points walked, at the positions of the sort */
    const float *vol;          /* a boundary walk: their volumes */
    const fl_dev_tool *tool;   /* a boundary walk: the tool, walked after the cells (NULL: none) */
    int on_tool;               /* the points walked are the tool's particles */
} fl_dev_walk;

/* Starts a walk over the points (px, py, pz) binned in start around the
 * point (x, y, z); a point outside the grid (not finite) has no neighbors. */
static inline FL_HD void fl_dev_walk_begin(fl_dev_walk *w, const fl_dev_grid *g, const int *start, const float *px,
                                           const float *py, const float *pz, float x, float y, float z, int self)
{
    int cell = fl_cell_index(g->lo, g->cell, g->dim, x, y, z);
    w->c[0] = cell % g->dim[0], w->c[1] = (cell / g->dim[0]) % g->dim[1], w->c[2] = cell / (g->dim[0] * g->dim[1]);
    w->dim = g->dim;
    w->row = cell < 0 ? 9 : 0;
    w->k = w->k1 = 0;
    w->x = x, w->y = y, w->z = z;
    w->self = self;
    w->start = start;
    w->px = px, w->py = py, w->pz = pz;
    w->vol = NULL;
    w->tool = NULL;
    w->on_tool = 0;
}

/* From the cells to the tool's particles: when the point is within reach
 * of the tool's centre, the 27 cells of the tool's own grid around the
 * point there (R^T (x - c), its cell clamped to the grid: a point beyond
 * the grid's margin has no tool neighbor, and the distances decide),
 * else none. */
static inline FL_HD void fl_dev_walk_to_tool(fl_dev_walk *w)
{
    const fl_dev_tool *t = w->tool;
    const fl_tool_pose *p = &t->link.pose;
    float d[3] = {w->x - p->c[0], w->y - p->c[1], w->z - p->c[2]};
    w->px = t->x, w->py = t->y, w->pz = t->z, w->vol = t->vol;
    w->start = t->start;
    w->dim = t->dim;
    w->k = w->k1 = 0;
    w->row = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < t->reach2 ? 0 : 9;
    for (int a = 0; a < 3; a++) {
        float o = p->rot[a] * d[0] + p->rot[3 + a] * d[1] + p->rot[6 + a] * d[2];
        int q = (int)floorf((o - t->lo[a]) / t->cell);
        w->c[a] = q < 0 ? 0 : q >= t->dim[a] ? t->dim[a] - 1 : q;
    }
    w->on_tool = 1;
}

/* The next neighbor's slot, or -1 at the end. */
static inline FL_HD int fl_dev_walk_next(fl_dev_walk *w, const fl_dev_grid *g)
{
    for (;;) {
        while (w->k < w->k1) {
            int j = w->k++;
            float dx = w->x - w->px[j], dy = w->y - w->py[j], dz = w->z - w->pz[j];
            float r2 = dx * dx + dy * dy + dz * dz;
            if (r2 < g->r2max && j != w->self)
                return j;
        }
        if (w->row >= 9) {
            if (!w->tool || w->on_tool)
                return -1;
            fl_dev_walk_to_tool(w);
            continue;
        }
        const int *dim = w->dim;
        int yy = w->c[1] + w->row % 3 - 1, zz = w->c[2] + w->row / 3 - 1;
        w->row++;
        if (yy < 0 || zz < 0 || yy >= dim[1] || zz >= dim[2])
            continue;
        int xa = w->c[0] > 0 ? w->c[0] - 1 : 0, xb = w->c[0] + 1 < dim[0] ? w->c[0] + 1 : w->c[0];
        int first = (zz * dim[1] + yy) * dim[0];
        w->k = w->start[first + xa];
        w->k1 = w->start[first + xb + 1];
    }
}

/* A walk over particle i's fluid neighbors, chosen at (x, y, z). */
static inline FL_HD void fl_dev_fluid_walk(fl_dev_walk *w, const fl_dev_view *v, const float *x, const float *y,
                                           const float *z, int i)
{
    fl_dev_walk_begin(w, &v->grid, v->grid.start, x, y, z, x[i], y[i], z[i], i);
}

/* A walk over the boundary particles near particle i at (x, y, z): the
 * walls' (binned), then with tool the tool's (in its order); w->px, py, pz
 * and vol are the point's position and volume, and w->on_tool says whose. */
static inline FL_HD void fl_dev_boundary_walk(fl_dev_walk *w, const fl_dev_view *v, const float *x, const float *y,
                                              const float *z, int i, int tool)
{
    const fl_dev_grid *g = &v->grid;
    fl_dev_walk_begin(w, g, g->bstart, g->bx, g->by, g->bz, x[i], y[i], z[i], -1);
    w->vol = g->bvol;
    w->tool = tool ? &v->tool : NULL;
}

/* A walk over the tool's particles near particle i at (x, y, z) alone. */
static inline FL_HD void fl_dev_tool_walk(fl_dev_walk *w, const fl_dev_view *v, const float *x, const float *y,
                                          const float *z, int i)
{
    w->x = x[i], w->y = y[i], w->z = z[i];
    w->self = -1;
    w->tool = &v->tool;
    fl_dev_walk_to_tool(w);
}

/* The velocity of the boundary point j of the walk w: the tool's material
 * velocity, 0 on the walls. */
static inline FL_HD void fl_dev_walk_velocity(const fl_dev_walk *w, int j, float u[3])
{
    u[0] = w->on_tool ? w->tool->vx[j] : 0.0f;
    u[1] = w->on_tool ? w->tool->vy[j] : 0.0f;
    u[2] = w->on_tool ? w->tool->vz[j] : 0.0f;
}

/* PBF's fluid neighbors: listed once a step, at the sort's positions
 * (fl_dev_pbf_neighbors: the walk's slots, in its order), and read by
 * every pass of the step, which then visits the 30-odd neighbors instead
 * of the 27 cells' 200-odd points they were picked from. A particle with
 * more neighbors than its list holds walks the cells instead: the same
 * slots in the same order either way. */
typedef struct fl_dev_nbrs {
    const int *list;           /* entry k at list[k stride]; NULL: walking */
    int k, count, stride;
    fl_dev_walk w;
} fl_dev_nbrs;

/* Starts particle i's fluid neighbors of the step's list (PBF). */
static inline FL_HD void fl_dev_pbf_fluid_nbrs(fl_dev_nbrs *s, const fl_dev_view *v, int i)
{
    s->count = v->nbr_count[i];
    s->k = 0;
    s->stride = v->n;
    s->list = s->count <= v->nbr_cap ? v->nbr + i : NULL;
    fl_dev_fluid_walk(&s->w, v, v->gx, v->gy, v->gz, i);
}

/* The next neighbor's slot, or -1 at the end. */
static inline FL_HD int fl_dev_nbrs_next(fl_dev_nbrs *s, const fl_dev_grid *g)
{
    if (s->list)
        return s->k < s->count ? s->list[(size_t)s->k++ * s->stride] : -1;
    return fl_dev_walk_next(&s->w, g);
}

/* fl_dev_<name> and fl_dev_<name>_tool, the kernels of the body
 * fl_dev_<name>_walks without and with the tool. */
#define FL_DEV_WALKS(name)                                                                                             \
    static inline FL_HD void fl_dev_##name(int i, const fl_dev_view *v) { fl_dev_##name##_walks(i, v, 0); }           \
    static inline FL_HD void fl_dev_##name##_tool(int i, const fl_dev_view *v) { fl_dev_##name##_walks(i, v, 1); }

/* ---- the sort ------------------------------------------------------------ */

/* The cell of particle i at (sx, sy, sz) as its key (ncells when it is
 * outside the grid, so that it sorts last and is nobody's neighbor). */
static inline FL_HD void fl_dev_cell_key(int i, const fl_dev_view *v)
{
    const fl_dev_grid *g = &v->grid;
    int c = fl_cell_index(g->lo, g->cell, g->dim, v->sx[i], v->sy[i], v->sz[i]);
    v->key[i] = c < 0 ? g->ncells : c;
    v->order[i] = i;
}

/* Entry c of the cell start table (launched over its ncells + 1
 * entries): the first slot whose sorted key is c or more (n if none), by
 * bisection, so that no thread fills a run of empty cells alone. */
static inline FL_HD void fl_dev_cell_start(int c, const fl_dev_view *v)
{
    const int *key = v->key;
    int lo = 0, hi = v->n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (key[mid] < c)
            lo = mid + 1;
        else
            hi = mid;
    }
    v->grid.start[c] = lo;
}

/* Reorders the gathered arrays into cell order. */
static inline FL_HD void fl_dev_gather(int k, const fl_dev_view *v)
{
    int i = v->order[k];
    for (int m = 0; m < v->gather_count; m++)
        v->gather_dst[m][k] = v->gather_src[m][i];
}

/* ---- the SPH family ---------------------------------------------------- */

/* The density estimator (sph_physics.h) at (ex, ey, ez) into rho_out, over
 * the neighbors chosen at (x, y, z). */
FL_FORCE_INLINE FL_HD void fl_dev_density_walks(int i, const fl_dev_view *v, int tool)
{
    const float h = v->h;
    const int dim = v->dim;
    const float *ex = v->ex, *ey = v->ey, *ez = v->ez;
    float fluid = fl_poly6(0.0f, h, dim), solid = 0.0f;
    fl_dev_walk w;
    fl_dev_fluid_walk(&w, v, v->x, v->y, v->z, i);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = ex[i] - ex[j], dy = ey[i] - ey[j], dz = ez[i] - ez[j];
        fluid += fl_poly6(dx * dx + dy * dy + dz * dz, h, dim);
    }
    fl_dev_boundary_walk(&w, v, v->x, v->y, v->z, i, tool);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = ex[i] - w.px[j], dy = ey[i] - w.py[j], dz = ez[i] - w.pz[j];
        solid += fl_boundary_density_pair(w.vol[j], dx * dx + dy * dy + dz * dz, h, dim);
    }
    v->rho_out[i] = fl_density_estimate(v->m, fluid, v->rho0, solid);
}
FL_DEV_WALKS(density)

/* Morris's nu lap v at particle i (fl_morris_pair, in the order of
 * particle_common.h's fl_morris_accel) into out: over the fluid neighbors
 * nb, at the positions (x, y, z) with the densities rho and velocities of
 * the view, then over the boundary walk bw, each boundary point at its
 * own velocity (0 on the walls: no slip) extrapolated through the wall
 * (fl_morris_wall_beta). */
static inline FL_HD void fl_dev_morris(int i, const fl_dev_view *v, fl_dev_nbrs *nb, fl_dev_walk *bw, const float *x,
                                       const float *y, const float *z, float out[3])
{
    const float h = v->h, hs = 0.5f * h, eps = 0.01f * hs * hs, nu = v->nu, m = v->m;
    const int dim = v->dim;
    const float xi = x[i], yi = y[i], zi = z[i], vol_i = m / v->rho[i];
    const float vxi = v->vx[i], vyi = v->vy[i], vzi = v->vz[i];
    float a[3] = {0, 0, 0};
    for (int j; (j = fl_dev_nbrs_next(nb, &v->grid)) >= 0;) {
        float dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
        float r2 = dx * dx + dy * dy + dz * dz;
        float s = fl_morris_pair(nu, vol_i + m / v->rho[j], sqrtf(r2), r2, eps, h, dim);
        a[0] += s * (vxi - v->vx[j]), a[1] += s * (vyi - v->vy[j]), a[2] += s * (vzi - v->vz[j]);
    }
    fl_dev_walk first = *bw; /* the walk twice: the nearest boundary point, then the pairs */
    float near2 = h * h;
    for (int j; (j = fl_dev_walk_next(&first, &v->grid)) >= 0;) {
        float dx = xi - first.px[j], dy = yi - first.py[j], dz = zi - first.pz[j];
        near2 = fminf(near2, dx * dx + dy * dy + dz * dz);
    }
    const float beta = fl_morris_wall_beta(near2, h, dim);
    for (int j; (j = fl_dev_walk_next(bw, &v->grid)) >= 0;) {
        float dx = xi - bw->px[j], dy = yi - bw->py[j], dz = zi - bw->pz[j];
        float r2 = dx * dx + dy * dy + dz * dz, u[3];
        fl_dev_walk_velocity(bw, j, u);
        float s = beta * fl_morris_pair(nu, 2.0f * bw->vol[j], sqrtf(r2), r2, eps, h, dim);
        a[0] += s * (vxi - u[0]), a[1] += s * (vyi - u[1]), a[2] += s * (vzi - u[2]);
    }
    out[0] = a[0], out[1] = a[1], out[2] = a[2];
}

/* fl_dev_morris of the SPH family: the cell walk's fluid neighbors and
 * the boundary's (with the tool's particles when tool), at x. */
static inline FL_HD void fl_dev_morris_sph(int i, const fl_dev_view *v, int tool, float out[3])
{
    fl_dev_nbrs nb;
    nb.list = NULL;
    fl_dev_fluid_walk(&nb.w, v, v->x, v->y, v->z, i);
    fl_dev_walk bw;
    fl_dev_boundary_walk(&bw, v, v->x, v->y, v->z, i, tool);
    fl_dev_morris(i, v, &nb, &bw, v->x, v->y, v->z, out);
}

static inline FL_HD void fl_dev_sph_eos(int i, const fl_dev_view *v)
{
    v->p[i] = fl_eos_linear(v->stiffness, v->rho[i], v->rho0_d, v->clamp_negative);
    v->p_rho2[i] = fl_p_over_rho2(v->p[i], v->rho[i]);
    v->vol[i] = v->m / v->rho[i];
}

static inline FL_HD void fl_dev_wcsph_eos(int i, const fl_dev_view *v)
{
    v->p[i] = fl_eos_tait(v->tait_b, v->rho[i], v->rho0_d, v->clamp_negative);
    v->p_rho2[i] = fl_p_over_rho2(v->p[i], v->rho[i]);
}

/* SPH: pressure and viscosity from the fluid, the boundary's pressure,
 * gravity; the tool's share of the boundary's to the link (as sph.c's
 * sph_accel). */
FL_FORCE_INLINE FL_HD void fl_dev_sph_accel_walks(int i, const fl_dev_view *v, int tool)
{
    const float h = v->h, m = v->m, rho0 = v->rho0;
    const int dim = v->dim;
    const float xi = v->x[i], yi = v->y[i], zi = v->z[i];
    float ap[3] = {0, 0, 0}, av[3] = {0, 0, 0}, ab[3] = {0, 0, 0}, at[3] = {0, 0, 0};
    fl_dev_walk w;
    fl_dev_fluid_walk(&w, v, v->x, v->y, v->z, i);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = xi - v->x[j], dy = yi - v->y[j], dz = zi - v->z[j];
        float r = sqrtf(dx * dx + dy * dy + dz * dz);
        float sp = fl_pressure_pair(m, v->p_rho2[i], v->p_rho2[j], r, h, dim);
        ap[0] += sp * dx, ap[1] += sp * dy, ap[2] += sp * dz;
        float sv = fl_viscosity_pair(v->vol[j], r, h, dim);
        av[0] += sv * (v->vx[j] - v->vx[i]);
        av[1] += sv * (v->vy[j] - v->vy[i]);
        av[2] += sv * (v->vz[j] - v->vz[i]);
    }
    const float pi = v->p[i], inv_rho2 = 1.0f / (v->rho[i] * v->rho[i]);
    fl_dev_boundary_walk(&w, v, v->x, v->y, v->z, i, tool);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = xi - w.px[j], dy = yi - w.py[j], dz = zi - w.pz[j];
        float r = sqrtf(dx * dx + dy * dy + dz * dz);
        float pb = fl_wall_pressure(pi, rho0, v->gravity, dx, dy, dz);
        float sb = fl_sph_boundary_pair(rho0, w.vol[j], pi, pb, inv_rho2, r, h, dim);
        ab[0] += sb * dx, ab[1] += sb * dy, ab[2] += sb * dz;
        if (tool && w.on_tool)
            at[0] += sb * dx, at[1] += sb * dy, at[2] += sb * dz;
    }
    if (tool)
        fl_tool_store(&v->tool.link, i, m, at);
    float a[3];
    fl_sph_acceleration(ap, ab, v->mu, v->rho[i], av, v->gravity, a);
    if (v->morris) {
        float am[3];
        fl_dev_morris_sph(i, v, tool, am);
        a[0] += am[0], a[1] += am[1], a[2] += am[2];
    }
    v->ax[i] = a[0], v->ay[i] = a[1], v->az[i] = a[2];
}
FL_DEV_WALKS(sph_accel)

/* WCSPH: pressure with artificial viscosity, cohesion, the boundary's
 * pressure with friction (on the velocity relative to the boundary's),
 * gravity; the tool's share of the boundary's to the link (as wcsph.c's
 * wcsph_accel). */
FL_FORCE_INLINE FL_HD void fl_dev_wcsph_accel_walks(int i, const fl_dev_view *v, int tool)
{
    const float h = v->h, m = v->m, rho0 = v->rho0, eps = v->eps_visc, kappa = v->kappa;
    const int dim = v->dim;
    const float xi = v->x[i], yi = v->y[i], zi = v->z[i];
    const float vxi = v->vx[i], vyi = v->vy[i], vzi = v->vz[i], rhoi = v->rho[i];
    float a[3] = {0, 0, 0}, coh[3] = {0, 0, 0};
    fl_dev_walk w;
    fl_dev_fluid_walk(&w, v, v->x, v->y, v->z, i);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = xi - v->x[j], dy = yi - v->y[j], dz = zi - v->z[j];
        float r2 = dx * dx + dy * dy + dz * dz, r = sqrtf(r2);
        float vdotx = (vxi - v->vx[j]) * dx + (vyi - v->vy[j]) * dy + (vzi - v->vz[j]) * dz;
        float visc = v->morris ? 0.0f : fl_monaghan_pi(v->av, rhoi, v->rho[j], vdotx, r2, eps);
        float sp = fl_pressure_visc_pair(m, v->p_rho2[i], v->p_rho2[j], visc, r, h, dim);
        a[0] += sp * dx, a[1] += sp * dy, a[2] += sp * dz;
        if (kappa > 0.0f) {
            float wc = fl_cohesion_pair(r2, h, dim);
            coh[0] += dx * wc, coh[1] += dy * wc, coh[2] += dz * wc;
        }
    }
    const float nu_b = v->friction / (2.0f * rhoi);
    const float pi = v->p[i], inv_rho2 = 1.0f / (rhoi * rhoi);
    float at[3] = {0, 0, 0};
    fl_dev_boundary_walk(&w, v, v->x, v->y, v->z, i, tool);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = xi - w.px[j], dy = yi - w.py[j], dz = zi - w.pz[j];
        float r2 = dx * dx + dy * dy + dz * dz, r = sqrtf(r2);
        float u[3];
        fl_dev_walk_velocity(&w, j, u);
        float vdotx = (vxi - u[0]) * dx + (vyi - u[1]) * dy + (vzi - u[2]) * dz;
        float fric = fl_boundary_friction(nu_b, vdotx, r2, eps);
        float pb = fl_wall_pressure(pi, rho0, v->gravity, dx, dy, dz);
        float sb = fl_wcsph_boundary_pair(rho0, w.vol[j], pi, pb, inv_rho2, fric, r, h, dim);
        a[0] += sb * dx, a[1] += sb * dy, a[2] += sb * dz;
        if (tool && w.on_tool)
            at[0] += sb * dx, at[1] += sb * dy, at[2] += sb * dz;
    }
    if (tool)
        fl_tool_store(&v->tool.link, i, m, at);
    if (v->morris) {
        float am[3];
        fl_dev_morris_sph(i, v, tool, am);
        a[0] += am[0], a[1] += am[1], a[2] += am[2];
    }
    float out[3];
    fl_wcsph_acceleration(a, kappa, coh, v->gravity, out);
    v->ax[i] = out[0], v->ay[i] = out[1], v->az[i] = out[2];
}
FL_DEV_WALKS(wcsph_accel)

/* Symplectic Euler with (ax, ay, az), then the domain clamp. */
static inline FL_HD void fl_dev_integrate(int i, const fl_dev_view *v)
{
    float x[3] = {v->x[i], v->y[i], v->z[i]}, u[3] = {v->vx[i], v->vy[i], v->vz[i]};
    const float a[3] = {v->ax[i], v->ay[i], v->az[i]};
    fl_symplectic_euler(x, u, a, v->dt);
    fl_clamp_particle(&v->walls, x, u);
    v->x[i] = x[0], v->y[i] = x[1], v->z[i] = x[2];
    v->vx[i] = u[0], v->vy[i] = u[1], v->vz[i] = u[2];
}

/* PCISPH: viscosity and gravity at x(t) into (ax, ay, az); p = 0, a^p = 0.
 * Müller's viscosity walks the fluid alone; Morris's the boundary too (with
 * the tool's particles when tool), as pcisph.c's pcisph_nonpressure. */
FL_FORCE_INLINE FL_HD void fl_dev_pcisph_nonpressure_walks(int i, const fl_dev_view *v, int tool)
{
    const float h = v->h, m = v->m;
    const int dim = v->dim;
    float a[3];
    if (v->morris) {
        fl_dev_morris_sph(i, v, tool, a);
        a[0] += v->gravity[0], a[1] += v->gravity[1], a[2] += v->gravity[2];
    } else {
        float av[3] = {0, 0, 0};
        fl_dev_walk w;
        fl_dev_fluid_walk(&w, v, v->x, v->y, v->z, i);
        for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
            float dx = v->x[i] - v->x[j], dy = v->y[i] - v->y[j], dz = v->z[i] - v->z[j];
            float sv = fl_viscosity_pair(m / v->rho[j], sqrtf(dx * dx + dy * dy + dz * dz), h, dim);
            av[0] += sv * (v->vx[j] - v->vx[i]);
            av[1] += sv * (v->vy[j] - v->vy[i]);
            av[2] += sv * (v->vz[j] - v->vz[i]);
        }
        fl_pcisph_nonpressure(v->mu, v->rho[i], av, v->gravity, a);
    }
    v->ax[i] = a[0], v->ay[i] = a[1], v->az[i] = a[2];
    v->apx[i] = v->apy[i] = v->apz[i] = 0.0f;
    v->p[i] = 0.0f;
}
FL_DEV_WALKS(pcisph_nonpressure)

static inline FL_HD void fl_dev_pcisph_predict(int i, const fl_dev_view *v)
{
    const float x[3] = {v->x[i], v->y[i], v->z[i]}, u[3] = {v->vx[i], v->vy[i], v->vz[i]};
    const float a[3] = {v->ax[i] + v->apx[i], v->ay[i] + v->apy[i], v->az[i] + v->apz[i]};
    float q[3];
    fl_predict_clamped(&v->walls, x, u, a, v->dt, q);
    v->qx[i] = q[0], v->qy[i] = q[1], v->qz[i] = q[2];
}

static inline FL_HD void fl_dev_pcisph_correct(int i, const fl_dev_view *v)
{
    v->p[i] = fl_pcisph_correct(v->p[i], v->delta, v->rho_pred[i], v->rho0_d, v->negative_scale);
    v->p_rho2[i] = fl_p_over_rho2(v->p[i], v->rho_pred[i]);
}

/* PCISPH's pressure acceleration at x(t) with the predicted densities
 * into (apx, apy, apz); with a tool, its share to the link (as pcisph.c's
 * pcisph_pressure_accel). */
FL_FORCE_INLINE FL_HD void fl_dev_pcisph_pressure_accel_walks(int i, const fl_dev_view *v, int tool)
{
    const float h = v->h, m = v->m, rho0 = v->rho0;
    const int dim = v->dim;
    float a[3] = {0, 0, 0}, sb_sum[3] = {0, 0, 0}, st[3] = {0, 0, 0};
    fl_dev_walk w;
    fl_dev_fluid_walk(&w, v, v->x, v->y, v->z, i);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = v->x[i] - v->x[j], dy = v->y[i] - v->y[j], dz = v->z[i] - v->z[j];
        float sp = fl_pressure_pair(m, v->p_rho2[i], v->p_rho2[j], sqrtf(dx * dx + dy * dy + dz * dz), h, dim);
        a[0] += sp * dx, a[1] += sp * dy, a[2] += sp * dz;
    }
    const float pi = v->p[i];
    fl_dev_boundary_walk(&w, v, v->x, v->y, v->z, i, tool);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = v->x[i] - w.px[j], dy = v->y[i] - w.py[j], dz = v->z[i] - w.pz[j];
        float pb = fl_wall_pressure(pi, rho0, v->gravity, dx, dy, dz);
        float sb = fl_pcisph_boundary_pair(w.vol[j], pi, pb, sqrtf(dx * dx + dy * dy + dz * dz), h, dim);
        sb_sum[0] += sb * dx, sb_sum[1] += sb * dy, sb_sum[2] += sb * dz;
        if (tool && w.on_tool)
            st[0] += sb * dx, st[1] += sb * dy, st[2] += sb * dz;
    }
    float ap[3];
    fl_pcisph_pressure_acceleration(a, rho0, v->rho_pred[i], sb_sum, ap);
    v->apx[i] = ap[0], v->apy[i] = ap[1], v->apz[i] = ap[2];
    if (tool) {
        const float zero[3] = {0, 0, 0};
        float at[3];
        fl_pcisph_pressure_acceleration(zero, rho0, v->rho_pred[i], st, at);
        fl_tool_store(&v->tool.link, i, m, at);
    }
}
FL_DEV_WALKS(pcisph_pressure_accel)

/* PCISPH: a = a^np + a^p, for the integration. */
static inline FL_HD void fl_dev_pcisph_total(int i, const fl_dev_view *v)
{
    v->ax[i] += v->apx[i], v->ay[i] += v->apy[i], v->az[i] += v->apz[i];
}

/* ---- PBF ----------------------------------------------------------------- */

/* Algorithm 1, lines 1-4, into (qx, qy, qz) (in the store's order: the
 * sort at x* follows). */
static inline FL_HD void fl_dev_pbf_predict(int i, const fl_dev_view *v)
{
    const float x[3] = {v->x[i], v->y[i], v->z[i]};
    const float gdt[3] = {v->dt * v->gravity[0], v->dt * v->gravity[1], v->dt * v->gravity[2]};
    float u[3] = {v->vx[i], v->vy[i], v->vz[i]}, q[3];
    fl_pbf_predict(&v->pbf.walls, x, u, gdt, v->dt, q);
    v->vx[i] = u[0], v->vy[i] = u[1], v->vz[i] = u[2];
    v->qx[i] = q[0], v->qy[i] = q[1], v->qz[i] = q[2];
}

/* Particle i's fluid neighbors at the sort's positions (gx, gy, gz),
 * listed for the step's passes (fl_dev_nbrs): the first nbr_cap, and the
 * count of all. */
static inline FL_HD void fl_dev_pbf_neighbors(int i, const fl_dev_view *v)
{
    fl_dev_walk w;
    fl_dev_fluid_walk(&w, v, v->gx, v->gy, v->gz, i);
    int count = 0;
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0; count++)
        if (count < v->nbr_cap)
            v->nbr[(size_t)count * v->n + i] = j;
    v->nbr_count[i] = count;
}

/* Density and lambda_i of the estimate q (eqs. 1, 2, 8, 11); lambda_i
 * grad_i C_i into (bx, by, bz) (as pbf.c's pbf_lambda_block). */
FL_FORCE_INLINE FL_HD void fl_dev_pbf_lambda_walks(int i, const fl_dev_view *v, int tool)
{
    const fl_pbf_consts *c = &v->pbf;
    const float *qx = v->qx, *qy = v->qy, *qz = v->qz;
    float wsum = 0.0f, sq = 0.0f, g[3] = {0, 0, 0};
    fl_dev_nbrs nb;
    fl_dev_pbf_fluid_nbrs(&nb, v, i);
    for (int j; (j = fl_dev_nbrs_next(&nb, &v->grid)) >= 0;) {
        float dx = qx[i] - qx[j], dy = qy[i] - qy[j], dz = qz[i] - qz[j];
        fl_pbf_lambda_terms t = fl_pbf_lambda_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, c->vol, 1, c->h, c->dim);
        wsum += t.w, g[0] += t.gx, g[1] += t.gy, g[2] += t.gz, sq += t.sq;
    }
    fl_dev_walk w;
    fl_dev_boundary_walk(&w, v, v->gx, v->gy, v->gz, i, tool);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = qx[i] - w.px[j], dy = qy[i] - w.py[j], dz = qz[i] - w.pz[j];
        fl_pbf_lambda_terms t = fl_pbf_lambda_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, w.vol[j], 0, c->h, c->dim);
        wsum += t.w, g[0] += t.gx, g[1] += t.gy, g[2] += t.gz, sq += t.sq;
    }
    float ci, li = fl_pbf_lambda(c, wsum, sq, g[0], g[1], g[2], &ci);
    v->rho[i] = fl_pbf_constraint_density(c, ci);
    v->lambda[i] = li;
    v->bx[i] = li * g[0], v->by[i] = li * g[1], v->bz[i] = li * g[2];
}
FL_DEV_WALKS(pbf_lambda)

/* The tool's part of the correction (as pbf.c's pbf_tool_delta): at the
 * estimate q, lambda_i sum_b V_b grad W_ib over the tool's particles b,
 * added to (dx, dy, dz) over the iterations (first: set), and the force
 * it stands for so far, m dx / dt^2, to the link (the last iteration's
 * stays). The correction's kernel with the tool does it (pbf_delta_tool). */
static inline FL_HD void fl_dev_pbf_tool_share(int i, const fl_dev_view *v)
{
    const fl_dev_tool *t = &v->tool;
    const float *qx = v->qx, *qy = v->qy, *qz = v->qz;
    float d[3] = {0, 0, 0};
    fl_dev_walk w;
    fl_dev_tool_walk(&w, v, v->gx, v->gy, v->gz, i);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = qx[i] - w.px[j], dy = qy[i] - w.py[j], dz = qz[i] - w.pz[j];
        fl_pbf_lambda_terms p = fl_pbf_lambda_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, w.vol[j], 0, v->pbf.h, v->pbf.dim);
        d[0] += p.gx, d[1] += p.gy, d[2] += p.gz;
    }
    fl_pbf_tool_add(v->lambda[i], d, v->first, &t->dx[i], &t->dy[i], &t->dz[i]);
    const float a[3] = {t->dx[i] * t->inv_dt2, t->dy[i] * t->inv_dt2, t->dz[i] * t->inv_dt2};
    fl_tool_store(&t->link, i, v->m, a);
}

/* The position correction (eqs. 12-14) of the estimate q into (bx, by,
 * bz), collided; lambda_i added to lambda_sum (as pbf_delta_block). The
 * boundary's lambdas are 0: it adds nothing here; with tool, the tool's
 * share first (fl_dev_pbf_tool_share). */
FL_FORCE_INLINE FL_HD void fl_dev_pbf_delta_walks(int i, const fl_dev_view *v, int tool)
{
    if (tool)
        fl_dev_pbf_tool_share(i, v);
    const fl_pbf_consts *c = &v->pbf;
    const float *qx = v->qx, *qy = v->qy, *qz = v->qz;
    float sum[3] = {0, 0, 0};
    fl_dev_nbrs nb;
    fl_dev_pbf_fluid_nbrs(&nb, v, i);
    for (int j; (j = fl_dev_nbrs_next(&nb, &v->grid)) >= 0;) {
        float dx = qx[i] - qx[j], dy = qy[i] - qy[j], dz = qz[i] - qz[j];
        float gr = fl_pbf_delta_pair(c, c->scorr_n, dx * dx + dy * dy + dz * dz, v->lambda[j], 1);
        sum[0] += gr * dx, sum[1] += gr * dy, sum[2] += gr * dz;
    }
    const float x[3] = {qx[i], qy[i], qz[i]}, own[3] = {v->bx[i], v->by[i], v->bz[i]};
    float q[3];
    fl_pbf_correct(c, x, own, sum, q);
    v->bx[i] = q[0], v->by[i] = q[1], v->bz[i] = q[2];
    v->lambda_sum[i] = (v->first ? 0.0f : v->lambda_sum[i]) + v->lambda[i];
}
FL_DEV_WALKS(pbf_delta)

/* Line 21: u = (x* - x) / dt. */
static inline FL_HD void fl_dev_pbf_velocity_from(int i, const fl_dev_view *v)
{
    v->ux[i] = fl_pbf_velocity_from(v->qx[i], v->x[i], v->pbf.inv_dt);
    v->uy[i] = fl_pbf_velocity_from(v->qy[i], v->y[i], v->pbf.inv_dt);
    v->uz[i] = fl_pbf_velocity_from(v->qz[i], v->z[i], v->pbf.inv_dt);
}

/* XSPH (eq. 17), the density of the final estimate, the curl (eq. 15)
 * (as pbf_velocity_block). */
FL_FORCE_INLINE FL_HD void fl_dev_pbf_xsph_walks(int i, const fl_dev_view *v, int tool)
{
    const fl_pbf_consts *c = &v->pbf;
    const float *qx = v->qx, *qy = v->qy, *qz = v->qz;
    const float ui[3] = {v->ux[i], v->uy[i], v->uz[i]};
    float wsum = 0.0f, s[3] = {0, 0, 0}, o[3] = {0, 0, 0};
    fl_dev_nbrs nb;
    fl_dev_pbf_fluid_nbrs(&nb, v, i);
    for (int j; (j = fl_dev_nbrs_next(&nb, &v->grid)) >= 0;) {
        float dx = qx[i] - qx[j], dy = qy[i] - qy[j], dz = qz[i] - qz[j];
        fl_pbf_velocity_terms t =
            fl_pbf_velocity_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, v->ux[j] - ui[0], v->uy[j] - ui[1],
                                 v->uz[j] - ui[2], c->vol, c->h, c->dim, v->vorticity);
        wsum += t.w, s[0] += t.sx, s[1] += t.sy, s[2] += t.sz, o[0] += t.ox, o[1] += t.oy, o[2] += t.oz;
    }
    fl_dev_walk w;
    fl_dev_boundary_walk(&w, v, v->gx, v->gy, v->gz, i, tool);
    for (int j; (j = fl_dev_walk_next(&w, &v->grid)) >= 0;) {
        float dx = qx[i] - w.px[j], dy = qy[i] - w.py[j], dz = qz[i] - w.pz[j];
        wsum += fl_pbf_velocity_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, 0.0f, 0.0f, 0.0f, w.vol[j], c->h, c->dim, 0).w;
    }
    float u[3], omega[4];
    v->rho[i] = fl_pbf_density(c, wsum);
    fl_pbf_velocity(c, ui, s, o, u, omega);
    v->vx[i] = u[0], v->vy[i] = u[1], v->vz[i] = u[2];
    v->wx[i] = omega[0], v->wy[i] = omega[1], v->wz[i] = omega[2], v->wn[i] = omega[3];
}
FL_DEV_WALKS(pbf_xsph)

/* Vorticity confinement (eq. 16) (as pbf_confine_block). */
static inline FL_HD void fl_dev_pbf_confine(int i, const fl_dev_view *v)
{
    const float *qx = v->qx, *qy = v->qy, *qz = v->qz;
    float eta[3] = {0, 0, 0};
    fl_dev_nbrs nb;
    fl_dev_pbf_fluid_nbrs(&nb, v, i);
    for (int j; (j = fl_dev_nbrs_next(&nb, &v->grid)) >= 0;) {
        float dx = qx[i] - qx[j], dy = qy[i] - qy[j], dz = qz[i] - qz[j];
        float t = fl_pbf_confine_pair(v->wn[i], v->wn[j], 1, dx * dx + dy * dy + dz * dz, v->pbf.h, v->pbf.dim);
        eta[0] += t * dx, eta[1] += t * dy, eta[2] += t * dz;
    }
    const float omega[3] = {v->wx[i], v->wy[i], v->wz[i]};
    float u[3] = {v->vx[i], v->vy[i], v->vz[i]};
    fl_pbf_confine(v->dt_eps, eta, omega, u);
    v->vx[i] = u[0], v->vy[i] = u[1], v->vz[i] = u[2];
}

/* Morris's viscosity instead of XSPH (as pbf.c's pbf_morris): nu lap v
 * at the final estimate into (ax, ay, az), over the step's fluid
 * neighbors and the boundary's near the sort's positions, every particle's
 * from the same velocities; then pbf_morris_apply adds dt nu lap v. */
FL_FORCE_INLINE FL_HD void fl_dev_pbf_morris_walks(int i, const fl_dev_view *v, int tool)
{
    fl_dev_nbrs nb;
    fl_dev_pbf_fluid_nbrs(&nb, v, i);
    fl_dev_walk bw;
    fl_dev_boundary_walk(&bw, v, v->gx, v->gy, v->gz, i, tool);
    float a[3];
    fl_dev_morris(i, v, &nb, &bw, v->qx, v->qy, v->qz, a);
    v->ax[i] = a[0], v->ay[i] = a[1], v->az[i] = a[2];
}
FL_DEV_WALKS(pbf_morris)

static inline FL_HD void fl_dev_pbf_morris_apply(int i, const fl_dev_view *v)
{
    v->vx[i] += v->dt * v->ax[i], v->vy[i] += v->dt * v->ay[i], v->vz[i] += v->dt * v->az[i];
}

/* Line 23 and the pressure the lambdas stand for (pbf.c, pbf_step). */
static inline FL_HD void fl_dev_pbf_update(int i, const fl_dev_view *v)
{
    v->x[i] = v->qx[i], v->y[i] = v->qy[i], v->z[i] = v->qz[i];
    v->p[i] = fl_pbf_pressure(v->p_scale, v->lambda_sum[i]);
}

/* ---- the tool ------------------------------------------------------------------ */

/* Tool particle k (slot k of the tool's set) at the step's pose, with the
 * material velocity there (as tool.c's place_particles). */
static inline FL_HD void fl_dev_tool_place(int k, const fl_dev_view *v)
{
    const fl_dev_tool *t = &v->tool;
    const float o[3] = {t->ox[k], t->oy[k], t->oz[k]};
    float x[3], u[3];
    fl_tool_place(&t->link.pose, o, x, u);
    t->x[k] = x[0], t->y[k] = x[1], t->z[k] = x[2];
    t->vx[k] = u[0], t->vy[k] = u[1], t->vz[k] = u[2];
}

/* The adhesion and damping impulse of particle i (as tool.c's impulses;
 * their sums are the reductions FL_DEV_RED_TOOL_ADHESION and _DAMPING,
 * taken before). */
static inline FL_HD void fl_dev_tool_impulse(int i, const fl_dev_view *v)
{
    float u[3] = {v->vx[i], v->vy[i], v->vz[i]}, fa[3], fd[3];
    if (fl_tool_impulse(&v->tool.link, v->m, v->rho0, v->dt, v->x[i], v->y[i], v->z[i], v->rho[i], u, fa, fd) >= 0)
        v->vx[i] = u[0], v->vy[i] = u[1], v->vz[i] = u[2];
}

/* ---- reductions ------------------------------------------------------------ */

/* Whether reduction r sums add[] (the tool's: fl_dev_tool_term) rather
 * than taking max[] (fl_dev_term). The identity and the join take it as
 * a flag, so that a backend can make it a constant. */
static inline FL_HD int fl_dev_red_adds(fl_dev_reduction r)
{
    return r >= FL_DEV_RED_TOOL_FORCE;
}

static inline FL_HD fl_dev_red fl_dev_red_identity(int adds)
{
    fl_dev_red t;
    t.sum = 0.0;
    for (int k = 0; k < 6; k++)
        t.max[k] = adds ? 0.0 : -INFINITY;
    t.count = 0;
    t.pad = 0;
    return t;
}

static inline FL_HD fl_dev_red fl_dev_red_join(int adds, fl_dev_red a, const fl_dev_red b)
{
    a.sum += b.sum;
    if (adds)
        for (int k = 0; k < 6; k++)
            a.add[k] += b.add[k];
    else
        for (int k = 0; k < 6; k++)
            a.max[k] = b.max[k] > a.max[k] ? b.max[k] : a.max[k];
    a.count += b.count;
    return a;
}

/* Particle i's term of the tool's reduction r: the force f that the tool
 * puts on it (the link's, or the adhesion or damping it is about to get)
 * as its reaction on the tool, -f, and that reaction's torque about the
 * centre (as tool.c's sums). */
static inline FL_HD fl_dev_red fl_dev_tool_term(fl_dev_reduction r, int i, const fl_dev_view *v)
{
    const fl_tool_link *l = &v->tool.link;
    fl_dev_red t = fl_dev_red_identity(1);
    float f[3];
    if (r == FL_DEV_RED_TOOL_FORCE) {
        f[0] = l->fx[i], f[1] = l->fy[i], f[2] = l->fz[i];
    } else {
        float u[3] = {v->vx[i], v->vy[i], v->vz[i]}, fa[3], fd[3];
        int touch = fl_tool_impulse(l, v->m, v->rho0, v->dt, v->x[i], v->y[i], v->z[i], v->rho[i], u, fa, fd);
        const int damping = r == FL_DEV_RED_TOOL_DAMPING;
        t.count = damping && touch > 0;
        for (int a = 0; a < 3; a++)
            f[a] = damping ? fd[a] : fa[a];
    }
    const double c[3] = {l->pose.c[0], l->pose.c[1], l->pose.c[2]};
    double q[3];
    fl_tool_moment(c, v->x[i], v->y[i], v->z[i], f, q);
    for (int a = 0; a < 3; a++)
        t.add[a] = -(double)f[a], t.add[3 + a] = -q[a];
    return t;
}

/* Particle i's term of reduction r (not the tool's): the compression
 * error of the shared estimator (sph_physics.h), the speed and finiteness
 * test of fl_max_speed, |a|^2, the position. */
static inline FL_HD fl_dev_red fl_dev_term(fl_dev_reduction r, int i, const fl_dev_view *v)
{
    fl_dev_red t = fl_dev_red_identity(0);
    if (r == FL_DEV_RED_COMPRESSION) {
        double e = fl_density_error(v->red_rho[i], v->rho0_d);
        t.sum = e > 0.0 ? e : 0.0;
        t.max[0] = e;
    } else if (r == FL_DEV_RED_SPEED) {
        double v2 = (double)v->vx[i] * v->vx[i] + (double)v->vy[i] * v->vy[i] + (double)v->vz[i] * v->vz[i];
        double xsum = (double)v->x[i] + v->y[i] + v->z[i];
        if (!isfinite(v2) || !isfinite(xsum))
            t.count = 1;
        else
            t.max[0] = v2;
    } else if (r == FL_DEV_RED_ACCEL) {
        t.max[0] = (double)v->ax[i] * v->ax[i] + (double)v->ay[i] * v->ay[i] + (double)v->az[i] * v->az[i];
    } else {
        t.max[0] = v->x[i], t.max[1] = v->y[i], t.max[2] = v->z[i];
        t.max[3] = -v->x[i], t.max[4] = -v->y[i], t.max[5] = -v->z[i];
    }
    return t;
}

#endif
