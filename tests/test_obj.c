/* test_obj.c: the OBJ reader (scenes/obj.c) and the solid fill
 * (scenes/voxelize.c).
 *
 * Parsing: every face form, polygons, negative indices, skipped statements;
 * bad files refused with one message naming the file and the line. The
 * fill: a unit cube and an octahedron whose vertices, edges and faces lie
 * on cell-centre rays and on cell centres, filled exactly as the tie rule
 * says (docs/methods/voxelize.md); an icosphere made here and the Stanford
 * bunny at the bunny-drop scale within 2 % of their meshes' volumes; open,
 * non-manifold and misoriented meshes refused. FL_SOURCE_DIR (a compile
 * definition) locates reference/bunny.obj. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ensure.h"
#include "obj.h"
#include "voxelize.h"

#ifndef FL_SOURCE_DIR
#error "FL_SOURCE_DIR must name the source tree (tests/CMakeLists.txt defines it)"
#endif

#define BUNNY_PATH FL_SOURCE_DIR "/reference/bunny.obj"

/* The unit cube [0, 1]^3 as quads, counter-clockwise seen from outside. */
#define CUBE_VERTICES                                                          \
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
#define CUBE_SIDES "f 1 4 3 2\nf 1 2 6 5\nf 3 4 8 7\nf 1 5 8 4\nf 2 3 7 6\n"
#define CUBE_TOP "f 5 6 7 8\n"

static int one_line(const char *msg)
{
    return msg[0] != '\0' && strchr(msg, '\n') == NULL;
}

/* Parses text that must be good. */
static void parse_ok(const char *text, fl_mesh *m)
{
    fl_error err = {{0}};
    int rc = fl_obj_parse(text, "good.obj", m, &err);
    ENSURE(rc == FL_OK);
    if (rc != FL_OK)
        fprintf(stderr, "  unexpected failure: %s\n", err.msg);
}

/* The parse of text must fail with one line starting with prefix (the file
 * and the line) and containing needle, and leave the mesh empty. */
static void expect_bad(const char *text, const char *prefix, const char *needle)
{
    fl_mesh m;
    fl_error err = {{0}};
    int rc = fl_obj_parse(text, "bad.obj", &m, &err);
    ENSURE(rc == FL_ERR_INPUT);
    ENSURE(one_line(err.msg));
    ENSURE(strncmp(err.msg, prefix, strlen(prefix)) == 0);
    ENSURE(strstr(err.msg, needle) != NULL);
    ENSURE(m.v == NULL && m.tri == NULL && m.vertex_count == 0 && m.triangle_count == 0);
    if (rc != FL_ERR_INPUT || strncmp(err.msg, prefix, strlen(prefix)) != 0 ||
        strstr(err.msg, needle) == NULL)
        fprintf(stderr, "  got \"%s\", expected \"%s...%s\"\n", err.msg, prefix, needle);
}

static int triangle_is(const fl_mesh *m, int t, int a, int b, int c)
{
    const int *tri = m->tri + 3 * t;
    return tri[0] == a && tri[1] == b && tri[2] == c;
}

/* ---- (a) parsing ---------------------------------------------------------- */

