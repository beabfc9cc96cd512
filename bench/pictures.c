/* pictures.c: the pictures of `fluidlab run --save png` and `--save grid`
 * (pictures.h): the numbers of each picture written as CSV, then drawn by
 * gnuplot (plots/particles.gp, plots/grid.gp).
 *
 * The vorticity is the SPH estimate of the curl of the velocity with the
 * spiky gradient (Monaghan 1992; the PBF paper's eq. 15):
 *   omega_i = sum_j (m / rho_j) grad_i W(x_i - x_j) x (v_j - v_i),
 * grad_i W = fl_spiky_grad_factor(r) (x_i - x_j), over the fluid neighbours
 * within h, with the shared estimator's densities. In 2D it is the z
 * component, a signed scalar (positive counter-clockwise); in 3D its
 * length. */
#define _POSIX_C_SOURCE 200809L
#include "pictures.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "io.h"
#include "kernels.h"
#include "periodic.h"
#include "plot.h"
#include "tool_physics.h"

const char *const fl_color_names[FL_COLOR_COUNT] = {"speed", "density", "pressure", "vorticity", "neighbors"};

int fl_color_find(const char *name)
{
    for (int k = 0; k < FL_COLOR_COUNT; k++)
        if (strcmp(name, fl_color_names[k]) == 0)
            return k;
    return -1;
}

/* The size of a picture of the box [x0, x1] x [y0, y1] at most `fit`
 * pixels on its long side, with room around it for the axes and a colour
 * bar, into *w, *h. */
static void picture_size(int *w, int *h, double x0, double x1, double y0, double y1, double fit, int extra_w,
                         int extra_h)
{
    const double s = fit / fmax(x1 - x0, y1 - y0);
    *w = (int)((x1 - x0) * s) + extra_w;
    *h = (int)((y1 - y0) * s) + extra_h;
}

int fl_pictures_init(fl_pictures *p, const fl_world *w, fl_color_field field, const char *caption, double slice,
                     fl_error *err)
{
    memset(p, 0, sizeof *p);
    p->field = field;
    p->z_mid = isnan(slice) ? 0.5 * (w->domain.lo[2] + w->domain.hi[2]) : slice;
    snprintf(p->caption, sizeof p->caption, "%s", caption);
    fl_stability stab;
    fl_stability_init(&stab, w);
    p->speed_max = stab.speed_scale;
    picture_size(&p->width, &p->height, w->domain.lo[0], w->domain.hi[0], w->domain.lo[1], w->domain.hi[1], 700.0, 230,
                 120);
    int rc = fl_nbgrid_init(&p->grid, w, err);
    if (rc)
        return rc;
    size_t n = (size_t)(w->fluid.count > 0 ? w->fluid.count : 1);
    p->rho = fl_alloc(n * sizeof(float));
    p->value = fl_alloc(n * sizeof(float));
    p->sorted = fl_alloc(n * sizeof(float));
    if (!p->rho || !p->value || !p->sorted)
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the pictures of %d particles", w->fluid.count);
    return FL_OK;
}

void fl_pictures_free(fl_pictures *p)
{
    fl_nbgrid_free(&p->grid);
    fl_free(p->rho);
    fl_free(p->value);
    fl_free(p->sorted);
    p->rho = p->value = p->sorted = NULL;
}

/* The SPH curl of the velocity at particle i: its z component in 2D, its
 * length in 3D (the file's comment). */
static float vorticity(const fl_world *w, const fl_nbgrid *g, const float *rho, int i)
{
    const fl_particles *f = &w->fluid;
    const float h = (float)w->h, m = (float)w->mass;
    const fl_period per = fl_period_of(w);
    float o[3] = {0.0f, 0.0f, 0.0f};
    for (int k = g->nb_start[i]; k < g->nb_start[i + 1]; k++) {
        const int j = g->nb[k];
        float rx = f->x[i] - f->x[j], ry = f->y[i] - f->y[j], rz = f->z[i] - f->z[j];
        fl_pair_image(per.any ? &per : NULL, &rx, &ry, &rz);
        const float gf = fl_spiky_grad_factor(sqrtf(rx * rx + ry * ry + rz * rz), h, w->dims) * m / rho[j];
        const float gx = gf * rx, gy = gf * ry, gz = gf * rz;
        const float vx = f->vx[j] - f->vx[i], vy = f->vy[j] - f->vy[i], vz = f->vz[j] - f->vz[i];
        o[0] += gy * vz - gz * vy;
        o[1] += gz * vx - gx * vz;
        o[2] += gx * vy - gy * vx;
    }
    return w->dims == 2 ? o[2] : sqrtf(o[0] * o[0] + o[1] * o[1] + o[2] * o[2]);
}

