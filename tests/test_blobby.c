/* test_blobby.c: the improved blobbies field and surface (grid/blobby.h).
 *  - the sampled field against a direct evaluation of the report's
 *    eqs. 18, 21 and 22 over every particle, at every node, for jittered
 *    particles (nodes near the edge of the search radius included);
 *  - the same field and mesh for 1 and 2 threads, bit for bit;
 *  - a box of particles on a lattice, free in space: the mesh is closed,
 *    its vertices away from the box's edges lie within half a particle
 *    spacing of the box's faces, inside them, with normals along the
 *    faces' normals; the enclosed volume lies between the box shrunk by
 *    half a spacing on every side and the box;
 *  - the same box in a domain, and cut by three of its walls (particles
 *    pressed against them): closed there too, between the walls and a
 *    grid spacing beyond them;
 *  - no particles: an empty mesh; bad parameters and a particle that is
 *    not finite: FL_ERR_INPUT.
 * With the arguments `check-obj D FRAME.bin FILE.obj` it checks an OBJ
 * that a run wrote (tests/cli_surface.sh): read back by fl_obj_read with
 * the counts its header states, closed, enclosing between half and all
 * of the particles' volume (n d^3, d the particle spacing). */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "blobby.h"
#include "ensure.h"
#include "io.h"
#include "mesh_check.h"
#include "obj.h"

#define FL_TEST_PI 3.14159265358979323846

/* A lattice of spacing d filling the box lo + [0, cells d] (particles at
 * the cells' centres), each moved by up to jitter d along each axis. */
static void lattice(fl_particles *p, const double lo[3], const int cells[3], double d, double jitter)
{
    fl_error err;
    unsigned state = 12345u;
    for (int k = 0; k < cells[2]; k++)
        for (int j = 0; j < cells[1]; j++)
            for (int i = 0; i < cells[0]; i++) {
                const int at[3] = {i, j, k};
                float x[3];
                for (int a = 0; a < 3; a++) {
                    state = state * 1664525u + 1013904223u;
                    double u = (state >> 8) / 16777216.0 - 0.5;
                    x[a] = (float)(lo[a] + d * (at[a] + 0.5 + 2.0 * jitter * u));
                }
                ENSURE(fl_particles_add(p, x[0], x[1], x[2], &err) == FL_OK);
            }
}

/* phi at x by eqs. 18, 21, 22 over all particles, in double. */
static double phi_direct(const fl_particles *p, const fl_blobby_def *def, const double x[3])
{
    const double R = def->support * def->spacing, r = def->radius * def->spacing;
    double W = 0.0, s[3] = {0.0, 0.0, 0.0};
    for (int i = 0; i < p->count; i++) {
        const double d[3] = {p->x[i] - x[0], p->y[i] - x[1], p->z[i] - x[2]};
        const double q = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) / (R * R);
        const double k = q < 1.0 ? (1.0 - q) * (1.0 - q) * (1.0 - q) : 0.0;
        W += k;
        for (int a = 0; a < 3; a++)
            s[a] += k * d[a];
    }
    return W > 0.0 ? sqrt(s[0] * s[0] + s[1] * s[1] + s[2] * s[2]) / W - r : R - r;
}

static void test_direct(void)
{
    fl_particles p;
    memset(&p, 0, sizeof p);
    const double lo[3] = {0.1, 0.2, 0.05};
    const int cells[3] = {6, 5, 7};
    lattice(&p, lo, cells, 0.02, 0.3);
    fl_blobby_def def = fl_default_blobby_def(0.013);
    fl_blobby_field f;
    fl_error err;
    ENSURE(fl_blobby_sample(&p, &def, NULL, &f, &err) == FL_OK);
    double worst = 0.0;
    int defined = 0, undefined = 0;
    const int *n = f.field.dim;
    for (int k = 0; k < n[2]; k++)
        for (int j = 0; j < n[1]; j++)
            for (int i = 0; i < n[0]; i++) {
                const double x[3] = {f.field.origin[0] + f.field.spacing * i, f.field.origin[1] + f.field.spacing * j,
                                     f.field.origin[2] + f.field.spacing * k};
                const double want = phi_direct(&p, &def, x);
                const double got = f.phi[(size_t)i + (size_t)n[0] * ((size_t)j + (size_t)n[1] * k)];
                worst = fmax(worst, fabs(got - want));
                defined += want < f.outside, undefined += want == f.outside;
            }
    printf("direct: %d x %d x %d nodes (%d reached, %d not), largest difference %.3g spacing\n", n[0], n[1], n[2],
           defined, undefined, worst / def.spacing);
    ENSURE(worst < 1e-5 * def.spacing);
    ENSURE(defined > 0 && undefined > 0);
    /* the grid covers the particles and R beyond: its boundary nodes are outside */
    ENSURE(f.phi[0] == (float)f.outside);
    fl_blobby_field_free(&f);
    fl_particles_free(&p);
}

