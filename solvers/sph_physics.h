/* sph_physics.h: the per-pair and per-particle physics of the SPH family
 * (SPH, WCSPH, PCISPH) and of the terms every particle solver shares: the
 * density estimator with its boundary (Akinci) term, the wall pressure,
 * the equations of state, the pair forces, the integration and the domain
 * clamp. Each equation is written once, here, as a static inline FL_HD
 * function: the CPU solvers call them from their OpenMP loops, the device
 * kernels (solvers/dev_bodies.h) from theirs. docs/methods/sph.md,
 * wcsph.md and pcisph.md give the derivations.
 *
 * Conventions: (dx, dy, dz) = x_i - x_j, r = |x_i - x_j|, r2 = r^2; a
 * "pair factor" s multiplies (dx, dy, dz) to give the pair's term of a sum;
 * h is the support radius. Float unless a comment says otherwise; the
 * order of operations is part of the definition (the CPU and the host runs
 * of the device kernels give the same bits). */
#ifndef FL_SPH_PHYSICS_H
#define FL_SPH_PHYSICS_H

#include <math.h>

#include "kernels.h"
#include "periodic.h"
#include "world.h"

/* ---- density ----------------------------------------------------------
 * rho_i = m (W(0) + sum_j W_ij) + rho0 sum_b V_b W_ib (poly6; Akinci et al.
 * 2012, eq. 5: a boundary particle b stands for the mass Psi_b = rho0 V_b).
 * fluid_sum = W(0) + sum_j W_ij, solid_sum = sum_b V_b W_ib. */
static inline FL_HD float fl_boundary_density_pair(float volume_b, float r2, float h, int dim)
{
    return volume_b * fl_poly6(r2, h, dim);
}

static inline FL_HD float fl_density_estimate(float m, float fluid_sum, float rho0, float solid_sum)
{
    return m * fluid_sum + rho0 * solid_sum;
}

/* The course deck's uncorrected density, which counts a boundary particle
 * with the fluid's mass m instead of Psi_b = rho0 V_b: rho_i = m (W(0) +
 * sum_j W_ij + sum_b W_ib), from fluid_sum = W(0) + sum_j W_ij and
 * raw_solid_sum = sum_b W_ib (`sph`'s corrected_density false). */
static inline FL_HD float fl_density_uncorrected(float m, float fluid_sum, float raw_solid_sum)
{
    return m * (fluid_sum + raw_solid_sum);
}

/* Shepard's correction: rho_i divided by the kernel's partition of unity at
 * x_i, sum_j (m / rho_j) W_ij (itself included) + sum_b V_b W_ib, with the
 * rho_j of the plain estimate; where a particle misses neighbors (the free
 * surface) the sum is below 1 and the corrected density comes back up to
 * what the neighbors it has stand for (`sph`'s shepard). */
static inline FL_HD float fl_density_shepard(float rho_i, float unity_sum)
{
    return rho_i / unity_sum;
}

/* The compression error of one particle, rho_i / rho0 - 1 (double): the
 * metric averages its positive part and takes its maximum. */
static inline FL_HD double fl_density_error(float rho, double rho0)
{
    return rho / rho0 - 1.0;
}

/* ---- the wall ----------------------------------------------------------
 * The pressure a boundary particle b carries in the pair (i, b), Pa: the
 * fluid particle's p_i extrapolated hydrostatically to the wall particle,
 * p_b = p_i + rho0 g . (x_b - x_i), the static-wall case of Adami, Hu &
 * Adams (2012)'s wall-pressure extrapolation taken pair by pair, never
 * below min(p_i, 0); (dx, dy, dz) = x_i - x_b. With p_b = p_i (Akinci
 * 2012's plain mirror) the wall carries no pressure gradient, and a tank's
 * particles next to a wall need a steeper gradient from their fluid
 * neighbors alone: PCISPH's tank read +11.6 % over rho0 g instead of
 * +7.5 % (docs/methods/sph.md section 4). */
