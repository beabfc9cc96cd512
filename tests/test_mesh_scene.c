/* test_mesh_scene.c: mesh objects in scenes (scenes/scene.c "meshes",
 * scenes/mesh_sample.c, the MAC grid's solid meshes; docs/methods/
 * voxelize.md, "Meshes in scenes").
 *  1. Fluid meshes: a cube of 0.3 m (an OBJ written here) at d = 0.02 m
 *     and the shipped bunny (scenes/pbf_bunny.json, d = 0.1 m): the
 *     particle count within 2 % of volume / d^3, the fluid's mass (count x
 *     the calibrated mass) within 2 % of rho0 x volume.
 *  2. A solid cube (turned 30 degrees about y): its boundary particles all
 *     lie FL_BOUNDARY_OFFSET d inside its surface (within 1 % of d), every
 *     point of that offset surface has one within 0.75 d (spacing at most
 *     d: within d / sqrt(2)), and a fluid block it stands in holds no
 *     particle inside it.
 *  3. PBF: water falls onto the solid cube standing in a pool; after 0.5 s
 *     no particle is more than d / 2 inside it (its boundary layer is
 *     0.65 d inside).
 *  4. FLIP: the cube's SOLID cells number its volume / dx^3 within 3 %, and
 *     after 0.5 s of water falling on it no particle is in a SOLID cell.
 *  `test_mesh_scene physics` runs 3 and 4; without arguments, 1 and 2. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "mac.h"
#include "validation.h"

#define CUBE_OBJ "test_mesh_scene_cube.obj"
#define CUBE_SIDE 0.3
#define CUBE_TURN 30.0 /* degrees about y */

/* The unit cube [-1/2, 1/2]^3 as 12 outward triangles. */
static int write_cube(void)
{
    static const char text[] = "v -0.5 -0.5 -0.5\nv 0.5 -0.5 -0.5\nv 0.5 0.5 -0.5\nv -0.5 0.5 -0.5\n"
                               "v -0.5 -0.5 0.5\nv 0.5 -0.5 0.5\nv 0.5 0.5 0.5\nv -0.5 0.5 0.5\n"
                               "f 1 4 3\nf 1 3 2\nf 5 6 7\nf 5 7 8\nf 1 2 6\nf 1 6 5\n"
                               "f 4 8 7\nf 4 7 3\nf 1 5 8\nf 1 8 4\nf 2 3 7\nf 2 7 6\n";
    FILE *f = fopen(CUBE_OBJ, "w");
    if (!f)
        return 0;
    fputs(text, f);
    return fclose(f) == 0;
}

/* Writes a scene around one cube mesh: a tank of 1 x 1 x 1 m, the cube's
 * centre at centre, and the given fluid blocks (JSON, may be empty). */
static int write_scene(const char *path, double d, const char *as, const double centre[3], const char *blocks)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fprintf(f,
            "{ \"domain\": { \"min\": [0, 0, 0], \"max\": [1, 1, 1] },\n"
            "  \"fluid\": { \"spacing\": %g%s%s%s },\n"
            "  \"meshes\": [ { \"mesh\": \"%s\", \"scale\": %g, \"rotate\": [0, %g, 0],\n"
            "                  \"translate\": [%g, %g, %g], \"as\": \"%s\" } ],\n"
            "  \"time\": { \"duration\": 0.5, \"fps\": 60, \"substeps\": 4 },\n"
            "  \"solvers\": { \"pbf\": { \"solver_iterations\": 10 } } }\n",
            d, blocks[0] ? ", \"blocks\": [" : "", blocks, blocks[0] ? "]" : "", CUBE_OBJ, CUBE_SIDE,
            strcmp(as, "solid") == 0 ? CUBE_TURN : 0.0, centre[0], centre[1], centre[2], as);
    return fclose(f) == 0;
}

/* How far x lies inside the turned cube at c: its distance to the nearest
 * face, negative outside. */
static double depth_in_cube(const double c[3], const double x[3])
{
    double t = CUBE_TURN * 3.14159265358979323846 / 180.0, r[3] = {x[0] - c[0], x[1] - c[1], x[2] - c[2]};
    /* into the cube's frame: the rotation about y by -t */
    double own[3] = {cos(t) * r[0] - sin(t) * r[2], r[1], sin(t) * r[0] + cos(t) * r[2]};
    double depth = HUGE_VAL;
    for (int a = 0; a < 3; a++)
        depth = fmin(depth, 0.5 * CUBE_SIDE - fabs(own[a]));
    return depth;
}