/* The field of every particle into p->value. */
static int compute_field(fl_pictures *p, const fl_world *w, fl_error *err)
{
    const fl_particles *f = &w->fluid;
    fl_step_stats st;
    int rc = fl_measure_density(w, &p->grid, p->rho, &st, err);
    if (rc)
        return rc;
    const fl_nbgrid *g = &p->grid;
    const fl_color_field field = p->field;
    #pragma omp parallel for schedule(static)
    for (int i = 0; i < f->count; i++) {
        float v = 0.0f;
        switch (field) { /* once per particle per saved frame, not in a solver's loop */
        case FL_COLOR_SPEED:
            v = sqrtf(f->vx[i] * f->vx[i] + f->vy[i] * f->vy[i] + f->vz[i] * f->vz[i]);
            break;
        case FL_COLOR_DENSITY:
            v = p->rho[i];
            break;
        case FL_COLOR_PRESSURE:
            v = f->p[i];
            break;
        case FL_COLOR_VORTICITY:
            v = vorticity(w, g, p->rho, i);
            break;
        default:
            v = (float)(g->nb_start[i + 1] - g->nb_start[i] + g->bnb_start[i + 1] - g->bnb_start[i]);
        }
        p->value[i] = v;
    }
    return FL_OK;
}

static int compare_floats(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* The top of the vorticity's colour bar: the 95th percentile of |omega|
 * over the n particles drawn (the few largest, one-sided sums at a wall
 * or the surface, saturate instead of washing the rest out); 0 without
 * particles. */
static double vorticity_scale(fl_pictures *p, int n_all, int (*drawn)(const void *, int), const void *rows)
{
    int n = 0;
    for (int i = 0; i < n_all; i++)
        if (drawn(rows, i) && isfinite(p->value[i]))
            p->sorted[n++] = fabsf(p->value[i]);
    if (n == 0)
        return 0.0;
    qsort(p->sorted, (size_t)n, sizeof(float), compare_floats);
    return p->sorted[(int)(0.95 * (n - 1))];
}

/* What the particle CSV's writer reads. */
typedef struct particle_rows {
    const fl_particles *f;
    const float *value;
    int dims;
    double z_mid, slab;  /* 3D: the particles with |z - z_mid| < slab */
    const char *name;    /* the field's column */
} particle_rows;

static int in_picture(const void *rows, int i)
{
    const particle_rows *r = rows;
    return r->dims == 2 || fabs(r->f->z[i] - r->z_mid) < r->slab;
}

static int write_particle_rows(FILE *out, const void *data)
{
    const particle_rows *r = data;
    fprintf(out, "x,y,z,%s\n", r->name);
    for (int i = 0; i < r->f->count; i++)
        if (in_picture(r, i)) {
            if (isfinite(r->value[i]))
                fprintf(out, "%.7g,%.7g,%.7g,%.7g\n", r->f->x[i], r->f->y[i], r->f->z[i], r->value[i]);
            else
                fprintf(out, "%.7g,%.7g,%.7g,NaN\n", r->f->x[i], r->f->y[i], r->f->z[i]);
        }
    return ferror(out) ? -1 : 0;
}

/* What the tool CSV's writer reads: the rigid tool's particles, placed
 * from its own frame at the link's pose (a device solver moves its own
 * copy, not the world's boundary), and the slice. */
typedef struct tool_rows {
    const fl_tool_link *l;
    int count;
    double z_mid, slab;
} tool_rows;

static int write_tool_rows(FILE *out, const void *data)
{
    const tool_rows *r = data;
    fprintf(out, "x,y,z\n");
    for (int k = 0; k < r->count; k++) {
        const float o[3] = {r->l->ox[k], r->l->oy[k], r->l->oz[k]};
        float x[3], u[3];
        fl_tool_place(&r->l->pose, o, x, u);
        if (fabs(x[2] - r->z_mid) < r->slab)
            fprintf(out, "%.7g,%.7g,%.7g\n", x[0], x[1], x[2]);
    }
    return ferror(out) ? -1 : 0;
}

int fl_pictures_draw(const char *script, const char *png, const char *const *vars, fl_error *err)
{
    char tmp[1300], log[1300], msg[512];
    snprintf(tmp, sizeof tmp, "%s.tmp", png);
    snprintf(log, sizeof log, "%s.log", png);
    int rc = fl_plot_run(script, vars, log, msg, sizeof msg);
    char why[512];
    if (rc == 0 && !fl_plot_written(tmp, why, sizeof why)) {
        rc = 1;
        snprintf(msg, sizeof msg, "gnuplot wrote no whole picture (see %.400s)", log);
    }
    if (rc == 0 && rename(tmp, png) != 0) {
        rc = 1;
        snprintf(msg, sizeof msg, "cannot replace it with its .tmp: %s", strerror(errno));
    }
    if (rc) {
        remove(tmp);
        return fl_fail(err, FL_ERR_IO, "%s: %s", png, msg);
    }
    return FL_OK;
}

int fl_pictures_particles(fl_pictures *p, const fl_world *w, const char *dir, int frame, fl_error *err)
{
    int rc = compute_field(p, w, err);
    if (rc)
        return rc;
    const fl_box *d = &w->domain;
    particle_rows rows = {&w->fluid, p->value, w->dims, p->z_mid, w->spacing,
                          fl_color_names[p->field]};
    char csv[1200], png[1200];
    snprintf(csv, sizeof csv, "%s/frames/%04d.csv", dir, frame);
    snprintf(png, sizeof png, "%s/frames/%04d.png", dir, frame);
    if ((rc = fl_write_whole(csv, write_particle_rows, &rows, err)))
        return rc;
    /* the rigid tool (3D only): its particles in the slice, in grey */
    char tool_csv[1200] = "";
    if (w->tool.active) {
        const tool_rows trows = {&w->tool, w->boundary.count - w->tool.first, rows.z_mid, rows.slab};
        snprintf(tool_csv, sizeof tool_csv, "%s/frames/%04d_tool.csv", dir, frame);
        if ((rc = fl_write_whole(tool_csv, write_tool_rows, &trows, err)))
            return rc;
    }
    /* the colour bar: speed from 0 to the run's speed scale (the same in
     * every frame), the vorticity from 0 (in 2D: symmetric about 0) to
     * its 95th percentile, the others the frame's own range */
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < w->fluid.count; i++)
        if (in_picture(&rows, i) && isfinite(p->value[i]))
            lo = fmin(lo, p->value[i]), hi = fmax(hi, p->value[i]);
    const int signed_field = p->field == FL_COLOR_VORTICITY && w->dims == 2;
    if (p->field == FL_COLOR_SPEED)
        lo = 0.0, hi = fmax(hi, p->speed_max);
    else if (p->field == FL_COLOR_VORTICITY)
        hi = vorticity_scale(p, w->fluid.count, in_picture, &rows), lo = signed_field ? -hi : 0.0;
    if (!(lo < hi)) { /* no particle, or one value: a range around it */
        const double mid = isfinite(lo) ? lo : 0.0, half = fmax(fabs(mid) * 0.01, 1e-6);
        lo = mid - half, hi = mid + half;
    }
    static const char *const labels2[FL_COLOR_COUNT] = {"speed (m/s)", "density (kg/m^2)", "pressure (Pa)",
                                                        "vorticity (1/s)", "neighbours within h"};
    static const char *const labels3[FL_COLOR_COUNT] = {"speed (m/s)", "density (kg/m^3)", "pressure (Pa)",
                                                        "|vorticity| (1/s)", "neighbours within h"};
    char title[600], slice[160] = "", box[200], cb[100], radius[40];
    if (w->dims == 3)
        snprintf(slice, sizeof slice, ", the slice |z - %.4g| < %.3g m", rows.z_mid, rows.slab);
    snprintf(title, sizeof title, "%s: %s at t = %.3f s%s%s", p->caption, fl_color_names[p->field], w->time, slice,
             tool_csv[0] ? ", the tool in grey" : "");
    snprintf(box, sizeof box, "%.9e %.9e %.9e %.9e", d->lo[0], d->hi[0], d->lo[1], d->hi[1]);
    snprintf(cb, sizeof cb, "%.9e %.9e", lo, hi);
    snprintf(radius, sizeof radius, "%.9e", 0.5 * w->spacing);
    char v_data[1300], v_out[1300], v_title[700], v_label[100], v_box[220], v_cb[120], v_radius[60], v_pal[40],
        v_size[60];
    snprintf(v_data, sizeof v_data, "data=%s", csv);
    snprintf(v_out, sizeof v_out, "out=%s.tmp", png);
    snprintf(v_title, sizeof v_title, "title=%s", title);
    snprintf(v_label, sizeof v_label, "label=%s", w->dims == 2 ? labels2[p->field] : labels3[p->field]);
    snprintf(v_box, sizeof v_box, "box=%s", box);
    snprintf(v_cb, sizeof v_cb, "cb=%s", cb);
    snprintf(v_radius, sizeof v_radius, "radius=%s", radius);
    snprintf(v_pal, sizeof v_pal, "palette=%s", signed_field ? "div" : "seq");
    snprintf(v_size, sizeof v_size, "size=%d %d", p->width, p->height);
    char v_tool[1300];
    snprintf(v_tool, sizeof v_tool, "tool=%s", tool_csv);
    const char *const vars[] = {v_data, v_out, v_title, v_label, v_box, v_cb, v_radius, v_pal, v_size,
                                tool_csv[0] ? v_tool : NULL, NULL};
    return fl_pictures_draw(FL_PICTURES_SCRIPT("particles.gp"), png, vars, err);
}

