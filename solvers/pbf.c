/* pbf.c: Position Based Fluids, Macklin & Müller 2013
 * (ACM Transactions on Graphics 32(4), SIGGRAPH 2013), Algorithm 1:
 *
 *   predict    v_i += dt g,  x*_i = x_i + dt v_i, pushed back into the domain   (lines 1-4)
 *   neighbors  once per step, at x*                                             (lines 5-7)
 *   solver_iterations Jacobi iterations (or fewer: stop when the max density
 *   error after an iteration is below eta)                                     (lines 8-19)
 *   (or, as constraint_solver asks, averaged Jacobi, Gauss-Seidel or SOR:
 *   the course deck's alternatives, pbf_solve_sequential and docs/methods/pbf.md)
 *     lambda   rho_i = m sum_j W(x*_ij) + rho0 sum_b V_b W(x*_ib)          eq. 2 (+ Akinci 2012)
 *              C_i = rho_i / rho0 - 1                                      eq. 1
 *              lambda_i = -C_i / (sum_k |grad_k C_i|^2 + eps)              eq. 7, 8, 11 (CFM)
 *     delta    dp_i = m/rho0 sum_j (lambda_i + lambda_j + s_corr) grad W_ij
 *                     + lambda_i sum_b V_b grad W_ib                       eq. 12-14
 *              s_corr = -k (W(x*_ij) / W(dq))^n                            eq. 13
 *     collide  x*_i + dp_i pushed back into the domain, out of obstacles
 *   velocity   v_i = (x*_i - x_i) / dt                                     (line 21)
 *              XSPH: v_i += c sum_j m/rho0 (v_j - v_i) W_ij                eq. 17
 *              vorticity: omega_i = sum_j m/rho0 (v_j - v_i) x grad_{x_j} W_ij     eq. 15
 *              v_i += dt eps_v (N x omega_i), N = eta/|eta|, eta = grad |omega|_i  eq. 16
 *              with viscosity_model 1, instead of XSPH: v_i += dt nu lap v_i, Morris et
 *              al. 1997's Laplacian (fl_morris_accel) at x*, after the vorticity
 *   update     x_i = x*_i                                                  (line 23)
 *
 * W is poly6, grad W the spiky gradient (Müller 2003), as the paper uses
 * them. The paper drops the masses; they are kept here (m/rho0 is the
 * particle volume), and the CFM eps and the s_corr strength k are
 * measured against sum_k |grad_k C|^2 of a particle with a full lattice
 * neighborhood, so that both mean the same at any spacing.
 *
 * Layout, for speed: the particles are taken PBF_LANES at a time (a
 * block), and row m of a block's neighbor table holds the m-th neighbor
 * of each of its particles, so that one vector instruction serves one
 * neighbor of PBF_LANES particles and every sum stays in its own lane
 * (no horizontal sums, no short loops; the order of each particle's sum is
 * fixed, so results do not depend on the thread count). Fluid and
 * boundary neighbors share the table: positions, weights (m/rho0 for a
 * fluid particle, V_b for a boundary one) and lambdas live in "slot"
 * arrays that hold the fluid particles, the unused lanes of the last
 * block, the boundary particles and one far-away sentinel that fills the
 * rows a particle does not need. Before a pass, the values it reads of a
 * neighbor are packed four floats a slot (pbf_pack), so that a row comes
 * in by 16 loads and a transpose (pbf_row_load), not a gather per array.
 *
 * Periodic axes (docs/design.md, "Periodic boundaries"): every pair takes
 * the minimum image of x*_i - x*_j (fl_pair_image), the collision response
 * wraps x* into the domain, and the velocity of line 21 is the minimum
 * image of x*_i - x_i over dt. The block functions take the periods as a
 * pointer that is a constant at each call: NULL without a periodic axis,
 * so that the table loops of such a scene are compiled as they were and
 * cost nothing more. The sentinel, wherever its image falls, weighs 0 and
 * has lambda 0: it adds nothing.
 * docs/methods/pbf.md maps each line to the function below. */
#include <limits.h>
#include <math.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "particle_common.h"
#include "tool_physics.h"
#include "particle_params.h"

#define PBF_LANES 16

typedef struct pbf_solver {
    pbf_params prm;
    fl_nbgrid grid;
    int n;                    /* fluid particles */
    int padded;               /* n rounded up to whole blocks; boundary particle b is slot padded + b */
    int sentinel;             /* the last slot */
    int blocks;
    /* slot arrays (sentinel + 1 entries) */
    float *ax, *ay, *az;      /* x*, the estimate an iteration reads */
    float *bx, *by, *bz;      /* the estimate it writes (Jacobi); in between, lambda_i grad_i C_i */
    float *weight;            /* m/rho0 or V_b, m^3; 0 for the unused lanes and the sentinel */
    float *lambda;            /* lambda_i, m^2; 0 but for fluid particles */
    float *ux, *uy, *uz;      /* (x*_i - x_i) / dt, m/s; 0 but for fluid particles */
    float *wx, *wy, *wz;      /* omega_i, 1/s; 0 but for fluid particles */
    float *wn;                /* |omega_i|, 1/s; 0 but for fluid particles */
    float *lambda_sum;        /* sum of lambda_i over the iterations of a step (for the pressure) */
    float *scale;             /* averaged Jacobi only: omega / n_i of each fluid particle in the step */
    float *tx, *ty, *tz;      /* with a tool: the displacement its boundary particles gave each particle in the step */
    float *mx, *my, *mz;      /* with viscosity_model 1: each fluid particle's nu lap v, m/s^2 */
    int *touching;            /* with a tool: the particles with one of its particles among their neighbors */
    int touching_count;
    float *scratch;
    float *packed, *packed_u; /* 4 floats a slot (pbf_pack), for pbf_row_load: x*, y*, z* and one more;
                               * the velocity pass's (x* - x) / dt and weight */
    fl_period per;            /* the world's periods (fl_period_of) */
    /* the neighbor table, of slots: block b's rows are table[row_start[b] .. row_start[b + 1]),
     * PBF_LANES entries a row */
    int *row_start;
    int *table;
    long long table_capacity;
    long long steps;
} pbf_solver;

static const char *const pbf_keys[] = {"solver_iterations", "eta",      "cfm_epsilon",       "scorr_k",
                                       "scorr_n",           "scorr_dq", "vorticity_epsilon", "xsph_c",
                                       "sort_interval",     "constraint_solver", "relaxation", "one_sided",
                                       "viscosity_model",   NULL};

static void pbf_destroy(void *self)
{
    pbf_solver *s = self;
    if (!s)
        return;
    fl_nbgrid_free(&s->grid);
    void *arrays[] = {s->ax, s->ay, s->az,         s->bx,      s->by,      s->bz,    s->weight,
                      s->lambda, s->ux, s->uy,     s->uz,      s->wx,      s->wy,    s->wz,
                      s->wn, s->lambda_sum,        s->scale,   s->scratch, s->row_start, s->table,
                      s->tx, s->ty, s->tz, s->touching, s->mx, s->my, s->mz, s->packed, s->packed_u};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        fl_free(arrays[k]);
    free(s);
}

