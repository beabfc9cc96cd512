/* nbgrid.c: the uniform neighbor grid (nbgrid.h): counting sort of
 * particle indices by cell, CSR neighbor lists within h, and the boundary
 * particle volumes of Akinci et al. 2012 (eq. 4). */
#include "nbgrid.h"

#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "periodic.h"

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

/* A thread's growable output of the search and its candidate caches. */
struct fl_nb_scratch {
    int *nb, *bnb;
    long long nb_len, nb_cap, bnb_len, bnb_cap;
    char pad[64];
};

static int *alloc_ints(long long n) { return fl_alloc((size_t)(n > 0 ? n : 1) * sizeof(int)); }

/* A search stops when the lists of a thread's particles hold more than
 * this many times the neighbors they would have at rest (the lattice
 * points within h), on average: the particles have collapsed. A stable
 * run stays near 1; a run that blows up can pile its particles into a
 * few cells, and their lists would take all the memory there is (a
 * dam break at 442 000 particles asked for over 24 GiB). */
#define FL_NB_COLLAPSE 16

/* n floats plus a zeroed block of FL_SEARCH_PAD, which the vectorized
 * search may read past the last point (and then ignores). */
#define FL_SEARCH_PAD 16
static float *alloc_padded_floats(long long n)
{
    float *a = fl_alloc((size_t)(n + FL_SEARCH_PAD) * sizeof(float));
    if (a)
        memset(a + n, 0, FL_SEARCH_PAD * sizeof(float));
    return a;
}

/* Grows *a to at least need ints, keeping its first keep values. */
static int ensure_ints(int **a, long long *cap, long long need, long long keep)
{
    if (need <= *cap)
        return 1;
    long long c = *cap > 0 ? *cap : 4096;
    while (c < need)
        c *= 2;
    int *fresh = alloc_ints(c);
    if (!fresh)
        return 0;
    if (keep > 0)
        memcpy(fresh, *a, (size_t)keep * sizeof(int));
    fl_free(*a);
    *a = fresh;
    *cap = c;
    return 1;
}

static inline int cell_index(const fl_nbgrid *g, float x, float y, float z)
{
    return fl_cell_index(g->lo, g->cell, g->dim, x, y, z);
}

/* The cell of point p in a grid with a periodic axis, p wrapped into
 * [lo, hi) along it in place; -1 when p is outside the grid (along a
 * periodic axis: more than one period beyond a face) or not finite. */
static int wrapped_cell(const fl_nbgrid *g, float p[3])
{
    int c[3];
    for (int a = 0; a < 3; a++) {
        const float n = (float)g->dim[a];
        float f = (p[a] - g->lo[a]) / g->size[a];
        if (!g->periodic[a]) {
            if (!(f >= 0.0f && f < n))
                return -1;
            c[a] = (int)f;
            continue;
        }
        if (!(f >= -n && f < 2.0f * n))
            return -1;
        if (f < 0.0f || f >= n) {
            p[a] = fl_wrap_coord(p[a], g->lo[a], g->hi[a], g->period[a], g->inv_period[a]);
            f = (p[a] - g->lo[a]) / g->size[a];
        }
        c[a] = (int)f < g->dim[a] ? (int)f : g->dim[a] - 1; /* f rounded up to dim at hi */
    }
    return (c[2] * g->dim[1] + c[1]) * g->dim[0] + c[0];
}

/* The cell of (x, y, z), wrapped into p when an axis is periodic (else p
 * is the point as given). */
static inline int grid_cell(const fl_nbgrid *g, float x, float y, float z, float p[3])
{
    p[0] = x, p[1] = y, p[2] = z;
    return g->wraps ? wrapped_cell(g, p) : cell_index(g, x, y, z);
}

void fl_counting_sort(const int *cell_of, int n, int ncells, int *start, int *order)
{
    memset(start, 0, (size_t)(ncells + 1) * sizeof(int));
    for (int i = 0; i < n; i++)
        start[cell_of[i] + 1]++;
    for (int c = 0; c < ncells; c++)
        start[c + 1] += start[c];
    /* fill in index order, so that each cell lists its particles ascending */
    for (int i = 0; i < n; i++)
        order[start[cell_of[i]]++] = i;
    for (int c = ncells; c > 0; c--)
        start[c] = start[c - 1];
    start[0] = 0;
}

