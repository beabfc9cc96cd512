/* mc_tables.c: the cube geometry of marching cubes (mc_tables.h). */
#include "mc_tables.h"

const int fl_mc_corner_offset[8][3] = {
    {0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1},
};

/* x edges (r = y + 2 z), then y edges (r = z + 2 x), then z edges (r = x + 2 y). */
const int fl_mc_edge_corner[12][2] = {
    {0, 1}, {2, 3}, {4, 5}, {6, 7},
    {0, 2}, {4, 6}, {1, 3}, {5, 7},
    {0, 4}, {1, 5}, {2, 6}, {3, 7},
};

/* -x, +x, -y, +y, -z, +z */
const int fl_mc_face_corner[6][4] = {
    {0, 4, 6, 2}, {1, 3, 7, 5},
    {0, 1, 5, 4}, {2, 6, 7, 3},
    {0, 2, 3, 1}, {4, 5, 7, 6},
};

const int fl_mc_face_edge[6][4] = {
    {8, 5, 10, 4}, {6, 11, 7, 9},
    {0, 9, 2, 8}, {10, 3, 11, 1},
    {4, 1, 6, 0}, {2, 7, 3, 5},
};
