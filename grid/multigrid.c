/* multigrid.c: the V-cycle of multigrid.h. Every level stores whole-grid
 * arrays (x the correction, b the right-hand side, t a residual) that are
 * read as 0 off its FLUID cells, and visits only its rows that hold FLUID
 * cells, each from its first FLUID cell to its last (a splash fills a few
 * per cent of the grid); each stage is an OpenMP loop over those rows. */
#include "multigrid.h"

#include <stdlib.h>
#include <string.h>

#include "pcg.h"

#define MG_MAX_LEVELS 16
/* Gauss-Seidel sweeps before and after the coarse correction, and (each
 * way) on the coarsest level */
#define MG_SWEEPS 2
#define MG_COARSEST_SWEEPS 20
/* extra Gauss-Seidel sweeps over the cells along the free surface and the
 * walls, where the coarse levels see the boundary worst (McAdams et al.'s
 * boundary smoothing) */
#define MG_BAND_SWEEPS 4
/* a level with fewer rows holding FLUID runs its loops on one thread: the
 * threads' start would cost more than the work */
#define MG_PARALLEL_ROWS 64

typedef struct mg_level {
    int n[3];
    long sx, sxy, ncells;
    const unsigned char *label; /* the finest level's is the caller's */
    unsigned char *own_label;
    double *x, *b, *t;          /* the finest level's x and b are the caller's z and r */
    double *idiag;              /* 1 / A's diagonal on the FLUID cells, 0 elsewhere in the rows */
    long *row_c0;               /* the rows holding FLUID: first FLUID cell */
    int *row_len;               /* and the cells to the last one */
    long nrows;
    long *band;                 /* the FLUID cells beside a non-FLUID one (of the 26): the red ones
                                 * ((i + j + k) even) first, then the black, each in cell order */
    long nband, nred;
} mg_level;

struct fl_mg {
    int nlevels;
    mg_level lv[MG_MAX_LEVELS];
};

static long cell(const mg_level *l, int i, int j, int k)
{
    return i + l->sx * j + l->sxy * k;
}

static void level_dims(mg_level *l, int nx, int ny, int nz)
{
    l->n[0] = nx, l->n[1] = ny, l->n[2] = nz;
    l->sx = nx, l->sxy = (long)nx * ny, l->ncells = (long)nx * ny * nz;
}

/* Level l's arrays (the finest level's x, b and labels are the caller's),
 * or 0 without memory. */
static int level_alloc(mg_level *l, int finest)
{
    const size_t bytes = (size_t)l->ncells * sizeof(double), rows = (size_t)l->n[1] * l->n[2];
    int ok = (l->t = fl_alloc(bytes)) != NULL && (l->idiag = fl_alloc(bytes)) != NULL &&
             (l->row_c0 = malloc(rows * sizeof(long))) != NULL && (l->row_len = malloc(rows * sizeof(int))) != NULL &&
             (l->band = malloc((size_t)l->ncells * sizeof(long))) != NULL;
    if (ok && !finest)
        ok = (l->own_label = malloc((size_t)l->ncells)) != NULL && (l->x = fl_alloc(bytes)) != NULL &&
             (l->b = fl_alloc(bytes)) != NULL;
    if (ok) {
        memset(l->t, 0, bytes), memset(l->idiag, 0, bytes);
        if (!finest)
            memset(l->x, 0, bytes), memset(l->b, 0, bytes), l->label = l->own_label;
    }
    return ok;
}

int fl_mg_create(int nx, int ny, int nz, fl_mg **out, fl_error *err)
{
    *out = NULL;
    if (nx < 3 || ny < 3 || nz < 3)
        return fl_fail(err, FL_ERR_INPUT, "multigrid: grid %dx%dx%d has no interior cell", nx, ny, nz);
    fl_mg *m = calloc(1, sizeof *m);
    if (!m)
        return fl_fail(err, FL_ERR_MEMORY, "multigrid: out of memory");
    level_dims(&m->lv[0], nx, ny, nz);
    m->nlevels = 1;
    int ok = level_alloc(&m->lv[0], 1);
    /* coarsen while every interior axis has at least 4 cells */
    while (ok && m->nlevels < MG_MAX_LEVELS) {
        const mg_level *f = &m->lv[m->nlevels - 1];
        if (f->n[0] - 2 < 4 || f->n[1] - 2 < 4 || f->n[2] - 2 < 4)
            break;
        mg_level *c = &m->lv[m->nlevels++];
        level_dims(c, (f->n[0] - 1) / 2 + 2, (f->n[1] - 1) / 2 + 2, (f->n[2] - 1) / 2 + 2);
        ok = level_alloc(c, 0);
    }
    if (!ok) {
        fl_mg_destroy(&m);
        return fl_fail(err, FL_ERR_MEMORY, "multigrid: out of memory for a %dx%dx%d grid", nx, ny, nz);
    }
    *out = m;
    return FL_OK;
}

