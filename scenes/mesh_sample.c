/* mesh_sample.c: points covering a closed mesh's surface, moved inwards
 * (mesh_sample.h). Vertices, edges and face interiors are sampled
 * separately, so that no point is visited twice where faces meet. */
#include "mesh_sample.h"

#include <math.h>
#include <stdlib.h>

static void sub3(const double *a, const double *b, double out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = a[k] - b[k];
}

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* v / |v|, or 0 for a zero vector. */
static void normalize3(double v[3])
{
    double n = sqrt(dot3(v, v));
    for (int k = 0; k < 3; k++)
        v[k] = n > 0.0 ? v[k] / n : 0.0;
}

/* The distance to move a point along its unit mean normal mean so that it
 * lies inset from the plane of each face of normal n around it: inset /
 * (mean . n), the smallest of those dots taken, at least 1/2. */
static double mitre(double inset, double min_dot)
{
    return inset / fmax(min_dot, 0.5);
}

/* A directed edge of a triangle: its vertices in increasing order and the
 * triangle. The two triangles of an edge of a closed mesh sort side by side. */
typedef struct edge_ref {
    int lo, hi, tri;
} edge_ref;

static int edge_cmp(const void *pa, const void *pb)
{
    const edge_ref *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    if (a->hi != b->hi)
        return a->hi < b->hi ? -1 : 1;
    return (a->tri > b->tri) - (a->tri < b->tri);
}

/* Points strictly inside triangle (a, b, c) of unit normal n: rows
 * parallel to its longest edge, at most d apart, each cut by the other two
 * edges and divided into parts at most d long. */
static int visit_face(const double *p[3], const double n[3], double d, double inset,
                      fl_point_visitor visit, void *ctx)
{
    int e = 0;
    double len[3];
    for (int k = 0; k < 3; k++) {
        double s[3];
        sub3(p[(k + 1) % 3], p[k], s);
        len[k] = sqrt(dot3(s, s));
        if (len[k] > len[e])
            e = k;
    }
    const double *a = p[e], *b = p[(e + 1) % 3], *c = p[(e + 2) % 3];
    double ab[3], ac[3], bc[3], u[3], foot[3], height;
    sub3(b, a, ab);
    sub3(c, a, ac);
    sub3(c, b, bc);
    for (int k = 0; k < 3; k++)
        u[k] = len[e] > 0.0 ? ab[k] / len[e] : 0.0;
    for (int k = 0; k < 3; k++)
        foot[k] = ac[k] - dot3(ac, u) * u[k];
    height = sqrt(dot3(foot, foot));
    int rows = (int)fmax(1.0, ceil(height / d));
    for (int r = 1; r < rows; r++) {
        /* the row at r / rows of the way from edge ab to c, from edge ac to edge bc */
        double t = (double)r / rows, left[3], right[3], seg[3];
        for (int k = 0; k < 3; k++) {
            left[k] = a[k] + t * ac[k];
            right[k] = b[k] + t * bc[k];
        }
        sub3(right, left, seg);
        int parts = (int)fmax(1.0, ceil(sqrt(dot3(seg, seg)) / d));
        for (int q = 1; q < parts; q++) {
            double s = (double)q / parts, x[3];
            for (int k = 0; k < 3; k++)
                x[k] = left[k] + s * seg[k] - inset * n[k];
            int rc = visit(ctx, x);
            if (rc)
                return rc;
        }
    }
    return 0;
}

