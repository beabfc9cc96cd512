/* dev_solver.c: SPH, WCSPH, PCISPH and PBF on a device backend (dev.h).
 *
 * The particles live on the device between steps, sorted by cell: each
 * step sorts them by the cell of the positions its neighbor lists would be
 * built at (x(t); PBF: x*), reorders the state, builds the cell start
 * table, and runs the kernels of dev_bodies.h in the order of the CPU
 * solver's step (solvers/<name>.c), with the same parameters
 * (particle_params.h) and stop criteria. The statistics of a step come
 * from reductions on the device; nothing is copied back but their results,
 * until the harness asks for the particles (download).
 *
 * A rigid tool (solvers/tool.h) lives on the device too: its particles in
 * its own frame, placed at the step's pose (which the host sets in the
 * link) by a kernel; the boundary walks visit them after the walls, as
 * the CPU solvers' lists hold them, and the solver's kernels store each
 * particle's share of the tool's terms as the CPU's do. The adhesion and
 * damping are a kernel before the step, and every force on the tool is a
 * reduction, whose results come back with the step's own and go to the
 * link for fl_tool_after_step. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "nbgrid.h"
#include "particle_common.h"
#include "particle_params.h"
#include "tool.h"

enum { DEV_SPH, DEV_WCSPH, DEV_PCISPH, DEV_PBF, DEV_KINDS };
static const char *const dev_names[DEV_KINDS] = {"sph", "wcsph", "pcisph", "pbf"};

/* The kind of the solver called name, or DEV_KINDS for one the devices do not run. */
static int dev_kind(const char *name)
{
    int k = 0;
    while (k < DEV_KINDS && strcmp(name, dev_names[k]) != 0)
        k++;
    return k;
}

/* The arrays a reorder carries: the state, and PBF's x* (qx, qy, qz). */
enum { DEV_STATE = 6, DEV_CARRIED = 9 };

#define DEV_MAX_ARRAYS 64

typedef struct dev_solver {
    const fl_dev_backend *be;
    void *ctx;
    int kind;
    sph_params sph;
    wcsph_params wcsph;
    pcisph_params pcisph;
    pbf_params pbf;
    double grad_sq;           /* PCISPH: sum_j |grad W_j|^2 of the prototype, 1/m^8 */
    double sound;             /* the sound speed of the step limit (SPH, WCSPH), m/s */
    fl_dev_view v;
    float *spare[DEV_CARRIED]; /* the other buffer of each carried array */
    void *arrays[DEV_MAX_ARRAYS];
    int narrays;
    fl_dev_red *res;          /* the result slots, on the host */
    int tool_slot;            /* the first of the tool's three (force, adhesion, damping), after the step's own */
    int fresh;                /* sorted at x(t), and rho the density of x(t) (after a measure) */
} dev_solver;

static void dev_destroy(void *self)
{
    dev_solver *s = self;
    if (!s)
        return;
    if (s->ctx) {
        for (int k = 0; k < s->narrays; k++)
            s->be->release(s->ctx, s->arrays[k]);
        s->be->close(s->ctx);
    }
    free(s->res);
    free(s);
}

/* count elements of size bytes on the device (at least one), or NULL. */
static void *dev_array(dev_solver *s, size_t count, size_t size, fl_error *err)
{
    if (s->narrays == DEV_MAX_ARRAYS) {
        fl_fail(err, FL_ERR_MEMORY, "%s: too many device arrays", s->be->name);
        return NULL;
    }
    void *p = s->be->alloc(s->ctx, (count > 0 ? count : 1) * size, err);
    if (p)
        s->arrays[s->narrays++] = p;
    return p;
}

/* Allocates the float arrays listed (NULL-terminated), n each. */
static int dev_floats(dev_solver *s, fl_error *err, float **first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = FL_OK;
    for (float **a = first; a && rc == FL_OK; a = va_arg(ap, float **))
        if (!(*a = dev_array(s, (size_t)s->v.n, sizeof(float), err)))
            rc = FL_ERR_MEMORY;
    va_end(ap);
    return rc;
}

static int dev_write_floats(dev_solver *s, float *dst, const float *src, fl_error *err)
{
    return s->be->write(s->ctx, dst, src, (size_t)s->v.n * sizeof(float), err);
}

/* The grid's geometry and the walls' boundary particles (a tool's are
 * kept apart: dev_upload_tool), binned by the CPU grid's rules
 * (fl_nbgrid_init), on the device. */
