/* tool.c: the rigid tool: its sampling, its motion (path, stream,
 * dynamics) and the forces between it and the fluid (tool.h). */
#include "tool.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "mesh_sample.h"
#include "nbgrid.h"
#include "mesh_sdf.h"
#include "obj.h"

#define TOOL_PI 3.14159265358979323846

/* ---- geometry ----------------------------------------------------------- */

/* Rotation about x by rx, then y by ry, then z by rz (degrees): R = Rz Ry Rx. */
static void euler_matrix(const double deg[3], double r[9])
{
    double a = deg[0] * TOOL_PI / 180.0, b = deg[1] * TOOL_PI / 180.0, c = deg[2] * TOOL_PI / 180.0;
    double ca = cos(a), sa = sin(a), cb = cos(b), sb = sin(b), cc = cos(c), sc = sin(c);
    r[0] = cc * cb, r[1] = cc * sb * sa - sc * ca, r[2] = cc * sb * ca + sc * sa;
    r[3] = sc * cb, r[4] = sc * sb * sa + cc * ca, r[5] = sc * sb * ca - cc * sa;
    r[6] = -sb, r[7] = cb * sa, r[8] = cb * ca;
}

static void quat_matrix(const double q[4], double r[9])
{
    double w = q[0], x = q[1], y = q[2], z = q[3];
    r[0] = 1 - 2 * (y * y + z * z), r[1] = 2 * (x * y - w * z), r[2] = 2 * (x * z + w * y);
    r[3] = 2 * (x * y + w * z), r[4] = 1 - 2 * (x * x + z * z), r[5] = 2 * (y * z - w * x);
    r[6] = 2 * (x * z - w * y), r[7] = 2 * (y * z + w * x), r[8] = 1 - 2 * (x * x + y * y);
}

static void matrix_quat(const double r[9], double q[4])
{
    double tr = r[0] + r[4] + r[8];
    if (tr > 0.0) {
        double s = 2.0 * sqrt(1.0 + tr);
        q[0] = 0.25 * s, q[1] = (r[7] - r[5]) / s, q[2] = (r[2] - r[6]) / s, q[3] = (r[3] - r[1]) / s;
    } else if (r[0] > r[4] && r[0] > r[8]) {
        double s = 2.0 * sqrt(1.0 + r[0] - r[4] - r[8]);
        q[0] = (r[7] - r[5]) / s, q[1] = 0.25 * s, q[2] = (r[1] + r[3]) / s, q[3] = (r[2] + r[6]) / s;
    } else if (r[4] > r[8]) {
        double s = 2.0 * sqrt(1.0 + r[4] - r[0] - r[8]);
        q[0] = (r[2] - r[6]) / s, q[1] = (r[1] + r[3]) / s, q[2] = 0.25 * s, q[3] = (r[5] + r[7]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + r[8] - r[0] - r[4]);
        q[0] = (r[3] - r[1]) / s, q[1] = (r[2] + r[6]) / s, q[2] = (r[5] + r[7]) / s, q[3] = 0.25 * s;
    }
}

/* How far the tool reaches below and above its centre along world axis
 * a, for the rotation rot: -lo and hi, m (a mesh's over its vertices). */
static void extent(const fl_tool *t, const float rot[9], int a, double *lo, double *hi)
{
    const fl_tool_shape *s = &t->spec.shape;
    if (s->kind == FL_TOOL_MESH) {
        double l = INFINITY, h = -INFINITY;
        for (int k = 0; k < t->own.vertex_count; k++) {
            const double *v = t->own.v + 3 * (size_t)k;
            double x = rot[3 * a] * v[0] + rot[3 * a + 1] * v[1] + rot[3 * a + 2] * v[2];
            l = fmin(l, x), h = fmax(h, x);
        }
        *lo = -l, *hi = h;
        return;
    }
    double r = s->kind == FL_TOOL_SPHERE ? s->radius
                                         : fabs(rot[3 * a]) * s->half[0] + fabs(rot[3 * a + 1]) * s->half[1] +
                                               fabs(rot[3 * a + 2]) * s->half[2];
    *lo = *hi = r;
}

int fl_tool_outside(const fl_tool *t, const double c[3], const float rot[9], const fl_box *domain, char *why,
                    int len)
{
    for (int a = 0; a < 3; a++) {
        double lo, hi;
        extent(t, rot, a, &lo, &hi);
        if (!(c[a] - lo >= domain->lo[a] && c[a] + hi <= domain->hi[a])) {
            snprintf(why, (size_t)len, "its surface reaches %c = %g, outside the domain [%g, %g]", "xyz"[a],
                     c[a] - lo < domain->lo[a] || !(c[a] == c[a]) ? c[a] - lo : c[a] + hi, domain->lo[a],
                     domain->hi[a]);
            return 1;
        }
    }
    return 0;
}

/* ---- sampling ----------------------------------------------------------- */

/* The layer of boundary particles sits FL_BOUNDARY_OFFSET d inside the
 * surface, as on the obstacles. A sphere's: a cube's surface lattice of n
 * divisions an edge, each node (u, v, w) (one of them +-1, the others
 * tan of equal angles in [-pi/4, pi/4]) projected onto the sphere of
 * radius R - 0.65 d, with n such that a division spans about d at a face's
 * centre. The set has the cube's symmetries (every axis flip and
 * permutation), so a sphere centred in a symmetric tank feels no sideways
 * force from its sampling. A box's: the shell of the box shrunk by 0.65 d,
 * spaced as the obstacles' are. */
