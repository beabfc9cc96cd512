/* flip.c: the PIC/FLIP hybrid on the MAC grid, steps 1-11 of section 3.2.1
 * of the PIC/FLIP report of Englesson, Kilby & Ek 2011, "Fluid simulation
 * using implicit particles" (Brackbill & Ruppel 1986;
 * Zhu & Bridson 2005).
 *
 *   1  seeding (create): 8 particles per fluid cell, one in each cell of a
 *      2x2x2 sub-grid at a uniform random place (report 3.2.2)
 *   then, once per step, the particles sorted by cell (flip_sort: memory
 *   order only), and per substep of length h (CFL: no particle moves more
 *   than cfl cells):
 *   2  P2G, trilinear weights normalised per face (fl_transfer_p2g, 3.2.3)
 *   3  save a copy u* of the grid velocities
 *   4  gravity u += g h on every face (eq. 10)
 *   5  boundary conditions: u.n = 0 on faces touching SOLID (eq. 11)
 *   6  labels: SOLID stays, the rest AIR, cells holding a particle FLUID (3.2.6)
 *   7  projection: MIC(0)-PCG on the pressure Poisson system (fl_mac_project, 3.2.7)
 *   8  FLIP: v_p += interp(u - u*)
 *   9  PIC:  v_p  = interp(u)
 *   10 blend: v_p = alpha PIC + (1 - alpha) FLIP
 *   11 advection, RK2 midpoint through the grid velocity u (in shorter
 *      pieces where the projected u is faster than the substep assumed),
 *      then particles that ended in a SOLID cell pushed out to the nearest
 *      non-SOLID cell.
 *   then, once per step, after its substeps (not in the report):
 *   12 volume correction: particles moved out of over-full cells and into
 *      gaps inside the water by a potential displacement from one more
 *      Poisson solve (flip_correct_volume), velocities untouched.
 * The projected velocities are extrapolated two face layers into the AIR
 * (Bridson, "Fluid Simulation for Computer Graphics", ch. 4), so that the
 * stencils of surface particles and of their midpoints read fluid
 * velocities, not zeros; u* needs none, as every face of a particle's
 * stencil holds P2G's weighted average. Walls are free-slip, as eq. 11
 * states: a face between a SOLID and a non-SOLID cell holds the solid's
 * normal velocity, 0, and the tangential faces inside a wall take the
 * fluid's velocity by the same extrapolation, so a particle sliding along a
 * wall is not slowed by it. docs/methods/flip.md maps each line to a
 * function. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mac.h"
#include "solver.h"
#include "transfer.h"

/* The most CFL substeps one step, and advection pieces one substep, may
 * take. A dam break at dt = 1/25 s takes about 10; a step that would need
 * more than this (a step of 1e300 s, gravity of 1e30 m/s^2, a blown-up
 * velocity) fails as a blow-up instead of running for ever. */
#define FLIP_MAX_SUBSTEPS 10000

typedef struct flip_params {
    double alpha;      /* PIC fraction of the blend: 1 = PIC, 0 = pure FLIP */
    double dx;         /* cell size, m */
    double tol;        /* PCG relative residual */
    int max_iter;      /* PCG iteration cap per solve */
    int precond;       /* fl_precond: 0 MIC(0), 1 Jacobi, 2 none */
    double cfl;        /* largest particle move per substep, cells */
    double jitter;     /* seeding: fraction of a sub-cell a particle may move from its centre */
    double seed;       /* seeding RNG seed */
    double volume;     /* volume correction: fraction of a cell's particle excess moved out per step */
    int warm_start;    /* 1: each pressure solve starts from the last substep's pressure; 0: from 0 */
} flip_params;

/* One velocity component on its face lattice: values, the saved copy (then
 * the change), and the two validity masks of the extrapolation. */
typedef struct flip_field {
    int axis;
    int dim[3];
    long n;
    double *u;          /* the grid's array (borrowed) */
    const double *wsum; /* the grid's P2G weight sums (borrowed) */
    double *saved;
    unsigned char *valid, *fresh;
} flip_field;

typedef struct flip_solver {
    flip_params prm;
    fl_mac_grid *g;
    flip_field f[3];
    fl_pcg_options pcg;
    double *history;          /* one solve's residual history */
    float *ax, *ay, *az;      /* PIC velocity at x, then the grid velocity at the midpoint */
    float *bx, *by, *bz;      /* FLIP change at x */
    float *qx, *qy, *qz;      /* RK2 midpoints */
    int *count;               /* particles per cell, from the labelling */
    double *psi, *vrhs;       /* volume correction: potential and right-hand side per cell */
    double rest_count;        /* particles in a cell at rest, (dx / d)^3 */
    int *band_lo, *band_hi;   /* the band: per row (j, k) of cells, i in [lo, hi) */
    int *band_tlo, *band_thi; /* the band's dilation workspace */
    int *sort_cell, *sort_perm; /* the cell sort: each particle's cell, the new order */
    int *cell_start;          /* the cell sort's counts, then starts, per cell (ncells + 1) */
} flip_solver;

static const char *const flip_keys[] = {"alpha", "dx", "tolerance", "max_iterations", "preconditioner",
                                        "cfl", "jitter", "seed", "volume_correction", "warm_start", NULL};

/* Layers of faces the velocities are extrapolated past the faces the
 * fluid defines: a particle moves at most one cell per substep and its
 * stencil reaches one face further. */