/* Room for `entries` entries of the neighbor table. Like the neighbor
 * lists themselves, it grows (by a quarter more than asked) only when a
 * step needs more than any before; create reserves for the usual case. */
static int pbf_reserve_table(pbf_solver *s, long long entries)
{
    if (entries <= s->table_capacity)
        return FL_OK;
    long long cap = entries + entries / 4 + PBF_LANES;
    fl_free(s->table);
    s->table = fl_alloc((size_t)cap * sizeof(int));
    s->table_capacity = s->table ? cap : 0;
    return s->table ? FL_OK : FL_ERR_MEMORY;
}

/* Fills the slot arrays that do not change: the boundary particles'
 * positions and volumes, and the unused lanes and the sentinel, parked
 * 2h beyond the domain's far corner (outside every particle's reach). */
static void pbf_fill_static_slots(pbf_solver *s, const fl_world *w)
{
    const fl_boundary *b = &w->boundary;
    float far[3];
    for (int a = 0; a < 3; a++)
        far[a] = (float)(w->domain.hi[a] + 2.0 * w->h);
    float *pos[2][3] = {{s->ax, s->ay, s->az}, {s->bx, s->by, s->bz}};
    float *zero[] = {s->lambda, s->ux, s->uy, s->uz, s->wx, s->wy, s->wz, s->wn};
    for (int q = 0; q <= s->sentinel; q++) {
        int bi = q - s->padded;
        int boundary = bi >= 0 && bi < b->count;
        float p[3] = {boundary ? b->x[bi] : far[0], boundary ? b->y[bi] : far[1], boundary ? b->z[bi] : far[2]};
        for (int k = 0; k < 2; k++)
            for (int a = 0; a < 3; a++)
                pos[k][a][q] = p[a];
        s->weight[q] = q < s->n ? (float)(w->mass / w->rho0) : boundary ? b->volume[bi] : 0.0f;
        for (size_t k = 0; k < sizeof zero / sizeof zero[0]; k++)
            zero[k][q] = 0.0f;
    }
}

int fl_pbf_read_params(const fl_params *p, pbf_params *prm, fl_error *err)
{
    if (fl_params_check_known(p, pbf_keys, err) ||
        fl_params_get_int(p, "solver_iterations", 4, 1, FL_MAX_HISTORY, &prm->solver_iterations, err) ||
        fl_params_get(p, "eta", 0.0, 0.0, 1.0, &prm->eta, err) ||
        fl_params_get(p, "cfm_epsilon", 1.0, 0.0, 1e6, &prm->cfm_epsilon, err) ||
        fl_params_get(p, "scorr_k", 0.1, 0.0, 10.0, &prm->scorr_k, err) ||
        fl_params_get_int(p, "scorr_n", 4, 1, 16, &prm->scorr_n, err) ||
        fl_params_get(p, "scorr_dq", 0.2, 0.0, 0.9, &prm->scorr_dq, err) ||
        fl_params_get(p, "vorticity_epsilon", 0.0, 0.0, 1e3, &prm->vorticity_epsilon, err) ||
        fl_params_get(p, "xsph_c", 0.01, 0.0, 1.0, &prm->xsph_c, err) ||
        fl_params_get_int(p, "sort_interval", 16, 0, 1000000000, &prm->sort_interval, err) ||
        fl_params_get_int(p, "constraint_solver", FL_PBF_JACOBI, FL_PBF_JACOBI, FL_PBF_SOR, &prm->constraint_solver,
                          err) ||
        fl_params_get(p, "relaxation", 1.0, 0.0, 2.0, &prm->relaxation, err) ||
        fl_params_get_bool(p, "one_sided", 0, &prm->one_sided, err) ||
        fl_viscosity_model_get(p, &prm->viscosity_model, err))
        return FL_ERR_INPUT;
    /* omega means something to averaged Jacobi, (0, 2] (the deck's SOR
     * factor on it: 1 to 2), and to SOR, (0, 2); the others have none */
    const int solver = prm->constraint_solver;
    const double omega = prm->relaxation;
    if ((solver == FL_PBF_JACOBI || solver == FL_PBF_GAUSS_SEIDEL) && omega != 1.0)
        return fl_fail(err, FL_ERR_INPUT,
                       "%s.relaxation: only with constraint_solver 1 (averaged Jacobi) or 3 (SOR), got %g with "
                       "constraint_solver %d", p->source, omega, solver);
    if (solver == FL_PBF_AVERAGED_JACOBI && !(omega > 0.0))
        return fl_fail(err, FL_ERR_INPUT, "%s.relaxation: expected a value in (0, 2] for averaged Jacobi, got %g",
                       p->source, omega);
    if (solver == FL_PBF_SOR && !(omega > 0.0 && omega < 2.0))
        return fl_fail(err, FL_ERR_INPUT, "%s.relaxation: expected a value in (0, 2) for SOR, got %g", p->source,
                       omega);
    return FL_OK;
}

static void *pbf_create(fl_world *w, const fl_params *p, fl_error *err)
{
    pbf_params prm;
    if (fl_pbf_read_params(p, &prm, err))
        return NULL;
    /* the tool's displacements (pbf_tool_delta) are those of Jacobi's lambdas */
    if (w->tool.active && prm.constraint_solver != FL_PBF_JACOBI) {
        fl_fail(err, FL_ERR_INPUT, "%s.constraint_solver: a scene with a tool needs Jacobi (0), got %d", p->source,
                prm.constraint_solver);
        return NULL;
    }
    pbf_solver *s = calloc(1, sizeof *s);
    if (!s) {
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the PBF solver");
        return NULL;
    }
    s->prm = prm;
    s->per = fl_period_of(w);
    s->n = w->fluid.count;
    s->blocks = (s->n + PBF_LANES - 1) / PBF_LANES;
    s->padded = s->blocks * PBF_LANES;
    s->sentinel = s->padded + w->boundary.count;
    size_t slots = (size_t)s->sentinel + 1;
    float **arrays[] = {&s->ax, &s->ay, &s->az, &s->bx, &s->by, &s->bz, &s->weight,
                        &s->lambda, &s->ux, &s->uy, &s->uz, &s->wx, &s->wy, &s->wz, &s->wn};
    int ok = 1;
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        ok &= (*arrays[k] = fl_alloc(slots * sizeof(float))) != NULL;
    ok &= (s->packed = fl_alloc(4 * slots * sizeof(float))) != NULL;
    ok &= (s->packed_u = fl_alloc(4 * slots * sizeof(float))) != NULL;
    ok &= (s->lambda_sum = fl_alloc((size_t)(s->padded > 0 ? s->padded : 1) * sizeof(float))) != NULL;
    ok &= (s->scratch = fl_alloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(float))) != NULL;
    ok &= (s->row_start = fl_alloc((size_t)(s->blocks + 1) * sizeof(int))) != NULL;
    if (prm.constraint_solver == FL_PBF_AVERAGED_JACOBI)
        ok &= (s->scale = fl_alloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(float))) != NULL;
    for (int a = 0; a < 3 && w->tool.active; a++) {
        float **t = a == 0 ? &s->tx : a == 1 ? &s->ty : &s->tz;
        ok &= (*t = fl_alloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(float))) != NULL;
    }
    if (w->tool.active)
        ok &= (s->touching = fl_alloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(int))) != NULL;
    for (int a = 0; a < 3 && prm.viscosity_model == FL_VISCOSITY_MORRIS; a++) {
        float **m = a == 0 ? &s->mx : a == 1 ? &s->my : &s->mz;
        ok &= (*m = fl_alloc((size_t)(s->n > 0 ? s->n : 1) * sizeof(float))) != NULL;
    }
    /* room for 48 rows a block: a full lattice neighborhood has 26 fluid
     * neighbors, a particle on a wall up to about 15 boundary ones more */
    ok &= pbf_reserve_table(s, 48LL * s->padded) == FL_OK;
    if (!ok) {
        pbf_destroy(s);
        fl_fail(err, FL_ERR_MEMORY, "out of memory for the PBF solver's %d particles", w->fluid.count);
        return NULL;
    }
    if (fl_nbgrid_init(&s->grid, w, err)) {
        pbf_destroy(s);
        return NULL;
    }
    pbf_fill_static_slots(s, w);
    return s;
}

