/* blobby.c: the improved blobbies field and the particles' surface
 * (blobby.h; the PIC/FLIP report's eqs. 18-22).
 *
 * The report scatters each particle onto the nodes within R of it. Here
 * the same visit is split by node layer: the particles are binned by the
 * grid's layer and row (a stable counting sort), and each node layer, one
 * a thread, walks the particles of the layers within R of it, adding each
 * one's weight to the nodes of its disc in that layer. A node's sums thus
 * run over its particles in the binned order whatever the thread count. */
#include "blobby.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

fl_blobby_def fl_default_blobby_def(double spacing)
{
    fl_blobby_def d = {spacing, 0.5, 3.0};
    return d;
}

double fl_blobby_default_spacing(double particle_spacing)
{
    return 0.5 * particle_spacing;
}

void fl_blobby_field_free(fl_blobby_field *f)
{
    if (f == NULL)
        return;
    free(f->phi);
    memset(f, 0, sizeof *f);
}

/* The grid and the binned particles one sampling works on. */
typedef struct sampler {
    int n[3];          /* nodes per axis */
    double lo[3];      /* node (0, 0, 0), m */
    double h;          /* spacing, m */
    double r, R;       /* particle and search radius, m */
    int reach;         /* P = ceil(R / h): layers a particle reaches either side */
    int rows, layers;  /* bins per axis: n[1] + 2 P + 2, n[2] + 2 P + 2 */
    int *start;        /* rows * layers + 1: the first sorted particle of each bin */
    float *x, *y, *z;  /* the particles within reach of the grid, sorted by bin */
} sampler;

/* The node range along one axis: the particles' extent [lo, hi] and R
 * beyond it, on the lattice origin + h i; clipped to the nodes 0 .. last
 * when last >= 0 (the domain, from origin on). *first is the first node's
 * index on the lattice. */
static void axis_range(double lo, double hi, double origin, double h, double R, double last, double *first,
                       double *count)
{
    double i0 = floor((lo - R - origin) / h), i1 = ceil((hi + R - origin) / h);
    if (last >= 0.0) {
        i0 = fmin(fmax(i0, 0.0), fmax(last - 1.0, 0.0));
        i1 = fmax(fmin(i1, last), i0 + 1.0);
    }
    *first = i0;
    *count = i1 - i0 + 1.0;
}

/* The grid of the particles of p (checked finite) into s, or an error. */
static int place_grid(const fl_particles *p, const fl_box *domain, sampler *s, fl_error *err)
{
    double lo[3] = {0.0, 0.0, 0.0}, hi[3] = {0.0, 0.0, 0.0};
    const float *c[3] = {p->x, p->y, p->z};
    for (int i = 0; i < p->count; i++)
        for (int a = 0; a < 3; a++) {
            double v = c[a][i];
            if (!isfinite(v))
                return fl_fail(err, FL_ERR_INPUT, "blobbies: particle %d is at a position that is not finite", i);
            lo[a] = i == 0 || v < lo[a] ? v : lo[a];
            hi[a] = i == 0 || v > hi[a] ? v : hi[a];
        }
    double nodes = 1.0;
    for (int a = 0; a < 3; a++) {
        const double origin = domain ? domain->lo[a] : 0.0;
        double first, count;
        if (p->count == 0)
            first = 0.0, count = 2.0;
        else
            axis_range(lo[a], hi[a], origin, s->h, s->R,
                       domain ? floor((domain->hi[a] - domain->lo[a]) / s->h + 1e-9) : -1.0, &first, &count);
        if (!(count <= INT_MAX / 4))
            return fl_fail(err, FL_ERR_MEMORY, "blobbies: %.3g nodes along axis %d at spacing %g m, too many", count,
                           a, s->h);
        s->n[a] = (int)count;
        s->lo[a] = origin + first * s->h;
        nodes *= count;
    }
    /* the field (4 bytes a node), marching cubes' edge ids (12) and its padded copy (4) */
    const double mem = fl_physical_memory(), need = 20.0 * nodes;
    if (need > (mem > 0.0 ? mem : 1e12) || nodes > (double)(SIZE_MAX / 16))
        return fl_fail(err, FL_ERR_MEMORY, "blobbies: a grid of %d x %d x %d nodes at spacing %g m needs %.3g GB; "
                       "use a larger spacing", s->n[0], s->n[1], s->n[2], s->h, need * 1e-9);
    return FL_OK;
}

