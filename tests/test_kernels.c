/* test_kernels.c: the SPH kernels of particles/kernels.h (Müller et al. 2003,
 * Monaghan 1992 cubic spline) and the particle mass calibration of world.c.
 *
 *  - every test below in 3D and in 2D (dim 2: the kernels normalised over
 *    the plane), except the viscosity kernel's own value, a 3D function;
 *  - normalization: poly6, spiky, the viscosity kernel (3D) and the cubic
 *    spline integrate to 1 over their support (midpoint rule on a cubic or
 *    square lattice of spacing h/100, one octant or quadrant by symmetry),
 *    and the viscosity Laplacian's second moment, the integral of
 *    lap W r^2, is 2 dim (what the exact Laplacian of a normalised kernel
 *    gives: lap r^2 = 2 dim);
 *  - compact support: every kernel, gradient and Laplacian is 0 at r = h and
 *    beyond, and the values reach 0 continuously;
 *  - gradients: g(r) r_vec is antisymmetric, g(r) r matches a central
 *    finite difference of W(r), and g < 0 (pointing inward) on (0, h);
 *  - viscosity: fl_visc_laplacian is the Laplacian W'' + 2W'/r of the
 *    viscosity kernel W (computed here in double, by finite differences);
 *  - mass: fl_world_calibrate_mass gives rho0 for a particle with a full
 *    lattice neighborhood, and is close to rho0 d^3 (rho0 d^2 in 2D). */
#include <math.h>
#include <stdio.h>

#include "ensure.h"
#include "kernels.h"
#include "world.h"

/* Support radii tried: a typical small one and 1 (scale independence). */
static const double radii[] = {0.05, 1.0};
#define N_RADII (int)(sizeof radii / sizeof radii[0])

/* Müller 2003 viscosity kernel value, in double, for the Laplacian and the
 * normalization tests only (the solvers use just its Laplacian). */
static double visc_w(double r, double h)
{
    if (r >= h)
        return 0.0;
    return 15.0 / (2.0 * FL_PI * h * h * h) *
           (-r * r * r / (2.0 * h * h * h) + r * r / (h * h) + h / (2.0 * r) - 1.0);
}

/* K_VISC_MOMENT: the viscosity Laplacian times r^2, whose integral is 2 dim. */
enum { K_POLY6, K_SPIKY, K_VISC, K_CUBIC, K_VISC_MOMENT, K_COUNT };
static const char *const kernel_names[K_COUNT] = {"poly6", "spiky", "viscosity", "cubic",
                                                  "viscosity Laplacian's second moment"};

static double kernel_value(int kind, double r, double h, int dim)
{
    switch (kind) {
    case K_POLY6:
        return fl_poly6((float)(r * r), (float)h, dim);
    case K_SPIKY:
        return fl_spiky((float)r, (float)h, dim);
    case K_VISC:
        return visc_w(r, h);
    case K_VISC_MOMENT:
        return fl_visc_laplacian((float)r, (float)h, dim) * r * r;
    default:
        return fl_cubic((float)r, (float)h, dim);
    }
}

/* Integral of a radial kernel over [-h, h]^dim by the midpoint rule on a
 * lattice of spacing h / n: one octant times 8 (a quadrant times 4 in 2D;
 * the kernels are radial). */
static double lattice_integral(int kind, double h, int n, int dim)
{
    double dx = h / n, sum = 0.0;
    for (int i = 0; i < n; i++) {
        double x = (i + 0.5) * dx;
        for (int j = 0; j < n; j++) {
            double y = (j + 0.5) * dx;
            for (int k = 0; k < (dim == 2 ? 1 : n); k++) {
                double z = dim == 2 ? 0.0 : (k + 0.5) * dx;
                double r = sqrt(x * x + y * y + z * z);
                if (r < h)
                    sum += kernel_value(kind, r, h, dim);
            }
        }
    }
    return dim == 2 ? 4.0 * sum * dx * dx : 8.0 * sum * dx * dx * dx;
}

static void test_normalization(int dim)
{
    for (int kind = 0; kind < K_COUNT; kind++)
        for (int t = 0; t < N_RADII; t++) {
            if (kind == K_VISC && dim == 2)
                continue; /* visc_w is the 3D kernel; the 2D solvers use only its Laplacian */
            double want = kind == K_VISC_MOMENT ? 2.0 * dim : 1.0;
            double integral = lattice_integral(kind, radii[t], dim == 2 ? 400 : 100, dim);
            if (fabs(integral - want) >= 1e-3 * want)
                fprintf(stderr, "normalization of %s in %dD, h = %g: %.6f\n", kernel_names[kind], dim,
                        radii[t], integral);
            ENSURE_NEAR(integral, want, 1e-3 * want);
        }
}