/* Bins the boundary particles b (g->bcount of them) into the grid's
 * boundary arrays. */
static int bin_boundary(fl_nbgrid *g, const fl_boundary *b, fl_error *err)
{
    float p[3];
    for (int i = 0; i < b->count; i++) {
        g->bcell[i] = grid_cell(g, b->x[i], b->y[i], b->z[i], p);
        if (g->bcell[i] < 0)
            return fl_fail(err, FL_ERR_OUTSIDE, "boundary particle %d at (%g, %g, %g) is outside the neighbor grid",
                           i, b->x[i], b->y[i], b->z[i]);
    }
    fl_counting_sort(g->bcell, b->count, g->ncells, g->bcell_start, g->bsorted);
    for (int k = 0; k < b->count; k++) {
        int i = g->bsorted[k];
        grid_cell(g, b->x[i], b->y[i], b->z[i], p);
        g->bx[k] = p[0], g->by[k] = p[1], g->bz[k] = p[2];
    }
    return FL_OK;
}

int fl_nbgrid_init(fl_nbgrid *g, const fl_world *w, fl_error *err)
{
    memset(g, 0, sizeof *g);
    g->cell = (float)w->h;
    g->radius = (float)w->h;
    long long cells = 1;
    for (int a = 0; a < 3; a++) {
        g->lo[a] = (float)(w->domain.lo[a] - w->h);
        double span = w->domain.hi[a] - w->domain.lo[a] + 2.0 * w->h;
        g->dim[a] = (int)ceil(span / w->h) + 1;
        g->size[a] = g->cell;
        if (a == 2 && w->dims == 2) /* one layer of cells, centred on the plane z = 0 */
            g->lo[a] = (float)(-0.5 * w->h), g->dim[a] = 1;
        if (w->periodic[a] && !(a == 2 && w->dims == 2)) {
            const double len = w->domain.hi[a] - w->domain.lo[a];
            if (!(len >= 2.0 * w->h))
                return fl_fail(err, FL_ERR_INPUT,
                               "periodic axis %c: the domain is %g m long, less than 2h = %g m (at most one image "
                               "of a neighbor may lie within h)", "xyz"[a], len, 2.0 * w->h);
            g->wraps = g->periodic[a] = 1;
            g->dim[a] = (int)floor(len / w->h);
            g->lo[a] = (float)w->domain.lo[a];
            g->hi[a] = (float)w->domain.hi[a];
            g->size[a] = (float)(len / g->dim[a]);
            g->period[a] = (float)len;
            g->inv_period[a] = (float)(1.0 / len);
        }
        cells *= g->dim[a];
    }
    if (cells > 0x7ffffffe)
        return fl_fail(err, FL_ERR_MEMORY, "neighbor grid of %lld cells is too large", cells);
    g->ncells = (int)cells;
    g->nthreads = omp_get_max_threads();
    if (w->spacing > 0.0) {
        const double ratio = w->h / w->spacing, pi = 3.14159265358979323846;
        const double rest = w->dims == 2 ? pi * ratio * ratio : 4.0 / 3.0 * pi * ratio * ratio * ratio;
        g->collapse = FL_NB_COLLAPSE * (rest > 1.0 ? rest : 1.0);
    }
    g->cell_start = alloc_ints(cells + 1);
    g->bcell_start = alloc_ints(cells + 1);
    g->scratch = calloc((size_t)g->nthreads, sizeof *g->scratch);
    const fl_boundary *b = &w->boundary;
    g->bcount = b->count;
    g->bcell = alloc_ints(b->count);
    g->bsorted = alloc_ints(b->count);
    g->bx = alloc_padded_floats(b->count);
    g->by = alloc_padded_floats(b->count);
    g->bz = alloc_padded_floats(b->count);
    if (!g->cell_start || !g->bcell_start || !g->scratch || !g->bcell || !g->bsorted || !g->bx ||
        !g->by || !g->bz) {
        fl_nbgrid_free(g);
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for a neighbor grid of %lld cells", cells);
    }
    int rc = bin_boundary(g, b, err);
    if (rc)
        fl_nbgrid_free(g);
    return rc;
}

