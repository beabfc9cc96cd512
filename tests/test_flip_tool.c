/* test_flip_tool.c: the rigid tool in the FLIP solver (solvers/flip.c;
 * docs/methods/flip.md, section 11): its cells SOLID, the faces
 * around them at its velocity, the fluid's pressure force on it. The world
 * is built as the harness builds it (fl_build_world_tool, then the
 * solver) and stepped as the harness steps it (fl_tool_loop_step), in
 * steps of 1/100 s.
 *
 * The tank: d = 0.01 m, so dx = 0.02 m; 19 x 15 x 19 cells of water at
 * rest in a domain 19 x 18 x 19 cells. The sphere: radius R = 0.07 m
 * = 3.5 cells, its centre on a cell centre; 179 cell centres lie inside
 * it, 179 dx^3 = 1.432e-3 m^3 against 4/3 pi R^3 = 1.437e-3 m^3 (-0.33 %),
 * so the volume the grid sees is the sphere's within the test's margin
 * (the test counts the cells and checks that).
 *  1. Archimedes: the sphere held still at mid depth (its top 0.08 m under
 *     the surface). No particle lies inside it after the solver's create
 *     or at the end; after 0.5 s, the mean of the vertical force over the
 *     next 0.1 s is rho0 g V within 5 % (V = 4/3 pi R^3), the horizontal
 *     components below 1 % of it; the torque about the centre, where the
 *     symmetric staircase's pressure forces cancel, below 1e-3 rho0 g V R.
 *  2. Drag: the sphere moved in x at a constant 0.1 m/s and at 0.2 m/s
 *     through the still water (a path of two keys, from rest at t = 0 to
 *     t = 0.6 s); the mean force along x over the last 0.4 s of the motion
 *     (past the start's impulse; 2 and 4 cell crossings, over which the
 *     staircase's jumps of the force repeat) is negative (against the
 *     motion), larger in magnitude at the higher speed. No particle lies
 *     inside the sphere at the end.
 *  3. Archimedes for a mesh tool (archimedes_mesh, below). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "harness.h"
#include "mac.h"
#include "obj.h"
#include "tool.h"

#define TEST_PI 3.14159265358979323846

/* The tank; %s is the tool's object. */
static const char *const scene_format =
    "{\"name\": \"flip_tool\", \"domain\": {\"min\": [0, 0, 0], \"max\": [0.38, 0.36, 0.38]},"
    " \"gravity\": [0, -9.81, 0],"
    " \"fluid\": {\"spacing\": 0.01, \"rest_density\": 1000,"
    "           \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.38, 0.30, 0.38]}]},"
    " \"time\": {\"duration\": 1.0, \"fps\": 50, \"dt\": 0.01},"
    " \"tool\": %s}";

typedef struct tool_run {
    int ok;              /* every step succeeded */
    double force[3];     /* mean f_total over the steps ending after t_from, N */
    double torque[3];    /* and of the torque, N m */
    int samples;
    int inside0, inside; /* particles inside the tool after the create, and at the end */
    int tool_cells;      /* cell centres of the solver's grid inside the tool at the start */
    double rho0g, radius;
    double volume;       /* a mesh tool's, m^3 */
} tool_run;

/* Fluid particles inside the tool. */
static int count_inside(const fl_world *w)
{
    int n = 0;
    for (int i = 0; i < w->fluid.count; i++) {
        float nrm[3];
        n += fl_tool_distance(&w->tool.shape, &w->tool.pose, w->fluid.x[i], w->fluid.y[i], w->fluid.z[i], nrm) < 0.0f;
    }
    return n;
}

/* Cells of the FLIP grid (dx = 2 d) whose centre lies inside the tool. */
static int count_tool_cells(const fl_world *w)
{
    fl_mac_config cfg = fl_default_mac_config();
    fl_mac_grid *g;
    fl_error err;
    if (fl_mac_grid_create(w, &cfg, &g, &err) != FL_OK)
        return -1;
    int n = 0;
    for (int k = 0; k < g->nz; k++)
        for (int j = 0; j < g->ny; j++)
            for (int i = 0; i < g->nx; i++) {
                float nrm[3];
                n += fl_tool_distance(&w->tool.shape, &w->tool.pose, (float)fl_mac_centre(g, 0, i),
                                      (float)fl_mac_centre(g, 1, j), (float)fl_mac_centre(g, 2, k), nrm) < 0.0f;
            }
    fl_mac_grid_destroy(&g);
    return n;
}