static int sphere_divisions(double radius, double d)
{
    double r = radius - FL_BOUNDARY_OFFSET * d;
    return (int)fmax(2.0, floor(0.5 * TOOL_PI * r / d + 0.5));
}

typedef struct shell_ctx {
    fl_tool *t;
    long long n;
    double sphere;   /* > 0: the lattice is the cube [-1, 1]^3 of the sphere's nodes, projected to this radius */
} shell_ctx;

static int shell_point(void *ctx, const double x[3])
{
    shell_ctx *c = ctx;
    if (c->t) {
        double p[3] = {x[0], x[1], x[2]};
        if (c->sphere > 0.0) {
            double len = 0.0;
            for (int a = 0; a < 3; a++) {
                p[a] = fabs(x[a]) > 1.0 - 1e-12 ? copysign(1.0, x[a]) : tan(0.25 * TOOL_PI * x[a]);
                len += p[a] * p[a];
            }
            for (int a = 0; a < 3; a++)
                p[a] *= c->sphere / sqrt(len);
        }
        c->t->ox[c->n] = (float)p[0], c->t->oy[c->n] = (float)p[1], c->t->oz[c->n] = (float)p[2];
    }
    c->n++;
    return 0;
}

/* The cube [-1, 1]^3 whose surface lattice, at spacing 2/n, gives the
 * sphere's nodes. */
static const fl_box unit_cube = {{-1.0, -1.0, -1.0}, {1.0, 1.0, 1.0}};

static fl_box inner_box(const fl_tool_shape *s, double d)
{
    fl_box b;
    for (int a = 0; a < 3; a++) {
        double h = fmax(s->half[a] - FL_BOUNDARY_OFFSET * d, 0.0);
        b.lo[a] = -h, b.hi[a] = h;
    }
    return b;
}

/* The tool's particles at spacing d: counted into *n (t NULL), or
 * stored in t's own-frame arrays. A mesh's are the points its surface
 * sampler places FL_BOUNDARY_OFFSET d inside its faces
 * (scenes/mesh_sample.h), as on the solid meshes. */
static int sample(const fl_tool_shape *s, const fl_mesh *own, fl_tool *t, double d, long long *n, fl_error *err)
{
    shell_ctx c = {t, 0, 0.0};
    int rc = FL_OK;
    if (s->kind == FL_TOOL_SPHERE) {
        c.sphere = s->radius - FL_BOUNDARY_OFFSET * d;
        fl_visit_box_shell(&unit_cube, 2.0 / sphere_divisions(s->radius, d), shell_point, &c);
    } else if (s->kind == FL_TOOL_BOX) {
        fl_box b = inner_box(s, d);
        fl_visit_box_shell(&b, d, shell_point, &c);
    } else {
        rc = fl_mesh_visit_surface(own, d, FL_BOUNDARY_OFFSET * d, shell_point, &c, err);
    }
    *n = c.n;
    return rc;
}

/* ---- motion ------------------------------------------------------------- */

/* Component k of the path (0-2 position, 3-5 rotation) at key i. */
static double key_value(const fl_tool_spec *s, int i, int k)
{
    const double *v = k < 3 ? s->keys[i].pos : s->keys[i].rot;
    return v[k % 3];
}

/* Catmull-Rom tangent at key i: the central difference over its
 * neighbours' times, one-sided at the ends. */
static double key_tangent(const fl_tool_spec *s, int i, int k)
{
    int a = i > 0 ? i - 1 : i, b = i + 1 < s->key_count ? i + 1 : i;
    double dt = s->keys[b].t - s->keys[a].t;
    return dt > 0.0 ? (key_value(s, b, k) - key_value(s, a, k)) / dt : 0.0;
}

/* The path's six components and their rates at time t; held at the first
 * key before it and at the last after it. */
static void path_eval(const fl_tool_spec *s, double t, double val[6], double rate[6])
{
    int n = s->key_count, i = 0;
    if (n == 1 || t <= s->keys[0].t || t >= s->keys[n - 1].t) {
        int k = n == 1 || t <= s->keys[0].t ? 0 : n - 1;
        for (int c = 0; c < 6; c++)
            val[c] = key_value(s, k, c), rate[c] = 0.0;
        return;
    }
    while (i + 2 < n && t >= s->keys[i + 1].t)
        i++;
    double dt = s->keys[i + 1].t - s->keys[i].t, u = (t - s->keys[i].t) / dt;
    for (int c = 0; c < 6; c++) {
        double p0 = key_value(s, i, c), p1 = key_value(s, i + 1, c);
        if (s->interp == FL_TOOL_LINEAR) {
            val[c] = p0 + (p1 - p0) * u;
            rate[c] = (p1 - p0) / dt;
        } else { /* cubic Hermite with Catmull-Rom tangents */
            double m0 = key_tangent(s, i, c) * dt, m1 = key_tangent(s, i + 1, c) * dt;
            double u2 = u * u, u3 = u2 * u;
            val[c] = (2 * u3 - 3 * u2 + 1) * p0 + (u3 - 2 * u2 + u) * m0 + (-2 * u3 + 3 * u2) * p1 + (u3 - u2) * m1;
            rate[c] = ((6 * u2 - 6 * u) * p0 + (3 * u2 - 4 * u + 1) * m0 + (-6 * u2 + 6 * u) * p1 + (3 * u2 - 2 * u) * m1) / dt;
        }
    }
}

