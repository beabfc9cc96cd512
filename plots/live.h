/* live.h: the live plot of `--plot live`: a gnuplot process, opened with
 * popen, fed the run's compression error (avg and max, %) and max speed
 * against simulated time as the run goes. It draws in a window (the qt or
 * x11 terminal) when DISPLAY is set and gnuplot has one, otherwise as text
 * on stdout (the dumb terminal, sized to the console). Redraws are
 * throttled (a window at most 4 times a second, the text every 2 s) and the
 * last one comes at the close. While a plot is open SIGPIPE is ignored, so
 * that a gnuplot that dies only stops the plot, not the run. */
#ifndef FL_LIVE_H
#define FL_LIVE_H

typedef struct fl_live_plot fl_live_plot;

/* Starts gnuplot for a plot titled title. NULL, with one line in msg (len
 * bytes), when gnuplot is not installed or cannot be started. */
fl_live_plot *fl_live_open(const char *title, char *msg, int len);

/* 1 when the plot is drawn as text on stdout (the dumb terminal), 0 in a window. */
int fl_live_text(const fl_live_plot *lp);

/* Adds the sample of one step: simulated time t (s), avg and max
 * compression error (fractions; plotted in %), max speed (m/s). Long runs
 * are thinned to at most 2048 points (neighbouring steps merged: the mean of
 * avg, the largest max and speed). */
void fl_live_add(fl_live_plot *lp, double t, double err_avg, double err_max, double max_speed);

/* 1 when a redraw is due: the last one is old enough (throttled, see above)
 * and there are two points to draw. */
int fl_live_due(const fl_live_plot *lp);

/* Draws the samples so far. A text plot is all on stdout when this returns
 * (gnuplot confirms it, or 5 s have passed), so that the caller may write
 * to the console again. */
void fl_live_draw(fl_live_plot *lp);

/* Draws all samples, closes gnuplot and waits for it (a window stays open:
 * the terminal is set to persist, and is not raised at each redraw).
 * Returns 0, or non-zero with one line in msg when gnuplot failed on the
 * way. Sets *lp to NULL; NULL is allowed. */
int fl_live_close(fl_live_plot **lp, char *msg, int len);

#endif