/* The point at face coordinates (u, v) in [-1/2, 1/2] of face f (0..5)
 * of a cube of the given side, centred and turned as the solid cube. */
static void cube_surface_point(const double c[3], double side, int f, double u, double v, double x[3])
{
    double own[3], t = CUBE_TURN * 3.14159265358979323846 / 180.0;
    int a = f / 2;
    own[a] = (f % 2 ? 0.5 : -0.5) * side;
    own[(a + 1) % 3] = u * side;
    own[(a + 2) % 3] = v * side;
    x[0] = c[0] + cos(t) * own[0] + sin(t) * own[2];
    x[1] = c[1] + own[1];
    x[2] = c[2] - sin(t) * own[0] + cos(t) * own[2];
}

static int load(const char *path, fl_scene *s, fl_world *w)
{
    fl_error err;
    if (fl_scene_load(path, NULL, 0, s, &err) != FL_OK || fl_build_world(s, w, &err) != FL_OK) {
        printf("%s\n", err.msg);
        return 0;
    }
    return 1;
}

static void check_fluid(const char *label, const fl_world *w, double volume)
{
    double n = w->fluid.count, lattice = volume / pow(w->spacing, 3), mass = n * w->mass;
    printf("%s: %d particles, volume / d^3 = %.0f (%+.2f %%); mass %.4g kg, rho0 V = %.4g kg (%+.2f %%)\n",
           label, w->fluid.count, lattice, 100 * (n / lattice - 1), mass, w->rho0 * volume,
           100 * (mass / (w->rho0 * volume) - 1));
    ENSURE(fabs(n / lattice - 1) < 0.02);
    ENSURE(fabs(mass / (w->rho0 * volume) - 1) < 0.02);
}

static void test_fluid_meshes(void)
{
    static const double centre[3] = {0.5, 0.4, 0.5};
    fl_scene s;
    fl_world w;
    ENSURE(write_cube() && write_scene("test_mesh_scene_fluid.json", 0.02, "fluid", centre, ""));
    if (load("test_mesh_scene_fluid.json", &s, &w)) {
        check_fluid("fluid cube", &w, s.meshes[0].volume);
        ENSURE_NEAR(s.meshes[0].volume, pow(CUBE_SIDE, 3), 1e-12);
        fl_world_free(&w);
        fl_scene_free(&s);
    } else {
        ENSURE(0);
    }
    if (load(FL_SOURCE_DIR "/scenes/pbf_bunny.json", &s, &w)) {
        check_fluid("bunny", &w, s.meshes[0].volume);
        fl_world_free(&w);
        fl_scene_free(&s);
    } else {
        ENSURE(0);
    }
}

/* A fluid mesh's "velocity": its particles start with it, a block's do not. */
static void test_mesh_velocity(void)
{
    fl_scene s;
    fl_world w;
    FILE *f = fopen("test_mesh_scene_velocity.json", "w");
    ENSURE(f != NULL && write_cube());
    if (!f)
        return;
    fprintf(f, "{ \"domain\": { \"min\": [0, 0, 0], \"max\": [1, 1, 1] },\n"
               "  \"fluid\": { \"spacing\": 0.05, \"blocks\": [ { \"min\": [0, 0, 0], \"max\": [1, 0.2, 1] } ] },\n"
               "  \"meshes\": [ { \"mesh\": \"%s\", \"scale\": %g, \"translate\": [0.5, 0.6, 0.5], \"as\": \"fluid\",\n"
               "                  \"velocity\": [1, -2, 0.5] } ],\n"
               "  \"time\": { \"duration\": 0.1 } }\n",
            CUBE_OBJ, CUBE_SIDE);
    ENSURE(fclose(f) == 0);
    if (!load("test_mesh_scene_velocity.json", &s, &w)) {
        ENSURE(0);
        return;
    }
    int moving = 0, still = 0, wrong = 0;
    for (int i = 0; i < w.fluid.count; i++) {
        const int in_cube = w.fluid.y[i] > 0.3;
        const double v[3] = {w.fluid.vx[i], w.fluid.vy[i], w.fluid.vz[i]};
        const int fast = v[0] == 1.0 && v[1] == -2.0 && v[2] == 0.5, rest = v[0] == 0 && v[1] == 0 && v[2] == 0;
        moving += in_cube && fast, still += !in_cube && rest, wrong += in_cube ? !fast : !rest;
    }
    printf("mesh velocity: %d particles of the cube at (1, -2, 0.5) m/s, %d of the block at rest, %d otherwise\n",
           moving, still, wrong);
    ENSURE(moving == 216 && still == 1600 && wrong == 0);
    fl_world_free(&w);
    fl_scene_free(&s);
}