static int dev_upload_grid(dev_solver *s, const fl_world *w, fl_error *err)
{
    fl_world walls = *w;
    walls.boundary.count = w->tool.active ? w->tool.first : w->boundary.count;
    fl_nbgrid g;
    int rc = fl_nbgrid_init(&g, &walls, err);
    if (rc)
        return rc;
    fl_dev_grid *d = &s->v.grid;
    const int nb = walls.boundary.count;
    memcpy(d->lo, g.lo, sizeof d->lo);
    memcpy(d->dim, g.dim, sizeof d->dim);
    d->cell = g.cell;
    d->ncells = g.ncells;
    d->r2max = g.radius * g.radius;
    float *vol = malloc((size_t)(nb > 0 ? nb : 1) * sizeof(float));
    int *bstart = dev_array(s, (size_t)g.ncells + 1, sizeof(int), err);
    float *b[4] = {0};
    for (int a = 0; a < 4; a++)
        b[a] = dev_array(s, (size_t)nb, sizeof(float), err);
    d->start = dev_array(s, (size_t)g.ncells + 1, sizeof(int), err);
    rc = vol && bstart && b[0] && b[1] && b[2] && b[3] && d->start ? FL_OK : FL_ERR_MEMORY;
    if (rc == FL_OK) {
        for (int k = 0; k < nb; k++)
            vol[k] = w->boundary.volume[g.bsorted[k]];
        const float *src[4] = {g.bx, g.by, g.bz, vol};
        rc = s->be->write(s->ctx, bstart, g.bcell_start, ((size_t)g.ncells + 1) * sizeof(int), err);
        for (int a = 0; a < 4 && rc == FL_OK; a++)
            rc = s->be->write(s->ctx, b[a], src[a], (size_t)nb * sizeof(float), err);
    } else if (!vol) {
        fl_fail(err, FL_ERR_MEMORY, "out of memory for %d boundary volumes", nb);
    }
    d->bstart = bstart;
    d->bx = b[0], d->by = b[1], d->bz = b[2], d->bvol = b[3];
    free(vol);
    fl_nbgrid_free(&g);
    return rc;
}

/* PBF's parameters; the device runs Jacobi only, and has no check for a
 * lambda that is not finite (pbf.c), so it refuses the CPU's other
 * constraint solvers and cfm_epsilon = 0. */
static int dev_read_pbf_params(dev_solver *s, const fl_params *p, fl_error *err)
{
    int rc = fl_pbf_read_params(p, &s->pbf, err);
    if (rc == FL_OK && s->pbf.constraint_solver != FL_PBF_JACOBI)
        rc = fl_fail(err, FL_ERR_INPUT,
                     "--device %s: %s.constraint_solver = %d is a CPU option (the device solves by Jacobi, 0)",
                     s->be->name, p->source, s->pbf.constraint_solver);
    if (rc == FL_OK && s->pbf.cfm_epsilon == 0.0)
        rc = fl_fail(err, FL_ERR_INPUT, "--device %s: %s.cfm_epsilon = 0 is a CPU option (only the CPU reports the "
                     "infinite lambda it gives)", s->be->name, p->source);
    return rc;
}

/* Particle shifting is the CPU solvers' (docs/methods/shifting.md). */
static int dev_refuse_shifting(const dev_solver *s, const fl_params *p, double shifting, fl_error *err)
{
    if (shifting > 0.0)
        return fl_fail(err, FL_ERR_INPUT, "--device %s: %.250s.shifting = %g is a CPU option (the device does not "
                       "shift particles): --device cpu", s->be->name, p->source, shifting);
    return FL_OK;
}

static int dev_read_params(dev_solver *s, const fl_world *w, const fl_params *p, fl_error *err)
{
    switch (s->kind) {
    case DEV_SPH: {
        /* the course's variants are the CPU solver's (docs/methods/sph.md, 5.1) */
        const sph_params *q = &s->sph;
        int rc = fl_sph_read_params(w, p, &s->sph, err);
        const char *key = q->pressure_form != FL_PRESSURE_SYMMETRIC ? "pressure_force"
                          : !q->corrected_density                 ? "corrected_density"
                          : q->shepard                            ? "shepard"
                                                                  : NULL;
        if (rc == FL_OK && key)
            return fl_fail(err, FL_ERR_INPUT, "%.250s.%s: expected its default on a device (the variant is the CPU "
                           "solver's: --device cpu)", p->source, key);
        return rc ? rc : dev_refuse_shifting(s, p, q->shifting, err);
    }
    case DEV_WCSPH:
        return fl_wcsph_read_params(w, p, &s->wcsph, err) || dev_refuse_shifting(s, p, s->wcsph.shifting, err)
                   ? FL_ERR_INPUT
                   : FL_OK;
    case DEV_PCISPH:
        return fl_pcisph_read_params(w, p, &s->pcisph, err) || dev_refuse_shifting(s, p, s->pcisph.shifting, err)
                   ? FL_ERR_INPUT
                   : FL_OK;
    default:
        return dev_read_pbf_params(s, p, err);
    }
}

/* The solver's viscosity_model is Morris's (docs/methods/viscosity.md). */
static int dev_morris(const dev_solver *s)
{
    const int model = s->kind == DEV_SPH      ? s->sph.viscosity_model
                      : s->kind == DEV_WCSPH  ? s->wcsph.viscosity_model
                      : s->kind == DEV_PCISPH ? s->pcisph.viscosity_model
                                              : s->pbf.viscosity_model;
    return model == FL_VISCOSITY_MORRIS;
}

