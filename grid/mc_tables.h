/* mc_tables.h: the geometry of one marching-cubes cube, as tables.
 *
 * A cube's corner c = x + 2 y + 4 z, with x, y, z in {0, 1} its offsets
 * from the cube's lowest node. Edge e = 4 a + r lies along axis a (0 x,
 * 1 y, 2 z) from corner fl_mc_edge_corner[e][0] to fl_mc_edge_corner[e][1]
 * (the lower node first). Face f = 2 a + s is the face normal to axis a at
 * its low (s = 0) or high (s = 1) side; its corners are listed
 * counter-clockwise seen from outside the cube, and face edge q joins face
 * corners q and q + 1 (mod 4). Every edge lies on two faces, which run
 * through it in opposite directions.
 *
 * There is no 256-case triangle table: marching.c derives each cube's
 * polygons from these tables and the face rule (docs/methods/surface.md),
 * and tests/test_marching.c checks the tables against the rules above. */
#ifndef FL_MC_TABLES_H
#define FL_MC_TABLES_H

#ifdef __cplusplus
extern "C" {
#endif

/* Offsets (x, y, z) of each corner from the cube's lowest node. */
extern const int fl_mc_corner_offset[8][3];

/* The corners at the ends of each edge, lower node first. */
extern const int fl_mc_edge_corner[12][2];

/* The corners of each face, counter-clockwise seen from outside. */
extern const int fl_mc_face_corner[6][4];

/* The edges of each face: edge q joins face corners q and q + 1 (mod 4). */
extern const int fl_mc_face_edge[6][4];

#ifdef __cplusplus
}
#endif

#endif
