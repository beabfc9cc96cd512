/* test_tool.c: the rigid tool (solvers/tool.h, docs/methods/tool.md).
 *
 *   test_tool unit        the adhesion kernel's shape (zero below A, above B
 *                         and at both ends, -4/27 C_d at s_a/Q = 2/3); the
 *                         sphere's sampling (every particle on its layer,
 *                         the set symmetric, so no sideways force from it);
 *                         the scene's and the set-up's bad input
 *   test_tool newton      Newton's third law, every step: a blob without
 *                         gravity, the tool moving through it; the change
 *                         of the fluid's momentum over a step is minus the
 *                         impulse of the force on the tool (sph, wcsph,
 *                         pcisph, pbf)
 *   test_tool archimedes SOLVER
 *                         a sphere held still, submerged in a tank at rest:
 *                         the vertical force is rho0 g V within 5 %, the
 *                         horizontal below 1 % of it (sph, wcsph, pcisph at
 *                         R = 4 d; pbf at R = 8 d, which it needs: at 4 d
 *                         it reads 20 % high, docs/methods/tool.md)
 *   test_tool drag        (PCISPH) a sphere moved at constant speed through still
 *                         water feels a force against its motion, larger
 *                         at twice the speed
 *   test_tool float       (PCISPH) a free sphere of half the water's density floats
 *                         with half its volume under (its bottom's depth R
 *                         within 10 %); one of twice it sinks
 *   test_tool adhesion    (PCISPH) a sphere lifted out of the water carries water
 *                         above the surface with adhesion on, none 0.5 s
 *                         after leaving it with adhesion off */
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "harness.h"
#include "tool.h"
#include "tool_run.h"

#define PI 3.14159265358979323846

/* ---- unit ----------------------------------------------------------------- */

static void kernel_shape(void)
{
    const float a = 0.01f, b = 0.03f, cd = 2.5f;
    ENSURE(fl_tool_adhesion_kernel(0.005f, a, b, cd) == 0.0f);
    ENSURE(fl_tool_adhesion_kernel(0.031f, a, b, cd) == 0.0f);
    ENSURE_NEAR(fl_tool_adhesion_kernel(a, a, b, cd), 0.0, 1e-7);
    ENSURE_NEAR(fl_tool_adhesion_kernel(b, a, b, cd), 0.0, 1e-6);
    const float deepest = a + (b - a) * 2.0f / 3.0f;
    ENSURE_NEAR(fl_tool_adhesion_kernel(deepest, a, b, cd), -4.0 / 27.0 * cd, 1e-6);
    /* the extremum: every other point of the band is shallower */
    for (int k = 1; k < 100; k++) {
        float s = a + (b - a) * k / 100.0f;
        ENSURE(fl_tool_adhesion_kernel(s, a, b, cd) >= fl_tool_adhesion_kernel(deepest, a, b, cd) - 1e-7f);
        ENSURE(fl_tool_adhesion_kernel(s, a, b, cd) < 0.0f);
    }
}

static const char *const tank =
    "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
    " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.16, 0.2]}]},"
    " \"time\": {\"duration\": 1, \"fps\": 50, \"dt\": 0.001},"
    " \"tool\": {\"shape\": \"sphere\", \"radius\": 0.04, \"position\": [0.1, 0.08, 0.1]}}";

/* The tank with the sphere on a path instead (set with --set tool.path). */
static const char *const tank_path =
    "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
    " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.16, 0.2]}]},"
    " \"time\": {\"duration\": 2, \"fps\": 50, \"dt\": 0.001},"
    " \"tool\": {\"shape\": \"sphere\", \"radius\": 0.04, \"path\": [{\"t\": 0, \"position\": [0.1, 0.08, 0.1]}]}}";

static void sampling(void)
{
    tool_run r;
    ENSURE(run_start(&r, tank, "sph", "cpu", NULL, 0) == 0);
    const fl_boundary *b = &r.world.boundary;
    const int first = r.world.tool.first;
    const double layer = 0.04 - FL_BOUNDARY_OFFSET * 0.01;
    double sum[3] = {0, 0, 0}, worst = 0.0;
    for (int k = first; k < b->count; k++) {
        double p[3] = {b->x[k] - 0.1, b->y[k] - 0.08, b->z[k] - 0.1};
        worst = fmax(worst, fabs(sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]) - layer));
        for (int a = 0; a < 3; a++)
            sum[a] += p[a];
    }
    const int n = b->count - first;
    ENSURE(n == r.tool.count && n > 100);
    ENSURE(worst < 1e-6);
    for (int a = 0; a < 3; a++)
        ENSURE(fabs(sum[a]) / n < 1e-6);
    /* no fluid particle closer than d/2 to the surface */
    double closest = 1.0;
    for (int i = 0; i < r.world.fluid.count; i++) {
        double dx = r.world.fluid.x[i] - 0.1, dy = r.world.fluid.y[i] - 0.08, dz = r.world.fluid.z[i] - 0.1;
        closest = fmin(closest, sqrt(dx * dx + dy * dy + dz * dz) - 0.04);
    }
    ENSURE(closest >= 0.005 * 0.999);
    run_end(&r);
}