/* Runs flip on the tank with the tool tool_json for duration s, averaging
 * the tool's force over the steps that end after t_from. */
static tool_run run(const char *tool_json, double duration, double t_from)
{
    tool_run r;
    memset(&r, 0, sizeof r);
    char text[2048];
    snprintf(text, sizeof text, scene_format, tool_json);
    fl_scene s;
    fl_world w;
    fl_tool tool;
    fl_params prm;
    fl_error err;
    memset(&w, 0, sizeof w);
    memset(&tool, 0, sizeof tool);
    if (fl_scene_parse(text, "flip_tool.json", NULL, 0, &s, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return r;
    }
    const fl_solver_ops *ops = fl_solver_find("flip");
    void *solver = NULL;
    if (fl_build_world_tool(&s, &w, &tool, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
    } else {
        fl_scene_solver_params(&s, "flip", &prm);
        if (!(solver = fl_solver_create(ops, &w, &prm, &err)))
            fprintf(stderr, "%s\n", err.msg);
    }
    if (solver) {
        r.inside0 = count_inside(&w);
        r.tool_cells = count_tool_cells(&w);
        r.rho0g = w.rho0 * 9.81;
        r.radius = s.tool.shape.radius;
        r.volume = fl_mesh_volume(&tool.own);
        fl_step_stats *st = calloc(1, sizeof *st);
        const double dt = 0.01;
        const int steps = (int)floor(duration / dt + 0.5);
        int rc = FL_OK;
        for (int k = 1; k <= steps && rc == FL_OK; k++) {
            fl_step_stats_reset(st);
            fl_tool_report rep;
            if ((rc = fl_tool_loop_step(ops, solver, &w, &tool, dt, st, &rep, &err)) != FL_OK) {
                fprintf(stderr, "%s\n", err.msg);
                break;
            }
            if (w.time > t_from + 1e-9) {
                for (int a = 0; a < 3; a++)
                    r.force[a] += rep.f_total[a], r.torque[a] += rep.torque[a];
                r.samples++;
            }
        }
        for (int a = 0; a < 3 && r.samples > 0; a++)
            r.force[a] /= r.samples, r.torque[a] /= r.samples;
        r.inside = count_inside(&w);
        r.ok = rc == FL_OK && st->nan_count == 0 && r.samples > 0;
        free(st);
        ops->destroy(solver);
    }
    fl_tool_free(&tool);
    fl_world_free(&w);
    fl_scene_free(&s);
    return r;
}

static void archimedes(void)
{
    tool_run r = run("{\"shape\": \"sphere\", \"radius\": 0.07, \"position\": [0.19, 0.15, 0.19]}", 0.6, 0.5);
    const double volume = 4.0 / 3.0 * TEST_PI * r.radius * r.radius * r.radius, dx = 0.02;
    const double buoyancy = r.rho0g * volume;
    printf("flip tool, Archimedes: sphere R = %.3f m (%.2f cells), %d cells inside, %d dx^3 = %.4e m^3 against "
           "4/3 pi R^3 = %.4e m^3 (%+.2f %%); %d particles inside after create, %d at the end; mean force over "
           "%d steps (%.2e, %.4f, %.2e) N against rho0 g V = %.4f N (%+.2f %%), torque (%.2e, %.2e, %.2e) N m\n",
           r.radius, r.radius / dx, r.tool_cells, r.tool_cells, r.tool_cells * dx * dx * dx, volume,
           100.0 * (r.tool_cells * dx * dx * dx / volume - 1.0), r.inside0, r.inside, r.samples, r.force[0],
           r.force[1], r.force[2], buoyancy, 100.0 * (r.force[1] / buoyancy - 1.0), r.torque[0], r.torque[1],
           r.torque[2]);
    ENSURE(r.ok);
    ENSURE(r.tool_cells == 179);
    ENSURE(fabs(r.tool_cells * dx * dx * dx / volume - 1.0) < 0.01);
    ENSURE(r.inside0 == 0 && r.inside == 0);
    ENSURE(fabs(r.force[1] / buoyancy - 1.0) < 0.05);
    ENSURE(fabs(r.force[0]) < 0.01 * buoyancy);
    ENSURE(fabs(r.force[2]) < 0.01 * buoyancy);
    for (int a = 0; a < 3; a++)
        ENSURE(fabs(r.torque[a]) < 1e-3 * buoyancy * r.radius);
}

/* A mesh tool: the Stanford bunny (reference/bunny.obj x 0.02, 0.19 m
 * tall, V = 2.1e-3 m^3, about 10 cells across) held still, turned 20
 * degrees about y, its centroid where the sphere's centre was: the cell
 * centres inside it (its signed-distance grid's sign) number V / dx^3
 * within 3 % (the staircase of a body 10 cells across), no particle is
 * inside it, and the vertical force is rho0 g V within 5 %, the
 * horizontal below 1 % of it: the hydrostatic pressure integrates to no
 * sideways force, whatever the shape. */
static void archimedes_mesh(void)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"shape\": \"mesh\", \"mesh\": \"%s/reference/bunny.obj\", \"scale\": 0.025,"
             " \"position\": [0.19, 0.15, 0.19], \"rotation\": [0, 20, 0]}",
             FL_SOURCE_DIR);
    tool_run r = run(json, 0.6, 0.5);
    const double dx = 0.02, buoyancy = r.rho0g * r.volume;
    printf("flip tool, Archimedes: bunny of %.4e m^3, %d cells inside, %d dx^3 = %.4e m^3 (%+.2f %%); %d particles "
           "inside after create, %d at the end; mean force (%.2e, %.4f, %.2e) N against rho0 g V = %.4f N "
           "(%+.2f %%)\n",
           r.volume, r.tool_cells, r.tool_cells, r.tool_cells * dx * dx * dx,
           100.0 * (r.tool_cells * dx * dx * dx / r.volume - 1.0), r.inside0, r.inside, r.force[0], r.force[1],
           r.force[2], buoyancy, 100.0 * (r.force[1] / buoyancy - 1.0));
    ENSURE(r.ok);
    ENSURE(fabs(r.tool_cells * dx * dx * dx / r.volume - 1.0) < 0.03);
    ENSURE(r.inside0 == 0 && r.inside == 0);
    ENSURE(fabs(r.force[1] / buoyancy - 1.0) < 0.05);
    ENSURE(fabs(r.force[0]) < 0.01 * buoyancy);
    ENSURE(fabs(r.force[2]) < 0.01 * buoyancy);
}

