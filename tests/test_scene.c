/* test_scene.c: the scene loader (scenes/scene.c).
 *
 * The shipped scenes load with the particle counts their lattices give;
 * the dam break has the Martin & Moyce proportions; every kind of bad input
 * fails with one line naming the file and the key path; --set overrides
 * change the scene as if the file said so; solver parameters come through.
 * FL_SOURCE_DIR (a compile definition) locates the shipped scenes. */
#include <stdio.h>
#include <string.h>

#include "ensure.h"
#include "scene.h"

#ifndef FL_SOURCE_DIR
#error "FL_SOURCE_DIR must name the source tree (tests/CMakeLists.txt defines it)"
#endif

/* A small valid scene: one 0.5 m cube of fluid at spacing 0.1 (5^3 = 125
 * particles) in a 1 m box. */
#define BASE_SCENE                                                        \
    "{\"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]},\n"                \
    " \"fluid\": {\"spacing\": 0.1,\n"                                    \
    "            \"blocks\": [{\"min\": [0,0,0], \"max\": [0.5,0.5,0.5]}]},\n" \
    " \"time\": {\"duration\": 1}}\n"

/* A message is one line. */
static int one_line(const char *msg)
{
    return msg[0] != '\0' && strchr(msg, '\n') == NULL;
}

/* Parses text with sets; the parse must fail with a one-line message
 * containing every needle (NULL-terminated), and leave nothing allocated. */
static void expect_failure(const char *text, const char *const *sets, int set_count,
                           const char *const *needles)
{
    fl_scene s;
    fl_error err = {{0}};
    int rc = fl_scene_parse(text, "bad.json", sets, set_count, &s, &err);
    ENSURE(rc != FL_OK);
    ENSURE(s.json == NULL);
    ENSURE(one_line(err.msg));
    for (int k = 0; needles[k] != NULL; k++) {
        if (strstr(err.msg, needles[k]) == NULL) {
            fprintf(stderr, "message \"%s\" lacks \"%s\"\n", err.msg, needles[k]);
            ENSURE(strstr(err.msg, needles[k]) != NULL);
        }
    }
    fl_scene_free(&s);
}

/* The same with one --set on BASE_SCENE. */
static void expect_set_failure(const char *set, const char *const *needles)
{
    const char *sets[1] = {set};
    expect_failure(BASE_SCENE, sets, 1, needles);
}

static int load(const char *path, const char *const *sets, int set_count, fl_scene *s)
{
    fl_error err = {{0}};
    int rc = fl_scene_load(path, sets, set_count, s, &err);
    if (rc != FL_OK)
        fprintf(stderr, "%s: unexpected failure: %s\n", path, err.msg);
    return rc;
}

static double param(const fl_params *p, const char *key, double def)
{
    double v = def;
    for (int k = 0; k < p->count; k++) {
        if (strcmp(p->items[k].key, key) == 0)
            v = p->items[k].value;
    }
    return v;
}

static void test_shipped_scenes(void)
{
    /* Lattice points lo + d/2 + i d inside each block (scene.h, world.h). */
    static const struct {
        const char *path;
        long long fluid;
    } scenes[] = {
        {FL_SOURCE_DIR "/scenes/dam_break.json", 20 * 40 * 10},
        {FL_SOURCE_DIR "/scenes/hydrostatic.json", 8 * 20 * 8},
        {FL_SOURCE_DIR "/scenes/drop.json", 50 * 10 * 20 + 10 * 10 * 10},
    };
    for (size_t k = 0; k < sizeof scenes / sizeof scenes[0]; k++) {
        fl_scene s;
        fl_world w;
        fl_error err = {{0}};
        ENSURE(load(scenes[k].path, NULL, 0, &s) == FL_OK);
        ENSURE(s.fluid_count == scenes[k].fluid);
        ENSURE(s.boundary_count > 0);
        ENSURE(s.json != NULL && strstr(s.json, "\"fluid\"") != NULL);
        ENSURE(s.name[0] != '\0' && s.description[0] != '\0');
        ENSURE(fl_scene_dt(&s) > 0.0);
        /* The world holds what the loader counted. */
        ENSURE(fl_scene_build_world(&s, &w, &err) == FL_OK);
        ENSURE(w.fluid.count == s.fluid_count);
        ENSURE(w.boundary.count == s.boundary_count);
        ENSURE_NEAR(w.spacing, s.spacing, 0.0);
        fl_world_free(&w);
        fl_scene_free(&s);
        ENSURE(s.json == NULL);
    }
}

