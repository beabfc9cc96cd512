/* flip.c: the PIC/FLIP hybrid on the MAC grid, steps 1-11 of section 3.2.1
 * of the PIC/FLIP report of Englesson, Kilby & Ek 2011, "Fluid simulation
 * using implicit particles" (Brackbill & Ruppel 1986;
 * Zhu & Bridson 2005).
 *
 *   1  seeding (create): 8 particles per fluid cell, one in each cell of a
 *      2x2x2 sub-grid at a uniform random place (report 3.2.2); those the
 *      jitter put inside the tool pushed out of it
 *   then, once per step, the particles sorted by cell (flip_sort: memory
 *   order only), and per substep of length h (CFL: no particle moves more
 *   than cfl cells):
 *   2  P2G, trilinear weights normalised per face (fl_transfer_p2g, 3.2.3)
 *   3  save a copy u* of the grid velocities
 *   4  gravity u += g h on every face (eq. 10); with grid_viscosity, then the
 *      viscosity u += h nu lap u on the fluid's faces, no slip on the walls
 *      (fl_mac_apply_viscosity; docs/methods/viscosity.md)
 *   5  boundary conditions: u.n = u_solid.n on faces touching SOLID (eq. 11):
 *      0 on the walls, the tool's velocity on its cells' faces
 *   6  labels: SOLID stays (the walls, the obstacles, the tool's cells), the
 *      rest AIR, cells holding a particle FLUID (3.2.6), and so are the
 *      cells of water the tool uncovered (flip_tool_uncovered)
 *   7  projection: MIC(0)-PCG on the pressure Poisson system (fl_mac_project,
 *      3.2.7); with a tool, its pressure force summed (flip_tool_force)
 *   8  FLIP: v_p += interp(u - u*)
 *   9  PIC:  v_p  = interp(u)
 *   10 blend: v_p = alpha PIC + (1 - alpha) FLIP
 *   11 advection, RK2 midpoint through the grid velocity u (in shorter
 *      pieces where the projected u is faster than the substep assumed),
 *      then particles that ended inside the tool pushed out of its shape,
 *      and those in a wall's SOLID cell to the nearest non-SOLID cell.
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
 * wall is not slowed by it. The rigid tool (solvers/tool.h), when the world
 * has one, is a moving solid: once per step its cells, those whose centre
 * lies inside it at the step's pose, are SOLID and the faces around them
 * hold its velocity (flip_tool_place); the fluid's pressure on those faces
 * is its force (docs/methods/flip.md, section 11). Along the world's
 * periodic axes the grid, the transfers, the labels, the extrapolation,
 * the advection and the volume correction wrap (grid/mac.h, "Periodic
 * axes"; docs/methods/flip.md, section 1); the multigrid preconditioner and
 * the tool are refused there. docs/methods/flip.md maps each line to a
 * function. */
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flip.h"
#include "multigrid.h"
#include "tool_physics.h"
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
    int precond;       /* fl_precond: 0 MIC(0), 1 Jacobi, 2 none, 3 multigrid (unnamed: flip_default_precond) */
    double cfl;        /* largest particle move per substep, cells */
    double jitter;     /* seeding: fraction of a sub-cell a particle may move from its centre */
    double seed;       /* seeding RNG seed */
    double volume;     /* volume correction: fraction of a cell's particle excess moved out per step */
    int warm_start;    /* 1: each pressure solve starts from the last substep's pressure; 0: from 0 */
    int viscosity;     /* 1: u += h nu lap u on the grid each substep (fluid.nu; grid_viscosity) */
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
    long *work; /* per row (j, k), j fastest: the band's faces in the rows before it, each row
                 * counted FLIP_ROW_COST more (dim[1] dim[2] + 1 entries; flip_row_share) */
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
    double *visc_old;         /* with grid_viscosity: one face lattice's velocities before a viscosity step */
    double rest_count;        /* particles in a cell at rest, (dx / d)^3, (dx / d)^2 in 2D */
    int *band_lo, *band_hi;   /* the band: per row (j, k) of cells, i in [lo, hi) */
    int *band_tlo, *band_thi; /* the band's dilation workspace */
    int *sort_cell, *sort_perm; /* the cell sort: each particle's cell, the new order */
    int *cell_start;          /* the cell sort's counts, then starts, per cell (ncells + 1) */
    int *sort_blocks;         /* the cell sort's lowest and highest cell per block of particles
                                 (FL_PARTICLE_BLOCKS) */
    int *sort_bounds;         /* the cell sort's per thread: first cell (sort_threads + 1), then the
                                 particles in its cells (sort_threads) */
    int sort_threads;         /* threads sort_bounds has room for */
    unsigned char *wall;      /* per cell: the grid's own labels at create, SOLID (walls, obstacles) or AIR */
    unsigned char *solid;     /* per cell: the step's solids, wall's and the tool's cells, SOLID or AIR */
    int tool_lo[3], tool_hi[3]; /* the cells [lo, hi) per axis that hold the tool's cells (empty: none) */
    double force[3], torque[3]; /* the tool's pressure force, N, and torque about its centre, N m, summed
                                   over the step's substeps times their length */
} flip_solver;

static const char *const flip_keys[] = {"alpha",  "dx",   "tolerance",         "max_iterations", "preconditioner",
                                        "cfl",    "jitter", "seed", "volume_correction", "warm_start",
                                        "grid_viscosity", NULL};

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

/* A row's work besides its band's faces, in faces (the row's bounds, the
 * loop's start), for sharing the band's rows among the threads. */
#define FLIP_ROW_COST 4

/* Relative residual of the volume correction's solve: its potential moves
 * particles by fractions of a cell, so 1e-4 of that is far below a
 * particle's jitter. */
#define FLIP_VOLUME_TOLERANCE 1e-4

/* How far outside the tool's surface, in cells, the push-out leaves a
 * particle that ended inside it: far enough that the next substep's
 * motion does not take it straight back in, a small part of the cell. */
#define FLIP_TOOL_CLEARANCE 0.25

