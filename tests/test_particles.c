/* test_particles.c: the particle store and the samplers.
 *  - every array is 64-byte aligned, growth keeps the particles, and a
 *    permutation moves every attribute of a particle together;
 *  - the lattice fill: counts, spacing d, obstacles left empty, and the
 *    seeded jitter (same seed, same points; bounded by jitter d / 2);
 *  - the boundary sampler: one layer FL_BOUNDARY_OFFSET d outside every
 *    wall and inside every obstacle, spaced about d, its count predicted. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ensure.h"
#include "world.h"

static int aligned(const void *p) { return ((uintptr_t)p % 64) == 0; }

static void store(void)
{
    fl_particles p = {0};
    fl_error err;
    for (int i = 0; i < 5000; i++)
        ENSURE(fl_particles_add(&p, (float)i, (float)(2 * i), (float)(3 * i), &err) == FL_OK);
    ENSURE(p.count == 5000 && p.capacity >= 5000);
    const float *arrays[] = {p.x, p.y, p.z, p.vx, p.vy, p.vz, p.px, p.py, p.pz, p.rho, p.p};
    int all_aligned = 1;
    for (int k = 0; k < 11; k++)
        all_aligned &= aligned(arrays[k]);
    ENSURE(all_aligned);
    int kept = 1;
    for (int i = 0; i < p.count; i++) {
        kept &= p.x[i] == (float)i && p.y[i] == (float)(2 * i) && p.z[i] == (float)(3 * i);
        p.vx[i] = (float)(10 * i), p.rho[i] = (float)(1000 + i);
    }
    ENSURE(kept);

    /* reverse the store: slot k takes old particle n - 1 - k, all attributes along */
    int *perm = malloc(sizeof(int) * (size_t)p.count);
    float *scratch = malloc(sizeof(float) * (size_t)p.count);
    for (int k = 0; k < p.count; k++)
        perm[k] = p.count - 1 - k;
    fl_particles_permute(&p, perm, scratch);
    int moved = 1;
    for (int k = 0; k < p.count; k++) {
        int old = p.count - 1 - k;
        moved &= p.x[k] == (float)old && p.y[k] == (float)(2 * old) && p.vx[k] == (float)(10 * old) &&
                 p.rho[k] == (float)(1000 + old);
    }
    ENSURE(moved);
    free(perm), free(scratch);
    fl_particles_free(&p);
    ENSURE(p.x == NULL && p.count == 0 && p.capacity == 0);

    fl_boundary b = {0};
    for (int i = 0; i < 3000; i++)
        ENSURE(fl_boundary_add(&b, 1.0f, 2.0f, (float)i, &err) == FL_OK);
    ENSURE(aligned(b.x) && aligned(b.volume) && b.z[2999] == 2999.0f);
    fl_boundary_free(&b);
}

static void lattice(void)
{
    fl_world w, v;
    fl_error err;
    double g[3] = {0, -9.81, 0};
    fl_box dom = {{0, 0, 0}, {1, 1, 1}}, block = {{0.1, 0.1, 0.1}, {0.5, 0.3, 0.2}};
    fl_box hole = {{0.2, 0.0, 0.0}, {0.3, 1.0, 1.0}};
    const double d = 0.05;

    fl_world_init(&w, &dom, g, 1000.0, d, 3);
    ENSURE_NEAR(w.h, 2 * d, 1e-15);
    ENSURE(fl_world_count_box(&w, &block) == 8 * 4 * 2);
    ENSURE(fl_world_fill_box(&w, &block, 0.0, 1, &err) == FL_OK);
    ENSURE(w.fluid.count == 64);
    /* points at lo + d/2 + i d: nearest neighbor exactly d apart */
    ENSURE_NEAR(w.fluid.x[0], 0.125, 1e-6);
    ENSURE_NEAR(w.fluid.x[1] - w.fluid.x[0], d, 1e-6);
    fl_world_free(&w);

    /* an obstacle: the fill skips the points inside it (x in [0.2, 0.3]: two columns) */
    fl_world_init(&w, &dom, g, 1000.0, d, 3);
    ENSURE(fl_world_add_obstacle(&w, &hole, &err) == FL_OK);
    ENSURE(fl_world_fill_box(&w, &block, 0.0, 1, &err) == FL_OK);
    ENSURE(w.fluid.count == 6 * 4 * 2);
    int inside = 0;
    for (int i = 0; i < w.fluid.count; i++)
        inside += w.fluid.x[i] >= 0.2f && w.fluid.x[i] <= 0.3f;
    ENSURE(inside == 0);
    fl_world_free(&w);

    /* jitter: reproducible from its seed, bounded, and not the lattice */
    fl_world_init(&w, &dom, g, 1000.0, d, 3);
    fl_world_init(&v, &dom, g, 1000.0, d, 3);
    ENSURE(fl_world_fill_box(&w, &block, 0.4, 7, &err) == FL_OK);
    ENSURE(fl_world_fill_box(&v, &block, 0.4, 7, &err) == FL_OK);
    int same = 1, bounded = 1, moved = 0;
    for (int i = 0; i < w.fluid.count; i++) {
        same &= w.fluid.x[i] == v.fluid.x[i] && w.fluid.y[i] == v.fluid.y[i] && w.fluid.z[i] == v.fluid.z[i];
        int ix = i % 8;
        double lattice_x = 0.1 + (ix + 0.5) * d, off = w.fluid.x[i] - lattice_x;
        bounded &= fabs(off) <= 0.2 * d + 1e-6;
        moved += fabs(off) > 1e-4 * d;
    }
    ENSURE(same);
    ENSURE(bounded);
    ENSURE(moved > w.fluid.count / 2);
    fl_world_free(&v);
    fl_world_init(&v, &dom, g, 1000.0, d, 3);
    ENSURE(fl_world_fill_box(&v, &block, 0.4, 8, &err) == FL_OK);
    ENSURE(v.fluid.x[0] != w.fluid.x[0] || v.fluid.y[0] != w.fluid.y[0]);
    fl_world_free(&v);
    fl_world_free(&w);
}

