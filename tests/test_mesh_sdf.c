/* test_mesh_sdf.c: a mesh's mass properties and its narrow-band signed
 * distance (scenes/mesh_sdf.c).
 *
 *  1. Mass properties: a box of 0.2 x 0.3 x 0.5 m away from the origin
 *     (volume abc, centroid its centre, inertia diag(V (b^2 + c^2) / 12,
 *     ...) to 1e-12), the same box turned by a rotation R (inertia
 *     R diag R^T), the box with a zero-area sliver triangle, and an
 *     icosphere of radius 1 between the analytic bounds of its inscribed
 *     and circumscribed balls (and 0.4 V R^2 within 2 %).
 *  2. Signed distance of the box, turned and not, with a sliver, on grids
 *     around it and cutting through it, against the analytic distance of
 *     a box clamped to the band: within 1e-6 m, exactly +-band beyond it.
 *  3. The icosphere against |x| - R: between the distances of its
 *     circumscribed and inscribed balls (the bound R - r_in, at most
 *     R (1 - cos theta) for the largest edge's angle theta).
 *  4. The bunny at 0.1 m: one thread and two give the same bits, as does
 *     every thread; a sample of centres against a brute-force distance
 *     over every triangle; the sign is fl_voxelize's. It prints the time.
 *  5. Refusals: an open box, a bad band, a bad grid (FL_ERR_INPUT), with
 *     dist left as it was.
 * FL_SOURCE_DIR (a compile definition) locates reference/bunny.obj. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "mesh_sdf.h"

#ifndef FL_SOURCE_DIR
#error "FL_SOURCE_DIR must name the source tree (tests/CMakeLists.txt defines it)"
#endif

#define BUNNY_PATH FL_SOURCE_DIR "/reference/bunny.obj"

static const double PI = 3.14159265358979323846;

/* The test box: sides (m) and lower corner away from the origin, so that
 * the reference point and the parallel-axis shift matter. */
static const double BOX_SIDE[3] = {0.2, 0.3, 0.5};
static const double BOX_LO[3] = {1.0, -2.0, 3.0};

/* ---- meshes made here ----------------------------------------------------- */

/* An empty mesh with room for nv vertices and nt triangles. */
static int mesh_alloc(fl_mesh *m, int nv, int nt, const char *name)
{
    memset(m, 0, sizeof *m);
    m->v = malloc(3 * (size_t)(nv > 0 ? nv : 1) * sizeof *m->v);
    m->tri = malloc(3 * (size_t)(nt > 0 ? nt : 1) * sizeof *m->tri);
    m->vertex_count = nv;
    m->triangle_count = nt;
    snprintf(m->source, sizeof m->source, "%s", name);
    return m->v != NULL && m->tri != NULL;
}

/* The box lo + [0, side] as 12 outward triangles; vertex i + 2j + 4k is
 * the corner (i, j, k). With sliver, the top's edge (v4, v5) gets its
 * midpoint v8, and the triangle (v4, v5, v8) of zero area closes the
 * mesh (v8 lies exactly on the edge: only x differs). drop removes the
 * last `drop` triangles (an open box). */