static inline FL_HD float fl_wall_pressure(float p_i, float rho0, const float g[3], float dx, float dy, float dz)
{
    float p_b = p_i - rho0 * (g[0] * dx + g[1] * dy + g[2] * dz);
    return fmaxf(p_b, fminf(p_i, 0.0f));
}

/* ---- equations of state ------------------------------------------------ */

/* SPH (Müller 2003): p = k (rho - rho0), max(p, 0) when clamp is set. */
static inline FL_HD float fl_eos_linear(double k, float rho, double rho0, int clamp)
{
    float p = (float)(k * (rho - rho0));
    return (clamp && p < 0.0f) ? 0.0f : p;
}

/* WCSPH (Becker & Teschner 2007): Tait, p = B ((rho/rho0)^7 - 1), with
 * B = rho0 c^2 / 7 (double), max(p, 0) when clamp is set. */
static inline FL_HD float fl_eos_tait(double B, float rho, double rho0, int clamp)
{
    double ratio = rho / rho0, r2 = ratio * ratio, r7 = r2 * r2 * r2 * ratio;
    float p = (float)(B * (r7 - 1.0));
    return (clamp && p < 0.0f) ? 0.0f : p;
}

/* p_i / rho_i^2, the per-particle factor of the symmetric pressure force. */
static inline FL_HD float fl_p_over_rho2(float p, float rho)
{
    return p / (rho * rho);
}

/* ---- pair forces ------------------------------------------------------- */

/* Symmetric pressure with an optional viscous term Pi_ij (Monaghan 1992;
 * 0 for SPH and PCISPH): a_i += s (x_i - x_j),
 * s = -m (p_i/rho_i^2 + p_j/rho_j^2 + Pi_ij) g_spiky(r). */
static inline FL_HD float fl_pressure_pair(float m, float p_rho2_i, float p_rho2_j, float r, float h, int dim)
{
    return -m * (p_rho2_i + p_rho2_j) * fl_spiky_grad_factor(r, h, dim);
}

static inline FL_HD float fl_pressure_visc_pair(float m, float p_rho2_i, float p_rho2_j, float pi_ij, float r,
                                                float h, int dim)
{
    return -m * (p_rho2_i + p_rho2_j + pi_ij) * fl_spiky_grad_factor(r, h, dim);
}

/* Müller 2003, eq. 14: the weight of (v_j - v_i) in the viscosity sum,
 * (m / rho_j) lap W_visc(r); a_i += mu / rho_i sum_j weight (v_j - v_i). */
static inline FL_HD float fl_viscosity_pair(float volume_j, float r, float h, int dim)
{
    return volume_j * fl_visc_laplacian(r, h, dim);
}

/* Morris, Fox & Zhu 1997 (docs/methods/viscosity.md): physical
 * viscosity as the SPH Laplacian of v, with mu = rho nu,
 *   a_i = sum_j m_j (mu_i + mu_j) / (rho_i rho_j) (x_ij . grad_i W_ij) / (r^2 + eps) (v_i - v_j)
 *       = sum_j nu (m/rho_i + m/rho_j) g(r) r^2 / (r^2 + eps) (v_i - v_j),
 * grad W = g(r) x_ij, so that where V_i = V_j = V it is 2 nu sum_j V
 * (v_i - v_j) g(r), the gradient form of nu lap v. W is the cubic spline,
 * as Morris et al. used splines: on the lattice at h = 2d its second moment
 * is 1.01 (2D) and 1.02 (3D) of the exact one, the spiky kernel's 0.89 and
 * 0.96. The pair factor s of (v_i - v_j): a_i += s (v_i - v_j), from
 * vol_sum = m/rho_i + m/rho_j (a fluid pair) or 2 V_b (a boundary particle:
 * rho_b mirrored as rho_i, m_b/rho_b = V_b). s is symmetric in i and j and
 * at most 0 (g <= 0): the pair forces are equal and opposite, and take
 * kinetic energy out. eps = 0.01 h_s^2. */
