/* pictures.h: the pictures of a run, drawn by gnuplot as it goes
 * (`fluidlab run --save png`, `--save grid`; docs/pictures.md):
 *  - frames/NNNN.png: the fluid's particles as discs coloured by a field
 *    (speed, density, pressure, vorticity, neighbor count), with a colour
 *    bar, axes in metres, the domain's outline and equal aspect; a 2D run
 *    face on, a 3D run as the slice |z - z_mid| < d of its particles (d the
 *    particle spacing, z_mid the domain's middle or --slice's plane). The
 *    numbers drawn are in
 *    frames/NNNN.csv (plots/particles.gp);
 *  - frames/NNNN_grid.csv and .png: a FLIP or PIC run's MAC grid, its
 *    middle z-slice (or --slice's): pressure with velocity arrows, and the divergence
 *    before and after the last projection of the step (plots/grid.gp),
 *    and the outlines of a rigid tool's surface and of the solid meshes'
 *    in the slice's plane (frames/NNNN_grid_tool.csv and
 *    NNNN_grid_meshes.csv) where it cuts them.
 * Every file is written whole or not at all: the CSV through a temporary
 * and a rename (fl_write_whole), the PNG by gnuplot into NNNN.png.tmp,
 * renamed when gnuplot has finished it. */
#ifndef FL_PICTURES_H
#define FL_PICTURES_H

#include "mac.h"
#include "nbgrid.h"
#include "world.h"

/* The fields --color takes, in the order of fl_color_names. */
typedef enum fl_color_field {
    FL_COLOR_SPEED,      /* |v|, m/s */
    FL_COLOR_DENSITY,    /* the shared poly6 estimator's density (fl_density_poly6), kg/m^3 (2D: kg/m^2) */
    FL_COLOR_PRESSURE,   /* the solver's particle pressure, Pa */
    FL_COLOR_VORTICITY,  /* the SPH curl of the velocity, 1/s: signed in 2D, its magnitude in 3D */
    FL_COLOR_NEIGHBORS,  /* fluid and boundary neighbours within h, itself excluded */
    FL_COLOR_COUNT
} fl_color_field;

/* "speed", "density", "pressure", "vorticity", "neighbors". */
extern const char *const fl_color_names[FL_COLOR_COUNT];

/* The field called name, or -1. */
int fl_color_find(const char *name);

/* What the particle pictures of a run need between frames: their own
 * neighbor grid (the density, vorticity and neighbor count are computed
 * with the shared estimator and kernels on it) and their scratch. */
typedef struct fl_pictures {
    fl_color_field field;
    double speed_max;   /* the speed colour bar's top: the stability criterion's speed scale U, m/s */
    char caption[300];  /* "<scene>, <solver>": the start of every title */
    int width, height;  /* the pictures' size, pixels: the domain's aspect with room for axes and colour bar */
    fl_nbgrid grid;
    float *rho;         /* per particle: density, kg/m^3 */
    float *value;       /* per particle: the field drawn */
    float *sorted;      /* the vorticity's colour bar: |value| of the particles drawn, sorted */
    double z_mid;       /* a 3D run's slice: the particles with |z - z_mid| < d */
} fl_pictures;

/* Sets up the pictures of the world w's fluid coloured by field, a 3D
 * run's slice about the plane z = slice (m; NaN: the domain's middle);
 * zeroed first, so that fl_pictures_free is safe after a failure.
 * FL_ERR_MEMORY with one line in err when they do not fit. */
int fl_pictures_init(fl_pictures *p, const fl_world *w, fl_color_field field, const char *caption, double slice,
                     fl_error *err);

/* DIR/frames/NNNN.csv (x, y, z and the field of each particle drawn) and
 * DIR/frames/NNNN.png, frame number frame of w. FL_ERR_IO naming the file
 * (gnuplot's failure included), FL_ERR_OUTSIDE when a particle left the
 * neighbor grid. */
int fl_pictures_particles(fl_pictures *p, const fl_world *w, const char *dir, int frame, fl_error *err);

void fl_pictures_free(fl_pictures *p);

/* DIR/frames/NNNN_grid.csv and DIR/frames/NNNN_grid.png: the z-slice of
 * g whose cells hold the plane z = slice (m; NaN: the middle one), g
 * keeping its divergences
 * (fl_mac_grid_keep_divergence), at w's time; caption starts the title.
 * With w's tool cut by the slice's plane, DIR/frames/NNNN_grid_tool.csv
 * too: the outline of its surface in that plane, as segments, drawn over
 * the cells; with solid meshes cut by it, NNNN_grid_meshes.csv, theirs. A
 * slice without FLUID is drawn too, and its title says so. FL_ERR_IO
 * naming the file. */
int fl_pictures_grid(const fl_mac_grid *g, const fl_world *w, double slice, const char *caption, const char *dir,
                     int frame, fl_error *err);

/* gnuplot runs script with vars ("NAME=VALUE", NULL-terminated; one of
 * them out=PATH.tmp) and PATH.tmp, once it ends as its format ends
 * (fl_plot_written), replaces path: a picture is never left half drawn. FL_ERR_IO naming path, with gnuplot's reason; its log
 * stays in PATH.log then. */
int fl_pictures_draw(const char *script, const char *path, const char *const *vars, fl_error *err);

/* The pictures' script: plots/<name> in the source tree. */
#define FL_PICTURES_SCRIPT(name) FL_SOURCE_DIR "/plots/" name

#endif
