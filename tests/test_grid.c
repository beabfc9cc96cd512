/* test_grid.c: the neighbor grid against a brute-force O(n^2) search, on
 * random points and on points placed exactly on cell faces and in the
 * corner cells; identical lists for 1 and 2 threads; a particle outside the
 * grid (NaN, far away) is an error status, not a crash. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "nbgrid.h"

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Sorted copy of the list of i; returns its length. */
static int sorted_list(const int *start, const int *list, int i, int *out)
{
    int n = start[i + 1] - start[i];
    memcpy(out, list + start[i], (size_t)n * sizeof(int));
    qsort(out, (size_t)n, sizeof(int), cmp_int);
    return n;
}

/* Brute force: every j (other than self) with r^2 < h^2, in the same float
 * arithmetic as the grid, ascending. */
static int brute(const float *x, const float *y, const float *z, int n, float px, float py, float pz,
                 int self, float h, int *out)
{
    int m = 0;
    for (int j = 0; j < n; j++) {
        float dx = px - x[j], dy = py - y[j], dz = pz - z[j];
        if (j != self && dx * dx + dy * dy + dz * dz < h * h)
            out[m++] = j;
    }
    return m;
}

int main(void)
{
    fl_world w;
    fl_box dom = {{0, 0, 0}, {1.0, 0.8, 0.6}};
    double g[3] = {0, -9.81, 0};
    fl_error err;
    fl_world_init(&w, &dom, g, 1000.0, 0.05, 3);
    ENSURE(fl_world_sample_boundary(&w, &err) == FL_OK);
    fl_nbgrid grid;
    ENSURE(fl_nbgrid_init(&grid, &w, &err) == FL_OK);

    /* random points, then points on cell faces, corners of the domain and
     * in the grid's corner cells */
    fl_particles p = {0};
    srand(7);
    for (int i = 0; i < 3000; i++)
        fl_particles_add(&p, (float)(rand() / (double)RAND_MAX * 1.0), (float)(rand() / (double)RAND_MAX * 0.8),
                         (float)(rand() / (double)RAND_MAX * 0.6), &err);
    for (int i = 0; i <= 10; i++)
        for (int j = 0; j <= 8; j += 2)
            fl_particles_add(&p, grid.lo[0] + grid.cell * (float)(i + 1), grid.lo[1] + grid.cell * (float)(j + 1),
                             0.3f, &err);
    float corners[][3] = {{0, 0, 0}, {1.0f, 0.8f, 0.6f}, {0, 0.8f, 0}, {1.0f, 0, 0.6f},
                          {grid.lo[0], grid.lo[1], grid.lo[2]},
                          {grid.lo[0] + grid.cell * grid.dim[0] - 1e-4f, grid.lo[1] + grid.cell * grid.dim[1] - 1e-4f,
                           grid.lo[2] + grid.cell * grid.dim[2] - 1e-4f}};
    for (size_t k = 0; k < sizeof corners / sizeof corners[0]; k++)
        fl_particles_add(&p, corners[k][0], corners[k][1], corners[k][2], &err);

    int *a = malloc(sizeof(int) * (size_t)(p.count + w.boundary.count));
    int *b = malloc(sizeof(int) * (size_t)(p.count + w.boundary.count));
    int *first = NULL, first_len = 0;
    /* passes 1-2: the points as drawn (neighbors rarely share a cell), on 1
     * and 2 threads; pass 3: the store sorted by cell, as the solvers keep
     * it (consecutive particles share a cell, and the search takes them in
     * pairs) */
    for (int pass = 1; pass <= 3; pass++) {
        int threads = pass == 1 ? 1 : 2;
        if (pass == 3) {
            float *scratch = malloc(sizeof(float) * (size_t)p.count);
            fl_particles_permute(&p, fl_nbgrid_order(&grid), scratch);
            free(scratch);
        }
        omp_set_num_threads(threads);
        fl_nbgrid_free(&grid);
        ENSURE(fl_nbgrid_init(&grid, &w, &err) == FL_OK);
        ENSURE(fl_nbgrid_build(&grid, p.x, p.y, p.z, p.count, &err) == FL_OK);
        ENSURE(fl_nbgrid_search(&grid, p.x, p.y, p.z, &err) == FL_OK);
        int fluid_mismatch = 0, bnd_mismatch = 0, pairs = 0;
        for (int i = 0; i < p.count; i++) {
            int na = sorted_list(grid.nb_start, grid.nb, i, a);
            int nb = brute(p.x, p.y, p.z, p.count, p.x[i], p.y[i], p.z[i], i, grid.radius, b);
            fluid_mismatch += na != nb || memcmp(a, b, (size_t)na * sizeof(int)) != 0;
            pairs += na;
            na = sorted_list(grid.bnb_start, grid.bnb, i, a);
            nb = brute(w.boundary.x, w.boundary.y, w.boundary.z, w.boundary.count, p.x[i], p.y[i], p.z[i], -1,
                       grid.radius, b);
            bnd_mismatch += na != nb || memcmp(a, b, (size_t)na * sizeof(int)) != 0;
        }
        ENSURE(fluid_mismatch == 0);
        ENSURE(bnd_mismatch == 0);
        ENSURE(pairs > 10 * p.count);
        /* the lists themselves (not only the sets) are the same for any thread count */
        int len = grid.nb_start[p.count];
        if (pass == 3) {
            int pairs_shared = 0;
            for (int i = 0; i + 1 < p.count; i++)
                pairs_shared += grid.cell_of[i] == grid.cell_of[i + 1];
            ENSURE(pairs_shared > p.count / 2);
        } else if (!first) {
            first = malloc(sizeof(int) * (size_t)len);
            memcpy(first, grid.nb, sizeof(int) * (size_t)len);
            first_len = len;
        } else {
            ENSURE(len == first_len && memcmp(first, grid.nb, sizeof(int) * (size_t)len) == 0);
        }
    }

    /* outside the grid: a NaN, then a far particle */
    float saved = p.x[10];
    p.x[10] = NAN;
    ENSURE(fl_nbgrid_build(&grid, p.x, p.y, p.z, p.count, &err) == FL_ERR_OUTSIDE);
    ENSURE(strstr(err.msg, "outside") != NULL);
    p.x[10] = 1e6f;
    ENSURE(fl_nbgrid_build(&grid, p.x, p.y, p.z, p.count, &err) == FL_ERR_OUTSIDE);
    p.x[10] = -1e30f;
    ENSURE(fl_nbgrid_build(&grid, p.x, p.y, p.z, p.count, &err) == FL_ERR_OUTSIDE);
    p.x[10] = saved;
    ENSURE(fl_nbgrid_build(&grid, p.x, p.y, p.z, p.count, &err) == FL_OK);

    /* collapsed: every particle piled within h/10 of one point, where each
     * would list all the others (n^2 entries; a blown-up run of 442 000
     * particles asked for over 24 GiB), ends the search with FL_ERR_OUTSIDE
     * and says so, on 1 and 2 threads; the same particles at 8 times the
     * rest density (a lattice of spacing d/2) are searched as usual */
    fl_particles pile = {0}, dense = {0};
    for (int i = 0; i < p.count; i++)
        fl_particles_add(&pile, 0.5f + 0.01f * (float)(rand() / (double)RAND_MAX), 0.4f, 0.3f, &err);
    const float half = (float)(0.5 * w.spacing);
    for (int i = 0; i < 12; i++)
        for (int j = 0; j < 12; j++)
            for (int k = 0; k < 12; k++)
                fl_particles_add(&dense, 0.3f + half * (float)i, 0.2f + half * (float)j, 0.15f + half * (float)k,
                                 &err);
    for (int threads = 1; threads <= 2; threads++) {
        omp_set_num_threads(threads);
        fl_nbgrid_free(&grid);
        ENSURE(fl_nbgrid_init(&grid, &w, &err) == FL_OK);
        ENSURE(fl_nbgrid_build(&grid, pile.x, pile.y, pile.z, pile.count, &err) == FL_OK);
        ENSURE(fl_nbgrid_search(&grid, pile.x, pile.y, pile.z, &err) == FL_ERR_OUTSIDE);
        ENSURE(strstr(err.msg, "collapsed") != NULL);
        ENSURE(grid.nb_capacity < 4LL * grid.collapse * pile.count);
        ENSURE(fl_nbgrid_build(&grid, dense.x, dense.y, dense.z, dense.count, &err) == FL_OK);
        ENSURE(fl_nbgrid_search(&grid, dense.x, dense.y, dense.z, &err) == FL_OK);
        ENSURE(grid.nb_start[dense.count] > 100LL * dense.count);
    }
    fl_particles_free(&pile);
    fl_particles_free(&dense);

    free(a), free(b), free(first);
    fl_nbgrid_free(&grid);
    fl_particles_free(&p);
    fl_world_free(&w);
    return fl_test_report("test_grid");
}
