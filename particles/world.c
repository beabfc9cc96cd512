/* world.c: the world's parameters, the calibrated particle mass, the
 * lattice sampler of fluid blocks and the sampler of the Akinci et al. 2012
 * boundary particles (world.h). */
#include "world.h"

#include <math.h>
#include <string.h>

#include "kernels.h"

void fl_world_init(fl_world *w, const fl_box *domain, const double gravity[3], double rho0,
                   double spacing, int dims)
{
    memset(w, 0, sizeof *w);
    w->dims = dims == 2 ? 2 : 3;
    w->domain = *domain;
    memcpy(w->gravity, gravity, sizeof w->gravity);
    if (w->dims == 2) {
        w->domain.lo[2] = -0.5 * spacing;
        w->domain.hi[2] = 0.5 * spacing;
        w->gravity[2] = 0.0;
    }
    w->rho0 = rho0;
    w->spacing = spacing;
    w->h = 2.0 * spacing;
    w->mass = fl_world_calibrate_mass(rho0, spacing, w->h, w->dims);
}

double fl_world_calibrate_mass(double rho0, double spacing, double h, int dims)
{
    int reach = (int)ceil(h / spacing), kreach = dims == 2 ? 0 : reach;
    double sum = 0.0;
    for (int i = -reach; i <= reach; i++)
        for (int j = -reach; j <= reach; j++)
            for (int k = -kreach; k <= kreach; k++) {
                double r2 = (double)(i * i + j * j + k * k) * spacing * spacing;
                sum += fl_poly6((float)r2, (float)h, dims);
            }
    return rho0 / sum;
}

static int inside_box(const fl_box *b, const double x[3])
{
    return x[0] >= b->lo[0] && x[0] <= b->hi[0] && x[1] >= b->lo[1] && x[1] <= b->hi[1] &&
           x[2] >= b->lo[2] && x[2] <= b->hi[2];
}

/* Lattice points per axis: lo + d/2 + i d <= hi - d/2 (with a tolerance so
 * that a block of exactly n d holds n points). */
static int lattice_points(double lo, double hi, double d)
{
    double n = floor((hi - lo) / d + 1e-6);
    return n > 0 ? (int)n : 0;
}

/* splitmix64: a small, seedable, portable generator (Steele et al. 2014). */
static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform_pm_half(uint64_t *state)
{
    return (double)(splitmix64(state) >> 11) * 0x1.0p-53 - 0.5;
}

static int in_obstacle(const fl_world *w, const double x[3])
{
    for (int o = 0; o < w->obstacle_count; o++)
        if (inside_box(&w->obstacles[o], x))
            return 1;
    return 0;
}

/* visit(ctx, x) for a point outside the obstacles; 0 for one inside. */
static int visit_free(const fl_world *w, const double x[3], fl_point_visitor visit, void *ctx)
{
    return in_obstacle(w, x) ? 0 : visit(ctx, x);
}

/* Calls visit(x) for every lattice point of box that is not in an obstacle;
 * stops early and returns the first non-zero result of visit. */

static int visit_box(const fl_world *w, const fl_box *box, fl_point_visitor visit, void *ctx)
{
    double d = w->spacing;
    int n[3];
    for (int a = 0; a < 3; a++)
        n[a] = lattice_points(box->lo[a], box->hi[a], d);
    if (w->dims == 2)
        n[2] = n[0] > 0 && n[1] > 0; /* one row of points, on the plane z = 0 */
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                double x[3] = {box->lo[0] + (i + 0.5) * d, box->lo[1] + (j + 0.5) * d,
                               w->dims == 2 ? 0.0 : box->lo[2] + (k + 0.5) * d};
                int rc = visit_free(w, x, visit, ctx);
                if (rc)
                    return rc;
            }
    return 0;
}

static int count_point(void *ctx, const double x[3])
{
    (void)x;
    ++*(long long *)ctx;
    return 0;
}

long long fl_world_count_box(const fl_world *w, const fl_box *box)
{
    long long count = 0;
    visit_box(w, box, count_point, &count);
    return count;
}

struct fill_ctx {
    fl_world *w;
    double jitter;
    uint64_t rng;
    fl_error *err;
};