/* The constants that do not change from step to step. */
static void dev_constants(dev_solver *s, const fl_world *w)
{
    fl_dev_view *v = &s->v;
    v->morris = dev_morris(s);
    v->nu = (float)w->nu;
    v->h = (float)w->h, v->dim = w->dims, v->m = (float)w->mass, v->rho0 = (float)w->rho0, v->rho0_d = w->rho0;
    for (int a = 0; a < 3; a++)
        v->gravity[a] = (float)w->gravity[a];
    fl_walls_make(w, 0, &v->walls);
    if (s->kind == DEV_SPH) {
        v->stiffness = s->sph.stiffness;
        v->mu = v->morris ? 0.0f : (float)s->sph.viscosity;
        v->clamp_negative = s->sph.clamp_negative;
        s->sound = sqrt(s->sph.stiffness);
    } else if (s->kind == DEV_WCSPH) {
        const wcsph_params *prm = &s->wcsph;
        const float hs = 0.5f * v->h, c = (float)prm->c;
        v->tait_b = w->rho0 * prm->c * prm->c / 7.0;
        v->av = 2.0f * (float)prm->alpha * hs * c;
        v->eps_visc = 0.01f * hs * hs;
        v->friction = (float)prm->friction * hs * c;
        v->kappa = (float)prm->cohesion;
        v->clamp_negative = prm->clamp_negative;
        s->sound = prm->c;
    } else if (s->kind == DEV_PCISPH) {
        v->mu = v->morris ? 0.0f : (float)s->pcisph.viscosity;
        v->negative_scale = s->pcisph.negative_scale;
        s->grad_sq = fl_lattice_grad_sq(w->spacing, w->h, w->dims);
    } else {
        v->vorticity = s->pbf.vorticity_epsilon > 0.0;
    }
}

/* The per-kind arrays. */
static int dev_alloc_solver_arrays(dev_solver *s, fl_error *err)
{
    fl_dev_view *v = &s->v;
    switch (s->kind) {
    case DEV_SPH:
        return dev_floats(s, err, &v->ax, &v->ay, &v->az, &v->p_rho2, &v->vol, NULL);
    case DEV_WCSPH:
        return dev_floats(s, err, &v->ax, &v->ay, &v->az, &v->p_rho2, NULL);
    case DEV_PCISPH:
        return dev_floats(s, err, &v->ax, &v->ay, &v->az, &v->apx, &v->apy, &v->apz, &v->qx, &v->qy, &v->qz,
                          &v->rho_pred, &v->p_rho2, NULL);
    default:
        v->nbr_cap = FL_DEV_NBR_CAP;
        if (!(v->nbr = dev_array(s, (size_t)v->n * FL_DEV_NBR_CAP, sizeof(int), err)) ||
            !(v->nbr_count = dev_array(s, (size_t)v->n, sizeof(int), err)))
            return FL_ERR_MEMORY;
        if (dev_morris(s) && dev_floats(s, err, &v->ax, &v->ay, &v->az, NULL))
            return FL_ERR_MEMORY;
        return dev_floats(s, err, &v->qx, &v->qy, &v->qz, &s->spare[6], &s->spare[7], &s->spare[8], &v->gx, &v->gy,
                          &v->gz, &v->bx, &v->by, &v->bz, &v->lambda, &v->lambda_sum, &v->ux, &v->uy, &v->uz,
                          &v->wx, &v->wy, &v->wz, &v->wn, NULL);
    }
}

/* The first of the tool's three result slots: after the most the step's
 * own reductions use (dev_step_explicit 3; PCISPH's iterations, its
 * acceleration and speed; PBF's iterations and its speed). */
static int dev_tool_slot(const dev_solver *s)
{
    switch (s->kind) {
    case DEV_PCISPH:
        return s->pcisph.max_iterations + 2;
    case DEV_PBF:
        return s->pbf.solver_iterations + 1;
    default:
        return 3;
    }
}

/* The tool of w->tool on the device: its particles in its own frame,
 * binned there (fl_tool_bin), and their volumes, a mesh's distance grid,
 * room for the particles at the step's pose, the link's per-slot forces
 * (and PBF's displacements), and the fluid's densities (the adhesion reads
 * them before the first step computes any). The link is marked on_device,
 * for the world's life: the host then only sets the pose. */