void fl_mg_destroy(fl_mg **mp)
{
    fl_mg *m = *mp;
    if (!m)
        return;
    for (int l = 0; l < m->nlevels; l++) {
        mg_level *v = &m->lv[l];
        free(v->own_label);
        free(v->row_c0);
        free(v->row_len);
        free(v->band);
        fl_free(v->t);
        fl_free(v->idiag);
        if (l > 0)
            fl_free(v->x), fl_free(v->b);
    }
    free(m);
    *mp = NULL;
}

int fl_mg_levels(const fl_mg *m)
{
    return m->nlevels;
}

/* The fine cells [*lo, *hi] under coarse index I of an axis of nc coarse
 * and nf fine cells: the outer layers cover each other, interior I the
 * fine interior cells 2I - 1 and 2I. */
static void cover(int I, int nc, int nf, int *lo, int *hi)
{
    if (I == 0)
        *lo = *hi = 0;
    else if (I == nc - 1)
        *lo = *hi = nf - 1;
    else {
        *lo = 2 * I - 1;
        *hi = 2 * I < nf - 2 ? 2 * I : nf - 2;
    }
}

/* The label of coarse cell (I, J, K) of c from the fine cells it covers
 * in f: AIR over FLUID over SOLID, so that a free surface (AIR on the
 * grid's outer layer too) stays a free surface on every level. */
static unsigned char coarse_label(const mg_level *f, const mg_level *c, int I, int J, int K)
{
    int lo[3], hi[3], fluid = 0;
    cover(I, c->n[0], f->n[0], &lo[0], &hi[0]);
    cover(J, c->n[1], f->n[1], &lo[1], &hi[1]);
    cover(K, c->n[2], f->n[2], &lo[2], &hi[2]);
    for (int k = lo[2]; k <= hi[2]; k++)
        for (int j = lo[1]; j <= hi[1]; j++)
            for (int i = lo[0]; i <= hi[0]; i++) {
                unsigned char q = f->label[cell(f, i, j, k)];
                if (q == FL_CELL_AIR)
                    return FL_CELL_AIR;
                fluid |= q == FL_CELL_FLUID;
            }
    return fluid ? FL_CELL_FLUID : FL_CELL_SOLID;
}

/* l's rows holding FLUID (in cell order) and idiag on them. */
static void level_rows(mg_level *l)
{
    const unsigned char *label = l->label;
    l->nrows = 0;
    for (int k = 1; k < l->n[2] - 1; k++)
        for (int j = 1; j < l->n[1] - 1; j++) {
            const long row = cell(l, 0, j, k);
            int a = -1, z = -1;
            for (int i = 1; i < l->n[0] - 1; i++)
                if (label[row + i] == FL_CELL_FLUID)
                    z = i, a = a < 0 ? i : a;
            if (a >= 0) {
                l->row_c0[l->nrows] = row + a;
                l->row_len[l->nrows++] = z - a + 1;
            }
        }
#pragma omp parallel for schedule(static)
    for (long r = 0; r < l->nrows; r++)
        for (long c = l->row_c0[r], e = c + l->row_len[r]; c < e; c++)
            l->idiag[c] = label[c] == FL_CELL_FLUID ? 1.0 / fl_poisson_diag(label, c, l->sx, l->sxy) : 0.0;
    /* the band, red cells first: two passes over the rows */
    l->nband = 0;
    for (int colour = 0; colour < 2; colour++) {
        for (long r = 0; r < l->nrows; r++)
            for (long c = l->row_c0[r], e = c + l->row_len[r]; c < e; c++) {
                const long i = c % l->sx, j = (c / l->sx) % l->n[1], k = c / l->sxy;
                if (label[c] != FL_CELL_FLUID || ((i + j + k) & 1) != colour)
                    continue;
                int edge = 0;
                for (int dk = -1; dk <= 1 && !edge; dk++)
                    for (int dj = -1; dj <= 1 && !edge; dj++)
                        for (int di = -1; di <= 1 && !edge; di++)
                            edge = label[c + di + l->sx * dj + l->sxy * dk] != FL_CELL_FLUID;
                if (edge)
                    l->band[l->nband++] = c;
            }
        if (colour == 0)
            l->nred = l->nband;
    }
}