static void test_face_forms(void)
{
    /* the unit tetrahedron, one face in each form, among every skipped
     * statement, comments, blank lines, a w coordinate and CRLF endings */
    const char *text = "# a tetrahedron\r\n"
                       "mtllib t.mtl\n"
                       "o tet\ng body\ns off\nusemtl steel\n"
                       "\n"
                       "v 0 0 0 1.0\nv 1 0 0\nv 0 1 0\nv 0 0 1  # the apex\n"
                       "vt 0 0\nvt 1 0\nvt 0 1\n"
                       "vn 0 0 -1\nvn 0 -1 0\nvn -1 0 0\nvn 1 1 1\n"
                       "vp 0.5\n"
                       "f 1 3 2\r\n"
                       "f 1/1 2/2 4/3\n"
                       "f 1//3 4//3 3//3\n"
                       "f 2/1/4 3/2/4 4/3/4\n"
                       "l 1 2\np 3\n";
    fl_mesh m;
    fl_error err = {{0}};
    parse_ok(text, &m);
    ENSURE(m.vertex_count == 4);
    ENSURE(m.triangle_count == 4);
    ENSURE(triangle_is(&m, 0, 0, 2, 1));
    ENSURE(triangle_is(&m, 1, 0, 1, 3));
    ENSURE(triangle_is(&m, 2, 0, 3, 2));
    ENSURE(triangle_is(&m, 3, 1, 2, 3));
    ENSURE(m.v[9] == 0 && m.v[10] == 0 && m.v[11] == 1); /* exact: parsed "0 0 1" */
    ENSURE(strcmp(m.source, "good.obj") == 0);
    /* 1/6, up to rounding of a few products of 0s and 1s */
    ENSURE_NEAR(fl_mesh_volume(&m), 1.0 / 6.0, 1e-15);
    ENSURE(fl_mesh_check_closed(&m, &err) == FL_OK);
    double lo[3], hi[3];
    fl_mesh_bounds(&m, lo, hi);
    ENSURE(lo[0] == 0 && lo[1] == 0 && lo[2] == 0 && hi[0] == 1 && hi[1] == 1 && hi[2] == 1);
    fl_mesh_free(&m);
    ENSURE(m.v == NULL && m.tri == NULL);
}

/* Lines that end in a lone CR (classic Mac OS) are lines: the same mesh
 * as with LF, and an error names the line it is on. */
static void test_cr_endings(void)
{
    fl_mesh lf, cr;
    parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n", &lf);
    parse_ok("v 0 0 0\rv 1 0 0\rv 0 1 0\r\rv 0 0 1\rf 1 3 2\rf 1 2 4\r\nf 1 4 3\rf 2 3 4", &cr);
    ENSURE(lf.vertex_count == 4 && cr.vertex_count == 4 && lf.triangle_count == 4 && cr.triangle_count == 4);
    ENSURE(memcmp(lf.v, cr.v, 12 * sizeof *lf.v) == 0 && memcmp(lf.tri, cr.tri, 12 * sizeof *lf.tri) == 0);
    fl_mesh_free(&lf);
    fl_mesh_free(&cr);
    expect_bad("v 0 0 0\rv 1 0 0\r\rf 1 2 x\r", "bad.obj:4: ", "f: expected");
}

static void test_polygons_and_negative_indices(void)
{
    fl_mesh m;
    /* a pentagon: the fan (1 2 3), (1 3 4), (1 4 5) */
    parse_ok("v 0 0 0\nv 1 0 0\nv 2 1 0\nv 1 2 0\nv 0 1 0\nf 1 2 3 4 5\n", &m);
    ENSURE(m.triangle_count == 3);
    ENSURE(triangle_is(&m, 0, 0, 1, 2) && triangle_is(&m, 1, 0, 2, 3) &&
           triangle_is(&m, 2, 0, 3, 4));
    fl_mesh_free(&m);

    /* negative indices count back from the last vertex (or texture
     * coordinate) read so far */
    parse_ok("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\nv 0 0 1\nvt 0 0\nf -4/-1 -1/1 -2\n", &m);
    ENSURE(m.vertex_count == 4);
    ENSURE(m.triangle_count == 2);
    ENSURE(triangle_is(&m, 0, 0, 1, 2));
    ENSURE(triangle_is(&m, 1, 0, 3, 2));
    fl_mesh_free(&m);
}

