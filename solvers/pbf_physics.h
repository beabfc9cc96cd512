/* pbf_physics.h: the per-pair and per-particle physics of Position Based
 * Fluids (Macklin & Müller 2013), written once as static inline FL_HD
 * functions: the CPU solver (solvers/pbf.c) calls them from its blocked
 * OpenMP loops, the device kernels (solvers/dev_bodies.h) from theirs.
 * docs/methods/pbf.md maps each equation of the paper to its function.
 *
 * Conventions as in sph_physics.h: (dx, dy, dz) = x*_i - x*_j, r2 = r^2, a
 * pair factor s multiplies (dx, dy, dz). The masses are kept: the weight
 * of a fluid neighbor is its volume m/rho0, of a boundary particle its V_b. */
#ifndef FL_PBF_PHYSICS_H
#define FL_PBF_PHYSICS_H

#include <math.h>

#include "sph_physics.h"

/* The constants of the PBF physics for one step (from the parameters, the
 * world and dt; solvers/pbf.c fills them). */
typedef struct fl_pbf_consts {
    float h, h2;
    int dim;              /* the world's dims, 2 or 3 */
    float rho0;
    float vol;            /* m / rho0, m^3 */
    float self;           /* m/rho0 W(0): a particle's own share of rho_i / rho0 */
    float eps;            /* CFM eps of eq. 11, 1/m^2 (0: none) */
    int one_sided;        /* 1: C_i = max(rho_i/rho0 - 1, 0) */
    float scorr_k;        /* -k of eq. 13 as a lambda, m^2 */
    float scorr_scale;    /* 1 / (h^2 - dq^2) */
    int scorr_n;          /* n of eq. 13 */
    float xsph_c;         /* c of eq. 17 */
    float inv_dt;
    fl_walls walls;       /* the domain, rounded inwards; obstacles, rounded outwards */
} fl_pbf_consts;

/* One pair's terms of the density constraint (eqs. 2, 8): its share of
 * rho_i / rho0 (w), of grad_i C_i (g), and |grad_j C_i|^2 (sq, for a fluid
 * neighbor only: a boundary particle cannot move). */
typedef struct fl_pbf_lambda_terms {
    float w, gx, gy, gz, sq;
} fl_pbf_lambda_terms;

static inline FL_HD fl_pbf_lambda_terms fl_pbf_lambda_pair(float dx, float dy, float dz, float r2, float weight_j,
                                                           int fluid_j, float h, int dim)
{
    fl_pbf_lambda_terms t;
    float gr = weight_j * fl_spiky_grad_factor(sqrtf(r2), h, dim);
    t.gx = gr * dx, t.gy = gr * dy, t.gz = gr * dz;
    t.w = weight_j * fl_poly6(r2, h, dim);
    t.sq = fluid_j ? t.gx * t.gx + t.gy * t.gy + t.gz * t.gz : 0.0f;
    return t;
}

/* Eqs. 1 and 11 from the sums of the pair terms: C_i = rho_i/rho0 - 1
 * (into *c) and lambda_i = -C_i / (sum_j |grad_j C_i|^2 + |grad_i C_i|^2 + eps).
 * One-sided (the course deck's C_i <= 0), an under-dense particle's
 * constraint holds already: lambda_i = 0. With eps = 0, a particle with no
 * neighbor has a zero denominator and lambda_i is infinite (or NaN): the
 * solver reports it (pbf.c, pbf_check_lambdas). */
static inline FL_HD float fl_pbf_lambda(const fl_pbf_consts *c, float wsum, float sq, float gx, float gy, float gz,
                                        float *constraint)
{
    float ci = c->self + wsum - 1.0f;
    *constraint = ci;
    return c->one_sided && ci <= 0.0f ? 0.0f : -ci / (sq + gx * gx + gy * gy + gz * gz + c->eps);
}

/* The density the constraint C_i stands for: rho0 (C_i + 1). */
static inline FL_HD float fl_pbf_constraint_density(const fl_pbf_consts *c, float constraint)
{
    return c->rho0 * (constraint + 1.0f);
}