#define FLIP_EXTRAPOLATION_LAYERS 2

/* The per-face work (extrapolation, the saved copy, gravity, the FLIP
 * change) runs over the faces within FLIP_BAND cells of a FLUID cell only:
 * the extrapolation reaches 2 faces past the fluid's faces and no particle
 * stencil reaches further; the rest of the grid (most of it in a dam
 * break) is never read. */
#define FLIP_BAND 3

/* Relative residual of the volume correction's solve: its potential moves
 * particles by fractions of a cell, so 1e-4 of that is far below a
 * particle's jitter. */
#define FLIP_VOLUME_TOLERANCE 1e-4

static void flip_destroy(void *self)
{
    flip_solver *s = self;
    if (!s)
        return;
    for (int a = 0; a < 3; a++) {
        fl_free(s->f[a].saved);
        fl_free(s->f[a].valid);
        fl_free(s->f[a].fresh);
    }
    float *arrays[] = {s->ax, s->ay, s->az, s->bx, s->by, s->bz, s->qx, s->qy, s->qz};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        fl_free(arrays[k]);
    fl_free(s->history);
    fl_free(s->count);
    fl_free(s->psi);
    fl_free(s->vrhs);
    int *ints[] = {s->band_lo, s->band_hi, s->band_tlo, s->band_thi, s->sort_cell, s->sort_perm, s->cell_start};
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++)
        fl_free(ints[k]);
    fl_mac_grid_destroy(&s->g);
    free(s);
}

/* x clamped to [lo, hi]; selects, not fmin/fmax, which stay library calls
 * (their NaN rules) and keep the particle loops scalar. */
static inline double flip_clamp(double x, double lo, double hi)
{
    x = x < lo ? lo : x;
    return x > hi ? hi : x;
}

/* Label of cell (i,j,k), SOLID beyond the grid. */
static inline int flip_label(const fl_mac_grid *g, int i, int j, int k)
{
    if (i < 0 || j < 0 || k < 0 || i >= g->nx || j >= g->ny || k >= g->nz)
        return FL_CELL_SOLID;
    return g->label[fl_mac_cell(g, i, j, k)];
}

/* The band from the labels: per row (j, k) of cells the hull [lo, hi) of
 * its FLUID cells, dilated by FLIP_BAND cells along i, j and k. */
static void flip_band_build(flip_solver *s)
{
    const fl_mac_grid *g = s->g;
    const int nx = g->nx, ny = g->ny, nz = g->nz, m = FLIP_BAND;
    int *lo = s->band_lo, *hi = s->band_hi, *tlo = s->band_tlo, *thi = s->band_thi;
    #pragma omp parallel for schedule(static)
    for (long r = 0; r < (long)ny * nz; r++) {
        const unsigned char *row = g->label + r * nx;
        int a = nx, b = 0;
        for (int i = 0; i < nx; i++)
            if (row[i] == FL_CELL_FLUID) {
                a = i < a ? i : a;
                b = i + 1;
            }
        tlo[r] = a, thi[r] = b;
    }
    #pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++) {
            int a = nx, b = 0;
            for (int d = (j < m ? -j : -m); d <= m && j + d < ny; d++) {
                long r = j + d + (long)ny * k;
                a = tlo[r] < a ? tlo[r] : a;
                b = thi[r] > b ? thi[r] : b;
            }
            lo[j + (long)ny * k] = a, hi[j + (long)ny * k] = b;
        }
    #pragma omp parallel for schedule(static)
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++) {
            int a = nx, b = 0;
            for (int d = (k < m ? -k : -m); d <= m && k + d < nz; d++) {
                long r = j + (long)ny * (k + d);
                a = lo[r] < a ? lo[r] : a;
                b = hi[r] > b ? hi[r] : b;
            }
            tlo[j + (long)ny * k] = a < b ? (a > m ? a - m : 0) : nx;
            thi[j + (long)ny * k] = a < b ? (b + m < nx ? b + m : nx) : 0;
        }
    memcpy(lo, tlo, (size_t)ny * nz * sizeof(int));
    memcpy(hi, thi, (size_t)ny * nz * sizeof(int));
}

/* The band's faces [*i0, *i1) of row (j, k) of lattice f: the range of its
 * cell row, one more face along x; the rows j = ny, k = nz of the v and w
 * lattices (the outer wall's far faces) take row ny - 1, nz - 1. */
static inline void flip_band_row(const flip_solver *s, const flip_field *f, int j, int k, int *i0, int *i1)
{
    const fl_mac_grid *g = s->g;
    long r = (j < g->ny ? j : g->ny - 1) + (long)g->ny * (k < g->nz ? k : g->nz - 1);
    *i0 = s->band_lo[r];
    *i1 = s->band_hi[r] + (f->axis == 0);
    if (*i1 > f->dim[0])
        *i1 = f->dim[0];
}

/* Validity after the projection: a face is valid where it touches a FLUID
 * cell (projected) or separates a SOLID cell from a non-SOLID one (the
 * solid's normal velocity, 0). A face with SOLID on both sides, inside a
 * wall, is invalid and takes the fluid's tangential velocity from the
 * extrapolation (free slip); so is every face outside the band. */