static void make_box(fl_mesh *m, const double *lo, const double *side, int sliver, int drop)
{
    static const int faces[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6},
                                     {0, 1, 5}, {0, 5, 4}, {2, 6, 7}, {2, 7, 3},
                                     {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    int nt = 12 + (sliver ? 2 : 0);
    ENSURE(mesh_alloc(m, 8 + (sliver ? 1 : 0), nt - drop, sliver ? "sliver_box" : "box"));
    for (int c = 0; c < 8; c++)
        for (int d = 0; d < 3; d++)
            m->v[3 * c + d] = lo[d] + ((c >> d) & 1) * side[d];
    int all[14][3];
    memcpy(all, faces, sizeof faces);
    if (sliver) {
        m->v[24] = 0.5 * (m->v[12] + m->v[15]);
        m->v[25] = m->v[13];
        m->v[26] = m->v[14];
        /* (4, 5, 7) becomes (4, 8, 7) and (8, 5, 7) */
        const int split[3][3] = {{4, 8, 7}, {8, 5, 7}, {4, 5, 8}};
        memcpy(all[2], split[0], sizeof split[0]);
        memcpy(all[12], split[1], sizeof split[1]);
        memcpy(all[13], split[2], sizeof split[2]);
    }
    memcpy(m->tri, all, 3 * (size_t)(nt - drop) * sizeof *m->tri);
}

/* An icosphere of radius r about centre: the icosahedron subdivided
 * `levels` times, each new midpoint pushed onto the sphere. The
 * icosahedron's faces are found as the triples of vertices 2 apart and
 * turned counter-clockwise seen from outside (positive det). */
static void make_icosphere(fl_mesh *m, int levels, double r, const double *centre)
{
    const double phi = 0.5 * (1.0 + sqrt(5.0));
    int nv_final = 10 * (1 << (2 * levels)) + 2, nt_final = 20 * (1 << (2 * levels));
    int nv = 0, nt = 0;
    ENSURE(mesh_alloc(m, nv_final, nt_final, "icosphere"));
    int *next = malloc(3 * (size_t)nt_final * sizeof *next);
    double *v = m->v;
    /* (0, +-1, +-phi) and its cyclic permutations */
    for (int axis = 0; axis < 3; axis++)
        for (int s = 0; s < 4; s++) {
            double *p = v + 3 * nv++;
            p[axis] = 0.0;
            p[(axis + 1) % 3] = (s & 1) ? -1.0 : 1.0;
            p[(axis + 2) % 3] = (s & 2) ? -phi : phi;
        }
    for (int a = 0; a < 12; a++)
        for (int b = a + 1; b < 12; b++)
            for (int c = b + 1; c < 12; c++) {
                const double *pa = v + 3 * a, *pb = v + 3 * b, *pc = v + 3 * c;
                double ab = 0, bc = 0, ca = 0;
                for (int d = 0; d < 3; d++) {
                    ab += (pa[d] - pb[d]) * (pa[d] - pb[d]);
                    bc += (pb[d] - pc[d]) * (pb[d] - pc[d]);
                    ca += (pc[d] - pa[d]) * (pc[d] - pa[d]);
                }
                if (fabs(ab - 4) > 1e-9 || fabs(bc - 4) > 1e-9 || fabs(ca - 4) > 1e-9)
                    continue;
                double det = pa[0] * (pb[1] * pc[2] - pb[2] * pc[1]) -
                             pa[1] * (pb[0] * pc[2] - pb[2] * pc[0]) +
                             pa[2] * (pb[0] * pc[1] - pb[1] * pc[0]);
                int *t = m->tri + 3 * nt++;
                t[0] = a;
                t[1] = det > 0 ? b : c;
                t[2] = det > 0 ? c : b;
            }
    ENSURE(nt == 20);
    for (int k = 0; k < nv; k++) {
        double *p = v + 3 * k, len = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        for (int d = 0; d < 3; d++)
            p[d] /= len;
    }
    for (int l = 0; l < levels; l++) {
        /* mid[a nv + b]: the midpoint vertex of edge (a, b), once made */
        int old = nv, *mid = malloc((size_t)old * old * sizeof *mid);
        for (size_t q = 0; q < (size_t)old * old; q++)
            mid[q] = -1;
        for (int f = 0; f < nt; f++) {
            int *t = m->tri + 3 * f, ms[3];
            for (int e = 0; e < 3; e++) {
                int a = t[e], b = t[(e + 1) % 3];
                int *slot = &mid[(size_t)(a < b ? a : b) * old + (a < b ? b : a)];
                if (*slot < 0) {
                    double *p = v + 3 * nv, len = 0;
                    for (int d = 0; d < 3; d++) {
                        p[d] = 0.5 * (v[3 * a + d] + v[3 * b + d]);
                        len += p[d] * p[d];
                    }
                    for (int d = 0; d < 3; d++)
                        p[d] /= sqrt(len);
                    *slot = nv++;
                }
                ms[e] = *slot;
            }
            /* corners a, b, c and midpoints ab, bc, ca: four triangles,
             * each counter-clockwise like the parent */
            const int kids[4][3] = {{t[0], ms[0], ms[2]}, {ms[0], t[1], ms[1]},
                                    {ms[2], ms[1], t[2]}, {ms[0], ms[1], ms[2]}};
            memcpy(next + 12 * f, kids, sizeof kids);
        }
        nt *= 4;
        memcpy(m->tri, next, 3 * (size_t)nt * sizeof *next);
        free(mid);
    }
    ENSURE(nv == nv_final && nt == nt_final);
    for (int k = 0; k < nv; k++)
        for (int d = 0; d < 3; d++)
            v[3 * k + d] = centre[d] + r * v[3 * k + d];
    free(next);
}

/* ---- helpers --------------------------------------------------------------- */

static double rel_err_matrix(const double *a, const double *b, double scale)
{
    double e = 0;
    for (int q = 0; q < 9; q++)
        e = fmax(e, fabs(a[q] - b[q]));
    return e / scale;
}

/* The rotation by angle about the unit axis u (Rodrigues), row-major. */
static void rotation(const double *u, double angle, double *rot)
{
    double c = cos(angle), s = sin(angle);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            rot[3 * i + j] = (i == j ? c : 0.0) + (1 - c) * u[i] * u[j];
    rot[1] -= s * u[2];
    rot[2] += s * u[1];
    rot[3] += s * u[2];
    rot[5] -= s * u[0];
    rot[6] -= s * u[1];
    rot[7] += s * u[0];
}

/* A turn about (1, 2, 2)/3 by 0.7 rad and a shift, as fl_mesh_transform's [R | t]. */
static void turn_matrix(double *rot, double *shift, double *a12)
{
    const double u[3] = {1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0};
    rotation(u, 0.7, rot);
    shift[0] = 0.5;
    shift[1] = 0.25;
    shift[2] = -1.0;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++)
            a12[4 * i + j] = rot[3 * i + j];
        a12[4 * i + 3] = shift[i];
    }
}

