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
 *                         after leaving it with adhesion off
 *   test_tool archimedes_mesh SOLVER [SPACING]
 *                         a mesh tool, the Stanford bunny, held under
 *                         water: rho0 g V within 5 %, the horizontal
 *                         force below 2 % of it (d = 0.005 m)
 *   `unit` also checks a mesh tool against the box tool of its shape
 *   (geometry, mass, inertia), a spinning mesh's angular momentum, the
 *   mesh tool's bad input, and the surface a run saves beside its frames
 *   for each shape. */
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "harness.h"
#include "kernels.h"
#include "mesh_sdf.h"
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

/* ---- a mesh tool ---------------------------------------------------------- */

#define BOX_OBJ "test_tool_box.obj"

/* An OBJ box of half extents half (m) centred at c, 12 outward triangles,
 * its vertices turned by rot (row-major) about c. */
static int write_box_obj(const char *path, const double half[3], const double c[3], const double rot[9])
{
    static const int faces[12][3] = {{1, 4, 3}, {1, 3, 2}, {5, 6, 7}, {5, 7, 8}, {1, 2, 6}, {1, 6, 5},
                                     {4, 8, 7}, {4, 7, 3}, {1, 5, 8}, {1, 8, 4}, {2, 3, 7}, {2, 7, 6}};
    static const int corner[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                     {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    for (int v = 0; v < 8; v++) {
        double q[3], x[3];
        for (int a = 0; a < 3; a++)
            q[a] = corner[v][a] * half[a];
        for (int a = 0; a < 3; a++)
            x[a] = c[a] + rot[3 * a] * q[0] + rot[3 * a + 1] * q[1] + rot[3 * a + 2] * q[2];
        fprintf(f, "v %.17g %.17g %.17g\n", x[0], x[1], x[2]);
    }
    for (int t = 0; t < 12; t++)
        fprintf(f, "f %d %d %d\n", faces[t][0], faces[t][1], faces[t][2]);
    return fclose(f) == 0;
}

static const double identity[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};

/* The tank with the tool given by shape (JSON members), its centre at the
 * tank's middle, turned (10, 20, 30) degrees, dynamic, 700 kg/m^3, with
 * adhesion (its band to h). */
static void tank_with(char *buf, size_t len, const char *shape)
{
    snprintf(buf, len,
             "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
             " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.16, 0.2]}]},"
             " \"time\": {\"duration\": 1, \"dt\": 0.001},"
             " \"tool\": {%s, \"position\": [0.1, 0.08, 0.1], \"rotation\": [10, 20, 30], \"motion\": \"dynamic\","
             " \"density\": 700, \"adhesion\": {\"k\": 1000}}}",
             shape);
}

/* A box 0.08 x 0.04 x 0.06 m as a mesh (written away from the origin, so
 * that the tool's frame must move it to its centroid) against the box
 * tool of that size at the same pose:
 *  - mass and inertia tensor equal (1e-6 relative: the box's sizes are
 *    floats);
 *  - the signed distance and normal at random points within the reach
 *    (the adhesion's B = h) of the surface: where the box's distance is
 *    linear over the 8 grid nodes
 *    around the point (one face nearest, by more than the nodes' spread),
 *    the grid's trilinear value is exact: 1e-6 m (float rounding of
 *    0.1 m coordinates) and the normal within 1e-4; across an edge or a
 *    corner it interpolates a crease, and misses by at most the nodes'
 *    spread from the point's value, sqrt(3) dx, of which a quarter is
 *    allowed (measured: printed); farther out (to 2 h) the clamped grid
 *    keeps every point out of reach, and every point inside inside;
 *  - its particles lie inside the box, at most FL_BOUNDARY_OFFSET d deep
 *    (1e-4 of it: the surface sampler moves them that far in along the
 *    face's normal, less near a face's rim; test_mesh_scene checks the
 *    sampler), so the frame puts the mesh where the box is; and no fluid
 *    particle is left within d/2 of it, less the interpolation's worst
 *    miss. */
static void mesh_box(void)
{
    const double half[3] = {0.04, 0.02, 0.03}, off[3] = {0.3, -0.2, 0.1};
    ENSURE(write_box_obj(BOX_OBJ, half, off, identity));
    char mesh_scene[1024], box_scene[1024];
    tank_with(mesh_scene, sizeof mesh_scene, "\"shape\": \"mesh\", \"mesh\": \"" BOX_OBJ "\"");
    tank_with(box_scene, sizeof box_scene, "\"shape\": \"box\", \"size\": [0.08, 0.04, 0.06]");
    tool_run m, b;
    ENSURE(run_start(&m, mesh_scene, "sph", "cpu", NULL, 0) == 0);
    ENSURE(run_start(&b, box_scene, "sph", "cpu", NULL, 0) == 0);
    ENSURE_NEAR(m.tool.mass, b.tool.mass, 1e-6 * b.tool.mass); /* the box's half sizes are floats */
    for (int k = 0; k < 9; k++)
        ENSURE_NEAR(m.tool.inertia[k], b.tool.inertia[k], 1e-6 * b.tool.inertia[0]);
    const fl_tool_link *lm = &m.world.tool, *lb = &b.world.tool;
    ENSURE(lm->shape.kind == FL_TOOL_MESH && lm->shape.sdf.d != NULL);
    const double dx = lm->shape.sdf.dx, h = m.world.h, d = m.world.spacing;
    const double reach = fmax(lm->forces.contact, lm->forces.adh_b); /* the adhesion's B = h */
    double worst_face = 0.0, worst_normal = 0.0, worst_edge = 0.0;
    int nface = 0, nedge = 0, far_wrong = 0;
    srand(7);
    for (int k = 0; k < 200000; k++) {
        float q[3], x[3], nm[3], nb[3];
        for (int a = 0; a < 3; a++)
            q[a] = (float)((2.0 * rand() / RAND_MAX - 1.0) * (half[a] + 2.0 * h));
        for (int a = 0; a < 3; a++)
            x[a] = lb->pose.c[a] + lb->pose.rot[3 * a] * q[0] + lb->pose.rot[3 * a + 1] * q[1] +
                   lb->pose.rot[3 * a + 2] * q[2];
        const float sb = fl_tool_distance(&lb->shape, &lb->pose, x[0], x[1], x[2], nb);
        const float sm = fl_tool_distance(&lm->shape, &lm->pose, x[0], x[1], x[2], nm);
        if (!(fabsf(sb) < reach)) { /* past the band: out of reach, or inside */
            far_wrong += sb > reach + sqrt(3.0) * dx ? !(sm > reach) : sb < -reach ? !(sm < 0.0f) : 0;
            continue;
        }
        double e[3], top = -1.0, second = -1.0;
        for (int a = 0; a < 3; a++)
            e[a] = fabs(q[a]) - half[a];
        for (int a = 0; a < 3; a++)
            if (e[a] > top)
                second = top, top = e[a];
            else if (e[a] > second)
                second = e[a];
        if (second < fmin(-1.8 * dx, top - 3.6 * dx)) { /* one face, over every node around */
            nface++;
            worst_face = fmax(worst_face, fabs(sm - sb));
            for (int a = 0; a < 3; a++)
                worst_normal = fmax(worst_normal, fabs(nm[a] - nb[a]));
        } else {
            nedge++;
            worst_edge = fmax(worst_edge, fabs(sm - sb));
        }
    }
    printf("mesh box: grid dx %.4g m; distance misses: faces %.3g m (%d points), normal %.3g; edges and corners "
           "%.3g m = %.3f dx (%d points)\n", dx, worst_face, nface, worst_normal, worst_edge, worst_edge / dx, nedge);
    ENSURE(nface > 1000 && nedge > 1000);
    ENSURE(worst_face < 1e-6);
    ENSURE(worst_normal < 1e-4);
    ENSURE(worst_edge < 0.25 * sqrt(3.0) * dx);
    ENSURE(far_wrong == 0);
    /* a blown-up particle (NaN) reads no node outside the grid: NaN back */
    float nn[3];
    ENSURE(isnan(fl_tool_distance(&lm->shape, &lm->pose, NAN, 0.1f, 0.1f, nn)));
    ENSURE(isnan(fl_tool_distance(&lm->shape, &lm->pose, 0.1f, -INFINITY, NAN, nn)));
    /* its particles, on the box's analytic distance */
    const fl_boundary *bd = &m.world.boundary;
    double deepest = 0.0, shallowest = 1.0;
    for (int k = lm->first; k < bd->count; k++) {
        float n[3];
        const double depth = -fl_tool_distance(&lb->shape, &lb->pose, bd->x[k], bd->y[k], bd->z[k], n);
        deepest = fmax(deepest, depth), shallowest = fmin(shallowest, depth);
    }
    ENSURE(bd->count - lm->first == m.tool.count && m.tool.count > 100);
    /* the volumes, summed on the tool's own grid, against every pair */
    double worst_volume = 0.0;
    for (int k = 0; k < m.tool.count; k++) {
        double sum = 0.0;
        for (int q = 0; q < m.tool.count; q++) {
            const float ex = m.tool.ox[k] - m.tool.ox[q], ey = m.tool.oy[k] - m.tool.oy[q],
                        ez = m.tool.oz[k] - m.tool.oz[q];
            sum += fl_poly6(ex * ex + ey * ey + ez * ez, (float)h, 3);
        }
        worst_volume = fmax(worst_volume, fabs(bd->volume[lm->first + k] * sum - 1.0));
    }
    ENSURE(worst_volume < 1e-6);
    ENSURE(deepest < (1.0 + 1e-4) * FL_BOUNDARY_OFFSET * d && shallowest > 0.0);
    double closest = 1.0;
    for (int i = 0; i < m.world.fluid.count; i++) {
        float n[3];
        const fl_particles *f = &m.world.fluid;
        closest = fmin(closest, fl_tool_distance(&lb->shape, &lb->pose, f->x[i], f->y[i], f->z[i], n));
    }
    printf("mesh box: %d particles, %.4g to %.4g m deep (%.4g d at most); closest fluid particle %.4g m (d/2 = "
           "%.4g)\n", m.tool.count, shallowest, deepest, FL_BOUNDARY_OFFSET, closest, 0.5 * d);
    ENSURE(closest >= 0.5 * d * 0.999 - worst_edge);
    run_end(&m);
    run_end(&b);
}

/* The tool's surface as a run saves it beside its frames
 * (fl_tool_surface), for a sphere, a box and a mesh (the box as OBJ) at
 * the tank's turned pose, against the distance the physics uses:
 *  - every vertex on the surface: |fl_tool_distance| below 1e-6 m (float
 *    rounding) for the sphere and the box; for the mesh within the
 *    distance grid's miss at an edge or a corner, a quarter of sqrt(3) dx
 *    (mesh_box above);
 *  - each triangle's normal (from its corners, so counter-clockwise seen
 *    from outside) along the distance's outward normal at its centroid
 *    (cosine above 0.999; the sphere's flat triangles 0.995), and every
 *    vertex normal of the sphere and the box the same;
 *  - the volume enclosed (divergence theorem) and its centroid: the box's
 *    exactly (1e-6 relative, the pose's centre to 1e-6 m); the sphere's
 *    inscribed polyhedron below the sphere, by less than 1.5 % (each
 *    band and segment spans 7.5 degrees: its chords' sagitta is 0.2 % of
 *    the radius). */
static void surface(void)
{
    const double half[3] = {0.04, 0.02, 0.03}, off[3] = {0.3, -0.2, 0.1};
    ENSURE(write_box_obj(BOX_OBJ, half, off, identity));
    const char *const shapes[3] = {"\"shape\": \"sphere\", \"radius\": 0.04",
                                   "\"shape\": \"box\", \"size\": [0.08, 0.04, 0.06]",
                                   "\"shape\": \"mesh\", \"mesh\": \"" BOX_OBJ "\""};
    const double volume[3] = {4.0 / 3.0 * PI * 0.04 * 0.04 * 0.04, 8.0 * half[0] * half[1] * half[2],
                              8.0 * half[0] * half[1] * half[2]};
    for (int s = 0; s < 3; s++) {
        char json[1024];
        tank_with(json, sizeof json, shapes[s]);
        tool_run r;
        ENSURE(run_start(&r, json, "sph", "cpu", NULL, 0) == 0);
        const fl_tool_link *l = &r.world.tool;
        fl_trimesh m;
        fl_error err;
        ENSURE(fl_tool_surface(&r.tool, &l->pose, &m, &err) == FL_OK);
        const double on = s == 2 ? 0.25 * sqrt(3.0) * l->shape.sdf.dx : 1e-6;
        double worst_on = 0.0, worst_face = 1.0, worst_vertex = 1.0;
        for (int k = 0; k < m.nvert; k++) {
            const float *x = m.pos + 3 * k, *vn = m.normal + 3 * k;
            float n[3];
            worst_on = fmax(worst_on, fabs(fl_tool_distance(&l->shape, &l->pose, x[0], x[1], x[2], n)));
            if (s == 0) /* the sphere's normals are radial; a box's corner has no single one */
                worst_vertex = fmin(worst_vertex, vn[0] * n[0] + vn[1] * n[1] + vn[2] * n[2]);
        }
        fl_mesh mesh = {0};
        mesh.vertex_count = m.nvert, mesh.triangle_count = m.ntri;
        mesh.v = malloc((size_t)m.nvert * 3 * sizeof(double));
        mesh.tri = malloc((size_t)m.ntri * 3 * sizeof(int));
        ENSURE(mesh.v && mesh.tri);
        for (int k = 0; k < 3 * m.nvert; k++)
            mesh.v[k] = m.pos[k];
        for (int k = 0; k < m.ntri; k++) {
            const float *a = m.pos + 3 * m.tri[3 * k], *b = m.pos + 3 * m.tri[3 * k + 1], *c = m.pos + 3 * m.tri[3 * k + 2];
            double u[3], v[3], f[3], n3[3], len;
            for (int e = 0; e < 3; e++)
                u[e] = b[e] - a[e], v[e] = c[e] - a[e];
            f[0] = u[1] * v[2] - u[2] * v[1], f[1] = u[2] * v[0] - u[0] * v[2], f[2] = u[0] * v[1] - u[1] * v[0];
            len = sqrt(f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);
            float n[3];
            fl_tool_distance(&l->shape, &l->pose, (a[0] + b[0] + c[0]) / 3.0f, (a[1] + b[1] + c[1]) / 3.0f,
                             (a[2] + b[2] + c[2]) / 3.0f, n);
            for (int e = 0; e < 3; e++)
                n3[e] = n[e];
            worst_face = fmin(worst_face, (f[0] * n3[0] + f[1] * n3[1] + f[2] * n3[2]) / len);
            if (s == 1) { /* the box's vertex normals: its face's */
                const float *vn = m.normal + 3 * m.tri[3 * k];
                worst_vertex = fmin(worst_vertex, vn[0] * n[0] + vn[1] * n[1] + vn[2] * n[2]);
            }
            for (int e = 0; e < 3; e++)
                mesh.tri[3 * k + e] = m.tri[3 * k + e];
        }
        fl_mesh_mass mp;
        fl_mesh_mass_properties(&mesh, &mp);
        double off_centre = 0.0;
        for (int a = 0; a < 3; a++)
            off_centre = fmax(off_centre, fabs(mp.centroid[a] - l->pose.c[a]));
        printf("tool surface (%s): %d triangles; vertices off the surface %.3g m (allowed %.3g); face normals' "
               "cosine %.6f, vertex normals' %.6f; volume %.6f of the shape's; centroid off the centre %.3g m\n",
               s == 0 ? "sphere" : s == 1 ? "box" : "box mesh", m.ntri, worst_on, on, worst_face,
               s == 2 ? 1.0 : worst_vertex, mp.volume / volume[s], off_centre);
        ENSURE(worst_on < on);
        ENSURE(worst_face > (s == 0 ? 0.995 : 0.999));
        ENSURE(s == 2 || worst_vertex > 0.9999);
        if (s == 0)
            ENSURE(mp.volume < volume[0] && mp.volume > 0.985 * volume[0]);
        else
            ENSURE_NEAR(mp.volume, volume[s], 1e-6 * volume[s]);
        ENSURE(off_centre < 1e-6);
        fl_mesh_free(&mesh);
        fl_trimesh_free(&m);
        run_end(&r);
    }
}

/* A free mesh tool spinning without gravity, and without a solver step
 * (the fluid's force on it is zero): torque-free, its angular momentum
 * about the centre, L = R I R^T omega, stays put. The mesh is a box 0.08 x 0.04 x
 * 0.06 m turned in its file by 35 degrees about (1, 1, 0), so that its
 * inertia tensor in the tool's own axes (the file's) is full: a tool that
 * kept only the tensor's diagonal would tumble as another body does.
 * Symplectic Euler on the rotation is first order: at |omega| = 7 rad/s
 * in steps of 0.2 ms, omega dt = 1.4e-3, L errs by (omega dt)^2 = 2e-6 of
 * itself a step at most, 4e-3 over the 2 000 steps, which is allowed. The
 * centre stays where it was (1e-12 m). */
static void spin(void)
{
    const double half[3] = {0.04, 0.02, 0.03}, c[3] = {0.5, 0.5, 0.5}, ang = 35.0 * PI / 180.0;
    const double u[3] = {1.0 / sqrt(2.0), 1.0 / sqrt(2.0), 0.0}, cs = cos(ang), sn = sin(ang);
    double rot[9]; /* Rodrigues: cos I + sin [u]x + (1 - cos) u u^T */
    const double ux[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            rot[3 * i + j] = (i == j ? cs : 0.0) + sn * ux[3 * i + j] + (1.0 - cs) * u[i] * u[j];
    ENSURE(write_box_obj(BOX_OBJ, half, c, rot));
    static const char *const json =
        "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.3, 0.3, 0.3]}, \"gravity\": [0, 0, 0],"
        " \"fluid\": {\"spacing\": 0.01, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.03, 0.03, 0.03]}]},"
        " \"time\": {\"duration\": 1, \"dt\": 0.001},"
        " \"tool\": {\"shape\": \"mesh\", \"mesh\": \"" BOX_OBJ "\", \"position\": [0.15, 0.15, 0.15],"
        " \"motion\": \"dynamic\", \"density\": 700}}";
    tool_run r;
    ENSURE(run_start(&r, json, "sph", "cpu", NULL, 0) == 0);
    /* the tensor in the own axes: rot diag rot^T, full */
    const double *in = r.tool.inertia, mass = 700.0 * 8.0 * half[0] * half[1] * half[2];
    const double diag[3] = {mass * 4.0 * (half[1] * half[1] + half[2] * half[2]) / 12.0,
                            mass * 4.0 * (half[0] * half[0] + half[2] * half[2]) / 12.0,
                            mass * 4.0 * (half[0] * half[0] + half[1] * half[1]) / 12.0};
    double off_diagonal = 0.0;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            double want = 0.0;
            for (int k = 0; k < 3; k++)
                want += rot[3 * i + k] * diag[k] * rot[3 * j + k];
            ENSURE_NEAR(in[3 * i + j], want, 1e-9 * diag[0]);
            off_diagonal = fmax(off_diagonal, i != j ? fabs(want) / diag[0] : 0.0);
        }
    ENSURE(off_diagonal > 0.1);
    r.tool.omega[0] = 2.0, r.tool.omega[1] = 6.0, r.tool.omega[2] = 3.0;
    double l0[3] = {0, 0, 0}, worst = 0.0;
    int ok = 1;
    for (int k = 0; k <= 2000 && ok; k++) {
        double rm[9], l[3], lo[3], wo[3];
        const double *q = r.tool.q, *w = r.tool.omega;
        rm[0] = 1 - 2 * (q[2] * q[2] + q[3] * q[3]), rm[1] = 2 * (q[1] * q[2] - q[0] * q[3]),
        rm[2] = 2 * (q[1] * q[3] + q[0] * q[2]), rm[3] = 2 * (q[1] * q[2] + q[0] * q[3]),
        rm[4] = 1 - 2 * (q[1] * q[1] + q[3] * q[3]), rm[5] = 2 * (q[2] * q[3] - q[0] * q[1]),
        rm[6] = 2 * (q[1] * q[3] - q[0] * q[2]), rm[7] = 2 * (q[2] * q[3] + q[0] * q[1]),
        rm[8] = 1 - 2 * (q[1] * q[1] + q[2] * q[2]);
        for (int a = 0; a < 3; a++)
            wo[a] = rm[a] * w[0] + rm[3 + a] * w[1] + rm[6 + a] * w[2];
        for (int a = 0; a < 3; a++)
            lo[a] = in[3 * a] * wo[0] + in[3 * a + 1] * wo[1] + in[3 * a + 2] * wo[2];
        for (int a = 0; a < 3; a++)
            l[a] = rm[3 * a] * lo[0] + rm[3 * a + 1] * lo[1] + rm[3 * a + 2] * lo[2];
        if (k == 0)
            memcpy(l0, l, sizeof l0);
        const double dl[3] = {l[0] - l0[0], l[1] - l0[1], l[2] - l0[2]};
        worst = fmax(worst, sqrt(dl[0] * dl[0] + dl[1] * dl[1] + dl[2] * dl[2]));
        /* the tool alone: no solver step, so no fluid force whatever the
         * few particles would do */
        fl_tool_report rep;
        fl_error err;
        if (k < 2000 && (ok = fl_tool_before_step(&r.tool, &r.world, 0.0002, &err) == FL_OK)) {
            r.world.time += 0.0002;
            fl_tool_after_step(&r.tool, &r.world, 0.0002, &rep);
        }
    }
    ENSURE(ok);
    const double ln = sqrt(l0[0] * l0[0] + l0[1] * l0[1] + l0[2] * l0[2]);
    printf("spin: |L| = %.4g kg m^2/s, largest change over 0.4 s %.3g of it; the centre moved %.3g m\n", ln,
           worst / ln, fabs(r.tool.pos[0] - 0.15) + fabs(r.tool.pos[1] - 0.15) + fabs(r.tool.pos[2] - 0.15));
    ENSURE(worst < 4e-3 * ln);
    ENSURE(fabs(r.tool.pos[0] - 0.15) + fabs(r.tool.pos[1] - 0.15) + fabs(r.tool.pos[2] - 0.15) < 1e-12);
    run_end(&r);
}

/* The mesh tool's input: its file, its keys, its size. */
static void mesh_bad_input(void)
{
    const double half[3] = {0.04, 0.02, 0.03}, c[3] = {0, 0, 0};
    ENSURE(write_box_obj(BOX_OBJ, half, c, identity));
    char json[1024];
    tank_with(json, sizeof json, "\"shape\": \"mesh\", \"mesh\": \"no_such_file.obj\"");
    bad(json, NULL, 0, "tool.mesh: expected a readable OBJ file");
    tank_with(json, sizeof json, "\"shape\": \"mesh\"");
    bad(json, NULL, 0, "tool.mesh: expected the path of a closed OBJ file");
    tank_with(json, sizeof json, "\"shape\": \"mesh\", \"mesh\": \"" BOX_OBJ "\", \"radius\": 0.04");
    bad(json, NULL, 0, "tool.radius: expected no radius for a mesh");
    tank_with(json, sizeof json, "\"shape\": \"sphere\", \"radius\": 0.04, \"scale\": 2");
    bad(json, NULL, 0, "tool.scale: expected no scale but for a mesh");
    tank_with(json, sizeof json, "\"shape\": \"mesh\", \"mesh\": \"" BOX_OBJ "\", \"scale\": 3");
    bad(json, NULL, 0, "outside the domain");
    tank_with(json, sizeof json, "\"shape\": \"mesh\", \"mesh\": \"" BOX_OBJ "\", \"scale\": [1, 0.4, 1]");
    bad(json, NULL, 0, "thinner than two of the fluid's spacing");
    FILE *f = fopen("test_tool_open.obj", "w"); /* the box less one triangle */
    ENSURE(f && fputs("v 0 0 0\nv 0.05 0 0\nv 0.05 0.05 0\nv 0 0.05 0\nv 0 0 0.05\nv 0.05 0 0.05\n"
                      "v 0.05 0.05 0.05\nv 0 0.05 0.05\nf 1 4 3\nf 1 3 2\nf 5 6 7\nf 5 7 8\nf 1 2 6\n"
                      "f 1 6 5\nf 4 8 7\nf 4 7 3\nf 1 5 8\nf 1 8 4\nf 2 3 7\n", f) >= 0);
    if (f)
        fclose(f);
    tank_with(json, sizeof json, "\"shape\": \"mesh\", \"mesh\": \"test_tool_open.obj\"");
    bad(json, NULL, 0, "the mesh has a hole");
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
/* The run's steps of dt for t_settle, then the mean force on the tool over
 * the next 0.2 s into f; 0 when every step succeeded. */
static int held_force(tool_run *r, double dt, double t_settle, double f[3])
{
    const long long settle = (long long)(t_settle / dt + 0.5), average = (long long)(0.2 / dt + 0.5);
    int ok = 1;
    f[0] = f[1] = f[2] = 0.0;
    for (long long k = 0; k < settle + average && ok; k++) {
        fl_tool_report rep;
        ok = run_step(r, dt, &rep) == 0;
        for (int a = 0; a < 3 && k >= settle; a++)
            f[a] += rep.f_total[a] / (double)average;
    }
    return ok ? 0 : 1;
}

static void archimedes(const char *solver, double dt, double t_settle, const char *spacing)
{
    tool_run r;
    const char *sets[1] = {spacing};
    ENSURE(run_start(&r, tank, solver, "cpu", sets, spacing ? 1 : 0) == 0);
    const double buoyancy = r.world.rho0 * 9.81 * 4.0 / 3.0 * PI * 0.04 * 0.04 * 0.04;
    double f[3];
    ENSURE(held_force(&r, dt, t_settle, f) == 0);
    printf("archimedes %s: force (%.4f, %.4f, %.4f) N, rho0 g V = %.4f N: vertical %+.2f %%, horizontal %.2f %%\n",
           solver, f[0], f[1], f[2], buoyancy, 100.0 * (f[1] / buoyancy - 1.0),
           100.0 * sqrt(f[0] * f[0] + f[2] * f[2]) / buoyancy);
    ENSURE_NEAR(f[1], buoyancy, 0.05 * buoyancy);
    ENSURE(fabs(f[0]) < 0.01 * buoyancy && fabs(f[2]) < 0.01 * buoyancy);
    run_end(&r);
}

/* The sphere's tank (0.2 m, water 0.16 m deep) at d = spacing with the
 * Stanford bunny (reference/bunny.obj x 0.0098: 0.095 m tall, 19 spacings
 * at d = 0.005 m, its ears two or three thick) as the tool, held with its
 * centroid where the sphere's centre was, turned 20 degrees about y: after
 * settling for t_settle, the force averaged over the next 0.2 s against
 * rho0 g V, V the mesh's volume: within 5 % vertically, below 2 %
 * horizontally (the sphere's 1 % rests on its sampling's symmetry, which a
 * bunny has not). */
static void archimedes_mesh(const char *solver, double dt, double t_settle, double spacing)
{
    char json[1200];
    snprintf(json, sizeof json,
             "{\"domain\": {\"min\": [0, 0, 0], \"max\": [0.2, 0.2, 0.2]},"
             " \"fluid\": {\"spacing\": %g, \"blocks\": [{\"min\": [0, 0, 0], \"max\": [0.2, 0.16, 0.2]}]},"
             " \"time\": {\"duration\": 1, \"dt\": 0.001},"
             " \"tool\": {\"shape\": \"mesh\", \"mesh\": \"%s/reference/bunny.obj\", \"scale\": 0.0098,"
             " \"position\": [0.1, 0.08, 0.1], \"rotation\": [0, 20, 0]}}",
             spacing, FL_SOURCE_DIR);
    tool_run r;
    ENSURE(run_start(&r, json, solver, "cpu", NULL, 0) == 0);
    fl_mesh_mass mp;
    fl_mesh_mass_properties(&r.tool.own, &mp);
    const double buoyancy = r.world.rho0 * 9.81 * mp.volume;
    double f[3];
    ENSURE(held_force(&r, dt, t_settle, f) == 0);
    printf("archimedes %s, bunny of %.4g m^3, %d particles: force (%.4f, %.4f, %.4f) N, rho0 g V = %.4f N: vertical "
           "%+.2f %%, horizontal %.2f %%\n",
           solver, mp.volume, r.tool.count, f[0], f[1], f[2], buoyancy, 100.0 * (f[1] / buoyancy - 1.0),
           100.0 * sqrt(f[0] * f[0] + f[2] * f[2]) / buoyancy);
    ENSURE_NEAR(f[1], buoyancy, 0.05 * buoyancy);
    ENSURE(sqrt(f[0] * f[0] + f[2] * f[2]) < 0.02 * buoyancy);
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
        mesh_box();
        mesh_bad_input();
        spin();
        surface();
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
    } else if (strcmp(mode, "archimedes_mesh") == 0 && argc > 2) {
        const char *solver = argv[2];
        const int explicit_step = strcmp(solver, "sph") == 0 || strcmp(solver, "wcsph") == 0;
        /* the sphere's steps at d = 0.01 m, scaled with d for the explicit solvers */
        const double d = argc > 3 ? atof(argv[3]) : 0.005, f = explicit_step ? d / 0.01 : 1.0;
        archimedes_mesh(solver, f * (strcmp(solver, "wcsph") == 0 ? 0.0002 : explicit_step ? 0.0005 : 0.001), 0.6, d);
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