/* What the grid CSV's writer reads. */
typedef struct grid_rows {
    const fl_mac_grid *g;
    int k;  /* the slice */
} grid_rows;

static void put_value(FILE *out, double v)
{
    if (isfinite(v))
        fprintf(out, ",%.9g", v);
    else
        fputs(",NaN", out);
}

static int write_grid_rows(FILE *out, const void *data)
{
    const grid_rows *r = data;
    const fl_mac_grid *g = r->g;
    const int k = r->k;
    fprintf(out, "i,j,x,y,label,pressure,div_before,div_after,u,v\n");
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            const long c = fl_mac_cell(g, i, j, k);
            /* FLUID: the cells the last projection solved on (a finite divergence) */
            const int fluid = isfinite(g->div_before[c]);
            const int label = g->label[c] == FL_CELL_SOLID ? FL_CELL_SOLID : fluid ? FL_CELL_FLUID : FL_CELL_AIR;
            fprintf(out, "%d,%d,%.9g,%.9g,%d", i, j, fl_mac_centre(g, 0, i), fl_mac_centre(g, 1, j), label);
            put_value(out, fluid ? g->p[c] : NAN);
            put_value(out, g->div_before[c]);
            put_value(out, g->div_after[c]);
            put_value(out, fluid ? 0.5 * (g->u[fl_mac_u(g, i, j, k)] + g->u[fl_mac_u(g, i + 1, j, k)]) : NAN);
            put_value(out, fluid ? 0.5 * (g->v[fl_mac_v(g, i, j, k)] + g->v[fl_mac_v(g, i, j + 1, k)]) : NAN);
            fputc('\n', out);
        }
    return ferror(out) ? -1 : 0;
}