int fl_nbgrid_update_boundary(fl_nbgrid *g, const fl_world *w, fl_error *err)
{
    if (!w->tool.active)
        return FL_OK;
    if (w->boundary.count != g->bcount)
        return fl_fail(err, FL_ERR_INPUT, "the world has %d boundary particles, its neighbor grid was set up for %d",
                       w->boundary.count, g->bcount);
    return bin_boundary(g, &w->boundary, err);
}

static int reserve_particles(fl_nbgrid *g, int n, fl_error *err)
{
    if (n <= g->capacity)
        return FL_OK;
    int cap = n + n / 8 + 64;
    int **ints[] = {&g->sorted, &g->cell_of, &g->slot_of, &g->nb_start, &g->bnb_start};
    float **floats[] = {&g->sx, &g->sy, &g->sz};
    for (int k = 0; k < 5; k++) {
        fl_free(*ints[k]);
        *ints[k] = alloc_ints(cap + 1);
    }
    for (int k = 0; k < 3; k++) {
        fl_free(*floats[k]);
        *floats[k] = alloc_padded_floats(cap);
    }
    for (int k = 0; k < 5; k++)
        if (!*ints[k])
            return fl_fail(err, FL_ERR_MEMORY, "out of memory for the neighbor lists of %d particles", n);
    for (int k = 0; k < 3; k++)
        if (!*floats[k])
            return fl_fail(err, FL_ERR_MEMORY, "out of memory for the neighbor lists of %d particles", n);
    g->capacity = cap;
    return FL_OK;
}

int fl_nbgrid_build(fl_nbgrid *g, const float *x, const float *y, const float *z, int n, fl_error *err)
{
    int rc = reserve_particles(g, n, err);
    if (rc)
        return rc;
    g->n = n;
    int outside = 0;
    #pragma omp parallel for schedule(static) reduction(+ : outside)
    for (int i = 0; i < n; i++) {
        float p[3];
        int c = grid_cell(g, x[i], y[i], z[i], p);
        outside += c < 0;
        g->cell_of[i] = c < 0 ? 0 : c;
    }
    if (outside) {
        g->n = 0;
        float p[3];
        for (int i = 0; i < n; i++)
            if (grid_cell(g, x[i], y[i], z[i], p) < 0)
                return fl_fail(err, FL_ERR_OUTSIDE,
                               "%d particle(s) outside the neighbor grid, the first is %d at (%g, %g, %g)",
                               outside, i, x[i], y[i], z[i]);
    }
    fl_counting_sort(g->cell_of, n, g->ncells, g->cell_start, g->sorted);
    #pragma omp parallel for schedule(static)
    for (int k = 0; k < n; k++) {
        int i = g->sorted[k];
        g->sx[k] = x[i], g->sy[k] = y[i], g->sz[k] = z[i];
        g->slot_of[i] = k;
    }
    if (g->wraps) {
        #pragma omp parallel for schedule(static)
        for (int k = 0; k < n; k++) {
            float p[3];
            grid_cell(g, g->sx[k], g->sy[k], g->sz[k], p);
            g->sx[k] = p[0], g->sy[k] = p[1], g->sz[k] = p[2];
        }
    }
    return FL_OK;
}

/* Appends to out (from *m_io on) the ids of the points in sorted slots
 * [k0, k1) within r2max of (xi, yi, zi), skipping slot self (-1: none). About one point in
 * seven is kept, so the selection is the cost. With AVX-512, sixteen
 * distances are compared at once (the position arrays are padded so that
 * the last block may read past k1) and the kept ids are packed in a
 * register; the portable loop selects without branches. Both keep the
 * slots' order and compute r^2 with the same float operations, so they give
 * the same lists (the Debug build tests the portable one). */