static void test_dam_break(void)
{
    fl_scene s;
    fl_params p;
    double a;
    if (load(FL_SOURCE_DIR "/scenes/dam_break.json", NULL, 0, &s) != FL_OK) {
        ENSURE(0);
        return;
    }
    ENSURE(strcmp(s.name, "dam_break") == 0);
    ENSURE(s.block_count == 1);
    /* Martin & Moyce: a column a wide and 2a tall against the left wall,
     * in a tank at least 5a long, across the full depth. */
    a = s.blocks[0].hi[0] - s.blocks[0].lo[0];
    ENSURE_NEAR(a, 0.2, 1e-12);
    ENSURE_NEAR(s.blocks[0].hi[1] - s.blocks[0].lo[1], 2.0 * a, 1e-12);
    ENSURE_NEAR(s.blocks[0].lo[0], s.domain.lo[0], 0.0);
    ENSURE_NEAR(s.blocks[0].lo[1], s.domain.lo[1], 0.0);
    ENSURE(s.domain.hi[0] - s.domain.lo[0] >= 5.0 * a);
    ENSURE_NEAR(s.blocks[0].lo[2], s.domain.lo[2], 0.0);
    ENSURE_NEAR(s.blocks[0].hi[2], s.domain.hi[2], 0.0);
    ENSURE_NEAR(s.gravity[1], -9.81, 0.0);
    ENSURE_NEAR(fl_scene_dt(&s), 1.0 / 4800.0, 1e-15); /* 30 fps x 160 substeps */

    fl_scene_solver_params(&s, "sph", &p);
    ENSURE_NEAR(param(&p, "stiffness", -1), 1000.0, 0.0);
    ENSURE_NEAR(param(&p, "viscosity", -1), 3.0, 0.0);
    ENSURE_NEAR(param(&p, "clamp_negative", -1), 1.0, 0.0);
    ENSURE(strstr(p.source, "dam_break.json: solvers.sph") != NULL);
    /* A solver the scene does not mention gets an empty list naming it. */
    fl_scene_solver_params(&s, "pbf", &p);
    ENSURE(p.count == 0);
    ENSURE(strstr(p.source, "solvers.pbf") != NULL);
    fl_scene_free(&s);
}

static void test_defaults(void)
{
    fl_scene s;
    fl_error err = {{0}};
    ENSURE(fl_scene_parse(BASE_SCENE, "dir/small.json", NULL, 0, &s, &err) == FL_OK);
    ENSURE(strcmp(s.name, "small") == 0);   /* the basename without .json */
    ENSURE_NEAR(s.rest_density, 1000.0, 0.0);
    ENSURE_NEAR(s.nu, 0.0, 0.0);
    ENSURE_NEAR(s.jitter, 0.0, 0.0);
    ENSURE(s.seed == 1);
    ENSURE_NEAR(s.fps, 30.0, 0.0);
    ENSURE(s.substeps == 1);
    ENSURE_NEAR(s.dt, 0.0, 0.0);
    ENSURE_NEAR(fl_scene_dt(&s), 1.0 / 30.0, 1e-15);
    ENSURE_NEAR(s.gravity[0], 0.0, 0.0);
    ENSURE_NEAR(s.gravity[1], -9.81, 0.0);
    ENSURE(s.obstacle_count == 0 && s.solver_count == 0);
    ENSURE(s.fluid_count == 125);
    fl_scene_free(&s);
}