/* (W(r) / W(dq))^n of eq. 13 from r^2: the poly6 ratio is
 * ((h^2 - r^2) / (h^2 - dq^2))^3, raised to n (1..31) by squaring, written
 * out step by step so that a neighbor loop stays vectorizable (with n a
 * constant, the steps not taken fold away). */
static inline FL_HD float fl_pbf_scorr_ratio(float r2, const fl_pbf_consts *c, int n)
{
    float d = c->h2 - r2;
    float q = (d > 0.0f ? d : 0.0f) * c->scorr_scale;
    float p1 = q * q * q, p2 = p1 * p1, p4 = p2 * p2, p8 = p4 * p4, p16 = p8 * p8;
    float s = n & 1 ? p1 : 1.0f;
    s = n & 2 ? s * p2 : s;
    s = n & 4 ? s * p4 : s;
    s = n & 8 ? s * p8 : s;
    return n & 16 ? s * p16 : s;
}

/* Eqs. 12-14, the neighbor j's part of dp_i / (m/rho0): the pair factor
 * (lambda_j + s_corr) g_spiky(r); s_corr (eq. 13) only between fluid
 * particles, and lambda_j is 0 for a boundary particle. The particle's own
 * part, lambda_i grad_i C_i, comes from the lambda pass. scorr_n is
 * c->scorr_n, passed apart so that a caller can make it a constant. */
static inline FL_HD float fl_pbf_delta_pair(const fl_pbf_consts *c, int scorr_n, float r2, float lambda_j,
                                            int fluid_j)
{
    float scorr = c->scorr_k * fl_pbf_scorr_ratio(r2, c, scorr_n);
    float t = lambda_j + (fluid_j ? scorr : 0.0f);
    return t * fl_spiky_grad_factor(sqrtf(r2), c->h, c->dim);
}

/* Gauss-Seidel (the course deck's PBD loop): constraint C_i projected on
 * its own moves every particle k it involves by lambda_i grad_k C_i at
 * once. For a fluid neighbor j that is -m/rho0 lambda_i grad W_ij, and
 * each pair's s_corr (eq. 13) is split in half between the projections of
 * C_i and C_j, so that one sweep over frozen positions adds up to eq. 14:
 * returns (lambda_i + s_corr/2) g_spiky(r), the pair factor that moves j
 * by -m/rho0 factor (dx, dy, dz); *own = s_corr/2 g_spiky(r), the pair's
 * s_corr share of i's move, m/rho0 own (dx, dy, dz), on top of
 * lambda_i grad_i C_i. */
static inline FL_HD float fl_pbf_project_pair(const fl_pbf_consts *c, int scorr_n, float r2, float lambda_i,
                                              float *own)
{
    float half = 0.5f * c->scorr_k * fl_pbf_scorr_ratio(r2, c, scorr_n);
    float g = fl_spiky_grad_factor(sqrtf(r2), c->h, c->dim);
    *own = half * g;
    return (lambda_i + half) * g;
}

/* Averaged Jacobi (Macklin et al. 2014, the course deck's "平均雅可比"):
 * the factor omega / n_i on particle i's correction, n_i the number of
 * density constraints it takes part in, its own and one per fluid
 * neighbor (fluid_neighbors). */
static inline FL_HD float fl_pbf_average_scale(float omega, int fluid_neighbors)
{
    return omega / (float)(1 + fluid_neighbors);
}

/* A rigid tool's part of eq. 14 for a particle this iteration, lambda_i d
 * with d = sum_b V_b grad W_ib over the tool's particles b, added to the
 * step's sum (sx, sy, sz) (first iteration: set). */
static inline FL_HD void fl_pbf_tool_add(float lambda_i, const float d[3], int first, float *sx, float *sy,
                                         float *sz)
{
    *sx = (first ? 0.0f : *sx) + lambda_i * d[0];
    *sy = (first ? 0.0f : *sy) + lambda_i * d[1];
    *sz = (first ? 0.0f : *sz) + lambda_i * d[2];
}

