/* measure.h: measurements of a world that the tests and the course's
 * exercises share: the hydrostatic pressure slope and the lattice's
 * gradient factor kappa (docs/methods/sph.md, section 5). */
#ifndef FL_MEASURE_H
#define FL_MEASURE_H

#include "nbgrid.h"
#include "pcg.h"
#include "scene.h"
#include "solver.h"
#include "world.h"

/* kappa = sum_j V (y_j - y_i) [grad_i W_ij]_y over a full lattice
 * neighborhood (cubic, or square when dims is 2) of spacing d, V = mass /
 * rho0, spiky at support h: the symmetric pressure force reads a linear
 * pressure field p = c y as kappa c, so a column at rest has dp/depth =
 * rho0 g / kappa (kappa is 1 for an exact gradient; 0.947 for spiky at
 * h = 2d, 0.874 on the square lattice). */
double fl_lattice_gradient_factor(double d, double h, double mass, double rho0, int dims);

/* The scene called name (a name from scenes/ or a path) with the
 * overrides sets ("KEY=VALUE", as --set), loaded into *s and built into *w
 * (fl_build_world): FL_OK, or the error in err with nothing left to free. */
int fl_open_scene(const char *name, const char *const *sets, int nsets, fl_scene *s, fl_world *w, fl_error *err);

/* Solver ops on w with the parameters "KEY=VALUE" of sets ("true" and
 * "false" are 1 and 0; the scene's own ignored), section naming them in
 * messages ("solvers.pbf"); NULL with the message in err. */
void *fl_solver_with(const fl_solver_ops *ops, fl_world *w, const char *section, const char *const *sets, int nsets,
                     fl_error *err);

/* Steps solver `steps` times at dt, advancing w->time; FL_OK or the
 * failing step's code (its reason in st->failure when it gave one). */
int fl_steps(const fl_solver_ops *ops, void *solver, fl_world *w, double dt, int steps, fl_step_stats *st);

/* One step's convergence of a PBF variant on the 2D tank
 * (scenes/hydrostatic_2d.json) at t = 2 s: the column brought there by
 * the default solver (Jacobi, 4 iterations) at dt = 1/120 s, then stepped
 * once by PBF with sets (and solver_iterations=20). max[k], avg[k]: the
 * max and mean compression after iteration k + 1 (20 entries). Returns the
 * iterations run, 0 when a step failed (the reason in err). */
int fl_pbf_tank_history(const char *const *sets, int nsets, double *max, double *avg, fl_error *err);

/* s_corr's effect on a free surface's clumping: the smallest distance
 * between two fluid particles within h of which one has fewer than
 * `sparse` fluid neighbors (fl_surface_min_distance), least over the frames
 * (1/60 s) from 0.5 s to 1.0 s of the 2D dam break (scenes/dam_break_2d.json)
 * under PBF at dt = 1/240 s with the s_corr strength scorr_k; the mean over
 * the frames in *mean. NAN (err set) when a step failed. */
double fl_pbf_surface_clumping(double scorr_k, int sparse, double *mean, fl_error *err);

/* Least-squares slope, Pa/m, of the fluid particles' pressure against
 * their depth below the highest particle, over the particles more than 2h
 * below the surface and above the floor y = 2h. */
double fl_pressure_slope(const fl_world *w);

/* The water of fl_dam_projection: the dam break's column, whose faces fall
 * between the cells of every multigrid level, or a drop over a pool, whose
 * surface cuts them at every angle. */
typedef enum fl_projection_shape {
    FL_PROJECTION_COLUMN = 0, /* a quarter of the tank long, half its height, the tank's depth wide */
    FL_PROJECTION_DROP = 1    /* a ball of radius 0.3 centred at (0.47, 0.41, 0.53), and a pool 0.15 deep */
} fl_projection_shape;

/* The first projection of water of that shape on an n^3 MAC grid (the
 * unit cube, dx = 1/n), AIR around it, after one step of gravity (v = -g
 * 0.01 s); projected with the preconditioner precond to the relative
 * residual tol. The solve's result in *res (res->ms: the linear solve's
 * own time, as a run's solves are timed: the preconditioner's set-up
 * included, the solver's one-time allocation of its arrays and of the
 * multigrid's levels not), the pressure (the whole grid, (n + 2)^3 cells)
 * into p unless NULL. FL_OK, or the reason in err (out of memory). */
int fl_dam_projection(int n, fl_projection_shape shape, fl_precond precond, double tol, double *p,
                      fl_pcg_result *res, fl_error *err);

#endif
