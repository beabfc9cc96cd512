/* test_marching.c: marching cubes (grid/marching.h) and the mesh writers
 * (grid/obj_write.h, grid/vtp_write.h).
 *  - the cube tables obey the rules mc_tables.h states;
 *  - every one of the 256 sign patterns of one cube, with random
 *    magnitudes (so the asymptotic decider goes both ways) and with ties,
 *    and random fields on 8^3 grids (random values and values in
 *    {-1, 0, 1}), padded: the mesh is closed and consistently oriented
 *    (every edge in exactly two triangles, run through in opposite
 *    directions) and encloses a positive volume; the same mesh for 1 and
 *    2 threads;
 *  - a sphere's signed distance at 64^3: closed, one vertex per crossed
 *    grid edge, area and volume within 1 % of the sphere's, outward,
 *    normals radial;
 *  - a box filling the grid and a layer of fluid on the floor: open
 *    without padding, closed with it;
 *  - the OBJ file read back with the counts and values written, and by
 *    the project's OBJ reader with the same counts; a write that cannot
 *    happen fails and leaves the previous file alone; the same mesh as
 *    .vtp (grid/vtp_write.h): its counts and time, and a time that is not
 *    finite and a full disk refused.
 * Closed and the volume are the OBJ reader's fl_mesh_check_closed and
 * fl_mesh_volume (scenes/obj.h), on a copy of the mesh.
 * Files go to a scratch folder under /tmp. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ensure.h"
#include "marching.h"
#include "mc_tables.h"
#include "mesh_check.h"
#include "obj.h"
#include "obj_write.h"
#include "vtp_write.h"

static char scratch[64];

/* ---- mesh checks ------------------------------------------------------- */

/* The area of m's triangles. */
static double mesh_area(const fl_trimesh *m)
{
    double a = 0.0;
    for (int t = 0; t < m->ntri; t++) {
        const float *p = m->pos + 3 * m->tri[3 * t], *q = m->pos + 3 * m->tri[3 * t + 1],
                    *r = m->pos + 3 * m->tri[3 * t + 2];
        double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
        double v[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
        double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        a += 0.5 * sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
    }
    return a;
}

static int meshes_equal(const fl_trimesh *a, const fl_trimesh *b)
{
    return a->nvert == b->nvert && a->ntri == b->ntri &&
           memcmp(a->pos, b->pos, 3 * (size_t)a->nvert * sizeof(float)) == 0 &&
           memcmp(a->normal, b->normal, 3 * (size_t)a->nvert * sizeof(float)) == 0 &&
           memcmp(a->tri, b->tri, 3 * (size_t)a->ntri * sizeof(int)) == 0;
}

/* The grid edges of f whose ends are on opposite sides (phi < 0 inside). */
static int crossed_edges(const fl_field *f)
{
    const int *n = f->dim;
    int count = 0;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                size_t c = (size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * k);
                int in = f->phi[c] < 0.0f;
                count += i + 1 < n[0] && in != (f->phi[c + 1] < 0.0f);
                count += j + 1 < n[1] && in != (f->phi[c + n[0]] < 0.0f);
                count += k + 1 < n[2] && in != (f->phi[c + (size_t)n[0] * n[1]] < 0.0f);
            }
    return count;
}

/* ---- the tables -------------------------------------------------------- */