double fl_pbf_grad_sq_full(const fl_world *w)
{
    const double vol = w->mass / w->rho0;
    return vol * vol * fl_lattice_grad_sq(w->spacing, w->h, w->dims);
}

fl_pbf_consts fl_pbf_make_consts(const pbf_params *prm, const fl_world *w, double dt)
{
    const double grad_sq_full = fl_pbf_grad_sq_full(w);
    const double h = w->h, dq = prm->scorr_dq * h, vol = w->mass / w->rho0;
    fl_pbf_consts c = {
        .h = (float)h,
        .h2 = (float)(h * h),
        .dim = w->dims,
        .rho0 = (float)w->rho0,
        .vol = (float)vol,
        .self = (float)(vol * fl_poly6(0.0f, (float)h, w->dims)),
        .eps = (float)(prm->cfm_epsilon * grad_sq_full),
        .one_sided = prm->one_sided,
        /* a constraint error k turns into a lambda as C does in eq. 11 */
        .scorr_k = (float)(-prm->scorr_k / grad_sq_full),
        .scorr_scale = (float)(1.0 / (h * h - dq * dq)),
        .scorr_n = prm->scorr_n,
        .xsph_c = prm->viscosity_model == FL_VISCOSITY_MORRIS ? 0.0f : (float)prm->xsph_c, /* Morris instead */
        .inv_dt = (float)(1.0 / dt),
    };
    fl_walls_make(w, 1, &c.walls);
    return c;
}

/* The first row of block b in the neighbor table, and its number of rows. */
static inline const int *pbf_rows(const pbf_solver *s, int b, int *rows)
{
    *rows = (s->row_start[b + 1] - s->row_start[b]) / PBF_LANES;
    return s->table + s->row_start[b];
}

/* Slot q's a[q], b[q], c[q] and d[q] into p[4q .. 4q + 3], for every slot,
 * so that a table row's neighbors come in with 16 loads of four floats
 * (pbf_row_load) instead of a gather per array. */
static void pbf_pack(const pbf_solver *s, float *restrict p, const float *a, const float *b, const float *c,
                     const float *d)
{
    #pragma omp parallel for schedule(static)
    for (int q = 0; q <= s->sentinel; q++)
        p[4 * q] = a[q], p[4 * q + 1] = b[q], p[4 * q + 2] = c[q], p[4 * q + 3] = d[q];
}

/* The packed values of the PBF_LANES slots of a table row, one array each:
 * a[l] = packed[4 row[l]], b[l] = packed[4 row[l] + 1], and so on. With
 * AVX-512, four loads of four floats fill each of four registers and a
 * 4x4 transpose in each 128-bit lane sorts them out; elsewhere, the same
 * by the lane. The loads are (masked) broadcasts, which Intel's cores run
 * on either of two ports, where an insert needs the shuffle port that the
 * transpose and half the arithmetic also use (about 7 % off the pressure
 * solve of bench --tool pbf on a 2-core Xeon). */
FL_FORCE_INLINE void pbf_row_load(const float *restrict packed, const int *restrict row, float *restrict a,
                                  float *restrict b, float *restrict c, float *restrict d)
{
#if defined(__AVX512F__) && PBF_LANES == 16
    __m512 r[4];
    const __m128 *quad = (const __m128 *)packed;
    for (int k = 0; k < 4; k++) {
        r[k] = _mm512_broadcast_f32x4(quad[(ptrdiff_t)row[k]]);
        r[k] = _mm512_mask_broadcast_f32x4(r[k], 0x00f0, quad[(ptrdiff_t)row[k + 4]]);
        r[k] = _mm512_mask_broadcast_f32x4(r[k], 0x0f00, quad[(ptrdiff_t)row[k + 8]]);
        r[k] = _mm512_mask_broadcast_f32x4(r[k], 0xf000, quad[(ptrdiff_t)row[k + 12]]);
    }
    /* in each 128-bit lane q, r[k] holds slot row[4q + k]'s four values */
    const __m512 t0 = _mm512_unpacklo_ps(r[0], r[1]), t1 = _mm512_unpackhi_ps(r[0], r[1]);
    const __m512 t2 = _mm512_unpacklo_ps(r[2], r[3]), t3 = _mm512_unpackhi_ps(r[2], r[3]);
    _mm512_storeu_ps(a, _mm512_shuffle_ps(t0, t2, 0x44));
    _mm512_storeu_ps(b, _mm512_shuffle_ps(t0, t2, 0xee));
    _mm512_storeu_ps(c, _mm512_shuffle_ps(t1, t3, 0x44));
    _mm512_storeu_ps(d, _mm512_shuffle_ps(t1, t3, 0xee));
#else
    for (int l = 0; l < PBF_LANES; l++) {
        const float *p = packed + 4 * row[l];
        a[l] = p[0], b[l] = p[1], c[l] = p[2], d[l] = p[3];
    }
#endif
}

/* Density of the estimate q (eq. 2: rho_i / rho0 = m/rho0 (W(0) +
 * sum_j W_ij) + sum_b V_b W_ib) and lambda_i (eq. 11) of the particles of
 * block b. The gradient of C_i with respect to a fluid neighbor j is
 * -m/rho0 grad W_ij; with respect to i itself, the sum of those of all its
 * neighbors, weighted by m/rho0 or V_b (eq. 8). A boundary particle cannot
 * move, so it adds nothing else to the denominator. The part of eq. 14
 * that needs no neighbor's lambda, lambda_i grad_i C_i, goes to (ox, oy, oz).
 * per: the periods, or NULL without a periodic axis (fl_pair_image; a
 * constant at every call, as in every block function below). dim is
 * c->dim, passed apart so that the caller can make it a constant: with
 * both kernels' coefficients chosen by a runtime dim inside the loop, gcc
 * 12 leaves the loop scalar (pbf_lambda_pass). */