static inline void select_range(const float *restrict sx, const float *restrict sy, const float *restrict sz,
                                const int *restrict ids, int k0, int k1, float xi, float yi, float zi,
                                float r2max, int self, int *restrict out, long long *m_io)
{
    long long m = *m_io;
#if defined(__AVX512F__)
    /* AVX-512: sixteen distances at once; the selected ids are packed in a
     * register and stored whole (the buffer has room for 16 more; a
     * compress-store to memory is slow) */
    const __m512 px = _mm512_set1_ps(xi), py = _mm512_set1_ps(yi), pz = _mm512_set1_ps(zi);
    const __m512 lim = _mm512_set1_ps(r2max);
    for (int k = k0; k < k1; k += 16) {
        __m512 dx = _mm512_sub_ps(px, _mm512_loadu_ps(sx + k));
        __m512 dy = _mm512_sub_ps(py, _mm512_loadu_ps(sy + k));
        __m512 dz = _mm512_sub_ps(pz, _mm512_loadu_ps(sz + k));
        /* (dx^2 + dy^2) + dz^2, unfused, as in the portable loop */
        __m512 r2 = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz));
        unsigned keep = _mm512_cmp_ps_mask(r2, lim, _CMP_LT_OQ);
        if (k1 - k < 16)
            keep &= (1u << (k1 - k)) - 1u;
        unsigned off = (unsigned)(self - k);
        if (off < 16u)
            keep &= ~(1u << off);
        __m512i j = _mm512_maskz_loadu_epi32((__mmask16)keep, ids + k);
        _mm512_storeu_si512(out + m, _mm512_maskz_compress_epi32((__mmask16)keep, j));
        m += __builtin_popcount(keep);
    }
#else
    for (int k = k0; k < k1; k++) {
        float dx = xi - sx[k], dy = yi - sy[k], dz = zi - sz[k];
        float r2 = dx * dx + dy * dy + dz * dz;
        out[m] = ids[k];
        m += (r2 < r2max) & (k != self);
    }
#endif
    *m_io = m;
}

/* select_range for two points a and b of the same cell at once, into two
 * outputs: with AVX-512 each block of positions is loaded once for both,
 * and the two selections are independent, so the processor overlaps them. */
static inline void select_range2(const float *restrict sx, const float *restrict sy, const float *restrict sz,
                                 const int *restrict ids, int k0, int k1, const float pa[3], const float pb[3],
                                 float r2max, int self_a, int self_b, int *restrict out_a, long long *ma_io,
                                 int *restrict out_b, long long *mb_io)
{
#if defined(__AVX512F__)
    long long ma = *ma_io, mb = *mb_io;
    const __m512 ax = _mm512_set1_ps(pa[0]), ay = _mm512_set1_ps(pa[1]), az = _mm512_set1_ps(pa[2]);
    const __m512 bx = _mm512_set1_ps(pb[0]), by = _mm512_set1_ps(pb[1]), bz = _mm512_set1_ps(pb[2]);
    const __m512 lim = _mm512_set1_ps(r2max);
    for (int k = k0; k < k1; k += 16) {
        __m512 px = _mm512_loadu_ps(sx + k), py = _mm512_loadu_ps(sy + k), pz = _mm512_loadu_ps(sz + k);
        __m512 dx = _mm512_sub_ps(ax, px), dy = _mm512_sub_ps(ay, py), dz = _mm512_sub_ps(az, pz);
        __m512 ra = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz));
        dx = _mm512_sub_ps(bx, px), dy = _mm512_sub_ps(by, py), dz = _mm512_sub_ps(bz, pz);
        __m512 rb = _mm512_add_ps(_mm512_add_ps(_mm512_mul_ps(dx, dx), _mm512_mul_ps(dy, dy)), _mm512_mul_ps(dz, dz));
        unsigned tail = k1 - k < 16 ? (1u << (k1 - k)) - 1u : 0xffffu;
        unsigned keep_a = _mm512_cmp_ps_mask(ra, lim, _CMP_LT_OQ) & tail;
        unsigned keep_b = _mm512_cmp_ps_mask(rb, lim, _CMP_LT_OQ) & tail;
        unsigned off_a = (unsigned)(self_a - k), off_b = (unsigned)(self_b - k);
        if (off_a < 16u)
            keep_a &= ~(1u << off_a);
        if (off_b < 16u)
            keep_b &= ~(1u << off_b);
        __m512i j = _mm512_maskz_loadu_epi32((__mmask16)(keep_a | keep_b), ids + k);
        _mm512_storeu_si512(out_a + ma, _mm512_maskz_compress_epi32((__mmask16)keep_a, j));
        _mm512_storeu_si512(out_b + mb, _mm512_maskz_compress_epi32((__mmask16)keep_b, j));
        ma += __builtin_popcount(keep_a);
        mb += __builtin_popcount(keep_b);
    }
    *ma_io = ma, *mb_io = mb;