static void test_bad_files(void)
{
    /* the bad line is line 4: after a comment, a blank line and a vertex */
#define HEAD "# header\n\nv 0 0 0\n"
    expect_bad(HEAD "v 1 2\n", "bad.obj:4: ", "v: expected the z coordinate (a number), got the end");
    expect_bad(HEAD "v 1 2 x\n", "bad.obj:4: ", "v: expected the z coordinate (a number), got \"x\"");
    expect_bad(HEAD "v 1 2 3 4 5\n", "bad.obj:4: ", "got 5 numbers");
    expect_bad(HEAD "v 1 2 3 4 5 6 7\n", "bad.obj:4: ", "got \"7\"");
    expect_bad(HEAD "v 1 2 inf\n", "bad.obj:4: ", "got \"inf\"");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 1 2 x\n", "bad.obj:6: ",
               "f: expected a vertex index (a non-zero integer), got \"x\"");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 1 2 9\n", "bad.obj:6: ",
               "f: vertex index 9 is out of range (3 vertices so far)");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 1 2 -4\n", "bad.obj:6: ",
               "f: vertex index -4 is out of range (3 vertices so far)");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 0 1 2\n", "bad.obj:6: ", "got \"0\"");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 1 2\n", "bad.obj:6: ",
               "f: expected at least 3 vertices, got 2");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 1/1 2/1 3/1\n", "bad.obj:6: ",
               "f: texture coordinate index 1 is out of range (0 so far)");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nvn 0 0 1\nf 1//2 2//1 3//1\n", "bad.obj:7: ",
               "f: normal index 2 is out of range (1 so far)");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 1// 2 3\n", "bad.obj:6: ",
               "f: expected a normal index after the second '/', got \"1//\"");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 1/ 2 3\n", "bad.obj:6: ",
               "f: expected a texture coordinate index after '/', got \"1/\"");
    expect_bad(HEAD "v 1 0 0\nv 0 1 0\nf 1/1/1/1 2 3\n", "bad.obj:6: ",
               "f: expected v, v/vt, v//vn or v/vt/vn, got \"1/1/1/1\"");
    expect_bad(HEAD "cstype bspline\n", "bad.obj:4: ", "expected a statement (v, f,");
    expect_bad(HEAD "v 1 0 0\n", "bad.obj: ", "expected faces (f lines), got none");
#undef HEAD
}

static void test_read_file(void)
{
    fl_mesh m;
    fl_error err = {{0}};
    const char *path = "test_obj_bad.obj";
    FILE *f;

    ENSURE(fl_obj_read("no_such_dir/none.obj", &m, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, "no_such_dir/none.obj: cannot open") == err.msg);

    f = fopen(path, "w");
    ENSURE(f != NULL);
    if (f) {
        fputs("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 q\n", f);
        fclose(f);
        ENSURE(fl_obj_read(path, &m, &err) == FL_ERR_INPUT);
        ENSURE(strncmp(err.msg, "test_obj_bad.obj:4: f: expected a vertex index", 46) == 0);
        remove(path);
    }

    /* the shipped bunny: its header says 1839 vertices and 3674 triangles */
    ENSURE(fl_obj_read(BUNNY_PATH, &m, &err) == FL_OK);
    ENSURE(m.vertex_count == 1839);
    ENSURE(m.triangle_count == 3674);
    ENSURE(fl_mesh_check_closed(&m, &err) == FL_OK);
    ENSURE(fl_mesh_volume(&m) > 0);
    fl_mesh_free(&m);
}

/* ---- (b) the fill --------------------------------------------------------- */

static long count_inside(const unsigned char *inside, const fl_voxel_grid *g)
{
    long n = 0;
    for (long c = 0; c < (long)g->dims[0] * g->dims[1] * g->dims[2]; c++)
        n += inside[c];
    return n;
}

/* Fills m on g and compares every cell with want(centre); returns the
 * count inside, or -1 when the fill failed. */
static long fill_and_compare(const fl_mesh *m, const fl_voxel_grid *g,
                             int (*want)(const double *p), long *mismatches)
{
    size_t cells = (size_t)g->dims[0] * g->dims[1] * g->dims[2];
    unsigned char *inside = malloc(cells);
    fl_error err = {{0}};
    long n = -1;
    *mismatches = 0;
    if (!inside)
        return -1;
    if (fl_voxelize(m, g, inside, &err) == FL_OK) {
        for (int k = 0; k < g->dims[2]; k++)
            for (int j = 0; j < g->dims[1]; j++)
                for (int i = 0; i < g->dims[0]; i++) {
                    double p[3] = {g->origin[0] + (i + 0.5) * g->spacing,
                                   g->origin[1] + (j + 0.5) * g->spacing,
                                   g->origin[2] + (k + 0.5) * g->spacing};
                    size_t c = (size_t)i + (size_t)g->dims[0] * ((size_t)j + (size_t)g->dims[1] * k);
                    *mismatches += inside[c] != want(p);
                }
        n = count_inside(inside, g);
    } else {
        fprintf(stderr, "  fill failed: %s\n", err.msg);
    }
    free(inside);
    return n;
}