/* The analytic signed distance of the box lo + [0, side]: outside, the
 * distance to the box; inside, minus the distance to the nearest face. */
static double box_distance(const double *p, const double *lo, const double *side)
{
    double q[3], out = 0, qmax = -INFINITY;
    for (int d = 0; d < 3; d++) {
        q[d] = fmax(lo[d] - p[d], p[d] - (lo[d] + side[d]));
        qmax = fmax(qmax, q[d]);
        out += q[d] > 0 ? q[d] * q[d] : 0.0;
    }
    return qmax > 0 ? sqrt(out) : qmax;
}

static double clampd(double x, double band)
{
    return x < -band ? -band : (x > band ? band : x);
}

/* A grid of spacing h around [lo, hi] with `margin` spare (m) a side;
 * `shift` (cells) moves its centres off the box's planes. */
static fl_voxel_grid grid_around(const double *lo, const double *hi, double h, double margin,
                                 double shift)
{
    fl_voxel_grid g;
    g.spacing = h;
    for (int d = 0; d < 3; d++) {
        g.origin[d] = lo[d] - margin - shift * h;
        g.dims[d] = (int)ceil((hi[d] - lo[d] + 2 * margin) / h) + 1;
    }
    return g;
}

static size_t grid_cells(const fl_voxel_grid *g)
{
    return (size_t)g->dims[0] * (size_t)g->dims[1] * (size_t)g->dims[2];
}

static void centre_of(const fl_voxel_grid *g, size_t c, double *p)
{
    size_t nx = (size_t)g->dims[0], ny = (size_t)g->dims[1];
    size_t idx[3] = {c % nx, (c / nx) % ny, c / (nx * ny)};
    for (int d = 0; d < 3; d++)
        p[d] = g->origin[d] + ((double)idx[d] + 0.5) * g->spacing;
}

/* ---- 1. mass properties --------------------------------------------------- */

static void box_expected(fl_mesh_mass *e)
{
    double a = BOX_SIDE[0], b = BOX_SIDE[1], c = BOX_SIDE[2], v = a * b * c;
    memset(e, 0, sizeof *e);
    e->volume = v;
    for (int d = 0; d < 3; d++)
        e->centroid[d] = BOX_LO[d] + 0.5 * BOX_SIDE[d];
    e->inertia[0] = v * (b * b + c * c) / 12;
    e->inertia[4] = v * (a * a + c * c) / 12;
    e->inertia[8] = v * (a * a + b * b) / 12;
}

static void check_mass(const fl_mesh_mass *got, const fl_mesh_mass *want, double tol, const char *what)
{
    double scale = fmax(want->inertia[0], fmax(want->inertia[4], want->inertia[8]));
    double ev = fabs(got->volume / want->volume - 1), ec = 0, far = 1;
    for (int d = 0; d < 3; d++) {
        ec = fmax(ec, fabs(got->centroid[d] - want->centroid[d]));
        far = fmax(far, fabs(want->centroid[d]));
    }
    double ei = rel_err_matrix(got->inertia, want->inertia, scale);
    printf("  %s: volume %.3g, centroid %.3g m, inertia %.3g (relative errors)\n", what, ev, ec / far, ei);
    ENSURE(ev <= tol);
    ENSURE(ec <= tol * far); /* relative to the centroid's distance from the origin (m) */
    ENSURE(ei <= tol);
}

