/* multigrid.c: the V-cycle of multigrid.h. Every level stores whole-grid
 * arrays (x the correction, b the right-hand side, t a residual), x and t
 * 0 off its FLUID cells, and visits only its rows that hold FLUID cells,
 * each from its first FLUID cell to its last (a splash fills a few per
 * cent of the grid). A V-cycle runs in one parallel region: the threads
 * share each stage's rows and meet at a barrier between stages, and the
 * levels too small to share run on one thread. */
#include "multigrid.h"

#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "pcg.h"

/* the cycle's arithmetic: single precision, half the memory traffic of
 * doubles. Conjugate gradient itself stays in double; the iteration
 * counts and the solution to 1e-10 are those of a double cycle
 * (docs/methods/flip.md, section 4). */
typedef float mg_real;

#define MG_MAX_LEVELS 16
/* Gauss-Seidel sweeps before and after the coarse correction, and (each
 * way) on the coarsest level */
#define MG_SWEEPS 2
#define MG_COARSEST_SWEEPS 20
/* extra Gauss-Seidel sweeps over the cells along the free surface and the
 * walls, where the coarse levels see the boundary worst (McAdams et al.'s
 * boundary smoothing) */
#define MG_BAND_SWEEPS 4
/* a level with fewer rows holding FLUID runs on one thread: sharing it
 * would cost more in barriers than its work */
#define MG_PARALLEL_ROWS 200
/* the coarse cells of a row that a transfer forms at a time, in vector
 * loops over an array of this length on the stack */
#define MG_STRIP 64