#else
    select_range(sx, sy, sz, ids, k0, k1, pa[0], pa[1], pa[2], r2max, self_a, out_a, ma_io);
    select_range(sx, sy, sz, ids, k0, k1, pb[0], pb[1], pb[2], r2max, self_b, out_b, mb_io);
#endif
}

/* The slot ranges of the 3x3x3 cells around cell c in one binning: nine x
 * rows of three cells, each contiguous in sorted order (empty rows are left
 * out), and their total length. In a periodic grid a row may split in two
 * where it crosses a face, and each range has the shift of the query point
 * that puts its cells at their image next to c (in a periodic grid only;
 * a grid that does not wrap leaves it unset). */
#define FL_MAX_RANGES 18
typedef struct cell_ranges {
    int count;
    int k0[FL_MAX_RANGES], k1[FL_MAX_RANGES];
    float shift[FL_MAX_RANGES][3];
    long long total;
} cell_ranges;

/* The cells next to cell index ci along axis a (ci - 1, ci, ci + 1, those
 * inside the grid; along a periodic axis all three, modulo dim) and the
 * shift of the query that puts each at its image next to ci. Returns their count. */
static int axis_cells(const fl_nbgrid *g, int a, int ci, int cell[3], float shift[3])
{
    int m = 0;
    for (int o = -1; o <= 1; o++) {
        int cc = ci + o;
        float sh = 0.0f;
        if (g->periodic[a]) {
            if (cc < 0)
                cc += g->dim[a], sh = g->period[a];
            else if (cc >= g->dim[a])
                cc -= g->dim[a], sh = -g->period[a];
        } else if (cc < 0 || cc >= g->dim[a]) {
            continue;
        }
        cell[m] = cc, shift[m] = sh, m++;
    }
    return m;
}

static void ranges_around_periodic(const fl_nbgrid *g, int c, const int *start, cell_ranges *r)
{
    const int ci[3] = {c % g->dim[0], (c / g->dim[0]) % g->dim[1], c / (g->dim[0] * g->dim[1])};
    int cells[3][3], m[3];
    float shift[3][3];
    for (int a = 0; a < 3; a++)
        m[a] = axis_cells(g, a, ci[a], cells[a], shift[a]);
    r->count = 0;
    r->total = 0;
    for (int kz = 0; kz < m[2]; kz++)
        for (int ky = 0; ky < m[1]; ky++) {
            const int row = (cells[2][kz] * g->dim[1] + cells[1][ky]) * g->dim[0];
            for (int kx = 0; kx < m[0];) {
                /* a run of consecutive cells with one shift is one range */
                int end = kx + 1;
                while (end < m[0] && cells[0][end] == cells[0][end - 1] + 1 && shift[0][end] == shift[0][kx])
                    end++;
                const int k0 = start[row + cells[0][kx]], k1 = start[row + cells[0][end - 1] + 1];
                if (k1 > k0) {
                    const int q = r->count++;
                    r->k0[q] = k0, r->k1[q] = k1;
                    r->shift[q][0] = shift[0][kx], r->shift[q][1] = shift[1][ky], r->shift[q][2] = shift[2][kz];
                    r->total += k1 - k0;
                }
                kx = end;
            }
        }
}

/* The ranges around c: wraps is g->wraps, a constant where the search
 * calls it. */