static void flip_valid_from_labels(const flip_solver *s, flip_field *f)
{
    const fl_mac_grid *g = s->g;
    const int axis = f->axis;
    memset(f->valid, 0, (size_t)f->n);
    #pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < f->dim[2]; k++)
        for (int j = 0; j < f->dim[1]; j++) {
            int i0, i1;
            flip_band_row(s, f, j, k, &i0, &i1);
            for (int i = i0; i < i1; i++) {
                int c[3] = {i, j, k};
                int la = flip_label(g, i, j, k);
                c[axis] -= 1;
                int lb = flip_label(g, c[0], c[1], c[2]);
                long q = i + (long)f->dim[0] * (j + (long)f->dim[1] * k);
                f->valid[q] = la == FL_CELL_FLUID || lb == FL_CELL_FLUID ||
                              (la == FL_CELL_SOLID) != (lb == FL_CELL_SOLID);
            }
        }
}

/* Each invalid face of values u in the band next to a valid one (same
 * lattice, 6 neighbours) takes the mean of its valid neighbours and
 * becomes valid for the next layer. */
static void flip_extrapolate(const flip_solver *s, flip_field *f, double *u, int layers)
{
    const int d0 = f->dim[0], d1 = f->dim[1], d2 = f->dim[2];
    const long s1 = d0, s2 = (long)d0 * d1;
    for (int layer = 0; layer < layers; layer++) {
        #pragma omp parallel for collapse(2) schedule(static)
        for (int k = 0; k < d2; k++)
            for (int j = 0; j < d1; j++) {
                int i0, i1;
                flip_band_row(s, f, j, k, &i0, &i1);
                for (int i = i0; i < i1; i++) {
                    long q = i + s1 * j + s2 * k;
                    f->fresh[q] = 0;
                    if (f->valid[q])
                        continue;
                    double sum = 0.0;
                    int n = 0;
                    if (i > 0 && f->valid[q - 1])
                        sum += u[q - 1], n++;
                    if (i < d0 - 1 && f->valid[q + 1])
                        sum += u[q + 1], n++;
                    if (j > 0 && f->valid[q - s1])
                        sum += u[q - s1], n++;
                    if (j < d1 - 1 && f->valid[q + s1])
                        sum += u[q + s1], n++;
                    if (k > 0 && f->valid[q - s2])
                        sum += u[q - s2], n++;
                    if (k < d2 - 1 && f->valid[q + s2])
                        sum += u[q + s2], n++;
                    if (n > 0) {
                        u[q] = sum / n;
                        f->fresh[q] = 1;
                    }
                }
            }
        #pragma omp parallel for collapse(2) schedule(static)
        for (int k = 0; k < d2; k++)
            for (int j = 0; j < d1; j++) {
                int i0, i1;
                flip_band_row(s, f, j, k, &i0, &i1);
                for (long q = i0 + s1 * j + s2 * k, e = i1 + s1 * j + s2 * k; q < e; q++)
                    f->valid[q] |= f->fresh[q];
            }
    }
}

/* Over the band's faces: dst = src - dst when change is set (the FLIP
 * change), else dst = src + add (the saved copy with add 0, gravity). */
static void flip_band_update(const flip_solver *s, const flip_field *f, double *dst, const double *src, int change,
                             double add)
{
    #pragma omp parallel for collapse(2) schedule(static)
    for (int k = 0; k < f->dim[2]; k++)
        for (int j = 0; j < f->dim[1]; j++) {
            int i0, i1;
            flip_band_row(s, f, j, k, &i0, &i1);
            for (long q = i0 + (long)f->dim[0] * (j + (long)f->dim[1] * k), e = q + (i1 - i0); q < e; q++)
                dst[q] = change ? src[q] - dst[q] : src[q] + add;
        }
}

/* Step 6: every non-SOLID cell AIR, then the cells holding a particle
 * FLUID; with count, count[c] gets the particles in cell c (the volume
 * correction's density). Many particles mark the same cell, all with the
 * same label, so the labels are read and written atomically and the
 * counts are atomic increments. */
static void flip_label_cells(fl_mac_grid *g, const fl_particles *p, int *count)
{
    #pragma omp parallel for schedule(static)
    for (long c = 0; c < g->ncells; c++) {
        if (count)
            count[c] = 0;
        if (g->label[c] != FL_CELL_SOLID)
            g->label[c] = FL_CELL_AIR;
    }
    unsigned char *label = g->label;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < p->count; i++) {
        long c = fl_mac_cell_at(g, p->x[i], p->y[i], p->z[i]);
        unsigned char l;
        #pragma omp atomic read
        l = label[c];
        if (l != FL_CELL_SOLID) {
            #pragma omp atomic write
            label[c] = FL_CELL_FLUID;
        }
        if (count) {
            #pragma omp atomic update
            count[c]++;
        }
    }
}

/* dst = src + scale d along each axis, clamped strictly inside the grid
 * box (the domain and its SOLID layer) so that its cell index is valid;
 * dst may be src. */
static void flip_displace(const fl_mac_grid *g, float *const dst[3], float *const src[3], const float *const d[3],
                          float scale, int n)
{
    const int cells[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        const double lo = g->lo[a] + 1e-4 * g->dx, hi = g->lo[a] + (cells[a] - 1e-4) * g->dx;
        const float *x = src[a], *u = d[a];
        float *y = dst[a];
        #pragma omp parallel for simd schedule(static)
        for (int i = 0; i < n; i++)
            y[i] = (float)flip_clamp((double)(x[i] + scale * u[i]), lo, hi);
    }
}

