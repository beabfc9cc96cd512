/* surface.h: `fluidlab surface RUN_DIR`: the fluid's surface rebuilt from
 * a run's saved particle frames after the fact (frames/NNNN.bin ->
 * frames/NNNN.obj, grid/blobby.h), the PIC/FLIP report's split of the
 * simulation and the reconstruction into two programs. Only bench/ prints. */
#ifndef FL_SURFACE_H
#define FL_SURFACE_H

/* `fluidlab surface`: argv are the words after "surface". Returns an exit
 * code: 0 done, 1 bad input (options, a missing folder, no frames, a frame
 * that cannot be read), 2 an OBJ could not be written, 130 / 143 stopped
 * by SIGINT / SIGTERM between two frames (fl_interrupt_install). */
int fl_surface_main(int argc, char **argv);

#endif