static void test_mass_box(void)
{
    fl_mesh m;
    fl_mesh_mass got, want;
    double rot[9], shift[3], a12[12];
    make_box(&m, BOX_LO, BOX_SIDE, 0, 0);
    box_expected(&want);
    fl_mesh_mass_properties(&m, &got);
    /* 1e-12: the sums of 12 exact-ish products, rounded */
    check_mass(&got, &want, 1e-12, "box");
    ENSURE_NEAR(got.volume, fl_mesh_volume(&m), 1e-15);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++)
            ENSURE(got.inertia[3 * i + j] == got.inertia[3 * j + i]); /* symmetric, exactly */

    /* turned: I' = R I R^T, centroid R c + t */
    turn_matrix(rot, shift, a12);
    fl_mesh_transform(&m, a12);
    fl_mesh_mass turned = want;
    for (int i = 0; i < 3; i++) {
        turned.centroid[i] = shift[i];
        for (int k = 0; k < 3; k++)
            turned.centroid[i] += rot[3 * i + k] * want.centroid[k];
        for (int j = 0; j < 3; j++) {
            double s = 0;
            for (int k = 0; k < 3; k++)
                s += rot[3 * i + k] * want.inertia[3 * k + k] * rot[3 * j + k];
            turned.inertia[3 * i + j] = s;
        }
    }
    fl_mesh_mass_properties(&m, &got);
    check_mass(&got, &turned, 1e-12, "turned box");
    fl_mesh_free(&m);

    /* the zero-area sliver adds nothing */
    make_box(&m, BOX_LO, BOX_SIDE, 1, 0);
    fl_mesh_mass_properties(&m, &got);
    check_mass(&got, &want, 1e-12, "box with a sliver");
    fl_mesh_free(&m);

    /* no triangles: nothing enclosed, the box's centre */
    make_box(&m, BOX_LO, BOX_SIDE, 0, 12);
    fl_mesh_mass_properties(&m, &got);
    ENSURE(got.volume == 0 && got.inertia[0] == 0 && got.inertia[4] == 0 && got.inertia[8] == 0);
    ENSURE_NEAR(got.centroid[2], BOX_LO[2] + 0.5 * BOX_SIDE[2], 1e-15);
    fl_mesh_free(&m);
}

/* The corner tetrahedron o + {0, a e_x, b e_y, c e_z}: its centroid is
 * a quarter of the way along each leg, away from its box's centre, so the
 * parallel-axis shift matters. About the centroid, with V = abc/6,
 * C_xx = 3 V a^2 / 80 and C_xy = -V ab / 80 (from the corner's moments
 * a^3 bc / 60 and a^2 b^2 c / 120), so I_xx = 3 V (b^2 + c^2) / 80 and
 * I_xy = V ab / 80. */
static void test_mass_tetrahedron(void)
{
    const double o[3] = {2.0, -1.0, 4.0}, l[3] = {0.3, 0.5, 0.7};
    fl_mesh m;
    fl_mesh_mass got, want;
    ENSURE(mesh_alloc(&m, 4, 4, "tetrahedron"));
    const int faces[4][3] = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
    memcpy(m.tri, faces, sizeof faces);
    for (int k = 0; k < 4; k++)
        for (int d = 0; d < 3; d++)
            m.v[3 * k + d] = o[d] + (k == d + 1 ? l[d] : 0.0);
    double v = l[0] * l[1] * l[2] / 6;
    memset(&want, 0, sizeof want);
    want.volume = v;
    for (int i = 0; i < 3; i++) {
        want.centroid[i] = o[i] + l[i] / 4;
        for (int j = 0; j < 3; j++) {
            want.inertia[3 * i + j] =
                i == j ? 3 * v * (l[(i + 1) % 3] * l[(i + 1) % 3] + l[(i + 2) % 3] * l[(i + 2) % 3]) / 80
                       : v * l[i] * l[j] / 80;
        }
    }
    fl_mesh_mass_properties(&m, &got);
    check_mass(&got, &want, 1e-12, "tetrahedron");
    fl_mesh_free(&m);
}

/* The radius of the largest ball about c inside the convex mesh m (the
 * least distance from c to a face's plane); *convex is 0 when a vertex
 * lies outside a face's plane. *max_angle: the largest angle an edge
 * subtends at c. */
static double inscribed_radius(const fl_mesh *m, const double *c, int *convex, double *max_angle)
{
    double rin = INFINITY;
    *convex = 1;
    *max_angle = 0;
    for (int t = 0; t < m->triangle_count; t++) {
        const double *p[3];
        double u[3], w[3], n[3];
        for (int q = 0; q < 3; q++)
            p[q] = m->v + 3 * m->tri[3 * t + q];
        for (int d = 0; d < 3; d++) {
            u[d] = p[1][d] - p[0][d];
            w[d] = p[2][d] - p[0][d];
        }
        n[0] = u[1] * w[2] - u[2] * w[1];
        n[1] = u[2] * w[0] - u[0] * w[2];
        n[2] = u[0] * w[1] - u[1] * w[0];
        double len = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]), h = 0;
        for (int d = 0; d < 3; d++)
            h += n[d] / len * (p[0][d] - c[d]);
        rin = fmin(rin, h);
        for (int k = 0; k < m->vertex_count; k++) {
            double s = 0;
            for (int d = 0; d < 3; d++)
                s += n[d] / len * (m->v[3 * k + d] - p[0][d]);
            if (s > 1e-12)
                *convex = 0;
        }
        for (int e = 0; e < 3; e++) {
            const double *a = p[e], *b = p[(e + 1) % 3];
            double da[3], db[3], dot = 0, la = 0, lb = 0;
            for (int d = 0; d < 3; d++) {
                da[d] = a[d] - c[d];
                db[d] = b[d] - c[d];
                dot += da[d] * db[d];
                la += da[d] * da[d];
                lb += db[d] * db[d];
            }
            *max_angle = fmax(*max_angle, acos(fmin(1.0, dot / sqrt(la * lb))));
        }
    }
    return rin;
}