/* The outline of a tool's surface in a plane z = const: marching squares
 * over the sign of fl_tool_distance at OUTLINE_SIDE x OUTLINE_SIDE points
 * on the square around the tool's centre in which the plane cuts its
 * bounding sphere. A lattice square whose corners differ in sign gives a
 * segment between the crossings on its edges (linear in the distance), or
 * two where all four edges are crossed, paired as the sign at the
 * square's centre (the corners' mean) joins them. */
#define OUTLINE_SIDE 257

typedef struct tool_outline {
    double x0, y0, h; /* lattice point (0, 0), and the spacing, m */
    float *d;         /* the distances, OUTLINE_SIDE a row, x fastest */
} tool_outline;

/* The crossing on the edge from lattice point (i, j) to (i + di, j + dj),
 * written to q[0..1]; 1 when there is one. */
static int outline_crossing(const tool_outline *o, int i, int j, int di, int dj, double q[2])
{
    const float a = o->d[i + OUTLINE_SIDE * j], b = o->d[i + di + OUTLINE_SIDE * (j + dj)];
    if ((a < 0.0f) == (b < 0.0f))
        return 0;
    const double t = (double)a / ((double)a - (double)b);
    q[0] = o->x0 + o->h * (i + t * di), q[1] = o->y0 + o->h * (j + t * dj);
    return 1;
}