static inline FL_HD float fl_morris_pair(float nu, float vol_sum, float r, float r2, float eps, float h, int dim)
{
    return nu * vol_sum * fl_cubic_grad_factor(r, h, dim) * r2 / (r2 + eps);
}

/* The walls' no-slip in Morris's boundary pairs (Morris et al. 1997,
 * section 3.2; docs/methods/viscosity.md, section 2): a boundary particle
 * at depth delta behind the wall's surface takes the velocity extrapolated
 * through the wall from fluid particle i's at gap d_i in front of it, so
 * its pair enters with beta (v_i - v_b), beta = 1 + delta / d_i, at most
 * FL_MORRIS_BETA_MAX. d_i is the distance to i's nearest boundary particle
 * (near2, its square, m^2) less delta: a flat wall's normal gap within the
 * layer's spacing. delta is the boundary layer's offset behind the wall,
 * FL_BOUNDARY_OFFSET d (2D: FL_BOUNDARY_OFFSET_2D d), with d = h / 2.
 * Morris et al. cap beta at 1.5; in a 2D channel of H = 20 d the decay
 * rate of the second shear mode over the exact one (tests/test_viscosity.c,
 * channel; WCSPH, PCISPH, SPH) was 0.91, 0.90, 0.92 without the
 * extrapolation, 0.97, 0.94, 0.96 with 1.5, 0.99 to 1.01 with 3: the first
 * row, d/2 in front of the wall, needs 1 + 0.69 / 0.5 = 2.4. A particle
 * closer to the wall than delta / 2 takes the cap. */
#define FL_MORRIS_BETA_MAX 3.0f

static inline FL_HD float fl_morris_wall_beta(float near2, float h, int dim)
{
    const float delta = (float)(dim == 2 ? FL_BOUNDARY_OFFSET_2D : FL_BOUNDARY_OFFSET) * 0.5f * h;
    const float gap = sqrtf(near2) - delta;
    return gap > delta / (FL_MORRIS_BETA_MAX - 1.0f) ? 1.0f + delta / gap : FL_MORRIS_BETA_MAX;
}

/* Particle shifting (docs/methods/shifting.md): each step a particle
 * moves down the gradient of its kernel sum C_i = sum_j V_j W_ij, away
 * from where particles crowd and into the gaps, so that a flow that
 * stretches the lattice (a vortex's saddle points) keeps it ordered.
 * Lind et al. 2012 (eqs. 19-20): grad C_i = sum_j V_j (1 + R (W_ij /
 * W(d))^4) grad W_ij with the cubic spline, R = FL_SHIFT_R: the second
 * term pushes pairs closer than d apart harder, against clumping. (With
 * poly6, the density estimator's kernel, whose gradient vanishes at r = 0,
 * a shuffled lattice evened out at first and then paired up again:
 * tests/test_shifting.c, docs/methods/shifting.md.) The pair's factor on
 * x_i - x_j for V_j = vol_j at distance r, where W_ij = w; inv_wd =
 * 1 / W(d). */
#define FL_SHIFT_R 0.2f

static inline FL_HD float fl_shift_pair(float vol_j, float w, float r, float h, float inv_wd, int dim)
{
    float q = w * inv_wd, q2 = q * q;
    return vol_j * (1.0f + FL_SHIFT_R * q2 * q2) * fl_cubic_grad_factor(r, h, dim);
}

/* The displacement of a step of dt: dr = -A h_s U dt grad C_i, h_s =
 * h / 2, U the fluid's largest speed at the step's start. This is Skillen
 * et al. 2013's coefficient (eq. 11) with one speed for every particle, as
 * Sun et al. 2017 take a reference speed: with the particle's own |v_i|
 * the stagnation points, where a vortex's lattice tears, were hardly
 * shifted. Its length is at most FL_SHIFT_MAX U dt: no particle is
 * shifted farther in a step than half the fastest one moves. Without the
 * cap the tensile term of a close pair throws it apart: the vortex blew up
 * under SPH, WCSPH and PCISPH at A = 4, and tests/test_shifting.c's
 * shuffled lattice scattered. A particle whose kernel sum c is below
 * FL_SHIFT_SURFACE is at or next to a free surface, where grad C points
 * out of the fluid: it is left in place. */