static void test_tables(void)
{
    for (int c = 0; c < 8; c++)
        for (int a = 0; a < 3; a++)
            ENSURE(fl_mc_corner_offset[c][a] == ((c >> a) & 1));
    for (int e = 0; e < 12; e++) {
        int a = fl_mc_edge_corner[e][0], b = fl_mc_edge_corner[e][1];
        ENSURE(b - a == 1 << (e / 4)); /* along axis e / 4, lower corner first */
    }
    int on_faces[12] = {0}, direction[12] = {0};
    for (int f = 0; f < 6; f++) {
        const int *c = fl_mc_face_corner[f];
        int axis = f / 2, side = f % 2;
        for (int q = 0; q < 4; q++) {
            ENSURE(fl_mc_corner_offset[c[q]][axis] == side);
            int a = c[q], b = c[(q + 1) % 4], e = fl_mc_face_edge[f][q];
            ENSURE((fl_mc_edge_corner[e][0] == a && fl_mc_edge_corner[e][1] == b) ||
                   (fl_mc_edge_corner[e][0] == b && fl_mc_edge_corner[e][1] == a));
            on_faces[e]++;
            direction[e] += fl_mc_edge_corner[e][0] == a ? 1 : -1;
        }
        /* counter-clockwise seen from outside: (c1 - c0) x (c2 - c1) along the outward normal */
        int u[3], v[3];
        for (int a = 0; a < 3; a++) {
            u[a] = fl_mc_corner_offset[c[1]][a] - fl_mc_corner_offset[c[0]][a];
            v[a] = fl_mc_corner_offset[c[2]][a] - fl_mc_corner_offset[c[1]][a];
        }
        int n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        for (int a = 0; a < 3; a++)
            ENSURE(n[a] == (a == axis ? (side ? 1 : -1) : 0));
    }
    for (int e = 0; e < 12; e++)
        ENSURE(on_faces[e] == 2 && direction[e] == 0); /* two faces, opposite directions */
}

/* ---- closed for every configuration ----------------------------------- */

static double uniform(unsigned *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (*state >> 8) / 16777216.0;
}

/* Meshes f padded with 1 and checks it closed, oriented and enclosing a
 * positive volume (none when nothing is inside); returns the mesh's
 * triangle count, or -1 when a check failed. */
static int closed_case(const fl_field *f)
{
    fl_trimesh m;
    fl_error err;
    if (fl_marching_cubes(f, 1.0, &m, &err) != FL_OK) {
        fprintf(stderr, "marching cubes failed: %s\n", err.msg);
        return -1;
    }
    size_t n = (size_t)f->dim[0] * f->dim[1] * f->dim[2];
    int any_inside = 0;
    for (size_t i = 0; i < n; i++)
        any_inside |= f->phi[i] < 0.0f;
    double vol;
    int closed = mesh_closed(&m, &vol, &err) == FL_OK;
    int ok = closed && (any_inside ? vol > 0.0 : m.ntri == 0);
    if (!ok)
        fprintf(stderr, "%dx%dx%d field (phi[0] %g): %s, volume %g\n", f->dim[0], f->dim[1], f->dim[2],
                (double)f->phi[0], closed ? "closed" : err.msg, vol);
    int ntri = m.ntri;
    fl_trimesh_free(&m);
    return ok ? ntri : -1;
}

static void test_all_cube_cases(void)
{
    fl_field f = {.dim = {2, 2, 2}, .origin = {0, 0, 0}, .spacing = 1.0};
    float phi[8];
    f.phi = phi;
    unsigned state = 12345;
    int failed = 0, ambiguous_both = 0;
    for (int config = 0; config < 256; config++) {
        /* magnitude 1 everywhere (every decider ties), then 16 random draws */
        for (int draw = 0; draw <= 16; draw++) {
            for (int c = 0; c < 8; c++) {
                float mag = draw == 0 ? 1.0f : (float)(0.05 + uniform(&state));
                phi[c] = (config >> c) & 1 ? -mag : mag;
            }
            failed += closed_case(&f) < 0;
        }
        /* the checkerboard face x = 0 (corners 0, 2, 6, 4 alternate) both ways */
        if (config == 0x09 || config == 0x69) {
            int counts[2];
            for (int way = 0; way < 2; way++) {
                for (int c = 0; c < 8; c++)
                    phi[c] = (config >> c) & 1 ? -1.0f : 1.0f;
                phi[0] = way ? -2.0f : -0.5f; /* inside diagonal 0-6: product 2 or 0.5 against 1 */
                counts[way] = closed_case(&f);
            }
            ambiguous_both += counts[0] >= 0 && counts[1] >= 0 && counts[0] != counts[1];
        }
    }
    ENSURE(failed == 0);
    ENSURE(ambiguous_both == 2); /* the decider changed the mesh, closed both ways */
}

