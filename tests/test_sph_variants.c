/* test_sph_variants.c: the course deck's variants of standard SPH
 * (docs/methods/sph.md, sections 3.1 and 5.1), selected with sph's
 * pressure_force, corrected_density and shepard.
 *
 *  forms   The three pressure forces on a full lattice (cubic and square,
 *          h = 2d) with a linear pressure p = p0 + c y: each reads the
 *          gradient as its bulk share times kappa, the lattice's gradient
 *          factor (tests/validation.h): the symmetric p/rho^2 form and the
 *          one-sided p_j form all of it, the deck's mean form (p_i + p_j)/2
 *          half of it (relative error 1e-4); and p0 drops out of all three
 *          (p0 = 5e4 Pa: 1e-3, the float rounding of p0 against pressure
 *          differences of 200 Pa).
 *  newton  Between two particles of different pressure and density, the
 *          symmetric and the mean forms give equal and opposite forces (the
 *          pair factor s_ij = s_ji, so m a_i = -m a_j; to float rounding,
 *          1e-6), the one-sided one does not (s_ij / s_ji = p_j / p_i).
 *  What each variant does to a tank, the boiling of the mean form and the
 *  densities at the walls and the surface, are the outcomes of the course's
 *  lesson 5, which `fluidlab course --check` measures (CTest course_check).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "sph_physics.h"
#include "validation.h"

/* a_y of particle i at the origin of a full lattice (spacing d, h = 2d,
 * every rho = rho0) with p = p0 + c y, under pressure form `form`. */
static double lattice_ay(int form, int dims, double p0, double c)
{
    const double d = 0.01, h = 2 * d, rho0 = 1000.0;
    const float m = (float)fl_world_calibrate_mass(rho0, d, h, dims), vol = (float)(m / rho0);
    const float inv_rho = (float)(1.0 / rho0);
    const int kr = dims == 2 ? 0 : 2;
    double ay = 0.0;
    for (int i = -2; i <= 2; i++)
        for (int j = -2; j <= 2; j++)
            for (int k = -kr; k <= kr; k++) {
                if (!i && !j && !k)
                    continue;
                const float y = (float)(j * d), r = (float)(sqrt((double)(i * i + j * j + k * k)) * d);
                const float pi = (float)p0, pj = (float)(p0 + c * y);
                float s = form == 1 ? fl_pressure_pair_mean(vol, pi, pj, inv_rho, r, (float)h, dims)
                          : form == 2 ? fl_pressure_pair_one_sided(vol, pj, inv_rho, r, (float)h, dims)
                                      : fl_pressure_pair(m, pi * inv_rho * inv_rho, pj * inv_rho * inv_rho, r,
                                                         (float)h, dims);
                ay += s * (0.0f - y);
            }
    return ay;
}

static void forms(void)
{
    const double share[3] = {1.0, 0.5, 1.0}, c = 9810.0, rho0 = 1000.0;
    for (int dims = 2; dims <= 3; dims++) {
        const double d = 0.01, h = 2 * d;
        const double kappa = fl_lattice_gradient_factor(d, h, fl_world_calibrate_mass(rho0, d, h, dims), rho0, dims);
        for (int form = 0; form < 3; form++) {
            double want = -share[form] * kappa * c / rho0;
            double a0 = lattice_ay(form, dims, 0.0, c), a1 = lattice_ay(form, dims, 5e4, c);
            printf("%dD form %d: a_y %.5f m/s^2 (p0 = 0), %.5f (p0 = 5e4 Pa), expected %.5f (kappa %.4f)\n", dims,
                   form, a0, a1, want, kappa);
            ENSURE_NEAR(a0, want, 1e-4 * fabs(want));
            ENSURE_NEAR(a1, want, 1e-3 * fabs(want));
        }
    }
}

static void newton(void)
{
    const float m = 0.1f, rho_i = 1010.0f, rho_j = 990.0f, p_i = 3000.0f, p_j = 1200.0f, h = 0.02f, r = 0.011f;
    const float vi = m / rho_i, vj = m / rho_j;
    for (int dims = 2; dims <= 3; dims++) {
        /* m a_i = m s_ij (x_i - x_j), m a_j = m s_ji (x_j - x_i): equal and opposite when s_ij = s_ji */
        float sym_ij = fl_pressure_pair(m, p_i / (rho_i * rho_i), p_j / (rho_j * rho_j), r, h, dims);
        float sym_ji = fl_pressure_pair(m, p_j / (rho_j * rho_j), p_i / (rho_i * rho_i), r, h, dims);
        float mean_ij = fl_pressure_pair_mean(vj, p_i, p_j, 1.0f / rho_i, r, h, dims);
        float mean_ji = fl_pressure_pair_mean(vi, p_j, p_i, 1.0f / rho_j, r, h, dims);
        float one_ij = fl_pressure_pair_one_sided(vj, p_j, 1.0f / rho_i, r, h, dims);
        float one_ji = fl_pressure_pair_one_sided(vi, p_i, 1.0f / rho_j, r, h, dims);
        printf("%dD pair factors i<-j, j<-i: symmetric %g %g, mean %g %g, one-sided %g %g\n", dims, sym_ij,
               sym_ji, mean_ij, mean_ji, one_ij, one_ji);
        ENSURE_NEAR(sym_ij, sym_ji, 1e-6 * fabsf(sym_ij));
        ENSURE_NEAR(mean_ij, mean_ji, 1e-6 * fabsf(mean_ij));
        ENSURE(fabsf(one_ij / one_ji - 1.0f) > 0.5f);
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "forms"))
        forms(), newton();
    else {
        fprintf(stderr, "usage: test_sph_variants forms\n");
        return 2;
    }
    return fl_test_report("test_sph_variants");
}
