/* tool_run.h: a scene with a rigid tool, its world and a solver, stepped
 * through the harness's tool loop (fl_tool_loop_step) as every run steps
 * it; for test_tool and test_device_tool. */
#ifndef FL_TEST_TOOL_RUN_H
#define FL_TEST_TOOL_RUN_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "tool.h"

/* Newton's third law's scene: a blob 0.14 m across, without gravity, in a
 * box it does not touch; the sphere enters it at 0.5 m/s, with adhesion
 * and damping on; viscosity off (SPH's and PCISPH's Laplacian form weighs
 * a pair by m/rho_j, so it is not antisymmetric). */
static const char *const tool_blob =
    "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.3, 0.3, 0.3]}, \"gravity\": [0, 0, 0],"
    " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0.08, 0.08, 0.08], \"max\": [0.22, 0.22, 0.22]}]},"
    " \"time\": {\"duration\": 1, \"dt\": 0.001},"
    " \"tool\": {\"shape\": \"sphere\", \"radius\": 0.03, \"path\": [{\"t\": 0, \"position\": [0.05, 0.15, 0.152]},"
    " {\"t\": 0.4, \"position\": [0.25, 0.15, 0.152]}], \"adhesion\": {\"k\": 500}, \"damping\": {\"k\": 0.05}},"
    " \"solvers\": {\"sph\": {\"viscosity\": 0}, \"pcisph\": {\"viscosity\": 0}}}";

typedef struct tool_run {
    fl_scene scene;
    fl_world world;
    fl_tool tool;
    const fl_solver_ops *ops;
    void *solver;
    fl_step_stats *st;
} tool_run;

/* Sets up scene text json (with sets) under solver on device ("cpu",
 * "emu", "cuda"); 0 on success, else 1 with the reason on stderr. */
static inline int run_start(tool_run *r, const char *json, const char *solver, const char *device,
                            const char *const *sets, int nsets)
{
    fl_error err;
    fl_params prm;
    memset(r, 0, sizeof *r);
    if (fl_scene_parse(json, "tool_run", sets, nsets, &r->scene, &err) ||
        fl_build_world_tool(&r->scene, &r->world, &r->tool, &err) || !(r->ops = fl_solver_on(solver, device, &err))) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    fl_scene_solver_params(&r->scene, solver, &prm);
    r->solver = fl_solver_create(r->ops, &r->world, &prm, &err);
    r->st = calloc(1, sizeof *r->st);
    if (!r->solver || !r->st) {
        fprintf(stderr, "%s\n", err.msg);
        return 1;
    }
    return 0;
}

/* One tool-loop step of dt; 0 on success. */
static inline int run_step(tool_run *r, double dt, fl_tool_report *rep)
{
    fl_error err;
    fl_step_stats_reset(r->st);
    if (fl_tool_loop_step(r->ops, r->solver, &r->world, &r->tool, dt, r->st, rep, &err) == FL_OK)
        return 0;
    fprintf(stderr, "step to t = %g: %s\n", r->world.time, err.msg);
    return 1;
}

static inline void run_end(tool_run *r)
{
    if (r->solver)
        r->ops->destroy(r->solver);
    free(r->st);
    fl_tool_free(&r->tool);
    fl_world_free(&r->world);
    fl_scene_free(&r->scene);
}

#endif