static int dev_upload_tool(dev_solver *s, fl_world *w, fl_error *err)
{
    fl_dev_tool *t = &s->v.tool;
    const fl_tool_link *l = &w->tool;
    const int count = w->boundary.count - l->first;
    t->link = *l;
    t->link.ox = t->link.oy = t->link.oz = NULL;
    int *order = malloc((size_t)(count > 0 ? count : 1) * sizeof(int)), *start = NULL;
    float *sorted = malloc((size_t)(count > 0 ? count : 1) * 4 * sizeof(float));
    if (!order || !sorted) {
        free(order);
        free(sorted);
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the tool's %d particles", count);
    }
    /* its own-frame grid (dev.h, fl_dev_tool) */
    int rc = fl_tool_bin(l->ox, l->oy, l->oz, count, (float)w->h, t->lo, t->dim, &t->cell, order, &start, err);
    if (rc == FL_OK && l->shape.kind == FL_TOOL_MESH) { /* its distance grid, read by the kernels */
        const fl_tool_sdf *g = &l->shape.sdf;
        const size_t nodes = (size_t)g->n[0] * g->n[1] * g->n[2];
        float *d = dev_array(s, nodes, sizeof(float), err);
        rc = d ? s->be->write(s->ctx, d, g->d, nodes * sizeof(float), err) : FL_ERR_MEMORY;
        t->link.shape.sdf.d = d;
    }
    const float *src[4] = {l->ox, l->oy, l->oz, w->boundary.volume + l->first};
    for (int a = 0; a < 4 && rc == FL_OK; a++)
        for (int k = 0; k < count; k++)
            sorted[(size_t)a * count + k] = src[a][order[k]];
    const size_t table = ((size_t)t->dim[0] * t->dim[1] * t->dim[2] + 1) * sizeof(int);
    int *dstart = rc == FL_OK ? dev_array(s, table / sizeof(int), sizeof(int), err) : NULL;
    if (rc == FL_OK && !dstart)
        rc = FL_ERR_MEMORY;
    if (rc == FL_OK)
        rc = s->be->write(s->ctx, dstart, start, table, err);
    t->start = dstart;
    free(order);
    free(start);
    float *own[4];
    float **placed[6] = {&t->x, &t->y, &t->z, &t->vx, &t->vy, &t->vz};
    for (int a = 0; a < 4 && rc == FL_OK; a++)
        if (!(own[a] = dev_array(s, (size_t)count, sizeof(float), err)))
            rc = FL_ERR_MEMORY;
    for (int a = 0; a < 6 && rc == FL_OK; a++)
        if (!(*placed[a] = dev_array(s, (size_t)count, sizeof(float), err)))
            rc = FL_ERR_MEMORY;
    if (rc == FL_OK)
        rc = dev_floats(s, err, &t->link.fx, &t->link.fy, &t->link.fz, NULL);
    if (rc == FL_OK && s->kind == DEV_PBF)
        rc = dev_floats(s, err, &t->dx, &t->dy, &t->dz, NULL);
    for (int a = 0; a < 4 && rc == FL_OK; a++)
        rc = s->be->write(s->ctx, own[a], sorted + (size_t)a * count, (size_t)count * sizeof(float), err);
    free(sorted);
    if (rc == FL_OK)
        rc = dev_write_floats(s, s->v.rho, w->fluid.rho, err);
    if (rc)
        return rc;
    t->ox = own[0], t->oy = own[1], t->oz = own[2], t->vol = own[3];
    const double bound = l->shape.bound;
    t->reach2 = (float)((bound + w->h) * (bound + w->h));
    t->n = count;
    s->tool_slot = dev_tool_slot(s);
    /* placed at the start pose, for a measure before the first step */
    rc = s->be->launch(s->ctx, FL_DEV_K_tool_place, t->n, &s->v, err);
    if (rc == FL_OK)
        w->tool.on_device = 1;
    return rc;
}

void *fl_dev_create(const fl_dev_backend *be, const char *name, fl_world *w, const fl_params *p, fl_error *err)
{
    dev_solver *s = calloc(1, sizeof *s);
    if (!s) {
        fl_fail(err, FL_ERR_MEMORY, "out of memory for a device solver");
        return NULL;
    }
    s->be = be;
    s->kind = dev_kind(name);
    if (s->kind == DEV_KINDS) {
        fl_fail(err, FL_ERR_INPUT, "--device %s: no %s solver on the device (sph, wcsph, pcisph, pbf)", be->name, name);
        free(s);
        return NULL;
    }
    fl_dev_view *v = &s->v;
    v->n = w->fluid.count;
    /* periodic boundaries are the CPU solvers' (docs/design.md, "Periodic boundaries") */
    int rc = w->periodic[0] || w->periodic[1] || w->periodic[2]
                 ? fl_fail(err, FL_ERR_INPUT, "--device %s: periodic: a periodic scene runs on the CPU only: --device cpu",
                           be->name)
                 : dev_read_params(s, w, p, err);
    if (rc == FL_OK && !(s->res = calloc(FL_DEV_RED_SLOTS, sizeof *s->res)))
        rc = fl_fail(err, FL_ERR_MEMORY, "out of memory for a device solver");
    if (rc == FL_OK && !(s->ctx = be->open(err)))
        rc = FL_ERR_DEVICE;
    if (rc == FL_OK)
        rc = dev_upload_grid(s, w, err);
    if (rc == FL_OK)
        rc = dev_floats(s, err, &v->x, &v->y, &v->z, &v->vx, &v->vy, &v->vz, &v->rho, &v->p, &s->spare[0],
                        &s->spare[1], &s->spare[2], &s->spare[3], &s->spare[4], &s->spare[5], NULL);
    if (rc == FL_OK && (!(v->key = dev_array(s, (size_t)v->n, sizeof(int), err)) ||
                        !(v->order = dev_array(s, (size_t)v->n, sizeof(int), err))))
        rc = FL_ERR_MEMORY;
    if (rc == FL_OK)
        rc = dev_alloc_solver_arrays(s, err);
    const fl_particles *f = &w->fluid;
    const float *src[DEV_STATE] = {f->x, f->y, f->z, f->vx, f->vy, f->vz};
    float *dst[DEV_STATE] = {v->x, v->y, v->z, v->vx, v->vy, v->vz};
    for (int a = 0; a < DEV_STATE && rc == FL_OK; a++)
        rc = dev_write_floats(s, dst[a], src[a], err);
    if (rc == FL_OK && w->tool.active)
        rc = dev_upload_tool(s, w, err);
    if (rc) {
        dev_destroy(s);
        return NULL;
    }
    dev_constants(s, w);
    return s;
}