/* Step 11's push-out: a particle in a SOLID cell moves to the nearest point
 * (1 % of a cell inside) of the nearest non-SOLID cell among its 26
 * neighbours, and loses the velocity component into the solid along that
 * displacement (the normal). With at most one cell moved per substep a
 * free neighbour always exists; otherwise the particle stays. Returns 1
 * when the particle moved. */
static inline int flip_push_out(const fl_mac_grid *g, float x[3], float v[3])
{
    const double dx = g->dx, eps = 0.01 * dx;
    int c[3];
    for (int a = 0; a < 3; a++)
        c[a] = (int)fl_mac_coord(g, a, x[a]);
    if (flip_label(g, c[0], c[1], c[2]) != FL_CELL_SOLID)
        return 0;
    double best = INFINITY, to[3] = {x[0], x[1], x[2]};
    for (int dk = -1; dk <= 1; dk++)
        for (int dj = -1; dj <= 1; dj++)
            for (int di = -1; di <= 1; di++) {
                int o[3] = {c[0] + di, c[1] + dj, c[2] + dk};
                if (flip_label(g, o[0], o[1], o[2]) == FL_CELL_SOLID)
                    continue;
                double y[3], d2 = 0.0;
                for (int a = 0; a < 3; a++) {
                    double lo = g->lo[a] + o[a] * dx + eps, hi = g->lo[a] + (o[a] + 1) * dx - eps;
                    y[a] = flip_clamp((double)x[a], lo, hi);
                    d2 += (y[a] - x[a]) * (y[a] - x[a]);
                }
                if (d2 < best) {
                    best = d2;
                    memcpy(to, y, sizeof to);
                }
            }
    if (!isfinite(best) || best <= 0.0)
        return 0;
    double n[3], len = sqrt(best), vn = 0.0;
    for (int a = 0; a < 3; a++) {
        n[a] = (to[a] - x[a]) / len;
        vn += v[a] * n[a];
        x[a] = (float)to[a];
    }
    if (vn < 0.0)
        for (int a = 0; a < 3; a++)
            v[a] -= (float)(vn * n[a]);
    return 1;
}

/* flip_push_out on every particle (positions inside the grid box). */
static void flip_push_out_all(const fl_mac_grid *g, fl_particles *p)
{
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < p->count; i++) {
        float x[3] = {p->x[i], p->y[i], p->z[i]}, v[3] = {p->vx[i], p->vy[i], p->vz[i]};
        if (!flip_push_out(g, x, v))
            continue;
        p->x[i] = x[0], p->y[i] = x[1], p->z[i] = x[2];
        p->vx[i] = v[0], p->vy[i] = v[1], p->vz[i] = v[2];
    }
}

/* Steps 8-10: v_p = alpha interp(u) + (1 - alpha) (v_p + interp(u - u*)),
 * with the PIC velocity in a and the FLIP change in b. */
static void flip_blend(flip_solver *s, fl_particles *p)
{
    const float alpha = (float)s->prm.alpha;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < p->count; i++) {
        p->vx[i] = alpha * s->ax[i] + (1.0f - alpha) * (p->vx[i] + s->bx[i]);
        p->vy[i] = alpha * s->ay[i] + (1.0f - alpha) * (p->vy[i] + s->by[i]);
        p->vz[i] = alpha * s->az[i] + (1.0f - alpha) * (p->vz[i] + s->bz[i]);
    }
}

/* Appends one solve's residual history (iterations 1..n) to the step's
 * and counts it in the step's per-solve maximum and unconverged count. */
static void flip_record(fl_step_stats *st, const double *history, const fl_pcg_result *res)
{
    if (res->iterations > st->solve_iterations_max)
        st->solve_iterations_max = res->iterations;
    if (res->reason < 0)
        st->solves_unconverged++;
    for (int k = 1; k < res->history_len; k++) {
        if (st->iterations < FL_MAX_HISTORY)
            st->residual[st->iterations] = history[k];
        st->iterations++;
    }
}

/* An upper bound of |interp(u)| wherever a particle can read the field:
 * over the valid faces (the projected ones and the layers extrapolated
 * from them, which hold every stencil of a particle and of its
 * midpoints), |u_p| <= |(max|u|, max|v|, max|w|)|, as trilinear
 * interpolation is a convex combination per component. */
static double flip_speed_bound(const flip_solver *s)
{
    double sum = 0.0;
    for (int a = 0; a < 3; a++) {
        const flip_field *f = &s->f[a];
        double top = 0.0;
        #pragma omp parallel for collapse(2) schedule(static) reduction(max : top)
        for (int k = 0; k < f->dim[2]; k++)
            for (int j = 0; j < f->dim[1]; j++) {
                int i0, i1;
                flip_band_row(s, f, j, k, &i0, &i1);
                const long row = (long)f->dim[0] * (j + (long)f->dim[1] * k);
                for (int i = i0; i < i1; i++) {
                    double v = f->valid[row + i] ? fabs(f->u[row + i]) : 0.0;
                    top = v > top ? v : top;
                }
            }
        sum += top * top;
    }
    return sqrt(sum);
}

/* Step 11: pieces RK2 midpoint steps of length hp through the grid velocity,
 * x_mid = x + hp/2 interp(u)(x), x += hp interp(u)(x_mid), each followed by
 * the push-out; the first piece's interp(u)(x) is step 9's PIC velocity,
 * already in a. *moved gets the largest move of a piece, m. */
