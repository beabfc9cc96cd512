/* test_stability.c: the stability criteria of docs/design.md ("Stability")
 * and their speed floor.
 *
 *  1. The speed limit is 10 U with U = max(sqrt(2 |g| H), the largest
 *     initial fluid speed, 1 m/s): the dam break's H = 0.5 m under Earth's
 *     gravity gives 10 sqrt(2 9.81 0.5) = 31.32 m/s; gravity 1e-12 and 0
 *     give the floor, 10 m/s (without it, 1e-12 gave 1.0e-5 m/s); a fluid
 *     particle starting at 7 m/s raises it to 70 m/s. Each to 1e-9 relative.
 *  2. A drop without gravity, or with 1e-12 m/s^2, is a fluid at rest: every
 *     solver runs it 0.25 s within the criteria (at the scene's step; PBF at
 *     1/240 s, the step of its figures: at the scene's 1/4800 s its first
 *     correction of the free surface alone reads as 43 m/s, with gravity or
 *     not).
 *  3. The criteria still catch what they are for: a NaN, a speed over the
 *     limit, and 10 steps in a row over 20 % compression (not 9). */
#include <string.h>

#include "ensure.h"
#include "validation.h"

#define DROP FL_SOURCE_DIR "/scenes/drop.json"
#define DAM FL_SOURCE_DIR "/scenes/dam_break.json"

/* The stability limit of scene with one gravity override (NULL: none) and
 * the first fluid particle's initial x speed v0. */
static double limit_of(const char *scene, const char *gravity, float v0)
{
    const char *sets[] = {"fluid.spacing=0.04", gravity};
    fl_scene s;
    fl_world w;
    fl_error err;
    if (fl_scene_load(scene, sets, gravity ? 2 : 1, &s, &err) != FL_OK || fl_build_world(&s, &w, &err) != FL_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1.0;
    }
    w.fluid.vx[0] = v0;
    fl_stability stab;
    fl_stability_init(&stab, &w);
    fl_world_free(&w);
    fl_scene_free(&s);
    return stab.speed_limit;
}

static void speed_limit(void)
{
    const double earth = 10.0 * sqrt(2.0 * 9.81 * 0.5);
    ENSURE_NEAR(limit_of(DAM, NULL, 0.0f), earth, 1e-9 * earth);
    ENSURE_NEAR(limit_of(DAM, "gravity=[0,-1e-12,0]", 0.0f), 10.0, 1e-9);
    ENSURE_NEAR(limit_of(DAM, "gravity=[0,0,0]", 0.0f), 10.0, 1e-9);
    ENSURE_NEAR(limit_of(DAM, "gravity=[0,0,0]", 7.0f), 70.0, 1e-6);
    ENSURE_NEAR(limit_of(DAM, NULL, -40.0f), 400.0, 1e-6);
}

static void still_drop(const char *gravity)
{
    const char *sets[] = {"fluid.spacing=0.04", gravity};
    for (int k = 0; fl_solvers[k]; k++) {
        const char *name = fl_solvers[k]->name;
        double dt = strcmp(name, "pbf") == 0 ? 1.0 / 240.0 : 1.0 / (30.0 * 160.0);
        stability_run r = run_stability(name, DROP, sets, 2, dt, 0.25);
        printf("drop with %s, %s at dt %.3g s: %s after %d steps\n", gravity, name, dt, r.reason, r.steps);
        ENSURE(r.failed_at == -1.0);
        ENSURE(r.steps == (int)ceil(0.25 / dt - 1e-9));
    }
}

static void criteria(void)
{
    const char *sets[] = {"fluid.spacing=0.04"};
    fl_scene s;
    fl_world w;
    fl_error err;
    ENSURE(fl_scene_load(DAM, sets, 1, &s, &err) == FL_OK && fl_build_world(&s, &w, &err) == FL_OK);
    fl_stability stab;
    fl_stability_init(&stab, &w);
    fl_step_stats *st = calloc(1, sizeof *st);
    char why[200];
    st->max_speed = 0.99 * stab.speed_limit;
    ENSURE(fl_stability_check(&stab, st, why, sizeof why) == 0);
    st->max_speed = 1.01 * stab.speed_limit;
    ENSURE(fl_stability_check(&stab, st, why, sizeof why) == 1 && strstr(why, "max speed"));
    st->max_speed = NAN;
    ENSURE(fl_stability_check(&stab, st, why, sizeof why) == 1);
    st->max_speed = 1.0, st->nan_count = 1;
    ENSURE(fl_stability_check(&stab, st, why, sizeof why) == 1 && strstr(why, "NaN"));
    st->nan_count = 0, st->density_err_avg = 0.21;
    fl_stability_init(&stab, &w);
    for (int k = 0; k < 9; k++)
        ENSURE(fl_stability_check(&stab, st, why, sizeof why) == 0);
    ENSURE(fl_stability_check(&stab, st, why, sizeof why) == 1 && strstr(why, "compression"));
    free(st);
    fl_world_free(&w);
    fl_scene_free(&s);
}

int main(void)
{
    speed_limit();
    criteria();
    still_drop("gravity=[0,-1e-12,0]");
    still_drop("gravity=[0,0,0]");
    return fl_test_report("test_stability");
}
