/* course.h: `fluidlab course`, the lessons of docs/course/ that follow the
 * course deck into the code: the list of lessons, each lesson's commands
 * (quick runs and the pictures they make, into DIR/N/), and --check, which
 * runs every lesson's exercises and compares each outcome with the one the
 * lesson states. Only bench/ prints. */
#ifndef FL_COURSE_H
#define FL_COURSE_H

/* argv are the words after "course". Returns an exit code: 0 when done
 * (--check: every stated outcome held), 1 on bad input, 2 when a command
 * of a lesson failed or its picture is missing, 3 when an exercise's
 * outcome did not hold, 4 when an exercise was not run (an interrupt),
 * 130 when a lesson's commands were interrupted.
 * Under mpirun, --check spreads the exercises over the ranks (dispatch.h). */
int fl_course_main(int argc, char **argv);

#endif