static void flip_destroy(void *self)
{
    flip_solver *s = self;
    if (!s)
        return;
    for (int a = 0; a < 3; a++) {
        fl_free(s->f[a].saved);
        fl_free(s->f[a].valid);
        fl_free(s->f[a].fresh);
        fl_free(s->f[a].work);
    }
    float *arrays[] = {s->ax, s->ay, s->az, s->bx, s->by, s->bz, s->qx, s->qy, s->qz};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        fl_free(arrays[k]);
    fl_free(s->history);
    fl_free(s->count);
    fl_free(s->psi);
    fl_free(s->vrhs);
    fl_free(s->visc_old);
    fl_free(s->wall);
    fl_free(s->solid);
    int *ints[] = {s->band_lo,    s->band_hi,   s->band_tlo,  s->band_thi,   s->sort_cell,
                   s->sort_perm,  s->cell_start, s->sort_blocks, s->sort_bounds};
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

/* Label of cell (i,j,k), SOLID beyond the grid (one cell beyond a periodic
 * axis: the wrapped cell's). */
static inline int flip_label(const fl_mac_grid *g, int i, int j, int k)
{
    if (i < 0 || j < 0 || k < 0 || i >= g->nx || j >= g->ny || k >= g->nz) {
        const long c = g->wrap ? fl_mac_cell_wrapped(g, i, j, k) : -1;
        return c < 0 ? FL_CELL_SOLID : g->label[c];
    }
    return g->label[fl_mac_cell(g, i, j, k)];
}

static void flip_band_work(flip_solver *s);

/* The band from the labels: per row (j, k) of cells the hull [lo, hi) of
 * its FLUID cells, dilated by FLIP_BAND cells along i, j and k. */
static void flip_band_build(flip_solver *s)
{
    const fl_mac_grid *g = s->g;
    const int nx = g->nx, ny = g->ny, nz = g->nz, m = FLIP_BAND;
    int *lo = s->band_lo, *hi = s->band_hi, *tlo = s->band_tlo, *thi = s->band_thi;
    if (g->wrap) {
        /* a band that wraps across the periodic faces: the whole grid */
        for (long r = 0; r < (long)ny * nz; r++)
            lo[r] = 0, hi[r] = nx;
        flip_band_work(s);
        return;
    }
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
    flip_band_work(s);
}

/* Thread omp_get_thread_num()'s share [*r0, *r1) of lattice f's rows (j,
 * k), flattened j fastest: the rows whose work prefix falls in its equal
 * part of the band's work. The band covers a part of the grid, often a
 * corner (a dam break's column), so equal shares of the rows would leave
 * most threads idle. */
static void flip_row_share(const flip_field *f, long *r0, long *r1)
{
    const int nt = omp_get_num_threads(), t = omp_get_thread_num();
    const long rows = (long)f->dim[1] * f->dim[2], total = f->work[rows];
    long ends[2];
    for (int e = 0; e < 2; e++) {
        const long target = total * (t + e) / nt;
        long a = 0, b = rows; /* the first row r with work[r] >= target */
        while (a < b) {
            const long m = (a + b) / 2;
            if (f->work[m] < target)
                a = m + 1;
            else
                b = m;
        }
        ends[e] = t + e == nt ? rows : a;
    }
    *r0 = ends[0], *r1 = ends[1];
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

/* The per-row work prefixes of the three lattices' band (flip_field.work). */
static void flip_band_work(flip_solver *s)
{
    for (int a = 0; a < 3; a++) {
        flip_field *f = &s->f[a];
        long sum = 0, r = 0;
        for (int k = 0; k < f->dim[2]; k++)
            for (int j = 0; j < f->dim[1]; j++, r++) {
                int i0, i1;
                flip_band_row(s, f, j, k, &i0, &i1);
                f->work[r] = sum;
                sum += (i1 > i0 ? i1 - i0 : 0) + FLIP_ROW_COST;
            }
        f->work[r] = sum;
    }
}

/* Validity after the projection: a face is valid where it touches a FLUID
 * cell (projected) or separates a SOLID cell from a non-SOLID one (the
 * solid's normal velocity, 0). A face with SOLID on both sides, inside a
 * wall, is invalid and takes the fluid's tangential velocity from the
 * extrapolation (free slip); so is every face outside the band. la and lb
 * are the labels of the cells on either side. */
static inline unsigned char flip_face_valid(int la, int lb)
{
    return (unsigned char)((la == FL_CELL_FLUID) | (lb == FL_CELL_FLUID) |
                           ((la == FL_CELL_SOLID) != (lb == FL_CELL_SOLID)));
}

/* The first cell of row (j, k) of the grid, wrapped across a periodic
 * axis's faces; -1 outside a grid that does not wrap there (SOLID). */
static long flip_row_cell(const fl_mac_grid *g, int j, int k)
{
    if (j >= 0 && j < g->ny && k >= 0 && k < g->nz)
        return fl_mac_cell(g, 0, j, k);
    return g->wrap ? fl_mac_cell_wrapped(g, 0, j, k) : -1;
}

/* flip_face_valid for the faces i in [i0, i1) of a row, into valid[i],
 * from the labels label[ca + i] and label[cb + i] of the cells on either
 * side, or SOLID for a side whose row lies outside the grid (ca or cb -1).
 * A vector loop. */
static void flip_valid_run(const unsigned char *label, long ca, long cb, unsigned char *valid, int i0, int i1)
{
    const int sa = ca < 0, sb = cb < 0;
    const long a = sa ? 0 : ca, b = sb ? 0 : cb;
    for (int i = i0; i < i1; i++)
        valid[i] = flip_face_valid(sa ? FL_CELL_SOLID : label[a + i], sb ? FL_CELL_SOLID : label[b + i]);
}

/* The faces' validity over the band of lattice f (flip_face_valid), 0
 * elsewhere: row by row, the faces whose two cells lie in one row of
 * cells each as one vector loop (all of a y or z lattice's; an x lattice's
 * but its two end faces, from flip_label). */
static void flip_valid_from_labels(const flip_solver *s, flip_field *f)
{
    const fl_mac_grid *g = s->g;
    const int axis = f->axis;
    memset(f->valid, 0, (size_t)f->n);
    #pragma omp parallel
    {
        long r0, r1;
        flip_row_share(f, &r0, &r1);
        for (long r = r0; r < r1; r++) {
            const int j = (int)(r % f->dim[1]), k = (int)(r / f->dim[1]);
            unsigned char *valid = f->valid + (long)f->dim[0] * r;
            int i0, i1;
            flip_band_row(s, f, j, k, &i0, &i1);
            if (axis != 0) {
                flip_valid_run(g->label, flip_row_cell(g, j, k),
                               flip_row_cell(g, j - (axis == 1), k - (axis == 2)), valid, i0, i1);
                continue;
            }
            const long c = fl_mac_cell(g, 0, j, k);
            const int a = i0 > 1 ? i0 : 1, b = i1 < g->nx ? i1 : g->nx;
            if (a < b)
                flip_valid_run(g->label, c, c - 1, valid, a, b);
            for (int i = 0; i <= g->nx; i += g->nx) /* the end faces, on the grid's x faces */
                if (i >= i0 && i < i1)
                    valid[i] = flip_face_valid(flip_label(g, i, j, k), flip_label(g, i - 1, j, k));
        }
    }
}

/* The offset from face q of lattice f, at coordinate x along axis b, to
 * its neighbour on side (1: above, 0: below) along b wrapped across a
 * periodic axis's faces (face -1 is face n-1, face n + 1 face 1); 0 when
 * that neighbour lies beyond a face that does not wrap. */
static inline long flip_wrap_step(const fl_mac_grid *g, const flip_field *f, int b, int x, int side, long stride)
{
    const int n = b == 0 ? g->nx : b == 1 ? g->ny : g->nz;
    if (!g->periodic[b])
        return 0;
    return side ? (x + 1 >= f->dim[b] ? (1 - n) * stride : stride) : (x > 0 ? -stride : (n - 1) * stride);
}

/* One layer of the extrapolation at face q: an invalid face whose
 * neighbours q + off[d] (d < terms, those with on[d]) include valid ones
 * takes their mean, added in the order of d; returns whether it did. */
FL_FORCE_INLINE unsigned char flip_extrapolate_face(const unsigned char *valid, double *u, long q, const long *off,
                                                    const unsigned char *on, int terms)
{
    if (valid[q])
        return 0;
    double sum = 0.0;
    int n = 0;
    for (int d = 0; d < terms; d++) { /* no branch: a frontier face's neighbours come in any mix */
        const int v = on[d] & valid[q + off[d]];
        const double x = u[q + off[d]];
        sum += v ? x : 0.0;
        n += v;
    }
    if (n == 0)
        return 0;
    u[q] = sum / n;
    return 1;
}

/* Whether flip_extrapolate_face would leave the 8 faces from q on alone,
 * read from their validity bytes 8 at a time: all of them valid, or none
 * of them nor of their neighbours (the x neighbours q - 1 and q + 8 must
 * lie in the row). Most of a band is one or the other: the fluid's inside,
 * or the air between a splash's drops. */
static inline int flip_faces_idle(const unsigned char *valid, long q, const long *off, const unsigned char *on,
                                  int terms)
{
    uint64_t v, w;
    memcpy(&v, valid + q, sizeof v);
    if (v == 0x0101010101010101ull)
        return 1;
    if (v != 0 || valid[q - 1] || valid[q + 8])
        return 0;
    for (int d = 2; d < terms; d++) {
        if (!on[d])
            continue;
        memcpy(&w, valid + q + off[d], sizeof w);
        if (w != 0)
            return 0;
    }
    return 1;
}

/* The neighbours across a periodic axis's faces of a face at coordinate x
 * along axis b of lattice f (stride: b's step in f): for side 0 (below)
 * and 1 (above), the offset in off[side] and on[side] 1 where x lies at
 * that end of a periodic axis, else 0 and 0. */
static void flip_wrap_terms(const flip_solver *s, const flip_field *f, int b, int x, long stride, long off[2],
                            unsigned char on[2])
{
    for (int side = 0; side < 2; side++) {
        const int inside = side ? x < f->dim[b] - 1 : x > 0;
        const long o = inside ? 0 : flip_wrap_step(s->g, f, b, x, side, stride);
        off[side] = o, on[side] = o != 0;
    }
}

/* One layer of the extrapolation over the band's faces of row r = (j, k)
 * of lattice f: the six neighbours in order -x, +x, -y, +y, -z, +z, those
 * inside the lattice, then on a periodic grid the six again, those across
 * a periodic axis's faces (off and on start at 0 for these). The row's two
 * end faces are done apart, where their x neighbours differ. */
static void flip_extrapolate_row(const flip_solver *s, flip_field *f, double *u, long r)
{
    const int wrap = s->g->wrap;
    const int d0 = f->dim[0], d1 = f->dim[1], d2 = f->dim[2], j = (int)(r % d1), k = (int)(r / d1);
    const long s1 = d0, s2 = (long)d0 * d1, row = s1 * r;
    const unsigned char *valid = f->valid;
    unsigned char *fresh = f->fresh;
    int i0, i1;
    flip_band_row(s, f, j, k, &i0, &i1);
    if (i1 <= i0)
        return;
    long off[12] = {-1, 1, -s1, s1, -s2, s2};
    unsigned char on[12] = {1, 1, j > 0, j < d1 - 1, k > 0, k < d2 - 1};
    const int terms = wrap ? 12 : 6;
    if (wrap) {
        flip_wrap_terms(s, f, 1, j, s1, off + 8, on + 8);
        flip_wrap_terms(s, f, 2, k, s2, off + 10, on + 10);
    }
    for (int d = 0; d < terms; d++)
        if (!on[d])
            off[d] = 0; /* a term that is off reads the face itself */
    /* the interior faces, 8 at a time where they are idle, then each end
     * face with its own x neighbours */
    const long qa = row + (i0 > 0 ? i0 : 1), qb = row + (i1 < d0 - 1 ? i1 : d0 - 1);
    for (long q = qa; q < qb;) {
        if (q + 9 <= qb && flip_faces_idle(valid, q, off, on, terms)) {
            memset(fresh + q, 0, 8);
            q += 8;
        } else {
            fresh[q] = flip_extrapolate_face(valid, u, q, off, on, terms);
            q++;
        }
    }
    for (int e = 0; e < 2; e++) {
        const int i = e ? d0 - 1 : 0;
        if (i < i0 || i >= i1)
            continue;
        long eoff[12];
        unsigned char eon[12];
        memcpy(eoff, off, sizeof eoff), memcpy(eon, on, sizeof eon);
        eon[0] = i > 0, eon[1] = i < d0 - 1;
        eoff[0] = eon[0] ? -1 : 0, eoff[1] = eon[1] ? 1 : 0;
        if (wrap)
            flip_wrap_terms(s, f, 0, i, 1, eoff + 6, eon + 6);
        fresh[row + i] = flip_extrapolate_face(valid, u, row + i, eoff, eon, terms);
    }
}

/* Each invalid face of values u in the band next to a valid one (same
 * lattice, 6 neighbours, wrapped on a periodic grid) takes the mean of its
 * valid neighbours and becomes valid for the next layer. */
static void flip_extrapolate(const flip_solver *s, flip_field *f, double *u, int layers)
{
    for (int layer = 0; layer < layers; layer++) {
        #pragma omp parallel
        {
            long r0, r1;
            flip_row_share(f, &r0, &r1);
            for (long r = r0; r < r1; r++)
                flip_extrapolate_row(s, f, u, r);
            /* the next layer reads this one's validity: all rows done first */
            #pragma omp barrier
            unsigned char *valid = f->valid;
            const unsigned char *fresh = f->fresh;
            for (long r = r0; r < r1; r++) {
                int i0, i1;
                flip_band_row(s, f, (int)(r % f->dim[1]), (int)(r / f->dim[1]), &i0, &i1);
                for (long q = i0 + f->dim[0] * r, e = i1 + f->dim[0] * r; q < e; q++)
                    valid[q] |= fresh[q];
            }
        }
    }
    fl_mac_wrap_faces(s->g, f->axis, u);
}

/* Over the band's faces: dst = src - dst when change is set (the FLIP
 * change), else dst = src + add (the saved copy with add 0, gravity). */
static void flip_band_update(const flip_solver *s, const flip_field *f, double *dst, const double *src, int change,
                             double add)
{
    #pragma omp parallel
    {
        long r0, r1;
        flip_row_share(f, &r0, &r1);
        for (long r = r0; r < r1; r++) {
            int i0, i1;
            flip_band_row(s, f, (int)(r % f->dim[1]), (int)(r / f->dim[1]), &i0, &i1);
            for (long q = i0 + (long)f->dim[0] * r, e = q + (i1 - i0); q < e; q++)
                dst[q] = change ? src[q] - dst[q] : src[q] + add;
        }
    }
}

/* Whether cell c is one of the tool's SOLID cells this step. */
static inline int flip_tool_cell(const flip_solver *s, long c)
{
    return s->solid[c] == FL_CELL_SOLID && s->wall[c] != FL_CELL_SOLID;
}

/* The water the tool uncovered: an AIR cell next to one of the tool's
 * cells that has no AIR neighbour becomes FLUID. A moving tool leaves such
 * cells behind it, emptied of particles while it covered them, before the
 * water's particles flow in; under the surface there is no air to fill
 * them, and as AIR, p = 0 inside the water, each would pull the water and
 * the tool towards it for a step. A cell made FLUID has no AIR neighbour,
 * so no other cell's test depends on it: the order does not matter. */
static void flip_tool_uncovered(flip_solver *s)
{
    fl_mac_grid *g = s->g;
    const int n[3] = {g->nx, g->ny, g->nz};
    const long stride[3] = {1, g->nx, (long)g->nx * g->ny};
    int lo[3], hi[3];
    for (int a = 0; a < 3; a++) {
        if (s->tool_hi[a] <= s->tool_lo[a])
            return;
        lo[a] = s->tool_lo[a] > 1 ? s->tool_lo[a] - 1 : 1;
        hi[a] = s->tool_hi[a] < n[a] - 1 ? s->tool_hi[a] + 1 : n[a] - 1;
    }
    unsigned char *label = g->label;
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++) {
                const long c = fl_mac_cell(g, i, j, k);
                if (label[c] != FL_CELL_AIR)
                    continue;
                int tool = 0, air = 0;
                for (int a = 0; a < 3; a++)
                    for (int side = -1; side <= 1; side += 2) {
                        const long q = c + side * stride[a];
                        tool |= flip_tool_cell(s, q);
                        air |= label[q] == FL_CELL_AIR;
                    }
                if (tool && !air)
                    label[c] = FL_CELL_FLUID;
            }
}

/* Step 6: every cell SOLID or AIR as the step's solids (the walls, the
 * obstacles and the tool's cells) have it, then the non-SOLID cells
 * holding a particle FLUID, and the water the tool uncovered
 * (flip_tool_uncovered); with count, count[c] gets the particles in cell c
 * (the volume correction's density). Many particles mark the same cell,
 * all with the same label, so the labels are read and written atomically
 * and the counts are atomic increments. */
static void flip_label_cells(flip_solver *s, const fl_particles *p, int *count)
{
    fl_mac_grid *g = s->g;
    #pragma omp parallel for schedule(static)
    for (long c = 0; c < g->ncells; c++) {
        if (count)
            count[c] = 0;
        g->label[c] = s->solid[c];
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
    flip_tool_uncovered(s);
}

/* Position x along periodic axis a wrapped into the grid's period
 * [lo, lo + n dx): a particle leaving through one face re-enters through
 * the other. The float is kept inside too (x just below the top can round
 * up to it; lo itself can round down). */
static inline float flip_wrap_position(const fl_mac_grid *g, int a, double x)
{
    const int n = a == 0 ? g->nx : a == 1 ? g->ny : g->nz;
    const double lo = g->lo[a], hi = lo + n * g->dx, len = n * g->dx;
    float f = (float)(x - len * floor((x - lo) / len));
    if (f >= hi)
        f = (float)lo;
    if (f < lo)
        f = nextafterf(f, INFINITY);
    return f;
}

/* dst = src + scale d along each axis, clamped strictly inside the grid
 * box (the domain and its SOLID layer) so that its cell index is valid,
 * wrapped into the period along a periodic axis; dst may be src. */
static void flip_displace(const fl_mac_grid *g, float *const dst[3], float *const src[3], const float *const d[3],
                          float scale, int n)
{
    const int cells[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        const double lo = g->lo[a] + 1e-4 * g->dx, hi = g->lo[a] + (cells[a] - 1e-4) * g->dx;
        const float *x = src[a], *u = d[a];
        float *y = dst[a];
        if (g->periodic[a]) {
            #pragma omp parallel for schedule(static)
            for (int i = 0; i < n; i++)
                y[i] = flip_wrap_position(g, a, (double)(x[i] + scale * u[i]));
            continue;
        }
        #pragma omp parallel for simd schedule(static)
        for (int i = 0; i < n; i++)
            y[i] = (float)flip_clamp((double)(x[i] + scale * u[i]), lo, hi);
    }
}

/* v loses its component into a solid moving at u, along the unit normal n
 * pointing out of the solid: v -= min(0, (v - u).n) n. */
static inline void flip_stop_inflow(float v[3], const float u[3], const double n[3])
{
    double vn = 0.0;
    for (int a = 0; a < 3; a++)
        vn += (v[a] - u[a]) * n[a];
    if (vn < 0.0)
        for (int a = 0; a < 3; a++)
            v[a] -= (float)(vn * n[a]);
}

/* The tool's push-out (tool non-NULL): a particle inside the tool moves
 * along the normal of the nearest surface point to FLIP_TOOL_CLEARANCE
 * cells outside it, and loses the velocity component into the tool
 * relative to the tool's material there. Returns 1 when the particle
 * moved. */
static inline int flip_push_out_tool(const fl_tool_link *tool, double dx, float x[3], float v[3])
{
    float n[3], u[3];
    const float d = fl_tool_distance(&tool->shape, &tool->pose, x[0], x[1], x[2], n);
    if (!(d < 0.0f))
        return 0;
    const float move = (float)(FLIP_TOOL_CLEARANCE * dx) - d;
    for (int a = 0; a < 3; a++)
        x[a] += move * n[a];
    fl_tool_point_velocity(&tool->pose, x[0], x[1], x[2], u);
    const double nd[3] = {n[0], n[1], n[2]};
    flip_stop_inflow(v, u, nd);
    return 1;
}

/* Step 11's push-out: a particle in a wall's or obstacle's SOLID cell moves
 * to the nearest point (1 % of a cell inside) of the nearest non-SOLID
 * cell among its 26 neighbours, and loses the velocity component into the
 * solid along that displacement (the normal). With at most one cell moved
 * per substep a free neighbour always exists; otherwise the particle
 * stays. Returns 1 when the particle moved. The tool's cells are left to
 * flip_push_out_tool: a particle outside the tool's shape but in one of
 * its cells (the staircase covers more than the shape) stays, so that a
 * cell the moving tool uncovers still holds water and is FLUID, not an AIR
 * cell, p = 0, inside the water. */
static inline int flip_push_out(const flip_solver *s, float x[3], float v[3])
{
    const fl_mac_grid *g = s->g;
    const double dx = g->dx, eps = 0.01 * dx;
    int c[3];
    for (int a = 0; a < 3; a++)
        c[a] = (int)fl_mac_coord(g, a, x[a]);
    if (s->wall[fl_mac_cell(g, c[0], c[1], c[2])] != FL_CELL_SOLID)
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
    double n[3], len = sqrt(best);
    for (int a = 0; a < 3; a++) {
        n[a] = (to[a] - x[a]) / len;
        /* a free cell across a periodic face lies past the grid box */
        x[a] = g->periodic[a] ? flip_wrap_position(g, a, to[a]) : (float)to[a];
    }
    const float rest[3] = {0.0f, 0.0f, 0.0f};
    flip_stop_inflow(v, rest, n);
    return 1;
}

/* The push-outs on every particle (positions inside the grid box): out of
 * the tool's shape (tool non-NULL), then out of the walls' and obstacles'
 * SOLID cells. */
static void flip_push_out_all(const flip_solver *s, fl_particles *p, const fl_tool_link *tool)
{
    const double dx = s->g->dx;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < p->count; i++) {
        float x[3] = {p->x[i], p->y[i], p->z[i]}, v[3] = {p->vx[i], p->vy[i], p->vz[i]};
        int moved = tool && flip_push_out_tool(tool, dx, x, v);
        moved |= flip_push_out(s, x, v);
        if (!moved)
            continue;
        p->x[i] = x[0], p->y[i] = x[1], p->z[i] = x[2];
        p->vx[i] = v[0], p->vy[i] = v[1], p->vz[i] = v[2];
    }
}

/* The tool in the step (its pose is the step's): NULL without one. */
static inline const fl_tool_link *flip_tool(const fl_world *w)
{
    return w->tool.active ? &w->tool : NULL;
}

/* The cells [lo, hi) per axis whose centres can lie inside the tool: the
 * box around its bounding sphere (shape.bound), within the grid's interior
 * (the outer layer is the walls'). */
static void flip_tool_box(const fl_mac_grid *g, const fl_tool_link *tool, int lo[3], int hi[3])
{
    const double r = tool->shape.bound;
    const int n[3] = {g->nx, g->ny, g->nz};
    for (int a = 0; a < 3; a++) {
        /* cell i's centre sits at coordinate i + 0.5 */
        const double c = fl_mac_coord(g, a, tool->pose.c[a]), reach = r * g->inv_dx;
        const int i0 = (int)floor(c - reach - 0.5), i1 = (int)ceil(c + reach - 0.5) + 1;
        lo[a] = i0 < 1 ? 1 : i0;
        hi[a] = i1 > n[a] - 1 ? n[a] - 1 : i1;
    }
}

/* The solid velocities of the faces of the cells [lo, hi): with tool, a
 * face between a tool cell and any other cell takes the normal component
 * of the tool's material velocity at the face centre (u.n = u_solid.n);
 * every other face, and every face without tool, 0. */
static void flip_tool_faces(flip_solver *s, const fl_tool_link *tool, const int lo[3], const int hi[3])
{
    fl_mac_grid *g = s->g;
    double *const vel[3] = {g->solid_u, g->solid_v, g->solid_w};
    const long stride[3] = {1, g->nx, (long)g->nx * g->ny};
    for (int a = 0; a < 3; a++) {
        const int *dim = s->f[a].dim;
        for (int k = lo[2]; k < hi[2] + (a == 2); k++)
            for (int j = lo[1]; j < hi[1] + (a == 1); j++)
                for (int i = lo[0]; i < hi[0] + (a == 0); i++) {
                    const long c = fl_mac_cell(g, i, j, k);
                    double u = 0.0;
                    if (tool && (flip_tool_cell(s, c) || flip_tool_cell(s, c - stride[a]))) {
                        const int q[3] = {i, j, k};
                        float x[3], m[3];
                        for (int b = 0; b < 3; b++)
                            x[b] = (float)(fl_mac_centre(g, b, q[b]) - (b == a ? 0.5 * g->dx : 0.0));
                        fl_tool_point_velocity(&tool->pose, x[0], x[1], x[2], m);
                        u = m[a];
                    }
                    vel[a][i + (long)dim[0] * (j + (long)dim[1] * k)] = u;
                }
    }
}

/* The tool's cells for a step: last step's go back to the grid's own
 * labels and their faces to rest; then each cell of the tool's box whose
 * centre lies inside the tool becomes SOLID in s->solid (a wall or
 * obstacle cell stays the wall's) and the faces around them take the
 * tool's velocity (flip_tool_faces). The grid gets its per-face solid
 * velocities on the first call; FL_ERR_MEMORY when it cannot. */
static int flip_tool_place(flip_solver *s, const fl_tool_link *tool, fl_error *err)
{
    fl_mac_grid *g = s->g;
    int rc = fl_mac_grid_moving_solids(g, err);
    if (rc)
        return rc;
    int *lo = s->tool_lo, *hi = s->tool_hi;
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++)
                s->solid[fl_mac_cell(g, i, j, k)] = s->wall[fl_mac_cell(g, i, j, k)];
    flip_tool_faces(s, NULL, lo, hi);
    flip_tool_box(g, tool, lo, hi);
    for (int k = lo[2]; k < hi[2]; k++)
        for (int j = lo[1]; j < hi[1]; j++)
            for (int i = lo[0]; i < hi[0]; i++) {
                const long c = fl_mac_cell(g, i, j, k);
                float n[3];
                const float x = (float)fl_mac_centre(g, 0, i), y = (float)fl_mac_centre(g, 1, j),
                            z = (float)fl_mac_centre(g, 2, k);
                if (fl_tool_distance(&tool->shape, &tool->pose, x, y, z, n) < 0.0f)
                    s->solid[c] = FL_CELL_SOLID;
            }
    flip_tool_faces(s, tool, lo, hi);
    return FL_OK;
}