static void test_random_fields(void)
{
    enum { N = 8, SEEDS = 300 };
    float phi[N * N * N];
    fl_field f = {.phi = phi, .dim = {N, N, N}, .origin = {-1, 0, 1}, .spacing = 0.25};
    unsigned state = 777;
    int failed = 0, differ = 0;
    for (int seed = 0; seed < SEEDS; seed++) {
        int ternary = seed % 3 == 2; /* values in {-1, 0, 1}: zeros at nodes */
        for (int i = 0; i < N * N * N; i++) {
            double u = uniform(&state);
            phi[i] = ternary ? (float)((int)(3.0 * u) - 1) : (float)(2.0 * u - 1.0);
        }
        failed += closed_case(&f) < 0;
        if (seed % 50 == 0) {
            fl_trimesh one, two;
            fl_error err;
            omp_set_num_threads(1);
            ENSURE(fl_marching_cubes(&f, 1.0, &one, &err) == FL_OK);
            omp_set_num_threads(2);
            ENSURE(fl_marching_cubes(&f, 1.0, &two, &err) == FL_OK);
            differ += !meshes_equal(&one, &two);
            fl_trimesh_free(&one);
            fl_trimesh_free(&two);
        }
    }
    ENSURE(failed == 0);
    ENSURE(differ == 0);
}

/* ---- the sphere -------------------------------------------------------- */

static void test_sphere(void)
{
    enum { N = 64 };
    const double h = 1.0 / (N - 1), r = 0.35, c[3] = {0.5, 0.5, 0.5};
    float *phi = malloc((size_t)N * N * N * sizeof(float));
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double x = i * h - c[0], y = j * h - c[1], z = k * h - c[2];
                phi[i + N * (j + N * k)] = (float)(sqrt(x * x + y * y + z * z) - r);
            }
    fl_field f = {.phi = phi, .dim = {N, N, N}, .origin = {0, 0, 0}, .spacing = h};
    fl_trimesh m;
    fl_error err;
    ENSURE(fl_marching_cubes(&f, 0.0, &m, &err) == FL_OK);
    double vol, area = mesh_area(&m);
    ENSURE(mesh_closed(&m, &vol, &err) == FL_OK);
    ENSURE(m.nvert == crossed_edges(&f)); /* one vertex per crossed edge, none added */
    const double pi = 3.14159265358979323846;
    double area_exact = 4.0 * pi * r * r, vol_exact = 4.0 / 3.0 * pi * r * r * r;
    /* 1 % (the target); positive volume: outward orientation */
    ENSURE(fabs(area / area_exact - 1.0) < 0.01);
    ENSURE(fabs(vol / vol_exact - 1.0) < 0.01);
    ENSURE(vol > 0.0);
    double worst = 0.0, worst_radius = 0.0;
    for (int v = 0; v < m.nvert; v++) {
        const float *p = m.pos + 3 * v, *n = m.normal + 3 * v;
        double d[3] = {p[0] - c[0], p[1] - c[1], p[2] - c[2]};
        double len = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        double cosang = (d[0] * n[0] + d[1] * n[1] + d[2] * n[2]) / len;
        double ang = acos(cosang > 1.0 ? 1.0 : cosang) * 180.0 / pi;
        worst = ang > worst ? ang : worst;
        worst_radius = fabs(len - r) > worst_radius ? fabs(len - r) : worst_radius;
    }
    /* normals: within 2 degrees of the radial direction; vertices: within
     * a tenth of a spacing of the sphere (linear interpolation of a
     * distance along a chord) */
    ENSURE(worst < 2.0);
    ENSURE(worst_radius < 0.1 * h);
    printf("sphere 64^3: %d vertices, %d triangles, area %+.3f %%, volume %+.3f %%, "
           "normals within %.3f deg, vertices within %.4f spacings\n",
           m.nvert, m.ntri, 100.0 * (area / area_exact - 1.0), 100.0 * (vol / vol_exact - 1.0), worst,
           worst_radius / h);
    fl_trimesh_free(&m);
    free(phi);
}