static void test_mass_sphere(void)
{
    const double c[3] = {0.3, -0.2, 0.1}, r = 1.0;
    fl_mesh m;
    fl_mesh_mass got;
    int convex;
    double theta;
    make_icosphere(&m, 4, r, c);
    fl_error err = {{0}};
    ENSURE(fl_mesh_check_closed(&m, &err) == FL_OK);
    double rin = inscribed_radius(&m, c, &convex, &theta);
    ENSURE(convex);
    fl_mesh_mass_properties(&m, &got);
    double v = got.volume;
    printf("  icosphere (%d triangles): V = %.9g (ball %.9g), r_in = %.6f, I = %.9g %.9g %.9g, "
           "I / (0.4 V R^2) = %.6f\n",
           m.triangle_count, v, 4.0 / 3.0 * PI, rin, got.inertia[0], got.inertia[4], got.inertia[8],
           got.inertia[0] / (0.4 * v * r * r));
    ENSURE_NEAR(v / fl_mesh_volume(&m), 1.0, 1e-12);
    /* the ball of r_in lies inside (the mesh is convex), the mesh inside
     * the ball of R: their volumes and moments bound the mesh's, since
     * the integrands 1 and x^2 + y^2 are positive */
    ENSURE(v > 4.0 / 3.0 * PI * pow(rin, 3) && v < 4.0 / 3.0 * PI * pow(r, 3));
    for (int d = 0; d < 3; d++) {
        double idd = got.inertia[4 * d];
        ENSURE(idd > 8.0 / 15.0 * PI * pow(rin, 5) && idd < 8.0 / 15.0 * PI * pow(r, 5));
        ENSURE_NEAR(idd / (0.4 * v * r * r), 1.0, 0.02); /* the brief's 2 % */
        ENSURE_NEAR(got.centroid[d], c[d], 1e-12);       /* symmetric about c */
    }
    /* an inertia tensor invariant under the icosahedron's rotations is a
     * multiple of 1: equal diagonal, no off-diagonal, to rounding */
    double i0 = got.inertia[0];
    ENSURE_NEAR(got.inertia[4] / i0, 1.0, 1e-10);
    ENSURE_NEAR(got.inertia[8] / i0, 1.0, 1e-10);
    ENSURE(fabs(got.inertia[1]) < 1e-10 * i0 && fabs(got.inertia[2]) < 1e-10 * i0 &&
           fabs(got.inertia[5]) < 1e-10 * i0);
    fl_mesh_free(&m);
}

/* ---- 2. and 3. signed distance against an analytic one --------------------- */

/* The signed distance of m on g, compared at every centre with the
 * bracket [lo(p), hi(p)] of exact values (lo == hi for an exact one),
 * both clamped to band: returns the largest excursion outside it (m);
 * *not_band counts the centres farther than band + tol from the surface
 * by the bracket whose value is not exactly +-band. */
typedef void (*bracket_fn)(const double *p, const void *ctx, double *lo, double *hi);

static double compare_sdf(const fl_mesh *m, const fl_voxel_grid *g, double band, bracket_fn f,
                          const void *ctx, long *not_band, long *near, double *ms)
{
    size_t cells = grid_cells(g);
    float *dist = malloc(cells * sizeof *dist);
    fl_error err = {{0}};
    double worst = 0, t0 = omp_get_wtime();
    *not_band = *near = 0;
    int rc = fl_mesh_signed_distance(m, g, band, dist, &err);
    *ms = 1e3 * (omp_get_wtime() - t0);
    ENSURE(rc == FL_OK);
    if (rc != FL_OK) {
        fprintf(stderr, "  %s\n", err.msg);
        free(dist);
        return INFINITY;
    }
    for (size_t c = 0; c < cells; c++) {
        double p[3], lo, hi;
        centre_of(g, c, p);
        f(p, ctx, &lo, &hi);
        if (lo > band + 1e-9 || hi < -band - 1e-9) {
            *not_band += dist[c] != (hi < 0 ? -(float)band : (float)band);
            continue;
        }
        *near += fabs(lo) < band || fabs(hi) < band;
        double v = dist[c];
        worst = fmax(worst, fmax(clampd(lo, band) - v, v - clampd(hi, band)));
    }
    free(dist);
    return worst;
}

typedef struct box_frame {
    double rot[9], shift[3]; /* the mesh is R x + t of the box BOX_LO + [0, BOX_SIDE] */
} box_frame;

static void box_bracket(const double *p, const void *ctx, double *lo, double *hi)
{
    const box_frame *f = ctx;
    double q[3];
    for (int i = 0; i < 3; i++) { /* q = R^T (p - t) */
        q[i] = 0;
        for (int k = 0; k < 3; k++)
            q[i] += f->rot[3 * k + i] * (p[k] - f->shift[k]);
    }
    *lo = *hi = box_distance(q, BOX_LO, BOX_SIDE);
}