static void test_solid_cube(void)
{
    static const double centre[3] = {0.5, 0.2, 0.5};
    const double d = 0.02;
    fl_scene s;
    fl_world w;
    ENSURE(write_cube() && write_scene("test_mesh_scene_solid.json", d, "solid", centre,
                                       "{ \"min\": [0, 0, 0], \"max\": [1, 0.3, 1] }"));
    if (!load("test_mesh_scene_solid.json", &s, &w)) {
        ENSURE(0);
        return;
    }
    /* the mesh's particles follow the walls' */
    const int first = (int)fl_world_count_boundary(&w);
    const fl_boundary *b = &w.boundary;
    double worst = 0.0, gap = 0.0, vol = 0.0;
    int inside = 0;
    for (int i = first; i < b->count; i++) {
        double x[3] = {b->x[i], b->y[i], b->z[i]};
        worst = fmax(worst, fabs(depth_in_cube(centre, x) - FL_BOUNDARY_OFFSET * d));
        vol += b->volume[i];
    }
    for (int f = 0; f < 6; f++)
        for (int p = 0; p <= 40; p++)
            for (int q = 0; q <= 40; q++) {
                double x[3], nearest = HUGE_VAL;
                cube_surface_point(centre, CUBE_SIDE - 2 * FL_BOUNDARY_OFFSET * d, f, p / 40.0 - 0.5,
                                   q / 40.0 - 0.5, x);
                for (int i = first; i < b->count; i++) {
                    double r2 = pow(b->x[i] - x[0], 2) + pow(b->y[i] - x[1], 2) + pow(b->z[i] - x[2], 2);
                    nearest = fmin(nearest, r2);
                }
                gap = fmax(gap, sqrt(nearest));
            }
    for (int i = 0; i < w.fluid.count; i++) {
        double x[3] = {w.fluid.x[i], w.fluid.y[i], w.fluid.z[i]};
        inside += depth_in_cube(centre, x) > 0.0;
    }
    printf("solid cube: %d boundary particles on it, %d in all; farthest from the offset surface %.4f d; "
           "largest distance from a point of that surface to a particle %.3f d; their volumes sum to %.4g m^3 (surface "
           "x d: %.4g); fluid particles inside it %d of %d\n",
           b->count - first, b->count, worst / d, gap / d, vol, 6 * CUBE_SIDE * CUBE_SIDE * d, inside,
           w.fluid.count);
    ENSURE(b->count - first > 0);
    ENSURE(worst < 0.01 * d);
    ENSURE(gap < 0.75 * d);
    ENSURE(inside == 0);
    ENSURE(w.solid_mesh_count == 1);
    fl_world_free(&w);
    fl_scene_free(&s);
}

/* Water in a pool around the solid cube and a block falling onto it. */
static const char falling_water[] = "{ \"min\": [0, 0, 0], \"max\": [1, 0.2, 1] }, "
                                    "{ \"min\": [0.35, 0.5, 0.35], \"max\": [0.65, 0.7, 0.65] }";