/* ---- closed at the walls ----------------------------------------------- */

static void test_walls(void)
{
    enum { N = 24 };
    const double h = 1.0 / (N - 1);
    float *phi = malloc((size_t)N * N * N * sizeof(float));
    fl_field f = {.phi = phi, .dim = {N, N, N}, .origin = {0, 0, 0}, .spacing = h};
    fl_trimesh m;
    fl_error err;

    /* a box past the grid on every side: every node inside, at distance
     * h / 2 from the box's faces where it is nearest them */
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                int at[3] = {i, j, k};
                double d = 1e9;
                for (int a = 0; a < 3; a++) {
                    double x = at[a] * h, in = fmin(x + 0.5 * h, 1.0 + 0.5 * h - x);
                    d = fmin(d, in);
                }
                phi[i + N * (j + N * k)] = (float)-d;
            }
    ENSURE(fl_marching_cubes(&f, 0.0, &m, &err) == FL_OK);
    ENSURE(m.ntri == 0); /* nothing crosses inside the grid */
    fl_trimesh_free(&m);
    ENSURE(fl_marching_cubes(&f, h, &m, &err) == FL_OK);
    double vol;
    ENSURE(mesh_closed(&m, &vol, &err) == FL_OK);
    /* the wall nodes (phi = -h/2) and the pad (h) put the faces h/3
     * outside the grid: volume (1 + 2h/3)^3, less the chamfers at the
     * box's edges and corners, under 1 % here */
    double box = pow(1.0 + 2.0 * h / 3.0, 3.0);
    ENSURE(vol < box && vol > 0.99 * box);
    printf("box filling 24^3, padded: %d triangles, volume %.5f against %.5f\n", m.ntri, vol, box);
    fl_trimesh_free(&m);

    /* a layer of fluid on the floor, touching four walls: open without
     * padding, closed with it */
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++)
                phi[i + N * (j + N * k)] = (float)(j * h - 0.3);
    ENSURE(fl_marching_cubes(&f, 0.0, &m, &err) == FL_OK);
    ENSURE(m.ntri > 0 && mesh_closed(&m, NULL, &err) != FL_OK);
    fl_trimesh_free(&m);
    ENSURE(fl_marching_cubes(&f, h, &m, &err) == FL_OK);
    /* the fluid's 0.3 of the box, plus less than one spacing past each
     * wall it touches */
    ENSURE(mesh_closed(&m, &vol, &err) == FL_OK);
    ENSURE(vol > 0.3 && vol < (1.0 + 2.0 * h) * (1.0 + 2.0 * h) * (0.3 + h));
    printf("floor layer 24^3, padded: %d triangles, volume %.5f (fluid 0.3)\n", m.ntri, vol);
    fl_trimesh_free(&m);
    free(phi);
}

static void test_bad_input(void)
{
    float phi[8] = {-1, 1, 1, 1, 1, 1, 1, 1};
    fl_field f = {.phi = phi, .dim = {2, 2, 2}, .origin = {0, 0, 0}, .spacing = 1.0};
    fl_trimesh m;
    fl_error err;
    ENSURE(fl_marching_cubes(&f, -1.0, &m, &err) == FL_ERR_INPUT);
    ENSURE(fl_marching_cubes(&f, NAN, &m, &err) == FL_ERR_INPUT);
    f.spacing = 0.0;
    ENSURE(fl_marching_cubes(&f, 0.0, &m, &err) == FL_ERR_INPUT);
    f.spacing = 1.0;
    f.dim[1] = 1;
    ENSURE(fl_marching_cubes(&f, 0.0, &m, &err) == FL_ERR_INPUT);
    ENSURE(fl_marching_cubes(&f, 1.0, &m, &err) == FL_OK); /* one node thick, padded */
    ENSURE(m.ntri > 0 && mesh_closed(&m, NULL, &err) == FL_OK);
    fl_trimesh_free(&m);
    f.dim[1] = 2;
    phi[5] = NAN;
    ENSURE(fl_marching_cubes(&f, 0.0, &m, &err) == FL_ERR_INPUT);
    ENSURE(strstr(err.msg, "(1, 0, 1)") != NULL);
    ENSURE(m.nvert == 0 && m.ntri == 0 && m.pos == NULL);
}

