/* transfer.h: the particle/grid velocity transfers of PIC/FLIP on the MAC
 * grid (the PIC/FLIP report of Englesson, Kilby & Ek 2011, sections 3.2.3 and
 * 3.2.8; Zhu & Bridson 2005).
 *
 * P2G: each face velocity is the trilinear-weighted average of the particle
 * velocities within one cell of the face in every axis (the cube two cells
 * wide centred on the face that the report describes): u_f = sum_p W_fp u_p /
 * sum_p W_fp, the weight sums kept in the grid (wu, wv, ww). G2P: trilinear
 * interpolation of the eight faces around the particle, per component (the
 * report's lerp() in its equation 17).
 *
 * Both accept positions anywhere inside the grid box (the domain and its
 * SOLID layer); within half a cell of the box's faces the stencil is
 * clamped, but across a periodic axis's faces (mac.h), where it wraps. A
 * position outside the box, or NaN, makes them return FL_ERR_OUTSIDE
 * before anything is written. */
#ifndef FL_TRANSFER_H
#define FL_TRANSFER_H

#include "mac.h"

#ifdef __cplusplus
extern "C" {
#endif

/* g->u, v, w (m/s) from n particles at (x, y, z) (m) with velocities
 * (vx, vy, vz) (m/s); a face with no particle within reach gets 0 and a
 * zero weight sum. Deterministic: each face is summed in particle order
 * (the threads own slabs of face layers along z, balanced by particle
 * count), the same result on any number of threads. */
int fl_transfer_p2g(fl_mac_grid *g, const float *x, const float *y, const float *z, const float *vx,
                    const float *vy, const float *vz, int n, fl_error *err);

/* (vx, vy, vz)[p] = the trilinear interpolation at (x, y, z)[p] of the face
 * fields u, v, w laid out as g's (m/s): g->u, v, w for PIC, or a saved copy
 * of them to take the FLIP change. */
int fl_transfer_g2p(const fl_mac_grid *g, const double *u, const double *v, const double *w,
                    const float *x, const float *y, const float *z, int n, float *vx, float *vy,
                    float *vz, fl_error *err);

/* fl_transfer_g2p of two sets of face fields a and b (each u, v, w) at the
 * same positions, into out_a and out_b (each vx, vy, vz): one stencil per
 * particle and component serves both (PIC velocity and FLIP change). */
int fl_transfer_g2p_pair(const fl_mac_grid *g, const double *const a[3], const double *const b[3],
                         const float *x, const float *y, const float *z, int n, float *const out_a[3],
                         float *const out_b[3], fl_error *err);

#ifdef __cplusplus
}
#endif

#endif