/* The tie rule: a centre on the surface is inside when moving it by
 * (e1, e2, e3), e1 >> e2 >> e3 > 0, takes it inside. For the cube
 * [0, 1]^3: each coordinate in [0, 1). */
static int in_unit_cube(const double *p)
{
    return p[0] >= 0 && p[0] < 1 && p[1] >= 0 && p[1] < 1 && p[2] >= 0 && p[2] < 1;
}

/* For |x| + |y| + |z| <= 1 (centres at multiples of 1/4, so the sum is
 * exact): on the surface, x < 0 moves inside; x = 0 moves out (|e1|
 * grows the sum), and x > 0 moves out. */
static int in_octahedron(const double *p)
{
    double s = fabs(p[0]) + fabs(p[1]) + fabs(p[2]);
    return s < 1 || (s == 1 && p[0] < 0);
}

static void test_cube_exact(void)
{
    fl_mesh m;
    fl_voxel_grid g;
    long mismatches;
    parse_ok(CUBE_VERTICES CUBE_SIDES CUBE_TOP, &m);
    ENSURE(m.triangle_count == 12);
    ENSURE_NEAR(fl_mesh_volume(&m), 1.0, 1e-15); /* exact up to rounding of 0/1 products */

    /* spacings 1/2, 1/4, 1/8 with centres on the planes 0 and 1: every
     * face, edge, face diagonal and vertex lies on cell-centre rays */
    for (int level = 1; level <= 3; level++) {
        double h = ldexp(1.0, -level);
        int n = (1 << level) + 3;
        g = (fl_voxel_grid){{-h / 2 - h, -h / 2 - h, -h / 2 - h}, h, {n, n, n}};
        long inside = fill_and_compare(&m, &g, in_unit_cube, &mismatches);
        /* exact: (1/h)^3 cells of volume h^3, and every cell as the rule says */
        ENSURE(inside == (1L << (3 * level)));
        ENSURE(mismatches == 0);
        ENSURE(inside * h * h * h == 1.0);
    }

    /* centres off the faces: the same count */
    g = (fl_voxel_grid){{-0.5, -0.5, -0.5}, 0.25, {8, 8, 8}};
    ENSURE(fill_and_compare(&m, &g, in_unit_cube, &mismatches) == 64 && mismatches == 0);

    /* mirrored by x -> -x and moved back: the mesh stays outward (volume
     * +1, exact) and the fill is the same cube with x in (0, 1] */
    const double mirror[12] = {-1, 0, 0, 1, 0, 1, 0, 0, 0, 0, 1, 0};
    fl_mesh_transform(&m, mirror);
    ENSURE_NEAR(fl_mesh_volume(&m), 1.0, 1e-15);
    g = (fl_voxel_grid){{-0.375, -0.375, -0.375}, 0.25, {7, 7, 7}};
    ENSURE(fill_and_compare(&m, &g, in_unit_cube, &mismatches) == 64);
    fl_mesh_free(&m);
}

/* The octahedron |x| + |y| + |z| <= 1, written as OBJ text. */
static void test_octahedron_exact(void)
{
    static const char *text = "v 1 0 0\nv -1 0 0\nv 0 1 0\nv 0 -1 0\nv 0 0 1\nv 0 0 -1\n"
                              "f 1 3 5\nf 3 2 5\nf 2 4 5\nf 4 1 5\n"
                              "f 3 1 6\nf 2 3 6\nf 4 2 6\nf 1 4 6\n";
    fl_mesh m;
    long mismatches;
    parse_ok(text, &m);
    ENSURE_NEAR(fl_mesh_volume(&m), 4.0 / 3.0, 1e-15); /* 4/3, to rounding */
    /* centres at multiples of 1/4: the rays pass through its six vertices,
     * along its edges' planes, and centres lie on its faces and edges */
    fl_voxel_grid g = {{-1.375, -1.375, -1.375}, 0.25, {11, 11, 11}};
    long inside = fill_and_compare(&m, &g, in_octahedron, &mismatches);
    ENSURE(inside > 0);
    ENSURE(mismatches == 0); /* exact: every cell as the tie rule says */
    fl_mesh_free(&m);
}