FL_FORCE_INLINE void pbf_lambda_block(int b, const pbf_solver *s, const fl_pbf_consts *c, const fl_period *per,
                                      int dim, const float *qx, const float *qy, const float *qz, float *rho,
                                      float *lambda, float *ox, float *oy, float *oz)
{
    const int i0 = b * PBF_LANES;
    const float h = c->h;
    float xi[PBF_LANES], yi[PBF_LANES], zi[PBF_LANES];
    float wsum[PBF_LANES], sq[PBF_LANES], gx[PBF_LANES], gy[PBF_LANES], gz[PBF_LANES];
    for (int l = 0; l < PBF_LANES; l++) {
        xi[l] = qx[i0 + l], yi[l] = qy[i0 + l], zi[l] = qz[i0 + l];
        wsum[l] = sq[l] = gx[l] = gy[l] = gz[l] = 0.0f;
    }
    int rows;
    const int *row = pbf_rows(s, b, &rows);
    for (int m = 0; m < rows; m++, row += PBF_LANES) {
        float xj[PBF_LANES], yj[PBF_LANES], zj[PBF_LANES], wj[PBF_LANES];
        pbf_row_load(s->packed, row, xj, yj, zj, wj);
        #pragma omp simd
        for (int l = 0; l < PBF_LANES; l++) {
            float dx = xi[l] - xj[l], dy = yi[l] - yj[l], dz = zi[l] - zj[l];
            fl_pair_image(per, &dx, &dy, &dz);
            fl_pbf_lambda_terms t = fl_pbf_lambda_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, wj[l], row[l] < s->n, h, dim);
            wsum[l] += t.w;
            gx[l] += t.gx, gy[l] += t.gy, gz[l] += t.gz;
            sq[l] += t.sq;
        }
    }
    #pragma omp simd
    for (int l = 0; l < PBF_LANES; l++) {
        const int i = i0 + l;
        float ci, li = fl_pbf_lambda(c, wsum[l], sq[l], gx[l], gy[l], gz[l], &ci);
        if (i < s->n) {
            rho[i] = fl_pbf_constraint_density(c, ci);
            lambda[i] = li;
            ox[i] = li * gx[l], oy[i] = li * gy[l], oz[i] = li * gz[l];
        }
    }
}

/* The rest of eq. 14 for the particles of block b: m/rho0 sum_j (lambda_j
 * + s_corr) grad W_ij over fluid neighbors, added to the estimate and to
 * lambda_i grad_i C_i (in (ox, oy, oz), replaced by the new estimate),
 * then the collision response. Adds lambda_i to lambda_sum (first
 * iteration: sets it). scorr_n is c->scorr_n, passed apart so that a
 * caller can make it a constant. With scale (averaged Jacobi), particle
 * i's correction is scaled by scale[i]; NULL for Jacobi. */
FL_FORCE_INLINE void pbf_delta_block(int b, pbf_solver *s, const fl_pbf_consts *c, const fl_period *per, int scorr_n,
                                     int first, const float *scale, const float *restrict qx,
                                     const float *restrict qy, const float *restrict qz, float *restrict ox,
                                     float *restrict oy, float *restrict oz)
{
    const int i0 = b * PBF_LANES;
    float xi[PBF_LANES], yi[PBF_LANES], zi[PBF_LANES], fx[PBF_LANES], fy[PBF_LANES], fz[PBF_LANES];
    for (int l = 0; l < PBF_LANES; l++) {
        xi[l] = qx[i0 + l], yi[l] = qy[i0 + l], zi[l] = qz[i0 + l];
        fx[l] = fy[l] = fz[l] = 0.0f;
    }
    int rows;
    const int *row = pbf_rows(s, b, &rows);
    for (int m = 0; m < rows; m++, row += PBF_LANES) {
        float xj[PBF_LANES], yj[PBF_LANES], zj[PBF_LANES], lj[PBF_LANES];
        pbf_row_load(s->packed, row, xj, yj, zj, lj);
        #pragma omp simd
        for (int l = 0; l < PBF_LANES; l++) {
            float dx = xi[l] - xj[l], dy = yi[l] - yj[l], dz = zi[l] - zj[l];
            fl_pair_image(per, &dx, &dy, &dz);
            /* lambda_j is 0 but for fluid particles */
            float gr = fl_pbf_delta_pair(c, scorr_n, dx * dx + dy * dy + dz * dz, lj[l], row[l] < s->n);
            fx[l] += gr * dx, fy[l] += gr * dy, fz[l] += gr * dz;
        }
    }
    for (int l = 0; l < PBF_LANES && i0 + l < s->n; l++) {
        const int i = i0 + l;
        const float x[3] = {xi[l], yi[l], zi[l]}, own[3] = {ox[i], oy[i], oz[i]}, sum[3] = {fx[l], fy[l], fz[l]};
        float q[3];
        if (scale)
            fl_pbf_correct_scaled(c, scale[i], x, own, sum, q);
        else
            fl_pbf_correct(c, x, own, sum, q);
        ox[i] = q[0], oy[i] = q[1], oz[i] = q[2];
        s->lambda_sum[i] = (first ? 0.0f : s->lambda_sum[i]) + s->lambda[i];
    }
}

/* For the particles of block b, from their final estimate q and the
 * velocities (ux, uy, uz) = (q - x) / dt (Algorithm 1, line 21): the XSPH
 * velocity (eq. 17) into the store, the density of q (eq. 2) into rho,
 * and, with vorticity confinement on, the curl omega_i (eq. 15) and its
 * magnitude. Forced inline, so that a constant vorticity folds the curl
 * away from the loop when it is off; dim as in pbf_lambda_block. */
FL_FORCE_INLINE void pbf_velocity_block(int b, const pbf_solver *s, const fl_pbf_consts *c, const fl_period *per,
                                        int dim, int vorticity, const float *qx, const float *qy, const float *qz,
                                        fl_particles *f)
{
    const int i0 = b * PBF_LANES;
    const float h = c->h;
    float xi[PBF_LANES], yi[PBF_LANES], zi[PBF_LANES], ui[PBF_LANES], vi[PBF_LANES], wi[PBF_LANES];
    float wsum[PBF_LANES], sx[PBF_LANES], sy[PBF_LANES], sz[PBF_LANES], ox[PBF_LANES], oy[PBF_LANES],
        oz[PBF_LANES];
    for (int l = 0; l < PBF_LANES; l++) {
        const int i = i0 + l;
        xi[l] = qx[i], yi[l] = qy[i], zi[l] = qz[i];
        ui[l] = s->ux[i], vi[l] = s->uy[i], wi[l] = s->uz[i];
        wsum[l] = sx[l] = sy[l] = sz[l] = ox[l] = oy[l] = oz[l] = 0.0f;
    }
    int rows;
    const int *row = pbf_rows(s, b, &rows);
    for (int m = 0; m < rows; m++, row += PBF_LANES) {
        float xj[PBF_LANES], yj[PBF_LANES], zj[PBF_LANES], uj[PBF_LANES], vj[PBF_LANES], wj[PBF_LANES],
            weight[PBF_LANES];
        pbf_row_load(s->packed, row, xj, yj, zj, weight);
        pbf_row_load(s->packed_u, row, uj, vj, wj, weight);
        #pragma omp simd
        for (int l = 0; l < PBF_LANES; l++) {
            const int fluid = row[l] < s->n;
            float dx = xi[l] - xj[l], dy = yi[l] - yj[l], dz = zi[l] - zj[l];
            fl_pair_image(per, &dx, &dy, &dz);
            /* v_j - v_i, for fluid neighbors only (XSPH and the curl are over the fluid) */
            float du = fluid ? uj[l] - ui[l] : 0.0f, dv = fluid ? vj[l] - vi[l] : 0.0f,
                  dw = fluid ? wj[l] - wi[l] : 0.0f;
            fl_pbf_velocity_terms t = fl_pbf_velocity_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, du, dv, dw,
                                                           weight[l], h, dim, vorticity);
            wsum[l] += t.w;
            sx[l] += t.sx, sy[l] += t.sy, sz[l] += t.sz;
            ox[l] += t.ox, oy[l] += t.oy, oz[l] += t.oz;
        }
    }
    for (int l = 0; l < PBF_LANES && i0 + l < s->n; l++) {
        const int i = i0 + l;
        const float u[3] = {ui[l], vi[l], wi[l]}, sum[3] = {sx[l], sy[l], sz[l]}, curl[3] = {ox[l], oy[l], oz[l]};
        float v[3], omega[4];
        f->rho[i] = fl_pbf_density(c, wsum[l]);
        fl_pbf_velocity(c, u, sum, curl, v, omega);
        f->vx[i] = v[0], f->vy[i] = v[1], f->vz[i] = v[2];
        s->wx[i] = omega[0], s->wy[i] = omega[1], s->wz[i] = omega[2], s->wn[i] = omega[3];
    }
}