/* Distance from p to the surface of box b (0 on it). */
static double to_surface(const fl_box *b, const float p[3])
{
    double out = 0.0, in = INFINITY;
    for (int a = 0; a < 3; a++) {
        double lo = b->lo[a] - p[a], hi = p[a] - b->hi[a];
        double o = fmax(fmax(lo, hi), 0.0);
        out += o * o;
        in = fmin(in, fmin(-lo, -hi));
    }
    return out > 0.0 ? sqrt(out) : in;
}

static void boundary(void)
{
    fl_world w;
    fl_error err;
    double g[3] = {0, -9.81, 0};
    fl_box dom = {{0, 0, 0}, {1.0, 0.6, 0.4}}, post = {{0.4, 0.0, 0.1}, {0.6, 0.3, 0.3}};
    const double d = 0.02, off = FL_BOUNDARY_OFFSET * d;
    fl_world_init(&w, &dom, g, 1000.0, d, 3);
    ENSURE(fl_world_add_obstacle(&w, &post, &err) == FL_OK);
    long long predicted = fl_world_count_boundary(&w);
    ENSURE(fl_world_sample_boundary(&w, &err) == FL_OK);
    ENSURE(w.boundary.count == predicted);
    fl_box walls = dom, solid = post;
    for (int a = 0; a < 3; a++)
        walls.lo[a] -= off, walls.hi[a] += off, solid.lo[a] += off, solid.hi[a] -= off;
    int on_walls = 0, on_post = 0, stray = 0;
    for (int i = 0; i < w.boundary.count; i++) {
        float p[3] = {w.boundary.x[i], w.boundary.y[i], w.boundary.z[i]};
        if (fabs(to_surface(&walls, p)) < 1e-6)
            on_walls++;
        else if (fabs(to_surface(&solid, p)) < 1e-6)
            on_post++;
        else
            stray++;
    }
    ENSURE(stray == 0);
    /* about one particle per d^2 of each surface */
    double wall_area = 2 * ((1.0 + 2 * off) * (0.6 + 2 * off) + (1.0 + 2 * off) * (0.4 + 2 * off) +
                            (0.6 + 2 * off) * (0.4 + 2 * off));
    double post_area = 2 * ((0.2 - 2 * off) * (0.3 - 2 * off) + (0.2 - 2 * off) * (0.2 - 2 * off) +
                            (0.3 - 2 * off) * (0.2 - 2 * off));
    printf("boundary: %d on the walls (area / d^2 = %.0f), %d on the obstacle (%.0f)\n", on_walls,
           wall_area / (d * d), on_post, post_area / (d * d));
    ENSURE(fabs(on_walls / (wall_area / (d * d)) - 1.0) < 0.1);
    ENSURE(fabs(on_post / (post_area / (d * d)) - 1.0) < 0.3);
    fl_world_free(&w);
}

int main(void)
{
    store();
    lattice();
    boundary();
    return fl_test_report("test_particles");
}