FL_FORCE_INLINE void ranges_around(const fl_nbgrid *g, int c, const int *start, cell_ranges *r, int wraps)
{
    if (wraps) {
        ranges_around_periodic(g, c, start, r);
        return;
    }
    int cx = c % g->dim[0], cy = (c / g->dim[0]) % g->dim[1], cz = c / (g->dim[0] * g->dim[1]);
    int xa = cx > 0 ? cx - 1 : 0, xb = cx + 1 < g->dim[0] ? cx + 1 : cx;
    int ya = cy > 0 ? cy - 1 : 0, yb = cy + 1 < g->dim[1] ? cy + 1 : cy;
    int za = cz > 0 ? cz - 1 : 0, zb = cz + 1 < g->dim[2] ? cz + 1 : cz;
    r->count = 0;
    r->total = 0;
    for (int zz = za; zz <= zb; zz++)
        for (int yy = ya; yy <= yb; yy++) {
            int row = (zz * g->dim[1] + yy) * g->dim[0];
            int k0 = start[row + xa], k1 = start[row + xb + 1];
            if (k1 == k0)
                continue;
            r->k0[r->count] = k0, r->k1[r->count] = k1;
            r->count++;
            r->total += k1 - k0;
        }
}

/* Appends the neighbors of point (xi, yi, zi) among the ranges r of the
 * binned points (sx, sy, sz, ids) to *buf; with wraps (a constant), each
 * range's at the point shifted by the range's shift. */
FL_FORCE_INLINE int neighbors_in(const cell_ranges *r, const float *sx, const float *sy, const float *sz,
                                 const int *ids, float xi, float yi, float zi, float r2max, int self, int **buf,
                                 long long *len, long long *cap, int wraps)
{
    if (r->total == 0)
        return 1;
    long long need = *len + r->total + FL_SEARCH_PAD;
    if (need > *cap && !ensure_ints(buf, cap, need, *len))
        return 0;
    for (int q = 0; q < r->count; q++) {
        if (wraps)
            select_range(sx, sy, sz, ids, r->k0[q], r->k1[q], xi + r->shift[q][0], yi + r->shift[q][1],
                         zi + r->shift[q][2], r2max, self, *buf, len);
        else
            select_range(sx, sy, sz, ids, r->k0[q], r->k1[q], xi, yi, zi, r2max, self, *buf, len);
    }
    return 1;
}

/* Copies share t of nt of src[0, len) to the same place in dst. */
static void copy_share(int *dst, const int *src, long long len, int t, int nt)
{
    long long a = len * t / nt, b = len * (t + 1) / nt;
    if (b > a)
        memcpy(dst + a, src + a, (size_t)(b - a) * sizeof(int));
}

/* neighbors_in for two points of the same cell: a's list, then b's right
 * after it. b's list is first written past the longest a's can be, then
 * moved down. */
FL_FORCE_INLINE int neighbors_in2(const cell_ranges *r, const float *sx, const float *sy, const float *sz,
                                  const int *ids, const float pa[3], const float pb[3], float r2max, int self_a,
                                  int self_b, int **buf, long long *len, long long *cap, long long *len_a, int wraps)
{
    *len_a = 0;
    if (r->total == 0)
        return 1;
    long long need = *len + 2 * (r->total + FL_SEARCH_PAD);
    if (need > *cap && !ensure_ints(buf, cap, need, *len))
        return 0;
    int *out_a = *buf + *len, *out_b = out_a + r->total + FL_SEARCH_PAD;
    long long ma = 0, mb = 0;
    for (int q = 0; q < r->count; q++) {
        if (!wraps) {
            select_range2(sx, sy, sz, ids, r->k0[q], r->k1[q], pa, pb, r2max, self_a, self_b, out_a, &ma, out_b,
                          &mb);
            continue;
        }
        const float *sh = r->shift[q];
        const float qa[3] = {pa[0] + sh[0], pa[1] + sh[1], pa[2] + sh[2]};
        const float qb[3] = {pb[0] + sh[0], pb[1] + sh[1], pb[2] + sh[2]};
        select_range2(sx, sy, sz, ids, r->k0[q], r->k1[q], qa, qb, r2max, self_a, self_b, out_a, &ma, out_b, &mb);
    }
    memmove(out_a + ma, out_b, (size_t)mb * sizeof(int));
    *len_a = ma;
    *len += ma + mb;
    return 1;
}

/* Particle i's position as the periodic grid binned it (wrapped). */
static inline void query_point(const fl_nbgrid *g, int i, float p[3])
{
    const int k = g->slot_of[i];
    p[0] = g->sx[k], p[1] = g->sy[k], p[2] = g->sz[k];
}