static void test_malformed(void)
{
    /* The missing comma is on line 3. */
    static const char text[] = "{\n  \"name\": \"x\",\n  \"domain\": {\"min\": [0,0,0] \"max\": "
                               "[1,1,1]}\n}\n";
    expect_failure(text, NULL, 0, (const char *const[]){"bad.json", "malformed JSON", "line 3", NULL});
    expect_failure("", NULL, 0, (const char *const[]){"bad.json", "empty", NULL});
    expect_failure("{\"domain\": ", NULL, 0, (const char *const[]){"bad.json", "malformed", NULL});
    expect_failure(BASE_SCENE "}", NULL, 0,
                   (const char *const[]){"bad.json", "malformed JSON", "line 5", NULL});
    expect_failure("[1, 2]", NULL, 0,
                   (const char *const[]){"bad.json", "expected a JSON object", NULL});
}

static void test_unknown_keys(void)
{
    expect_failure("{\"domian\": {}}", NULL, 0,
                   (const char *const[]){"bad.json: domian: unknown key", "domain", NULL});
    expect_failure("{\"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]},"
                   " \"fluid\": {\"spacng\": 0.1}, \"time\": {\"duration\": 1}}",
                   NULL, 0,
                   (const char *const[]){"bad.json: fluid.spacng: unknown key",
                                         "expected one of: spacing, rest_density, nu, jitter, seed, "
                                         "blocks",
                                         NULL});
    expect_set_failure("fluid.blocks[0].mx=[1,1,1]",
                       (const char *const[]){"fluid.blocks[0].mx: unknown key", NULL});
    expect_set_failure("time.durration=2", (const char *const[]){"time.durration", NULL});
    /* A key twice is refused rather than silently taking the first. */
    expect_failure("{\"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]},"
                   " \"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]}}",
                   NULL, 0, (const char *const[]){"domain", "once", NULL});
}

static void test_bad_values(void)
{
    expect_set_failure("fluid.spacing=0", (const char *const[]){"fluid.spacing", "> 0", "got 0", NULL});
    expect_set_failure("fluid.spacing=-0.01", (const char *const[]){"fluid.spacing", "got -0.01", NULL});
    expect_set_failure("fluid.spacing=\"small\"", (const char *const[]){"fluid.spacing", "small", NULL});
    expect_set_failure("time.dt=0", (const char *const[]){"bad.json: time.dt", "> 0", NULL});
    expect_set_failure("time.dt=-1", (const char *const[]){"time.dt", "got -1", NULL});
    expect_set_failure("time.dt=fast", (const char *const[]){"time.dt", "\"cfl\"", NULL});
    expect_set_failure("time.duration=0", (const char *const[]){"time.duration", NULL});
    expect_set_failure("time.duration=-2", (const char *const[]){"time.duration", NULL});
    expect_set_failure("time.substeps=0.5", (const char *const[]){"time.substeps", "integer", NULL});
    expect_set_failure("fluid.jitter=1", (const char *const[]){"fluid.jitter", NULL});
    expect_set_failure("fluid.seed=-1", (const char *const[]){"fluid.seed", NULL});
    expect_set_failure("gravity=[0,-9.81]",
                       (const char *const[]){"gravity", "an array of 3 numbers", NULL});
    expect_set_failure("domain.max=[1,0,1]", (const char *const[]){"domain", "max > min", NULL});
    expect_set_failure("fluid.blocks=[]", (const char *const[]){"fluid.blocks", "non-empty", NULL});
    expect_set_failure("solvers.sph.stiffness=\"high\"",
                       (const char *const[]){"solvers.sph.stiffness", "number", NULL});
    expect_set_failure("solvers.sph=3", (const char *const[]){"solvers.sph", NULL});
    /* Required keys. */
    expect_failure("{\"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]},"
                   " \"fluid\": {\"blocks\": [{\"min\": [0,0,0], \"max\": [1,1,1]}]},"
                   " \"time\": {\"duration\": 1}}",
                   NULL, 0, (const char *const[]){"fluid.spacing", "required", NULL});
    expect_failure("{\"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]},"
                   " \"fluid\": {\"spacing\": 0.1, \"blocks\": [{\"min\": [0,0,0], \"max\": [1,1,1]}]}}",
                   NULL, 0, (const char *const[]){"bad.json: time", "required", NULL});
}