void fl_mg_setup(fl_mg *m, const unsigned char *label)
{
    m->lv[0].label = label;
    level_rows(&m->lv[0]);
    for (int l = 1; l < m->nlevels; l++) {
        const mg_level *f = &m->lv[l - 1];
        mg_level *c = &m->lv[l];
#pragma omp parallel for schedule(static)
        for (int K = 0; K < c->n[2]; K++)
            for (int J = 0; J < c->n[1]; J++)
                for (int I = 0; I < c->n[0]; I++)
                    c->own_label[cell(c, I, J, K)] = coarse_label(f, c, I, J, K);
        /* x is read as 0 off the FLUID cells: none of the last labels' values may stay */
        memset(c->x, 0, (size_t)c->ncells * sizeof(double));
        level_rows(c);
    }
}

/* x = 0 on l's rows. */
static void clear(const mg_level *l, double *x)
{
#pragma omp parallel for schedule(static) if (l->nrows > MG_PARALLEL_ROWS)
    for (long r = 0; r < l->nrows; r++)
        memset(x + l->row_c0[r], 0, (size_t)l->row_len[r] * sizeof(double));
}

/* t = b - A x on l's FLUID cells, 0 on the other cells of its rows. */
static void residual(const mg_level *l, const double *x, const double *b, double *t)
{
    const double *idiag = l->idiag;
    const long sx = l->sx, sxy = l->sxy;
#pragma omp parallel for schedule(static) if (l->nrows > MG_PARALLEL_ROWS)
    for (long r = 0; r < l->nrows; r++)
        for (long c = l->row_c0[r], e = c + l->row_len[r]; c < e; c++)
            t[c] = idiag[c] != 0.0 ? b[c] - x[c] / idiag[c] +
                                         (x[c - 1] + x[c + 1] + x[c - sx] + x[c + sx] + x[c - sxy] + x[c + sxy])
                                   : 0.0;
}

/* One Gauss-Seidel half sweep over l's FLUID cells of colour (i + j + k)
 * % 2 == colour: x_c = (b_c + sum of the six neighbours' x) / diag_c. The
 * cells of one colour have neighbours of the other only: a parallel loop. */
static void relax_colour(const mg_level *l, double *x, const double *b, int colour)
{
    const double *idiag = l->idiag;
    const long sx = l->sx, sxy = l->sxy;
#pragma omp parallel for schedule(static) if (l->nrows > MG_PARALLEL_ROWS)
    for (long r = 0; r < l->nrows; r++) {
        const long c0 = l->row_c0[r];
        /* the parity of i + j + k of cell c0: c = i + sx j + sxy k */
        const long i = c0 % sx, j = (c0 / sx) % l->n[1], k = c0 / sxy;
        for (long c = c0 + ((i + j + k + colour) & 1), e = c0 + l->row_len[r]; c < e; c += 2)
            if (idiag[c] != 0.0)
                x[c] = idiag[c] * (b[c] + x[c - 1] + x[c + 1] + x[c - sx] + x[c + sx] + x[c - sxy] + x[c + sxy]);
    }
}

/* Gauss-Seidel over the cells of l's band of one colour: neighbours of
 * the other only, so a parallel loop. */
static void relax_band(const mg_level *l, double *x, const double *b, int colour)
{
    const long sx = l->sx, sxy = l->sxy, q0 = colour ? l->nred : 0, q1 = colour ? l->nband : l->nred;
#pragma omp parallel for schedule(static) if (q1 - q0 > MG_PARALLEL_ROWS * 16)
    for (long q = q0; q < q1; q++) {
        const long c = l->band[q];
        x[c] = l->idiag[c] * (b[c] + x[c - 1] + x[c + 1] + x[c - sx] + x[c + sx] + x[c - sxy] + x[c + sxy]);
    }
}

/* sweeps of red-black Gauss-Seidel on l, red first, then the band's (red
 * first too); or with reverse, the band's black first, then black first:
 * the smoothing after the coarse correction is the one before it run
 * backwards, which keeps the cycle symmetric. */
static void smooth(const mg_level *l, double *x, const double *b, int sweeps, int reverse)
{
    for (int s = 0; s < MG_BAND_SWEEPS && reverse; s++) {
        relax_band(l, x, b, 1);
        relax_band(l, x, b, 0);
    }
    for (int s = 0; s < sweeps; s++) {
        relax_colour(l, x, b, reverse);
        relax_colour(l, x, b, !reverse);
    }
    for (int s = 0; s < MG_BAND_SWEEPS && !reverse; s++) {
        relax_band(l, x, b, 0);
        relax_band(l, x, b, 1);
    }
}