/* Morris's viscosity instead of XSPH, after the velocity update and the
 * vorticity: v_i += dt nu lap v_i (fl_morris_accel) at the final estimate
 * (qx, qy, qz), every lap v_i from the same velocities. */
static void pbf_morris(pbf_solver *s, fl_world *w, const float *qx, const float *qy, const float *qz, float dt)
{
    fl_particles *f = &w->fluid;
    const fl_period *per = s->per.any ? &s->per : NULL;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < s->n; i++) {
        float a[3];
        if (per)
            fl_morris_accel(i, w, &s->grid, qx, qy, qz, per, a);
        else
            fl_morris_accel(i, w, &s->grid, qx, qy, qz, NULL, a);
        s->mx[i] = a[0], s->my[i] = a[1], s->mz[i] = a[2];
    }
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < s->n; i++)
        f->vx[i] += dt * s->mx[i], f->vy[i] += dt * s->my[i], f->vz[i] += dt * s->mz[i];
}

/* Vorticity confinement (eq. 16) for the particles of block b:
 * v_i += dt eps (N x omega_i), N = eta / |eta|, with eta = grad |omega| at
 * i estimated from the differences m/rho0 sum_j (|omega_j| - |omega_i|)
 * grad W_ij over fluid neighbors (zero in a uniform field). */
FL_FORCE_INLINE void pbf_confine_block(int b, const pbf_solver *s, const fl_pbf_consts *c, const fl_period *per,
                                       float dt_eps, const float *qx, const float *qy, const float *qz,
                                       fl_particles *f)
{
    const int i0 = b * PBF_LANES;
    const float h = c->h;
    const int dim = c->dim;
    float xi[PBF_LANES], yi[PBF_LANES], zi[PBF_LANES], wi[PBF_LANES], ex[PBF_LANES], ey[PBF_LANES],
        ez[PBF_LANES];
    for (int l = 0; l < PBF_LANES; l++) {
        const int i = i0 + l;
        xi[l] = qx[i], yi[l] = qy[i], zi[l] = qz[i];
        wi[l] = s->wn[i];
        ex[l] = ey[l] = ez[l] = 0.0f;
    }
    int rows;
    const int *row = pbf_rows(s, b, &rows);
    for (int m = 0; m < rows; m++, row += PBF_LANES) {
        #pragma omp simd
        for (int l = 0; l < PBF_LANES; l++) {
            const int j = row[l];
            float dx = xi[l] - qx[j], dy = yi[l] - qy[j], dz = zi[l] - qz[j];
            fl_pair_image(per, &dx, &dy, &dz);
            float wj = s->wn[j];
            float t = fl_pbf_confine_pair(wi[l], wj, j < s->n, dx * dx + dy * dy + dz * dz, h, dim);
            ex[l] += t * dx, ey[l] += t * dy, ez[l] += t * dz;
        }
    }
    for (int l = 0; l < PBF_LANES && i0 + l < s->n; l++) {
        const int i = i0 + l;
        const float eta[3] = {ex[l], ey[l], ez[l]}, omega[3] = {s->wx[i], s->wy[i], s->wz[i]};
        float v[3] = {f->vx[i], f->vy[i], f->vz[i]};
        fl_pbf_confine(dt_eps, eta, omega, v);
        f->vx[i] = v[0], f->vy[i] = v[1], f->vz[i] = v[2];
    }
}

/* The neighbor table of the step from the grid's lists: row m of block b
 * holds the m-th neighbor of each of its particles, fluid ones first, then
 * boundary ones (as their slots), then the sentinel. */
static int pbf_fill_table(pbf_solver *s, const fl_nbgrid *g)
{
    const int n = s->n;
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < s->blocks; b++) {
        int rows = 0;
        for (int i = b * PBF_LANES; i < (b + 1) * PBF_LANES && i < n; i++) {
            int len = g->nb_start[i + 1] - g->nb_start[i] + g->bnb_start[i + 1] - g->bnb_start[i];
            rows = len > rows ? len : rows;
        }
        s->row_start[b + 1] = rows;
    }
    long long entries = 0;
    s->row_start[0] = 0;
    for (int b = 0; b < s->blocks; b++) {
        entries += (long long)s->row_start[b + 1] * PBF_LANES;
        if (entries > INT_MAX)
            return FL_ERR_MEMORY;
        s->row_start[b + 1] = (int)entries;
    }
    if (pbf_reserve_table(s, entries))
        return FL_ERR_MEMORY;
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < s->blocks; b++) {
        int *row = s->table + s->row_start[b];
        const int rows = (s->row_start[b + 1] - s->row_start[b]) / PBF_LANES;
        for (int l = 0; l < PBF_LANES; l++) {
            const int i = b * PBF_LANES + l;
            int m = 0;
            if (i < n) {
                for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++)
                    row[m++ * PBF_LANES + l] = g->nb[k];
                for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++)
                    row[m++ * PBF_LANES + l] = s->padded + g->bnb[k];
            }
            for (; m < rows; m++)
                row[m * PBF_LANES + l] = s->sentinel;
        }
    }
    return FL_OK;
}

/* The tool's boundary slots at its particles' positions for the step. */
static void pbf_move_tool_slots(pbf_solver *s, const fl_world *w)
{
    const fl_boundary *b = &w->boundary;
    for (int k = w->tool.first; k < b->count; k++) {
        const int q = s->padded + k;
        s->ax[q] = s->bx[q] = b->x[k];
        s->ay[q] = s->by[q] = b->y[k];
        s->az[q] = s->bz[q] = b->z[k];
    }
}