static void test_threads(void)
{
    fl_particles p;
    memset(&p, 0, sizeof p);
    const double lo[3] = {0.0, 0.0, 0.0};
    const int cells[3] = {12, 9, 10};
    lattice(&p, lo, cells, 0.01, 0.4);
    const fl_box domain = {{0.0, 0.0, 0.0}, {0.2, 0.2, 0.2}};
    fl_blobby_def def = fl_default_blobby_def(0.005);
    fl_blobby_field f[2];
    fl_trimesh m[2];
    fl_error err;
    for (int t = 0; t < 2; t++) {
        omp_set_num_threads(t + 1);
        ENSURE(fl_blobby_sample(&p, &def, &domain, &f[t], &err) == FL_OK);
        ENSURE(fl_blobby_surface(&p, &def, &domain, &m[t], &err) == FL_OK);
    }
    const size_t nodes = (size_t)f[0].field.dim[0] * f[0].field.dim[1] * f[0].field.dim[2];
    ENSURE(memcmp(f[0].field.dim, f[1].field.dim, sizeof f[0].field.dim) == 0);
    ENSURE(memcmp(f[0].phi, f[1].phi, nodes * sizeof(float)) == 0);
    ENSURE(m[0].ntri > 0 && m[0].nvert == m[1].nvert && m[0].ntri == m[1].ntri);
    ENSURE(memcmp(m[0].pos, m[1].pos, 3 * (size_t)m[0].nvert * sizeof(float)) == 0);
    ENSURE(memcmp(m[0].normal, m[1].normal, 3 * (size_t)m[0].nvert * sizeof(float)) == 0);
    ENSURE(memcmp(m[0].tri, m[1].tri, 3 * (size_t)m[0].ntri * sizeof(int)) == 0);
    printf("threads: 1 and 2 give the same field (%zu nodes) and mesh (%d triangles)\n", nodes, m[0].ntri);
    for (int t = 0; t < 2; t++) {
        fl_blobby_field_free(&f[t]);
        fl_trimesh_free(&m[t]);
    }
    omp_set_num_threads(2);
    fl_particles_free(&p);
}

/* A box of particles at rest on a lattice of spacing d (cells across),
 * its low corner at lo, in domain (NULL: none). Checks the mesh closed;
 * each vertex away from the box's edges (farther than two spacings from
 * the other faces) within half a spacing of its nearest face and inside
 * it, its normal within 10 degrees of the face's normal; and the volume,
 * between the box shrunk by half a spacing on every free side and the
 * box. A domain whose low walls cut the box (particles pressed against
 * them): the surface closes at the walls, between the wall and the
 * padding's node a grid spacing beyond it, and the box is counted from
 * the walls on. */
static void check_box(const char *name, const double lo[3], const fl_box *domain)
{
    const double d = 0.02, edge = 2.0;
    const int cells[3] = {10, 8, 9};
    fl_particles p;
    memset(&p, 0, sizeof p);
    lattice(&p, lo, cells, d, 0.0);
    const fl_blobby_def def = fl_default_blobby_def(fl_blobby_default_spacing(d));
    fl_trimesh m;
    fl_error err;
    ENSURE(fl_blobby_surface(&p, &def, domain, &m, &err) == FL_OK);
    double vol = 0.0;
    int closed = mesh_closed(&m, &vol, &err) == FL_OK;
    ENSURE(closed);
    if (!closed)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    double far = 0.0, sum = 0.0, tilt = 0.0, from[3], hi[3], least = 1.0, most = 1.0;
    int wall[3], counted = 0, at_walls = 0, normals_ok = 1, walls_ok = 1;
    for (int a = 0; a < 3; a++) {
        hi[a] = lo[a] + cells[a] * d;
        wall[a] = domain && domain->lo[a] > lo[a];
        from[a] = wall[a] ? domain->lo[a] : lo[a];
        least *= hi[a] - from[a] - (wall[a] ? 0.5 : 1.0) * d;
        most *= hi[a] - from[a] + (wall[a] ? def.spacing : 0.0);
    }
    for (int v = 0; v < m.nvert; v++) {
        const float *x = m.pos + 3 * (size_t)v, *nv = m.normal + 3 * (size_t)v;
        int on_wall = 0;
        for (int b = 0; b < 3; b++) {
            walls_ok &= !wall[b] || x[b] >= from[b] - def.spacing; /* nothing beyond the padding */
            on_wall |= wall[b] && x[b] <= from[b];
        }
        if (on_wall) {
            at_walls++;
            continue;
        }
        /* the nearest face: axis a, side s (0 low, 1 high) */
        int a = 0, s = 0;
        double best = INFINITY;
        for (int b = 0; b < 3; b++)
            for (int t = 0; t < 2; t++) {
                double gap = fabs(x[b] - (t ? hi[b] : from[b]));
                if (gap < best)
                    best = gap, a = b, s = t;
            }
        int interior = 1;
        for (int b = 0; b < 3; b++)
            interior &= b == a || (x[b] > from[b] + edge * d && x[b] < hi[b] - edge * d);
        if (!interior)
            continue;
        const double inward = s ? hi[a] - x[a] : x[a] - from[a]; /* > 0: inside the box */
        far = fmax(far, fabs(inward));
        sum += inward;
        counted++;
        const double along = s ? nv[a] : -nv[a];
        tilt = fmax(tilt, acos(fmin(1.0, along)) * 180.0 / FL_TEST_PI);
        normals_ok &= along > cos(10.0 * FL_TEST_PI / 180.0);
        ENSURE(inward >= 0.0);
    }
    printf("%s: %d vertices, %d triangles, %s; %d face vertices: largest distance from the face %.3f d, mean "
           "%.3f d inside; normals within %.2f deg; %d vertices at the walls%s; volume %.4f of the box's, bounds "
           "%.4f and 1\n",
           name, m.nvert, m.ntri, closed ? "closed" : "OPEN", counted, far / d, sum / counted / d, tilt, at_walls,
           walls_ok ? "" : " (some off the walls)", vol / most, least / most);
    ENSURE(counted > 50);
    ENSURE(far < 0.5 * d);
    ENSURE(normals_ok);
    ENSURE(walls_ok);
    ENSURE((domain && domain->lo[0] > lo[0]) == (at_walls > 0));
    ENSURE(vol > least && vol < most);
    fl_trimesh_free(&m);
    fl_particles_free(&p);
}

