/* test_device_tool.c: the rigid tool on the device backend (solvers/dev.h,
 * docs/methods/tool.md, section 7) against the CPU solvers:
 * `test_device_tool DEVICE MODE [SOLVER]`, DEVICE emu (the GPU kernels'
 * bodies on the host: every commit) or cuda (skipped, exit 77, without a
 * usable device).
 *
 *   parity SOLVER  a sphere moved at 0.2 m/s through a small tank (then a
 *                  turning box, then a turning mesh: the bunny), with
 *                  adhesion and damping on, 40 steps on the CPU and on the
 *                  device from the same start: the pressure force, the
 *                  adhesion, the damping and the torque on the tool agree
 *                  step by step within 1e-3 of the largest of each (PBF:
 *                  2e-2), and the contacts. The device sums the same terms
 *                  in another order (the walls, then the tool; the fluid as
 *                  sorted every step): rounding of 1e-7 a sum, grown by the
 *                  start's transient to about 1e-5 (measured). PBF is
 *                  chaotic in rounding: the CPU alone, its store only
 *                  re-sorted every step, moves the force by 3e-4 of its
 *                  largest after 40 steps and 3 % after 100; the device
 *                  misses by 2e-3 to 5e-3 at 40
 *   newton         every solver: the pressure force the device reports is
 *                  minus the sum of the per-particle tool forces it stored
 *                  (read back from the device), and the torque the same,
 *                  to double rounding; and the fluid's momentum changes
 *                  over each step by minus the impulse on the tool (a blob
 *                  without gravity or walls, as test_tool newton)
 *   dynamic        a free sphere of half the water's density dropped into
 *                  the tank: its height and vertical velocity on the
 *                  device follow the CPU's within 1e-2 of its fall and of
 *                  its largest speed (PCISPH 150 steps; PBF 40, before its
 *                  chaos grows: docs/methods/tool.md, section 7) */
#include <stdlib.h>
#include <string.h>

#include "dev.h"
#include "ensure.h"
#include "harness.h"
#include "tool.h"
#include "tool_run.h"

static double norm3(const double a[3])
{
    return sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
}

static double dist3(const double a[3], const double b[3])
{
    const double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
    return norm3(d);
}

/* ---- parity ------------------------------------------------------------------ */

/* A tank 0.2 m a side, water 0.12 m deep (d = 0.01 m, 4 000 particles), a
 * sphere of R = 0.04 m at half depth moved along x at 0.2 m/s, with
 * adhesion and damping, and WCSPH's boundary friction (on the velocity
 * relative to the tool's). */
static const char *const tank =
    "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
    " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.12, 0.2]}]},"
    " \"time\": {\"duration\": 1, \"dt\": 0.001},"
    " \"tool\": {\"shape\": \"sphere\", \"radius\": 0.04, \"path\": [{\"t\": 0, \"position\": [0.08, 0.06, 0.1]},"
    " {\"t\": 0.2, \"position\": [0.12, 0.06, 0.1]}], \"adhesion\": {\"k\": 20000}, \"damping\": {\"k\": 0.05}},"
    " \"solvers\": {\"wcsph\": {\"boundary_friction\": 1}}}";

/* The same tank with a box (0.1 x 0.04 x 0.06 m) turning as it moves, 24
 * degrees about y and 8 about z over the 40 steps: the device walks the
 * tool's particles on a grid in the tool's own frame (dev.h), which this
 * turns against the world's. */
static const char *const tank_box =
    "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
    " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.12, 0.2]}]},"
    " \"time\": {\"duration\": 1, \"dt\": 0.001},"
    " \"tool\": {\"shape\": \"box\", \"size\": [0.1, 0.04, 0.06], \"path\": [{\"t\": 0, \"position\": [0.08, 0.06, 0.1],"
    " \"rotation\": [0, 0, 0]}, {\"t\": 0.2, \"position\": [0.12, 0.06, 0.1], \"rotation\": [0, 120, 40]}],"
    " \"adhesion\": {\"k\": 20000}, \"damping\": {\"k\": 0.05}},"
    " \"solvers\": {\"wcsph\": {\"boundary_friction\": 1}}}";

/* The largest difference between the device's and the CPU's force of one
 * kind over the steps, and the largest CPU force of that kind. */