/* The particles of the step's lists that have one of the tool's particles
 * among their boundary neighbors, in index order: the only ones the tool
 * moves. */
static void pbf_find_touching(pbf_solver *s, const fl_world *w, const fl_nbgrid *g)
{
    const int tool = fl_tool_first(&w->tool);
    int count = 0;
    for (int i = 0; i < s->n; i++) {
        int touches = 0;
        for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1] && !touches; k++)
            touches = g->bnb[k] >= tool;
        if (touches)
            s->touching[count++] = i;
    }
    s->touching_count = count;
}

/* The tool's part of eq. 14 for each particle i it touches, at the
 * estimate q: the displacement lambda_i sum_b V_b grad W_ib over the
 * tool's boundary neighbors b, added to (tx, ty, tz)[i] (first iteration:
 * set). */
static void pbf_tool_delta(pbf_solver *s, const fl_world *w, const fl_nbgrid *g, const float *qx, const float *qy,
                           const float *qz, int first)
{
    const fl_boundary *b = &w->boundary;
    const int tool = fl_tool_first(&w->tool);
    const float h = (float)w->h;
    const int dim = w->dims;
    #pragma omp parallel for schedule(static)
    for (int t = 0; t < s->touching_count; t++) {
        const int i = s->touching[t];
        float d[3] = {0, 0, 0};
        for (int k = g->bnb_start[i]; k < g->bnb_start[i + 1]; k++) {
            const int j = g->bnb[k];
            if (j < tool)
                continue;
            float dx = qx[i] - b->x[j], dy = qy[i] - b->y[j], dz = qz[i] - b->z[j];
            fl_pbf_lambda_terms t = fl_pbf_lambda_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, b->volume[j], 0, h, dim);
            d[0] += t.gx, d[1] += t.gy, d[2] += t.gz;
        }
        fl_pbf_tool_add(s->lambda[i], d, first, &s->tx[i], &s->ty[i], &s->tz[i]);
    }
}

/* Lines 1-7: every sort_interval steps reorder the store by cell (binned
 * at x(t)); apply gravity, predict x*, push it back into the domain; bin
 * and search at x*, and lay the lists out in blocks. */
static int pbf_predict_and_search(pbf_solver *s, fl_world *w, const fl_pbf_consts *c, double dt, fl_step_stats *st)
{
    fl_particles *f = &w->fluid;
    fl_nbgrid *g = &s->grid;
    fl_error err = {""};
    int rc = FL_OK;
    double t0 = fl_now_ms();
    if (s->prm.sort_interval > 0 && s->steps % s->prm.sort_interval == 0) {
        rc = fl_nbgrid_build(g, f->x, f->y, f->z, f->count, &err);
        if (rc == FL_OK)
            fl_particles_permute(f, fl_nbgrid_order(g), s->scratch);
    }
    double t1 = fl_now_ms();
    const float gdt[3] = {(float)(dt * w->gravity[0]), (float)(dt * w->gravity[1]), (float)(dt * w->gravity[2])};
    const float fdt = (float)dt;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        const float x[3] = {f->x[i], f->y[i], f->z[i]};
        float v[3] = {f->vx[i], f->vy[i], f->vz[i]}, q[3];
        fl_pbf_predict(&c->walls, x, v, gdt, fdt, q);
        f->vx[i] = v[0], f->vy[i] = v[1], f->vz[i] = v[2];
        s->ax[i] = q[0], s->ay[i] = q[1], s->az[i] = q[2];
    }
    double t2 = fl_now_ms();
    if (rc == FL_OK && w->tool.active) {
        rc = fl_nbgrid_update_boundary(g, w, &err);
        pbf_move_tool_slots(s, w);
    }
    if (rc == FL_OK)
        rc = fl_nbgrid_build(g, s->ax, s->ay, s->az, f->count, &err);
    double t3 = fl_now_ms();
    if (rc == FL_OK)
        rc = fl_nbgrid_search(g, s->ax, s->ay, s->az, &err);
    if (rc == FL_OK && w->tool.active)
        pbf_find_touching(s, w, g);
    if (rc == FL_OK && (rc = pbf_fill_table(s, g)) != FL_OK)
        fl_fail(&err, rc, "out of memory for the neighbor table of %d particles", s->n);
    double t4 = fl_now_ms();
    st->stage_ms[FL_STAGE_GRID_BUILD] += (t1 - t0) + (t3 - t2);
    st->stage_ms[FL_STAGE_INTEGRATE] += t2 - t1;
    st->stage_ms[FL_STAGE_NEIGHBOR_SEARCH] += t4 - t3;
    return fl_step_failed(st, &err, rc);
}

/* With eps = 0 (cfm_epsilon 0) the denominator of eq. 11 is 0 for a
 * particle with no neighbor within h, and its lambda is infinite or NaN.
 * Counts the fluid particles whose lambda is not finite after iteration
 * k's lambdas (before they move anything); when there are any, says so in
 * st's failure and returns FL_ERR_OUTSIDE, which ends the run as unstable
 * (docs/design.md, stability criterion (a)). With eps > 0 the denominator
 * is at least eps, so the solvers call it only when eps is 0. */
static int pbf_check_lambdas(const pbf_solver *s, int k, fl_step_stats *st)
{
    const fl_nbgrid *g = &s->grid;
    int bad = 0, alone = 0;
    #pragma omp parallel for schedule(static) reduction(+ : bad, alone)
    for (int i = 0; i < s->n; i++) {
        if (!isfinite(s->lambda[i])) {
            bad++;
            alone += g->nb_start[i + 1] == g->nb_start[i] && g->bnb_start[i + 1] == g->bnb_start[i];
        }
    }
    if (bad == 0)
        return FL_OK;
    snprintf(st->failure, sizeof st->failure,
             "lambda is not finite at %d particle%s (%d with no neighbor within h; cfm_epsilon = 0: eq. 11 divides "
             "by zero), iteration %d", bad, bad == 1 ? "" : "s", alone, k + 1);
    return FL_ERR_OUTSIDE;
}

/* The lambda pass over every block at the estimate q (pbf_lambda_block):
 * rho, lambda and lambda_i grad_i C_i into (bx, by, bz). Without a
 * periodic axis the block is compiled for the scene's dim as a constant,
 * which lets the compiler vectorize its loop; each case is a parallel loop
 * of its own, since inside one loop gcc merges the identical calls back
 * into one with a runtime dim. */
static void pbf_lambda_pass(pbf_solver *s, const fl_pbf_consts *c, float *rho, const float *qx, const float *qy,
                            const float *qz)
{
    pbf_pack(s, s->packed, qx, qy, qz, s->weight);
    if (s->per.any) {
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++)
            pbf_lambda_block(b, s, c, &s->per, c->dim, qx, qy, qz, rho, s->lambda, s->bx, s->by, s->bz);
    } else if (c->dim == 3) {
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++)
            pbf_lambda_block(b, s, c, NULL, 3, qx, qy, qz, rho, s->lambda, s->bx, s->by, s->bz);
    } else {
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++)
            pbf_lambda_block(b, s, c, NULL, 2, qx, qy, qz, rho, s->lambda, s->bx, s->by, s->bz);
    }
}