/* The bin (row + rows * layer) of the particle at (x, y, z), or -1 when it
 * is beyond the reach of every node of the grid along x, y or z. */
static long long bin_of(const sampler *s, double x, double y, double z)
{
    const double at[3] = {x, y, z};
    long long b[3];
    for (int a = 0; a < 3; a++) {
        double l = floor((at[a] - s->lo[a]) / s->h) + s->reach + 1;
        if (!(l >= 0.0 && l < s->n[a] + 2.0 * s->reach + 2.0))
            return -1;
        b[a] = (long long)l;
    }
    return b[1] + (long long)s->rows * b[2];
}

/* Bins the particles of p within reach of the grid (stable counting sort
 * by row and layer) into s's sorted copies. */
static int bin_particles(const fl_particles *p, sampler *s, fl_error *err)
{
    const size_t bins = (size_t)s->rows * (size_t)s->layers;
    long long *bin = malloc(((size_t)p->count + 1) * sizeof *bin);
    s->start = calloc(bins + 1, sizeof *s->start);
    if (bin == NULL || s->start == NULL) {
        free(bin);
        return fl_fail(err, FL_ERR_MEMORY, "blobbies: no memory to bin %d particles", p->count);
    }
    int kept = 0;
    for (int i = 0; i < p->count; i++) {
        bin[i] = bin_of(s, p->x[i], p->y[i], p->z[i]);
        if (bin[i] >= 0)
            s->start[bin[i] + 1]++, kept++;
    }
    for (size_t b = 0; b < bins; b++)
        s->start[b + 1] += s->start[b];
    s->x = malloc(((size_t)kept + 1) * sizeof(float));
    s->y = malloc(((size_t)kept + 1) * sizeof(float));
    s->z = malloc(((size_t)kept + 1) * sizeof(float));
    int *fill = malloc((bins + 1) * sizeof *fill);
    if (s->x == NULL || s->y == NULL || s->z == NULL || fill == NULL) {
        free(bin);
        free(fill);
        return fl_fail(err, FL_ERR_MEMORY, "blobbies: no memory to bin %d particles", p->count);
    }
    memcpy(fill, s->start, bins * sizeof *fill);
    for (int i = 0; i < p->count; i++)
        if (bin[i] >= 0) {
            int at = fill[bin[i]]++;
            s->x[at] = p->x[i], s->y[at] = p->y[i], s->z[at] = p->z[i];
        }
    free(bin);
    free(fill);
    return FL_OK;
}

/* Node layer k of phi: each particle within R of the layer adds its
 * kernel weight k(s) = (1 - s)^3, s = |x - x_i|^2 / R^2 (eq. 22), and its
 * weighted offset x_i - x to the nodes of its disc in the layer (acc: 4
 * doubles a node of the layer: sum k, sum k (x_i - x)); then phi =
 * |sum k (x_i - x)| / sum k - r (eqs. 18, 21), or R - r where no
 * particle reaches. */
static void sample_layer(const sampler *s, int k, double *acc, float *phi)
{
    const int nx = s->n[0], ny = s->n[1];
    const size_t layer = (size_t)nx * (size_t)ny;
    const double h = s->h, R2 = s->R * s->R, inv_R2 = 1.0 / R2;
    const double zk = s->lo[2] + h * k;
    /* layers k - P - 1 .. k + P, shifted by P + 1 in the bins */
    const int first = s->start[(size_t)s->rows * (size_t)k];
    const int last = s->start[(size_t)s->rows * (size_t)(k + 2 * s->reach + 2)];
    const float outside = (float)(s->R - s->r);
    if (first == last) {
        for (size_t c = 0; c < layer; c++)
            phi[c] = outside;
        return;
    }
    memset(acc, 0, 4 * layer * sizeof *acc);
    for (int q = first; q < last; q++) {
        const double px = s->x[q], py = s->y[q], dz = s->z[q] - zk;
        const double rem_z = R2 - dz * dz;
        if (rem_z <= 0.0)
            continue;
        const double ry = sqrt(rem_z);
        const int j0 = (int)fmax(ceil((py - ry - s->lo[1]) / h), 0.0);
        const int j1 = (int)fmin(floor((py + ry - s->lo[1]) / h), ny - 1.0);
        for (int j = j0; j <= j1; j++) {
            const double dy = py - (s->lo[1] + h * j);
            const double rem_y = rem_z - dy * dy;
            if (rem_y <= 0.0)
                continue;
            const double rx = sqrt(rem_y);
            const int i0 = (int)fmax(ceil((px - rx - s->lo[0]) / h), 0.0);
            const int i1 = (int)fmin(floor((px + rx - s->lo[0]) / h), nx - 1.0);
            double *row = acc + 4 * (size_t)nx * (size_t)j;
            for (int i = i0; i <= i1; i++) {
                const double dx = px - (s->lo[0] + h * i);
                const double t = 1.0 - (dx * dx + dy * dy + dz * dz) * inv_R2;
                if (t <= 0.0)
                    continue;
                const double w = t * t * t;
                double *a = row + 4 * (size_t)i;
                a[0] += w, a[1] += w * dx, a[2] += w * dy, a[3] += w * dz;
            }
        }
    }
    for (size_t c = 0; c < layer; c++) {
        const double *a = acc + 4 * c;
        phi[c] = a[0] > 0.0 ? (float)(sqrt(a[1] * a[1] + a[2] * a[2] + a[3] * a[3]) / a[0] - s->r) : outside;
    }
}