/* The fluid's force on the tool from this substep's pressure (Pa) and its
 * torque about the tool's centre, times the substep h, added to s->force
 * and s->torque: over the faces between a tool cell and a FLUID cell c,
 * f = p_f dx^2 n with n the unit normal from c into the tool (pressure
 * pushes the tool away from the fluid), at the face centre. p_f is the
 * pressure at the face, where the solid's surface lies: p_c extrapolated
 * half a cell from c's neighbour o on the far side, p_f = p_c + (p_c - p_o) / 2
 * (p_o = 0 in AIR, the free surface's condition; p_c alone where o is
 * SOLID). p_c itself sits half a cell off the surface: in a tank at rest
 * it would count the weight of one more cell of water per column through
 * the tool (rho g dx^3 a column, a fifth more than rho g V for a sphere of
 * radius 3.5 cells); p_f gives rho g times the volume of the tool's cells. */
static void flip_tool_force(flip_solver *s, const fl_tool_link *tool, double h)
{
    const fl_mac_grid *g = s->g;
    const double dx = g->dx, area = dx * dx;
    const long stride[3] = {1, g->nx, (long)g->nx * g->ny};
    const float *cen = tool->pose.c;
    double f[3] = {0.0, 0.0, 0.0}, tq[3] = {0.0, 0.0, 0.0};
    for (int k = s->tool_lo[2]; k < s->tool_hi[2]; k++)
        for (int j = s->tool_lo[1]; j < s->tool_hi[1]; j++)
            for (int i = s->tool_lo[0]; i < s->tool_hi[0]; i++) {
                const long t = fl_mac_cell(g, i, j, k);
                if (!flip_tool_cell(s, t))
                    continue;
                const double x[3] = {fl_mac_centre(g, 0, i), fl_mac_centre(g, 1, j), fl_mac_centre(g, 2, k)};
                for (int a = 0; a < 3; a++)
                    for (int side = -1; side <= 1; side += 2) {
                        /* c, the cell on this side of the tool cell, and o beyond it, read
                         * only when c is FLUID: c is then off the grid's outer layer */
                        const long c = t + side * stride[a], o = c + side * stride[a];
                        if (g->label[c] != FL_CELL_FLUID)
                            continue;
                        const double pc = g->p[c];
                        const double pf = g->label[o] == FL_CELL_SOLID ? pc : pc + 0.5 * (pc - g->p[o]);
                        double fa[3] = {0.0, 0.0, 0.0}, r[3];
                        fa[a] = -side * pf * area;
                        for (int b = 0; b < 3; b++)
                            r[b] = x[b] + (b == a ? 0.5 * side * dx : 0.0) - cen[b];
                        for (int b = 0; b < 3; b++)
                            f[b] += fa[b];
                        tq[0] += r[1] * fa[2] - r[2] * fa[1];
                        tq[1] += r[2] * fa[0] - r[0] * fa[2];
                        tq[2] += r[0] * fa[1] - r[1] * fa[0];
                    }
            }
    for (int a = 0; a < 3; a++)
        s->force[a] += h * f[a], s->torque[a] += h * tq[a];
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
    st->solve_ms += res->ms;
    st->precond_setup_ms += res->setup_ms;
    st->precond_apply_ms += res->apply_ms;
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
        #pragma omp parallel reduction(max : top)
        {
            long r0, r1;
            flip_row_share(f, &r0, &r1);
            for (long r = r0; r < r1; r++) {
                int i0, i1;
                flip_band_row(s, f, (int)(r % f->dim[1]), (int)(r / f->dim[1]), &i0, &i1);
                const long row = (long)f->dim[0] * r;
                for (int i = i0; i < i1; i++) {
                    double v = f->valid[row + i] ? fabs(f->u[row + i]) : 0.0;
                    top = v > top ? v : top;
                }
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
        flip_push_out_all(s, p, flip_tool(w));
        double t4 = fl_now_ms();
        st->stage_ms[FL_STAGE_TRANSFER] += (t1 - t0) + (t3 - t2);
        st->part_ms[FL_PART_G2P] += (t1 - t0) + (t3 - t2);
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
    flip_label_cells(s, p, NULL);
    flip_band_build(s);
    for (int a = 0; a < 3; a++) {
        flip_field *f = &s->f[a];
        flip_band_update(s, f, f->saved, f->u, 0, 0.0);
    }
    double t2 = fl_now_ms();
    for (int a = 0; a < 3; a++)
        flip_band_update(s, &s->f[a], s->f[a].u, s->f[a].u, 0, w->gravity[a] * h);
    if (s->prm.viscosity) {
        double n = fl_mac_viscosity_substeps(g, h, w->nu, w->dims);
        if (!(n <= FLIP_MAX_SUBSTEPS))
            return fl_fail(err, FL_ERR_INPUT,
                           "grid_viscosity: a substep of %.3g s with fluid.nu = %.3g m^2/s on cells of %.3g m needs "
                           "%.3g explicit viscosity steps (stable: dt nu / dx^2 <= 1/%d), more than %d; lower "
                           "fluid.nu or time.dt", h, w->nu, g->dx, n, 2 * w->dims, FLIP_MAX_SUBSTEPS);
        fl_mac_apply_viscosity(g, h, w->nu, w->dims, (int)n, s->visc_old);
    }
    double t3 = fl_now_ms();
    fl_pcg_result res;
    rc = fl_mac_project(g, h, w->rho0, &s->pcg, &res, err);
    if (rc)
        return rc;
    flip_record(st, s->history, &res);
    double t5 = fl_now_ms();
    const fl_tool_link *tool = flip_tool(w);
    if (tool)
        flip_tool_force(s, tool, h);
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
    st->part_ms[FL_PART_P2G] += t1 - t0;
    st->part_ms[FL_PART_G2P] += t7 - t6;
    st->stage_ms[FL_STAGE_BOUNDARY] += (t2 - t1) + (t6 - t5);
    st->part_ms[FL_PART_LABELS] += t2 - t1;
    st->part_ms[FL_PART_EXTRAPOLATION] += t6 - t5;
    st->stage_ms[FL_STAGE_VELOCITY_UPDATE] += t3 - t2;
    st->stage_ms[FL_STAGE_PRESSURE_SOLVE] += t5 - t3;
    st->stage_ms[FL_STAGE_INTEGRATE] += t8 - t7;
    return flip_advect(s, w, h / pieces, pieces, st, moved, err);
}

/* Whether cell c of a periodic grid has an AIR neighbour, wrapped. */
static int flip_air_beside(const fl_mac_grid *g, long c)
{
    const int i = (int)(c % g->nx), j = (int)((c / g->nx) % g->ny), k = (int)(c / ((long)g->nx * g->ny));
    return flip_label(g, i - 1, j, k) == FL_CELL_AIR || flip_label(g, i + 1, j, k) == FL_CELL_AIR ||
           flip_label(g, i, j - 1, k) == FL_CELL_AIR || flip_label(g, i, j + 1, k) == FL_CELL_AIR ||
           flip_label(g, i, j, k - 1) == FL_CELL_AIR || flip_label(g, i, j, k + 1) == FL_CELL_AIR;
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
    flip_label_cells(s, p, s->count);
    flip_band_build(s);
    const unsigned char *label = g->label;
    const int wrap = g->wrap;
    /* FLUID cells are never on the grid's outer layer (the SOLID walls), so
     * their six neighbours exist; on a periodic grid they are found wrapped */
    #pragma omp parallel for schedule(static)
    for (long c = 0; c < g->ncells; c++) {
        double e = 0.0;
        if (label[c] == FL_CELL_FLUID) {
            e = s->count[c] / rest - 1.0;
            if (e < 0.0 && (wrap ? flip_air_beside(g, c)
                                 : (label[c - 1] == FL_CELL_AIR || label[c + 1] == FL_CELL_AIR ||
                                    label[c - sx] == FL_CELL_AIR || label[c + sx] == FL_CELL_AIR ||
                                    label[c - sxy] == FL_CELL_AIR || label[c + sxy] == FL_CELL_AIR)))
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
        #pragma omp parallel
        {
            long r0, r1;
            flip_row_share(f, &r0, &r1);
            for (long r = r0; r < r1; r++) {
                const int j = (int)(r % f->dim[1]), k = (int)(r / f->dim[1]);
                int i0, i1;
                flip_band_row(s, f, j, k, &i0, &i1);
                for (int i = i0; i < i1; i++) {
                    int c[3] = {i, j, k};
                    int la = flip_label(g, i, j, k);
                    c[a] -= 1;
                    int lb = flip_label(g, c[0], c[1], c[2]);
                    long q = i + (long)f->dim[0] * (j + (long)f->dim[1] * k);
                    double d = 0.0;
                    if (la != FL_CELL_SOLID && lb != FL_CELL_SOLID && (la == FL_CELL_FLUID || lb == FL_CELL_FLUID)) {
                        /* wrapped: the faces of a periodic axis's ends (face n, face 0) */
                        const long ca = g->wrap ? fl_mac_cell_wrapped(g, i, j, k) : fl_mac_cell(g, i, j, k);
                        const long cb = g->wrap ? fl_mac_cell_wrapped(g, c[0], c[1], c[2])
                                                : fl_mac_cell(g, c[0], c[1], c[2]);
                        d = -(s->psi[ca] - s->psi[cb]) * dx;
                    }
                    f->saved[q] = d;
                    f->valid[q] = flip_face_valid(la, lb);
                }
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
    flip_push_out_all(s, p, flip_tool(w));
    return FL_OK;
}

/* The particles reordered by MAC cell (a stable counting sort, cells in
 * index order), once per step: the flow scatters particles that started
 * side by side in the store, and the transfers, labels and advection,
 * which read the faces around each particle, then miss the cache. The
 * harness reads positions and velocities only, whatever their order.
 * Each thread sorts the particles of its own range of cells: the ranges
 * split at the cells of the particles at equal shares of the store (the
 * store, sorted a step ago, is nearly in cell order), and a thread reads
 * only the blocks of particles whose cells meet its range. The order is
 * the sequential sort's on any number of threads. */
static void flip_sort(flip_solver *s, fl_particles *p)
{
    const fl_mac_grid *g = s->g;
    const int n = p->count, nb = FL_PARTICLE_BLOCKS;
    int *cell = s->sort_cell, *count = s->cell_start, *perm = s->sort_perm, *block = s->sort_blocks;
    int *bound = s->sort_bounds, *before = s->sort_bounds + s->sort_threads + 1;
    #pragma omp parallel num_threads(s->sort_threads)
    {
        const int nt = omp_get_num_threads(), t = omp_get_thread_num();
        #pragma omp for schedule(static)
        for (int b = 0; b < nb; b++) {
            int lo = INT_MAX, hi = -1;
            for (int i = fl_particle_block(n, b), e = fl_particle_block(n, b + 1); i < e; i++) {
                const int c = (int)fl_mac_cell_at(g, p->x[i], p->y[i], p->z[i]);
                cell[i] = c;
                lo = c < lo ? c : lo;
                hi = c > hi ? c : hi;
            }
            block[2 * b] = lo, block[2 * b + 1] = hi;
        }
        #pragma omp single
        {
            bound[0] = 0;
            for (int u = 1; u < nt; u++) {
                const int c = n > 0 ? cell[(long)n * u / nt] : 0;
                bound[u] = c > bound[u - 1] ? c : bound[u - 1];
            }
            bound[nt] = (int)g->ncells;
        }
        const int c0 = bound[t], c1 = bound[t + 1];
        for (int c = c0; c < c1; c++)
            count[c] = 0;
        for (int b = 0; b < nb; b++)
            if (block[2 * b] < c1 && block[2 * b + 1] >= c0)
                for (int i = fl_particle_block(n, b), e = fl_particle_block(n, b + 1); i < e; i++)
                    if (cell[i] >= c0 && cell[i] < c1)
                        count[cell[i]]++;
        int sum = 0;
        for (int c = c0; c < c1; c++) {
            const int k = count[c];
            count[c] = sum;
            sum += k;
        }
        before[t] = sum;
        #pragma omp barrier
        int base = 0;
        for (int u = 0; u < t; u++)
            base += before[u];
        for (int b = 0; b < nb; b++)
            if (block[2 * b] < c1 && block[2 * b + 1] >= c0)
                for (int i = fl_particle_block(n, b), e = fl_particle_block(n, b + 1); i < e; i++)
                    if (cell[i] >= c0 && cell[i] < c1)
                        perm[base + count[cell[i]]++] = i;
    }
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
 * each cell of the 2x2x2 sub-grid of every fluid cell (2x2 in 2D); each particle is
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
        for (int a = 0; a < (w->dims == 2 ? 2 : 3); a++) { /* in 2D z stays 0 */
            double lo = w->domain.lo[a], hi = w->domain.hi[a];
            double centre = lo + (floor((pos[a][i] - lo) / d) + 0.5) * d;
            double r = (double)(flip_rng(&state) >> 11) * 0x1.0p-53 - 0.5;
            double x = centre + prm->jitter * r * d;
            pos[a][i] = (float)fmin(fmax(x, lo + 1e-4 * d), hi - 1e-4 * d);
        }
}

/* The preconditioner of a scene that names none, chosen by measurement
 * (docs/methods/flip.md, section 4): the multigrid V-cycle where its
 * hierarchy has three levels or more and no axis wraps; MIC(0) on a grid
 * too thin for that (a 2-D grid is one cell thick), where a cycle costs
 * more than it saves, and on a periodic one (the cycle does not wrap). */
static int flip_default_precond(const fl_mac_grid *g)
{
    return !g->wrap && fl_mg_level_count(g->nx, g->ny, g->nz) >= 3 ? FL_PRECOND_MG : FL_PRECOND_MIC0;
}

/* The parameters of p into prm (alpha's default alpha_default; dx, which
 * must also tile the domain, is checked when the grid is made): FL_OK, or
 * FL_ERR_INPUT naming the key. */
static int flip_read_params(const fl_world *w, const fl_params *p, double alpha_default, flip_params *prm,
                            fl_error *err)
{
    double pre, warm;
    if (fl_params_check_known(p, flip_keys, err) ||
        fl_params_get(p, "alpha", alpha_default, 0.0, 1.0, &prm->alpha, err) ||
        fl_params_get(p, "dx", 2.0 * w->spacing, 1e-6, 1e3, &prm->dx, err) ||
        fl_params_get(p, "tolerance", 1e-6, 1e-14, 1.0, &prm->tol, err) ||
        fl_params_get_int(p, "max_iterations", 1000, 1, 1000000, &prm->max_iter, err) ||
        fl_params_get(p, "preconditioner", -1.0, FL_PRECOND_MIC0, FL_PRECOND_MG, &pre, err) ||
        fl_params_get(p, "cfl", 1.0, 0.01, 1.0, &prm->cfl, err) ||
        fl_params_get(p, "jitter", 1.0, 0.0, 1.0, &prm->jitter, err) ||
        fl_params_get(p, "seed", 1.0, 0.0, 1e15, &prm->seed, err) ||
        fl_params_get(p, "volume_correction", 0.5, 0.0, 1.0, &prm->volume, err) ||
        fl_params_get(p, "warm_start", 1.0, 0.0, 1.0, &warm, err) ||
        fl_params_get_bool(p, "grid_viscosity", 0, &prm->viscosity, err))
        return FL_ERR_INPUT;
    if (pre != floor(pre))
        return fl_fail(err, FL_ERR_INPUT, "%s.preconditioner: expected 0 (MIC(0)), 1 (Jacobi), 2 (none) or 3 "
                       "(multigrid), got %g", p->source, pre);
    if (warm != 0.0 && warm != 1.0)
        return fl_fail(err, FL_ERR_INPUT, "%s.warm_start: expected 0 or 1, got %g", p->source, warm);
    if (prm->seed != floor(prm->seed))
        return fl_fail(err, FL_ERR_INPUT, "%s.seed: expected a whole number, got %g", p->source, prm->seed);
    prm->precond = (int)pre;
    prm->warm_start = (int)warm;
    return FL_OK;
}

static void *flip_create_alpha(fl_world *w, const fl_params *p, double alpha_default, fl_error *err)
{
    flip_params prm;
    if (flip_read_params(w, p, alpha_default, &prm, err))
        return NULL;
    flip_solver *s = calloc(1, sizeof *s);
    if (!s) {
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the FLIP solver");
        return NULL;
    }
    s->prm = prm;
    /* a given dx must tile the domain; the default (2 d) gives way to the
     * largest size that does (fl_mac_grid_create) */
    int given = 0;
    for (int k = 0; k < p->count; k++)
        given |= strcmp(p->items[k].key, "dx") == 0;
    fl_mac_config cfg = fl_default_mac_config();
    cfg.dx = given ? prm.dx : 0.0;
    if (fl_mac_grid_create(w, &cfg, &s->g, err)) {
        /* the grid's size follows from dx (by default 2 d): name the key */
        char why[FL_ERROR_LEN];
        snprintf(why, sizeof why, "%s", err->msg);
        fl_fail(err, FL_ERR_INPUT, "%.250s.dx%s: %.250s", p->source, given ? "" : " (2 fluid.spacing by default)",
                why);
        flip_destroy(s);
        return NULL;
    }
    fl_mac_grid *g = s->g;
    if (prm.precond < 0)
        prm.precond = s->prm.precond = flip_default_precond(g);
    if (p->taken) { /* what the grid and the solve took: the cell that tiles, the preconditioner chosen */
        fl_error full;
        fl_params_set(p->taken, "dx", g->dx, &full);
        fl_params_set(p->taken, "preconditioner", prm.precond, &full);
    }
    if (g->wrap && prm.precond == FL_PRECOND_MG) {
        fl_fail(err, FL_ERR_INPUT, "%s.preconditioner: multigrid (3) does not support periodic axes; use 0 (MIC(0)), "
                "1 (Jacobi) or 2 (none)", p->source);
        flip_destroy(s);
        return NULL;
    }
    if (g->wrap && w->tool.active) {
        fl_fail(err, FL_ERR_INPUT, "flip: a tool in a periodic scene is not supported (its cells and forces do not "
                "wrap across the periodic faces)");
        flip_destroy(s);
        return NULL;
    }
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
        ok &= (f->work = fl_alloc(((size_t)f->dim[1] * f->dim[2] + 1) * sizeof(long))) != NULL;
    }
    size_t bytes = (size_t)(w->fluid.count > 0 ? w->fluid.count : 1) * sizeof(float);
    float **arrays[] = {&s->ax, &s->ay, &s->az, &s->bx, &s->by, &s->bz, &s->qx, &s->qy, &s->qz};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        ok &= (*arrays[k] = fl_alloc(bytes)) != NULL;
    ok &= (s->history = fl_alloc((size_t)(prm.max_iter + 1) * sizeof(double))) != NULL;
    ok &= (s->count = fl_alloc((size_t)g->ncells * sizeof(int))) != NULL;
    ok &= (s->psi = fl_alloc((size_t)g->ncells * sizeof(double))) != NULL;
    ok &= (s->vrhs = fl_alloc((size_t)g->ncells * sizeof(double))) != NULL;
    if (prm.viscosity)
        ok &= (s->visc_old = fl_alloc((size_t)fl_mac_max_faces(g) * sizeof(double))) != NULL;
    int **band[] = {&s->band_lo, &s->band_hi, &s->band_tlo, &s->band_thi};
    for (size_t k = 0; k < sizeof band / sizeof band[0]; k++)
        ok &= (*band[k] = fl_alloc((size_t)g->ny * g->nz * sizeof(int))) != NULL;
    size_t per_particle = (size_t)(w->fluid.count > 0 ? w->fluid.count : 1) * sizeof(int);
    ok &= (s->sort_cell = fl_alloc(per_particle)) != NULL;
    ok &= (s->sort_perm = fl_alloc(per_particle)) != NULL;
    ok &= (s->cell_start = fl_alloc((size_t)(g->ncells + 1) * sizeof(int))) != NULL;
    ok &= (s->sort_blocks = fl_alloc(2 * FL_PARTICLE_BLOCKS * sizeof(int))) != NULL;
    s->sort_threads = omp_get_max_threads();
    ok &= (s->sort_bounds = fl_alloc((2 * (size_t)s->sort_threads + 1) * sizeof(int))) != NULL;
    ok &= (s->wall = fl_alloc((size_t)g->ncells)) != NULL;
    ok &= (s->solid = fl_alloc((size_t)g->ncells)) != NULL;
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
    s->rest_count = pow(g->dx / w->spacing, w->dims == 2 ? 2.0 : 3.0);
    memcpy(s->wall, g->label, (size_t)g->ncells);
    memcpy(s->solid, g->label, (size_t)g->ncells);
    flip_seed(&prm, w);
    /* no particle seeded inside the tool: its cells placed and labelled,
     * the seeds the jitter put inside its shape pushed out as after a
     * substep */
    const fl_tool_link *tool = flip_tool(w);
    if (tool) {
        if (flip_tool_place(s, tool, err)) {
            flip_destroy(s);
            return NULL;
        }
        flip_label_cells(s, &w->fluid, NULL);
        flip_push_out_all(s, &w->fluid, tool);
    }
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

static int flip_check_params(const fl_world *w, const fl_params *p, fl_error *err)
{
    flip_params prm;
    return flip_read_params(w, p, 0.05, &prm, err);
}

static int flip_step(void *self, fl_world *w, double dt, fl_step_stats *st)
{
    flip_solver *s = self;
    fl_error err;
    double t = 0.0, moved = 0.0;
    int substeps = 0;
    const fl_tool_link *tool = flip_tool(w);
    double t_sort = fl_now_ms();
    flip_sort(s, &w->fluid);
    st->part_ms[FL_PART_SORT] += fl_now_ms() - t_sort;
    if (tool) {
        int rc = flip_tool_place(s, tool, &err);
        if (rc)
            return fl_step_failed(st, &err, rc);
    }
    st->stage_ms[FL_STAGE_OTHER] += fl_now_ms() - t_sort;
    memset(s->force, 0, sizeof s->force);
    memset(s->torque, 0, sizeof s->torque);
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
        if (rc)
            return fl_step_failed(st, &err, rc);
        moved = fmax(moved, m);
        t += h;
        substeps++;
    }
    /* the tool's force and torque: the substeps' mean, weighted by their length */
    for (int a = 0; tool && substeps > 0 && a < 3; a++) {
        w->tool.grid_force[a] = s->force[a] / t;
        w->tool.grid_torque[a] = s->torque[a] / t;
    }
    if (s->prm.volume > 0.0 && substeps > 0) {
        double t0 = fl_now_ms();
        int rc = flip_correct_volume(s, w, st, &err);
        if (rc)
            return rc;
        const double ms = fl_now_ms() - t0;
        st->stage_ms[FL_STAGE_OTHER] += ms;
        st->part_ms[FL_PART_VOLUME] += ms;
    }
    st->substeps = substeps;
    st->max_speed = fl_max_speed(&w->fluid, &st->nan_count);
    st->cfl = moved / s->g->dx;
    st->dt_limit = flip_substep_limit(s, w, st->max_speed);
    return FL_OK;
}

int fl_flip_is(const fl_solver_ops *ops)
{
    return ops->step == flip_step;
}

const fl_mac_grid *fl_flip_grid(void *solver, fl_error *err)
{
    flip_solver *s = solver;
    return fl_mac_grid_keep_divergence(s->g, err) == FL_OK ? s->g : NULL;
}

const fl_mac_grid *fl_flip_system(void *solver, fl_pcg_options *opt, fl_error *err)
{
    flip_solver *s = solver;
    *opt = s->pcg;
    opt->history = NULL;
    opt->history_cap = 0;
    return fl_mac_grid_keep_system(s->g, err) == FL_OK ? s->g : NULL;
}

const fl_solver_ops fl_flip_ops = {
    .name = "flip",
    .summary = "PIC/FLIP on a MAC grid with a PCG pressure solve, multigrid or MIC(0) (Zhu & Bridson 2005), "
               "alpha = 0.05",
    .create = flip_create,
    .step = flip_step,
    .destroy = flip_destroy,
    .param_keys = flip_keys,
    .check_params = flip_check_params,
};

const fl_solver_ops fl_pic_ops = {
    .name = "pic",
    .summary = "the FLIP solver with alpha = 1: pure PIC (Harlow 1964), for the dissipation contrast",
    .create = pic_create,
    .step = flip_step,
    .destroy = flip_destroy,
    .param_keys = flip_keys,
    .check_params = flip_check_params,
};