/* An icosphere of radius r about c: the icosahedron subdivided `levels`
 * times, its vertices pushed onto the sphere, written as OBJ text
 * (malloc'd). */
static char *icosphere_obj(int levels, double r, const double *c)
{
    const double t = (1.0 + sqrt(5.0)) / 2.0;
    const double base[12][3] = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0},
                                {0, -1, t}, {0, 1, t}, {0, -1, -t}, {0, 1, -t},
                                {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
    const int faces[20][3] = {{0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11},
                              {1, 5, 9},  {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
                              {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},
                              {4, 9, 5},  {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
    int nt = 20, nv = 12, final_t = 20 << (2 * levels), final_v = final_t / 2 + 2;
    double *v = malloc(3 * (size_t)final_v * sizeof *v);
    int *tri = malloc(3 * (size_t)final_t * sizeof *tri), *next = malloc(3 * (size_t)final_t * sizeof *next);
    int *edge = malloc(3 * (size_t)final_t * sizeof *edge); /* (a, b, midpoint) */
    char *text = malloc((size_t)final_v * 80 + (size_t)final_t * 40 + 1);
    memcpy(v, base, sizeof base);
    memcpy(tri, faces, sizeof faces);
    for (int l = 0; l < levels; l++) {
        int ne = 0;
        for (int f = 0; f < nt; f++) {
            int mid[3];
            for (int e = 0; e < 3; e++) {
                int a = tri[3 * f + e], b = tri[3 * f + (e + 1) % 3], lo = a < b ? a : b,
                    hi = a < b ? b : a, found = -1;
                for (int q = 0; q < ne && found < 0; q++)
                    if (edge[3 * q] == lo && edge[3 * q + 1] == hi)
                        found = edge[3 * q + 2];
                if (found < 0) {
                    for (int d = 0; d < 3; d++)
                        v[3 * nv + d] = 0.5 * (v[3 * a + d] + v[3 * b + d]);
                    edge[3 * ne] = lo;
                    edge[3 * ne + 1] = hi;
                    edge[3 * ne + 2] = found = nv++;
                    ne++;
                }
                mid[e] = found;
            }
            int *o = next + 12 * f, a = tri[3 * f], b = tri[3 * f + 1], cc = tri[3 * f + 2];
            int kids[12] = {a, mid[0], mid[2], b, mid[1], mid[0], cc, mid[2], mid[1],
                            mid[0], mid[1], mid[2]};
            memcpy(o, kids, sizeof kids);
        }
        nt *= 4;
        memcpy(tri, next, 3 * (size_t)nt * sizeof *tri);
    }
    size_t at = 0;
    for (int k = 0; k < nv; k++) {
        double *p = v + 3 * k, len = sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
        at += (size_t)sprintf(text + at, "v %.17g %.17g %.17g\n", c[0] + r * p[0] / len,
                              c[1] + r * p[1] / len, c[2] + r * p[2] / len);
    }
    for (int f = 0; f < nt; f++)
        at += (size_t)sprintf(text + at, "f %d %d %d\n", tri[3 * f] + 1, tri[3 * f + 1] + 1,
                              tri[3 * f + 2] + 1);
    free(v);
    free(tri);
    free(next);
    free(edge);
    return text;
}

/* Fills m on a grid of spacing h around its box (two spare cells a side);
 * returns the filled volume. */
static double filled_volume(const fl_mesh *m, double h, fl_voxel_grid *g, double *seconds)
{
    double lo[3], hi[3];
    fl_error err = {{0}};
    fl_mesh_bounds(m, lo, hi);
    for (int d = 0; d < 3; d++) {
        g->origin[d] = lo[d] - 2 * h;
        g->dims[d] = (int)ceil((hi[d] - lo[d]) / h) + 4;
    }
    g->spacing = h;
    unsigned char *inside = malloc((size_t)g->dims[0] * g->dims[1] * g->dims[2]);
    double t0 = omp_get_wtime(), v = -1;
    if (inside && fl_voxelize(m, g, inside, &err) == FL_OK)
        v = (double)count_inside(inside, g) * h * h * h;
    else
        fprintf(stderr, "  fill failed: %s\n", err.msg);
    *seconds = omp_get_wtime() - t0;
    free(inside);
    return v;
}

static void test_icosphere(void)
{
    const double centre[3] = {0.3, 0.2, 0.1};
    char *text = icosphere_obj(3, 0.1, centre);
    fl_mesh m;
    fl_voxel_grid g;
    fl_error err = {{0}};
    double seconds;
    parse_ok(text, &m);
    free(text);
    ENSURE(m.vertex_count == 642 && m.triangle_count == 1280);
    ENSURE(fl_mesh_check_closed(&m, &err) == FL_OK);
    double mesh_v = fl_mesh_volume(&m), sphere_v = 4.0 / 3.0 * acos(-1.0) * 1e-3;
    /* the inscribed polyhedron: a little under the sphere (0.6 % here), within 2 % */
    ENSURE(mesh_v < sphere_v && mesh_v > 0.98 * sphere_v);
    double fill_v = filled_volume(&m, 0.005, &g, &seconds);
    printf("icosphere r = 0.1 at h = 0.005 (%d x %d x %d): mesh %.6g, fill %.6g m^3 (%+.3f %%), %.1f ms\n",
           g.dims[0], g.dims[1], g.dims[2], mesh_v, fill_v, 100 * (fill_v / mesh_v - 1),
           1e3 * seconds);
    ENSURE_NEAR(fill_v / mesh_v, 1.0, 0.02); /* the 2 % */
    fl_mesh_free(&m);
}

/* The bunny scaled to 0.2 m across its longest side, at the bunny-drop
 * spacing 0.005 m; the fill does not depend on the thread count; the
 * points are the centres of the cells inside. */
static void test_bunny(void)
{
    fl_mesh m;
    fl_voxel_grid g;
    fl_error err = {{0}};
    double lo[3], hi[3], seconds;
    if (fl_obj_read(BUNNY_PATH, &m, &err) != FL_OK) {
        ENSURE(0);
        fprintf(stderr, "  %s\n", err.msg);
        return;
    }
    fl_mesh_bounds(&m, lo, hi);
    double extent = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])), s = 0.2 / extent;
    const double a[12] = {s, 0, 0, 0.5 - s * lo[0], 0, s, 0, 0.1 - s * lo[1],
                          0, 0, s, 0.3 - s * lo[2]};
    fl_mesh_transform(&m, a);
    fl_mesh_bounds(&m, lo, hi);
    /* 0.2 m, to rounding */
    ENSURE_NEAR(fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])), 0.2, 1e-12);
    double mesh_v = fl_mesh_volume(&m);
    double fill_v = filled_volume(&m, 0.005, &g, &seconds);
    printf("bunny 0.2 m at h = 0.005 (%d x %d x %d): mesh %.6g, fill %.6g m^3 (%+.3f %%), %.1f ms\n",
           g.dims[0], g.dims[1], g.dims[2], mesh_v, fill_v, 100 * (fill_v / mesh_v - 1),
           1e3 * seconds);
    ENSURE_NEAR(fill_v / mesh_v, 1.0, 0.02); /* the 2 % */

    /* the same cells on one thread and on three */
    size_t cells = (size_t)g.dims[0] * g.dims[1] * g.dims[2];
    unsigned char *one = malloc(cells), *three = malloc(cells);
    int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    ENSURE(fl_voxelize(&m, &g, one, &err) == FL_OK);
    omp_set_num_threads(3);
    ENSURE(fl_voxelize(&m, &g, three, &err) == FL_OK);
    omp_set_num_threads(saved);
    ENSURE(memcmp(one, three, cells) == 0); /* exact: bit for bit */

    double *points;
    int count;
    ENSURE(fl_voxelize_points(&m, &g, &points, &count, &err) == FL_OK);
    ENSURE(count == count_inside(one, &g));
    ENSURE(count > 0);
    long bad = 0;
    for (int q = 0; q < count; q++) {
        double *p = points + 3 * q;
        /* a centre: origin + (i + 1/2) h for an integer i, to 1e-9 cells */
        for (int d = 0; d < 3; d++) {
            double i = (p[d] - g.origin[d]) / g.spacing - 0.5;
            bad += fabs(i - nearbyint(i)) > 1e-9;
        }
        size_t c = (size_t)nearbyint((p[0] - g.origin[0]) / g.spacing - 0.5) +
                   (size_t)g.dims[0] * ((size_t)nearbyint((p[1] - g.origin[1]) / g.spacing - 0.5) +
                                        (size_t)g.dims[1] *
                                            (size_t)nearbyint((p[2] - g.origin[2]) / g.spacing - 0.5));
        bad += !one[c];
    }
    ENSURE(bad == 0);
    free(points);
    free(one);
    free(three);
    fl_mesh_free(&m);
}

