/* solver.h: the step interface every solver implements, the registry that
 * finds a solver by name, and the statistics a step reports.
 *
 * A solver owns only its private scratch arrays (allocated in create, freed
 * in destroy); the world is shared. A step never prints, never exits and
 * never allocates after the first step: it reports through fl_step_stats and
 * its return code (FL_OK, or a negative FL_ERR_* with a reason). */
#ifndef FL_SOLVER_H
#define FL_SOLVER_H

#include "nbgrid.h"
#include "world.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The stages, named once for all solvers (X-macro: the enum and the name
 * table are generated from this list so that they cannot drift apart). */
#define FL_STAGE_LIST(X)                  \
    X(INTEGRATE, "integrate")             \
    X(GRID_BUILD, "grid_build")           \
    X(NEIGHBOR_SEARCH, "neighbor_search") \
    X(DENSITY, "density")                 \
    X(PRESSURE_SOLVE, "pressure_solve")   \
    X(VELOCITY_UPDATE, "velocity_update") \
    X(TRANSFER, "transfer")               \
    X(BOUNDARY, "boundary")               \
    X(OTHER, "other")

#define FL_STAGE_ENUM(id, name) FL_STAGE_##id,
typedef enum fl_stage { FL_STAGE_LIST(FL_STAGE_ENUM) FL_STAGE_COUNT } fl_stage;
#undef FL_STAGE_ENUM

/* "integrate", "grid_build", ... indexed by fl_stage. */
extern const char *const fl_stage_names[FL_STAGE_COUNT];

/* FLIP's stages split finer, each part inside the stage named third (the
 * bench prints a part under its stage; the other solvers leave them 0). */
#define FL_PART_LIST(X)                           \
    X(P2G, "p2g", TRANSFER)                       \
    X(G2P, "g2p", TRANSFER)                       \
    X(LABELS, "labels", BOUNDARY)                 \
    X(EXTRAPOLATION, "extrapolation", BOUNDARY)   \
    X(SORT, "sort", OTHER)                        \
    X(VOLUME, "volume_correction", OTHER)

#define FL_PART_ENUM(id, name, stage) FL_PART_##id,
typedef enum fl_part { FL_PART_LIST(FL_PART_ENUM) FL_PART_COUNT } fl_part;
#undef FL_PART_ENUM

/* "p2g", "g2p", ... and the stage each part belongs to, indexed by fl_part. */
extern const char *const fl_part_names[FL_PART_COUNT];
extern const fl_stage fl_part_stage[FL_PART_COUNT];

/* Longest convergence history one step records. */
#define FL_MAX_HISTORY 2048

typedef struct fl_step_stats {
    /* filled by the harness after the step, with the shared estimator */
    double density_err_avg;  /* mean of max(rho_i/rho0 - 1, 0) over fluid particles */
    double density_err_max;  /* largest rho_i/rho0 - 1 */
    /* filled by the solver */
    int iterations;                  /* entries of residual[] */
    double residual[FL_MAX_HISTORY]; /* convergence history of this step */
    double residual_max[FL_MAX_HISTORY]; /* the max error after iteration k, for solvers that
                                          * track one (PCISPH, PBF); 0 otherwise */
    double stage_ms[FL_STAGE_COUNT]; /* wall time per stage, ms */
    double part_ms[FL_PART_COUNT];   /* wall time per part of a stage, ms (FLIP; 0 otherwise) */
    double max_speed;                /* m/s */
    double cfl;                      /* max_speed * dt / h */
    int nan_count;                   /* particles with a NaN/Inf coordinate or velocity */
    int substeps;                    /* substeps the solver split the step into (FLIP's CFL
                                      * substeps); 1 for the solvers that take the step whole */
    double dt_limit;                 /* largest stable next step, s, from the solver's CFL and
                                      * force criteria; 0 when it has none ("dt": "cfl" uses it) */
    int solve_iterations_max;        /* most iterations of one linear solve in the step (FLIP) */
    int solves_unconverged;          /* linear solves of the step that stopped short of their
                                      * tolerance (FLIP: MICCG at max_iter or broken down) */
    double solve_ms;                 /* wall time inside the step's linear solves (FLIP's pressure
                                      * solves, from the set-up of the preconditioner to the last
                                      * iteration), ms; part of pressure_solve; 0 without one */
    double precond_setup_ms;         /* of which the preconditioner's set-up, ms */
    double precond_apply_ms;         /* and its applications, ms */
    char failure[160];               /* why the step failed, when it returned an error code;
                                      * "" when it has nothing to add to the code */
} fl_step_stats;

