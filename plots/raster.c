/* raster.c: the software rasteriser of raster.h. Triangles are filled by
 * edge functions over their bounding box, at pixel centres, with depth
 * and normal interpolated barycentrically; spheres are discs with the
 * normal of a sphere; edges are sampled every half pixel. Shading:
 * ambient, Lambert and a little Blinn-Phong highlight from one light
 * above, left of and in front of the viewer. */
#include "raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double dot3(const double a[3], const double b[3])
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void normalize3(double a[3])
{
    double n = sqrt(dot3(a, a));
    if (n > 0.0)
        a[0] /= n, a[1] /= n, a[2] /= n;
}

static void cross3(const double a[3], const double b[3], double out[3])
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static unsigned char to_byte(double v)
{
    return (unsigned char)(v <= 0.0 ? 0 : v >= 1.0 ? 255 : (int)(v * 255.0 + 0.5));
}

int fl_image_init(fl_image *im, int w, int h, fl_error *err)
{
    memset(im, 0, sizeof *im);
    if (w <= 0 || h <= 0 || (size_t)w * (size_t)h > ((size_t)1 << 28))
        return fl_fail(err, FL_ERR_INPUT, "an image of %d x %d pixels: expected 1 to 2^28 pixels", w, h);
    im->rgb = malloc((size_t)w * (size_t)h * 3);
    im->depth = malloc((size_t)w * (size_t)h * sizeof(float));
    if (!im->rgb || !im->depth) {
        fl_image_free(im);
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for an image of %d x %d pixels", w, h);
    }
    im->w = w, im->h = h;
    for (int y = 0; y < h; y++) {
        double t = (double)y / (double)(h > 1 ? h - 1 : 1);
        const unsigned char c[3] = {to_byte(0.96 - 0.14 * t), to_byte(0.97 - 0.12 * t), to_byte(0.99 - 0.09 * t)};
        for (int x = 0; x < w; x++) {
            memcpy(im->rgb + 3 * ((size_t)y * w + x), c, 3);
            im->depth[(size_t)y * w + x] = INFINITY;
        }
    }
    return FL_OK;
}

void fl_image_free(fl_image *im)
{
    free(im->rgb);
    free(im->depth);
    memset(im, 0, sizeof *im);
}

void fl_camera_frame(fl_camera *c, const double lo[3], const double hi[3], double az, double el, int w, int h)
{
    const double pi = 3.14159265358979323846, a = az * pi / 180.0, e = el * pi / 180.0;
    const double upw[3] = {0.0, 1.0, 0.0};
    c->fwd[0] = -sin(a) * cos(e), c->fwd[1] = -sin(e), c->fwd[2] = -cos(a) * cos(e);
    cross3(c->fwd, upw, c->right);
    normalize3(c->right);
    cross3(c->right, c->fwd, c->up);
    normalize3(c->up);
    double ex = 1e-9, ey = 1e-9;
    for (int a3 = 0; a3 < 3; a3++)
        c->centre[a3] = 0.5 * (lo[a3] + hi[a3]);
    for (int k = 0; k < 8; k++) {
        const double p[3] = {(k & 1 ? hi[0] : lo[0]) - c->centre[0], (k & 2 ? hi[1] : lo[1]) - c->centre[1],
                             (k & 4 ? hi[2] : lo[2]) - c->centre[2]};
        ex = fmax(ex, fabs(dot3(p, c->right)));
        ey = fmax(ey, fabs(dot3(p, c->up)));
    }
    c->scale = fmin(0.45 * w / ex, 0.45 * h / ey);
    c->w = w, c->h = h;
}

/* The screen position (x, y) and depth of world point p. */
static void project(const fl_camera *c, const double p[3], double s[3])
{
    const double d[3] = {p[0] - c->centre[0], p[1] - c->centre[1], p[2] - c->centre[2]};
    s[0] = 0.5 * c->w + c->scale * dot3(d, c->right);
    s[1] = 0.5 * c->h - c->scale * dot3(d, c->up);
    s[2] = dot3(d, c->fwd);
}

