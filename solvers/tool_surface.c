/* tool_surface.c: the rigid tool's surface as a triangle mesh at a pose
 * (tool.h, fl_tool_surface): what a run saves beside each frame, so that
 * the pictures and other tools show where the tool was. */
#include "tool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* a sphere: latitude bands between its poles, and points on each circle */
#define SURFACE_RINGS 24
#define SURFACE_SEGMENTS 48

static int surface_alloc(fl_trimesh *m, int nvert, int ntri, fl_error *err)
{
    memset(m, 0, sizeof *m);
    m->pos = malloc((size_t)nvert * 3 * sizeof(float));
    m->normal = malloc((size_t)nvert * 3 * sizeof(float));
    m->tri = malloc((size_t)ntri * 3 * sizeof(int));
    if (!m->pos || !m->normal || !m->tri) {
        fl_trimesh_free(m);
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the tool's surface of %d triangles", ntri);
    }
    m->nvert = nvert, m->ntri = ntri;
    return FL_OK;
}

static void set_vertex(fl_trimesh *m, int k, double x, double y, double z, double nx, double ny, double nz)
{
    m->pos[3 * k] = (float)x, m->pos[3 * k + 1] = (float)y, m->pos[3 * k + 2] = (float)z;
    m->normal[3 * k] = (float)nx, m->normal[3 * k + 1] = (float)ny, m->normal[3 * k + 2] = (float)nz;
}

/* Triangle k as (a, b, c), turned counter-clockwise seen from outside a
 * convex surface about the origin: its normal points away from it. */
static void set_outward(fl_trimesh *m, int k, int a, int b, int c)
{
    const float *p = m->pos, *A = p + 3 * a, *B = p + 3 * b, *C = p + 3 * c;
    const double u[3] = {B[0] - A[0], B[1] - A[1], B[2] - A[2]}, v[3] = {C[0] - A[0], C[1] - A[1], C[2] - A[2]};
    const double n[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
    const double out = n[0] * (A[0] + B[0] + C[0]) + n[1] * (A[1] + B[1] + C[1]) + n[2] * (A[2] + B[2] + C[2]);
    m->tri[3 * k] = a, m->tri[3 * k + 1] = out >= 0.0 ? b : c, m->tri[3 * k + 2] = out >= 0.0 ? c : b;
}

/* A sphere of radius r about the origin: the poles on the y axis, rings of
 * SURFACE_SEGMENTS points between them, the normals exact. */
static int sphere_surface(double r, fl_trimesh *m, fl_error *err)
{
    const int R = SURFACE_RINGS, S = SURFACE_SEGMENTS, nvert = 2 + (R - 1) * S;
    int rc = surface_alloc(m, nvert, 2 * S * (R - 1), err);
    if (rc)
        return rc;
    const double pi = 3.14159265358979323846;
    set_vertex(m, 0, 0.0, r, 0.0, 0.0, 1.0, 0.0);
    set_vertex(m, nvert - 1, 0.0, -r, 0.0, 0.0, -1.0, 0.0);
    for (int i = 1; i < R; i++)
        for (int j = 0; j < S; j++) {
            const double th = pi * i / R, ph = 2.0 * pi * j / S;
            const double n[3] = {sin(th) * cos(ph), cos(th), sin(th) * sin(ph)};
            set_vertex(m, 1 + (i - 1) * S + j, r * n[0], r * n[1], r * n[2], n[0], n[1], n[2]);
        }
    int k = 0;
    for (int j = 0; j < S; j++) {
        const int j1 = (j + 1) % S;
        set_outward(m, k++, 0, 1 + j, 1 + j1);
        set_outward(m, k++, nvert - 1, 1 + (R - 2) * S + j, 1 + (R - 2) * S + j1);
        for (int i = 1; i < R - 1; i++) {
            const int a = 1 + (i - 1) * S, b = 1 + i * S;
            set_outward(m, k++, a + j, b + j, b + j1);
            set_outward(m, k++, a + j, b + j1, a + j1);
        }
    }
    return FL_OK;
}

/* A box of half extents h about the origin: four vertices a face, so that
 * each face keeps its own normal. */
static int box_surface(const float h[3], fl_trimesh *m, fl_error *err)
{
    int rc = surface_alloc(m, 24, 12, err);
    if (rc)
        return rc;
    static const int corner[4][2] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
    for (int f = 0; f < 6; f++) {
        const int a = f / 2, b = (a + 1) % 3, c = (a + 2) % 3, s = f % 2 ? 1 : -1;
        for (int q = 0; q < 4; q++) {
            double p[3], n[3] = {0.0, 0.0, 0.0};
            p[a] = s * h[a], p[b] = corner[q][0] * h[b], p[c] = corner[q][1] * h[c], n[a] = s;
            set_vertex(m, 4 * f + q, p[0], p[1], p[2], n[0], n[1], n[2]);
        }
        set_outward(m, 2 * f, 4 * f, 4 * f + 1, 4 * f + 2);
        set_outward(m, 2 * f + 1, 4 * f, 4 * f + 2, 4 * f + 3);
    }
    return FL_OK;
}

/* A mesh tool's own mesh (outward, its centroid at the origin), with
 * area-weighted vertex normals (fl_vertex_normals). */
static int mesh_surface(const fl_mesh *own, fl_trimesh *m, fl_error *err)
{
    int rc = surface_alloc(m, own->vertex_count, own->triangle_count, err);
    if (rc)
        return rc;
    for (int k = 0; k < 3 * own->vertex_count; k++)
        m->pos[k] = (float)own->v[k];
    memcpy(m->tri, own->tri, (size_t)own->triangle_count * 3 * sizeof(int));
    fl_vertex_normals(m->pos, m->nvert, m->tri, m->ntri, m->normal);
    return FL_OK;
}

int fl_tool_surface(const fl_tool *t, const fl_tool_pose *pose, fl_trimesh *m, fl_error *err)
{
    const fl_tool_shape *s = &t->spec.shape;
    int rc = s->kind == FL_TOOL_SPHERE ? sphere_surface(s->radius, m, err)
             : s->kind == FL_TOOL_BOX  ? box_surface(s->half, m, err)
                                       : mesh_surface(&t->own, m, err);
    if (rc)
        return rc;
    /* from the own frame to the world: x = c + rot o, n = rot n */
    for (int k = 0; k < m->nvert; k++) {
        float *x = m->pos + 3 * k, *n = m->normal + 3 * k, o[3], u[3];
        memcpy(o, x, sizeof o);
        memcpy(u, n, sizeof u);
        for (int a = 0; a < 3; a++) {
            const float *r = pose->rot + 3 * a;
            x[a] = pose->c[a] + r[0] * o[0] + r[1] * o[1] + r[2] * o[2];
            n[a] = r[0] * u[0] + r[1] * u[1] + r[2] * u[2];
        }
    }
    return FL_OK;
}