static int flip_advect(flip_solver *s, fl_world *w, double hp, int pieces, fl_step_stats *st, double *moved,
                       fl_error *err)
{
    fl_mac_grid *g = s->g;
    fl_particles *p = &w->fluid;
    const float hf = (float)hp;
    double move2 = 0.0;
    float *const pos[3] = {p->x, p->y, p->z}, *const mid[3] = {s->qx, s->qy, s->qz};
    const float *const vel[3] = {s->ax, s->ay, s->az};
    for (int piece = 0; piece < pieces; piece++) {
        int rc;
        double t0 = fl_now_ms();
        if (piece > 0 &&
            (rc = fl_transfer_g2p(g, g->u, g->v, g->w, p->x, p->y, p->z, p->count, s->ax, s->ay, s->az, err)))
            return rc;
        double t1 = fl_now_ms();
        flip_displace(g, mid, pos, vel, 0.5f * hf, p->count);
        double t2 = fl_now_ms();
        if ((rc = fl_transfer_g2p(g, g->u, g->v, g->w, s->qx, s->qy, s->qz, p->count, s->ax, s->ay, s->az, err)))
            return rc;
        double t3 = fl_now_ms();
        const float *const ax = s->ax, *const ay = s->ay, *const az = s->az;
        #pragma omp parallel for simd schedule(static) reduction(max : move2)
        for (int i = 0; i < p->count; i++) {
            float d[3] = {hf * ax[i], hf * ay[i], hf * az[i]};
            double d2 = (double)d[0] * d[0] + (double)d[1] * d[1] + (double)d[2] * d[2];
            move2 = d2 > move2 ? d2 : move2;
        }
        flip_displace(g, pos, pos, vel, hf, p->count);
        flip_push_out_all(g, p);
        double t4 = fl_now_ms();
        st->stage_ms[FL_STAGE_TRANSFER] += (t1 - t0) + (t3 - t2);
        st->stage_ms[FL_STAGE_INTEGRATE] += (t2 - t1) + (t4 - t3);
    }
    *moved = sqrt(move2);
    return FL_OK;
}

/* One substep of length h: steps 2-11. Returns FL_ERR_OUTSIDE when a
 * particle is not finite; *moved gets the largest displacement, m. */
static int flip_substep(flip_solver *s, fl_world *w, double h, fl_step_stats *st, double *moved, fl_error *err)
{
    fl_mac_grid *g = s->g;
    fl_particles *p = &w->fluid;
    double t0 = fl_now_ms();
    int rc = fl_transfer_p2g(g, p->x, p->y, p->z, p->vx, p->vy, p->vz, p->count, err);
    if (rc)
        return rc;
    double t1 = fl_now_ms();
    flip_label_cells(g, p, NULL);
    flip_band_build(s);
    for (int a = 0; a < 3; a++) {
        flip_field *f = &s->f[a];
        flip_band_update(s, f, f->saved, f->u, 0, 0.0);
    }
    double t2 = fl_now_ms();
    for (int a = 0; a < 3; a++)
        flip_band_update(s, &s->f[a], s->f[a].u, s->f[a].u, 0, w->gravity[a] * h);
    double t3 = fl_now_ms();
    fl_pcg_result res;
    rc = fl_mac_project(g, h, w->rho0, &s->pcg, &res, err);
    if (rc)
        return rc;
    flip_record(st, s->history, &res);
    double t5 = fl_now_ms();
    for (int a = 0; a < 3; a++) {
        flip_field *f = &s->f[a];
        flip_valid_from_labels(s, f);
        flip_extrapolate(s, f, f->u, FLIP_EXTRAPOLATION_LAYERS);
        flip_band_update(s, f, f->saved, f->u, 1, 0.0);
    }
    double t6 = fl_now_ms();
    const double *const grid_vel[3] = {g->u, g->v, g->w};
    const double *const change[3] = {s->f[0].saved, s->f[1].saved, s->f[2].saved};
    float *const pic[3] = {s->ax, s->ay, s->az}, *const dflip[3] = {s->bx, s->by, s->bz};
    if ((rc = fl_transfer_g2p_pair(g, grid_vel, change, p->x, p->y, p->z, p->count, pic, dflip, err)))
        return rc;
    flip_blend(s, p);
    double t7 = fl_now_ms();
    /* the field is frozen for the advection: cut it into pieces short
     * enough that no particle moves more than cfl cells in one (one piece
     * unless the pressure sped the flow up past the substep's estimate) */
    double reach = h * flip_speed_bound(s) / (s->prm.cfl * g->dx);
    if (!(reach <= FLIP_MAX_SUBSTEPS)) /* NaN too */
        return fl_fail(err, FL_ERR_OUTSIDE, "the advection would take %.3g pieces of a substep (blow-up)", reach);
    int pieces = reach > 1.0 ? (int)ceil(reach - 1e-9) : 1;
    double t8 = fl_now_ms();
    st->stage_ms[FL_STAGE_TRANSFER] += (t1 - t0) + (t7 - t6);
    st->stage_ms[FL_STAGE_BOUNDARY] += (t2 - t1) + (t6 - t5);
    st->stage_ms[FL_STAGE_VELOCITY_UPDATE] += t3 - t2;
    st->stage_ms[FL_STAGE_PRESSURE_SOLVE] += t5 - t3;
    st->stage_ms[FL_STAGE_INTEGRATE] += t8 - t7;
    return flip_advect(s, w, h / pieces, pieces, st, moved, err);
}