static void sampler_free(sampler *s)
{
    free(s->start);
    free(s->x);
    free(s->y);
    free(s->z);
}

int fl_blobby_sample(const fl_particles *p, const fl_blobby_def *def, const fl_box *domain, fl_blobby_field *out,
                     fl_error *err)
{
    if (out == NULL)
        return fl_fail(err, FL_ERR_INPUT, "blobbies: no output field");
    memset(out, 0, sizeof *out);
    if (p == NULL || def == NULL || (p->count > 0 && (p->x == NULL || p->y == NULL || p->z == NULL)))
        return fl_fail(err, FL_ERR_INPUT, "blobbies: no particles or no parameters");
    if (!(isfinite(def->spacing) && def->spacing > 0.0 && isfinite(def->radius) && def->radius > 0.0 &&
          isfinite(def->support) && def->support > def->radius && def->support <= 64.0))
        return fl_fail(err, FL_ERR_INPUT, "blobbies: spacing %g m, radius %g and search radius %g (in spacings): "
                       "expected spacing > 0 and 0 < radius < search radius <= 64", def->spacing, def->radius,
                       def->support);
    sampler s;
    memset(&s, 0, sizeof s);
    s.h = def->spacing;
    s.r = def->radius * def->spacing;
    s.R = def->support * def->spacing;
    s.reach = (int)ceil(def->support);
    int rc = place_grid(p, domain, &s, err);
    if (rc != FL_OK)
        return rc;
    s.rows = s.n[1] + 2 * s.reach + 2;
    s.layers = s.n[2] + 2 * s.reach + 2;
    if ((rc = bin_particles(p, &s, err)) != FL_OK) {
        sampler_free(&s);
        return rc;
    }
    const size_t layer = (size_t)s.n[0] * (size_t)s.n[1];
    const int nthreads = omp_get_max_threads();
    out->phi = malloc(layer * (size_t)s.n[2] * sizeof(float));
    double *acc = malloc((size_t)nthreads * 4 * layer * sizeof *acc);
    if (out->phi == NULL || acc == NULL) {
        free(acc);
        sampler_free(&s);
        fl_blobby_field_free(out);
        return fl_fail(err, FL_ERR_MEMORY, "blobbies: no memory for a field of %d x %d x %d nodes", s.n[0], s.n[1],
                       s.n[2]);
    }
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads)
    for (int k = 0; k < s.n[2]; k++)
        sample_layer(&s, k, acc + 4 * layer * (size_t)omp_get_thread_num(), out->phi + layer * (size_t)k);
    free(acc);
    sampler_free(&s);
    out->field.phi = out->phi;
    out->field.spacing = s.h;
    for (int a = 0; a < 3; a++)
        out->field.dim[a] = s.n[a], out->field.origin[a] = s.lo[a];
    out->outside = s.R - s.r;
    return FL_OK;
}

int fl_blobby_surface(const fl_particles *p, const fl_blobby_def *def, const fl_box *domain, fl_trimesh *out,
                      fl_error *err)
{
    if (out == NULL)
        return fl_fail(err, FL_ERR_INPUT, "blobbies: no output mesh");
    memset(out, 0, sizeof *out);
    fl_blobby_field f;
    int rc = fl_blobby_sample(p, def, domain, &f, err);
    if (rc != FL_OK)
        return rc;
    rc = fl_marching_cubes(&f.field, f.outside, out, err);
    fl_blobby_field_free(&f);
    return rc;
}