/* The angular velocity of a rotation R(t) whose Euler angles change at
 * rates `rate`: omega from dR/dt R^T (a central difference of 1e-6 in the
 * angles' parameter). */
static void euler_omega(const double deg[3], const double rate[3], double omega[3])
{
    const double e = 1e-6;
    double a[3], b[3], ra[9], rb[9], r[9];
    for (int k = 0; k < 3; k++)
        a[k] = deg[k] - e * rate[k], b[k] = deg[k] + e * rate[k];
    euler_matrix(a, ra), euler_matrix(b, rb), euler_matrix(deg, r);
    double w[9];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double sum = 0.0;
            for (int k = 0; k < 3; k++)
                sum += (rb[3 * i + k] - ra[3 * i + k]) / (2.0 * e) * r[3 * j + k];
            w[3 * i + j] = sum;
        }
    omega[0] = 0.5 * (w[7] - w[5]), omega[1] = 0.5 * (w[2] - w[6]), omega[2] = 0.5 * (w[3] - w[1]);
}

/* Where the stream's line has the tool at time: the tick's start before
 * it, its target after it. */
static double stream_at(const fl_tool *t, double time, int a)
{
    double span = t->stream_t1 - t->stream_t0;
    double u = span > 0.0 ? fmin(fmax((time - t->stream_t0) / span, 0.0), 1.0) : 1.0;
    return t->stream_p0[a] + u * (t->stream_p1[a] - t->stream_p0[a]);
}

/* The pose for a step that starts at time t. */
static void current_pose(fl_tool *t, double time)
{
    const fl_tool_spec *s = &t->spec;
    if (s->motion == FL_TOOL_PATH) {
        double val[6], rate[6];
        path_eval(s, time, val, rate);
        double r[9];
        euler_matrix(val + 3, r);
        matrix_quat(r, t->q);
        euler_omega(val + 3, rate + 3, t->omega);
        for (int a = 0; a < 3; a++)
            t->pos[a] = val[a], t->vel[a] = rate[a];
    } else if (s->motion == FL_TOOL_STREAM) {
        double span = t->stream_t1 - t->stream_t0;
        for (int a = 0; a < 3; a++) {
            t->pos[a] = stream_at(t, time, a);
            t->vel[a] = span > 0.0 && time < t->stream_t1 ? (t->stream_p1[a] - t->stream_p0[a]) / span : 0.0;
        }
    }
}

void fl_tool_stream_to(fl_tool *t, double t_now, double t1, const double pos[3])
{
    /* from the line's point at t_now (the last tick's target once it ran to
     * its end), not t->pos: that is the pose at the start of the last step,
     * a step behind, and with one step a tick the tool would never move */
    for (int a = 0; a < 3; a++)
        t->stream_p0[a] = stream_at(t, t_now, a), t->stream_p1[a] = pos[a];
    t->stream_t0 = t_now, t->stream_t1 = t1;
}

/* The orientation q as the solvers' float matrix. */
static void quat_matrix_f(const double q[4], float rot[9])
{
    double r[9];
    quat_matrix(q, r);
    for (int k = 0; k < 9; k++)
        rot[k] = (float)r[k];
}

static void set_link_pose(fl_tool *t, fl_world *w)
{
    fl_tool_pose *p = &w->tool.pose;
    quat_matrix_f(t->q, p->rot);
    for (int a = 0; a < 3; a++)
        p->c[a] = (float)t->pos[a], p->v[a] = (float)t->vel[a], p->omega[a] = (float)t->omega[a];
}

/* The tool's boundary particles at the link's pose, with its velocity there. */
static void place_particles(const fl_tool *t, fl_world *w)
{
    const fl_tool_pose *p = &w->tool.pose;
    fl_boundary *b = &w->boundary;
    const int first = w->tool.first;
    for (int k = 0; k < t->count; k++) {
        const float o[3] = {t->ox[k], t->oy[k], t->oz[k]};
        float x[3], u[3];
        fl_tool_place(p, o, x, u);
        b->x[first + k] = x[0], b->y[first + k] = x[1], b->z[first + k] = x[2];
        b->vx[first + k] = u[0], b->vy[first + k] = u[1], b->vz[first + k] = u[2];
    }
}

/* ---- set-up ------------------------------------------------------------- */

/* Drops the fluid particles closer than d/2 to the tool's surface (the
 * fill does so at the walls: the first row sits d/2 off them). */
static void clear_fluid(const fl_world *w, fl_particles *f)
{
    const float keep = (float)(0.5 * w->spacing) * 0.999f;
    float *const arrays[] = {f->x, f->y, f->z, f->vx, f->vy, f->vz, f->px, f->py, f->pz, f->rho, f->p};
    int n = 0;
    for (int i = 0; i < f->count; i++) {
        float nrm[3];
        if (fl_tool_distance(&w->tool.shape, &w->tool.pose, f->x[i], f->y[i], f->z[i], nrm) < keep)
            continue;
        for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
            arrays[k][n] = arrays[k][i];
        n++;
    }
    f->count = n;
}