static int fill_point(void *ctx, const double x[3])
{
    struct fill_ctx *c = ctx;
    double d = c->w->spacing, p[3];
    for (int a = 0; a < 3; a++)
        p[a] = x[a] + (c->jitter > 0.0 && a < c->w->dims ? c->jitter * d * uniform_pm_half(&c->rng) : 0.0);
    return fl_particles_add(&c->w->fluid, (float)p[0], (float)p[1], (float)p[2], c->err);
}

/* Room for n more fluid particles. */
static int reserve_more(fl_world *w, long long n, fl_error *err)
{
    if (n + w->fluid.count > 0x7fffffff)
        return fl_fail(err, FL_ERR_MEMORY, "%lld fluid particles exceed the store's limit", n);
    return fl_particles_reserve(&w->fluid, w->fluid.count + (int)n, err);
}

int fl_world_fill_box(fl_world *w, const fl_box *box, double jitter, uint64_t seed, fl_error *err)
{
    int rc = reserve_more(w, fl_world_count_box(w, box), err);
    struct fill_ctx c = {w, jitter, seed, err};
    return rc ? rc : visit_box(w, box, fill_point, &c);
}

/* Visits the points not in an obstacle, as visit_box does. */
static int visit_points(const fl_world *w, const double *points, int count, fl_point_visitor visit,
                        void *ctx)
{
    for (int q = 0; q < count; q++) {
        int rc = visit_free(w, points + 3 * (size_t)q, visit, ctx);
        if (rc)
            return rc;
    }
    return 0;
}

long long fl_world_count_points(const fl_world *w, const double *points, int count)
{
    long long n = 0;
    visit_points(w, points, count, count_point, &n);
    return n;
}

int fl_world_fill_points(fl_world *w, const double *points, int count, double jitter,
                         uint64_t seed, fl_error *err)
{
    int rc = reserve_more(w, fl_world_count_points(w, points, count), err);
    struct fill_ctx c = {w, jitter, seed, err};
    return rc ? rc : visit_points(w, points, count, fill_point, &c);
}

int fl_world_add_obstacle(fl_world *w, const fl_box *box, fl_error *err)
{
    if (w->obstacle_count == FL_MAX_BOXES)
        return fl_fail(err, FL_ERR_INPUT, "more than %d obstacles", FL_MAX_BOXES);
    w->obstacles[w->obstacle_count++] = *box;
    return FL_OK;
}

int fl_world_add_solid_mesh(fl_world *w, const fl_mesh *m, fl_error *err)
{
    if (w->solid_mesh_count == FL_MAX_BOXES)
        return fl_fail(err, FL_ERR_INPUT, "more than %d solid meshes", FL_MAX_BOXES);
    int rc = fl_mesh_copy(m, &w->solid_meshes[w->solid_mesh_count], err);
    if (rc == FL_OK)
        w->solid_mesh_count++;
    return rc;
}

/* The shell of box, or in 2D (dims 2) the outline of its rectangle in the
 * plane z = 0. */
static int visit_shell(const fl_box *box, double d, int dims, fl_point_visitor visit, void *ctx)
{
    int n[3];
    double s[3];
    for (int a = 0; a < 3; a++) {
        double len = box->hi[a] - box->lo[a];
        n[a] = (int)fmax(1.0, floor(len / d + 0.5));
        s[a] = len / n[a];
    }
    const int flat = dims == 2;
    for (int k = 0; k <= (flat ? 0 : n[2]); k++)
        for (int j = 0; j <= n[1]; j++)
            for (int i = 0; i <= n[0]; i++) {
                int on_face = i == 0 || i == n[0] || j == 0 || j == n[1] || (!flat && (k == 0 || k == n[2]));
                if (!on_face) {
                    i = n[0] - 1; /* jump to the far x face of this row */
                    continue;
                }
                double x[3] = {box->lo[0] + i * s[0], box->lo[1] + j * s[1], flat ? 0.0 : box->lo[2] + k * s[2]};
                int rc = visit(ctx, x);
                if (rc)
                    return rc;
            }
    return 0;
}

int fl_visit_box_shell(const fl_box *box, double d, fl_point_visitor visit, void *ctx)
{
    return visit_shell(box, d, 3, visit, ctx);
}