/* The segments of lattice square (i, j), x1 y1 x2 y2 each: 0, 1 or 2. */
static int outline_square(const tool_outline *o, int i, int j, double seg[2][4])
{
    /* the edges in turn: bottom, right, top, left */
    static const int from[4][2] = {{0, 0}, {1, 0}, {0, 1}, {0, 0}}, step[4][2] = {{1, 0}, {0, 1}, {1, 0}, {0, 1}};
    double q[4][2];
    int n = 0;
    for (int e = 0; e < 4; e++)
        n += outline_crossing(o, i + from[e][0], j + from[e][1], step[e][0], step[e][1], q[n]);
    if (n == 4) {
        const float *d = o->d + i + OUTLINE_SIDE * j;
        const float mean = 0.25f * (d[0] + d[1] + d[OUTLINE_SIDE] + d[OUTLINE_SIDE + 1]);
        /* the centre on (0, 0)'s side: the corners (1, 0) and (0, 1) are cut off */
        const int pair[2][4] = {{0, 1, 2, 3}, {0, 3, 1, 2}}, *p = pair[(mean < 0.0f) != (d[0] < 0.0f)];
        for (int k = 0; k < 2; k++)
            seg[k][0] = q[p[2 * k]][0], seg[k][1] = q[p[2 * k]][1], seg[k][2] = q[p[2 * k + 1]][0],
            seg[k][3] = q[p[2 * k + 1]][1];
        return 2;
    }
    if (n != 2)
        return 0;
    seg[0][0] = q[0][0], seg[0][1] = q[0][1], seg[0][2] = q[1][0], seg[0][3] = q[1][1];
    return 1;
}

static int write_outline_rows(FILE *out, const void *data)
{
    const tool_outline *o = data;
    fprintf(out, "x1,y1,x2,y2\n");
    for (int j = 0; j + 1 < OUTLINE_SIDE; j++)
        for (int i = 0; i + 1 < OUTLINE_SIDE; i++) {
            double seg[2][4];
            for (int k = 0, n = outline_square(o, i, j, seg); k < n; k++)
                fprintf(out, "%.7g,%.7g,%.7g,%.7g\n", seg[k][0], seg[k][1], seg[k][2], seg[k][3]);
        }
    return ferror(out) ? -1 : 0;
}

/* The outline of w's tool in the plane z into path: 1 when written, 0
 * when the plane misses it, or an error. */
static int write_tool_outline(const fl_world *w, double z, const char *path, fl_error *err)
{
    const fl_tool_link *l = &w->tool;
    const double dz = z - l->pose.c[2], bound = l->shape.bound;
    if (!l->active || fabs(dz) >= bound)
        return 0;
    /* the square a little wider than the bounding sphere's cut, so that
     * no lattice point lies on the surface's extreme */
    const double half = 1.01 * sqrt(bound * bound - dz * dz) + 1e-6 * bound;
    tool_outline o = {l->pose.c[0] - half, l->pose.c[1] - half, 2.0 * half / (OUTLINE_SIDE - 1), NULL};
    if (!(o.d = malloc(sizeof(float) * OUTLINE_SIDE * OUTLINE_SIDE)))
        return fl_fail(err, FL_ERR_MEMORY, "%s: out of memory", path);
    /* the lattice is connected: points of both signs mean an edge that
     * crosses the surface, so a segment */
    int inside = 0, outside = 0;
    for (int j = 0; j < OUTLINE_SIDE; j++)
        for (int i = 0; i < OUTLINE_SIDE; i++) {
            float n[3];
            const float d = fl_tool_distance(&l->shape, &l->pose, (float)(o.x0 + o.h * i), (float)(o.y0 + o.h * j),
                                             (float)z, n);
            o.d[i + OUTLINE_SIDE * j] = d;
            inside |= d < 0.0f, outside |= !(d < 0.0f);
        }
    const int cut = inside && outside;
    const int rc = cut ? fl_write_whole(path, write_outline_rows, &o, err) : FL_OK;
    free(o.d);
    return rc ? rc : cut;
}

