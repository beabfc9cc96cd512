/* periodic.h: periodic boundaries (docs/design.md, "Periodic boundaries").
 *
 * Along a periodic axis of length L the domain wraps: a particle leaving
 * through hi re-enters through lo, and the displacement of a pair is its
 * minimum image, the one of x_i - x_j + k L (k whole) nearest to 0. The
 * neighbor grid refuses a periodic axis shorter than 2h, so that at most
 * one image of a neighbor lies within h and the minimum image is the
 * image the neighbor lists found. */
#ifndef FL_PERIODIC_H
#define FL_PERIODIC_H

#include <math.h>

#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The periods of a world: len[a] = L and inv[a] = 1/L along a periodic
 * axis, both 0 along the others; any: some axis is periodic. */
typedef struct fl_period {
    int any;
    float len[3], inv[3];  /* m, 1/m */
} fl_period;

static inline fl_period fl_period_of(const fl_world *w)
{
    fl_period p = {0, {0, 0, 0}, {0, 0, 0}};
    for (int a = 0; a < 3; a++)
        if (w->periodic[a]) {
            const double len = w->domain.hi[a] - w->domain.lo[a];
            p.any = 1;
            p.len[a] = (float)len;
            p.inv[a] = (float)(1.0 / len);
        }
    return p;
}

/* The minimum image of one component d of a displacement: d - L rint(d / L);
 * d itself where L = inv = 0 (an axis that does not wrap). */
static inline FL_HD float fl_min_image(float d, float len, float inv)
{
    return d - len * rintf(d * inv);
}

/* The minimum image of the displacement (dx, dy, dz), in place. */
static inline FL_HD void fl_min_image3(const fl_period *p, float *dx, float *dy, float *dz)
{
    *dx = fl_min_image(*dx, p->len[0], p->inv[0]);
    *dy = fl_min_image(*dy, p->len[1], p->inv[1]);
    *dz = fl_min_image(*dz, p->len[2], p->inv[2]);
}

/* The pair displacement (dx, dy, dz) = x_i - x_j as the solvers' pair
 * loops take it: its minimum image where per is not NULL. The solvers call
 * it from forced-inline per-particle functions, which their parallel loops
 * call with per the address of the world's periods or a literal NULL (a
 * branch per particle): the NULL copy is the loop as it was before
 * periodic boundaries. The branch sits inside the OpenMP loop because a
 * parallel region is outlined before inlining: a constant passed to a
 * function that holds the loop would not reach the loop. */
static inline FL_HD void fl_pair_image(const fl_period *per, float *dx, float *dy, float *dz)
{
    if (per)
        fl_min_image3(per, dx, dy, dz);
}

/* x wrapped into [lo, hi) along an axis of length len = hi - lo (inv =
 * 1/len); where rounding leaves the result outside, it is lo (then x was
 * within rounding of lo or hi). NaN stays NaN, so that it is still
 * counted as one. */
static inline FL_HD float fl_wrap_coord(float x, float lo, float hi, float len, float inv)
{
    float y = x - len * floorf((x - lo) * inv);
    return (y >= lo && y < hi) || y != y ? y : lo;
}

#ifdef __cplusplus
}
#endif

#endif
