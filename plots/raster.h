/* raster.h: pictures of the fluid without a GUI: a small software
 * rasteriser (an orthographic camera, a depth buffer, one directional
 * light) that draws triangle meshes (a reconstructed surface), particles
 * (as shaded spheres) and the domain's edges into an RGB image, which
 * plots/png.h writes. docs/methods/surface.md, "Pictures". */
#ifndef FL_RASTER_H
#define FL_RASTER_H

#include "fl_common.h"
#include "mesh.h"

/* An RGB image, 8 bits a channel, rows top to bottom, with its depth
 * buffer (the distance along the view of the nearest thing drawn). */
typedef struct fl_image {
    int w, h;
    unsigned char *rgb; /* 3 w h */
    float *depth;       /* w h */
} fl_image;

/* A w x h image cleared to a light grey gradient, depth at infinity;
 * FL_ERR_MEMORY (and an empty image) when it does not fit. */
int fl_image_init(fl_image *im, int w, int h, fl_error *err);
void fl_image_free(fl_image *im);

/* An orthographic view: pixel (px, py) and depth of a world point p are
 * (w/2 + s (p - c).right, h/2 - s (p - c).up, (p - c).fwd); fwd points
 * away from the viewer. */
typedef struct fl_camera {
    double right[3], up[3], fwd[3];
    double centre[3];
    double scale; /* pixels a metre */
    int w, h;
} fl_camera;

/* The camera looking at the box [lo, hi] from azimuth az (degrees about
 * the vertical y axis, 0: looking along -z) and elevation el (degrees
 * above the horizontal), the box's projection fitted into a w x h image
 * with a margin of 5 %. */
void fl_camera_frame(fl_camera *c, const double lo[3], const double hi[3], double az, double el, int w, int h);

/* Triangles (tri: 3 ntri vertex indices into pos, 3 nvert floats) in the
 * colour rgb (0-1), lit with the normals given (3 nvert, unit) or, when
 * normal is NULL, the area-weighted vertex normals of the mesh; both
 * sides lit (the side towards the viewer). Out-of-range indices are
 * skipped. FL_ERR_MEMORY when the computed normals do not fit. */
int fl_raster_triangles(fl_image *im, const fl_camera *c, const float *pos, const float *normal, int nvert,
                        const int *tri, int ntri, const float rgb[3], fl_error *err);

/* A triangle mesh (double vertices, as the OBJ reader gives them) drawn
 * as fl_raster_triangles draws one, with its area-weighted normals;
 * FL_ERR_MEMORY when its float copy does not fit. */
int fl_raster_mesh(fl_image *im, const fl_camera *c, const fl_mesh *m, const float rgb[3], fl_error *err);

/* n spheres of the given radius at (x, y, z), shaded, in the colour rgb. */
void fl_raster_spheres(fl_image *im, const fl_camera *c, const float *x, const float *y, const float *z, int n,
                       double radius, const float rgb[3]);

/* The twelve edges of the box [lo, hi], hidden where something drawn is
 * in front of them. */
void fl_raster_box(fl_image *im, const fl_camera *c, const double lo[3], const double hi[3], const float rgb[3]);

#endif