/* Lines 8-19: the Jacobi iterations (constraint_solver 0), or averaged
 * Jacobi (1): the same, with each particle's correction scaled by omega /
 * n_i (fl_pbf_average_scale; n_i from the step's lists). Iteration k
 * evaluates the density of the estimate left by iteration k - 1 with its
 * lambdas, so the error after iteration k - 1 comes for free; the error
 * after the last one is measured in the velocity pass. The number of
 * iterations goes to *iterations. */
static int pbf_solve(pbf_solver *s, fl_world *w, const fl_pbf_consts *c, fl_step_stats *st, int *iterations)
{
    fl_particles *f = &w->fluid;
    if (s->scale) {
        const fl_nbgrid *g = &s->grid;
        const float omega = (float)s->prm.relaxation;
        #pragma omp parallel for schedule(static)
        for (int i = 0; i < s->n; i++)
            s->scale[i] = fl_pbf_average_scale(omega, g->nb_start[i + 1] - g->nb_start[i]);
    }
    int k = 0, rc = FL_OK;
    while (k < s->prm.solver_iterations) {
        const float *qx = s->ax, *qy = s->ay, *qz = s->az;
        pbf_lambda_pass(s, c, f->rho, qx, qy, qz);
        if (c->eps == 0.0f && (rc = pbf_check_lambdas(s, k, st)))
            break;
        if (k > 0) {
            fl_compression(f->rho, s->n, w->rho0, &st->residual[k - 1], &st->residual_max[k - 1]);
            if (s->prm.eta > 0.0 && st->residual_max[k - 1] < s->prm.eta)
                break;
        }
        if (w->tool.active)
            pbf_tool_delta(s, w, &s->grid, qx, qy, qz, k == 0);
        pbf_pack(s, s->packed, qx, qy, qz, s->lambda);
        /* the paper's n = 4 as a constant: the power is then two squarings */
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++) {
            if (s->per.any)
                pbf_delta_block(b, s, c, &s->per, c->scorr_n, k == 0, s->scale, qx, qy, qz, s->bx, s->by, s->bz);
            else if (c->scorr_n == 4)
                pbf_delta_block(b, s, c, NULL, 4, k == 0, s->scale, qx, qy, qz, s->bx, s->by, s->bz);
            else
                pbf_delta_block(b, s, c, NULL, c->scorr_n, k == 0, s->scale, qx, qy, qz, s->bx, s->by, s->bz);
        }
        float *t;
        t = s->ax, s->ax = s->bx, s->bx = t;
        t = s->ay, s->ay = s->by, s->by = t;
        t = s->az, s->az = s->bz, s->bz = t;
        k++;
    }
    *iterations = k;
    return rc;
}

/* Gauss-Seidel's projection of particle i's constraint alone, at the
 * current estimate (ax, ay, az), changed in place: rho_i and lambda_i
 * (fl_pbf_lambda_pair, fl_pbf_lambda, as pbf_lambda_block), then omega
 * times the correction it asks of each particle it involves
 * (fl_pbf_project_pair): i by lambda_i grad_i C_i and its share of
 * s_corr, each fluid neighbor j by lambda_i grad_j C_i and its share.
 * lambda_i goes to lambda; omega lambda_i is added to lambda_sum (first
 * iteration: set). A lambda that is not finite (eps = 0) moves nothing:
 * pbf_check_lambdas reports it after the sweep. per as in pbf_lambda_block. */
FL_FORCE_INLINE void pbf_project(pbf_solver *s, const fl_pbf_consts *c, const fl_period *per, int i, float omega,
                                 int first)
{
    float *qx = s->ax, *qy = s->ay, *qz = s->az;
    int rows;
    const int *row = pbf_rows(s, i / PBF_LANES, &rows) + i % PBF_LANES;
    const float xi = qx[i], yi = qy[i], zi = qz[i];
    float wsum = 0.0f, sq = 0.0f, gx = 0.0f, gy = 0.0f, gz = 0.0f;
    int m = 0;
    for (; m < rows && row[m * PBF_LANES] != s->sentinel; m++) {
        const int j = row[m * PBF_LANES];
        float dx = xi - qx[j], dy = yi - qy[j], dz = zi - qz[j];
        fl_pair_image(per, &dx, &dy, &dz);
        fl_pbf_lambda_terms t = fl_pbf_lambda_pair(dx, dy, dz, dx * dx + dy * dy + dz * dz, s->weight[j], j < s->n,
                                                   c->h, c->dim);
        wsum += t.w;
        gx += t.gx, gy += t.gy, gz += t.gz;
        sq += t.sq;
    }
    float ci, li = fl_pbf_lambda(c, wsum, sq, gx, gy, gz, &ci);
    s->lambda[i] = li;
    if (!isfinite(li))
        return;
    s->lambda_sum[i] = (first ? 0.0f : s->lambda_sum[i]) + omega * li;
    /* the fluid neighbors come first in a row, then the boundary ones */
    const float move_j = -omega * c->vol;
    float ox = 0.0f, oy = 0.0f, oz = 0.0f;
    for (int k = 0; k < m && row[k * PBF_LANES] < s->n; k++) {
        const int j = row[k * PBF_LANES];
        float dx = xi - qx[j], dy = yi - qy[j], dz = zi - qz[j], own;
        fl_pair_image(per, &dx, &dy, &dz);
        float t = move_j * fl_pbf_project_pair(c, c->scorr_n, dx * dx + dy * dy + dz * dz, li, &own);
        qx[j] += t * dx, qy[j] += t * dy, qz[j] += t * dz;
        ox += own * dx, oy += own * dy, oz += own * dz;
    }
    qx[i] = xi + omega * (li * gx + c->vol * ox);
    qy[i] = yi + omega * (li * gy + c->vol * oy);
    qz[i] = zi + omega * (li * gz + c->vol * oz);
}

/* Lines 8-19 by Gauss-Seidel (constraint_solver 2) or SOR (3, omega =
 * relaxation): each iteration is one sweep over the fluid particles in
 * their order in the store (by cell after a sort), projecting one
 * constraint after another (pbf_project), so that each sees the moves of
 * those before it, as the course deck's PBD loop does; then the collision
 * response. Sequential by nature: no OpenMP in the sweep. Before sweep k
 * a density pass (pbf_lambda_block, in parallel) measures the error after
 * sweep k - 1, so the history has the same meaning as Jacobi's; the error
 * after the last sweep is measured in the velocity pass. */