/* The 1-D trilinear weight of fine index i for coarse index I: 3/4 for
 * its own parent's children, 1/4 for the neighbours' nearest child. */
static double weight(int i, int I)
{
    const int d = i - (2 * I - 1); /* 0, 1: I's children; -1, 2: the neighbours' */
    return d == 0 || d == 1 ? 0.75 : d == -1 || d == 2 ? 0.25 : 0.0;
}

/* c->b = P^T t / 2 on c's FLUID cells, from the fine residual t on f's
 * FLUID cells: each coarse cell gathers the 4 x 4 x 4 fine cells whose
 * interpolation it takes part in. */
static void restrict_to(const mg_level *f, const double *t, const mg_level *c)
{
#pragma omp parallel for schedule(static) if (c->nrows > MG_PARALLEL_ROWS)
    for (long r = 0; r < c->nrows; r++) {
        const long C0 = c->row_c0[r];
        const int J = (int)((C0 / c->sx) % c->n[1]), K = (int)(C0 / c->sxy);
        for (long C = C0, e = C0 + c->row_len[r]; C < e; C++) {
            if (c->idiag[C] == 0.0)
                continue;
            const int I = (int)(C % c->sx);
            double sum = 0.0;
            for (int k = 2 * K - 2; k <= 2 * K + 1 && k < f->n[2]; k++)
                for (int j = 2 * J - 2; j <= 2 * J + 1 && j < f->n[1]; j++) {
                    const double wjk = weight(k, K) * weight(j, J);
                    for (int i = 2 * I - 2; i <= 2 * I + 1 && i < f->n[0]; i++) {
                        const long q = cell(f, i, j, k);
                        if (f->label[q] == FL_CELL_FLUID)
                            sum += wjk * weight(i, I) * t[q];
                    }
                }
            c->b[C] = 0.5 * sum;
        }
    }
}

/* The coarse index of fine index i's other trilinear neighbour (its
 * parent is (i - 1) / 2 + 1). */
static int other_parent(int i)
{
    const int I = (i - 1) / 2 + 1;
    return (i - 1) % 2 == 0 ? I - 1 : I + 1;
}

/* x += P c->x on f's FLUID cells (c->x is 0 off c's FLUID cells). */
static void prolong_add(const mg_level *c, const mg_level *f, double *x)
{
    static const double w[2] = {0.75, 0.25};
#pragma omp parallel for schedule(static) if (f->nrows > MG_PARALLEL_ROWS)
    for (long r = 0; r < f->nrows; r++) {
        const long q0 = f->row_c0[r];
        const int j = (int)((q0 / f->sx) % f->n[1]), k = (int)(q0 / f->sxy);
        const int J[2] = {(j - 1) / 2 + 1, other_parent(j)}, K[2] = {(k - 1) / 2 + 1, other_parent(k)};
        for (long q = q0, e = q0 + f->row_len[r]; q < e; q++) {
            if (f->idiag[q] == 0.0)
                continue;
            const int i = (int)(q % f->sx), I[2] = {(i - 1) / 2 + 1, other_parent(i)};
            double sum = 0.0;
            for (int a = 0; a < 2; a++)
                for (int b = 0; b < 2; b++)
                    for (int d = 0; d < 2; d++)
                        sum += w[a] * w[b] * w[d] * c->x[cell(c, I[d], J[b], K[a])];
            x[q] += sum;
        }
    }
}

/* x = V(b) on level l (x and b: l's arrays, or the caller's on level 0). */
static void vcycle(fl_mg *m, int l, double *x, const double *b)
{
    const mg_level *L = &m->lv[l];
    clear(L, x);
    if (l == m->nlevels - 1) {
        smooth(L, x, b, MG_COARSEST_SWEEPS, 0);
        smooth(L, x, b, MG_COARSEST_SWEEPS, 1);
        return;
    }
    mg_level *C = &m->lv[l + 1];
    smooth(L, x, b, MG_SWEEPS, 0);
    residual(L, x, b, L->t);
    restrict_to(L, L->t, C);
    vcycle(m, l + 1, C->x, C->b);
    prolong_add(C, L, x);
    smooth(L, x, b, MG_SWEEPS, 1);
}

void fl_mg_apply(fl_mg *m, const double *r, double *z)
{
    vcycle(m, 0, z, r);
}