/* The collision response: the point pushed back into the domain box and
 * out of every obstacle box, through the nearest face (particle centres
 * may touch the walls; the boundary particles keep them off in the
 * solve, this is the safety net); wrapped along a periodic axis. */
static inline FL_HD void fl_pbf_collide(const fl_walls *w, float q[3])
{
    for (int a = 0; a < 3; a++)
        q[a] = w->period[a] > 0.0f ? fl_walls_wrap(w, a, q[a]) : fl_walls_clamp(w, a, q[a]);
    for (int o = 0; o < w->obstacle_count; o++) {
        const float *lo = w->ob_lo[o], *hi = w->ob_hi[o];
        float depth = INFINITY, face = 0.0f;
        int axis = -1;
        for (int a = 0; a < 3; a++) {
            float dlo = q[a] - lo[a], dhi = hi[a] - q[a];
            if (dlo <= 0.0f || dhi <= 0.0f) {
                axis = -1;
                break;
            }
            if (dlo < depth)
                depth = dlo, axis = a, face = lo[a];
            if (dhi < depth)
                depth = dhi, axis = a, face = hi[a];
        }
        if (axis >= 0)
            q[axis] = face;
    }
}

/* The new estimate x*_i + lambda_i grad_i C_i + m/rho0 sum_j (...) grad W_ij
 * (own = lambda_i grad_i C_i, sum = the delta pairs' sum), pushed back
 * into the domain and out of the obstacles (fl_pbf_collide). */
static inline FL_HD void fl_pbf_correct(const fl_pbf_consts *c, const float x[3], const float own[3],
                                        const float sum[3], float q[3])
{
    q[0] = x[0] + own[0] + c->vol * sum[0];
    q[1] = x[1] + own[1] + c->vol * sum[1];
    q[2] = x[2] + own[2] + c->vol * sum[2];
    fl_pbf_collide(&c->walls, q);
}

/* The same with particle i's correction scaled (averaged Jacobi,
 * fl_pbf_average_scale): x*_i + scale (lambda_i grad_i C_i + m/rho0 sum_j (...) grad W_ij). */
static inline FL_HD void fl_pbf_correct_scaled(const fl_pbf_consts *c, float scale, const float x[3],
                                               const float own[3], const float sum[3], float q[3])
{
    q[0] = x[0] + scale * (own[0] + c->vol * sum[0]);
    q[1] = x[1] + scale * (own[1] + c->vol * sum[1]);
    q[2] = x[2] + scale * (own[2] + c->vol * sum[2]);
    fl_pbf_collide(&c->walls, q);
}

/* Algorithm 1, lines 1-4: v_i += dt g, x*_i = x_i + dt v_i, collided.
 * gdt = dt g. */
static inline FL_HD void fl_pbf_predict(const fl_walls *w, const float x[3], float v[3], const float gdt[3], float dt,
                                        float q[3])
{
    v[0] += gdt[0], v[1] += gdt[1], v[2] += gdt[2];
    q[0] = x[0] + dt * v[0], q[1] = x[1] + dt * v[1], q[2] = x[2] + dt * v[2];
    fl_pbf_collide(w, q);
}

/* Algorithm 1, line 21, one component: v_i = (x*_i - x_i) / dt. */
static inline FL_HD float fl_pbf_velocity_from(float q, float x, float inv_dt)
{
    return (q - x) * inv_dt;
}

/* The same along a periodic axis of length len (inv = 1/len), where x*_i
 * may have wrapped in the step: the minimum image of x*_i - x_i over dt. */
static inline FL_HD float fl_pbf_velocity_wrapped(float q, float x, float len, float inv, float inv_dt)
{
    return fl_min_image(q - x, len, inv) * inv_dt;
}

/* The pressure the lambdas of a step stand for: a displacement m/rho0
 * (lambda_i + lambda_j) grad W_ij is what the symmetric SPH pressure force
 * moves in one step with p_i = -rho0 lambda_i / dt^2 (p_scale = -rho0 / dt^2,
 * lambda_sum: lambda_i summed over the iterations). */