#define FL_SHIFT_MAX 0.5f
#define FL_SHIFT_SURFACE 0.95f

static inline FL_HD void fl_shift_displacement(float coeff, float h, float speed, float dt, float c, const float gc[3],
                                               float out[3])
{
    float k = c < FL_SHIFT_SURFACE ? 0.0f : -coeff * 0.5f * h * speed * dt;
    float dr[3] = {k * gc[0], k * gc[1], k * gc[2]};
    float len = sqrtf(dr[0] * dr[0] + dr[1] * dr[1] + dr[2] * dr[2]), top = FL_SHIFT_MAX * speed * dt;
    float scale = len > top ? top / len : 1.0f;
    out[0] = scale * dr[0], out[1] = scale * dr[1], out[2] = scale * dr[2];
}

/* The course deck's two other forms of the SPH pressure force, selectable
 * in `sph` (pressure_force 1 and 2; docs/methods/sph.md, section 5.1).
 * Both are the force density f_i, turned into a_i = f_i / rho_i here:
 *   1  mean:      f_i = -sum_j m/rho_j (p_i + p_j)/2 grad W_ij (Müller 2003, eq. 10):
 *                 s = -V_j (p_i + p_j) / (2 rho_i) g_spiky(r);
 *   2  one-sided: f_i = -sum_j m/rho_j p_j grad W_ij, the plain SPH gradient of p:
 *                 s = -V_j p_j / rho_i g_spiky(r), which breaks Newton's third
 *                 law between particles of different pressures.
 * V_j = m / rho_j. */
static inline FL_HD float fl_pressure_pair_mean(float vol_j, float p_i, float p_j, float inv_rho_i, float r, float h,
                                                int dim)
{
    return -vol_j * 0.5f * (p_i + p_j) * inv_rho_i * fl_spiky_grad_factor(r, h, dim);
}

static inline FL_HD float fl_pressure_pair_one_sided(float vol_j, float p_j, float inv_rho_i, float r, float h,
                                                     int dim)
{
    return -vol_j * p_j * inv_rho_i * fl_spiky_grad_factor(r, h, dim);
}

/* Monaghan's artificial viscosity for an approaching pair
 * (v_ij . x_ij < 0): Pi_ij = -nu (v_ij . x_ij) / (r^2 + 0.01 h_s^2), with
 * nu (rho_i + rho_j) = av = 2 alpha h_s c and eps = 0.01 h_s^2. */
static inline FL_HD float fl_monaghan_pi(float av, float rho_i, float rho_j, float vdotx, float r2, float eps)
{
    return vdotx < 0.0f ? -av / (rho_i + rho_j) * vdotx / (r2 + eps) : 0.0f;
}

/* SPH's boundary pair (mass Psi_b = rho0 V_b, rho_b mirrored as rho_i):
 * s = -rho0 V_b (p_i + p_b) / rho_i^2 g_spiky(r). */
static inline FL_HD float fl_sph_boundary_pair(float rho0, float volume_b, float p_i, float p_b, float inv_rho2,
                                               float r, float h, int dim)
{
    return -rho0 * volume_b * (p_i + p_b) * inv_rho2 * fl_spiky_grad_factor(r, h, dim);
}

/* Akinci et al. 2012, eq. 11: boundary friction for an approaching pair,
 * Pi_ib = -nu_b min(v_i . x_ib, 0) / (r^2 + eps), nu_b = sigma h_s c / (2 rho_i). */
static inline FL_HD float fl_boundary_friction(float nu_b, float vdotx, float r2, float eps)
{
    return vdotx < 0.0f ? -nu_b * vdotx / (r2 + eps) : 0.0f;
}

/* WCSPH's boundary pair: s = -rho0 V_b ((p_i + p_b) / rho_i^2 + Pi_ib) g_spiky(r). */
static inline FL_HD float fl_wcsph_boundary_pair(float rho0, float volume_b, float p_i, float p_b,
                                                 float inv_rho2, float friction, float r, float h, int dim)
{
    return -rho0 * volume_b * ((p_i + p_b) * inv_rho2 + friction) * fl_spiky_grad_factor(r, h, dim);
}