static void test_sdf_box(void)
{
    /* float rounding at |d| <= band is 2e-9 m; 1e-6 m leaves room for the
     * double arithmetic of coordinates of a few metres */
    const double h = 0.02, band = 0.05, tol = 1e-6;
    double hi[3], lo[3], a12[12];
    box_frame id = {{1, 0, 0, 0, 1, 0, 0, 0, 1}, {0, 0, 0}}, turned;
    long not_band, near;
    double ms;
    for (int d = 0; d < 3; d++)
        hi[d] = BOX_LO[d] + BOX_SIDE[d];
    for (int sliver = 0; sliver <= 1; sliver++) {
        fl_mesh m;
        make_box(&m, BOX_LO, BOX_SIDE, sliver, 0);
        /* centres 0.3 cells off the box's planes, 4 cells past it; then
         * some exactly on them (0.5 h shift puts centres at lo + i h) */
        for (int on = 0; on <= 1; on++) {
            fl_voxel_grid g = grid_around(BOX_LO, hi, h, 4 * h, on ? 0.5 : 0.3);
            double e = compare_sdf(&m, &g, band, box_bracket, &id, &not_band, &near, &ms);
            printf("  %s, centres %s its planes (%d x %d x %d, %ld within band): max error %.3g m, "
                   "%.1f ms\n",
                   m.source, on ? "on" : "off", g.dims[0], g.dims[1], g.dims[2], near, e, ms);
            ENSURE(e <= tol);
            ENSURE(not_band == 0);
            ENSURE(near > 1000);
        }
        /* a grid that ends inside the box: the triangles past its edges
         * still count */
        fl_voxel_grid cut = grid_around(BOX_LO, hi, h, 4 * h, 0.3);
        cut.dims[0] = (int)ceil((4 * h + 0.5 * BOX_SIDE[0]) / h);
        cut.origin[2] += 0.25;
        cut.dims[2] -= (int)(0.25 / h) + 3;
        double e = compare_sdf(&m, &cut, band, box_bracket, &id, &not_band, &near, &ms);
        ENSURE(e <= tol);
        ENSURE(not_band == 0);

        /* turned by R about (1, 2, 2)/3 and moved */
        turn_matrix(turned.rot, turned.shift, a12);
        fl_mesh_transform(&m, a12);
        fl_mesh_bounds(&m, lo, hi);
        fl_voxel_grid g = grid_around(lo, hi, h, 4 * h, 0.3);
        e = compare_sdf(&m, &g, band, box_bracket, &turned, &not_band, &near, &ms);
        printf("  turned %s (%d x %d x %d, %ld within band): max error %.3g m, %.1f ms\n", m.source,
               g.dims[0], g.dims[1], g.dims[2], near, e, ms);
        ENSURE(e <= tol);
        ENSURE(not_band == 0);
        for (int d = 0; d < 3; d++)
            hi[d] = BOX_LO[d] + BOX_SIDE[d];
        fl_mesh_free(&m);
    }
}

typedef struct ball_pair {
    double c[3], rin, r; /* the inscribed and circumscribed balls' centre and radii */
} ball_pair;

/* The balls B(r_in) inside the mesh inside B(R): the signed distance
 * falls as the set grows, so |p - c| - R <= d(p) <= |p - c| - r_in. */
static void ball_bracket(const double *p, const void *ctx, double *lo, double *hi)
{
    const ball_pair *b = ctx;
    double s = sqrt((p[0] - b->c[0]) * (p[0] - b->c[0]) + (p[1] - b->c[1]) * (p[1] - b->c[1]) +
                    (p[2] - b->c[2]) * (p[2] - b->c[2]));
    *lo = s - b->r;
    *hi = s - b->rin;
}

static void test_sdf_sphere(void)
{
    const double h = 0.05, band = 0.15, tol = 1e-6;
    ball_pair b = {{0.3, -0.2, 0.1}, 0, 1.0};
    fl_mesh m;
    int convex;
    double theta, lo[3], hi[3], ms;
    long not_band, near;
    make_icosphere(&m, 4, b.r, b.c);
    b.rin = inscribed_radius(&m, b.c, &convex, &theta);
    ENSURE(convex);
    /* the bound of the brief, R (1 - cos theta) for the largest edge's
     * angle, holds the bracket's width R - r_in */
    printf("  icosphere: R - r_in = %.3g m, R (1 - cos theta) = %.3g m (theta %.4f rad)\n",
           b.r - b.rin, b.r * (1 - cos(theta)), theta);
    ENSURE(b.r - b.rin <= b.r * (1 - cos(theta)));
    fl_mesh_bounds(&m, lo, hi);
    fl_voxel_grid g = grid_around(lo, hi, h, 0.3, 0.37);
    double e = compare_sdf(&m, &g, band, ball_bracket, &b, &not_band, &near, &ms);
    printf("  icosphere (%d x %d x %d, %ld within band): %.3g m outside [|x| - R, |x| - r_in], "
           "%.1f ms\n",
           g.dims[0], g.dims[1], g.dims[2], near, e, ms);
    ENSURE(e <= tol);
    ENSURE(not_band == 0);
    ENSURE(near > 10000);
    fl_mesh_free(&m);
}