/* The lists of particles [i0, i1) into the thread's buffers nb and bnb
 * (lengths in s): wraps is g->wraps, a constant at each call, so that a
 * grid that does not wrap searches as it did before periodic grids.
 * Returns 1, 0 when a buffer could not grow, or -1 when either list holds
 * more than g->collapse neighbors a particle of the slice (collapsed). */
FL_FORCE_INLINE int search_slice(fl_nbgrid *g, const float *x, const float *y, const float *z, int i0, int i1,
                                 struct fl_nb_scratch *s, int **nb, int **bnb, long long *nb_cap, long long *bnb_cap,
                                 int wraps)
{
    int ok = 1, cached = -1;
    const float r2max = g->radius * g->radius;
    const long long limit = g->collapse > 0.0 ? (long long)(g->collapse * (i1 - i0)) : LLONG_MAX;
    cell_ranges fluid, solid;
    fluid.count = solid.count = 0; /* found at the first particle (cached is no cell) */
    fluid.total = solid.total = 0;
    /* the store is mostly in cell order (solvers sort it), so consecutive
     * particles share the ranges of their cell */
    for (int i = i0; i < i1 && ok;) {
        if (s->nb_len > limit || s->bnb_len > limit) {
            ok = -1;
            break;
        }
        int c = g->cell_of[i];
        if (c != cached) {
            ranges_around(g, c, g->cell_start, &fluid, wraps);
            ranges_around(g, c, g->bcell_start, &solid, wraps);
            cached = c;
        }
        g->nb_start[i] = (int)s->nb_len;
        g->bnb_start[i] = (int)s->bnb_len;
        if (i + 1 < i1 && g->cell_of[i + 1] == c) {
            /* two particles of one cell: one pass over their shared candidates */
            float pa[3] = {x[i], y[i], z[i]}, pb[3] = {x[i + 1], y[i + 1], z[i + 1]};
            if (wraps)
                query_point(g, i, pa), query_point(g, i + 1, pb);
            long long na = 0, nba = 0;
            ok = neighbors_in2(&fluid, g->sx, g->sy, g->sz, g->sorted, pa, pb, r2max, g->slot_of[i],
                               g->slot_of[i + 1], nb, &s->nb_len, nb_cap, &na, wraps) &&
                 neighbors_in2(&solid, g->bx, g->by, g->bz, g->bsorted, pa, pb, r2max, -1, -1, bnb, &s->bnb_len,
                               bnb_cap, &nba, wraps);
            g->nb_start[i + 1] = g->nb_start[i] + (int)na;
            g->bnb_start[i + 1] = g->bnb_start[i] + (int)nba;
            i += 2;
            continue;
        }
        float p[3] = {x[i], y[i], z[i]};
        if (wraps)
            query_point(g, i, p);
        ok = neighbors_in(&fluid, g->sx, g->sy, g->sz, g->sorted, p[0], p[1], p[2], r2max, g->slot_of[i], nb,
                          &s->nb_len, nb_cap, wraps) &&
             neighbors_in(&solid, g->bx, g->by, g->bz, g->bsorted, p[0], p[1], p[2], r2max, -1, bnb, &s->bnb_len,
                          bnb_cap, wraps);
        i++;
    }
    return ok;
}