static void test_boxes(void)
{
    /* Outside the domain, per axis. */
    expect_set_failure("fluid.blocks[0].max=[1.5,0.5,0.5]",
                       (const char *const[]){"fluid.blocks[0].max", "inside the domain", NULL});
    expect_set_failure("fluid.blocks[0].min=[0,-0.1,0]",
                       (const char *const[]){"fluid.blocks[0].min", "inside the domain", NULL});
    expect_set_failure("obstacles=[{\"min\": [0,0,0], \"max\": [2,0.1,0.1]}]",
                       (const char *const[]){"obstacles[0].max", NULL});
    /* Empty fluid: thinner than the spacing, or all inside an obstacle. */
    expect_set_failure("fluid.blocks[0].max=[0.5,0.04,0.5]",
                       (const char *const[]){"fluid.blocks[0]", "empty fluid", NULL});
    expect_set_failure("obstacles=[{\"min\": [0,0,0], \"max\": [0.6,0.6,0.6]}]",
                       (const char *const[]){"fluid.blocks[0]", "empty fluid", NULL});
    /* Overlapping blocks would start the fluid over-dense. */
    expect_set_failure("fluid.blocks[1]={\"min\": [0.4,0.4,0.4], \"max\": [0.9,0.9,0.9]}",
                       (const char *const[]){"fluid.blocks[1]", "overlap", NULL});
}

static void test_too_many_particles(void)
{
    /* 1e5 lattice points per axis in a 1 m box: refused from the estimate,
     * at once, with the count, before any counting loop. */
    expect_failure("{\"domain\": {\"min\": [0,0,0], \"max\": [1,1,1]},"
                   " \"fluid\": {\"spacing\": 1e-5, \"blocks\": [{\"min\": [0,0,0], \"max\": [1,1,1]}]},"
                   " \"time\": {\"duration\": 1}}",
                   NULL, 0,
                   (const char *const[]){"bad.json: fluid.spacing", "1e+15 fluid particles",
                                         "GiB", NULL});
    /* The same through --set, on a shipped scene. */
    {
        const char *sets[1] = {"fluid.spacing=1e-6"};
        fl_scene s;
        fl_error err = {{0}};
        ENSURE(fl_scene_load(FL_SOURCE_DIR "/scenes/dam_break.json", sets, 1, &s, &err) != FL_OK);
        ENSURE(strstr(err.msg, "particles") != NULL);
        ENSURE(strstr(err.msg, "dam_break.json: fluid.spacing") != NULL);
        ENSURE(s.json == NULL);
    }
}