static void test_pbf_solid(void)
{
    static const double centre[3] = {0.5, 0.15, 0.5};
    fl_scene s;
    fl_world w;
    ENSURE(write_cube() && write_scene("test_mesh_scene_pbf.json", 0.04, "solid", centre, falling_water));
    void *solver = start_solver("pbf", "test_mesh_scene_pbf.json", NULL, 0, &s, &w);
    if (!solver) {
        ENSURE(0);
        return;
    }
    const fl_solver_ops *ops = test_ops("pbf");
    fl_step_stats *st = calloc(1, sizeof *st);
    const double dt = fl_scene_dt(&s);
    int rc = FL_OK, steps = (int)floor(0.5 / dt + 0.5), deep = 0;
    double deepest = -HUGE_VAL;
    for (int k = 0; k < steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(solver, &w, dt, st);
    }
    for (int i = 0; i < w.fluid.count; i++) {
        double x[3] = {w.fluid.x[i], w.fluid.y[i], w.fluid.z[i]}, depth = depth_in_cube(centre, x);
        deepest = fmax(deepest, depth);
        deep += depth > 0.5 * w.spacing;
    }
    printf("pbf onto a solid cube: %d particles, %d steps (rc %d); deepest inside the cube %.3f d; more than "
           "d/2 inside: %d\n",
           w.fluid.count, steps, rc, deepest / w.spacing, deep);
    ENSURE(rc == FL_OK);
    ENSURE(deep == 0);
    free(st);
    ops->destroy(solver);
    fl_world_free(&w);
    fl_scene_free(&s);
}

static void test_flip_solid(void)
{
    static const double centre[3] = {0.5, 0.15, 0.5};
    fl_scene s;
    fl_world w;
    ENSURE(write_cube() && write_scene("test_mesh_scene_flip.json", 0.01, "solid", centre, falling_water));
    const char *sets[] = {"fluid.spacing=0.02"};
    void *solver = start_solver("flip", "test_mesh_scene_flip.json", sets, 1, &s, &w);
    if (!solver) {
        ENSURE(0);
        return;
    }
    /* the cells of a grid at d = 0.01 (dx = 0.02: 3375 cells of the cube) */
    fl_scene fine;
    fl_world fw;
    fl_mac_config cfg = fl_default_mac_config();
    fl_mac_grid *g = NULL, *walls = NULL;
    fl_error err;
    long solid = 0, on_grid = 0;
    cfg.dx = 0.02;
    if (load("test_mesh_scene_flip.json", &fine, &fw) && fl_mac_grid_create(&fw, &cfg, &g, &err) == FL_OK) {
        fl_world bare = fw;
        bare.solid_mesh_count = 0;
        if (fl_mac_grid_create(&bare, &cfg, &walls, &err) == FL_OK)
            for (long c = 0; c < g->ncells; c++)
                solid += g->label[c] == FL_CELL_SOLID && walls->label[c] != FL_CELL_SOLID;
        fl_mac_grid_destroy(&walls);
        fl_mac_grid_destroy(&g);
        fl_world_free(&fw);
        fl_scene_free(&fine);
    }
    double cells = pow(CUBE_SIDE / cfg.dx, 3);
    const fl_solver_ops *ops = test_ops("flip");
    fl_step_stats *st = calloc(1, sizeof *st);
    const double dt = 1.0 / 60.0;
    int rc = FL_OK, steps = 30, in_solid = 0;
    for (int k = 0; k < steps && rc == FL_OK; k++) {
        fl_step_stats_reset(st);
        rc = ops->step(solver, &w, dt, st);
    }
    cfg.dx = 2.0 * w.spacing;
    if (fl_mac_grid_create(&w, &cfg, &g, &err) == FL_OK) {
        for (int i = 0; i < w.fluid.count; i++) {
            long c = fl_mac_cell_at(g, w.fluid.x[i], w.fluid.y[i], w.fluid.z[i]);
            in_solid += g->label[c] == FL_CELL_SOLID;
            on_grid++;
        }
        fl_mac_grid_destroy(&g);
    }
    printf("flip: the cube's SOLID cells at dx = 0.02 m: %ld, volume / dx^3 = %.0f (%+.2f %%); after %d steps of "
           "1/60 s (rc %d), particles in a SOLID cell: %d of %ld\n",
           solid, cells, 100 * (solid / cells - 1), steps, rc, in_solid, on_grid);
    ENSURE(fabs(solid / cells - 1) < 0.03);
    ENSURE(rc == FL_OK);
    ENSURE(on_grid == w.fluid.count && in_solid == 0);
    free(st);
    ops->destroy(solver);
    fl_world_free(&w);
    fl_scene_free(&s);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "physics") == 0) {
        test_pbf_solid();
        test_flip_solid();
    } else {
        test_fluid_meshes();
        test_mesh_velocity();
        test_solid_cube();
    }
    return fl_test_report("test_mesh_scene");
}