/* Becker & Teschner 2007, eq. 13: cohesion, a_i = -kappa sum_j x_ij W_ij;
 * the weight of x_ij in the sum. */
static inline FL_HD float fl_cohesion_pair(float r2, float h, int dim)
{
    return fl_poly6(r2, h, dim);
}

/* PCISPH's boundary pair, without the factor -rho0 / rho*_i^2 that the
 * sum takes once: V_b (p_i + p_b) g_spiky(r). */
static inline FL_HD float fl_pcisph_boundary_pair(float volume_b, float p_i, float p_b, float r, float h, int dim)
{
    return volume_b * (p_i + p_b) * fl_spiky_grad_factor(r, h, dim);
}

/* ---- a particle's acceleration from its sums -----------------------------
 * SPH (Müller 2003): a_i = a^p_i + a^b_i + mu / rho_i sum_j (...) (v_j - v_i)
 * + g, from the fluid pressure sum ap, the boundary sum ab and the viscosity
 * sum av (fl_pressure_pair, fl_sph_boundary_pair, fl_viscosity_pair). */
static inline FL_HD void fl_sph_acceleration(const float ap[3], const float ab[3], float mu, float rho_i,
                                             const float av[3], const float g[3], float out[3])
{
    float visc = mu / rho_i;
    for (int a = 0; a < 3; a++)
        out[a] = ap[a] + ab[a] + visc * av[a] + g[a];
}

/* WCSPH: a_i = (pressure, viscosity and boundary sum a) - kappa sum_j x_ij
 * W_ij (coh, fl_cohesion_pair) + g. */
static inline FL_HD void fl_wcsph_acceleration(const float a[3], float kappa, const float coh[3], const float g[3],
                                               float out[3])
{
    for (int q = 0; q < 3; q++)
        out[q] = a[q] - kappa * coh[q] + g[q];
}

/* PCISPH's non-pressure acceleration: mu / rho_i (the viscosity sum av) + g. */
static inline FL_HD void fl_pcisph_nonpressure(float mu, float rho_i, const float av[3], const float g[3],
                                               float out[3])
{
    float visc = mu / rho_i;
    for (int q = 0; q < 3; q++)
        out[q] = visc * av[q] + g[q];
}

/* PCISPH's pressure acceleration: the fluid sum a (fl_pressure_pair) minus
 * rho0 / rho*_i^2 times the boundary sum sb (fl_pcisph_boundary_pair). */
static inline FL_HD void fl_pcisph_pressure_acceleration(const float a[3], float rho0, float rho_pred_i,
                                                         const float sb[3], float out[3])
{
    const float rho2 = rho_pred_i * rho_pred_i;
    for (int q = 0; q < 3; q++)
        out[q] = a[q] - rho0 / rho2 * sb[q];
}

/* ---- PCISPH ------------------------------------------------------------
 * delta = 1 / (beta sum_j |grad W_j|^2), beta = 2 (dt m / rho0)^2, from a
 * prototype particle with a full neighborhood (grad_sq_sum, 1/m^8). */
static inline FL_HD double fl_pcisph_delta(double dt, double m, double rho0, double grad_sq_sum)
{
    const double beta = 2.0 * (dt * m / rho0) * (dt * m / rho0);
    return 1.0 / (beta * grad_sq_sum);
}

/* The correction p_i += delta (rho*_i - rho0), a negative result scaled by
 * negative_scale. */
static inline FL_HD float fl_pcisph_correct(float p, double delta, float rho_pred, double rho0, double negative_scale)
{
    double e = rho_pred - rho0;
    double pn = p + delta * e;
    return (float)(pn < 0.0 ? negative_scale * pn : pn);
}

/* ---- integration and the domain ---------------------------------------- */

