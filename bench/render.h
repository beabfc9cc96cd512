/* render.h: `fluidlab render RUN_DIR` (render.c). */
#ifndef FL_RENDER_H
#define FL_RENDER_H

/* The command with its arguments after `render`; the exit code. */
int fl_render_main(int argc, char **argv);

#endif