/* ---- 4. the bunny: threads, brute force ------------------------------------ */

static double seg_d2(const double *p, const double *a, const double *b)
{
    double ab[3], ap[3], l2 = 0, t = 0, d2 = 0;
    for (int d = 0; d < 3; d++) {
        ab[d] = b[d] - a[d];
        ap[d] = p[d] - a[d];
        l2 += ab[d] * ab[d];
        t += ab[d] * ap[d];
    }
    t = l2 > 0 ? fmin(1.0, fmax(0.0, t / l2)) : 0.0;
    for (int d = 0; d < 3; d++)
        d2 += (ap[d] - t * ab[d]) * (ap[d] - t * ab[d]);
    return d2;
}

/* A second, independent distance to a triangle: the distance to its
 * plane when p projects inside it (the three edge orientations agree with
 * the normal), else the least of its edges'. */
static double brute_triangle(const double *p, const double *a, const double *b, const double *c)
{
    const double *v[3] = {a, b, c};
    double u[3], w[3], n[3], nn;
    for (int d = 0; d < 3; d++) {
        u[d] = b[d] - a[d];
        w[d] = c[d] - a[d];
    }
    n[0] = u[1] * w[2] - u[2] * w[1];
    n[1] = u[2] * w[0] - u[0] * w[2];
    n[2] = u[0] * w[1] - u[1] * w[0];
    nn = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
    int in = nn > 0;
    for (int e = 0; e < 3 && in; e++) {
        const double *s = v[e], *t = v[(e + 1) % 3];
        double ed[3] = {t[0] - s[0], t[1] - s[1], t[2] - s[2]}, sp[3] = {p[0] - s[0], p[1] - s[1], p[2] - s[2]};
        double x[3] = {ed[1] * sp[2] - ed[2] * sp[1], ed[2] * sp[0] - ed[0] * sp[2],
                       ed[0] * sp[1] - ed[1] * sp[0]};
        in = x[0] * n[0] + x[1] * n[1] + x[2] * n[2] >= 0;
    }
    if (in) {
        double hgt = (p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1] + (p[2] - a[2]) * n[2];
        return fabs(hgt) / sqrt(nn);
    }
    return sqrt(fmin(seg_d2(p, a, b), fmin(seg_d2(p, b, c), seg_d2(p, c, a))));
}