/* The colour rgb lit along the unit normal n (turned towards the viewer)
 * into pixel k of the image. */
static void shade(fl_image *im, size_t k, const fl_camera *c, double n[3], const float rgb[3])
{
    if (dot3(n, c->fwd) > 0.0)
        n[0] = -n[0], n[1] = -n[1], n[2] = -n[2];
    double l[3], hv[3];
    for (int a = 0; a < 3; a++)
        l[a] = -0.45 * c->fwd[a] + 0.8 * c->up[a] - 0.4 * c->right[a];
    normalize3(l);
    for (int a = 0; a < 3; a++)
        hv[a] = l[a] - c->fwd[a];
    normalize3(hv);
    const double diffuse = fmax(dot3(n, l), 0.0), spec = pow(fmax(dot3(n, hv), 0.0), 40.0);
    for (int a = 0; a < 3; a++)
        im->rgb[3 * k + a] = to_byte(rgb[a] * (0.28 + 0.72 * diffuse) + 0.35 * spec);
}

/* Area-weighted vertex normals of a mesh (fl_vertex_normals), 3 nvert, or
 * NULL without memory. */
static float *vertex_normals(const float *pos, int nvert, const int *tri, int ntri)
{
    float *n = malloc((size_t)(nvert > 0 ? nvert : 1) * 3 * sizeof(float));
    if (n)
        fl_vertex_normals(pos, nvert, tri, ntri, n);
    return n;
}

int fl_raster_triangles(fl_image *im, const fl_camera *c, const float *pos, const float *normal, int nvert,
                        const int *tri, int ntri, const float rgb[3], fl_error *err)
{
    float *own = NULL;
    if (!normal && !(normal = own = vertex_normals(pos, nvert, tri, ntri)))
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for the normals of %d vertices", nvert);
    for (int t = 0; t < ntri; t++) {
        const int *v = tri + 3 * (size_t)t;
        if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[0] >= nvert || v[1] >= nvert || v[2] >= nvert)
            continue;
        double s[3][3];
        for (int q = 0; q < 3; q++) {
            const double p[3] = {pos[3 * v[q]], pos[3 * v[q] + 1], pos[3 * v[q] + 2]};
            project(c, p, s[q]);
        }
        const double area = (s[1][0] - s[0][0]) * (s[2][1] - s[0][1]) - (s[2][0] - s[0][0]) * (s[1][1] - s[0][1]);
        if (fabs(area) < 1e-12)
            continue;
        int x0 = (int)floor(fmin(s[0][0], fmin(s[1][0], s[2][0]))), x1 = (int)ceil(fmax(s[0][0], fmax(s[1][0], s[2][0])));
        int y0 = (int)floor(fmin(s[0][1], fmin(s[1][1], s[2][1]))), y1 = (int)ceil(fmax(s[0][1], fmax(s[1][1], s[2][1])));
        x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
        x1 = x1 > im->w - 1 ? im->w - 1 : x1, y1 = y1 > im->h - 1 ? im->h - 1 : y1;
        for (int y = y0; y <= y1; y++)
            for (int x = x0; x <= x1; x++) {
                const double px = x + 0.5, py = y + 0.5;
                double b[3];
                for (int q = 0; q < 3; q++) {
                    const double *e0 = s[(q + 1) % 3], *e1 = s[(q + 2) % 3];
                    b[q] = ((e1[0] - e0[0]) * (py - e0[1]) - (px - e0[0]) * (e1[1] - e0[1])) / area;
                }
                if (b[0] < 0.0 || b[1] < 0.0 || b[2] < 0.0)
                    continue;
                const size_t k = (size_t)y * im->w + x;
                const double z = b[0] * s[0][2] + b[1] * s[1][2] + b[2] * s[2][2];
                if (z >= im->depth[k])
                    continue;
                im->depth[k] = (float)z;
                double n[3];
                for (int a = 0; a < 3; a++)
                    n[a] = b[0] * normal[3 * v[0] + a] + b[1] * normal[3 * v[1] + a] + b[2] * normal[3 * v[2] + a];
                normalize3(n);
                shade(im, k, c, n, rgb);
            }
    }
    free(own);
    return FL_OK;
}