/* The version of kernel k that walks the tool's particles too (dev.h),
 * or k itself for one that walks no boundary. */
static fl_dev_kernel dev_with_tool(fl_dev_kernel k)
{
    switch (k) {
    case FL_DEV_K_density:
        return FL_DEV_K_density_tool;
    case FL_DEV_K_sph_accel:
        return FL_DEV_K_sph_accel_tool;
    case FL_DEV_K_wcsph_accel:
        return FL_DEV_K_wcsph_accel_tool;
    case FL_DEV_K_pcisph_nonpressure:
        return FL_DEV_K_pcisph_nonpressure_tool;
    case FL_DEV_K_pcisph_pressure_accel:
        return FL_DEV_K_pcisph_pressure_accel_tool;
    case FL_DEV_K_pbf_lambda:
        return FL_DEV_K_pbf_lambda_tool;
    case FL_DEV_K_pbf_delta:
        return FL_DEV_K_pbf_delta_tool;
    case FL_DEV_K_pbf_xsph:
        return FL_DEV_K_pbf_xsph_tool;
    case FL_DEV_K_pbf_morris:
        return FL_DEV_K_pbf_morris_tool;
    default:
        return k;
    }
}

/* Kernel k over the fluid particles (its tool version with a tool). */
static int dev_launch(dev_solver *s, fl_dev_kernel k, fl_error *err)
{
    return s->be->launch(s->ctx, s->v.tool.n > 0 ? dev_with_tool(k) : k, s->v.n, &s->v, err);
}

static int dev_reduce(dev_solver *s, fl_dev_reduction r, const float *rho, int slot, fl_error *err)
{
    s->v.red_rho = rho;
    return s->be->reduce(s->ctx, r, s->v.n, &s->v, slot, err);
}

/* The carried arrays of the view, in the order of spare[]. */
static void dev_carried(fl_dev_view *v, float **a[DEV_CARRIED])
{
    float **list[DEV_CARRIED] = {&v->x, &v->y, &v->z, &v->vx, &v->vy, &v->vz, &v->qx, &v->qy, &v->qz};
    memcpy(a, list, sizeof list);
}

/* Sorts the particles by the cell of (sx, sy, sz), reorders the carried
 * arrays (the state; PBF: x* as well, also copied to the neighbor
 * criterion's (gx, gy, gz)) and builds the cell start table. */
static int dev_sort(dev_solver *s, const float *sx, const float *sy, const float *sz, fl_error *err)
{
    fl_dev_view *v = &s->v;
    const int carried = s->kind == DEV_PBF ? DEV_CARRIED : DEV_STATE;
    float **a[DEV_CARRIED];
    dev_carried(v, a);
    v->sx = sx, v->sy = sy, v->sz = sz;
    int rc = dev_launch(s, FL_DEV_K_cell_key, err);
    if (rc == FL_OK)
        rc = s->be->sort(s->ctx, v, v->n, err);
    if (rc == FL_OK)
        rc = s->be->launch(s->ctx, FL_DEV_K_cell_start, v->grid.ncells + 1, v, err);
    v->gather_count = carried;
    for (int m = 0; m < carried; m++)
        v->gather_src[m] = *a[m], v->gather_dst[m] = s->spare[m];
    if (s->kind == DEV_PBF) {
        float *g[3] = {v->gx, v->gy, v->gz};
        for (int m = 0; m < 3; m++)
            v->gather_src[carried + m] = *a[6 + m], v->gather_dst[carried + m] = g[m];
        v->gather_count += 3;
    }
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_gather, err);
    for (int m = 0; m < carried; m++) {
        float *t = *a[m];
        *a[m] = s->spare[m];
        s->spare[m] = t;
    }
    v->gather_count = 0;
    return rc;
}

/* Sorted at x(t), the density of x(t) into rho; skipped after a measure,
 * which left both so. */
static int dev_sort_and_density(dev_solver *s, fl_error *err)
{
    fl_dev_view *v = &s->v;
    int rc = FL_OK;
    s->be->mark(s->ctx, FL_STAGE_GRID_BUILD);
    if (!s->fresh)
        rc = dev_sort(s, v->x, v->y, v->z, err);
    s->be->mark(s->ctx, FL_STAGE_DENSITY);
    v->ex = v->x, v->ey = v->y, v->ez = v->z, v->rho_out = v->rho;
    if (rc == FL_OK && !s->fresh)
        rc = dev_launch(s, FL_DEV_K_density, err);
    s->fresh = 0;
    return rc;
}

/* The results of the step's first count reductions, and its stage times;
 * with a tool, the reduction of the forces on it first, and its results
 * with the step's. */