static void test_box(void)
{
    const double lo[3] = {0.1, 0.1, 0.1};
    check_box("box in space", lo, NULL);
    const fl_box domain = {{0.0, 0.0, 0.0}, {0.5, 0.5, 0.5}};
    check_box("box in the domain", lo, &domain);
    const fl_box cut = {{0.15, 0.15, 0.15}, {0.5, 0.5, 0.5}};
    check_box("box cut by three walls", lo, &cut);
}

static void test_errors(void)
{
    fl_particles p;
    memset(&p, 0, sizeof p);
    fl_error err;
    fl_trimesh m;
    fl_blobby_def def = fl_default_blobby_def(0.01);
    ENSURE(fl_blobby_surface(&p, &def, NULL, &m, &err) == FL_OK && m.nvert == 0 && m.ntri == 0);
    fl_trimesh_free(&m);
    ENSURE(fl_particles_add(&p, 0.1f, 0.1f, 0.1f, &err) == FL_OK);
    ENSURE(fl_particles_add(&p, 0.2f, NAN, 0.1f, &err) == FL_OK);
    ENSURE(fl_blobby_surface(&p, &def, NULL, &m, &err) == FL_ERR_INPUT && strstr(err.msg, "particle 1"));
    ENSURE(m.nvert == 0 && m.pos == NULL);
    p.count = 1;
    def.radius = 3.0;
    ENSURE(fl_blobby_surface(&p, &def, NULL, &m, &err) == FL_ERR_INPUT);
    def = fl_default_blobby_def(0.0);
    ENSURE(fl_blobby_surface(&p, &def, NULL, &m, &err) == FL_ERR_INPUT);
    def = fl_default_blobby_def(1e-7); /* a grid of 1e12 nodes: refused before anything is allocated */
    p.x[0] = 0.0f, p.x[1] = 1.0f, p.y[1] = 1.0f, p.count = 2;
    ENSURE(fl_blobby_surface(&p, &def, NULL, &m, &err) == FL_ERR_MEMORY);
    fl_particles_free(&p);
}

/* check-obj D FRAME.bin FILE.obj: exit 0 when the OBJ holds the counts its
 * header states, is closed and encloses between half and all of n d^3. */
static int check_obj(const char *spacing, const char *frame, const char *path)
{
    fl_mesh m;
    fl_particles p;
    memset(&p, 0, sizeof p);
    fl_error err;
    if (fl_obj_read(path, &m, &err) != FL_OK || fl_frame_read_bin(frame, &p, NULL, &err) != FL_OK) {
        fprintf(stderr, "check-obj: %s\n", err.msg);
        return 1;
    }
    int nv = -1, nt = -1;
    FILE *f = fopen(path, "r");
    char line[256];
    while (f && fgets(line, sizeof line, f) && line[0] == '#')
        if (sscanf(line, "# %d vertices, %d triangles", &nv, &nt) == 2)
            break;
    if (f)
        fclose(f);
    const double d = atof(spacing), particles = p.count * d * d * d;
    const int closed = fl_mesh_check_closed(&m, &err) == FL_OK;
    const double vol = fl_mesh_volume(&m);
    printf("%s: %d vertices, %d triangles (header: %d, %d), %s, volume %.4f of the particles' n d^3\n", path,
           m.vertex_count, m.triangle_count, nv, nt, closed ? "closed" : err.msg, vol / particles);
    const int ok = nv == m.vertex_count && nt == m.triangle_count && nt > 0 && closed && vol > 0.5 * particles &&
                   vol < particles;
    fl_mesh_free(&m);
    fl_particles_free(&p);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "check-obj") == 0)
        return check_obj(argv[2], argv[3], argv[4]);
    test_direct();
    test_threads();
    test_box();
    test_errors();
    return fl_test_report("test_blobby");
}