/* The domain walls' layer sits outside the domain, an obstacle's inside
 * the obstacle, both FL_BOUNDARY_OFFSET d from the surface (2D:
 * FL_BOUNDARY_OFFSET_2D d). */
static fl_box offset_box(const fl_box *b, double by)
{
    fl_box o = *b;
    for (int a = 0; a < 3; a++)
        o.lo[a] -= by, o.hi[a] += by;
    return o;
}

/* The domain walls of a world with a periodic axis: the shell of walls
 * without the two faces normal to each periodic axis, and along such an
 * axis the points at lo + (i + 1/2) L/n, n = round(L/d), i < n, so that
 * the walls wrap with the fluid (none on a periodic face or beyond it). */
static int visit_periodic_walls(const fl_world *w, const fl_box *walls, fl_point_visitor visit, void *ctx)
{
    int n[3], count[3];
    double s[3], start[3];
    const int flat = w->dims == 2;
    for (int a = 0; a < 3; a++) {
        const int wraps = w->periodic[a];
        double len = wraps ? w->domain.hi[a] - w->domain.lo[a] : walls->hi[a] - walls->lo[a];
        n[a] = (int)fmax(1.0, floor(len / w->spacing + 0.5));
        s[a] = len / n[a];
        start[a] = wraps ? w->domain.lo[a] + 0.5 * s[a] : walls->lo[a];
        count[a] = wraps ? n[a] : n[a] + 1;
    }
    for (int k = 0; k < (flat ? 1 : count[2]); k++)
        for (int j = 0; j < count[1]; j++)
            for (int i = 0; i < count[0]; i++) {
                int on_face = (!w->periodic[0] && (i == 0 || i == n[0])) ||
                              (!w->periodic[1] && (j == 0 || j == n[1])) ||
                              (!flat && !w->periodic[2] && (k == 0 || k == n[2]));
                if (!on_face)
                    continue;
                double x[3] = {start[0] + i * s[0], start[1] + j * s[1], flat ? 0.0 : start[2] + k * s[2]};
                int rc = visit(ctx, x);
                if (rc)
                    return rc;
            }
    return 0;
}

static int visit_boundary(const fl_world *w, fl_point_visitor visit, void *ctx)
{
    double off = (w->dims == 2 ? FL_BOUNDARY_OFFSET_2D : FL_BOUNDARY_OFFSET) * w->spacing;
    fl_box walls = offset_box(&w->domain, off);
    int rc = w->periodic[0] || w->periodic[1] || w->periodic[2]
                 ? visit_periodic_walls(w, &walls, visit, ctx)
                 : visit_shell(&walls, w->spacing, w->dims, visit, ctx);
    for (int o = 0; o < w->obstacle_count && !rc; o++) {
        fl_box solid = offset_box(&w->obstacles[o], -off);
        rc = visit_shell(&solid, w->spacing, w->dims, visit, ctx);
    }
    return rc;
}

long long fl_world_count_boundary(const fl_world *w)
{
    long long count = 0;
    visit_boundary(w, count_point, &count);
    return count;
}

int fl_boundary_sink_add(void *ctx, const double x[3])
{
    fl_boundary_sink *c = ctx;
    return fl_boundary_add(c->b, (float)x[0], (float)x[1], (float)x[2], c->err);
}

int fl_world_sample_boundary(fl_world *w, fl_error *err)
{
    long long n = fl_world_count_boundary(w);
    if (n + w->boundary.count > 0x7fffffff)
        return fl_fail(err, FL_ERR_MEMORY, "%lld boundary particles exceed the store's limit", n);
    int rc = fl_boundary_reserve(&w->boundary, w->boundary.count + (int)n, err);
    if (rc)
        return rc;
    fl_boundary_sink c = {&w->boundary, err};
    return visit_boundary(w, fl_boundary_sink_add, &c);
}

void fl_world_free(fl_world *w)
{
    fl_particles_free(&w->fluid);
    fl_boundary_free(&w->boundary);
    for (int k = 0; k < w->solid_mesh_count; k++)
        fl_mesh_free(&w->solid_meshes[k]);
    w->solid_mesh_count = 0;
}