static int dev_finish(dev_solver *s, int count, fl_step_stats *st, fl_error *err)
{
    s->be->mark(s->ctx, -1);
    int rc = FL_OK;
    if (s->v.tool.n > 0) {
        rc = dev_reduce(s, FL_DEV_RED_TOOL_FORCE, NULL, s->tool_slot, err);
        count = s->tool_slot + 3;
    }
    if (rc == FL_OK)
        rc = s->be->results(s->ctx, s->res, count, err);
    if (rc == FL_OK)
        rc = s->be->stage_times(s->ctx, st->stage_ms, err);
    return rc;
}

/* max_speed, nan_count and cfl from the speed reduction. */
static void dev_speed_stats(const fl_world *w, const fl_dev_red *speed, double dt, fl_step_stats *st)
{
    st->max_speed = sqrt(fmax(speed->max[0], 0.0));
    st->nan_count = speed->count;
    st->cfl = st->max_speed * dt / w->h;
}

static double dev_mean(const dev_solver *s, const fl_dev_red *r)
{
    return s->v.n > 0 ? r->sum / s->v.n : 0.0;
}

/* The convergence history of k iterations from result slots 0 .. k - 1. */
static void dev_history(const dev_solver *s, int k, fl_step_stats *st)
{
    for (int q = 0; q < k; q++)
        st->residual[q] = dev_mean(s, &s->res[q]), st->residual_max[q] = s->v.n > 0 ? s->res[q].max[0] : 0.0;
    st->iterations = k;
}

/* SPH and WCSPH (sph.c, wcsph.c): density, equation of state, forces,
 * symplectic Euler and the clamp. */
static int dev_step_explicit(dev_solver *s, const fl_world *w, double dt, fl_step_stats *st, fl_error *err)
{
    fl_dev_view *v = &s->v;
    v->dt = (float)dt;
    int rc = dev_sort_and_density(s, err);
    if (rc == FL_OK)
        rc = dev_launch(s, s->kind == DEV_SPH ? FL_DEV_K_sph_eos : FL_DEV_K_wcsph_eos, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_COMPRESSION, v->rho, 0, err);
    s->be->mark(s->ctx, FL_STAGE_PRESSURE_SOLVE);
    if (rc == FL_OK)
        rc = dev_launch(s, s->kind == DEV_SPH ? FL_DEV_K_sph_accel : FL_DEV_K_wcsph_accel, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_ACCEL, NULL, 1, err);
    s->be->mark(s->ctx, FL_STAGE_INTEGRATE);
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_integrate, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_SPEED, NULL, 2, err);
    if (rc == FL_OK)
        rc = dev_finish(s, 3, st, err);
    if (rc)
        return rc;
    st->residual[0] = dev_mean(s, &s->res[0]);
    st->iterations = 1;
    dev_speed_stats(w, &s->res[2], dt, st);
    st->dt_limit = fl_explicit_dt_limit(w->h, s->sound, st->max_speed, sqrt(fmax(s->res[1].max[0], 0.0)));
    return FL_OK;
}

/* PCISPH (pcisph.c): the predictor-corrector loop until the largest
 * density error is below eta (after min_iterations) or max_iterations. */
static int dev_step_pcisph(dev_solver *s, const fl_world *w, double dt, fl_step_stats *st, fl_error *err)
{
    fl_dev_view *v = &s->v;
    const pcisph_params *prm = &s->pcisph;
    v->dt = (float)dt;
    int rc = dev_sort_and_density(s, err);
    s->be->mark(s->ctx, FL_STAGE_VELOCITY_UPDATE);
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_pcisph_nonpressure, err);
    s->be->mark(s->ctx, FL_STAGE_PRESSURE_SOLVE);
    v->delta = fl_pcisph_delta(dt, w->mass, w->rho0, s->grad_sq);
    v->ex = v->qx, v->ey = v->qy, v->ez = v->qz, v->rho_out = v->rho_pred;
    int k = 0;
    while (rc == FL_OK) {
        rc = dev_launch(s, FL_DEV_K_pcisph_predict, err);
        if (rc == FL_OK)
            rc = dev_launch(s, FL_DEV_K_density, err);
        if (rc == FL_OK)
            rc = dev_launch(s, FL_DEV_K_pcisph_correct, err);
        if (rc == FL_OK)
            rc = dev_reduce(s, FL_DEV_RED_COMPRESSION, v->rho_pred, k, err);
        if (rc == FL_OK)
            rc = dev_launch(s, FL_DEV_K_pcisph_pressure_accel, err);
        k++;
        if (rc || k >= prm->max_iterations)
            break;
        if (k >= prm->min_iterations) {
            if ((rc = s->be->results(s->ctx, s->res, k, err)))
                break;
            if (s->res[k - 1].max[0] < prm->eta)
                break;
        }
    }
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_pcisph_total, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_ACCEL, NULL, k, err);
    s->be->mark(s->ctx, FL_STAGE_INTEGRATE);
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_integrate, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_SPEED, NULL, k + 1, err);
    if (rc == FL_OK)
        rc = dev_finish(s, k + 2, st, err);
    if (rc)
        return rc;
    dev_history(s, k, st);
    dev_speed_stats(w, &s->res[k + 1], dt, st);
    st->dt_limit = fl_explicit_dt_limit(w->h, 0.0, st->max_speed, sqrt(fmax(s->res[k].max[0], 0.0)));
    return FL_OK;
}