int fl_raster_mesh(fl_image *im, const fl_camera *c, const fl_mesh *m, const float rgb[3], fl_error *err)
{
    float *pos = malloc((size_t)(m->vertex_count > 0 ? m->vertex_count : 1) * 3 * sizeof(float));
    if (!pos)
        return fl_fail(err, FL_ERR_MEMORY, "out of memory for a mesh of %d vertices", m->vertex_count);
    for (int v = 0; v < 3 * m->vertex_count; v++)
        pos[v] = (float)m->v[v];
    int rc = fl_raster_triangles(im, c, pos, NULL, m->vertex_count, m->tri, m->triangle_count, rgb, err);
    free(pos);
    return rc;
}

void fl_raster_spheres(fl_image *im, const fl_camera *c, const float *x, const float *y, const float *z, int n,
                       double radius, const float rgb[3])
{
    const double r = fmax(radius * c->scale, 0.5);
    for (int i = 0; i < n; i++) {
        const double p[3] = {x[i], y[i], z[i]};
        double s[3];
        project(c, p, s);
        int x0 = (int)floor(s[0] - r), x1 = (int)ceil(s[0] + r), y0 = (int)floor(s[1] - r), y1 = (int)ceil(s[1] + r);
        x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0;
        x1 = x1 > im->w - 1 ? im->w - 1 : x1, y1 = y1 > im->h - 1 ? im->h - 1 : y1;
        for (int py = y0; py <= y1; py++)
            for (int px = x0; px <= x1; px++) {
                const double u = (px + 0.5 - s[0]) / r, v = (py + 0.5 - s[1]) / r, d2 = u * u + v * v;
                if (d2 > 1.0)
                    continue;
                const double nz = sqrt(1.0 - d2), depth = s[2] - nz * radius;
                const size_t k = (size_t)py * im->w + px;
                if (depth >= im->depth[k])
                    continue;
                im->depth[k] = (float)depth;
                double nn[3];
                for (int a = 0; a < 3; a++)
                    nn[a] = u * c->right[a] - v * c->up[a] - nz * c->fwd[a];
                shade(im, k, c, nn, rgb);
            }
    }
}

void fl_raster_box(fl_image *im, const fl_camera *c, const double lo[3], const double hi[3], const float rgb[3])
{
    /* a line is hidden only behind what is more than two pixels nearer */
    const double bias = 2.0 / c->scale;
    const unsigned char col[3] = {to_byte(rgb[0]), to_byte(rgb[1]), to_byte(rgb[2])};
    for (int k = 0; k < 8; k++)
        for (int a = 0; a < 3; a++) {
            if (k & (1 << a))
                continue;
            const int m = k | (1 << a);
            const double p0[3] = {k & 1 ? hi[0] : lo[0], k & 2 ? hi[1] : lo[1], k & 4 ? hi[2] : lo[2]};
            const double p1[3] = {m & 1 ? hi[0] : lo[0], m & 2 ? hi[1] : lo[1], m & 4 ? hi[2] : lo[2]};
            double s0[3], s1[3];
            project(c, p0, s0);
            project(c, p1, s1);
            const int steps = 1 + (int)(2.0 * fmax(fabs(s1[0] - s0[0]), fabs(s1[1] - s0[1])));
            for (int q = 0; q <= steps; q++) {
                const double t = (double)q / steps;
                const int px = (int)floor(s0[0] + t * (s1[0] - s0[0])), py = (int)floor(s0[1] + t * (s1[1] - s0[1]));
                if (px < 0 || py < 0 || px >= im->w || py >= im->h)
                    continue;
                const size_t i = (size_t)py * im->w + px;
                if (s0[2] + t * (s1[2] - s0[2]) > im->depth[i] + bias)
                    continue;
                memcpy(im->rgb + 3 * i, col, 3);
            }
        }
}