static void test_bunny(void)
{
    fl_mesh m;
    fl_error err = {{0}};
    double lo[3], hi[3];
    if (fl_obj_read(BUNNY_PATH, &m, &err) != FL_OK) {
        ENSURE(0);
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    /* 0.1 m across (the file is about 10 units), the tool's cells and band */
    const double s = 0.01, h = 0.0025, band = 0.02;
    const double a12[12] = {s, 0, 0, 0, 0, s, 0, 0, 0, 0, s, 0};
    fl_mesh_transform(&m, a12);
    fl_mesh_bounds(&m, lo, hi);
    fl_voxel_grid g = grid_around(lo, hi, h, band + 2 * h, 0.0);
    size_t cells = grid_cells(&g);
    float *one = malloc(cells * sizeof *one), *two = malloc(cells * sizeof *two),
          *all = malloc(cells * sizeof *all);
    unsigned char *inside = malloc(cells);
    int saved = omp_get_max_threads();
    double best = INFINITY, t1, t2;

    omp_set_num_threads(1);
    double t0 = omp_get_wtime();
    ENSURE(fl_mesh_signed_distance(&m, &g, band, one, &err) == FL_OK);
    t1 = omp_get_wtime() - t0;
    omp_set_num_threads(2);
    t0 = omp_get_wtime();
    ENSURE(fl_mesh_signed_distance(&m, &g, band, two, &err) == FL_OK);
    t2 = omp_get_wtime() - t0;
    omp_set_num_threads(saved);
    for (int rep = 0; rep < 3; rep++) {
        t0 = omp_get_wtime();
        ENSURE(fl_mesh_signed_distance(&m, &g, band, all, &err) == FL_OK);
        best = fmin(best, omp_get_wtime() - t0);
    }
    printf("  bunny %d triangles at h = %g m, band %g m (%d x %d x %d): 1 thread %.1f ms, "
           "2 threads %.1f ms, %d threads %.1f ms (best of 3)\n",
           m.triangle_count, h, band, g.dims[0], g.dims[1], g.dims[2], 1e3 * t1, 1e3 * t2, saved,
           1e3 * best);
    ENSURE(memcmp(one, two, cells * sizeof *one) == 0); /* bit for bit */
    ENSURE(memcmp(one, all, cells * sizeof *one) == 0);

    /* the sign is fl_voxelize's, at every centre (-0 inside) */
    ENSURE(fl_voxelize(&m, &g, inside, &err) == FL_OK);
    long wrong_sign = 0, sampled = 0, in_band = 0;
    for (size_t c = 0; c < cells; c++)
        wrong_sign += (signbit(one[c]) != 0) != (inside[c] != 0);
    ENSURE(wrong_sign == 0);

    /* every 37th centre against every triangle: 1e-7 m is 50 float
     * roundings at the band */
    double worst = 0;
    for (size_t c = 0; c < cells; c += 37) {
        double p[3], d = INFINITY;
        centre_of(&g, c, p);
        for (int t = 0; t < m.triangle_count; t++) {
            const int *tri = m.tri + 3 * t;
            const double *a = m.v + 3 * tri[0], *b = m.v + 3 * tri[1], *cc = m.v + 3 * tri[2];
            /* skip a triangle whose box is no nearer than the best yet (the
             * box's distance bounds the triangle's from below) */
            double box2 = 0;
            for (int k = 0; k < 3; k++) {
                double out = fmax(fmin(a[k], fmin(b[k], cc[k])) - p[k], p[k] - fmax(a[k], fmax(b[k], cc[k])));
                box2 += out > 0 ? out * out : 0.0;
            }
            if (box2 < d * d)
                d = fmin(d, brute_triangle(p, a, b, cc));
        }
        double want = (inside[c] ? -1 : 1) * fmin(d, band);
        worst = fmax(worst, fabs((double)one[c] - want));
        sampled++;
        in_band += d < band;
    }
    printf("  bunny: %ld centres (%ld within band) against brute force: max error %.3g m\n", sampled,
           in_band, worst);
    ENSURE(worst <= 1e-7);
    ENSURE(in_band > 500);
    free(one);
    free(two);
    free(all);
    free(inside);
    fl_mesh_free(&m);
}

/* ---- 5. refusals ------------------------------------------------------------ */

static void test_refused(void)
{
    fl_mesh m;
    fl_error err = {{0}};
    double hi[3];
    for (int d = 0; d < 3; d++)
        hi[d] = BOX_LO[d] + BOX_SIDE[d];
    fl_voxel_grid g = grid_around(BOX_LO, hi, 0.05, 0.1, 0.3);
    size_t cells = grid_cells(&g);
    float *dist = malloc(cells * sizeof *dist);
    long touched = 0;
    for (size_t c = 0; c < cells; c++)
        dist[c] = 7.0f;

    make_box(&m, BOX_LO, BOX_SIDE, 0, 1); /* one triangle short */
    ENSURE(fl_mesh_signed_distance(&m, &g, 0.1, dist, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "box: edge") && strstr(err.msg, "the mesh has a hole"));
    printf("  open box: %s\n", err.msg);
    fl_mesh_free(&m);

    make_box(&m, BOX_LO, BOX_SIDE, 0, 0);
    ENSURE(fl_mesh_signed_distance(&m, &g, 0.0, dist, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "expected a positive band, got 0") != NULL);
    ENSURE(fl_mesh_signed_distance(&m, &g, NAN, dist, &err) == FL_ERR_INPUT);
    fl_voxel_grid bad = g;
    bad.spacing = -1;
    ENSURE(fl_mesh_signed_distance(&m, &bad, 0.1, dist, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "voxel grid: expected a positive spacing") != NULL);
    bad = g;
    bad.dims[1] = 0;
    ENSURE(fl_mesh_signed_distance(&m, &bad, 0.1, dist, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "expected 1 to 32768 cells along each axis, got 0") != NULL);
    for (size_t c = 0; c < cells; c++)
        touched += dist[c] != 7.0f;
    ENSURE(touched == 0);
    fl_mesh_free(&m);
    free(dist);
}

typedef void (*test_fn)(void);

int main(void)
{
    const struct {
        const char *name;
        test_fn run;
    } tests[] = {{"mass: box", test_mass_box},
                 {"mass: tetrahedron", test_mass_tetrahedron},
                 {"mass: icosphere", test_mass_sphere},
                 {"distance: box", test_sdf_box},        {"distance: icosphere", test_sdf_sphere},
                 {"distance: bunny", test_bunny},        {"refused", test_refused}};
    for (size_t q = 0; q < sizeof tests / sizeof tests[0]; q++) {
        double t0 = omp_get_wtime();
        printf("%s\n", tests[q].name);
        tests[q].run();
        printf("  (%.0f ms)\n", 1e3 * (omp_get_wtime() - t0));
    }
    return fl_test_report("test_mesh_sdf");
}