/* A bad scene: the scene text json with sets fails to parse (or to set
 * up) with a message holding want. */
static void bad(const char *json, const char *const *sets, int nsets, const char *want)
{
    fl_scene s;
    fl_world w;
    fl_tool t;
    fl_error err;
    err.msg[0] = '\0';
    int rc = fl_scene_parse(json, "tank.json", sets, nsets, &s, &err);
    if (rc == FL_OK) {
        if ((rc = fl_build_world_tool(&s, &w, &t, &err)) == FL_OK) {
            fl_tool_free(&t);
            fl_world_free(&w);
        }
        fl_scene_free(&s);
    }
    ENSURE(rc == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, want) != NULL);
    if (!strstr(err.msg, want))
        fprintf(stderr, "  wanted '%s' in: %s\n", want, err.msg);
}

static void bad_input(void)
{
    const char *outside[] = {"tool.position=[0.1, 0.18, 0.1]"};
    bad(tank, outside, 1, "outside the domain");
    const char *shape[] = {"tool.shape=\"cone\""};
    bad(tank, shape, 1, "tool.shape");
    const char *thin[] = {"tool.radius=0.005"};
    bad(tank, thin, 1, "thinner than the fluid's spacing");
    const char *band[] = {"tool.adhesion={\"k\": 1, \"a\": 0.02, \"b\": 0.01}"};
    bad(tank, band, 1, "tool.adhesion.b");
    static const char *const path =
        "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
        " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.1, 0.2]}]},"
        " \"time\": {\"duration\": 1, \"dt\": 0.001},"
        " \"tool\": {\"shape\": \"sphere\", \"radius\": 0.03, \"path\": [{\"t\": 0, \"position\": [0.1, 0.15, 0.1]},"
        " {\"t\": 0.5, \"position\": [0.1, 0.1, 0.1]}, {\"t\": 0.4, \"position\": [0.1, 0.05, 0.1]}]}}";
    bad(path, NULL, 0, "tool.path[2].t");
    const char *low[] = {"tool.path[2].t=0.9", "tool.path[1].position=[0.1, 0.02, 0.1]"};
    bad(path, low, 2, "tool.path[1]");
    bad(path, low, 2, "outside the domain");
}

/* ---- Newton's third law --------------------------------------------------- */

static void momentum(const fl_particles *f, double m, double p[3])
{
    p[0] = p[1] = p[2] = 0.0;
    for (int i = 0; i < f->count; i++)
        p[0] += m * f->vx[i], p[1] += m * f->vy[i], p[2] += m * f->vz[i];
}

/* The sphere through tool_blob (tool_run.h). Without walls
 * or gravity, and with every fluid pair force antisymmetric (viscosity
 * off: SPH's and PCISPH's Laplacian form weighs the pair by m/rho_j, not
 * symmetrically), the fluid's momentum changes only by what the tool
 * gives it: dP/dt = -F on the tool, every step. The tolerance is float
 * rounding: 1e-3 of |F|, plus PBF's: its velocities are differences of
 * positions near 0.15 m (ulp u = 1.5e-8 m) over dt after one rounding an
 * iteration, m 4 u / dt^2 of force a particle, sqrt(N) of it over the
 * blob's N = 2744 (3 mN at dt = 1 ms). The explicit solvers take 0.5 ms
 * steps (standard SPH's stiffness breaks the blob up at 1 ms). */
static void newton(const char *solver, double dt)
{
    tool_run r;
    ENSURE(run_start(&r, tool_blob, solver, "cpu", NULL, 0) == 0);
    const double m = r.world.mass;
    const double floor = sqrt((double)r.world.fluid.count) * m * 4.0 * 1.5e-8 / (dt * dt);
    double worst = 0.0, fmax_seen = 0.0;
    int ok = 1;
    for (int k = 0; k < 40 && ok; k++) {
        double p0[3], p1[3];
        fl_tool_report rep;
        momentum(&r.world.fluid, m, p0);
        ok = run_step(&r, dt, &rep) == 0;
        momentum(&r.world.fluid, m, p1);
        double fn = sqrt(rep.f_total[0] * rep.f_total[0] + rep.f_total[1] * rep.f_total[1] + rep.f_total[2] * rep.f_total[2]);
        fmax_seen = fmax(fmax_seen, fn);
        for (int a = 0; a < 3; a++) {
            double miss = fabs((p1[a] - p0[a]) / dt + rep.f_total[a]);
            worst = fmax(worst, miss / (1e-3 * fn + floor));
        }
    }
    ENSURE(ok);
    printf("newton %s: largest force on the tool %.4g N, worst momentum miss %.3g of the tolerance\n", solver,
           fmax_seen, worst);
    ENSURE(fmax_seen > 0.05); /* the sphere did push the water */
    ENSURE(worst <= 1.0);
    run_end(&r);
}