/* The segments where the plane z cuts the triangles of w's solid meshes,
 * written to out (with out NULL, only counted): a triangle whose corners
 * lie on both sides (a corner on the plane counts as above it) is cut on
 * two of its edges, each crossing linear in the corners' heights, so that
 * a closed mesh gives closed loops. */
static long mesh_cuts(const fl_world *w, double z, FILE *out)
{
    long n = 0;
    for (int m = 0; m < w->solid_mesh_count; m++) {
        const fl_mesh *mesh = &w->solid_meshes[m];
        for (int t = 0; t < mesh->triangle_count; t++) {
            const int *corner = mesh->tri + 3 * t;
            double q[2][2];
            int k = 0;
            for (int e = 0; e < 3; e++) {
                /* the edge from its lower vertex index, so that the two
                 * triangles sharing it place the crossing alike */
                const int i0 = corner[e], i1 = corner[(e + 1) % 3], lo = i0 < i1 ? i0 : i1, hi = i0 < i1 ? i1 : i0;
                const double *a = mesh->v + 3 * lo, *b = mesh->v + 3 * hi, ha = a[2] - z, hb = b[2] - z;
                if ((ha < 0.0) == (hb < 0.0))
                    continue;
                const double s = ha / (ha - hb);
                q[k][0] = a[0] + s * (b[0] - a[0]), q[k][1] = a[1] + s * (b[1] - a[1]);
                k++;
            }
            if (k != 2)
                continue;
            n++;
            if (out)
                fprintf(out, "%.7g,%.7g,%.7g,%.7g\n", q[0][0], q[0][1], q[1][0], q[1][1]);
        }
    }
    return n;
}

/* What the mesh outline's writer reads. */
typedef struct mesh_rows {
    const fl_world *w;
    double z;
} mesh_rows;

static int write_mesh_rows(FILE *out, const void *data)
{
    const mesh_rows *r = data;
    fprintf(out, "x1,y1,x2,y2\n");
    mesh_cuts(r->w, r->z, out);
    return ferror(out) ? -1 : 0;
}