int fl_tool_bin(const float *ox, const float *oy, const float *oz, int count, float h, float lo[3], int dim[3],
                float *cell, int *order, int **start, fl_error *err)
{
    const float *o[3] = {ox, oy, oz};
    *cell = 1.01f * h;
    long cells = 1;
    for (int a = 0; a < 3; a++) {
        float l = count > 0 ? o[a][0] : 0.0f, hi = l;
        for (int k = 1; k < count; k++)
            l = fminf(l, o[a][k]), hi = fmaxf(hi, o[a][k]);
        lo[a] = l - *cell;
        dim[a] = (int)floorf((hi - lo[a]) / *cell) + 2;
        cells *= dim[a];
    }
    int *cell_of = malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    *start = cells < (1L << 28) ? malloc((size_t)(cells + 1) * sizeof(int)) : NULL;
    if (!cell_of || !*start) {
        free(cell_of);
        free(*start);
        *start = NULL;
        return fl_fail(err, FL_ERR_MEMORY, "out of memory binning the tool's %d particles", count);
    }
    for (int k = 0; k < count; k++)
        cell_of[k] = fl_cell_index(lo, *cell, dim, o[0][k], o[1][k], o[2][k]);
    fl_counting_sort(cell_of, count, (int)cells, *start, order);
    free(cell_of);
    return FL_OK;
}

/* V_b = 1 / sum_k W(x_b - x_k) over the tool's own particles (itself
 * included): the Akinci volume, fixed for a rigid body. Summed over the
 * 27 cells of its own-frame grid around each particle (fl_tool_bin): a
 * mesh of many vertices has as many particles. */
static int tool_volumes(const fl_tool *t, fl_world *w, fl_error *err)
{
    const float h = (float)w->h;
    const int dim = w->dims, n = t->count;
    float lo[3], cell;
    int gd[3], *start = NULL, *order = malloc((size_t)(n > 0 ? n : 1) * sizeof(int));
    int rc = order ? fl_tool_bin(t->ox, t->oy, t->oz, n, h, lo, gd, &cell, order, &start, err)
                   : fl_fail(err, FL_ERR_MEMORY, "out of memory binning the tool's %d particles", n);
    float *vol = w->boundary.volume + w->tool.first;
    const int binned = rc == FL_OK ? n : 0;
    #pragma omp parallel for schedule(static)
    for (int b = 0; b < binned; b++) {
        const int c = fl_cell_index(lo, cell, gd, t->ox[b], t->oy[b], t->oz[b]);
        const int ci = c % gd[0], cj = c / gd[0] % gd[1], ck = c / (gd[0] * gd[1]);
        double sum = 0.0;
        /* the margin holds every neighbor, but rounding can put the
         * lowest particle in the margin's cell: the ranges are clamped */
        for (int k = ck > 0 ? ck - 1 : 0; k <= ck + 1 && k < gd[2]; k++)
            for (int j = cj > 0 ? cj - 1 : 0; j <= cj + 1 && j < gd[1]; j++)
                for (int i = ci > 0 ? ci - 1 : 0; i <= ci + 1 && i < gd[0]; i++) {
                    const int q = (k * gd[1] + j) * gd[0] + i;
                    for (int e = start[q]; e < start[q + 1]; e++) {
                        const int m = order[e];
                        float dx = t->ox[b] - t->ox[m], dy = t->oy[b] - t->oy[m], dz = t->oz[b] - t->oz[m];
                        sum += fl_poly6(dx * dx + dy * dy + dz * dz, h, dim);
                    }
                }
        vol[b] = (float)(1.0 / sum);
    }
    free(order);
    free(start);
    return rc;
}

/* The adhesion and damping constants of spec. */
static fl_tool_forces force_consts(const fl_tool_spec *s)
{
    fl_tool_forces c = {
        .adh_a = (float)s->adh_a,
        .adh_b = (float)s->adh_b,
        .adh_cd = (float)s->adh_cd,
        .adh_k = s->adhesion ? (float)s->adh_k : 0.0f,
        .damp_k = s->damping ? (float)s->damp_k : 0.0f,
        .contact = (float)s->contact,
    };
    return c;
}

/* A mesh tool's signed-distance grid: nodes every d/2 (coarser when
 * there would be more than FL_TOOL_SDF_MAX_NODES) over its own bounding
 * box and a margin of the band, the distance exact within the band: the
 * farthest distance from the surface at which a value matters (the
 * contact distance, the adhesion band's B; clearing the fluid at set-up,
 * FLIP's cells and its push-out want the sign and the inside alone), and
 * two nodes more, so that the interpolation at any distance asked for
 * reads exact nodes. Beyond it the clamped values keep every point out
 * of reach. */
#define FL_TOOL_SDF_MAX_NODES (1L << 24)

