/* trimesh.h: an indexed triangle mesh with per-vertex normals, as marching
 * cubes (marching.h) makes it and the OBJ writer (obj_write.h) writes it. */
#ifndef FL_TRIMESH_H
#define FL_TRIMESH_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fl_trimesh {
    int nvert;      /* vertices */
    int ntri;       /* triangles */
    float *pos;     /* 3 nvert: x, y, z of each vertex, m */
    float *normal;  /* 3 nvert: unit normal of each vertex, pointing outside (zero where
                       the field's gradient is zero) */
    int *tri;       /* 3 ntri: 0-based vertex ids, counter-clockwise seen from outside */
} fl_trimesh;

/* Frees the arrays of m and zeroes it (m may be zeroed already, or NULL). */
void fl_trimesh_free(fl_trimesh *m);

/* 1 when m's arrays are there for its counts and every triangle names
 * one of its vertices, else 0 (what the writers check first). */
int fl_trimesh_valid(const fl_trimesh *m);

#ifdef __cplusplus
}
#endif

#endif