static void test_set(void)
{
    const char *path = FL_SOURCE_DIR "/scenes/dam_break.json";
    fl_scene base, s;
    fl_params p;
    if (load(path, NULL, 0, &base) != FL_OK) {
        ENSURE(0);
        return;
    }
    /* Half the spacing: 8x the particles, within lattice rounding. */
    {
        const char *sets[1] = {"fluid.spacing=0.005"};
        ENSURE(load(path, sets, 1, &s) == FL_OK);
        ENSURE_NEAR((double)s.fluid_count / (double)base.fluid_count, 8.0, 0.5);
        ENSURE_NEAR(s.spacing, 0.005, 0.0);
        ENSURE(strstr(s.json, "0.005") != NULL);   /* the override is in the recorded JSON */
        fl_scene_free(&s);
    }
    /* Both index syntaxes: half the column height, half the particles. */
    {
        const char *sets[1] = {"fluid.blocks[0].max=[0.2,0.2,0.1]"};
        ENSURE(load(path, sets, 1, &s) == FL_OK);
        ENSURE(s.fluid_count * 2 == base.fluid_count);
        fl_scene_free(&s);
    }
    {
        const char *sets[1] = {"fluid.blocks.0.max=[0.2,0.2,0.1]"};
        ENSURE(load(path, sets, 1, &s) == FL_OK);
        ENSURE(s.fluid_count * 2 == base.fluid_count);
        fl_scene_free(&s);
    }
    /* Several overrides, a string value, a boolean, a new solver section. */
    {
        const char *sets[4] = {"name=renamed", "solvers.sph.stiffness=2000",
                               "solvers.pbf.iterations=4", "solvers.pbf.vorticity=false"};
        ENSURE(load(path, sets, 4, &s) == FL_OK);
        ENSURE(strcmp(s.name, "renamed") == 0);
        fl_scene_solver_params(&s, "sph", &p);
        ENSURE_NEAR(param(&p, "stiffness", -1), 2000.0, 0.0);
        ENSURE_NEAR(param(&p, "viscosity", -1), 3.0, 0.0);   /* untouched */
        fl_scene_solver_params(&s, "pbf", &p);
        ENSURE(p.count == 2);
        ENSURE_NEAR(param(&p, "iterations", -1), 4.0, 0.0);
        ENSURE_NEAR(param(&p, "vorticity", -1), 0.0, 0.0);
        fl_scene_free(&s);
    }
    /* "solvers" created where the scene has none. */
    {
        const char *sets[1] = {"solvers.sph.stiffness=3000"};
        ENSURE(load(FL_SOURCE_DIR "/scenes/drop.json", sets, 1, &s) == FL_OK);
        fl_scene_solver_params(&s, "sph", &p);
        ENSURE_NEAR(param(&p, "stiffness", -1), 3000.0, 0.0);
        fl_scene_free(&s);
    }
    /* an array created where the scene has none: its first element
     * appended (it was an object, and [0] was refused) */
    {
        const char *sets[1] = {"obstacles[0]={\"min\": [0.3, 0, 0], \"max\": [0.4, 0.1, 0.1]}"};
        ENSURE(load(FL_SOURCE_DIR "/scenes/drop.json", sets, 1, &s) == FL_OK);
        ENSURE(s.obstacle_count == 1);
        ENSURE_NEAR(s.obstacles[0].hi[0], 0.4, 0.0);
        fl_scene_free(&s);
    }
    /* time.dt through --set. */
    {
        const char *sets[1] = {"time.dt=0.0005"};
        ENSURE(load(path, sets, 1, &s) == FL_OK);
        ENSURE_NEAR(fl_scene_dt(&s), 0.0005, 0.0);
        ENSURE(s.dt_cfl == 0);
        fl_scene_free(&s);
    }
    /* time.dt = "cfl": adaptive steps, at most a frame's substep from fl_scene_dt */
    {
        const char *sets[1] = {"time.dt=cfl"};
        ENSURE(load(path, sets, 1, &s) == FL_OK);
        ENSURE(s.dt_cfl == 1);
        ENSURE_NEAR(fl_scene_dt(&s), 1.0 / (s.fps * s.substeps), 1e-15);
        fl_scene_free(&s);
    }
    fl_scene_free(&base);

    /* A typo is an unknown key; a malformed override names the override. */
    expect_set_failure("fluid.spacng=0.005",
                       (const char *const[]){"bad.json: fluid.spacng: unknown key", NULL});
    expect_set_failure("foo", (const char *const[]){"--set foo: expected key.path=value", NULL});
    expect_set_failure("=3", (const char *const[]){"--set =3: expected key.path=value", NULL});
    expect_set_failure("fluid..spacing=1", (const char *const[]){"expected key.path=value", NULL});
    expect_set_failure("fluid.blocks[x].max=1", (const char *const[]){"expected key.path=value", NULL});
    expect_set_failure("fluid.blocks[5].max=[1,1,1]",
                       (const char *const[]){"--set", "fluid.blocks has 1 element", NULL});
    expect_set_failure("fluid.spacing.x=1",
                       (const char *const[]){"--set", "fluid.spacing", "got a number", NULL});
}

