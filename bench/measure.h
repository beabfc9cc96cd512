/* measure.h: measurements of a world that the tests and the course's
 * exercises share: the hydrostatic pressure slope and the lattice's
 * gradient factor kappa (docs/methods/sph.md, section 5). */
#ifndef FL_MEASURE_H
#define FL_MEASURE_H

#include "world.h"

/* kappa = sum_j V (y_j - y_i) [grad_i W_ij]_y over a full lattice
 * neighborhood (cubic, or square when dims is 2) of spacing d, V = mass /
 * rho0, spiky at support h: the symmetric pressure force reads a linear
 * pressure field p = c y as kappa c, so a column at rest has dp/depth =
 * rho0 g / kappa (kappa is 1 for an exact gradient; 0.947 for spiky at
 * h = 2d, 0.874 on the square lattice). */
double fl_lattice_gradient_factor(double d, double h, double mass, double rho0, int dims);

/* Least-squares slope, Pa/m, of the fluid particles' pressure against
 * their depth below the highest particle, over the particles more than 2h
 * below the surface and above the floor y = 2h. */
double fl_pressure_slope(const fl_world *w);

#endif
