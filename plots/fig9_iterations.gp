# fig9_iterations.gp: figure 9 of `fluidlab figures` (pressure-solve
# iterations and time against grid size).
#
# Left: iterations to a relative residual of 1e-6 against the cells per
# edge of the grid; right: the linear solve's seconds; log-log, one line
# per preconditioner, from
# DIR/fig9_iterations.csv: one block per preconditioner (header "cells per
# edge,<name>,seconds,fluid cells"; n, iterations, seconds, fluid cells),
# blocks separated by two blank lines.
#
# Usage (gnuplot 5.4), DIR the figures folder (default out/figures):
#   gnuplot -e "dir='DIR'" -e "fmt='png'" plots/fig9_iterations.gp    # DIR/fig9_iterations.png
#   gnuplot -e "dir='DIR'" -e "fmt='svg'" plots/fig9_iterations.gp    # DIR/fig9_iterations.svg
# A missing or empty input stops gnuplot with one line and a non-zero exit.

if (!exists("dir")) dir = "out/figures"
if (!exists("fmt")) fmt = "png"
name = "fig9_iterations"
width = 1200
height = 520
load system(sprintf("dirname '%s'", ARG0)) . "/setup_figure.gp"

set multiplot layout 1,2 title "Pressure solve to 1e-6 against grid size: the dam break's first projection (figure 9)"
set logscale xy 2
set xlabel "grid cells per edge (n^3 grid)"
set key top left
set xtics (16, 32, 64, 128, 256)
stats data_file using 1 name "X" nooutput
set xrange [X_min / 1.3:X_max * 1.3]
set title "iterations"
set ylabel "iterations"
plot for [i=0:S_blocks-1] data_file index i using 1:2 with linespoints lw 1.5 pt 7 title columnheader(2)
set title "time of the linear solve"
set logscale y 10
set format y "%g"
set ylabel "seconds"
plot for [i=0:S_blocks-1] data_file index i using 1:3 with linespoints lw 1.5 pt 7 title columnheader(2)
unset multiplot
unset output