static void test_files(void)
{
    fl_scene s;
    fl_error err = {{0}};
    /* The scene is input: a file that cannot be read is bad input (exit 1),
     * not an output error (FL_ERR_IO, exit 2). */
    int rc = fl_scene_load(FL_SOURCE_DIR "/scenes/no_such_scene.json", NULL, 0, &s, &err);
    ENSURE(rc == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "no_such_scene.json: cannot open") != NULL);
    ENSURE(one_line(err.msg));
    ENSURE(s.json == NULL);
    rc = fl_scene_load(FL_SOURCE_DIR "/scenes", NULL, 0, &s, &err);
    ENSURE(rc == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "scenes: expected a scene file, got a folder") != NULL);
    ENSURE(one_line(err.msg));
    ENSURE(s.json == NULL);
}

static void test_time_limits(void)
{
    fl_scene s;
    /* Steps that overflow the harness's counts, or that never end. */
    expect_set_failure("time.duration=1e308",
                       (const char *const[]){"bad.json: time.duration", "at most 1e9 steps", "got 1e+308 s", NULL});
    expect_set_failure("time.dt=1e-308",
                       (const char *const[]){"bad.json: time.dt", "at most 1e5 steps a frame", NULL});
    expect_set_failure("time.fps=1e308", (const char *const[]){"bad.json: time.fps", "(0, 1e6]", NULL});
    expect_set_failure("time.substeps=1e9", (const char *const[]){"bad.json: time.substeps", "[1, 1e5]", NULL});
    /* At steps of 1/30 s: 3.3e7 s is 9.9e8 steps, 3.4e7 s is 1.02e9, one too many. */
    {
        const char *sets[1] = {"time.duration=3.3e7"};
        fl_error err = {{0}};
        ENSURE(fl_scene_parse(BASE_SCENE, "ok.json", sets, 1, &s, &err) == FL_OK);
        fl_scene_free(&s);
    }
    expect_set_failure("time.duration=3.4e7", (const char *const[]){"time.duration", NULL});
    /* Densities are floats: far from any real fluid the sums overflow. */
    expect_set_failure("fluid.rest_density=1e308", (const char *const[]){"fluid.rest_density", "1e6", NULL});
    expect_set_failure("fluid.rest_density=1e-308", (const char *const[]){"fluid.rest_density", "0.001", NULL});
    /* the kinematic viscosity: into the world; negative or beyond 100 m^2/s refused */
    {
        const char *sets[1] = {"fluid.nu=1e-6"};
        fl_error err = {{0}};
        fl_world w;
        memset(&w, 0, sizeof w);
        ENSURE(fl_scene_parse(BASE_SCENE, "ok.json", sets, 1, &s, &err) == FL_OK &&
               fl_scene_build_world(&s, &w, &err) == FL_OK);
        ENSURE_NEAR(w.nu, 1e-6, 0.0);
        fl_world_free(&w);
        fl_scene_free(&s);
    }
    expect_set_failure("fluid.nu=-1", (const char *const[]){"fluid.nu", "[0, 100]", NULL});
    expect_set_failure("fluid.nu=1e3", (const char *const[]){"fluid.nu", "[0, 100]", NULL});
}

static void test_grid_limits(void)
{
    /* 125 particles in a 250 m tank at h = 0.2 m: 2e9 neighbor-grid cells. */
    expect_set_failure("domain.max=[250,250,250]",
                       (const char *const[]){"bad.json: domain: the neighbor grid", "cells", NULL});
}

int main(void)
{
    test_shipped_scenes();
    test_dam_break();
    test_defaults();
    test_malformed();
    test_unknown_keys();
    test_bad_values();
    test_boxes();
    test_too_many_particles();
    test_set();
    test_files();
    test_time_limits();
    test_grid_limits();
    return fl_test_report("test_scene");
}