static int build_sdf(fl_tool *t, const fl_world *w, fl_error *err)
{
    fl_tool_sdf *g = &t->spec.shape.sdf;
    const fl_tool_forces c = force_consts(&t->spec);
    double lo[3], hi[3], dx = 0.5 * w->spacing;
    fl_mesh_bounds(&t->own, lo, hi);
    const double reach = fmax(fmax(c.contact, c.adh_k > 0.0f ? c.adh_b : 0.0f), w->spacing);
    double band, nodes;
    for (;;) {
        band = reach + 2.0 * dx;
        nodes = 1.0;
        for (int a = 0; a < 3; a++) {
            g->n[a] = (int)ceil((hi[a] - lo[a] + 2.0 * band) / dx) + 1;
            nodes *= g->n[a];
        }
        if (nodes <= (double)FL_TOOL_SDF_MAX_NODES)
            break;
        dx *= 1.01 * cbrt(nodes / (double)FL_TOOL_SDF_MAX_NODES);
    }
    fl_voxel_grid vg = {.spacing = dx};
    for (int a = 0; a < 3; a++) {
        g->lo[a] = (float)(lo[a] - band);
        vg.origin[a] = (lo[a] - band) - 0.5 * dx; /* its cell centres are the nodes */
        vg.dims[a] = g->n[a];
    }
    g->dx = (float)dx;
    if (!(t->sdf = fl_alloc((size_t)nodes * sizeof(float))))
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the tool's distance grid (%.0f nodes)", nodes);
    g->d = t->sdf;
    return fl_mesh_signed_distance(&t->own, &vg, band, t->sdf, err);
}

/* A mesh tool's own frame: the scene's mesh moved so that the centroid of
 * the volume it encloses is the origin (the keys place that point, and a
 * dynamic tool turns about it); its volume and inertia per unit density. */
static int mesh_frame(fl_tool *t, const fl_tool_spec *spec, const fl_world *w, fl_mesh_mass *mp, fl_error *err)
{
    int rc = fl_mesh_copy(&spec->mesh, &t->own, err);
    if (rc)
        return rc;
    fl_mesh_mass_properties(&t->own, mp);
    const double shift[12] = {1, 0, 0, -mp->centroid[0], 0, 1, 0, -mp->centroid[1], 0, 0, 1, -mp->centroid[2]};
    fl_mesh_transform(&t->own, shift);
    double lo[3], hi[3];
    fl_mesh_bounds(&t->own, lo, hi);
    const double thin = fmin(hi[0] - lo[0], fmin(hi[1] - lo[1], hi[2] - lo[2]));
    if (!(thin >= 2.0 * w->spacing))
        return fl_fail(err, FL_ERR_INPUT, "tool.mesh: %s is %g m thick, thinner than two of the fluid's spacing "
                       "%g m (so that its boundary layer sits inside it)", spec->mesh.source, thin, w->spacing);
    return FL_OK;
}

/* The inverse of the symmetric positive definite 3x3 matrix m. */
static void invert3(const double m[9], double inv[9])
{
    const double c0 = m[4] * m[8] - m[5] * m[7], c1 = m[5] * m[6] - m[3] * m[8], c2 = m[3] * m[7] - m[4] * m[6];
    const double det = m[0] * c0 + m[1] * c1 + m[2] * c2;
    inv[0] = c0 / det, inv[1] = (m[2] * m[7] - m[1] * m[8]) / det, inv[2] = (m[1] * m[5] - m[2] * m[4]) / det;
    inv[3] = c1 / det, inv[4] = (m[0] * m[8] - m[2] * m[6]) / det, inv[5] = (m[2] * m[3] - m[0] * m[5]) / det;
    inv[6] = c2 / det, inv[7] = (m[1] * m[6] - m[0] * m[7]) / det, inv[8] = (m[0] * m[4] - m[1] * m[3]) / det;
}

/* The mass and the inertia tensor about the centre, in the own axes, at
 * the spec's density (mp: a mesh's per unit density). */
static void mass_properties(fl_tool *t, const fl_mesh_mass *mp)
{
    const fl_tool_shape *s = &t->spec.shape;
    const double rho = t->spec.density;
    memset(t->inertia, 0, sizeof t->inertia);
    if (s->kind == FL_TOOL_MESH) {
        t->mass = rho * mp->volume;
        for (int k = 0; k < 9; k++)
            t->inertia[k] = rho * mp->inertia[k];
    } else if (s->kind == FL_TOOL_SPHERE) {
        t->mass = rho * 4.0 / 3.0 * TOOL_PI * s->radius * s->radius * s->radius;
        t->inertia[0] = t->inertia[4] = t->inertia[8] = 0.4 * t->mass * s->radius * s->radius;
    } else {
        double a2 = 4 * s->half[0] * s->half[0], b2 = 4 * s->half[1] * s->half[1], c2 = 4 * s->half[2] * s->half[2];
        t->mass = rho * 8.0 * s->half[0] * s->half[1] * s->half[2];
        t->inertia[0] = t->mass * (b2 + c2) / 12.0;
        t->inertia[4] = t->mass * (a2 + c2) / 12.0;
        t->inertia[8] = t->mass * (a2 + b2) / 12.0;
    }
    if (t->spec.motion == FL_TOOL_DYNAMIC)
        invert3(t->inertia, t->inv_inertia);
}

