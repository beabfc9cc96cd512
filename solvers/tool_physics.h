/* tool_physics.h: the rigid tool's geometry and the forces between it and
 * the fluid that are not the solvers' own boundary terms (Wang, Yu, Liang &
 * Guo 2018, "Real-time interaction simulation with position-based fluid",
 * section 2.2): the adhesion kernel and force (eqs. 12-13) and the damping
 * (eq. 14). Written once as static inline FL_HD functions, for the tool
 * module's loops (solvers/tool.c) and any device kernel.
 * docs/methods/tool.md maps the paper's symbols to these. */
#ifndef FL_TOOL_PHYSICS_H
#define FL_TOOL_PHYSICS_H

#include <limits.h>
#include <math.h>

#include "world.h"

/* Eq. 13 with epsilon = 3, zeta = 2: W_adh(s) = C_d ((s_a/Q)^3 - (s_a/Q)^2)
 * for a distance s from the surface in [A, B], s_a = s - A, Q = B - A;
 * 0 outside. Negative inside the band (attraction), -4/27 C_d at its
 * deepest, s_a/Q = 2/3. */
static inline FL_HD float fl_tool_adhesion_kernel(float s, float a, float b, float cd)
{
    if (!(s >= a && s <= b) || !(b > a))
        return 0.0f;
    float x = (s - a) / (b - a);
    return cd * (x * x * x - x * x);
}

/* The tool's first boundary index, or INT_MAX without a tool: boundary
 * neighbor j is one of the tool's when j >= it. */
static inline FL_HD int fl_tool_first(const fl_tool_link *l)
{
    return l->active ? l->first : INT_MAX;
}

/* A particle solver's report: the tool's boundary terms gave fluid
 * particle i (mass m) the acceleration a; the force m a goes into the
 * link (the tool feels its opposite). */
static inline FL_HD void fl_tool_store(const fl_tool_link *l, int i, float m, const float a[3])
{
    if (l->fx)
        l->fx[i] = m * a[0], l->fy[i] = m * a[1], l->fz[i] = m * a[2];
}

/* The point p = (x, y, z) in the tool's own frame: rot^T (p - c). */
static inline FL_HD void fl_tool_to_own(const fl_tool_pose *p, float x, float y, float z, float q[3])
{
    float d[3] = {x - p->c[0], y - p->c[1], z - p->c[2]};
    for (int a = 0; a < 3; a++)
        q[a] = p->rot[a] * d[0] + p->rot[3 + a] * d[1] + p->rot[6 + a] * d[2];
}

/* A mesh tool's signed distance at q (own frame, m): the grid's values
 * interpolated trilinearly, and the normalised gradient of that
 * interpolation into m (the outward normal; +y where it vanishes, deep
 * inside or far outside, where the values are clamped). A point past the
 * grid takes the value at the nearest point of the grid's box plus its
 * distance from that box. */
static inline FL_HD float fl_tool_sdf_sample(const fl_tool_sdf *g, const float q[3], float m[3])
{
    int i[3];
    float f[3], out2 = 0.0f;
    for (int a = 0; a < 3; a++) {
        float u = (q[a] - g->lo[a]) / g->dx, top = (float)(g->n[a] - 1);
        float c = u > 0.0f ? (u < top ? u : top) : 0.0f; /* a NaN point reads node 0, and gets NaN below */
        out2 += (u - c) * (u - c);
        i[a] = (int)c < g->n[a] - 2 ? (int)c : g->n[a] - 2;
        f[a] = c - (float)i[a];
    }
    const long sy = g->n[0], sz = (long)g->n[0] * g->n[1];
    const float *d = g->d + i[0] + sy * i[1] + sz * i[2];
    const float d000 = d[0], d100 = d[1], d010 = d[sy], d110 = d[sy + 1];
    const float d001 = d[sz], d101 = d[sz + 1], d011 = d[sz + sy], d111 = d[sz + sy + 1];
    const float c00 = d000 + f[0] * (d100 - d000), c10 = d010 + f[0] * (d110 - d010);
    const float c01 = d001 + f[0] * (d101 - d001), c11 = d011 + f[0] * (d111 - d011);
    const float c0 = c00 + f[1] * (c10 - c00), c1 = c01 + f[1] * (c11 - c01);
    const float gx0 = (d100 - d000) + f[1] * ((d110 - d010) - (d100 - d000));
    const float gx1 = (d101 - d001) + f[1] * ((d111 - d011) - (d101 - d001));
    float gr[3] = {gx0 + f[2] * (gx1 - gx0), (c10 - c00) + f[2] * ((c11 - c01) - (c10 - c00)), c1 - c0};
    const float len = sqrtf(gr[0] * gr[0] + gr[1] * gr[1] + gr[2] * gr[2]);
    for (int a = 0; a < 3; a++)
        m[a] = len > 0.0f ? gr[a] / len : (a == 1 ? 1.0f : 0.0f);
    return c0 + f[2] * (c1 - c0) + g->dx * sqrtf(out2);
}