/* The volume correction, once per step after its substeps (an addition to
 * the report's steps 1-11): the projection keeps the grid velocity
 * divergence-free, not the particle spacing, so particles bunch in some
 * cells and leave gaps in others, and the gaps spread the FLUID cells.
 * With e = count / rest - 1 the relative excess of a FLUID cell, a
 * displacement D = -grad phi with div D = beta e moves the fraction beta
 * of each over-full cell's excess out and fills the under-full cells that
 * have no AIR neighbour (a gap inside the water; a surface cell is partial
 * by nature and left alone). phi = psi dx^2 solves A psi = beta e with the
 * pressure system's A (p = 0 in AIR, D.n = 0 on SOLID faces); D is
 * interpolated to the particles like a velocity and added to their
 * positions. The velocities are left as they are: no momentum is added. */
static int flip_correct_volume(flip_solver *s, fl_world *w, fl_step_stats *st, fl_error *err)
{
    fl_mac_grid *g = s->g;
    fl_particles *p = &w->fluid;
    const double beta = s->prm.volume, rest = s->rest_count, dx = g->dx;
    const long sx = g->nx, sxy = (long)g->nx * g->ny;
    flip_label_cells(g, p, s->count);
    flip_band_build(s);
    const unsigned char *label = g->label;
    /* FLUID cells are never on the grid's outer layer (the SOLID walls), so
     * their six neighbours exist */
    #pragma omp parallel for schedule(static)
    for (long c = 0; c < g->ncells; c++) {
        double e = 0.0;
        if (label[c] == FL_CELL_FLUID) {
            e = s->count[c] / rest - 1.0;
            if (e < 0.0 && (label[c - 1] == FL_CELL_AIR || label[c + 1] == FL_CELL_AIR ||
                            label[c - sx] == FL_CELL_AIR || label[c + sx] == FL_CELL_AIR ||
                            label[c - sxy] == FL_CELL_AIR || label[c + sxy] == FL_CELL_AIR))
                e = 0.0;
        }
        s->vrhs[c] = beta * e;
    }
    fl_pcg_options opt = s->pcg;
    opt.tol = FLIP_VOLUME_TOLERANCE;
    opt.warm_start = 0;
    opt.history = NULL;
    opt.history_cap = 0;
    fl_pcg_result res;
    int rc = fl_pcg_solve(g->pcg, label, s->vrhs, s->psi, &opt, &res, err);
    if (rc)
        return rc;
    if (res.reason < 0)
        st->solves_unconverged++;
    for (int a = 0; a < 3; a++) {
        flip_field *f = &s->f[a];
        /* the displacement on the band's faces (no particle reads further) */
        memset(f->valid, 0, (size_t)f->n);
        #pragma omp parallel for collapse(2) schedule(static)
        for (int k = 0; k < f->dim[2]; k++)
            for (int j = 0; j < f->dim[1]; j++) {
                int i0, i1;
                flip_band_row(s, f, j, k, &i0, &i1);
                for (int i = i0; i < i1; i++) {
                    int c[3] = {i, j, k};
                    int la = flip_label(g, i, j, k);
                    c[a] -= 1;
                    int lb = flip_label(g, c[0], c[1], c[2]);
                    long q = i + (long)f->dim[0] * (j + (long)f->dim[1] * k);
                    double d = 0.0;
                    if (la != FL_CELL_SOLID && lb != FL_CELL_SOLID && (la == FL_CELL_FLUID || lb == FL_CELL_FLUID))
                        d = -(s->psi[fl_mac_cell(g, i, j, k)] - s->psi[fl_mac_cell(g, c[0], c[1], c[2])]) * dx;
                    f->saved[q] = d;
                    f->valid[q] = la == FL_CELL_FLUID || lb == FL_CELL_FLUID ||
                                  (la == FL_CELL_SOLID) != (lb == FL_CELL_SOLID);
                }
            }
        flip_extrapolate(s, f, f->saved, 1);
    }
    if ((rc = fl_transfer_g2p(g, s->f[0].saved, s->f[1].saved, s->f[2].saved, p->x, p->y, p->z, p->count, s->ax,
                              s->ay, s->az, err)))
        return rc;
    float *const pos[3] = {p->x, p->y, p->z};
    const float *const move[3] = {s->ax, s->ay, s->az};
    flip_displace(g, pos, pos, move, 1.0f, p->count);
    flip_push_out_all(g, p);
    return FL_OK;
}

/* The particles reordered by MAC cell (a stable counting sort, cells in
 * index order), once per step: the flow scatters particles that started
 * side by side in the store, and the transfers, labels and advection,
 * which read the faces around each particle, then miss the cache. The
 * harness reads positions and velocities only, whatever their order. */
static void flip_sort(flip_solver *s, fl_particles *p)
{
    const fl_mac_grid *g = s->g;
    int *cell = s->sort_cell, *start = s->cell_start, *perm = s->sort_perm;
    memset(start, 0, (size_t)(g->ncells + 1) * sizeof(int));
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < p->count; i++)
        cell[i] = (int)fl_mac_cell_at(g, p->x[i], p->y[i], p->z[i]);
    for (int i = 0; i < p->count; i++)
        start[cell[i] + 1]++;
    for (long c = 0; c < g->ncells; c++)
        start[c + 1] += start[c];
    for (int i = 0; i < p->count; i++)
        perm[start[cell[i]]++] = i;
    fl_particles_permute(p, perm, s->qx);
}

