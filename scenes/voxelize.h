/* voxelize.h: a closed triangle mesh (obj.h) filled onto a regular grid.
 *
 * A cell is inside when its centre is inside the mesh, decided by the
 * parity of the mesh's crossings along the cell's x row; rays through
 * vertices and edges are resolved exactly (integer orientation tests on
 * coordinates snapped to 1/16384 of a cell, ties broken by a simulated
 * perturbation of the ray). docs/methods/voxelize.md gives the method.
 *
 * The fill needs a closed mesh: an open or non-manifold one is refused with
 * fl_mesh_check_closed's message, since its inside is not defined. */
#ifndef FL_VOXELIZE_H
#define FL_VOXELIZE_H

#include "obj.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Cells along each axis, and the distance in cells of any mesh vertex from
 * the grid's origin in y and z, are limited to this (so that the exact
 * tests fit in 64-bit integers). */
#define FL_VOXEL_MAX_CELLS 32768

/* A regular grid: cell (i, j, k) spans origin + [i, i+1) x [j, j+1) x
 * [k, k+1) times spacing, for 0 <= i < dims[0] and so on; its centre is
 * origin + (i + 1/2, j + 1/2, k + 1/2) spacing. */
typedef struct fl_voxel_grid {
    double origin[3]; /* the grid's lower corner, in the mesh's units */
    double spacing;   /* the cell's edge */
    int dims[3];      /* cells along x, y and z */
} fl_voxel_grid;

/* FL_OK for a grid of a positive spacing, a finite origin and 1 to
 * FL_VOXEL_MAX_CELLS cells along each axis, else FL_ERR_INPUT with what is
 * wrong (m names the mesh in the message). fl_voxelize checks it first. */
int fl_voxel_grid_check(const fl_mesh *m, const fl_voxel_grid *g, fl_error *err);

/* Marks inside[i + dims[0] (j + dims[1] k)] with 1 when the centre of cell
 * (i, j, k) is inside the mesh, else 0 (inside holds dims[0] dims[1]
 * dims[2] bytes). Columns run in parallel (OpenMP); the result does not
 * depend on the thread count. Fails with FL_ERR_INPUT for an open or
 * non-manifold mesh, a bad grid or a mesh too far from the grid, and with
 * FL_ERR_MEMORY. */
int fl_voxelize(const fl_mesh *m, const fl_voxel_grid *g, unsigned char *inside, fl_error *err);

/* The centres of the cells inside, as fl_voxelize marks them, x-fastest
 * (i, then j, then k): *points receives 3 *count doubles (x, y, z of each
 * centre) to be released with free(), NULL when count is 0. Fails as
 * fl_voxelize does, leaving *points NULL and *count 0. */
int fl_voxelize_points(const fl_mesh *m, const fl_voxel_grid *g, double **points, int *count,
                       fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