static void test_support(int dim)
{
    for (int t = 0; t < N_RADII; t++) {
        float h = (float)radii[t];
        const float beyond[] = {h, 1.0001f * h, 1.5f * h, 10.0f * h};
        for (int b = 0; b < 4; b++) {
            float r = beyond[b];
            ENSURE(fl_poly6(r * r, h, dim) == 0.0f);
            ENSURE(fl_spiky(r, h, dim) == 0.0f);
            ENSURE(fl_cubic(r, h, dim) == 0.0f);
            ENSURE(fl_visc_laplacian(r, h, dim) == 0.0f);
            ENSURE(fl_spiky_grad_factor(r, h, dim) == 0.0f);
            ENSURE(fl_cubic_grad_factor(r, h, dim) == 0.0f);
        }
        ENSURE(visc_w((double)h, (double)h) == 0.0);

        /* No jump at the edge of the support: just inside h every value is
         * a tiny fraction of its size in the middle of the support. */
        float in = 0.999f * h, mid = 0.5f * h;
        ENSURE(fl_poly6(in * in, h, dim) < 1e-4f * fl_poly6(mid * mid, h, dim));
        ENSURE(fl_spiky(in, h, dim) < 1e-4f * fl_spiky(mid, h, dim));
        ENSURE(fl_cubic(in, h, dim) < 1e-4f * fl_cubic(mid, h, dim));
        ENSURE(fl_visc_laplacian(in, h, dim) < 1e-2f * fl_visc_laplacian(mid, h, dim));
        ENSURE(fabsf(fl_spiky_grad_factor(in, h, dim)) < 1e-4f * fabsf(fl_spiky_grad_factor(mid, h, dim)));
        ENSURE(fabsf(fl_cubic_grad_factor(in, h, dim)) < 1e-4f * fabsf(fl_cubic_grad_factor(mid, h, dim)));
        ENSURE(fabs(visc_w(0.999 * h, h)) < 1e-4 * visc_w(0.5 * h, h));

        /* Positive inside the support. */
        for (int k = 1; k < 100; k++) {
            float r = (float)k / 100.0f * h;
            ENSURE(fl_poly6(r * r, h, dim) > 0.0f && fl_spiky(r, h, dim) > 0.0f && fl_cubic(r, h, dim) > 0.0f &&
                   fl_visc_laplacian(r, h, dim) > 0.0f);
        }
        /* At r = 0 the gradient factors carry no direction. */
        ENSURE(fl_spiky_grad_factor(0.0f, h, dim) == 0.0f);
        ENSURE(fl_cubic_grad_factor(0.0f, h, dim) == 0.0f);
    }
}

/* Antisymmetry: grad W(r_vec) = -grad W(-r_vec), each side computed as a
 * solver would, from its own vector. */