int fl_mesh_visit_surface(const fl_mesh *m, double d, double inset, fl_point_visitor visit,
                          void *ctx, fl_error *err)
{
    size_t nt = (size_t)m->triangle_count, nv = (size_t)m->vertex_count;
    double *fn = malloc((nt > 0 ? 3 * nt : 1) * sizeof *fn);
    double *vn = calloc(nv > 0 ? 3 * nv : 1, sizeof *vn);
    double *vdot = malloc((nv > 0 ? nv : 1) * sizeof *vdot);
    edge_ref *edges = malloc((nt > 0 ? 3 * nt : 1) * sizeof *edges);
    int rc = 0;
    if (!fn || !vn || !vdot || !edges) {
        rc = fl_fail(err, FL_ERR_MEMORY, "%s: out of memory sampling %zu triangles", m->source, nt);
        goto done;
    }
    /* Face normals, and vertex normals weighted by the faces' angles at the
     * vertex (independent of how a flat region is triangulated). */
    for (size_t t = 0; t < nt; t++) {
        const int *tri = m->tri + 3 * t;
        double e1[3], e2[3];
        sub3(m->v + 3 * (size_t)tri[1], m->v + 3 * (size_t)tri[0], e1);
        sub3(m->v + 3 * (size_t)tri[2], m->v + 3 * (size_t)tri[0], e2);
        cross3(e1, e2, fn + 3 * t);
        normalize3(fn + 3 * t);
        for (int k = 0; k < 3; k++) {
            double u[3], w[3];
            sub3(m->v + 3 * (size_t)tri[(k + 1) % 3], m->v + 3 * (size_t)tri[k], u);
            sub3(m->v + 3 * (size_t)tri[(k + 2) % 3], m->v + 3 * (size_t)tri[k], w);
            normalize3(u);
            normalize3(w);
            double angle = acos(fmax(-1.0, fmin(1.0, dot3(u, w))));
            for (int a = 0; a < 3; a++)
                vn[3 * (size_t)tri[k] + a] += angle * fn[3 * t + a];
            edges[3 * t + k].lo = tri[k] < tri[(k + 1) % 3] ? tri[k] : tri[(k + 1) % 3];
            edges[3 * t + k].hi = tri[k] < tri[(k + 1) % 3] ? tri[(k + 1) % 3] : tri[k];
            edges[3 * t + k].tri = (int)t;
        }
    }
    for (size_t v = 0; v < nv; v++) {
        normalize3(vn + 3 * v);
        vdot[v] = 1.0;
    }
    for (size_t t = 0; t < nt; t++)
        for (int k = 0; k < 3; k++) {
            size_t v = (size_t)m->tri[3 * t + k];
            vdot[v] = fmin(vdot[v], dot3(vn + 3 * v, fn + 3 * t));
        }

    /* The vertices the faces use, each once. */
    for (size_t v = 0; v < nv && !rc; v++) {
        const double *n = vn + 3 * v;
        if (dot3(n, n) == 0.0)
            continue;
        double x[3], by = mitre(inset, vdot[v]);
        for (int a = 0; a < 3; a++)
            x[a] = m->v[3 * v + a] - by * n[a];
        rc = visit(ctx, x);
    }

    /* Each edge once: its two triangles sort side by side. */
    qsort(edges, 3 * nt, sizeof *edges, edge_cmp);
    for (size_t q = 0; q + 1 < 3 * nt && !rc; q += 2) {
        const double *n1 = fn + 3 * (size_t)edges[q].tri, *n2 = fn + 3 * (size_t)edges[q + 1].tri;
        const double *a = m->v + 3 * (size_t)edges[q].lo, *b = m->v + 3 * (size_t)edges[q].hi;
        double mean[3], ab[3];
        for (int k = 0; k < 3; k++)
            mean[k] = n1[k] + n2[k];
        normalize3(mean);
        double by = mitre(inset, fmin(dot3(mean, n1), dot3(mean, n2)));
        sub3(b, a, ab);
        int parts = (int)fmax(1.0, ceil(sqrt(dot3(ab, ab)) / d));
        for (int s = 1; s < parts && !rc; s++) {
            double x[3];
            for (int k = 0; k < 3; k++)
                x[k] = a[k] + (double)s / parts * ab[k] - by * mean[k];
            rc = visit(ctx, x);
        }
    }

    for (size_t t = 0; t < nt && !rc; t++) {
        const double *p[3];
        for (int k = 0; k < 3; k++)
            p[k] = m->v + 3 * (size_t)m->tri[3 * t + k];
        rc = visit_face(p, fn + 3 * t, d, inset, visit, ctx);
    }
done:
    free(fn);
    free(vn);
    free(vdot);
    free(edges);
    return rc;
}
