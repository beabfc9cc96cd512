/* kernels.h: the SPH smoothing kernels, shared by C and CUDA.
 *
 * Müller, Charypar & Gross 2003, "Particle-based fluid simulation for
 * interactive applications": poly6 (density), spiky gradient (pressure,
 * PBF constraint gradients), viscosity Laplacian (viscosity force).
 * Monaghan 1992 cubic spline, written with support radius h.
 * All take the support radius h (m), distances in m and the world's number
 * of dimensions dim (2 or 3): in 3D each is normalised over space (W in
 * 1/m^3, its gradient 1/m^4, its Laplacian 1/m^5), in 2D over the plane
 * (1/m^2, 1/m^3, 1/m^4), with the same shape. Each is zero at and beyond h.
 * The Laplacian of the viscosity kernel is a kernel of its own (Müller's
 * (h - r) form): its constant makes its second moment, the integral of
 * lap W r^2, equal 2 dim in either dimension, as the exact Laplacian's is.
 * docs/methods/sph.md, section "Kernels", derives the 2D constants.
 *
 * Written branch-free, with the normalisation computed before the test on
 * r: in a neighbor loop h is invariant, so the compiler hoists the division
 * out of the loop (it may not move a division out of a branch) and can
 * vectorize the rest. */
#ifndef FL_KERNELS_H
#define FL_KERNELS_H

#include "fl_common.h"

#define FL_PI 3.14159265358979323846

/* poly6 from the squared distance r2 (no square root needed):
 * 315/(64 pi h^9) (h^2 - r^2)^3 in 3D, 4/(pi h^8) (h^2 - r^2)^3 in 2D. */
static inline FL_HD float fl_poly6(float r2, float h, int dim)
{
    float h2 = h * h, h3 = h2 * h;
    float k = dim == 2 ? (float)(4.0 / FL_PI) / (h3 * h3 * h2) : (float)(315.0 / (64.0 * FL_PI)) / (h3 * h3 * h3);
    float d = h2 - r2;
    return r2 < h2 ? k * d * d * d : 0.0f;
}

/* Scalar factor g(r) of the spiky gradient: grad W(r_vec) = g(r) * r_vec,
 * with r_vec = x_i - x_j and r = |r_vec|. g = -45/(pi h^6) (h - r)^2 / r
 * in 3D, -30/(pi h^5) (h - r)^2 / r in 2D. Returns 0 at r = 0 (the
 * gradient is undefined there and the pair carries no direction) and for
 * r >= h. */
static inline FL_HD float fl_spiky_grad_factor(float r, float h, int dim)
{
    float h2 = h * h, h3 = h2 * h;
    float k = dim == 2 ? -(float)(30.0 / FL_PI) / (h3 * h2) : -(float)(45.0 / FL_PI) / (h3 * h3);
    float d = h - r;
    return (r < h && r > 0.0f) ? k * d * d / r : 0.0f;
}

/* Spiky kernel value, 15/(pi h^6) (h - r)^3 in 3D, 10/(pi h^5) (h - r)^3
 * in 2D, for tests and integrals. */
static inline FL_HD float fl_spiky(float r, float h, int dim)
{
    float h2 = h * h, h3 = h2 * h;
    float k = dim == 2 ? (float)(10.0 / FL_PI) / (h3 * h2) : (float)(15.0 / FL_PI) / (h3 * h3);
    float d = h - r;
    return r < h ? k * d * d * d : 0.0f;
}

/* Laplacian of the viscosity kernel, 45/(pi h^6) (h - r) in 3D,
 * 40/(pi h^5) (h - r) in 2D. */
static inline FL_HD float fl_visc_laplacian(float r, float h, int dim)
{
    float h2 = h * h, h3 = h2 * h;
    float k = dim == 2 ? (float)(40.0 / FL_PI) / (h3 * h2) : (float)(45.0 / FL_PI) / (h3 * h3);
    return r < h ? k * (h - r) : 0.0f;
}

/* Cubic spline with support h (q = r/h):
 * W = s * { 6(q^3 - q^2) + 1 for q <= 1/2; 2(1 - q)^3 for q <= 1 },
 * s = 8/(pi h^3) in 3D, 40/(7 pi h^2) in 2D. */
static inline FL_HD float fl_cubic(float r, float h, int dim)
{
    float s = dim == 2 ? (float)(40.0 / (7.0 * FL_PI)) / (h * h) : (float)(8.0 / FL_PI) / (h * h * h);
    float q = r / h, d = 1.0f - q;
    float inner = 6.0f * (q * q * q - q * q) + 1.0f, outer = 2.0f * d * d * d;
    return q < 1.0f ? s * (q <= 0.5f ? inner : outer) : 0.0f;
}

/* Scalar factor of the cubic spline gradient: grad W = g(r) * r_vec
 * (6 s / h times dW/dq's polynomial). */
static inline FL_HD float fl_cubic_grad_factor(float r, float h, int dim)
{
    float s = dim == 2 ? (float)(240.0 / (7.0 * FL_PI)) / (h * h * h) : (float)(48.0 / FL_PI) / (h * h * h * h);
    float q = r / h;
    float dwdq = (q <= 0.5f) ? s * q * (3.0f * q - 2.0f) : -s * (1.0f - q) * (1.0f - q);
    return (q < 1.0f && r > 0.0f) ? dwdq / r : 0.0f;
}

#endif