typedef struct miss {
    double worst, scale;
} miss;

static void miss_add(miss *m, const double cpu[3], const double dev[3])
{
    m->worst = fmax(m->worst, dist3(cpu, dev));
    m->scale = fmax(m->scale, norm3(cpu));
}

static double miss_rel(const miss *m, double scale)
{
    return scale > 0.0 ? m->worst / scale : INFINITY;
}

static void parity_in(const char *scene, const char *what, const char *device, const char *solver, double dt,
                      double tol, int steps)
{
    tool_run cpu, dev;
    int ok = run_start(&cpu, scene, solver, "cpu", NULL, 0) == 0;
    ok = run_start(&dev, scene, solver, device, NULL, 0) == 0 && ok;
    miss pressure = {0, 0}, adhesion = {0, 0}, damping = {0, 0}, torque = {0, 0};
    int contacts_cpu = 0, contacts_dev = 0;
    for (int k = 0; k < steps && ok; k++) {
        fl_tool_report a, b;
        ok = run_step(&cpu, dt, &a) == 0 && run_step(&dev, dt, &b) == 0;
        miss_add(&pressure, a.f_pressure, b.f_pressure);
        miss_add(&adhesion, a.f_adhesion, b.f_adhesion);
        miss_add(&damping, a.f_damping, b.f_damping);
        miss_add(&torque, a.torque, b.torque);
        contacts_cpu += a.contacts, contacts_dev += b.contacts;
    }
    ENSURE(ok);
    /* each force against the largest of its kind; the torque, small for a
     * sphere (the pressure acts along its normals), against the largest
     * pressure force at the sphere's radius */
    const double torque_scale = pressure.scale * 0.04;
    printf("parity %s on %s, %s: largest force on the tool (cpu) pressure %.4g N, adhesion %.4g N, damping %.4g N, "
           "torque %.4g N m; largest miss relative to it: %.2g, %.2g, %.2g, torque %.2g of %.4g N m (tolerance "
           "%.2g); contacts over the steps %d (cpu) %d (%s)\n",
           solver, device, what, pressure.scale, adhesion.scale, damping.scale, torque.scale,
           miss_rel(&pressure, pressure.scale), miss_rel(&adhesion, adhesion.scale), miss_rel(&damping, damping.scale),
           miss_rel(&torque, torque_scale), torque_scale, tol, contacts_cpu, contacts_dev, device);
    /* the terms are there: the comparison is not of zeros */
    ENSURE(pressure.scale > 0.1 && adhesion.scale > 0.01 && damping.scale > 0.1 && contacts_cpu > 1000);
    ENSURE(miss_rel(&pressure, pressure.scale) <= tol);
    ENSURE(miss_rel(&adhesion, adhesion.scale) <= tol);
    ENSURE(miss_rel(&damping, damping.scale) <= tol);
    ENSURE(miss_rel(&torque, torque_scale) <= tol);
    ENSURE(abs(contacts_cpu - contacts_dev) <= tol * contacts_cpu);
    run_end(&cpu);
    run_end(&dev);
}

/* The same tank with the Stanford bunny as the tool (reference/bunny.obj
 * x 0.008, 0.077 m tall), turning as the box does: the device reads the
 * mesh's signed-distance grid (the adhesion, the damping's contacts) from
 * its own copy. */
static void tank_bunny(char *buf, size_t len)
{
    snprintf(buf, len,
             "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
             " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.12, 0.2]}]},"
             " \"time\": {\"duration\": 1, \"dt\": 0.001},"
             " \"tool\": {\"shape\": \"mesh\", \"mesh\": \"%s/reference/bunny.obj\", \"scale\": 0.008,"
             " \"path\": [{\"t\": 0, \"position\": [0.08, 0.06, 0.1], \"rotation\": [0, 0, 0]}, {\"t\": 0.2,"
             " \"position\": [0.12, 0.06, 0.1], \"rotation\": [0, 120, 40]}],"
             " \"adhesion\": {\"k\": 20000}, \"damping\": {\"k\": 0.05}},"
             " \"solvers\": {\"wcsph\": {\"boundary_friction\": 1}}}",
             FL_SOURCE_DIR);
}

