/* nbgrid.h: the uniform neighbor grid.
 *
 * Cell size = support radius h. Particles are binned by a counting sort of
 * their indices by cell (Green 2008, "CUDA particles"), then every fluid
 * particle gets CSR lists of its fluid neighbors and of its boundary
 * neighbors within h (itself excluded). Build and search are separate calls
 * so that they can be timed separately, and both are deterministic: the same
 * positions give the same lists in the same order, whatever the thread count.
 *
 * The grid covers the domain plus one cell on every side (where the boundary
 * particles sit). A particle outside it, or with a NaN coordinate, makes
 * fl_nbgrid_build return FL_ERR_OUTSIDE; nothing is written out of bounds.
 *
 * Periodic axes (w->periodic; docs/design.md, "Periodic boundaries"): along
 * one of length L the grid covers exactly the domain, with dim = floor(L/h)
 * cells of size L/dim >= h (cubic cells of size h need not tile the
 * period; these do, and a search of the 3 cells around a particle's still
 * reaches h). The grid refuses L < 2h: then dim >= 2 and at most one image
 * of a neighbor lies within h. A point is binned at its position wrapped
 * into [lo, hi) (a point more than one period beyond a face is outside),
 * and the sorted copies sx, sy, sz hold the wrapped positions. The search
 * takes the cells around a particle's cell modulo dim; a cell reached
 * across a face is searched with the particle's position shifted by -L or
 * +L, so that the distance compared with h is that of the image of the
 * candidate next to the particle: the minimum image, with nothing added
 * per pair. With dim = 2 the one other cell is searched at both its
 * images; only one of them can be within h. The lists are those of a
 * brute-force minimum-image search, in an order fixed by the positions. */
#ifndef FL_NBGRID_H
#define FL_NBGRID_H

#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_nbgrid {
    float lo[3];         /* corner of cell (0,0,0), m */
    float cell;          /* cell size = h, m */
    float radius;        /* search radius = h, m */
    int dim[3];          /* cells per axis (x fastest) */
    int ncells;
    int wraps;           /* some axis is periodic */
    int periodic[3];     /* the axes that wrap */
    float size[3];       /* cell size along each axis: cell, or L/dim along a periodic one, m */
    float hi[3];         /* the domain's far corner along a periodic axis, m */
    float period[3], inv_period[3]; /* L and 1/L along a periodic axis, 0 along the others */

    /* fluid binning, rebuilt by fl_nbgrid_build */
    int n;               /* particles binned */
    int capacity;        /* slots allocated for per-particle arrays */
    int *cell_start;     /* ncells + 1: particles of cell c are sorted[cell_start[c] .. cell_start[c+1]) */
    int *sorted;         /* particle index by sorted slot */
    int *cell_of;        /* cell of each particle */
    int *slot_of;        /* sorted slot of each particle (sorted[slot_of[i]] == i) */
    float *sx, *sy, *sz; /* positions in sorted order */

    /* boundary binning, built by fl_nbgrid_init (and again each step by
     * fl_nbgrid_update_boundary while a tool moves) */
    int bcount;
    int *bcell;          /* cell of each boundary particle */
    int *bcell_start;
    int *bsorted;
    float *bx, *by, *bz;

    /* CSR neighbor lists of particle i (by particle index), valid until the next search */
    int *nb_start;       /* n + 1 */
    int *nb;             /* fluid neighbor indices */
    int *bnb_start;      /* n + 1 */
    int *bnb;            /* boundary neighbor indices */
    long long nb_capacity, bnb_capacity;

    /* per-thread scratch of the search */
    int nthreads;
    struct fl_nb_scratch *scratch;
    double collapse;     /* neighbors a particle may have on average before the search calls the particles
                            collapsed (FL_NB_COLLAPSE times a particle's at rest; 0: no limit) */
} fl_nbgrid;

/* The cell of a point in a grid with corner lo, cell size `cell` and dim
 * cells per axis (x fastest), or -1 when the point is outside the grid or
 * not finite. The one binning rule: the CPU grid and the device grid
 * (solvers/dev_bodies.h) both use it. */
static inline FL_HD int fl_cell_index(const float lo[3], float cell, const int dim[3], float x, float y, float z)
{
    float fx = (x - lo[0]) / cell, fy = (y - lo[1]) / cell, fz = (z - lo[2]) / cell;
    /* written so that NaN fails every comparison */
    if (!(fx >= 0.0f && fy >= 0.0f && fz >= 0.0f && fx < (float)dim[0] && fy < (float)dim[1] && fz < (float)dim[2]))
        return -1;
    return ((int)fz * dim[1] + (int)fy) * dim[0] + (int)fx;
}

/* Counting sort of n points by cell (cell_of[i] in 0 .. ncells - 1): the
 * cell start table start (ncells + 1 entries) and the order (n entries,
 * each cell's points ascending). */
void fl_counting_sort(const int *cell_of, int n, int ncells, int *start, int *order);

/* Sets up the grid for the world's domain, support radius and periodic
 * axes (FL_ERR_INPUT for a periodic axis shorter than 2h) and bins the
 * world's boundary particles. */
int fl_nbgrid_init(fl_nbgrid *g, const fl_world *w, fl_error *err);

/* Bins the boundary particles again where a tool moves them (nothing to do
 * while w->tool is not active). */
int fl_nbgrid_update_boundary(fl_nbgrid *g, const fl_world *w, fl_error *err);

/* Bins n particles at (x, y, z). Returns FL_ERR_OUTSIDE (with the count and
 * the first offending particle in err) when any lies outside the grid. */
int fl_nbgrid_build(fl_nbgrid *g, const float *x, const float *y, const float *z, int n,
                    fl_error *err);

/* Fills the CSR fluid and boundary neighbor lists of the particles binned by
 * the last build (the same x, y, z must be passed). */
int fl_nbgrid_search(fl_nbgrid *g, const float *x, const float *y, const float *z,
                     fl_error *err);

/* The cell-sorted order of the last build (for fl_particles_permute). */
static inline const int *fl_nbgrid_order(const fl_nbgrid *g) { return g->sorted; }

void fl_nbgrid_free(fl_nbgrid *g);

/* V_b = 1 / sum_k W_poly6(x_b - x_k) over the boundary neighbors k of b,
 * itself included (Akinci et al. 2012, eq. 4 with m_b cancelled), at the
 * minimum image along periodic axes. */
int fl_boundary_compute_volumes(fl_world *w, fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