typedef struct mg_level {
    int n[3];
    long sx, sxy, ncells;
    const unsigned char *label; /* the finest level's is the caller's */
    unsigned char *own_label;
    mg_real *x, *b, *t;         /* the correction, the right-hand side and a residual */
    mg_real *idiag;             /* 1 / A's diagonal on the FLUID cells, 0 elsewhere in the rows */
    long *row_c0;               /* the rows holding FLUID: first FLUID cell */
    int *row_len;               /* and the cells to the last one */
    long nrows;
    long *row_cum;              /* the cells of the rows before each row (nrows + 1 entries) */
    int *row_ijk;               /* the grid coordinates of each row's first cell, 3 a row */
    int *span;                  /* per row of the grid (j + ny k): its first and last FLUID i, or -1 */
    unsigned char *edge;        /* per cell of the rows: 1 on a FLUID cell beside a non-FLUID one (of the 26) */
    int *band;                  /* the band: the FLUID cells beside a non-FLUID one (of the 26), those of
                                 * colour 0 (i + j + k even) first, then those of colour 1, each in cell order */
    long nband[2];              /* the band's cells of colour 0, and of both */
    long *row_band[2];          /* per row holding FLUID: where its band cells of colour 0, and 1, start in
                                 * band (nrows + 1 entries each) */
    double *row_dot;            /* per row holding FLUID: its part of z.r (the finest level's) */
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

/* Level l's arrays (the finest level's labels are the caller's), or 0
 * without memory. */
static int level_alloc(mg_level *l, int finest)
{
    const size_t bytes = (size_t)l->ncells * sizeof(mg_real), rows = (size_t)l->n[1] * l->n[2];
    int ok = (l->t = fl_alloc(bytes)) != NULL && (l->idiag = fl_alloc(bytes)) != NULL &&
             (l->row_c0 = malloc(rows * sizeof(long))) != NULL && (l->row_len = malloc(rows * sizeof(int))) != NULL &&
             (l->span = malloc(2 * rows * sizeof(int))) != NULL &&
             (l->row_cum = malloc((rows + 1) * sizeof(long))) != NULL &&
             (l->row_ijk = malloc(3 * rows * sizeof(int))) != NULL &&
             (l->row_band[0] = malloc((rows + 1) * sizeof(long))) != NULL &&
             (l->row_band[1] = malloc((rows + 1) * sizeof(long))) != NULL &&
             (l->row_dot = malloc(rows * sizeof(double))) != NULL &&
             (l->edge = malloc((size_t)l->ncells)) != NULL &&
             (l->band = malloc((size_t)l->ncells * sizeof(int))) != NULL;
    ok = ok && (l->x = fl_alloc(bytes)) != NULL && (l->b = fl_alloc(bytes)) != NULL;
    if (ok && !finest)
        ok = (l->own_label = malloc((size_t)l->ncells)) != NULL;
    if (ok) {
        memset(l->t, 0, bytes), memset(l->idiag, 0, bytes), memset(l->x, 0, bytes), memset(l->b, 0, bytes);
        if (!finest)
            l->label = l->own_label;
    }
    return ok;
}

/* The cells of a coarse axis over a fine one of n (the outer layers
 * included): half the interior, rounded up. */
static int coarse_size(int n)
{
    return (n - 1) / 2 + 2;
}

int fl_mg_level_count(int nx, int ny, int nz)
{
    int levels = 1;
    /* coarsen while every interior axis has at least 4 cells */
    while (levels < MG_MAX_LEVELS && nx - 2 >= 4 && ny - 2 >= 4 && nz - 2 >= 4) {
        nx = coarse_size(nx), ny = coarse_size(ny), nz = coarse_size(nz);
        levels++;
    }
    return levels;
}

int fl_mg_create(int nx, int ny, int nz, fl_mg **out, fl_error *err)
{
    *out = NULL;
    if (nx < 3 || ny < 3 || nz < 3)
        return fl_fail(err, FL_ERR_INPUT, "multigrid: grid %dx%dx%d has no interior cell", nx, ny, nz);
    if ((double)nx * ny * nz > INT_MAX)
        return fl_fail(err, FL_ERR_INPUT, "multigrid: grid %dx%dx%d has more than %d cells", nx, ny, nz, INT_MAX);
    fl_mg *m = calloc(1, sizeof *m);
    if (!m)
        return fl_fail(err, FL_ERR_MEMORY, "multigrid: out of memory");
    level_dims(&m->lv[0], nx, ny, nz);
    m->nlevels = 1;
    int ok = level_alloc(&m->lv[0], 1);
    for (const int levels = fl_mg_level_count(nx, ny, nz); ok && m->nlevels < levels;) {
        const mg_level *f = &m->lv[m->nlevels - 1];
        mg_level *c = &m->lv[m->nlevels++];
        level_dims(c, coarse_size(f->n[0]), coarse_size(f->n[1]), coarse_size(f->n[2]));
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
        free(v->span);
        free(v->row_cum);
        free(v->row_ijk);
        free(v->row_band[0]);
        free(v->row_band[1]);
        free(v->row_dot);
        free(v->edge);
        free(v->band);
        fl_free(v->t);
        fl_free(v->idiag);
        fl_free(v->x);
        fl_free(v->b);
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

/* The label of a coarse cell from the numbers of AIR and FLUID cells
 * among the fine cells it covers: FLUID when more than two thirds of its
 * non-SOLID ones are FLUID, else AIR when any is AIR, else SOLID. So the
 * coarse free surface lies near the fine one rather than up to a coarse
 * cell inside it, and the grid's outer layer, which holds no FLUID, stays
 * AIR or SOLID (docs/methods/flip.md, section 4). */
static unsigned char coarse_of(int air, int fluid)
{
    return fluid > 2 * air ? FL_CELL_FLUID : air ? FL_CELL_AIR : FL_CELL_SOLID;
}

/* The labels of coarse row (J, K) of c from the fine cells they cover in
 * f (cover: at most 2 x 2 x 2 of them), counted. */
static void coarse_row_labels(const mg_level *f, mg_level *c, int J, int K)
{
    int jlo, jhi, klo, khi;
    cover(J, c->n[1], f->n[1], &jlo, &jhi);
    cover(K, c->n[2], f->n[2], &klo, &khi);
    const unsigned char *row[4] = {f->label + cell(f, 0, jlo, klo), f->label + cell(f, 0, jhi, klo),
                                   f->label + cell(f, 0, jlo, khi), f->label + cell(f, 0, jhi, khi)};
    unsigned char *out = c->own_label + cell(c, 0, J, K);
    const int nc = c->n[0], nf = f->n[0];
    for (int I = 0; I < nc; I += nc - 1) {
        int ilo, ihi, air = 0, fluid = 0;
        cover(I, nc, nf, &ilo, &ihi);
        for (int q = 0; q < 4; q++)
            for (int i = ilo; i <= ihi; i++)
                air += row[q][i] == FL_CELL_AIR, fluid += row[q][i] == FL_CELL_FLUID;
        out[I] = coarse_of(air, fluid);
    }
    /* the interior: fine cells 2I - 1 and 2I, one vector loop up to the
     * last I whose 2I is interior (an odd fine axis's last coarse cell
     * covers one fine cell, done after) */
    const int last = (nf - 2) / 2 < nc - 2 ? (nf - 2) / 2 : nc - 2;
    for (int I = 1; I <= last; I++) {
        int air = 0, fluid = 0;
        for (int q = 0; q < 4; q++) {
            air += (row[q][2 * I - 1] == FL_CELL_AIR) + (row[q][2 * I] == FL_CELL_AIR);
            fluid += (row[q][2 * I - 1] == FL_CELL_FLUID) + (row[q][2 * I] == FL_CELL_FLUID);
        }
        out[I] = coarse_of(air, fluid);
    }
    for (int I = last + 1; I < nc - 1; I++) {
        int air = 0, fluid = 0;
        for (int q = 0; q < 4; q++)
            air += row[q][nf - 2] == FL_CELL_AIR, fluid += row[q][nf - 2] == FL_CELL_FLUID;
        out[I] = coarse_of(air, fluid);
    }
}

/* On the cells of row (j, k) in [i0, i1]: edge 1 on a FLUID cell any of
 * whose 26 neighbours is not FLUID (FL_CELL_FLUID is 0: the OR of the 27
 * labels is not 0), else 0; idiag 1 / A's diagonal on a FLUID cell, else 0
 * (as 1 / d or 0 / 1, by arithmetic on the FLUID flag f, so that the
 * conversion and the division are no branch's). Vector loops. */
static void row_edges_idiag(const mg_level *l, int j, int k, int i0, int i1)
{
    const long row = cell(l, 0, j, k), sx = l->sx, sxy = l->sxy;
    const unsigned char *lab = l->label + row, *n[9];
    for (int dk = -1, q = 0; dk <= 1; dk++)
        for (int dj = -1; dj <= 1; dj++)
            n[q++] = lab + sx * dj + sxy * dk;
    unsigned char *edge = l->edge + row;
    for (int i = i0; i <= i1; i++) {
        unsigned char o = 0;
        for (int q = 0; q < 9; q++)
            o |= n[q][i - 1] | n[q][i] | n[q][i + 1];
        edge[i] = o != 0 && lab[i] == FL_CELL_FLUID;
    }
    mg_real *idiag = l->idiag + row;
    for (int i = i0; i <= i1; i++) {
        const int fluid = lab[i] == FL_CELL_FLUID;
        const int d = fl_poisson_diag(lab, i, sx, sxy);
        const mg_real f = (mg_real)fluid;
        idiag[i] = f / ((mg_real)d * f + (1.0f - f));
    }
}

/* The parity of i + j + k of row r's first cell. */
static int row_parity(const mg_level *l, long r)
{
    const int *ijk = l->row_ijk + 3 * r;
    return (ijk[0] + ijk[1] + ijk[2]) & 1;
}

/* The band's cells of colour 0 and 1 (edge set) in row r: counted into
 * n, or with out set, written from out[0] and out[1] on. */
static void row_band_cells(const mg_level *l, long r, long n[2], int *const out[2])
{
    const long c0 = l->row_c0[r];
    const int odd = row_parity(l, r);
    long k[2] = {0, 0};
    for (long c = c0, e = c0 + l->row_len[r]; c < e; c++)
        if (l->edge[c]) {
            const int colour = (int)((c - c0 + odd) & 1);
            if (out)
                out[colour][k[colour]] = (int)c;
            k[colour]++;
        }
    if (n)
        n[0] = k[0], n[1] = k[1];
}

/* l's rows holding FLUID (in cell order), idiag on them, and the band,
 * after x and t are cleared on the last labels' rows, so that both are 0
 * off the new FLUID cells. */
static void level_rows(mg_level *l)
{
    const unsigned char *label = l->label;
    const int nx = l->n[0], ny = l->n[1], nrow_all = l->n[1] * l->n[2];
#pragma omp parallel for schedule(static)
    for (long r = 0; r < l->nrows; r++) {
        memset(l->t + l->row_c0[r], 0, (size_t)l->row_len[r] * sizeof(mg_real));
        memset(l->x + l->row_c0[r], 0, (size_t)l->row_len[r] * sizeof(mg_real));
    }
#pragma omp parallel for schedule(static)
    for (int q = 0; q < nrow_all; q++) {
        const int j = q % ny, k = q / ny;
        int a = 1, z = 0; /* none */
        if (j > 0 && j < ny - 1 && k > 0 && k < l->n[2] - 1)
            fl_fluid_span(label + cell(l, 0, j, k), 1, nx - 1, &a, &z);
        l->span[2 * q] = z < a ? -1 : a, l->span[2 * q + 1] = z < a ? -1 : z;
    }
    l->nrows = 0;
    l->row_cum[0] = 0;
    for (int q = 0; q < nrow_all; q++)
        if (l->span[2 * q] >= 0) {
            l->row_c0[l->nrows] = cell(l, l->span[2 * q], q % ny, q / ny);
            l->row_len[l->nrows] = l->span[2 * q + 1] - l->span[2 * q] + 1;
            l->row_ijk[3 * l->nrows] = l->span[2 * q], l->row_ijk[3 * l->nrows + 1] = q % ny;
            l->row_ijk[3 * l->nrows + 2] = q / ny;
            l->row_cum[l->nrows + 1] = l->row_cum[l->nrows] + l->row_len[l->nrows];
            l->nrows++;
        }
    /* idiag and the edges, then the band's cells counted per row and
     * colour, and placed */
    long *at[2] = {l->row_band[0], l->row_band[1]};
#pragma omp parallel for schedule(static)
    for (long r = 0; r < l->nrows; r++) {
        const int *ijk = l->row_ijk + 3 * r;
        row_edges_idiag(l, ijk[1], ijk[2], ijk[0], ijk[0] + l->row_len[r] - 1);
        long n[2];
        row_band_cells(l, r, n, NULL);
        at[0][r + 1] = n[0], at[1][r + 1] = n[1];
    }
    at[0][0] = 0;
    for (long r = 0; r < l->nrows; r++)
        at[0][r + 1] += at[0][r];
    at[1][0] = at[0][l->nrows];
    for (long r = 0; r < l->nrows; r++)
        at[1][r + 1] += at[1][r];
    l->nband[0] = at[1][0], l->nband[1] = at[1][l->nrows];
#pragma omp parallel for schedule(static)
    for (long r = 0; r < l->nrows; r++) {
        int *const out[2] = {l->band + at[0][r], l->band + at[1][r]};
        row_band_cells(l, r, NULL, out);
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
        for (int q = 0; q < c->n[1] * c->n[2]; q++)
            coarse_row_labels(f, c, q % c->n[1], q / c->n[1]);
        level_rows(c);
    }
}

/* The share [*r0, *r1) of n items of the calling thread: all of them on
 * one thread (team 0), else a contiguous part per thread of the team. */
static void share(long n, int team, long *r0, long *r1)
{
    const long t = team ? omp_get_thread_num() : 0, nt = team ? omp_get_num_threads() : 1;
    *r0 = n * t / nt, *r1 = n * (t + 1) / nt;
}

/* The same for l's rows, cut where the cells they hold are shared evenly
 * (the rows' lengths differ): the first row whose cells start at or past
 * the thread's share of them. */
static void share_rows(const mg_level *l, int team, long *r0, long *r1)
{
    long bound[2];
    share(l->row_cum[l->nrows], team, &bound[0], &bound[1]);
    for (int e = 0; e < 2; e++) {
        long lo = 0, hi = l->nrows;
        while (lo < hi) {
            const long mid = (lo + hi) / 2;
            if (l->row_cum[mid] < bound[e])
                lo = mid + 1;
            else
                hi = mid;
        }
        *(e ? r1 : r0) = lo;
    }
}

/* The team waits for all of its threads (each stage reads what the
 * others wrote in the last); one thread alone goes on. */
static void sync(int team)
{
    if (team) {
#pragma omp barrier
    }
}

/* a plus the six neighbours' x at cell c (their sum is the off-diagonal
 * part of A x, negated), added in this order. */
static inline mg_real plus_neighbours(mg_real a, const mg_real *x, long c, long sx, long sxy)
{
    return a + x[c - 1] + x[c + 1] + x[c - sx] + x[c + sx] + x[c - sxy] + x[c + sxy];
}

/* The Gauss-Seidel value of cell c: (b_c + sum of the six neighbours' x)
 * / diag_c on a FLUID cell, 0 on another (idiag 0, b maybe not finite). */
static inline mg_real gs_value(const mg_real *x, const mg_real *b, const mg_real *idiag, long c, long sx, long sxy)
{
    const mg_real s = plus_neighbours(b[c], x, c, sx, sxy);
    return idiag[c] != 0.0f ? idiag[c] * s : 0.0f;
}

/* One Gauss-Seidel half sweep over l's FLUID cells of colour (i + j + k)
 * % 2 == colour (0 on the other cells of that colour in its rows): x_c =
 * (b_c + sum of the six neighbours' x) / diag_c. The cells of one colour
 * have neighbours of the other only, which keep their x, so the rows can
 * be shared, and a row's cells of the colour, every second one, are one
 * vector loop. first: the first half sweep, from x = 0: the cells of the
 * colour get b_c / diag_c, the others 0 (x need not be cleared before). */
static void relax_colour(const mg_level *l, mg_real *x, const mg_real *b, int colour, int first, int team)
{
    const mg_real *idiag = l->idiag;
    const long sx = l->sx, sxy = l->sxy;
    long r0, r1;
    share_rows(l, team, &r0, &r1);
    for (long r = r0; r < r1; r++) {
        const long c0 = l->row_c0[r], e = c0 + l->row_len[r], odd = row_parity(l, r) != colour;
        if (first) {
#pragma omp simd
            for (long c = c0; c < e; c++)
                x[c] = ((c - c0) & 1) == odd && idiag[c] != 0.0f ? idiag[c] * b[c] : 0.0f;
        } else
            for (long c = c0 + odd; c < e; c += 2)
                x[c] = gs_value(x, b, idiag, c, sx, sxy);
    }
    sync(team);
}

/* The same over the band's FLUID cells of one colour, a list shared by
 * the team. */
static void relax_band(const mg_level *l, mg_real *x, const mg_real *b, int colour, int team)
{
    const mg_real *idiag = l->idiag;
    const long sx = l->sx, sxy = l->sxy, first = colour ? l->nband[0] : 0;
    long q0, q1;
    share(l->nband[colour] - first, team, &q0, &q1);
    for (long q = first + q0; q < first + q1; q++) {
        const long c = l->band[q];
        x[c] = gs_value(x, b, idiag, c, sx, sxy);
    }
    sync(team);
}

/* sweeps of red-black Gauss-Seidel on l, red first, then the band's (red
 * first too); or with reverse, the band's black first, then black first:
 * the smoothing after the coarse correction is the one before it run
 * backwards, which keeps the cycle symmetric. The forward smoothing
 * starts from x = 0. */
static void smooth(const mg_level *l, mg_real *x, const mg_real *b, int sweeps, int reverse, int team)
{
    for (int s = 0; s < MG_BAND_SWEEPS && reverse; s++) {
        relax_band(l, x, b, 1, team);
        relax_band(l, x, b, 0, team);
    }
    for (int s = 0; s < sweeps; s++) {
        relax_colour(l, x, b, reverse, !reverse && s == 0, team);
        relax_colour(l, x, b, !reverse, 0, team);
    }
    for (int s = 0; s < MG_BAND_SWEEPS && !reverse; s++) {
        relax_band(l, x, b, 0, team);
        relax_band(l, x, b, 1, team);
    }
}

/* t = b - A x on l's FLUID cells, 0 on the other cells of its rows. */
static void residual(const mg_level *l, const mg_real *x, const mg_real *b, mg_real *t, int team)
{
    const mg_real *idiag = l->idiag;
    const long sx = l->sx, sxy = l->sxy;
    long r0, r1;
    share_rows(l, team, &r0, &r1);
    for (long r = r0; r < r1; r++)
        for (long c = l->row_c0[r], e = c + l->row_len[r]; c < e; c++)
            t[c] = idiag[c] != 0.0f ? b[c] - x[c] / idiag[c] + plus_neighbours(0.0f, x, c, sx, sxy) : 0.0f;
    sync(team);
}

/* The 1-D weights of trilinear interpolation between a coarse index I and
 * the fine indices 2I - 2 .. 2I + 1 (3/4 for its own children, 1/4 for
 * the neighbours' nearest child). */
static const mg_real mg_w[4] = {0.25f, 0.75f, 0.75f, 0.25f};

/* c->b = P^T t / 2 on c's FLUID cells (0 on the other cells of its rows),
 * from the fine residual t, 0 off f's FLUID cells: each coarse cell
 * gathers the 4 x 4 x 4 fine cells whose interpolation it takes part in.
 * The fine rows read are interior ones; at the last coarse index of an
 * odd fine axis the fourth x sample is the next row's first cell, on the
 * outer layer, where t is 0. */
static void restrict_to(const mg_level *f, const mg_real *t, const mg_level *c, int team)
{
    long r0, r1;
    share_rows(c, team, &r0, &r1);
    for (long r = r0; r < r1; r++) {
        const long C0 = c->row_c0[r];
        const int I0 = c->row_ijk[3 * r], J = c->row_ijk[3 * r + 1], K = c->row_ijk[3 * r + 2];
        const mg_real *row[16];
        mg_real wrow[16];
        int nr = 0;
        for (int dk = 0; dk < 4; dk++)
            for (int dj = 0; dj < 4; dj++) {
                const int k = 2 * K - 2 + dk, j = 2 * J - 2 + dj;
                if (k > 0 && k < f->n[2] - 1 && j > 0 && j < f->n[1] - 1)
                    row[nr] = t + cell(f, 0, j, k), wrow[nr++] = 0.5f * mg_w[dk] * mg_w[dj];
            }
        /* a strip of coarse cells at a time, each summing the fine rows
         * in the same order */
        for (int I = I0; I < I0 + c->row_len[r]; I += MG_STRIP) {
            const int n = I0 + c->row_len[r] - I < MG_STRIP ? I0 + c->row_len[r] - I : MG_STRIP;
            mg_real sum[MG_STRIP];
            for (int u = 0; u < n; u++)
                sum[u] = 0.0f;
            for (int q = 0; q < nr; q++) {
                const mg_real *s = row[q] + 2 * I - 2, w = wrow[q];
                for (int u = 0; u < n; u++)
                    sum[u] += w * (0.25f * (s[2 * u] + s[2 * u + 3]) + 0.75f * (s[2 * u + 1] + s[2 * u + 2]));
            }
            const long C = C0 + (I - I0);
            for (int u = 0; u < n; u++)
                c->b[C + u] = c->idiag[C + u] != 0.0f ? sum[u] : 0.0f;
        }
    }
    sync(team);
}

/* Trilinear interpolation's y and z part at coarse index I: the parent
 * row pp (weight 3/4 x 3/4), the rows beside it in y (op) and z (po),
 * 3/4 x 1/4 each, and the one beside both (oo), 1/4 x 1/4. */
static inline mg_real combine_yz(const mg_real *pp, const mg_real *op, const mg_real *po, const mg_real *oo, int I)
{
    return 0.5625f * pp[I] + 0.1875f * (op[I] + po[I]) + 0.0625f * oo[I];
}

/* x += P c->x on f's FLUID cells (c->x is 0 off c's FLUID cells): fine
 * index i has its parent I = (i + 1) / 2 (weight 3/4) and the parent's
 * neighbour on its side (1/4): I - 1 for i = 2I - 1, I + 1 for i = 2I.
 * Along a row, u(I) is the coarse values of the four coarse rows around
 * it, combined in y and z; each u is formed once for the two children
 * beside it. A strip of coarse indices at a time: its u, then the values
 * of its children in fine order, then the row's FLUID cells among them. */
static void prolong_add(const mg_level *c, const mg_level *f, mg_real *x, int team)
{
    long r0, r1;
    share_rows(f, team, &r0, &r1);
    for (long r = r0; r < r1; r++) {
        const long q0 = f->row_c0[r];
        const int i0 = f->row_ijk[3 * r], j = f->row_ijk[3 * r + 1], k = f->row_ijk[3 * r + 2];
        const int Jp = (j + 1) / 2, Kp = (k + 1) / 2, Jo = j & 1 ? Jp - 1 : Jp + 1, Ko = k & 1 ? Kp - 1 : Kp + 1;
        const mg_real *pp = c->x + cell(c, 0, Jp, Kp), *op = c->x + cell(c, 0, Jo, Kp),
                     *po = c->x + cell(c, 0, Jp, Ko), *oo = c->x + cell(c, 0, Jo, Ko);
        const int i1 = i0 + f->row_len[r] - 1, I0 = (i0 + 1) / 2, I1 = (i1 + 1) / 2;
        mg_real *xr = x + (q0 - i0);
        const mg_real *id = f->idiag + (q0 - i0);
        for (int I = I0; I <= I1; I += MG_STRIP) {
            const int n = I1 + 1 - I < MG_STRIP ? I1 + 1 - I : MG_STRIP;
            mg_real u[MG_STRIP + 2], v[2 * MG_STRIP];
            for (int m = 0; m < n + 2; m++)
                u[m] = combine_yz(pp, op, po, oo, I - 1 + m);
            /* v[2m]: fine 2(I + m) - 1, beside I + m - 1; v[2m + 1]: fine
             * 2(I + m), beside I + m + 1 */
            for (int m = 0; m < n; m++) {
                v[2 * m] = 0.75f * u[m + 1] + 0.25f * u[m];
                v[2 * m + 1] = 0.75f * u[m + 1] + 0.25f * u[m + 2];
            }
            const int first = 2 * I - 1, lo = first > i0 ? first : i0,
                      hi = 2 * (I + n - 1) < i1 ? 2 * (I + n - 1) : i1;
            mg_real *xs = xr + lo;
            const mg_real *ids = id + lo, *vs = v + (lo - first);
            for (int i = 0; i <= hi - lo; i++)
                xs[i] = ids[i] != 0.0f ? xs[i] + vs[i] : xs[i];
        }
    }
    sync(team);
}

/* x = V(b) on level l (x and b: l's arrays), shared by the team's
 * threads or run by one (team 0). */
static void vcycle(fl_mg *m, int l, mg_real *x, const mg_real *b, int team)
{
    const mg_level *L = &m->lv[l];
    if (l == m->nlevels - 1) {
        smooth(L, x, b, MG_COARSEST_SWEEPS, 0, team);
        smooth(L, x, b, MG_COARSEST_SWEEPS, 1, team);
        return;
    }
    mg_level *C = &m->lv[l + 1];
    smooth(L, x, b, MG_SWEEPS, 0, team);
    residual(L, x, b, L->t, team);
    restrict_to(L, L->t, C, team);
    if (team && C->nrows <= MG_PARALLEL_ROWS) {
        if (omp_get_thread_num() == 0)
            vcycle(m, l + 1, C->x, C->b, 0);
        sync(team);
    } else
        vcycle(m, l + 1, C->x, C->b, team);
    prolong_add(C, L, x, team);
    smooth(L, x, b, MG_SWEEPS, 1, team);
}

/* The finest level's b from r, on its rows (0 off its FLUID cells). */
static void load_b(mg_level *l, const double *r, int team)
{
    mg_real *b = l->b;
    const mg_real *idiag = l->idiag;
    long r0, r1;
    share_rows(l, team, &r0, &r1);
    /* each row converted, then cleared off its FLUID cells: two vector
     * loops (gcc keeps a conversion, which may raise a floating-point
     * exception, out of a select) */
    for (long q = r0; q < r1; q++) {
        const long c0 = l->row_c0[q], e = c0 + l->row_len[q];
        for (long c = c0; c < e; c++)
            b[c] = (mg_real)r[c];
        for (long c = c0; c < e; c++)
            b[c] = idiag[c] != 0.0f ? b[c] : 0.0f;
    }
    sync(team);
}

/* z from the finest level's x, on its rows, and each row's part of z.r. */
static void store_x(const mg_level *l, double *z, const double *r, int team)
{
    long r0, r1;
    share_rows(l, team, &r0, &r1);
    for (long q = r0; q < r1; q++) {
        const long c0 = l->row_c0[q], e = c0 + l->row_len[q];
        double sum = 0.0;
#pragma omp simd reduction(+ : sum)
        for (long c = c0; c < e; c++) {
            z[c] = l->x[c];
            sum += z[c] * r[c];
        }
        l->row_dot[q] = sum;
    }
}

/* The cycle on the finest level's own x and b, between r and z. */
static void apply(fl_mg *m, const double *r, double *z, int team)
{
    mg_level *L = &m->lv[0];
    load_b(L, r, team);
    vcycle(m, 0, L->x, L->b, team);
    store_x(L, z, r, team);
}

double fl_mg_apply(fl_mg *m, const double *r, double *z)
{
    const mg_level *L = &m->lv[0];
    if (L->nrows <= MG_PARALLEL_ROWS)
        apply(m, r, z, 0);
    else {
#pragma omp parallel
        apply(m, r, z, omp_get_num_threads() > 1);
    }
    /* the rows' parts in row order, whatever the threads */
    double zr = 0.0;
    for (long q = 0; q < L->nrows; q++)
        zr += L->row_dot[q];
    return zr;
}