int fl_pictures_grid(const fl_mac_grid *g, const fl_world *w, double slice, const char *caption, const char *dir,
                     int frame, fl_error *err)
{
    /* the layer of cells holding the plane */
    const double at = isnan(slice) ? g->nz / 2 : floor((slice - g->lo[2]) / g->dx);
    const grid_rows rows = {g, at < 0.0 ? 0 : at > g->nz - 1 ? g->nz - 1 : (int)at};
    const double t = w->time;
    char csv[1200], png[1200];
    snprintf(csv, sizeof csv, "%s/frames/%04d_grid.csv", dir, frame);
    snprintf(png, sizeof png, "%s/frames/%04d_grid.png", dir, frame);
    int rc = fl_write_whole(csv, write_grid_rows, &rows, err);
    if (rc)
        return rc;
    /* the divergence scale: the largest before the projection (after it
     * is smaller by the solver's tolerance), the same for both panels;
     * the arrows: the fastest cell's a cell and a bit long */
    double div = 0.0, speed = 0.0;
    int cells = 0;
    for (int j = 0; j < g->ny; j++)
        for (int i = 0; i < g->nx; i++) {
            const long c = fl_mac_cell(g, i, j, rows.k);
            if (!isfinite(g->div_before[c]))
                continue;
            cells++;
            div = fmax(div, fabs(g->div_before[c]));
            const double u = 0.5 * (g->u[fl_mac_u(g, i, j, rows.k)] + g->u[fl_mac_u(g, i + 1, j, rows.k)]),
                         v = 0.5 * (g->v[fl_mac_v(g, i, j, rows.k)] + g->v[fl_mac_v(g, i, j + 1, rows.k)]);
            speed = fmax(speed, sqrt(u * u + v * v));
        }
    /* the tool's surface where the slice's plane (its cells' centres) cuts it */
    char tool_csv[1200];
    snprintf(tool_csv, sizeof tool_csv, "%s/frames/%04d_grid_tool.csv", dir, frame);
    const double plane = fl_mac_centre(g, 2, rows.k);
    const int tool = write_tool_outline(w, plane, tool_csv, err);
    if (tool < 0)
        return tool;
    /* and the solid meshes' */
    char mesh_csv[1200];
    snprintf(mesh_csv, sizeof mesh_csv, "%s/frames/%04d_grid_meshes.csv", dir, frame);
    const mesh_rows mrows = {w, plane};
    const int meshes = mesh_cuts(w, plane, NULL) > 0;
    if (meshes && (rc = fl_write_whole(mesh_csv, write_mesh_rows, &mrows, err)))
        return rc;
    const int every = g->nx > 48 || g->ny > 48 ? (g->nx > g->ny ? g->nx : g->ny) / 48 + 1 : 1;
    const double x0 = g->lo[0], x1 = g->lo[0] + g->nx * g->dx, y0 = g->lo[1], y1 = g->lo[1] + g->ny * g->dx;
    const int rows_layout = x1 - x0 >= y1 - y0;
    int width, height;
    if (rows_layout) /* three panels one above the other */
        picture_size(&width, &height, x0, x1, 0.0, 3.0 * (y1 - y0), 1200.0, 260, 380);
    else
        picture_size(&width, &height, 0.0, 3.0 * (x1 - x0), y0, y1, 1200.0, 600, 160);
    char v_data[1300], v_out[1300], v_title[500], v_box[220], v_dx[60], v_div[60], v_arrow[60], v_every[40],
        v_layout[40], v_size[60];
    snprintf(v_data, sizeof v_data, "data=%s", csv);
    snprintf(v_out, sizeof v_out, "out=%s.tmp", png);
    char slice_name[80] = "";
    if (g->nz > 3)
        snprintf(slice_name, sizeof slice_name, isnan(slice) ? ", its middle z-slice" : ", its z-slice at z = %.4g m",
                 fl_mac_centre(g, 2, rows.k));
    snprintf(v_title, sizeof v_title, "title=%s: the MAC grid at t = %.3f s%s%s%s", caption, t, slice_name,
             cells ? "" : " (no FLUID cell in it)",
             tool && meshes ? ", the surfaces of the tool and the solid meshes in black"
             : tool         ? ", the surface of the tool in black"
             : meshes       ? ", the surfaces of the solid meshes in black"
                            : "");
    snprintf(v_box, sizeof v_box, "box=%.9e %.9e %.9e %.9e", x0, x1, y0, y1);
    snprintf(v_dx, sizeof v_dx, "dx=%.9e", g->dx);
    snprintf(v_div, sizeof v_div, "div=%.9e", div > 0.0 ? div : 1.0);
    snprintf(v_arrow, sizeof v_arrow, "arrow=%.9e", speed > 0.0 ? 1.2 * every * g->dx / speed : 0.0);
    snprintf(v_every, sizeof v_every, "every=%d", every);
    snprintf(v_layout, sizeof v_layout, "layout=%s", rows_layout ? "rows" : "cols");
    snprintf(v_size, sizeof v_size, "size=%d %d", width, height);
    char v_tool[1300], v_meshes[1300];
    snprintf(v_tool, sizeof v_tool, "tool=%s", tool_csv);
    snprintf(v_meshes, sizeof v_meshes, "meshes=%s", mesh_csv);
    /* the optional ones last, the absent left out */
    const char *vars[13] = {v_data, v_out, v_title, v_box, v_dx, v_div, v_arrow, v_every, v_layout, v_size};
    int nv = 10;
    if (tool)
        vars[nv++] = v_tool;
    if (meshes)
        vars[nv++] = v_meshes;
    vars[nv] = NULL;
    return fl_pictures_draw(FL_PICTURES_SCRIPT("grid.gp"), png, vars, err);
}
