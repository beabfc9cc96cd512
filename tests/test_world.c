/* test_world.c: the rest state. With the calibrated mass, interior particles
 * of a freshly sampled block read rho0 within 0.1 %; a particle at rest on a
 * flat wall with a full fluid neighborhood above it reads rho0 within 2 %
 * (Akinci boundary volumes); a wall particle's volume is 1 / sum W over its
 * planar lattice. */
#include <math.h>
#include <stdlib.h>

#include "ensure.h"
#include "kernels.h"
#include "solver.h"

static float *densities(fl_world *w)
{
    fl_error err;
    fl_nbgrid g;
    float *rho = malloc(sizeof(float) * (size_t)w->fluid.count);
    ENSURE(fl_nbgrid_init(&g, w, &err) == FL_OK);
    ENSURE(fl_nbgrid_build(&g, w->fluid.x, w->fluid.y, w->fluid.z, w->fluid.count, &err) == FL_OK);
    ENSURE(fl_nbgrid_search(&g, w->fluid.x, w->fluid.y, w->fluid.z, &err) == FL_OK);
    fl_density_poly6(w, &g, w->fluid.x, w->fluid.y, w->fluid.z, rho);
    fl_nbgrid_free(&g);
    return rho;
}

static double dist_to_box(const fl_box *b, float x, float y, float z)
{
    double p[3] = {x, y, z}, d = INFINITY;
    for (int a = 0; a < 3; a++)
        d = fmin(d, fmin(p[a] - b->lo[a], b->hi[a] - p[a]));
    return d;
}

int main(void)
{
    fl_error err;
    double g[3] = {0, -9.81, 0};
    const double d = 0.02, rho0 = 1000.0;

    /* 1. a block floating in the middle of a large domain */
    {
        fl_world w;
        fl_box dom = {{0, 0, 0}, {1, 1, 1}}, block = {{0.3, 0.3, 0.3}, {0.6, 0.6, 0.6}};
        fl_world_init(&w, &dom, g, rho0, d, 3);
        ENSURE(fl_world_fill_box(&w, &block, 0.0, 1, &err) == FL_OK);
        ENSURE(w.fluid.count == 15 * 15 * 15);
        ENSURE(fl_world_sample_boundary(&w, &err) == FL_OK);
        ENSURE(fl_boundary_compute_volumes(&w, &err) == FL_OK);
        float *rho = densities(&w);
        int interior = 0;
        double worst = 0.0;
        for (int i = 0; i < w.fluid.count; i++) {
            if (dist_to_box(&block, w.fluid.x[i], w.fluid.y[i], w.fluid.z[i]) < w.h)
                continue;
            interior++;
            worst = fmax(worst, fabs(rho[i] / rho0 - 1.0));
        }
        printf("interior particles: %d, worst |rho/rho0 - 1| = %.2e\n", interior, worst);
        ENSURE(interior > 1000);
        ENSURE(worst < 1e-3);
        free(rho);
        fl_world_free(&w);
    }

    /* 2. a slab of fluid on the floor: the first row reads rho0 within 2 % */
    {
        fl_world w;
        fl_box dom = {{0, 0, 0}, {0.4, 0.4, 0.4}}, slab = {{0, 0, 0}, {0.4, 0.2, 0.4}};
        fl_world_init(&w, &dom, g, rho0, d, 3);
        ENSURE(fl_world_fill_box(&w, &slab, 0.0, 1, &err) == FL_OK);
        ENSURE(fl_world_sample_boundary(&w, &err) == FL_OK);
        ENSURE(fl_boundary_compute_volumes(&w, &err) == FL_OK);
        float *rho = densities(&w);
        int checked = 0;
        double worst = 0.0, sum = 0.0;
        for (int i = 0; i < w.fluid.count; i++) {
            const float *x = w.fluid.x, *z = w.fluid.z;
            int first_row = fabsf(w.fluid.y[i] - (float)(d / 2)) < 1e-6f;
            int away_from_sides = x[i] > w.h && x[i] < 0.4 - w.h && z[i] > w.h && z[i] < 0.4 - w.h;
            if (!first_row || !away_from_sides)
                continue;
            checked++;
            sum += rho[i] / rho0 - 1.0;
            worst = fmax(worst, fabs(rho[i] / rho0 - 1.0));
        }
        printf("particles on the floor: %d, mean rho/rho0 - 1 = %+.4f, worst |.| = %.4f\n", checked,
               sum / checked, worst);
        ENSURE(checked >= 100);
        ENSURE(worst < 0.02);

        /* 3. a wall particle in the middle of the floor: V_b = 1 / sum W over its planar lattice */
        int mid = -1;
        double best = INFINITY;
        for (int b = 0; b < w.boundary.count; b++) {
            double r = fabs(w.boundary.x[b] - 0.2) + fabs(w.boundary.z[b] - 0.2) + fabs(w.boundary.y[b] + FL_BOUNDARY_OFFSET * d);
            if (r < best)
                best = r, mid = b;
        }
        double len = 0.4 + 2 * FL_BOUNDARY_OFFSET * d, sp = len / floor(len / d + 0.5), s = 0.0; /* the floor's sampling */
        for (int i = -3; i <= 3; i++)
            for (int k = -3; k <= 3; k++)
                s += fl_poly6((float)((i * i + k * k) * sp * sp), (float)w.h, 3);
        ENSURE_NEAR(w.boundary.volume[mid], 1.0 / s, 1e-4 / s);
        free(rho);
        fl_world_free(&w);
    }
    return fl_test_report("test_world");
}