/* ---- (c) meshes refused --------------------------------------------------- */

/* The fill of text must fail with one line containing needle. */
static void expect_refused(const char *text, const char *needle)
{
    fl_mesh m;
    fl_error err = {{0}};
    fl_voxel_grid g = {{-0.5, -0.5, -0.5}, 0.25, {8, 8, 8}};
    unsigned char inside[512];
    double *points = (double *)inside;
    int count = 1;
    parse_ok(text, &m);
    ENSURE(fl_voxelize(&m, &g, inside, &err) == FL_ERR_INPUT);
    ENSURE(one_line(err.msg));
    ENSURE(strstr(err.msg, needle) != NULL);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "  got \"%s\", expected \"%s\"\n", err.msg, needle);
    ENSURE(fl_voxelize_points(&m, &g, &points, &count, &err) == FL_ERR_INPUT);
    ENSURE(points == NULL && count == 0);
    fl_mesh_free(&m);
}

static void test_refused(void)
{
    /* the cube without its top: edge (v5, v6) is the first of the hole's */
    expect_refused(CUBE_VERTICES CUBE_SIDES,
                   "good.obj: edge (v5, v6) is used by 1 triangle: the mesh has a hole");
    /* two tetrahedra sharing the edge (v1, v2) */
    expect_refused("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nv 0 -1 0\nv 0 0 -1\n"
                   "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n"
                   "f 1 5 2\nf 1 2 6\nf 1 6 5\nf 2 5 6\n",
                   "good.obj: edge (v1, v2) is used by 4 triangles: the mesh is not manifold");
    /* the cube with its top turned inside out */
    expect_refused(CUBE_VERTICES CUBE_SIDES "f 8 7 6 5\n",
                   "is used twice in the same direction: the faces are not consistently oriented");
    expect_refused(CUBE_VERTICES CUBE_SIDES CUBE_TOP "f 1 1 2\n",
                   "good.obj: triangle 13 repeats vertex v1");

    /* a bad grid */
    fl_mesh m;
    fl_error err = {{0}};
    unsigned char inside[8];
    parse_ok(CUBE_VERTICES CUBE_SIDES CUBE_TOP, &m);
    fl_voxel_grid g = {{0, 0, 0}, 0, {2, 2, 2}};
    ENSURE(fl_voxelize(&m, &g, inside, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "expected a positive spacing") != NULL);
    g = (fl_voxel_grid){{0, 0, 0}, 1, {2, 0, 2}};
    ENSURE(fl_voxelize(&m, &g, inside, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "expected 1 to 32768 cells along each axis, got 0") != NULL);
    /* a mesh 1e6 cells away in y */
    g = (fl_voxel_grid){{0, -1e6, 0}, 1, {2, 2, 2}};
    ENSURE(fl_voxelize(&m, &g, inside, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "cells from the grid in y, more than 32768") != NULL);
    fl_mesh_free(&m);
}

int main(void)
{
    test_face_forms();
    test_cr_endings();
    test_polygons_and_negative_indices();
    test_bad_files();
    test_read_file();
    test_cube_exact();
    test_octahedron_exact();
    test_icosphere();
    test_bunny();
    test_refused();
    return fl_test_report("test_obj");
}
