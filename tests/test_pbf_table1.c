/* test_pbf_table1.c (label long): the PBF paper's Table 1 dam break row,
 * 100 000 particles at 4 steps per 60 Hz frame (dt = 1/240 s) and 3 Jacobi
 * iterations, is stable at the scale of scenes/pbf_table1.json and not at
 * the laboratory scale of scenes/dam_break.json. PBF's compression grows
 * as g D dt^2 / (k d^2) (docs/methods/pbf.md, section 8): the same number
 * of particles in the same column shape, with the same step and
 * iterations, is compressed 23 times less when d is 0.1 m instead of
 * 4.3 mm, and the paper's scene is not described.
 *  1. scenes/pbf_table1.json (a = 4.6 m, d = 0.1 m, 97 336 particles): 3 s
 *     within the stability criteria of docs/design.md, checked after every
 *     step as the harness does; mean compression over the run under 2 %.
 *  2. scenes/dam_break.json at d = 4.3 mm (a = 0.2 m, 98 049 particles),
 *     same step and iterations: breaks the criteria within 0.5 s. */
#include <math.h>

#include "ensure.h"
#include "validation.h"

static void graphics_scale(void)
{
    stability_run r = run_stability("pbf", FL_SOURCE_DIR "/scenes/pbf_table1.json", NULL, 0, 1.0 / 240.0, 3.0);
    printf("pbf_table1 (d = 0.1 m), 3 s at dt = 1/240 s, 3 iterations: %d steps, %s; compression over the run: "
           "mean %.3f %%, largest %.2f %%\n",
           r.steps, r.reason, 100 * r.mean_err, 100 * r.peak_err);
    ENSURE(r.failed_at == -1.0);
    ENSURE(r.steps == 720);
    ENSURE(r.mean_err < 0.02);
}

static void laboratory_scale(void)
{
    const char *sets[] = {"fluid.spacing=0.0043", "solvers.pbf.solver_iterations=3"};
    stability_run r = run_stability("pbf", FL_SOURCE_DIR "/scenes/dam_break.json", sets, 2, 1.0 / 240.0, 0.5);
    printf("dam_break at d = 4.3 mm, dt = 1/240 s, 3 iterations: %d steps, failed at t = %.3f s: %s; "
           "compression until then: mean %.2f %%, largest %.2f %%\n",
           r.steps, r.failed_at, r.reason, 100 * r.mean_err, 100 * r.peak_err);
    ENSURE(r.failed_at > 0.0 && r.failed_at < 0.5);
}

int main(void)
{
    graphics_scale();
    laboratory_scale();
    return fl_test_report("test_pbf_table1");
}