typedef struct fl_solver_ops {
    const char *name;    /* "sph", "wcsph", "pcisph", "pbf", "flip" */
    const char *summary; /* one line for `fluidlab list` */
    void *(*create)(fl_world *w, const fl_params *p, fl_error *err);
    int (*step)(void *self, fl_world *w, double dt, fl_step_stats *st);
    void (*destroy)(void *self);
    /* the parameters that fix the pressure iterations per step, all set to
     * the same count by `fluidlab sweep --iters` (NULL-terminated; NULL for
     * a solver without such a count) */
    const char *const *iteration_keys;
    /* what `--iters` sets besides, so that nothing stops the iterations
     * early ("KEY=VALUE", NULL-terminated; NULL for none): PBF's eta 0 */
    const char *const *iteration_fixed;
    /* every parameter of its scene section solvers.<name> (NULL-terminated),
     * so that a run checks the sections of the solvers it does not run too */
    const char *const *param_keys;
    /* the parameters of a section solvers.<name> read as create reads them,
     * nothing built (so that a run checks the sections of the solvers it does
     * not run too): FL_OK, or FL_ERR_INPUT with one line naming the key */
    int (*check_params)(const fl_world *w, const fl_params *p, fl_error *err);
    /* where the particles live: "cpu", or a device backend ("cuda", "emu"; solvers/dev.h) */
    const char *device;
    /* a device solver (NULL on the CPU): its backend, which fl_solver_create
     * creates it on; the metrics of docs/design.md computed where the
     * particles are (the compression with the shared estimator into st,
     * the fluid's bounding box into lo and hi), so that nothing is copied
     * back each step; and the copy of the particles back into w (positions,
     * velocities, densities, pressures; in the device's order), timed into
     * st's transfer stage when st is not NULL */
    const void *backend;
    int (*measure)(void *self, fl_step_stats *st, double lo[3], double hi[3], fl_error *err);
    int (*download)(void *self, fl_world *w, fl_step_stats *st, fl_error *err);
} fl_solver_ops;

/* The registered CPU solvers, NULL-terminated. */
extern const fl_solver_ops *const fl_solvers[];

/* The CPU solver called name, or NULL. */
const fl_solver_ops *fl_solver_find(const char *name);

/* A solver's state for the world w with parameters p (ops->create, or the
 * device solver on ops->backend), or NULL with the reason in err. */
void *fl_solver_create(const fl_solver_ops *ops, fl_world *w, const fl_params *p, fl_error *err);

/* Clears the stats before a step (they are reused step to step). */
void fl_step_stats_reset(fl_step_stats *st);

/* rc, with err's message kept in st->failure when rc is a failure, so that
 * the run's reason says why the step failed. */
int fl_step_failed(fl_step_stats *st, const fl_error *err, int rc);

/* Wall clock in milliseconds, for the stage timers. */
double fl_now_ms(void);

/* max |v| over fluid particles, and the count of particles whose position or
 * velocity is not finite. */
double fl_max_speed(const fl_particles *p, int *nan_count);

/* rho_i = m (W(0) + sum_j W_ij) + rho0 sum_b V_b W_ib (poly6, Akinci 2012)
 * for every fluid particle, from the lists of the grid's last search over
 * positions (x, y, z). The one density estimator: solvers use it, and the
 * harness uses it for the compression metric. */
void fl_density_poly6(const fl_world *w, const fl_nbgrid *g, const float *x, const float *y,
                      const float *z, float *rho);

/* The compression of n densities against rho0: *avg = mean of
 * max(rho_i/rho0 - 1, 0), *max = the largest rho_i/rho0 - 1 (0 for n = 0).
 * Summed in parallel over fixed blocks, then block by block: the same bits
 * for any thread count. */
void fl_compression(const float *rho, int n, double rho0, double *avg, double *max);

/* The clumping of a free surface (PBF's tensile instability,
 * docs/methods/pbf.md section 4): the smallest distance between two fluid
 * particles within h of each other of which at least one is near the
 * surface, that is, has fewer than `sparse` fluid neighbors within h; from
 * the lists of the grid's last search over positions (x, y, z), m.
 * INFINITY when no pair qualifies; the particles near the surface are
 * counted into *near when it is not NULL. */
double fl_surface_min_distance(const fl_nbgrid *g, const float *x, const float *y, const float *z, int sparse,
                               int *near);

/* The explicit-SPH step limit: 0.4 h / (c + v_max), the CFL condition on
 * sound and flow speed, and 0.25 sqrt(h / a_max), the force criterion
 * (Monaghan 1992; Becker & Teschner 2007). h is the support radius.
 * Infinite when nothing moves and no force acts. */
double fl_explicit_dt_limit(double h, double c, double v_max, double a_max);

/* The step limit of an explicit viscosity nu, m^2/s (Morris, Fox & Zhu
 * 1997): 0.125 h_s^2 / nu, h_s = h / 2 the smoothing length of the
 * support radius h. Infinite when nu is 0. */
double fl_viscous_dt_limit(double h, double nu);

#ifdef __cplusplus
}
#endif

#endif