/* ---- Archimedes ------------------------------------------------------------- */

/* The tank above (0.2 m a side, water 0.16 m deep, d = 0.01 m, or
 * spacing), the sphere of R = 0.04 m held at its middle, 0.04 m under the
 * surface: after settling for t_settle, the force averaged over the next
 * 0.2 s. */
static void archimedes(const char *solver, double dt, double t_settle, const char *spacing)
{
    tool_run r;
    const char *sets[1] = {spacing};
    ENSURE(run_start(&r, tank, solver, "cpu", sets, spacing ? 1 : 0) == 0);
    const double buoyancy = r.world.rho0 * 9.81 * 4.0 / 3.0 * PI * 0.04 * 0.04 * 0.04;
    const long long settle = (long long)(t_settle / dt + 0.5), average = (long long)(0.2 / dt + 0.5);
    double f[3] = {0, 0, 0};
    int ok = 1;
    for (long long k = 0; k < settle + average && ok; k++) {
        fl_tool_report rep;
        ok = run_step(&r, dt, &rep) == 0;
        for (int a = 0; a < 3 && k >= settle; a++)
            f[a] += rep.f_total[a] / (double)average;
    }
    ENSURE(ok);
    printf("archimedes %s: force (%.4f, %.4f, %.4f) N, rho0 g V = %.4f N: vertical %+.2f %%, horizontal %.2f %%\n",
           solver, f[0], f[1], f[2], buoyancy, 100.0 * (f[1] / buoyancy - 1.0),
           100.0 * sqrt(f[0] * f[0] + f[2] * f[2]) / buoyancy);
    ENSURE_NEAR(f[1], buoyancy, 0.05 * buoyancy);
    ENSURE(fabs(f[0]) < 0.01 * buoyancy && fabs(f[2]) < 0.01 * buoyancy);
    run_end(&r);
}

/* ---- drag --------------------------------------------------------------------- */

/* The sphere held at x = 0.06 m in the tank for 0.3 s, then moved to
 * x = 0.14 m at speed v: the mean force along x over the middle half of
 * the motion. */
static double drag(const char *solver, double dt, double v)
{
    char path[400];
    const double t1 = 0.3 + 0.08 / v;
    snprintf(path, sizeof path, "tool.path=[{\"t\": 0, \"position\": [0.06, 0.08, 0.1]}, {\"t\": 0.3, \"position\": "
             "[0.06, 0.08, 0.1]}, {\"t\": %.6f, \"position\": [0.14, 0.08, 0.1]}]", t1);
    const char *sets[] = {path};
    tool_run r;
    double fx = 0.0;
    int n = 0, ok = run_start(&r, tank_path, solver, "cpu", sets, 1) == 0;
    for (long long k = 0; ok && r.world.time < t1 - 1e-9; k++) {
        fl_tool_report rep;
        double t = r.world.time;
        ok = run_step(&r, dt, &rep) == 0;
        if (t >= 0.3 + 0.25 * (t1 - 0.3) && t < 0.3 + 0.75 * (t1 - 0.3))
            fx += rep.f_total[0], n++;
    }
    ENSURE(ok && n > 0);
    run_end(&r);
    fx /= n > 0 ? n : 1;
    printf("drag %s: at %.2f m/s, F_x = %.4f N\n", solver, v, fx);
    return fx;
}

/* ---- floating ------------------------------------------------------------------ */

/* A free sphere of R = 0.04 m and density rho, released at rest with its
 * centre at the water's surface (0.16 m) in the tank (0.3 m tall): its
 * centre's height averaged over the last 0.3 s before t_end, and the free surface's height (the mean height of the water's
 * top layer, the particles within d/2 of the highest, away from the
 * sphere, plus d/2). */