/* The substep length for particles at up to vmax: the longest h in which
 * a particle at vmax, sped up by gravity for the whole substep, moves cfl
 * cells: (vmax + |g| h) h = cfl dx, the positive root written so that it
 * does not cancel. */
static double flip_substep_limit(const flip_solver *s, const fl_world *w, double vmax)
{
    const double *gv = w->gravity, reach = s->prm.cfl * s->g->dx;
    double g = sqrt(gv[0] * gv[0] + gv[1] * gv[1] + gv[2] * gv[2]);
    return 2.0 * reach / (vmax + sqrt(vmax * vmax + 4.0 * g * reach) + 1e-12);
}

/* splitmix64 (Steele et al. 2014): seedable and portable. */
static uint64_t flip_rng(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Step 1: the world's fluid lattice (spacing d = dx / 2 by default, the
 * fluid blocks starting on cell boundaries) already holds one particle in
 * each cell of the 2x2x2 sub-grid of every fluid cell; each particle is
 * moved from its sub-cell's centre to a uniform random place in it (the
 * fraction jitter of the sub-cell), kept inside the domain. The world's
 * spacing, mass and h stay, so the harness's SPH density metric reads these
 * particles at the spacing it was calibrated for. */
static void flip_seed(const flip_params *prm, fl_world *w)
{
    fl_particles *p = &w->fluid;
    const double d = w->spacing;
    uint64_t state = (uint64_t)prm->seed;
    float *pos[3] = {p->x, p->y, p->z};
    for (int i = 0; i < p->count; i++)
        for (int a = 0; a < 3; a++) {
            double lo = w->domain.lo[a], hi = w->domain.hi[a];
            double centre = lo + (floor((pos[a][i] - lo) / d) + 0.5) * d;
            double r = (double)(flip_rng(&state) >> 11) * 0x1.0p-53 - 0.5;
            double x = centre + prm->jitter * r * d;
            pos[a][i] = (float)fmin(fmax(x, lo + 1e-4 * d), hi - 1e-4 * d);
        }
}

static void *flip_create_alpha(fl_world *w, const fl_params *p, double alpha_default, fl_error *err)
{
    flip_params prm;
    double pre, warm;
    if (fl_params_check_known(p, flip_keys, err) ||
        fl_params_get(p, "alpha", alpha_default, 0.0, 1.0, &prm.alpha, err) ||
        fl_params_get(p, "dx", 2.0 * w->spacing, 1e-6, 1e3, &prm.dx, err) ||
        fl_params_get(p, "tolerance", 1e-6, 1e-14, 1.0, &prm.tol, err) ||
        fl_params_get_int(p, "max_iterations", 1000, 1, 1000000, &prm.max_iter, err) ||
        fl_params_get(p, "preconditioner", FL_PRECOND_MIC0, FL_PRECOND_MIC0, FL_PRECOND_NONE, &pre, err) ||
        fl_params_get(p, "cfl", 1.0, 0.01, 1.0, &prm.cfl, err) ||
        fl_params_get(p, "jitter", 1.0, 0.0, 1.0, &prm.jitter, err) ||
        fl_params_get(p, "seed", 1.0, 0.0, 1e15, &prm.seed, err) ||
        fl_params_get(p, "volume_correction", 0.5, 0.0, 1.0, &prm.volume, err) ||
        fl_params_get(p, "warm_start", 1.0, 0.0, 1.0, &warm, err))
        return NULL;
    if (pre != floor(pre)) {
        fl_fail(err, FL_ERR_INPUT, "%s.preconditioner: expected 0 (MIC(0)), 1 (Jacobi) or 2 (none), got %g",
                p->source, pre);
        return NULL;
    }
    if (warm != 0.0 && warm != 1.0) {
        fl_fail(err, FL_ERR_INPUT, "%s.warm_start: expected 0 or 1, got %g", p->source, warm);
        return NULL;
    }
    if (prm.seed != floor(prm.seed)) {
        fl_fail(err, FL_ERR_INPUT, "%s.seed: expected a whole number, got %g", p->source, prm.seed);
        return NULL;
    }
    prm.precond = (int)pre;
    prm.warm_start = (int)warm;
    flip_solver *s = calloc(1, sizeof *s);
    if (!s) {
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the FLIP solver");
        return NULL;
    }
    s->prm = prm;
    fl_mac_config cfg = fl_default_mac_config();
    cfg.dx = prm.dx;
    if (fl_mac_grid_create(w, &cfg, &s->g, err)) {
        /* the grid's size follows from dx (by default 2 d): name the key */
        char why[FL_ERROR_LEN];
        int given = 0;
        for (int k = 0; k < p->count; k++)
            given |= strcmp(p->items[k].key, "dx") == 0;
        snprintf(why, sizeof why, "%s", err->msg);
        fl_fail(err, FL_ERR_INPUT, "%.250s.dx%s: %.250s", p->source, given ? "" : " (2 fluid.spacing by default)",
                why);
        flip_destroy(s);
        return NULL;
    }
    fl_mac_grid *g = s->g;
    double *comp[3] = {g->u, g->v, g->w};
    const double *wsum[3] = {g->wu, g->wv, g->ww};
    int ok = 1;
    for (int a = 0; a < 3; a++) {
        flip_field *f = &s->f[a];
        f->axis = a;
        f->dim[0] = g->nx, f->dim[1] = g->ny, f->dim[2] = g->nz;
        f->dim[a] += 1;
        f->n = (long)f->dim[0] * f->dim[1] * f->dim[2];
        f->u = comp[a];
        f->wsum = wsum[a];
        ok &= (f->saved = fl_alloc((size_t)f->n * sizeof(double))) != NULL;
        ok &= (f->valid = fl_alloc((size_t)f->n)) != NULL;
        ok &= (f->fresh = fl_alloc((size_t)f->n)) != NULL;
    }
    size_t bytes = (size_t)(w->fluid.count > 0 ? w->fluid.count : 1) * sizeof(float);
    float **arrays[] = {&s->ax, &s->ay, &s->az, &s->bx, &s->by, &s->bz, &s->qx, &s->qy, &s->qz};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        ok &= (*arrays[k] = fl_alloc(bytes)) != NULL;
    ok &= (s->history = fl_alloc((size_t)(prm.max_iter + 1) * sizeof(double))) != NULL;
    ok &= (s->count = fl_alloc((size_t)g->ncells * sizeof(int))) != NULL;
    ok &= (s->psi = fl_alloc((size_t)g->ncells * sizeof(double))) != NULL;
    ok &= (s->vrhs = fl_alloc((size_t)g->ncells * sizeof(double))) != NULL;
    int **band[] = {&s->band_lo, &s->band_hi, &s->band_tlo, &s->band_thi};
    for (size_t k = 0; k < sizeof band / sizeof band[0]; k++)
        ok &= (*band[k] = fl_alloc((size_t)g->ny * g->nz * sizeof(int))) != NULL;
    size_t per_particle = (size_t)(w->fluid.count > 0 ? w->fluid.count : 1) * sizeof(int);
    ok &= (s->sort_cell = fl_alloc(per_particle)) != NULL;
    ok &= (s->sort_perm = fl_alloc(per_particle)) != NULL;
    ok &= (s->cell_start = fl_alloc((size_t)(g->ncells + 1) * sizeof(int))) != NULL;
    if (!ok) {
        flip_destroy(s);
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the FLIP solver's %d particles", w->fluid.count);
        return NULL;
    }
    s->pcg = fl_default_pcg_options();
    s->pcg.precond = (fl_precond)prm.precond;
    s->pcg.tol = prm.tol;
    s->pcg.max_iter = prm.max_iter;
    s->pcg.history = s->history;
    s->pcg.history_cap = prm.max_iter + 1;
    s->pcg.warm_start = prm.warm_start;
    s->rest_count = pow(prm.dx / w->spacing, 3.0);
    flip_seed(&prm, w);
    return s;
}