static void parity(const char *device, const char *solver, double dt, double tol)
{
    char bunny[1024];
    tank_bunny(bunny, sizeof bunny);
    parity_in(tank, "moving sphere", device, solver, dt, tol, 40);
    parity_in(tank_box, "turning box", device, solver, dt, tol, 40);
    parity_in(bunny, "turning bunny", device, solver, dt, tol, 20);
}

/* ---- Newton's third law -------------------------------------------------------- */

static void momentum(const fl_particles *f, double m, double p[3])
{
    p[0] = p[1] = p[2] = 0.0;
    for (int i = 0; i < f->count; i++)
        p[0] += m * f->vx[i], p[1] += m * f->vy[i], p[2] += m * f->vz[i];
}

/* The device's per-slot tool forces and positions read back: minus their
 * sum and torque about the pose's centre, in double, into f and tau. */
static int stored_reaction(tool_run *r, double f[3], double tau[3])
{
    const fl_dev_view *v = fl_dev_solver_view(r->solver);
    const int n = v->n;
    const fl_tool_link *l = &v->tool.link;
    const float *src[6] = {l->fx, l->fy, l->fz, v->x, v->y, v->z};
    float *host[6];
    fl_error err;
    int rc = FL_OK;
    for (int a = 0; a < 6; a++) {
        host[a] = malloc(sizeof(float) * (size_t)n);
        rc = rc || !host[a] ? FL_ERR_MEMORY : fl_dev_solver_read(r->solver, host[a], src[a], sizeof(float) * (size_t)n, &err);
    }
    const double c[3] = {r->world.tool.pose.c[0], r->world.tool.pose.c[1], r->world.tool.pose.c[2]};
    for (int a = 0; a < 3; a++)
        f[a] = tau[a] = 0.0;
    for (int i = 0; i < n && rc == FL_OK; i++) {
        const double g[3] = {host[0][i], host[1][i], host[2][i]};
        const double x[3] = {host[3][i] - c[0], host[4][i] - c[1], host[5][i] - c[2]};
        for (int a = 0; a < 3; a++)
            f[a] -= g[a];
        tau[0] -= x[1] * g[2] - x[2] * g[1], tau[1] -= x[2] * g[0] - x[0] * g[2], tau[2] -= x[0] * g[1] - x[1] * g[0];
    }
    for (int a = 0; a < 6; a++)
        free(host[a]);
    return rc;
}

static void newton(const char *device, const char *solver, double dt)
{
    tool_run r;
    fl_error err;
    int ok = run_start(&r, tool_blob, solver, device, NULL, 0) == 0;
    const double m = r.world.mass;
    /* the momentum's tolerance, as test_tool newton's: 1e-3 of |F| and
     * PBF's position rounding, m 4 ulp / dt^2 a particle, sqrt(N) of it */
    const double floor = sqrt((double)r.world.fluid.count) * m * 4.0 * 1.5e-8 / (dt * dt);
    double worst_sum = 0.0, worst_momentum = 0.0, fmax_seen = 0.0;
    ok = ok && r.ops->download(r.solver, &r.world, NULL, &err) == FL_OK;
    for (int k = 0; k < 40 && ok; k++) {
        double p0[3], p1[3], f[3] = {0, 0, 0}, tau[3] = {0, 0, 0};
        fl_tool_report rep;
        momentum(&r.world.fluid, m, p0);
        ok = run_step(&r, dt, &rep) == 0 && r.ops->download(r.solver, &r.world, NULL, &err) == FL_OK &&
             stored_reaction(&r, f, tau) == FL_OK;
        momentum(&r.world.fluid, m, p1);
        const double fn = norm3(rep.f_total), pn = norm3(f);
        fmax_seen = fmax(fmax_seen, fn);
        /* the sum the device reduced against the host's sum of what it stored */
        if (pn > 0.0) {
            worst_sum = fmax(worst_sum, dist3(f, rep.f_pressure) / pn);
            worst_sum = fmax(worst_sum, dist3(tau, r.world.tool.grid_torque) / fmax(norm3(tau), 1e-300));
        }
        for (int a = 0; a < 3; a++) {
            double miss = fabs((p1[a] - p0[a]) / dt + rep.f_total[a]);
            worst_momentum = fmax(worst_momentum, miss / (1e-3 * fn + floor));
        }
    }
    ENSURE(ok);
    printf("newton %s on %s: largest force on the tool %.4g N; reported against stored per-particle forces: worst "
           "relative miss %.2g (tolerance 1e-9); momentum: worst miss %.3g of the tolerance\n",
           solver, device, fmax_seen, worst_sum, worst_momentum);
    ENSURE(fmax_seen > 0.05); /* the sphere did push the water */
    ENSURE(worst_sum <= 1e-9);
    ENSURE(worst_momentum <= 1.0);
    run_end(&r);
}