/* The sphere moved from x = 0.13 m at speed m/s for 0.6 s; the mean force
 * along x over the last 0.4 s. */
static double drag(double speed)
{
    char json[512];
    snprintf(json, sizeof json,
             "{\"shape\": \"sphere\", \"radius\": 0.07, \"path\": [{\"t\": 0, \"position\": [0.13, 0.15, 0.19]},"
             " {\"t\": 0.6, \"position\": [%.6f, 0.15, 0.19]}]}",
             0.13 + 0.6 * speed);
    tool_run r = run(json, 0.6, 0.2);
    printf("flip tool, drag: sphere at %.2f m/s along x, mean force over the last %d steps (%.4f, %.4f, %.4f) N, "
           "%d particles inside after create, %d at the end\n",
           speed, r.samples, r.force[0], r.force[1], r.force[2], r.inside0, r.inside);
    ENSURE(r.ok);
    ENSURE(r.inside0 == 0 && r.inside == 0);
    return r.ok ? r.force[0] : NAN;
}

int main(void)
{
    double t0 = fl_now_ms();
    archimedes();
    archimedes_mesh();
    double slow = drag(0.1), fast = drag(0.2);
    ENSURE(slow < 0.0 && fast < 0.0);
    ENSURE(fast < slow);
    printf("test_flip_tool: %.1f s\n", (fl_now_ms() - t0) * 1e-3);
    return fl_test_report("test_flip_tool");
}