/* The largest distance of the tool's surface from its centre, m. */
static float bounding_radius(const fl_tool *t)
{
    const fl_tool_shape *s = &t->spec.shape;
    if (s->kind == FL_TOOL_SPHERE)
        return s->radius;
    if (s->kind == FL_TOOL_BOX)
        return sqrtf(s->half[0] * s->half[0] + s->half[1] * s->half[1] + s->half[2] * s->half[2]);
    double r2 = 0.0;
    for (int k = 0; k < t->own.vertex_count; k++) {
        const double *v = t->own.v + 3 * (size_t)k;
        r2 = fmax(r2, v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    }
    return (float)sqrt(r2);
}

/* The shape's checks and geometry: its own frame, its particles in it,
 * a mesh's distance grid, its mass. */
static int shape_init(fl_tool *t, const fl_tool_spec *spec, fl_world *w, fl_error *err)
{
    fl_tool_shape *s = &t->spec.shape;
    const double d = w->spacing;
    fl_mesh_mass mp = {0};
    int rc;
    if (s->kind == FL_TOOL_MESH) {
        if ((rc = mesh_frame(t, spec, w, &mp, err)))
            return rc;
    } else {
        double minhalf = s->kind == FL_TOOL_SPHERE ? s->radius : fmin(s->half[0], fmin(s->half[1], s->half[2]));
        if (!(minhalf >= d))
            return fl_fail(err, FL_ERR_INPUT, "tool: %s %g m is thinner than the fluid's spacing %g m (at least d, "
                           "so that its boundary layer sits inside it)",
                           s->kind == FL_TOOL_SPHERE ? "radius" : "half size", minhalf, d);
    }
    /* every key of a path, and the start of the others, inside the domain */
    for (int k = 0; k < (spec->motion == FL_TOOL_PATH ? spec->key_count : 1); k++) {
        double r[9];
        float rf[9];
        euler_matrix(spec->keys[k].rot, r);
        for (int i = 0; i < 9; i++)
            rf[i] = (float)r[i];
        char why[160];
        if (fl_tool_outside(t, spec->keys[k].pos, rf, &w->domain, why, sizeof why)) {
            /* the key the scene gave: a path's (also when the stream starts from it), else the position */
            if (spec->from_path)
                return fl_fail(err, FL_ERR_INPUT, "tool.path[%d]: at t = %g s %s", k, spec->keys[k].t, why);
            return fl_fail(err, FL_ERR_INPUT, "tool.position: %s", why);
        }
    }
    long long n;
    if ((rc = sample(s, &t->own, NULL, d, &n, err)))
        return rc;
    t->count = (int)n;
    t->ox = fl_alloc((size_t)t->count * sizeof(float));
    t->oy = fl_alloc((size_t)t->count * sizeof(float));
    t->oz = fl_alloc((size_t)t->count * sizeof(float));
    if (!t->ox || !t->oy || !t->oz)
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the tool's %d particles", t->count);
    if ((rc = sample(s, &t->own, t, d, &n, err)))
        return rc;
    if (s->kind == FL_TOOL_MESH && (rc = build_sdf(t, w, err)))
        return rc;
    s->bound = bounding_radius(t);
    mass_properties(t, &mp);
    return FL_OK;
}

int fl_tool_init(fl_tool *t, const fl_tool_spec *spec, fl_world *w, fl_error *err)
{
    memset(t, 0, sizeof *t);
    t->spec = *spec;
    memset(&t->spec.mesh, 0, sizeof t->spec.mesh); /* the scene's; the tool keeps its own copy */
    int rc = shape_init(t, spec, w, err);
    if (rc == FL_OK)
        rc = fl_boundary_reserve(&w->boundary, w->boundary.count + t->count, err);
    if (rc) {
        fl_tool_free(t);
        return rc;
    }
    /* the start pose */
    double r[9];
    euler_matrix(spec->keys[0].rot, r);
    matrix_quat(r, t->q);
    for (int a = 0; a < 3; a++)
        t->pos[a] = spec->keys[0].pos[a], t->vel[a] = spec->motion == FL_TOOL_DYNAMIC ? spec->velocity[a] : 0.0;
    for (int a = 0; a < 3; a++)
        t->stream_p0[a] = t->stream_p1[a] = t->pos[a];
    if (spec->motion == FL_TOOL_PATH)
        current_pose(t, w->time);
    w->tool.active = 1;
    w->tool.shape = t->spec.shape;
    w->tool.forces = force_consts(spec);
    w->tool.first = w->boundary.count;
    w->tool.ox = t->ox, w->tool.oy = t->oy, w->tool.oz = t->oz;
    set_link_pose(t, w);
    clear_fluid(w, &w->fluid);
    for (int b = 0; b < t->count; b++)
        if ((rc = fl_boundary_add(&w->boundary, 0.0f, 0.0f, 0.0f, err)))
            break;
    if (rc) {
        fl_tool_free(t);
        return rc;
    }
    place_particles(t, w);
    if ((rc = tool_volumes(t, w, err)))
        fl_tool_free(t);
    return rc;
}

/* ---- the step ----------------------------------------------------------- */

static int reserve_link(fl_tool *t, fl_world *w, fl_error *err)
{
    int n = w->fluid.count;
    if (n > t->capacity) {
        fl_free(t->fx), fl_free(t->fy), fl_free(t->fz);
        size_t bytes = (size_t)n * sizeof(float);
        t->fx = fl_alloc(bytes), t->fy = fl_alloc(bytes), t->fz = fl_alloc(bytes);
        t->capacity = t->fx && t->fy && t->fz ? n : 0;
        if (!t->capacity) {
            fl_free(t->fx), fl_free(t->fy), fl_free(t->fz);
            t->fx = t->fy = t->fz = NULL;
            w->tool.fx = w->tool.fy = w->tool.fz = NULL;
            return fl_fail(err, FL_ERR_MEMORY, "out of memory for the tool's forces on %d particles", n);
        }
    }
    w->tool.fx = t->fx, w->tool.fy = t->fy, w->tool.fz = t->fz;
    memset(t->fx, 0, (size_t)n * sizeof(float));
    memset(t->fy, 0, (size_t)n * sizeof(float));
    memset(t->fz, 0, (size_t)n * sizeof(float));
    w->tool.grid_force[0] = w->tool.grid_force[1] = w->tool.grid_force[2] = 0.0;
    w->tool.grid_torque[0] = w->tool.grid_torque[1] = w->tool.grid_torque[2] = 0.0;
    return FL_OK;
}

/* Adhesion and damping: each particle near the tool gets its impulse
 * dt f / m (fl_tool_impulse); the link keeps -f on the tool, and its
 * torque about the centre. */
static void impulses(fl_world *w, double dt)
{
    fl_particles *f = &w->fluid;
    fl_tool_link *l = &w->tool;
    const float m = (float)w->mass, rho0 = (float)w->rho0, fdt = (float)dt;
    const double c[3] = {l->pose.c[0], l->pose.c[1], l->pose.c[2]};
    double ax = 0, ay = 0, az = 0, dx = 0, dy = 0, dz = 0, tx = 0, ty = 0, tz = 0;
    int contacts = 0;
    #pragma omp parallel for schedule(static) reduction(+ : ax, ay, az, dx, dy, dz, tx, ty, tz, contacts)
    for (int i = 0; i < f->count; i++) {
        float v[3] = {f->vx[i], f->vy[i], f->vz[i]}, fa[3], fd[3];
        int touch = fl_tool_impulse(l, m, rho0, fdt, f->x[i], f->y[i], f->z[i], f->rho[i], v, fa, fd);
        if (touch < 0)
            continue;
        contacts += touch;
        f->vx[i] = v[0], f->vy[i] = v[1], f->vz[i] = v[2];
        ax -= fa[0], ay -= fa[1], az -= fa[2];
        dx -= fd[0], dy -= fd[1], dz -= fd[2];
        const float ft[3] = {fa[0] + fd[0], fa[1] + fd[1], fa[2] + fd[2]};
        double q[3];
        fl_tool_moment(c, f->x[i], f->y[i], f->z[i], ft, q);
        tx -= q[0], ty -= q[1], tz -= q[2];
    }
    l->adhesion[0] = ax, l->adhesion[1] = ay, l->adhesion[2] = az;
    l->damping[0] = dx, l->damping[1] = dy, l->damping[2] = dz;
    l->impulse_torque[0] = tx, l->impulse_torque[1] = ty, l->impulse_torque[2] = tz;
    l->contacts = contacts;
}

int fl_tool_before_step(fl_tool *t, fl_world *w, double dt, fl_error *err)
{
    current_pose(t, w->time);
    set_link_pose(t, w);
    char why[160];
    if (fl_tool_outside(t, t->pos, w->tool.pose.rot, &w->domain, why, sizeof why))
        return fl_fail(err, FL_ERR_INPUT, "tool: at t = %g s %s", w->time, why);
    if (w->tool.on_device) /* the device places the particles and gives the impulses (dev_solver.c) */
        return FL_OK;
    int rc = reserve_link(t, w, err);
    if (rc)
        return rc;
    place_particles(t, w);
    impulses(w, dt);
    return FL_OK;
}

/* omega += dt I^-1 (tau - omega x I omega), with I = R I_own R^T (I_own
 * the tensor in the own axes: diagonal for a sphere or a box, full for a
 * mesh); q += dt/2 (0, omega) q, renormalised. */
static void rotate(fl_tool *t, const double tau[3], double dt)
{
    double r[9], wl[3], il[3], tl[3];
    quat_matrix(t->q, r);
    for (int a = 0; a < 3; a++) { /* into the own frame: R^T */
        wl[a] = r[a] * t->omega[0] + r[3 + a] * t->omega[1] + r[6 + a] * t->omega[2];
        tl[a] = r[a] * tau[0] + r[3 + a] * tau[1] + r[6 + a] * tau[2];
    }
    for (int a = 0; a < 3; a++)
        il[a] = t->inertia[3 * a] * wl[0] + t->inertia[3 * a + 1] * wl[1] + t->inertia[3 * a + 2] * wl[2];
    const double gyro[3] = {wl[1] * il[2] - wl[2] * il[1], wl[2] * il[0] - wl[0] * il[2], wl[0] * il[1] - wl[1] * il[0]};
    const double net[3] = {tl[0] - gyro[0], tl[1] - gyro[1], tl[2] - gyro[2]};
    for (int a = 0; a < 3; a++)
        wl[a] += dt * (t->inv_inertia[3 * a] * net[0] + t->inv_inertia[3 * a + 1] * net[1] +
                       t->inv_inertia[3 * a + 2] * net[2]);
    for (int a = 0; a < 3; a++)
        t->omega[a] = r[3 * a] * wl[0] + r[3 * a + 1] * wl[1] + r[3 * a + 2] * wl[2];
    const double *o = t->omega, *q = t->q;
    double dq[4] = {-o[0] * q[1] - o[1] * q[2] - o[2] * q[3], o[0] * q[0] + o[1] * q[3] - o[2] * q[2],
                    o[1] * q[0] + o[2] * q[1] - o[0] * q[3], o[2] * q[0] + o[0] * q[2] - o[1] * q[1]};
    double norm = 0.0;
    for (int k = 0; k < 4; k++)
        t->q[k] += 0.5 * dt * dq[k], norm += t->q[k] * t->q[k];
    norm = sqrt(norm);
    for (int k = 0; k < 4; k++)
        t->q[k] /= norm;
}

void fl_tool_after_step(fl_tool *t, fl_world *w, double dt, fl_tool_report *r)
{
    const fl_particles *f = &w->fluid;
    const fl_tool_link *l = &w->tool;
    double fx = 0, fy = 0, fz = 0, tx = 0, ty = 0, tz = 0;
    /* the particle solvers' reports (a device sums its own into grid_force) */
    const int count = l->on_device ? 0 : f->count;
    #pragma omp parallel for schedule(static) reduction(+ : fx, fy, fz, tx, ty, tz)
    for (int i = 0; i < count; i++) {
        const float g[3] = {t->fx[i], t->fy[i], t->fz[i]};
        if (g[0] == 0.0f && g[1] == 0.0f && g[2] == 0.0f)
            continue;
        double q[3];
        fl_tool_moment(t->pos, f->x[i], f->y[i], f->z[i], g, q);
        fx -= g[0], fy -= g[1], fz -= g[2];
        tx -= q[0], ty -= q[1], tz -= q[2];
    }
    memset(r, 0, sizeof *r);
    r->time = w->time;
    r->contacts = l->contacts;
    const double fp[3] = {fx + l->grid_force[0], fy + l->grid_force[1], fz + l->grid_force[2]};
    const double tq[3] = {tx + l->grid_torque[0], ty + l->grid_torque[1], tz + l->grid_torque[2]};
    for (int a = 0; a < 3; a++) {
        r->pos[a] = t->pos[a], r->vel[a] = t->vel[a];
        r->f_pressure[a] = fp[a];
        r->f_adhesion[a] = l->adhesion[a];
        r->f_damping[a] = l->damping[a];
        r->f_total[a] = fp[a] + l->adhesion[a] + l->damping[a];
        r->torque[a] = tq[a] + l->impulse_torque[a];
    }
    if (t->spec.motion == FL_TOOL_DYNAMIC) {
        for (int a = 0; a < 3; a++) {
            t->vel[a] += dt * (r->f_total[a] / t->mass + w->gravity[a]);
            t->pos[a] += dt * t->vel[a];
        }
        rotate(t, r->torque, dt);
        /* the tank's walls stop it (an inelastic contact: the centre put
         * back so that the surface touches the wall, the velocity into it
         * dropped) */
        float rot[9];
        quat_matrix_f(t->q, rot);
        for (int a = 0; a < 3; a++) {
            double lo, hi;
            extent(t, rot, a, &lo, &hi);
            if (t->pos[a] - lo < w->domain.lo[a])
                t->pos[a] = w->domain.lo[a] + lo, t->vel[a] = fmax(t->vel[a], 0.0);
            if (t->pos[a] + hi > w->domain.hi[a])
                t->pos[a] = w->domain.hi[a] - hi, t->vel[a] = fmin(t->vel[a], 0.0);
        }
    }
}

const char *fl_tool_csv_header(void)
{
    return "step,time,x,y,z,vx,vy,vz,fx,fy,fz,fx_pressure,fy_pressure,fz_pressure,fx_adhesion,fy_adhesion,"
           "fz_adhesion,fx_damping,fy_damping,fz_damping,torque_x,torque_y,torque_z,contacts,step_ms";
}

int fl_tool_csv_row(char *buf, int len, long long step, const fl_tool_report *r, double step_ms)
{
    return snprintf(buf, (size_t)len,
                    "%lld,%.9g,%.9g,%.9g,%.9g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,"
                    "%.6g,%.6g,%.6g,%.6g,%d,%.4f",
                    step, r->time, r->pos[0], r->pos[1], r->pos[2], r->vel[0], r->vel[1], r->vel[2], r->f_total[0],
                    r->f_total[1], r->f_total[2], r->f_pressure[0], r->f_pressure[1], r->f_pressure[2],
                    r->f_adhesion[0], r->f_adhesion[1], r->f_adhesion[2], r->f_damping[0], r->f_damping[1],
                    r->f_damping[2], r->torque[0], r->torque[1], r->torque[2], r->contacts, step_ms);
}

void fl_tool_free(fl_tool *t)
{
    void *arrays[] = {t->ox, t->oy, t->oz, t->fx, t->fy, t->fz, t->sdf};
    for (size_t k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        fl_free(arrays[k]);
    fl_mesh_free(&t->own);
    memset(t, 0, sizeof *t);
}