static void test_gradient_antisymmetry(int dim)
{
    static const float dirs[][3] = {{0.9f, 0.0f, 0.0f}, {0.3f, -0.4f, 0.5f},
                                    {-0.21f, 0.13f, -0.07f}, {0.01f, 0.02f, -0.6f},
                                    {0.44f, 0.44f, 0.44f}};
    for (int t = 0; t < N_RADII; t++) {
        float h = (float)radii[t];
        for (int d = 0; d < 5; d++) {
            float a[3], b[3];
            for (int c = 0; c < 3; c++) {
                a[c] = dirs[d][c] * h;
                b[c] = -a[c];
            }
            float ra = sqrtf(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
            float rb = sqrtf(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
            ENSURE(ra < h);
            float sa = fl_spiky_grad_factor(ra, h, dim), sb = fl_spiky_grad_factor(rb, h, dim);
            float ca = fl_cubic_grad_factor(ra, h, dim), cb = fl_cubic_grad_factor(rb, h, dim);
            for (int c = 0; c < 3; c++) {
                ENSURE(sa * a[c] == -(sb * b[c]));
                ENSURE(ca * a[c] == -(cb * b[c]));
            }
            ENSURE(sa != 0.0f && ca != 0.0f);
        }
    }
}

/* g(r) r is dW/dr: compare with a central difference of the kernel value,
 * divided by the exact distance between the two float arguments. */
static void test_gradient_matches_derivative(int dim)
{
    for (int t = 0; t < N_RADII; t++) {
        float h = (float)radii[t];
        for (int k = 1; k <= 19; k++) {
            float r = (float)k / 20.0f * h; /* 0.05 h .. 0.95 h */
            float step = 1e-3f * h;
            float rp = r + step, rm = r - step;
            double span = (double)rp - (double)rm;

            double spiky_fd = ((double)fl_spiky(rp, h, dim) - (double)fl_spiky(rm, h, dim)) / span;
            double spiky_g = (double)fl_spiky_grad_factor(r, h, dim) * r;
            ENSURE_NEAR(spiky_g, spiky_fd, 1e-3 * fabs(spiky_fd));

            double cubic_fd = ((double)fl_cubic(rp, h, dim) - (double)fl_cubic(rm, h, dim)) / span;
            double cubic_g = (double)fl_cubic_grad_factor(r, h, dim) * r;
            ENSURE_NEAR(cubic_g, cubic_fd, 1e-3 * fabs(cubic_fd));
        }
        /* Inward: a neighbor at x_j pushes x_i away along -grad, so grad W
         * points from x_i back toward x_j: g < 0 everywhere inside. */
        int inward = 1;
        for (int k = 1; k < 1000; k++) {
            float r = (float)k / 1000.0f * h;
            inward &= fl_spiky_grad_factor(r, h, dim) < 0.0f && fl_cubic_grad_factor(r, h, dim) < 0.0f;
        }
        ENSURE(inward);
    }
}

/* Laplacian of a radial function: W'' + 2 W' / r, by central differences. */
static void test_viscosity_laplacian(void)
{
    const int dim = 3;
    for (int t = 0; t < N_RADII; t++) {
        double h = radii[t];
        for (int k = 1; k <= 9; k++) {
            double r = k / 10.0 * h; /* 0.1 h .. 0.9 h */
            double e = 1e-4 * h;
            double wp = visc_w(r + e, h), w0 = visc_w(r, h), wm = visc_w(r - e, h);
            double d1 = (wp - wm) / (2.0 * e);
            double d2 = (wp - 2.0 * w0 + wm) / (e * e);
            double lap = d2 + 2.0 * d1 / r;
            double got = fl_visc_laplacian((float)r, (float)h, dim);
            ENSURE_NEAR(got, lap, 1e-3 * fabs(lap));
        }
    }
}

/* Density of a particle with a full cubic-lattice neighborhood, summed here
 * independently of world.c: positions i d relative to the particle. */
static double lattice_density(double mass, double d, double h, int dim)
{
    int reach = (int)(h / d) + 2, kreach = dim == 2 ? 0 : reach;
    double rho = 0.0;
    for (int i = -reach; i <= reach; i++)
        for (int j = -reach; j <= reach; j++)
            for (int k = -kreach; k <= kreach; k++) {
                double x = i * d, y = j * d, z = k * d;
                rho += mass * fl_poly6((float)(x * x + y * y + z * z), (float)h, dim);
            }
    return rho;
}

static void test_mass_calibration(int dim)
{
    static const double spacings[] = {0.01, 0.025, 0.05, 0.1};
    double rho0 = 1000.0;
    for (int s = 0; s < 4; s++) {
        double d = spacings[s], h = 2.0 * d, cell = dim == 2 ? d * d : d * d * d;
        double m = fl_world_calibrate_mass(rho0, d, h, dim);
        ENSURE(m > 0.0 && isfinite(m));
        ENSURE_NEAR(lattice_density(m, d, h, dim), rho0, 1e-6 * rho0);
        ENSURE_NEAR(m, rho0 * cell, 0.15 * rho0 * cell);
    }
    /* Another density and a wider support: the calibration is not tied to
     * water or to h = 2d. */
    double m = fl_world_calibrate_mass(1.2, 0.04, 3.0 * 0.04, dim);
    ENSURE_NEAR(lattice_density(m, 0.04, 0.12, dim), 1.2, 1e-6 * 1.2);
}

int main(void)
{
    for (int dim = 2; dim <= 3; dim++) {
        test_normalization(dim);
        test_support(dim);
        test_gradient_antisymmetry(dim);
        test_gradient_matches_derivative(dim);
        test_mass_calibration(dim);
    }
    test_viscosity_laplacian();
    return fl_test_report("test_kernels");
}