/* ---- a dynamic tool ---------------------------------------------------------- */

/* The tank, 0.3 m tall, and a free sphere of R = 0.04 m and half the
 * water's density released at rest with its centre 0.01 m above the
 * surface (tool_drop's, smaller). */
static const char *const drop =
    "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.3, 0.2]},"
    " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.12, 0.2]}]},"
    " \"time\": {\"duration\": 1, \"dt\": 0.001},"
    " \"tool\": {\"shape\": \"sphere\", \"radius\": 0.04, \"position\": [0.1, 0.13, 0.1], \"motion\": \"dynamic\","
    " \"density\": 500}}";

/* The drop, steps of 1 ms: the sphere's height and vertical velocity on
 * the CPU and on the device. */
static void dynamic(const char *device, const char *solver, int steps, double tol)
{
    tool_run cpu, dev;
    int ok = run_start(&cpu, drop, solver, "cpu", NULL, 0) == 0;
    ok = run_start(&dev, drop, solver, device, NULL, 0) == 0 && ok;
    double worst_y = 0.0, worst_v = 0.0, drop = 0.0, vmax = 0.0;
    for (int k = 0; k < steps && ok; k++) {
        fl_tool_report a, b;
        ok = run_step(&cpu, 0.001, &a) == 0 && run_step(&dev, 0.001, &b) == 0;
        worst_y = fmax(worst_y, fabs(cpu.tool.pos[1] - dev.tool.pos[1]));
        worst_v = fmax(worst_v, fabs(cpu.tool.vel[1] - dev.tool.vel[1]));
        drop = fmax(drop, 0.13 - cpu.tool.pos[1]);
        vmax = fmax(vmax, fabs(cpu.tool.vel[1]));
    }
    ENSURE(ok);
    printf("dynamic %s on %s, %d steps: the centre fell at most %.4f m (cpu), at most %.3f m/s; largest miss: "
           "height %.2g of the fall, velocity %.2g of its largest (tolerance %.2g)\n",
           solver, device, steps, drop, vmax, worst_y / drop, worst_v / vmax, tol);
    ENSURE(drop > 0.005 && vmax > 0.1); /* it did fall, and the water did stop it */
    ENSURE(worst_y <= tol * drop);
    ENSURE(worst_v <= tol * vmax);
    run_end(&cpu);
    run_end(&dev);
}

int main(int argc, char **argv)
{
    const char *device = argc > 1 ? argv[1] : "emu", *mode = argc > 2 ? argv[2] : "newton";
    fl_error err;
    if (!fl_solver_on("sph", device, &err)) {
        printf("test_device_tool %s: skipped: %s\n", device, err.msg);
        return 77;
    }
    if (strcmp(mode, "parity") == 0 && argc > 3) {
        const char *solver = argv[3];
        const int explicit_step = strcmp(solver, "sph") == 0 || strcmp(solver, "wcsph") == 0;
        parity(device, solver, explicit_step ? 0.0005 : 0.001, strcmp(solver, "pbf") == 0 ? 0.02 : 1e-3);
    } else if (strcmp(mode, "newton") == 0) {
        newton(device, "sph", 0.0005);
        newton(device, "wcsph", 0.0005);
        newton(device, "pcisph", 0.001);
        newton(device, "pbf", 0.001);
    } else if (strcmp(mode, "dynamic") == 0) {
        dynamic(device, "pcisph", 150, 1e-2);
        dynamic(device, "pbf", 40, 1e-2);
    } else {
        fprintf(stderr, "test_device_tool: unknown mode %s\n", mode);
        return 1;
    }
    return fl_test_report("test_device_tool");
}