/* The domain box and the obstacle boxes in float, for the clamps. Along a
 * periodic axis the clamps wrap a point into [lo, hi) instead. */
typedef struct fl_walls {
    float lo[3], hi[3];
    float period[3], inv_period[3]; /* L and 1/L along a periodic axis, 0 along the others */
    int obstacle_count;
    float ob_lo[FL_MAX_BOXES][3], ob_hi[FL_MAX_BOXES][3];
} fl_walls;

/* Symplectic Euler: v += dt a, then x += dt v with the new v. */
static inline FL_HD void fl_symplectic_euler(float x[3], float v[3], const float a[3], float dt)
{
    v[0] += dt * a[0], v[1] += dt * a[1], v[2] += dt * a[2];
    x[0] += dt * v[0], x[1] += dt * v[1], x[2] += dt * v[2];
}

/* One coordinate of a point wrapped into [lo, hi) along a periodic axis a
 * of w. */
static inline FL_HD float fl_walls_wrap(const fl_walls *w, int a, float x)
{
    return fl_wrap_coord(x, w->lo[a], w->hi[a], w->period[a], w->inv_period[a]);
}

/* One coordinate of a point kept in [lo, hi] along a wall-bounded axis;
 * NaN stays NaN, so that a blow-up reaches the binning and the stability
 * criteria instead of vanishing at a wall (fminf(fmaxf(x, lo), hi) would
 * give lo, and gcc calls libm for it). */
static inline FL_HD float fl_walls_clamp(const fl_walls *w, int a, float x)
{
    return x < w->lo[a] ? w->lo[a] : x > w->hi[a] ? w->hi[a] : x;
}

/* The domain clamp: the particle centre kept inside the domain and out of
 * the obstacle boxes (through the nearest face), the last safety net
 * behind the boundary particles; a clamped particle loses the velocity
 * component into the wall. Along a periodic axis the centre wraps and
 * keeps its velocity. */
static inline FL_HD void fl_clamp_particle(const fl_walls *w, float x[3], float v[3])
{
    for (int a = 0; a < 3; a++) {
        if (w->period[a] > 0.0f) {
            x[a] = fl_walls_wrap(w, a, x[a]);
        } else if (x[a] < w->lo[a]) {
            x[a] = w->lo[a];
            v[a] = fmaxf(v[a], 0.0f);
        } else if (x[a] > w->hi[a]) {
            x[a] = w->hi[a];
            v[a] = fminf(v[a], 0.0f);
        }
    }
    for (int o = 0; o < w->obstacle_count; o++) {
        float depth = INFINITY;
        int axis = -1, side = 0;
        for (int a = 0; a < 3; a++) {
            float lo = x[a] - w->ob_lo[o][a], hi = w->ob_hi[o][a] - x[a];
            if (lo <= 0.0f || hi <= 0.0f) {
                axis = -1;
                break;
            }
            if (lo < depth)
                depth = lo, axis = a, side = -1;
            if (hi < depth)
                depth = hi, axis = a, side = 1;
        }
        if (axis < 0)
            continue;
        x[axis] = side < 0 ? w->ob_lo[o][axis] : w->ob_hi[o][axis];
        v[axis] = side < 0 ? fminf(v[axis], 0.0f) : fmaxf(v[axis], 0.0f);
    }
}

/* PCISPH's prediction: v* = v + dt a, x* = x + dt v*, kept inside the
 * domain box (the notes' collision response; wrapped along a periodic axis). */
static inline FL_HD void fl_predict_clamped(const fl_walls *w, const float x[3], const float v[3], const float a[3],
                                            float dt, float q[3])
{
    float vs[3] = {v[0] + dt * a[0], v[1] + dt * a[1], v[2] + dt * a[2]};
    q[0] = x[0] + dt * vs[0], q[1] = x[1] + dt * vs[1], q[2] = x[2] + dt * vs[2];
    for (int k = 0; k < 3; k++)
        q[k] = w->period[k] > 0.0f ? fl_walls_wrap(w, k, q[k]) : fl_walls_clamp(w, k, q[k]);
}

#endif