/* Signed distance, m, from the tool's surface to (x, y, z) (negative
 * inside), and the outward unit normal of the nearest surface point into n
 * (a mesh's: fl_tool_sdf_sample's, exact to the grid's interpolation
 * within its band, tool.c). */
static inline FL_HD float fl_tool_distance(const fl_tool_shape *s, const fl_tool_pose *p, float x, float y, float z,
                                           float n[3])
{
    float q[3];
    fl_tool_to_own(p, x, y, z, q);
    float m[3] = {0.0f, 0.0f, 0.0f}, dist;
    if (s->kind == FL_TOOL_MESH) {
        dist = fl_tool_sdf_sample(&s->sdf, q, m);
    } else if (s->kind == FL_TOOL_SPHERE) {
        float r = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
        if (r > 0.0f)
            m[0] = q[0] / r, m[1] = q[1] / r, m[2] = q[2] / r;
        else
            m[1] = 1.0f;
        dist = r - s->radius;
    } else {
        float e[3], out2 = 0.0f, inside = -INFINITY;
        int axis = 0;
        for (int a = 0; a < 3; a++) {
            e[a] = fabsf(q[a]) - s->half[a];
            out2 += e[a] > 0.0f ? e[a] * e[a] : 0.0f;
            if (e[a] > inside)
                inside = e[a], axis = a;
        }
        if (out2 > 0.0f) {
            dist = sqrtf(out2);
            for (int a = 0; a < 3; a++)
                m[a] = e[a] > 0.0f ? copysignf(e[a], q[a]) / dist : 0.0f;
        } else {
            dist = inside;
            m[axis] = copysignf(1.0f, q[axis]);
        }
    }
    for (int a = 0; a < 3; a++)
        n[a] = p->rot[3 * a] * m[0] + p->rot[3 * a + 1] * m[1] + p->rot[3 * a + 2] * m[2];
    return dist;
}

/* The velocity of the tool's material at (x, y, z): v + omega x (p - c). */
static inline FL_HD void fl_tool_point_velocity(const fl_tool_pose *p, float x, float y, float z, float u[3])
{
    float d[3] = {x - p->c[0], y - p->c[1], z - p->c[2]};
    u[0] = p->v[0] + p->omega[1] * d[2] - p->omega[2] * d[1];
    u[1] = p->v[1] + p->omega[2] * d[0] - p->omega[0] * d[2];
    u[2] = p->v[2] + p->omega[0] * d[1] - p->omega[1] * d[0];
}

/* A particle of the tool at o in its own frame: where the pose puts it,
 * c + rot o, and the material velocity there. */
static inline FL_HD void fl_tool_place(const fl_tool_pose *p, const float o[3], float x[3], float u[3])
{
    for (int a = 0; a < 3; a++)
        x[a] = p->c[a] + p->rot[3 * a] * o[0] + p->rot[3 * a + 1] * o[1] + p->rot[3 * a + 2] * o[2];
    fl_tool_point_velocity(p, x[0], x[1], x[2], u);
}

/* The moment about c of the force f acting at (x, y, z): (p - c) x f, in
 * double (a sum over many particles follows). */