/* PBF (pbf.c): predict, sort at x*, the fluid neighbors listed (as the
 * CPU solver lays out its table), the Jacobi iterations, velocity,
 * XSPH, vorticity confinement, update. */
static int dev_step_pbf(dev_solver *s, const fl_world *w, double dt, fl_step_stats *st, fl_error *err)
{
    fl_dev_view *v = &s->v;
    const pbf_params *prm = &s->pbf;
    v->pbf = fl_pbf_make_consts(prm, w, dt);
    v->dt = (float)dt;
    for (int a = 0; a < 3; a++)
        v->gdt[a] = (float)(dt * w->gravity[a]);
    v->dt_eps = (float)dt * (float)prm->vorticity_epsilon;
    v->p_scale = (float)(-w->rho0 / (dt * dt));
    s->fresh = 0;
    s->be->mark(s->ctx, FL_STAGE_INTEGRATE);
    int rc = dev_launch(s, FL_DEV_K_pbf_predict, err);
    s->be->mark(s->ctx, FL_STAGE_GRID_BUILD);
    if (rc == FL_OK)
        rc = dev_sort(s, v->qx, v->qy, v->qz, err);
    s->be->mark(s->ctx, FL_STAGE_NEIGHBOR_SEARCH);
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_pbf_neighbors, err);
    s->be->mark(s->ctx, FL_STAGE_PRESSURE_SOLVE);
    int k = 0;
    while (rc == FL_OK && k < prm->solver_iterations) {
        rc = dev_launch(s, FL_DEV_K_pbf_lambda, err);
        if (rc == FL_OK && k > 0) {
            rc = dev_reduce(s, FL_DEV_RED_COMPRESSION, v->rho, k - 1, err);
            if (rc == FL_OK && prm->eta > 0.0) {
                if ((rc = s->be->results(s->ctx, s->res, k, err)) == FL_OK && s->res[k - 1].max[0] < prm->eta)
                    break;
            }
        }
        v->first = k == 0;
        if (rc == FL_OK)
            rc = dev_launch(s, FL_DEV_K_pbf_delta, err);
        float *t;
        t = v->qx, v->qx = v->bx, v->bx = t;
        t = v->qy, v->qy = v->by, v->by = t;
        t = v->qz, v->qz = v->bz, v->bz = t;
        k++;
    }
    s->be->mark(s->ctx, FL_STAGE_VELOCITY_UPDATE);
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_pbf_velocity_from, err);
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_pbf_xsph, err);
    if (rc == FL_OK && v->vorticity)
        rc = dev_launch(s, FL_DEV_K_pbf_confine, err);
    if (rc == FL_OK && v->morris)
        rc = dev_launch(s, FL_DEV_K_pbf_morris, err);
    if (rc == FL_OK && v->morris)
        rc = dev_launch(s, FL_DEV_K_pbf_morris_apply, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_COMPRESSION, v->rho, k - 1, err);
    s->be->mark(s->ctx, FL_STAGE_INTEGRATE);
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_pbf_update, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_SPEED, NULL, k, err);
    if (rc == FL_OK)
        rc = dev_finish(s, k + 1, st, err);
    if (rc)
        return rc;
    dev_history(s, k, st);
    dev_speed_stats(w, &s->res[k], dt, st);
    st->dt_limit = fl_explicit_dt_limit(w->h, 0.0, st->max_speed, 0.0);
    return FL_OK;
}

/* Before the solver's step, with a tool: its particles at the step's
 * pose (the link's), and the adhesion and damping (as tool.c's
 * impulses): their sums reduced, then the impulses given. */
static int dev_tool_begin(dev_solver *s, const fl_world *w, double dt, fl_error *err)
{
    fl_dev_view *v = &s->v;
    const fl_tool_forces *c = &v->tool.link.forces;
    s->fresh = 0; /* a measure's density was of the tool's last pose */
    v->tool.link.pose = w->tool.pose;
    v->tool.inv_dt2 = (float)(1.0 / (dt * dt));
    v->dt = (float)dt;
    int rc = s->be->launch(s->ctx, FL_DEV_K_tool_place, v->tool.n, v, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_TOOL_ADHESION, NULL, s->tool_slot + 1, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_TOOL_DAMPING, NULL, s->tool_slot + 2, err);
    if (rc == FL_OK && (c->adh_k > 0.0f || c->damp_k > 0.0f))
        rc = dev_launch(s, FL_DEV_K_tool_impulse, err);
    return rc;
}

/* The step's forces on the tool, from its result slots, into the link
 * (what fl_tool_after_step reads). */
static void dev_tool_report(const dev_solver *s, fl_world *w)
{
    const fl_dev_red *r = s->res + s->tool_slot;
    fl_tool_link *l = &w->tool;
    for (int a = 0; a < 3; a++) {
        l->grid_force[a] = r[0].add[a], l->grid_torque[a] = r[0].add[3 + a];
        l->adhesion[a] = r[1].add[a], l->damping[a] = r[2].add[a];
        l->impulse_torque[a] = r[1].add[3 + a] + r[2].add[3 + a];
    }
    l->contacts = r[2].count;
}