static void float_run(const char *solver, double dt, double rho, double t_end, double *centre, double *surface)
{
    char density[64];
    snprintf(density, sizeof density, "tool.density=%g", rho);
    const char *sets[] = {"tool.motion=\"dynamic\"", density, "tool.position=[0.1, 0.16, 0.1]",
                          "domain.max=[0.2, 0.3, 0.2]"};
    tool_run r;
    int ok = run_start(&r, tank, solver, "cpu", sets, 4) == 0;
    double sum_c = 0.0;
    int n_c = 0;
    while (ok && r.world.time < t_end - 1e-9) {
        fl_tool_report rep;
        ok = run_step(&r, dt, &rep) == 0;
        if (r.world.time > t_end - 0.3)
            sum_c += r.tool.pos[1], n_c++;
    }
    ENSURE(ok);
    *centre = n_c ? sum_c / n_c : r.tool.pos[1];
    const fl_particles *f = &r.world.fluid;
    double top = 0.0, sum = 0.0;
    int n = 0;
    for (int i = 0; i < f->count; i++)
        top = fmax(top, f->y[i]);
    for (int i = 0; i < f->count; i++) {
        double dx = f->x[i] - r.tool.pos[0], dz = f->z[i] - r.tool.pos[2];
        if (f->y[i] > top - 0.005 && sqrt(dx * dx + dz * dz) > 0.06)
            sum += f->y[i], n++;
    }
    *surface = (n ? sum / n : 0.0) + 0.005;
    run_end(&r);
}

static void floating(const char *solver, double dt)
{
    double c, surface;
    float_run(solver, dt, 500.0, 1.5, &c, &surface);
    const double depth = surface - (c - 0.04); /* of its bottom */
    printf("float %s: density 500: centre %.4f m, surface %.4f m, bottom %.4f m under it (R = 0.04)\n", solver, c,
           surface, depth);
    ENSURE_NEAR(depth, 0.04, 0.1 * 0.04);
    float_run(solver, dt, 2000.0, 1.0, &c, &surface);
    printf("float %s: density 2000: centre %.4f m after 1 s\n", solver, c);
    ENSURE(c < 0.04 + 0.02); /* on the floor: centre within half a radius of R */
}

/* ---- adhesion ------------------------------------------------------------------ */

/* The sphere held at the tank's middle (submerged) for 0.2 s, lifted at
 * 0.25 m/s until its bottom is 0.08 m above the surface, held there 0.5 s:
 * the water particles above the surface (centre higher than 0.2 m, two
 * spacings above it) at the end. */
static int carried(const char *solver, double dt, const char *adhesion)
{
    const char *sets[] = {"domain.max=[0.2, 0.36, 0.2]",
                          "tool.path=[{\"t\": 0, \"position\": [0.1, 0.08, 0.1]}, {\"t\": 0.2, \"position\": "
                          "[0.1, 0.08, 0.1]}, {\"t\": 1.0, \"position\": [0.1, 0.28, 0.1]}]",
                          adhesion};
    tool_run r;
    int ok = run_start(&r, tank_path, solver, "cpu", sets, 3) == 0, above = 0;
    while (ok && r.world.time < 1.5 - 1e-9) {
        fl_tool_report rep;
        ok = run_step(&r, dt, &rep) == 0;
    }
    ENSURE(ok);
    for (int i = 0; i < r.world.fluid.count; i++)
        above += r.world.fluid.y[i] > 0.2;
    run_end(&r);
    printf("adhesion %s (%s): %d particles above the surface 0.5 s after the lift\n", solver, adhesion, above);
    return above;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "unit";
    if (strcmp(mode, "unit") == 0) {
        kernel_shape();
        sampling();
        bad_input();
    } else if (strcmp(mode, "newton") == 0) {
        newton("sph", 0.0005);
        newton("wcsph", 0.0005);
        newton("pcisph", 0.001);
        newton("pbf", 0.001);
    } else if (strcmp(mode, "archimedes") == 0 && argc > 2) {
        const char *solver = argv[2];
        if (strcmp(solver, "sph") == 0)
            archimedes("sph", 0.0005, 0.6, NULL);
        else if (strcmp(solver, "wcsph") == 0)
            archimedes("wcsph", 0.0002, 0.6, NULL);
        else if (strcmp(solver, "pcisph") == 0)
            archimedes("pcisph", 0.001, 0.6, NULL);
        else if (strcmp(solver, "pbf") == 0) /* 51 000 particles */
            archimedes("pbf", 0.001, 0.6, "fluid.spacing=0.005");
        else
            archimedes(solver, 0.001, 0.6, NULL);
    } else if (strcmp(mode, "drag") == 0) {
        double slow = drag("pcisph", 0.001, 0.1), fast = drag("pcisph", 0.001, 0.2);
        ENSURE(slow < 0.0);
        ENSURE(fast < slow);
    } else if (strcmp(mode, "float") == 0) {
        floating(argc > 2 ? argv[2] : "pcisph", argc > 3 ? atof(argv[3]) : 0.001);
    } else if (strcmp(mode, "adhesion") == 0) {
        const char *solver = argc > 2 ? argv[2] : "pcisph";
        ENSURE(carried(solver, 0.001, "tool.adhesion={\"k\": 30000}") >= 10);
        ENSURE(carried(solver, 0.001, "tool.adhesion={\"enabled\": false, \"k\": 30000}") == 0);
    } else {
        fprintf(stderr, "test_tool: unknown mode %s\n", mode);
        return 1;
    }
    return fl_test_report("test_tool");
}