static inline FL_HD void fl_tool_moment(const double c[3], float x, float y, float z, const float f[3], double q[3])
{
    const double rx = x - c[0], ry = y - c[1], rz = z - c[2];
    q[0] = ry * f[2] - rz * f[1], q[1] = rz * f[0] - rx * f[2], q[2] = rx * f[1] - ry * f[0];
}

/* Eq. 12 for one fluid particle j at distance s from the surface, normal n
 * there, volume m_j / rho_j: the force on the tool is
 * (K_i + K_j)/2 (m_j/rho_j) W_adh(s) times the unit vector from the tool
 * towards j's nearest surface point, -n (the paper's r_j = p - p_j); the
 * particle feels the opposite, k V_j W_adh(s) n, which is what this returns
 * (N), pulling it towards the tool where W_adh < 0. */
static inline FL_HD void fl_tool_adhesion(const fl_tool_forces *c, float s, const float n[3], float volume_j,
                                          float f[3])
{
    float w = c->adh_k * volume_j * fl_tool_adhesion_kernel(s, c->adh_a, c->adh_b, c->adh_cd);
    f[0] = w * n[0], f[1] = w * n[1], f[2] = w * n[2];
}

/* Eq. 14 for one particle j in contact (mass m, velocity v_j, the tool's
 * material velocity u there): the paper's k_Damp (v_0 - v_j), the force
 * the tool puts on the particle, N (the tool feels the opposite). Taken
 * implicitly over the step, m dv/dt = k (u - v) solved backward:
 * dv = (u - v) k dt / (m + k dt), force m dv / dt, which is k (u - v) for
 * k dt << m and never overshoots u for any k dt. */
static inline FL_HD void fl_tool_damping(const fl_tool_forces *c, float m, float dt, const float u[3],
                                         const float v[3], float f[3])
{
    float s = c->damp_k * m / (m + c->damp_k * dt);
    f[0] = s * (u[0] - v[0]), f[1] = s * (u[1] - v[1]), f[2] = s * (u[2] - v[2]);
}

/* The adhesion and damping a fluid particle at (x, y, z) gets in a step of
 * dt (tool link l, particle mass m, its density rho from the last step,
 * rho0 before one has measured it): the forces on it into fa (eqs. 12-13)
 * and fd (eq. 14), N, zero where off, and the impulse dt (fa + fd) / m
 * added to its velocity v. Returns -1 beyond the reach of both (nothing
 * given, fa and fd zero), 1 in contact (within forces.contact of the
 * surface), else 0. */
static inline FL_HD int fl_tool_impulse(const fl_tool_link *l, float m, float rho0, float dt, float x, float y,
                                        float z, float rho, float v[3], float fa[3], float fd[3])
{
    const fl_tool_forces *c = &l->forces;
    const float reach = fmaxf(c->contact, c->adh_k > 0.0f ? c->adh_b : 0.0f);
    float n[3];
    for (int a = 0; a < 3; a++)
        fa[a] = fd[a] = 0.0f;
    /* beyond the bounding sphere grown by the reach (and a little, against
     * rounding) the surface is out of reach: no distance to compute */
    const float ex = x - l->pose.c[0], ey = y - l->pose.c[1], ez = z - l->pose.c[2];
    const float far = 1.001f * (l->shape.bound + reach) + 1e-6f;
    if (ex * ex + ey * ey + ez * ez > far * far)
        return -1;
    float s = fl_tool_distance(&l->shape, &l->pose, x, y, z, n);
    if (!(s < reach))
        return -1;
    if (c->adh_k > 0.0f) /* m_j / rho_j */
        fl_tool_adhesion(c, s, n, m / (rho > 0.0f ? rho : rho0), fa);
    const int contact = s < c->contact;
    if (contact && c->damp_k > 0.0f) {
        float u[3];
        fl_tool_point_velocity(&l->pose, x, y, z, u);
        fl_tool_damping(c, m, dt, u, v, fd);
    }
    for (int a = 0; a < 3; a++)
        v[a] += dt * (fa[a] + fd[a]) / m;
    return contact;
}

#endif