static inline FL_HD float fl_pbf_pressure(float p_scale, float lambda_sum)
{
    return p_scale * lambda_sum;
}

/* One pair's terms of the velocity pass at the final estimate: its share
 * of rho_i / rho0 (w), of the XSPH sum (eq. 17: W_ij (v_j - v_i), s) and
 * of the curl (eq. 15: (v_j - v_i) x grad_{x_j} W_ij, o; with vorticity
 * on). du = v_j - v_i, zero for a boundary neighbor. */
typedef struct fl_pbf_velocity_terms {
    float w, sx, sy, sz, ox, oy, oz;
} fl_pbf_velocity_terms;

static inline FL_HD fl_pbf_velocity_terms fl_pbf_velocity_pair(float dx, float dy, float dz, float r2, float du,
                                                               float dv, float dw, float weight_j, float h, int dim,
                                                               int vorticity)
{
    fl_pbf_velocity_terms t;
    float wij = fl_poly6(r2, h, dim);
    t.w = weight_j * wij;
    t.sx = wij * du, t.sy = wij * dv, t.sz = wij * dw;
    t.ox = t.oy = t.oz = 0.0f;
    if (vorticity) {
        /* grad_{x_j} W(x_i - x_j) = -grad W_ij */
        float gr = -fl_spiky_grad_factor(sqrtf(r2), h, dim);
        float gx = gr * dx, gy = gr * dy, gz = gr * dz;
        t.ox = dv * gz - dw * gy;
        t.oy = dw * gx - du * gz;
        t.oz = du * gy - dv * gx;
    }
    return t;
}

/* Line 21 and eq. 17: v_i = u_i + c m/rho0 sum_j W_ij (u_j - u_i), from
 * u = (x* - x) / dt; the curl omega_i = m/rho0 (the curl sum) and |omega_i|. */
static inline FL_HD void fl_pbf_velocity(const fl_pbf_consts *c, const float u[3], const float s[3], const float o[3],
                                         float v[3], float omega[4])
{
    const float xsph = c->xsph_c * c->vol;
    v[0] = u[0] + xsph * s[0], v[1] = u[1] + xsph * s[1], v[2] = u[2] + xsph * s[2];
    omega[0] = c->vol * o[0], omega[1] = c->vol * o[1], omega[2] = c->vol * o[2];
    omega[3] = sqrtf(omega[0] * omega[0] + omega[1] * omega[1] + omega[2] * omega[2]);
}

/* The density of the final estimate, rho0 (m/rho0 W(0) + the pairs' w). */
static inline FL_HD float fl_pbf_density(const fl_pbf_consts *c, float wsum)
{
    return c->rho0 * (c->self + wsum);
}

/* Eq. 16's gradient of |omega| at i, from the differences: the pair factor
 * (|omega_j| - |omega_i|) g_spiky(r) over fluid neighbors (zero in a
 * uniform field). */
static inline FL_HD float fl_pbf_confine_pair(float wn_i, float wn_j, int fluid_j, float r2, float h, int dim)
{
    return fluid_j ? (wn_j - wn_i) * fl_spiky_grad_factor(sqrtf(r2), h, dim) : 0.0f;
}

/* Eq. 16: v_i += dt eps (N x omega_i), N = eta / |eta|; dt_eps = dt eps. */
static inline FL_HD void fl_pbf_confine(float dt_eps, const float eta[3], const float omega[3], float v[3])
{
    float len = sqrtf(eta[0] * eta[0] + eta[1] * eta[1] + eta[2] * eta[2]);
    float scale = len > 0.0f ? dt_eps / len : 0.0f; /* no direction where |omega| is flat */
    v[0] += scale * (eta[1] * omega[2] - eta[2] * omega[1]);
    v[1] += scale * (eta[2] * omega[0] - eta[0] * omega[2]);
    v[2] += scale * (eta[0] * omega[1] - eta[1] * omega[0]);
}

#endif