int fl_nbgrid_search(fl_nbgrid *g, const float *x, const float *y, const float *z, fl_error *err)
{
    const int n = g->n, T = g->nthreads;
    long long totals[2 * 256], sum_nb = 0, sum_bnb = 0;
    int failed = 0;
    if (T > 256)
        return fl_fail(err, FL_ERR_INPUT, "more than 256 threads");
    #pragma omp parallel num_threads(T)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        int i0 = (int)((long long)n * t / nt), i1 = (int)((long long)n * (t + 1) / nt);
        /* thread 0 writes straight into the final lists (its slice starts at
         * 0); the others write into their own buffers and copy after */
        struct fl_nb_scratch *s = &g->scratch[t];
        int **nb = t == 0 ? &g->nb : &s->nb, **bnb = t == 0 ? &g->bnb : &s->bnb;
        long long *nb_cap = t == 0 ? &g->nb_capacity : &s->nb_cap;
        long long *bnb_cap = t == 0 ? &g->bnb_capacity : &s->bnb_cap;
        s->nb_len = s->bnb_len = 0;
        const int ok = g->wraps ? search_slice(g, x, y, z, i0, i1, s, nb, bnb, nb_cap, bnb_cap, 1)
                                : search_slice(g, x, y, z, i0, i1, s, nb, bnb, nb_cap, bnb_cap, 0);
        totals[2 * t] = s->nb_len;
        totals[2 * t + 1] = s->bnb_len;
        if (ok != 1) {
            #pragma omp atomic write
            failed = ok == 0 ? 1 : 2;
        }
        #pragma omp barrier
        #pragma omp single
        {
            for (int k = 0; k < nt; k++)
                sum_nb += totals[2 * k], sum_bnb += totals[2 * k + 1];
            if (!failed && (!ensure_ints(&g->nb, &g->nb_capacity, sum_nb + 1, totals[0]) ||
                            !ensure_ints(&g->bnb, &g->bnb_capacity, sum_bnb + 1, totals[1])))
                failed = 1;
            if (!failed && (sum_nb > 0x7fffffff || sum_bnb > 0x7fffffff))
                failed = 1;
        }
        if (!failed) {
            /* every thread copies its share of each other thread's lists */
            long long off = 0, boff = 0;
            for (int k = 1; k < nt; k++) {
                off += totals[2 * k - 2], boff += totals[2 * k - 1];
                copy_share(g->nb + off, g->scratch[k].nb, g->scratch[k].nb_len, t, nt);
                copy_share(g->bnb + boff, g->scratch[k].bnb, g->scratch[k].bnb_len, t, nt);
                if (k == t)
                    for (int i = i0; i < i1; i++)
                        g->nb_start[i] += (int)off, g->bnb_start[i] += (int)boff;
            }
        }
    }
    if (failed == 2)
        return fl_fail(err, FL_ERR_OUTSIDE,
                       "the particles have collapsed: their neighbor lists hold more than %.0f neighbors a particle "
                       "(%d times a particle's at rest)", g->collapse, FL_NB_COLLAPSE);
    if (failed)
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the neighbor lists of %d particles", n);
    g->nb_start[n] = (int)sum_nb;
    g->bnb_start[n] = (int)sum_bnb;
    return FL_OK;
}

void fl_nbgrid_free(fl_nbgrid *g)
{
    void *arrays[] = {g->cell_start, g->sorted, g->cell_of, g->slot_of, g->sx, g->sy, g->sz, g->bcell_start,
                      g->bcell, g->bsorted, g->bx, g->by, g->bz, g->nb_start, g->nb, g->bnb_start, g->bnb};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        fl_free(arrays[k]);
    if (g->scratch)
        for (int t = 0; t < g->nthreads; t++)
            fl_free(g->scratch[t].nb), fl_free(g->scratch[t].bnb);
    free(g->scratch);
    memset(g, 0, sizeof *g);
}

int fl_boundary_compute_volumes(fl_world *w, fl_error *err)
{
    fl_nbgrid g;
    int rc = fl_nbgrid_init(&g, w, err);
    if (rc)
        return rc;
    fl_boundary *b = &w->boundary;
    const float h = (float)w->h;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < b->count; i++) {
        float p[3];
        cell_ranges r;
        ranges_around(&g, grid_cell(&g, b->x[i], b->y[i], b->z[i], p), g.bcell_start, &r, g.wraps);
        double sum = 0.0;
        for (int q = 0; q < r.count; q++) {
            const float *sh = r.shift[q];
            const float px = g.wraps ? p[0] + sh[0] : p[0], py = g.wraps ? p[1] + sh[1] : p[1],
                        pz = g.wraps ? p[2] + sh[2] : p[2];
            for (int k = r.k0[q]; k < r.k1[q]; k++) {
                float dx = px - g.bx[k], dy = py - g.by[k], dz = pz - g.bz[k];
                sum += fl_poly6(dx * dx + dy * dy + dz * dz, h, w->dims);
            }
        }
        b->volume[i] = (float)(1.0 / sum);
    }
    fl_nbgrid_free(&g);
    return FL_OK;
}