static int dev_step(void *self, fl_world *w, double dt, fl_step_stats *st)
{
    dev_solver *s = self;
    fl_error err;
    if (s->v.n == 0)
        return FL_OK;
    int rc = s->v.tool.n > 0 ? dev_tool_begin(s, w, dt, &err) : FL_OK;
    if (rc == FL_OK)
        rc = s->kind == DEV_PBF      ? dev_step_pbf(s, w, dt, st, &err)
             : s->kind == DEV_PCISPH ? dev_step_pcisph(s, w, dt, st, &err)
                                     : dev_step_explicit(s, w, dt, st, &err);
    if (rc == FL_OK && s->v.morris)
        st->dt_limit = fmin(st->dt_limit, fl_viscous_dt_limit(w->h, w->nu));
    if (rc == FL_OK && s->v.tool.n > 0)
        dev_tool_report(s, w);
    return fl_step_failed(st, &err, rc);
}

/* The metrics at x(t): sorted there, the shared density estimator, its
 * compression, and the bounding box; the sort and the density stay for
 * the next step of the SPH family. */
static int dev_measure(void *self, fl_step_stats *st, double lo[3], double hi[3], fl_error *err)
{
    dev_solver *s = self;
    fl_dev_view *v = &s->v;
    st->density_err_avg = st->density_err_max = 0.0;
    if (v->n == 0)
        return FL_OK;
    int rc = dev_sort(s, v->x, v->y, v->z, err);
    v->ex = v->x, v->ey = v->y, v->ez = v->z, v->rho_out = v->rho;
    if (rc == FL_OK)
        rc = dev_launch(s, FL_DEV_K_density, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_COMPRESSION, v->rho, 0, err);
    if (rc == FL_OK)
        rc = dev_reduce(s, FL_DEV_RED_EXTENT, NULL, 1, err);
    if (rc == FL_OK)
        rc = s->be->results(s->ctx, s->res, 2, err);
    if (rc)
        return rc;
    s->fresh = s->kind != DEV_PBF;
    st->density_err_avg = dev_mean(s, &s->res[0]);
    st->density_err_max = s->res[0].max[0];
    for (int a = 0; a < 3; a++)
        hi[a] = s->res[1].max[a], lo[a] = -s->res[1].max[3 + a];
    return FL_OK;
}

static int dev_download(void *self, fl_world *w, fl_step_stats *st, fl_error *err)
{
    dev_solver *s = self;
    const fl_dev_view *v = &s->v;
    fl_particles *f = &w->fluid;
    const float *src[8] = {v->x, v->y, v->z, v->vx, v->vy, v->vz, v->rho, v->p};
    float *dst[8] = {f->x, f->y, f->z, f->vx, f->vy, f->vz, f->rho, f->p};
    double t0 = fl_now_ms();
    int rc = FL_OK;
    for (int a = 0; a < 8 && rc == FL_OK; a++)
        rc = s->be->read(s->ctx, dst[a], src[a], (size_t)v->n * sizeof(float), err);
    if (st)
        st->stage_ms[FL_STAGE_TRANSFER] += fl_now_ms() - t0;
    return rc;
}

const fl_dev_view *fl_dev_solver_view(void *solver)
{
    return &((dev_solver *)solver)->v;
}

void fl_dev_solver_set_list_cap(void *solver, int cap)
{
    fl_dev_view *v = &((dev_solver *)solver)->v;
    v->nbr_cap = cap < 0 ? 0 : cap > FL_DEV_NBR_CAP ? FL_DEV_NBR_CAP : cap;
}

int fl_dev_solver_read(void *solver, void *dst, const void *src, size_t bytes, fl_error *err)
{
    dev_solver *s = solver;
    return s->be->read(s->ctx, dst, src, bytes, err);
}

/* The ops of each backend asked for so far: the CPU solver's, with the
 * device's step. */
typedef struct dev_ops_table {
    const fl_dev_backend *be;
    fl_solver_ops ops[DEV_KINDS];
} dev_ops_table;

const fl_solver_ops *fl_dev_solver_ops(const fl_dev_backend *be, const char *name)
{
    static dev_ops_table tables[4];
    static int ntables;
    const int kind = dev_kind(name);
    if (kind == DEV_KINDS)
        return NULL;
    dev_ops_table *t = NULL;
    for (int q = 0; q < ntables; q++)
        if (tables[q].be == be)
            t = &tables[q];
    if (!t) {
        if (ntables == 4)
            return NULL;
        t = &tables[ntables++];
        t->be = be;
        for (int k = 0; k < DEV_KINDS; k++) {
            fl_solver_ops *o = &t->ops[k];
            *o = *fl_solver_find(dev_names[k]);
            o->create = NULL;
            o->step = dev_step;
            o->destroy = dev_destroy;
            o->device = be->name;
            o->backend = be;
            o->measure = dev_measure;
            o->download = dev_download;
        }
    }
    return &t->ops[kind];
}