/* ---- OBJ ----------------------------------------------------------------- */

/* A small OBJ reader for what fl_obj_write writes: counts the v, vn and f
 * lines, checks every face is "a//a b//b c//c" with 1-based indices in
 * range, and compares the values with m. Returns the number of problems. */
static int obj_problems(const char *path, const fl_trimesh *m, int *nv, int *nvn, int *nf)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 1;
    char line[256];
    int problems = 0, comments = 0;
    *nv = *nvn = *nf = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        float x, y, z;
        int a[6], used = 0;
        if (line[0] == '#') {
            comments++;
        } else if (sscanf(line, "v %f %f %f", &x, &y, &z) == 3) {
            const float *p = m->pos + 3 * (size_t)*nv;
            problems += *nv >= m->nvert || x != p[0] || y != p[1] || z != p[2];
            (*nv)++;
        } else if (sscanf(line, "vn %f %f %f", &x, &y, &z) == 3) {
            const float *p = m->normal + 3 * (size_t)*nvn;
            problems += *nvn >= m->nvert || x != p[0] || y != p[1] || z != p[2];
            (*nvn)++;
        } else if (sscanf(line, "f %d//%d %d//%d %d//%d%n", &a[0], &a[1], &a[2], &a[3], &a[4], &a[5], &used) == 6 &&
                   line[used] == '\n') {
            const int *t = m->tri + 3 * (size_t)*nf;
            for (int s = 0; s < 3; s++)
                problems += *nf >= m->ntri || a[2 * s] != a[2 * s + 1] || a[2 * s] != t[s] + 1;
            (*nf)++;
        } else {
            problems++;
        }
    }
    problems += comments == 0;
    fclose(f);
    return problems;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_obj(void)
{
    enum { N = 16 };
    const double h = 1.0 / (N - 1);
    float phi[N * N * N];
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                double x = i * h - 0.4, y = j * h - 0.5, z = k * h - 0.6;
                phi[i + N * (j + N * k)] = (float)(sqrt(x * x + 2.0 * y * y + z * z) - 0.3);
            }
    fl_field f = {.phi = phi, .dim = {N, N, N}, .origin = {-0.5, 1.0, 2.0}, .spacing = h};
    fl_trimesh m;
    fl_error err;
    ENSURE(fl_marching_cubes(&f, 0.0, &m, &err) == FL_OK);
    ENSURE(m.ntri > 100);

    char path[128], tmp[140];
    snprintf(path, sizeof path, "%s/surface.obj", scratch);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    ENSURE(fl_obj_write(path, &m, FL_OBJ_SURFACE, &err) == FL_OK);
    int nv, nvn, nf;
    ENSURE(obj_problems(path, &m, &nv, &nvn, &nf) == 0);
    ENSURE(nv == m.nvert && nvn == m.nvert && nf == m.ntri);
    ENSURE(!file_exists(tmp));
    /* and the project's reader (obj.h) takes it back, the same counts */
    fl_mesh back;
    ENSURE(fl_obj_read(path, &back, &err) == FL_OK);
    ENSURE(back.vertex_count == m.nvert && back.triangle_count == m.ntri);
    fl_mesh_free(&back);

    /* a folder that does not exist */
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no/such/folder/x.obj", scratch);
    ENSURE(fl_obj_write(missing, &m, FL_OBJ_SURFACE, &err) == FL_ERR_IO);
    ENSURE(strstr(err.msg, "cannot open") != NULL);

    /* the temporary file cannot be made (a folder is in its way): an
     * error, and the complete file from before is still there */
    ENSURE(mkdir(tmp, 0700) == 0);
    fl_trimesh empty = {0};
    ENSURE(fl_obj_write(path, &empty, FL_OBJ_SURFACE, &err) == FL_ERR_IO);
    ENSURE(obj_problems(path, &m, &nv, &nvn, &nf) == 0 && nf == m.ntri);
    ENSURE(rmdir(tmp) == 0);

    /* a full disk, where the system has /dev/full (the .tmp name made a
     * link to it): the error shows at the last flush or the close, the
     * .tmp is removed and no file appears at the path */
    if (access("/dev/full", W_OK) == 0) {
        char full[160];
        snprintf(full, sizeof full, "%s/full.obj", scratch);
        char full_tmp[170];
        snprintf(full_tmp, sizeof full_tmp, "%s.tmp", full);
        ENSURE(symlink("/dev/full", full_tmp) == 0);
        ENSURE(fl_obj_write(full, &m, FL_OBJ_SURFACE, &err) == FL_ERR_IO);
        ENSURE(strstr(err.msg, "write failed") != NULL);
        ENSURE(!file_exists(full));
        struct stat st;
        ENSURE(lstat(full_tmp, &st) != 0);
    }

    /* the same mesh as .vtp (vtp_write.h; VTK's reader checks its
     * contents in cli_frames): written whole, the counts in its header; a
     * time that is not finite refused; a full disk an error, nothing left */
    char vtp[160], vtp_tmp[170], head[512];
    snprintf(vtp, sizeof vtp, "%s/surface.vtp", scratch);
    snprintf(vtp_tmp, sizeof vtp_tmp, "%s.tmp", vtp);
    ENSURE(fl_vtp_write(vtp, &m, 0.25, &err) == FL_OK && !file_exists(vtp_tmp));
    FILE *vf = fopen(vtp, "r");
    ENSURE(vf != NULL);
    size_t got = vf ? fread(head, 1, sizeof head - 1, vf) : 0;
    head[got] = '\0';
    if (vf)
        fclose(vf);
    char counts[96];
    snprintf(counts, sizeof counts, "NumberOfPoints=\"%d\"", m.nvert);
    ENSURE(strstr(head, counts) != NULL && strstr(head, ">0.25</DataArray>") != NULL);
    ENSURE(fl_vtp_write(vtp, &m, NAN, &err) == FL_ERR_INPUT && strstr(err.msg, "not a finite number") != NULL);
    ENSURE(remove(vtp) == 0);
    if (access("/dev/full", W_OK) == 0) {
        ENSURE(symlink("/dev/full", vtp_tmp) == 0);
        ENSURE(fl_vtp_write(vtp, &m, 0.25, &err) == FL_ERR_IO && strstr(err.msg, "write failed") != NULL);
        ENSURE(!file_exists(vtp));
    }

    /* a triangle naming a vertex the mesh does not have */
    m.tri[0] = m.nvert;
    ENSURE(fl_obj_write(path, &m, FL_OBJ_SURFACE, &err) == FL_ERR_INPUT);
    ENSURE(fl_vtp_write(vtp, &m, 0.25, &err) == FL_ERR_INPUT);
    ENSURE(remove(path) == 0);
    fl_trimesh_free(&m);
}

int main(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/fl_test_marching_XXXXXX");
    if (mkdtemp(scratch) == NULL) {
        fprintf(stderr, "test_marching: cannot create a scratch folder under /tmp: %s\n", strerror(errno));
        return 1;
    }
    test_tables();
    test_all_cube_cases();
    test_random_fields();
    test_sphere();
    test_walls();
    test_bad_input();
    test_obj();
    ENSURE(rmdir(scratch) == 0); /* every test removed its files */
    return fl_test_report("test_marching");
}