static void *flip_create(fl_world *w, const fl_params *p, fl_error *err)
{
    return flip_create_alpha(w, p, 0.05, err);
}

static void *pic_create(fl_world *w, const fl_params *p, fl_error *err)
{
    return flip_create_alpha(w, p, 1.0, err);
}

static int flip_step(void *self, fl_world *w, double dt, fl_step_stats *st)
{
    flip_solver *s = self;
    fl_error err;
    double t = 0.0, moved = 0.0;
    int substeps = 0;
    double t_sort = fl_now_ms();
    flip_sort(s, &w->fluid);
    st->stage_ms[FL_STAGE_OTHER] += fl_now_ms() - t_sort;
    while (t < dt * (1.0 - 1e-12)) {
        int nan_count;
        double vmax = fl_max_speed(&w->fluid, &nan_count);
        if (nan_count > 0 || !isfinite(vmax))
            break;
        double remaining = dt - t, h = flip_substep_limit(s, w, vmax);
        /* equal substeps, at least one (a still fluid without gravity has
         * no limit at all) */
        double pieces = fmax(1.0, ceil(remaining / h - 1e-9));
        if (!(substeps + pieces <= FLIP_MAX_SUBSTEPS)) {
            snprintf(st->failure, sizeof st->failure,
                     "the step needs more than %d CFL substeps (a blow-up, or a step far too long for the flow)",
                     FLIP_MAX_SUBSTEPS);
            return FL_ERR_OUTSIDE;
        }
        h = remaining / pieces;
        double m = 0.0;
        int rc = flip_substep(s, w, h, st, &m, &err);
        if (rc) {
            snprintf(st->failure, sizeof st->failure, "%.159s", err.msg);
            return rc;
        }
        moved = fmax(moved, m);
        t += h;
        substeps++;
    }
    if (s->prm.volume > 0.0 && substeps > 0) {
        double t0 = fl_now_ms();
        int rc = flip_correct_volume(s, w, st, &err);
        if (rc)
            return rc;
        st->stage_ms[FL_STAGE_OTHER] += fl_now_ms() - t0;
    }
    st->substeps = substeps;
    st->max_speed = fl_max_speed(&w->fluid, &st->nan_count);
    st->cfl = moved / s->g->dx;
    st->dt_limit = flip_substep_limit(s, w, st->max_speed);
    return FL_OK;
}

const fl_solver_ops fl_flip_ops = {
    .name = "flip",
    .summary = "PIC/FLIP on a MAC grid with MIC(0)-PCG pressure (Zhu & Bridson 2005), alpha = 0.05",
    .create = flip_create,
    .step = flip_step,
    .destroy = flip_destroy,
};

const fl_solver_ops fl_pic_ops = {
    .name = "pic",
    .summary = "the FLIP solver with alpha = 1: pure PIC (Harlow 1964), for the dissipation contrast",
    .create = pic_create,
    .step = flip_step,
    .destroy = flip_destroy,
};