static int pbf_solve_sequential(pbf_solver *s, fl_world *w, const fl_pbf_consts *c, fl_step_stats *st,
                                int *iterations)
{
    fl_particles *f = &w->fluid;
    const float omega = s->prm.constraint_solver == FL_PBF_SOR ? (float)s->prm.relaxation : 1.0f;
    int k = 0, rc = FL_OK;
    while (k < s->prm.solver_iterations) {
        if (k > 0) {
            pbf_lambda_pass(s, c, f->rho, s->ax, s->ay, s->az);
            fl_compression(f->rho, s->n, w->rho0, &st->residual[k - 1], &st->residual_max[k - 1]);
            if (s->prm.eta > 0.0 && st->residual_max[k - 1] < s->prm.eta)
                break;
        }
        if (s->per.any)
            for (int i = 0; i < s->n; i++)
                pbf_project(s, c, &s->per, i, omega, k == 0);
        else
            for (int i = 0; i < s->n; i++)
                pbf_project(s, c, NULL, i, omega, k == 0);
        if (c->eps == 0.0f && (rc = pbf_check_lambdas(s, k, st)))
            break;
        for (int i = 0; i < s->n; i++) {
            float q[3] = {s->ax[i], s->ay[i], s->az[i]};
            fl_pbf_collide(&c->walls, q);
            s->ax[i] = q[0], s->ay[i] = q[1], s->az[i] = q[2];
        }
        k++;
    }
    *iterations = k;
    return rc;
}

static int pbf_step(void *self, fl_world *w, double dt, fl_step_stats *st)
{
    pbf_solver *s = self;
    fl_particles *f = &w->fluid;
    const fl_pbf_consts c = fl_pbf_make_consts(&s->prm, w, dt);
    int rc = pbf_predict_and_search(s, w, &c, dt, st);
    if (rc)
        return rc;

    double t0 = fl_now_ms();
    const int n = s->n;
    int k;
    /* the variants of docs/methods/pbf.md, section 12: chosen once per step */
    if (s->prm.constraint_solver == FL_PBF_GAUSS_SEIDEL || s->prm.constraint_solver == FL_PBF_SOR)
        rc = pbf_solve_sequential(s, w, &c, st, &k);
    else
        rc = pbf_solve(s, w, &c, st, &k);
    if (rc)
        return rc;
    st->iterations = k;
    double t1 = fl_now_ms();

    /* lines 20-22: velocity, XSPH and vorticity; the density of the final estimate */
    const float *qx = s->ax, *qy = s->ay, *qz = s->az;
    const fl_period *per = s->per.any ? &s->per : NULL;
    if (per) { /* x*_i may have wrapped: the minimum image of x*_i - x_i */
        #pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) {
            s->ux[i] = fl_pbf_velocity_wrapped(qx[i], f->x[i], per->len[0], per->inv[0], c.inv_dt);
            s->uy[i] = fl_pbf_velocity_wrapped(qy[i], f->y[i], per->len[1], per->inv[1], c.inv_dt);
            s->uz[i] = fl_pbf_velocity_wrapped(qz[i], f->z[i], per->len[2], per->inv[2], c.inv_dt);
        }
    } else {
        #pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) {
            s->ux[i] = fl_pbf_velocity_from(qx[i], f->x[i], c.inv_dt);
            s->uy[i] = fl_pbf_velocity_from(qy[i], f->y[i], c.inv_dt);
            s->uz[i] = fl_pbf_velocity_from(qz[i], f->z[i], c.inv_dt);
        }
    }
    const float eps_v = (float)s->prm.vorticity_epsilon;
    const int vorticity = eps_v > 0.0f;
    pbf_pack(s, s->packed, qx, qy, qz, s->weight);
    pbf_pack(s, s->packed_u, s->ux, s->uy, s->uz, s->weight);
    /* one parallel loop per case, with dim a constant in 3D (pbf_lambda_pass) */
    if (per) {
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++)
            pbf_velocity_block(b, s, &c, per, c.dim, vorticity, qx, qy, qz, f);
    } else if (c.dim != 3) {
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++)
            pbf_velocity_block(b, s, &c, NULL, c.dim, vorticity, qx, qy, qz, f);
    } else if (vorticity) {
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++)
            pbf_velocity_block(b, s, &c, NULL, 3, 1, qx, qy, qz, f);
    } else {
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++)
            pbf_velocity_block(b, s, &c, NULL, 3, 0, qx, qy, qz, f);
    }
    if (vorticity) {
        #pragma omp parallel for schedule(static)
        for (int b = 0; b < s->blocks; b++)
            if (per)
                pbf_confine_block(b, s, &c, per, (float)dt * eps_v, qx, qy, qz, f);
            else
                pbf_confine_block(b, s, &c, NULL, (float)dt * eps_v, qx, qy, qz, f);
    }
    if (s->prm.viscosity_model == FL_VISCOSITY_MORRIS)
        pbf_morris(s, w, qx, qy, qz, (float)dt);
    fl_compression(f->rho, n, w->rho0, &st->residual[k - 1], &st->residual_max[k - 1]);
    double t2 = fl_now_ms();

    /* line 23, and the pressure the lambdas stand for (fl_pbf_pressure) */
    const float p_scale = (float)(-w->rho0 / (dt * dt));
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < n; i++) {
        f->x[i] = qx[i], f->y[i] = qy[i], f->z[i] = qz[i];
        f->p[i] = fl_pbf_pressure(p_scale, s->lambda_sum[i]);
    }
    /* with a tool, the force its displacements stand for, m dx / dt^2, on
     * the particles it touched (the link holds 0 for the others) */
    const float inv_dt2 = (float)(1.0 / (dt * dt));
    for (int t = 0; w->tool.active && t < s->touching_count; t++) {
        const int i = s->touching[t];
        const float a[3] = {s->tx[i] * inv_dt2, s->ty[i] * inv_dt2, s->tz[i] * inv_dt2};
        fl_tool_store(&w->tool, i, (float)w->mass, a);
    }
    double t3 = fl_now_ms();
    st->stage_ms[FL_STAGE_PRESSURE_SOLVE] += t1 - t0;
    st->stage_ms[FL_STAGE_VELOCITY_UPDATE] += t2 - t1;
    st->stage_ms[FL_STAGE_INTEGRATE] += t3 - t2;
    st->max_speed = fl_max_speed(f, &st->nan_count);
    st->cfl = st->max_speed * dt / w->h;
    /* no stiffness limits the step: the flow-speed CFL only, which keeps a
     * particle's move within its neighbor lists */
    st->dt_limit = fl_explicit_dt_limit(w->h, 0.0, st->max_speed, 0.0);
    if (s->prm.viscosity_model == FL_VISCOSITY_MORRIS)
        st->dt_limit = fmin(st->dt_limit, fl_viscous_dt_limit(w->h, w->nu));
    s->steps++;
    return FL_OK;
}

static const char *const pbf_iteration_keys[] = {"solver_iterations", NULL};
static const char *const pbf_iteration_fixed[] = {"eta=0", NULL}; /* no early stop */

static int pbf_check_params(const fl_world *w, const fl_params *p, fl_error *err)
{
    pbf_params prm;
    (void)w;
    return fl_pbf_read_params(p, &prm, err);
}

const fl_solver_ops fl_pbf_ops = {
    .name = "pbf",
    .summary = "position based fluids (Macklin & Müller 2013): Jacobi density constraints (or averaged Jacobi, "
               "Gauss-Seidel, SOR), s_corr, XSPH, vorticity",
    .create = pbf_create,
    .step = pbf_step,
    .destroy = pbf_destroy,
    .iteration_keys = pbf_iteration_keys,
    .iteration_fixed = pbf_iteration_fixed,
    .param_keys = pbf_keys,
    .check_params = pbf_check_params,
};
